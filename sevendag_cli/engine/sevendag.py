"""Sevendag: the step-by-step engine (S-01 .. S-20, C-01, C-02).

Pure functions from (ruleset, fighters, state, dice) to (result, new state);
every die comes from the injected :class:`~sevendag_cli.dice.DiceSource`, every
state and result is a frozen dataclass.

Roll order (C-02, S-20):

* ``start``: the first-named fighter's speed roll, then the second's
  (purpose ``initiative``); on a tie, both again, until they differ.
* each exchange of a round: the attacker's attack dice in hand order
  (purpose ``attack``); on a critical failure, right away, one drop check per
  weapon that failed (purpose ``drop``, on ``drop_check_die``); then the
  defender's defence dice in hand order (purpose ``defence``).  Defence dice
  are rolled even when the attack already failed: they can still end the
  round (S-14).  A fighter with no attack dice does not attack and nobody
  rolls in that exchange.
* exchange 1: the round's first actor (the assaillant, or the défenseur when
  the assaillant yields, S-03) attacks; exchange 2: the other one, unless the
  fight is over or exchange 1 ended the round by a critical defence (S-14).

Hands are numbered from 1 (the order of ``[[hands]]`` in the sheet) in states,
events and messages.

Decisions where the rules are silent (also in the module's report):

* **Drops (S-10, S-18).** One drop check per weapon that failed: a one-handed
  weapon whose die showed 1, a two-handed weapon whose dice both showed 1
  (one check, both hands drop), and with several attacking weapons (S-12)
  each weapon with a die on 1 — an empty hand has nothing to drop.
  A weapon dropped in round N is picked up during the next
  ``drop_recovery_rounds`` rounds: its hand(s) are committed to **nothing**
  then (neither attack nor defend empty-handed — picking the weapon up is
  what the hand does) and it is back at the end of the last of them
  (``RecoveredEvent``).  With ``drop_recovery_rounds = 0`` it is back at the
  end of the round it was dropped in.  The sheet's tactic turns such hands
  to ``none`` silently; an explicit choice asking them to attack or defend is
  refused.
* **Granted critical (S-10, ``fumble_grants_crit``).** The opponent of a
  fighter who fumbles holds one granted critical (they do not stack).  Its
  next attack that *lands* — not a failure, not foiled by a shield, and a
  margin (attack total - defence total, before any metal effect) above 0 —
  and is not already a critical hit by its dice counts as a critical hit with
  the metal of its first attacking weapon (hand order); the grant is then
  used up.  A natural critical does not use it.
* **Several attack dice (S-12).** A weapon in each hand and an empty hand
  attacking beside a weapon follow S-12 (an empty hand has no metal); so does
  any attack with more than one weapon/hand group (3-4 hands).  With a plain
  critical (highest face on some dice, not all) the metal of the first weapon
  that showed its highest face applies; with a devastating one each weapon's
  metal applies once.  A single empty hand attacking follows S-10 (a critical
  hit without metal; a critical failure without drop check).
* **Precedence (S-13).** With ``failure_beats_crit = false`` the critical wins
  entirely (no failure, no drop check).
* **Shield (S-15).** A failed attack keeps its own outcome (``failed`` /
  ``critical-failure``) even if the shield shows its highest face; otherwise
  a shield die on its highest face foils the attack, critical or not.
* **Critical defence (S-14).** The defender of that exchange becomes (or
  stays) the assaillant for the rest of the fight; ``InitiativeReversedEvent``
  is emitted only when the assaillant actually changes.  If the defender is
  out after that exchange the fight is simply over.
* **Techniques (S-05).** Chosen at the start of the round (``Choices``);
  the modifiers apply to the attack and defence totals of this round and the
  next ``duration - 1``.  A fighter under a technique cannot start one.
* **Wounds (S-19).** A wound's penalty counts from the next total computed
  (so a fighter wounded in exchange 1 attacks in exchange 2 with it).
* **Round cap (S-19).** As in the d20 engine, ``play_round`` ends the fight as
  a draw once ``round_cap`` rounds have been played; ``fight(cap=...)`` uses
  its own cap.
* **Fight over mid-round.** Nothing more happens in that round: no second
  exchange, no recovery, no technique count-down.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from sevendag_cli.dice import DiceSource, Roll
from sevendag_cli.engine.common import (
    Check,
    Event,
    FightOverEvent,
    FightResult,
    InitiativeEvent,
    RecordingDice,
    RoundResult,
    WoundResult,
    check,
    over_message,
)
from sevendag_cli.errors import EncounterError, Msg, RuleError, UsageError, joined
from sevendag_cli.rules.sevendag import (
    COMMITMENTS,
    TACTICS,
    Item,
    SevendagFighter,
    SevendagRuleset,
    WoundBand,
)

ATTACK = "attack"
DEFENCE = "defence"
NONE = "none"
ASSAILLANT = "assaillant"
DEFENSEUR = "défenseur"
OUTCOMES = ("no-attack", "foiled", "wound", "failed", "critical-failure", "shield-foiled")
MAX_INITIATIVE_ATTEMPTS = 1000
ENGINE = "sevendag"


# --- state ------------------------------------------------------------------


@dataclass(frozen=True)
class ActiveTechnique:
    """S-05: a technique in effect; ``rounds_left`` = rounds it still applies to (>= 1)."""

    name: str
    rounds_left: int


@dataclass(frozen=True)
class DroppedWeapon:
    """S-18: a dropped weapon; its hands spend ``rounds_left`` more rounds picking it up."""

    item: str
    hands: tuple[int, ...]  # numbered from 1
    rounds_left: int


@dataclass(frozen=True)
class FighterState:
    """One fighter's track: wounds in the order received, penalty, out, technique, drops."""

    name: str
    wounds: tuple[str, ...] = ()
    penalty: int = 0  # S-19: subtracted from both constants
    out: bool = False
    technique: ActiveTechnique | None = None
    dropped: tuple[DroppedWeapon, ...] = ()
    granted_crit: bool = False  # S-10 fumble_grants_crit: holds a critical from a fumble

    def recovering(self) -> frozenset[int]:
        """Hands (numbered from 1) busy picking up a weapon this round (S-18)."""
        return frozenset(h for d in self.dropped for h in d.hands)


@dataclass(frozen=True)
class SevendagState:
    """An encounter between rounds."""

    round: int  # rounds played so far
    assaillant: str  # S-02, reversed by S-14
    fighters: tuple[FighterState, FighterState]  # in the order a, b
    over: bool = False
    winner: str | None = None
    capped: bool = False  # ended as a draw by the round cap

    @property
    def defenseur(self) -> str:
        return self.other(self.assaillant)

    def other(self, name: str) -> str:
        a, b = self.fighters
        return b.name if name == a.name else a.name

    def fighter(self, name: str) -> FighterState:
        for f in self.fighters:
            if f.name == name:
                return f
        names = joined(repr(f.name) for f in self.fighters)
        raise RuleError(Msg("engine.no_fighter", name=name, names=names))


@dataclass(frozen=True)
class Choices:
    """What the players decide for one round (S-03, S-04, S-05).

    ``allocation``: fighter name → one of attack/defence/none per hand (a
    fighter left out uses its sheet's tactic); ``technique``: fighter name →
    technique key of ``ruleset.techniques``.
    """

    yield_initiative: bool = False
    allocation: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    technique: Mapping[str, str] = field(default_factory=dict)


# --- events -----------------------------------------------------------------


@dataclass(frozen=True)
class HandCommitment:
    """One hand's die for the round (S-04)."""

    hand: int  # numbered from 1
    die: int  # sides
    holds: str | None  # item key, None for an empty hand
    label: str | None  # the item's label
    item_kind: str  # "weapon" | "shield" | "empty"
    commitment: str  # "attack" | "defence" | "none"
    recovering: bool  # S-18: picking its weapon up


@dataclass(frozen=True)
class AllocationEvent(Event):
    """S-03/S-04/S-05: one fighter's commitments for the round (assaillant's first)."""

    kind: ClassVar[str] = "allocation"
    fighter: str
    role: str  # this round's role: "assaillant" | "défenseur" (swapped by a yield)
    order: int  # 1 = acts first this round
    hands: tuple[HandCommitment, ...]
    source: str  # "choice", or the sheet tactic used ("weapons-attack", ..., "custom")
    technique: str | None  # technique in effect this round
    technique_started: bool  # started this round (S-05)
    technique_rounds_left: int  # this round included; 0 without technique
    attack_modifier: int  # from the technique
    defence_modifier: int
    penalty: int  # S-19 wound penalty at the start of the round
    yielded: bool  # this fighter is the assaillant and lets the other act first (S-03)
    rules: tuple[str, ...]


@dataclass(frozen=True)
class MetalEffect:
    """S-17: a weapon metal's critical effect as applied (``times`` 2 when doubled)."""

    metal: str
    item: str
    times: int
    extra_damage: int  # already multiplied
    band_shift: int  # already multiplied


@dataclass(frozen=True)
class ExchangeEvent(Event):
    """S-06..S-15, S-17: one attack and its defence."""

    kind: ClassVar[str] = "exchange"
    number: int  # 1 or 2 within the round
    attacker: str
    defender: str
    attack_hands: tuple[int, ...]
    defence_hands: tuple[int, ...]
    attack_rolls: tuple[Roll, ...]
    defence_rolls: tuple[Roll, ...]
    attack_constant: int
    defence_constant: int
    attack_modifier: int  # technique (S-05)
    defence_modifier: int
    attack_penalty: int  # wounds (S-19)
    defence_penalty: int
    attack_total: int | None  # None when there was no attack
    defence_total: int | None
    margin: int | None  # attack total - defence total
    outcome: str  # one of OUTCOMES
    critical: str | None  # None | "critical" | "devastating" (what the attack dice showed)
    granted_critical: bool  # the critical came from a fumble's grant (S-10)
    metals: tuple[MetalEffect, ...]  # metal effects applied to this attack (S-17)
    extra_damage: int
    damage: int  # damage dealt: > 0 only for a wound
    band: str | None  # S-07 band of the damage
    band_shift: int
    final_band: str | None  # after the metal's band shift
    critical_defence: bool  # S-14
    shield_hand: int | None  # S-15: the shield hand whose die showed its highest face
    rules: tuple[str, ...]


@dataclass(frozen=True)
class DropEvent(Event):
    """S-10/S-18: the drop check after a critical failure."""

    kind: ClassVar[str] = "drop"
    fighter: str
    item: str
    hands: tuple[int, ...]
    roll: Roll
    skill: int
    dropped: bool  # face above the skill
    recovery_rounds: int
    rules: tuple[str, ...]
    label: str = ""  # the item's label, for display


@dataclass(frozen=True)
class CriticalGrantedEvent(Event):
    """S-10 ``fumble_grants_crit``: a fumble grants the opponent a critical."""

    kind: ClassVar[str] = "critical-granted"
    fighter: str  # who holds the critical now
    by: str  # who fumbled
    rules: tuple[str, ...]


@dataclass(frozen=True)
class WoundEvent(Event):
    """S-07/S-19 (S-16 when by hand): a wound and its consequences."""

    kind: ClassVar[str] = "wound"
    fighter: str
    band: str
    damage: int | None  # None for a band given by hand
    by: str | None  # the attacker, None for a judgement by hand
    wounds: tuple[str, ...]  # all wounds now
    penalty: int  # lasting penalty now
    out: bool
    rules: tuple[str, ...]


@dataclass(frozen=True)
class InitiativeReversedEvent(Event):
    """S-14: the défenseur of the exchange becomes the assaillant."""

    kind: ClassVar[str] = "initiative-reversed"
    assaillant: str
    defenseur: str
    rules: tuple[str, ...]


@dataclass(frozen=True)
class RecoveredEvent(Event):
    """S-18: a dropped weapon is back in hand."""

    kind: ClassVar[str] = "recovered"
    fighter: str
    item: str
    hands: tuple[int, ...]
    rules: tuple[str, ...]
    label: str = ""  # the item's label, for display


# --- small helpers -------------------------------------------------------------


def classify(ruleset: SevendagRuleset, amount: int) -> WoundBand | None:
    """S-07: the band of ``amount`` damage (None for 0 or less)."""
    return ruleset.band_for(amount)


def fighter_states(state: SevendagState) -> tuple[FighterState, ...]:
    return state.fighters


def initial_state(a: SevendagFighter, b: SevendagFighter, assaillant: str) -> SevendagState:
    return SevendagState(0, assaillant, (FighterState(a.name), FighterState(b.name)))


def _roll(dice: DiceSource, sides: int, purpose: str, fighter: str) -> Roll:
    return Roll(purpose, sides, dice.face(sides, purpose, fighter), fighter)


def _require(
    ruleset: object, a: object, b: object, state: SevendagState | None = None
) -> None:
    if not isinstance(ruleset, SevendagRuleset):
        raise UsageError(Msg("engine.sev.needs_ruleset"))
    for f in (a, b):
        if not isinstance(f, SevendagFighter):
            raise UsageError(Msg("engine.sev.not_sheet", name=getattr(f, "name", f)))
    assert isinstance(a, SevendagFighter) and isinstance(b, SevendagFighter)
    if a.name == b.name:
        raise UsageError(Msg("rules.same_name", name=a.name))
    if state is not None:
        names = tuple(f.name for f in state.fighters)
        if names != (a.name, b.name):
            raise EncounterError(Msg("engine.sev.between", a=names[0], b=names[1], c=a.name, d=b.name))
        if state.assaillant not in names:
            raise EncounterError(Msg("engine.sev.bad_assaillant", name=state.assaillant))


def _hand_label(fighter: SevendagFighter, i: int) -> Msg:
    item = fighter.item_in(i)
    what: object = item.label if item is not None else Msg("engine.sev.empty")
    return Msg("engine.sev.hand", name=fighter.name, n=i + 1, what=what)


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


# --- allocation (S-04, S-18) ---------------------------------------------------


def _tactic_commitment(tactic: str, item: Item | None) -> str:
    if tactic == "full-defence":
        return DEFENCE
    if item is not None and item.kind == "shield":
        return DEFENCE
    if tactic == "all-out":
        return ATTACK
    # weapons-attack
    return ATTACK if item is not None else DEFENCE


def allocation_for(
    fighter: SevendagFighter,
    tactic_or_none: str | None,
    state: SevendagState | FighterState | None = None,
) -> tuple[str, ...]:
    """A fighter's commitments from a tactic (default: its sheet's), per hand.

    ``weapons-attack``: weapon hands attack, shields and empty hands defend;
    ``all-out``: everything but shields attacks; ``full-defence``: all defend;
    ``custom``: the sheet's ``allocation``.  Hands picking up a dropped weapon
    (S-18) are silently turned to ``none``.
    """
    tactic = tactic_or_none or fighter.tactic
    n = len(fighter.hands)
    if tactic == "custom":
        if fighter.allocation is None:
            raise RuleError(Msg("engine.sev.custom_needs_allocation", name=fighter.name))
        base = list(fighter.allocation)
    elif tactic in TACTICS:
        base = [_tactic_commitment(tactic, fighter.item_in(i)) for i in range(n)]
    else:
        raise RuleError(Msg("engine.sev.unknown_tactic", name=fighter.name, tactic=tactic,
                            known=", ".join(TACTICS)))
    fs = state.fighter(fighter.name) if isinstance(state, SevendagState) else state
    if fs is not None:
        for hand in fs.recovering():
            if 1 <= hand <= len(base):
                base[hand - 1] = NONE
    return tuple(base)


def _validate_allocation(
    fighter: SevendagFighter, alloc: Sequence[object], fs: FighterState, what: Msg
) -> tuple[str, ...]:
    """S-04/S-18: refuse an allocation the rules do not allow (one line)."""
    n = len(fighter.hands)
    allowed = ", ".join(COMMITMENTS)
    if isinstance(alloc, str) or not isinstance(alloc, Sequence):
        raise RuleError(Msg("engine.sev.alloc_list", name=fighter.name, what=what, allowed=allowed, n=n))
    if len(alloc) != n:
        raise RuleError(Msg("engine.sev.alloc_count", name=fighter.name, what=what, count=len(alloc),
                            n=n, allowed=allowed))
    out: list[str] = []
    for i, c in enumerate(alloc):
        if not isinstance(c, str) or c not in COMMITMENTS:
            raise RuleError(Msg("engine.sev.not_commitment", hand=_hand_label(fighter, i), value=c,
                                allowed=allowed))
        out.append(c)
    recovering = fs.recovering()
    for i, c in enumerate(out):
        item = fighter.item_in(i)
        if item is not None and item.kind == "shield" and c == ATTACK:
            raise RuleError(Msg("engine.sev.shield_attacks", hand=_hand_label(fighter, i)))
        if i + 1 in recovering and c != NONE:
            raise RuleError(Msg("engine.sev.recovering", hand=_hand_label(fighter, i)))
    for key, item in fighter.items.items():
        if item.hands != 2:
            continue
        held = [i for i, h in enumerate(fighter.hands) if h.holds == key]
        if len({out[i] for i in held}) > 1:
            nums = joined((str(i + 1) for i in held), "and")
            raise RuleError(Msg("engine.sev.two_handed", name=fighter.name, hands=nums, item=item.label))
    return tuple(out)


@dataclass(frozen=True)
class _Plan:
    allocation: tuple[str, ...]
    source: str
    technique: str | None
    started: bool
    rounds_left: int  # this round included
    attack_mod: int
    defence_mod: int


def _plan(
    ruleset: SevendagRuleset, fighter: SevendagFighter, fs: FighterState, choices: Choices
) -> _Plan:
    if fighter.name in choices.allocation:
        alloc = _validate_allocation(
            fighter, choices.allocation[fighter.name], fs, Msg("engine.sev.what.allocation")
        )
        source = "choice"
    else:
        default = allocation_for(fighter, None, fs)
        what = Msg("engine.sev.what.sheet_allocation" if fighter.tactic == "custom"
                   else "engine.sev.what.sheet_tactic")
        alloc = _validate_allocation(fighter, default, fs, what)
        source = fighter.tactic
    wanted = choices.technique.get(fighter.name)
    technique: str | None = None
    started = False
    rounds_left = 0
    if wanted is not None:
        if not isinstance(wanted, str) or wanted not in ruleset.techniques:
            known: object = ", ".join(ruleset.techniques) or Msg("engine.sev.no_techniques")
            raise RuleError(Msg("engine.sev.no_technique", name=fighter.name, wanted=wanted, known=known))
        if fs.technique is not None:
            left = fs.technique.rounds_left
            raise RuleError(Msg("engine.sev.still_under", name=fighter.name,
                                technique=fs.technique.name, left=left))
        technique, started, rounds_left = wanted, True, ruleset.techniques[wanted].duration
    elif fs.technique is not None:
        technique, rounds_left = fs.technique.name, fs.technique.rounds_left
    attack_mod = defence_mod = 0
    if technique is not None:
        t = ruleset.techniques.get(technique)
        if t is None:
            known_now: object = ", ".join(ruleset.techniques) or Msg("engine.sev.none")
            raise EncounterError(Msg("engine.sev.undefined_technique", name=fighter.name,
                                     technique=technique, known=known_now))
        attack_mod, defence_mod = t.attack, t.defence
    return _Plan(alloc, source, technique, started, rounds_left, attack_mod, defence_mod)


# --- attack dice (S-10..S-13) -------------------------------------------------


@dataclass(frozen=True)
class _Group:
    item: Item | None  # None: an empty hand
    hands: tuple[int, ...]  # 0-based
    rolls: tuple[Roll, ...]


@dataclass(frozen=True)
class _Verdict:
    failure: bool
    fumble: bool
    critical: str | None
    metal_groups: tuple[tuple[_Group, int], ...]  # (weapon, times) whose metal applies
    fumbled: tuple[_Group, ...]  # weapons that get a drop check
    rules: tuple[str, ...]


def _groups(fighter: SevendagFighter, hands: Sequence[int], rolls: Sequence[Roll]) -> list[_Group]:
    groups: list[_Group] = []
    by_item: dict[str, int] = {}
    for i, roll in zip(hands, rolls, strict=True):
        key = fighter.hands[i].holds
        item = fighter.items[key] if key is not None else None
        if key is not None and item is not None and item.hands == 2 and key in by_item:
            g = groups[by_item[key]]
            groups[by_item[key]] = _Group(g.item, (*g.hands, i), (*g.rolls, roll))
            continue
        if key is not None:
            by_item[key] = len(groups)
        groups.append(_Group(item, (i,), (roll,)))
    return groups


def _is_weapon(g: _Group) -> bool:
    return g.item is not None and g.item.kind == "weapon"


def _judge(ruleset: SevendagRuleset, groups: Sequence[_Group]) -> _Verdict:
    rolls = [r for g in groups for r in g.rolls]
    n_lo = sum(r.is_min for r in rolls)
    n_hi = sum(r.is_max for r in rolls)
    metal_groups: list[tuple[_Group, int]] = []
    fumbled: list[_Group] = []
    critical: str | None = None
    if len(groups) == 1 and len(rolls) == 1:  # S-10: one die
        rule = "S-10"
        failure = fumble = n_lo == 1
        if n_hi:
            critical = "critical"
            metal_groups = [(groups[0], 1)]
        fumbled = [groups[0]]
    elif len(groups) == 1:  # S-11: a two-handed weapon's dice
        rule = "S-11"
        failure = n_lo >= 1
        fumble = n_lo == len(rolls)
        if n_hi == len(rolls):
            critical = "devastating"
            metal_groups = [(groups[0], 2)]
        elif n_hi:
            critical = "critical"
            metal_groups = [(groups[0], 1)]
        fumbled = [groups[0]]
    else:  # S-12: a weapon (or empty hand) in each hand
        rule = "S-12"
        failure = fumble = n_lo >= 1
        if n_hi == len(rolls):
            critical = "devastating"
            metal_groups = [(g, 1) for g in groups]
        elif n_hi:
            critical = "critical"
            maxed = [g for g in groups if any(r.is_max for r in g.rolls)]
            weapons = [g for g in maxed if _is_weapon(g)]
            metal_groups = [(weapons[0], 1)] if weapons else []
        fumbled = [g for g in groups if any(r.is_min for r in g.rolls)]
    rules: tuple[str, ...] = (rule,) if (failure or critical) else ()
    if failure and critical is not None:  # S-13
        rules += ("S-13",)
        if ruleset.failure_beats_crit:
            critical = None
            metal_groups = []
        else:
            failure = fumble = False
    if not fumble:
        fumbled = []
    return _Verdict(
        failure,
        fumble,
        critical,
        tuple((g, t) for g, t in metal_groups if _is_weapon(g)),
        tuple(g for g in fumbled if _is_weapon(g)),
        rules,
    )


def _metal_effects(ruleset: SevendagRuleset, groups: Sequence[tuple[_Group, int]]) -> tuple[
    MetalEffect, ...
]:
    out: list[MetalEffect] = []
    for g, times in groups:
        if g.item is None or g.item.metal is None:
            continue
        metal = ruleset.metals.get(g.item.metal)
        if metal is None:
            continue
        out.append(
            MetalEffect(metal.name, g.item.name, times, metal.extra_damage * times,
                        metal.band_shift * times)
        )
    return tuple(out)


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


class _Round:
    """The mutable bookkeeping of one round being played."""

    def __init__(
        self,
        ruleset: SevendagRuleset,
        fighters: dict[str, SevendagFighter],
        state: SevendagState,
        plans: dict[str, _Plan],
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
        rs = self.ruleset
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
            ))
            return False

        # Roll order (S-20): attack dice, drop checks, defence dice.
        attack_rolls = tuple(
            _roll(self.dice, att.hands[i].die, "attack", att_name) for i in att_hands
        )
        verdict = _judge(rs, _groups(att, att_hands, attack_rolls))
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

        critical_defence = any(r.is_max for r in defence_rolls)
        shield_hand: int | None = None
        for i, r in zip(def_hands, defence_rolls, strict=True):
            item = dfn.item_in(i)
            if r.is_max and item is not None and item.kind == "shield":
                shield_hand = i + 1
                break

        attack_total = (att.attack + sum(r.face for r in attack_rolls) + att_plan.attack_mod
                        - att_fs.penalty)
        defence_total = (dfn.defence + sum(r.face for r in defence_rolls)
                         + def_plan.defence_mod - def_fs.penalty)
        margin = attack_total - defence_total

        rules: list[str] = ["S-08", "S-06", *verdict.rules]
        if att_plan.attack_mod or def_plan.defence_mod:
            rules.append("S-05")
        if att_fs.penalty or def_fs.penalty:
            rules.append("S-19")
        critical = verdict.critical
        granted = False
        metals: tuple[MetalEffect, ...] = ()
        extra = 0
        damage = 0
        band: WoundBand | None = None
        final: WoundBand | None = None
        shift = 0
        if verdict.failure:
            outcome = "critical-failure" if verdict.fumble else "failed"
        elif shield_hand is not None:
            outcome = "shield-foiled"
            rules.append("S-15")
        else:
            groups = verdict.metal_groups
            if critical is None and att_fs.granted_crit and margin > 0:
                critical, granted = "critical", True
                weapons = [g for g in _groups(att, att_hands, attack_rolls) if _is_weapon(g)]
                groups = ((weapons[0], 1),) if weapons else ()
                att_fs = replace(att_fs, granted_crit=False)
                rules.append("S-10")
            metals = _metal_effects(rs, groups)
            if metals:
                rules.append("S-17")
            extra = sum(m.extra_damage for m in metals)
            raw = margin + extra
            if raw <= 0:
                outcome = "foiled"
            else:
                outcome = "wound"
                damage = raw
                band = rs.band_for(raw)
                assert band is not None
                shift = sum(m.band_shift for m in metals)
                final = rs.shifted(band, shift)
                rules.append("S-07")
        if critical_defence:
            rules.append("S-14")
        self.events.append(ExchangeEvent(
            number, att_name, def_name, tuple(i + 1 for i in att_hands),
            tuple(i + 1 for i in def_hands), attack_rolls, defence_rolls,
            att.attack, dfn.defence, att_plan.attack_mod, def_plan.defence_mod,
            att_fs.penalty, def_fs.penalty, attack_total, defence_total, margin, outcome,
            critical, granted, metals, extra, damage, band.name if band else None, shift,
            final.name if final else None, critical_defence, shield_hand,
            tuple(dict.fromkeys(rules)),
        ))
        self.events += drops
        if verdict.fumble and rs.fumble_grants_crit:
            def_fs = replace(def_fs, granted_crit=True)
            self.events.append(CriticalGrantedEvent(def_name, att_name, ("S-10",)))
        if final is not None:
            def_fs = _add_wound(rs, def_fs, final)
            self.events.append(WoundEvent(
                def_name, final.name, damage, att_name, def_fs.wounds, def_fs.penalty,
                def_fs.out, _wound_rules(final, def_fs),
            ))
        self.states[att_name] = att_fs
        self.states[def_name] = def_fs
        if def_fs.out:
            self.over, self.winner = True, att_name
            self.events.append(FightOverEvent(att_name, def_name, "out", ("S-09", "S-19")))
            return critical_defence
        if critical_defence and self.assaillant != def_name:
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


def _check_choices(choices: Choices, names: tuple[str, str]) -> None:
    valid = joined(repr(n) for n in names)
    for what, mapping in (("allocation", choices.allocation), ("technique", choices.technique)):
        if not isinstance(mapping, Mapping):
            raise RuleError(Msg("engine.sev.choices_mapping", what=what))
        for name in mapping:
            if name not in names:
                raise RuleError(Msg("engine.sev.choice_no_fighter", what=what, name=name, valid=valid))


def check_choices(
    ruleset: SevendagRuleset,
    a: SevendagFighter,
    b: SevendagFighter,
    state: SevendagState,
    choices: Choices,
) -> None:
    """Refuse choices exactly as ``play_round`` would, without rolling a die."""
    _require(ruleset, a, b, state)
    _check_choices(choices, (a.name, b.name))
    for f in (a, b):
        _plan(ruleset, f, state.fighter(f.name), choices)


def play_round(
    ruleset: SevendagRuleset,
    a: SevendagFighter,
    b: SevendagFighter,
    state: SevendagState,
    dice: DiceSource,
    choices: Choices | None = None,
) -> tuple[RoundResult, SevendagState]:
    """One round (S-03..S-19): allocations, exchange 1, exchange 2, bookkeeping.

    Every choice is checked before any die is rolled: a refused round changes
    nothing and consumes no die.
    """
    _require(ruleset, a, b, state)
    if state.over:
        raise EncounterError(_over_message(state))
    choices = choices if choices is not None else Choices()
    names = (a.name, b.name)
    _check_choices(choices, names)
    fighters = {a.name: a, b.name: b}
    number = state.round + 1
    yielded = bool(choices.yield_initiative)
    first = state.defenseur if yielded else state.assaillant
    second = state.other(first)

    # S-04: the assaillant of the round declares first; all checked before any roll.
    plans: dict[str, _Plan] = {}
    events: list[Event] = []
    for order, name in enumerate((first, second), start=1):
        f = fighters[name]
        fs = state.fighter(name)
        plan = _plan(ruleset, f, fs, choices)
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
        raise RuleError(Msg("engine.no_fighter", name=fighter,
                            names=joined(repr(n) for n in names)))
    bands = ", ".join(w.name for w in ruleset.wounds)
    if amount is not None and band is not None:
        raise RuleError(Msg("engine.sev.amount_and_band"))
    if amount is None and band is None:
        raise RuleError(Msg("engine.sev.amount_or_band", bands=bands))
    if state.over:
        raise EncounterError(_over_message(state))
    chosen: WoundBand | None
    if band is not None:
        chosen = ruleset.band_named(band)
        if chosen is None:
            raise RuleError(Msg("engine.sev.no_band", band=band, bands=bands))
    else:
        if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
            raise RuleError(Msg("engine.sev.bad_damage", amount=amount, bands=bands))
        chosen = classify(ruleset, amount)
        assert chosen is not None
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


# --- a whole fight -------------------------------------------------------------


def fight(
    ruleset: SevendagRuleset,
    a: SevendagFighter,
    b: SevendagFighter,
    dice: DiceSource,
    cap: int | None = None,
) -> FightResult:
    """Initiative, then rounds with each sheet's tactic until one is out or the cap (a draw)."""
    _require(ruleset, a, b)
    if cap is not None:
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
            raise UsageError(Msg("engine.sev.round_cap", cap=cap))
        ruleset = replace(ruleset, round_cap=cap)
    rec = RecordingDice(dice)
    init, state = start(ruleset, a, b, rec)
    init_rolls = rec.take()
    rounds: list[RoundResult] = []
    while not state.over:
        result, state = play_round(ruleset, a, b, state, dice)
        rounds.append(result)
    return FightResult(
        ruleset.name, (a.name, b.name), init, init_rolls, tuple(rounds), state.winner,
        state.capped, state.fighters,
        extra={"assaillant": state.assaillant,
               "elapsed_seconds": state.round * ruleset.round_seconds},
    )


# --- encounter data ---------------------------------------------------------------


def state_to_data(state: SevendagState) -> dict[str, Any]:
    """Plain JSON data for the encounter file (round-trips through ``state_from_data``)."""
    return {
        "engine": ENGINE,
        "round": state.round,
        "assaillant": state.assaillant,
        "over": state.over,
        "winner": state.winner,
        "capped": state.capped,
        "fighters": [
            {
                "name": f.name,
                "wounds": list(f.wounds),
                "penalty": f.penalty,
                "out": f.out,
                "technique": None if f.technique is None else {
                    "name": f.technique.name, "rounds_left": f.technique.rounds_left,
                },
                "dropped": [
                    {"item": d.item, "hands": list(d.hands), "rounds_left": d.rounds_left}
                    for d in f.dropped
                ],
                "granted_crit": f.granted_crit,
            }
            for f in state.fighters
        ],
    }


class _Bad(Exception):
    """Damaged state data, with the message saying where and how."""

    def __init__(self, msg: Msg) -> None:
        super().__init__(str(msg))
        self.msg = msg


def _obj(v: object, where: str) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise _Bad(Msg("engine.sev.state.object", where=where, type=type(v).__name__))
    return v


def _get(m: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in m:
        raise _Bad(Msg("engine.sev.state.missing", where=where, key=key))
    return m[key]


def _int(v: object, where: str, lo: int = 0) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _Bad(Msg("engine.sev.state.int", where=where, value=v))
    if v < lo:
        raise _Bad(Msg("engine.sev.state.below", where=where, value=v, lo=lo))
    return v


def _text(v: object, where: str) -> str:
    if not isinstance(v, str) or not v:
        raise _Bad(Msg("engine.sev.state.text", where=where, value=v))
    return v


def _flag(v: object, where: str) -> bool:
    if not isinstance(v, bool):
        raise _Bad(Msg("engine.sev.state.flag", where=where, value=v))
    return v


def _list(v: object, where: str) -> list[Any]:
    if not isinstance(v, list | tuple):
        raise _Bad(Msg("engine.sev.state.list", where=where, type=type(v).__name__))
    return list(v)


def _fighter_from(v: object, where: str) -> FighterState:
    m = _obj(v, where)
    tech_raw = _get(m, "technique", where)
    technique: ActiveTechnique | None = None
    if tech_raw is not None:
        t = _obj(tech_raw, f"{where}.technique")
        technique = ActiveTechnique(
            _text(_get(t, "name", f"{where}.technique"), f"{where}.technique.name"),
            _int(_get(t, "rounds_left", f"{where}.technique"), f"{where}.technique.rounds_left",
                 1),
        )
    dropped: list[DroppedWeapon] = []
    for j, d_raw in enumerate(_list(_get(m, "dropped", where), f"{where}.dropped")):
        w = f"{where}.dropped[{j}]"
        d = _obj(d_raw, w)
        hands = tuple(
            _int(h, f"{w}.hands[{k}]", 1) for k, h in enumerate(_list(_get(d, "hands", w),
                                                                     f"{w}.hands"))
        )
        if not hands:
            raise _Bad(Msg("engine.sev.state.one_hand", where=f"{w}.hands"))
        dropped.append(DroppedWeapon(_text(_get(d, "item", w), f"{w}.item"), hands,
                                     _int(_get(d, "rounds_left", w), f"{w}.rounds_left", 1)))
    wounds = tuple(
        _text(x, f"{where}.wounds[{k}]")
        for k, x in enumerate(_list(_get(m, "wounds", where), f"{where}.wounds"))
    )
    return FighterState(
        name=_text(_get(m, "name", where), f"{where}.name"),
        wounds=wounds,
        penalty=_int(_get(m, "penalty", where), f"{where}.penalty"),
        out=_flag(_get(m, "out", where), f"{where}.out"),
        technique=technique,
        dropped=tuple(dropped),
        granted_crit=_flag(_get(m, "granted_crit", where), f"{where}.granted_crit"),
    )


def state_from_data(data: dict[str, Any]) -> SevendagState:
    """Rebuild a state from ``state_to_data``'s output; damaged data → EncounterError."""
    try:
        m = _obj(data, "state")
        engine = m.get("engine", ENGINE)
        if engine != ENGINE:
            raise _Bad(Msg("engine.sev.state.engine", engine=engine))
        raw = _list(_get(m, "fighters", "state"), "state.fighters")
        if len(raw) != 2:
            raise _Bad(Msg("engine.sev.state.two", n=len(raw)))
        f0 = _fighter_from(raw[0], "state.fighters[0]")
        f1 = _fighter_from(raw[1], "state.fighters[1]")
        names = (f0.name, f1.name)
        if f0.name == f1.name:
            raise _Bad(Msg("engine.sev.state.same_name", name=f0.name))
        assaillant = _text(_get(m, "assaillant", "state"), "state.assaillant")
        if assaillant not in names:
            raise _Bad(Msg("engine.sev.state.neither", where="state.assaillant", value=assaillant,
                           a=names[0], b=names[1]))
        winner_raw = _get(m, "winner", "state")
        winner = None if winner_raw is None else _text(winner_raw, "state.winner")
        if winner is not None and winner not in names:
            raise _Bad(Msg("engine.sev.state.neither", where="state.winner", value=winner,
                           a=names[0], b=names[1]))
        over = _flag(_get(m, "over", "state"), "state.over")
        capped = _flag(m.get("capped", False), "state.capped")
        if winner is not None and not over:
            raise _Bad(Msg("engine.sev.state.winner_not_over"))
        return SevendagState(
            _int(_get(m, "round", "state"), "state.round"), assaillant, (f0, f1), over, winner,
            capped,
        )
    except _Bad as exc:
        raise EncounterError(Msg("engine.sev.state_damaged", detail=exc.msg)) from None
