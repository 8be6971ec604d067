"""Pushing a fight's probability mass round by round (numpy): the engine of ``fight --exact``.

A *push* starts from one or more weighted starts (columns: ``fight --exact`` uses
one column per fighter striking first) and plays the chain's rounds: each round
records the mass that ends the fight (and who won), the mass still in play, and
the rewards; the mass still in play after the last round (the round cap) is a
draw.  It stops earlier once the mass in play plus the rounding bound is below
the tolerance, or at the work limit (:mod:`sevendag_cli.sim.odds` says what is
certified).

Each ruleset's own push uses this machinery (:class:`Push`, :func:`push_round`,
:func:`in_play`, :func:`end_push`): Sevendag's over the states of its chain
(:mod:`sevendag_cli.sevendag.push`, and its game's rows under policies), d20's over the
grid of both fighters' hit points (:func:`d20_push`, one shifted add per damage value).
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np
import numpy.typing as npt

from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.limits import MAX_D20_PUSH_CELLS
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

MAX_CELLS = MAX_D20_PUSH_CELLS
"""Most (hit points of a) x (hit points of b) the d20 push holds (memory: ~16 MB a grid)."""
MAX_PUSH_WORK = 2_000_000_000
"""Most multiply-adds one push makes (a few seconds); then it stops, unresolved."""


class D20Tabled(Protocol):
    """What the d20 push needs of :class:`~sevendag_cli.d20.chain.D20Chain`."""

    names: tuple[str, str]
    p_first: float  # P(a attacks a round)
    qa: dict[int, float]  # damage of a's attack on b
    qb: dict[int, float]
    moves: bool  # some round can deal damage


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




# --- d20 -------------------------------------------------------------------------------------


class D20Rewards:
    def __init__(self, ha: int, hb: int, columns: int) -> None:
        self.hp_a = np.zeros((columns, ha + 1))  # a won with ha hit points left
        self.hp_b = np.zeros((columns, hb + 1))
        self.dealt = np.zeros((2, columns))


def d20_push(chain: D20Tabled, ha0: int, hb0: int, first: int | None, rounds: int,
             tolerance: float, columns: list[tuple[int | None, float]] | None = None,
             rewards: D20Rewards | None = None) -> D20Pushed:
    """Push the grid of hit points from (ha0, hb0) for at most ``rounds`` rounds.

    ``first``: who attacks the first round (None: D-02 decides).  ``columns``: one
    start per column, (first attacker, weight) — the default is one column with
    ``first`` and weight 1.
    """
    if ha0 * hb0 > MAX_CELLS:
        raise UsageError(Msg("exact.d20.cells", max=MAX_CELLS, a=chain.names[0], hp_a=ha0,
                             b=chain.names[1], hp_b=hb0))
    cols = columns if columns is not None else [(first, 1.0)]
    nc = len(cols)
    rw = rewards if rewards is not None else D20Rewards(ha0, hb0, nc)
    p = chain.p_first
    qa, qb = chain.qa, chain.qb
    mean_a = math.fsum(d * q for d, q in qa.items())
    mean_b = math.fsum(d * q for d, q in qb.items())
    grid = np.zeros((nc, ha0 + 1, hb0 + 1))
    grid[:, ha0, hb0] = [w for _, w in cols]
    push = Push(nc)
    push.draw_round = rounds
    # Per-round kernels: (a's weight, b's weight) for a free round, or one attacker.
    free = (p, 1.0 - p)
    fixed = [(1.0, 0.0) if f == 0 else (0.0, 1.0) if f == 1 else free for f, _ in cols]
    terms = len(qa) + len(qb) + 1
    step = gamma(terms + 2)
    # The ends of a round: sums over a row or a column of the grid, then over the damage
    # values; over the rounds by math.fsum.
    final = gamma(ha0 + hb0 + terms + 6)
    work = 0
    t = 0
    if not chain.moves:  # nobody ever deals damage: a draw at the cap
        push.draw += grid.sum(axis=(1, 2))
        push.rounds_extra = float(push.draw.sum()) * rounds
        return D20Pushed(push, rw, chain.names, rounds)
    while t < rounds:
        col_alive = grid.sum(axis=(1, 2))
        alive = float(col_alive.sum())
        if alive == 0.0 or stop_now(push, alive, tolerance, work, final):
            break
        weights = fixed if t == 0 else [free] * nc
        t += 1
        push.alive.append(col_alive)
        wa = np.array([w[0] for w in weights])
        wb = np.array([w[1] for w in weights])
        rw.dealt[0] += col_alive * wa * mean_a
        rw.dealt[1] += col_alive * wb * mean_b
        new = grid * (wa * qa.get(0, 0.0) + wb * qb.get(0, 0.0))[:, None, None]
        won_a = np.zeros(nc)
        won_b = np.zeros(nc)
        for d, q in qa.items():  # a hits b for d
            if d <= 0:
                continue
            if d < hb0:
                new[:, :, 1:hb0 + 1 - d] += (wa * q)[:, None, None] * grid[:, :, 1 + d:]
            ended = grid[:, :, 1:min(d, hb0) + 1].sum(axis=2) * (wa * q)[:, None]  # (nc, ha+1)
            rw.hp_a += ended
            won_a += ended.sum(axis=1)
        for d, q in qb.items():  # b hits a for d
            if d <= 0:
                continue
            if d < ha0:
                new[:, 1:ha0 + 1 - d, :] += (wb * q)[:, None, None] * grid[:, 1 + d:, :]
            ended = grid[:, 1:min(d, ha0) + 1, :].sum(axis=1) * (wb * q)[:, None]  # (nc, hb+1)
            rw.hp_b += ended
            won_b += ended.sum(axis=1)
        push.won[0].append(won_a)
        push.won[1].append(won_b)
        grid = new
        push.error += step * alive
        work += grid.size * terms
    if t == rounds and push.stop == COMPLETE:
        push.draw += grid.sum(axis=(1, 2))
    else:
        push.tail = float(grid.sum())
    push.error += final
    return D20Pushed(push, rw, chain.names, t)


class D20Pushed:
    def __init__(self, push: Push, rewards: D20Rewards, names: tuple[str, str],
                 rounds: int) -> None:
        self.push = push
        self.rewards = rewards
        self.odds = push.odds(names, push.draw_round, rounds)
