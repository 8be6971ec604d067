"""``sevendag roll``: the structure of the expression with each die in place (no colour needed),
several labelled expressions, the JSON tree against its schema, errors at the right character."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sevendag_cli.commands.schema import validator
from tests.helpers import assert_one_line_error, run, run_json


@pytest.fixture(autouse=True)
def _no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "80")


DISPLAY = [
    # arguments, entered faces, the lines shown: each expression echoed where it has no label
    (["1d6-1d6"], "2,5", ["1d6-1d6: d6 2 − d6 5 = -3"]),
    (["2d6*2"], "2,5", ["2d6*2: (d6 2 + d6 5) × 2 = 14"]),
    (["max(1d20,1d20)"], "5,19", ["max(1d20,1d20): max(d20 5, d20 19) = 19"]),
    (["(1d4+1)//2"], "1", ["(1d4+1)//2: (d4 1▼ + 1) // 2 = 1"]),
    (["3d6 + 2"], "6,1,3", ["3d6 + 2: d6 6▲ + d6 1▼ + d6 3 + 2 = 12"]),
    (["1d20 + 5 - 2"], "20", ["1d20 + 5 - 2: d20 20▲ + 5 − 2 = 23"]),
    (["4d6kh3"], "3,5,1,6", ["4d6kh3: d6 3 + d6 5 + ~d6 1▼~ + d6 6▲ = 14"]),
    (["4d6dl1"], "3,5,1,6", ["4d6dl1: d6 3 + d6 5 + ~d6 1▼~ + d6 6▲ = 14"]),
    (["2d20kh1 + 5"], "3,17", ["2d20kh1 + 5: ~d20 3~ + d20 17 + 5 = 22"]),
    (["2d20kl1 * 2"], "3,17", ["2d20kl1 * 2: (d20 3 + ~d20 17~) × 2 = 6"]),
    (["3d6!"], "6,3,4,2", ["3d6!: (d6 6! + d6 2) + d6 3 + d6 4 = 15"]),
    (["1d6! + 1"], "6,6,1", ["1d6! + 1: d6 6! + d6 6! + d6 1▼ + 1 = 14"]),
    (["2d4!kl1"], "4,2,3", ["2d4!kl1: ~d4 4! + d4 3~ + d4 2 = 2"]),
    (["d%"], "100", ["d%: d100 100▲ = 100"]),
    (["mod(3d6)"], "6,6,6", ["mod(3d6): mod(d6 6▲ + d6 6▲ + d6 6▲) = 4"]),
    (["--", "-(1d4 + 1)"], "3", ["-(1d4 + 1): −(d4 3 + 1) = -4"]),
    (["--", "--3"], "", ["--3: −(−3) = 3"]),
    (["1 - (2 - 3)"], "", ["1 - (2 - 3): 1 − (2 − 3) = 2"]),
    (["5"], "", ["5: 5 = 5"]),
    (["1d20 + 5", "damage: 2d6 + 3"], "12,3,4",
     ["1d20 + 5: d20 12 + 5 = 17", "damage: d6 3 + d6 4 + 3 = 10"]),
    (["  hit :1d20", "1d4"], "2,4", ["hit: d20 2 = 2", "1d4: d4 4▲ = 4"]),
    (["esc\x1b[31m: 1"], "", ["esc\\x1b[31m: 1 = 1"]),
]


@pytest.mark.parametrize(("args", "faces", "lines"), DISPLAY, ids=[" ".join(d[0]) for d in DISPLAY])
def test_roll_display_shows_the_structure_and_marks_without_colour(args: list[str], faces: str,
                                                                   lines: list[str]) -> None:
    options = ["--dice", faces] if faces else []
    result = run("roll", *options, *args)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == lines
    assert "\x1b[" not in result.stdout


def test_roll_labels_in_french_and_the_seed_on_stderr() -> None:
    result = run("roll", "dégâts : 2d6", "--dice", "1,6", "--lang", "fr")
    assert result.exit_code == 0
    assert result.stdout == "dégâts : d6 1▼ + d6 6▲ = 7\n"
    result = run("roll", "3d6! 4d6kh3", "--seed", "9")
    assert result.exit_code != 0  # one argument, one expression: this one does not parse
    first = run("roll", "3d6!", "4d6kh3", "--seed", "9")
    again = run("roll", "3d6!", "4d6kh3", "--seed", "9")
    assert first.exit_code == 0 and first.stdout == again.stdout
    assert "--seed 9" in first.stderr and "--seed" not in first.stdout


# --- JSON ---------------------------------------------------------------------------------


def assert_valid(doc: Any) -> None:
    errors = list(validator("roll").iter_errors(doc))
    assert not errors, [e.message[:200] for e in errors]


def test_roll_json_tree_and_results() -> None:
    doc = run_json("roll", "2d6*2", "adv: 2d20kh1 + 5", "3d4!", "--dice", "2,5,3,17,4,1,2,3")
    assert_valid(doc)
    # the keys of one expression stay, for the first expression
    assert (doc["expression"], doc["total"], doc["label"]) == ("2d6*2", 14, None)
    assert [r["face"] for r in doc["rolls"]] == [2, 5]
    tree = doc["tree"]
    assert (tree["type"], tree["op"], tree["value"]) == ("operation", "*", 14)
    assert tree["right"] == {"type": "number", "value": 2}
    left = tree["left"]
    assert (left["type"], left["notation"], left["value"], left["select"]) == ("dice", "2d6", 7, None)
    assert [d["value"] for d in left["dice"]] == [2, 5]
    assert [r["label"] for r in doc["results"]] == [None, "adv", None]
    assert doc["results"][0]["tree"] == tree
    adv = doc["results"][1]
    assert (adv["expression"], adv["total"]) == ("2d20kh1 + 5", 22)
    group = adv["tree"]["left"]
    assert group["select"] == {"mode": "kh", "count": 1}
    assert [(d["value"], d["kept"]) for d in group["dice"]] == [(3, False), (17, True)]
    boom = doc["results"][2]
    assert boom["total"] == 4 + 3 + 1 + 2
    dice = boom["tree"]["dice"]
    assert [(d["value"], d["exploded"], [r["face"] for r in d["rolls"]]) for d in dice] == [
        (7, True, [4, 3]), (1, False, [1]), (2, False, [2])]
    assert [r["face"] for r in boom["rolls"]] == [4, 1, 2, 3]  # roll order: the explosion last


@pytest.mark.parametrize("args", [["3d6 + 2", "--seed", "4"], ["5"], ["mod(d%) - max(1d4!, 2d6kl1)"],
                                  ["a: 1", "b: 2d20kh1", "c: -(3d6dh1) // 2"]])
def test_roll_json_matches_its_schema(args: list[str]) -> None:
    assert_valid(run_json("roll", *args))


def test_roll_json_schema_refuses_a_broken_tree() -> None:
    doc = run_json("roll", "2d6kh1 + 1")
    assert_valid(doc)
    for broken in (
        {"type": "dice", "value": 3},  # no dice
        {"type": "spell", "value": 3},
        {"type": "operation", "value": 3, "op": "^", "left": doc["tree"], "right": doc["tree"]},
    ):
        bad = json.loads(json.dumps(doc))
        bad["tree"]["left"] = broken
        assert not validator("roll").is_valid(bad), broken


# --- errors: usage mistakes (exit 2), the offending character and its position ----------

ERRORS = [
    # arguments, fragment of the one line (English)
    (["2d20kh1x"], "expression '2d20kh1x': unexpected 'x' at position 8"),
    (["1d20 +"], "expected a number, a die such as 1d20, a field or '(' at position 7, found the end"),
    (["hit: 1d20 + $"], "expression 'hit: 1d20 + $': unexpected '$' at position 13"),
    (["hit:   4d6kh3!"], "unexpected '!' at position 14 (write ! before kh, kl, dh or dl"),
    (["2d20kh3"], "2d20kh3 keeps 3 of 2 dice: keep from 1 to 2"),
    (["4d6dl4"], "drops 4 of 4 dice"),
    (["1d1!"], "cannot explode"),
    (["101d6!"], "over the budget of 1000"),
    (["600d6", "600d6"], "roll: 2 expressions roll up to 1200 dice together, over the budget of 1000"),
    (["1d20", "+", "5"], "(put an expression with spaces in quotes: sevendag roll \"1d20 + 5\")"),
    (["1d20 + str"], "unknown name 'str' at position 8"),
    ([": 1d6"], "nothing before ':'"),
    (["x" * 41 + ": 1"], "at most 40 characters"),
    (["1d6 // 0"], "division by zero"),
    ([""], "empty formula"),
    (["1d6"] * 21, "roll: 21 expressions, at most 20 in one call"),
]


@pytest.mark.parametrize(("args", "fragment"), ERRORS, ids=[" ".join(e[0])[:30] for e in ERRORS])
def test_roll_bad_expression_is_a_usage_mistake(args: list[str], fragment: str) -> None:
    result = run("roll", *args)
    assert_one_line_error(result, 2, fragment)
    assert result.stdout == ""


def test_roll_error_positions_in_french() -> None:
    result = run("roll", "dégâts : 2d6 $", "--lang", "fr")
    assert_one_line_error(result, 2, "expression 'dégâts : 2d6 $' : '$' inattendu en position 14")


def test_roll_entered_dice_run_across_expressions() -> None:
    assert_one_line_error(run("roll", "1d6", "1d6", "--dice", "3"), 2, "more are needed")
    assert_one_line_error(run("roll", "1d6", "--dice", "3,4"), 2, "unused")
    assert_one_line_error(run("roll", "1d6", "--dice", "7"), 2, "not on the")


NEGATIVE = [(["-1d4"], "-1d4"), (["1d20", "-d6"], "-d6"), (["-5", "--seed", "3"], "-5"),
            (["-(1d4 + 1)"], "'-(1d4 + 1)'")]


@pytest.mark.parametrize(("args", "token"), NEGATIVE)
def test_a_negative_expression_taken_for_an_option_gets_the_dash_dash_hint(args: list[str],
                                                                            token: str) -> None:
    """``roll -1d4``: Click reads ``-1`` as an option; the one line says where such an argument goes."""
    assert_one_line_error(run("roll", *args), 2,
                          "No such option: -"
                          f"{token.strip(chr(39))[1]}: an argument that starts with '-' goes after '--', "
                          f"every option before it: sevendag roll -- {token}")


def test_the_dash_dash_hint_in_french_and_not_for_a_mistyped_option() -> None:
    assert_one_line_error(run("roll", "-1d4", "--lang", "fr"), 2,
                          "option inconnue : -1 : un argument qui commence par '-' se place après '--', "
                          "toutes les options avant : sevendag roll -- -1d4")
    result = run("roll", "1d4", "-x")
    assert_one_line_error(result, 2, "No such option: -x (see 'sevendag roll --help')")
    assert ok_lines(run("roll", "--seed", "3", "--", "-1d4")) == ["-1d4: −d4 1▼ = -1"]


def ok_lines(result: Any) -> list[str]:
    assert result.exit_code == 0, result.stderr
    return list(result.stdout.splitlines())
