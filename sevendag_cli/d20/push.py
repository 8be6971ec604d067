"""d20's push round by round over the grid of both fighters' hit points (numpy): one shifted
add per damage value, with the push machinery both rulesets share (:mod:`sevendag_cli.sim.push`).

``fight --exact`` pushes the grid for a pair that can never deal damage with a round cap (its
draw); the exact odds of any other pair, capped or not, come from :mod:`.solve` and
:mod:`.rounds`, and the tests check them against this push.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np

from sevendag_cli.d20.limits import MAX_PUSH_CELLS
from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.sim.odds import COMPLETE, gamma
from sevendag_cli.sim.push import Push, stop_now


class Tabled(Protocol):
    """What the d20 push needs of :class:`~sevendag_cli.d20.chain.D20Chain`."""

    names: tuple[str, str]
    p_first: float  # P(a attacks a round)
    qa: dict[int, float]  # damage of a's attack on b
    qb: dict[int, float]
    moves: bool  # some round can deal damage


class GridRewards:
    """What the push of the grid accumulates besides the odds, per starting column: the hit
    points the winner has left, and the damage each fighter deals."""

    def __init__(self, ha: int, hb: int, columns: int) -> None:
        self.hp_a = np.zeros((columns, ha + 1))  # a won with ha hit points left
        self.hp_b = np.zeros((columns, hb + 1))
        self.dealt = np.zeros((2, columns))


def grid_push(chain: Tabled, ha0: int, hb0: int, first: int | None, rounds: int,
              tolerance: float, columns: list[tuple[int | None, float]] | None = None,
              rewards: GridRewards | None = None) -> GridPushed:
    """Push the grid of hit points from (ha0, hb0) for at most ``rounds`` rounds.

    ``first``: who attacks the first round (None: D-02 decides).  ``columns``: one
    start per column, (first attacker, weight) — the default is one column with
    ``first`` and weight 1.
    """
    if ha0 * hb0 > MAX_PUSH_CELLS:
        raise UsageError(Msg("exact.d20.cells", max=MAX_PUSH_CELLS, a=chain.names[0], hp_a=ha0,
                             b=chain.names[1], hp_b=hb0))
    cols = columns if columns is not None else [(first, 1.0)]
    nc = len(cols)
    rw = rewards if rewards is not None else GridRewards(ha0, hb0, nc)
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
        return GridPushed(push, rw, chain.names, rounds)
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
    return GridPushed(push, rw, chain.names, t)


class GridPushed:
    """A push of the grid: the masses, the rewards and the odds."""

    def __init__(self, push: Push, rewards: GridRewards, names: tuple[str, str],
                 rounds: int) -> None:
        self.push = push
        self.rewards = rewards
        self.odds = push.odds(names, push.draw_round, rounds)
