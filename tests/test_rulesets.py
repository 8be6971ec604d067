"""Rulesets and fighter sheets as data (C-03): bundled files load, bad files are named exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from sevendag_cli.data import bundled_dir
from sevendag_cli.errors import DataError, SevendagError
from sevendag_cli.rules import (
    D20Fighter,
    D20Ruleset,
    SevendagFighter,
    SevendagRuleset,
    known_fighters,
    known_rulesets,
    load_fighter,
    load_pair,
    load_ruleset,
)


def bundled(name: str) -> str:
    return str(bundled_dir() / f"{name}.toml")


# --- the bundled files -------------------------------------------------------------


def test_bundled_rulesets_are_found_by_name() -> None:
    assert {"d20", "sevendag"} <= set(known_rulesets())
    assert {"a", "b", "brannoc", "ysolde"} <= set(known_fighters())
    assert load_ruleset("d20").name == "d20"
    assert load_ruleset("sevendag").name == "sevendag"


def test_bundled_d20_ruleset() -> None:
    rs = load_ruleset("d20")
    assert isinstance(rs, D20Ruleset) and rs.engine == "d20"
    assert rs.examples == ("A", "B")
    assert [(b.low, b.high, b.dd) for b in rs.dd_table] == [
        (1, 10, 5), (11, 25, 10), (26, 50, 15), (51, 75, 20), (76, None, 25)]
    assert (rs.save_success, rs.dd_mode, rs.min_damage) == ("half", "roll", 1)
    assert (rs.natural_hit, rs.natural_miss) == (20, 1)
    assert rs.attack.text == "1d20 + bba + mod(str) + weapon_type"
    assert {f"D-{i:02d}" for i in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15)} <= set(rs.rules)
    assert "formulas.vol" in rs.house_defaults and "formulas.unarmed_damage" in rs.house_defaults


def test_bundled_sevendag_ruleset() -> None:
    rs = load_ruleset("sevendag")
    assert isinstance(rs, SevendagRuleset) and rs.engine == "sevendag"
    assert [(w.name, w.low, w.high) for w in rs.wounds] == [
        ("light", 1, 10), ("serious", 11, 20), ("critical", 21, 30), ("fatal", 31, None)]
    assert {"bronze", "iron", "steel"} <= set(rs.metals)
    assert rs.techniques and rs.round_seconds == 3
    assert rs.examples == ("Brannoc", "Ysolde")
    assert "metals" in rs.house_defaults


def test_D14_example_fighters() -> None:
    rs = load_ruleset("d20")
    a, b = load_pair(rs, None)
    assert isinstance(a, D20Fighter) and isinstance(b, D20Fighter)
    assert (a.race, a.level, a.str, a.dex, a.con, a.wis, a.ac(rs), a.hp) == (
        "Forêt", 5, 12, 18, 8, 5, 5, 45)
    assert (b.race, b.level, b.str, b.dex, b.con, b.wis, b.ac(rs), b.hp) == (
        "Montagne", 5, 18, 10, 10, 8, 5, 50)
    assert a.bba == 3 and a.weapon is not None and a.weapon.damage.text == "1d6"
    assert b.bba == 3 and b.weapon is not None and b.weapon.damage.text == "1d8"
    assert a.weapon.magic is None and a.dodge == b.dodge == 0


def test_S21_example_fighters() -> None:
    rs = load_ruleset("sevendag")
    brannoc, ysolde = load_pair(rs, None)
    assert isinstance(brannoc, SevendagFighter) and isinstance(ysolde, SevendagFighter)
    assert [h.holds for h in brannoc.hands] == ["sword", "shield"]
    assert brannoc.items["shield"].kind == "shield"
    assert [h.holds for h in ysolde.hands] == ["greatsword", "greatsword"]
    assert ysolde.items["greatsword"].hands == 2


def test_fighters_load_by_path() -> None:
    rs = load_ruleset("d20")
    a = load_fighter(str(bundled_dir() / "fighters" / "a.toml"), rs)
    assert a.name == "A"
    assert load_pair(rs, ["a", "b"])[1].name == "B"


def test_unknown_ruleset_name_lists_the_known_ones() -> None:
    with pytest.raises(DataError) as err:
        load_ruleset("gurps")
    assert "'gurps'" in str(err.value) and "d20" in str(err.value)


# --- bad documents ---------------------------------------------------------------------

D20 = 'engine = "d20"\nname = "house"\n'
SEVENDAG = """engine = "sevendag"
name = "house"
[metals.iron]
extra_damage = 1
"""
BANDS_OK = """
[[wounds]]
name = "light"
from = 1
to = 10
[[wounds]]
name = "fatal"
from = 11
"""


def bands(*spec: tuple[int, int | None]) -> str:
    out = ""
    for i, (low, high) in enumerate(spec):
        out += f'[[wounds]]\nname = "w{i}"\nfrom = {low}\n'
        if high is not None:
            out += f"to = {high}\n"
    return out


def dd_table(*spec: tuple[int, int | None]) -> str:
    out = ""
    for i, (low, high) in enumerate(spec):
        out += f"[[dd_table]]\nfrom = {low}\ndd = {5 * (i + 1)}\n"
        if high is not None:
            out += f"to = {high}\n"
    return out


BAD_RULESETS = {
    # id: (document, key or None, fragment of the message)
    "not-toml": (D20 + "round_cap = \n", None, "not valid TOML"),
    "not-utf8": (b'engine = "d20"\nname = "caf\xe9"\n', None, "not UTF-8"),
    "unknown-top-key": (D20 + 'colour = "red"\n', "colour", "unknown key"),
    "unknown-option": (D20 + "[options]\ncolour = 1\n", "options.colour", "unknown key"),
    "unknown-engine": ('engine = "gurps"\n', "engine", "d20"),
    "wrong-type-int": (D20 + '[options]\nmin_damage = "many"\n', "options.min_damage",
                       "whole number"),
    "round-cap-neither": (D20 + '[options]\nround_cap = "many"\n', "options.round_cap",
                          'or "none" for no round cap'),
    "wrong-type-bool": (D20 + "[options]\ncrit_multiplies_magic = 1\n",
                        "options.crit_multiplies_magic", "true or false"),
    "wrong-choice": (D20 + '[options]\nsave_success = "double"\n', "options.save_success",
                     "half, negate"),
    "out-of-range": (D20 + "[options]\nnatural_hit = 21\n", "options.natural_hit", "1 to 20"),
    "formulas-not-a-table": (D20 + 'formulas = "1d20"\n', "formulas", "table"),
    "missing-wounds": (SEVENDAG, "wounds", "missing"),
    "missing-metals": ('engine = "sevendag"\n' + BANDS_OK, "metals", "missing"),
    "formula-syntax": (D20 + '[formulas]\nattack = "1d20 +"\n', "formulas.attack",
                       "expected a number"),
    "formula-slash": (D20 + '[formulas]\nac = "10 + armour / 2"\n', "formulas.ac", "//"),
    "formula-empty": (D20 + '[formulas]\nattack = ""\n', "formulas.attack", "empty"),
    "formula-unknown-field": (D20 + '[formulas]\nattack = "1d20 + luck"\n', "formulas.attack",
                              "luck"),
    "formula-unknown-function": (D20 + '[formulas]\nvig = "sqrt(con)"\n', "formulas.vig",
                                 "sqrt"),
    "formula-wrong-type": (D20 + "[formulas]\nvig = 10\n", "formulas.vig", "text"),
    "formula-zero-sided": (D20 + '[formulas]\nvig = "1d0 + mod(con)"\n', "formulas.vig",
                           "side"),
    "dice-bomb": (D20 + '[formulas]\nvig = "1000000d1000000"\n', "formulas.vig", "budget"),
    "dice-bomb-sum": (D20 + '[formulas]\ninitiative = "600d6 + 600d6"\n',
                      "formulas.initiative", "budget"),
    "dice-in-fixed-formula": (D20 + '[formulas]\nac = "1d6 + 10"\n', "formulas.ac", "dice"),
    "attack-without-d20": (D20 + '[formulas]\nattack = "1d6 + bba"\n', "formulas.attack",
                           "d20"),
    "dd-table-gap": (D20 + dd_table((1, 10), (12, None)), "dd_table[1].from", "gap"),
    "dd-table-overlap": (D20 + dd_table((1, 10), (10, None)), "dd_table[1].from", "overlap"),
    "dd-table-late-start": (D20 + dd_table((5, 10), (11, None)), "dd_table[0].from", "1"),
    "dd-table-open-middle": (D20 + dd_table((1, None), (11, None)), "dd_table[0].to",
                             "open-ended"),
    "dd-table-missing": (D20 + '[options]\ndd = "level_table"\n', "dd_table", "level_table"),
    "wounds-gap": (SEVENDAG + bands((1, 10), (12, None)), "wounds[1].from", "gap"),
    "wounds-overlap": (SEVENDAG + bands((1, 10), (8, None)), "wounds[1].from", "overlap"),
    "wounds-not-from-1": (SEVENDAG + bands((2, 10), (11, None)), "wounds[0].from", "gap"),
    "wounds-last-closed": (SEVENDAG + bands((1, 10), (11, 20)), "wounds[1].to", "open-ended"),
    "wounds-open-middle": (SEVENDAG + bands((1, None), (11, None)), "wounds[0].to",
                           "open-ended"),
    "wounds-backwards": (SEVENDAG + bands((1, 10), (11, 5), (12, None)), "wounds[1].to",
                         "below"),
    "wounds-same-name": (SEVENDAG + BANDS_OK.replace('"fatal"', '"light"'), "wounds[1].name",
                         "twice"),
    "metal-wrong-type": (SEVENDAG.replace("extra_damage = 1", 'extra_damage = "1"') + BANDS_OK,
                         "metals.iron.extra_damage", "whole number"),
}


def write(tmp_path: Path, doc: str | bytes, name: str = "doc.toml") -> Path:
    path = tmp_path / name
    if isinstance(doc, bytes):
        path.write_bytes(doc)
    else:
        path.write_text(doc, "utf-8")
    return path


def check_error(err: SevendagError, path: Path, key: str | None, fragment: str) -> None:
    msg = str(err)
    assert isinstance(err, DataError)
    assert str(path) in msg  # names the file
    assert "\n" not in msg
    if key is not None:
        assert err.key == key, msg
        assert f": {key}: " in msg
    assert fragment.lower() in msg.lower(), msg


def test_good_minimal_rulesets_load(tmp_path: Path) -> None:
    assert isinstance(load_ruleset(str(write(tmp_path, D20))), D20Ruleset)
    assert isinstance(load_ruleset(str(write(tmp_path, SEVENDAG + BANDS_OK, "s.toml"))),
                      SevendagRuleset)


@pytest.mark.parametrize(("doc", "key", "fragment"), list(BAD_RULESETS.values()),
                         ids=list(BAD_RULESETS))
def test_bad_ruleset_names_file_and_key(tmp_path: Path, doc, key, fragment) -> None:
    path = write(tmp_path, doc)
    with pytest.raises(SevendagError) as err:
        load_ruleset(str(path))
    check_error(err.value, path, key, fragment)


def test_fighter_sheet_given_as_ruleset(tmp_path: Path) -> None:
    path = write(tmp_path, Path(bundled_dir() / "fighters" / "a.toml").read_text("utf-8"))
    with pytest.raises(DataError, match="fighter sheet, not a ruleset"):
        load_ruleset(str(path))


def test_missing_ruleset_file(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no such ruleset file"):
        load_ruleset(str(tmp_path / "nope.toml"))


# --- bad fighter sheets ---------------------------------------------------------------

D20_SHEET = """ruleset = "d20"
name = "Hald"
level = 3
str = 14
dex = 12
con = 12
wis = 10
bba = 2
hp = 30
[weapon]
name = "axe"
damage = "1d8"
"""

SEVENDAG_SHEET = """ruleset = "sevendag"
name = "Maud"
speed = 2
attack = 7
defence = 5
[[hands]]
die = 10
holds = "sword"
[[hands]]
die = 8
holds = "shield"
[items.sword]
kind = "weapon"
hands = 1
metal = "iron"
skill = 12
[items.shield]
kind = "shield"
"""

TWO_HANDED = """ruleset = "sevendag"
name = "Ysa"
speed = 2
attack = 7
defence = 5
{hands}
[items.greatsword]
kind = "weapon"
hands = 2
metal = "steel"
skill = 12
"""


def hands(*holds: str) -> str:
    return "".join(f'[[hands]]\ndie = 8\nholds = "{h}"\n' for h in holds)


BAD_SHEETS = {
    # id: (ruleset, document, key, fragment)
    "d20-zero-sided-die": ("d20", D20_SHEET.replace('"1d8"', '"1d0"'), "weapon.damage", "side"),
    "d20-negative-sided-die": ("d20", D20_SHEET.replace('"1d8"', '"1d-6"'), "weapon.damage",
                               "side"),
    "d20-dice-bomb": ("d20", D20_SHEET.replace('"1d8"', '"1000000d1000000"'), "weapon.damage",
                      "budget"),
    "d20-damage-syntax": ("d20", D20_SHEET.replace('"1d8"', '"1d8 +"'), "weapon.damage",
                          "expected"),
    "d20-damage-field": ("d20", D20_SHEET.replace('"1d8"', '"1d8 + str"'), "weapon.damage",
                         "'str'"),
    "d20-damage-no-dice": ("d20", D20_SHEET.replace('"1d8"', '"4"'), "weapon.damage", "dice"),
    "d20-damage-missing": ("d20", D20_SHEET.replace('damage = "1d8"\n', ""), "weapon.damage",
                           "missing"),
    "d20-magic-zero-sided": ("d20", D20_SHEET + 'magic = "2d0"\n', "weapon.magic", "side"),
    "d20-missing-hp": ("d20", D20_SHEET.replace("hp = 30\n", ""), "hp", "missing"),
    "d20-wrong-type": ("d20", D20_SHEET.replace("str = 14", 'str = "strong"'), "str",
                       "whole number"),
    "d20-ability-zero": ("d20", D20_SHEET.replace("str = 14", "str = 0"), "str", "range"),
    "d20-crit-range": ("d20", D20_SHEET + "crit_range = 1\n", "weapon.crit_range", "2 to 20"),
    "d20-unknown-key": ("d20", D20_SHEET.replace("hp = 30", "hp = 30\ncharisma = 12"),
                        "charisma", "unknown key"),
    "d20-empty-name": ("d20", D20_SHEET.replace('"Hald"', '" "'), "name", "empty"),
    "d20-wrong-ruleset": ("d20", SEVENDAG_SHEET, "ruleset", "'sevendag'"),
    "sevendag-wrong-ruleset": ("sevendag", D20_SHEET, "ruleset", "'d20'"),
    "unknown-metal": ("sevendag", SEVENDAG_SHEET.replace('"iron"', '"mithril"'),
                      "items.sword.metal", "mithril"),
    "skill-0": ("sevendag", SEVENDAG_SHEET.replace("skill = 12", "skill = 0"),
                "items.sword.skill", "1 to 20"),
    "skill-21": ("sevendag", SEVENDAG_SHEET.replace("skill = 12", "skill = 21"),
                 "items.sword.skill", "1 to 20"),
    "two-handed-in-one-hand": ("sevendag", TWO_HANDED.format(hands=hands("greatsword")),
                               "items.greatsword.hands", "needs two hands"),
    "three-hands-one-two-handed": (
        "sevendag", TWO_HANDED.format(hands=hands("greatsword", "greatsword", "greatsword")),
        "items.greatsword.hands", "held by 3"),
    "one-handed-in-two-hands": ("sevendag", SEVENDAG_SHEET.replace('"shield"\n[items',
                                                                   '"sword"\n[items'),
                                "items.sword.hands", "needs one hand"),
    "two-handed-shield": ("sevendag", SEVENDAG_SHEET + "hands = 2\n", "items.shield.hands",
                          "one hand"),
    "holds-unknown-item": ("sevendag", SEVENDAG_SHEET.replace('holds = "sword"',
                                                              'holds = "axe"'),
                           "hands[0].holds", "'axe'"),
    "die-1": ("sevendag", SEVENDAG_SHEET.replace("die = 10", "die = 1"), "hands[0].die",
              "2 to 1000"),
    "no-hands": ("sevendag", SEVENDAG_SHEET.split("[[hands]]")[0]
                 + "hands = []\n" + SEVENDAG_SHEET[SEVENDAG_SHEET.index("[items.sword]"):],
                 "hands", "1 to 4"),
    "five-hands": ("sevendag", TWO_HANDED.format(hands=hands("", "", "", "", "")), "hands",
                   "1 to 4"),
    "bad-tactic": ("sevendag", SEVENDAG_SHEET.replace("defence = 5",
                                                      'defence = 5\ntactic = "berserk"'),
                   "tactic", "weapons-attack"),
}


@pytest.mark.parametrize(("ruleset", "doc", "key", "fragment"), list(BAD_SHEETS.values()),
                         ids=list(BAD_SHEETS))
def test_bad_sheet_names_file_and_key(tmp_path: Path, ruleset, doc, key, fragment) -> None:
    rs = load_ruleset(ruleset)
    path = write(tmp_path, doc)
    with pytest.raises(SevendagError) as err:
        load_fighter(str(path), rs)
    check_error(err.value, path, key, fragment)


def test_good_sheets_load(tmp_path: Path) -> None:
    d20 = load_fighter(str(write(tmp_path, D20_SHEET, "h.toml")), load_ruleset("d20"))
    assert isinstance(d20, D20Fighter) and d20.weapon and d20.weapon.damage.text == "1d8"
    seven = load_fighter(str(write(tmp_path, SEVENDAG_SHEET, "m.toml")), load_ruleset("sevendag"))
    assert isinstance(seven, SevendagFighter) and len(seven.hands) == 2
    two = load_fighter(str(write(tmp_path, TWO_HANDED.format(hands=hands("greatsword",
                                                                        "greatsword")),
                                 "y.toml")), load_ruleset("sevendag"))
    assert isinstance(two, SevendagFighter)


def test_both_fighters_with_the_same_name_are_told_apart(tmp_path: Path) -> None:
    """A mirror match: the second of two fighters of the same name is ``NAME (2)``."""
    rs = load_ruleset("d20")
    p1 = write(tmp_path, D20_SHEET, "one.toml")
    p2 = write(tmp_path, D20_SHEET.replace("str = 14", "str = 16").replace('"Hald"', '"hald"'),
               "two.toml")
    a, b = load_pair(rs, [str(p1), str(p2)])
    assert (a.name, b.name) == ("Hald", "hald (2)")
    assert (a.str, b.str) == (14, 16)
    a, b = load_pair(rs, [str(p1), str(p1)])
    assert (a.name, b.name) == ("Hald", "Hald (2)")


def test_problems_collects_several_problems_from_one_file(tmp_path: Path) -> None:
    doc = (D20_SHEET.replace("str = 14", 'str = "x"').replace("hp = 30\n", "")
           .replace('"1d8"', '"1d0"') + "colour = 1\n")
    doc = doc.replace("[weapon]", "charisma = 3\n[weapon]")
    path = write(tmp_path, doc)
    with pytest.raises(DataError) as err:
        load_fighter(str(path), load_ruleset("d20"))
    problems = err.value.all_errors  # type: ignore[attr-defined]
    keys = [p.key for p in problems]
    assert len(problems) >= 4, keys
    assert {"str", "hp", "weapon.damage", "charisma"} <= set(keys)
    assert problems[0] is err.value
    assert all(str(path) in str(p) for p in problems)


def test_problems_in_a_ruleset_are_all_collected(tmp_path: Path) -> None:
    doc = (D20 + 'colour = 1\n[formulas]\nattack = "1d20 +"\nvig = "luck"\n'
           '[options]\nround_cap = 0\n')
    path = write(tmp_path, doc)
    with pytest.raises(DataError) as err:
        load_ruleset(str(path))
    keys = [p.key for p in err.value.all_errors]  # type: ignore[attr-defined]
    assert {"formulas.attack", "formulas.vig", "options.round_cap", "colour"} <= set(keys)
