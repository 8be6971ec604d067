"""Faults: a second command on a busy encounter, Ctrl-C in the middle of things."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sevendag_cli import store
from tests.helpers import assert_one_line_error, run, snapshot


def test_a_second_command_on_a_busy_encounter_is_refused(tmp_path: Path) -> None:
    assert run("init", "--ruleset", "d20", "--seed", "1").exit_code == 0
    before = snapshot(tmp_path)
    with store.locked(tmp_path / "encounter.sevendag.json"):
        assert_one_line_error(run("round", "--seed", "2"), 1, "in use")
        assert_one_line_error(run("wound", "A", "3"), 1, "in use")
        assert_one_line_error(run("undo"), 1, "in use")
        assert_one_line_error(run("init", "--ruleset", "d20", "--force", "--seed", "2"), 1, "in use")
    assert snapshot(tmp_path) == before
    assert run("round", "--seed", "2").exit_code == 0  # free again


def test_ctrl_c_during_a_round_leaves_the_encounter_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run("init", "--ruleset", "d20", "--seed", "1").exit_code == 0
    before = snapshot(tmp_path)
    from sevendag_cli.d20 import engine as d20

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(d20, "play_round", interrupted)
    result = run("round", "--seed", "2")
    assert result.exit_code == 130
    assert "interrupted" in result.stderr and "Traceback" not in result.stderr
    assert snapshot(tmp_path) == before


def test_ctrl_c_during_a_save_keeps_the_previous_encounter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run("init", "--ruleset", "d20", "--seed", "1").exit_code == 0
    before = snapshot(tmp_path)

    def crash(tmp: str, target: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(store, "_replace", crash)
    result = run("round", "--seed", "2")
    assert result.exit_code == 130
    assert snapshot(tmp_path) == before


def test_ctrl_c_during_runs_reports_what_was_completed(monkeypatch: pytest.MonkeyPatch) -> None:
    from sevendag_cli.sim import runner

    real = runner.simulate

    def simulate_then_interrupt(*args: Any, **kwargs: Any) -> Any:
        def progress(done: int) -> None:
            raise KeyboardInterrupt

        kwargs["progress"] = progress
        kwargs["batch_size"] = 1000
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "simulate", simulate_then_interrupt)
    result = run("fight", "--ruleset", "d20", "--runs", "5000", "--seed", "3", "--json")
    assert result.exit_code == 130
    doc = json.loads(result.stdout)
    assert doc["interrupted"] is True and doc["runs"] == 1000
    assert "interrupted after 1,000 of 5,000 runs" in result.stderr


def test_undo_on_a_fresh_encounter_says_there_is_nothing_to_undo(tmp_path: Path) -> None:
    assert run("init", "--ruleset", "d20", "--seed", "1").exit_code == 0
    before = snapshot(tmp_path)
    assert_one_line_error(run("undo"), 1, "nothing to undo")
    assert snapshot(tmp_path) == before
