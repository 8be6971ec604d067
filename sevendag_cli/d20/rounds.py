"""A d20 fight by its rounds, from the chain: how long it lasts, and the fight with a round cap.

A d20 round does not depend on the state of the fight (D-02 .. D-10): every round draws, the
same way, who attacks and the damage dealt.  So a fight is a sequence of independent rounds,
and it splits into two independent parts:

* **which hits land** — the *jump chain* of :mod:`~sevendag_cli.d20.jumps`: a round that
  deals damage is a's with probability ``alpha``, its damage drawn from a's law of damaging
  attacks (b's likewise), the hits independent of each other and of when they come;
* **when** — each round deals damage with probability ``q = 1 - s``, whatever came before:
  ``m`` hits take ``S_m`` rounds, a sum of ``m`` geometric waits (negative binomial).

The hits part is one-dimensional per fighter.  Let ``A_j(x)`` be the chance that a's first
``j`` hits deal ``x`` in all (:class:`HitSums`, convolutions below b's hit points), ``F_j``
the chance they leave b standing and ``g_j`` the chance that the ``j``-th is the one that
drops b.  The fight ends at a's ``j``-th hit after ``i`` of b's exactly when the hits before
left both standing and that hit drops b; the order of the hits is independent of their
damage, so the chance is ``W(j - 1, i) * alpha * g_j * F'_i`` (``W``: the chance that the
first hits are ``j - 1`` of a's and ``i`` of b's, a binomial lattice; ``F'``: b's hits
leaving a standing).  Summing the lattice's anti-diagonals gives the law of the number of
hits ``K`` that end the fight, split by winner (:class:`Lattice`): no time dimension, and
work bounded by the hit points (``K < ha + hb``).

The rounds then follow from ``K`` alone: ``P(T = t) = sum_m L[m] P(S_m = t - 1)`` (round 1's
attacker is set per column: the D-02 draw of round 1 is the sum of the two columns), one
binomial row a round (:func:`timed`), so the **rounds distribution** of the fight played to
the end, and the **capped fight** — a draw when still going after round ``cap`` — are computed
exactly, not bounded: the draw is ``P(T > cap)``.  The winner's hit points left come from a
second pass over the lattice, each end weighted by its chance to come within the cap.

**Rounding.**  Everything runs in ``numpy.longdouble`` and every quantity is a sum of
non-negative products (the draw and the tail too, from the binomial row's partial sums), so
each has a relative error of at most ``gamma(m)`` (:func:`~.jumps.ld_gamma`), ``m`` counting
the roundings along the longest chain of operations (the push's ``error`` states it).  Hits
beyond the point where the fighter's hits leave the other standing with a chance below
:data:`DROP`, and the binomial rows' outermost entries while they sum to less than
:data:`TRIM`, are dropped: dropped mass is never resolved, so it stays in the unresolved mass.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from sevendag_cli.d20.jumps import Jumps, ld_gamma
from sevendag_cli.sim.odds import COMPLETE, TOLERANCE, UNIT_ROUNDOFF, WORK
from sevendag_cli.sim.push import Push

LD = np.longdouble

DROP = 1e-30
"""A fighter's hits are summed until the chance that they leave the other standing is at most
this: what lies beyond is dropped, and stays in the unresolved mass."""
TRIM = 1e-40
"""A binomial row's outermost entries are dropped while they sum to at most this (unresolved)."""
MAX_KEPT = 2_000_000
"""Most entries (hits x hit points, a bound) of one fighter's hit sums kept for the second pass
of the winner's hit points left (32 MB); beyond it they are computed again."""
MAX_ROUNDS_WORK = 400_000_000
"""Most multiply-adds of the rounds' pass (a few seconds): then it stops, the rest unresolved."""
ROUND_WORK = 2_000
"""What a round counts for at least against :data:`MAX_ROUNDS_WORK` (its numpy calls' own
cost): at most 200,000 rounds are followed."""


def ld(x: Fraction) -> Any:
    """A fraction to longdouble (within one rounding)."""
    hi = float(x)
    return LD(hi) + LD(float(x - Fraction(hi)))


class HitSums:
    """One fighter's hits summed, below ``top`` (the other's hit points): ``A_j(x)``.

    ``law``: P(damage d | this fighter's hit), d >= 1 (empty: it never hits).  ``most``: the
    most hits that can leave the other standing (the rest dropped: ``dropped`` is its chance),
    or ``max_hits`` (no more can come within a round cap: none dropped);
    ``survive[j]`` = P(the first j hits deal less than ``top``), j = 0 .. ``most``;
    ``ends[j]`` = P(the j-th hit is the one that reaches ``top``), j = 0 .. ``most + 1``.
    ``steps``: the roundings along a value's longest chain (the rounding bound's count).
    """

    def __init__(self, law: dict[int, Fraction], top: int, drop: float,
                 max_hits: int | None = None) -> None:
        self.top = top
        self.law = law
        self.terms = len(law)
        self.kept: list[tuple[int, Any]] | None = None
        self.dropped = 0.0
        if not law:
            self.most = 0
            self.survive = np.ones(1, dtype=LD)
            self.ends = np.zeros(2, dtype=LD)
            self.steps = 0
            return
        self.dmin, dmax = min(law), max(law)
        self.weights = np.zeros(dmax - self.dmin + 1, dtype=LD)
        for d, p in law.items():
            self.weights[d - self.dmin] = ld(p)
        # reach[h] = P(a hit deals h or more), h = 0 .. top: exactly, then rounded once.
        reach = np.zeros(top + 1, dtype=LD)
        running = sum((p for d, p in law.items() if d >= top), Fraction(0))
        reach[top] = ld(running)
        for h in range(top - 1, -1, -1):
            running += law.get(h, Fraction(0))
            reach[h] = ld(running)
        survive = [LD(1)]
        ends = [LD(0)]
        keep = top * (top // self.dmin + 1) <= MAX_KEPT
        kept: list[tuple[int, Any]] = []
        lo, a = 0, np.ones(1, dtype=LD)  # A_j on [lo, lo + len(a)), all below top
        while True:
            if keep:
                kept.append((lo, a))
            # the next hit reaches top from x with chance reach[top - x]
            ends.append(np.dot(a, reach[top - lo - a.size + 1:top - lo + 1][::-1]))
            if max_hits is not None and len(survive) > max_hits:
                break  # no more hits can come within the rounds asked: survive[most] is kept
            new = np.convolve(a, self.weights)[:max(0, top - lo - self.dmin)]
            lo += self.dmin
            mass = new.sum() if new.size else LD(0)
            if float(mass) <= drop:
                self.dropped = float(mass)
                break
            survive.append(mass)
            a = new
        self.most = len(survive) - 1
        self.survive = np.array(survive, dtype=LD)
        self.ends = np.array(ends, dtype=LD)
        self.kept = kept if keep else None
        self.steps = (self.most + 1) * (self.terms + 2) + top + 4

    def sums(self) -> Iterator[tuple[int, Any]]:
        """``A_j`` for j = 0 .. most, each as (its first x, its values): kept, or again."""
        if not self.law:
            yield 0, np.ones(1, dtype=LD)
            return
        if self.kept is not None:
            yield from self.kept
            return
        lo, a = 0, np.ones(1, dtype=LD)
        for _ in range(self.most + 1):
            yield lo, a
            a = np.convolve(a, self.weights)[:max(0, self.top - lo - self.dmin)]
            lo += self.dmin

    def spread(self, u: Any) -> Any:
        """``sum_j u[j] A_j(x)`` for x = 0 .. top - 1 (the damage this fighter dealt)."""
        out = np.zeros(self.top, dtype=LD)
        for j, (lo, a) in enumerate(self.sums()):
            if j < len(u) and u[j] != 0 and a.size:
                out[lo:lo + a.size] += u[j] * a
        return out


class Lattice:
    """The law of the number of hits ``K`` that end the fight, by winner and by first hit.

    ``win_a[v, k]``: P(the fight ends at its k-th hit, a's, dropping b) when the first hit is
    a's (v = 0) or b's (v = 1); ``win_b`` likewise.  With ``max_hits`` (a round cap of that many
    rounds: no more hits can come in it), the hits stop there, and ``going[v]`` is the chance
    that both still stand after them.  With ``weights`` (per first hit v and per
    k, what an end at the k-th hit counts for), also ``u_a[i]``: the weighted chance that a
    wins after b's i hits, and ``u_b[j]`` that b wins after a's j hits.
    """

    def __init__(self, alpha: Any, beta: Any, ha: HitSums, hb: HitSums,
                 weights: tuple[Any, Any] | None = None, max_hits: int | None = None) -> None:
        top_j, top_i = ha.most, hb.most  # lattice points (j, i): j <= top_j, i <= top_i
        last = top_j + top_i + 1  # the last diagonal's ends come at hit top_j + top_i + 1
        last = last if max_hits is None else min(max_hits, last)
        n = top_j + top_i + 2  # k = 0 .. top_j + top_i + 1
        self.size = n
        self.win_a = np.zeros((2, n), dtype=LD)
        self.win_b = np.zeros((2, n), dtype=LD)
        self.u_a = np.zeros(top_i + 1, dtype=LD)
        self.u_b = np.zeros(top_j + 1, dtype=LD)
        self.going = np.zeros(2, dtype=LD)  # P(both standing after max_hits hits), per first hit
        self.weights = weights
        self.fa, self.ga, self.fb, self.gb = ha.survive, ha.ends, hb.survive, hb.ends
        # The first hit: a's (v = 0) or b's (v = 1), with certainty.
        one = np.ones((1, 1), dtype=LD)
        zero = np.zeros((1, 1), dtype=LD)
        self._ends(1, np.vstack([one, zero]), 1, a_hit=True)
        self._ends(1, np.vstack([zero, one]), 0, a_hit=False)
        # w[v, x]: P(the first d hits are j = lo + x of a's and d - j of b's), first hit v.
        w = np.zeros((2, 2), dtype=LD)
        w[0, 1] = 1  # d = 1: (1, 0) for v = 0, (0, 1) for v = 1
        w[1, 0] = 1
        lo, hi = 0, 1
        lo, hi, w = self._clip(1, lo, hi, w, top_j, top_i)
        for d in range(1, last):  # the ends at hit k = d + 1 come from diagonal d
            if hi < lo:
                break
            k = d + 1
            # ends by a's hit: from (j - 1, i), j - 1 in [lo, hi]
            self._ends(k, alpha * w, lo + 1, a_hit=True)
            # ends by b's hit: from (j, i - 1)
            self._ends(k, beta * w, lo, a_hit=False)
            # the next diagonal: j in [lo, hi + 1]
            nw = np.zeros((2, hi - lo + 2), dtype=LD)
            nw[:, 1:] = alpha * w
            nw[:, :-1] += beta * w
            lo, hi, w = self._clip(k, lo, hi + 1, nw, top_j, top_i)
        if max_hits is not None and max_hits <= top_j + top_i and hi >= lo:
            # w is diagonal max_hits: the paths with both still standing go on past it
            d = max_hits
            self.going = (w * (_take(self.fa, lo, hi) * _take(self.fb, d - hi, d - lo)[::-1])
                          ).sum(axis=1)
    @staticmethod
    def _clip(d: int, lo: int, hi: int, w: Any, top_j: int, top_i: int) -> tuple[int, int, Any]:
        """Diagonal d's points within j <= top_j and i = d - j <= top_i."""
        new_lo, new_hi = max(lo, d - top_i), min(hi, top_j)
        return new_lo, new_hi, w[:, new_lo - lo:new_hi - lo + 1]

    def _ends(self, k: int, weight: Any, j0: int, *, a_hit: bool) -> None:
        """The ends at the k-th hit: ``weight[v, x]`` the chance of the path up to it times its
        last step's; the path's point x has j = j0 + x of a's hits after the last one."""
        m = weight.shape[1]
        if m == 0:
            return
        j_lo, j_hi = j0, j0 + m - 1
        i_hi, i_lo = k - j_lo, k - j_hi
        if a_hit:  # a's j-th hit drops b, b's i hits left a standing
            g = weight * _take(self.ga, j_lo, j_hi)
            e = g * _take(self.fb, i_lo, i_hi)[::-1]
            self.win_a[:, k] += e.sum(axis=1)
            if self.weights is not None:  # b's i hits' damage is spread by their sums' law
                c = self.weights[0][k] * g[0] + self.weights[1][k] * g[1]
                self.u_a[i_lo:i_hi + 1] += _fit(c[::-1], i_lo, len(self.u_a))
        else:  # b's i-th hit drops a, a's j hits left b standing
            g = weight * _take(self.gb, i_lo, i_hi)[::-1]
            e = g * _take(self.fa, j_lo, j_hi)
            self.win_b[:, k] += e.sum(axis=1)
            if self.weights is not None:
                c = self.weights[0][k] * g[0] + self.weights[1][k] * g[1]
                self.u_b[j_lo:j_hi + 1] += _fit(c, j_lo, len(self.u_b))


def _take(x: Any, lo: int, hi: int) -> Any:
    """``x[lo .. hi]``, 0 outside x."""
    out = np.zeros(hi - lo + 1, dtype=LD)
    a, b = max(lo, 0), min(hi, len(x) - 1)
    if b >= a:
        out[a - lo:b - lo + 1] = x[a:b + 1]
    return out


def _fit(c: Any, lo: int, size: int) -> Any:
    """``c`` placed from ``lo``, cut to ``size`` (what lies beyond is 0: survivals past ``most``)."""
    return c[:max(0, size - lo)]


class Timed:
    """The fight from (ha, hb) by rounds — what a push gives, computed from the law of ``K``.

    ``push``: the masses per round and column (:class:`~sevendag_cli.sim.push.Push`: won, in
    play, the draw at the cap or the tail once stopped; its ``error`` the rounding bound);
    ``hp_a[h]``/``hp_b[h]``: P(a, b wins with h hit points left) within the rounds followed,
    and ``dealt``: the expected damage each deals in them (``hp=True``); ``moments``: per
    column, E[T] and Var[T] of the fight played to the end (with no cap only; empty else);
    ``dropped``: what the hit sums dropped.
    """

    def __init__(self, push: Push, moments: list[tuple[float, float]], dropped: float) -> None:
        self.push = push
        self.moments = moments
        self.dropped = dropped
        self.hp_a: Any = None
        self.hp_b: Any = None
        self.dealt: tuple[float, float] = (0.0, 0.0)


def hit_laws(j: Jumps) -> tuple[Fraction, dict[int, Fraction], dict[int, Fraction]]:
    """``alpha`` = P(a hit is a's), and each fighter's law of damage given its attack deals
    some (whoever attacks: a round 1 set to a fighter who otherwise never attacks still hits)."""
    alpha = sum(j.ja.values(), Fraction(0))
    laws = []
    for q in (j.qa, j.qb):
        some = 1 - q.get(0, Fraction(0))
        laws.append({d: p / some for d, p in q.items() if d > 0 and p} if some else {})
    return alpha, laws[0], laws[1]


class _Start(NamedTuple):
    """A fight's first round and the law of the hits after it (:func:`timed`)."""

    lat: Lattice
    hits_a: HitSums
    hits_b: HitSums
    q: Any
    s: Any
    ab: tuple[Any, Any]  # each fighter's chance to attack a round (D-02), rounded once
    miss_hit: tuple[tuple[Any, Any], tuple[Any, Any]]  # round 1's attacker misses, or hits
    flat: Any  # rows (column, winner): the law of the hits after round 1, weighted
    going: Any  # per column: still going after every hit the cap allows (a draw)
    start: list[float]  # per column: the mass at the start
    moments: list[tuple[float, float]]  # no cap: per column, the rounds' mean and variance


def _start(j: Jumps, ha: int, hb: int, columns: list[tuple[int, float]], rounds: int | None,
           drop: float) -> _Start:
    """Round 1 drawn per column (who attacks it), then the law of the number of hits after it
    that ends the fight, per winner: what :func:`timed` follows round by round."""
    alpha_f, law_a, law_b = hit_laws(j)
    # each chance rounded once from its fraction (1 - x is never taken in floating point)
    alpha, beta = ld(alpha_f), ld(1 - alpha_f)
    # A round deals one hit at most: within a cap of R rounds, at most R hits; a fight still
    # going after R hits (``going``) can only end after the cap, a draw.
    hits_a, hits_b = HitSums(law_a, hb, drop, rounds), HitSums(law_b, ha, drop, rounds)
    q, s = ld(1 - j.s), ld(j.s)
    lat = Lattice(alpha, beta, hits_a, hits_b, max_hits=rounds)
    n = lat.size
    # Round 1 is X's attack (column): no damage (X's miss) leaves the fight as it was, every
    # hit still to come drawn freely; damage is X's first hit (its law is X's hits').
    miss = (ld(j.qa.get(0, Fraction(0))), ld(j.qb.get(0, Fraction(0))))
    hit = (ld(1 - j.qa.get(0, Fraction(0))), ld(1 - j.qb.get(0, Fraction(0))))
    free = (alpha * lat.win_a[0] + beta * lat.win_a[1],
            alpha * lat.win_b[0] + beta * lat.win_b[1])
    nc = len(columns)
    # laws[c, w, m]: column c, winner w, the fight's hits after round 1 are m.
    laws = np.zeros((nc, 2, n), dtype=LD)
    for c, (who, _) in enumerate(columns):
        forced = (lat.win_a[who], lat.win_b[who])
        for w in (0, 1):
            laws[c, w] = miss[who] * free[w]
            laws[c, w, :-1] += hit[who] * forced[w][1:]
    moments = [_moments(laws[c].sum(axis=0), q, s) for c in range(nc)] if rounds is None else []
    weights = np.array([ld(Fraction(w)) for _, w in columns], dtype=LD)
    flat = (laws * weights[:, None, None]).reshape(-1, n)  # rows (c, w)
    going = np.array([weights[c] * (miss[who] * (alpha * lat.going[0] + beta * lat.going[1])
                                    + hit[who] * lat.going[who])
                      for c, (who, _) in enumerate(columns)], dtype=LD)
    start = [math.fsum([*(float(v) for v in flat[2 * c:2 * c + 2].sum(axis=0)), float(going[c])])
             for c in range(nc)]

    return _Start(lat, hits_a, hits_b, q, s, (alpha, beta), (miss, hit), flat, going, start,
                  moments)


def timed(j: Jumps, ha: int, hb: int, columns: list[tuple[int, float]], rounds: int | None,
          stop: float, *, hp: bool = False, drop: float = DROP) -> Timed:
    """The fight from (ha, hb) hit points, round by round, per column ``(who attacks round 1,
    weight)`` (the D-02 draw of round 1 is the two columns ``(0, pa), (1, 1 - pa)``).

    ``rounds``: the round cap (a draw after it), or None (played to the end: the rounds are
    followed until the mass still in play, with the rounding of the outcomes, is at most
    ``stop``).  A capped fight too stops there (``TOLERANCE``: the rest unresolved); past
    :data:`MAX_ROUNDS_WORK` it stops (``WORK``).  ``hp``: also the winner's hit points left and
    the damage dealt.  The work is bounded by the inputs: the hit sums at most ``ha`` and
    ``hb`` hits of their damage values each, the lattice ``ha * hb`` points, a round ``4 (ha +
    hb)`` multiply-adds.
    """
    st = _start(j, ha, hb, columns, rounds, drop)
    lat, hits_a, hits_b, q, s, flat, going, start = (st.lat, st.hits_a, st.hits_b, st.q, st.s,
                                                      st.flat, st.going, st.start)
    nc, n = len(columns), lat.size
    moments = st.moments

    push = Push(nc)
    push.draw_round = rounds or 0
    ends = flat[:, 1:]  # m >= 1: P(S_m = t - 1) = q Bin(t - 2, q)(m - 1)
    width = n - 1  # row entries at m - 1 >= width never count
    row = np.ones(1, dtype=LD)  # Bin(t - 2, q), entries lo .. lo + len - 1
    lo = 0
    done = [0.0] * nc
    work = 0
    t = 0
    pa = float(j.pa)
    mean = (math.fsum(float(d * p) for d, p in j.qa.items()),
            math.fsum(float(d * p) for d, p in j.qb.items()))
    dealt = [0.0, 0.0]
    stopped = COMPLETE
    # The rounding bound: the hit sums' and the lattice's roundings, and 4 a round.
    base = hits_a.steps + hits_b.steps + 4 * n + 64
    while rounds is None or t < rounds:
        alive = [max(0.0, start[c] - done[c]) for c in range(nc)]
        # Stopped once what is in play, with the rounding of the three outcomes, is within
        # ``stop`` (as :func:`sevendag_cli.sim.push.stop_now`).
        # With no cap, also once what is in play is within the rounding bound itself (a
        # ``stop`` below it could never be met: the rest is unresolved all the same).
        bound = 3 * (ld_gamma(base + 4 * t) + 8 * UNIT_ROUNDOFF)
        in_play = math.fsum(alive)
        if t > 0 and (in_play + bound <= stop or (rounds is None and in_play <= bound)):
            stopped = TOLERANCE
            break
        if work > MAX_ROUNDS_WORK:
            stopped = WORK
            break
        t += 1
        col_alive = np.array(alive)
        push.alive.append(col_alive)
        for c, (who, _) in enumerate(columns):
            first_a = (1.0 if who == 0 else 0.0) if t == 1 else pa
            dealt[0] += alive[c] * first_a * mean[0]
            dealt[1] += alive[c] * (1.0 - first_a) * mean[1]
        if t == 1:
            got = flat[:, 0]
        else:
            if t > 2:
                row, lo = _next_row(row, lo, s, q, width)
                if t % 16 == 0 and row.size > 64:
                    row, cut = _trim(row)
                    lo += cut
            span = ends[:, lo:lo + row.size]
            got = q * (span @ row[:span.shape[1]])
            work += max(span.size + 3 * row.size, ROUND_WORK)
        got64 = got.astype(np.float64).reshape(nc, 2)
        push.won[0].append(got64[:, 0].copy())
        push.won[1].append(got64[:, 1].copy())
        for c in range(nc):
            done[c] += float(got64[c].sum())
    # Still in play after round t: P(T > t) = sum_m L[m] P(S_m > t - 1).
    rest = _in_play_after(flat, row, lo, t, s, q, width).reshape(nc, 2).sum(axis=1)
    rest_c = (rest + going).astype(np.float64)
    if rounds is not None and t == rounds and stopped == COMPLETE:
        push.draw += rest_c
    else:
        push.tail = float(rest_c.sum())
        push.stop = stopped
    push.error = ld_gamma(base + 4 * t) + 4 * UNIT_ROUNDOFF
    out = Timed(push, moments, hits_a.dropped + hits_b.dropped)
    if hp:
        out.dealt = (dealt[0], dealt[1])
        out.hp_a, out.hp_b = _hp_left(lat, hits_a, hits_b, columns, st.ab, st.miss_hit,
                                      _within(row, lo, t, s, q, width, n), ha, hb, rounds)
    return out


def _moments(mass: Any, q: Any, s: Any) -> tuple[float, float]:
    """E[T] and Var[T] when the hits after round 1 are m with chance ``mass[m]``:
    T = 1 + S_m, E[S_m] = m / q, Var[S_m] = m s / q^2 (a sum of positive terms)."""
    total = mass.sum()
    if not total:
        return 0.0, 0.0
    m = np.arange(mass.size, dtype=LD)
    mean_t = 1 + m / q
    e1 = (mass * mean_t).sum() / total
    var = (mass * (m * s / (q * q) + (mean_t - e1) ** 2)).sum() / total
    return float(e1), float(var)


def _next_row(row: Any, lo: int, s: Any, q: Any, width: int) -> tuple[Any, int]:
    """Bin(r + 1, q) from Bin(r, q): s row + q row shifted; entries at ``width`` on dropped."""
    new = np.empty(row.size + 1, dtype=LD)
    new[:-1] = s * row
    new[-1] = 0
    new[1:] += q * row
    if lo + new.size > width:
        new = new[:max(0, width - lo)]
    return new, lo


def _trim(row: Any) -> tuple[Any, int]:
    """Drop a binomial row's outermost entries while they sum to at most :data:`TRIM` (each end)."""
    cut = int(np.searchsorted(np.cumsum(row), LD(TRIM), side="right"))
    end = row.size - int(np.searchsorted(np.cumsum(row[::-1]), LD(TRIM), side="right"))
    if end <= cut:
        return row, 0
    return row[cut:end], cut


def _in_play_after(flat: Any, row: Any, lo: int, t: int, s: Any, q: Any, width: int) -> Any:
    """P(T > t) per row (column, winner): m hits after round 1 take more than t - 1 rounds
    when Bin(t - 1, q) < m (m = 0: over in round 1)."""
    if t == 0:
        return flat.sum(axis=1)
    if t == 1:
        return flat[:, 1:].sum(axis=1)
    row, lo = _next_row(row, lo, s, q, width)  # Bin(t - 1, q) from Bin(t - 2, q)
    # cdf[m - 1] = P(Bin(t - 1, q) <= m - 1), m = 1 .. n - 1
    size = flat.shape[1] - 1
    cdf = np.zeros(size, dtype=LD)
    c = np.cumsum(row)
    end = min(size, lo + c.size)
    if end > lo:
        cdf[lo:end] = c[:end - lo]
    if c.size and end < size:
        cdf[end:] = c[-1]
    return flat[:, 1:] @ cdf


def _within(row: Any, lo: int, t: int, s: Any, q: Any, width: int, n: int) -> Any:
    """``within[m]`` = P(m hits after round 1 all come within the t rounds followed)
    = P(Bin(t - 1, q) >= m) = 1 - P(Bin(t - 1, q) <= m - 1) (m = 0: 1 once round 1 is played;
    the row's entries past ``width`` were dropped, so the lower part is summed)."""
    within = np.zeros(n, dtype=LD)
    if t == 0:
        return within
    within[0] = 1
    if t == 1:
        return within
    row, lo = _next_row(row, lo, s, q, width)  # Bin(t - 1, q)
    cdf = np.zeros(n - 1, dtype=LD)  # cdf[m - 1] = P(Bin <= m - 1)
    c = np.cumsum(row)
    end = min(n - 1, lo + c.size)
    if end > lo:
        cdf[lo:end] = c[:end - lo]
    if c.size and end < n - 1:
        cdf[end:] = c[-1]
    within[1:] = np.maximum(LD(0), 1 - cdf)
    return within


def _hp_left(lat: Lattice, hits_a: HitSums, hits_b: HitSums, columns: list[tuple[int, float]],
             chances: tuple[Any, Any], misses: tuple[tuple[Any, Any], tuple[Any, Any]],
             within: Any, ha: int, hb: int, max_hits: int | None) -> tuple[Any, Any]:
    """P(a wins with h hit points left), h = 0 .. ha, and b's, for the ends within the rounds
    followed: a second pass over the lattice, each end weighted by its chance to come in time
    (the free hits: m = k after a round 1 without damage; the forced: m = k - 1)."""
    alpha, beta = chances
    miss, hit = misses
    n = lat.size
    wv = [np.zeros(n, dtype=LD), np.zeros(n, dtype=LD)]
    for who, weight in columns:
        w = ld(Fraction(weight))
        wv[0] += w * miss[who] * alpha * within
        wv[1] += w * miss[who] * beta * within
        wv[who][1:] += w * hit[who] * within[:-1]
    again = Lattice(alpha, beta, hits_a, hits_b, weights=(wv[0], wv[1]), max_hits=max_hits)
    taken_a = hits_b.spread(again.u_a)  # b's damage to a when a wins
    taken_b = hits_a.spread(again.u_b)
    hp_a = np.zeros(ha + 1)
    hp_b = np.zeros(hb + 1)
    hp_a[ha - np.arange(ha)] = taken_a[:ha].astype(np.float64)
    hp_b[hb - np.arange(hb)] = taken_b[:hb].astype(np.float64)
    return hp_a, hp_b
