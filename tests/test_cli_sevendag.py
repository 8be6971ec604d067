"""Sevendag at the table through the CLI: init, rounds with choices, wounds, fights."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import assert_one_line_error, run, run_json, snapshot


def start(*faces: int) -> dict:
    return run_json("init", "--dice", ",".join(map(str, faces)))


def test_S02_init_rolls_speed_and_names_the_assaillant() -> None:
    doc = start(5, 19)  # Brannoc 5+3 = 8, Ysolde 19+2 = 21
    assert doc["ruleset"] == "sevendag" and doc["leader"] == "Ysolde"
    assert [f["name"] for f in doc["fighters"]] == ["Brannoc", "Ysolde"]
    assert all(f["wounds"] == [] for f in doc["fighters"])


def test_S08_a_round_with_entered_dice() -> None:
    start(5, 19)
    # Ysolde attacks 2d8 (5, 3) vs Brannoc's shield d8 (6); Brannoc attacks d10 (6), Ysolde has
    # no defence dice.
    doc = run_json("round", "--dice", "5,3,6,6")
    faces = [(r["purpose"], r["fighter"], r["die"], r["face"]) for r in doc["rolls"]]
    assert faces == [
        ("attack", "Ysolde", "d8", 5), ("attack", "Ysolde", "d8", 3),
        ("defence", "Brannoc", "d8", 6), ("attack", "Brannoc", "d10", 6),
    ]
    wounds = {f["name"]: f["wounds"] for f in doc["fighters"]}
    assert wounds == {"Brannoc": ["light"], "Ysolde": ["light"]}
    types = [e["type"] for e in doc["events"]]
    assert types.count("exchange") == 2 and "allocation" in types


def test_S03_yield_swaps_roles_for_the_round() -> None:
    start(5, 19)
    doc = run_json("round", "--yield", "--dice", "6,6,5,3")
    exchanges = [e for e in doc["events"] if e["type"] == "exchange"]
    assert exchanges[0]["attacker"] == "Brannoc"
    assert doc["rolls"][0]["fighter"] == "Brannoc"


def test_S04_allocation_option_and_refusal(tmp_path: Path) -> None:
    start(5, 19)
    before = snapshot(tmp_path)
    bad = run("round", "--allocate", "Brannoc=attack,attack", "--dice", "1,1,1,1")
    assert_one_line_error(bad, 1, "shield")
    assert snapshot(tmp_path) == before
    doc = run_json("round", "--allocate", "Brannoc=defence,defence", "--dice", "5,3,6,6")
    exchanges = [e for e in doc["events"] if e["type"] == "exchange"]
    assert len(exchanges[0]["defence_rolls"]) == 2


def test_S05_technique_refused_while_active_and_nothing_changes(tmp_path: Path) -> None:
    start(5, 19)
    doc = run_json("round", "--technique", "Ysolde=guard", "--dice", "5,3,6,6")
    ysolde = next(f for f in doc["fighters"] if f["name"] == "Ysolde")
    assert ysolde["technique"]["name"] == "guard"
    before = snapshot(tmp_path)
    assert_one_line_error(run("round", "--technique", "Ysolde=feint", "--dice", "5,3,6,6"), 1,
                          "still under")
    assert snapshot(tmp_path) == before


def test_S16_wound_by_amount_and_by_band() -> None:
    start(5, 19)
    doc = run_json("wound", "Brannoc", "17")
    brannoc = next(f for f in doc["fighters"] if f["name"] == "Brannoc")
    assert brannoc["wounds"] == ["serious"]
    doc = run_json("wound", "Ysolde", "fatal")
    assert doc["over"] is True and doc["winner"] == "Brannoc"
    assert_one_line_error(run("round", "--seed", "1"), 1, "over")


def test_wound_unknown_band_names_the_bands() -> None:
    start(5, 19)
    assert_one_line_error(run("wound", "Brannoc", "scratch"), 1, "light")


def test_fight_json_contract_sevendag() -> None:
    doc = run_json("fight", "--seed", "4")
    assert doc["ruleset"] == "sevendag" and doc["seed"] == 4
    assert [f["name"] for f in doc["fighters"]] == ["Brannoc", "Ysolde"]
    assert all("wounds" in f for f in doc["fighters"])
    assert doc["winner"] in ("Brannoc", "Ysolde", None)
    assert doc["rounds"][0]["elapsed_seconds"] == 3  # S-01
    if doc["winner"]:
        loser = next(f for f in doc["fighters"] if f["name"] != doc["winner"])
        assert loser["out"] is True


def test_S19_fight_cap_ends_in_a_draw() -> None:
    doc = run_json("fight", "--seed", "4", "--cap", "1")
    assert doc["rounds_played"] == 1
    if doc["winner"] is None:
        assert doc["capped"] is True and doc["draw"] is True


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_rich_fight_shows_rules_and_bands(lang: str) -> None:
    result = run("fight", "--seed", "4", "--lang", lang)
    assert result.exit_code == 0
    out = result.stdout
    assert "[S-02]" in out and "S-06" in out
    assert ("wound" in out) if lang == "en" else ("blessure" in out)
