"""Sevendag simulation and exact odds (S-02 .. S-19): vectorised engine, exact solver.

The step-by-step engine (:mod:`sevendag_cli.sevendag.engine`) is the reference:

* the attack verdicts and allocations the fast engines are built on are compared with
  the engine's own code, case by case (S-04, S-10 .. S-13, S-17, S-18);
* whole fights: the vectorised engine against a few thousand step-by-step fights
  (win rates, wounds per band, rounds) on several pairs and ruleset variants;
* the exact solver against a brute-force enumeration of the step-by-step engine's
  rounds (every die face, every state it reaches), and the vectorised engine's
  intervals against the exact values.

Statistical checks use 95% *family-wise* intervals: each comparison at level
0.05 / FAMILY (Bonferroni over the comparisons in this file), so that the file as a
whole has at most a 5% chance of a false alarm; seeds are fixed, so results are
reproducible.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from msgspec.structs import replace

from sevendag_cli.dice import Roll, SeededDice
from sevendag_cli.errors import RuleError, UsageError
from sevendag_cli.formula import parse
from sevendag_cli.rules import SevendagFighter, SevendagRuleset
from sevendag_cli.rules import load_ruleset as _load_ruleset
from sevendag_cli.sevendag import engine
from sevendag_cli.sevendag import exact as exact_mod
from sevendag_cli.sevendag.exact import exact_sevendag, initiative_probability
from sevendag_cli.sevendag.sim_extra import SevendagExtra
from sevendag_cli.sevendag.vector import (
    SevendagBatch,
    fighter_model,
    judge,
    simulate_sevendag_batch,
)
from sevendag_cli.sim.stats import wilson
from tests.exact_helpers import every_face
from tests.sevendag_helpers import (
    RS,
    TINY_RS,
    TINY_X,
    TINY_Y,
    TINY_Z,
    bundled,
    dual,
    greatsword,
    make,
    penalty_free,
    sword_shield,
)

FAMILY = 80
"""Comparisons made at the family-wise 95% level in this file (Bonferroni)."""
ALPHA = 0.05 / FAMILY
Z = NormalDist().inv_cdf(1 - ALPHA / 2)


def quad(name: str = "Quad") -> SevendagFighter:
    """Four hands: two weapons, an empty hand and a shield, all-out (S-12 with 3 groups)."""
    return make(name, [{"die": 4, "holds": "a"}, {"die": 4, "holds": "b"}, {"die": 6},
                       {"die": 6, "holds": "s"}],
                {"a": {"metal": "bronze", "skill": 8}, "b": {"metal": "steel", "skill": 5},
                 "s": {"kind": "shield"}}, tactic="all-out")


def run(rs: SevendagRuleset, a: SevendagFighter, b: SevendagFighter, n: int, seed: int,
        cap: int | None = None) -> SevendagBatch:
    return simulate_sevendag_batch(rs, a, b, n, np.random.Generator(np.random.PCG64(seed)), cap)


# --- the building blocks against the engine's own code ---------------------------------

POOL = [sword_shield(), greatsword(), dual(), quad(),
        make("Tri", [{"die": 4, "holds": "g"}, {"die": 4, "holds": "g"}, {"die": 6, "holds": "d"}],
             {"g": {"hands": 2, "metal": "steel"}, "d": {"metal": "iron"}}),
        make("Empty", [{"die": 6, "holds": "w"}, {"die": 4}], {"w": {"metal": "starmetal"}},
             tactic="all-out"),
        make("Bare", [{"die": 4}]),
        make("Guard", [{"die": 6, "holds": "w"}, {"die": 6, "holds": "s"}],
             {"w": {"metal": "iron"}, "s": {"kind": "shield"}}, tactic="full-defence")]


def _engine_units(f: SevendagFighter, groups: Any) -> list[int]:
    """Unit index (the model's order) of engine groups, by their first hand."""
    model = fighter_model(RS, f)
    first = {unit.hands[0]: u for u, unit in enumerate(model.units)}
    return [first[g.hands[0]] for g in groups]


@pytest.mark.slow
@pytest.mark.parametrize("fighter", POOL, ids=[f.name for f in POOL])
@pytest.mark.parametrize("failure_beats_crit", [True, False])
def test_S10_S11_S12_S13_S17_judge_matches_engine(fighter: SevendagFighter,
                                                 failure_beats_crit: bool) -> None:
    """Every face of every attacking hand, every dropped set: the vectorised verdict table
    (failure, fumble, critical, metal multipliers, weapons to check) is the engine's."""
    rs = replace(RS, failure_beats_crit=failure_beats_crit)
    model = fighter_model(rs, fighter)
    for alloc in model.allocations:
        hands = list(alloc.attack)
        if not hands:
            continue
        faces_per_hand = [range(1, model.sides[h] + 1) for h in hands]
        for faces in np.array(np.meshgrid(*faces_per_hand)).T.reshape(-1, len(hands)):
            rolls = [Roll("attack", model.sides[h], int(x), fighter.name)
                     for h, x in zip(hands, faces, strict=True)]
            ref = engine.judge_attack(rs, engine.attack_groups(fighter, hands, rolls))
            lo = sum(1 << h for h, r in zip(hands, rolls, strict=True) if r.is_min)
            hi = sum(1 << h for h, r in zip(hands, rolls, strict=True) if r.is_max)
            got = judge(model, alloc, lo, hi, failure_beats_crit)
            assert got.failure == ref.failure and got.fumble == ref.fumble
            assert got.critical == (ref.critical is not None)
            times = dict(zip(_engine_units(fighter, [g for g, _ in ref.metal_groups]),
                             [t for _, t in ref.metal_groups], strict=True))
            assert {u: t for u, t in enumerate(got.times) if t} == times
            fumbled = sum(1 << u for u in _engine_units(fighter, ref.fumbled))
            assert got.fumbled == fumbled


@pytest.mark.parametrize("fighter", POOL, ids=[f.name for f in POOL])
def test_S04_S18_allocations_match_engine(fighter: SevendagFighter) -> None:
    """Per set of dropped weapons, the model's hands are ``allocation_for``'s (S-04, S-18)."""
    model = fighter_model(RS, fighter)
    for mask, alloc in enumerate(model.allocations):
        dropped = tuple(
            engine.DroppedWeapon(unit.key, tuple(h + 1 for h in unit.hands), 1)
            for u, unit in enumerate(model.units)
            if mask >> u & 1 and unit.is_weapon and unit.key is not None
        )
        ref = engine.allocation_for(fighter, None, engine.FighterState(fighter.name,
                                                                       dropped=dropped))
        assert alloc.attack == tuple(i for i, c in enumerate(ref) if c == engine.ATTACK)
        assert alloc.defence == tuple(i for i, c in enumerate(ref) if c == engine.DEFENCE)


def test_S04_refused_sheet_allocation_is_the_engines_error() -> None:
    """A custom allocation the engine refuses (a shield attacking) is refused the same way."""
    bad = make("Bad", [{"die": 6, "holds": "w"}, {"die": 6, "holds": "s"}],
               {"w": {"metal": "iron"}, "s": {"kind": "shield"}}, allocation=["attack", "attack"])
    other = greatsword()
    with pytest.raises(RuleError) as ref:
        engine.fight(RS, bad, other, SeededDice(1))
    with pytest.raises(RuleError) as got:
        run(RS, bad, other, 10, seed=1)
    assert str(got.value) == str(ref.value)


# --- whole fights: vectorised against step-by-step -----------------------------------------


@dataclass(frozen=True)
class Sample:
    first: npt.NDArray[np.int64]  # 0: a won the initiative
    winner: npt.NDArray[np.int64]
    rounds: npt.NDArray[np.int64]
    wounds: npt.NDArray[np.int64]  # (n, 2, bands)


def _fmt(f: Callable[[], tuple[SevendagRuleset, SevendagFighter, SevendagFighter]]) -> str:
    return f.__name__


def case_bundled() -> tuple[SevendagRuleset, SevendagFighter, SevendagFighter]:
    """S-21 pair: one-handed iron sword + shield (S-10, S-15) against a two-handed steel
    greatsword (S-11, S-17 band shift)."""
    a, b = bundled()
    return RS, a, b


def case_dual_wield() -> tuple[SevendagRuleset, SevendagFighter, SevendagFighter]:
    """S-12: a weapon in each hand (both metals on a devastating hit) against sword + shield."""
    return RS, dual(attack=13), sword_shield()


def case_all_out_vs_full_defence() -> tuple[SevendagRuleset, SevendagFighter, SevendagFighter]:
    """S-04/S-12: all-out with an empty hand beside the weapon against full defence with
    two defence dice, one a shield (S-14, S-15); the defender never attacks (S-08)."""
    a = make("Ann", [{"die": 8, "holds": "w"}, {"die": 6}], {"w": {"metal": "iron", "skill": 9}},
             attack=15, tactic="all-out")
    return RS, a, sword_shield("Gord", tactic="full-defence", defence=6)


def case_fumble_grants_crit() -> tuple[SevendagRuleset, SevendagFighter, SevendagFighter]:
    """S-10 fumble_grants_crit on, S-13 with the critical winning (failure_beats_crit off)."""
    rs = replace(RS, fumble_grants_crit=True, failure_beats_crit=False)
    return rs, dual(), greatsword()


def case_edited_ruleset() -> tuple[SevendagRuleset, SevendagFighter, SevendagFighter]:
    """A ruleset edited with dataclasses.replace: drops take 3 rounds to recover (S-18),
    speed roll 2d6 + speed (S-02), other wound penalties (S-19); four hands (S-12)."""
    wounds = tuple(replace(w, penalty=w.penalty * 2) for w in RS.wounds)
    rs = replace(RS, drop_recovery_rounds=3, drop_check_die=12, fumble_grants_crit=True,
                 speed_roll=parse("2d6 + speed"), wounds=wounds)
    return rs, quad(), sword_shield("Star", metal="starmetal")


CASES = [case_bundled, case_dual_wield, case_all_out_vs_full_defence, case_fumble_grants_crit,
         case_edited_ruleset]
STEP_FIGHTS = {"case_bundled": 1500}
DEFAULT_STEP_FIGHTS = 1000
VECTOR_FIGHTS = 100_000


@cache
def step_sample(name: str) -> Sample:
    rs, a, b = next(c for c in CASES if c.__name__ == name)()
    n = STEP_FIGHTS.get(name, DEFAULT_STEP_FIGHTS)
    dice = SeededDice(2024)
    first, winner, rounds, wounds = [], [], [], []
    for _ in range(n):
        result = engine.fight(rs, a, b, dice)
        first.append(0 if result.initiative.leader == a.name else 1)
        winner.append(-1 if result.winner is None else (0 if result.winner == a.name else 1))
        rounds.append(len(result.rounds))
        wounds.append([[f.wounds.count(w.name) for w in rs.wounds] for f in result.states])
    return Sample(np.array(first), np.array(winner), np.array(rounds), np.array(wounds))


def _same_mean(x: npt.NDArray[Any], y: npt.NDArray[Any], what: str) -> None:
    """The difference of two sample means is within its family-wise 95% interval."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    se = float(np.sqrt(x.var(ddof=1) / x.size + y.var(ddof=1) / y.size))
    diff = float(x.mean() - y.mean())
    if se == 0:
        assert diff == 0, f"{what}: {x.mean()} vs {y.mean()} (no variance)"
        return
    assert abs(diff) <= Z * se, f"{what}: step {x.mean():.4f} vs vector {y.mean():.4f} (z={diff / se:.2f})"


def _binned(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64],
            min_expected: float = 5.0) -> npt.NDArray[np.float64]:
    """Rounds counts of two samples, adjacent values pooled until every expected count >= 5."""
    top = int(max(a.max(), b.max())) + 1
    table = np.array([np.bincount(a, minlength=top), np.bincount(b, minlength=top)], dtype=float)
    table = table[:, table.sum(axis=0) > 0]
    share = table.sum(axis=1) / table.sum()
    cols: list[npt.NDArray[np.float64]] = []
    acc = np.zeros(2)
    for j in range(table.shape[1]):
        acc = acc + table[:, j]
        if (acc.sum() * share).min() >= min_expected:
            cols.append(acc)
            acc = np.zeros(2)
    if acc.sum():
        cols[-1] = cols[-1] + acc
    return np.array(cols).T


@cache
def vector_sample(name: str) -> SevendagBatch:
    rs, a, b = next(c for c in CASES if c.__name__ == name)()
    return run(rs, a, b, VECTOR_FIGHTS, seed=77)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=_fmt)
def test_S02_S19_vector_agrees_with_step_engine(case: Callable[[], Any]) -> None:
    """S-02..S-19: win rates and wounds of each band per fighter agree with the
    step-by-step engine."""
    rs, a, b = case()
    ref = step_sample(case.__name__)
    vec = vector_sample(case.__name__)
    assert vec.wounds.shape == (VECTOR_FIGHTS, 2, len(rs.wounds))
    for who in (0, 1):
        _same_mean(ref.winner == who, vec.winner == who, f"P({(a, b)[who].name} wins)")
        for j, band in enumerate(rs.wounds):
            _same_mean(ref.wounds[:, who, j], vec.wounds[:, who, j],
                       f"{(a, b)[who].name} {band.name} wounds per fight")


@pytest.mark.parametrize("case", CASES, ids=_fmt)
@pytest.mark.slow
def test_S09_S14_S19_rounds_agree_with_step_engine_chi_square(case: Callable[[], Any]) -> None:
    """S-09/S-14/S-19: the distribution of rounds per fight, step-by-step against vectorised
    (chi-square on a contingency table, sparse tail values pooled)."""
    stats = pytest.importorskip("scipy.stats")
    ref = step_sample(case.__name__)
    vec = vector_sample(case.__name__)
    table = _binned(ref.rounds, vec.rounds)
    assert table.shape[1] >= 4
    p = stats.chi2_contingency(table)[1]
    assert p > ALPHA, f"rounds differ: chi-square p = {p:.2g}"


@pytest.mark.slow
def test_comparison_detects_a_real_difference() -> None:
    """The agreement test is not vacuous: +2 attack for Brannoc is detected at once."""
    rs, a, b = case_bundled()
    ref = step_sample("case_bundled")
    vec = run(rs, replace(a, attack=a.attack + 2), b, VECTOR_FIGHTS, seed=77)
    with pytest.raises(AssertionError):
        _same_mean(ref.winner == 0, vec.winner == 0, "P(Brannoc wins)")


@pytest.mark.slow
def test_S02_first_striker_is_the_assaillant_with_exact_odds() -> None:
    """S-02: first_striker is the initiative winner; ties roll again, as in the exact
    P(a) = P(a > b) / (1 - P(tie))."""
    rs, a, b = case_bundled()
    vec = vector_sample("case_bundled")
    n = vec.n
    p = initiative_probability(rs, a, b)
    wins = 0
    ties = 0
    for fa in range(1, 21):
        for fb in range(1, 21):
            wins += fa + a.speed > fb + b.speed
            ties += fa + a.speed == fb + b.speed
    assert p == Fraction(wins, 400 - ties)
    low, high = wilson(int(np.count_nonzero(vec.first_striker == 0)), n, z=Z)
    assert low <= float(p) <= high
    ref = step_sample("case_bundled")
    low, high = wilson(int(np.count_nonzero(ref.first == 0)), ref.first.size, z=Z)
    assert low <= float(p) <= high


def test_S02_speed_roll_without_dice_tying_is_refused() -> None:
    """S-02: a speed roll with no die that ties can never be broken: RuleError, as the engine."""
    rs = replace(RS, speed_roll=parse("speed"))
    a, b = sword_shield(), greatsword()
    with pytest.raises(RuleError, match="tie"):
        engine.fight(rs, a, b, SeededDice(1))
    with pytest.raises(RuleError, match="tie"):
        run(rs, a, b, 5, seed=1)
    fast = replace(a, speed=1)
    assert (run(rs, fast, b, 50, seed=1).first_striker == 0).all()


# --- arrays, seeds, caps ------------------------------------------------------------------


def test_C01_same_seed_same_arrays() -> None:
    rs, a, b = case_edited_ruleset()
    x = run(rs, a, b, 5_000, seed=11)
    y = run(rs, a, b, 5_000, seed=11)
    z = run(rs, a, b, 5_000, seed=12)
    for field in ("winner", "rounds", "first_striker", "wounds"):
        assert np.array_equal(getattr(x, field), getattr(y, field)), field
    assert not np.array_equal(x.rounds, z.rounds)
    assert x.winner.dtype == np.int8 and x.first_striker.dtype == np.int8
    assert x.rounds.dtype == np.int64 and x.wounds.dtype == np.int64 and x.n == 5_000


@pytest.mark.parametrize("case", CASES, ids=_fmt)
def test_S09_S19_every_fight_ends_within_the_cap(case: Callable[[], Any]) -> None:
    """S-09/S-19: rounds in 1..cap; a draw is a fight that reached the cap with nobody out;
    a winner's opponent is out (a band's out_after reached), the winner is not."""
    rs, a, b = case()
    cap = 6
    bt = run(rs, a, b, 20_000, seed=3, cap=cap)
    assert bt.rounds.min() >= 1 and bt.rounds.max() <= cap
    out_after = np.array([w.out_after or 10**9 for w in rs.wounds])
    out: npt.NDArray[np.bool_] = np.asarray((bt.wounds >= out_after).any(axis=2))  # (n, 2)
    draws = bt.winner == -1
    assert (bt.rounds[draws] == cap).all() and not out[draws].any()
    for who in (0, 1):
        won = bt.winner == who
        assert out[won, 1 - who].all() and not out[won, who].any()
    assert np.isin(bt.winner, (-1, 0, 1)).all() and np.isin(bt.first_striker, (0, 1)).all()


def test_S19_fights_nobody_can_win_are_all_draws() -> None:
    a = make("Ann", [{"die": 6}], tactic="full-defence")
    b = make("Bob", [{"die": 6}], tactic="full-defence")
    bt = run(RS, a, b, 1_000, seed=1, cap=7)
    assert (bt.winner == -1).all() and (bt.rounds == 7).all() and not bt.wounds.any()
    assert run(RS, a, b, 0, seed=1).n == 0


def test_bad_arguments_are_usage_errors() -> None:
    a, b = bundled()
    with pytest.raises(UsageError, match="round cap"):
        run(RS, a, b, 10, seed=1, cap=0)
    with pytest.raises(UsageError, match="both fighters"):
        run(RS, a, a, 10, seed=1)
    with pytest.raises(UsageError, match="cannot simulate"):
        run(RS, a, b, -1, seed=1)
    with pytest.raises(UsageError, match="sevendag ruleset"):
        run(_load_ruleset("d20"), a, b, 10, seed=1)  # type: ignore[arg-type]


@pytest.mark.parametrize(("args", "french"), [
    ({"cap": 0}, "plafond de rounds"),
    ({"n": -1}, "impossible de simuler"),
    ({"same": True}, "s'appellent"),
    ({"ruleset": "d20"}, "demande des règles sevendag"),
])
def test_bad_arguments_are_said_in_french_too(args: dict[str, Any], french: str) -> None:
    """The simulator's own refusals are catalogue messages, as the CLI's are."""
    a, b = bundled()
    rs = _load_ruleset("d20") if args.get("ruleset") else RS
    with pytest.raises(UsageError) as err:
        run(rs, a, a if args.get("same") else b, args.get("n", 10), seed=1,  # type: ignore[arg-type]
            cap=args.get("cap"))
    assert french in err.value.render("fr") and err.value.render("en") != err.value.render("fr")


def test_runner_uses_the_sevendag_batch() -> None:
    """simulate(): the runner's Sevendag aggregator reads this engine's wounds array."""
    from sevendag_cli.sim.runner import simulate

    rs, a, b = case_bundled()
    r = simulate(rs, a, b, 3_000, seed=9, batch_size=1_000)
    assert r.engine == "sevendag" and isinstance(r.extras, SevendagExtra) and r.runs == 3_000
    assert r.fighters[0].wins + r.fighters[1].wins + r.draws == 3_000
    fatal = [f.wounds[-1].total for f in r.extras.fighters]
    # S-19: one fatal wound takes a fighter out, so fatal wounds = the other's wins.
    assert fatal == [r.fighters[1].wins, r.fighters[0].wins]


# --- exact odds -------------------------------------------------------------------------


def test_S19_exact_refuses_unbounded_penalties() -> None:
    """S-19 house default: penalties pile up without bound, so no finite chain: refused."""
    a, b = bundled()
    with pytest.raises(UsageError) as err:
        exact_sevendag(RS, a, b)
    message = str(err.value)
    assert "\n" not in message and "finite state space" in message
    assert "'light' penalty 1" in message and "--runs N" in message


def test_S19_exact_refuses_fights_without_an_out_band() -> None:
    a, b = bundled()
    rs = replace(RS, wounds=tuple(replace(w, penalty=0, out_after=0) for w in RS.wounds))
    with pytest.raises(UsageError, match="no wound band takes a fighter out"):
        exact_sevendag(rs, a, b)


def test_S09_exact_refuses_fights_that_never_end() -> None:
    a = make("Ann", [{"die": 6}], tactic="full-defence")
    b = make("Bob", [{"die": 6}], tactic="full-defence")
    with pytest.raises(UsageError, match="never end"):
        exact_sevendag(penalty_free(RS), a, b)


@pytest.mark.parametrize("limit", ["MAX_STATES", "MAX_WORK", "MAX_FACES"])
def test_exact_refuses_too_much_work(monkeypatch: pytest.MonkeyPatch, limit: str) -> None:
    monkeypatch.setattr(exact_mod, limit, 10)
    a, b = bundled()
    with pytest.raises(UsageError, match="--runs N") as err:
        exact_sevendag(penalty_free(RS, critical=2), a, b)
    assert "\n" not in str(err.value)


EXACT_CASES = {
    # S-11/S-15/S-17 with two wounds of "critical" needed, granted criticals, 2-round drops.
    "bundled": lambda: (replace(penalty_free(RS, critical=2), fumble_grants_crit=True,
                                drop_recovery_rounds=2), *bundled()),
    # S-12 dual wield; bounded penalties are exact too: light -1 until the 3rd light wound.
    "dual": lambda: (replace(RS, wounds=tuple(
        replace(w, out_after=3) if w.name == "light" else replace(w, penalty=0)
        for w in RS.wounds)), dual(attack=13), sword_shield()),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(EXACT_CASES))
def test_S02_S19_simulation_interval_covers_exact(name: str) -> None:
    """The vectorised engine's intervals (win rate, mean rounds) cover the exact values."""
    rs, a, b = EXACT_CASES[name]()
    ex = exact_sevendag(rs, a, b)
    assert ex.win_probability[0] + ex.win_probability[1] == 1 and ex.draw_probability == 0
    assert ex.fighters == (a.name, b.name) and ex.note
    n = 200_000
    bt = run(rs, a, b, n, seed=21, cap=100_000)
    assert (bt.winner >= 0).all()
    low, high = wilson(int(np.count_nonzero(bt.winner == 0)), n, z=Z)
    assert low <= float(ex.win_probability[0]) <= high
    half = Z * bt.rounds.std(ddof=1) / np.sqrt(n)
    assert abs(bt.rounds.mean() - float(ex.rounds_mean)) <= half


# Brute force: every die face of every round, through the step-by-step engine itself.


def _canonical(rs: SevendagRuleset, st: engine.SevendagState) -> engine.SevendagState:
    """Forget what cannot matter: the round number, wound order, wounds of inert bands."""
    order = {w.name: i for i, w in enumerate(rs.wounds)}
    inert = {w.name for w in rs.wounds if not w.penalty and not w.out_after}
    fs = tuple(replace(f, wounds=tuple(sorted((w for w in f.wounds if w not in inert),
                                              key=order.__getitem__)),
                       dropped=tuple(sorted(f.dropped, key=lambda d: d.item)))
               for f in st.fighters)
    return replace(st, round=0, fighters=(fs[0], fs[1]))


def brute_force(rs: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
                tol: float = 1e-12) -> tuple[float, float, float]:
    """(P(a wins), E[rounds], mass left) by pushing the state distribution round by round."""
    rs = replace(rs, round_cap=10**9)
    start: dict[engine.SevendagState, float] = {}
    for (_, st), p in every_face(lambda d: engine.start(rs, a, b, d), limit=2, certain=1.0):
        first = _canonical(rs, st)
        start[first] = start.get(first, 0.0) + p
    total = sum(start.values())  # condition on the first speed rolls not tying (S-02)
    dist = {k: v / total for k, v in start.items()}
    memo: dict[engine.SevendagState, dict[Any, float]] = {}
    win_a = rounds = 0.0
    alive = 1.0
    while alive > tol:
        rounds += alive
        new: dict[engine.SevendagState, float] = {}
        for st, p in dist.items():
            if st not in memo:
                acc: dict[Any, float] = {}

                def play(d: Any, st: engine.SevendagState = st) -> Any:
                    return engine.play_round(rs, a, b, st, d)

                for (_, nst), q in every_face(play, certain=1.0):
                    key: Any = ("over", nst.winner) if nst.over else _canonical(rs, nst)
                    acc[key] = acc.get(key, 0.0) + q
                memo[st] = acc
            for key, q in memo[st].items():
                if isinstance(key, tuple):
                    win_a += p * q if key[1] == a.name else 0.0
                else:
                    new[key] = new.get(key, 0.0) + p * q
        dist = new
        alive = sum(new.values())
    return win_a, rounds, alive


@pytest.mark.slow
@pytest.mark.parametrize(("rs", "a", "b"), [
    (TINY_RS, TINY_X, TINY_Y),
    (replace(TINY_RS, failure_beats_crit=False, drop_recovery_rounds=1), TINY_Z, TINY_Y),
], ids=["shield-vs-two-handed", "dual-vs-two-handed"])
def test_S02_S19_exact_agrees_with_brute_force(rs: SevendagRuleset, a: SevendagFighter,
                                               b: SevendagFighter) -> None:
    """Tiny dice, so that every face of every round can be played through the step-by-step
    engine: S-02 initiative, S-10..S-15 verdicts (shield, two-handed, dual wield, S-13 both
    ways), S-17 metals, S-18 drops for 1-2 rounds, S-10 granted criticals, S-19 bounded
    penalties (light -1, out after 2) and an inert band."""
    ex = exact_sevendag(rs, a, b)
    win, rounds, left = brute_force(rs, a, b)
    assert left < 1e-11
    assert float(ex.win_probability[0]) == pytest.approx(win, abs=1e-9)
    assert float(ex.rounds_mean) == pytest.approx(rounds, rel=1e-9)
