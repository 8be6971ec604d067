"""What the attack dice say (S-10..S-13) and the metal effects they trigger (S-17).

The attacking hands are grouped by weapon (a two-handed weapon's dice form one
group, an empty hand its own); the verdict names failure, fumble, critical,
whose metal applies and which weapons get a drop check.  S-10 .. S-13 are
written once, in :func:`read_attack_dice`, on bit masks of lowest and highest
faces: the step engine reads its rolls with it, and the vectorised and exact
engines build their per-state tables from it (:func:`sevendag_cli.sevendag.model.judge`).
It is the one place to change how attack dice are read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, overload

from msgspec import Struct

from sevendag_cli.dice import Roll
from sevendag_cli.engine.arith import pick
from sevendag_cli.sevendag.events import MetalEffect
from sevendag_cli.sevendag.rules import Item, SevendagFighter, SevendagRuleset

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    BoolArray = npt.NDArray[np.bool_]
    IntArray = npt.NDArray[np.int64]


class AttackGroup(Struct, frozen=True, gc=False):
    item: Item | None  # None: an empty hand
    hands: tuple[int, ...]  # 0-based
    rolls: tuple[Roll, ...]


class AttackVerdict(Struct, frozen=True, gc=False):
    failure: bool
    fumble: bool
    critical: str | None
    metal_groups: tuple[tuple[AttackGroup, int], ...]  # (weapon, times) whose metal applies
    fumbled: tuple[AttackGroup, ...]  # weapons that get a drop check
    rules: tuple[str, ...]


def attack_groups(fighter: SevendagFighter, hands: Sequence[int], rolls: Sequence[Roll]) -> list[AttackGroup]:
    groups: list[AttackGroup] = []
    by_item: dict[str, int] = {}
    for i, roll in zip(hands, rolls, strict=True):
        key = fighter.hands[i].holds
        item = fighter.items[key] if key is not None else None
        if key is not None and item is not None and item.hands == 2 and key in by_item:
            g = groups[by_item[key]]
            groups[by_item[key]] = AttackGroup(g.item, (*g.hands, i), (*g.rolls, roll))
            continue
        if key is not None:
            by_item[key] = len(groups)
        groups.append(AttackGroup(item, (i,), (roll,)))
    return groups


def is_weapon(g: AttackGroup) -> bool:
    return g.item is not None and g.item.kind == "weapon"


class DiceReading(Struct, frozen=True, gc=False):
    """What attack dice say (S-10 .. S-13), groups named by their index."""

    failure: bool  # the attack fails whatever the totals
    fumble: bool  # critical failure: drop checks, a granted critical (S-10)
    critical: str | None  # "critical" or "devastating" (S-11, S-12), None
    times: tuple[int, ...]  # per group: how many times its metal applies (weapons only, S-17)
    fumbled: tuple[int, ...]  # the weapon groups that get a drop check, in group order
    rules: tuple[str, ...]


def read_attack_dice(groups: Sequence[tuple[bool, Sequence[int]]], lo: int, hi: int,
                     failure_beats_crit: bool) -> DiceReading:
    """S-10 .. S-13 on an attack's dice: **the one place these rules are written**.

    ``groups``: what the attack groups (a weapon with its attacking hand(s), an empty hand),
    in the engine's order, each as (is a weapon, its hands); ``lo`` / ``hi``: bit masks of
    the hands whose die shows its lowest / highest face.  The step engine reads its rolls
    with it (:func:`judge_attack`), the vectorised and exact engines their per-state tables
    (:func:`sevendag_cli.sevendag.model.judge`).  At least one group, one hand each.
    """
    n = sum(len(hands) for _, hands in groups)
    n_lo = sum(lo >> h & 1 for _, hands in groups for h in hands)
    n_hi = sum(hi >> h & 1 for _, hands in groups for h in hands)
    times = [0] * len(groups)
    fumbled: list[int] = []
    critical: str | None = None
    if len(groups) == 1 and n == 1:  # S-10: one die
        rule = "S-10"
        failure = fumble = n_lo == 1
        if n_hi:
            critical = "critical"
            times[0] = 1
        fumbled = [0]
    elif len(groups) == 1:  # S-11: a two-handed weapon's dice
        rule = "S-11"
        failure = n_lo >= 1
        fumble = n_lo == n
        if n_hi == n:
            critical = "devastating"
            times[0] = 2
        elif n_hi:
            critical = "critical"
            times[0] = 1
        fumbled = [0]
    else:  # S-12: a weapon (or empty hand) in each hand
        rule = "S-12"
        failure = fumble = n_lo >= 1
        if n_hi == n:
            critical = "devastating"
            times = [1] * len(groups)
        elif n_hi:
            critical = "critical"
            maxed = [g for g, (weapon, hands) in enumerate(groups)
                     if weapon and any(hi >> h & 1 for h in hands)]
            if maxed:  # the first weapon that showed its highest face
                times[maxed[0]] = 1
        fumbled = [g for g, (_, hands) in enumerate(groups) if any(lo >> h & 1 for h in hands)]
    rules: tuple[str, ...] = (rule,) if (failure or critical) else ()
    if failure and critical is not None:  # S-13
        rules += ("S-13",)
        if failure_beats_crit:
            critical = None
            times = [0] * len(groups)
        else:
            failure = fumble = False
    if not fumble:
        fumbled = []
    return DiceReading(
        failure, fumble, critical,
        tuple(t if groups[g][0] else 0 for g, t in enumerate(times)),
        tuple(g for g in fumbled if groups[g][0]),
        rules,
    )


def judge_attack(ruleset: SevendagRuleset, groups: Sequence[AttackGroup]) -> AttackVerdict:
    """The step engine's verdict on its rolls: :func:`read_attack_dice` on the groups' faces."""
    lo = hi = 0
    spans: list[tuple[bool, tuple[int, ...]]] = []
    h = 0
    for g in groups:
        hands = tuple(range(h, h + len(g.rolls)))
        for i, r in zip(hands, g.rolls, strict=True):
            lo |= r.is_min << i
            hi |= r.is_max << i
        spans.append((is_weapon(g), hands))
        h += len(g.rolls)
    reading = read_attack_dice(spans, lo, hi, ruleset.failure_beats_crit)
    return AttackVerdict(
        reading.failure,
        reading.fumble,
        reading.critical,
        tuple((groups[g], t) for g, t in enumerate(reading.times) if t),
        tuple(groups[g] for g in reading.fumbled),
        reading.rules,
    )


@overload
def landing(has_attack: bool, failure: bool, shield: bool, critical: bool, granted: bool,
            margin: int, extra: int, shift: int, grant_extra: int,
            grant_shift: int) -> tuple[bool, int, int, bool]: ...
@overload
def landing(has_attack: BoolArray, failure: BoolArray, shield: BoolArray, critical: BoolArray,
            granted: BoolArray | bool, margin: IntArray, extra: IntArray, shift: IntArray,
            grant_extra: IntArray, grant_shift: IntArray) -> tuple[BoolArray | bool, IntArray,
                                                                    IntArray, BoolArray]: ...
def landing(has_attack: Any, failure: Any, shield: Any, critical: Any, granted: Any, margin: Any,
            extra: Any, shift: Any, grant_extra: Any, grant_shift: Any) -> Any:
    """S-06, S-10 (a granted critical), S-15, S-17 after the dice are read: **the one place**.

    ``failure`` / ``critical``: the dice's reading (:func:`read_attack_dice`); ``shield``: a
    defending shield die shows its highest face; ``granted``: the attacker holds a granted
    critical (``fumble_grants_crit``); ``margin``: attack total - defence total; ``extra`` /
    ``shift``: the dice's critical's metal effect, ``grant_extra`` / ``grant_shift``: the
    effect of the first attacking weapon's metal, which a granted critical uses.

    Returns (grant used, raw damage, band shift, wound).  Only operators and
    :func:`~sevendag_cli.engine.arith.pick`: the step engine calls it with Python scalars,
    the vectorised engine with numpy arrays (one row per fight).
    """
    lands = has_attack & (failure ^ True) & (shield ^ True)  # S-15: the shield foils
    # (a plain False for ``granted``: nobody holds one, whatever the other arguments)
    grant_used = False if granted is False else lands & (critical ^ True) & granted & (margin > 0)
    raw = margin + pick(grant_used, grant_extra, extra)
    shift = pick(grant_used, grant_shift, shift)
    return grant_used, raw, shift, lands & (raw > 0)


def metal_effects(ruleset: SevendagRuleset, groups: Sequence[tuple[AttackGroup, int]]) -> tuple[
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
