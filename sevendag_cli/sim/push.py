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


def push_round(push: Push, m: FloatArray, col_alive: FloatArray, pa_ld: npt.NDArray[np.longdouble],
               pb_ld: npt.NDArray[np.longdouble],
               moves: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], FloatArray],
               error: float) -> FloatArray:
    """One round of a push over states: the mass in play at its start (``col_alive``), the
    mass that ends it (per winner: ``pa_ld``/``pb_ld``, each state's chance, in extended
    precision, then summed over the rounds by ``math.fsum``, so the rounding stays far
    below the tolerance), and where the rest goes (``moves``: source, target, probability);
    ``error``: this round's rounding bound.  The mass after the round."""
    push.alive.append(col_alive)
    m_ld = m.astype(np.longdouble)
    push.won[0].append((pa_ld @ m_ld).astype(np.float64))
    push.won[1].append((pb_ld @ m_ld).astype(np.float64))
    src, tgt, prob = moves
    n = m.shape[0]
    new_m = np.empty_like(m)
    for c in range(m.shape[1]):
        new_m[:, c] = np.bincount(tgt, weights=prob * m[src, c], minlength=n)
    push.error += error
    return new_m


def end_push(push: Push, m: FloatArray, to_the_cap: bool, final: float) -> None:
    """The mass still in play: a draw if every round to the cap was pushed, else unresolved."""
    if to_the_cap and push.stop == COMPLETE:
        push.draw += m.sum(axis=0)
    else:
        push.tail = float(m.sum())
    push.error += final
