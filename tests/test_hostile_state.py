"""Forged or inconsistent encounter states: refused on every read, one line naming the field.

Every read of an encounter (each command, and the library) checks its state against the
rules and the embedded sheets (``Backend.check_state``, each ruleset's ``check_state`` in its
``state.py``) before any die is rolled: a damaged state is exit 1, the file unchanged.  And
the other way round: every state the engines reach — rounds, wounds, heals, undo, a fight
reopened by a heal at the round cap — passes the same check.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import sevendag_cli as sd
from sevendag_cli.errors import EncounterError, SevendagError
from tests.helpers import BUNDLED, ENCOUNTER, assert_one_line_error, ok, run

Forgery = Callable[[dict[str, Any]], None]


def _fighter(i: int) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda doc: doc["state"]["fighters"][i]  # type: ignore[no-any-return]


def _set(path: Callable[[dict[str, Any]], dict[str, Any]], **values: object) -> Forgery:
    return lambda doc: path(doc).update(values)


STATE: Callable[[dict[str, Any]], dict[str, Any]] = lambda doc: doc["state"]  # noqa: E731
FIRST = _fighter(0)

D20: dict[str, tuple[Forgery, str]] = {
    "round -5": (_set(STATE, round=-5), "state.round is -5"),
    "round 10^18": (_set(STATE, round=10**18), "state.round is 1000000000000000000"),
    "HP -5 while the fight goes on": (_set(FIRST, hp=-5), "state.fighters[0].hp is -5"),
    "HP 1,000,000 with a 45 maximum": (_set(FIRST, hp=1_000_000), "state.fighters[0].hp is 1000000"),
    "a maximum of 0": (_set(FIRST, max_hp=0), "state.fighters[0].max_hp is 0"),
    "a maximum not the sheet's": (_set(FIRST, max_hp=99, hp=99), "the sheet has 45 hit points"),
    "a sheet renamed": (lambda d: d["fighters"][0]["data"].update(name="Zed"),
                        "state.fighters[0].name is 'A', where embedded sheet 1 is 'Zed'"),
    "a winner while it goes on": (_set(STATE, winner="A"), "state.winner is 'A'"),
    "over without a winner": (_set(STATE, over=True), "state.winner is null"),
    "a winner at 0 HP": (lambda d: (STATE(d).update(over=True, winner="A"), FIRST(d).update(hp=0)),
                         "state.fighters[0].hp is 0, where the winner stands"),
    "capped while it goes on": (_set(STATE, capped=True), "state.capped is true"),
    "capped with no round cap": (_set(STATE, over=True, capped=True), "state.capped is true"),
    "initiative kept after round 1": (_set(STATE, next_attacker="B"), "state.next_attacker is 'B'"),
}

SEVENDAG: dict[str, tuple[Forgery, str]] = {
    "a band named zzz": (_set(FIRST, wounds=["zzz"]), "state.fighters[0].wounds[0] is 'zzz'"),
    "out while the fight goes on": (_set(FIRST, out=True), "state.fighters[0].out is true"),
    "out by its wounds, the fight going on": (
        _set(FIRST, wounds=["fatal"], penalty=0, out=True),
        "state.fighters[0].out is true, where a fighter out has lost"),
    "a penalty of 10^18": (_set(FIRST, penalty=10**18), "state.fighters[0].penalty is 1000000000000000000"),
    "a penalty not the wounds'": (_set(FIRST, wounds=["light"], penalty=7),
                                  "state.fighters[0].penalty is 7, where its wounds' penalties add up to 1"),
    "a round past the cap": (_set(STATE, round=500), "state.round is 500, where the round cap is 200"),
    "a sheet renamed": (lambda d: d["fighters"][0]["data"].update(name="Zed"),
                        "state.fighters[0].name is 'Brannoc', where embedded sheet 1 is 'Zed'"),
    "an unknown technique": (_set(FIRST, technique={"name": "kamehameha", "rounds_left": 1}),
                             "state.fighters[0].technique.name is 'kamehameha'"),
    "a technique for ever": (_set(FIRST, technique={"name": "feint", "rounds_left": 10**9}),
                             "technique.rounds_left is 1000000000"),
    "a weapon the sheet lacks": (
        _set(FIRST, dropped=[{"item": "bazooka", "hands": [1], "rounds_left": 1}]),
        "state.fighters[0].dropped[0].item is 'bazooka'"),
    "a weapon in other hands": (
        _set(FIRST, dropped=[{"item": "sword", "hands": [2], "rounds_left": 1}]),
        "state.fighters[0].dropped[0].hands is [2], where the hands holding it on the sheet are [1]"),
    "a granted critical the rules never grant": (_set(FIRST, granted_crit=True),
                                                 "granted_crit is true"),
    "a winner still out": (lambda d: (STATE(d).update(over=True, winner="Brannoc"),
                                      FIRST(d).update(wounds=["fatal"], penalty=0, out=True)),
                           "state.winner is 'Brannoc', where the fighter still standing, 'Ysolde'"),
}


def _forged(ruleset: str, forgery: Forgery) -> bytes:
    if ruleset == "d20":
        ok("init", "-r", "d20", "--dice", "19,5")
        ok("round", "--dice", "8,18,17,3,3")
    else:
        ok("init", "--seed", "3")
        ok("round", "--seed", "4")
    doc = json.loads(ENCOUNTER.read_text("utf-8"))
    forgery(doc)
    ENCOUNTER.write_text(json.dumps(doc), "utf-8")
    return ENCOUNTER.read_bytes()


def _commands(ruleset: str) -> list[tuple[str, ...]]:
    common = [("status",), ("log",), ("odds",), ("round", "--seed", "5"), ("undo",),
              ("round", "--odds", "--seed", "5"), ("status", "--json")]
    if ruleset == "d20":
        return [*common, ("wound", "A", "1"), ("wound", "B", "--heal", "1"),
                ("round", "--dice", "8,18,17,3,3")]
    return [*common, ("wound", "Ysolde", "light"), ("advise",),
            ("round", "--dice", "1,1,1,1,1,1,1,1", "-a", "Brannoc=attack,defence")]


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset", "name"), [("d20", n) for n in D20] + [("sevendag", n) for n in SEVENDAG])
def test_a_forged_state_is_refused_by_every_command(ruleset: str, name: str) -> None:
    forgery, fragment = (D20 if ruleset == "d20" else SEVENDAG)[name]
    before = _forged(ruleset, forgery)
    for args in _commands(ruleset):
        result = run(*args)
        assert_one_line_error(result, 1, fragment) if "--json" not in args else None
        assert result.exit_code == 1, (args, result.stderr)
        assert ENCOUNTER.read_bytes() == before, args  # nothing rolled, nothing saved
    with pytest.raises(EncounterError) as caught:
        sd.Encounter(ENCOUNTER).status()
    assert caught.value.msg.key == "common.at_path"
    assert fragment in str(caught.value)


@pytest.mark.parametrize(("ruleset", "name"), [("d20", "round 10^18"), ("d20", "a sheet renamed"),
                                               ("sevendag", "a penalty not the wounds'"),
                                               ("sevendag", "a round past the cap")])
def test_a_forged_state_is_one_line_naming_the_file_and_the_field(ruleset: str, name: str) -> None:
    forgery, fragment = (D20 if ruleset == "d20" else SEVENDAG)[name]
    before = _forged(ruleset, forgery)
    for args in (("status",), ("round", "--seed", "5")):
        assert_one_line_error(run(*args), 1, f"encounter.sevendag.json: the saved state does not "
                                             f"hold with its rules and sheets: {fragment}")
    assert ENCOUNTER.read_bytes() == before
    doc = json.loads(run("odds", "--json").stdout)
    assert doc["error"]["key"] == "engine.state.invalid"


def test_the_renamed_sheet_is_no_longer_played_nor_blamed_on_the_user() -> None:
    """A d20 sheet renamed in the file: ``round`` played "Zed attacks B" and then blamed
    ``Zed`` as a name typed (exit 2); now one line, exit 1, before the round."""
    _forged("d20", D20["a sheet renamed"][0])
    result = run("round", "--seed", "5")
    assert_one_line_error(result, 1, "embedded sheet 1 is 'Zed'")
    assert "Zed attacks" not in result.stdout


def test_the_french_line_names_the_same_field() -> None:
    _forged("sevendag", SEVENDAG["a band named zzz"][0])
    assert_one_line_error(run("status", "--lang", "fr"), 1,
                          "l'état enregistré ne tient pas avec ses règles et ses fiches : "
                          "state.fighters[0].wounds[0] vaut 'zzz'")


def test_an_undo_to_a_damaged_state_is_refused() -> None:
    """The state ``undo`` would restore is checked as a read one is: refused, nothing saved."""
    ok("init", "-r", "d20", "--dice", "19,5")
    ok("round", "--dice", "8,18,17,3,3")
    doc = json.loads(ENCOUNTER.read_text("utf-8"))
    doc["history"][-1]["round"] = -7
    ENCOUNTER.write_text(json.dumps(doc), "utf-8")
    before = ENCOUNTER.read_bytes()
    assert_one_line_error(run("undo"), 1, "state.round is -7")
    assert ENCOUNTER.read_bytes() == before


# --- every state the engines reach passes ---------------------------------------------------------


def _small_cap(ruleset: str, cap: int) -> str:
    text = (BUNDLED / f"{ruleset}.toml").read_text("utf-8")
    lines = [f"round_cap = {cap}" if line.startswith("round_cap =") else line
             for line in text.splitlines()]
    text = "\n".join(lines) + "\n"
    text = text.replace(f'name = "{ruleset}"', f'name = "{ruleset}-short"', 1)
    Path(f"{ruleset}-short.toml").write_text(text, "utf-8")
    return f"{ruleset}-short.toml"


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_every_state_the_table_reaches_passes_the_check(ruleset: str, tmp_path: Path) -> None:
    """Random rounds, wounds, heals and undos (a round cap of 3, so fights are capped, and
    reopened at the cap by a heal): each step's state is read back and checked."""
    path = _small_cap(ruleset, 3)
    rng = random.Random(7)
    checked = 0
    for game in range(12):
        enc_path = tmp_path / f"e{game}.json"
        enc = sd.Encounter.start(ruleset=path, path=enc_path, seed=game)
        names = enc.started.fighters[0].name, enc.started.fighters[1].name  # type: ignore[union-attr]
        for _ in range(14):
            action = rng.choice(("round", "round", "wound", "heal", "undo"))
            who = rng.choice(names)
            try:
                if action == "round":
                    enc.round(seed=rng.randrange(1000))
                elif ruleset == "d20":
                    enc.wound(who, rng.randrange(1, 30), heal=action == "heal")
                elif action in ("wound", "heal"):
                    enc.wound(who, rng.choice(("light", "serious", "critical")), heal=action == "heal")
                else:
                    enc.undo()
            except SevendagError as exc:
                assert exc.msg.key != "common.at_path" or "saved state" not in str(exc), str(exc)
            enc.status()  # read back: checked
            checked += 1
    assert checked == 12 * 14


def test_a_fight_reopened_at_the_cap_plays_one_round_more(tmp_path: Path) -> None:
    """D-12: a d20 fight won in the round the cap ends, then the loser healed above 0 HP: it
    goes on, at the cap, for one round more, which the cap ends; each state passes the check."""
    path = _small_cap("d20", 1)
    enc = sd.Encounter.start("A", "B", path, path=tmp_path / "e.json", dice=[19, 5])
    enc.wound("B", 48)  # B at 2 HP
    enc.round(dice=[15, 2, 17, 6, 1])  # attack 15 hits, save 2 fails, club 6+1 - VIG 1: 6 (D-09)
    state: Any = enc.status().loaded.state
    assert (state.round, state.over, state.winner) == (1, True, "A")
    enc.wound("B", 10, heal=True)  # B at 6 HP: the fight reopens, at the cap
    state = enc.status().loaded.state
    assert (state.round, state.over) == (1, False)
    enc.round(seed=3)
    state = enc.status().loaded.state
    assert state.round == 2 and state.over
