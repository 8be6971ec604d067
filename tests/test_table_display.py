"""At the table, as new users met it: every number named, items by their label,
the initiative kept or passed, one choice per fighter, French all the way, one spelling per
name, players who roll their own dice.

Mira and Pip are small test sheets (not bundled): Mira holds an iron dagger under the key
``left`` and a star-metal shortsword whose metal is written as ``rulesets show`` lists it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import typer.testing

from tests.helpers import (
    BUNDLED,
    GOLDEN,
    Step,
    assert_one_line_error,
    check_width,
    compare,
    ok,
    render,
    run,
    run_json,
    snapshot,
    validate,
)

MIRA = """ruleset = "sevendag"
name = "Mira"
speed = 4
attack = 7
defence = 5
[[hands]]
die = 6
holds = "left"
[[hands]]
die = 8
holds = "right"
[items.left]
kind = "weapon"
label = { en = "iron dagger", fr = "dague de fer" }
metal = "iron"
skill = 12
[items.right]
kind = "weapon"
label = { en = "star-metal shortsword", fr = "épée courte en métal d'étoile" }
metal = "star-metal"
skill = 14
"""

PIP = """ruleset = "sevendag"
name = "Pip"
speed = 1
attack = 6
defence = 4
[[hands]]
die = 6
holds = "club"
[[hands]]
die = 6
holds = "buckler"
[items.club]
kind = "weapon"
label = "oak club"
metal = "bronze"
skill = 15
[items.buckler]
kind = "shield"
label = { en = "buckler", fr = "rondache" }
"""


def sheets() -> None:
    Path("mira.toml").write_text(MIRA, "utf-8")
    Path("pip.toml").write_text(PIP, "utf-8")


# Mira wins the initiative (20 + 4 against 1 + 1).  Round 1: her dagger shows its lowest face
# (S-12: a critical failure), the drop check 20 is above its skill 12 (S-10, S-18); Pip's
# buckler shows 3, his club 4 against her bare constant.
MIRA_ROUND: list[Step] = [
    sheets,
    ["init", "mira.toml", "pip.toml", "--dice", "20,1"],
    ["round", "--dice", "1,6,20,3,4"],
    ["status"],
]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_golden_mira_and_pip(lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Items by their label in the language (the dagger on the ground, in the round's last
    line and in the status), every number named (S-06, S-10)."""
    monkeypatch.setenv("COLUMNS", "80")
    text = render(MIRA_ROUND, lang)
    check_width(text, 80)
    compare(text, GOLDEN / f"table-polish-mira.{lang}.txt")


# --- 1. every number named -------------------------------------------------------------------


def test_S06_S05_S19_each_part_of_a_total_is_named() -> None:
    ok("init", "--dice", "5,19")
    first = ok("round", "--dice", "5,3,6,6", "--technique", "Ysolde=feint")
    assert "attack: attack 9 + d8 5 + d8 3 + feint 3 = 20" in first
    assert "defence: defence 5 − feint 2 = 3" in first
    assert "technique: feint (attack +3, defence -2)" in first
    second = ok("round", "--dice", "1,15,8,8,3", "--yield", "--lang", "fr")
    assert "attaque : attaque 8 + d10 1▼ − blessures 1 = 8" in second
    assert "d20 15 > maîtrise 14" in second


def test_S05_the_exchange_names_the_technique_behind_each_modifier() -> None:
    ok("init", "--dice", "5,19")
    doc = run_json("round", "--dice", "5,3,6,6", "--technique", "Ysolde=feint")
    validate("round", doc)
    exchanges = [e for e in doc["events"] if e["type"] == "exchange"]
    assert [(e["attack_technique"], e["defence_technique"]) for e in exchanges] == [
        ("feint", None), (None, "feint")]


def test_S17_extra_damage_names_the_margin_and_the_metal() -> None:
    sheets()
    ok("init", "mira.toml", "pip.toml", "--dice", "20,1")
    # Mira: 7 + 5 + 8▲ = 20 against 4 + 3 = 7: a critical (S-12), the star-metal's +3 and a band
    text = ok("round", "--dice", "5,8,3,2")
    assert "damage margin 13 + metal 3 = 16 → critical wound" in text
    assert "(serious wound +1 band)" in text


# --- 3. the initiative kept, or passed --------------------------------------------------------


def test_S14_a_critical_defence_by_the_assaillant_keeps_the_initiative() -> None:
    ok("init", "--dice", "19,1")  # Brannoc is the assaillant
    doc = run_json("round", "--dice", "2,4,4,8")  # Ysolde attacks second: Brannoc's shield 8▲
    validate("round", doc)
    exchange = [e for e in doc["events"] if e["type"] == "exchange"][-1]
    assert exchange["critical_defence"] and exchange["initiative"] == "kept"
    assert "initiative-reversed" not in [e["type"] for e in doc["events"]]
    ok("undo")
    for lang, said in (("en", "critical defence: Brannoc keeps the initiative"),
                       ("fr", "défense critique : Brannoc garde l'initiative")):
        text = ok("round", "--dice", "2,4,4,8", "--lang", lang)
        assert said in text and "passes" not in text and "passe à" not in text
        ok("undo")


def test_S14_a_critical_defence_by_the_defender_passes_the_initiative() -> None:
    ok("init", "--dice", "5,19")  # Ysolde is the assaillant; Brannoc's shield defends first
    doc = run_json("round", "--dice", "2,3,8")
    exchange = next(e for e in doc["events"] if e["type"] == "exchange")
    assert exchange["critical_defence"] and exchange["initiative"] == "passes"
    assert "initiative-reversed" in [e["type"] for e in doc["events"]]


# --- 4. one technique, one allocation per fighter per round -----------------------------------


@pytest.mark.parametrize(("args", "fragment"), [
    (["-t", "Brannoc=feinte", "-t", "Brannoc=charge"], "--technique: Brannoc is given twice"),
    (["-t", "Brannoc=feint", "-t", "brannoc=feint"], "--technique: Brannoc is given twice"),
    (["-a", "Brannoc=a,d", "-a", "Brannoc=d,d"], "--allocate: Brannoc is given twice"),
])
def test_S05_S04_a_fighter_given_twice_is_refused_and_nothing_changes(args: list[str],
                                                                         fragment: str) -> None:
    ok("init", "--dice", "19,1")
    before = snapshot(Path("."))
    result = run("round", *args, "--dice", "2,4,4,8")
    assert_one_line_error(result, 2, fragment)
    assert snapshot(Path(".")) == before
    french = run("round", *args, "--dice", "2,4,4,8", "--lang", "fr")
    assert_one_line_error(french, 2, "donné deux fois")


# --- 5. French all the way --------------------------------------------------------------------


def test_S05_technique_errors_list_the_french_names_in_french() -> None:
    ok("init", "--dice", "19,1")
    result = run("round", "-t", "Brannoc=zz", "--dice", "2,4,4,8", "--lang", "fr")
    assert_one_line_error(result, 2, "pas de technique 'zz'")
    assert "feinte" in result.stderr and "garde de fer" in result.stderr
    assert "feint," not in result.stderr and "guard" not in result.stderr
    english = run("round", "-t", "Brannoc=zz", "--dice", "2,4,4,8")
    assert "feint" in english.stderr and "iron guard" in english.stderr


def test_S05_a_short_form_is_accepted_and_an_ambiguous_one_refused_naming_the_candidates() -> None:
    ok("init", "--dice", "19,1")
    doc = run_json("round", "-t", "Brannoc=garde", "--dice", "2,4,4,8")
    assert next(e["technique"] for e in doc["events"] if e["type"] == "allocation") == "guard"
    ok("undo")
    doc = run_json("round", "-t", "Brannoc=cha", "--dice", "2,4,4,8")
    assert next(e["technique"] for e in doc["events"] if e["type"] == "allocation") == "charge"
    ok("undo")
    before = snapshot(Path("."))
    result = run("round", "-t", "Brannoc=f", "--dice", "2,4,4,8", "--lang", "fr")
    assert_one_line_error(result, 2, "quelle technique ?")
    assert "feinte" in result.stderr and "garde de fer" in result.stderr
    assert snapshot(Path(".")) == before


def test_S04_a_prefix_of_a_commitment_is_accepted() -> None:
    ok("init", "--dice", "19,1")
    doc = run_json("round", "-a", "Brannoc=att,défen", "--dice", "2,4,4,8")
    hands = next(e["hands"] for e in doc["events"]
             if e["type"] == "allocation" and e["fighter"] == "Brannoc")
    assert [h["commitment"] for h in hands] == ["attack", "defence"]


def test_a_sheet_label_in_both_languages_and_a_plain_one_both_work() -> None:
    sheets()
    ok("init", "mira.toml", "pip.toml", "--dice", "20,1")
    doc = run_json("round", "--dice", "1,6,20,3,4")
    validate("round", doc)
    labels = {h["holds"]: h["label"] for e in doc["events"] if e["type"] == "allocation"
              for h in e["hands"]}
    assert labels == {"left": "iron dagger", "right": "star-metal shortsword",
                      "club": "oak club", "buckler": "buckler"}  # the JSON keeps the English label
    ok("undo")
    french = ok("round", "--dice", "1,6,20,3,4", "--lang", "fr")
    assert "d6 dague de fer → attaque" in french and "d6 oak club → attaque" in french
    assert "rondache" in french


# --- 6. one spelling per name -----------------------------------------------------------------


def test_S17_rulesets_show_gives_the_key_a_sheet_writes() -> None:
    text = ok("rulesets", "show", "sevendag")
    assert re.search(r"starmetal \(star-metal\)\s+\+3", text)
    doc = run_json("rulesets", "show", "sevendag")
    assert "starmetal" in doc["metals"]


@pytest.mark.parametrize("spelling", ["starmetal", "star-metal", "Star Metal", "métal d'étoile"])
def test_S17_a_sheet_may_write_a_metal_by_its_key_or_its_label(spelling: str) -> None:
    Path("pip.toml").write_text(PIP, "utf-8")
    Path("mira.toml").write_text(MIRA.replace('"star-metal"', json.dumps(spelling)), "utf-8")
    ok("init", "mira.toml", "pip.toml", "--dice", "20,1")
    doc = run_json("round", "--dice", "5,8,3,2")
    metals = [m["metal"] for e in doc["events"] if e["type"] == "exchange" for m in e["metals"]]
    assert metals == ["starmetal"]


def test_S17_an_unknown_metal_is_still_refused() -> None:
    Path("pip.toml").write_text(PIP, "utf-8")
    Path("mira.toml").write_text(MIRA.replace('"star-metal"', '"mithril"'), "utf-8")
    result = run("init", "mira.toml", "pip.toml", "--dice", "20,1")
    assert result.exit_code == 1 and "unknown metal 'mithril'" in result.stderr


# --- 7. players roll their own dice ------------------------------------------------------------


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(typer.testing._NamedTextIOWrapper, "isatty", lambda self: True,
                        raising=False)


@pytest.mark.usefixtures("terminal")
def test_C01_manual_for_asks_only_that_fighters_dice_and_rolls_the_others_seeded() -> None:
    ok("init", "--dice", "5,19")  # Ysolde attacks first: her 2d8, then Brannoc's shield d8
    result = run("round", "--manual-for", "ysolde", "--seed", "7", "--json", input="5\n3\n")
    assert result.exit_code == 0, result.stderr
    prompts = re.findall(r"d\d+ for [^?]+\?", result.stderr)
    assert prompts == ["d8 for Ysolde's attack?", "d8 for Ysolde's attack?"]
    doc = json.loads(result.stdout)
    assert doc["seed"] == 7
    faces = [(r["fighter"], r["face"]) for r in doc["rolls"]]
    assert faces[:2] == [("Ysolde", 5), ("Ysolde", 3)]
    assert all(f == "Brannoc" for f, _ in faces[2:])
    ok("undo")  # the same seed rolls Brannoc's dice the same way again
    again = run("round", "--manual-for", "Ysolde", "--seed", "7", "--json", input="5\n3\n")
    assert json.loads(again.stdout)["rolls"] == doc["rolls"]


@pytest.mark.usefixtures("terminal")
def test_C01_manual_for_reports_the_seed_it_chose() -> None:
    ok("init", "--dice", "5,19")
    result = run("round", "--manual-for", "Ysolde", "--no-input", input="5\n3\n")
    assert result.exit_code == 0, result.stderr
    assert re.search(r"\(--seed \d+\)", result.stderr)


@pytest.mark.usefixtures("terminal")
def test_C01_manual_for_a_fighter_of_another_fight_is_refused() -> None:
    ok("init", "--dice", "5,19")
    before = snapshot(Path("."))
    assert_one_line_error(run("round", "--manual-for", "Mira", "--no-input", input="5\n"), 2,
                          "no fighter 'Mira'")
    assert_one_line_error(run("round", "--manual-for", "Ysolde", "--manual", "--no-input",
                              input="5\n"), 2,
                          "--manual-for")
    assert snapshot(Path(".")) == before


@pytest.mark.usefixtures("terminal")
def test_C01_manual_for_at_init() -> None:
    result = run("init", "--manual-for", "Brannoc", "--seed", "3", "--json", input="12\n")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    rolls = [(r["fighter"], r["face"]) for r in doc["rolls"]]
    assert rolls[0] == ("Brannoc", 12) and rolls[1][0] == "Ysolde"
    assert result.stderr.count("?") == 1


@pytest.mark.usefixtures("terminal")
def test_C01_plain_manual_still_asks_every_die() -> None:
    result = run("init", "--manual", "--json", input="5\n19\n")
    assert result.exit_code == 0, result.stderr
    assert [r["face"] for r in json.loads(result.stdout)["rolls"]] == [5, 19]


@pytest.mark.usefixtures("terminal")
def test_C01_roll_manual_asks_each_die() -> None:
    result = run("roll", "2d6+1", "--manual", "--json", input="4\n6\n")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.count("d6") == 2
    assert "11" in result.stdout


# --- 5. numbers the French way in the display, machine-readable elsewhere ---------------------

ENGLISH_DECIMAL = re.compile(r"\d\.\d")


def test_french_display_writes_numbers_the_french_way() -> None:
    text = ok("fight", "--runs", "300", "--seed", "5", "--lang", "fr")
    assert re.search(r"\d,\d\d\u00a0%", text)  # 54,67 % (a no-break space before %)
    assert not ENGLISH_DECIMAL.search(text) and not re.search(r"\d%", text)
    english = ok("fight", "--runs", "300", "--seed", "5")
    assert re.search(r"\d\.\d\d%", english) and "\u00a0%" not in english


def test_french_odds_line_and_table() -> None:
    ok("init", "--dice", "5,19", "--odds", "--lang", "fr")
    text = ok("odds", "--lang", "fr")
    assert re.search(r"\d,\d\u00a0%", text) and not ENGLISH_DECIMAL.search(text)


def test_csv_and_json_stay_machine_readable_in_french() -> None:
    csv_text = ok("sweep", "--vary", "Ysolde.attack=8..9", "--csv", "--lang", "fr")
    assert ENGLISH_DECIMAL.search(csv_text) and "\u00a0" not in csv_text
    doc = run_json("fight", "--runs", "300", "--seed", "5", "--lang", "fr")
    assert isinstance(doc["fighters"][0]["win_probability"], float)


# --- 2. labels, not keys, in refusals too -------------------------------------------------------


def test_S16_wound_refusals_name_the_bands_in_the_language() -> None:
    ok("init", "--dice", "5,19")
    french = run("wound", "Brannoc", "--heal", "serious", "--lang", "fr")
    assert_one_line_error(french, 1, "Brannoc n'a pas de blessure grave à soigner (blessures : aucune)")
    unknown = run("wound", "Brannoc", "scratch", "--lang", "fr")
    assert_one_line_error(unknown, 1, "choisir parmi légère, grave, critique, fatale")
    english = run("wound", "Brannoc", "scratch")
    assert_one_line_error(english, 1, "use one of light, serious, critical, fatal")


D20_SHEET = (BUNDLED / "fighters" / "a.toml").read_text("utf-8").replace(
    'name = "club (gourdin)"', 'name = { en = "club", fr = "gourdin" }')


@pytest.mark.parametrize(("lang", "weapon"), [("en", "damage, club:"), ("fr", "dégâts, gourdin :")])
def test_D11_a_d20_weapon_named_in_both_languages(lang: str, weapon: str) -> None:
    Path("a.toml").write_text(D20_SHEET, "utf-8")
    ok("init", "a.toml", str(BUNDLED / "fighters" / "b.toml"), "--dice", "19,5")
    text = ok("round", "--dice", "8,18,17,3,3", "--lang", lang)
    assert weapon in text
    doc = run_json("fight", "a.toml", str(BUNDLED / "fighters" / "b.toml"), "--seed", "5",
                   "--cap", "3")
    validate("fight", doc)
    weapons = {e["weapon"] for r in doc["rounds"] for e in r["events"]
               if e["type"] == "damage" and e["attacker"] == "A"}
    assert weapons == {"club"}  # the JSON keeps the English name


@pytest.mark.usefixtures("terminal")
def test_C01_round_manual_name_is_manual_for_name() -> None:
    """``round --manual NAME`` (repeatable) asks only that player's dice, as
    ``--manual-for NAME``; ``round`` takes no positional argument, so the name is unambiguous."""
    ok("init", "--dice", "5,19")
    result = run("round", "--manual", "ysolde", "--seed", "7", "--json", input="5\n3\n")
    assert result.exit_code == 0, result.stderr
    assert re.findall(r"d\d+ for [^?]+\?", result.stderr) == ["d8 for Ysolde's attack?"] * 2
    ok("undo")
    same = run("round", "--manual-for", "Ysolde", "--seed", "7", "--json", input="5\n3\n")
    assert json.loads(same.stdout)["rolls"] == json.loads(result.stdout)["rolls"]
    ok("undo")
    equals = run("round", "--manual=Ysolde", "--seed", "7", "--json", input="5\n3\n")
    assert json.loads(equals.stdout)["rolls"] == json.loads(result.stdout)["rolls"]


@pytest.mark.usefixtures("terminal")
def test_C01_init_manual_before_the_fighters_still_asks_every_die() -> None:
    """``init --manual Brannoc Ysolde``: the names are the fighters (init's arguments), and
    ``--manual`` asks both initiative dice; a player alone is ``init --manual-for NAME``."""
    result = run("init", "--manual", "Brannoc", "Ysolde", "--json", input="5\n19\n")
    assert result.exit_code == 0, result.stderr
    assert [r["face"] for r in json.loads(result.stdout)["rolls"]] == [5, 19]
