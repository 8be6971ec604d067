"""What the dice of one attack decide (D-04, D-06 .. D-10): **the one place these rules are written**.

Hit or miss (natural hit and miss, the total against AC), the critical range, the save
against the DD (natural success and failure, ``half`` or ``negate``) and the damage
formula (VIG, VOL, halving, the minimum) are plain functions of the values rolled.  They
use only operators and :mod:`sevendag_cli.engine.arith`, so the step engine
(:func:`sevendag_cli.d20.resolution.resolve_attack`) calls them with Python ints, one
attack at a time, and the vectorised simulator (:mod:`sevendag_cli.d20.vector`) with
numpy arrays, one row per fight.  Change a rule here and both follow; the exact solver
(:mod:`sevendag_cli.d20.exact`) sums the same rules over distributions and is tied to
the engine by the agreement tests.  What rolls the dice, and in which order, stays with
each engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, overload

from sevendag_cli.d20.rules import D20Ruleset
from sevendag_cli.engine.arith import at_least

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    BoolArray = npt.NDArray[np.bool_]
    IntArray = npt.NDArray[np.int64]

ATTACK_REASONS = ("natural-miss", "below-ac", "beats-ac", "natural-hit")
"""Why an attack hits or misses, by :func:`attack_verdict`'s code; the codes from 2 hit."""

SAVE_REASONS = ("natural-failure", "below-dd", "beats-dd", "natural-success")
"""How a save went, by :func:`save_verdict`'s code."""

SAVE_OUTCOMES = ("failed", "halved", "dodged")
"""What a save does, by :func:`save_outcome`'s code."""


@overload
def attack_verdict(ruleset: D20Ruleset, natural: int, total: int, ac: int) -> int: ...
@overload
def attack_verdict(ruleset: D20Ruleset, natural: IntArray, total: IntArray, ac: int) -> IntArray: ...
def attack_verdict(ruleset: D20Ruleset, natural: Any, total: Any, ac: int) -> Any:
    """D-04, D-06: an index into :data:`ATTACK_REASONS`; the attack hits from 2.

    A natural hit beats a natural miss (both at once only with odd options); otherwise the
    total must be strictly above the defender's AC.
    """
    ruled = (natural > ruleset.natural_miss) * (1 + (total > ac))  # 0, 1 or 2
    return ruled | 3 * (natural >= ruleset.natural_hit)  # 3 (0b11) whatever ``ruled``


@overload
def is_critical(hit: bool, natural: int, crit_range: int) -> bool: ...
@overload
def is_critical(hit: BoolArray, natural: IntArray, crit_range: int) -> BoolArray: ...
def is_critical(hit: Any, natural: Any, crit_range: int) -> Any:
    """D-07: a hit whose natural is in the weapon's critical range."""
    return hit & (natural >= crit_range)


@overload
def save_verdict(ruleset: D20Ruleset, natural: int, total: int, dd: int) -> int: ...
@overload
def save_verdict(ruleset: D20Ruleset, natural: IntArray, total: IntArray,
                 dd: IntArray | int) -> IntArray: ...
def save_verdict(ruleset: D20Ruleset, natural: Any, total: Any, dd: Any) -> Any:
    """D-08: an index into :data:`SAVE_REASONS` (the DD is not read on a natural)."""
    ruled = (natural > ruleset.save_natural_failure) * (1 + (total > dd))  # 0, 1 or 2
    return ruled | 3 * (natural >= ruleset.save_natural_success)


@overload
def save_outcome(ruleset: D20Ruleset, verdict: int) -> int: ...
@overload
def save_outcome(ruleset: D20Ruleset, verdict: IntArray) -> IntArray: ...
def save_outcome(ruleset: D20Ruleset, verdict: Any) -> Any:
    """D-08: an index into :data:`SAVE_OUTCOMES`: a natural success dodges entirely, beating
    the DD halves the damage (``half``) or dodges it (``negate``), anything else fails."""
    beats = verdict == 2
    if ruleset.save_success == "negate":
        return 2 * ((verdict == 3) | beats)
    return 2 * (verdict == 3) + beats


@overload
def resisted(rolled: int, resistance: int) -> int: ...
@overload
def resisted(rolled: IntArray, resistance: IntArray) -> IntArray: ...
def resisted(rolled: Any, resistance: Any) -> Any:
    """D-09: damage rolled less the defender's resistance (VIG or VOL), at least 0."""
    return at_least(rolled - resistance, 0)


@overload
def damage_dealt(ruleset: D20Ruleset, physical: int, vig: int, magic: int | None,
                 vol: int | None, halved: bool) -> tuple[int, int]: ...
@overload
def damage_dealt(ruleset: D20Ruleset, physical: IntArray, vig: IntArray, magic: IntArray | None,
                 vol: IntArray | None, halved: BoolArray) -> tuple[IntArray, IntArray]: ...
def damage_dealt(ruleset: D20Ruleset, physical: Any, vig: Any, magic: Any, vol: Any,
                 halved: Any) -> Any:
    """D-09, D-08, D-10: the damage of a hit not dodged entirely, before D-10 and dealt.

    ``physical``: every damage set rolled with its bonus (D-07: ``crit_factor`` sets on a
    critical); ``magic``: the magic sets with theirs (None without magic).  Each part less
    its resistance (:func:`resisted`); halved (rounded down) on a save that halves; then at
    least ``min_damage``.
    """
    total = resisted(physical, vig)
    if magic is not None:
        total = total + resisted(magic, vol)
    total = total >> halved  # halved, rounded down (total >= 0)
    return total, at_least(total, ruleset.min_damage)
