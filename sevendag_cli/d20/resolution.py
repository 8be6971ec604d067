"""Le combat (d20) resolution: initiative, one attack per round, judgements, a whole fight.

Pure functions from (ruleset, fighters, state, dice) to (result, new state);
every die comes from the injected :class:`~sevendag_cli.dice.DiceSource`.  The
roll order is in the package's docstring (:mod:`sevendag_cli.d20.engine`).  What the
dice of an attack decide is not written here but in :mod:`sevendag_cli.d20.attack`
(shared with the vectorised simulator); this module rolls, records and applies it.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from sevendag_cli.d20.attack import (
    ATTACK_REASONS,
    SAVE_OUTCOMES,
    SAVE_REASONS,
    attack_verdict,
    damage_dealt,
    is_critical,
    resisted,
    save_outcome,
    save_verdict,
)
from sevendag_cli.d20.events import AttackEvent, DamageEvent, HitPointsEvent, SaveEvent
from sevendag_cli.d20.rules import D20Fighter, D20Ruleset, Weapon, play_limit, unarmed
from sevendag_cli.d20.state import D20State, _set_hp, initial_state
from sevendag_cli.dice import DiceSource, NotedDice
from sevendag_cli.engine.common import (
    SAFETY_LIMIT,
    Check,
    Event,
    FightOverEvent,
    FightPlay,
    FightResult,
    InitiativeEvent,
    RecordingDice,
    RoundResult,
    WoundResult,
    check,
    over_message,
)
from sevendag_cli.errors import EncounterError, Msg, RuleError
from sevendag_cli.formula import Evaluated, OpResult
from sevendag_cli.limits import INT_LIMIT
from sevendag_cli.rules.bounds import check_values

MAX_INITIATIVE_ATTEMPTS = 1000


def _pair(a: D20Fighter, b: D20Fighter, name: str) -> tuple[D20Fighter, D20Fighter]:
    """(the named fighter, the other)."""
    return (a, b) if name == a.name else (b, a)


def roll_initiative(
    ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter, dice: DiceSource
) -> InitiativeEvent:
    """D-02: both roll; ties roll again (house default)."""
    attempts: list[tuple[Check, Check]] = []
    for _ in range(MAX_INITIATIVE_ATTEMPTS):
        ca = check(ruleset.initiative, a.env(), dice, "initiative", a.name)
        cb = check(ruleset.initiative, b.env(), dice, "initiative", b.name)
        attempts.append((ca, cb))
        if ca.total != cb.total:
            leader, other = (a, b) if ca.total > cb.total else (b, a)
            return InitiativeEvent(tuple(attempts), leader.name, other.name, ("D-02",))
    raise RuleError(Msg("engine.d20.initiative_ties", n=MAX_INITIATIVE_ATTEMPTS))


def start(
    ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter, dice: DiceSource
) -> tuple[InitiativeEvent, D20State]:
    """Begin an encounter: the first round's initiative (D-02)."""
    init = roll_initiative(ruleset, a, b, dice)
    return init, replace(initial_state(a, b), next_attacker=init.leader)


def plus(a: Evaluated, b: Evaluated) -> Evaluated:
    """Two evaluations added (a damage set and its bonus, or two sets): one tree, rolls in order.

    The natural stays the first's (the damage's first die, as a plain check's).
    """
    value = a.value + b.value
    return Evaluated(value, a.rolls + b.rolls, OpResult("+", a.tree, b.tree, value), a.natural)


def resolve_attack(
    ruleset: D20Ruleset, attacker: D20Fighter, defender: D20Fighter, dice: DiceSource
) -> tuple[list[Event], int]:
    """One attack (D-03..D-10): the events and the damage dealt (0 on a miss or dodge)."""
    events: list[Event] = []
    roll = check(ruleset.attack, attacker.env(), dice, "attack", attacker.name)
    natural = roll.natural if roll.natural is not None else 0
    ac = defender.ac(ruleset)
    verdict = attack_verdict(ruleset, natural, roll.total, ac)
    hit, reason = verdict >= 2, ATTACK_REASONS[verdict]
    weapon: Weapon = attacker.weapon or unarmed(ruleset)
    critical = is_critical(hit, natural, weapon.crit_range)
    rules = ("D-03", "D-04") + (("D-06",) if reason.startswith("natural") else ())
    rules += ("D-07",) if critical else ()
    events.append(
        AttackEvent(attacker.name, defender.name, roll, ac, hit, reason, critical, rules)
    )
    if not hit:
        return events, 0

    # D-08: save against DD.
    save = check(ruleset.save, defender.env(), dice, "save", defender.name)
    snat = save.natural if save.natural is not None else 0
    dd_check: Check | None = None
    dd_total: int | None = None
    if ruleset.save_natural_failure < snat < ruleset.save_natural_success:  # the DD counts
        if ruleset.dd_mode == "roll":
            dd_check = check(ruleset.dd, attacker.env(), dice, "dd", attacker.name)
            dd_total = dd_check.total
        else:
            who = attacker if ruleset.dd_level_of == "attacker" else defender
            dd_total = ruleset.dd_from_level(who.level)
    sverdict = save_verdict(ruleset, snat, save.total, 0 if dd_total is None else dd_total)
    outcome, sreason = SAVE_OUTCOMES[save_outcome(ruleset, sverdict)], SAVE_REASONS[sverdict]
    events.append(
        SaveEvent(defender.name, attacker.name, save, dd_check, dd_total, outcome, sreason,
                  ("D-08",))
    )
    if outcome == "dodged":
        return events, 0

    # D-07 / D-09: damage sets, VIG, magic, VOL.  A critical's extra sets are rolled as such
    # (the dice are the same; a source that asks for them can say so, e.g. --manual).
    benv = attacker.env()
    bonus = ruleset.damage_bonus.evaluate(benv)  # no dice: its tree names the bonus (STR +1)
    sets_n = weapon.crit_factor if critical else 1
    sets: list[Check] = []
    for i in range(sets_n):
        source = dice if i == 0 else NotedDice(dice, Msg("dice.note.critical_set", n=i + 1, of=sets_n))
        ev = weapon.damage.evaluate(benv, source, "damage", attacker.name)
        sets.append(Check("damage", attacker.name, f"{weapon.damage.text} + {ruleset.damage_bonus.text}",
                          ev.rolls, ev.value + bonus.value, plus(ev, bonus)))
    vig = check(ruleset.vig, defender.env(), dice, "vig", defender.name)
    physical = resisted(sum(s.total for s in sets), vig.total)  # the event's parts
    magic: Check | None = None
    vol: Check | None = None
    magic_damage = 0
    if weapon.magic is not None:
        mbonus = ruleset.magic_bonus.evaluate(benv)
        msets = weapon.crit_factor if (critical and ruleset.crit_multiplies_magic) else 1
        magic_ev: Evaluated | None = None
        for i in range(msets):
            source = dice if i == 0 else NotedDice(dice, Msg("dice.note.critical_set", n=i + 1, of=msets))
            one = plus(weapon.magic.evaluate(benv, source, "magic", attacker.name), mbonus)
            magic_ev = one if magic_ev is None else plus(magic_ev, one)
        assert magic_ev is not None
        magic = Check("magic", attacker.name, f"{weapon.magic.text} + {ruleset.magic_bonus.text}",
                      magic_ev.rolls, magic_ev.value, magic_ev)
        vol = check(ruleset.vol, defender.env(), dice, "vol", defender.name)
        magic_damage = resisted(magic.total, vol.total)
    halved = outcome == "halved"
    before, total = damage_dealt(ruleset, sum(s.total for s in sets), vig.total,
                                 None if magic is None else magic.total,
                                 None if vol is None else vol.total, halved)
    minimum = total != before  # D-10 raised it
    rules = ("D-09",) + (("D-07",) if critical else ()) + (("D-08",) if halved else ())
    rules += ("D-10",) if minimum else ()
    if attacker.weapon is None:
        rules += ("D-11",)
    events.append(
        DamageEvent(attacker.name, defender.name, weapon.name, tuple(sets), vig, physical, magic,
                    vol, magic_damage, halved, minimum, total, rules)
    )
    return events, total


def play_round(
    ruleset: D20Ruleset,
    a: D20Fighter,
    b: D20Fighter,
    state: D20State,
    dice: DiceSource,
    choices: Any = None,
    *,
    limit: int | None = None,
) -> tuple[RoundResult, D20State]:
    """One round (D-02 .. D-12): initiative (unless rolled by `init`), one attack.

    A fight still going after the ruleset's ``round_cap`` is a draw; with no cap, ``limit`` (a
    whole fight's: the simulators' safety limit) stops it after that round, not over by the
    rules: a ``fight-over`` event of reason ``safety-limit``, no winner, not a draw.
    """
    if state.over:
        raise EncounterError(over_message(state.winner))
    rec = RecordingDice(dice)
    events: list[Event] = []
    number = state.round + 1
    if state.next_attacker is not None:
        attacker_name = state.next_attacker
    else:
        init = roll_initiative(ruleset, a, b, rec)
        events.append(init)
        attacker_name = init.leader
    attacker, defender = _pair(a, b, attacker_name)
    attack_events, damage = resolve_attack(ruleset, attacker, defender, rec)
    events += attack_events
    new = replace(state, round=number, next_attacker=None)
    if damage:
        before = state.fighter(defender.name).hp
        after = before - damage
        if not after >= -INT_LIMIT:  # cannot happen with checked sheets: never save such a state
            raise RuleError(Msg("formula.value_beyond", value=after, limit=INT_LIMIT))
        new = _set_hp(new, defender.name, after)
        events.append(HitPointsEvent(defender.name, before, after, after <= 0, ("D-12",)))
        if after <= 0:
            new = replace(new, over=True, winner=attacker.name)
            events.append(FightOverEvent(attacker.name, defender.name, "defeated", ("D-12",)))
    if not new.over and ruleset.round_cap is not None and number >= ruleset.round_cap:
        new = replace(new, over=True, winner=None, capped=True)
        events.append(FightOverEvent(None, None, "round-cap", ()))
    elif not new.over and ruleset.round_cap is None and limit is not None and number >= limit:
        new = replace(new, over=True, winner=None)
        events.append(FightOverEvent(None, None, SAFETY_LIMIT, ()))
    result = RoundResult(number, tuple(events), rec.take(), new.fighters, new.over, new.winner,
                         capped=new.capped)
    return result, new


def apply_wound(
    ruleset: D20Ruleset,
    a: D20Fighter,
    b: D20Fighter,
    state: D20State,
    fighter: str,
    amount: int | None = None,
    band: str | None = None,
) -> tuple[WoundResult, D20State]:
    """A judgement by hand (S-16 / D-12): damage off HP; a negative amount heals (up to max)."""
    if band is not None:
        raise RuleError(Msg("engine.d20.no_bands"))
    if amount is None or amount == 0:
        raise RuleError(Msg("engine.d20.non_zero"))
    current = state.fighter(fighter)
    if state.over and amount > 0:
        raise EncounterError(Msg("engine.over"))
    after = min(current.max_hp, current.hp - amount)
    new = _set_hp(state, fighter, after)
    events: list[Event] = [HitPointsEvent(fighter, current.hp, after, after <= 0, ("D-12",))]
    if after <= 0 and not state.over:
        other = b.name if fighter == a.name else a.name
        new = replace(new, over=True, winner=other)
        events.append(FightOverEvent(other, fighter, "defeated", ("D-12",)))
    elif state.over and after > 0 and state.winner is not None and fighter != state.winner:
        # Healing the defeated fighter back above 0 reopens the fight.
        new = replace(new, over=False, winner=None)
    return (
        WoundResult(fighter, amount, None, tuple(events), new.fighters, new.over, new.winner),
        new,
    )


def apply_heal(
    ruleset: D20Ruleset,
    a: D20Fighter,
    b: D20Fighter,
    state: D20State,
    fighter: str,
    amount: int | None = None,
    band: str | None = None,
) -> tuple[WoundResult, D20State]:
    """A heal by hand (S-16 / D-12): ``amount`` HP back, up to the sheet's; the same as
    ``apply_wound`` with ``-amount`` (healing a defeated fighter above 0 reopens the fight)."""
    if band is not None:
        raise RuleError(Msg("engine.d20.no_bands"))
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise RuleError(Msg("engine.d20.bad_heal", amount=amount))
    return apply_wound(ruleset, a, b, state, fighter, -amount)


def fight_play(
    ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter, dice: DiceSource, cap: int | None = None
) -> FightPlay:
    """A whole fight to play round by round (:class:`~sevendag_cli.engine.common.FightPlay`)."""
    check_values(ruleset, a, b)  # the value bound, as the vectorised and exact engines
    if cap is not None:
        ruleset = replace(ruleset, round_cap=cap)
    rec = RecordingDice(dice)
    init, state = start(ruleset, a, b, rec)
    init_rolls = rec.take()
    limit = play_limit(ruleset)  # with no round cap, the safety limit
    return FightPlay(ruleset.name, (a.name, b.name), init, init_rolls, state,
                     lambda s: play_round(ruleset, a, b, s, dice, limit=limit))


def fight(
    ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter, dice: DiceSource, cap: int | None = None
) -> FightResult:
    """A whole fight, round after round, until one is defeated, the round cap (a draw) or, with
    no cap, the safety limit (:data:`~sevendag_cli.limits.MAX_PLAYED_ROUNDS`)."""
    return fight_play(ruleset, a, b, dice, cap).collect()
