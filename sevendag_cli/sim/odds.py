"""Certified odds: the records the exact solvers return, and their arithmetic (no numpy).

Every exact solver of this package pushes probability mass through a fight's
chain of rounds and reports, for each outcome (a fighter wins, a draw at the round
cap), the mass **resolved** to it: a lower bound of its probability.  What is not
resolved — mass still in play when the solver stopped (the tolerance was met, or
a work limit), mass dropped because it was too small to matter, and a bound on
floating-point rounding — is the **unresolved** mass, so that

    win[0] + win[1] + draw + unresolved == 1

and each outcome's probability lies in ``[low, low + unresolved]``.

Rounding is bounded, not estimated: all the quantities are sums of non-negative
products, for which the classical bound ``|fl(sum) - sum| <= gamma(n) * sum`` with
``gamma(n) = n u / (1 - n u)``, ``u = 2**-53``, holds whatever the order of the sum
(Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §3.1, §4.2).
"""

from __future__ import annotations

import math

import msgspec

from sevendag_cli.errors import Msg, UsageError

UNIT_ROUNDOFF = 2.0**-53
DEFAULT_TOLERANCE = 1e-12
"""Mass left unresolved at most, by default (``fight --tolerance``)."""

OVER = "over"  # the state is a finished fight: nothing to solve
COMPLETE = "complete"  # everything resolved (at the round cap, what is still in play is a draw)
TOLERANCE = "tolerance"  # stopped once the unresolved mass was below the tolerance
WORK = "work"  # stopped at the work limit, with more than the tolerance unresolved


def gamma(n: int) -> float:
    """Relative error bound of a sum of ``n`` rounded non-negative terms (Higham's gamma_n)."""
    nu = n * UNIT_ROUNDOFF
    if nu >= 0.5:
        return 1.0
    return nu / (1.0 - nu)


class Odds(msgspec.Struct, frozen=True):
    """Each outcome's probability from one moment of a fight, as certified lower bounds.

    ``win[i]`` (fighter ``names[i]``) and ``draw`` are masses resolved to that outcome;
    ``unresolved`` is everything else, so each probability lies in
    ``[low, low + unresolved]`` (:attr:`win_bounds`, :attr:`draw_bounds`).
    """

    names: tuple[str, str]
    win: tuple[float, float]
    draw: float
    unresolved: float
    rounds: int  # rounds looked ahead (0 for a finished fight)
    stop: str  # why the solver stopped: OVER, COMPLETE, TOLERANCE or WORK

    @property
    def win_bounds(self) -> tuple[tuple[float, float], tuple[float, float]]:
        u = self.unresolved
        return (self.win[0], min(1.0, self.win[0] + u)), (self.win[1], min(1.0, self.win[1] + u))

    @property
    def draw_bounds(self) -> tuple[float, float]:
        return self.draw, min(1.0, self.draw + self.unresolved)

    @property
    def finished(self) -> bool:
        return self.stop == OVER


def certified(names: tuple[str, str], win_a: float, win_b: float, draw: float, error: float,
              rounds: int, stop: str) -> Odds:
    """Odds from computed masses and a bound on their rounding error (each low lowered by it)."""
    lows = [max(0.0, min(1.0, x - error)) for x in (win_a, win_b, draw)]
    total = math.fsum(lows)
    if total > 1.0:  # only possible through the rounding of the lows themselves
        lows = [x / total for x in lows]
        total = math.fsum(lows)
    return Odds(names, (lows[0], lows[1]), lows[2], max(0.0, 1.0 - total), rounds, stop)


def finished(names: tuple[str, str], winner: int | None) -> Odds:
    """The odds of a fight that is over: 1 and 0, or a draw."""
    win = (1.0 if winner == 0 else 0.0, 1.0 if winner == 1 else 0.0)
    return Odds(names, win, 1.0 if winner is None else 0.0, 0.0, 0, OVER)


def binomial_cdf_upper(n: int, p: float, k: int) -> float:
    """An upper bound of P(Binomial(n, p) <= k), from log-space terms (a little above, never below)."""
    if k < 0:
        return 0.0
    if k >= n or p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    lp, lq = math.log(p), math.log1p(-p)
    total = 0.0
    for j in range(k + 1):
        log_term = math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) + j * lp \
            + (n - j) * lq
        total += math.exp(log_term)
    # lgamma and exp are accurate to a few ulps: a relative margin covers them with room.
    return min(1.0, total * (1.0 + 1e-9) + 1e-300)


def check_cap(cap: int) -> int:
    """A round cap from 1 to ``MAX_ROUND_CAP`` (the same bound as ``--cap`` and the rulesets)."""
    from sevendag_cli.limits import MAX_ROUND_CAP

    if isinstance(cap, bool) or not isinstance(cap, int) or not 1 <= cap <= MAX_ROUND_CAP:
        raise UsageError(Msg("cli.cap", cap=cap, max=MAX_ROUND_CAP))
    return cap


def check_tolerance(tolerance: float) -> float:
    """``--tolerance``: from 0 (resolve everything up to the round cap) to below 1."""
    if isinstance(tolerance, bool) or not isinstance(tolerance, int | float) \
            or math.isnan(tolerance) or not 0.0 <= tolerance < 1.0:
        raise UsageError(Msg("exact.tolerance", value=tolerance))
    return float(tolerance)
