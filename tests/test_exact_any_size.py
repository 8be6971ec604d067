"""Exact odds at any size : the d20 fight solved with no time dimension
(D-12), honest intervals (S-19, D-12), and nothing shown from unresolved mass.

The reference here is a plain absorbing chain over (HP A, HP B, who attacks), written
independently of the solvers: only the pair's one-round tables (D-02 .. D-10) are shared.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from sevendag_cli.d20.chain import d20_tables
from sevendag_cli.d20.rules import D20Fighter
from sevendag_cli.rules import load_pair, load_ruleset
from sevendag_cli.sim.exact_fight import exact_fight
from tests.helpers import assert_one_line_error, run, run_json
from tests.records import replace

D20 = load_ruleset("d20")
SEVENDAG = load_ruleset("sevendag")


def d20_pair(hp_a: int, hp_b: int) -> tuple[D20Fighter, D20Fighter]:
    a, b = load_pair(D20, None)
    assert isinstance(a, D20Fighter) and isinstance(b, D20Fighter)
    return replace(a, hp=hp_a), replace(b, hp=hp_b)


def plain_chain(a: D20Fighter, b: D20Fighter) -> float:
    """P(a wins) of the fight played to the end, by the textbook absorbing chain.

    States (ha, hb, who attacks this round); W(ha, hb) = P(a wins) between rounds =
    p A(ha, hb) + (1 - p) B(ha, hb), where A is a's attack: a miss leaves the state (the
    next round rolls initiative again), a hit of d takes b to hb - d.  The self-loop
    W = s W + rest is solved as W = rest / (1 - s).  Floats, increasing hit points.
    """
    t = d20_tables(D20, a, b)
    p = t.first / t.first_den
    qa = {d: w / t.den_a for d, w in t.damage_a}
    qb = {d: w / t.den_b for d, w in t.damage_b}
    stay = p * qa.get(0, 0.0) + (1 - p) * qb.get(0, 0.0)
    w = [[0.0] * (b.hp + 1) for _ in range(a.hp + 1)]
    for ha in range(1, a.hp + 1):
        row = w[ha]
        for hb in range(1, b.hp + 1):
            rest = 0.0
            for d, q in qa.items():
                if d > 0:
                    rest += p * q * (1.0 if d >= hb else row[hb - d])
            for d, q in qb.items():
                if d > 0 and d < ha:
                    rest += (1 - p) * q * w[ha - d][hb]
            row[hb] = rest / (1.0 - stay)
    return w[a.hp][b.hp]


def check_certified(result: object, tolerance: float) -> None:
    """Every interval is at most the tolerance wide, rounding included."""
    assert result.unresolved <= tolerance  # type: ignore[attr-defined]
    for f in result.fighters:  # type: ignore[attr-defined]
        low, high = f.bounds
        assert 0.0 <= high - low <= tolerance
    low, high = result.draw_bounds  # type: ignore[attr-defined]
    assert high - low <= tolerance


@pytest.mark.parametrize("hp", [200, pytest.param(1000, marks=pytest.mark.slow)])
def test_D12_any_size_equals_the_plain_absorbing_chain(hp: int) -> None:
    """D-12: fight --exact's odds at 200 and 1,000 hit points each are those of the plain
    chain: the fight played to the end (the bundled ruleset has no round cap; such fights last
    some 200 to 1,000 rounds)."""
    a, b = d20_pair(hp, hp)
    result = exact_fight(D20, a, b, fractions=False)
    check_certified(result, 1e-12)
    assert result.solver == "end" and result.draw_probability == 0.0
    reference = plain_chain(a, b)
    low, high = result.fighters[0].bounds
    # The reference's own rounding: a few ulps a level, some 2 * hp levels.
    slack = 1e-11
    assert low - slack <= reference <= high + slack
    assert result.fighters[0].win_probability == pytest.approx(reference, abs=slack)


@pytest.mark.slow
def test_D12_the_fractions_lie_in_the_intervals() -> None:
    """D-12: at 120 hit points each the exact fractions (no cap; asked: beyond the size they
    come by default) lie within the certified intervals, which are at most the tolerance wide."""
    a, b = d20_pair(120, 110)
    result = exact_fight(D20, a, b, tolerance=1e-13, fractions=True)
    check_certified(result, 1e-13)
    assert result.fractions is not None
    for f, p in zip(result.fighters, result.fractions.win_probability, strict=True):
        assert f.bounds[0] <= p <= f.bounds[1] or abs(float(p) - f.bounds[0]) <= 1e-16


def test_D12_the_pairs_of_the_tests_are_certified_within_the_tolerance() -> None:
    """Every interval no wider than --tolerance, rounding included (D-12 and S-19): the
    bundled pairs and the finite Sevendag rulesets of the tests."""
    from tests.sevendag_helpers import penalty_free

    a, b = load_pair(D20, None)
    for tol in (1e-12, 1e-14):
        check_certified(exact_fight(D20, a, b, tolerance=tol, fractions=False), tol)
    brannoc, ysolde = load_pair(SEVENDAG, None)
    check_certified(exact_fight(SEVENDAG, brannoc, ysolde, fractions=False), 1e-12)
    for rs in (penalty_free(SEVENDAG, critical=2),
               replace(penalty_free(SEVENDAG, critical=2), fumble_grants_crit=True)):
        result = exact_fight(rs, brannoc, ysolde)
        check_certified(result, 1e-12)
        assert result.fractions is not None
        for f, p in zip(result.fighters, result.fractions.win_probability, strict=True):
            # The fractions are the fight played to the end: they may add the draws at the cap.
            assert f.bounds[0] <= float(p) <= f.bounds[1] + result.draw_bounds[1]


def capped_chain(a: D20Fighter, b: D20Fighter, cap: int) -> tuple[Fraction, Fraction, Fraction]:
    """P(a wins), P(b wins), P(draw at the cap) round by round, in fractions (small fighters)."""
    t = d20_tables(D20, a, b)
    p = Fraction(t.first, t.first_den)
    qa = {d: Fraction(w, t.den_a) for d, w in t.damage_a}
    qb = {d: Fraction(w, t.den_b) for d, w in t.damage_b}
    mass = {(a.hp, b.hp): Fraction(1)}
    won_a = won_b = Fraction(0)
    for _ in range(cap):
        nxt: dict[tuple[int, int], Fraction] = {}
        for (ha, hb), m in mass.items():
            for d, q in qa.items():
                if d >= hb:
                    won_a += m * p * q
                else:
                    nxt[ha, hb - d] = nxt.get((ha, hb - d), Fraction(0)) + m * p * q
            for d, q in qb.items():
                if d >= ha:
                    won_b += m * (1 - p) * q
                else:
                    nxt[ha - d, hb] = nxt.get((ha - d, hb), Fraction(0)) + m * (1 - p) * q
        mass = nxt
    return won_a, won_b, sum(mass.values(), Fraction(0))


def test_D12_the_json_of_a_long_fight_has_its_whole_rounds_distribution() -> None:
    """A long fight (300 hit points each, some 300 rounds): the odds certified, and the rounds
    distribution of the fight played to the end — mean, sd, median, 90th percentile and every
    round — from the law of the hits, its tail at most 1e-12; valid JSON."""
    from tests.helpers import validate

    doc = run_json("fight", "a", "b", "-r", "d20", "--exact", "--set", "A.hp=300",
                   "--set", "B.hp=300")
    validate("fight-exact", doc)
    r = doc["rounds"]
    assert doc["unresolved"] <= 1e-12 and doc["draw_probability"] == 0.0
    assert 250 < r["mean"] < 350 and 10 < r["sd"] < 40 and r["p50"] <= r["p90"]
    total = sum(p for _, p in r["histogram"])
    assert r["tail"] <= 1e-12 and abs(total + r["tail"] - 1) <= 1e-12
    mean = sum(t * p for t, p in r["histogram"])
    assert mean == pytest.approx(r["mean"], abs=1e-8)


def test_D12_a_capped_pair_still_has_its_draw() -> None:
    """D-12 with a round cap that matters: the draw at the cap is played round by round and
    equals the capped chain's; the odds are certified within the tolerance."""
    a, b = d20_pair(12, 14)
    result = exact_fight(D20, a, b, cap=4, tolerance=1e-12, fractions=False)
    check_certified(result, 1e-12)
    won_a, won_b, draw = capped_chain(a, b, 4)
    assert draw > 0.01  # the cap matters
    assert result.draw_bounds[0] - 1e-15 <= draw <= result.draw_bounds[1] + 1e-15
    assert result.fighters[0].bounds[0] - 1e-15 <= won_a <= result.fighters[0].bounds[1] + 1e-15
    assert result.fighters[1].bounds[0] - 1e-15 <= won_b <= result.fighters[1].bounds[1] + 1e-15


@pytest.mark.slow
def test_D12_a_lopsided_fight_with_a_cap_is_solved() -> None:
    """A fighter of 5,000 hit points against one of 50, --cap 1000: the weaker one cannot win
    within the cap, the stronger wins almost surely; the capped fight computed, and stopped
    once what is still in play is within the tolerance (not played for 1,000 rounds)."""
    a, b = d20_pair(5000, 50)
    result = exact_fight(D20, a, b, cap=1000, fractions=False)
    check_certified(result, 1e-12)
    assert result.cap == 1000 and result.solver != "end"
    assert result.fighters[0].win_probability > 1 - 1e-12
    assert len(result.rounds.histogram) < 1000


@pytest.mark.slow
def test_sweep_at_200_hit_points_gives_the_odds_and_the_fair_value() -> None:
    """The sweep of the issue: A.ac 8..14 at 200 hit points each runs from 59% to 96%, every
    point certified; the fairest value is the one closest to 50/50 (A.ac = 8)."""
    doc = run_json("sweep", "a", "b", "-r", "d20", "--set", "A.hp=200", "--set", "B.hp=200",
                   "--vary", "A.ac=8..14/2", "--fair")
    wins = [p["fighters"][0]["win_probability"] for p in doc["points"]]
    assert [round(x, 2) for x in wins] == [0.59, 0.76, 0.89, 0.96]
    for p in doc["points"]:
        for f in p["fighters"]:
            assert f["bounds"][1] - f["bounds"][0] <= 1e-12
    assert doc["fair"]["value"] == 8
    assert doc["fair"]["win_probability"][0] == pytest.approx(0.5908426026750, abs=1e-12)


def test_nothing_is_shown_from_mass_left_unresolved(monkeypatch: pytest.MonkeyPatch) -> None:
    """A capped fight not resolved within the work limit (made tiny here): one line, exit 2,
    for fight --exact and for sweep --fair (no headline, no fair value)."""
    from sevendag_cli.d20 import rounds

    monkeypatch.setattr(rounds, "MAX_ROUNDS_WORK", 1000)
    args = ["a", "b", "-r", "d20", "--set", "A.hp=40", "--set", "B.hp=40", "--cap", "30"]
    assert_one_line_error(run("fight", *args, "--exact"), 2, "not resolved within the work limit")
    assert_one_line_error(run("sweep", *args, "--vary", "A.ac=8,9", "--fair"), 2,
                          "not resolved within the work limit")


def test_D12_odds_from_a_moment_without_the_grid_are_the_grids(monkeypatch: pytest.MonkeyPatch) -> None:
    """D-02, D-12: beyond the grid kept for look-ups, a state is solved alone (a few diagonals
    held): the same odds, with the next attacker set (every state its attack reaches) or not."""
    from sevendag_cli.d20 import solve
    from sevendag_cli.d20.chain import D20Chain
    from sevendag_cli.d20.engine import D20FighterState, D20State

    a, b = d20_pair(300, 290)
    tables = d20_tables(D20, a, b)
    states = [D20State(3, (D20FighterState("A", 260, 300), D20FighterState("B", 250, 290)), who)
              for who in (None, "A", "B")]
    with_grid = [D20Chain(tables).odds(s, None, 1e-12) for s in states]
    monkeypatch.setattr(solve, "MAX_GRID_CELLS", 100)
    alone = [D20Chain(tables).odds(s, None, 1e-12) for s in states]
    for x, y in zip(with_grid, alone, strict=True):
        assert x.unresolved <= 1e-12 and y.unresolved <= 1e-12
        assert x.win[0] == pytest.approx(y.win[0], abs=1e-15)


@pytest.mark.slow
def test_S19_a_finite_chain_beyond_20000_states_has_its_fractions_in_the_intervals() -> None:
    """S-19, a finite ruleset (every penalised band takes a fighter out; 21,600 states, beyond
    the former limits of 15,000 and 20,000): certified within the tolerance, and the exact
    fractions of the fight played to the end within the intervals (plus the draw at the cap)."""
    from tests.sevendag_helpers import penalty_free

    rs = penalty_free(SEVENDAG, critical=3, serious=5, light=6)
    brannoc, ysolde = load_pair(SEVENDAG, None)
    result = exact_fight(rs, brannoc, ysolde, fractions=True)  # asked: beyond the unasked bound
    check_certified(result, 1e-12)
    assert result.fractions is not None
    for f, p in zip(result.fighters, result.fractions.win_probability, strict=True):
        assert f.bounds[0] <= p <= f.bounds[1] + result.draw_bounds[1]
