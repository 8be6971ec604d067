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

Where the table is too big (an attack that can deal more than
:data:`MAX_SAMPLED_DAMAGE`, a dice group wider than :data:`MAX_SAMPLED_DICE`) or the
exact distributions cannot be built, the batches are the vectorised simulator's
(:func:`~sevendag_cli.d20.vector.simulate_d20_batch`), which rolls every die.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

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


MAX_PAIRS = 40_000
"""Most outcomes of two rounds drawn at once (the square of one round's)."""
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
        size = len(outcomes)
        self.pairs: Guide | None = None
        if size * size <= MAX_PAIRS:
            # Two rounds at once: outcome j1 * size + j2, its probability the product.
            probs = np.diff(np.concatenate(([0.0], self.cum)))
            pair_cum = np.cumsum(np.outer(probs, probs).ravel())
            pair_cum /= pair_cum[-1]
            pair_cum[-1] = 1.0
            np.maximum.accumulate(pair_cum, out=pair_cum)
            self.pairs = Guide(pair_cum, np.zeros(1, dtype=np.int64),
                               np.array([size * size], dtype=np.int64))
        self.size = size

    def sample(self, hp_a: int, hp_b: int, n: int, rng: np.random.Generator,
               cap: int) -> D20Batch:
        """``n`` whole fights from (hp_a, hp_b); not over after ``cap`` rounds: a draw."""
        if self.pairs is not None and max(abs(hp_a), abs(hp_b), 1) <= PACK \
                and cap * self.top <= PACK:
            return self._sample_packed(hp_a, hp_b, n, rng, cap, self.pairs)
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

    def _sample_packed(self, hp_a: int, hp_b: int, n: int, rng: np.random.Generator, cap: int,
                       pairs: Guide) -> D20Batch:
        """As :meth:`sample`, two rounds a draw, both fighters' damage in one unsigned word.

        The low half holds ``2**31 - hp_b`` plus the damage a dealt, the high half ``2**31 -
        hp_a`` plus b's: a half reaches its bit 31 exactly when that fighter is down, and never
        carries into the other (``hp`` and ``cap`` times the largest hit within :data:`PACK`).
        """
        size = self.size
        low = np.uint64(0xFFFFFFFF)
        b_down, a_down = np.uint64(1 << 31), np.uint64(1 << 63)
        down = b_down | a_down
        base_b, base_a = (1 << 31) - hp_b, (1 << 31) - hp_a
        inc = (self.to_b.astype(np.uint64)
               | (self.to_a.astype(np.uint64) << np.uint64(32)))  # one round's damage, packed
        inc1 = np.repeat(inc, size)  # the pair's first round
        inc2 = np.tile(inc, size)  # its second
        winner = np.full(n, -1, dtype=np.int8)
        rounds = np.full(n, cap, dtype=np.int64)
        out = np.empty(n, dtype=np.uint64)
        idx = np.arange(n, dtype=np.int64)
        v = np.full(n, base_b | (base_a << 32), dtype=np.uint64)
        first = np.zeros(n, dtype=np.int8)
        number = 0
        while number < cap and idx.size:
            two = number + 2 <= cap
            if two:
                j = pairs.draw(rng.random(idx.size), None)
                v1 = v + inc1[j]
                v = v1 + inc2[j]
                if number == 0:
                    first[:] = self.attacker[j // size]
            else:  # an odd cap: its last round alone
                j = self.guide.draw(rng.random(idx.size), None)
                v1 = v = v + inc[j]
                if number == 0:
                    first[:] = self.attacker[j]
            done = (v & down) != 0  # D-12: a fighter down (monotone: down after the first too)
            if done.any():
                gone = np.flatnonzero(done)
                at_first = (v1[gone] & down) != 0
                final = np.where(at_first, v1[gone], v[gone])
                ids = idx[gone]
                winner[ids] = np.where((final & b_down) != 0, 0, 1)
                rounds[ids] = np.where(at_first, number + 1, number + 2) if two else number + 1
                out[ids] = final
                keep = np.flatnonzero(~done)
                idx, v = idx[keep], v[keep]
            number += 2 if two else 1
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
        from sevendag_cli.d20.vector import simulate_d20_batch

        key = (id(ruleset), id(a), id(b))
        if key != self._key:
            self._key = key
            self._table = round_table(ruleset, a, b)
            self.method = VECTOR if self._table is None else CHAIN
        cap = ruleset.round_cap if cap is None else cap
        if self._table is None or isinstance(cap, bool) or not isinstance(cap, int) or cap < 1 \
                or isinstance(n, bool) or not isinstance(n, int) or n < 0:
            return simulate_d20_batch(ruleset, a, b, n, rng, cap)  # it refuses what is wrong
        return self._table.sample(a.hp, b.hp, n, rng, cap)
