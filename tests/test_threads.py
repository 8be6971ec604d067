"""The command asks numpy's linear-algebra library for one thread (``sevendag_cli.start``):
numpy otherwise starts one per core as it is imported, CPU spent for nothing the tool asks of
it; a value the user set is kept, and the library leaves the environment alone."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from sevendag_cli import start

VARS = start._ONE_THREAD


def run_version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["sevendag", "--version"])
    with pytest.raises(SystemExit) as done:
        start.main()
    assert done.value.code in (0, None)


def test_the_command_asks_for_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in VARS:
        monkeypatch.setenv(var, "x")  # recorded, so the test's end restores the environment
        monkeypatch.delenv(var)
    run_version(monkeypatch)
    assert {var: os.environ.get(var) for var in VARS} == dict.fromkeys(VARS, "1")


def test_a_value_the_user_set_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in VARS:
        monkeypatch.setenv(var, "3")
    run_version(monkeypatch)
    assert {var: os.environ.get(var) for var in VARS} == dict.fromkeys(VARS, "3")


def test_importing_the_library_changes_no_thread_setting() -> None:
    env = {k: v for k, v in os.environ.items() if k not in VARS}
    code = ("import os, sevendag_cli as sd; sd.matchup(ruleset='d20').simulate(2000, seed=1); "
            f"print([os.environ.get(v) for v in {VARS!r}])")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == str([None] * len(VARS))
