"""The jump chain of a d20 pair (the rounds that deal damage), exactly: no numpy.

Shared by the pure-Python odds of :mod:`sevendag_cli.d20.chain` and the numpy pass of
:mod:`sevendag_cli.d20.solve`; the bound on the latter's rounding is here too (its unit
roundoff is numpy's, read only when that bound is asked for).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from sevendag_cli.sim.odds import UNIT_ROUNDOFF


@cache
def ld_roundoff() -> float:
    """Unit roundoff of ``numpy.longdouble``: 2**-64 with the x87 format, a double's elsewhere."""
    import numpy as np

    return max(float(np.finfo(np.longdouble).eps) / 2.0, 2.0**-64)


def ld_gamma(n: float) -> float:
    """Relative error bound of ``n`` chained roundings in ``numpy.longdouble``."""
    nu = n * ld_roundoff()
    return 1.0 if nu >= 0.5 else nu / (1.0 - nu)


class Jumps:
    """The jump chain of one pair: ``ja[d]`` = P(a deals d | the round deals damage), ``jb``
    likewise; ``s`` = P(a round deals no damage); ``pa`` = P(a attacks a round)."""

    def __init__(self, first: Fraction, damage_a: dict[int, Fraction],
                 damage_b: dict[int, Fraction]) -> None:
        self.pa = first
        zero = first * damage_a.get(0, Fraction(0)) + (1 - first) * damage_b.get(0, Fraction(0))
        self.s = zero
        move = 1 - zero
        self.moves = move != 0
        self.ja = {d: first * p / move for d, p in damage_a.items() if d > 0 and p} \
            if self.moves else {}
        self.jb = {d: (1 - first) * p / move for d, p in damage_b.items() if d > 0 and p} \
            if self.moves else {}
        self.top_a = max(self.ja, default=0)
        self.top_b = max(self.jb, default=0)
        self.terms = len(self.ja) + len(self.jb)
        self.qa = damage_a
        self.qb = damage_b

    def error(self, ha: int, hb: int, sums: int = 0) -> float:
        """Relative (and, values being at most 1, absolute) error bound of a pass up to (ha, hb),
        ``sums`` more additions counted; one more rounding to a double."""
        return ld_gamma((ha + hb + 1) * (self.terms + 3) + sums + 4) + 2 * UNIT_ROUNDOFF
