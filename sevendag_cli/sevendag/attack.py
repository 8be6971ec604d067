"""What the attack dice say (S-10..S-13) and the metal effects they trigger (S-17).

The attacking hands are grouped by weapon (a two-handed weapon's dice form one
group, an empty hand its own); the verdict names failure, fumble, critical,
whose metal applies and which weapons get a drop check.  The vectorised engine
(:mod:`sevendag_cli.sevendag.vector`) is checked against these functions.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct

from sevendag_cli.dice import Roll
from sevendag_cli.sevendag.events import MetalEffect
from sevendag_cli.sevendag.rules import Item, SevendagFighter, SevendagRuleset


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


def judge_attack(ruleset: SevendagRuleset, groups: Sequence[AttackGroup]) -> AttackVerdict:
    rolls = [r for g in groups for r in g.rolls]
    n_lo = sum(r.is_min for r in rolls)
    n_hi = sum(r.is_max for r in rolls)
    metal_groups: list[tuple[AttackGroup, int]] = []
    fumbled: list[AttackGroup] = []
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
            weapons = [g for g in maxed if is_weapon(g)]
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
    return AttackVerdict(
        failure,
        fumble,
        critical,
        tuple((g, t) for g, t in metal_groups if is_weapon(g)),
        tuple(g for g in fumbled if is_weapon(g)),
        rules,
    )


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
