"""Whole fights drawn from a chain's per-state tables (numpy): ``fight --runs`` where it fits.

A chain (:class:`Chain`) says, for each state between rounds, every way the next
round can go with its exact weight: the state it leads to, or the fight won by a
or by b, and the rewards taken in that round (Sevendag: the wounds of each band
each fighter took).  :func:`sample_fights` draws ``runs`` whole fights from it at
once: the tables of every state reachable from the starts are flattened into one
array of cumulative probabilities, with a *guide table* (:class:`Guide`) per state, so
that each round draws the next move of every fight still going in a few array
operations (a uniform number picks a bucket of the state's guide, which names the
first move that can hold it; the rare numbers beyond it step on).  A move's rewards
are drawn with it, packed into one integer per fight (several counts a word), not
averaged.

**The interface** (small on purpose: a chain under fixed policies, backed by a
game, can offer it too):

* ``closure(starts)``: every state id reachable from the ids ``starts`` (a list,
  the starts first);
* ``successors(i)``: an object with ``den`` (an int > 0), ``rewards`` (a sequence
  whose length is the number of reward kinds, the same for every state; its values
  are not read) and ``moves``: ``(target, weight, rewards)`` triples, ``target`` a
  state id or :data:`A_WINS` / :data:`B_WINS`, ``weight`` an int >= 0 (the weights
  of a state's moves sum to ``den``), ``rewards`` the indices of the rewards taken
  in that move (an index twice: taken twice).

A fight still going after ``cap`` rounds is a draw (its rounds: ``cap``).  The
draws from ``rng`` are in a fixed order: the same generator state, tables, runs
and cap give the same fights.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import numpy as np
import numpy.typing as npt

A_WINS = -1
"""A move's target: a wins in that round."""
B_WINS = -2
"""A move's target: b wins in that round."""

IntArray = npt.NDArray[np.int64]


class ChainSuccessors(Protocol):
    """One round from a state, as :func:`sample_fights` reads it."""

    @property
    def den(self) -> int: ...
    @property
    def rewards(self) -> Sequence[int]: ...
    @property
    def moves(self) -> Sequence[tuple[int, int, Sequence[int]]]: ...


class Chain(Protocol):
    """What :func:`sample_fights` needs of a chain (module docstring)."""

    def closure(self, starts: Sequence[int]) -> list[int]: ...
    def successors(self, i: int) -> ChainSuccessors: ...


@dataclass(frozen=True)
class Sample:
    """``n`` fights: ``winner`` 0 = a, 1 = b, -1 = a draw (the cap); ``rounds`` played;
    ``first_striker`` the index of the start drawn (with one start per fighter striking
    first: that fighter); ``rewards`` (n, kinds), the rewards taken in each fight."""

    winner: npt.NDArray[np.int8]
    rounds: IntArray
    first_striker: npt.NDArray[np.int8]
    rewards: IntArray


def _cumulative(weights: Sequence[int | float | Fraction]) -> npt.NDArray[np.float64]:
    """Cumulative probabilities of weights (exact sums, the last exactly 1.0)."""
    total = sum(Fraction(w) for w in weights)
    if total <= 0 or any(w < 0 for w in weights):
        raise ValueError("sampling weights must be >= 0 with a positive sum")
    out, acc = [], Fraction(0)
    for w in weights:
        acc += Fraction(w)
        out.append(float(acc / total))
    out[-1] = 1.0
    return np.array(out)


GUIDE = 4
"""Buckets of a state's guide table per move of the state."""


class Guide:
    """Cumulative tables of several states, drawn from by guide tables (exact: a guide only
    says where to start looking).

    ``cum``: per move, the cumulative probability within its state (the state's last
    exactly 1.0); ``begin``/``count``: each state's first move and number of moves.
    """

    def __init__(self, cum: npt.NDArray[np.float64], begin: IntArray, count: IntArray) -> None:
        self.cum = cum
        states = begin.size
        self.size = GUIDE * count  # buckets per state
        self.start = np.zeros(states, dtype=np.int64)  # each state's first bucket
        np.cumsum(self.size[:-1], out=self.start[1:])
        owner = np.repeat(np.arange(states, dtype=np.int64), self.size)
        t = np.arange(owner.size, dtype=np.int64) - self.start[owner]
        # A bucket's ends, widened by a few roundings: every number drawn into the bucket
        # (``floor(r * size)``) lies within them.
        x = t / self.size[owner] * (1.0 - 2.0**-48)
        x_end = (t + 1) / self.size[owner] * (1.0 + 2.0**-48)
        # The first move whose cumulative probability passes the bucket's low end, found with
        # the states side by side (shifted by their index), then made exact: a guide past
        # the move wanted steps back (one below it only costs a step when drawing).
        mover = np.repeat(np.arange(states, dtype=np.float64), count)
        guide = np.searchsorted(cum + mover, x + owner, side="right")
        lo, hi = begin[owner], begin[owner] + count[owner] - 1
        guide = np.minimum(np.maximum(guide, lo), hi)
        while True:
            back = np.flatnonzero((guide > lo) & (cum[np.maximum(guide - 1, 0)] > x))
            if back.size == 0:
                break
            guide[back] -= 1
        # A bucket whose move holds it whole needs no look at the table: the others are kept
        # as ~move (negative), to be stepped on from there.
        self.guide = np.where(cum[guide] > x_end, guide, ~guide)
        self.single = states == 1

    def draw(self, r: npt.NDArray[np.float64], k: IntArray | None) -> IntArray:
        """The move drawn by uniform numbers ``r`` in [0, 1) from states ``k`` (None: the only
        state)."""
        # floor(r * size) < size for every r < 1: the product rounds below size (exact at a
        # power of two), so no bucket is past the state's last.
        if self.single or k is None:
            b = (r * self.size[0]).astype(np.int64)
        else:
            b = (r * self.size[k]).astype(np.int64)
            b += self.start[k]
        j: IntArray = self.guide[b]
        look = np.flatnonzero(j < 0)  # a bucket holding a boundary: step on from its move
        if look.size:
            j[look] = ~j[look]
            cum = self.cum
            step = look[cum[j[look]] <= r[look]]
            while step.size:
                j[step] += 1
                step = step[cum[j[step]] <= r[step]]
        return j


class Sampler:
    """A chain's per-state tables, flattened once, ready to draw many batches of fights.

    ``starts``: (state id, weight) pairs, weights >= 0 of any positive total (ints,
    floats or fractions); ``cap``: the round cap (>= 1).
    """

    def __init__(self, chain: Chain, starts: Sequence[tuple[int, int | float | Fraction]],
                 cap: int) -> None:
        if cap < 1:
            raise ValueError("the round cap must be at least 1")
        if not starts:
            raise ValueError("sampling needs at least one start")
        self.cap = cap
        order = chain.closure([s for s, _ in starts])
        loc = {g: k for k, g in enumerate(order)}
        self.states = len(order)
        self.start_cum = _cumulative([w for _, w in starts])
        self.start_local = np.array([loc[s] for s, _ in starts], dtype=np.int64)
        cum: list[float] = []
        nxt: list[int] = []
        rews: list[Sequence[int]] = []
        begin: list[int] = []
        kinds = -1
        most = 1  # most rewards of one kind a move takes
        for g in order:
            su = chain.successors(g)
            if kinds < 0:
                kinds = len(su.rewards)
            elif len(su.rewards) != kinds:
                raise ValueError("every state must have the same reward kinds")
            den = su.den
            acc = 0
            begin.append(len(cum))
            for target, weight, taken in su.moves:
                if weight <= 0:
                    continue  # never drawn
                acc += weight
                cum.append(acc / den)
                nxt.append(loc[target] if target >= 0 else target)
                rews.append(taken)
                for r in set(taken):
                    most = max(most, list(taken).count(r))
            if acc != den:
                raise ValueError(f"state {g}: the moves' weights sum to {acc}, not {den}")
            cum[-1] = 1.0  # exactly: every uniform number in [0, 1) falls among the moves
        self.kinds = max(kinds, 0)
        starts_at = np.array(begin, dtype=np.int64)
        self.guide = Guide(np.array(cum), starts_at,
                           np.diff(np.append(starts_at, len(cum))).astype(np.int64))
        self.next = np.array(nxt, dtype=np.int64)
        # Rewards packed: ``bits`` per kind (enough for ``cap`` rounds of the most a move
        # takes), as many kinds a 63-bit word as fit.
        self.bits = max(1, (cap * most).bit_length())
        self.per_word = max(1, 63 // self.bits)
        words = -(-self.kinds // self.per_word)
        packed = np.zeros((words, len(rews)), dtype=np.int64)
        for j, taken in enumerate(rews):
            for r in taken:
                if not 0 <= r < self.kinds:
                    raise ValueError(f"a move takes reward {r}: there are {self.kinds}")
                packed[r // self.per_word, j] += 1 << (self.bits * (r % self.per_word))
        self.packed = packed

    def sample(self, runs: int, rng: np.random.Generator) -> Sample:
        """``runs`` whole fights."""
        cap = self.cap
        first = np.minimum(self.start_cum.searchsorted(rng.random(runs), side="right"),
                           self.start_cum.size - 1)
        k = self.start_local[first]
        winner = np.full(runs, -1, dtype=np.int8)
        rounds = np.full(runs, cap, dtype=np.int64)
        words = self.packed.shape[0]
        acc_out = np.zeros((words, runs), dtype=np.int64)
        acc = np.zeros((words, runs), dtype=np.int64)
        idx = np.arange(runs, dtype=np.int64)
        guide, nxt, packed = self.guide, self.next, self.packed
        for number in range(1, cap + 1):
            if idx.size == 0:
                break
            j = guide.draw(rng.random(idx.size), k)
            for w in range(words):
                acc[w] += packed[w, j]
            k = nxt[j]
            ended = k < 0
            if ended.any():
                gone = np.flatnonzero(ended)
                out = idx[gone]
                winner[out] = (-1 - k[gone]).astype(np.int8)  # A_WINS -> 0, B_WINS -> 1
                rounds[out] = number
                acc_out[:, out] = acc[:, gone]
                keep = np.flatnonzero(~ended)
                idx, k, acc = idx[keep], k[keep], acc[:, keep]
        acc_out[:, idx] = acc  # the draws (the cap)
        rewards = np.empty((runs, self.kinds), dtype=np.int64)
        mask = (1 << self.bits) - 1
        for r in range(self.kinds):
            rewards[:, r] = (acc_out[r // self.per_word] >> (self.bits * (r % self.per_word))) & mask
        return Sample(winner, rounds, first.astype(np.int8), rewards)


def sample_fights(chain: Chain, starts: Sequence[tuple[int, int | float | Fraction]], runs: int,
                  cap: int, rng: np.random.Generator) -> Sample:
    """``runs`` whole fights drawn from ``chain`` (the module docstring): the start by its
    weight (``starts``: (state id, weight) pairs), then each round's move with the rewards
    it takes, until a win or ``cap`` rounds.  For many batches of one chain, build a
    :class:`Sampler` once and call its ``sample``."""
    return Sampler(chain, starts, cap).sample(runs, rng)


__all__ = ["A_WINS", "B_WINS", "Chain", "ChainSuccessors", "Sample", "Sampler", "sample_fights"]
