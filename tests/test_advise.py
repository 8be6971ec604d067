"""``sevendag advise`` (issue 17 §3): every option of the fighter who declares now.

Read only like ``odds`` (the file unchanged); the JSON validates against ``schema advise``
and equals the library's ``Encounter.advise().to_dict()``; ``--after`` gives the défenseur's
answers; d20 and mistakes are one line; the display fits 80 columns in both languages.
"""

from __future__ import annotations

import json
import os

import pytest

from sevendag_cli.commands.schema import validator
from sevendag_cli.encounter import Encounter
from tests.helpers import ENCOUNTER, assert_one_line_error, check_width, ok, run, run_json


def _init(*args: str) -> None:
    ok("init", "--seed", "3", *args)


@pytest.mark.slow
def test_S03_S04_S05_advise_json_lists_every_option_and_matches_its_schema_and_the_library() -> None:
    _init()
    before = ENCOUNTER.read_bytes()
    mtime = os.stat(ENCOUNTER).st_mtime_ns
    doc = run_json("advise")
    validator("advise").validate(doc)
    assert ENCOUNTER.read_bytes() == before and os.stat(ENCOUNTER).st_mtime_ns == mtime
    state = json.loads(before)["state"]
    assert doc["fighter"] == state["assaillant"] and doc["role"] == "assaillant"
    opts = doc["options"]
    # yield x (attack/defence with the greatsword, or Brannoc's sword) x (none + 3 techniques)
    assert len(opts) == 2 * 2 * 4
    assert {o["yield"] for o in opts} == {False, True}
    assert {o["technique"] for o in opts} == {None, "feint", "guard", "charge"}
    for o in opts:
        low, high = o["bounds"]
        assert low - 1e-12 <= o["win_probability"] <= high + 1e-12
        assert high - low <= 1e-6 + 1e-9
        assert o["answer"] is not None and o["answer"]["yield"] is False
    best = opts[doc["best"]]["win_probability"]
    assert best == max(o["win_probability"] for o in opts)
    assert Encounter(ENCOUNTER).advise().to_dict() == doc


@pytest.mark.slow
def test_S03_advise_after_gives_the_defenseurs_answers() -> None:
    _init()
    first = run_json("advise")
    best = first["options"][first["best"]]
    after = (f"yield={'yes' if best['yield'] else 'no'};"
             f"allocation={','.join(best['allocation'])};technique={best['technique'] or 'none'}")
    doc = run_json("advise", "--after", after)
    validator("advise").validate(doc)
    assert doc["role"] == "defenseur" and doc["fighter"] != first["fighter"]
    assert doc["after"] == {k: best[k] for k in ("yield", "allocation", "technique")}
    assert all(o["answer"] is None and o["yield"] is False for o in doc["options"])
    # the défenseur's best answer is the one the assaillant's advice expected, its value 1 - v
    answer = doc["options"][doc["best"]]
    assert abs(answer["win_probability"] - (1 - best["win_probability"])) < 1e-9
    assert {k: answer[k] for k in ("yield", "allocation", "technique")} == best["answer"]


@pytest.mark.slow
def test_advise_mistakes_are_one_line() -> None:
    _init()
    assert_one_line_error(run("advise", "--after", "yield=maybe"), fragment="yield")
    assert_one_line_error(run("advise", "--after", "colour=red"), fragment="colour")
    assert_one_line_error(run("advise", "--after", "allocation"), fragment="KEY=VALUE")
    assert_one_line_error(run("advise", "--after", "allocation=attack,defence,attack"))


def test_advise_on_d20_says_there_is_nothing_to_choose_in_one_line() -> None:
    ok("init", "--ruleset", "d20", "--seed", "3")
    assert_one_line_error(run("advise"), fragment="d20")


@pytest.mark.slow
def test_advise_display_fits_80_columns_in_both_languages(monkeypatch: pytest.MonkeyPatch) -> None:
    _init()
    monkeypatch.setenv("COLUMNS", "80")
    for lang in ("en", "fr"):
        out = ok("advise", "--lang", lang)
        check_width(out, 80)
        assert len(out.splitlines()) > 16
        assert sum(line.startswith("*") for line in out.splitlines()) == 1
    assert "déclare" in ok("advise", "--lang", "fr")


def test_round_advise_shows_the_assaillants_options_before_playing_the_round(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _init()
    monkeypatch.setenv("COLUMNS", "80")
    out = ok("round", "--advise", "--seed", "4", "--no-input")
    head = out.split("Round 1")[0]
    assert "declares now" in head and sum(x.startswith("*") for x in head.splitlines()) == 1
    check_width(out, 80)
    assert json.loads(ENCOUNTER.read_bytes())["state"]["round"] == 1
    assert_one_line_error(run("round", "--advise", "--json", "--seed", "4"), fragment="advise --json")
    assert json.loads(ENCOUNTER.read_bytes())["state"]["round"] == 1


def test_round_advise_on_d20_says_so_in_one_line_and_plays_the_round() -> None:
    ok("init", "--ruleset", "d20", "--seed", "3")
    result = run("round", "--advise", "--seed", "4")
    assert result.exit_code == 0, result.stderr
    lines = [x for x in result.stderr.splitlines() if "advise" in x]
    assert lines == ["sevendag: advise: Le combat (d20) has no choices to make: nothing to advise"]
    assert "Traceback" not in result.stderr
    assert json.loads(ENCOUNTER.read_bytes())["state"]["round"] == 1
