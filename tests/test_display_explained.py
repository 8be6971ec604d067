"""Every number explained, in the reader's language.

d20 checks name their parts (``d20 8 + BBA 3 + STR +1 + type 0 = 12``, ``VIG (d10 3 +
CON +0 = 3)``) from the evaluation tree each check carries; the damage and magic checks
the engine builds by hand carry one too (D-07, D-09), with the same dice in the same
order; the JSON checks carry it as ``tree``.  Faces at their highest/lowest are marked
without colour.  Dice asked for or refused name what they are for in words, and a
critical's extra damage dice say they are the critical's.  English says assailant and
defender, French assaillant and défenseur; the round's time is game time (S-01); a
yield is said before the roles it swaps (S-03).
"""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from sevendag_cli.d20 import engine as E
from sevendag_cli.data import bundled_dir
from sevendag_cli.dice import EnteredDice, ManualDice
from sevendag_cli.errors import DiceError
from sevendag_cli.formula import CallResult, FieldResult, result_nodes
from sevendag_cli.rules import D20Fighter, D20Ruleset, fighter_from_data, load_ruleset
from tests.helpers import run, run_json


def d20() -> D20Ruleset:
    rs = load_ruleset(str(bundled_dir() / "d20.toml"))
    assert isinstance(rs, D20Ruleset)
    return rs


def sheet(name: str, **kw: Any) -> D20Fighter:
    data: dict[str, Any] = {"ruleset": "d20", "name": name, "level": 5, "str": 14, "dex": 10,
                            "con": 8, "wis": 10, "hp": 50, "ac": 5, "bba": 2,
                            "weapon": {"name": "club", "damage": "1d6"}}
    data.update(kw)
    f = fighter_from_data(data, "test", d20())
    assert isinstance(f, D20Fighter)
    return f


def field_names(tree: Any) -> set[str]:
    return {n.name for n in result_nodes(tree) if isinstance(n, FieldResult)}


# --- the engine: every d20 check carries its tree ---------------------------------------------


def test_D07_D09_damage_sets_carry_their_tree_with_the_same_dice_in_the_same_order() -> None:
    rs = d20()
    a = sheet("A", weapon={"name": "club", "damage": "1d6", "magic": "1d4"})
    b = sheet("B")
    state = replace(E.initial_state(a, b), next_attacker="A")
    faces = [20, 2, 3, 4, 5, 3, 2, 7]  # a critical: two physical sets, VIG, magic once, VOL
    result, _ = E.play_round(rs, a, b, state, EnteredDice(faces))
    assert [r.face for r in result.rolls] == faces  # the roll order (D-15) is unchanged
    dmg = next(e for e in result.events if isinstance(e, E.DamageEvent))
    for s in dmg.sets:
        assert s.evaluated is not None and s.evaluated.value == s.total
        assert field_names(s.evaluated.tree) == {"str"}  # the bonus: mod(str)
        assert s.total == s.rolls[0].face + 2 and s.modifier == 2
    assert dmg.magic is not None and dmg.magic.evaluated is not None
    assert field_names(dmg.magic.evaluated.tree) == {"wis"} and dmg.magic.total == 2
    attack = next(e for e in result.events if isinstance(e, E.AttackEvent))
    assert attack.roll.evaluated is not None
    calls = [n for n in result_nodes(attack.roll.evaluated.tree) if isinstance(n, CallResult)]
    assert [(c.function, c.value) for c in calls] == [("mod", 2)]


def test_D07_a_criticals_extra_dice_say_they_are_the_criticals() -> None:
    rs = d20()
    a, b = sheet("A"), sheet("B")
    state = replace(E.initial_state(a, b), next_attacker="A")
    asked: list[str] = []
    answers = iter(["20", "1", "4", "5", "3"])
    manual = ManualDice(lambda label: asked.append(label) or next(answers), lambda _m: None)
    E.play_round(rs, a, b, state, manual)
    assert asked == ["d20 for A's attack", "d20 for B's save", "d6 for A's damage",
                     "d6 for A's damage (critical hit, set 2 of 2)", "d10 for B's vigour (VIG)"]
    with pytest.raises(DiceError) as err:
        E.play_round(rs, a, b, state, EnteredDice([20, 1, 4]))
    assert "d6 for A's damage (critical hit, set 2 of 2)" in err.value.render("en")
    assert "coup critique, série 2 sur 2" in err.value.render("fr")


def test_D08_the_prompts_name_the_dd_and_vig_in_words() -> None:
    rs = d20()
    a, b = sheet("A"), sheet("B")
    state = replace(E.initial_state(a, b), next_attacker="A")
    asked: list[str] = []
    answers = iter(["12", "10", "10", "4", "3"])
    E.play_round(rs, a, b, state, ManualDice(lambda label: asked.append(label) or next(answers),
                                             lambda _m: None, "fr"))
    assert "d20 pour le jet de difficulté (DD) d'A" in asked
    assert "d10 pour la vigueur (VIG) de B" in asked


# --- the display ------------------------------------------------------------------------------


def worked_example(lang: str) -> str:
    assert run("init", "--ruleset", "d20", "--dice", "19,5").exit_code == 0
    result = run("round", "--dice", "8,18,17,3,3", "--lang", lang)
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_D14_the_worked_example_names_every_part_in_english() -> None:
    out = worked_example("en")
    assert "attack: d20 8 + BBA 3 + STR +1 + type 0 = 12 against AC 5" in out
    assert "save B: d20 18 + DEX +0 + dodge 0 = 18 ≤ DD A: d20 17 + DEX +4 = 21" in out
    assert "(d6 3 + STR +1 = 4) − VIG (d10 3 + CON +0 = 3) → 1" in out
    assert "B: 50 → 49 HP" in out  # the worked example still gives 49 (D-14)


def test_D14_the_worked_example_names_every_part_in_french() -> None:
    out = worked_example("fr")
    assert "attaque : d20 8 + BBA 3 + FOR +1 + type 0 = 12 contre CA 5" in out
    assert "sauvegarde B : d20 18 + DEX +0 + esquive 0 = 18 ≤ DD A : d20 17 + DEX +4 = 21" in out
    assert "(d6 3 + FOR +1 = 4) − VIG (d10 3 + CON +0 = 3) → 1" in out
    assert "B : 50 → 49 PV" in out


def test_D09_a_negative_con_modifier_is_shown() -> None:
    worked_example("en")
    out = run("round", "--dice", "4,15,20,1,6,6,2").stdout  # B hits A (CON 8) critically
    assert "VIG (d10 2 + CON −1 = 1)" in out
    assert "(d8 6 + STR +4 = 10) + (d8 6 + STR +4 = 10)" in out


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_highest_and_lowest_faces_are_marked_without_colour(lang: str) -> None:
    out = run("fight", "--ruleset", "d20", "--seed", "5", "--cap", "3", "--lang", lang).stdout
    assert "d20 20▲" in out and "d20 1▼" in out
    out = run("fight", "--seed", "5", "--cap", "3", "--lang", lang).stdout
    assert "d8 8▲" in out and "d8 1▼" in out
    assert "\x1b[" not in out


def test_json_checks_carry_their_tree() -> None:
    assert run("init", "--ruleset", "d20", "--dice", "19,5").exit_code == 0
    doc = run_json("round", "--dice", "8,18,17,3,3")
    attack = next(e for e in doc["events"] if e["type"] == "attack")
    tree = attack["roll"]["tree"]
    assert tree["type"] == "operation" and tree["value"] == 12
    found: list[tuple[str, int]] = []

    def walk(node: dict[str, Any]) -> None:
        if node["type"] == "field":
            found.append((node["name"], node["value"]))
        for key in ("left", "right", "operand"):
            if key in node:
                walk(node[key])
        for arg in node.get("args", []):
            walk(arg)

    walk(tree)
    assert found == [("bba", 3), ("str", 12), ("weapon_type", 0)]
    damage = next(e for e in doc["events"] if e["type"] == "damage")
    assert damage["sets"][0]["tree"]["value"] == damage["sets"][0]["total"] == 4
    assert damage["vig"]["tree"]["value"] == 3


# --- English words in English, French in French -----------------------------------------------


def test_S03_english_says_assailant_and_defender_french_assaillant_and_defenseur() -> None:
    en = run("fight", "--seed", "3", "--cap", "2").stdout
    assert "(assailant)" in en and "(defender)" in en and "is the assailant" in en
    assert "assaillant" not in en and "défenseur" not in en
    fr = run("fight", "--seed", "3", "--cap", "2", "--lang", "fr").stdout
    assert "(assaillant)" in fr and "(défenseur)" in fr


def test_S01_the_time_of_a_round_is_game_time() -> None:
    en = " ".join(run("fight", "--seed", "3", "--cap", "2").stdout.split())
    assert "Round 2 · 6 s of game time (3 s a round)" in en
    assert "2 round(s), 6 s of game time" in en
    fr = run("fight", "--seed", "3", "--cap", "2", "--lang", "fr").stdout
    assert "Round 2 · 6 s de temps de jeu (3 s par round)" in fr


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_S03_the_yield_is_said_before_the_roles_it_swaps(lang: str) -> None:
    assert run("init", "--dice", "5,19").exit_code == 0  # Ysolde is the assaillant
    lines = run("round", "--dice", "1,15,8,8,3", "--yield", "--lang", lang).stdout.splitlines()
    yields = next(i for i, line in enumerate(lines) if "Ysolde" in line and "S-03]" in line
                  and ("yields" in line or "cède" in line))
    roles = [i for i, line in enumerate(lines) if "(assailant)" in line or "(assaillant)" in line]
    assert roles and yields < roles[0]
    assert "Brannoc" in lines[roles[0]]  # the roles are swapped for the round


def test_a_draw_names_the_cap_of_the_fight() -> None:
    out = run("fight", "--seed", "5", "--cap", "3").stdout
    assert "round cap (3)" in out and "(200)" not in out


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_exact_note_is_in_the_readers_language(lang: str) -> None:
    out = run("fight", "--ruleset", "d20", "--exact", "--lang", lang).stdout
    assert ("Exact (no sampling)" in out) == (lang == "en")
    assert ("Exact (sans tirage)" in out) == (lang == "fr")


EVIL = """ruleset = "sevendag"
name = "Evil\\u001b[2J\\nX"
speed = 1
attack = 5
defence = 5
[[hands]]
die = 6
holds = "s"
[items.s]
kind = "weapon"
label = "bad\\u001b[31m"
hands = 1
metal = "iron"
skill = 10
"""


@pytest.mark.slow
@pytest.mark.parametrize("args", [["--seed", "1"], ["--runs", "50", "--seed", "1"]])
def test_names_and_labels_from_a_file_show_their_control_characters(args: list[str], tmp_path: Any) -> None:
    (tmp_path / "evil.toml").write_text(EVIL, "utf-8")
    out = run("fight", "evil.toml", "brannoc", *args).stdout
    assert "\x1b" not in out and "Evil\\x1b[2J\\nX" in out
    if "--runs" not in args:
        assert "bad\\x1b[31m" in out
    listing = run("rulesets").stdout
    assert "\x1b" not in listing and "Evil\\x1b[2J\\nX" in listing
