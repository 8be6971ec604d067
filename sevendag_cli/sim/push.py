"""Pushing a fight's probability mass round by round (numpy): the engine of ``fight --exact``.

A *push* starts from one or more weighted starts (columns: ``fight --exact`` uses
one column per fighter striking first) and plays the chain's rounds: each round
records the mass that ends the fight (and who won), the mass still in play, and
the rewards; the mass still in play after the last round (the round cap) is a
draw.  It stops earlier once the mass in play plus the rounding bound is below
the tolerance, or at the work limit (:mod:`sevendag_cli.sim.odds` says what is
certified).

Each ruleset's own push, in its package, uses this machinery (:class:`Push`,
:func:`push_round`, :func:`in_play`, :func:`stop_now`, :func:`end_push`): Sevendag's over the
states of its chain (:mod:`sevendag_cli.sevendag.push`, and its game's rows under policies),
d20's over the grid of both fighters' hit points (:mod:`sevendag_cli.d20.push`).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from sevendag_cli.sim.odds import (
    COMPLETE,
    TOLERANCE,
    UNIT_ROUNDOFF,
    WORK,
    Odds,
    certified,
    gamma,
)

FloatArray = npt.NDArray[np.float64]

MAX_PUSH_WORK = 2_000_000_000
"""Most multiply-adds one push makes (a few seconds); then it stops, unresolved."""


class Push:
    """Masses per starting column (who struck first), round by round."""

    def __init__(self, columns: int) -> None:
        self.won: list[list[FloatArray]] = [[], []]  # per winner: per round, (columns,)
        self.alive: list[FloatArray] = []  # per round: in play at its start, (columns,)
        self.draw = np.zeros(columns)  # resolved to a draw (at the cap)
        self.draw_round = 0  # the round the draws happen (the cap)
        self.rounds_extra = 0.0  # sum of P(T >= t) for mass resolved early as a draw
        self.error = 0.0
        self.stop = COMPLETE
        self.tail = 0.0  # mass still in play at the end (unresolved)

    def won_total(self, who: int) -> FloatArray:
        if not self.won[who]:
            return np.zeros_like(self.draw)
        stacked = np.array(self.won[who])
        return np.array([math.fsum(stacked[:, c]) for c in range(stacked.shape[1])])

    def odds(self, names: tuple[str, str], cap: int, rounds: int) -> Odds:
        a = float(self.won_total(0).sum())
        b = float(self.won_total(1).sum())
        return certified(names, a, b, float(self.draw.sum()), self.error, rounds, self.stop)


def ld_gamma(n: int) -> float:
    """Relative error bound of ``n`` chained roundings in ``numpy.longdouble`` (its own unit
    roundoff: 2**-64 with the x87 format, a double's elsewhere)."""
    nu = n * max(float(np.finfo(np.longdouble).eps) / 2.0, UNIT_ROUNDOFF / 2048)
    return 1.0 if nu >= 0.5 else nu / (1.0 - nu)


def stop_now(push: Push, alive: float, tolerance: float, work: int, final: float = 0.0) -> bool:
    """Whether to stop: the unresolved mass once stopped, ``alive`` plus the rounding of the
    three outcomes (what is bounded so far and ``final``, the bound of the sums still to
    come), is within the tolerance; or the work limit is reached."""
    if alive + 3 * (push.error + final + gamma(4)) <= tolerance:
        push.stop = TOLERANCE
        return True
    if work > MAX_PUSH_WORK:
        push.stop = WORK
        return True
    return False


def in_play(push: Push, m: FloatArray, tolerance: float, work: int,
            final: float) -> tuple[FloatArray, float] | None:
    """The mass in play per column and in all, or None once the push is over (no mass left,
    or :func:`stop_now`)."""
    col_alive = m.sum(axis=0)
    alive = float(col_alive.sum())
    if alive == 0.0 or stop_now(push, alive, tolerance, work, final):
        return None
    return col_alive, alive


class Moves:
    """Where a round sends the mass of each state: entries (source, target, probability) over
    ``n`` states, as a sparse matrix, so that a target's mass is summed entry by entry in
    their order from 0, as ``numpy.bincount(target, weights=probability * mass[source])``
    sums it — the same bits, in one pass over the entries for every column at once.

    Entries grouped by source in increasing order (as the pushes list them): a matrix by
    source (compressed columns), whose product adds each source's entries in turn, so each
    target's in the entries' order, as they come; otherwise the entries sorted by target
    (stably) first."""

    def __init__(self, src: npt.NDArray[np.integer], tgt: npt.NDArray[np.integer],
                 prob: FloatArray, n: int) -> None:
        import scipy.sparse

        self.indegree = int(np.bincount(tgt, minlength=n).max()) if tgt.size else 0
        self.size = int(prob.size)  # entries, the work of a round per column
        ptr = np.zeros(n + 1, dtype=np.int64)
        if bool(np.all(src[1:] >= src[:-1])):
            np.cumsum(np.bincount(src, minlength=n), out=ptr[1:])
            self.matrix: scipy.sparse.spmatrix = scipy.sparse.csc_matrix(
                (prob, tgt, ptr), shape=(n, n))
        else:
            np.cumsum(np.bincount(tgt, minlength=n), out=ptr[1:])
            order = np.argsort(tgt, kind="stable")
            self.matrix = scipy.sparse.csr_matrix((prob[order], src[order], ptr), shape=(n, n))

    def __call__(self, m: FloatArray) -> FloatArray:
        """The mass after the round, from ``m`` (states x columns)."""
        got: FloatArray = self.matrix @ m
        return got


def push_round(push: Push, m: FloatArray, col_alive: FloatArray, pa_ld: npt.NDArray[np.longdouble],
               pb_ld: npt.NDArray[np.longdouble], moves: Moves, error: float) -> FloatArray:
    """One round of a push over states: the mass in play at its start (``col_alive``), the
    mass that ends it (per winner: ``pa_ld``/``pb_ld``, each state's chance, in extended
    precision, then summed over the rounds by ``math.fsum``, so the rounding stays far
    below the tolerance), and where the rest goes (``moves``); ``error``: this round's
    rounding bound.  The mass after the round."""
    push.alive.append(col_alive)
    m_ld = m.astype(np.longdouble)
    push.won[0].append((pa_ld @ m_ld).astype(np.float64))
    push.won[1].append((pb_ld @ m_ld).astype(np.float64))
    push.error += error
    return moves(m)


def end_push(push: Push, m: FloatArray, to_the_cap: bool, final: float) -> None:
    """The mass still in play: a draw if every round to the cap was pushed, else unresolved."""
    if to_the_cap and push.stop == COMPLETE:
        push.draw += m.sum(axis=0)
    else:
        push.tail = float(m.sum())
    push.error += final
