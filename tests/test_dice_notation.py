"""C-03: the dice notation of dice rollers — keep/drop, d%, exploding dice — in the formula
language: parser, evaluation tree, natural (D-06), bounds, error positions; the advantage
house rule in the step-by-step engine and its exact and vectorised odds.

The three evaluators' agreement on the notation, formula by formula, is in
``tests/test_sim_d20.py`` (``FORMULAS``, ``VARIANTS``, ``NATURAL_FORMULAS``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from sevendag_cli.d20 import engine as E
from sevendag_cli.data import bundled_dir
from sevendag_cli.dice import EnteredDice, Roll, SeededDice
from sevendag_cli.engine.common import check
from sevendag_cli.errors import DataError, FormulaError, RollBudgetError, UsageError
from sevendag_cli.formula import (
    MAX_EXPLOSIONS,
    ROLL_BUDGET,
    CallResult,
    Dice,
    DiceResult,
    Die,
    FieldResult,
    NegResult,
    NumResult,
    OpResult,
    first_field,
    parse,
    parse_part,
)
from sevendag_cli.rules import D20Ruleset, fighter_from_data, load_ruleset

PROPS = settings(max_examples=150, deadline=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def run(text: str, faces: list[int], env: dict[str, int] | None = None):
    source = EnteredDice(faces)
    ev = parse(text).evaluate(env or {}, source, "test", "A")
    source.check_all_used()
    return ev


# --- parsing ------------------------------------------------------------------------

PARSED = [
    # text, the dice group it holds
    ("4d6kh3", Dice(4, 6, False, "kh", 3)),
    ("2d20kl1", Dice(2, 20, False, "kl", 1)),
    ("4d6dl1", Dice(4, 6, False, "dl", 1)),
    ("4d6dh1", Dice(4, 6, False, "dh", 1)),
    ("4d6k3", Dice(4, 6, False, "kh", 3)),
    ("2d20kh", Dice(2, 20, False, "kh", 1)),
    ("2d20dl", Dice(2, 20, False, "dl", 1)),
    ("d%", Dice(1, 100)),
    ("3d%", Dice(3, 100)),
    ("3d6!", Dice(3, 6, True)),
    ("4d6!kh3", Dice(4, 6, True, "kh", 3)),
    ("4D6KH3", Dice(4, 6, False, "kh", 3)),
    ("D20", Dice(1, 20)),
    ("1d20kh1", Dice(1, 20, False, "kh", 1)),
    ("4d6kh4", Dice(4, 6, False, "kh", 4)),
]


@pytest.mark.parametrize(("text", "dice"), PARSED)
def test_C03_notation_parses_to_a_dice_group(text: str, dice: Dice) -> None:
    f = parse(text)
    assert f.dice == (dice,)
    assert f.tree == dice


def test_C03_notation_text_and_budget_share() -> None:
    assert parse("d%").dice[0].notation == "1d100"
    assert parse("4d6!k3").dice[0].notation == "4d6!kh3"
    assert parse("3d6!").dice_count == 3 * (1 + MAX_EXPLOSIONS)
    assert parse("4d6kh3 + 2d20kl1").dice_count == 6  # dropped dice are rolled: they count
    assert [(d.kept, d.keeps_highest) for d in parse("4d6kh3 + 4d6kl1 + 4d6dl1 + 4d6dh3").dice] == [
        (3, True), (1, False), (3, True), (1, False)]


# --- evaluation -----------------------------------------------------------------------

EVALUATED = [
    # text, faces, value, natural
    ("4d6kh3", [3, 5, 1, 6], 14, 6),
    ("4d6dl1", [3, 5, 1, 6], 14, 6),
    ("4d6kl1", [3, 5, 1, 6], 1, 1),
    ("4d6dh1", [3, 5, 1, 6], 9, 1),
    ("2d20kh1 + 3", [5, 17], 20, 17),
    ("2d20kl1 + 3", [5, 17], 8, 5),
    ("2d20 + 3", [5, 17], 25, 5),
    ("3d20kh2", [4, 18, 9], 27, 18),
    ("d%", [57], 57, 57),
    ("d% // 10", [100], 10, 100),
    ("3d6!", [6, 3, 4, 2], 15, 6),  # the explosion of the first die comes after the group
    ("3d6!", [6, 3, 6, 2, 6, 1], 24, 6),  # waves: 6 3 6, then 2 and 6, then 1
    ("1d20! + 1", [20, 20, 5], 46, 20),
    ("2d6!kh1", [6, 5, 1], 7, 6),  # 6+1 beats 5
    ("2d6!kl1", [6, 5, 1], 5, 5),
    ("4D6KH3", [1, 2, 3, 4], 9, 4),
    ("2 * 2d20kh1", [20, 1], 40, 20),
    ("max(2d20kl1, 1d4)", [3, 9, 4], 4, 3),  # the natural comes from the first group
    ("-(4d4dh2)", [4, 1, 3, 2], -3, 1),
]


@pytest.mark.parametrize(("text", "faces", "value", "natural"), EVALUATED)
def test_C03_notation_evaluates_with_every_die_recorded(text: str, faces: list[int], value: int,
                                                        natural: int) -> None:
    ev = run(text, faces)
    assert ev.value == value
    assert [r.face for r in ev.rolls] == faces  # every die rolled, dropped ones too, in order
    assert ev.natural == natural


def test_C03_explosions_are_bounded_per_die() -> None:
    """A die rolls at most 1 + MAX_EXPLOSIONS times: the last highest face does not explode."""
    faces = [6] * (1 + MAX_EXPLOSIONS)
    ev = run("1d6!", faces)
    assert ev.value == 6 * len(faces)
    (group,) = ev.groups
    assert group.rolled[0].exploded and len(group.rolled[0].rolls) == 1 + MAX_EXPLOSIONS
    source = EnteredDice([6] * (2 + MAX_EXPLOSIONS))
    parse("1d6!").evaluate({}, source)
    assert source.remaining == 1


def test_C03_equal_dice_keep_the_first() -> None:
    ev = run("3d6kh2", [4, 4, 4])
    (group,) = ev.groups
    assert [d.kept for d in group.rolled] == [True, True, False]
    ev = run("3d6kl2", [4, 2, 4])
    assert [d.kept for d in ev.groups[0].rolled] == [True, True, False]


def test_C03_evaluation_tree_keeps_structure_values_and_fields() -> None:
    ev = run("1d20 + bba - mod(str) * 2d6kh1 // -2", [12, 3, 5], {"bba": 3, "str": 14})
    r = [Roll("test", 20, 12, "A"), Roll("test", 6, 3, "A"), Roll("test", 6, 5, "A")]
    tree = OpResult(
        "-",
        OpResult("+", DiceResult(Dice(1, 20), (Die((r[0],)),), 12), FieldResult("bba", 3), 15),
        OpResult("//",
                 OpResult("*", CallResult("mod", (FieldResult("str", 14),), 2),
                          DiceResult(Dice(2, 6, False, "kh", 1), (Die((r[1],), False), Die((r[2],))), 5),
                          10),
                 NegResult(NumResult(2), -2), -5),
        20)
    assert ev.tree == tree
    assert ev.value == 20 and ev.rolls == tuple(r)
    assert ev.dice_total == 12 + 5  # the kept dice only


def test_C03_exploded_die_keeps_its_chain() -> None:
    ev = run("2d4!", [4, 2, 3])
    (group,) = ev.groups
    assert [(d.value, d.face, d.exploded, [x.face for x in d.rolls]) for d in group.rolled] == [
        (7, 4, True, [4, 3]), (2, 2, False, [2])]


@st.composite
def dice_groups(draw: st.DrawFn) -> Dice:
    count = draw(st.integers(1, 6))
    select = draw(st.sampled_from([None, "kh", "kl", "dh", "dl"]))
    if select in ("dh", "dl") and count == 1:
        select = None
    n = 0 if select is None else draw(st.integers(1, count if select in ("kh", "kl") else count - 1))
    return Dice(count, draw(st.integers(2, 12)), draw(st.booleans()), select, n)


@pytest.mark.slow
@PROPS
@given(dice=dice_groups(), seed=st.integers(0, 2**32))
def test_C03_property_kept_dice_are_the_highest_or_lowest(dice: Dice, seed: int) -> None:
    """Any group: the value is the kept dice's total; they are the highest (lowest); chains are
    well formed (every face but the last is the highest, at most 1 + MAX_EXPLOSIONS rolls)."""
    formula = parse(dice.notation)
    assert formula.dice == (dice,)
    ev = formula.evaluate({}, SeededDice(seed))
    (group,) = ev.groups
    kept = [d for d in group.rolled if d.kept]
    dropped = [d for d in group.rolled if not d.kept]
    assert len(kept) == dice.kept and ev.value == sum(d.value for d in kept)
    if dropped:
        if dice.keeps_highest:
            assert min(d.value for d in kept) >= max(d.value for d in dropped)
        else:
            assert max(d.value for d in kept) <= min(d.value for d in dropped)
    for d in group.rolled:
        assert 1 <= len(d.rolls) <= (1 + MAX_EXPLOSIONS if dice.explode else 1)
        assert all(r.face == dice.sides for r in d.rolls[:-1])
        if dice.explode and len(d.rolls) < 1 + MAX_EXPLOSIONS:
            assert d.rolls[-1].face < dice.sides
    assert len(ev.rolls) == sum(len(d.rolls) for d in group.rolled) <= formula.dice_count
    assert ev.natural == group.natural_die.face
    assert 1 <= ev.natural <= dice.sides
    assert ev.natural == min(group.natural_die.value, dice.sides)  # what the other evaluators use


# --- errors: one line, the offending character and its true position -----------------

POSITIONS = [
    # text, the character named, its position (from 1)
    ("2d20kh1x", "x", 8),
    ("1d6d6", "d", 4),
    ("12abc", "a", 3),
    ("4d6kh3!", "!", 7),
    ("3d6!!", "!", 5),
    ("d%%", "%", 3),
    ("1d20 + $", "$", 8),
    ("4d6k3h", "h", 6),
    ("2d20kh1d4", "d", 8),
    ("1d20 / 2", "/", 6),
    ("é", "é", 1),
    ("(1d6kl1 + 2) * 3dx", "x", 18),
]


@pytest.mark.parametrize(("text", "char", "pos"), POSITIONS)
def test_C03_errors_name_the_offending_character_and_its_position(text: str, char: str,
                                                                  pos: int) -> None:
    with pytest.raises(FormulaError) as err:
        parse(text)
    en, fr = err.value.render("en"), err.value.render("fr")
    assert f"{char!r}" in en and f"position {pos}" in en, en
    assert f"{char!r}" in fr and f"position {pos}" in fr, fr
    assert "\n" not in en and "\n" not in fr


def test_C03_positions_count_in_the_text_shown() -> None:
    """roll's labelled arguments: the error quotes the whole argument and counts in it."""
    with pytest.raises(FormulaError) as err:
        parse_part("2d6 $", "damage: 2d6 $", len("damage: "))
    assert str(err.value) == "formula 'damage: 2d6 $': unexpected '$' at position 13"
    assert first_field("1d20 + max(str, 3)") == ("str", 11)
    assert first_field("max(1, 2)") is None


SEMANTIC = [
    # text, error class, fragment (English), fragment (French)
    ("2d20kh3", FormulaError, "2d20kh3 keeps 3 of 2 dice: keep from 1 to 2", "garde 3 dés sur 2"),
    ("2d20kl0", FormulaError, "keeps 0 of 2 dice", "garde 0 dés sur 2"),
    ("4d6dl4", FormulaError, "drops 4 of 4 dice", "écarte 4 dés sur 4"),
    ("1d20dh1", FormulaError, "keep at least 1", "en garder au moins 1"),
    ("1d1!", FormulaError, "cannot explode", "ne peut pas exploser"),
    ("1d", FormulaError, "expected the number of sides (like d6 or d%) at position 3, found the end",
     "position 3 : on attendait un nombre de faces"),
    ("2d20kh1234567890", FormulaError, "too large", "trop grande"),
    (f"{ROLL_BUDGET // 10 + 1}d6!", RollBudgetError, "may roll 1010 dice", "peut lancer 1010 dés"),
    (f"{ROLL_BUDGET // 10}d6! + 1d6", RollBudgetError, "rolls up to 1001 dice", "jusqu'à 1001 dés"),
]


@pytest.mark.parametrize(("text", "cls", "en", "fr"), SEMANTIC)
def test_C03_nonsense_is_refused_in_one_line(text: str, cls: type, en: str, fr: str) -> None:
    with pytest.raises(cls) as err:
        parse(text)
    assert isinstance(err.value, FormulaError)
    assert en in err.value.render("en") and fr in err.value.render("fr")
    assert "\n" not in err.value.render("en")


def test_C03_budget_holds_exactly_with_explosions() -> None:
    f = parse(f"{ROLL_BUDGET // (1 + MAX_EXPLOSIONS)}d6!")
    assert f.dice_count == ROLL_BUDGET
    ev = f.evaluate({}, SeededDice(3))
    assert ROLL_BUDGET // (1 + MAX_EXPLOSIONS) <= len(ev.rolls) <= ROLL_BUDGET


# --- D-06: an advantage house rule ------------------------------------------------------


def house(tmp_path: Path, **formulas: str) -> D20Ruleset:
    """The bundled d20 ruleset with some formulas replaced, read through the loader."""
    text = (bundled_dir() / "d20.toml").read_text("utf-8")
    lines = text.splitlines()
    for key, value in formulas.items():
        lines = [f'{key} = "{value}"' if line.startswith(f"{key} = ") else line for line in lines]
    path = tmp_path / "advantage.toml"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    rs = load_ruleset(str(path))
    assert isinstance(rs, D20Ruleset)
    for key, value in formulas.items():
        assert getattr(rs, key).text == value
    return rs


def fighter(rs: D20Ruleset, name: str, **kw: object):
    data = {"ruleset": "d20", "name": name, "level": 5, "str": 10, "dex": 10, "con": 10, "wis": 10,
            "hp": 50, "ac": 5, "weapon": {"name": "club", "damage": "1d6"}, **kw}
    return fighter_from_data(data, "test", rs)


def attack_round(rs: D20Ruleset, faces: list[int], ac: int = 5):
    a, b = fighter(rs, "A"), fighter(rs, "B", ac=ac)
    dice = EnteredDice(faces)
    state = replace(E.initial_state(a, b), next_attacker="A")
    result, _ = E.play_round(rs, a, b, state, dice)
    dice.check_all_used()
    return next(e for e in result.events if isinstance(e, E.AttackEvent)), result


def test_D06_advantage_natural_20_on_the_kept_die_hits_and_is_critical(tmp_path: Path) -> None:
    rs = house(tmp_path, attack="2d20kh1 + bba + mod(str) + weapon_type")
    # attack 1 and 20 (kept: 20), save 1 (natural failure, no DD), two damage sets, VIG
    attack, result = attack_round(rs, [1, 20, 1, 3, 4, 2], ac=200)
    assert attack.roll.natural == 20
    assert attack.hit and attack.reason == "natural-hit" and "D-06" in attack.rules
    assert attack.critical and "D-07" in attack.rules
    assert attack.roll.total == 20 and attack.roll.modifier == 0
    assert [(r.purpose, r.face) for r in result.rolls[:2]] == [("attack", 1), ("attack", 20)]


def test_D06_advantage_natural_1_needs_both_dice(tmp_path: Path) -> None:
    rs = house(tmp_path, attack="2d20kh1 + bba + mod(str) + weapon_type")
    attack, _ = attack_round(rs, [1, 7, 7, 3, 4, 2], ac=0)  # 1 dropped: no natural miss
    assert attack.roll.natural == 7 and attack.hit and attack.reason == "beats-ac"
    attack, _ = attack_round(rs, [1, 1], ac=0)
    assert attack.roll.natural == 1 and not attack.hit and attack.reason == "natural-miss"


def test_D06_disadvantage_keeps_the_lowest_die(tmp_path: Path) -> None:
    rs = house(tmp_path, attack="2d20kl1 + bba")
    attack, _ = attack_round(rs, [20, 1], ac=0)
    assert attack.roll.natural == 1 and attack.reason == "natural-miss"
    attack, _ = attack_round(rs, [20, 20, 1, 3, 4, 2], ac=200)
    assert attack.roll.natural == 20 and attack.critical


def test_D08_save_with_advantage_natural_20_dodges(tmp_path: Path) -> None:
    rs = house(tmp_path, save="2d20kh1 + mod(dex) + dodge")
    _, result = attack_round(rs, [10, 3, 20])  # hit, save 3 and 20: natural 20 dodges, no DD
    save = next(e for e in result.events if isinstance(e, E.SaveEvent))
    assert save.roll.natural == 20 and save.outcome == "dodged" and save.dd_total is None


def test_check_natural_and_modifier_come_from_the_tree() -> None:
    c = check(parse("2d20kh1 + 4"), {}, EnteredDice([5, 19]), "attack", "A")
    assert (c.natural, c.modifier, c.total) == (19, 4, 23)
    assert c.evaluated is not None and c.evaluated.natural == 19


def test_d20_ruleset_still_needs_a_d20_first(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="must start with the d20"):
        house(tmp_path, attack="2d%kh1 + bba")


def test_exact_refuses_a_group_too_large_for_it() -> None:
    """Sums of any count are exact (``tests/test_dice_sums.py``); a law past its size bounds,
    or keep/drop past the pool's work limit, is refused saying to simulate."""
    from sevendag_cli.sim.formula_dice import formula_dist

    with pytest.raises(UsageError, match="--runs"):
        formula_dist(parse("1000d1000"), {})
    with pytest.raises(UsageError, match="--runs"):
        formula_dist(parse("100d20kh50"), {})
    assert sum(formula_dist(parse("3d1000"), {}).values()) == 1
    assert sum(formula_dist(parse("20d20kh10"), {}).values()) == 1


@pytest.mark.slow
def test_D06_advantage_house_rule_fight_odds_agree(tmp_path: Path) -> None:
    """A whole fight under the advantage house rule: the vectorised simulation's interval
    covers the exact win probability (icepool + Markov chain)."""
    from fractions import Fraction

    from sevendag_cli.d20.exact import attack_distribution, exact_d20
    from sevendag_cli.rules import load_pair
    from sevendag_cli.sim.runner import simulate

    rs = house(tmp_path, attack="2d20kh1 + bba + mod(str) + weapon_type")
    a, b = load_pair(rs, None)
    # D-14: A needs 2 or more against AC 5 (attack +4): only a natural 1 on both dice misses,
    # and a natural 20 on the kept die (1 - (19/20)²) is a critical.
    dist = attack_distribution(rs, a, b)
    assert (dist.p_hit, dist.p_critical) == (1 - Fraction(1, 400), 1 - Fraction(19, 20) ** 2)
    exact = float(exact_d20(rs, a, b).win_probability[0])
    res = simulate(rs, a, b, 200_000, seed=4)
    low, high = res.fighters[0].ci95
    assert low <= exact <= high
