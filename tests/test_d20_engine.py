"""Le combat (d20): one or more tests per rule D-01 .. D-15 and C-02, all with scripted dice.

Entered dice have no fallback: a roll made out of order, or one roll too many, fails
the test; ``check_all_used`` catches a roll that was skipped.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from sevendag_cli.d20 import engine as E
from sevendag_cli.data import bundled_dir
from sevendag_cli.dice import EnteredDice, SeededDice
from sevendag_cli.engine.common import RoundResult
from sevendag_cli.errors import DiceError, EncounterError, RuleError, UsageError
from sevendag_cli.formula import parse
from sevendag_cli.rules import D20Fighter, D20Ruleset, fighter_from_data, load_pair, load_ruleset

PROPS = settings(max_examples=60, deadline=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture,
                                        HealthCheck.too_slow])


@lru_cache(maxsize=1)
def _rs() -> D20Ruleset:
    rs = load_ruleset(str(bundled_dir() / "d20.toml"))
    assert isinstance(rs, D20Ruleset)
    return rs


@pytest.fixture
def rs() -> D20Ruleset:
    return _rs()


CLUB = {"name": "club", "damage": "1d6"}


def sheet(name: str = "A", rs: D20Ruleset | None = None, **kw: Any) -> D20Fighter:
    """A plain fighter: every ability 10 (mod 0), BBA 0, AC 5, 50 HP, a 1d6 club."""
    data: dict[str, Any] = {"ruleset": "d20", "name": name, "level": 5, "str": 10, "dex": 10,
                            "con": 10, "wis": 10, "hp": 50, "ac": 5, "weapon": dict(CLUB)}
    data.update(kw)
    for key in [k for k, v in data.items() if v is None]:
        del data[key]
    f = fighter_from_data(data, "test", rs or _rs())
    assert isinstance(f, D20Fighter)
    return f


def play(rs: D20Ruleset, a: D20Fighter, b: D20Fighter, faces: list[int],
         attacker: str | None = "A", state: E.D20State | None = None
         ) -> tuple[RoundResult, E.D20State]:
    """One round with exactly ``faces``; ``attacker`` skips initiative (None rolls it)."""
    if state is None:
        state = replace(E.initial_state(a, b), next_attacker=attacker)
    dice = EnteredDice(faces)
    result, new = E.play_round(rs, a, b, state, dice)
    dice.check_all_used()
    return result, new


def events(result: RoundResult, cls: type) -> list[Any]:
    return [e for e in result.events if isinstance(e, cls)]


def one(result: RoundResult, cls: type) -> Any:
    found = events(result, cls)
    assert len(found) == 1, result.events
    return found[0]


def rolls(result: RoundResult) -> list[tuple[str, str | None, int, int]]:
    return [(r.purpose, r.fighter, r.sides, r.face) for r in result.rolls]


def hp(state: E.D20State, name: str) -> int:
    return state.fighter(name).hp


# --- D-01 / D-02 ----------------------------------------------------------------


@pytest.mark.parametrize(("dex", "mod"), [(18, 4), (12, 1), (10, 0), (8, -1), (5, -3), (1, -5)])
def test_D01_modifier_in_initiative(rs, dex: int, mod: int) -> None:
    a, b = sheet("A", dex=dex), sheet("B", dex=10)
    face_b = 10 if mod != 0 else 9
    init = E.roll_initiative(rs, a, b, EnteredDice([10, face_b]))
    ca, cb = init.attempts[0]
    assert ca.total == 10 + mod
    assert ca.modifier == mod
    assert cb.total == face_b


def test_D02_initiative_higher_leads(rs) -> None:
    a, b = sheet("A"), sheet("B")
    init, state = E.start(rs, a, b, EnteredDice([3, 15]))
    assert (init.leader, init.other) == ("B", "A")
    assert state.next_attacker == "B" and state.round == 0
    assert "D-02" in init.rules


def test_D02_initiative_tie_both_roll_again(rs) -> None:
    a, b = sheet("A"), sheet("B")
    dice = EnteredDice([7, 7, 12, 12, 3, 15])
    init = E.roll_initiative(rs, a, b, dice)
    dice.check_all_used()
    assert len(init.attempts) == 3
    assert [(c.fighter, c.total) for pair in init.attempts for c in pair] == [
        ("A", 7), ("B", 7), ("A", 12), ("B", 12), ("A", 3), ("B", 15)]
    assert init.leader == "B"


def test_D02_tie_is_on_totals_not_faces(rs) -> None:
    a, b = sheet("A", dex=12), sheet("B", dex=10)  # A +1
    dice = EnteredDice([9, 10, 2, 1])
    init = E.roll_initiative(rs, a, b, dice)
    dice.check_all_used()
    assert len(init.attempts) == 2 and init.leader == "A"


def test_D02_initiative_that_never_separates_is_refused(rs) -> None:
    flat = replace(rs, initiative=parse("10 + mod(dex)"))
    with pytest.raises(RuleError, match="initiative"):
        E.roll_initiative(flat, sheet("A"), sheet("B"), EnteredDice([]))


def test_D02_every_round_rolls_initiative_and_only_the_leader_attacks(rs) -> None:
    a, b = sheet("A"), sheet("B")
    state = E.initial_state(a, b)
    result, state = play(rs, a, b, [3, 15, 1], attacker=None, state=state)
    assert rolls(result) == [("initiative", "A", 20, 3), ("initiative", "B", 20, 15),
                             ("attack", "B", 20, 1)]
    assert one(result, E.AttackEvent).attacker == "B"
    # Next round: initiative again, and this time A leads.
    result, state = play(rs, a, b, [18, 2, 1], attacker=None, state=state)
    assert rolls(result)[:2] == [("initiative", "A", 20, 18), ("initiative", "B", 20, 2)]
    assert one(result, E.AttackEvent).attacker == "A"
    assert state.round == 2


# --- D-03 / D-04 / D-05 / D-06 ------------------------------------------------------


def test_D03_attack_bonus_is_bba_plus_mod_str_plus_weapon_type(rs) -> None:
    a = sheet("A", bba=3, str=14, weapon={**CLUB, "type": 1})
    result, _ = play(rs, a, sheet("B", ac=16), [10])
    attack = one(result, E.AttackEvent)
    assert attack.roll.total == 10 + 3 + 2 + 1
    assert attack.roll.modifier == 6
    assert not attack.hit  # 16 is not > 16


@pytest.mark.parametrize(("ac", "hit"), [(11, True), (12, False), (13, False)])
def test_D04_hits_only_when_strictly_greater_than_ac(rs, ac: int, hit: bool) -> None:
    a, b = sheet("A"), sheet("B", ac=ac)
    faces = [12, 1, 3, 1] if hit else [12]  # a miss makes no further roll (D-15)
    result, state = play(rs, a, b, faces)
    attack = one(result, E.AttackEvent)
    assert attack.hit is hit
    assert attack.reason == ("beats-ac" if hit else "below-ac")
    assert attack.ac == ac
    assert hp(state, "B") == (48 if hit else 50)
    assert {"D-03", "D-04"} <= set(attack.rules)


def test_D05_ac_formula(rs) -> None:
    b = sheet("B", ac=None, armour=2, dex=14, size=1)
    assert b.ac_override is None
    assert b.ac(rs) == 10 + 2 + 2 + 1
    assert sheet("B", ac=None, dex=8).ac(rs) == 9
    result, _ = play(rs, sheet("A"), b, [15])  # 15 is not > 15
    assert one(result, E.AttackEvent).ac == 15


def test_D05_stated_ac_wins_over_the_formula(rs) -> None:
    b = sheet("B", ac=5, armour=8, dex=18)
    assert b.ac(rs) == 5
    result, _ = play(rs, sheet("A"), b, [6, 1, 1, 1])
    assert one(result, E.AttackEvent).hit


def test_D06_natural_20_always_hits(rs) -> None:
    a, b = sheet("A"), sheet("B", ac=200)
    result, state = play(rs, a, b, [20, 1, 3, 4, 1])  # crit (range 20): two damage sets
    attack = one(result, E.AttackEvent)
    assert attack.hit and attack.reason == "natural-hit" and "D-06" in attack.rules
    assert hp(state, "B") == 50 - (3 + 4 - 1)


def test_D06_natural_1_always_misses(rs) -> None:
    a, b = sheet("A", bba=50), sheet("B", ac=0)
    result, state = play(rs, a, b, [1])
    attack = one(result, E.AttackEvent)
    assert not attack.hit and attack.reason == "natural-miss" and "D-06" in attack.rules
    assert attack.roll.total == 51
    assert hp(state, "B") == 50 and not events(result, E.SaveEvent)


# --- D-07 critical hits -------------------------------------------------------------


def crit_sheet(**weapon: Any) -> D20Fighter:
    return sheet("A", str=14, weapon={**CLUB, "crit_range": 19, "crit_factor": 3, **weapon})


def test_D07_crit_range_19_factor_3_rolls_three_sets_each_with_bonus_vig_once(rs) -> None:
    a, b = crit_sheet(), sheet("B")
    result, state = play(rs, a, b, [19, 10, 15, 4, 5, 6, 3])
    attack = one(result, E.AttackEvent)
    assert attack.critical and "D-07" in attack.rules
    assert rolls(result) == [("attack", "A", 20, 19), ("save", "B", 20, 10), ("dd", "A", 20, 15),
                             ("damage", "A", 6, 4), ("damage", "A", 6, 5), ("damage", "A", 6, 6),
                             ("vig", "B", 10, 3)]
    dmg = one(result, E.DamageEvent)
    assert [s.total for s in dmg.sets] == [4 + 2, 5 + 2, 6 + 2]
    assert dmg.vig.total == 3
    assert dmg.physical == dmg.total == 21 - 3
    assert hp(state, "B") == 50 - 18


def test_D07_natural_20_is_a_critical_with_default_range_and_factor_2(rs) -> None:
    result, _ = play(rs, sheet("A"), sheet("B"), [20, 1, 2, 2, 1])
    assert one(result, E.AttackEvent).critical
    assert len(one(result, E.DamageEvent).sets) == 2


def test_D07_natural_in_crit_range_that_misses_is_no_critical(rs) -> None:
    result, _ = play(rs, crit_sheet(), sheet("B", ac=100), [19])
    attack = one(result, E.AttackEvent)
    assert not attack.hit and not attack.critical and "D-07" not in attack.rules


def test_D07_below_crit_range_is_one_set(rs) -> None:
    result, _ = play(rs, crit_sheet(), sheet("B"), [18, 1, 6, 1])
    assert not one(result, E.AttackEvent).critical
    assert len(one(result, E.DamageEvent).sets) == 1


def test_D07_several_dice_per_set_are_rolled_in_order(rs) -> None:
    a = sheet("A", weapon={"name": "greatsword", "damage": "2d6"})
    result, _ = play(rs, a, sheet("B"), [20, 1, 1, 2, 3, 4, 1])
    dmg = one(result, E.DamageEvent)
    assert [[r.face for r in s.rolls] for s in dmg.sets] == [[1, 2], [3, 4]]
    assert dmg.total == 10 - 1


@pytest.mark.parametrize(("multiplies", "magic_sets"), [(False, 1), (True, 3)])
def test_D07_crit_multiplies_magic_option(rs, multiplies: bool, magic_sets: int) -> None:
    opt = replace(rs, crit_multiplies_magic=multiplies)
    a = crit_sheet(magic="1d4")
    faces = [19, 1, 1, 1, 1, 1] + [2] * magic_sets + [1]
    result, _ = play(opt, a, sheet("B"), faces)
    dmg = one(result, E.DamageEvent)
    assert len(dmg.magic.rolls) == magic_sets
    assert dmg.magic.total == magic_sets * 2  # mod(wis 10) = 0 per set
    assert [r.purpose for r in result.rolls].count("vol") == 1


# --- D-08 saves -------------------------------------------------------------------


def test_D08_save_above_dd_halves_rounded_down(rs) -> None:
    result, state = play(rs, sheet("A"), sheet("B"), [15, 12, 11, 6, 1])
    save = one(result, E.SaveEvent)
    assert (save.outcome, save.reason) == ("halved", "beats-dd")
    assert save.roll.total == 12 and save.dd_total == 11 and save.dd.total == 11
    dmg = one(result, E.DamageEvent)
    assert dmg.physical == 5 and dmg.halved and dmg.total == 2
    assert hp(state, "B") == 48


def test_D08_save_equal_to_dd_fails(rs) -> None:
    result, state = play(rs, sheet("A"), sheet("B"), [15, 11, 11, 6, 1])
    assert one(result, E.SaveEvent).outcome == "failed"
    assert hp(state, "B") == 45


def test_D08_dodge_bonus_and_dex_add_to_the_save(rs) -> None:
    b = sheet("B", dex=14, dodge=3)
    result, _ = play(rs, sheet("A"), b, [15, 6, 11, 6, 1])
    save = one(result, E.SaveEvent)
    assert save.roll.total == 6 + 2 + 3 and save.outcome == "failed"


def test_D08_dd_is_the_attackers_ref(rs) -> None:
    a = sheet("A", dex=18)
    result, _ = play(rs, a, sheet("B"), [15, 16, 11, 6, 1])
    save = one(result, E.SaveEvent)
    assert save.dd.fighter == "A" and save.dd_total == 15
    assert save.outcome == "halved"


def test_D08_natural_20_save_dodges_entirely_without_dd_or_damage_rolls(rs) -> None:
    a = sheet("A", dex=30)  # a DD that could never be beaten if it were rolled
    result, state = play(rs, a, sheet("B"), [15, 20])
    save = one(result, E.SaveEvent)
    assert (save.outcome, save.reason) == ("dodged", "natural-success")
    assert save.dd is None and save.dd_total is None
    assert not events(result, E.DamageEvent) and not events(result, E.HitPointsEvent)
    assert rolls(result) == [("attack", "A", 20, 15), ("save", "B", 20, 20)]
    assert hp(state, "B") == 50


def test_D08_natural_1_save_fails_without_dd_roll(rs) -> None:
    b = sheet("B", dodge=50)
    result, state = play(rs, sheet("A"), b, [15, 1, 6, 1])
    save = one(result, E.SaveEvent)
    assert (save.outcome, save.reason) == ("failed", "natural-failure")
    assert save.dd is None and save.dd_total is None
    assert [r.purpose for r in result.rolls] == ["attack", "save", "damage", "vig"]
    assert hp(state, "B") == 45


def test_D08_save_success_negate(rs) -> None:
    opt = replace(rs, save_success="negate")
    result, state = play(opt, sheet("A"), sheet("B"), [15, 12, 11])
    save = one(result, E.SaveEvent)
    assert (save.outcome, save.reason) == ("dodged", "beats-dd")
    assert not events(result, E.DamageEvent) and hp(state, "B") == 50
    # A failed save still takes full damage.
    result, state = play(opt, sheet("A"), sheet("B"), [15, 10, 11, 6, 1])
    assert hp(state, "B") == 45


DD_LEVELS = [(1, 5), (10, 5), (11, 10), (25, 10), (26, 15), (50, 15), (51, 20), (75, 20),
             (76, 25), (1000, 25)]


@pytest.mark.parametrize(("level", "dd"), DD_LEVELS)
def test_D08_level_table_boundaries(rs, level: int, dd: int) -> None:
    assert rs.dd_from_level(level) == dd


@pytest.mark.parametrize(("level", "dd"), DD_LEVELS)
def test_D08_level_table_in_the_engine_makes_no_dd_roll(rs, level: int, dd: int) -> None:
    opt = replace(rs, dd_mode="level_table")
    a, b = sheet("A", level=level), sheet("B", dodge=dd - 10)
    result, state = play(opt, a, b, [15, 10, 6, 1])  # save total == DD: failed
    save = one(result, E.SaveEvent)
    assert save.dd is None and save.dd_total == dd and save.outcome == "failed"
    assert hp(state, "B") == 45
    result, state = play(opt, a, b, [15, 11, 6, 1])  # save total == DD + 1: halved
    assert one(result, E.SaveEvent).outcome == "halved"
    assert hp(state, "B") == 48


@pytest.mark.parametrize(("whose", "dd"), [("attacker", 5), ("defender", 15)])
def test_D08_dd_level_of(rs, whose: str, dd: int) -> None:
    opt = replace(rs, dd_mode="level_table", dd_level_of=whose)
    a, b = sheet("A", level=1), sheet("B", level=30)
    result, _ = play(opt, a, b, [15, 2, 6, 1])
    assert one(result, E.SaveEvent).dd_total == dd


# --- D-09 / D-10 / D-11 damage -------------------------------------------------------


def magic_sheet(**kw: Any) -> D20Fighter:
    return sheet("A", wis=14, weapon={"name": "wand-blade", "damage": "1d4", "magic": "1d6"}, **kw)


def test_D09_physical_part_floored_at_zero_magic_still_counts(rs) -> None:
    result, state = play(rs, magic_sheet(), sheet("B"), [15, 1, 1, 10, 5, 2])
    dmg = one(result, E.DamageEvent)
    assert dmg.physical == 0  # 1 - 10, floored
    assert dmg.magic.total == 5 + 2 and dmg.vol.total == 2
    assert dmg.magic_damage == 5 and dmg.total == 5
    assert hp(state, "B") == 45


def test_D09_magic_part_floored_at_zero(rs) -> None:
    result, _ = play(rs, magic_sheet(), sheet("B"), [15, 1, 4, 1, 1, 10])
    dmg = one(result, E.DamageEvent)
    assert dmg.physical == 3 and dmg.magic_damage == 0 and dmg.total == 3


def test_D09_no_magic_dice_no_vol_roll(rs) -> None:
    result, _ = play(rs, sheet("A"), sheet("B"), [15, 1, 6, 1])
    dmg = one(result, E.DamageEvent)
    assert dmg.magic is None and dmg.vol is None and dmg.magic_damage == 0
    assert "vol" not in [r.purpose for r in result.rolls]


def test_D09_bonuses_and_mitigation_use_the_right_fighters(rs) -> None:
    a = sheet("A", str=16, con=3, wis=14,
              weapon={"name": "wand-blade", "damage": "1d4", "magic": "1d6"})
    b = sheet("B", str=3, con=14, wis=16)
    result, _ = play(rs, a, b, [15, 1, 4, 1, 6, 1])
    dmg = one(result, E.DamageEvent)
    assert dmg.sets[0].total == 4 + 3  # mod(STR attacker)
    assert dmg.vig.total == 1 + 2 and dmg.vig.fighter == "B"  # mod(CON defender)
    assert dmg.magic.total == 6 + 2  # mod(WIS attacker)
    assert dmg.vol.total == 1 + 3 and dmg.vol.fighter == "B"  # mod(WIS defender)
    assert dmg.total == (7 - 3) + (8 - 4)


def test_D09_halving_applies_to_the_sum_of_both_parts(rs) -> None:
    result, _ = play(rs, magic_sheet(), sheet("B"), [15, 12, 11, 4, 1, 4, 1])
    dmg = one(result, E.DamageEvent)
    assert dmg.physical == 3 and dmg.magic_damage == 5 and dmg.total == 4


def test_D10_minimum_one_after_halving(rs) -> None:
    result, state = play(rs, sheet("A"), sheet("B"), [15, 12, 11, 2, 1])
    dmg = one(result, E.DamageEvent)
    assert dmg.physical == 1 and dmg.halved
    assert dmg.total == 1 and dmg.minimum_applied and "D-10" in dmg.rules
    assert hp(state, "B") == 49


def test_D10_minimum_one_when_vig_absorbs_everything(rs) -> None:
    result, state = play(rs, sheet("A"), sheet("B", con=20), [15, 1, 1, 10])
    dmg = one(result, E.DamageEvent)
    assert dmg.physical == 0 and dmg.total == 1 and dmg.minimum_applied
    assert hp(state, "B") == 49


def test_D10_min_damage_option_zero(rs) -> None:
    opt = replace(rs, min_damage=0)
    result, state = play(opt, sheet("A"), sheet("B"), [15, 1, 1, 10])
    assert one(result, E.DamageEvent).total == 0
    assert not events(result, E.HitPointsEvent) and hp(state, "B") == 50


def test_D11_unarmed_rolls_1d3(rs) -> None:
    a = sheet("A", weapon=None)
    assert a.weapon is None
    result, state = play(rs, a, sheet("B"), [15, 1, 3, 1])
    dmg = one(result, E.DamageEvent)
    assert dmg.weapon == "bare hands" and "D-11" in dmg.rules
    assert ("damage", "A", 3, 3) in rolls(result)
    assert hp(state, "B") == 48
    with pytest.raises(DiceError, match="d3"):
        play(rs, a, sheet("B"), [15, 1, 4, 1])


# --- D-12 hit points and the end ------------------------------------------------------


def test_D12_damage_off_hp_and_defeat_ends_the_fight(rs) -> None:
    a, b = sheet("A"), sheet("B", hp=3)
    result, state = play(rs, a, b, [15, 1, 6, 1])
    hpe = one(result, E.HitPointsEvent)
    assert (hpe.fighter, hpe.before, hpe.after, hpe.defeated) == ("B", 3, -2, True)
    over = one(result, E.FightOverEvent)
    assert (over.winner, over.reason) == ("A", "defeated")
    assert result.over and result.winner == "A"
    assert state.over and state.winner == "A" and state.fighter("B").defeated
    with pytest.raises(EncounterError, match="over"):
        E.play_round(rs, a, b, state, EnteredDice([]))


def test_D12_exactly_zero_hp_is_defeat(rs) -> None:
    _, state = play(rs, sheet("A"), sheet("B", hp=5), [15, 1, 6, 1])
    assert hp(state, "B") == 0 and state.over and state.winner == "A"


def test_D12_a_miss_leaves_hp_alone(rs) -> None:
    result, state = play(rs, sheet("A"), sheet("B"), [2])
    assert not events(result, E.HitPointsEvent) and hp(state, "B") == 50 and not state.over


def test_D12_round_cap_ends_in_a_draw(rs) -> None:
    opt = replace(rs, round_cap=1)
    result, state = play(opt, sheet("A"), sheet("B"), [2])
    assert state.over and state.capped and state.winner is None
    assert one(result, E.FightOverEvent).reason == "round-cap" and result.capped


# D-13 (abilities rolled 3d6) is character creation: the engine takes the scores as given.


# --- D-14 the worked example ------------------------------------------------------------


def test_D14_worked_example_replays_to_49_hp(rs) -> None:
    a, b = load_pair(rs, None)
    assert (a.name, b.name) == ("A", "B")
    init, state = E.start(rs, a, b, EnteredDice([19, 5]))
    (ia, ib), = init.attempts
    assert (ia.fighter, ia.natural, ia.total) == ("A", 19, 23)
    assert (ib.fighter, ib.natural, ib.total) == ("B", 5, 5)
    assert init.leader == "A"

    result, state = play(rs, a, b, [8, 18, 17, 3, 3], state=state)
    assert rolls(result) == [
        ("attack", "A", 20, 8),
        ("save", "B", 20, 18),
        ("dd", "A", 20, 17),
        ("damage", "A", 6, 3),
        ("vig", "B", 10, 3),
    ]
    assert [r.die for r in result.rolls] == ["d20", "d20", "d20", "d6", "d10"]
    attack = one(result, E.AttackEvent)
    assert (attack.roll.total, attack.ac, attack.hit) == (12, 5, True)
    save = one(result, E.SaveEvent)
    assert (save.roll.total, save.dd_total, save.outcome) == (18, 21, "failed")
    dmg = one(result, E.DamageEvent)
    assert dmg.sets[0].total == 4 and dmg.vig.total == 3  # B's CON 10: mod 0 (the source's slip)
    assert dmg.total == 1
    assert hp(state, "B") == 49 and hp(state, "A") == 45
    assert not state.over and result.number == 1


# --- D-15 / C-02 roll order ----------------------------------------------------------------


def test_D15_roll_order_hit_with_crit_and_magic(rs) -> None:
    a = sheet("A", weapon={"name": "rune-axe", "damage": "1d8", "magic": "1d4",
                           "crit_range": 19, "crit_factor": 2})
    b = sheet("B")
    faces = [15, 3, 19, 10, 15, 5, 6, 2, 3, 4]
    result, _ = play(rs, a, b, faces, attacker=None, state=E.initial_state(a, b))
    assert [(r.purpose, r.fighter, r.sides) for r in result.rolls] == [
        ("initiative", "A", 20),
        ("initiative", "B", 20),
        ("attack", "A", 20),
        ("save", "B", 20),
        ("dd", "A", 20),
        ("damage", "A", 8),
        ("damage", "A", 8),
        ("vig", "B", 10),
        ("magic", "A", 4),
        ("vol", "B", 10),
    ]
    assert [r.face for r in result.rolls] == faces


def event_rolls(result: RoundResult) -> list[Any]:
    out: list[Any] = []
    for e in result.events:
        if hasattr(e, "attempts"):
            out += [r for pair in e.attempts for c in pair for r in c.rolls]
        if isinstance(e, E.AttackEvent):
            out += e.roll.rolls
        if isinstance(e, E.SaveEvent):
            out += e.roll.rolls + (e.dd.rolls if e.dd else ())
        if isinstance(e, E.DamageEvent):
            for s in e.sets:
                out += s.rolls
            out += e.vig.rolls
            if e.magic:
                out += e.magic.rolls + e.vol.rolls
    return out


@pytest.mark.parametrize("seed", range(12))
def test_C02_generator_and_entered_dice_use_the_same_order(rs, seed: int) -> None:
    a = sheet("A", weapon={"name": "rune-axe", "damage": "1d8", "magic": "1d4",
                           "crit_range": 15})
    b = sheet("B", weapon={"name": "spear", "damage": "1d8", "magic": "1d6"}, dodge=2)
    state = E.initial_state(a, b)
    seeded, s1 = E.play_round(rs, a, b, state, SeededDice(seed))
    replayed, s2 = play(rs, a, b, [r.face for r in seeded.rolls], attacker=None, state=state)
    assert replayed == seeded and s1 == s2
    # Every roll appears, in order, in the events (what the JSON output shows).
    assert event_rolls(seeded) == list(seeded.rolls)
    assert all(r.purpose and r.sides >= 1 for r in seeded.rolls)


# --- apply_wound -------------------------------------------------------------------------


def test_D12_apply_wound_damage_and_healing_capped(rs) -> None:
    a, b = sheet("A"), sheet("B")
    state = E.initial_state(a, b)
    w, state = E.apply_wound(rs, a, b, state, "B", 12)
    assert hp(state, "B") == 38 and not w.over
    _, state = E.apply_wound(rs, a, b, state, "B", -5)
    assert hp(state, "B") == 43
    _, state = E.apply_wound(rs, a, b, state, "B", -100)
    assert hp(state, "B") == 50  # capped at max HP


def test_D12_apply_wound_can_defeat_and_heal_back(rs) -> None:
    a, b = sheet("A"), sheet("B")
    w, state = E.apply_wound(rs, a, b, E.initial_state(a, b), "A", 50)
    assert w.over and w.winner == "B" and state.over
    assert isinstance(w.events[-1], E.FightOverEvent)
    with pytest.raises(EncounterError):
        E.apply_wound(rs, a, b, state, "B", 3)
    _, state = E.apply_wound(rs, a, b, state, "A", -10)
    assert hp(state, "A") == 10 and not state.over and state.winner is None


@pytest.mark.parametrize(("fighter", "amount", "band", "err"), [
    ("B", None, None, RuleError), ("B", 0, None, RuleError), ("B", None, "light", RuleError),
    ("Z", 5, None, UsageError)])
def test_D12_apply_wound_refusals(rs, fighter, amount, band, err) -> None:
    a, b = sheet("A"), sheet("B")
    with pytest.raises(err):
        E.apply_wound(rs, a, b, E.initial_state(a, b), fighter, amount, band)


# --- fight, state --------------------------------------------------------------------------


def test_D12_fight_with_a_seed_ends_with_a_standing_winner(rs) -> None:
    a, b = load_pair(rs, None)
    result = E.fight(rs, a, b, SeededDice(7))
    assert result.winner in ("A", "B") and not result.capped
    states = {s.name: s for s in result.states}
    loser = "B" if result.winner == "A" else "A"
    assert states[result.winner].hp > 0 and states[loser].hp <= 0
    assert result.initiative_rolls and all(r.purpose == "initiative"
                                           for r in result.initiative_rolls)
    assert result.rounds[-1].over and not any(r.over for r in result.rounds[:-1])
    assert E.fight(rs, a, b, SeededDice(7)) == result


def test_D12_fight_cap_one_is_a_draw(rs) -> None:
    a, b = load_pair(rs, None)  # no single round can take 45 or 50 HP
    result = E.fight(rs, a, b, SeededDice(3), cap=1)
    assert result.capped and result.winner is None and len(result.rounds) == 1
    assert all(s.hp > 0 for s in result.states)


def test_state_round_trip(rs) -> None:
    a, b = load_pair(rs, None)
    _, state = E.start(rs, a, b, SeededDice(1))
    for _ in range(3):
        data = json.loads(json.dumps(E.state_to_data(state)))
        assert E.state_from_data(data) == state
        if state.over:
            break
        _, state = E.play_round(rs, a, b, state, SeededDice(5))
    over = replace(state, over=True, winner="A")
    assert E.state_from_data(E.state_to_data(over)) == over


def _good() -> dict[str, Any]:
    return {"round": 2, "fighters": [{"name": "A", "hp": 40, "max_hp": 45},
                                     {"name": "B", "hp": 50, "max_hp": 50}],
            "next_attacker": None, "over": False, "winner": None, "capped": False}


def _damaged(**change: Any) -> dict[str, Any]:
    data = _good()
    for k, v in change.items():
        if v is ...:
            del data[k]
        else:
            data[k] = v
    return data


DAMAGED = {
    "none": None, "list": [], "text": "state", "empty": {},
    "no-fighters": _damaged(fighters=...),
    "one-fighter": _damaged(fighters=[{"name": "A", "hp": 1, "max_hp": 1}]),
    "hp-text": _damaged(fighters=[{"name": "A", "hp": "1", "max_hp": 1},
                                  {"name": "B", "hp": 1, "max_hp": 1}]),
    "name-number": _damaged(fighters=[{"name": 5, "hp": 1, "max_hp": 1},
                                      {"name": "B", "hp": 1, "max_hp": 1}]),
    "hp-bool": _damaged(fighters=[{"name": "A", "hp": True, "max_hp": 1},
                                  {"name": "B", "hp": 1, "max_hp": 1}]),
    "same-names": _damaged(fighters=[{"name": "A", "hp": 1, "max_hp": 1},
                                     {"name": "A", "hp": 1, "max_hp": 1}]),
    "fighters-text": _damaged(fighters="AB"),
    "round-text": _damaged(round="2"),
    "no-round": _damaged(round=...),
    "next-number": _damaged(next_attacker=3),
    "next-unknown": _damaged(next_attacker="Z"),
    "no-next": _damaged(next_attacker=...),
    "winner-number": _damaged(winner=3),
    "winner-unknown": _damaged(winner="Z"),
    "over-text": _damaged(over="false"),
    "capped-text": _damaged(capped="no"),
}


@pytest.mark.parametrize("data", list(DAMAGED.values()), ids=list(DAMAGED))
def test_state_from_damaged_data_is_an_encounter_error(data: Any) -> None:
    with pytest.raises(EncounterError, match="damaged"):
        E.state_from_data(data)


# --- properties ----------------------------------------------------------------------------

WEAPON_DICE = ["1d3", "1d4", "1d6", "2d6", "1d8", "1d10", "1d12", "d20"]


@st.composite
def d20_sheets(draw: st.DrawFn, name: str) -> D20Fighter:
    data: dict[str, Any] = {
        "ruleset": "d20", "name": name, "level": draw(st.integers(1, 100)),
        "str": draw(st.integers(1, 30)), "dex": draw(st.integers(1, 30)),
        "con": draw(st.integers(1, 30)), "wis": draw(st.integers(1, 30)),
        "bba": draw(st.integers(0, 12)), "armour": draw(st.integers(0, 8)),
        "size": draw(st.integers(-2, 2)), "dodge": draw(st.integers(0, 5)),
        "hp": draw(st.integers(1, 60)),
    }
    if draw(st.booleans()):
        data["ac"] = draw(st.integers(0, 30))
    if draw(st.integers(0, 4)):
        weapon: dict[str, Any] = {
            "name": "w", "damage": draw(st.sampled_from(WEAPON_DICE)),
            "type": draw(st.integers(-3, 3)), "crit_range": draw(st.integers(15, 20)),
            "crit_factor": draw(st.integers(1, 4)),
        }
        magic = draw(st.sampled_from([None, "1d4", "2d6", "1d8"]))
        if magic:
            weapon["magic"] = magic
        data["weapon"] = weapon
    return sheet(**data)


@st.composite
def d20_rulesets(draw: st.DrawFn) -> D20Ruleset:
    return replace(
        _rs(), save_success=draw(st.sampled_from(["half", "negate"])),
        dd_mode=draw(st.sampled_from(["roll", "level_table"])),
        dd_level_of=draw(st.sampled_from(["attacker", "defender"])),
        crit_multiplies_magic=draw(st.booleans()),
    )


@pytest.mark.slow
@PROPS
@given(rs=d20_rulesets(), a=d20_sheets("A"), b=d20_sheets("B"), seed=st.integers(0, 2**32))
def test_D09_D12_damage_never_negative_and_hp_only_falls(rs, a, b, seed: int) -> None:
    dice = SeededDice(seed)
    _, state = E.start(rs, a, b, dice)
    for _ in range(8):
        before = {f.name: f.hp for f in state.fighters}
        result, state = E.play_round(rs, a, b, state, dice)
        for dmg in events(result, E.DamageEvent):
            assert dmg.physical >= 0 and dmg.magic_damage >= 0
            assert dmg.total >= rs.min_damage
        for f in state.fighters:
            assert f.hp <= before[f.name]
        if state.over:
            break


@pytest.mark.slow
@PROPS
@given(rs=d20_rulesets(), a=d20_sheets("A"), b=d20_sheets("B"), seed=st.integers(0, 2**32))
def test_D12_every_fight_ends_within_the_cap_and_the_winner_stands(rs, a, b, seed: int) -> None:
    cap = 30
    result = E.fight(rs, a, b, SeededDice(seed), cap=cap)
    assert 1 <= len(result.rounds) <= cap
    states = {s.name: s for s in result.states}
    if result.winner is None:
        assert result.capped and len(result.rounds) == cap
        assert all(s.hp > 0 for s in result.states)
    else:
        loser = "B" if result.winner == "A" else "A"
        assert not result.capped
        assert states[result.winner].hp > 0 and states[loser].hp <= 0
