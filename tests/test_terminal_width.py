"""Odd terminal widths: ``COLUMNS`` of zero, negative, huge or not a number.

Every display is drawn at one width decided in :mod:`sevendag_cli.columns`, held within
``MIN_COLUMNS``..``MAX_COLUMNS``: a width below the floor draws exactly what the floor draws
(never nothing, never a traceback), a width above the ceiling what the ceiling draws, and a
``COLUMNS`` that is not a number is ignored (80 in a pipe, as Rich decides).
"""

from __future__ import annotations

import re

import pytest

from sevendag_cli.columns import display_columns
from sevendag_cli.limits import MAX_COLUMNS, MIN_COLUMNS
from tests.helpers import BUNDLED, ENCOUNTER, run

FLOOR = str(MIN_COLUMNS)
BELOW = ("0", "-5", "1", str(MIN_COLUMNS - 1), "-99999999999999999999")
ABOVE = ("99999999999", "9" * 5000)
NOT_NUMBERS = ("abc", "", " ", "4O", "٤٠")  # the last: Arabic-Indic digits, not ASCII


def shown(columns: str, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str]:
    monkeypatch.setenv("COLUMNS", columns)
    result = run(*args)
    assert "Traceback" not in result.stderr
    return result.exit_code, result.stdout


@pytest.mark.parametrize("columns", [*BELOW, FLOOR, "80", str(MAX_COLUMNS), *ABOVE])
def test_the_width_is_held_within_the_floor_and_the_ceiling(
        columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    width = display_columns()
    assert MIN_COLUMNS <= width <= MAX_COLUMNS
    if columns in BELOW:
        assert width == MIN_COLUMNS
    if columns in ABOVE:
        assert width == MAX_COLUMNS
    if columns == "80":
        assert width == 80


@pytest.mark.parametrize("columns", NOT_NUMBERS)
def test_a_columns_that_is_not_a_number_is_ignored(columns: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a terminal under pytest: Rich's default, 80."""
    monkeypatch.setenv("COLUMNS", columns)
    assert display_columns() == 80


# Each command that draws something, as run at the table or by a designer (seeded: the same
# output at the same width).
COMMANDS = {
    "fight": ("fight", "A", "B", "-r", "d20", "--seed", "7"),
    "fight --runs": ("fight", "A", "B", "-r", "d20", "--runs", "200", "--seed", "7"),
    "fight --exact": ("fight", "A", "B", "-r", "d20", "--exact"),
    "fight --odds": ("fight", "A", "B", "-r", "d20", "--seed", "7", "--odds"),
    "sweep": ("sweep", "A", "B", "-r", "d20", "--vary", "A.ac=4..6"),
    "matrix": ("matrix", "A", "B", "-r", "d20", "--jobs", "1"),
    "roll": ("roll", "2d6+1", "--seed", "3"),
    "roll --odds": ("roll", "2d6+1", "--odds"),
    "rulesets": ("rulesets",),
    "rulesets show": ("rulesets", "show", "d20"),
    "rulesets validate": ("rulesets", "validate", str(BUNDLED / "d20.toml")),
    "schema": ("schema",),
    "new": ("new", "Aela", "-r", "d20", "--seed", "1", "--force"),
    "--help": ("--help",),
    "fight --help": ("fight", "--help"),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_draws_at_the_floor_below_it(name: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """``COLUMNS=0`` (or negative, or 1): what the floor draws, never nothing."""
    args = COMMANDS[name]
    code, floor = shown(FLOOR, monkeypatch, *args)
    assert code == 0 and floor.strip()
    for columns in ("0", "-5"):
        assert shown(columns, monkeypatch, *args) == (0, floor), columns


@pytest.mark.slow
@pytest.mark.parametrize("name", ["fight", "rulesets", "fight --help", "roll --odds"])
def test_every_command_draws_at_the_ceiling_above_it(name: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    args = COMMANDS[name]
    code, ceiling = shown(str(MAX_COLUMNS), monkeypatch, *args)
    assert code == 0 and ceiling.strip()
    assert shown(ABOVE[0], monkeypatch, *args) == (0, ceiling)


def _table(monkeypatch: pytest.MonkeyPatch, columns: str, ruleset: str) -> list[tuple[int, str]]:
    """The table's commands, one after another on a new encounter, at one width."""
    ENCOUNTER.unlink(missing_ok=True)
    steps: list[tuple[str, ...]] = [("init", "--ruleset", ruleset, "--seed", "3"),
                                    ("round", "--seed", "4"), ("status",), ("log",),
                                    ("odds",), ("round", "--seed", "5", "--odds")]
    if ruleset == "d20":
        steps += [("wound", "B", "3"), ("undo",)]
    else:
        steps += [("wound", "Brannoc", "light"), ("undo",), ("advise",)]
    return [shown(columns, monkeypatch, *step) for step in steps]


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_the_table_draws_at_the_floor_below_it(ruleset: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """``round`` at ``COLUMNS=0`` shows the round it saved (it used to save it and show nothing);
    ``status``, ``odds``, ``advise``... show what they show at the floor."""
    floor = _table(monkeypatch, FLOOR, ruleset)
    assert all(code == 0 and out.strip() for code, out in floor), floor
    # the digits masked: a certified bound's last digits depend on the work this process kept
    assert _masked(_table(monkeypatch, "0", ruleset)) == _masked(floor)


def _masked(outputs: list[tuple[int, str]]) -> list[tuple[int, str]]:
    return [(code, re.sub(r"[0-9]", "#", out)) for code, out in outputs]


def test_the_environment_is_given_back_after_a_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """The root group holds ``COLUMNS`` for its run only (the library's callers keep theirs)."""
    import os

    monkeypatch.setenv("COLUMNS", "0")
    assert run("roll", "1d6", "--seed", "1").exit_code == 0
    assert os.environ["COLUMNS"] == "0"
    monkeypatch.delenv("COLUMNS")
    assert run("roll", "1d6", "--seed", "1").exit_code == 0
    assert "COLUMNS" not in os.environ
