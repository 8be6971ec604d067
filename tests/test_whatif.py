"""What-ifs: ``--set FIGHTER.FIELD=VALUE`` and ``--tactic FIGHTER=TACTIC`` change a
sheet for one run, are checked as the sheet is, and are reported (display line, JSON ``changes``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from sevendag_cli.commands.schema import validator
from sevendag_cli.data import bundled_dir
from sevendag_cli.errors import UsageError
from sevendag_cli.rules import load_ruleset, pair_docs
from sevendag_cli.rules.whatif import Assignment, WhatIf, typed_value
from tests.helpers import assert_one_line_error, edited_sheet, run, run_json

FIGHTERS = bundled_dir() / "fighters"


def valid(name: str, doc: Any) -> None:
    errors = list(validator(name).iter_errors(doc))
    assert not errors, errors[0].message


# --- the same as editing the file -------------------------------------------------------------


@pytest.mark.parametrize("mode", [["--exact"], ["--runs", "3000", "--seed", "4"], ["--seed", "9"]])
@pytest.mark.slow
def test_a_set_gives_what_the_edited_sheet_gives(mode: list[str]) -> None:
    """Every mode of fight: --set B.hp=30 is the fight of a sheet with hp = 30 (D-14 pair)."""
    edited = edited_sheet("b", ("hp = 50", "hp = 30"))
    by_file = run_json("fight", str(FIGHTERS / "a.toml"), edited, "--ruleset", "d20", *mode)
    by_set = run_json("fight", "A", "B", "--ruleset", "d20", "--set", "B.hp=30", *mode)
    assert by_set.pop("changes") == [{"fighter": "B", "field": "hp", "value": 30, "previous": 50}]
    if "note" in by_set:
        assert by_set["note"] == by_file["note"]
    assert by_set == by_file
    schema = {"--exact": "fight-exact", "--runs": "fight-runs"}.get(mode[0], "fight")
    valid(schema, {**by_set, "changes": []})


@pytest.mark.slow
def test_nested_fields_of_items_and_hands() -> None:
    """S-17, S-04: a metal and a hand's die are keys of tables and arrays of the sheet."""
    edited = edited_sheet("brannoc", ('metal = "iron"', 'metal = "steel"'))
    edited = Path(edited).read_text("utf-8").replace("die = 10", "die = 12", 1)
    Path("brannoc-edited.toml").write_text(edited, "utf-8")
    by_file = run_json("fight", "brannoc-edited.toml", "Ysolde", "--exact")
    for hand in ("hands[0].die=12", "hands.0.die=12"):
        doc = run_json("fight", "--exact", "--set", "Brannoc.items.sword.metal=steel",
                       "--set", f"brannoc.{hand}")
        assert [(c["field"], c["value"], c["previous"]) for c in doc.pop("changes")] == [
            ("items.sword.metal", "steel", "iron"), ("hands[0].die", 12, 10)]
        assert doc["fighters"] == by_file["fighters"]


@pytest.mark.slow
def test_a_formula_field_takes_its_text_and_the_last_set_wins() -> None:
    """D-07: the weapon's damage formula; a second --set of the same field replaces the first."""
    edited = edited_sheet("a", ('damage = "1d6"', 'damage = "1d8"'))
    by_file = run_json("fight", edited, "B", "-r", "d20", "--exact")
    doc = run_json("fight", "A", "B", "-r", "d20", "--exact", "--set", "A.weapon.damage=2d4",
                   "--set", "A.weapon.damage=1d8")
    assert doc["fighters"] == by_file["fighters"]
    assert [c["value"] for c in doc["changes"]] == ["2d4", "1d8"]


@pytest.mark.slow
def test_an_empty_value_removes_the_key_so_the_default_applies() -> None:
    """D-05: without its stated AC, B's AC is 10 + armour + mod(DEX) + size = 10."""
    by_set = run_json("fight", "A", "B", "-r", "d20", "--exact", "--set", "B.ac=")
    by_ac = run_json("fight", "A", "B", "-r", "d20", "--exact", "--set", "B.ac=10")
    assert by_set["changes"] == [{"fighter": "B", "field": "ac", "value": None, "previous": 5}]
    assert by_set["fighters"] == by_ac["fighters"]


def test_values_are_typed_as_the_field_needs() -> None:
    asg = Assignment("--set", "X.f", "")
    assert typed_value(asg, "7", 3) == 7 and typed_value(asg, "-2", 3) == -2
    assert typed_value(asg, "7", "1d6") == "7"  # a formula stays a text
    assert typed_value(asg, "abc", 3) == "abc"  # the reader then names it
    assert typed_value(asg, "false", True) is False and typed_value(asg, "oui", False) is True
    assert typed_value(asg, "attack, defence", ["defence"]) == ["attack", "defence"]
    assert typed_value(asg, "12") == 12 and typed_value(asg, "true") is True
    assert typed_value(asg, "1d8") == "1d8"
    with pytest.raises(UsageError):
        typed_value(asg, "9" * 20)


def test_the_engine_api_is_one_call() -> None:
    rs = load_ruleset("d20")
    a, b, changes = WhatIf.parse(["b.str=10"]).load_pair(rs, pair_docs(rs, None))
    assert (a.str, b.str) == (12, 10) and changes[0].fighter == "B" and changes[0].previous == 18
    assert WhatIf.parse(None, None).load_pair(rs, pair_docs(rs, None))[2] == ()


# --- tactics -----------------------------------------------------------------------------------


def test_a_tactic_is_the_sheet_with_that_tactic() -> None:
    edited = edited_sheet("brannoc", ('tactic = "weapons-attack"', 'tactic = "all-out"'))
    by_file = run_json("fight", edited, "Ysolde", "--exact")
    doc = run_json("fight", "--exact", "--tactic", "Brannoc=all-out")
    assert doc.pop("changes") == [{"fighter": "Brannoc", "field": "tactic", "value": "all-out",
                                   "previous": "weapons-attack"}]
    assert doc["fighters"] == by_file["fighters"]


@pytest.mark.parametrize("typed", ["attack,defence", "a,d", "attaque, Défense", "custom:a,d"])
def test_a_tactic_by_commitments_is_custom(typed: str) -> None:
    """S-04: one commitment per hand, in either language, is the custom tactic."""
    doc = run_json("fight", "--exact", "--tactic", f"Brannoc={typed}")
    assert [(c["field"], c["value"]) for c in doc["changes"]] == [
        ("tactic", "custom"), ("allocation", ["attack", "defence"])]
    assert doc["fighters"] == run_json("fight", "--exact")["fighters"]  # what weapons-attack does


def test_the_display_says_which_changes_applied() -> None:
    en = run("fight", "--exact", "--tactic", "Brannoc=full-defence", "--set", "Ysolde.attack=10")
    assert en.exit_code == 0
    assert en.stdout.splitlines()[0] == (
        "What-if: Ysolde.attack 10 (was 9) · Brannoc.tactic full-defence (was weapons-attack)")
    fr = run("fight", "--seed", "3", "--set", "Ysolde.attack=10", "--lang", "fr")
    assert fr.stdout.splitlines()[0] == "Hypothèse : Ysolde.attack 10 (au lieu de 9)"
    jsonl = run("fight", "--seed", "3", "--set", "Ysolde.attack=10", "--jsonl")
    start = json.loads(jsonl.stdout.splitlines()[0])
    valid("fight-event", start)
    assert start["changes"][0]["field"] == "attack"


# --- refusals: one line, exit 2 (the sheet's own problems stay exit 1) ------------------------

REFUSED = [
    (["--set", "Zed.str=3"], "no fighter 'Zed' in this fight: use A, B"),
    (["--set", "B.armor=7"], "--set B.armor=7: armor: unknown key: known keys are"),
    (["--set", "B.armour=abc"], "--set B.armour=abc: armour: expected a whole number, found a text 'abc'"),
    (["--set", "B.str=500"], "str: 500 is out of range: expected from 1 to 100"),
    (["--set", "B.armour"], "write FIGHTER.FIELD=VALUE"),
    (["--set", "B=3"], "write FIGHTER.FIELD=VALUE"),
    (["--set", "B.weapon=3"], "weapon is a table: set one of its fields"),
    (["--set", "B.str.x=1"], "str is a value, not a table"),
    (["--set", "A.weapon.damage=7"], "weapon.damage: must roll dice, like 1d6"),
    (["--set", "A.weapon.damage=1d"], "weapon.damage:"),
    (["--set", "B.hp=99999999999999999999"], "a whole number beyond"),
    (["--set", "B.name=A"], "both fighters are called 'A'"),
    (["--tactic", "A=all-out"], "tactics are Sevendag's"),
]
REFUSED_SEVENDAG = [
    (["--tactic", "Brannoc=berserk"], "use one of weapons-attack, all-out, full-defence"),
    (["--tactic", "Brannoc=a,d,a"], "allocation: expected one of attack, defence, none per hand (2 hands)"),
    (["--set", "Brannoc.hands[5].die=6"], "hands[5]: no such entry: the sheet has 2"),
    (["--set", "Brannoc.items.sword.metal=gold"], "unknown metal 'gold': use one of"),
    (["--set", "Ysolde.hands[1].holds="], "items.greatsword.hands: steel greatsword is held by 1 hand(s)"),
]


@pytest.mark.parametrize(("args", "fragment"), REFUSED)
def test_d20_what_ifs_refused_in_one_line(args: list[str], fragment: str) -> None:
    for mode in ([], ["--exact"]):
        assert_one_line_error(run("fight", "A", "B", "-r", "d20", *mode, *args), 2, fragment)


@pytest.mark.parametrize(("args", "fragment"), REFUSED_SEVENDAG)
def test_sevendag_what_ifs_refused_in_one_line(args: list[str], fragment: str) -> None:
    assert_one_line_error(run("fight", "--runs", "10", *args), 2, fragment)


def test_refusals_are_in_french_too() -> None:
    result = run("fight", "A", "B", "-r", "d20", "--set", "Zed.str=3", "--lang", "fr")
    assert_one_line_error(result, 2, "aucun combattant 'Zed' dans ce combat : choisir parmi A, B")
    result = run("fight", "A", "B", "-r", "d20", "--set", "B.armour=abc", "--lang", "fr")
    assert_one_line_error(result, 2, "--set B.armour=abc : armour : on attend un nombre entier")


def test_a_broken_sheet_is_still_the_sheet_s_problem() -> None:
    edited = edited_sheet("b", ("hp = 50", 'hp = "many"'))
    assert_one_line_error(run("fight", "A", edited, "-r", "d20", "--set", "B.str=10"), 1, "hp")


def test_json_errors_carry_the_key() -> None:
    result = run("fight", "A", "B", "-r", "d20", "--set", "B.armour=abc", "--json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["key"] == "whatif.refused_key"


@pytest.mark.slow
def test_armour_on_a_sheet_that_states_its_ac_is_explained() -> None:
    """D-05: the stated AC comes before armour, so the change does nothing: said on stderr."""
    result = run("fight", "A", "B", "-r", "d20", "--exact", "--set", "B.armour=7")
    assert result.exit_code == 0
    assert "B's sheet states ac = 5, which comes before armour (D-05)" in result.stderr
    assert run("fight", "-r", "d20", "--exact", "--set", "B.ac=", "--set", "B.armour=7").stderr == ""


def test_too_many_what_ifs_are_refused() -> None:
    args = [x for i in range(65) for x in ("--set", f"B.str={10 + i % 5}")]
    assert_one_line_error(run("fight", "-r", "d20", *args), 2, "at most 64")
    assert_one_line_error(run("fight", "-r", "d20", "--set", "B.race=" + "x" * 1001), 2, "at most 1,000")


def test_a_copied_sheet_folder_is_not_touched(tmp_path: Path) -> None:
    shutil.copy(FIGHTERS / "b.toml", "b.toml")
    before = Path("b.toml").read_bytes()
    assert run("fight", "A", "b.toml", "-r", "d20", "--set", "B.hp=3", "--seed", "1").exit_code == 0
    assert Path("b.toml").read_bytes() == before
