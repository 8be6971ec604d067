"""The Sevendag engine (S-01 .. S-21, C-01, C-02), with scripted dice.

Every scripted test uses ``EnteredDice`` without fallback and checks that all
faces were used, so a roll made out of order (or one too many/few) fails.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from sevendag_cli.dice import EnteredDice, SeededDice
from sevendag_cli.engine import engine_for
from sevendag_cli.engine.common import RecordingDice
from sevendag_cli.errors import DiceError, EncounterError, RuleError, SevendagError, UsageError
from sevendag_cli.formula import parse
from sevendag_cli.rules import SevendagFighter, SevendagRuleset, load_pair
from sevendag_cli.rules import load_ruleset as _load_ruleset
from sevendag_cli.sevendag import engine as s
from sevendag_cli.sevendag.step import STEP_ENGINE
from tests.sevendag_helpers import RS, make

# --- fighters -------------------------------------------------------------------------




def sword_shield(name: str = "Aldo", attack: int = 10, defence: int = 5,
                 metal: str = "iron") -> SevendagFighter:
    """d10 one-handed sword (skill 12) + d6 shield."""
    return make(name, [{"die": 10, "holds": "sword"}, {"die": 6, "holds": "shield"}],
                {"sword": {"kind": "weapon", "metal": metal, "skill": 12, "label": "sword"},
                 "shield": {"kind": "shield", "label": "shield"}},
                attack=attack, defence=defence)


def greatsword(name: str = "Bera", metal: str = "steel", attack: int = 10,
               defence: int = 5) -> SevendagFighter:
    """2 x d8 two-handed greatsword (skill 12)."""
    return make(name, [{"die": 8, "holds": "great"}, {"die": 8, "holds": "great"}],
                {"great": {"kind": "weapon", "hands": 2, "metal": metal, "skill": 12}},
                attack=attack, defence=defence)


def dual(name: str = "Cato", attack: int = 10) -> SevendagFighter:
    """d6 iron axe (skill 10) + d6 bronze knife (skill 10)."""
    return make(name, [{"die": 6, "holds": "axe"}, {"die": 6, "holds": "knife"}],
                {"axe": {"kind": "weapon", "metal": "iron", "skill": 10},
                 "knife": {"kind": "weapon", "metal": "bronze", "skill": 10}},
                attack=attack)


def sword_empty(name: str = "Dana", attack: int = 10, defence: int = 5,
                tactic: str | None = None) -> SevendagFighter:
    """d10 iron sword (skill 12) + an empty d6 hand (defends under weapons-attack)."""
    return make(name, [{"die": 10, "holds": "sword"}, {"die": 6}],
                {"sword": {"kind": "weapon", "metal": "iron", "skill": 12}},
                attack=attack, defence=defence, tactic=tactic)


def post(defence: int, name: str = "Post") -> SevendagFighter:
    """A target: one hand committed to nothing, so it never rolls nor attacks."""
    return make(name, [{"die": 6}], attack=0, defence=defence, tactic="custom",
                allocation=["none"])


def state0(a: SevendagFighter, b: SevendagFighter, assaillant: str | None = None
           ) -> s.SevendagState:
    return s.initial_state(a, b, assaillant or a.name)


def with_fs(state: s.SevendagState, name: str, **changes: Any) -> s.SevendagState:
    f0, f1 = (replace(f, **changes) if f.name == name else f for f in state.fighters)
    return replace(state, fighters=(f0, f1))


def play(a: SevendagFighter, b: SevendagFighter, faces: list[int],
         state: s.SevendagState | None = None, choices: s.Choices | None = None,
         rs: SevendagRuleset = RS) -> tuple[Any, s.SevendagState]:
    dice = EnteredDice(faces)
    result, new = s.play_round(rs, a, b, state or state0(a, b), dice, choices)
    dice.check_all_used()
    return result, new


def seq(result: Any) -> list[tuple[str, str | None, int, int]]:
    return [(r.purpose, r.fighter, r.sides, r.face) for r in result.rolls]


def of(result: Any, cls: type) -> list[Any]:
    return [e for e in result.events if isinstance(e, cls)]


def ex(result: Any, n: int = 1) -> s.ExchangeEvent:
    return next(e for e in of(result, s.ExchangeEvent) if e.number == n)


# --- C-01 / C-02 / S-20 ---------------------------------------------------------------


def test_C01_entered_face_checked_against_its_die() -> None:
    a, b = sword_shield(), post(0)
    dice = EnteredDice([11])
    with pytest.raises(DiceError, match="d10"):
        s.play_round(RS, a, b, state0(a, b), dice)
    assert dice.consumed == 0


def test_C02_S20_roll_order_with_drop_check() -> None:
    """C-02/S-20: attack dice, drop check right after a fumble, defence dice; then reversed."""
    a, b = sword_shield(), sword_empty()
    result, _ = play(a, b, [1, 5, 3, 4, 2])
    assert seq(result) == [
        ("attack", "Aldo", 10, 1), ("drop", "Aldo", 20, 5), ("defence", "Dana", 6, 3),
        ("attack", "Dana", 10, 4), ("defence", "Aldo", 6, 2),
    ]
    # every roll appears in the events that used it, in the same order
    from_events = []
    for e in result.events:
        if isinstance(e, s.ExchangeEvent):
            from_events += list(e.attack_rolls)
            drops = [d for d in of(result, s.DropEvent) if d.fighter == e.attacker]
            from_events += [d.roll for d in drops]
            from_events += list(e.defence_rolls)
    assert tuple(from_events) == result.rolls


def test_C02_S20_two_handed_and_defence_dice_in_hand_order() -> None:
    a = greatsword()
    b = make("Wall", [{"die": 4}, {"die": 6}], defence=0, tactic="full-defence")
    result, _ = play(a, b, [2, 3, 1, 2])
    assert seq(result) == [("attack", "Bera", 8, 2), ("attack", "Bera", 8, 3),
                           ("defence", "Wall", 4, 1), ("defence", "Wall", 6, 2)]
    assert ex(result, 2).outcome == "no-attack"


# --- S-01 / S-02 ----------------------------------------------------------------------


def test_S01_elapsed_time_three_seconds_per_round() -> None:
    a, b = sword_shield(), post(100)
    r1, st1 = play(a, b, [5])
    r2, _ = play(a, b, [5], st1)
    assert (r1.number, r1.elapsed_seconds) == (1, 3)
    assert (r2.number, r2.elapsed_seconds) == (2, 6)


def test_S02_speed_rolls_winner_is_assaillant() -> None:
    a, b = sword_shield(), greatsword()
    dice = EnteredDice([7, 15])
    init, state = s.start(RS, a, b, dice)
    dice.check_all_used()
    assert init.leader == "Bera" and init.other == "Aldo"
    assert state.assaillant == "Bera" and state.defenseur == "Aldo" and state.round == 0
    assert [(c.purpose, c.fighter, c.total) for c in init.attempts[0]] == [
        ("initiative", "Aldo", 7), ("initiative", "Bera", 15)]
    assert "S-02" in init.rules


def test_S02_tie_rolls_again_until_they_differ() -> None:
    a, b = sword_shield(), greatsword()
    dice = EnteredDice([10, 10, 4, 4, 3, 12])
    init, state = s.start(RS, a, b, dice)
    dice.check_all_used()
    assert len(init.attempts) == 3
    assert [(x.total, y.total) for x, y in init.attempts] == [(10, 10), (4, 4), (3, 12)]
    assert state.assaillant == "Bera"


def test_S02_speed_roll_without_dice_cannot_break_a_tie() -> None:
    rs = replace(RS, speed_roll=parse("speed"))
    a, b = sword_shield(), greatsword()
    with pytest.raises(RuleError, match="speed_roll"):
        s.start(rs, a, b, EnteredDice([]))


# --- S-03 yield -----------------------------------------------------------------------


def test_S03_yield_swaps_roles_for_that_round_only() -> None:
    a, b = sword_shield(), sword_empty()
    r1, st1 = play(a, b, [4, 2, 4, 2], choices=s.Choices(yield_initiative=True))
    assert [(p, f) for p, f, _, _ in seq(r1)] == [
        ("attack", "Dana"), ("defence", "Aldo"), ("attack", "Aldo"), ("defence", "Dana")]
    alloc = of(r1, s.AllocationEvent)
    assert [(e.fighter, e.role, e.yielded) for e in alloc] == [
        ("Dana", "assaillant", False), ("Aldo", "défenseur", True)]
    assert "S-03" in alloc[1].rules
    assert st1.assaillant == "Aldo"
    r2, _ = play(a, b, [4, 2, 4, 2], st1)
    assert [f for _, f, _, _ in seq(r2)] == ["Aldo", "Dana", "Dana", "Aldo"]


# --- S-04 allocation ------------------------------------------------------------------


def test_S04_tactics_give_default_allocations() -> None:
    a, b, c = sword_shield(), greatsword(), sword_empty()
    assert s.allocation_for(a, "weapons-attack", None) == ("attack", "defence")
    assert s.allocation_for(a, "all-out", None) == ("attack", "defence")
    assert s.allocation_for(a, "full-defence", None) == ("defence", "defence")
    assert s.allocation_for(b, None, None) == ("attack", "attack")
    assert s.allocation_for(c, "weapons-attack", None) == ("attack", "defence")
    assert s.allocation_for(c, "all-out", None) == ("attack", "attack")
    assert s.allocation_for(post(0), None, None) == ("none",)
    with pytest.raises(RuleError, match="unknown tactic"):
        s.allocation_for(a, "berserk", None)


@pytest.mark.parametrize(
    ("who", "alloc", "message"),
    [
        ("Aldo", ("attack", "attack"), "shield's die only defends"),
        ("Aldo", ("attack",), "has 1 entry but Aldo has 2 hands"),
        ("Aldo", ("attack", "block"), "'block' is not a commitment"),
        ("Bera", ("attack", "defence"), "two-handed weapon's dice go together"),
        ("Nobody", ("attack", "defence"), "no such fighter"),
    ],
)
def test_S04_bad_allocation_refused_before_any_die(who: str, alloc: tuple[str, ...],
                                                   message: str) -> None:
    a, b = sword_shield(), greatsword()
    dice = EnteredDice([5, 5, 5, 5, 5])
    error = UsageError if who == "Nobody" else RuleError  # a name typed: a usage mistake
    with pytest.raises(error, match=message) as info:
        s.play_round(RS, a, b, state0(a, b), dice, s.Choices(allocation={who: alloc}))
    assert dice.consumed == 0
    assert "\n" not in str(info.value)


def test_S04_explicit_allocation_used() -> None:
    a, b = sword_shield(), post(0)
    result, _ = play(a, b, [], choices=s.Choices(allocation={"Aldo": ("defence", "defence")}))
    assert ex(result, 1).outcome == "no-attack" and ex(result, 1).attack_rolls == ()
    assert ex(result, 2).outcome == "no-attack"
    assert of(result, s.AllocationEvent)[0].source == "choice"
    # Aldo defended nothing (Post has no attack dice): the faces were never rolled
    assert result.rolls == ()


def test_S04_no_attack_dice_means_no_attack_and_no_defence_dice_means_constant() -> None:
    a = greatsword(attack=10)
    b = make("Turtle", [{"die": 6, "holds": "shield"}], {"shield": {"kind": "shield"}},
             defence=3)
    result, _ = play(a, b, [4, 4, 2])
    e1, e2 = ex(result, 1), ex(result, 2)
    assert e1.defence_total == 3 + 2 and e1.damage == 18 - 5
    assert e2.outcome == "no-attack" and e2.attack_rolls == () and e2.defence_rolls == ()
    assert "S-04" in e2.rules
    # Bera defends with her constant alone in exchange 2 (no attack there): no dice rolled
    assert len(result.rolls) == 3


# --- S-05 techniques ------------------------------------------------------------------


def test_S05_technique_modifies_totals() -> None:
    a, b = sword_shield(), post(10)
    result, st1 = play(a, b, [5], choices=s.Choices(technique={"Aldo": "feint"}))
    e = ex(result)
    assert e.attack_modifier == 3 and e.attack_total == 18 and e.damage == 8
    assert "S-05" in e.rules
    alloc = of(result, s.AllocationEvent)[0]
    assert (alloc.technique, alloc.technique_started, alloc.technique_rounds_left) == (
        "feint", True, 1)
    assert st1.fighter("Aldo").technique is None  # one round only


def test_S05_no_new_technique_while_one_is_active_nothing_changed() -> None:
    a, b = sword_shield(), post(10)
    r1, st1 = play(a, b, [5], choices=s.Choices(technique={"Aldo": "guard"}))
    assert ex(r1).attack_modifier == -2
    assert st1.fighter("Aldo").technique == s.ActiveTechnique("guard", 1)
    dice = EnteredDice([5])
    before = s.state_to_data(st1)
    with pytest.raises(RuleError, match="still under 'iron guard'"):
        s.play_round(RS, a, b, st1, dice, s.Choices(technique={"Aldo": "feint"}))
    assert dice.consumed == 0
    assert s.state_to_data(st1) == before
    # round 2: guard still applies; round 3: a new technique is allowed
    r2, st2 = play(a, b, [5], st1)
    assert ex(r2).attack_modifier == -2
    assert of(r2, s.AllocationEvent)[0].technique == "guard"
    assert st2.fighter("Aldo").technique is None
    r3, _ = play(a, b, [5], st2, s.Choices(technique={"Aldo": "feint"}))
    assert ex(r3).attack_modifier == 3


def test_S05_unknown_technique_refused() -> None:
    a, b = sword_shield(), post(10)
    dice = EnteredDice([5])
    with pytest.raises(RuleError, match="no technique 'kick': use one of feint"):
        s.play_round(RS, a, b, state0(a, b), dice, s.Choices(technique={"Aldo": "kick"}))
    assert dice.consumed == 0


def test_S05_technique_defence_modifier_applies_when_defending() -> None:
    a, b = sword_shield(), sword_empty()
    result, _ = play(a, b, [5, 3, 5, 2], choices=s.Choices(technique={"Aldo": "guard"}))
    e2 = ex(result, 2)
    assert e2.defence_modifier == 4 and e2.defence_total == 5 + 2 + 4


# --- S-06 / S-07 ----------------------------------------------------------------------


def test_S06_damage_is_attack_minus_defence() -> None:
    a, b = sword_shield(), post(10)
    result, st1 = play(a, b, [5])
    e = ex(result)
    assert (e.attack_total, e.defence_total, e.margin, e.damage) == (15, 10, 5, 5)
    assert e.outcome == "wound" and e.band == "light" and "S-06" in e.rules
    assert st1.fighter("Post").wounds == ("light",)


def test_S06_zero_damage_is_foiled() -> None:
    a, b = sword_shield(), post(15)
    result, st1 = play(a, b, [5])
    e = ex(result)
    assert e.margin == 0 and e.outcome == "foiled" and e.damage == 0 and e.band is None
    assert st1.fighter("Post").wounds == () and not of(result, s.WoundEvent)


@pytest.mark.parametrize(
    ("damage", "band"),
    [(1, "light"), (10, "light"), (11, "serious"), (20, "serious"), (21, "critical"),
     (30, "critical"), (31, "fatal")],
)
def test_S07_wound_bands_at_boundaries(damage: int, band: str) -> None:
    a, b = sword_shield(), post(15 - damage)
    result, st1 = play(a, b, [5])
    e = ex(result)
    assert e.damage == damage and e.band == band and e.final_band == band
    assert st1.fighter("Post").wounds == (band,)


def test_S07_classify() -> None:
    assert s.classify(RS, 0) is None
    assert s.classify(RS, -3) is None
    got = [s.classify(RS, n) for n in (1, 10, 11, 20, 21, 30, 31, 500)]
    assert [b.name if b else None for b in got] == [
        "light", "light", "serious", "serious", "critical", "critical", "fatal", "fatal"]


# --- S-08 / S-09 ----------------------------------------------------------------------


def test_S08_second_exchange_reverses_roles() -> None:
    a, b = sword_shield(), sword_empty()
    result, _ = play(a, b, [4, 2, 5, 3])
    e1, e2 = ex(result, 1), ex(result, 2)
    assert (e1.attacker, e1.defender, e2.attacker, e2.defender) == ("Aldo", "Dana", "Dana", "Aldo")
    # Dana's light wound (14 - 7 = 7) already weighs on her attack in exchange 2 (S-19)
    assert e1.damage == 7 and e2.attack_penalty == 1 and e2.attack_total == 10 + 5 - 1


def test_S08_no_second_exchange_when_defender_is_out() -> None:
    a, b = sword_shield(), sword_empty(defence=-100)
    result, st1 = play(a, b, [4, 2])
    assert len(of(result, s.ExchangeEvent)) == 1
    assert st1.over and st1.winner == "Aldo" and result.winner == "Aldo"
    over = of(result, s.FightOverEvent)[0]
    assert (over.winner, over.loser, over.reason) == ("Aldo", "Dana", "out")


def test_S09_rounds_follow_until_out_then_refused() -> None:
    a, b = sword_shield(), post(-20)  # 10 + 5 + 20 = 35: fatal
    result, st1 = play(a, b, [5])
    assert result.over and st1.over and st1.fighter("Post").out
    with pytest.raises(EncounterError, match="over"):
        s.play_round(RS, a, b, st1, EnteredDice([5]))


# --- S-10 one weapon ------------------------------------------------------------------


def test_S10_highest_face_is_critical_hit_with_metal() -> None:
    a, b = sword_shield(), post(22)  # 10 + 10 - 22 = -2, iron +4 -> 2
    result, _ = play(a, b, [10])
    e = ex(result)
    assert e.critical == "critical" and e.margin == -2 and e.extra_damage == 4
    assert e.damage == 2 and e.outcome == "wound"
    assert e.metals == (s.MetalEffect("iron", "sword", 1, 4, 0),)
    assert {"S-10", "S-17"} <= set(e.rules)


def test_S10_critical_hit_can_still_be_foiled() -> None:
    a, b = sword_shield(), post(30)
    result, _ = play(a, b, [10])
    e = ex(result)
    assert e.critical == "critical" and e.outcome == "foiled" and e.damage == 0


def test_S10_lowest_face_is_critical_failure_weapon_kept() -> None:
    a, b = sword_shield(attack=100), post(-50)
    result, st1 = play(a, b, [1, 12])  # drop check 12 <= skill 12: kept
    e = ex(result)
    assert e.outcome == "critical-failure" and e.damage == 0 and "S-10" in e.rules
    drop = of(result, s.DropEvent)[0]
    assert (drop.roll.face, drop.roll.sides, drop.skill, drop.dropped) == (12, 20, 12, False)
    assert st1.fighter("Aldo").dropped == () and st1.fighter("Post").wounds == ()


def test_S10_critical_failure_drop_check_above_skill_drops() -> None:
    a, b = sword_shield(), post(0)
    result, st1 = play(a, b, [1, 13])
    drop = of(result, s.DropEvent)[0]
    assert drop.dropped and drop.hands == (1,) and "S-18" in drop.rules
    assert st1.fighter("Aldo").dropped == (s.DroppedWeapon("sword", (1,), 1),)


def test_S10_drop_check_die_comes_from_ruleset() -> None:
    rs = replace(RS, drop_check_die=100)
    a, b = sword_shield(), post(0)
    result, _ = play(a, b, [1, 99], rs=rs)
    assert seq(result)[1] == ("drop", "Aldo", 100, 99)


def test_S10_single_empty_hand_crit_and_fumble_without_metal_or_drop() -> None:
    a, b = make("Fist", [{"die": 6}], tactic="all-out"), post(10)
    r1, _ = play(a, b, [6])
    assert ex(r1).critical == "critical" and ex(r1).metals == () and ex(r1).damage == 6
    r2, _ = play(a, b, [1])
    assert ex(r2).outcome == "critical-failure" and not of(r2, s.DropEvent)


# --- S-11 two-handed ------------------------------------------------------------------


def test_S11_one_lowest_face_fails_without_consequence() -> None:
    a, b = greatsword(attack=100), post(0)
    result, st1 = play(a, b, [1, 5])
    e = ex(result)
    assert e.outcome == "failed" and "S-11" in e.rules and not of(result, s.DropEvent)
    assert st1.fighter("Bera").dropped == ()


def test_S11_both_lowest_is_critical_failure_one_drop_check_both_hands() -> None:
    a, b = greatsword(), post(0)
    result, st1 = play(a, b, [1, 1, 20])
    assert ex(result).outcome == "critical-failure"
    drops = of(result, s.DropEvent)
    assert len(drops) == 1 and drops[0].hands == (1, 2) and drops[0].dropped
    assert st1.fighter("Bera").recovering() == {1, 2}


def test_S11_one_highest_is_critical_hit() -> None:
    a, b = greatsword(metal="steel"), post(13)  # 10 + 8 + 5 - 13 = 10 light, steel +1 band
    result, _ = play(a, b, [8, 5])
    e = ex(result)
    assert e.critical == "critical" and e.damage == 10
    assert (e.band, e.band_shift, e.final_band) == ("light", 1, "serious")


def test_S11_both_highest_is_devastating_effect_doubled() -> None:
    a, b = greatsword(metal="starmetal"), post(26)  # margin 0, +3x2 = 6 light, +2 bands
    result, st1 = play(a, b, [8, 8])
    e = ex(result)
    assert e.critical == "devastating" and e.margin == 0
    assert e.metals == (s.MetalEffect("starmetal", "great", 2, 6, 2),)
    assert (e.extra_damage, e.damage, e.band, e.final_band) == (6, 6, "light", "critical")
    assert st1.fighter("Post").wounds == ("critical",)


# --- S-12 a weapon in each hand -------------------------------------------------------


def test_S12_one_lowest_is_critical_failure_drop_check_for_that_weapon() -> None:
    a, b = dual(), post(0)
    result, st1 = play(a, b, [1, 4, 11])
    assert ex(result).outcome == "critical-failure" and "S-12" in ex(result).rules
    drops = of(result, s.DropEvent)
    assert [(d.item, d.hands, d.dropped) for d in drops] == [("axe", (1,), True)]
    assert st1.fighter("Cato").recovering() == {1}


def test_S12_both_lowest_two_drop_checks() -> None:
    a, b = dual(), post(0)
    result, st1 = play(a, b, [1, 1, 5, 11])
    drops = of(result, s.DropEvent)
    assert [(d.item, d.dropped) for d in drops] == [("axe", False), ("knife", True)]
    assert st1.fighter("Cato").dropped == (s.DroppedWeapon("knife", (2,), 1),)


def test_S12_both_highest_devastating_each_metal_applies() -> None:
    a, b = dual(), post(22)  # margin 0, iron +4 bronze +2
    result, _ = play(a, b, [6, 6])
    e = ex(result)
    assert e.critical == "devastating"
    assert {(m.metal, m.times, m.extra_damage) for m in e.metals} == {
        ("iron", 1, 4), ("bronze", 1, 2)}
    assert e.damage == 6


def test_S12_one_highest_is_critical_with_that_weapons_metal() -> None:
    a, b = dual(), post(19)  # margin 0, bronze knife +2
    result, _ = play(a, b, [3, 6])
    e = ex(result)
    assert e.critical == "critical" and [m.metal for m in e.metals] == ["bronze"]
    assert e.damage == 2


def test_S12_empty_hand_beside_a_weapon() -> None:
    a, b = sword_empty(tactic="all-out"), post(26)
    r1, _ = play(a, b, [5, 1])
    assert ex(r1).outcome == "critical-failure" and not of(r1, s.DropEvent)
    r2, _ = play(a, b, [10, 6])  # margin 0, iron only (the empty hand has no metal)
    assert ex(r2).critical == "devastating" and ex(r2).damage == 4
    assert [m.metal for m in ex(r2).metals] == ["iron"]


# --- S-13 precedence ------------------------------------------------------------------


def test_S13_failure_beats_critical_by_default() -> None:
    r1, _ = play(greatsword(), post(0), [1, 8])
    assert ex(r1).outcome == "failed" and ex(r1).critical is None and "S-13" in ex(r1).rules
    r2, _ = play(dual(), post(0), [1, 6, 3])
    assert ex(r2).outcome == "critical-failure" and len(of(r2, s.DropEvent)) == 1


def test_S13_option_off_critical_wins() -> None:
    rs = replace(RS, failure_beats_crit=False)
    r1, _ = play(greatsword(), post(13), [1, 8], rs=rs)  # 10 + 9 - 13 = 6, steel +1 band
    assert ex(r1).critical == "critical" and ex(r1).outcome == "wound"
    assert ex(r1).final_band == "serious" and "S-13" in ex(r1).rules
    r2, _ = play(dual(), post(0), [1, 6], rs=rs)  # no drop check
    assert ex(r2).critical == "critical" and not of(r2, s.DropEvent)
    assert [m.metal for m in ex(r2).metals] == ["bronze"]


# --- S-14 / S-15 ----------------------------------------------------------------------


def test_S14_critical_defence_ends_round_and_reverses_initiative() -> None:
    a, b = sword_shield(), sword_empty()
    r1, st1 = play(a, b, [5, 6])  # Dana's empty hand shows 6: round over
    e = ex(r1)
    assert e.critical_defence and "S-14" in e.rules and e.outcome == "wound"  # 15 - 11 = 4
    assert len(of(r1, s.ExchangeEvent)) == 1
    rev = of(r1, s.InitiativeReversedEvent)[0]
    assert (rev.assaillant, rev.defenseur) == ("Dana", "Aldo")
    assert st1.assaillant == "Dana"
    # the reversal lasts: next rounds Dana acts first
    r2, st2 = play(a, b, [5, 2, 5, 2], st1)
    assert [f for _, f, _, _ in seq(r2)] == ["Dana", "Aldo", "Aldo", "Dana"]
    r3, _ = play(a, b, [5, 2, 5, 2], st2)
    assert seq(r3)[0][1] == "Dana"


def test_S14_critical_defence_by_the_assaillant_keeps_initiative() -> None:
    a, b = sword_shield(), sword_empty()
    result, st1 = play(a, b, [5, 3, 5, 6])
    e2 = ex(result, 2)
    assert e2.critical_defence and e2.outcome == "shield-foiled"
    assert not of(result, s.InitiativeReversedEvent) and st1.assaillant == "Aldo"


def test_S14_defence_dice_rolled_even_after_failed_attack() -> None:
    a, b = sword_shield(), sword_empty()
    result, st1 = play(a, b, [1, 3, 6])  # fumble, kept, Dana's 6 still reverses
    assert ex(result).outcome == "critical-failure" and ex(result).critical_defence
    assert st1.assaillant == "Dana"


def test_S15_shield_highest_face_foils_whatever_the_totals() -> None:
    a, b = sword_empty(attack=100), sword_shield()
    result, st1 = play(a, b, [10, 6])  # a critical hit with a huge margin, foiled
    e = ex(result)
    assert e.outcome == "shield-foiled" and e.shield_hand == 2 and e.damage == 0
    assert e.critical == "critical" and e.metals == ()
    assert {"S-14", "S-15"} <= set(e.rules)
    assert st1.fighter("Aldo").wounds == () and st1.assaillant == "Aldo"
    assert len(of(result, s.ExchangeEvent)) == 1  # S-14 applies too


# --- S-16 judgement by hand -----------------------------------------------------------


def test_S16_wound_by_amount_and_by_band() -> None:
    a, b = sword_shield(), greatsword()
    st = state0(a, b)
    w1, st1 = s.apply_wound(RS, a, b, st, "Bera", amount=12)
    assert w1.band == "serious" and st1.fighter("Bera").penalty == 3
    w2, st2 = s.apply_wound(RS, a, b, st1, "Bera", band="light")
    assert st2.fighter("Bera").wounds == ("serious", "light") and st2.fighter("Bera").penalty == 4
    ev = of(w2, s.WoundEvent)[0]
    assert "S-16" in ev.rules and ev.by is None and not w2.over
    assert st2.round == 0


def test_S16_fatal_wound_by_hand_ends_fight() -> None:
    a, b = sword_shield(), greatsword()
    w, st = s.apply_wound(RS, a, b, state0(a, b), "Aldo", amount=31)
    assert w.over and w.winner == "Bera" and st.over and st.fighter("Aldo").out
    assert of(w, s.FightOverEvent)[0].winner == "Bera"
    with pytest.raises(EncounterError):
        s.apply_wound(RS, a, b, st, "Aldo", amount=1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fighter": "Zed", "amount": 5}, "use 'Aldo' or 'Bera'"),
        ({"fighter": "Aldo", "band": "scratch"}, "light, serious, critical, fatal"),
        ({"fighter": "Aldo", "amount": 0}, "at least 1"),
        ({"fighter": "Aldo", "amount": -4}, "at least 1"),
        ({"fighter": "Aldo"}, "amount"),
        ({"fighter": "Aldo", "amount": 3, "band": "light"}, "not both"),
    ],
)
def test_S16_bad_judgement_refused(kwargs: dict[str, Any], message: str) -> None:
    a, b = sword_shield(), greatsword()
    error = UsageError if kwargs["fighter"] == "Zed" else RuleError  # a name typed: usage
    with pytest.raises(error, match=message):
        s.apply_wound(RS, a, b, state0(a, b), **kwargs)


# --- S-17 metals ----------------------------------------------------------------------


def test_S17_band_shift_capped_at_last_band() -> None:
    a, b = greatsword(metal="starmetal"), post(0)  # 26 + 6 = 32 fatal, +2 stays fatal
    result, st1 = play(a, b, [8, 8])
    e = ex(result)
    assert (e.damage, e.band, e.band_shift, e.final_band) == (32, "fatal", 2, "fatal")
    assert st1.over and st1.winner == "Bera"


def test_S17_bronze_extra_damage_raises_band() -> None:
    a, b = sword_shield(metal="bronze"), post(11)  # 20 - 11 = 9, +2 = 11 serious
    result, _ = play(a, b, [10])
    e = ex(result)
    assert (e.margin, e.extra_damage, e.damage, e.band) == (9, 2, 11, "serious")


# --- S-18 dropped weapon --------------------------------------------------------------


def test_S18_recovery_takes_the_hands_next_round() -> None:
    a, b = sword_shield(), post(0)
    r1, st1 = play(a, b, [1, 20])
    assert st1.fighter("Aldo").recovering() == {1}
    assert not of(r1, s.RecoveredEvent)
    # round 2: the sword hand picks the weapon up: no attack
    r2, st2 = play(a, b, [], st1)
    alloc = next(e for e in of(r2, s.AllocationEvent) if e.fighter == "Aldo")
    assert alloc.hands[0].recovering and alloc.hands[0].commitment == "none"
    assert "S-18" in alloc.rules
    assert ex(r2).outcome == "no-attack"
    rec = of(r2, s.RecoveredEvent)
    assert [(e.fighter, e.item, e.hands) for e in rec] == [("Aldo", "sword", (1,))]
    assert st2.fighter("Aldo").dropped == ()
    # round 3: back in hand
    r3, _ = play(a, b, [5], st2)
    assert ex(r3).attack_rolls[0].face == 5


def test_S18_explicit_use_of_a_recovering_hand_refused() -> None:
    a, b = sword_shield(), post(0)
    _, st1 = play(a, b, [1, 20])
    for alloc in (("attack", "defence"), ("defence", "defence")):
        dice = EnteredDice([5, 5])
        with pytest.raises(RuleError, match="picking up its dropped weapon"):
            s.play_round(RS, a, b, st1, dice, s.Choices(allocation={"Aldo": alloc}))
        assert dice.consumed == 0
    assert s.allocation_for(a, None, st1) == ("none", "defence")
    assert s.allocation_for(a, "full-defence", st1) == ("none", "defence")


@pytest.mark.parametrize("rounds", [0, 2])
def test_S18_recovery_rounds_from_ruleset(rounds: int) -> None:
    rs = replace(RS, drop_recovery_rounds=rounds)
    a, b = sword_shield(), post(0)
    r1, st = play(a, b, [1, 20], rs=rs)
    if rounds == 0:
        assert of(r1, s.RecoveredEvent) and st.fighter("Aldo").dropped == ()
        r2, _ = play(a, b, [5], st, rs=rs)
        assert ex(r2).outcome == "wound"
        return
    for left in (1, 0):
        r, st = play(a, b, [], st, rs=rs)
        assert ex(r).outcome == "no-attack"
        assert bool(of(r, s.RecoveredEvent)) == (left == 0)
    r4, _ = play(a, b, [5], st, rs=rs)
    assert ex(r4).outcome == "wound"


def test_S18_two_handed_weapon_dropped_leaves_both_hands_idle() -> None:
    a, b = greatsword(), post(0)
    _, st1 = play(a, b, [1, 1, 20])
    r2, st2 = play(a, b, [], st1)
    alloc = next(e for e in of(r2, s.AllocationEvent) if e.fighter == "Bera")
    assert [h.commitment for h in alloc.hands] == ["none", "none"]
    assert st2.fighter("Bera").dropped == ()


# --- S-19 penalties, out, cap ---------------------------------------------------------


def test_S19_penalties_cumulative_on_both_constants() -> None:
    a, b = sword_shield(), sword_empty()
    st = state0(a, b)
    _, st = s.apply_wound(RS, a, b, st, "Aldo", band="light")
    _, st = s.apply_wound(RS, a, b, st, "Aldo", band="serious")
    assert st.fighter("Aldo").penalty == 4
    result, _ = play(a, b, [5, 2, 5, 2], st)
    e1, e2 = ex(result, 1), ex(result, 2)
    assert e1.attack_penalty == 4 and e1.attack_total == 10 + 5 - 4
    assert e2.defence_penalty == 4 and e2.defence_total == 5 + 2 - 4
    assert "S-19" in e1.rules


def test_S19_fatal_wound_ends_fight_winner_is_the_other() -> None:
    a, b = sword_shield(), post(-16)
    result, st1 = play(a, b, [5])
    w = of(result, s.WoundEvent)[0]
    assert (w.band, w.out) == ("fatal", True)
    assert result.over and result.winner == "Aldo" and st1.winner == "Aldo"
    assert result.states[1].out and not result.states[0].out


def test_S19_out_after_several_wounds_of_a_band() -> None:
    wounds = tuple(replace(w, out_after=2) if w.name == "light" else w for w in RS.wounds)
    rs = replace(RS, wounds=wounds)
    a, b = sword_shield(), greatsword()
    _, st = s.apply_wound(rs, a, b, state0(a, b), "Bera", band="light")
    assert not st.over
    w, st = s.apply_wound(rs, a, b, st, "Bera", amount=3)
    assert st.over and st.winner == "Aldo" and w.winner == "Aldo"


def test_S19_round_cap_ends_in_a_draw() -> None:
    rs = replace(RS, round_cap=2)
    a, b = sword_shield(), post(100)
    r1, st1 = play(a, b, [5], rs=rs)
    assert not r1.over
    r2, st2 = play(a, b, [5], st1, rs=rs)
    assert r2.over and r2.capped and r2.winner is None and st2.capped
    assert of(r2, s.FightOverEvent)[0].reason == "round-cap"


# --- S-10 fumble_grants_crit ----------------------------------------------------------


def test_S10_fumble_grants_crit_on() -> None:
    rs = replace(RS, fumble_grants_crit=True)
    a, b = sword_shield(), sword_empty()
    # Aldo fumbles (kept), Dana defends 3; Dana 15 vs Aldo 7: margin 8, granted iron +4 = 12
    result, st1 = play(a, b, [1, 5, 3, 5, 2], rs=rs)
    granted = of(result, s.CriticalGrantedEvent)
    assert [(g.fighter, g.by) for g in granted] == [("Dana", "Aldo")]
    e2 = ex(result, 2)
    assert e2.granted_critical and e2.critical == "critical" and e2.margin == 8
    assert e2.damage == 12 and e2.band == "serious" and "S-10" in e2.rules
    assert not st1.fighter("Dana").granted_crit  # used up


def test_S10_fumble_grants_crit_off_by_default() -> None:
    a, b = sword_shield(), sword_empty()
    result, st1 = play(a, b, [1, 5, 3, 5, 2])
    assert not of(result, s.CriticalGrantedEvent)
    e2 = ex(result, 2)
    assert not e2.granted_critical and e2.critical is None and e2.damage == 8
    assert not st1.fighter("Dana").granted_crit


def test_S10_granted_crit_kept_until_an_attack_lands() -> None:
    rs = replace(RS, fumble_grants_crit=True)
    a, b = sword_shield(), sword_empty()
    # Dana's attack is foiled by the shield (6): the grant stays
    _, st1 = play(a, b, [1, 5, 3, 5, 6], rs=rs)
    assert st1.fighter("Dana").granted_crit
    # next round Dana wounds (14 - 7 = 7 + iron 4 = 11): granted critical
    r2, st2 = play(a, b, [5, 3, 5, 2], st1, rs=rs)
    assert ex(r2, 2).granted_critical and ex(r2, 2).damage == 11
    assert not st2.fighter("Dana").granted_crit


def test_S10_natural_critical_does_not_use_the_grant() -> None:
    rs = replace(RS, fumble_grants_crit=True)
    a, b = sword_shield(), post(10)
    st = with_fs(state0(a, b), "Aldo", granted_crit=True)
    result, st1 = play(a, b, [10], st, rs=rs)
    assert ex(result).critical == "critical" and not ex(result).granted_critical
    assert st1.fighter("Aldo").granted_crit


# --- S-21 example fighters ------------------------------------------------------------


def test_S21_example_fighters_shield_against_two_handed() -> None:
    a, b = load_pair(RS, None)
    assert isinstance(a, SevendagFighter) and isinstance(b, SevendagFighter)
    kinds_a = {i.kind for i in a.items.values()}
    assert kinds_a == {"weapon", "shield"}
    assert [i.hands for i in b.items.values()] == [2]
    assert engine_for(RS) is STEP_ENGINE


# --- state data -----------------------------------------------------------------------


def _busy_state() -> s.SevendagState:
    rs = replace(RS, fumble_grants_crit=True)
    a, b = sword_shield(), sword_empty()
    _, st = play(a, b, [1, 20, 3, 5, 6], rs=rs, choices=s.Choices(technique={"Dana": "guard"}))
    return st


def test_state_round_trip_through_json() -> None:
    st = _busy_state()
    assert st.fighter("Aldo").dropped and st.fighter("Dana").technique
    assert st.fighter("Dana").granted_crit
    data = s.state_to_data(st)
    again = s.state_from_data(json.loads(json.dumps(data)))
    assert again == st
    assert s.state_to_data(again) == data
    over = replace(st, over=True, winner="Aldo")
    assert s.state_from_data(json.loads(json.dumps(s.state_to_data(over)))) == over


def _corrupt(path: str, value: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(s.state_to_data(_busy_state())))
    keys = path.split(".")
    target: Any = data
    for k in keys[:-1]:
        target = target[int(k)] if k.isdigit() else target[k]
    last = keys[-1]
    if value is KeyError:
        del target[last]
    elif last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value
    return data  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("round", "3"), ("round", -1), ("round", True), ("round", KeyError),
        ("assaillant", "Zed"), ("winner", "Zed"), ("over", 1), ("engine", "d20"),
        ("fighters", []), ("fighters", "x"), ("fighters.0", 5), ("fighters.0.name", ""),
        ("fighters.0.wounds", "light"), ("fighters.0.wounds", [3]), ("fighters.0.penalty", None),
        ("fighters.0.out", "no"), ("fighters.0.dropped", {}), ("fighters.0.dropped.0.hands", []),
        ("fighters.0.dropped.0.rounds_left", 0), ("fighters.1.technique", "guard"),
        ("fighters.1.technique.rounds_left", 0), ("fighters.1.granted_crit", KeyError),
        ("fighters.1.name", "Aldo"),
    ],
)
def test_state_from_damaged_data_is_an_encounter_error(path: str, value: Any) -> None:
    data = _corrupt(path, value)
    with pytest.raises(EncounterError, match="damaged"):
        s.state_from_data(data)


def test_state_from_non_dict_is_an_encounter_error() -> None:
    for bad in (None, [], "state", 3):
        with pytest.raises(EncounterError):
            s.state_from_data(bad)  # type: ignore[arg-type]


def test_state_for_other_fighters_refused() -> None:
    a, b = sword_shield(), sword_empty()
    with pytest.raises(EncounterError, match="between"):
        s.play_round(RS, a, greatsword(), state0(a, b), EnteredDice([]))


# --- fight ----------------------------------------------------------------------------


def test_S09_fight_ends_with_a_winner() -> None:
    a, b = load_pair(RS, None)
    assert isinstance(a, SevendagFighter) and isinstance(b, SevendagFighter)
    result = s.fight(RS, a, b, SeededDice(7))
    assert result.winner in ("Brannoc", "Ysolde") and not result.capped
    loser = next(x for x in result.states if x.name != result.winner)
    assert loser.out and result.rounds[-1].over
    assert all(r.number == i for i, r in enumerate(result.rounds, start=1))
    assert result.extra["elapsed_seconds"] == 3 * len(result.rounds)


def test_S19_fight_capped_is_a_draw() -> None:
    a = make("Ann", [{"die": 6}], tactic="full-defence")
    b = make("Bob", [{"die": 6}], tactic="full-defence")
    result = s.fight(RS, a, b, SeededDice(1), cap=5)
    assert len(result.rounds) == 5 and result.capped and result.winner is None
    assert result.rounds[-1].capped and not result.rounds[0].capped
    with pytest.raises(UsageError):
        s.fight(RS, a, b, SeededDice(1), cap=0)


def test_C01_seeded_fight_is_reproducible() -> None:
    a, b = load_pair(RS, None)
    assert isinstance(a, SevendagFighter) and isinstance(b, SevendagFighter)
    assert s.fight(RS, a, b, SeededDice(1234)) == s.fight(RS, a, b, SeededDice(1234))


def test_C02_fight_initiative_rolls_recorded() -> None:
    a, b = sword_shield(), post(-100)
    dice = EnteredDice([3, 3, 9, 2, 5])
    result = s.fight(RS, a, b, dice)
    dice.check_all_used()
    assert [(r.purpose, r.face) for r in result.initiative_rolls] == [
        ("initiative", 3), ("initiative", 3), ("initiative", 9), ("initiative", 2)]
    assert result.winner == "Aldo" and len(result.rounds) == 1


def test_engine_refuses_wrong_ruleset_type() -> None:
    d20 = _load_ruleset("d20")
    a, b = sword_shield(), post(0)
    with pytest.raises(SevendagError):
        s.start(d20, a, b, EnteredDice([]))  # type: ignore[arg-type]


# --- properties -----------------------------------------------------------------------

POOL = [sword_shield(), greatsword(), dual(), sword_empty(), greatsword("Gala", "starmetal"),
        make("Quad", [{"die": 4, "holds": "a"}, {"die": 4, "holds": "b"}, {"die": 6},
                      {"die": 6, "holds": "s"}],
             {"a": {"metal": "bronze"}, "b": {"metal": "steel"}, "s": {"kind": "shield"}},
             tactic="all-out")]
RS_VARIANTS = [RS, replace(RS, fumble_grants_crit=True, failure_beats_crit=False),
               replace(RS, drop_recovery_rounds=0), replace(RS, drop_recovery_rounds=3)]


def _pairs() -> list[tuple[SevendagFighter, SevendagFighter]]:
    return [(x, y) for x in POOL for y in POOL if x.name != y.name]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), pair=st.sampled_from(_pairs()),
       rs=st.sampled_from(RS_VARIANTS))
def test_property_fights_end_well(seed: int, pair: tuple[SevendagFighter, SevendagFighter],
                                  rs: SevendagRuleset) -> None:
    """S-09/S-19: every fight ends within the cap; the winner is the one not out; wounds
    only accumulate; damage is never negative; every roll is in an event (C-02)."""
    a, b = pair
    cap = 40
    result = s.fight(rs, a, b, SeededDice(seed), cap=cap)
    assert 1 <= len(result.rounds) <= cap
    if result.winner is None:
        assert result.capped and len(result.rounds) == cap
        assert not any(x.out for x in result.states)
    else:
        winner = next(x for x in result.states if x.name == result.winner)
        loser = next(x for x in result.states if x.name != result.winner)
        assert not winner.out and loser.out
    previous = {a.name: (), b.name: ()}
    for rnd in result.rounds:
        for fs in rnd.states:
            assert fs.wounds[: len(previous[fs.name])] == previous[fs.name]
            previous[fs.name] = fs.wounds
        rolls: list[Any] = []
        for e in rnd.events:
            if isinstance(e, s.ExchangeEvent):
                assert e.damage >= 0 and (e.damage > 0) == (e.outcome == "wound")
                assert e.outcome in s.OUTCOMES
                rolls += list(e.attack_rolls)
                rolls += [d.roll for d in rnd.events
                          if isinstance(d, s.DropEvent) and d.fighter == e.attacker]
                rolls += list(e.defence_rolls)
        assert tuple(rolls) == rnd.rolls


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), data=st.data())
def test_property_random_choices_keep_state_valid(seed: int, data: st.DataObject) -> None:
    """S-03/S-04/S-05: random legal choices round by round; refused ones consume nothing."""
    a, b = sword_shield(), dual()
    dice = SeededDice(seed)
    _, state = s.start(RS, a, b, dice)
    for _ in range(15):
        if state.over:
            break
        alloc = {
            "Aldo": data.draw(st.sampled_from([("attack", "defence"), ("none", "defence"),
                                               ("defence", "none"), ("attack", "attack")])),
            "Cato": data.draw(st.sampled_from([("attack", "attack"), ("defence", "attack"),
                                               ("defence", "defence")])),
        }
        tech = data.draw(st.sampled_from([{}, {"Aldo": "guard"}, {"Cato": "feint"}]))
        choices = s.Choices(data.draw(st.booleans()), alloc, tech)
        counting = RecordingDice(dice)
        try:
            _, new = s.play_round(RS, a, b, state, counting, choices)
        except RuleError:
            assert counting.rolls == []
            continue
        assert new.round == state.round + 1
        assert s.state_from_data(json.loads(json.dumps(s.state_to_data(new)))) == new
        state = new
