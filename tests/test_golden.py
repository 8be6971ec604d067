"""Snapshots of what the game master sees (Rich, no colour), in both languages, at 80 columns
(a common terminal, and every pipe) and, for some, at 60.

Every snapshot is also checked for what reads badly at that width: a line wider
than the console, a rule tag (``[S-04]``) starting a line, spaces at a line's end.

A change in the display must be deliberate: regenerate with
``SEVENDAG_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from sevendag_cli.data import bundled_dir
from tests.helpers import run

GOLDEN = Path(__file__).parent / "golden"
TAG_AT_START = re.compile(r"^\s*\[[SDC]-[0-9]{2}")

SCENARIOS: dict[str, list[list[str]]] = {
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
    "sevendag-show": [["cp", "sevendag.toml"], ["rulesets", "show", "sevendag.toml"]],
    "d20-show": [["cp", "d20.toml"], ["rulesets", "show", "d20.toml"]],
}

NARROW = ("d20-table", "sevendag-table", "sevendag-fight", "sevendag-runs", "roll", "d20-show",
          "sevendag-sweep")
"""Scenarios also snapshotted at 60 columns: still usable."""


def render(steps: list[list[str]], lang: str) -> str:
    out = []
    for args in steps:
        if args[0] == "cp":  # a bundled ruleset copied here
            shutil.copy(bundled_dir() / args[1], args[1])
            continue
        result = run(*args, "--lang", lang)
        assert result.exit_code == 0, (args, result.stderr)
        out.append(f"$ sevendag {' '.join(args)}\n{result.stdout}")
    return "\n".join(out)


def check_width(text: str, width: int) -> None:
    """What reads badly at ``width`` columns: too wide, a tag starting a line, trailing spaces."""
    assert "\x1b[" not in text
    assert "\x1f" not in text and "\x1e" not in text  # the layout's glue never reaches the terminal
    for line in text.splitlines():
        if line.startswith("$ sevendag "):
            continue
        assert len(line) <= width, (width, line)
        assert not TAG_AT_START.match(line), line
        assert line == line.rstrip(), repr(line)


def compare(text: str, path: Path) -> None:
    if os.environ.get("SEVENDAG_UPDATE_GOLDEN") or not path.exists():
        path.write_text(text, "utf-8")
        if not os.environ.get("SEVENDAG_UPDATE_GOLDEN"):
            pytest.fail(f"{path.name} did not exist: written, review it and run again")
    assert text == path.read_text("utf-8")


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_golden_display(name: str, lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text = render(SCENARIOS[name], lang)
    check_width(text, 80)
    compare(text, GOLDEN / f"{name}.{lang}.txt")


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("name", NARROW)
def test_golden_display_at_60_columns(name: str, lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    text = render(SCENARIOS[name], lang)
    check_width(text, 60)
    compare(text, GOLDEN / f"{name}.{lang}.60.txt")
