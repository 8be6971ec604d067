"""One test per catalogue: check every entry, then report every failing one at once.

A catalogue check (every message key in both languages, every schema valid...) is one test that
loops over the catalogue, so a run with ten broken keys names the ten keys in one failure instead
of ten tests, and the suite does not grow by one test per key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

import pytest

T = TypeVar("T")


def check_every(items: Iterable[T], check: Callable[[T], None],
                name: Callable[[T], str] = str) -> None:
    """Run ``check`` (plain asserts) on every item; fail once, naming each failing item and why
    (an exception other than an assert counts as a failure of that item too)."""
    failures: list[str] = []
    count = 0
    for item in items:
        count += 1
        try:
            check(item)
        except Exception as exc:  # an assert, or a lookup that fails (a missing key is a failure too)
            why = str(exc).strip() or "assertion failed"
            if not isinstance(exc, AssertionError):
                why = f"{type(exc).__name__}: {why}"
            failures.append(f"{name(item)}: " + why.replace("\n", "\n    "))
    assert count > 0, "the catalogue is empty"
    if failures:
        for line in failures:
            print(line)
        pytest.fail(f"{len(failures)} of {count} failing:\n" + "\n".join(failures), pytrace=False)
