"""Healing by hand (S-16): Sevendag ``wound F --heal BAND`` and d20 ``--heal N``, engine and CLI.

Sevendag: the last wound of the band goes, with its penalty; being out is counted again from the
wounds left (S-19), so healing the wound that took a fighter out brings them back and reopens a
fight they had lost; a draw by the round cap stays a draw.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from sevendag_cli.d20 import engine as d
from sevendag_cli.dice import SeededDice
from sevendag_cli.errors import RuleError, UsageError
from sevendag_cli.rules import load_pair, load_ruleset
from sevendag_cli.sevendag import engine as s
from tests.helpers import assert_one_line_error, run, run_json
from tests.sevendag_helpers import RS, make


def pair() -> tuple[Any, Any]:
    a = make("Aldo", [{"die": 10, "holds": "sword"}],
             {"sword": {"kind": "weapon", "label": "sword", "hands": 1, "metal": "iron", "skill": 10}})
    b = make("Bera", [{"die": 10, "holds": "axe"}],
             {"axe": {"kind": "weapon", "label": "axe", "hands": 1, "metal": "iron", "skill": 10}})
    return a, b


def wounded(*bands: str, who: str = "Aldo") -> tuple[Any, Any, s.SevendagState]:
    a, b = pair()
    state = s.initial_state(a, b, "Aldo")
    for band in bands:
        _, state = s.apply_wound(RS, a, b, state, who, band=band)
    return a, b, state


# --- the engine ------------------------------------------------------------------------------------


def test_S16_S19_heal_takes_the_last_wound_of_the_band_and_its_penalty() -> None:
    a, b, state = wounded("light", "serious", "light")
    assert state.fighter("Aldo").penalty == 1 + 3 + 1
    result, after = s.apply_heal(RS, a, b, state, "Aldo", band="light")
    fs = after.fighter("Aldo")
    assert fs.wounds == ("light", "serious") and fs.penalty == 4
    (event,) = result.events
    assert isinstance(event, s.HealEvent)
    assert (event.fighter, event.band, event.wounds, event.penalty, event.out, event.reopened) == (
        "Aldo", "light", ("light", "serious"), 4, False, False)
    assert event.rules == ("S-16", "S-19")
    assert (result.fighter, result.amount, result.band) == ("Aldo", None, "light")
    _, after = s.apply_heal(RS, a, b, after, "Aldo", band="serious")
    assert after.fighter("Aldo").wounds == ("light",) and after.fighter("Aldo").penalty == 1


def test_S16_S07_heal_by_damage_heals_the_band_of_that_damage() -> None:
    a, b, state = wounded("light", "serious")
    result, after = s.apply_heal(RS, a, b, state, "Aldo", amount=17)  # 17 damage: serious (S-07)
    assert result.band == "serious" and result.amount == 17
    assert after.fighter("Aldo").wounds == ("light",)


def test_S16_S19_healing_the_wound_that_took_a_fighter_out_reopens_the_fight() -> None:
    a, b, state = wounded("light", "fatal")
    assert state.over and state.winner == "Bera" and state.fighter("Aldo").out
    result, after = s.apply_heal(RS, a, b, state, "Aldo", band="fatal")
    assert not after.over and after.winner is None and not after.fighter("Aldo").out
    assert not result.over and result.winner is None
    (event,) = result.events
    assert event.reopened and not event.out
    # the fight goes on: a round can be played
    round_result, _ = s.play_round(RS, a, b, after, SeededDice(1))
    assert round_result.number == 1


def test_S16_S19_healing_another_wound_leaves_the_fighter_out() -> None:
    a, b, state = wounded("light", "fatal")
    result, after = s.apply_heal(RS, a, b, state, "Aldo", band="light")
    assert after.over and after.winner == "Bera" and after.fighter("Aldo").out
    assert not result.events[0].reopened


def test_S16_healing_the_winner_changes_nothing_of_the_outcome() -> None:
    a, b, state = wounded("fatal")
    _, state = s.apply_wound(RS, a, b, replace(state, over=False, winner=None), "Bera", band="light")
    state = replace(state, over=True, winner="Bera")
    _, after = s.apply_heal(RS, a, b, state, "Bera", band="light")
    assert after.over and after.winner == "Bera"


def test_S19_a_draw_by_the_round_cap_stays_a_draw() -> None:
    a, b, state = wounded("serious")
    state = replace(state, over=True, winner=None, capped=True)
    result, after = s.apply_heal(RS, a, b, state, "Aldo", band="serious")
    assert after.over and after.capped and after.winner is None
    assert not result.events[0].reopened


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"fighter": "Aldo", "band": "critical"}, RuleError,
     "Aldo has no critical wound to heal (wounds: light)"),
    ({"fighter": "Aldo", "band": "scratch"}, RuleError, "no wound band 'scratch'"),
    ({"fighter": "Aldo", "amount": 0}, RuleError, "at least 1"),
    ({"fighter": "Aldo"}, RuleError, "amount"),
    ({"fighter": "Aldo", "amount": 3, "band": "light"}, RuleError, "not both"),
    ({"fighter": "Zed", "band": "light"}, UsageError, "use 'Aldo' or 'Bera'"),
])
def test_S16_heal_refusals(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    a, b, state = wounded("light")
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        s.apply_heal(RS, a, b, state, **kwargs)


def test_S16_nothing_to_heal_on_an_unhurt_fighter() -> None:
    a, b, state = wounded()
    with pytest.raises(RuleError, match="no light wound to heal \\(wounds: none\\)"):
        s.apply_heal(RS, a, b, state, "Bera", band="light")


def test_D12_heal_gives_hit_points_back_like_a_negative_wound() -> None:
    rs = load_ruleset("d20")
    a, b = load_pair(rs, None)
    state = d.initial_state(a, b)
    _, state = d.apply_wound(rs, a, b, state, "B", 20)
    healed, by_heal = d.apply_heal(rs, a, b, state, "B", 5)
    negative, by_wound = d.apply_wound(rs, a, b, state, "B", -5)
    assert healed == negative and by_heal == by_wound
    assert d.fighter_states(by_heal)[1].hp == 35
    with pytest.raises(RuleError, match="at least 1"):
        d.apply_heal(rs, a, b, state, "B", 0)
    with pytest.raises(RuleError, match="hit points, not wound bands"):
        d.apply_heal(rs, a, b, state, "B", None, "light")


# --- the command line --------------------------------------------------------------------------


def test_wound_heal_on_the_command_line_sevendag() -> None:
    assert run("init", "--dice", "5,19").exit_code == 0
    assert run("wound", "Brannoc", "light").exit_code == 0
    assert run("wound", "Brannoc", "serious").exit_code == 0
    result = run("wound", "Brannoc", "--heal", "light")
    assert result.exit_code == 0, result.stderr
    assert "Brannoc → healed: light wound  (penalty -3)  [S-16, S-19]" in result.stdout
    doc = run_json("wound", "Brannoc", "--heal", "17")  # the serious wound, by its damage
    assert doc["command"] == "wound" and doc["band"] == "serious" and doc["amount"] == 17
    assert doc["events"][0]["type"] == "heal" and doc["fighters"][0]["wounds"] == []
    french = run("wound", "Brannoc", "--heal", "light", "--lang", "fr")
    assert_one_line_error(french, 1, "Brannoc n'a pas de blessure légère à soigner (blessures : aucune)")


def test_healing_back_into_the_fight_on_the_command_line() -> None:
    assert run("init", "--dice", "5,19").exit_code == 0
    out = run("wound", "Ysolde", "fatal")
    assert out.exit_code == 0 and "Brannoc wins" in out.stdout
    result = run("wound", "Ysolde", "--heal", "fatal", "--lang", "fr")
    assert result.exit_code == 0, result.stderr
    assert "Ysolde revient au combat : le combat reprend" in result.stdout
    assert run("round", "--seed", "1", "--no-input").exit_code == 0  # the fight goes on


def test_wound_heal_on_the_command_line_d20() -> None:
    assert run("init", "--ruleset", "d20", "--dice", "19,5").exit_code == 0
    assert run("wound", "B", "12").exit_code == 0
    doc = run_json("wound", "B", "--heal", "5")
    assert doc["amount"] == -5 and doc["events"][0] == {
        "type": "hp", "fighter": "B", "before": 38, "after": 43, "defeated": False, "rules": ["D-12"]}


@pytest.mark.parametrize(("args", "code", "fragment"), [
    (["wound", "Brannoc", "light", "--heal", "light"], 2, "--heal replaces AMOUNT"),
    (["wound", "--heal", "light"], 2, "give the FIGHTER to heal"),
    (["wound", "Zed", "--heal", "light"], 2, "no fighter 'Zed'"),
    (["wound", "Brannoc", "--heal", "scratch"], 1, "no wound band 'scratch'"),
    (["wound", "Brannoc", "--heal", "light"], 1, "no light wound to heal"),
])
def test_heal_mistakes_change_nothing(tmp_path: Path, args: list[str], code: int, fragment: str) -> None:
    assert run("init", "--dice", "5,19").exit_code == 0
    before = (tmp_path / "encounter.sevendag.json").read_bytes()
    assert_one_line_error(run(*args), code, fragment)
    assert (tmp_path / "encounter.sevendag.json").read_bytes() == before


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_undo_after_a_heal_says_it_took_back_a_heal(lang: str) -> None:
    said = {"en": "undone: the heal given to Brannoc", "fr": "annulé : les soins apportés à Brannoc"}
    assert run("init", "--dice", "5,19").exit_code == 0
    assert run("wound", "Brannoc", "light").exit_code == 0
    assert run("wound", "Brannoc", "--heal", "light").exit_code == 0
    result = run("undo", "--lang", lang)
    assert result.exit_code == 0 and said[lang] in result.stderr
    doc = json.loads(Path("encounter.sevendag.json").read_text("utf-8"))
    assert [e["step"] for e in doc["log"]] == ["init", "wound"]
    undone = run_json("undo")["undone"]
    assert undone == {"amount": None, "band": "light", "fighter": "Brannoc", "step": "wound"}


def test_undo_after_a_d20_heal_by_negative_amount_says_heal_too() -> None:
    assert run("init", "--ruleset", "d20", "--dice", "19,5").exit_code == 0
    assert run("wound", "B", "10").exit_code == 0
    assert run("wound", "B", "-4").exit_code == 0
    assert "undone: the heal given to B" in run("undo").stderr
    assert "undone: the wound given to B" in run("undo").stderr
