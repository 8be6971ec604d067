"""Sevendag resolution: initiative, rounds and their exchanges, wounds, a whole fight.

Pure functions from (ruleset, fighters, state, dice) to (result, new state);
every die comes from the injected :class:`~sevendag_cli.dice.DiceSource`.  The
roll order and the decisions where the rules are silent are in the package's
docstring (:mod:`sevendag_cli.sevendag.engine`).  The rules an exchange applies once its
dice are rolled are written in :mod:`sevendag_cli.sevendag.attack` (``read_attack_dice``,
``landing``) and :mod:`sevendag_cli.sevendag.rules` (``band_index``, ``shifted_index``),
shared with the vectorised simulator; this module rolls, sequences and records.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from msgspec.structs import replace

from sevendag_cli.dice import DiceSource, Roll
from sevendag_cli.engine.common import (
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
from sevendag_cli.errors import EncounterError, Msg, RuleError, UsageError, joined
from sevendag_cli.rules.bounds import check_values
from sevendag_cli.sevendag.attack import (
    AttackVerdict,
    attack_groups,
    is_weapon,
    judge_attack,
    landing,
    metal_effects,
)
from sevendag_cli.sevendag.events import (
    ASSAILLANT,
    DEFENSEUR,
    AllocationEvent,
    CriticalGrantedEvent,
    DropEvent,
    ExchangeEvent,
    HandCommitment,
    HealEvent,
    InitiativeReversedEvent,
    MetalEffect,
    RecoveredEvent,
    WoundEvent,
)
from sevendag_cli.sevendag.planning import (
    ATTACK,
    DEFENCE,
    Choices,
    Plan,
    _check_choices,
    plan_for,
    with_sheet_rules,
)
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset, WoundBand
from sevendag_cli.sevendag.state import (
    ActiveTechnique,
    DroppedWeapon,
    FighterState,
    SevendagState,
    _require,
    initial_state,
)

MAX_INITIATIVE_ATTEMPTS = 1000


# --- small helpers -------------------------------------------------------------


def classify(ruleset: SevendagRuleset, amount: int) -> WoundBand | None:
    """S-07: the band of ``amount`` damage (None for 0 or less)."""
    return ruleset.band_for(amount)


def _roll(dice: DiceSource, sides: int, purpose: str, fighter: str) -> Roll:
    return Roll(purpose, sides, dice.face(sides, purpose, fighter), fighter)


def _over_message(state: SevendagState) -> Msg:
    return over_message(state.winner)


# --- initiative (S-02) ---------------------------------------------------------


def start(
    ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter, dice: DiceSource
) -> tuple[InitiativeEvent, SevendagState]:
    """S-02: speed rolls, a's then b's, again on a tie; the winner is the assaillant."""
    _require(ruleset, a, b)
    attempts: list[tuple[Check, Check]] = []
    for _ in range(MAX_INITIATIVE_ATTEMPTS):
        ca = check(ruleset.speed_roll, a.env(), dice, "initiative", a.name)
        cb = check(ruleset.speed_roll, b.env(), dice, "initiative", b.name)
        attempts.append((ca, cb))
        if ca.total != cb.total:
            leader, other = (a, b) if ca.total > cb.total else (b, a)
            init = InitiativeEvent(tuple(attempts), leader.name, other.name, ("S-02",))
            return init, initial_state(a, b, leader.name)
        if not ca.rolls and not cb.rolls:
            break
    raise RuleError(Msg("engine.sev.speed_ties", formula=ruleset.speed_roll.text))


# --- wounds (S-07, S-19) --------------------------------------------------------


def _add_wound(
    ruleset: SevendagRuleset, fs: FighterState, band: WoundBand
) -> FighterState:
    wounds = (*fs.wounds, band.name)
    out = fs.out
    for b in ruleset.wounds:
        if b.out_after > 0 and wounds.count(b.name) >= b.out_after:
            out = True
    return replace(fs, wounds=wounds, penalty=fs.penalty + band.penalty, out=out)


def _wound_rules(band: WoundBand, fs: FighterState) -> tuple[str, ...]:
    return ("S-07", "S-19") if (band.penalty or fs.out) else ("S-07",)


# --- a round (S-03..S-19) -----------------------------------------------------


class _Rolled(NamedTuple):
    """An exchange's dice and what they say before the totals (:meth:`_Round._roll_exchange`)."""

    attack: tuple[Roll, ...]
    verdict: AttackVerdict
    drops: tuple[DropEvent, ...]
    defence: tuple[Roll, ...]
    critical_defence: bool  # S-14
    shield_hand: int | None  # S-15: the shield's hand on its highest face (1-based)
    att_fs: FighterState  # the attacker after its drops (S-18)


class _Landed(NamedTuple):
    """What an attack does at its margin (:meth:`_Round._land`)."""

    outcome: str
    critical: str | None
    granted: bool  # S-10: a granted critical used
    metals: tuple[MetalEffect, ...]  # S-17
    extra: int
    damage: int
    band: WoundBand | None
    shift: int
    final: WoundBand | None  # the band after the metals' shift
    att_fs: FighterState  # the attacker after using a granted critical


class _Round:
    """The mutable bookkeeping of one round being played."""

    def __init__(
        self,
        ruleset: SevendagRuleset,
        fighters: dict[str, SevendagFighter],
        state: SevendagState,
        plans: dict[str, Plan],
        dice: DiceSource,
    ) -> None:
        self.ruleset = ruleset
        self.fighters = fighters
        self.states: dict[str, FighterState] = {f.name: f for f in state.fighters}
        self.plans = plans
        self.dice = dice
        self.events: list[Event] = []
        self.assaillant = state.assaillant
        self.over = False
        self.winner: str | None = None
        self.new_drops: set[tuple[str, str]] = set()

    def exchange(self, number: int, att_name: str, def_name: str) -> bool:
        """One exchange; returns True when it ends the round by a critical defence (S-14)."""
        att, dfn = self.fighters[att_name], self.fighters[def_name]
        att_plan, def_plan = self.plans[att_name], self.plans[def_name]
        att_hands = [i for i, c in enumerate(att_plan.allocation) if c == ATTACK]
        def_hands = [i for i, c in enumerate(def_plan.allocation) if c == DEFENCE]
        att_fs = self.states[att_name]
        def_fs = self.states[def_name]
        if not att_hands:
            self.events.append(ExchangeEvent(
                number, att_name, def_name, (), tuple(i + 1 for i in def_hands), (), (),
                att.attack, dfn.defence, att_plan.attack_mod, def_plan.defence_mod,
                att_fs.penalty, def_fs.penalty, None, None, None, "no-attack", None, False, (),
                0, 0, None, 0, None, False, None, ("S-04", "S-08"),
                attack_technique=att_plan.technique if att_plan.attack_mod else None,
                defence_technique=def_plan.technique if def_plan.defence_mod else None,
            ))
            return False
        rolled = self._roll_exchange(att_name, def_name, att_hands, def_hands)
        att_fs = rolled.att_fs
        attack_total = (att.attack + sum(r.face for r in rolled.attack) + att_plan.attack_mod
                        - att_fs.penalty)
        defence_total = (dfn.defence + sum(r.face for r in rolled.defence)
                         + def_plan.defence_mod - def_fs.penalty)
        margin = attack_total - defence_total
        rules: list[str] = ["S-08", "S-06", *rolled.verdict.rules]
        if att_plan.attack_mod or def_plan.defence_mod:
            rules.append("S-05")
        if att_fs.penalty or def_fs.penalty:
            rules.append("S-19")
        land = self._land(att, att_hands, rolled, att_fs, margin, rules)
        att_fs = land.att_fs
        if rolled.critical_defence:
            rules.append("S-14")
        at = len(self.events)
        exchange = ExchangeEvent(
            number, att_name, def_name, tuple(i + 1 for i in att_hands),
            tuple(i + 1 for i in def_hands), rolled.attack, rolled.defence,
            att.attack, dfn.defence, att_plan.attack_mod, def_plan.defence_mod,
            att_fs.penalty, def_fs.penalty, attack_total, defence_total, margin, land.outcome,
            land.critical, land.granted, land.metals, land.extra, land.damage,
            land.band.name if land.band else None, land.shift,
            land.final.name if land.final else None, rolled.critical_defence,
            rolled.shield_hand, tuple(dict.fromkeys(rules)),
            attack_technique=att_plan.technique if att_plan.attack_mod else None,
            defence_technique=def_plan.technique if def_plan.defence_mod else None,
        )
        self.events.append(exchange)
        self.events += rolled.drops
        return self._after_exchange(att_name, def_name, att_fs, def_fs, rolled, land, exchange,
                                    at)

    def _roll_exchange(self, att_name: str, def_name: str, att_hands: list[int],
                       def_hands: list[int]) -> _Rolled:
        """The exchange's dice (S-20: attack dice, drop checks, defence dice) and what they
        say before the totals: the verdict (S-10 .. S-13), the drops (S-18), a critical
        defence (S-14) and the shield's highest face (S-15)."""
        rs = self.ruleset
        att, dfn = self.fighters[att_name], self.fighters[def_name]
        att_fs = self.states[att_name]
        attack_rolls = tuple(
            _roll(self.dice, att.hands[i].die, "attack", att_name) for i in att_hands
        )
        verdict = judge_attack(rs, attack_groups(att, att_hands, attack_rolls))
        drops: list[DropEvent] = []
        for g in verdict.fumbled:
            assert g.item is not None
            roll = _roll(self.dice, rs.drop_check_die, "drop", att_name)
            dropped = roll.face > g.item.skill
            hands = tuple(i + 1 for i in g.hands)
            drops.append(DropEvent(
                att_name, g.item.name, hands, roll, g.item.skill, dropped,
                rs.drop_recovery_rounds, ("S-10", "S-18") if dropped else ("S-10",),
                g.item.label,
            ))
            if dropped:
                att_fs = replace(att_fs, dropped=(
                    *att_fs.dropped, DroppedWeapon(g.item.name, hands, rs.drop_recovery_rounds)
                ))
                self.new_drops.add((att_name, g.item.name))
        defence_rolls = tuple(
            _roll(self.dice, dfn.hands[i].die, "defence", def_name) for i in def_hands
        )
        shield_hand: int | None = None
        for i, r in zip(def_hands, defence_rolls, strict=True):
            item = dfn.item_in(i)
            if r.is_max and item is not None and item.kind == "shield":
                shield_hand = i + 1
                break
        return _Rolled(attack_rolls, verdict, tuple(drops), defence_rolls,
                       any(r.is_max for r in defence_rolls), shield_hand, att_fs)

    def _land(self, att: SevendagFighter, att_hands: list[int], rolled: _Rolled,
              att_fs: FighterState, margin: int, rules: list[str]) -> _Landed:
        """S-06, S-07, S-10 (a granted critical), S-15, S-17: what the attack does at this
        margin (``rules`` gets the rules it applies)."""
        rs, verdict = self.ruleset, rolled.verdict
        critical = verdict.critical
        # S-17: the metals a critical by the dice applies, and those a granted critical would.
        crit_metals = metal_effects(rs, verdict.metal_groups)
        weapons = [g for g in attack_groups(att, att_hands, rolled.attack) if is_weapon(g)]
        grant_metals = metal_effects(rs, ((weapons[0], 1),) if weapons else ())
        grant_used, raw, raw_shift, wound = landing(
            True, verdict.failure, rolled.shield_hand is not None, critical is not None,
            att_fs.granted_crit, margin,
            sum(m.extra_damage for m in crit_metals), sum(m.band_shift for m in crit_metals),
            sum(m.extra_damage for m in grant_metals), sum(m.band_shift for m in grant_metals),
        )
        if verdict.failure:
            outcome = "critical-failure" if verdict.fumble else "failed"
            return _Landed(outcome, critical, False, (), 0, 0, None, 0, None, att_fs)
        if rolled.shield_hand is not None:
            rules.append("S-15")
            return _Landed("shield-foiled", critical, False, (), 0, 0, None, 0, None, att_fs)
        metals, granted = crit_metals, False
        if grant_used:
            critical, granted, metals = "critical", True, grant_metals
            att_fs = replace(att_fs, granted_crit=False)
            rules.append("S-10")
        if metals:
            rules.append("S-17")
        extra = sum(m.extra_damage for m in metals)
        if not wound:
            return _Landed("foiled", critical, granted, metals, extra, 0, None, 0, None, att_fs)
        band = rs.band_for(raw)
        assert band is not None
        rules.append("S-07")
        return _Landed("wound", critical, granted, metals, extra, raw, band, raw_shift,
                       rs.shifted(band, raw_shift), att_fs)

    def _after_exchange(self, att_name: str, def_name: str, att_fs: FighterState,
                        def_fs: FighterState, rolled: _Rolled, land: _Landed,
                        exchange: ExchangeEvent, at: int) -> bool:
        """The exchange's consequences: a granted critical (S-10), the wound and its penalty
        (S-07, S-19), a fighter out (S-19), the initiative after a critical defence (S-14)."""
        rs = self.ruleset
        if rolled.verdict.fumble and rs.fumble_grants_crit:
            def_fs = replace(def_fs, granted_crit=True)
            self.events.append(CriticalGrantedEvent(def_name, att_name, ("S-10",)))
        final = land.final
        if final is not None:
            def_fs = _add_wound(rs, def_fs, final)
            self.events.append(WoundEvent(
                def_name, final.name, land.damage, att_name, def_fs.wounds, def_fs.penalty,
                def_fs.out, _wound_rules(final, def_fs),
            ))
        self.states[att_name] = att_fs
        self.states[def_name] = def_fs
        critical_defence = rolled.critical_defence
        if def_fs.out:
            self.over, self.winner = True, att_name
            self.events.append(FightOverEvent(att_name, def_name, "out", ("S-09", "S-19")))
            return critical_defence
        if critical_defence:  # S-14: the exchange says whether the initiative passed or was kept
            kept = self.assaillant == def_name
            self.events[at] = replace(exchange, initiative="kept" if kept else "passes")
            if not kept:
                self.assaillant = def_name
                self.events.append(InitiativeReversedEvent(def_name, att_name, ("S-14",)))
        return critical_defence

    def finish(self) -> None:
        """End-of-round bookkeeping: weapon recovery (S-18), technique count-down (S-05)."""
        for name, fs in list(self.states.items()):
            kept: list[DroppedWeapon] = []
            for d in fs.dropped:
                left = d.rounds_left if (name, d.item) in self.new_drops else d.rounds_left - 1
                if left <= 0:
                    item = self.fighters[name].items.get(d.item)
                    self.events.append(RecoveredEvent(
                        name, d.item, d.hands, ("S-18",), item.label if item else d.item
                    ))
                else:
                    kept.append(replace(d, rounds_left=left))
            plan = self.plans[name]
            technique: ActiveTechnique | None = None
            if plan.technique is not None and plan.rounds_left > 1:
                technique = ActiveTechnique(plan.technique, plan.rounds_left - 1)
            self.states[name] = replace(fs, dropped=tuple(kept), technique=technique)


def play_round(
    ruleset: SevendagRuleset,
    a: SevendagFighter,
    b: SevendagFighter,
    state: SevendagState,
    dice: DiceSource,
    choices: Choices | None = None,
) -> tuple[RoundResult, SevendagState]:
    """One round (S-03..S-19): allocations, exchange 1, exchange 2, bookkeeping.

    What ``choices`` leaves open the sheets decide: the tactic, the assaillant's
    yield rule, each technique rule (``with_sheet_rules``; a ``sheet-rule`` event
    for each choice a rule makes).  Every choice is checked before any die is
    rolled: a refused round changes nothing and consumes no die.
    """
    _require(ruleset, a, b, state)
    if state.over:
        raise EncounterError(_over_message(state))
    choices = choices if choices is not None else Choices()
    names = (a.name, b.name)
    _check_choices(choices, names)
    fighters = {a.name: a, b.name: b}
    # S-03, S-05: what the players left open, the sheets' rules decide (recorded as events)
    choices, sheet_events = with_sheet_rules(fighters, state, choices)
    number = state.round + 1
    yielded = bool(choices.yield_initiative)
    first = state.defenseur if yielded else state.assaillant
    second = state.other(first)

    # S-04: the assaillant of the round declares first; all checked before any roll.
    plans: dict[str, Plan] = {}
    events: list[Event] = list(sheet_events)
    for order, name in enumerate((first, second), start=1):
        f = fighters[name]
        fs = state.fighter(name)
        plan = plan_for(ruleset, f, fs, choices)
        plans[name] = plan
        rules = ["S-04"]
        is_yielder = yielded and name == state.assaillant
        if is_yielder:
            rules.append("S-03")
        if plan.technique is not None:
            rules.append("S-05")
        recovering = fs.recovering()
        if recovering:
            rules.append("S-18")
        hands = tuple(
            HandCommitment(
                i + 1, h.die, h.holds, f.items[h.holds].label if h.holds else None,
                f.items[h.holds].kind if h.holds else "empty", plan.allocation[i],
                i + 1 in recovering,
            )
            for i, h in enumerate(f.hands)
        )
        events.append(AllocationEvent(
            name, ASSAILLANT if order == 1 else DEFENSEUR, order, hands, plan.source,
            plan.technique, plan.started, plan.rounds_left, plan.attack_mod, plan.defence_mod,
            fs.penalty, is_yielder, tuple(rules),
        ))

    rec = RecordingDice(dice)
    rnd = _Round(ruleset, fighters, state, plans, rec)
    for name, plan in plans.items():
        if plan.started and plan.technique is not None:
            rnd.states[name] = replace(
                rnd.states[name], technique=ActiveTechnique(plan.technique, plan.rounds_left)
            )
    rnd.events = events
    ended = rnd.exchange(1, first, second)
    if not rnd.over and not ended:
        rnd.exchange(2, second, first)
    if not rnd.over:
        rnd.finish()
    capped = False
    if not rnd.over and number >= ruleset.round_cap:
        rnd.over, capped = True, True
        rnd.events.append(FightOverEvent(None, None, "round-cap", ("S-19",)))
    new = SevendagState(
        number, rnd.assaillant, (rnd.states[a.name], rnd.states[b.name]), rnd.over, rnd.winner,
        capped,
    )
    result = RoundResult(
        number, tuple(rnd.events), rec.take(), new.fighters, new.over, new.winner,
        elapsed_seconds=number * ruleset.round_seconds, capped=capped,
    )
    return result, new


# --- judgement by hand (S-16) ---------------------------------------------------


def apply_wound(
    ruleset: SevendagRuleset,
    a: SevendagFighter,
    b: SevendagFighter,
    state: SevendagState,
    fighter: str,
    amount: int | None = None,
    band: str | None = None,
) -> tuple[WoundResult, SevendagState]:
    """S-16: a wound given by the game master, from damage (band by S-07) or a named band."""
    _require(ruleset, a, b, state)
    names = (a.name, b.name)
    if fighter not in names:
        raise UsageError(Msg("engine.no_fighter", name=fighter,
                             names=joined(repr(n) for n in names)))
    if (amount is None) == (band is None):
        _band_asked(ruleset, amount, band)  # neither, or both: refused before the state is read
    if state.over:
        raise EncounterError(_over_message(state))
    chosen = _band_asked(ruleset, amount, band)
    fs = _add_wound(ruleset, state.fighter(fighter), chosen)
    events: list[Event] = [WoundEvent(
        fighter, chosen.name, amount, None, fs.wounds, fs.penalty, fs.out,
        ("S-16", *_wound_rules(chosen, fs)),
    )]
    fighters = tuple(fs if f.name == fighter else f for f in state.fighters)
    new = replace(state, fighters=(fighters[0], fighters[1]))
    if fs.out:
        winner = state.other(fighter)
        new = replace(new, over=True, winner=winner)
        events.append(FightOverEvent(winner, fighter, "out", ("S-09", "S-19")))
    result = WoundResult(fighter, amount, chosen.name, tuple(events), new.fighters, new.over,
                         new.winner)
    return result, new


def band_words(ruleset: SevendagRuleset) -> dict[str, Msg]:
    """Each band by the word of its label that sets it apart, in the message's language
    (``light`` / ``légère``): what ``wound FIGHTER BAND`` accepts, never a key alone."""
    from sevendag_cli.terms import distinct_words

    langs = sorted({lang for w in ruleset.wounds for lang in w.label})
    words = {lang: distinct_words(w.label.get(lang) or w.label.get("en") or w.name
                                  for w in ruleset.wounds) for lang in langs}
    return {w.name: Msg.label({lang: words[lang][i] for lang in langs}, w.name)
            for i, w in enumerate(ruleset.wounds)}


def listed_msgs(items: Sequence[object]) -> object:
    """``a, b, c`` with each item rendered in the message's language."""
    out: object = items[0] if items else ""
    for item in items[1:]:
        out = Msg("common.comma", a=out, b=item)
    return out


def _band_asked(
    ruleset: SevendagRuleset, amount: int | None, band: str | None, what: str = "damage"
) -> WoundBand:
    """The band of a judgement: named, or the band of ``amount`` damage (S-07)."""
    bands = listed_msgs(list(band_words(ruleset).values()))
    if amount is not None and band is not None:
        raise RuleError(Msg("engine.sev.amount_and_band"))
    if amount is None and band is None:
        raise RuleError(Msg("engine.sev.amount_or_band", bands=bands))
    if band is not None:
        chosen = ruleset.band_named(band)
        if chosen is None:
            raise RuleError(Msg("engine.sev.no_band", band=band, bands=bands))
        return chosen
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise RuleError(Msg(f"engine.sev.bad_{what}", amount=amount, bands=bands))
    found = classify(ruleset, amount)
    assert found is not None
    return found


def apply_heal(
    ruleset: SevendagRuleset,
    a: SevendagFighter,
    b: SevendagFighter,
    state: SevendagState,
    fighter: str,
    amount: int | None = None,
    band: str | None = None,
) -> tuple[WoundResult, SevendagState]:
    """S-16: the game master heals a wound: the last one received of that band, and its penalty.

    The band is named, or is the band of ``amount`` damage (S-07).  Whether the
    fighter is out is then counted again from the wounds left (S-19): healing
    the wound that took a fighter out brings them back, and if that fighter had
    lost, the fight goes on (as healing a defeated d20 fighter above 0 HP does).
    A fight ended by the round cap stays a draw.  Healing works on a finished
    fight too (the state is the game master's to correct).
    """
    _require(ruleset, a, b, state)
    names = (a.name, b.name)
    if fighter not in names:
        raise UsageError(Msg("engine.no_fighter", name=fighter,
                             names=joined(repr(n) for n in names)))
    chosen = _band_asked(ruleset, amount, band, "heal")
    fs = state.fighter(fighter)
    if chosen.name not in fs.wounds:
        words = band_words(ruleset)
        held: object = (listed_msgs([words.get(w, w) for w in fs.wounds]) if fs.wounds
                        else Msg("engine.sev.no_wounds"))
        raise RuleError(Msg("engine.sev.nothing_to_heal", name=fighter, band=words[chosen.name],
                            held=held))
    last = len(fs.wounds) - 1 - fs.wounds[::-1].index(chosen.name)
    wounds = fs.wounds[:last] + fs.wounds[last + 1:]
    out = any(w.out_after > 0 and wounds.count(w.name) >= w.out_after for w in ruleset.wounds)
    healed = replace(fs, wounds=wounds, penalty=max(0, fs.penalty - chosen.penalty), out=out)
    fighters = tuple(healed if f.name == fighter else f for f in state.fighters)
    new = replace(state, fighters=(fighters[0], fighters[1]))
    reopened = (state.over and not state.capped and state.winner is not None
                and state.winner != fighter and not out)
    if reopened:
        new = replace(new, over=False, winner=None)
    rules = ("S-16", "S-19") if (chosen.penalty or out != fs.out) else ("S-16",)
    event = HealEvent(fighter, chosen.name, wounds, healed.penalty, out, reopened, rules)
    result = WoundResult(fighter, amount, chosen.name, (event,), new.fighters, new.over, new.winner)
    return result, new


# --- a whole fight -------------------------------------------------------------


def fight_play(
    ruleset: SevendagRuleset,
    a: SevendagFighter,
    b: SevendagFighter,
    dice: DiceSource,
    cap: int | None = None,
    choose: Callable[[SevendagState], Choices | None] | None = None,
) -> FightPlay:
    """A whole fight to play round by round (:class:`~sevendag_cli.engine.common.FightPlay`);
    ``choose``: each round's choices from the state before it (default: the sheets')."""
    _require(ruleset, a, b)
    check_values(ruleset, a, b)  # the value bound, as the vectorised and exact engines
    if cap is not None:
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
            raise UsageError(Msg("engine.sev.round_cap", cap=cap))
        ruleset = replace(ruleset, round_cap=cap)
    rec = RecordingDice(dice)
    init, state = start(ruleset, a, b, rec)
    init_rolls = rec.take()
    seconds = ruleset.round_seconds
    return FightPlay(
        ruleset.name, (a.name, b.name), init, init_rolls, state,
        lambda s: play_round(ruleset, a, b, s, dice, choose(s) if choose is not None else None),
        lambda s: {"assaillant": s.assaillant, "elapsed_seconds": s.round * seconds},
    )


def fight(
    ruleset: SevendagRuleset,
    a: SevendagFighter,
    b: SevendagFighter,
    dice: DiceSource,
    cap: int | None = None,
) -> FightResult:
    """Initiative, then rounds with each sheet's tactic and rules (its yield and technique,
    S-03, S-05) until one is out or the cap (a draw)."""
    return fight_play(ruleset, a, b, dice, cap).collect()
