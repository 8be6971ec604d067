"""Sevendag test fixtures shared by the engine and simulation tests."""

from __future__ import annotations

from typing import Any

from sevendag_cli.rules import SevendagFighter, SevendagRuleset, fighter_from_data
from sevendag_cli.rules import load_ruleset as _load_ruleset


def _ruleset() -> SevendagRuleset:
    rs = _load_ruleset("sevendag")
    assert isinstance(rs, SevendagRuleset)
    return rs


RS = _ruleset()


def make(name: str, hands: list[dict[str, Any]], items: dict[str, Any] | None = None,
         attack: int = 10, defence: int = 5, speed: int = 0, tactic: str | None = None,
         allocation: list[str] | None = None) -> SevendagFighter:
    data: dict[str, Any] = {"ruleset": "sevendag", "name": name, "speed": speed,
                            "attack": attack, "defence": defence, "hands": hands,
                            "items": items or {}}
    if tactic is not None:
        data["tactic"] = tactic
    if allocation is not None:
        data["allocation"] = allocation
    f = fighter_from_data(data, f"test:{name}", RS)
    assert isinstance(f, SevendagFighter)
    return f
