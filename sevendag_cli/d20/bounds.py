"""What a d20 pair's numbers can reach, and whether their fight can end.

The d20 side of :mod:`sevendag_cli.rules.bounds`: a d20 attack adds the damage
formula and ``damage_bonus`` once per set (``crit_factor`` sets on a critical),
takes ``vig`` off, adds the magic part, and the total comes off hit points.
"""

from __future__ import annotations

from sevendag_cli.d20.rules import D20Fighter, D20Ruleset, unarmed
from sevendag_cli.errors import DataError, Msg
from sevendag_cli.formula import Formula
from sevendag_cli.limits import INT_LIMIT


def _fixed(fighter: D20Fighter) -> dict[str, tuple[int, int]]:
    return {k: (v, v) for k, v in fighter.env().items()}


def _within(lo: int, hi: int) -> bool:
    return lo >= -INT_LIMIT and hi <= INT_LIMIT


def d20_damage_range(ruleset: D20Ruleset, attacker: D20Fighter,
                     defender: D20Fighter) -> tuple[int, int] | None:
    """The lowest and highest damage one attack can deal (after VIG, VOL, halving, the
    minimum); None if some sum on the way passes the value bound."""
    weapon = attacker.weapon or unarmed(ruleset)
    mine, theirs = _fixed(attacker), _fixed(defender)
    crit = weapon.crit_factor

    def part(dice: Formula, bonus: Formula, against: Formula, sets: int) -> tuple[int, int] | None:
        lo, hi = dice.check_bound(mine)
        blo, bhi = bonus.check_bound(mine)
        one = (lo + blo, hi + bhi)
        many = (min(one[0], sets * one[0]), max(one[1], sets * one[1]))
        alo, ahi = against.check_bound(theirs)
        net = (many[0] - ahi, many[1] - alo)
        if not all(_within(*r) for r in (one, many, net)):
            return None
        return max(0, net[0]), max(0, net[1])

    physical = part(weapon.damage, ruleset.damage_bonus, ruleset.vig, crit)
    if physical is None:
        return None
    lo, hi = physical
    if weapon.magic is not None:
        magic = part(weapon.magic, ruleset.magic_bonus, ruleset.vol,
                     crit if ruleset.crit_multiplies_magic else 1)
        if magic is None:
            return None
        lo, hi = lo + magic[0], hi + magic[1]
    lo, hi = max(lo // 2, ruleset.min_damage), max(hi, ruleset.min_damage)
    if not _within(lo, hi + defender.hp):  # hit points and damage dealt stay in bounds
        return None
    return lo, hi


def _may_not_dodge(ruleset: D20Ruleset, attacker: D20Fighter, defender: D20Fighter,
                   damage_hi: int) -> bool:
    """Some save may fail, or halve damage that stays above 0 (D-08).

    A hit is always possible: an attack starts with a d20, whose natural 20 reaches
    ``natural_hit`` (at most 20).  The save's natural ranges over 1..20.
    """
    success, failure = ruleset.save_natural_success, ruleset.save_natural_failure
    if success <= 1:
        return False  # every natural dodges
    if failure >= 1:
        return True  # a natural 1 fails
    save_lo = ruleset.save.check_bound(_fixed(defender))[0]
    if ruleset.dd_mode == "roll":
        dd_hi = ruleset.dd.check_bound(_fixed(attacker))[1]
    else:
        who = attacker if ruleset.dd_level_of == "attacker" else defender
        dd_hi = ruleset.dd_from_level(who.level)
    if save_lo <= dd_hi:
        return True  # the save may lose to the DD: full damage
    # The save always beats the DD: dodged ("negate") or halved.
    return ruleset.save_success == "half" and max(damage_hi // 2, ruleset.min_damage) > 0


MAX_EXACT_DAMAGE = 1_000_000
"""Most damage one attack may deal for ``--exact`` (d20): its chain holds one weight per
point of damage."""


def check_values(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter) -> None:
    """Refuse a pair whose fight could compute a number beyond the value bound (one line)."""
    for attacker, defender in ((a, b), (b, a)):
        if d20_damage_range(ruleset, attacker, defender) is None:
            key = "weapon.damage" if attacker.weapon is not None else None
            raise DataError(attacker.path, key, Msg("rules.damage_beyond", name=attacker.name,
                                                    other=defender.name, limit=INT_LIMIT))


def endless(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter) -> Msg | None:
    """Neither can ever damage the other: every save dodges, or no hit can deal damage."""
    for attacker, defender in ((a, b), (b, a)):
        damage = d20_damage_range(ruleset, attacker, defender)
        if damage is None or (damage[1] > 0 and _may_not_dodge(ruleset, attacker, defender, damage[1])):
            return None
    return Msg("rules.endless_d20", a=a.name, b=b.name)


def check_exact(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter) -> None:
    """Damage the d20 chain can hold (after :func:`check_values`)."""
    from sevendag_cli.errors import UsageError

    for attacker, defender in ((a, b), (b, a)):
        damage = d20_damage_range(ruleset, attacker, defender)
        if damage is not None and damage[1] > MAX_EXACT_DAMAGE:
            raise UsageError(Msg("rules.exact_damage", name=attacker.name, damage=damage[1],
                                 max=MAX_EXACT_DAMAGE))
