"""``round`` at a terminal asks only what the command line did not give, and ``--ask NAME``
asks only that fighter's choices (a player's own); the others play their sheets' tactics and
rules (S-03..S-05), as without a terminal.  The terminal is faked (stdin says it is a tty)
and the answers are CliRunner's input."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import typer.testing

from tests.helpers import ENCOUNTER, assert_one_line_error, ok, run

QUESTION = re.compile(r"(Ysolde is the assailant: yield|(?:Ysolde|Brannoc): each hand in order|"
                      r"(?:Ysolde|Brannoc): technique)")


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(typer.testing._NamedTextIOWrapper, "isatty", lambda self: True,
                        raising=False)


def _allocations(doc: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    """Each fighter's allocation event: where it came from, and the technique started."""
    return {e["fighter"]: (e["source"], e["technique"])
            for e in doc["events"] if e["type"] == "allocation"}


def _round(*args: str, answers: str) -> tuple[list[str], dict[str, Any]]:
    result = run("round", "--seed", "7", "--json", *args, input=answers)
    assert result.exit_code == 0, result.stderr
    return QUESTION.findall(result.stderr), json.loads(result.stdout)


@pytest.mark.usefixtures("terminal")
def test_S03_S05_ask_asks_only_that_fighters_choices() -> None:
    ok("init", "--dice", "5,19")  # Ysolde is the assailant
    asked, doc = _round("--ask", "Ysolde", answers="n\na,a\nfeint\n")
    assert asked == ["Ysolde is the assailant: yield", "Ysolde: each hand in order",
                     "Ysolde: technique"]
    shown = _allocations(doc)
    assert shown["Ysolde"] == ("choice", "feint")
    assert shown["Brannoc"] == ("weapons-attack", None)  # his sheet's tactic, no technique


@pytest.mark.usefixtures("terminal")
def test_S03_a_defender_asked_is_not_asked_the_assailants_yield() -> None:
    ok("init", "--dice", "5,19")
    asked, doc = _round("--ask", "brannoc", answers="d,d\n\n")  # any case, as names are typed
    assert asked == ["Brannoc: each hand in order", "Brannoc: technique"]
    assert _allocations(doc)["Brannoc"][0] == "choice"
    assert _allocations(doc)["Ysolde"] == ("weapons-attack", None)


@pytest.mark.usefixtures("terminal")
def test_without_ask_only_what_the_command_line_left_out_is_asked() -> None:
    ok("init", "--dice", "5,19")
    result = run("round", "--seed", "7", "--allocate", "Brannoc=attack,defence",
                 "--technique", "Ysolde=none", input="n\na,a\n\n")
    assert result.exit_code == 0, result.stderr
    assert QUESTION.findall(result.stderr) == [
        "Ysolde is the assailant: yield", "Ysolde: each hand in order", "Brannoc: technique"]


@pytest.mark.usefixtures("terminal")
def test_ask_mistakes_are_one_line_and_change_nothing() -> None:
    ok("init", "--dice", "5,19")
    before = ENCOUNTER.read_bytes()
    assert_one_line_error(run("round", "--ask", "Mira", input="n\n"), 2, "no fighter 'Mira'")
    assert_one_line_error(run("round", "--ask", "Ysolde", "--no-input"), 2,
                          "--ask asks a fighter's choices at the terminal and --no-input never asks")
    assert ENCOUNTER.read_bytes() == before
    ok("init", "--ruleset", "d20", "--dice", "19,5", "--force")
    assert_one_line_error(run("round", "--ask", "A"), 2, "have no choices to make")


def test_ask_needs_a_terminal() -> None:
    ok("init", "--dice", "5,19")
    assert_one_line_error(run("round", "--ask", "Ysolde", "--seed", "1"), 2,
                          "--ask needs a terminal to ask the choices")
