"""A d20 pair's odds with no time dimension: one pass over both fighters' hit points (numpy).

Hit points only go down, and a round deals no damage (a miss, a full dodge) with the
same probability ``s`` in every state: the chain of the rounds that deal damage (the
*jump chain*) is a DAG over ``(ha, hb)``, each jump lowering ``ha + hb``.  The odds of
the fight played to the end are therefore solved by one pass over the anti-diagonals
``ha + hb = k`` (every state of a diagonal at once, one shifted multiply-add per damage
value), the self-loop ``s`` folded in (the jump chain's weights are divided by
``1 - s``).  No round is counted: the round cap is the caller's business (a bound, or
the capped fight of :mod:`sevendag_cli.d20.rounds` where it matters).

* :func:`forward` — from the fight's start: the mass that visits each state, and from
  it P(a wins) and P(b wins) per starting column (who attacks round 1), the winner's
  hit points left, the expected rounds and the damage dealt.  Only the last
  ``max damage + 1`` diagonals are held (memory grows with hit points, not their square).
* :func:`backward` — ``V(ha, hb)`` = P(a wins) from every state up to ``(ha, hb)``
  (the odds from any moment are a look-up), or from one state.

**Rounding.**  The pass runs in ``numpy.longdouble`` (x87 extended precision on x86-64,
unit roundoff ``2**-64``; wherever it is no wider than a double, the bound below uses the
double's).  Every quantity is a sum of non-negative products: each state's value has a
relative error of at most ``gamma(n + 3)`` more than the states it is computed from
(``n`` damage values; one rounding for each weight, each product and each addition),
and a state is at most ``ha + hb`` jumps from the end, so every value and every sum of
them is within ``gamma((ha + hb) (n + 3) + m)`` of the exact one, relatively (Higham,
§3.1), ``m`` counting the final sums.  The floats returned add one rounding to a double.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import msgspec
import numpy as np

from sevendag_cli.d20.jumps import Jumps

LD = np.longdouble

MAX_GRID_CELLS = 4_000_000
"""Most states whose odds :func:`backward` keeps as a grid (a double each: 32 MB at the bound);
beyond it, the odds of one state are solved alone, holding a few diagonals."""


def ld(x: Fraction) -> Any:
    """A fraction to the pass's precision (within one rounding)."""
    hi = float(x)
    return LD(hi) + LD(float(x - Fraction(hi)))


def tails(jumps: dict[int, Fraction], top: int) -> Any:
    """``t[h]`` = P(this jump drops a fighter at h hit points), h = 0 .. top."""
    t = np.zeros(top + 1, dtype=LD)
    if not jumps:
        return t
    running = sum((p for d, p in jumps.items() if d >= top), Fraction(0))
    t[top] = ld(running)
    for h in range(top - 1, 0, -1):
        running += jumps.get(h, Fraction(0))
        t[h] = ld(running)
    return t


class StartOdds(msgspec.Struct, frozen=True):
    """What :func:`forward` gives for a fight from its start, played to the end (no cap)."""

    win_a: tuple[float, ...]  # per column: P(a wins), within ``error``
    win_b: tuple[float, ...]
    hp_a: tuple[float, ...]  # P(a wins with h hit points left), h = 0 .. ha0 (all columns)
    hp_b: tuple[float, ...]
    rounds_mean: float  # E[rounds], within ``error`` relatively
    dealt: tuple[float, float]  # expected damage dealt by a, by b (the killing blow in full)
    error: float  # absolute bound on each probability's error (and relative, the rest)


class _Ring:
    """The last ``t`` diagonals of a pass, by a's hit points (``ra``) and by b's (``rb``), each
    written twice so that any ``t`` consecutive diagonals are one slice (a view)."""

    def __init__(self, t: int, nc: int, ha0: int, hb0: int) -> None:
        self.t = t
        self.ra = np.zeros((nc, 2 * t, ha0 + 1), dtype=LD)
        self.rb = np.zeros((nc, 2 * t, hb0 + 1), dtype=LD)

    def window(self, first: int) -> tuple[Any, Any, int]:
        """Rows of diagonals ``first .. first + t - 1``: (by ha, by hb, their first row)."""
        r = first % self.t
        return self.ra, self.rb, r

    def put(self, k: int, lo: int, hi: int, values: Any) -> None:
        """Diagonal ``k``'s states ha = lo .. hi (values (nc, n)); the rest of its rows 0."""
        r = k % self.t
        for row in (r, r + self.t):
            self.ra[:, row, :] = 0
            self.ra[:, row, lo:hi + 1] = values
            self.rb[:, row, :] = 0
            self.rb[:, row, k - hi:k - lo + 1] = values[:, ::-1]


def _weights(j: Jumps) -> tuple[Any, Any]:
    """Dense jump weights, index d - 1 for d = 1 .. top (a's, b's)."""
    wa = np.zeros(j.top_a, dtype=LD)
    wb = np.zeros(j.top_b, dtype=LD)
    for d, p in j.ja.items():
        wa[d - 1] = ld(p)
    for d, p in j.jb.items():
        wb[d - 1] = ld(p)
    return wa, wb


def _inflow(ring: _Ring, wa: Any, wb: Any, first: int, k: int, lo: int, hi: int,
            nc: int) -> Any:
    """Sum over the window's diagonals of the weighted values that reach (or are reached from)
    the states ha = lo .. hi of diagonal k: a's jumps keep ha, b's keep hb.  ``wa`` and ``wb``
    weigh the rows from ``first`` on (as many rows as weights: a's and b's own reach)."""
    ra, rb, r = ring.window(first)
    na, nb = len(wa), len(wb)
    out = np.zeros((nc, hi - lo + 1), dtype=LD)
    for c in range(nc):
        if na:
            out[c] += np.dot(wa, ra[c, r:r + na, lo:hi + 1])
        if nb:
            out[c] += np.dot(wb, rb[c, r:r + nb, k - hi:k - lo + 1])[::-1]
    return out


def forward(j: Jumps, ha0: int, hb0: int, columns: list[tuple[int | None, Fraction]]) -> StartOdds:
    """The fight from (ha0, hb0), one column per start (who attacks round 1: 0, 1 or None for
    D-02, with its weight): every state's visits by descending diagonal."""
    nc = len(columns)
    t = max(j.top_a, j.top_b, 1)
    tail_a = tails(j.ja, hb0)  # indexed by b's hit points
    tail_b = tails(j.jb, ha0)  # indexed by a's hit points
    wa, wb = _weights(j)  # forward: the diagonal k + d is row d - 1 of the window
    hp_a = np.zeros(ha0 + 1, dtype=LD)
    hp_b = np.zeros(hb0 + 1, dtype=LD)
    # Round 1: its attacker fixed per column (or D-02's), then the jump chain.
    init: dict[int, Any] = {}

    def at(k: int) -> Any:
        if k not in init:
            init[k] = np.zeros((nc, ha0 + 1), dtype=LD)
        return init[k]

    first_a = np.zeros(nc, dtype=LD)  # P(a attacks round 1), per column
    win_a = np.zeros(nc, dtype=LD)  # won in round 1, then from each state
    win_b = np.zeros(nc, dtype=LD)
    for c, (who, weight) in enumerate(columns):
        pa = j.pa if who is None else Fraction(1 if who == 0 else 0)
        first_a[c] = ld(weight * pa)
        for d, q in j.qa.items():
            m = weight * pa * q
            if not m:
                continue
            if d >= hb0:
                win_a[c] += ld(m)
                hp_a[ha0] += ld(m)
            else:
                at(ha0 + hb0 - d)[c, ha0] += ld(m)
        for d, q in j.qb.items():
            m = weight * (1 - pa) * q
            if not m:
                continue
            if d >= ha0:
                win_b[c] += ld(m)
                hp_b[hb0] += ld(m)
            else:
                at(ha0 + hb0 - d)[c, ha0 - d] += ld(m)
    visits = LD(0)
    ring = _Ring(t, nc, ha0, hb0)
    for k in range(ha0 + hb0, 1, -1):
        lo, hi = max(1, k - hb0), min(ha0, k - 1)
        acc = _inflow(ring, wa, wb, k + 1, k, lo, hi, nc)
        start = init.pop(k, None)
        if start is not None:
            acc += start[:, lo:hi + 1]
        ring.put(k, lo, hi, acc)
        # Ends from these states: a drops b (b at hb = k - ha), b drops a.
        ea = acc * tail_a[k - hi:k - lo + 1][::-1]  # hb = k - lo .. k - hi, listed by ha
        eb = acc * tail_b[lo:hi + 1]
        win_a += ea.sum(axis=1)
        win_b += eb.sum(axis=1)
        hp_a[lo:hi + 1] += ea.sum(axis=0)
        hp_b[k - hi:k - lo + 1] += eb.sum(axis=0)[::-1]
        visits += acc.sum()
    stay = ld(1 / (1 - j.s)) if j.moves else LD(0)
    free_rounds = visits * stay
    rounds = LD(1) + free_rounds
    pa_ld = ld(j.pa)
    mean_a = ld(sum((d * q for d, q in j.qa.items()), Fraction(0)))
    mean_b = ld(sum((d * q for d, q in j.qb.items()), Fraction(0)))
    total_first_a = first_a.sum()
    total = ld(sum((w for _, w in columns), Fraction(0)))
    dealt_a = mean_a * (total_first_a + pa_ld * free_rounds)
    dealt_b = mean_b * ((total - total_first_a) + (1 - pa_ld) * free_rounds)
    # The final sums: within a diagonal (at most ha0 + 1 terms), then over the diagonals.
    err = j.error(ha0, hb0, sums=2 * (ha0 + hb0) + 8)
    return StartOdds(tuple(float(x) for x in win_a), tuple(float(x) for x in win_b),
                     tuple(float(x) for x in hp_a), tuple(float(x) for x in hp_b),
                     float(rounds), (float(dealt_a), float(dealt_b)), err)


class Values:
    """``V(ha, hb)`` = P(a wins from (ha, hb), between rounds, no cap), from :func:`backward`:
    every state up to (ha0, hb0) (a grid), or only those of the last diagonals."""

    def __init__(self, ha0: int, hb0: int, grid: Any, top: dict[tuple[int, int], float]) -> None:
        self.ha0, self.hb0 = ha0, hb0
        self.grid = grid
        self.top = top

    def covers(self, ha: int, hb: int) -> bool:
        if self.grid is not None:
            return ha <= self.ha0 and hb <= self.hb0
        return (ha, hb) in self.top

    def __call__(self, ha: int, hb: int) -> float:
        if ha <= 0 or hb <= 0:
            return 1.0 if hb <= 0 else 0.0
        if self.grid is not None:
            return float(self.grid[ha, hb])
        return self.top[ha, hb]


def backward(j: Jumps, ha0: int, hb0: int, grid: bool) -> Values:
    """P(a wins) from every state up to (ha0, hb0) by ascending diagonal: with ``grid``, kept
    for every state (a double each), else only for the states of the last diagonals."""
    t = max(j.top_a, j.top_b, 1)
    tail_a = tails(j.ja, hb0)
    wa, wb = _weights(j)
    out = np.zeros((ha0 + 1, hb0 + 1)) if grid else None
    ring = _Ring(t + 1, 1, ha0, hb0)  # one more: the last t + 1 diagonals are read back below
    for k in range(2, ha0 + hb0 + 1):
        lo, hi = max(1, k - hb0), min(ha0, k - 1)
        # backward: the diagonal k - d is row top - d of the window from k - top
        acc = _inflow(ring, wa[::-1], wb[::-1], k - j.top_a, k, lo, hi, 1) if j.top_a == j.top_b \
            else _inflow(ring, wa[::-1], wb[:0], k - j.top_a, k, lo, hi, 1) \
            + _inflow(ring, wa[:0], wb[::-1], k - j.top_b, k, lo, hi, 1)
        acc[0] += tail_a[k - hi:k - lo + 1][::-1]
        ring.put(k, lo, hi, acc)
        if out is not None:
            rows = np.arange(lo, hi + 1)
            out[rows, k - rows] = acc[0].astype(np.float64)
    top: dict[tuple[int, int], float] = {}
    if out is None:
        # Every state an attack from (ha0, hb0) can reach: at most t below its diagonal.
        for k in range(max(2, ha0 + hb0 - t), ha0 + hb0 + 1):
            ra = ring.ra[0, k % (t + 1)]
            for ha in range(max(1, k - hb0), min(ha0, k - 1) + 1):
                top[ha, k - ha] = float(ra[ha])
    return Values(ha0, hb0, out, top)
