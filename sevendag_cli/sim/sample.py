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


@dataclass(frozen=True)
class _Step:
    """Every way ``rounds`` rounds can go from each state, as arrays over the moves: ``owner``
    the state a move starts from (moves grouped by state), ``p`` its probability, ``next``
    where it leads (a state index, or :data:`A_WINS` / :data:`B_WINS`), ``end`` the round of
    the step in which its fight ended (0: still going), ``packed`` the rewards taken
    (``words`` x moves)."""

    rounds: int
    owner: IntArray
    p: npt.NDArray[np.float64]
    next: IntArray
    end: IntArray
    packed: npt.NDArray[np.uint64]

    def bounds(self, states: int) -> tuple[IntArray, IntArray]:
        """Each state's first move and number of moves."""
        count = np.bincount(self.owner, minlength=states).astype(np.int64)
        return np.cumsum(count) - count, count

    def then(self, one: _Step, states: int) -> _Step:
        """This step followed by one more round (``one``): a move that ended the fight stays as
        it is; any other is followed by each move of the state it led to.  Moves of a state
        that lead to the same place with the same rewards and end are merged."""
        begin1, count1 = one.bounds(states)
        go = self.next >= 0
        at = np.where(go, self.next, 0)
        fan = np.where(go, count1[at], 1)
        rep = np.repeat(np.arange(self.next.size, dtype=np.int64), fan)
        off = np.arange(rep.size, dtype=np.int64) - (np.cumsum(fan) - fan)[rep]
        cont = go[rep]
        j1 = np.where(cont, begin1[at[rep]] + off, 0)
        p = self.p[rep] * np.where(cont, one.p[j1], 1.0)
        nxt = np.where(cont, one.next[j1], self.next[rep])
        end = np.where(cont, np.where(one.next[j1] < 0, self.rounds + 1, 0), self.end[rep])
        packed = self.packed[:, rep] + np.where(cont, one.packed[:, j1], np.uint64(0))
        owner = self.owner[rep]
        # Merge the moves alike: sorted by owner, then by a hash of (next, end, rewards), a
        # run of moves equal in all of them is one move with the run's probability summed
        # (two moves alike but apart, after a collision, are only left unmerged).
        keys = [nxt, end, *packed.view(np.int64)]
        h = np.zeros(owner.size, dtype=np.uint64)
        for key in keys:
            h = (h ^ key.view(np.uint64)) * np.uint64(0x9E3779B97F4A7C15)
            h ^= h >> np.uint64(29)
        order = np.lexsort((h, owner))
        same = np.ones(order.size, dtype=bool)
        for key in (owner, *keys):
            k = key[order]
            same[1:] &= k[1:] == k[:-1]
        same[0] = False
        head = np.flatnonzero(~same)
        run = np.cumsum(~same) - 1
        total = np.bincount(run, weights=p[order], minlength=head.size).astype(np.float64)
        first = order[head]
        return _Step(self.rounds + 1, owner[first], total, nxt[first], end[first],
                     packed[:, first])


@dataclass(frozen=True)
class _Table:
    """A step ready to draw from: its moves' guide table and what each move does."""

    rounds: int
    guide: Guide
    next: IntArray
    end: IntArray
    packed: npt.NDArray[np.uint64]

    @classmethod
    def of(cls, step: _Step, states: int, cum: npt.NDArray[np.float64] | None = None) -> _Table:
        """``cum``: the moves' cumulative probabilities within their states when known exactly
        (one round); else summed here state by state (plain float64, the same on every
        machine), each state's last exactly 1.0."""
        begin, count = step.bounds(states)
        if cum is None:
            cum = np.empty(step.p.size, dtype=np.float64)
            for b, e in zip(begin.tolist(), (begin + count).tolist(), strict=True):
                if e > b:
                    c = np.cumsum(step.p[b:e])
                    cum[b:e] = c / c[-1]
                    cum[e - 1] = 1.0
        return cls(step.rounds, Guide(cum, begin, count), step.next, step.end, step.packed)


MAX_STEP_MOVES = 256
"""Most moves per state (on average) of a table of several rounds: rounds are drawn that many
at once while their table stays within it (and :data:`MAX_STEP_ROUNDS`)."""
MAX_STEP_ROUNDS = 2
"""Most rounds drawn at once.  Brannoc and Ysolde (496 states, 6 moves a state): two rounds
make 39 moves a state, built in 10 ms, and a million fights are drawn in 0.22 s CPU instead
of 0.3-0.4 s; three rounds (170 moves a state) take 60 ms to build for 0.19 s a million, which
pays only beyond some two million fights."""
MANY_FROM = 10_000
"""Fewest fights of a batch for which the tables of several rounds are built."""


class Sampler:
    """A chain's per-state tables, flattened once, ready to draw many batches of fights.

    ``starts``: (state id, weight) pairs, weights >= 0 of any positive total (ints,
    floats or fractions); ``cap``: the round cap (>= 1).

    Each draw plays several rounds at once where the tables stay small (a table of every way
    ``k`` rounds can go from each state, composed from the one round's,
    :data:`MAX_STEP_ROUNDS`): fewer array passes a fight, the same fights in law.
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
        prob: list[float] = []
        nxt: list[int] = []
        rews: list[Sequence[int]] = []
        owner: list[int] = []
        kinds = -1
        most = 1  # most rewards of one kind a move takes
        for k, g in enumerate(order):
            su = chain.successors(g)
            if kinds < 0:
                kinds = len(su.rewards)
            elif len(su.rewards) != kinds:
                raise ValueError("every state must have the same reward kinds")
            den = su.den
            acc = 0
            for target, weight, taken in su.moves:
                if weight <= 0:
                    continue  # never drawn
                acc += weight
                cum.append(acc / den)
                prob.append(weight / den)
                nxt.append(loc[target] if target >= 0 else target)
                rews.append(taken)
                owner.append(k)
                for r in set(taken):
                    most = max(most, list(taken).count(r))
            if acc != den:
                raise ValueError(f"state {g}: the moves' weights sum to {acc}, not {den}")
            cum[-1] = 1.0  # exactly: every uniform number in [0, 1) falls among the moves
        self.kinds = max(kinds, 0)
        # Rewards packed: ``bits`` per kind (enough for ``cap`` rounds of the most a move
        # takes), as many kinds a 64-bit word as fit.
        self.bits = max(1, (cap * most).bit_length())
        self.per_word = max(1, 64 // self.bits)
        words = -(-self.kinds // self.per_word)
        packed = np.zeros((words, len(rews)), dtype=np.uint64)
        for j, taken in enumerate(rews):
            for r in taken:
                if not 0 <= r < self.kinds:
                    raise ValueError(f"a move takes reward {r}: there are {self.kinds}")
                packed[r // self.per_word, j] += np.uint64(1 << (self.bits * (r % self.per_word)))
        nxt_a = np.array(nxt, dtype=np.int64)
        one = _Step(1, np.array(owner, dtype=np.int64), np.array(prob, dtype=np.float64), nxt_a,
                    np.where(nxt_a < 0, 1, 0).astype(np.int64), packed)
        self._one_step = one
        self.one = _Table.of(one, self.states, np.array(cum))
        self._many: _Table | None = None

    def many(self) -> _Table:
        """The table of the most rounds drawn at once (built on first use)."""
        if self._many is None:
            self._many = self.one
            one = step = self._one_step
            budget = MAX_STEP_MOVES * self.states
            while step.rounds < min(MAX_STEP_ROUNDS, self.cap):
                longer = step.then(one, self.states)
                if longer.p.size > budget:
                    break
                step = longer
                self._many = _Table.of(step, self.states)
        return self._many

    def sample(self, runs: int, rng: np.random.Generator) -> Sample:
        """``runs`` whole fights."""
        cap = self.cap
        first = np.minimum(self.start_cum.searchsorted(rng.random(runs), side="right"),
                           self.start_cum.size - 1)
        k = self.start_local[first]
        winner = np.full(runs, -1, dtype=np.int8)
        rounds = np.full(runs, cap, dtype=np.int64)
        words = self.one.packed.shape[0]
        acc_out = np.zeros((words, runs), dtype=np.uint64)
        acc = np.zeros((words, runs), dtype=np.uint64)
        idx = np.arange(runs, dtype=np.int64)
        played = 0
        many = self.many() if runs >= MANY_FROM else self.one
        while idx.size and played < cap:
            t = many if played + many.rounds <= cap else self.one
            j = t.guide.draw(rng.random(idx.size), k)
            for w in range(words):
                acc[w] += t.packed[w, j]
            k = t.next[j]
            ended = k < 0
            if ended.any():
                gone = np.flatnonzero(ended)
                out = idx[gone]
                winner[out] = (-1 - k[gone]).astype(np.int8)  # A_WINS -> 0, B_WINS -> 1
                rounds[out] = played + t.end[j[gone]]
                acc_out[:, out] = acc[:, gone]
                keep = np.flatnonzero(~ended)
                idx, k, acc = idx[keep], k[keep], acc[:, keep]
            played += t.rounds
        acc_out[:, idx] = acc  # the draws (the cap)
        rewards = np.empty((runs, self.kinds), dtype=np.int64)
        mask = np.uint64((1 << self.bits) - 1)
        for r in range(self.kinds):
            shift = np.uint64(self.bits * (r % self.per_word))
            rewards[:, r] = (acc_out[r // self.per_word] >> shift) & mask
        return Sample(winner, rounds, first.astype(np.int8), rewards)


def sample_fights(chain: Chain, starts: Sequence[tuple[int, int | float | Fraction]], runs: int,
                  cap: int, rng: np.random.Generator) -> Sample:
    """``runs`` whole fights drawn from ``chain`` (the module docstring): the start by its
    weight (``starts``: (state id, weight) pairs), then each round's move with the rewards
    it takes, until a win or ``cap`` rounds.  For many batches of one chain, build a
    :class:`Sampler` once and call its ``sample``."""
    return Sampler(chain, starts, cap).sample(runs, rng)


__all__ = ["A_WINS", "B_WINS", "Chain", "ChainSuccessors", "Sample", "Sampler", "sample_fights"]
