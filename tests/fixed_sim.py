"""Simulated figures kept apart from the layout goldens.

A golden display that simulates (``fight --runs``, ``sweep --runs``) is drawn from fixed figures:
the simulator is replaced by a replay of the results kept in ``tests/golden/NAME.sim.json``, so
the golden pins the layout only, and a change in the simulator does not rewrite it.  The figures
themselves are pinned by seed in tests/test_seeded_figures.py: the same commands, simulating for
real, must give exactly the kept results (``SEVENDAG_UPDATE_GOLDEN=1`` writes them instead).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import msgspec
import pytest

from sevendag_cli.d20.sim_extra import D20Extra
from sevendag_cli.sevendag.sim_extra import SevendagExtra
from sevendag_cli.sim import runner
from sevendag_cli.sim.runner import SimulationResult
from tests.helpers import GOLDEN


def figures_path(name: str) -> Path:
    return GOLDEN / f"{name}.sim.json"


EXTRAS: dict[str, type] = {"d20": D20Extra, "sevendag": SevendagExtra}
"""Each ruleset's own record of ``--runs`` (``SimulationResult.extras``), by engine."""


def load_figures(name: str) -> list[SimulationResult]:
    data = json.loads(figures_path(name).read_text("utf-8"))
    results = []
    for item in data:  # the extras as kept: under the engine's name (the other engines' null)
        extras = {engine: item.pop(engine) for engine in EXTRAS}[item["engine"]]
        kind = EXTRAS[item["engine"]]
        results.append(msgspec.convert({**item, "extras": extras}, SimulationResult,
                                       dec_hook=lambda _, obj, kind=kind: msgspec.convert(obj, kind)))
    return results


class Replay:
    """Stands for ``runner.simulate``: gives the kept results in order, for the same fights."""

    def __init__(self, results: list[SimulationResult]) -> None:
        self.results = list(results)
        self.given = 0

    def __call__(self, ruleset: Any, a: Any, b: Any, runs: int, seed: int, **_: Any) -> SimulationResult:
        assert self.given < len(self.results), "more simulations than kept results"
        kept = self.results[self.given]
        self.given += 1
        asked = (ruleset.name, a.name, b.name, runs, seed)
        assert asked == (kept.ruleset, *(f.name for f in kept.fighters), kept.requested_runs, kept.seed)
        return kept

    def check_all_given(self) -> None:
        assert self.given == len(self.results), "fewer simulations than kept results"


def replay(monkeypatch: pytest.MonkeyPatch, name: str) -> Replay:
    """Fixed figures for the scenario ``name``: every ``simulate`` call gets the next kept result."""
    stub = Replay(load_figures(name))
    monkeypatch.setattr(runner, "simulate", stub)
    return stub


def record(monkeypatch: pytest.MonkeyPatch) -> list[SimulationResult]:
    """The results of every real ``simulate`` call from now on."""
    real = runner.simulate
    seen: list[SimulationResult] = []

    def recording(*args: Any, **kwargs: Any) -> SimulationResult:
        result = real(*args, **kwargs)
        seen.append(result)
        return result

    monkeypatch.setattr(runner, "simulate", recording)
    return seen


def compare_figures(results: list[SimulationResult], name: str) -> None:
    """The results are the kept ones, exactly (``SEVENDAG_UPDATE_GOLDEN=1``: written instead)."""
    text = json.dumps([r.to_data() for r in results], indent=1, ensure_ascii=False) + "\n"
    path = figures_path(name)
    if os.environ.get("SEVENDAG_UPDATE_GOLDEN") or not path.exists():
        path.write_text(text, "utf-8")
        if not os.environ.get("SEVENDAG_UPDATE_GOLDEN"):
            pytest.fail(f"{path.name} did not exist: written, review it and run again")
    assert results == load_figures(name)
    assert text == path.read_text("utf-8")
