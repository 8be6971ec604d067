"""Names you can type: a fighter is found by the name ``rulesets`` shows as well as
by its file's stem, ignoring case; two sheets that match are one line listing them; the same
fighter twice is a mirror match with the two told apart, in every mode of ``fight`` and in the
encounter ``init`` starts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import assert_one_line_error, run, run_json, snapshot

OOPS = """ruleset = "sevendag"
name = "Oops"
speed = 1
attack = 5
defence = 5
[[hands]]
die = 6
"""


def test_a_fighter_listed_by_its_name_is_found_by_it(tmp_path: Path) -> None:
    (tmp_path / "x.toml").write_text(OOPS, "utf-8")
    listed = run_json("rulesets")
    assert "Oops" in [f["name"] for f in listed["fighters"]]
    for typed in ("Oops", "oops", "OOPS", "x", "X"):
        doc = run_json("fight", typed, "brannoc", "--seed", "1")
        assert [f["name"] for f in doc["fighters"]] == ["Oops", "Brannoc"], typed


def test_new_then_fight_by_the_name_given(tmp_path: Path) -> None:
    assert run("new", "Sir Bob", "--ruleset", "sevendag").exit_code == 0
    assert (tmp_path / "sir-bob.toml").is_file()
    for typed in ("sir bob", "Sir Bob", "SIR BOB", "sir-bob"):
        doc = run_json("fight", typed, "brannoc", "--seed", "1")
        assert doc["fighters"][0]["name"] == "Sir Bob", typed


def test_a_file_stem_in_another_case(tmp_path: Path) -> None:
    (tmp_path / "Korr.toml").write_text(OOPS.replace('"Oops"', '"Korr the Red"'), "utf-8")
    doc = run_json("fight", "korr", "brannoc", "--seed", "1")
    assert doc["fighters"][0]["name"] == "Korr the Red"
    assert run_json("fight", "korr the red", "brannoc", "--seed", "1")["fighters"][0]["name"] == \
        "Korr the Red"


def test_two_sheets_of_the_name_are_one_line_listing_them(tmp_path: Path) -> None:
    (tmp_path / "x.toml").write_text(OOPS, "utf-8")
    (tmp_path / "y.toml").write_text(OOPS, "utf-8")
    result = run("fight", "oops", "brannoc")
    assert_one_line_error(result, 1, "2 sheets have this name")
    assert "x.toml" in result.stderr and "y.toml" in result.stderr
    french = run("fight", "oops", "brannoc", "--lang", "fr")
    assert_one_line_error(french, 1, "2 fiches portent ce nom")
    assert run_json("fight", "x.toml", "brannoc", "--seed", "1")["fighters"][0]["name"] == "Oops"


def test_a_sheet_in_the_current_folder_shadows_the_bundled_one_of_the_same_stem(tmp_path: Path) -> None:
    (tmp_path / "brannoc.toml").write_text(OOPS.replace('"Oops"', '"Brannoc"'), "utf-8")
    doc = run_json("fight", "Brannoc", "ysolde", "--seed", "1")
    assert doc["fighters"][0]["name"] == "Brannoc"
    assert run_json("rulesets")["fighters"][0]["path"].endswith("brannoc.toml")


def test_an_unknown_name_is_still_one_line() -> None:
    assert_one_line_error(run("fight", "Gandalf", "brannoc"), 2, "not found")


# --- the mirror match ---------------------------------------------------------------------------


@pytest.mark.slow
def test_a_mirror_match_step_by_step_tells_the_two_apart() -> None:
    out = run("fight", "aela", "aela", "--ruleset", "sevendag", "--seed", "2")
    assert out.exit_code != 0  # no sheet Aela yet
    assert run("new", "Aela", "--ruleset", "d20", "--seed", "3").exit_code == 0
    result = run("fight", "aela", "AELA", "--seed", "2")
    assert result.exit_code == 0, result.stderr
    assert "Aela (2)" in result.stdout
    doc = run_json("fight", "aela", "aela", "--seed", "2")
    assert [f["name"] for f in doc["fighters"]] == ["Aela", "Aela (2)"]
    assert doc["winner"] in ("Aela", "Aela (2)")
    jsonl = run("fight", "aela", "aela", "--seed", "2", "--jsonl").stdout
    lines = [json.loads(x) for x in jsonl.splitlines()]
    assert {f["name"] for f in lines[-1]["fighters"]} == {"Aela", "Aela (2)"}


@pytest.mark.parametrize("mode", [["--runs", "200", "--seed", "1"], ["--exact"]])
def test_a_mirror_match_in_the_odds(mode: list[str]) -> None:
    assert run("new", "Aela", "--ruleset", "d20", "--seed", "3").exit_code == 0
    doc = run_json("fight", "aela", "aela", *mode)
    assert [f["name"] for f in doc["fighters"]] == ["Aela", "Aela (2)"]


def test_a_mirror_match_at_the_table_keeps_the_names(tmp_path: Path) -> None:
    doc = run_json("init", "ysolde", "Ysolde", "--seed", "2")
    assert [f["name"] for f in doc["fighters"]] == ["Ysolde", "Ysolde (2)"]
    saved = json.loads((tmp_path / "encounter.sevendag.json").read_text("utf-8"))
    assert [f["data"]["name"] for f in saved["fighters"]] == ["Ysolde", "Ysolde (2)"]
    doc = run_json("round", "--no-input", "-a", "ysolde (2)=a,a", "-t", "YSOLDE=feinte", "--seed", "1")
    assert {e["fighter"] for e in doc["events"] if e["type"] == "allocation"} == {"Ysolde", "Ysolde (2)"}
    doc = run_json("wound", "ysolde (2)", "grave")
    assert doc["fighter"] == "Ysolde (2)" and doc["band"] == "serious"
    before = snapshot(tmp_path)
    assert_one_line_error(run("wound", "Ysolde (3)", "5"), None, "Ysolde (3)")
    assert snapshot(tmp_path) == before
