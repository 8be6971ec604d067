"""The sheets' chain pushed round by round (numpy): ``fight --exact``'s odds, wounds and rounds,
and the certified odds of every state at once (:func:`chain_table`, kept for the odds at the
table).

:func:`chain_push` pushes the mass of the chain's starts (one column per fighter striking
first) through its states, as a sparse matrix (one product per round, every column at once), with the
push's own rounding account (:mod:`sevendag_cli.sim.push`); states from which no fighter can
ever be taken out are resolved at once as draws when they hold no wound to count.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from sevendag_cli.sevendag.chain import OddsTable, SevendagChain
from sevendag_cli.sim.odds import UNIT_ROUNDOFF, gamma
from sevendag_cli.sim.push import FloatArray, Moves, Push, end_push, in_play, ld_gamma, push_round


def chain_push(chain: SevendagChain, starts: list[tuple[int, float]], rounds: int,
                  tolerance: float) -> tuple[Push, FloatArray]:
    """Push each start (its own column) for at most ``rounds`` rounds; returns the wounds too.

    The wounds are an array (2 fighters, bands, columns) of expected wounds taken.
    """
    order = chain.closure([s for s, _ in starts])
    loc = {g: k for k, g in enumerate(order)}
    n = len(order)
    nb = len(chain.penalty)
    src_a, tgt_a, prob_a, pa, pb, rew = chain_matrix(chain, order)
    moves = Moves(src_a, tgt_a, prob_a, n)
    # States that can never end (neither fighter can take the other out from them): their
    # mass is a draw at the cap.  Resolved at once when they hold no wound to count.
    doomed = ~can_end(pa, pb, src_a, tgt_a)
    shortcut = bool(doomed.any()) and not rew[doomed].any()

    columns = len(starts)
    push = Push(columns)
    push.draw_round = rounds
    m = np.zeros((n, columns))
    for c, (start, w) in enumerate(starts):
        m[loc[start], c] = w
    wounds = np.zeros((2 * nb, columns))
    step = gamma(moves.indegree + 2)
    pa_ld, pb_ld = pa.astype(np.longdouble), pb.astype(np.longdouble)
    # The ends' sums: n products in extended precision, one rounding to a double, then the
    # rounds by math.fsum (one more), the columns and the three outcomes (a few more).
    final = ld_gamma(n + 2) + gamma(8)
    work = 0
    t = 0
    while t < rounds:
        if shortcut:
            stuck = m[doomed].sum(axis=0)
            if stuck.any():
                push.draw += stuck
                push.rounds_extra += float(stuck.sum()) * (rounds - t)
                m[doomed] = 0.0
        playing = in_play(push, m, tolerance, work, final)
        if playing is None:
            break
        col_alive, alive = playing
        t += 1
        wounds += rew.T @ m
        m = push_round(push, m, col_alive, pa_ld, pb_ld, moves, step * alive)
        work += moves.size * columns
    end_push(push, m, t == rounds, final)
    return push, wounds.reshape(2, nb, columns)


def chain_matrix(chain: SevendagChain, order: list[int],
                 ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], FloatArray, FloatArray,
                            FloatArray, FloatArray]:
    """The rounds of the states ``order`` (a closure) as a sparse matrix over their positions:
    each entry's source, target and probability; per state P(a wins now), P(b wins now) and
    the weight of each wound taken (a's bands, then b's, over the round's denominator)."""
    n = len(order)
    pos = np.full(len(chain.states), -1, dtype=np.int64)
    pos[np.array(order, dtype=np.int64)] = np.arange(n, dtype=np.int64)
    succ = [chain.successors(g) for g in order]
    counts = np.array([len(s.targets) for s in succ], dtype=np.int64)
    src = np.repeat(np.arange(n, dtype=np.int64), counts)
    tgt = pos[np.concatenate([np.frombuffer(s.targets, dtype=np.int64) for s in succ])
              if n else np.zeros(0, dtype=np.int64)]
    prob = (np.concatenate([np.frombuffer(s.probs, dtype=np.float64) for s in succ])
            if n else np.zeros(0))
    pa = np.array([s.pa for s in succ], dtype=np.float64)
    pb = np.array([s.pb for s in succ], dtype=np.float64)
    rew = np.array([[w / s.den for w in s.rewards] for s in succ],
                   dtype=np.float64).reshape(n, 2 * len(chain.penalty))
    return src, tgt, prob, pa, pb, rew


def can_end(pa: FloatArray, pb: FloatArray, src: npt.NDArray[np.int64],
            tgt: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """The states from which the fight can end (someone can still be taken out): those that
    can end it now, and every state that leads to one (a fixed point over the entries)."""
    ends = (pa + pb) > 0
    while True:
        reach = np.zeros(ends.size, dtype=np.bool_)
        np.logical_or.at(reach, src, ends[tgt])
        grown = ends | reach
        if bool((grown == ends).all()):
            return grown
        ends = grown


def chain_table(chain: SevendagChain, starts: list[int],
                   tolerance: float) -> OddsTable:
    """Certified odds of every state reachable from ``starts``, for ``horizon`` rounds or more.

    Backward, over the whole closure: ``P^t pa`` is the chance that a wins exactly in round
    ``t + 1``; summing them gives P(a wins within T rounds) for every state at once, until
    every state's unresolved mass is at most ``tolerance``.  States from which nobody can
    ever be taken out are draws (at any cap).  The vectors summed decay, so the rounding
    bound is gamma(out-degree) times the sum over rounds of their largest entries.
    """
    order = chain.closure(starts)
    n = len(order)
    src_a, tgt_a, prob_a, pa, pb, _rew = chain_matrix(chain, order)
    outdegree = int(np.bincount(src_a, minlength=n).max()) if src_a.size else 0
    ends = can_end(pa, pb, src_a, tgt_a)
    doomed = ~ends
    # Doomed states absorb as draws: edges into them become the draw vector.
    into = doomed[tgt_a]
    pd: FloatArray = np.bincount(src_a[into], weights=prob_a[into], minlength=n).astype(np.float64)
    keep = ~into & ~doomed[src_a]
    src_k, tgt_k, prob_k = src_a[keep], tgt_a[keep], prob_a[keep]
    pa, pb, pd = pa * ends, pb * ends, pd * ends

    def step(w: FloatArray) -> FloatArray:
        out: FloatArray = np.bincount(src_k, weights=prob_k * w[tgt_k],
                                      minlength=n).astype(np.float64)
        return out

    wa, wb, wd = pa.copy(), pb.copy(), pd.copy()
    va, vb, vd = np.zeros(n), np.zeros(n), doomed.astype(np.float64)
    rel = gamma(outdegree + 2)
    error = 0.0
    horizon = 0
    while True:
        va += wa
        vb += wb
        vd += wd
        horizon += 1
        error += rel * float(wa.max() + wb.max() + wd.max()) + 3 * UNIT_ROUNDOFF
        unresolved = 1.0 - va - vb - vd + 3 * error
        if float(unresolved[ends].max(initial=0.0)) <= tolerance or horizon >= 100_000:
            break
        wa, wb, wd = step(wa), step(wb), step(wd)
    lows = [np.clip(v - error * ends, 0.0, 1.0) for v in (va, vb, vd)]
    rest = np.clip(1.0 - (lows[0] + lows[1] + lows[2]), 0.0, 1.0)
    return OddsTable(
        fingerprint=chain.fingerprint, names=chain.names, tolerance=tolerance, horizon=horizon,
        states=tuple(chain.states[i] for i in order), win_a=tuple(lows[0].tolist()),
        win_b=tuple(lows[1].tolist()), draw=tuple(lows[2].tolist()),
        unresolved=tuple(rest.tolist()))
