"""``fight --runs`` drawn from per-state tables: the generic sampler
(:mod:`sevendag_cli.sim.sample`), Sevendag's chain sampler and d20's round table, against
the exact push (``fight --exact``) within 4 standard errors, and their fallbacks to the
vectorised simulators."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from sevendag_cli.d20 import sampled as d20_sampled
from sevendag_cli.d20.exact_fight import ExactFigures
from sevendag_cli.errors import UsageError
from sevendag_cli.rules import D20Fighter, D20Ruleset, SevendagFighter, SevendagRuleset
from sevendag_cli.sevendag import chain as sev_chain
from sevendag_cli.sevendag import sampled as sev_sampled
from sevendag_cli.sevendag.exact_fight import ExactWounds
from sevendag_cli.sim import sample
from sevendag_cli.sim.exact_fight import ExactFight, exact_fight
from sevendag_cli.sim.runner import simulate
from tests.exact_helpers import d14_pair
from tests.records import replace
from tests.sample_helpers import Su, Toy
from tests.sevendag_helpers import (
    RS,
    TINY_RS,
    TINY_X,
    TINY_Y,
    bundled,
    dual,
    greatsword,
    sword_shield,
)

K = 4.0
"""Standard errors allowed (the brief: within 4)."""
N = 200_000


def rng(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def near(values: Any, expected: float, slack: float = 0.0) -> bool:
    """The mean of ``values`` within K standard errors (its own sd) of ``expected`` ± slack."""
    v = np.asarray(values, dtype=np.float64)
    se = float(v.std()) / math.sqrt(v.size)
    return abs(float(v.mean()) - expected) <= K * se + slack + 1e-12


def near_rate(count: int, n: int, low: float, high: float) -> bool:
    p = min(max(count / n, low), high)
    se = math.sqrt(max(p * (1 - p), 1.0 / n) / n)
    return abs(count / n - p) <= K * se + 1e-12


# --- the generic sampler on a chain small enough to solve by hand ------------------------------


def test_the_targets_that_end_a_fight_are_the_chains() -> None:
    assert (sample.A_WINS, sample.B_WINS) == (sev_chain.A_WINS, sev_chain.B_WINS)


def test_toy_chain_odds_starts_and_rewards_drawn_with_their_move() -> None:
    s = sample.sample_fights(Toy(), [(0, 1), (1, 3)], N, 1000, rng(1))
    assert s.winner.shape == s.rounds.shape == s.first_striker.shape == (N,)
    assert s.rewards.shape == (N, 3)
    first = s.first_striker
    assert near_rate(int(np.count_nonzero(first == 1)), N, 0.75, 0.75)
    won = s.winner == 0
    assert near_rate(int(np.count_nonzero(won & (first == 0))), int(np.count_nonzero(first == 0)),
                     2 / 3, 2 / 3)
    assert near_rate(int(np.count_nonzero(won & (first == 1))), int(np.count_nonzero(first == 1)),
                     1 / 3, 1 / 3)
    # Each fight's rewards are those of the moves it took, not their expectation.
    assert np.array_equal(s.rewards[:, 1], 2 * won)
    assert np.array_equal(s.rewards[:, 2], (s.winner == 1).astype(np.int64))
    assert not (s.winner == -1).any() and (s.rounds >= 1).all()
    # Started in state 0, b wins only after going to state 1 (reward 0) at least once.
    from0 = first == 0
    assert (s.rewards[from0, 0] >= s.rewards[from0, 2]).all()
    assert (s.rewards[from0 & (s.winner == 1), 0] >= 1).all()


def test_toy_chain_round_cap_makes_draws() -> None:
    s = sample.sample_fights(Toy(), [(0, 1)], N, 2, rng(2))
    # Within 2 rounds from 0: a wins 1/4 + 1/2 * 1/4; b wins 1/4 * 1/2.
    assert near_rate(int(np.count_nonzero(s.winner == 0)), N, 3 / 8, 3 / 8)
    assert near_rate(int(np.count_nonzero(s.winner == 1)), N, 1 / 8, 1 / 8)
    draws = s.winner == -1
    assert near_rate(int(np.count_nonzero(draws)), N, 1 / 2, 1 / 2)
    assert (s.rounds[draws] == 2).all() and (s.rounds <= 2).all()


def test_same_generator_state_same_fights_and_one_sampler_many_batches() -> None:
    one = sample.sample_fights(Toy(), [(0, 1), (1, 1)], 5_000, 50, rng(3))
    two = sample.sample_fights(Toy(), [(0, 1), (1, 1)], 5_000, 50, rng(3))
    for x, y in zip((one.winner, one.rounds, one.first_striker, one.rewards),
                    (two.winner, two.rounds, two.first_striker, two.rewards), strict=True):
        assert np.array_equal(x, y)
    toy = Toy()
    sampler = sample.Sampler(toy, [(0, 1)], 50)
    built = len(toy.asked)
    g = rng(4)
    batches = [sampler.sample(1_000, g) for _ in range(3)]
    assert len(toy.asked) == built  # the tables are built once
    assert not np.array_equal(batches[0].winner, batches[1].winner)


@pytest.mark.slow
def test_rewards_packed_many_to_a_word_count_up_to_the_cap() -> None:
    """A reward taken every round, in two kinds far apart (different words), up to a cap of
    10,000 rounds: each count is exactly the rounds played."""
    kinds = 9
    loop = {0: Su(10_000, [(0, 9_999, (0, 8, 8)), (sample.A_WINS, 1, (4,))], kinds)}
    s = sample.sample_fights(Toy(loop), [(0, 1)], 2_000, 10_000, rng(5))
    assert np.array_equal(s.rewards[:, 0], s.rounds - (s.winner == 0))
    assert np.array_equal(s.rewards[:, 8], 2 * s.rewards[:, 0])
    assert np.array_equal(s.rewards[:, 4], (s.winner == 0).astype(np.int64))
    assert (s.winner == -1).any() and s.rewards[:, 0].max() == 10_000


def test_moves_that_do_not_add_up_are_refused() -> None:
    bad = {0: Su(4, [(0, 1, ()), (sample.A_WINS, 2, ())], 0)}
    with pytest.raises(ValueError, match="sum to 3, not 4"):
        sample.Sampler(Toy(bad), [(0, 1)], 10)
    with pytest.raises(ValueError):
        sample.Sampler(Toy(), [(0, 1)], 0)
    with pytest.raises(ValueError):
        sample.Sampler(Toy(), [(0, 0)], 10)


# --- Sevendag: the chain sampled against the exact push ------------------------------------------


def sevendag_cases() -> dict[str, tuple[SevendagRuleset, SevendagFighter, SevendagFighter, int]]:
    brannoc, ysolde = bundled()
    return {
        "S-02-S-19-house-pair": (RS, brannoc, ysolde, RS.round_cap),
        "S-19-house-pair-cap-6-draws": (RS, brannoc, ysolde, 6),
        "S-10-granted-criticals-two-handed": (
            replace(RS, fumble_grants_crit=True), greatsword(), greatsword("Dara"), 200),
        "S-10-S-18-tiny-drops-and-grants": (TINY_RS, TINY_X, TINY_Y, 60),
        "S-13-S-18-all-out-vs-dual-recovery-2": (
            replace(RS, failure_beats_crit=False, drop_recovery_rounds=2),
            sword_shield("Eda", metal="bronze", tactic="all-out"), dual("Fenn"), 200),
        "S-12-S-17-dual-mixed-metals-vs-shield-cap-8": (
            RS, dual(attack=12), sword_shield(metal="starmetal"), 8),
    }


def check_sevendag(exact: ExactFight, batch: Any) -> None:
    n = batch.n
    assert isinstance(exact.extras, ExactWounds)
    u = exact.unresolved
    for i, f in enumerate(exact.fighters):
        assert near_rate(int(np.count_nonzero(batch.winner == i)), n, *f.bounds), (f, i)
        assert near_rate(int(np.count_nonzero(batch.first_striker == i)), n,
                         f.first_strike_probability, f.first_strike_probability)
        for j, band in enumerate(exact.extras.fighters[i].wounds):
            assert near(batch.wounds[:, i, j], band.mean, u * 1000), (f.name, band)
    assert near_rate(int(np.count_nonzero(batch.winner == -1)), n, *exact.draw_bounds)
    assert near(batch.rounds, exact.rounds.mean, exact.rounds.mean_bounds[1] - exact.rounds.mean)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(sevendag_cases()))
def test_S02_S19_chain_sample_agrees_with_the_exact_push(name: str) -> None:
    rs, a, b, cap = sevendag_cases()[name]
    exact = exact_fight(rs, a, b, cap=cap)
    fn = sev_sampled.SevendagBatches()
    batch = fn(rs, a, b, N, rng(20261201), cap)
    assert fn.method == sev_sampled.CHAIN
    assert batch.wounds.shape == (N, 2, len(rs.wounds))
    # S-19: out after one fatal wound: the fatal wounds a fighter took are the other's wins.
    for i in (0, 1):
        if rs.wounds[-1].out_after == 1 and not any(w.out_after for w in rs.wounds[:-1]):
            assert np.array_equal(batch.wounds[:, i, -1], (batch.winner == 1 - i))
    check_sevendag(exact, batch)


def test_S19_cap_matters_in_that_case() -> None:
    rs, a, b, cap = sevendag_cases()["S-19-house-pair-cap-6-draws"]
    assert exact_fight(rs, a, b, cap=cap).draw_probability > 0.5


def test_sevendag_past_the_state_budget_falls_back_to_every_die(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """More states than the budget: the vectorised simulator runs, and still agrees."""
    brannoc, ysolde = bundled()
    monkeypatch.setattr(sev_sampled, "state_budget", lambda n: 50)
    fn = sev_sampled.SevendagBatches()
    batch = fn(RS, brannoc, ysolde, 100_000, rng(8), 6)
    assert fn.method == sev_sampled.VECTOR
    check_sevendag(exact_fight(RS, brannoc, ysolde, cap=6), batch)


def test_sevendag_too_many_faces_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    brannoc, ysolde = bundled()
    monkeypatch.setattr(sev_chain, "MAX_FACES", 10)
    monkeypatch.setattr(sev_chain, "_CACHE", {})
    fn = sev_sampled.SevendagBatches()
    batch = fn(RS, brannoc, ysolde, 1_000, rng(9), 50)
    assert fn.method == sev_sampled.VECTOR and batch.n == 1_000


def test_state_budget_grows_with_the_batch() -> None:
    assert sev_sampled.state_budget(1) == 0
    assert sev_sampled.state_budget(100_000) == 4_000
    assert sev_sampled.state_budget(10**9) == sev_chain.MAX_STATES


def test_small_batches_roll_every_die_rather_than_build_a_chain() -> None:
    brannoc, ysolde = bundled()
    fn = sev_sampled.SevendagBatches()
    assert fn(RS, brannoc, ysolde, 2_000, rng(16), 200).n == 2_000
    assert fn.method == sev_sampled.VECTOR
    fn = sev_sampled.SevendagBatches()
    fn(RS, brannoc, ysolde, 20_000, rng(16), 200)
    assert fn.method == sev_sampled.CHAIN


def test_sevendag_chain_sizes_are_what_the_sampler_was_measured_on() -> None:
    """The house pair's chain is small (its closure within the budget of 12,400 fights)."""
    brannoc, ysolde = bundled()
    chain = sev_chain.chain_for(RS, brannoc, ysolde)
    starts = [chain.state_id(chain.start_key(0)), chain.state_id(chain.start_key(1))]
    order = chain.reachable(starts, sev_sampled.state_budget(12_400))
    assert order is not None and len(order) == 496
    assert chain.reachable(starts, 10) is None


def test_successors_moves_add_up_to_targets_absorb_and_rewards() -> None:
    """Successors.moves is the round whole: summed by target it gives targets/probs and
    absorb, summed by reward it gives rewards (the chain's other fields, unchanged)."""
    chain = sev_chain.chain_for(TINY_RS, TINY_X, TINY_Y)
    order = chain.closure([chain.state_id(chain.start_key(0)), chain.state_id(chain.start_key(1))])
    assert len(order) > 10
    for g in order:
        s = chain.successors(g)
        by_target: dict[int, int] = {}
        rewards = [0] * len(s.rewards)
        for t, w, taken in s.moves:
            by_target[t] = by_target.get(t, 0) + w
            for r in taken:
                rewards[r] += w
        assert by_target.pop(sev_chain.A_WINS, 0) == s.absorb[0]
        assert by_target.pop(sev_chain.B_WINS, 0) == s.absorb[1]
        assert list(by_target) == list(s.targets)
        assert [w / s.den for w in by_target.values()] == list(s.probs)
        assert tuple(rewards) == s.rewards
        assert sum(w for _, w, _ in s.moves) == s.den


# --- d20: the round's table against the exact push ------------------------------------------------


def d20_cases() -> dict[str, tuple[D20Ruleset, D20Fighter, D20Fighter, int]]:
    rs, a, b = d14_pair()
    return {
        "D-02-D-12-D-14-pair": (rs, a, b, 1000),  # a cap of 1000: no part of a 43-round fight
        "D-12-mid-fight-cap-15": (rs, replace(a, hp=20), replace(b, hp=31), 15),
    }


def check_d20(exact: ExactFight, batch: Any) -> None:
    n = batch.n
    assert isinstance(exact.extras, ExactFigures)
    for i, f in enumerate(exact.fighters):
        assert near_rate(int(np.count_nonzero(batch.winner == i)), n, *f.bounds), (f, i)
        assert near_rate(int(np.count_nonzero(batch.first_striker == i)), n,
                         f.first_strike_probability, f.first_strike_probability)
        hp = (batch.hp_a, batch.hp_b)[i][batch.winner == i]
        assert near(hp, exact.extras.fighters[i].hp_left_when_winning.mean), (f.name, hp.mean())
        dealt = (batch.dealt_a, batch.dealt_b)[i]
        assert near(dealt, exact.extras.fighters[i].damage_dealt), (f.name, dealt.mean())
    assert near_rate(int(np.count_nonzero(batch.winner == -1)), n, *exact.draw_bounds)
    assert near(batch.rounds, exact.rounds.mean, exact.rounds.mean_bounds[1] - exact.rounds.mean)


@pytest.mark.parametrize("name", list(d20_cases()))
def test_D02_D12_round_table_sample_agrees_with_the_exact_push(name: str) -> None:
    rs, a, b, cap = d20_cases()[name]
    exact = exact_fight(rs, a, b, cap=cap)
    fn = d20_sampled.D20Batches()
    batch = fn(rs, a, b, N, rng(11), cap)
    assert fn.method == d20_sampled.CHAIN
    if cap < 100:
        assert exact.draw_probability > 0.05  # the cap matters
    check_d20(exact, batch)


@pytest.mark.parametrize("name", list(d20_cases()))
def test_D02_D12_three_rounds_a_draw_agree_too(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rs, a, b, cap = d20_cases()[name]
    monkeypatch.setattr(d20_sampled, "MAX_BLOCK", 39 ** 3)
    fn = d20_sampled.D20Batches()
    batch = fn(rs, a, b, N, rng(15), cap)
    assert fn._table is not None and fn._table.block == 3
    check_d20(exact_fight(rs, a, b, cap=cap), batch)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(d20_cases()))
def test_D02_D12_one_round_a_draw_unpacked_agrees_too(name: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Hit points or damage too large for both fighters' damage in one word: one round a draw,
    each fighter's damage in its own array (the same table)."""
    rs, a, b, cap = d20_cases()[name]
    monkeypatch.setattr(d20_sampled, "PACK", 10)
    fn = d20_sampled.D20Batches()
    batch = fn(rs, a, b, N, rng(13), cap)
    assert fn.method == d20_sampled.CHAIN
    check_d20(exact_fight(rs, a, b, cap=cap), batch)


@pytest.mark.parametrize("block", [2, 3])
@pytest.mark.parametrize("cap", [1, 2, 3, 4])
def test_D12_short_caps_play_exactly_cap_rounds(cap: int, block: int,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Two or three rounds a draw, the cap's last rounds a shorter block: nobody plays past the
    cap, and from 1 HP each the first damaging round ends the fight."""
    monkeypatch.setattr(d20_sampled, "MAX_BLOCK", 39 ** block)
    rs, a, b = d14_pair()
    a1, b1 = replace(a, hp=1), replace(b, hp=1)
    exact = exact_fight(rs, a1, b1, cap=cap)
    fn = d20_sampled.D20Batches()
    batch = fn(rs, a1, b1, N, rng(14), cap)
    assert fn._table is not None and fn._table.block == block
    assert batch.rounds.max() <= cap and (batch.rounds[batch.winner == -1] == cap).all()
    check_d20(exact, batch)


def test_D12_too_much_damage_for_a_table_falls_back_to_every_die(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rs, a, b, cap = d20_cases()["D-12-mid-fight-cap-15"]
    monkeypatch.setattr(d20_sampled, "MAX_SAMPLED_DAMAGE", 3)
    fn = d20_sampled.D20Batches()
    batch = fn(rs, a, b, 100_000, rng(12), cap)
    assert fn.method == d20_sampled.VECTOR
    check_d20(exact_fight(rs, a, b, cap=cap), batch)


# --- the runner's promises, kept ---------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ["sevendag", "d20"])
def test_C01_same_seed_same_result_and_batches_add_up(ruleset: str) -> None:
    import sevendag_cli.library as sd

    m = sd.matchup(ruleset=ruleset)
    one = simulate(m.ruleset, m.a, m.b, 50_000, seed=9, batch_size=20_000)
    two = simulate(m.ruleset, m.a, m.b, 50_000, seed=9, batch_size=20_000)
    assert one == two
    other = simulate(m.ruleset, m.a, m.b, 50_000, seed=10, batch_size=20_000)
    assert other != one and other.runs == 50_000
    assert sum(c for _, c in one.rounds.histogram) == 50_000
    assert one.fighters[0].first_strikes + one.fighters[1].first_strikes == 50_000


PINNED = {"sevendag": (10_331, 9_669, 0, 224_351), "d20": (9_156, 10_844, 0, 864_725)}
"""Seeded draws from the tables (C-01: same seed, same fights): 20,000 fights, seed 5 — each
fighter's wins, the draws, the rounds played in all.  A deliberate change of the sampler
changes them: review and update."""


@pytest.mark.parametrize("ruleset", sorted(PINNED))
def test_C01_seeded_draws_from_the_tables_are_the_kept_ones(
        ruleset: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import sevendag_cli.library as sd
    from sevendag_cli.d20 import vector as d20_vector
    from sevendag_cli.sevendag import vector as sev_vector

    def no(*args: Any) -> Any:
        raise AssertionError("every die rolled: the tables were not used")

    monkeypatch.setattr(d20_vector, "simulate_d20_batch", no)
    monkeypatch.setattr(sev_vector, "simulate_sevendag_batch", no)
    m = sd.matchup(ruleset=ruleset)
    r = simulate(m.ruleset, m.a, m.b, 20_000, seed=5)
    rounds = sum(t * c for t, c in r.rounds.histogram)
    assert (r.fighters[0].wins, r.fighters[1].wins, r.draws, rounds) == PINNED[ruleset]


def test_refusals_stay_the_vectorised_simulators() -> None:
    rs, a, b = d14_pair()
    with pytest.raises(UsageError):
        d20_sampled.D20Batches()(rs, a, b, 10, rng(1), 0)
    brannoc, ysolde = bundled()
    with pytest.raises(UsageError):
        sev_sampled.SevendagBatches()(RS, brannoc, ysolde, 10, rng(1), 0)


# --- the guide tables: the move of every uniform number, exactly ---------------------------------


def test_guide_draws_what_a_search_of_the_cumulative_table_would() -> None:
    """Every number in [0, 1), the table's own boundaries and their neighbours included, draws
    the move a binary search of its state's cumulative probabilities finds (tiny moves too)."""
    g = rng(21)
    # Boundaries on or a hair from a bucket's edge too: 1/4 and 1/2 of 4 or 8 buckets.
    weights = [[1], [1, 1], [1, 10**-13, 3], [5, 1e-300, 2, 7, 1], list(g.random(40)),
               [1, 1, 2], [1, 1 + 2**-50, 2 - 2**-50, 4]]
    cums, begin = [], []
    for w in weights:
        c = np.cumsum(np.array(w, dtype=np.float64)) / sum(w)
        c[-1] = 1.0
        begin.append(sum(len(x) for x in cums))
        cums.append(c)
    guide = sample.Guide(np.concatenate(cums), np.array(begin, dtype=np.int64),
                         np.array([len(c) for c in cums], dtype=np.int64))
    for s, c in enumerate(cums):
        buckets = np.arange(1, sample.GUIDE * c.size) / (sample.GUIDE * c.size)
        edges = np.concatenate([c[:-1], np.nextafter(c[:-1], 0), np.nextafter(c[:-1], 1),
                                buckets, np.nextafter(buckets, 0), np.nextafter(buckets, 1)])
        r = np.clip(np.concatenate([g.random(20_000), edges, [0.0, np.nextafter(1.0, 0)]]),
                    0.0, np.nextafter(1.0, 0))
        k = np.full(r.size, s, dtype=np.int64)
        want = begin[s] + np.minimum(c.searchsorted(r, side="right"), c.size - 1)
        assert np.array_equal(guide.draw(r, k), want), s
    one = sample.Guide(cums[4], np.zeros(1, dtype=np.int64), np.array([40], dtype=np.int64))
    assert (guide.guide >= 0).mean() > 0.5  # most buckets hold one move whole: no look
    r = g.random(10_000)
    assert np.array_equal(one.draw(r, None), cums[4].searchsorted(r, side="right"))


@pytest.mark.parametrize("roll", ["1d20 + speed", "2d6 + speed - 1d4", "speed + 3",
                                  "2d20kh1 + speed", "1d6! + speed"])
def test_S02_initiative_without_icepool_is_the_exact_solvers(roll: str) -> None:
    from sevendag_cli.formula import parse
    from sevendag_cli.sevendag.exact import initiative_probability

    brannoc, ysolde = bundled()
    rs = replace(RS, speed_roll=parse(roll))
    assert sev_sampled.initiative(rs, brannoc, ysolde) == initiative_probability(rs, brannoc, ysolde)
    assert sev_sampled.initiative(rs, ysolde, brannoc) == initiative_probability(rs, ysolde, brannoc)


def test_S02_speed_rolls_that_always_tie_are_refused_as_by_the_exact_solver() -> None:
    from sevendag_cli.errors import RuleError
    from sevendag_cli.formula import parse

    brannoc, _ = bundled()
    rs = replace(RS, speed_roll=parse("5"))
    with pytest.raises(RuleError):
        sev_sampled.initiative(rs, brannoc, brannoc)


def test_moves_kept_only_for_a_sampler_and_the_same_worked_out_again() -> None:
    """An exact solve's chain keeps no moves (memory); asked for, they are the kept ones."""
    kept = sev_chain.SevendagChain(TINY_RS, TINY_X, TINY_Y)
    kept.keep_moves = True
    lean = sev_chain.SevendagChain(TINY_RS, TINY_X, TINY_Y)
    starts = [kept.state_id(kept.start_key(0)), kept.state_id(kept.start_key(1))]
    assert starts == [lean.state_id(lean.start_key(0)), lean.state_id(lean.start_key(1))]
    order = kept.closure(starts)
    assert lean.closure(starts) == order
    for g in order:
        assert isinstance(kept.successors(g)._moves[0], tuple)
        assert lean.successors(g)._moves == (lean, g)
        assert lean.successors(g).moves == kept.successors(g).moves
