"""Optimal play: the game's rounds against the engine, and its solver against brute force.

* **One round, every declaration**: in ``tests/test_round_forms.py`` (the exact round form
  against the step engine over every face, every pair of declarations).
* **The solver**: both fighters on their sheets gives the chain's odds; the optimiser can
  only gain; the game's value lies between the two best responses; on tiny games with one
  or two rounds to go it equals brute-force minimax over the engine's own rounds; solved
  policies played by the engine land within 4 standard errors of the value.
"""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from sevendag_cli.errors import RuleError
from sevendag_cli.sevendag import engine
from sevendag_cli.sevendag.chain import SevendagChain
from sevendag_cli.sevendag.engine import (
    ActiveTechnique,
    DroppedWeapon,
    FighterState,
    SevendagState,
    initial_state,
)
from sevendag_cli.sevendag.game import OPTIMAL, SHEET, Option, SevendagGame
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
from tests.exact_helpers import distribution
from tests.records import replace
from tests.sevendag_helpers import RS, TINY_COUNTED, TINY_HOUSE, TINY_X, TINY_Y, TINY_Z, bundled


def fs(name: str, wounds: tuple[str, ...] = (), penalty: int = 0, **kw: Any) -> FighterState:
    return FighterState(name, wounds, penalty, **kw)


def test_S04_S05_options_are_what_the_engine_accepts() -> None:
    """S-04/S-18/S-05: every option offered is accepted by the engine; every allocation of
    attack/defence it leaves out is refused; no technique while one is in effect."""
    a, b = TINY_Z, TINY_Y
    game = SevendagGame(TINY_COUNTED, a, b)
    state = SevendagState(2, "Z", (fs("Z", dropped=(DroppedWeapon("k", (2,), 1),)),
                                   fs("Y", technique=ActiveTechnique("guard", 1))))
    key = game.key_of(state)
    assert not isinstance(key, int)
    za = {o.allocation for o in game.options(key, 0)}
    assert za == {("attack", "none"), ("defence", "none")}
    assert {o.technique for o in game.options(key, 1)} == {None}
    assert {o.yield_initiative for o in game.options(key, 0)} == {False, True}
    assert {o.yield_initiative for o in game.options(key, 1)} == {False}
    for alloc in product(("attack", "defence"), repeat=2):
        choices = engine.Choices(allocation={"Y": alloc})
        try:
            engine.check_choices(TINY_COUNTED, a, b, state, choices)
            accepted = True
        except RuleError:
            accepted = False
        assert accepted == (alloc in {o.allocation for o in game.options(key, 1)})


# --- the solver ------------------------------------------------------------------------------


def test_S19_sheet_against_sheet_is_the_chains_odds() -> None:
    """Both on their sheets: the value is the chain's P(a wins) + ½ P(draw)."""
    rs = replace(RS, round_cap=60)
    a, b = bundled()
    game = SevendagGame(rs, a, b)
    sol = game.solve(game.start_key(1), 60, (SHEET, SHEET), 1e-12)
    chain = SevendagChain(rs, a, b)
    odds = chain.solve(chain.state_id(chain.start_key(1)), 60, 1e-12)
    expected = odds.win[0] + odds.draw / 2
    assert sol.low - 1e-11 <= expected <= sol.high + 1e-11
    assert abs(sol.value - expected) < 1e-10


def tiny_game(cap: int = 40) -> tuple[SevendagGame, SevendagRuleset]:
    rs = replace(TINY_HOUSE, round_cap=cap, fumble_grants_crit=False,
                 techniques={k: RS.techniques[k] for k in ("feint", "guard")})
    return SevendagGame(rs, TINY_X, TINY_Y), rs


@pytest.mark.parametrize("assaillant", [0, 1])
def test_S03_S05_optimiser_only_gains_and_value_between_best_responses(assaillant: int) -> None:
    """The side that optimises never does worse than its sheet; the game's value lies
    between the two best responses to the sheets."""
    game, _rs = tiny_game()
    key = game.start_key(assaillant)
    v = {p: game.solve(key, 40, p, 1e-12) for p in
         ((SHEET, SHEET), (OPTIMAL, SHEET), (SHEET, OPTIMAL), (OPTIMAL, OPTIMAL))}
    eps = 1e-9
    assert v[(OPTIMAL, SHEET)].value >= v[(SHEET, SHEET)].value - eps
    assert v[(SHEET, OPTIMAL)].value <= v[(SHEET, SHEET)].value + eps
    assert v[(SHEET, OPTIMAL)].value - eps <= v[(OPTIMAL, OPTIMAL)].value
    assert v[(OPTIMAL, OPTIMAL)].value <= v[(OPTIMAL, SHEET)].value + eps
    for sol in v.values():
        assert sol.low <= sol.value <= sol.high


def _engine_options(rs: SevendagRuleset, f: SevendagFighter, state: SevendagState,
                    first: bool) -> list[tuple[bool, tuple[str, ...], str | None]]:
    """Every declaration the engine accepts, found by asking it (not the game)."""
    fsx = state.fighter(f.name)
    rec = fsx.recovering()
    out = []
    for alloc in product(*[("none",) if i + 1 in rec else ("attack", "defence")
                           for i in range(len(f.hands))]):
        for tech in (None, *rs.techniques):
            try:
                engine.plan_for(rs, f, fsx, engine.Choices(
                    allocation={f.name: alloc}, technique={f.name: tech} if tech else {}))
            except RuleError:
                continue
            for y in ((False, True) if first else (False,)):
                out.append((y, alloc, tech))
    return out


def brute_value(rs: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
                state: SevendagState, rounds: int) -> Fraction:
    """Minimax over the engine's rounds, every declaration, ``rounds`` rounds to go (then a draw)."""
    if state.over:
        return Fraction(1, 2) if state.winner is None else Fraction(int(state.winner == a.name))
    if rounds == 0:
        return Fraction(1, 2)
    first = a if state.assaillant == a.name else b
    second = b if first is a else a
    best: Fraction | None = None
    for y, alloc, tech in _engine_options(rs, first, state, True):
        worst: Fraction | None = None
        for _, alloc2, tech2 in _engine_options(rs, second, state, False):
            techs = {n: t for n, t in ((first.name, tech), (second.name, tech2)) if t}
            choices = engine.Choices(y, {first.name: alloc, second.name: alloc2}, techs)
            dist = distribution(lambda d, c=choices: engine.play_round(rs, a, b, state, d, c)[1])
            v = sum((p * brute_value(rs, a, b, replace(n, round=0), rounds - 1)
                     for n, p in dist.items()), Fraction(0))
            if worst is None or (v < worst if first is a else v > worst):
                worst = v
        assert worst is not None
        if best is None or (worst > best if first is a else worst < best):
            best = worst
    assert best is not None
    return best


@pytest.mark.parametrize("rounds", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_S03_S04_S05_solver_equals_brute_force_minimax_on_a_tiny_game(rounds: int) -> None:
    """Every pure declaration of each fighter, every face, ``rounds`` rounds to live: the
    brute-force minimax through the engine equals the solver's value."""
    rs = replace(TINY_HOUSE, round_cap=10**9,
                 techniques={"feint": RS.techniques["feint"]})
    a = TINY_X
    b = TINY_Y
    state = SevendagState(0, "Y", (fs("X"), fs("Y", ("light",), 1)))
    expected = brute_value(rs, a, b, state, rounds)
    game = SevendagGame(rs, a, b)
    key = game.key_of(state)
    assert not isinstance(key, int)
    sol = game.solve(key, rounds, (OPTIMAL, OPTIMAL), 1e-15)
    assert sol.complete
    assert abs(sol.value - float(expected)) < 1e-12
    assert sol.low - 1e-12 <= float(expected) <= sol.high + 1e-12


@pytest.mark.slow
def test_S03_S05_solved_policies_played_by_the_engine_land_within_4_standard_errors() -> None:
    """Both fighters play the solved policies through the step engine (random dice): the
    mean of (win + ½ draw) lands within 4 standard errors of the game's value."""
    cap = 30
    game, rs = tiny_game(cap)
    a, b = TINY_X, TINY_Y
    start = initial_state(a, b, "X")
    key0 = game.key_of(start)
    assert not isinstance(key0, int)
    sol = game.solve(key0, cap, (OPTIMAL, OPTIMAL), 1e-12)
    from sevendag_cli.sevendag.policy import PolicyChain

    chain = PolicyChain(rs, a, b, (OPTIMAL, OPTIMAL), cap=cap)
    rng = random.Random(17)

    class Dice:
        def face(self, sides: int, purpose: str, fighter: str | None) -> int:
            return rng.randint(1, sides)

    n = 3000
    total = 0.0
    sq = 0.0
    for _ in range(n):
        st = start
        while not st.over:  # the declarations fight --seed plays (per rounds to go)
            st = engine.play_round(rs, a, b, st, Dice(), chain.choices(st))[1]
        x = 0.5 if st.winner is None else float(st.winner == a.name)
        total += x
        sq += x * x
    mean = total / n
    se = max(((sq / n - mean * mean) / n) ** 0.5, 1e-9)
    assert abs(mean - sol.value) <= 4 * se, (mean, sol.value, se)


# --- advice (the library level) -------------------------------------------------------------


def test_S05_advice_offers_no_technique_in_effect_and_the_defenseur_answers() -> None:
    """S-05: no technique offered while one is in effect; the défenseur's best answer to the
    assaillant's best option is worth 1 minus that option's value (S-03: the answers)."""
    from sevendag_cli.sevendag.advice import advise

    _game, rs = tiny_game()
    state = SevendagState(2, "X", (fs("X", technique=ActiveTechnique("guard", 1)), fs("Y")))
    adv = advise(rs, TINY_X, TINY_Y, state, tolerance=1e-9)
    assert adv.fighter == "X" and adv.role == "assaillant"
    assert {o.option.technique for o in adv.options} == {None}
    assert {o.option.yield_initiative for o in adv.options} == {False, True}
    best = adv.options[adv.best]
    assert best.win_probability == max(o.win_probability for o in adv.options)
    ans = advise(rs, TINY_X, TINY_Y, state, after=best.option, tolerance=1e-9)
    assert ans.fighter == "Y" and ans.role == "defenseur"
    assert all(o.answer is None for o in ans.options)
    assert abs(ans.options[ans.best].win_probability - (1 - best.win_probability)) < 1e-9
    assert ans.options[ans.best].option == best.answer


def test_S03_S04_S05_after_reads_either_language() -> None:
    from sevendag_cli.sevendag.advice import parse_after

    got = parse_after("yield=oui; allocation=attaque,défense; technique=feinte", RS, TINY_X)
    assert got == Option(True, ("attack", "defence"), "feint")
    assert parse_after("technique=none", RS, TINY_X) == Option(False, ("attack", "defence"), None)


@pytest.mark.slow
def test_S03_S05_house_pair_optimiser_only_gains_with_every_bundled_technique() -> None:
    """The house pair, every bundled technique: optimal >= sheet for the side that optimises,
    and the game's value lies between the two best responses."""
    a, b = bundled()
    game = SevendagGame(RS, a, b)
    key = game.start_key(0)
    v = {p: game.solve(key, 200, p, 1e-6) for p in
         ((SHEET, SHEET), (OPTIMAL, SHEET), (SHEET, OPTIMAL), (OPTIMAL, OPTIMAL))}
    assert v[(OPTIMAL, SHEET)].low >= v[(SHEET, SHEET)].low - 1e-9
    assert v[(SHEET, OPTIMAL)].high <= v[(SHEET, SHEET)].high + 1e-9
    assert v[(SHEET, OPTIMAL)].low - 1e-9 <= v[(OPTIMAL, OPTIMAL)].high
    assert v[(OPTIMAL, OPTIMAL)].low <= v[(OPTIMAL, SHEET)].high + 1e-9


@pytest.mark.slow
def test_S05_S19_lumping_far_out_changes_nothing_with_every_technique() -> None:
    """The penalty difference lumped beyond the game's thresholds (every allocation and
    technique): clamping further out reaches more states and gives the same value."""
    a, b = bundled()
    game = SevendagGame(RS, a, b)
    sol = game.solve(game.start_key(0), 60, (OPTIMAL, OPTIMAL), 1e-9)
    wide = SevendagGame(RS, a, b)
    wide.lo, wide.hi = game.lo - 12, game.hi + 12
    sol_wide = wide.solve(wide.start_key(0), 60, (OPTIMAL, OPTIMAL), 1e-9)
    assert len(sol_wide.states) > len(sol.states)
    assert abs(sol.value - sol_wide.value) < 1e-12
