"""Reduced race and kill tests (seconds): commands racing on one encounter and commands killed
mid-save leave no corrupt file, lose no round and leave no lock or temporary file behind.

The full runs (thousands of saves, the issue's 290 racing commands and 500 kills) are
``python benchmarks/bench_encounter_safety.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import stress

pytestmark = pytest.mark.slow  # real processes racing and killed: seconds each


def test_store_race(tmp_path: Path) -> None:
    report = stress.store_race(tmp_path, workers=4, tries=40)
    assert report.ok > 0 and report.ok + report.refused == report.tries, report
    assert (report.corrupt, report.lost, report.litter, report.bad_errors) == (0, 0, 0, 0), report


def test_store_kill(tmp_path: Path) -> None:
    report = stress.store_kill(tmp_path, kills=30)
    assert (report.corrupt, report.lost, report.litter) == (0, 0, 0), report


def test_cli_race(tmp_path: Path) -> None:
    report = stress.cli_race(tmp_path, commands=8, parallel=4)
    assert report.ok > 0 and report.ok + report.refused == report.tries, report
    assert (report.corrupt, report.lost, report.litter, report.bad_errors) == (0, 0, 0, 0), report


def test_cli_kill(tmp_path: Path) -> None:
    report = stress.cli_kill(tmp_path, kills=5)
    assert (report.corrupt, report.lost, report.litter, report.bad_errors) == (0, 0, 0, 0), report
