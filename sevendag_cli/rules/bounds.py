"""What two fighters' numbers can reach, and whether their fight can end (issue 9).

Both are decided from the formulas' ranges (:func:`sevendag_cli.formula.value_range`)
and the rules, before a die is rolled, so the step-by-step, vectorised and exact
engines refuse the same pairs with the same line.

* :func:`check_values`: every number a fight computes stays within the value bound
  (:data:`sevendag_cli.limits.INT_LIMIT`).  A formula alone is checked when its file
  is read; here are the sums the rules make of them: a d20 attack adds the
  damage formula and ``damage_bonus`` once per set (``crit_factor`` sets on a
  critical), takes ``vig`` off, adds the magic part, and the total comes off hit
  points.  Sevendag's numbers are bounded by the sheets' own ranges.
* :func:`endless`: why a fight can never end (no side can ever damage or take
  out the other), or None.  Decided conservatively: a range only ever widens
  the possible, so a fight is called endless only when it is.
* :func:`widest_dice`: the largest dice group either side rolls, for the
  vectorised engine's batch size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sevendag_cli.errors import DataError, Msg
from sevendag_cli.formula import Formula
from sevendag_cli.limits import INT_LIMIT

if TYPE_CHECKING:
    from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
    from sevendag_cli.rules import Fighter, Ruleset


def _fixed(fighter: D20Fighter) -> dict[str, tuple[int, int]]:
    return {k: (v, v) for k, v in fighter.env().items()}


def _within(lo: int, hi: int) -> bool:
    return lo >= -INT_LIMIT and hi <= INT_LIMIT


def d20_damage_range(ruleset: D20Ruleset, attacker: D20Fighter,
                     defender: D20Fighter) -> tuple[int, int] | None:
    """The lowest and highest damage one attack can deal (after VIG, VOL, halving, the
    minimum); None if some sum on the way passes the value bound."""
    from sevendag_cli.d20.rules import unarmed

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


def check_values(ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
    """Refuse a pair whose fight could compute a number beyond the value bound (one line)."""
    from sevendag_cli.d20.rules import D20Fighter, D20Ruleset

    if not (isinstance(ruleset, D20Ruleset) and isinstance(a, D20Fighter)
            and isinstance(b, D20Fighter)):
        return  # Sevendag: every number comes from bounded sheet values and dice
    for attacker, defender in ((a, b), (b, a)):
        if d20_damage_range(ruleset, attacker, defender) is None:
            key = "weapon.damage" if attacker.weapon is not None else None
            raise DataError(attacker.path, key, Msg("rules.damage_beyond", name=attacker.name,
                                                    other=defender.name, limit=INT_LIMIT))


def _d20_endless(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter) -> Msg | None:
    """Neither can ever damage the other: every save dodges, or no hit can deal damage."""
    for attacker, defender in ((a, b), (b, a)):
        damage = d20_damage_range(ruleset, attacker, defender)
        if damage is None or (damage[1] > 0 and _may_not_dodge(ruleset, attacker, defender, damage[1])):
            return None
    return Msg("rules.endless_d20", a=a.name, b=b.name)


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


def endless(ruleset: Ruleset, a: Fighter, b: Fighter) -> Msg | None:
    """Why the fight of a and b can never end (it would only stop at the round cap), or None."""
    from sevendag_cli.d20.rules import D20Fighter, D20Ruleset

    if isinstance(ruleset, D20Ruleset) and isinstance(a, D20Fighter) and isinstance(b, D20Fighter):
        return _d20_endless(ruleset, a, b)
    from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset

    if (isinstance(ruleset, SevendagRuleset) and isinstance(a, SevendagFighter)
            and isinstance(b, SevendagFighter)):
        if not any(band.out_after for band in ruleset.wounds):
            return Msg("rules.endless_no_out", a=a.name, b=b.name)
        from sevendag_cli.sevendag.planning import ATTACK, allocation_for

        if not any(ATTACK in allocation_for(f, None) for f in (a, b)):
            return Msg("rules.endless_no_attack", a=a.name, b=b.name)
    return None


def check_can_end(ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
    """Refuse (one line, :class:`~sevendag_cli.errors.RuleError`) a pair whose fight can never
    end: ``fight`` in every mode, ``sweep`` and ``matrix`` (every value, every pair, before any
    work) and the simulator itself refuse it with the same line, instead of playing every
    fight to the round cap."""
    from sevendag_cli.errors import RuleError

    never = endless(ruleset, a, b)
    if never is not None:
        raise RuleError(never)


MAX_EXACT_DAMAGE = 1_000_000
"""Most damage one attack may deal for ``--exact`` (d20): its chain holds one weight per
point of damage."""


def check_exact(ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
    """The exact solvers' entry: the value bound, and damage the d20 chain can hold."""
    from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
    from sevendag_cli.errors import UsageError

    check_values(ruleset, a, b)
    if isinstance(ruleset, D20Ruleset) and isinstance(a, D20Fighter) and isinstance(b, D20Fighter):
        for attacker, defender in ((a, b), (b, a)):
            damage = d20_damage_range(ruleset, attacker, defender)
            if damage is not None and damage[1] > MAX_EXACT_DAMAGE:
                raise UsageError(Msg("rules.exact_damage", name=attacker.name, damage=damage[1],
                                     max=MAX_EXACT_DAMAGE))


def widest_dice(ruleset: Ruleset, a: Fighter, b: Fighter) -> int:
    """The most dice in one group of any formula the fight rolls (at least 1)."""
    formulas: list[Formula] = [v for v in (getattr(ruleset, f) for f in ruleset.__struct_fields__)
                               if isinstance(v, Formula)]
    for f in (a, b):
        weapon = getattr(f, "weapon", None)
        if weapon is not None:
            formulas += [x for x in (weapon.damage, weapon.magic) if x is not None]
    return max([1, *(d.count for x in formulas for d in x.dice)])
