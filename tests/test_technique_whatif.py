"""What-ifs on the ruleset's techniques: ``--set techniques.feint.attack=4``,
``--vary techniques.feint.attack=0..6`` (S-05).

A target whose first part is ``techniques`` (as written in the ruleset file) is the ruleset's:
the change is applied to the ruleset file's data and read again by the ruleset's reader (its
bounds, its messages); the matchup's ``ruleset`` carries it; JSON ``changes`` records it as
``{ruleset, field, value, previous}``.  A fighter literally named ``techniques`` is reached
with its name in another case.  Sheet tactics use no technique, so such a change is inert
(one note) unless a fighter plays optimally (the game, where techniques matter).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import sevendag_cli as sd
from sevendag_cli.errors import UsageError
from sevendag_cli.failure import error_key
from sevendag_cli.render.whatif import change_text, changes_data
from sevendag_cli.rules.whatif import Change, is_ruleset_target
from sevendag_cli.sevendag.backend import technique_changes_inert
from sevendag_cli.sevendag.engine import ActiveTechnique, initial_state
from sevendag_cli.sevendag.game import OPTIMAL, SHEET, game_for, solve_state
from tests.helpers import BUNDLED, run, run_json

FEINT = "techniques.feint.attack"


def refused(**kw: object) -> UsageError:
    with pytest.raises(UsageError) as info:
        sd.matchup(**kw)  # type: ignore[arg-type]
    return info.value


# --- parsing ---------------------------------------------------------------------------------


def test_S05_a_technique_set_is_the_ruleset_read_again_with_it() -> None:
    m = sd.matchup(set={FEINT: 4, "techniques.guard.duration": 3})
    assert m.ruleset.techniques["feint"].attack == 4
    assert m.ruleset.techniques["guard"].duration == 3
    assert m.ruleset.techniques["charge"] == sd.ruleset("sevendag").techniques["charge"]
    assert m.changes == (Change("", FEINT, 4, 3, "sevendag"),
                         Change("", "techniques.guard.duration", 3, 2, "sevendag"))


def test_S05_a_technique_by_its_label_and_a_field_in_any_case() -> None:
    m = sd.matchup(set=["techniques.garde.DEFENCE=6"])  # garde de fer: guard
    assert m.ruleset.techniques["guard"].defence == 6
    assert m.changes[0].field == "techniques.guard.defence"


def test_S05_an_empty_value_gives_the_files_default() -> None:
    m = sd.matchup(set="techniques.feint.defence=")
    assert m.ruleset.techniques["feint"].defence == 0  # the reader's default
    assert m.changes[0].value is None and m.changes[0].previous == -2


def test_S05_an_unknown_technique_names_those_there_are_and_the_closest() -> None:
    exc = refused(set="techniques.fient.attack=4")
    assert error_key(exc.msg) == "whatif.ruleset_no_entry"
    text = exc.msg.render("en")
    assert "feint, guard, charge" in text and "did you mean 'feint'" in text
    assert "\n" not in text


def test_S05_an_unknown_field_names_the_fields() -> None:
    exc = refused(set="techniques.feint.atack=4")
    assert error_key(exc.msg) == "whatif.ruleset_no_field"
    assert "attack, defence, duration" in str(exc.msg) and "did you mean 'attack'" in str(exc.msg)
    exc = refused(set="techniques.feint=4")
    assert error_key(exc.msg) == "whatif.ruleset_no_field_given"
    assert "attack, defence, duration" in str(exc.msg)


@pytest.mark.parametrize(("text", "key"), [
    ("techniques.feint.duration=0", "techniques.feint.duration"),
    ("techniques.feint.attack=101", "techniques.feint.attack"),
    ("techniques.guard.defence=-101", "techniques.guard.defence"),
    ("techniques.feint.attack=x", "techniques.feint.attack"),
])
def test_S05_values_are_bounded_by_the_ruleset_files_own_reader(text: str, key: str) -> None:
    exc = refused(set=text)
    assert exc.msg.key == "whatif.refused_key" and exc.msg.params["key"] == key
    assert str(exc.msg).startswith(f"--set {text}: {key}: ")


def test_S05_the_bounds_themselves_are_taken() -> None:
    m = sd.matchup(set={"techniques.feint.duration": 100, FEINT: -100})
    assert (m.ruleset.techniques["feint"].duration, m.ruleset.techniques["feint"].attack) == (100, -100)


def test_D_a_d20_ruleset_has_no_techniques_to_change() -> None:
    exc = refused(a="A", b="B", ruleset="d20", set="techniques.feint.attack=4")
    assert error_key(exc.msg) == "whatif.ruleset_no_table"
    assert str(exc.msg) == "--set techniques.feint.attack=4: the ruleset d20 has no techniques to change"


def test_the_cli_says_it_in_one_line_exit_2() -> None:
    for args in (["fight", "--set", "techniques.fient.attack=1"],
                 ["fight", "A", "B", "-r", "d20", "--set", "techniques.feint.attack=1"],
                 ["sweep", "--vary", "techniques.feint.duration=0..2"],
                 ["matrix", "brannoc", "ysolde", "--set", "techniques.feint.duration=101"]):
        result = run(*args)
        assert result.exit_code == 2, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_fighter_named_techniques_loses_to_the_ruleset_and_is_reached_in_another_case(
        tmp_path: Path) -> None:
    sheet = tmp_path / "techniques.toml"
    text = (BUNDLED / "fighters" / "brannoc.toml").read_text(encoding="utf-8")
    sheet.write_text(text.replace('name = "Brannoc"', 'name = "techniques"'), encoding="utf-8")
    assert is_ruleset_target("techniques.attack") and not is_ruleset_target("Techniques.attack")
    exc = refused(a=str(sheet), b="ysolde", set="techniques.attack=9")
    assert error_key(exc.msg) == "whatif.ruleset_no_entry"
    assert "write its name in another case: TECHNIQUES.FIELD=VALUE" in str(exc.msg)
    m = sd.matchup(str(sheet), "ysolde", set=["TECHNIQUES.attack=9", "techniques.feint.attack=5"])
    assert m.a.attack == 9 and m.ruleset.techniques["feint"].attack == 5
    assert [(c.fighter, c.field, c.ruleset) for c in m.changes] == [
        ("techniques", "attack", None), ("", FEINT, "sevendag")]


# --- what the output says --------------------------------------------------------------------


def test_json_changes_record_a_ruleset_change_and_keep_sheet_changes_as_they_were() -> None:
    doc = run_json("fight", "--seed", "3", "--set", "Brannoc.attack=9", "--set", f"{FEINT}=5")
    assert doc["changes"] == [
        {"fighter": "Brannoc", "field": "attack", "value": 9, "previous": 8},
        {"ruleset": "sevendag", "field": FEINT, "value": 5, "previous": 3}]
    only_sheet = run_json("fight", "--seed", "3", "--set", "Brannoc.attack=9")
    assert only_sheet["changes"] == doc["changes"][:1]
    # sheet tactics use no technique: the same fight, but for the change listed
    assert {k: v for k, v in doc.items() if k != "changes"} == \
        {k: v for k, v in only_sheet.items() if k != "changes"}


def test_the_what_if_line_names_the_ruleset_key() -> None:
    change = Change("", FEINT, 5, 3, "sevendag")
    assert change_text(change, "en") == "techniques.feint.attack 5 (was 3)"
    assert changes_data([change]) == [{"ruleset": "sevendag", "field": FEINT, "value": 5, "previous": 3}]
    result = run("fight", "--seed", "3", "--set", f"{FEINT}=5")
    assert result.exit_code == 0 and "What-if: techniques.feint.attack 5 (was 3)" in result.stdout


# --- inert on the sheets' tactics ------------------------------------------------------------


def test_S05_inert_unless_a_fighter_plays_optimally() -> None:
    assert technique_changes_inert() and technique_changes_inert((SHEET, SHEET))
    assert not technique_changes_inert((OPTIMAL, SHEET))
    assert not technique_changes_inert((SHEET, OPTIMAL))
    m = sd.matchup(set={FEINT: 5, "Brannoc.attack": 9})
    assert [n.key for n in m.notes] == ["whatif.technique_inert"]
    assert m.notes[0].params["fields"] == FEINT
    from sevendag_cli.rules.whatif import inert_notes

    assert inert_notes(m.ruleset, (m.a, m.b), m.changes, (OPTIMAL, SHEET)) == []
    assert inert_notes(m.ruleset, (m.a, m.b), m.changes, (SHEET, OPTIMAL)) == []
    assert sd.matchup(set={"Brannoc.attack": 9}).notes == ()


def test_S05_a_technique_in_effect_in_a_saved_state_takes_its_changed_modifiers() -> None:
    """``odds`` from an encounter where a technique runs: its attack/defence matter, its
    duration does not (the rounds left are the state's)."""
    from msgspec.structs import replace

    from sevendag_cli.rules.whatif import inert_notes

    m = sd.matchup(set={"techniques.guard.defence": 9, "techniques.guard.duration": 4})
    state = initial_state(m.a, m.b, m.a.name)
    state = replace(state, fighters=(replace(state.fighters[0], technique=ActiveTechnique("guard", 1)),
                                     state.fighters[1]))
    notes = inert_notes(m.ruleset, (m.a, m.b), m.changes, state=state)
    assert [n.params["fields"] for n in notes] == ["techniques.guard.duration"]


def test_what_if_notes_take_the_policies(capsys: pytest.CaptureFixture[str]) -> None:
    from sevendag_cli.output import make_output, what_if_notes

    m = sd.matchup(set={FEINT: 5})
    out = make_output(False, False, None)
    what_if_notes(m.ruleset, (m.a, m.b), m.changes, out, (OPTIMAL, SHEET))
    assert capsys.readouterr().err == ""
    what_if_notes(m.ruleset, (m.a, m.b), m.changes, out)
    assert "uses no technique (S-05)" in capsys.readouterr().err


def test_the_cli_notes_it_once_on_stderr() -> None:
    result = run("fight", "--seed", "3", "--set", f"{FEINT}=5", "--set", "techniques.guard.attack=1")
    assert result.exit_code == 0
    notes = [line for line in result.stderr.splitlines() if "uses no technique" in line]
    assert notes == ["sevendag: techniques.feint.attack, techniques.guard.attack: each fighter plays "
                     "its sheet's tactic here, which uses no technique (S-05): this change changes "
                     "nothing; only optimal play weighs techniques"]


# --- the game sees the change ----------------------------------------------------------------


@pytest.mark.slow
def test_S05_the_games_optimal_value_moves_with_a_technique_and_sheet_play_does_not() -> None:
    base, raised = sd.matchup(), sd.matchup(set={FEINT: 8})
    values = {}
    for name, m in (("base", base), ("raised", raised)):
        state = initial_state(m.a, m.b, m.a.name)
        for policies in ((OPTIMAL, OPTIMAL), (SHEET, SHEET)):
            sol = solve_state(m.ruleset, m.a, m.b, state, policies=policies, cap=2, tolerance=1e-3)
            assert not isinstance(sol, int)
            values[name, policies] = sol.value
    assert abs(values["base", (OPTIMAL, OPTIMAL)] - values["raised", (OPTIMAL, OPTIMAL)]) > 1e-4
    assert values["base", (SHEET, SHEET)] == values["raised", (SHEET, SHEET)]
    # the games are kept per ruleset: the changed technique is its own game
    assert game_for(base.ruleset, base.a, base.b) is not game_for(raised.ruleset, raised.a, raised.b)
    assert game_for(raised.ruleset, raised.a, raised.b) is game_for(raised.ruleset, raised.a, raised.b)


def test_S05_the_chains_key_follows_the_techniques() -> None:
    from sevendag_cli.sevendag.chain import _ruleset_key

    keys = {_ruleset_key(sd.matchup(set={FEINT: v}).ruleset) for v in (2, 3, 4)}
    assert len(keys) == 3
    assert _ruleset_key(sd.matchup(set={FEINT: 3}).ruleset) == _ruleset_key(sd.ruleset("sevendag"))


# --- sweeps ----------------------------------------------------------------------------------


def test_S05_a_library_sweep_over_a_technique_gives_one_point_per_value() -> None:
    m = sd.matchup()
    seen = [m.vary(FEINT, str(v)).ruleset.techniques["feint"].attack for v in range(4)]
    assert seen == [0, 1, 2, 3]
    s = m.sweep(FEINT, "0..3", runs=200, seed=5)
    assert [p.value for p in s.result.points] == [0, 1, 2, 3]
    assert s.result.field == FEINT and s.result.unchanged  # sheet tactics: no technique
    assert s.to_dict()["changes"] == []
    assert m.ruleset.techniques["feint"].attack == 3  # the matchup itself is not changed


def test_S05_a_sweep_over_a_technique_with_a_ruleset_change_set_and_a_grid() -> None:
    m = sd.matchup(set={"techniques.feint.duration": 2})
    point = m.vary(FEINT, "6")
    assert point.ruleset.techniques["feint"].duration == 2 and point.ruleset.techniques["feint"].attack == 6
    assert [c.field for c in point.changes] == ["techniques.feint.duration", FEINT]
    g = m.sweep(FEINT, [0, 1], by=("Ysolde.attack", [6, 7]), runs=100, seed=5)
    assert [p.values for p in g.result.points] == [(0, 6), (0, 7), (1, 6), (1, 7)]
    assert g.to_dict()["changes"] == [
        {"ruleset": "sevendag", "field": "techniques.feint.duration", "value": 2, "previous": 1}]


def valid(name: str, doc: object) -> None:
    from sevendag_cli.commands.schema import validator

    errors = list(validator(name).iter_errors(doc))
    assert not errors, errors[0].message


def test_the_sweep_command_takes_a_technique_and_its_json_is_valid() -> None:
    doc = run_json("sweep", "--vary", f"{FEINT}=1..2", "--set", "techniques.guard.attack=0",
                   "--runs", "100", "--seed", "2")
    valid("sweep", doc)
    assert [p["value"] for p in doc["points"]] == [1, 2] and doc["field"] == FEINT
    assert doc["changes"] == [{"ruleset": "sevendag", "field": "techniques.guard.attack", "value": 0,
                               "previous": -2}]
    fight = run_json("fight", "--seed", "1", "--set", f"{FEINT}=5")
    valid("fight", fight)


def test_a_grid_of_one_technique_field_spelt_two_ways_is_refused() -> None:
    m = sd.matchup()
    with pytest.raises(UsageError) as info:
        m.sweep(FEINT, [0, 1], by=("techniques.feinte.ATTACK", [1, 2]), runs=10, seed=1)
    assert info.value.msg.key == "sweep.grid_same_field"
    result = run("sweep", "--vary", f"{FEINT}=0..1", "--vary", "techniques.feinte.attack=1..2")
    assert result.exit_code == 2 and "a grid varies two different fields" in result.stderr


def test_a_grid_over_a_technique_as_json_without_fair() -> None:
    """Two --vary, --json, no --fair: fair_curve is empty, as the schema says (this once raised
    a traceback); with --fair, one per row."""
    doc = run_json("sweep", "--vary", f"{FEINT}=0..1", "--vary", "Ysolde.attack=6..7",
                   "--runs", "50", "--seed", "1")
    valid("sweep", doc)
    assert doc["fields"] == [FEINT, "Ysolde.attack"] and doc["rows"] == [0, 1]
    assert doc["fair_curve"] == []
    fair = run_json("sweep", "--vary", f"{FEINT}=0..1", "--vary", "Ysolde.attack=6..7",
                    "--runs", "50", "--seed", "1", "--fair")
    valid("sweep", fair)
    assert [c["values"] for c in fair["fair_curve"]] == [{FEINT: 0}, {FEINT: 1}]


def test_S05_a_technique_a_sheet_rule_starts_is_not_inert() -> None:
    """A sheet's technique rule (S-05) uses the technique on its sheet's play: changing that
    technique matters; changing another still changes nothing."""
    m = sd.matchup(set={FEINT: 5, "techniques.guard.attack": 1},
                   tactic="Brannoc=technique=feint@attacking")
    assert [n.params["fields"] for n in m.notes] == ["techniques.guard.attack"]


def test_S05_a_matrix_under_optimal_play_calls_no_technique_change_inert() -> None:
    lineup = sd.Lineup.load(["Brannoc", "Ysolde"], set={FEINT: 5}, tactic="optimal")
    assert [n.key for n in lineup.notes] == []
    assert [n.key for n in sd.Lineup.load(["Brannoc", "Ysolde"], set={FEINT: 5}).notes] == [
        "whatif.technique_inert"]
