"""Exact odds against independent computations, named after the rules they cross.

* **The step-by-step engine, exactly.**  (One round against every face of the engine:
  ``tests/test_round_forms.py``.)  A few rounds pushed through the engine equal the
  chain's push to a round cap, draws included; "only the penalty difference matters" and "far out,
  it stops mattering" are checked on the engine and on the chain.
* **``--runs``, statistically.**  1,000,000 vectorised fights, every die rolled
  (:func:`sevendag_cli.sim.runner.simulate` in batches of :data:`EVERY_DIE`, where ``--runs``
  rolls every die instead of drawing from the per-state tables, which
  ``tests/test_sample.py`` checks against the same exact odds) for the house pair and three others,
  and the d20 D-14 pair from the start and from a mid-fight state: win and draw
  rates, rounds (mean and a chi-square on the histogram), first strikes, wounds per
  band / hit points left and damage dealt.  Each comparison is at the family-wise
  95% level (Bonferroni over FAMILY comparisons in this file); seeds are fixed.
"""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist
from typing import Any

import pytest

from sevendag_cli.d20.chain import chain_for
from sevendag_cli.d20.engine import D20FighterState, D20State
from sevendag_cli.d20.exact_fight import ExactFigures
from sevendag_cli.d20.sim_extra import D20Extra
from sevendag_cli.rules import D20Fighter, D20Ruleset, SevendagFighter, SevendagRuleset
from sevendag_cli.sevendag.chain import SevendagChain
from sevendag_cli.sevendag.engine import (
    FighterState,
    SevendagState,
    initial_state,
)
from sevendag_cli.sevendag.exact_fight import ExactWounds
from sevendag_cli.sevendag.sim_extra import SevendagExtra
from sevendag_cli.sim.exact_fight import ExactFight, exact_fight
from sevendag_cli.sim.moment import odds_at
from sevendag_cli.sim.runner import SimulationResult, simulate
from tests.exact_helpers import d14_pair, engine_push, engine_round
from tests.records import replace
from tests.sevendag_helpers import (
    HOUSE_GRANTS,
    RS,
    TINY_COUNTED,
    TINY_HOUSE,
    TINY_X,
    TINY_Y,
    TINY_Z,
    bundled,
    dual,
    greatsword,
    sword_shield,
)

FAMILY = 120
"""Statistical comparisons in this file (Bonferroni)."""
Z = NormalDist().inv_cdf(1 - 0.05 / FAMILY / 2)
ALPHA = 0.05 / FAMILY
RUNS = 1_000_000


# --- one round: the chain against every face of the engine's round -------------------------


def engine_round_keys(chain: SevendagChain, rs: SevendagRuleset, a: SevendagFighter,
                      b: SevendagFighter, state: SevendagState) -> dict[Any, Fraction]:
    out: dict[Any, Fraction] = {}
    for new, p in engine_round(rs, a, b, state).items():
        k = chain.key_of(new)
        out[k] = out.get(k, Fraction(0)) + p
    return out


def fs(name: str, wounds: tuple[str, ...] = (), penalty: int = 0, **kw: Any) -> FighterState:
    return FighterState(name, wounds, penalty, **kw)


def test_S19_only_the_penalty_difference_matters_in_the_engine() -> None:
    """S-06/S-19 (the note's first observation, on the engine itself): adding the same penalty
    to both fighters changes no outcome of a round, metals, bands and grants included."""
    rs = TINY_HOUSE
    chain = SevendagChain(rs, TINY_X, TINY_Y)
    low = SevendagState(0, "X", (fs("X", penalty=2, granted_crit=True), fs("Y", penalty=0)))
    high = SevendagState(0, "X", (fs("X", penalty=9, granted_crit=True), fs("Y", penalty=7)))
    assert engine_round_keys(chain, rs, TINY_X, TINY_Y, low) == \
        engine_round_keys(chain, rs, TINY_X, TINY_Y, high)


@pytest.mark.parametrize("pair", ["house", "dual", "tiny"])
def test_S07_S17_S19_far_out_the_difference_stops_mattering(pair: str) -> None:
    """The note's second observation: beyond the chain's thresholds a round's outcomes do not
    depend on D (every landing attack of one side is foiled, every one of the other is in the
    last band, metals' extra damage and band shift included), so lumping D is exact."""
    brannoc, ysolde = bundled()
    rs, a, b = {"house": (HOUSE_GRANTS, brannoc, ysolde),
                "dual": (HOUSE_GRANTS, dual(), sword_shield(metal="starmetal")),
                "tiny": (TINY_HOUSE, TINY_Z, TINY_Y)}[pair]
    chain = SevendagChain(rs, a, b)
    near = ((False,) * len(chain.tracked), (True,) * len(chain.tracked))
    form = chain.form

    def outcomes(assail: int, d: int, granted: tuple[bool, bool]) -> list[Any]:
        # the round computed afresh (not looked up by its clamped offsets)
        x, y = form.offsets(d, (0, 0, 0, 0))
        w, z = (x, y) if assail == 0 else (y, x)
        return form._round(assail, w, z, near, (0, 0), granted).outcomes

    for assail in (0, 1):
        for granted in ((False, False), (True, True)):
            for edge, step in ((chain.hi, 1), (chain.lo, -1)):
                at_edge = outcomes(assail, edge, granted)
                for k in (1, 5, 40):
                    assert outcomes(assail, edge + step * k, granted) == at_edge
    # And inside the thresholds D does matter (the lumping is not vacuous).
    mid = outcomes(0, 0, (False, False))
    assert mid != outcomes(0, chain.hi, (False, False))


@pytest.mark.slow
@pytest.mark.parametrize(("rs", "a", "b", "rounds"), [
    pytest.param(TINY_HOUSE, TINY_Z, TINY_Y, 5, id="dual-vs-two-handed-unbounded-penalties"),
    pytest.param(TINY_COUNTED, TINY_X, TINY_Y, 3, id="shield-vs-two-handed-out_after-2"),
])
def test_S19_round_cap_push_equals_the_engine_rounds(rs: SevendagRuleset, a: SevendagFighter,
                                                     b: SevendagFighter, rounds: int) -> None:
    """S-19 round cap: the odds with ``cap`` rounds to go equal the engine's rounds pushed state
    by state (every face), the fights still going at the cap being the draws."""
    state = initial_state(a, b, b.name)
    won_a, won_b, going = engine_push(rs, a, b, state, rounds)
    odds = odds_at(rs, a, b, state, cap=rounds, tolerance=0.0)
    assert odds.stop == "complete" and odds.unresolved < 1e-13
    assert odds.win[0] == pytest.approx(won_a, abs=1e-13)
    assert odds.win[1] == pytest.approx(won_b, abs=1e-13)
    assert odds.draw == pytest.approx(going, abs=1e-13) and going > 1e-3


# --- a million fights of --runs -------------------------------------------------------------

EVERY_DIE = 1_000
"""A batch small enough that ``--runs`` rolls every die (the vectorised simulators): the
tables are used only from 25 fights a state of the chain (Sevendag: 40 states here) or
15,000 fights a batch (d20)."""


def _z_ok(observed: float, low: float, high: float, sd: float, n: int) -> bool:
    """``observed`` (a mean of n draws) within Z standard errors of the interval [low, high]."""
    nearest = min(max(observed, low), high)
    return abs(observed - nearest) <= Z * sd / math.sqrt(n) + 1e-12


def _binomial_ok(count: int, n: int, low: float, high: float) -> bool:
    p = min(max(count / n, low), high)
    return _z_ok(count / n, low, high, math.sqrt(max(p * (1 - p), 1.0 / n)), n)


def _rounds_fit(exact: ExactFight, sim: SimulationResult) -> float:
    """Chi-square p-value of the simulated rounds against the exact distribution (tail lumped)."""
    n = sim.runs
    probs = dict(exact.rounds.histogram)
    counts = dict(sim.rounds.histogram)
    observed: list[float] = []
    expected: list[float] = []
    rest_o, rest_e = 0.0, 0.0
    for t in sorted(set(probs) | set(counts)):
        e = probs.get(t, 0.0) * n
        if e >= 20:
            observed.append(counts.get(t, 0))
            expected.append(e)
        else:
            rest_o += counts.get(t, 0)
            rest_e += e
    rest_e += exact.rounds.tail * n
    observed.append(rest_o)
    expected.append(max(rest_e, 1e-9))
    stat = sum((o - e) ** 2 / e for o, e in zip(observed, expected, strict=True))
    from scipy.stats import chi2  # scipy only where a chi-squared is taken (not at collection)

    return float(chi2.sf(stat, len(observed) - 1))


def _check_common(exact: ExactFight, sim: SimulationResult) -> None:
    n = sim.runs
    for f, s in zip(exact.fighters, sim.fighters, strict=True):
        assert _binomial_ok(s.wins, n, *f.bounds), (f, s)
        u = exact.unresolved
        assert _binomial_ok(s.first_strikes, n, f.first_strike_probability,
                            f.first_strike_probability), (f, s)
        assert _binomial_ok(s.first_strike_wins, n, f.first_strike_win_probability,
                            f.first_strike_win_probability + u), (f, s)
    assert _binomial_ok(sim.draws, n, *exact.draw_bounds)
    r = exact.rounds
    assert _z_ok(sim.rounds.mean, *r.mean_bounds, r.sd, n), (sim.rounds.mean, r.mean)
    assert _rounds_fit(exact, sim) > ALPHA


def _sevendag_pairs() -> dict[str, tuple[SevendagRuleset, SevendagFighter, SevendagFighter]]:
    brannoc, ysolde = bundled()
    return {
        "S-11-S-15-house-pair": (RS, brannoc, ysolde),
        "S-12-S-17-dual-wield-mixed-metals-vs-shield": (
            RS, dual(attack=12), sword_shield(metal="starmetal")),
        "S-10-S-11-two-handed-pair-fumble-grants-crit": (
            replace(RS, fumble_grants_crit=True), greatsword(), greatsword("Dara")),
        "S-13-S-18-all-out-shield-vs-dual-failure-yields-recovery-2": (
            replace(RS, failure_beats_crit=False, drop_recovery_rounds=2),
            sword_shield("Eda", metal="bronze", tactic="all-out"), dual("Fenn")),
    }


@pytest.mark.slow
@pytest.mark.parametrize("name", list(_sevendag_pairs()))
def test_S02_S19_exact_agrees_with_a_million_runs(name: str) -> None:
    """S-02 .. S-19: ``fight --exact`` against ``--runs`` (1,000,000 fights) on win, draw and
    first-strike rates, the rounds (mean, chi-square on the histogram) and the expected wounds
    of each band (a band's wounds never outnumber the rounds, which bounds their spread)."""
    rs, a, b = _sevendag_pairs()[name]
    exact = exact_fight(rs, a, b)
    sim = simulate(rs, a, b, RUNS, seed=20260101, batch_size=EVERY_DIE)
    _check_common(exact, sim)
    assert isinstance(exact.extras, ExactWounds) and isinstance(sim.extras, SevendagExtra)
    spread = math.sqrt(exact.rounds.sd ** 2 + exact.rounds.mean ** 2)  # sd(W) <= sqrt(E[T^2])
    for fe, fsim in zip(exact.extras.fighters, sim.extras.fighters, strict=True):
        for be, bs in zip(fe.wounds, fsim.wounds, strict=True):
            assert be.band == bs.band
            assert _z_ok(bs.mean, be.mean, be.mean, spread, RUNS), (fe.name, be, bs)
    # S-19: one fatal wound takes a fighter out, so fatal wounds = the other's wins.
    for i in (0, 1):
        assert exact.extras.fighters[i].wounds[-1].mean == pytest.approx(
            exact.fighters[1 - i].win_probability, abs=1e-9)


@pytest.mark.slow
def test_S19_round_cap_draws_agree_with_a_million_runs() -> None:
    """S-19: with a round cap of 6 many house fights are draws; exact and --runs agree."""
    brannoc, ysolde = bundled()
    exact = exact_fight(RS, brannoc, ysolde, cap=6)
    assert exact.stop == "complete" and exact.draw_probability > 0.5
    sim = simulate(RS, brannoc, ysolde, RUNS, seed=7, cap=6, batch_size=EVERY_DIE)
    _check_common(exact, sim)


def _check_d20(rs: D20Ruleset, a: D20Fighter, b: D20Fighter, exact: ExactFight,
               sim: SimulationResult) -> None:
    _check_common(exact, sim)
    assert isinstance(exact.extras, ExactFigures) and isinstance(sim.extras, D20Extra)
    chain = chain_for(rs, a, b)
    for i, (fe, fsim, f) in enumerate(zip(exact.extras.fighters, sim.extras.fighters, sim.fighters,
                                          strict=True)):
        hp = fe.hp_left_when_winning
        assert _z_ok(fsim.hp_left_when_winning.mean, hp.mean, hp.mean, hp.sd, f.wins)
        assert _z_ok(fsim.hp_left_when_winning.sd, hp.sd, hp.sd, hp.sd * 2, f.wins)
        # Damage dealt: at most the rounds times the largest hit, which bounds its spread.
        top = max(chain.qa if i == 0 else chain.qb)
        spread = math.sqrt(exact.rounds.sd ** 2 + exact.rounds.mean ** 2) * top
        assert _z_ok(fsim.damage_dealt, fe.damage_dealt, fe.damage_dealt, spread, sim.runs)


@pytest.mark.slow
def test_D02_D12_exact_agrees_with_a_million_runs() -> None:
    """D-02 .. D-12 (D-14 pair): initiative every round, hits, saves, damage, the hit points
    left by the winner and the damage dealt, against 1,000,000 vectorised fights."""
    rs, a, b = d14_pair()
    _check_d20(rs, a, b, exact_fight(rs, a, b), simulate(rs, a, b, RUNS, seed=11, batch_size=EVERY_DIE))


@pytest.mark.slow
def test_D12_from_a_mid_fight_state_near_the_cap_agrees_with_a_million_runs() -> None:
    """D-12 / round cap from a mid-fight state (A 20 HP, B 31 HP, 4 rounds before the cap):
    the odds from that state against 1,000,000 fights started there with a cap of 4 rounds
    (a ruleset with a cap of 1,000 rounds: the bundled one has none)."""
    rs, a, b = d14_pair()
    rs = replace(rs, round_cap=1000)
    state = D20State(rs.round_cap - 4, (D20FighterState("A", 20, 45), D20FighterState("B", 31, 50)),
                     None)
    odds = odds_at(rs, a, b, state)
    a2, b2 = replace(a, hp=20), replace(b, hp=31)
    sim = simulate(rs, a2, b2, RUNS, seed=5, cap=4, batch_size=EVERY_DIE)
    assert odds.draw > 0.3
    for i, f in enumerate(sim.fighters):
        assert _binomial_ok(f.wins, RUNS, *odds.win_bounds[i])
    assert _binomial_ok(sim.draws, RUNS, *odds.draw_bounds)
    # The same state far from the cap: the whole fight from there (no draws left).
    far = replace(state, round=12)
    odds_far = odds_at(rs, a, b, far)
    exact = exact_fight(rs, a2, b2, cap=rs.round_cap - 12)
    assert odds_far.win[0] == pytest.approx(exact.fighters[0].win_probability, abs=2e-12)
    _check_d20(rs, a2, b2, exact, simulate(rs, a2, b2, RUNS, seed=6, cap=rs.round_cap - 12,
                                               batch_size=EVERY_DIE))
