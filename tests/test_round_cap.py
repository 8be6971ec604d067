"""The round cap is the ruleset's in every method (D-12 and the decision in docs/rules.md):
``fight --seed``, ``--runs``, ``--exact``, ``odds``, ``sweep`` and ``matrix`` play the same
fight — a draw after the ruleset's ``round_cap`` or ``--cap N`` — and a d20 ruleset with no cap
(the bundled one, ``round_cap = "none"``) plays every fight to its end, the simulators stopping
one only at their safety limit and saying so.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import sevendag_cli as sd
from tests.helpers import capped_ruleset, ok, run, run_json, validate


@pytest.fixture
def cap30(tmp_path: Path) -> str:
    return str(capped_ruleset(tmp_path, 30))


def within_4_se(p: float, hits: int, runs: int) -> bool:
    """``hits`` of ``runs`` agree with probability ``p`` within 4 standard errors."""
    se = math.sqrt(max(p * (1 - p), 1e-12) / runs)
    return abs(hits / runs - p) <= 4 * se


@pytest.mark.slow
def test_D12_a_cap_of_30_exact_and_20000_runs_agree_draws_included(cap30: str) -> None:
    """The D-14 pair under ``round_cap = 30``: fight --exact computes the capped fight (A 0.60%,
    B 8.57%, a draw 90.83%) and 20,000 simulated fights agree with it within 4 standard
    errors, each fighter's wins and the draws."""
    exact = run_json("fight", "--ruleset", cap30, "--exact")
    runs = run_json("fight", "--ruleset", cap30, "--runs", "20000", "--seed", "24")
    assert exact["cap"] == runs["cap"] == 30 and exact["played_to_end"] is False
    assert exact["fighters"][0]["win_probability"] == pytest.approx(0.0059827, abs=1e-7)
    assert exact["fighters"][1]["win_probability"] == pytest.approx(0.0857113, abs=1e-7)
    assert exact["draw_probability"] == pytest.approx(0.9083060, abs=1e-7)
    for i in (0, 1):
        assert within_4_se(exact["fighters"][i]["win_probability"],
                           runs["fighters"][i]["wins"], runs["runs"])
    assert within_4_se(exact["draw_probability"], runs["draws"], runs["runs"])
    assert runs["unfinished"] == 0 and runs["safety_limit"] is None


@pytest.mark.slow
def test_D12_every_method_names_the_rulesets_cap(cap30: str) -> None:
    """With ``round_cap = 30``: the exact odds, the odds from the start of an encounter, a
    sweep and a matrix are the capped fight's (their draws over 90%); a fight played step by
    step that reaches round 30 is a draw there."""
    exact = sd.matchup(ruleset=cap30).exact().result
    assert exact.cap == 30 and exact.draw_probability > 0.9
    sweep = sd.matchup(ruleset=cap30).sweep("A.ac", "5..5").result
    assert sweep.cap == 30 and sweep.points[0].draw_probability == pytest.approx(
        exact.draw_probability, abs=2e-12)
    matrix = sd.matrix(["A", "B"], cap30, jobs=1).roster
    assert matrix.cap == 30
    cell = matrix.cells[matrix.order.index(0)][matrix.order.index(1)]
    assert cell is not None and cell.draw == pytest.approx(exact.draw_probability, abs=2e-9)
    ok("init", "--ruleset", cap30, "--seed", "1")
    odds = run_json("odds", "--json")
    assert odds["cap"] == 30 and odds["rounds_left"] == 30 and odds["draw_probability"] > 0.85
    fight = run_json("fight", "--ruleset", cap30, "--seed", "2")
    if fight["rounds_played"] == 30 and fight["winner"] is None:
        assert fight["draw"] and fight["capped"]


@pytest.mark.slow
def test_D12_the_bundled_d20_ruleset_has_no_round_cap() -> None:
    """``round_cap = "none"``: the fight played to the end in every method; no draw."""
    rs = sd.ruleset("d20")
    assert rs.round_cap is None
    shown = run_json("rulesets", "show", "d20", "--json")
    validate("rulesets-show", shown)
    assert shown["options"]["round_cap"] is None
    exact = run_json("fight", "--ruleset", "d20", "--exact")
    assert exact["cap"] is None and exact["played_to_end"] and exact["draw_probability"] == 0.0
    runs = run_json("fight", "--ruleset", "d20", "--runs", "2000", "--seed", "3")
    validate("fight-runs", runs)
    assert runs["cap"] is None and runs["draws"] == 0 and runs["unfinished"] == 0
    assert runs["safety_limit"] == 10_000
    ok("init", "--ruleset", "d20", "--seed", "1")
    odds = run_json("odds", "--json")
    validate("odds", odds)
    assert odds["cap"] is None and odds["rounds_left"] is None
    assert odds["draw_probability"] == 0.0 and odds["unresolved"] <= 1e-12


def test_D12_old_files_saying_round_cap_1000_mean_a_real_cap(tmp_path: Path) -> None:
    """A ruleset written when 1000 was the default keeps meaning it: a draw after round 1000
    (no part of the D-14 fight's odds within the tolerance, but named as the cap)."""
    path = str(capped_ruleset(tmp_path, 1000))
    exact = run_json("fight", "--ruleset", path, "--exact")
    assert exact["cap"] == 1000 and exact["played_to_end"] is False
    assert exact["fighters"][0]["win_probability"] == pytest.approx(0.4562729792883, abs=2e-12)
    assert exact["unresolved"] <= 1e-12


@pytest.fixture
def tiny_limit(monkeypatch: pytest.MonkeyPatch) -> int:
    """The simulators' safety limit made 5 rounds, so that D-14 fights reach it."""
    import sevendag_cli.d20.rules as rules
    import sevendag_cli.sim.runner as runner

    monkeypatch.setattr(rules, "MAX_PLAYED_ROUNDS", 5)
    monkeypatch.setattr(runner, "MAX_PLAYED_ROUNDS", 5)
    return 5


@pytest.mark.slow
def test_D12_a_fight_stopped_at_the_safety_limit_says_so(tiny_limit: int) -> None:
    """No round cap: a fight still going at the safety limit is stopped, not over by the rules —
    no winner, not a draw, a ``safety-limit`` event, one note on stderr — in the display,
    ``--json`` and ``--jsonl``."""
    result = run("fight", "--ruleset", "d20", "--seed", "1", "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    validate("fight", doc)
    assert doc["rounds_played"] == tiny_limit
    assert doc["winner"] is None and doc["draw"] is False and doc["capped"] is False
    assert doc["rounds"][-1]["events"][-1]["reason"] == "safety-limit"
    assert "safety limit of 5 rounds" in result.stderr
    lines = [json.loads(x) for x in ok("fight", "--ruleset", "d20", "--seed", "1",
                                       "--jsonl").splitlines()]
    assert lines[-1]["type"] == "end" and lines[-1]["draw"] is False
    shown = run("fight", "--ruleset", "d20", "--seed", "1")
    assert "stopped, not over" in shown.stdout and "draw: the round cap" not in shown.stdout


def test_D12_simulated_fights_stopped_at_the_safety_limit_are_counted_apart(
        tiny_limit: int) -> None:
    """``--runs`` with no round cap: the fights stopped at the safety limit are ``unfinished``,
    never draws; a note on stderr says how many."""
    result = run("fight", "--ruleset", "d20", "--runs", "3000", "--seed", "4", "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    validate("fight-runs", doc)
    assert doc["draws"] == 0 and doc["draw_probability"] == 0.0
    assert doc["unfinished"] == 3000 - doc["fighters"][0]["wins"] - doc["fighters"][1]["wins"]
    assert doc["unfinished"] > 2900 and doc["safety_limit"] == tiny_limit
    assert "stopped at the safety limit of 5 rounds" in result.stderr
    shown = run("fight", "--ruleset", "d20", "--runs", "3000", "--seed", "4")
    assert "unfinished (stopped at the safety limit of 5 rounds" in shown.stdout


def test_D12_a_simulation_whose_fights_mostly_reach_the_cap_says_so(cap30: str) -> None:
    result = run("fight", "--ruleset", cap30, "--runs", "2000", "--seed", "5")
    assert result.exit_code == 0, result.stderr
    assert "most fights" in result.stderr and "round cap (30)" in result.stderr
    quiet = run("fight", "--ruleset", "d20", "--runs", "2000", "--seed", "5")
    assert quiet.stderr == ""


@pytest.mark.parametrize("value", ['"never"', "0", "10001", "true", "1.5"])
def test_D12_a_round_cap_is_a_number_or_none(tmp_path: Path, value: str) -> None:
    """One line naming the key and what is right; nothing else is read as a cap."""
    text = capped_ruleset(tmp_path, 30).read_text("utf-8").replace("round_cap = 30",
                                                                   f"round_cap = {value}")
    (tmp_path / "bad.toml").write_text(text, "utf-8")
    doc = json.loads(run("rulesets", "validate", str(tmp_path / "bad.toml"), "--json").stdout)
    assert doc["valid"] is False
    problem = " ".join(str(x) for x in doc["files"][0]["problems"])
    assert "options.round_cap" in problem and '"none"' in problem


def test_D12_none_and_no_key_are_no_cap(tmp_path: Path) -> None:
    none = capped_ruleset(tmp_path, "none", "explicit")
    assert sd.ruleset(str(none)).round_cap is None
    text = none.read_text("utf-8").replace('round_cap = "none"', "")
    (tmp_path / "nokey.toml").write_text(text.replace('name = "explicit"', 'name = "nokey"'),
                                         "utf-8")
    assert sd.ruleset(str(tmp_path / "nokey.toml")).round_cap is None
