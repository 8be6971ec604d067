"""The catalogue checker (tests/catalogue.py) itself: it names every failing entry, not the first."""

from __future__ import annotations

import pytest

from tests.catalogue import check_every


def test_every_failing_entry_is_named_in_one_failure(capsys: pytest.CaptureFixture[str]) -> None:
    def check(n: int) -> None:
        assert n % 3, f"{n} is a multiple of three"

    with pytest.raises(pytest.fail.Exception) as failed:
        check_every(range(1, 10), check, name=lambda n: f"entry {n}")
    text = str(failed.value)
    assert text.startswith("3 of 9 failing:")
    for n in (3, 6, 9):
        assert f"entry {n}: {n} is a multiple of three" in text
    assert "entry 4" not in text
    assert capsys.readouterr().out.splitlines()[0].startswith("entry 3: 3 is a multiple of three")


def test_an_exception_is_a_failure_of_its_entry() -> None:
    with pytest.raises(pytest.fail.Exception) as failed:
        check_every(["a", "b"], lambda key: {"a": 1}[key])
    assert str(failed.value) == "1 of 2 failing:\nb: KeyError: 'b'"


def test_a_passing_catalogue_passes_and_an_empty_one_does_not() -> None:
    seen: list[str] = []
    check_every(["a", "b"], seen.append)
    assert seen == ["a", "b"]
    with pytest.raises(AssertionError, match="empty"):
        check_every([], seen.append)
