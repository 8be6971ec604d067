"""Shared fixtures: run every test in its own folder, with a stable environment."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest


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


@pytest.fixture(scope="session")
def _toml_cache_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache of parsed TOML documents for the whole run (issue 16), outside every test's
    folder: the suite reads rulesets through it, as users do, and a test's folder stays its own."""
    return tmp_path_factory.mktemp("toml-cache")


@pytest.fixture(autouse=True)
def _toml_cache(_toml_cache_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEVENDAG_CACHE", str(_toml_cache_folder))
    monkeypatch.delenv("SEVENDAG_NO_CACHE", raising=False)
