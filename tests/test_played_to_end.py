"""``played_to_end`` in the JSON of ``fight --exact``, ``sweep`` and ``matrix`` (D-12 and the
decision in docs/rules.md: d20 exact odds are the fight played to the end unless ``--cap N``):
true exactly when the odds are of the fight played to the end, so that a tool reading ``cap``
knows whether a draw can come from it."""

from __future__ import annotations

import pytest

import sevendag_cli as sd


@pytest.mark.parametrize(("ruleset", "cap", "expected"), [
    ("d20", None, True),
    ("d20", 30, False),
    ("sevendag", None, False),
])
def test_D12_fight_exact_says_whether_the_fight_is_played_to_the_end(
        ruleset: str, cap: int | None, expected: bool) -> None:
    doc = sd.matchup(ruleset=ruleset).exact(cap=cap).to_dict()
    assert doc["played_to_end"] is expected
    if expected:
        assert doc["draw_probability"] == 0.0


@pytest.mark.parametrize(("ruleset", "options", "expected"), [
    ("d20", {}, True),
    ("d20", {"cap": 30}, False),
    ("d20", {"runs": 500, "seed": 1}, False),
])
def test_D12_sweep_says_whether_its_odds_are_played_to_the_end(
        ruleset: str, options: dict[str, int], expected: bool) -> None:
    doc = sd.matchup(ruleset=ruleset).sweep("A.ac", "5..6", **options).to_dict()
    assert doc["played_to_end"] is expected


def test_sevendag_sweep_is_never_played_to_the_end() -> None:
    doc = sd.matchup(ruleset="sevendag").sweep("Brannoc.attack", "8..9").to_dict()
    assert doc["played_to_end"] is False


@pytest.mark.parametrize(("options", "expected"), [
    ({}, True), ({"cap": 30}, False), ({"runs": 300, "seed": 2}, False)])
def test_D12_matrix_says_whether_its_cells_are_played_to_the_end(
        options: dict[str, int], expected: bool) -> None:
    doc = sd.matrix(["A", "B"], "d20", jobs=1, **options).to_dict()
    assert doc["played_to_end"] is expected
