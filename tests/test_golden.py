"""Snapshots of what the game master sees (Rich, no colour), in both languages, at 80 columns
(a common terminal, and every pipe) and, for some, at 60.

Every snapshot is also checked for what reads badly at that width: a line wider
than the console, a rule tag (``[S-04]``) starting a line, spaces at a line's end.

A change in the display must be deliberate: regenerate with
``SEVENDAG_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py`` and review the diff.

The scenarios that simulate (``--runs``) are drawn from fixed figures (tests/fixed_sim.py): the
goldens pin the layout, and tests/test_seeded_figures.py pins the figures by seed.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from typing import Any

import pytest

from sevendag_cli.data import bundled_dir
from tests.fixed_sim import replay
from tests.helpers import GOLDEN, Step, check_width, compare, render


def bundled_copy(name: str) -> Step:
    """A bundled ruleset copied here, so that the path shown is the same everywhere."""
    return lambda: shutil.copy(bundled_dir() / name, name)


SCENARIOS: dict[str, list[Step]] = {
    "d20-table": [
        ["init", "--ruleset", "d20", "--dice", "19,5"],
        ["round", "--dice", "8,18,17,3,3"],
        ["round", "--dice", "4,15,20,1,6,6,2"],  # B wins initiative, natural 20 critical
        ["wound", "A", "7"],
    ],
    "sevendag-table": [
        ["init", "--dice", "5,19"],
        ["round", "--dice", "5,3,6,6", "--technique", "Ysolde=feint"],
        # Brannoc yields: he attacks first and fumbles (1), drops his sword (15 > skill 14);
        # Ysolde's greatsword shows 8 and 8: a devastating critical against the shield's 3.
        ["round", "--dice", "1,15,8,8,3", "--yield"],
        ["wound", "--classify", "23"],
    ],
    "d20-fight": [["fight", "--ruleset", "d20", "--seed", "5", "--cap", "3"]],
    # the dice roller: structure, marks without colour, keep/drop, explosions, labels
    "roll": [
        ["roll", "1d6-1d6", "2d6*2", "max(1d20,1d20)", "(1d4+1)//2", "mod(3d6)", "--seed", "7"],
        ["roll", "stats: 4d6kh3", "advantage: 2d20kh1 + 5", "disadvantage: 2d20kl1 + 5", "d%",
         "--seed", "3"],
        ["roll", "boom: 3d6!", "4d6!kh3", "--dice", "6,2,5,6,1,6,4,3,6,2,5"],
        # die modifiers: rerolled faces struck (↻), raised (↑) or lowered (↓)
        ["roll", "stats: 4d6ro1kh3", "gwf: 2d6ro<3 + 4", "2d6rr1", "reliable: 1d20mi10 + 7", "1d20ma15",
         "--dice", "1,4,6,3,1,2,6,1,1,1,5,6,3,18"],
    ],
    "sevendag-fight": [["fight", "--seed", "5", "--cap", "3"]],
    # the designer's tables: win rates, then what each ruleset adds (wounds per band, HP)
    "sevendag-runs": [["fight", "--runs", "2000", "--seed", "5"]],
    "d20-runs": [["fight", "--ruleset", "d20", "--runs", "2000", "--seed", "5"]],
    "d20-exact": [["fight", "--ruleset", "d20", "--exact"]],
    # the designer's bench: a sweep (D-14: A's AC that makes the duel fair) and a what-if
    "d20-sweep": [["sweep", "A", "B", "--ruleset", "d20", "--vary", "A.ac=5..12", "--fair"]],
    "sevendag-sweep": [["sweep", "--vary", "Ysolde.attack=6..12", "--tactic", "Brannoc=all-out",
                        "--fair"],
                       ["sweep", "--vary", "Ysolde.hands[0].die=6,8,10", "--runs", "2000", "--seed", "5"]],
    # a critical with the dice explained, a natural 1 save, halved and minimum damage
    "d20-explained": [
        ["init", "--ruleset", "d20", "--dice", "19,5"],
        ["round", "--dice", "10,20"],  # A hits; a natural 20 save: dodged entirely
        ["round", "--dice", "4,15,17,19,3,8,10"],  # B attacks: save 19 > DD 3 + 4: halved
    ],
    # (a copy in the test's folder, named by its file: the path shown is the same everywhere)
    "sevendag-show": [bundled_copy("sevendag.toml"), ["rulesets", "show", "sevendag.toml"]],
    # the house pair's advice at the table: one line per option, 21 lines at most
    "sevendag-advise": [["init", "--seed", "1"], ["advise"]],
    "d20-show": [bundled_copy("d20.toml"), ["rulesets", "show", "d20.toml"]],
}

NARROW = ("d20-table", "sevendag-table", "sevendag-fight", "sevendag-runs", "roll", "d20-show",
          "sevendag-sweep")
"""Scenarios also snapshotted at 60 columns: still usable."""

SIMULATED = ("sevendag-runs", "d20-runs", "sevendag-sweep")
"""Scenarios whose simulated figures are replayed from tests/golden/NAME.sim.json."""

SLOW = ("sevendag-advise",)
"""Scenarios that take 0.5 s or more (the game solved from nothing kept)."""


def marked(names: Iterable[str]) -> list[Any]:
    """The scenarios' names, the slow ones marked."""
    return [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in names]


def test_every_simulating_scenario_is_drawn_from_fixed_figures() -> None:
    simulating = {name for name, steps in SCENARIOS.items()
                  if any(not callable(step) and "--runs" in step for step in steps)}
    assert simulating == set(SIMULATED)


def drawn(name: str, lang: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The scenario's display; from fixed figures if it simulates."""
    if name not in SIMULATED:
        return render(SCENARIOS[name], lang)
    stub = replay(monkeypatch, name)
    text = render(SCENARIOS[name], lang)
    stub.check_all_given()
    return text


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("name", marked(sorted(SCENARIOS)))
def test_golden_display(name: str, lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text = drawn(name, lang, monkeypatch)
    check_width(text, 80)
    compare(text, GOLDEN / f"{name}.{lang}.txt")


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("name", NARROW)
def test_golden_display_at_60_columns(name: str, lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    text = drawn(name, lang, monkeypatch)
    check_width(text, 60)
    compare(text, GOLDEN / f"{name}.{lang}.60.txt")
