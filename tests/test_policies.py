"""Policies in every mode: ``--tactic NAME=optimal`` and the fights it plays.

* **The declarations played reach the game's value** (S-03..S-05): pushed round by round
  through the game's rows, each round the rows declared for its rounds to go, the fight
  gives the solved value (P(a wins) + ½ P(draw)) for every pair of policies — where one
  declaration per state, whatever the round, falls short.
* **Played by the engine**: the same declarations, die by die, land within 4 standard errors.
* **The modes**: ``fight`` (one fight, ``--runs``, ``--exact``, ``--odds``), ``odds``,
  ``round --odds``, ``sweep`` report ``policies``; ``--exact`` reports what each sheet gives
  away; d20 plays its sheets and says so once; the library's documents are the commands'.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import sevendag_cli as sd
from sevendag_cli.errors import UsageError
from sevendag_cli.policies import OPTIMAL, PLAIN, SHEET
from sevendag_cli.rules.whatif import WhatIf
from sevendag_cli.sevendag.exact_fight import ExactWounds
from sevendag_cli.sevendag.game import SevendagGame
from sevendag_cli.sevendag.policy import PolicyBatch, PolicyChain, policy_push, tie_allowance
from tests.helpers import run, run_json
from tests.records import replace
from tests.sevendag_helpers import RS, TINY_X, TINY_Y

PAIRS = [(SHEET, SHEET), (OPTIMAL, SHEET), (SHEET, OPTIMAL),
         pytest.param((OPTIMAL, OPTIMAL), marks=pytest.mark.slow)]


def tiny(cap: int = 30) -> Any:
    from sevendag_cli.sevendag.rules import WoundBand

    return replace(
        RS, wounds=(WoundBand("light", 1, 3, 1, 0, {}), WoundBand("serious", 4, 6, 2, 0, {}),
                    WoundBand("fatal", 7, None, 0, 1, {})),
        drop_check_die=4, drop_recovery_rounds=1, fumble_grants_crit=False, round_cap=cap,
        techniques={k: RS.techniques[k] for k in ("feint", "guard")})


# --- parsing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("tactics", "expected"), [
    ([], PLAIN),
    (["X=optimal"], (OPTIMAL, SHEET)),
    (["y=Optimale"], (SHEET, OPTIMAL)),  # any case, French
    (["optimal"], (OPTIMAL, OPTIMAL)),  # every fighter
    (["optimal", "X=fiche"], (SHEET, OPTIMAL)),  # the last one typed wins
])
def test_policies_are_read_from_tactic(tactics: list[str], expected: tuple[str, str]) -> None:
    assert WhatIf.parse(None, tactics).policies(("X", "Y")) == expected


def test_a_policy_for_a_fighter_not_in_the_fight_is_one_line() -> None:
    with pytest.raises(UsageError, match="Nobody"):
        sd.matchup(tactic="Nobody=optimal")


# --- the declarations played -------------------------------------------------------------------


@pytest.mark.parametrize("policies", PAIRS)
def test_S03_S05_the_declarations_played_give_the_games_value(policies: tuple[str, str]) -> None:
    """The fight the declarations play (per rounds to go), pushed through the game's rows,
    has the solved game's value: the game's own value lies within the push's certified
    interval (widened by the ties' allowance under optimal play), which is within the
    tolerance and that allowance."""
    rs = tiny()
    chain = PolicyChain(rs, TINY_X, TINY_Y, policies, cap=30)
    for who in (0, 1):
        key = chain.game.start_key(who)
        push, wounds = policy_push(chain, [(key, 1.0)], 30, 1e-12)
        odds = push.odds(chain.names, 30, len(push.alive))
        sol = chain.game.solve(key, 30, policies, 1e-12)  # the value from this very start
        low = odds.win[0] + odds.draw / 2
        assert low <= sol.value <= low + odds.unresolved, (low, sol.value, odds.unresolved)
        assert sol.low - 1e-9 <= low <= sol.high + 1e-9, (low, sol.low, sol.high)
        assert odds.unresolved <= 1e-12 + 3 * tie_allowance(chain.policies, push)
        assert wounds.shape == (2, len(rs.wounds), 1) and (wounds >= 0).all()


def test_S03_S05_one_declaration_per_state_falls_short_where_the_rounds_left_matter() -> None:
    """Why the declarations depend on the rounds to go: the stationary choice (the far
    horizon's, every round) is evaluated; it never beats the game, and the played ones
    reach it."""
    rs = tiny(60)
    game = SevendagGame(rs, TINY_X, TINY_Y)
    key = game.start_key(0)
    sol = game.solve(key, 60, (OPTIMAL, SHEET), 1e-12)
    far = sol.rows_for(60)
    v = np.full(len(sol.states), 0.5)
    for _ in range(60):
        v = sol._q(v)[far]
    assert v[0] <= sol.high + 1e-12  # no fixed choice beats the game's value
    chain = PolicyChain(rs, TINY_X, TINY_Y, (OPTIMAL, SHEET), cap=60)
    push, _ = policy_push(chain, [(key, 1.0)], 60, 1e-12)
    odds = push.odds(chain.names, 60, len(push.alive))
    assert abs(odds.win[0] + odds.draw / 2 - sol.value) <= 1e-9


@pytest.mark.slow
def test_S03_S05_the_declarations_played_by_the_engine_land_within_4_standard_errors() -> None:
    """``fight --seed`` under policies plays the step engine die by die: over many seeds its
    share of wins (a draw counting half) lands within 4 standard errors of the pushed value."""
    from sevendag_cli.dice import SeededDice
    from sevendag_cli.sevendag.policy import fight_play, policy_exact

    rs = tiny(30)
    policies = (OPTIMAL, OPTIMAL)
    n = 1500
    x = np.array([{None: 0.5, "X": 1.0, "Y": 0.0}[
        fight_play(rs, TINY_X, TINY_Y, SeededDice(seed), None, policies).collect().winner]
        for seed in range(n)])
    exact = policy_exact(rs, TINY_X, TINY_Y, policies, cap=30)
    value = exact.fighters[0].win_probability + exact.draw_probability / 2
    se = max(float(x.std()) / n ** 0.5, 1e-9)
    assert abs(float(x.mean()) - value) <= 4 * se, (float(x.mean()), value, se)


@pytest.mark.parametrize("policies", [(OPTIMAL, SHEET),
                                      pytest.param((OPTIMAL, OPTIMAL), marks=pytest.mark.slow)])
def test_S03_S05_fights_sampled_from_the_played_rows_agree_with_the_push(
        policies: tuple[str, str]) -> None:
    """``fight --runs`` under policies samples the rows the push pushes: wins, draws, rounds
    and wounds per band within 4 standard errors of ``fight --exact``'s."""
    from sevendag_cli.sevendag.policy import policy_exact

    rs = tiny(30)
    n = 20_000
    out = PolicyBatch(rs, TINY_X, TINY_Y, policies)(
        rs, TINY_X, TINY_Y, n, np.random.Generator(np.random.PCG64(5)), 30)
    exact = policy_exact(rs, TINY_X, TINY_Y, policies, cap=30)

    def close(sample: np.ndarray, mean: float) -> None:
        se = max(float(sample.std()) / n ** 0.5, 1e-4)
        assert abs(float(sample.mean()) - mean) <= 4 * se, (float(sample.mean()), mean, se)

    close((out.winner == 0).astype(float), exact.fighters[0].win_probability)
    close((out.winner == -1).astype(float), exact.draw_probability)
    close(out.rounds.astype(float), exact.rounds.mean)
    assert isinstance(exact.extras, ExactWounds)
    for i in (0, 1):
        for j, band in enumerate(exact.extras.fighters[i].wounds):
            close(out.wounds[:, i, j].astype(float), band.mean)
    assert set(np.unique(out.first_striker).tolist()) == {0, 1}


def test_S03_S05_a_fight_under_policies_is_the_same_for_the_same_seed() -> None:
    rs = tiny(30)
    from sevendag_cli.dice import SeededDice
    from sevendag_cli.sevendag.policy import fight_play

    one = fight_play(rs, TINY_X, TINY_Y, SeededDice(9), None, (OPTIMAL, OPTIMAL)).collect()
    two = fight_play(rs, TINY_X, TINY_Y, SeededDice(9), None, (OPTIMAL, OPTIMAL)).collect()
    assert one == two


# --- the commands ---------------------------------------------------------------------------


def test_d20_plays_its_sheets_and_says_so_once() -> None:
    plain = run_json("fight", "A", "B", "-r", "d20", "--exact")
    result = run("fight", "A", "B", "-r", "d20", "--exact", "--tactic", "optimal", "--json")
    assert result.exit_code == 0
    assert result.stderr.count("no choice") == 1
    import json

    doc = json.loads(result.stdout)
    assert doc["policies"] == {"A": "sheet", "B": "sheet"}
    assert doc["fighters"] == plain["fighters"]
    assert [f["gives_away"] for f in doc["exploitability"]["fighters"]] == [0.0, 0.0]


@pytest.mark.slow
def test_fight_exact_under_optimal_play_is_the_librarys_and_gains() -> None:
    doc = run_json("fight", "--exact", "--tactic", "Brannoc=optimal", "--tolerance", "1e-10")
    assert doc["policies"] == {"Brannoc": "optimal", "Ysolde": "sheet"}
    lib = sd.matchup(tactic="Brannoc=optimal").exact(tolerance=1e-10).to_dict()
    assert lib == doc
    plain = run_json("fight", "--exact", "--tolerance", "1e-10")
    value = doc["fighters"][0]["win_probability"] + doc["draw_probability"] / 2
    sheet = plain["fighters"][0]["win_probability"] + plain["draw_probability"] / 2
    assert value >= sheet  # the optimiser can only gain
    away = {f["name"]: f for f in plain["exploitability"]["fighters"]}
    # what Ysolde's sheet gives away is what Brannoc gains by answering it optimally
    assert abs(away["Ysolde"]["opponent_best_response"] - value) <= 1e-5
    assert abs(away["Ysolde"]["gives_away"] - (value - sheet)) <= 1e-5
    for f in away.values():
        low, high = f["bounds"]
        assert low <= f["gives_away"] <= high and f["gives_away"] >= -1e-6


@pytest.mark.slow
@pytest.mark.parametrize("mode", [["--seed", "4"], ["--seed", "4", "--odds"],
                                  ["--runs", "200", "--seed", "4"]])
def test_fight_modes_report_the_policies(mode: list[str]) -> None:
    doc = run_json("fight", *mode, "--tactic", "optimal", "--cap", "30")
    assert doc["policies"] == {"Brannoc": "optimal", "Ysolde": "optimal"}
    if "assumes" in doc:
        assert doc["assumes"] == ["optimal-play", "draw-at-cap"]


@pytest.mark.slow
def test_sweep_under_optimal_play_reports_each_point_as_fight_exact() -> None:
    doc = run_json("sweep", "--vary", "Ysolde.attack=6..7", "--tactic", "Brannoc=optimal",
                   "--cap", "40")
    assert doc["policies"] == {"Brannoc": "optimal", "Ysolde": "sheet"}
    exact = run_json("fight", "--exact", "--tactic", "Brannoc=optimal", "--cap", "40",
                     "--set", "Ysolde.attack=7")
    point = doc["points"][1]
    assert abs(point["fighters"][0]["win_probability"]
               - exact["fighters"][0]["win_probability"]) <= 1e-9


@pytest.mark.slow
def test_odds_and_round_odds_under_optimal_play(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert run("init", "--seed", "1").exit_code == 0
    plain = run_json("odds")
    best = run_json("odds", "--tactic", "Brannoc=optimal")
    assert best["policies"] == {"Brannoc": "optimal", "Ysolde": "sheet"}
    assert best["assumes"] == ["sheet-tactics", "optimal-play", "draw-at-cap"]
    assert best["fighters"][0]["win_probability"] >= plain["fighters"][0]["win_probability"] - 1e-9
    played = run_json("round", "--seed", "2", "--no-input", "--odds", "--tactic", "optimal")
    assert played["odds"]["policies"] == {"Brannoc": "optimal", "Ysolde": "optimal"}


@pytest.mark.parametrize(("args", "key"), [
    (["round", "--seed", "2", "--no-input", "--tactic", "optimal"], "--odds"),
    (["round", "--seed", "2", "--no-input", "--odds", "--tactic", "Brannoc=all-out"], "policy"),
])
def test_round_takes_only_policies_and_only_with_odds(tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                                      args: list[str], key: str) -> None:
    monkeypatch.chdir(tmp_path)
    assert run("init", "--seed", "1").exit_code == 0
    before = (tmp_path / "encounter.sevendag.json").read_bytes()
    result = run(*args)
    assert result.exit_code == 2 and key in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert (tmp_path / "encounter.sevendag.json").read_bytes() == before  # nothing changed


def test_the_engine_playing_policies_is_random_only_through_its_dice() -> None:
    """Two batches from generators with the same seed are the same fights."""
    rs = tiny(20)
    batch = PolicyBatch(rs, TINY_X, TINY_Y, (OPTIMAL, SHEET))
    one = batch(rs, TINY_X, TINY_Y, 50, np.random.Generator(np.random.PCG64(3)), 20)
    two = batch(rs, TINY_X, TINY_Y, 50, np.random.Generator(np.random.PCG64(3)), 20)
    assert (one.winner == two.winner).all() and (one.rounds == two.rounds).all()
    assert (one.wounds == two.wounds).all()


@pytest.mark.slow
@pytest.mark.parametrize("policies", [(OPTIMAL, SHEET), (SHEET, OPTIMAL)])
def test_S03_S05_the_odds_table_looked_up_agrees_with_the_push_from_each_state(
        policies: tuple[str, str]) -> None:
    """``odds`` and ``fight --odds`` under policies look a state up in one backward pass
    (``OddsTable``): every state's odds, at several rounds to go, lie within the push's from
    that state, and both intervals are within the tolerance."""
    from sevendag_cli.sevendag.policy import TogoOdds

    rs = tiny(30)
    chain = PolicyChain(rs, TINY_X, TINY_Y, policies, cap=30)
    key = chain.game.start_key(0)
    sol = chain.solution(key, 30, [chain.game.start_key(1)])
    table = TogoOdds(sol)
    for state in sol.states[:: max(1, len(sol.states) // 12)]:
        for togo in (1, 7, 30):
            looked = table.odds(chain.names, state, togo)
            push, _ = policy_push(chain, [(state, 1.0)], togo, 1e-13)
            pushed = push.odds(chain.names, togo, len(push.alive))
            assert looked.unresolved <= 1e-12 + table.floor(state, togo)
            assert pushed.unresolved <= 1e-12 + 3 * tie_allowance(chain.policies, push)
            for i in (0, 1):
                low, high = looked.win_bounds[i]
                p_low, p_high = pushed.win_bounds[i]
                assert low <= p_high + 1e-15 and p_low <= high + 1e-15, (state, togo, i)


def test_a_d20_sweep_under_optimal_play_says_once_that_it_plays_the_sheets() -> None:
    result = run("sweep", "A", "B", "-r", "d20", "--vary", "A.ac=10..11", "--tactic", "optimal",
                 "--json")
    assert result.exit_code == 0 and result.stderr.count("no choice") == 1
