"""The width of every display, decided in one place.

``COLUMNS`` when it is a whole number, else the width of the terminal on a standard stream,
else 80 (as Rich would decide), then held within ``MIN_COLUMNS``..``MAX_COLUMNS``
(:mod:`sevendag_cli.limits`): ``COLUMNS=0``, a negative width or a terminal a few columns
wide is drawn at the floor, never as nothing; a width of a billion columns at the ceiling,
never as lines a billion spaces long.  The root group holds ``COLUMNS`` at that width for
the whole run (:func:`columns_held`), so every console of the run — the commands' display,
the help (Typer's), the progress bars — and the prompts (``shutil.get_terminal_size``) draw
at it; the commands' consoles are also made with it (:func:`display_columns`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from sevendag_cli.limits import MAX_COLUMNS, MIN_COLUMNS

_MOST_DIGITS = 9
"""A ``COLUMNS`` of more digits is beyond any screen: the ceiling, read without ``int``."""


def _given(text: str) -> int | None:
    """``COLUMNS`` as a number of columns, or None when it is not a whole number in ASCII."""
    stripped = text.strip()
    sign = stripped[:1] in ("+", "-")
    digits = stripped[1:] if sign else stripped
    if not digits or not digits.isascii() or not digits.isdigit():
        return None
    if len(digits) > _MOST_DIGITS:
        return -1 if stripped.startswith("-") else MAX_COLUMNS
    return int(stripped)


def display_columns() -> int:
    """The width every display of this run is drawn at (see the module's docstring)."""
    width = _given(os.environ.get("COLUMNS", ""))
    if width is None:
        for fd in (1, 2, 0):
            try:
                width = os.get_terminal_size(fd).columns
                break
            except (OSError, ValueError):
                continue
    if width is None:
        width = 80
    return min(max(width, MIN_COLUMNS), MAX_COLUMNS)


@contextmanager
def columns_held() -> Iterator[None]:
    """For one run of the program: ``COLUMNS`` set to :func:`display_columns`, as it was after."""
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(display_columns())
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = before
