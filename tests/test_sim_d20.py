"""d20 simulation and exact solver (D-02 .. D-12): stats, exact model, vectorised engine, runner."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np
import pytest

from sevendag_cli.d20 import engine
from sevendag_cli.d20.exact import (
    attack_distribution,
    exact_d20,
    initiative_probability,
    round_distribution,
)
from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
from sevendag_cli.d20.sim_extra import D20Extra
from sevendag_cli.d20.vector import VecFormula, sample_attacks, simulate_d20_batch
from sevendag_cli.dice import DiceSource, SeededDice
from sevendag_cli.errors import UsageError
from sevendag_cli.formula import parse
from sevendag_cli.rules import fighter_from_data, load_pair, load_ruleset
from sevendag_cli.sevendag.sim_extra import SevendagExtra
from sevendag_cli.sim.formula_dice import formula_dist, natural_split
from sevendag_cli.sim.runner import MAX_RUNS, SimulationResult, simulate
from sevendag_cli.sim.stats import Histogram, summarize, wilson
from tests.exact_helpers import distribution
from tests.records import replace

# --- fixtures -------------------------------------------------------------------


@lru_cache(maxsize=1)
def _base() -> tuple[D20Ruleset, D20Fighter, D20Fighter]:
    rs = load_ruleset("d20")
    a, b = load_pair(rs, None)
    assert isinstance(rs, D20Ruleset) and isinstance(a, D20Fighter) and isinstance(b, D20Fighter)
    return rs, a, b


A_SHEET: dict[str, Any] = {
    "ruleset": "d20", "name": "A", "race": "Forêt", "level": 5, "str": 12, "dex": 18,
    "con": 8, "wis": 5, "bba": 3, "ac": 5, "hp": 45,
    "weapon": {"name": "club", "damage": "1d6", "type": 0},
}
B_SHEET: dict[str, Any] = {
    "ruleset": "d20", "name": "B", "race": "Montagne", "level": 5, "str": 18, "dex": 10,
    "con": 10, "wis": 8, "bba": 3, "ac": 5, "hp": 50,
    "weapon": {"name": "spear", "damage": "1d8", "type": 0},
}


def sheet(rs: D20Ruleset, base: dict[str, Any], **changes: Any) -> D20Fighter:
    data = {**base, **{k: v for k, v in changes.items() if k != "weapon"}}
    if "weapon" in changes:
        data["weapon"] = {**base["weapon"], **changes["weapon"]}
    f = fighter_from_data(data, "test", rs)
    assert isinstance(f, D20Fighter)
    return f


def with_formulas(rs: D20Ruleset, **formulas: str) -> D20Ruleset:
    changes: dict[str, Any] = {k: parse(v) for k, v in formulas.items()}
    return replace(rs, **changes)


# --- chi-square ------------------------------------------------------------------


def chi2_sf(x: float, dof: int) -> float:
    """P(chi-square with ``dof`` degrees of freedom > x) (scipy.stats, imported only here:
    not at collection)."""
    from scipy.stats import chi2

    return float(chi2.sf(x, dof))


def chi2_contingency_p(table: np.ndarray) -> float:
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    stat = float(((table - expected) ** 2 / expected).sum())
    dof = (table.shape[0] - 1) * (table.shape[1] - 1)
    return chi2_sf(stat, dof)


def chisquare_p(observed: np.ndarray, expected: np.ndarray) -> float:
    stat = float(((observed - expected) ** 2 / expected).sum())
    return chi2_sf(stat, observed.size - 1)


def _pool_small(obs: np.ndarray, exp: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge the cells expected fewer than 5 times into one."""
    keep = exp >= 5
    if keep.all():
        return obs, exp
    return np.append(obs[keep], obs[~keep].sum()), np.append(exp[keep], exp[~keep].sum())


# --- stats ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("k", "n"), [(0, 10), (5, 10), (10, 10), (81, 263), (1, 1000), (4562, 10000)]
)
def test_wilson_is_the_score_interval(k: int, n: int) -> None:
    """The Wilson bounds are the roots of (p_hat - p)^2 = z^2 p (1 - p) / n."""
    z2 = 1.959963984540054**2
    ph = k / n
    roots = sorted(np.roots([1 + z2 / n, -(2 * ph + z2 / n), ph * ph]).real)
    low, high = wilson(k, n)
    assert low == pytest.approx(max(0.0, roots[0]), abs=1e-9)
    assert high == pytest.approx(min(1.0, roots[1]), abs=1e-9)


def test_wilson_known_values() -> None:
    # Textbook values (Newcombe 1998, method 3): 81/263 -> 0.2553 .. 0.3662.
    low, high = wilson(81, 263)
    assert (round(low, 4), round(high, 4)) == (0.2553, 0.3662)
    low, high = wilson(0, 10)
    assert low == 0.0 and round(high, 4) == 0.2775
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_summary_of_histogram_matches_numpy() -> None:
    rng = np.random.default_rng(3)
    sample = rng.poisson(40, size=20_001)
    h = Histogram()
    for chunk in np.array_split(sample, 7):  # accumulated across batches
        h.add(chunk)
    s = h.summary()
    assert s.count == sample.size
    assert s.mean == pytest.approx(sample.mean(), rel=1e-12)
    assert s.sd == pytest.approx(sample.std(), rel=1e-9)
    assert s.p50 == int(np.percentile(sample, 50, method="inverted_cdf"))
    assert s.p90 == int(np.percentile(sample, 90, method="inverted_cdf"))
    assert s.max == sample.max()
    assert summarize([0, 0, 3]).p50 == 2 and summarize([]).count == 0


# --- exact model ----------------------------------------------------------------


def test_exact_d14_duel_sanity() -> None:
    """D-14 duel (A against B): probabilities sum to 1, no draw, plausible length."""
    rs, a, b = _base()
    r = exact_d20(rs, a, b)
    assert r.fighters == ("A", "B")
    assert r.win_probability[0] + r.win_probability[1] + r.draw_probability == 1
    assert r.draw_probability == 0
    assert 0.3 < r.win_probability[0] < 0.7
    # About 45-50 HP at one or two points a hit: dozens of rounds, well under the cap.
    assert 20 < r.rounds_mean < 80
    assert isinstance(r.win_probability[0], Fraction) and r.note


def test_exact_initiative_with_ties_d02() -> None:
    """D-02: P(a attacks) = P(a > b) / (1 - P(tie)), counted face by face."""
    rs, a, b = _base()
    wins = ties = 0
    for fa in range(1, 21):
        for fb in range(1, 21):
            ta, tb = fa + 4, fb + 0  # mod(DEX 18) = 4, mod(DEX 10) = 0
            wins += ta > tb
            ties += ta == tb
    assert initiative_probability(rs, a, b) == Fraction(wins, 400 - ties)


def test_exact_one_hp_each_by_hand_d12() -> None:
    """D-12 with 1 HP each: the first damaging round decides, so P(a) = wa / (wa + wb)."""
    rs, _, _ = _base()
    a = sheet(rs, A_SHEET, hp=1)
    b = sheet(rs, B_SHEET, hp=1)
    rd = round_distribution(rs, a, b)
    wa = rd.p_a_attacks * (1 - rd.a_attacks.damage.get(0, Fraction(0)))
    wb = (1 - rd.p_a_attacks) * (1 - rd.b_attacks.damage.get(0, Fraction(0)))
    r = exact_d20(rs, a, b)
    assert r.win_probability[0] == wa / (wa + wb)
    assert r.rounds_mean == 1 / (wa + wb)


def _float_chain(rs: D20Ruleset, a: D20Fighter, b: D20Fighter) -> tuple[float, float]:
    """Independent solve: the full transition matrix over (hp_a, hp_b), numpy linear algebra."""
    rd = round_distribution(rs, a, b)
    pa = float(rd.p_a_attacks)
    states = [(x, y) for x in range(1, a.hp + 1) for y in range(1, b.hp + 1)]
    index = {s: i for i, s in enumerate(states)}
    n = len(states)
    q = np.zeros((n, n))
    win = np.zeros(n)
    for (x, y), i in index.items():
        for d, p in rd.a_attacks.damage.items():
            w = pa * float(p)
            if y - d <= 0:
                win[i] += w
            else:
                q[i, index[(x, y - d)]] += w
        for d, p in rd.b_attacks.damage.items():
            w = (1 - pa) * float(p)
            if x - d > 0:
                q[i, index[(x - d, y)]] += w
    m = np.eye(n) - q
    p_win = np.linalg.solve(m, win)
    rounds = np.linalg.solve(m, np.ones(n))
    start = index[(a.hp, b.hp)]
    return float(p_win[start]), float(rounds[start])


@pytest.mark.parametrize(
    ("hp_a", "hp_b", "weapon_a"),
    [(7, 9, {}), (12, 5, {"crit_range": 17, "crit_factor": 3}), (10, 10, {"magic": "1d4"})],
)
def test_exact_matches_float_markov_chain(hp_a: int, hp_b: int, weapon_a: dict[str, Any]) -> None:
    rs, _, _ = _base()
    a = sheet(rs, A_SHEET, hp=hp_a, weapon=weapon_a)
    b = sheet(rs, B_SHEET, hp=hp_b)
    r = exact_d20(rs, a, b)
    p, rounds = _float_chain(rs, a, b)
    assert float(r.win_probability[0]) == pytest.approx(p, abs=1e-12)
    assert float(r.rounds_mean) == pytest.approx(rounds, rel=1e-12)


def _engine_attack_distribution(
    rs: D20Ruleset, att: D20Fighter, dfd: D20Fighter
) -> dict[int, Fraction]:
    """Every branch of the step-by-step engine's resolve_attack, weighted exactly."""
    return distribution(lambda d: engine.resolve_attack(rs, att, dfd, d)[1])


def _enumerate_formula(text: str, env: dict[str, int]) -> dict[int, Fraction]:
    """Every face sequence of Formula.evaluate (the engine's evaluator), weighted exactly."""
    return distribution(lambda d: parse(text).evaluate(env, d).value)


FORMULAS = ["1d20 + mod(dex)", "max(1d20, 1d20) + 2", "(1d6 * 2) // 3", "10 // 1d3 - bba",
            "-1d4 + 5", "min(1d6, 3, str) + 2d4", "mod(1d20 + 10) * -1", "3d6",
            # the dice notation: keep/drop, d%, exploding dice
            "2d20kh1 + 3", "2d20kl1 - mod(dex)", "4d4dl1", "3d4kh2 - 1d4", "1d6! + 2", "2d4!kh1",
            "max(2d6kh1, 1d4!)", "d% // 10", "3d3!dh1", "2 * 3d4kl2",
            # die modifiers: reroll once or while, minimum, maximum
            "4d4ro1kh3", "2d4rr1 + 1", "1d6rr<3 - bba", "2d6mi3", "1d8ma5 - 1", "3d4ro>3dl1",
            "max(1d6rr1, 1d4mi2)"]


@pytest.mark.parametrize("text", FORMULAS)
def test_formula_distributions_c03(text: str) -> None:
    """C-03: the exact (icepool) and vectorised readings of a formula agree with the evaluator."""
    _, a, _ = _base()
    env = a.env()
    exact = formula_dist(parse(text), env)
    assert exact == _enumerate_formula(text, env)
    rng = np.random.Generator(np.random.PCG64(12))
    total, _ = VecFormula.bind(parse(text), env).roll(rng, 100_000)
    counts = Counter(total.tolist())
    assert set(counts) <= set(exact)
    values = sorted(exact)
    obs = np.array([counts.get(v, 0) for v in values], dtype=float)
    exp = np.array([float(exact[v]) * total.size for v in values])
    obs, exp = _pool_small(obs, exp)
    assert obs.size == 1 or chisquare_p(obs, exp) > 0.001


def _enumerate_joint(text: str, env: dict[str, int]) -> dict[tuple[int | None, int], Fraction]:
    """Every face sequence of Formula.evaluate, as (natural, value), weighted exactly."""

    def joint(d: DiceSource) -> tuple[int | None, int]:
        ev = parse(text).evaluate(env, d)
        return ev.natural, ev.value

    return distribution(joint)


NATURAL_FORMULAS = ["2d20kh1 + 2", "2d20kl1 - 1", "3d4kh2", "3d4dl1 + 1d4", "1d6! + 1", "2d6!kh1",
                    "2d4!kl1", "2d20 + 1d4", "4d4dh1", "max(2d6kl1, 3)",
                    # a modified die's natural is the face that stands, raised or lowered
                    "1d20mi10 + 2", "1d20ro1 + 1d4", "2d6ma4kl1", "2d4rr1kh1 - 1", "2d6ro<3"]


@pytest.mark.parametrize("text", NATURAL_FORMULAS)
def test_natural_split_c03_d06(text: str) -> None:
    """D-06: a check's natural (its kept die) and total, jointly: the exact split equals the
    step-by-step evaluator's, and the vectorised sample fits it."""
    _, a, _ = _base()
    env = a.env()
    joint: dict[tuple[int | None, int], Fraction] = {}
    for n, pn, weights in natural_split(parse(text), env):
        den = sum(weights.values())
        for v, q in weights.items():
            joint[(n, v)] = joint.get((n, v), Fraction(0)) + pn * Fraction(q, den)
    assert joint == _enumerate_joint(text, env)
    rng = np.random.Generator(np.random.PCG64(21))
    total, nat = VecFormula.bind(parse(text), env).roll(rng, 100_000, natural=True)
    assert nat is not None
    counts = Counter(zip(nat.tolist(), total.tolist(), strict=True))
    assert set(counts) <= set(joint)
    cells = sorted(joint, key=lambda c: (c[0] or 0, c[1]))
    obs = np.array([counts.get(c, 0) for c in cells], dtype=float)
    exp = np.array([float(joint[c]) * total.size for c in cells])
    obs, exp = _pool_small(obs, exp)
    assert chisquare_p(obs, exp) > 0.001


VARIANTS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    # (name, ruleset changes, attacker weapon changes); small dice keep the tree small.
    ("D-07 crit 17-20 x3, D-08 level_table",
     {"dd_mode": "level_table"}, {"damage": "1d2", "crit_range": 17, "crit_factor": 3}),
    ("D-08 negate, D-09 magic, crit multiplies magic, level_table defender",
     {"dd_mode": "level_table", "dd_level_of": "defender", "save_success": "negate",
      "crit_multiplies_magic": True}, {"damage": "1d2", "magic": "1d2 + 1"}),
    ("D-08 rolled DD, D-10 min damage 0", {"min_damage": 0}, {"damage": "1d1"}),
    ("D-04 advantage: natural is the first of max(1d20, 1d20)",
     {"dd_mode": "level_table", "attack": parse("max(1d20, 1d20) + bba - 3")},
     {"damage": "1d1", "crit_range": 19}),
    ("D-06 advantage house rule: the natural is the kept die of 2d20kh1",
     {"dd_mode": "level_table", "attack": parse("2d20kh1 + bba - 3")},
     {"damage": "1d1", "crit_range": 19}),
    ("D-08 save with disadvantage 2d20kl1",
     {"dd_mode": "level_table", "save": parse("2d20kl1 + mod(dex) + dodge")}, {"damage": "1d1"}),
    ("D-09 exploding damage 1d2!", {"dd_mode": "level_table"}, {"damage": "1d2!"}),
    ("D-06 a reliable attack 1d20mi10 never misses naturally, D-09 damage rerolled 1d3ro1",
     {"dd_mode": "level_table", "attack": parse("1d20mi10 + bba - 3")},
     {"damage": "1d3ro1", "crit_range": 19}),
    ("D-08 a lucky save 1d20ro1, D-09 damage 1d4ma3",
     {"dd_mode": "level_table", "save": parse("1d20ro1 + mod(dex) + dodge")}, {"damage": "1d4ma3"}),
    ("D-06 natural hit 19 / miss 3, save naturals 18 / 2",
     {"dd_mode": "level_table", "natural_hit": 19, "natural_miss": 3,
      "save_natural_success": 18, "save_natural_failure": 2}, {"damage": "1d2"}),
]


def _variant(rules: dict[str, Any],
             weapon: dict[str, Any]) -> tuple[D20Ruleset, D20Fighter, D20Fighter]:
    rs, _, _ = _base()
    small = dict(vig="1d2 + mod(con)", vol="1d2 + mod(wis)")
    rs = replace(with_formulas(rs, **small), **rules)
    att = sheet(rs, A_SHEET, bba=-2, str=16, weapon=weapon)
    dfd = sheet(rs, B_SHEET, ac=9, dodge=2, level=30, con=12)
    return rs, att, dfd


@pytest.mark.slow
@pytest.mark.parametrize(("name", "rules", "weapon"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_exact_attack_matches_engine_tree(name: str, rules: dict[str, Any],
                                          weapon: dict[str, Any]) -> None:
    """D-04..D-10: the exact attack distribution equals the engine's, branch by branch."""
    rs, att, dfd = _variant(rules, weapon)
    assert attack_distribution(rs, att, dfd).damage == _engine_attack_distribution(rs, att, dfd)


@pytest.mark.parametrize(("name", "rules", "weapon"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_vector_attacks_fit_exact_variants(name: str, rules: dict[str, Any],
                                           weapon: dict[str, Any]) -> None:
    """D-04..D-10: the vectorised attacks follow the exact law on every variant."""
    rs, att, dfd = _variant(rules, weapon)
    _fit_exact(name, rs, att, dfd)


def test_exact_refuses_a_fight_without_damage() -> None:
    """D-09/D-10 with min_damage 0: nobody can hurt anybody, so no exact odds."""
    rs, _, _ = _base()
    rs = replace(rs, min_damage=0)
    a = sheet(rs, A_SHEET, str=1, weapon={"damage": "1d1"}, con=30)
    b = sheet(rs, B_SHEET, str=1, weapon={"damage": "1d1"}, con=30)
    with pytest.raises(UsageError, match="never"):
        exact_d20(rs, a, b)


def test_exact_refuses_huge_hit_points() -> None:
    rs, _, _ = _base()
    with pytest.raises(UsageError, match="--runs"):
        exact_d20(rs, sheet(rs, A_SHEET, hp=5000), sheet(rs, B_SHEET, hp=3))
    with pytest.raises(UsageError, match="too long"):
        exact_d20(rs, sheet(rs, A_SHEET, hp=1500), sheet(rs, B_SHEET, hp=1500))


# --- vectorised engine ----------------------------------------------------------


def test_vector_formula_natural_is_first_die() -> None:
    _, a, _ = _base()
    rng = np.random.Generator(np.random.PCG64(1))
    f = VecFormula.bind(parse("2d20 + max(1d4, 3) - mod(str)"), a.env())
    total, nat = f.roll(rng, 50_000, natural=True)
    assert nat is not None and nat.min() == 1 and nat.max() == 20
    exact = formula_dist(parse("2d20 + max(1d4, 3) - mod(str)"), a.env())
    assert total.mean() == pytest.approx(float(sum(v * p for v, p in exact.items())), abs=0.1)
    _, const_nat = VecFormula.bind(parse("7"), a.env()).roll(rng, 3, natural=True)
    assert const_nat is not None and const_nat.tolist() == [0, 0, 0]


def test_vector_batch_shapes_and_d12() -> None:
    """D-12: the winner has HP left, the loser is at 0 or below; draws only at the cap."""
    rs, a, b = _base()
    rng = np.random.Generator(np.random.PCG64(5))
    bt = simulate_d20_batch(rs, a, b, 20_000, rng, 1000)
    won_a = bt.winner == 0
    won_b = bt.winner == 1
    assert (won_a | won_b).all()
    assert (bt.hp_a[won_a] > 0).all() and (bt.hp_b[won_a] <= 0).all()
    assert (bt.hp_b[won_b] > 0).all() and (bt.hp_a[won_b] <= 0).all()
    assert (bt.dealt_a == b.hp - bt.hp_b).all() and (bt.dealt_b == a.hp - bt.hp_a).all()
    assert set(np.unique(bt.first_striker)) == {0, 1}
    capped = simulate_d20_batch(rs, a, b, 1000, rng, 3)
    assert (capped.winner == -1).all() and (capped.rounds == 3).all()


def test_vector_natural_hit_only_d06() -> None:
    """D-06: against AC 100 only a natural 20 hits (and then a crit, D-07)."""
    rs, a, b = _base()
    b = sheet(rs, B_SHEET, ac=100)
    rng = np.random.Generator(np.random.PCG64(9))
    s = sample_attacks(rs, a, b, 200_000, rng)
    lo, hi = wilson(int(s.hit.sum()), s.hit.size)
    assert lo <= 1 / 20 <= hi
    assert (s.critical == s.hit).all()


def _exact_fights(rs: D20Ruleset, a: D20Fighter, b: D20Fighter) -> float:
    return float(exact_d20(rs, a, b).win_probability[0])


def _coverage_cases() -> list[tuple[str, D20Ruleset, D20Fighter, D20Fighter]]:
    rs, a, b = _base()
    return [
        ("D-14 duel", rs, a, b),
        ("D-07 crit 17-20 x3", rs, sheet(rs, A_SHEET, weapon={"crit_range": 17, "crit_factor": 3}),
         b),
        ("D-08 dodge bonus", rs, a, sheet(rs, B_SHEET, dodge=6)),
        ("D-09 magic damage", rs, sheet(rs, A_SHEET, wis=16, weapon={"magic": "1d6"}), b),
        ("D-08 save_success negate", replace(rs, save_success="negate"), a, b),
        ("D-08 dd level_table", replace(rs, dd_mode="level_table"), a,
         sheet(rs, B_SHEET, dodge=3)),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("case", range(6), ids=[c[0] for c in _coverage_cases()])
def test_simulation_interval_covers_exact(case: int) -> None:
    name, rs, a, b = _coverage_cases()[case]
    exact = _exact_fights(rs, a, b)
    res = simulate(rs, a, b, 200_000, seed=1)
    low, high = res.fighters[0].ci95
    assert low <= exact <= high, (name, exact, low, high)
    assert res.fighters[0].wins + res.fighters[1].wins + res.draws == res.runs


@pytest.mark.parametrize("case", range(6), ids=[c[0] for c in _coverage_cases()])
def test_vector_attacks_fit_exact_distribution(case: int) -> None:
    """D-04..D-10: damage of one attack, vectorised sample against the exact law."""
    name, rs, a, b = _coverage_cases()[case]
    _fit_exact(name, rs, a, b)
    _fit_exact(name, rs, b, a)


def _fit_exact(name: str, rs: D20Ruleset, att: D20Fighter, dfd: D20Fighter) -> None:
    rng = np.random.Generator(np.random.PCG64(77))
    exact = attack_distribution(rs, att, dfd).damage
    s = sample_attacks(rs, att, dfd, 200_000, rng)
    counts = Counter(s.damage.tolist())
    assert set(counts) <= set(exact), (name, set(counts) - set(exact))
    values = sorted(exact)
    obs = np.array([counts.get(v, 0) for v in values], dtype=float)
    exp = np.array([float(exact[v]) * s.damage.size for v in values])
    obs, exp = _pool_small(obs, exp)
    assert chisquare_p(obs, exp) > 0.001, (name, att.name)


# --- runner ---------------------------------------------------------------------


@pytest.mark.slow
def test_same_seed_same_result() -> None:
    """C-01: the same seed gives the same statistics."""
    rs, a, b = _base()
    r1 = simulate(rs, a, b, 30_000, seed=7, batch_size=8_000)
    r2 = simulate(rs, a, b, 30_000, seed=7, batch_size=8_000)
    assert r1 == r2
    assert r1.to_data() == r2.to_data()
    r3 = simulate(rs, a, b, 30_000, seed=8, batch_size=8_000)
    assert r3 != r1


def test_result_fields() -> None:
    rs, a, b = _base()
    r = simulate(rs, a, b, 20_000, seed=3)
    assert isinstance(r, SimulationResult) and r.engine == "d20" and not r.interrupted
    assert r.runs == r.requested_runs == 20_000
    assert sum(c for _, c in r.rounds.histogram) == 20_000
    assert r.rounds.p50 <= r.rounds.p90 <= r.rounds.max
    assert r.first_striker_won is not None and 0 < r.first_striker_won < 1
    assert r.fighters[0].first_strikes + r.fighters[1].first_strikes == 20_000
    assert isinstance(r.extras, D20Extra)
    assert r.extras.fighters[0].hp_left_when_winning.mean > 0
    assert r.extras.fighters[1].damage_dealt > 0


def test_keyboard_interrupt_returns_partial_result() -> None:
    rs, a, b = _base()
    calls: list[int] = []

    def progress(done: int) -> None:
        calls.append(done)
        raise KeyboardInterrupt

    r = simulate(rs, a, b, 50_000, seed=11, batch_size=10_000, progress=progress)
    assert r.interrupted and r.runs == 10_000 and calls == [10_000]
    assert r.fighters[0].wins + r.fighters[1].wins + r.draws == 10_000
    # The partial result is exactly the first batch of the same seed.
    full = simulate(rs, a, b, 10_000, seed=11, batch_size=10_000)
    assert replace(r, requested_runs=10_000, interrupted=False) == full


def test_keyboard_interrupt_inside_a_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while a batch runs: that batch is dropped, the completed ones are kept."""
    from sevendag_cli.d20 import vector as vector_d20

    real = vector_d20.simulate_d20_batch
    calls = 0

    def flaky(*args: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(vector_d20, "simulate_d20_batch", flaky)
    rs, a, b = _base()
    r = simulate(rs, a, b, 50_000, seed=11, batch_size=10_000)
    assert r.interrupted and r.runs == 20_000 and r.requested_runs == 50_000
    assert sum(c for _, c in r.rounds.histogram) == 20_000


@pytest.mark.parametrize("runs", [0, -5, MAX_RUNS + 1])
def test_runs_are_validated(runs: int) -> None:
    rs, a, b = _base()
    with pytest.raises(UsageError, match="10,000,000"):
        simulate(rs, a, b, runs, seed=1)


def test_round_cap_makes_draws() -> None:
    rs, a, b = _base()
    r = simulate(rs, a, b, 5_000, seed=2, cap=20)
    assert r.cap == 20 and r.draws > 0 and r.rounds.max == 20
    assert r.draw_probability == r.draws / 5_000
    assert r.fighters[0].wins + r.fighters[1].wins + r.draws == 5_000


def test_sevendag_plugs_in_through_its_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner's Sevendag part: common arrays plus wounds (n, 2, bands)."""
    import sys
    import types

    rs = load_ruleset("sevendag")
    a, b = load_pair(rs, None)
    bands = len(rs.wounds)  # type: ignore[union-attr]

    class FakeBatch:
        def __init__(self, n: int, rng: np.random.Generator) -> None:
            self.winner = rng.integers(-1, 2, size=n).astype(np.int8)
            self.rounds = rng.integers(1, 30, size=n)
            self.first_striker = rng.integers(0, 2, size=n).astype(np.int8)
            self.wounds = np.ones((n, 2, bands), dtype=np.int64)

    fake = types.ModuleType("sevendag_cli.sevendag.vector")
    fake.simulate_sevendag_batch = (  # type: ignore[attr-defined]
        lambda ruleset, a, b, n, rng, cap: FakeBatch(n, rng)
    )
    monkeypatch.setitem(sys.modules, "sevendag_cli.sevendag.vector", fake)
    r = simulate(rs, a, b, 2_500, seed=4, batch_size=1_000)
    assert r.engine == "sevendag" and isinstance(r.extras, SevendagExtra)
    assert r.fighters[0].wins + r.fighters[1].wins + r.draws == 2_500
    bstats = r.extras.fighters[1].wounds
    assert len(bstats) == bands and all(s.total == 2_500 and s.mean == 1.0 for s in bstats)


# --- step-by-step engine against the vectorised one ----------------------------


def _binned(samples: list[Counter[int]], min_expected: float = 5.0) -> np.ndarray:
    """A contingency table with values merged until every expected count is >= 5."""
    values = sorted(set().union(*samples))
    table = np.array([[c.get(v, 0) for v in values] for c in samples], dtype=float)
    cols: list[np.ndarray] = []
    acc = np.zeros(len(samples))
    for j in range(table.shape[1]):
        acc = acc + table[:, j]
        expected = acc.sum() * table.sum(axis=1) / table.sum()
        if expected.min() >= min_expected:
            cols.append(acc)
            acc = np.zeros(len(samples))
    if acc.sum():
        if cols:
            cols[-1] = cols[-1] + acc
        else:
            cols.append(acc)
    return np.array(cols).T


@pytest.mark.slow
def test_engine_and_vector_agree_chi_square() -> None:
    """D-02..D-12: rounds per fight and damage per hit, step-by-step vs vectorised."""
    rs, _, _ = _base()
    a = sheet(rs, A_SHEET, hp=14, weapon={"crit_range": 18})
    b = sheet(rs, B_SHEET, hp=16)
    n = 1500
    rounds_engine: Counter[int] = Counter()
    hits_engine: dict[str, Counter[int]] = {"A": Counter(), "B": Counter()}
    for i in range(n):
        result = engine.fight(rs, a, b, SeededDice(20_000 + i))
        rounds_engine[len(result.rounds)] += 1
        for rnd in result.rounds:
            attacker = None
            damage = 0
            for ev in rnd.events:
                if isinstance(ev, engine.AttackEvent) and ev.hit:
                    attacker = ev.attacker
                elif isinstance(ev, engine.DamageEvent):
                    damage = ev.total
            if attacker is not None:
                hits_engine[attacker][damage] += 1

    rng = np.random.Generator(np.random.PCG64(4242))
    bt = simulate_d20_batch(rs, a, b, 50_000, rng, rs.round_cap)
    rounds_vector = Counter(bt.rounds.tolist())
    table = _binned([rounds_engine, rounds_vector])
    assert chi2_contingency_p(table) > 0.001

    for att, dfd in ((a, b), (b, a)):
        s = sample_attacks(rs, att, dfd, 100_000, rng)
        vec = Counter(s.damage[s.hit].tolist())
        table = _binned([hits_engine[att.name], vec])
        assert table.shape[1] >= 3
        assert chi2_contingency_p(table) > 0.001, att.name
        # And both against the exact distribution of damage per hit.
        exact = attack_distribution(rs, att, dfd).damage_on_hit
        k = sum(hits_engine[att.name].values())
        values = sorted(exact)
        obs = np.array([hits_engine[att.name].get(v, 0) for v in values], dtype=float)
        exp = np.array([float(exact[v]) * k for v in values])
        obs, exp = _pool_small(obs, exp)
        assert chisquare_p(obs, exp) > 0.001, att.name
        assert math.isclose(exp.sum(), obs.sum())
