"""d20's ``fight --runs`` batches: whole fights drawn from the round's exact table (numpy).

A d20 round (D-02 .. D-10) does not depend on the state of the fight: who attacks
and the damage that attack deals have the same distribution whatever the hit
points left.  So the per-state table of every state is one table, the round's
(:class:`~sevendag_cli.d20.chain.D20Tables`, from the exact dice distributions):
each round draws, for every fight still going, one uniform number and its outcome
among (a attacks, damage d) and (b attacks, damage d) by a guide table
(:class:`~sevendag_cli.sim.sample.Guide`);
the hit points left and the damage dealt (the killing blow in full, as the
vectorised simulator) follow from the damage drawn, and a fighter at 0 or below
ends the fight (D-12).

Batches of fewer than :data:`MIN_FIGHTS` fights (the first batch decides), and pairs whose
table is too big (an attack that can deal more than :data:`MAX_SAMPLED_DAMAGE`, a dice group
wider than :data:`MAX_SAMPLED_DICE`) or whose exact distributions cannot be built, are the
vectorised simulator's (:func:`~sevendag_cli.d20.vector.simulate_d20_batch`), which rolls
every die.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import numpy.typing as npt

from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
from sevendag_cli.d20.vector import D20Batch
from sevendag_cli.errors import FormulaError, UsageError
from sevendag_cli.sim.sample import Guide

CHAIN = "chain"
""":attr:`D20Batches.method`: fights drawn from the round's table."""
VECTOR = "vector"
""":attr:`D20Batches.method`: every die rolled (the vectorised simulator)."""

MAX_SAMPLED_DAMAGE = 100_000
"""Most damage one attack may deal for the table to be drawn from (one entry a value)."""
MAX_SAMPLED_DICE = 200
"""Widest dice group the exact distributions are built for here (icepool's work grows with it)."""


MIN_FIGHTS = 15_000
"""Smallest batch drawn from the table: building it (icepool, some 60 ms) costs as much as
rolling every die of some 13,000 fights."""
MAX_BLOCK = 10_000
"""Most joint outcomes of the rounds drawn at once (one round's outcomes to the power of the
rounds: D-14's 39 outcomes, two rounds a draw; larger tables fall out of the processor's
caches and draw slower)."""
PACK = 1 << 30
"""Largest hit points, and ``cap`` times the largest hit, for both fighters' damage in one word."""


class RoundTable:
    """One d20 round as cumulative probabilities over (attacker, damage) outcomes."""

    def __init__(self, p_a: Fraction, damage_a: dict[int, Fraction],
                 damage_b: dict[int, Fraction]) -> None:
        outcomes = ([(0, d, p_a * p) for d, p in sorted(damage_a.items()) if p]
                    + [(1, d, (1 - p_a) * p) for d, p in sorted(damage_b.items()) if p])
        acc = Fraction(0)
        cum = []
        for _, _, p in outcomes:
            acc += p
            cum.append(float(acc))
        cum[-1] = 1.0
        self.cum = np.array(cum)
        self.guide = Guide(self.cum, np.zeros(1, dtype=np.int64),
                           np.array([len(cum)], dtype=np.int64))
        # Damage to b (a attacks) and to a (b attacks) of each outcome, the attacker.
        self.to_b = np.array([d if who == 0 else 0 for who, d, _ in outcomes], dtype=np.int64)
        self.to_a = np.array([d if who == 1 else 0 for who, d, _ in outcomes], dtype=np.int64)
        self.attacker = np.array([who for who, _, _ in outcomes], dtype=np.int8)
        self.top = int(max(self.to_a.max(), self.to_b.max()))
        self.size = len(outcomes)
        self.probs = np.diff(np.concatenate(([0.0], self.cum)))
        # One round's damage to both, packed (:meth:`_sample_packed`): to b low, to a high.
        self.inc = self.to_b.astype(np.uint64) | (self.to_a.astype(np.uint64) << np.uint64(32))
        self.block = 1  # rounds a draw: as many as keep the outcomes within MAX_BLOCK
        while self.size ** (self.block + 1) <= MAX_BLOCK and self.block < 4:
            self.block += 1
        self._blocks: dict[int, tuple[Guide, list[npt.NDArray[np.uint64]]]] = {}

    def _rounds(self, k: int) -> tuple[Guide, list[npt.NDArray[np.uint64]]]:
        """``k`` rounds drawn at once: a table over their joint outcomes (outcome ``j`` is the
        rounds' outcomes as base-``size`` digits, the first round's the highest) and each
        round's packed damage by joint outcome."""
        got = self._blocks.get(k)
        if got is None:
            size = self.size
            probs = self.probs
            for _ in range(k - 1):
                probs = np.outer(probs, self.probs).ravel()
            cum = np.cumsum(probs)
            cum /= cum[-1]
            cum[-1] = 1.0
            np.maximum.accumulate(cum, out=cum)
            guide = Guide(cum, np.zeros(1, dtype=np.int64), np.array([cum.size], dtype=np.int64))
            incs = [np.tile(np.repeat(self.inc, size ** (k - 1 - r)), size ** r)
                    for r in range(k)]
            got = self._blocks[k] = (guide, incs)
        return got

    def sample(self, hp_a: int, hp_b: int, n: int, rng: np.random.Generator,
               cap: int) -> D20Batch:
        """``n`` whole fights from (hp_a, hp_b); not over after ``cap`` rounds: a draw."""
        if self.block > 1 and max(abs(hp_a), abs(hp_b), 1) <= PACK and cap * self.top <= PACK:
            return self._sample_packed(hp_a, hp_b, n, rng, cap)
        guide, to_a, to_b = self.guide, self.to_a, self.to_b
        winner = np.full(n, -1, dtype=np.int8)
        rounds = np.full(n, cap, dtype=np.int64)
        first = np.zeros(n, dtype=np.int8)
        out_dealt_a = np.empty(n, dtype=np.int64)
        out_dealt_b = np.empty(n, dtype=np.int64)
        idx = np.arange(n, dtype=np.int64)
        dealt_a = np.zeros(n, dtype=np.int64)  # by a, to b
        dealt_b = np.zeros(n, dtype=np.int64)
        for number in range(1, cap + 1):
            if idx.size == 0:
                break
            j = guide.draw(rng.random(idx.size), None)
            if number == 1:
                first[:] = self.attacker[j]
            dealt_a += to_b[j]
            dealt_b += to_a[j]
            b_out = dealt_a >= hp_b
            done = b_out | (dealt_b >= hp_a)  # D-12: only the defender can drop
            if done.any():
                gone = np.flatnonzero(done)
                out = idx[gone]
                winner[out] = np.where(b_out[gone], 0, 1)
                rounds[out] = number
                out_dealt_a[out] = dealt_a[gone]
                out_dealt_b[out] = dealt_b[gone]
                keep = np.flatnonzero(~done)
                idx, dealt_a, dealt_b = idx[keep], dealt_a[keep], dealt_b[keep]
        out_dealt_a[idx] = dealt_a  # the draws (the cap)
        out_dealt_b[idx] = dealt_b
        return D20Batch(winner, rounds, first, hp_a - out_dealt_b, hp_b - out_dealt_a,
                        out_dealt_a, out_dealt_b)

    def _sample_packed(self, hp_a: int, hp_b: int, n: int, rng: np.random.Generator,
                       cap: int) -> D20Batch:
        """As :meth:`sample`, :attr:`block` rounds a draw, both fighters' damage in one word.

        The low half holds ``2**31 - hp_b`` plus the damage a dealt, the high half ``2**31 -
        hp_a`` plus b's: a half reaches its bit 31 exactly when that fighter is down, and never
        carries into the other (``hp`` and ``cap`` times the largest hit within :data:`PACK`).
        Damage only adds up, so a fight down after a block's first rounds is still down after
        the block: the block's last word says which fights ended, the round's words when.
        """
        low = np.uint64(0xFFFFFFFF)
        b_down, a_down = np.uint64(1 << 31), np.uint64(1 << 63)
        down = b_down | a_down
        base_b, base_a = (1 << 31) - hp_b, (1 << 31) - hp_a
        winner = np.full(n, -1, dtype=np.int8)
        rounds = np.full(n, cap, dtype=np.int64)
        out = np.empty(n, dtype=np.uint64)
        idx = np.arange(n, dtype=np.int64)
        v = np.full(n, base_b | (base_a << 32), dtype=np.uint64)
        first = np.zeros(n, dtype=np.int8)
        number = 0  # rounds played
        while number < cap and idx.size:
            k = min(self.block, cap - number)  # the cap's last rounds: a shorter block
            guide, incs = self._rounds(k)
            j = guide.draw(rng.random(idx.size), None)
            if number == 0:
                first[:] = self.attacker[j // self.size ** (k - 1)]
            words = []
            for inc in incs:
                v = v + inc[j]
                words.append(v)
            done = (v & down) != 0  # D-12: a fighter down
            if done.any():
                gone = np.flatnonzero(done)
                ids = idx[gone]
                final = v[gone]
                when = np.full(gone.size, number + k, dtype=np.int64)
                for r in range(k - 2, -1, -1):  # the first round of the block it was down after
                    early = (words[r][gone] & down) != 0
                    when[early] = number + r + 1
                    final[early] = words[r][gone][early]
                winner[ids] = np.where((final & b_down) != 0, 0, 1)
                rounds[ids] = when
                out[ids] = final
                keep = np.flatnonzero(~done)
                idx, v = idx[keep], v[keep]
            number += k
        out[idx] = v  # the draws (the cap)
        dealt_a = (out & low).astype(np.int64) - base_b
        dealt_b = (out >> np.uint64(32)).astype(np.int64) - base_a
        return D20Batch(winner, rounds, first, hp_a - dealt_b, hp_b - dealt_a, dealt_a, dealt_b)


def round_table(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter) -> RoundTable | None:
    """The pair's round as a table, or None where it is too big to build or draw from."""
    from sevendag_cli.d20.bounds import d20_damage_range
    from sevendag_cli.rules.bounds import widest_dice

    for attacker, defender in ((a, b), (b, a)):
        damage = d20_damage_range(ruleset, attacker, defender)
        if damage is None or damage[1] > MAX_SAMPLED_DAMAGE:
            return None
    if widest_dice(ruleset, a, b) > MAX_SAMPLED_DICE:
        return None
    from sevendag_cli.d20.exact import round_distribution

    try:
        rd = round_distribution(ruleset, a, b)
    except (UsageError, FormulaError):
        return None  # the vectorised simulator says what is wrong, if anything is
    return RoundTable(rd.p_a_attacks, rd.a_attacks.damage, rd.b_attacks.damage)


class D20Batches:
    """The runner's batch function (:data:`sevendag_cli.backend.BatchFn`): the first call builds
    the round's table (or finds it too big) and keeps it."""

    def __init__(self) -> None:
        self.method: str | None = None
        self._table: RoundTable | None = None
        self._key: tuple[object, ...] | None = None

    def __call__(self, ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter, n: int,
                 rng: np.random.Generator, cap: int | None = None) -> D20Batch:
        from sevendag_cli.d20.rules import play_limit
        from sevendag_cli.d20.vector import simulate_d20_batch

        key = (id(ruleset), id(a), id(b))
        if key != self._key:
            self._key = key
            small = isinstance(n, int) and n < MIN_FIGHTS
            self._table = None if small else round_table(ruleset, a, b)
            self.method = VECTOR if self._table is None else CHAIN
        cap = play_limit(ruleset) if cap is None else cap
        if self._table is None or isinstance(cap, bool) or not isinstance(cap, int) or cap < 1 \
                or isinstance(n, bool) or not isinstance(n, int) or n < 0:
            return simulate_d20_batch(ruleset, a, b, n, rng, cap)  # it refuses what is wrong
        return self._table.sample(a.hp, b.hp, n, rng, cap)
