"""Odds from any moment and ``fight --exact``: invariants, the API, the CLI.

Property tests (hypothesis) over engine states of both rulesets: the odds lie in [0, 1]
and wins + draw + unresolved = 1; more hit points or a lower penalty never lowers a
fighter's odds; the odds of the first state are ``fight --exact``'s; a finished fight
gives 1 and 0.  Then the pure-Python solvers against the numpy push, the exact
fractions against the intervals, the JSON and the display of ``fight --exact``.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sevendag_cli.d20.chain import D20Chain, D20Tables, d20_odds, d20_tables
from sevendag_cli.d20.chain import chain_for as d20_chain
from sevendag_cli.d20.engine import D20FighterState, D20State
from sevendag_cli.d20.engine import initial_state as d20_initial
from sevendag_cli.d20.push import grid_push
from sevendag_cli.errors import EncounterError, UsageError
from sevendag_cli.sevendag.chain import chain_for, sevendag_odds
from sevendag_cli.sevendag.engine import (
    ActiveTechnique,
    DroppedWeapon,
    FighterState,
    SevendagState,
    initial_state,
)
from sevendag_cli.sevendag.exact import initiative_probability
from sevendag_cli.sevendag.push import chain_push
from sevendag_cli.sim.exact_fight import exact_fight
from sevendag_cli.sim.moment import OddsSolver, odds_at
from sevendag_cli.sim.odds import Odds, binomial_cdf_upper, check_tolerance
from tests.exact_helpers import d14_pair
from tests.helpers import assert_one_line_error, run, run_json
from tests.records import replace
from tests.sevendag_helpers import RS, bundled, penalty_free

PROPS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOL = 1e-9



def assert_consistent(odds: Odds, tolerance: float = TOL) -> None:
    for x in (*odds.win, odds.draw, odds.unresolved):
        assert 0.0 <= x <= 1.0
    assert math.fsum((*odds.win, odds.draw, odds.unresolved)) == pytest.approx(1.0, abs=1e-15)
    for low, high in (*odds.win_bounds, odds.draw_bounds):
        assert 0.0 <= low <= high <= 1.0
    if odds.stop in ("complete", "tolerance"):
        assert odds.unresolved <= max(tolerance, 1e-12)


# --- Sevendag states ------------------------------------------------------------------------

BRANNOC, YSOLDE = bundled()
BANDS = ("light", "serious", "critical")


@st.composite
def fighter_states(draw: st.DrawFn, name: str, weapon: str, hands: tuple[int, ...]) -> FighterState:
    wounds = tuple(draw(st.lists(st.sampled_from(BANDS), max_size=6)))
    penalty = sum({"light": 1, "serious": 3, "critical": 6}[w] for w in wounds)
    dropped = ()
    if draw(st.booleans()):
        dropped = (DroppedWeapon(weapon, hands, draw(st.integers(1, 2))),)
    technique = draw(st.sampled_from([None, ("feint", 1), ("guard", 1), ("guard", 2),
                                      ("charge", 1)]))
    return FighterState(name, wounds, penalty, dropped=dropped, granted_crit=draw(st.booleans()),
                        technique=None if technique is None else ActiveTechnique(*technique))


@st.composite
def sevendag_states(draw: st.DrawFn) -> SevendagState:
    a = draw(fighter_states("Brannoc", "sword", (1,)))
    b = draw(fighter_states("Ysolde", "greatsword", (1, 2)))
    return SevendagState(draw(st.integers(0, 205)), draw(st.sampled_from(["Brannoc", "Ysolde"])),
                         (a, b))


GRANTS = replace(RS, fumble_grants_crit=True)


@pytest.mark.slow
@PROPS
@given(sevendag_states())
def test_S19_odds_from_any_state_are_probabilities(state: SevendagState) -> None:
    """S-02 .. S-19 from any moment: each outcome in [0, 1], wins + draw + unresolved = 1,
    and the tolerance is met (within the round cap: at least one more round is played)."""
    odds = sevendag_odds(GRANTS, BRANNOC, YSOLDE, state, tolerance=TOL)
    assert_consistent(odds)
    assert odds.rounds == max(1, GRANTS.round_cap - state.round) or odds.stop == "tolerance"
    if state.round >= GRANTS.round_cap - 1:  # one round left: the rest is a draw
        assert odds.stop == "complete" and odds.draw > 0.0


@pytest.mark.slow
@PROPS
@given(sevendag_states(), st.integers(1, 12), st.sampled_from([0, 1]))
def test_S19_a_lower_penalty_never_lowers_a_fighters_odds(state: SevendagState, less: int,
                                                          who: int) -> None:
    """S-19: with the same wounds otherwise, a fighter with a lower penalty has at least the
    same chance to win (certified: the better state's high end is at least the other's low)."""
    fs = state.fighters[who]
    better = replace(fs, penalty=max(0, fs.penalty - less))
    fighters = (better, state.fighters[1]) if who == 0 else (state.fighters[0], better)
    worse_odds = sevendag_odds(GRANTS, BRANNOC, YSOLDE, state, tolerance=1e-6)
    better_odds = sevendag_odds(GRANTS, BRANNOC, YSOLDE, replace(state, fighters=fighters),
                                tolerance=1e-6)
    assert better_odds.win_bounds[who][1] >= worse_odds.win_bounds[who][0]
    assert better_odds.win_bounds[1 - who][0] <= worse_odds.win_bounds[1 - who][1]


@PROPS
@given(sevendag_states(), st.sampled_from(["Brannoc", "Ysolde", None]))
def test_S09_after_a_finished_fight_the_odds_are_1_and_0(state: SevendagState,
                                                         winner: str | None) -> None:
    """S-09/S-19: a finished fight (a winner, or a draw at the cap) has nothing left to solve."""
    done = replace(state, over=True, winner=winner, capped=winner is None)
    odds = sevendag_odds(GRANTS, BRANNOC, YSOLDE, done)
    expected = (1.0 if winner == "Brannoc" else 0.0, 1.0 if winner == "Ysolde" else 0.0)
    assert odds.win == expected and odds.draw == (1.0 if winner is None else 0.0)
    assert odds.unresolved == 0.0 and odds.finished


def test_S19_a_fighter_out_without_a_finished_state_has_lost() -> None:
    """S-19: a state whose fatal wound is recorded (out) is over whatever ``over`` says."""
    state = initial_state(BRANNOC, YSOLDE, "Brannoc")
    out = replace(state, fighters=(replace(state.fighters[0], wounds=("fatal",), out=True),
                                   state.fighters[1]))
    assert sevendag_odds(RS, BRANNOC, YSOLDE, out).win == (0.0, 1.0)


@pytest.mark.parametrize("assaillant", ["Brannoc", "Ysolde"])
def test_S02_odds_of_the_first_state_equal_fight_exact(assaillant: str) -> None:
    """S-02: the odds from the state after the initiative, mixed by the initiative's law,
    are ``fight --exact``'s (two computations: pure Python from one state, numpy from both)."""
    exact = exact_fight(RS, BRANNOC, YSOLDE)
    p = float(initiative_probability(RS, BRANNOC, YSOLDE))
    o = {n: sevendag_odds(RS, BRANNOC, YSOLDE, initial_state(BRANNOC, YSOLDE, n))
         for n in ("Brannoc", "Ysolde")}
    mixed = p * o["Brannoc"].win[0] + (1 - p) * o["Ysolde"].win[0]
    slack = exact.unresolved + o["Brannoc"].unresolved + o["Ysolde"].unresolved
    assert abs(mixed - exact.fighters[0].win_probability) <= slack
    first = exact.fighters[0 if assaillant == "Brannoc" else 1]
    won = o[assaillant].win[0 if assaillant == "Brannoc" else 1]
    assert first.first_strike_win_probability == pytest.approx(
        first.first_strike_probability * won, abs=slack)


@pytest.mark.slow
def test_S19_the_pure_solver_and_the_numpy_push_agree_from_mid_fight() -> None:
    """The two pushes of the same chain (pure Python for one state, numpy for fight --exact)
    give the same odds from a mid-fight state with a technique, a grant and a drop."""
    state = SevendagState(40, "Ysolde", (
        FighterState("Brannoc", ("light", "serious"), 4, granted_crit=True,
                     technique=ActiveTechnique("guard", 2)),
        FighterState("Ysolde", ("critical",), 6, dropped=(DroppedWeapon("greatsword", (1, 2), 1),))))
    chain = chain_for(GRANTS, BRANNOC, YSOLDE)
    odds = chain.odds(state, tolerance=1e-12)
    key = chain.key_of(state)
    assert not isinstance(key, int)
    push, _ = chain_push(chain, [(chain.state_id(key), 1.0)], GRANTS.round_cap - 40, 1e-12)
    other = push.odds(chain.names, GRANTS.round_cap, len(push.alive))
    for x, y in zip((*odds.win, odds.draw), (*other.win, other.draw), strict=True):
        assert x == pytest.approx(y, abs=odds.unresolved + other.unresolved)


def test_S19_house_defaults_are_certified_to_the_tolerance() -> None:
    """S-19 house defaults (penalties without bound): certified intervals of width <= 1e-12,
    no fractions, and the wounds per band add up (one fatal wound per decided fight)."""
    exact = exact_fight(RS, BRANNOC, YSOLDE)
    assert exact.stop == "tolerance" and 0 < exact.unresolved <= 1e-12
    assert exact.fractions is None and exact.no_fractions is not None
    assert exact.rounds.tail <= exact.unresolved
    assert sum(p for _, p in exact.rounds.histogram) + exact.rounds.tail == pytest.approx(1.0)
    low, high = exact.rounds.mean_bounds
    assert low <= exact.rounds.mean <= high and high - low < 1e-9


def test_S19_finite_rulesets_have_exact_fractions_inside_the_intervals() -> None:
    """Where the chain is finite without lumping (every penalised band takes a fighter out),
    the fractions of the fight played to the end lie within the capped intervals plus the
    draw (they differ by fights still going at the cap)."""
    rs = replace(penalty_free(RS, critical=2), fumble_grants_crit=True)
    a, b = bundled()
    exact = exact_fight(rs, a, b)
    assert exact.fractions is not None and exact.fractions.draw_probability == 0
    for f, p in zip(exact.fighters, exact.fractions.win_probability, strict=True):
        low, high = f.bounds
        assert low - 1e-15 <= float(p) <= high + exact.draw_bounds[1] + 1e-15
    assert float(exact.fractions.rounds_mean) == pytest.approx(exact.rounds.mean, rel=1e-9)


def test_S19_fights_that_never_end_are_draws_at_the_cap() -> None:
    """S-19 round cap: two fighters who only defend never end a fight: a certain draw, at
    once (no round is pushed), with no fractions (that fight has no end)."""
    from tests.sevendag_helpers import make

    a = make("Ann", [{"die": 6}], tactic="full-defence")
    b = make("Bob", [{"die": 6}], tactic="full-defence")
    exact = exact_fight(RS, a, b, cap=10_000)  # the highest cap (limits.MAX_ROUND_CAP)
    assert exact.draw_probability == pytest.approx(1.0, abs=1e-12) and exact.unresolved <= 1e-12
    assert exact.rounds.histogram == ((10_000, 1.0),) and exact.rounds.mean == 10_000
    assert exact.fractions is None
    assert odds_at(RS, a, b, initial_state(a, b, "Ann"), cap=50).draw == pytest.approx(1.0)


def test_S19_state_errors_are_one_line() -> None:
    state = initial_state(BRANNOC, YSOLDE, "Brannoc")
    with pytest.raises(EncounterError, match="between"):
        sevendag_odds(RS, YSOLDE, BRANNOC, state)
    with pytest.raises(EncounterError, match="assaillant"):
        sevendag_odds(RS, BRANNOC, YSOLDE, replace(state, assaillant="Nobody"))
    bad = replace(state, fighters=(replace(state.fighters[0], technique=ActiveTechnique("dance", 1)),
                                   state.fighters[1]))
    with pytest.raises(EncounterError, match="dance"):
        sevendag_odds(RS, BRANNOC, YSOLDE, bad)


@pytest.mark.parametrize("value", [-1e-3, 1.0, float("nan"), True, "1e-9"])
def test_tolerance_is_checked(value: object) -> None:
    with pytest.raises(UsageError, match="--tolerance"):
        check_tolerance(value)  # type: ignore[arg-type]


def test_binomial_bound_is_above_the_exact_tail() -> None:
    """The cap bound for d20: an upper bound of P(Binomial(n, p) <= k), checked exactly."""
    from fractions import Fraction

    for n, p, k in ((30, 0.3, 4), (200, 0.05, 20), (12, 0.5, 11), (5, 0.9, 0)):
        exact = sum(Fraction(math.comb(n, j)) * Fraction(p) ** j * (1 - Fraction(p)) ** (n - j)
                    for j in range(k + 1))
        bound = binomial_cdf_upper(n, p, k)
        assert float(exact) <= bound <= float(exact) * (1 + 1e-6) + 1e-300


# --- d20 states -------------------------------------------------------------------------------


@st.composite
def d20_states(draw: st.DrawFn) -> D20State:
    ha = draw(st.integers(1, 45))
    hb = draw(st.integers(1, 50))
    nxt = draw(st.sampled_from([None, "A", "B"]))
    return D20State(draw(st.integers(0, 1005)), (D20FighterState("A", ha, 45),
                                                D20FighterState("B", hb, 50)), nxt)


@PROPS
@given(d20_states())
def test_D12_odds_from_any_state_are_probabilities(state: D20State) -> None:
    rs, a, b = d14_pair()
    odds = d20_odds(rs, a, b, state, tolerance=TOL)
    assert_consistent(odds)


@PROPS
@given(d20_states(), st.integers(1, 10), st.sampled_from([0, 1]))
def test_D12_more_hit_points_never_lower_a_fighters_odds(state: D20State, more: int,
                                                         who: int) -> None:
    rs, a, b = d14_pair()
    fs = state.fighters[who]
    richer = replace(fs, hp=min(fs.max_hp, fs.hp + more))
    fighters = (richer, state.fighters[1]) if who == 0 else (state.fighters[0], richer)
    before = d20_odds(rs, a, b, state, tolerance=TOL)
    after = d20_odds(rs, a, b, replace(state, fighters=fighters), tolerance=TOL)
    assert after.win_bounds[who][1] >= before.win_bounds[who][0]


@PROPS
@given(d20_states(), st.sampled_from(["A", "B", None]))
def test_D12_after_a_finished_fight_the_odds_are_1_and_0(state: D20State,
                                                         winner: str | None) -> None:
    rs, a, b = d14_pair()
    odds = d20_odds(rs, a, b, replace(state, over=True, winner=winner, capped=winner is None))
    assert odds.win == (1.0 if winner == "A" else 0.0, 1.0 if winner == "B" else 0.0)
    assert odds.finished and odds.unresolved == 0.0


def test_D02_odds_of_the_first_state_equal_fight_exact() -> None:
    rs, a, b = d14_pair()
    exact = exact_fight(rs, a, b)
    odds = d20_odds(rs, a, b, d20_initial(a, b))
    assert abs(odds.win[0] - exact.fighters[0].win_probability) <= \
        odds.unresolved + exact.unresolved
    assert exact.fractions is not None
    assert odds.win_bounds[0][0] <= float(exact.fractions.win_probability[0]) <= odds.win_bounds[0][1]


@pytest.mark.parametrize("first", ["A", "B", None])
@pytest.mark.parametrize("cap", [1000, 40])
def test_D02_D12_the_v_table_and_the_push_agree(first: str | None, cap: int) -> None:
    """From (A 17, B 23) at round 30, attacker known or not, a round cap of 1000 (bounded: it
    cannot matter) or 40 (ten rounds left: it does, computed from the law of the hits): the
    chain's odds and the round-by-round push over the grid give the same odds and draw."""
    rs, a, b = d14_pair()
    chain = d20_chain(rs, a, b)
    state = D20State(30, (D20FighterState("A", 17, 45), D20FighterState("B", 23, 50)), first)
    odds = chain.odds(state, cap, 1e-12)
    fixed = None if first is None else ("A", "B").index(first)
    pushed = grid_push(chain, 17, 23, fixed, cap - 30, 1e-12).odds
    slack = odds.unresolved + pushed.unresolved
    assert odds.unresolved <= 1e-12
    assert odds.win[0] == pytest.approx(pushed.win[0], abs=slack)
    assert odds.draw == pytest.approx(pushed.draw, abs=slack)
    assert (odds.draw > 0.01) is (cap == 40)


def test_D02_tables_kept_as_bytes_answer_the_same() -> None:
    """The pair's tables survive msgpack: a later process answers without icepool."""
    rs, a, b = d14_pair()
    tables = d20_tables(rs, a, b)
    again = D20Tables.from_bytes(tables.to_bytes())
    assert again == tables
    state = D20State(7, (D20FighterState("A", 30, 45), D20FighterState("B", 12, 50)), "B")
    assert d20_odds(rs, a, b, state, tables=again) == d20_odds(rs, a, b, state)
    assert D20Chain(again).value(30, 12) == d20_chain(rs, a, b).value(30, 12)


def test_D12_nobody_can_hurt_anybody_is_a_draw() -> None:
    """D-09/D-10 with min_damage 0 and no way to hit: every fight is a draw at the cap; with
    no round cap nothing ever resolves (the odds say so), and the whole fight is refused."""
    from sevendag_cli.errors import RuleError

    rs, a, b = d14_pair()
    rs0 = replace(rs, min_damage=0, round_cap=1000)
    a0, b0 = replace(a, str=1, con=30), replace(b, str=1, con=30)  # VIG above any damage
    odds = d20_odds(rs0, a0, b0, d20_initial(a0, b0))
    assert odds.draw == 1.0 and odds.win == (0.0, 0.0) and odds.stop == "complete"
    assert exact_fight(rs0, a0, b0).rounds.histogram == ((1000, 1.0),)
    endless = replace(rs0, round_cap=None)
    odds = d20_odds(endless, a0, b0, d20_initial(a0, b0))
    assert odds.unresolved == 1.0 and odds.draw == 0.0 and odds.win == (0.0, 0.0)
    with pytest.raises(RuleError):
        exact_fight(endless, a0, b0)


@pytest.mark.slow
def test_many_states_of_one_fight_share_the_tables() -> None:
    """``fight --odds``: one solver, many states; the chain is built once."""
    from sevendag_cli.dice import SeededDice
    from sevendag_cli.sevendag import engine

    solver = OddsSolver(RS, BRANNOC, YSOLDE, tolerance=1e-9)
    _, state = engine.start(RS, BRANNOC, YSOLDE, SeededDice(3))
    seen = [solver(state)]
    dice = SeededDice(4)
    while not state.over:
        _, state = engine.play_round(RS, BRANNOC, YSOLDE, state, dice)
        seen.append(solver(state))
    assert seen[-1].finished and seen[-1].win in ((1.0, 0.0), (0.0, 1.0))
    assert getattr(solver._moment(), "chain", None) is chain_for(RS, BRANNOC, YSOLDE)
    for odds in seen:
        assert_consistent(odds)


# --- fight --exact, the command ---------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ["sevendag", "d20"])
def test_fight_exact_json_keeps_the_runs_keys(ruleset: str) -> None:
    doc = run_json("fight", "--exact", "--ruleset", ruleset)
    runs = run_json("fight", "--runs", "100", "--seed", "1", "--ruleset", ruleset)
    shared = {"fighters", "draw_probability", "rounds", "first_striker_won", "d20", "sevendag"}
    assert shared <= set(doc) & set(runs)
    assert {"win_probability", "name"} <= set(doc["fighters"][0]) & set(runs["fighters"][0])
    assert {"mean", "sd", "p50", "p90", "histogram"} <= set(doc["rounds"]) & set(runs["rounds"])
    assert doc["rounds_mean"] == doc["rounds"]["mean"]
    total = sum(f["win_probability"] for f in doc["fighters"]) + doc["draw_probability"]
    assert total + doc["unresolved"] == pytest.approx(1.0, abs=1e-15)
    assert doc["unresolved"] <= 1e-12 and doc["tolerance"] == 1e-12
    extra = doc[ruleset]["fighters"]
    assert [f["name"] for f in extra] == [f["name"] for f in doc["fighters"]]


def test_fight_exact_tolerance_and_cap() -> None:
    doc = run_json("fight", "--exact", "--tolerance", "1e-4", "--cap", "8")
    assert doc["tolerance"] == 1e-4 and doc["cap"] == 8
    assert doc["draw_probability"] > 0 and doc["stop"] in ("complete", "tolerance")
    assert doc["unresolved"] <= 1e-4
    assert doc["rounds"]["histogram"][-1][0] <= 8


@pytest.mark.parametrize(("args", "fragment"), [
    (["--exact", "--tolerance", "-1"], "--tolerance"),
    (["--exact", "--tolerance", "1"], "--tolerance"),
    (["--exact", "--tolerance", "nan"], "--tolerance"),
    (["--tolerance", "1e-6"], "--tolerance goes with --exact"),
    (["--runs", "10", "--tolerance", "1e-6"], "--tolerance goes with --exact"),
])
def test_fight_exact_bad_tolerance_is_one_line(args: list[str], fragment: str) -> None:
    assert_one_line_error(run("fight", *args), 2, fragment)


def test_fight_exact_speaks_french_and_shows_intervals(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = run("fight", "--exact", "--lang", "fr", "--tolerance", "1e-6")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Probabilités exactes" in out and "tolérance 1e-06" in out
    assert "%–" not in out and "–" in out  # the intervals: 52.11272–52.11281%
    assert "Pas de fractions exactes" in out
    en = run("fight", "--exact", "--ruleset", "d20").stdout
    assert "fight played to the end" in en and "Rounds to the end" in en
    assert max(len(line) for line in en.splitlines()) <= 80


def test_fight_exact_json_is_one_line_in_a_pipe() -> None:
    result = run("fight", "--exact", "--json", "--ruleset", "d20")
    assert result.exit_code == 0 and result.stdout.count("\n") == 1
    doc = json.loads(result.stdout)
    assert doc["fighters"][0]["win_probability_exact"].count("/") == 1


# --- keeping the work between commands (round --odds) ---------------------------------------


@pytest.mark.slow
def test_S19_kept_odds_answer_like_the_push_and_are_checked() -> None:
    """The table of every state's odds (built once, kept as bytes) answers any state with
    enough rounds to go, techniques included (pushed until they end); within both bounds it
    agrees with the plain push; another pair's bytes are ignored, not misread."""
    kept = OddsSolver(GRANTS, BRANNOC, YSOLDE).keep()
    states = [
        initial_state(BRANNOC, YSOLDE, "Ysolde"),
        SevendagState(5, "Ysolde", (
            FighterState("Brannoc", ("light", "light"), 2, technique=ActiveTechnique("guard", 2)),
            FighterState("Ysolde", ("serious",), 3, granted_crit=True))),
        SevendagState(180, "Brannoc", (FighterState("Brannoc", ("critical",), 6),
                                       FighterState("Ysolde", (), 0))),  # near the cap
    ]
    with_table = OddsSolver(GRANTS, BRANNOC, YSOLDE, kept=kept)
    plain = OddsSolver(GRANTS, BRANNOC, YSOLDE)
    for state in states:
        x, y = with_table(state), plain(state)
        assert_consistent(x, 1e-12)
        for (lx, hx), (ly, hy) in zip((*x.win_bounds, x.draw_bounds),
                                      (*y.win_bounds, y.draw_bounds), strict=True):
            assert lx <= hy and ly <= hx
    other = OddsSolver(RS, YSOLDE, BRANNOC, kept=kept)  # the pair the other way round
    assert not other.used_kept and getattr(other._moment(), "lookup", None) is None
    rs, a, b = d14_pair()
    assert odds_at(rs, a, b, d20_initial(a, b), kept=kept).unresolved <= 1e-12  # not d20's


def test_D02_kept_tables_skip_icepool() -> None:
    rs, a, b = d14_pair()
    kept = OddsSolver(rs, a, b).keep()
    assert D20Tables.from_bytes(kept) == d20_tables(rs, a, b)
    state = D20State(3, (D20FighterState("A", 12, 45), D20FighterState("B", 9, 50)), "A")
    assert odds_at(rs, a, b, state, kept=kept) == odds_at(rs, a, b, state)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 6), st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5),
                                             st.floats(0.0, 1.0)), max_size=40),
       st.booleans(), st.integers(1, 3))
def test_S19_a_round_moves_the_mass_as_bincount_bit_for_bit(
        n: int, entries: list[tuple[int, int, float]], by_source: bool, columns: int) -> None:
    """The push's moves (a sparse product: by source when the entries come by source, else
    sorted by target) sum each target's mass entry by entry in their order, as
    ``bincount`` does: the same bits, every column."""
    import numpy as np

    from sevendag_cli.sim.push import Moves

    entries = [(s % n, t % n, p) for s, t, p in entries]
    if by_source:
        entries.sort(key=lambda e: e[0])
    src = np.array([e[0] for e in entries], dtype=np.intp)
    tgt = np.array([e[1] for e in entries], dtype=np.intp)
    prob = np.array([e[2] for e in entries], dtype=np.float64)
    m = np.random.default_rng(len(entries)).random((n, columns)) / 3
    want = np.stack([np.bincount(tgt, weights=prob * m[src, c], minlength=n)
                     for c in range(columns)], axis=1)
    moves = Moves(src, tgt, prob, n)
    assert moves(m).tobytes() == want.tobytes()
    assert moves.indegree == (int(np.bincount(tgt, minlength=n).max()) if entries else 0)
