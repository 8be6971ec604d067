"""Several rounds drawn at once (``fight --runs``): the sampler's table of ``k``
rounds is, state by state, exactly every way ``k`` rounds of the one-round table can go —
checked against a brute-force composition in fractions — and the cap, when it is not a
multiple of ``k``, is still played round by round to the end."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import pytest

from sevendag_cli.sevendag import chain as sev_chain
from sevendag_cli.sevendag.sampled import initiative
from sevendag_cli.sim import sample
from tests.sample_helpers import Toy
from tests.sevendag_helpers import RS, bundled

Key = tuple[int, int, tuple[int, ...]]
"""A way rounds go: where they lead, the round the fight ended (0: going on), the rewards."""


def composed(chain: sample.Chain, order: Sequence[int], kinds: int,
             rounds: int) -> dict[int, dict[Key, Fraction]]:
    """Brute force: from each state, every way ``rounds`` rounds go, in fractions."""
    loc = {g: i for i, g in enumerate(order)}
    one: dict[int, list[tuple[int, Fraction, tuple[int, ...]]]] = {}
    for i, g in enumerate(order):
        su = chain.successors(g)
        moves = []
        for target, weight, taken in su.moves:
            if weight > 0:
                counts = [0] * kinds
                for r in taken:
                    counts[r] += 1
                moves.append((loc[target] if target >= 0 else target,
                              Fraction(weight, su.den), tuple(counts)))
        one[i] = moves
    out = {}
    for i in range(len(order)):
        dist: dict[Key, Fraction] = {(i, 0, (0,) * kinds): Fraction(1)}
        for step in range(1, rounds + 1):
            nxt: dict[Key, Fraction] = defaultdict(Fraction)
            for (at, end, got), p in dist.items():
                if at < 0:
                    nxt[(at, end, got)] += p
                    continue
                for target, q, taken in one[at]:
                    key = (target, step if target < 0 else 0,
                           tuple(x + y for x, y in zip(got, taken, strict=True)))
                    nxt[key] += p * q
            dist = nxt
        out[i] = dict(dist)
    return out


def table_moves(sampler: sample.Sampler, table: object) -> dict[int, dict[Key, float]]:
    """The table's moves, state by state, rewards unpacked."""
    t = table
    assert isinstance(t, sample._Table)
    cum = t.guide.cum
    out: dict[int, dict[Key, float]] = defaultdict(dict)
    counts = t.guide.size // sample.GUIDE
    first = np.cumsum(counts) - counts
    mask = (1 << sampler.bits) - 1
    for state, (b, c) in enumerate(zip(first.tolist(), counts.tolist(), strict=True)):
        prev = 0.0
        for j in range(b, b + c):
            got = tuple((int(t.packed[r // sampler.per_word, j])
                         >> (sampler.bits * (r % sampler.per_word))) & mask
                        for r in range(sampler.kinds))
            key = (int(t.next[j]), int(t.end[j]), got)
            assert key not in out[state], "moves alike are merged"
            out[state][key] = float(cum[j]) - prev
            prev = float(cum[j])
    return out


def check(chain: sample.Chain, starts: list[tuple[int, int | Fraction]], cap: int,
          rounds: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sample, "MAX_STEP_ROUNDS", rounds)
    sampler = sample.Sampler(chain, starts, cap)
    table = sampler.many()
    assert table.rounds == rounds
    order = chain.closure([s for s, _ in starts])
    want = composed(chain, order, sampler.kinds, rounds)
    got = table_moves(sampler, table)
    assert sorted(got) == list(range(len(order)))
    for state, dist in want.items():
        assert set(got[state]) == set(dist), state
        for key, p in dist.items():
            assert got[state][key] == pytest.approx(float(p), rel=1e-12, abs=1e-15), (state, key)


@pytest.mark.parametrize("rounds", [2, 3, 4])
def test_rounds_of_the_toy_chain_drawn_at_once_are_its_rounds_composed(
        rounds: int, monkeypatch: pytest.MonkeyPatch) -> None:
    check(Toy(), [(0, 1), (1, 3)], 50, rounds, monkeypatch)


def test_a_cap_of_two_draws_two_rounds_at_once_at_most(monkeypatch: pytest.MonkeyPatch) -> None:
    sampler = sample.Sampler(Toy(), [(0, 1)], 2)
    monkeypatch.setattr(sample, "MAX_STEP_ROUNDS", 5)
    assert sampler.many().rounds == 2


@pytest.mark.parametrize("rounds", [pytest.param(sample.MAX_STEP_ROUNDS, marks=pytest.mark.slow),
                                    pytest.param(3, marks=pytest.mark.slow)])
def test_S19_house_pair_rounds_drawn_at_once_are_its_rounds_composed(
        rounds: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Brannoc and Ysolde (S-21's pair, sheet tactics): every state's table of the rounds drawn
    at once, from the chain's one-round moves (S-10..S-19 as the chain plays them)."""
    brannoc, ysolde = bundled()
    chain = sev_chain.chain_for(RS, brannoc, ysolde)
    starts = [chain.state_id(chain.start_key(0)), chain.state_id(chain.start_key(1))]
    p_a = initiative(RS, brannoc, ysolde)
    check(chain, [(starts[0], p_a), (starts[1], 1 - p_a)], RS.round_cap, rounds,
          monkeypatch)


@pytest.mark.parametrize("cap", [1, 2, 3, 4, 5, 7, 8])
@pytest.mark.parametrize("rounds", [2, 3])
def test_S19_the_cap_is_played_to_its_round_whatever_rounds_a_draw(
        cap: int, rounds: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fight that never ends (one state, a reward each round) stops at exactly ``cap``
    rounds, with ``cap`` rewards, whether the draws took several rounds or 1."""
    monkeypatch.setattr(sample, "MAX_STEP_ROUNDS", rounds)
    kinds = 1

    class Loop:
        def closure(self, starts: Sequence[int]) -> list[int]:
            return [0]

        def successors(self, i: int) -> object:
            class Su:
                den, rewards, moves = 2, (0,), [(0, 1, (0,)), (0, 1, (0,))]
            return Su()

    s = sample.Sampler(Loop(), [(0, 1)], cap)  # type: ignore[arg-type]
    assert s.kinds == kinds
    got = s.sample(sample.MANY_FROM, np.random.Generator(np.random.PCG64(1)))
    assert (got.winner == -1).all() and (got.rounds == cap).all()
    assert (got.rewards[:, 0] == cap).all()
