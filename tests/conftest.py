"""Shared fixtures: run every test in its own folder, with a stable environment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.hookimpl(trylast=True)  # after -k and -m have selected
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``python -m pytest`` leaves the slow tests (``@pytest.mark.slow``: statistical, exhaustive,
    large) for the second step, ``python -m pytest -m slow``, as CI runs them.

    Unless ``-m`` chooses (``-m slow``: only those; ``-m "slow or not slow"``: every test), or
    tests are named one by one (``path::name``), or every test selected is slow (a file of slow
    tests named alone): then they run, so the command never ends on "no tests ran".
    """
    if config.getoption("markexpr") or any("::" in str(arg) for arg in config.args):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if not slow or len(slow) == len(items):
        return
    config.hook.pytest_deselected(items=slow)
    items[:] = [item for item in items if item.get_closest_marker("slow") is None]


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test runs in an empty folder with no user config and English display."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SEVENDAG_HOME", str(tmp_path / "_home"))
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.delenv("SEVENDAG_ENCOUNTER", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    yield


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test has its own, empty user cache (the odds solver's kept work, parsed TOML files,
    matplotlib's configuration), outside its working folder (whose files some tests compare)."""
    monkeypatch.setenv("SEVENDAG_CACHE", str(tmp_path.parent / f"{tmp_path.name}_cache"))
    monkeypatch.delenv("SEVENDAG_NO_CACHE", raising=False)
