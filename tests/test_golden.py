"""Snapshots of what the game master sees (Rich, no colour, fixed width), in both languages.

A change in the display must be deliberate: regenerate with
``SEVENDAG_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import run

GOLDEN = Path(__file__).parent / "golden"

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
}


def render(steps: list[list[str]], lang: str) -> str:
    out = []
    for args in steps:
        result = run(*args, "--lang", lang)
        assert result.exit_code == 0, (args, result.stderr)
        out.append(f"$ sevendag {' '.join(args)}\n{result.stdout}")
    return "\n".join(out)


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_golden_display(name: str, lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "96")
    text = render(SCENARIOS[name], lang)
    assert "\x1b[" not in text
    path = GOLDEN / f"{name}.{lang}.txt"
    if os.environ.get("SEVENDAG_UPDATE_GOLDEN") or not path.exists():
        path.write_text(text, "utf-8")
        if not os.environ.get("SEVENDAG_UPDATE_GOLDEN"):
            pytest.fail(f"{path.name} did not exist: written, review it and run again")
    assert text == path.read_text("utf-8")
