"""Sevendag test fixtures shared by the engine, simulation and exact-odds tests."""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from sevendag_cli.rules import SevendagFighter, SevendagRuleset, fighter_from_data, load_pair
from sevendag_cli.rules import load_ruleset as _load_ruleset
from sevendag_cli.sevendag.rules import WoundBand


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


def bundled() -> tuple[SevendagFighter, SevendagFighter]:
    a, b = load_pair(RS, None)
    assert isinstance(a, SevendagFighter) and isinstance(b, SevendagFighter)
    return a, b


def sword_shield(name: str = "Aldo", metal: str = "iron", tactic: str | None = None,
                 attack: int = 10, defence: int = 5) -> SevendagFighter:
    return make(name, [{"die": 10, "holds": "sword"}, {"die": 6, "holds": "shield"}],
                {"sword": {"metal": metal, "skill": 12}, "shield": {"kind": "shield"}},
                attack=attack, defence=defence, tactic=tactic)


def greatsword(name: str = "Bera", tactic: str | None = None) -> SevendagFighter:
    return make(name, [{"die": 8, "holds": "great"}, {"die": 8, "holds": "great"}],
                {"great": {"hands": 2, "metal": "steel", "skill": 12}}, tactic=tactic)


def dual(name: str = "Cato", attack: int = 10) -> SevendagFighter:
    return make(name, [{"die": 6, "holds": "axe"}, {"die": 6, "holds": "knife"}],
                {"axe": {"metal": "iron", "skill": 10}, "knife": {"metal": "bronze", "skill": 10}},
                attack=attack)


def penalty_free(rs: SevendagRuleset, **out_after: int) -> SevendagRuleset:
    return replace(rs, wounds=tuple(
        replace(w, penalty=0, out_after=out_after.get(w.name, w.out_after)) for w in rs.wounds))


# A tiny ruleset and fighters whose exact chain is small enough to check by brute force.
TINY = (WoundBand("light", 1, 3, 1, 2, {}), WoundBand("serious", 4, 6, 0, 0, {}),
        WoundBand("fatal", 7, None, 0, 1, {}))
TINY_RS = replace(RS, wounds=TINY, drop_check_die=4, drop_recovery_rounds=2,
                  fumble_grants_crit=True)
TINY_X = make("X", [{"die": 4, "holds": "sword"}, {"die": 3, "holds": "shield"}],
              {"sword": {"metal": "iron", "skill": 2}, "shield": {"kind": "shield"}},
              attack=4, defence=2, speed=1)
TINY_Y = make("Y", [{"die": 3, "holds": "g"}, {"die": 3, "holds": "g"}],
              {"g": {"metal": "steel", "skill": 2, "hands": 2}}, attack=3, defence=3)
TINY_Z = make("Z", [{"die": 3, "holds": "a"}, {"die": 2, "holds": "k"}],
              {"a": {"metal": "bronze", "skill": 3}, "k": {"metal": "starmetal", "skill": 1}},
              attack=2, defence=3)

HOUSE_GRANTS = replace(RS, fumble_grants_crit=True, round_cap=10**9)
"""The house rules with granted criticals and no round cap to speak of."""
TINY_HOUSE = replace(  # house-like: penalties without bound, one "fatal" takes a fighter out
    RS, wounds=(WoundBand("light", 1, 3, 1, 0, {}), WoundBand("serious", 4, 6, 2, 0, {}),
                WoundBand("fatal", 7, None, 0, 1, {})),
    drop_check_die=4, drop_recovery_rounds=1, fumble_grants_crit=True, round_cap=10**9)
TINY_COUNTED = replace(  # out after 2 lights (with a penalty), an inert band, 2-round pickups
    RS, wounds=(WoundBand("light", 1, 3, 1, 2, {}), WoundBand("serious", 4, 6, 0, 0, {}),
                WoundBand("fatal", 7, None, 0, 1, {})),
    drop_check_die=4, drop_recovery_rounds=2, fumble_grants_crit=True, failure_beats_crit=False,
    round_cap=10**9)
