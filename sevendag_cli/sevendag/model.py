"""The Sevendag fighter model shared by the vectorised and exact engines (no numpy).

A fighter reduced to what a fight with sheet tactics needs (S-04, S-10 .. S-18):

* **units** (:func:`fighter_model`): what an attack groups (S-10..S-12: a weapon
  with its hand(s), each empty hand, a shield), in the engine's group order (first
  hand), each with its metal's effect (S-17) and its skill;
* **allocations**: for every set of dropped weapons (S-18), the hands that attack
  and defend that round, taken from the step-by-step engine's own planning code,
  so that tactics, ``custom`` allocations and their refusals are exactly the
  engine's;
* **verdicts** (:func:`judge`): the engine's reading of the attack dice
  (S-10 .. S-13, written once in :func:`~sevendag_cli.sevendag.attack.read_attack_dice`)
  on faces summarised as lowest / highest bit masks.

Kept free of numpy so that the exact odds from a saved state start fast.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from sevendag_cli.errors import Msg, RuleError, UsageError
from sevendag_cli.sevendag.attack import read_attack_dice
from sevendag_cli.sevendag.engine import (
    ATTACK,
    DEFENCE,
    Choices,
    DroppedWeapon,
    FighterState,
    plan_for,
)
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset


def speed_odds(ruleset: SevendagRuleset, wa: Mapping[int, int | Fraction],
               wb: Mapping[int, int | Fraction]) -> Fraction:
    """S-02: P(a is the assaillant) = P(a > b) / (1 - P(tie)), the speed rolls rolled again on
    a tie, from each fighter's speed-roll distribution (weights of any positive total); a roll
    that always ties is refused (the engine would roll for ever)."""
    ta, tb = sum(wa.values()), sum(wb.values())
    win = sum((pa * pb for x, pa in wa.items() for y, pb in wb.items() if x > y), Fraction(0))
    tie = sum((pa * wb.get(x, 0) for x, pa in wa.items()), Fraction(0))
    total = Fraction(ta) * tb
    if tie == total:
        raise RuleError(Msg("engine.sev.speed_ties", formula=ruleset.speed_roll.text))
    return Fraction(win) / (total - tie)


WEAPON = "weapon"
SHIELD = "shield"
EMPTY = "empty"


# --- per-fighter model (shared with the exact solver) ----------------------------


@dataclass(frozen=True)
class Unit:
    """What an attack groups (S-10..S-12): a weapon with its hand(s), one empty hand, a shield."""

    key: str | None  # the item's key; None for an empty hand
    kind: str  # "weapon" | "shield" | "empty"
    hands: tuple[int, ...]  # 0-based, in hand order
    extra_damage: int  # S-17: the metal's effect once (0 without a known metal)
    band_shift: int
    skill: int  # S-10: drop check succeeds at or below this

    @property
    def is_weapon(self) -> bool:
        return self.kind == WEAPON


@dataclass(frozen=True)
class Allocation:
    """One round's commitments (S-04) for one set of dropped weapons (S-18)."""

    attack: tuple[int, ...]  # hands attacking (0-based, in order)
    defence: tuple[int, ...]  # hands defending
    units: tuple[int, ...]  # units attacking, in the engine's group order


@dataclass(frozen=True)
class FighterModel:
    """A fighter reduced to what the fight needs, for the vectorised and exact engines."""

    name: str
    attack: int
    defence: int
    sides: tuple[int, ...]  # per hand
    shield: tuple[bool, ...]  # per hand: holds a shield (S-15)
    units: tuple[Unit, ...]
    allocations: tuple[Allocation, ...]  # index: bit u set = unit u's weapon is dropped

    @property
    def droppable(self) -> int:
        """Bit mask of the units that can be dropped (weapons)."""
        return sum(1 << u for u, unit in enumerate(self.units) if unit.is_weapon)


def _units(ruleset: SevendagRuleset, fighter: SevendagFighter) -> tuple[Unit, ...]:
    """The engine's groups (``attack_groups``): two-handed weapons merge their hands, in first-hand order."""
    units: list[Unit] = []
    by_item: dict[str, int] = {}
    for i, hand in enumerate(fighter.hands):
        key = hand.holds
        item = fighter.items[key] if key is not None else None
        if key is not None and item is not None and item.hands == 2 and key in by_item:
            u = by_item[key]
            units[u] = Unit(key, units[u].kind, (*units[u].hands, i), units[u].extra_damage,
                            units[u].band_shift, units[u].skill)
            continue
        if item is None:
            units.append(Unit(None, EMPTY, (i,), 0, 0, 0))
            continue
        by_item[item.name] = len(units)
        extra = shift = 0
        if item.kind == WEAPON and item.metal is not None:
            metal = ruleset.metals.get(item.metal)
            if metal is not None:
                extra, shift = metal.extra_damage, metal.band_shift
        kind = WEAPON if item.kind == WEAPON else SHIELD
        units.append(Unit(key, kind, (i,), extra, shift, item.skill))
    return tuple(units)


def fighter_model(ruleset: SevendagRuleset, fighter: SevendagFighter) -> FighterModel:
    """The fighter's units and its allocation for every set of dropped weapons.

    Allocations come from the engine's round planning with an empty
    :class:`Choices` (the sheet's tactic, S-04; dropped hands turned to
    ``none``, S-18), so a refused sheet allocation raises the engine's
    :class:`RuleError`.
    """
    units = _units(ruleset, fighter)
    n_units = len(units)
    allocations: list[Allocation] = []
    for mask in range(1 << n_units):
        dropped = tuple(
            DroppedWeapon(unit.key, tuple(h + 1 for h in unit.hands), 1)
            for u, unit in enumerate(units)
            if mask >> u & 1 and unit.is_weapon and unit.key is not None
        )
        plan = plan_for(ruleset, fighter, FighterState(fighter.name, dropped=dropped), Choices())
        attack = tuple(i for i, c in enumerate(plan.allocation) if c == ATTACK)
        defence = tuple(i for i, c in enumerate(plan.allocation) if c == DEFENCE)
        attacking = tuple(u for u, unit in enumerate(units) if set(unit.hands) & set(attack))
        allocations.append(Allocation(attack, defence, attacking))
    return FighterModel(
        name=fighter.name,
        attack=fighter.attack,
        defence=fighter.defence,
        sides=tuple(h.die for h in fighter.hands),
        shield=tuple(
            (item := fighter.item_in(i)) is not None and item.kind == SHIELD
            for i in range(len(fighter.hands))
        ),
        units=units,
        allocations=tuple(allocations),
    )


def check_fighters(ruleset: object, a: object, b: object) -> None:
    """Refuse what the step-by-step engine refuses before a fight starts."""
    if not isinstance(ruleset, SevendagRuleset):
        raise UsageError(Msg("sim.sevendag_ruleset"))
    for f in (a, b):
        if not isinstance(f, SevendagFighter):
            raise UsageError(Msg("sim.sevendag_sheet", name=getattr(f, "name", f)))
    assert isinstance(a, SevendagFighter) and isinstance(b, SevendagFighter)
    if a.name == b.name:
        raise UsageError(Msg("rules.same_name", name=a.name))


def check_plain(a: object, b: object) -> None:
    """Refuse a sheet with a yield or technique rule (S-03, S-05): the chain, the exact
    solver and the vectorised simulator assume no yield and no new technique."""
    for f in (a, b):
        if isinstance(f, SevendagFighter) and not f.plays_plain:
            raise UsageError(Msg("sim.sev.not_plain", name=f.name))


# --- attack verdicts (S-10 .. S-13), shared with the exact solver -----------------------


@dataclass(frozen=True)
class Verdict:
    """What the attack dice say, before the defence (S-10 .. S-13, S-17's multiplier)."""

    failure: bool  # the attack fails whatever the totals
    fumble: bool  # critical failure (drop checks, granted critical)
    critical: bool  # a critical hit by the dice (plain or devastating)
    times: tuple[int, ...]  # per unit: how many times its metal applies (weapons only)
    fumbled: int  # bit mask of the weapon units that get a drop check


NO_ATTACK = Verdict(False, False, False, (), 0)


def judge(model: FighterModel, alloc: Allocation, lo: int, hi: int,
          failure_beats_crit: bool) -> Verdict:
    """The engine's reading of attack dice (:func:`~sevendag_cli.sevendag.attack.read_attack_dice`,
    S-10 .. S-13) for one allocation, on faces summarised as bit masks over hands.

    ``lo`` / ``hi``: hands whose die shows its lowest / highest face (bits of
    hands that do not attack are ignored).
    """
    hands = alloc.attack
    if not hands:
        return NO_ATTACK
    units = model.units
    reading = read_attack_dice(
        [(units[u].is_weapon, tuple(h for h in units[u].hands if h in hands)) for u in alloc.units],
        lo, hi, failure_beats_crit,
    )
    times = [0] * len(units)
    for g, t in enumerate(reading.times):
        times[alloc.units[g]] = t
    return Verdict(
        reading.failure, reading.fumble, reading.critical is not None, tuple(times),
        sum(1 << alloc.units[g] for g in reading.fumbled),
    )


def granted_unit(model: FighterModel, alloc: Allocation) -> int | None:
    """S-10 ``fumble_grants_crit``: the unit whose metal a granted critical uses."""
    return next((u for u in alloc.units if model.units[u].is_weapon), None)
