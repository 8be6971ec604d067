"""``sweep``: the odds for each value of one field, equal to ``fight --exact --set``
(and ``fight --runs --set`` with the same seed), the fairest value, every format."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from sevendag_cli.commands.schema import validator
from sevendag_cli.render.sweep_data import CSV_COLUMNS
from tests.helpers import assert_one_line_error, run, run_json

D14 = ["A", "B", "--ruleset", "d20"]


def valid(doc: Any) -> None:
    errors = list(validator("sweep").iter_errors(doc))
    assert not errors, errors[0].message


@pytest.mark.slow
def test_d20_points_equal_fight_exact_with_the_same_set() -> None:
    """D-14: each point's interval and fight --exact --set …'s are both certified: they overlap,
    and the win probabilities and mean rounds agree within the tolerance."""
    doc = run_json("sweep", *D14, "--vary", "A.ac=5..12/3", "--fair")
    valid(doc)
    assert [p["value"] for p in doc["points"]] == [5, 8, 11]
    for point in doc["points"]:
        exact = run_json("fight", *D14, "--exact", "--set", f"A.ac={point['value']}")
        for mine, theirs in zip(point["fighters"], exact["fighters"], strict=True):
            assert mine["name"] == theirs["name"]
            assert max(mine["bounds"][0], theirs["bounds"][0]) <= min(mine["bounds"][1], theirs["bounds"][1])
            assert mine["win_probability"] == pytest.approx(theirs["win_probability"], abs=1e-12)
        assert point["rounds_mean"] == pytest.approx(exact["rounds"]["mean"], rel=1e-11)
        assert point["draw_probability"] == exact["draw_probability"]


@pytest.mark.slow
def test_sevendag_points_are_fight_exact_s_figures() -> None:
    """S-21 pair: the same push as fight --exact, so the same numbers."""
    doc = run_json("sweep", "--vary", "Ysolde.attack=8,10", "--tactic", "Brannoc=all-out")
    valid(doc)
    assert doc["changes"] == [{"fighter": "Brannoc", "field": "tactic", "value": "all-out",
                               "previous": "weapons-attack"}]
    for point in doc["points"]:
        exact = run_json("fight", "--exact", "--tactic", "Brannoc=all-out", "--set",
                         f"Ysolde.attack={point['value']}")
        assert [f["bounds"] for f in point["fighters"]] == [f["bounds"] for f in exact["fighters"]]
        assert point["rounds_mean"] == exact["rounds"]["mean"]


def test_simulated_points_are_fight_runs_with_the_same_seed() -> None:
    doc = run_json("sweep", *D14, "--vary", "B.hp=40,60", "--runs", "2000", "--seed", "11")
    valid(doc)
    assert doc["method"] == "runs" and doc["seed"] == 11 and doc["tolerance"] is None
    for point in doc["points"]:
        runs = run_json("fight", *D14, "--runs", "2000", "--seed", "11", "--set", f"B.hp={point['value']}")
        assert [(f["win_probability"], f["ci95"]) for f in point["fighters"]] == [
            (f["win_probability"], f["ci95"]) for f in runs["fighters"]]
        assert point["rounds_mean"] == runs["rounds"]["mean"]
        assert all("bounds" not in f for f in point["fighters"])


def test_the_fair_value_of_the_d14_pair() -> None:
    """D-14: A is behind (45.6%); A's AC 9 makes the duel fair within 0.74 points, and the lead
    changes sides between AC 8 and 9 (below 9, B hits on anything but a natural 1)."""
    doc = run_json("sweep", *D14, "--vary", "A.ac=5..12", "--fair")
    fair = doc["fair"]
    assert fair["value"] == 9 and fair["between"] == [8, 9]
    assert fair["win_probability"][0] == pytest.approx(0.5036671341, abs=1e-9)
    assert fair["gap"] == pytest.approx(fair["win_probability"][0] - fair["win_probability"][1])
    assert run_json("sweep", *D14, "--vary", "A.ac=5..12")["fair"] is None


def test_a_list_of_formulas_keeps_each_as_text() -> None:
    doc = run_json("sweep", *D14, "--vary", "A.weapon.damage=1d6,1d8,2d4")
    assert [p["value"] for p in doc["points"]] == ["1d6", "1d8", "2d4"]
    wins = [p["fighters"][0]["win_probability"] for p in doc["points"]]
    assert wins[0] < wins[1] < wins[2]  # 2d4 (mean 5) beats 1d8 (4.5) beats 1d6 (3.5)


def test_a_field_that_plays_no_part_is_said() -> None:
    """D-05: B states AC 5, so B's armour changes nothing; the sweep says so, and why."""
    result = run("sweep", *D14, "--vary", "B.armour=0..3")
    assert result.exit_code == 0
    assert "B.armour plays no part in this fight" in result.stdout
    assert "B's sheet states ac = 5, which comes before armour (D-05)" in result.stderr
    assert run_json("sweep", *D14, "--vary", "B.armour=0..3")["unchanged"] is True
    moved = run_json("sweep", *D14, "--vary", "B.armour=-6..-4", "--set", "B.ac=")
    assert moved["unchanged"] is False


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_display_in_both_languages(lang: str) -> None:
    result = run("sweep", *D14, "--vary", "A.ac=8..10", "--fair", "--lang", lang)
    assert result.exit_code == 0, result.stderr
    fair = {"en": "Fairest: A.ac = 9: A 50.37%, B 49.63% (0.73 points apart)",
            "fr": "Le plus équilibré : A.ac = 9 : A 50,37\u00a0%, B 49,63\u00a0% (0,73 points d'écart)"}[lang]
    assert fair in result.stdout
    assert "│" in result.stdout and "█" in result.stdout and "░" in result.stdout
    runs = run("sweep", *D14, "--vary", "A.ac=8..9", "--runs", "500", "--seed", "2", "--lang", lang)
    assert runs.exit_code == 0 and "(--seed 2)" in runs.stderr


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_csv_parses_back_the_same_in_every_language(lang: str) -> None:
    result = run("sweep", *D14, "--vary", "A.weapon.damage=1d6,1d8", "--csv", "--lang", lang)
    assert result.exit_code == 0
    text = result.stdout_bytes.decode("utf-8")  # (Click's stdout turns CRLF into LF)
    assert text.count("\r\n") == 3 and text.endswith("\r\n") and "%" not in text
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows) == 3
    doc = run_json("sweep", *D14, "--vary", "A.weapon.damage=1d6,1d8")
    for row, point in zip(rows[1:], doc["points"], strict=True):
        record = dict(zip(CSV_COLUMNS, row, strict=True))
        assert record["field"] == "A.weapon.damage" and record["value"] == point["value"]
        assert record["fighter_1"] == "A" and record["fighter_2"] == "B"
        assert float(record["win_probability_1"]) == point["fighters"][0]["win_probability"]
        assert float(record["high_2"]) == point["fighters"][1]["bounds"][1]
        assert float(record["rounds_mean"]) == point["rounds_mean"]
    english = run("sweep", *D14, "--vary", "A.weapon.damage=1d6,1d8", "--csv")
    assert result.stdout_bytes == english.stdout_bytes


def test_the_range_forms() -> None:
    doc = run_json("sweep", *D14, "--vary", "B.size=-3..3/2")
    assert [p["value"] for p in doc["points"]] == [-3, -1, 1, 3]
    doc = run_json("sweep", *D14, "--vary", "B.hp = 10 .. 30 / 10")
    assert [p["value"] for p in doc["points"]] == [10, 20, 30]
    assert [p["value"] for p in run_json("sweep", *D14, "--vary", "B.hp=25")["points"]] == [25]


REFUSED = [
    (["--vary", "A.ac=1..201"], 2, "201 values: a sweep takes at most 200"),
    (["--vary", "A.ac=9..5"], 2, "a range is LO..HI with LO at most HI"),
    (["--vary", "A.ac=1..9/0"], 2, "a range is LO..HI"),
    (["--vary", "A.ac="], 2, "give the values"),
    (["--vary", "A.ac=5,,6"], 2, "give the values"),
    (["--vary", "Zed.ac=5..6"], 2, "no fighter 'Zed'"),
    (["--vary", "A.ac=5,x"], 2, "--vary A.ac=5,x: ac: expected a whole number, found a text 'x'"),
    (["--vary", "A.ac=5..6", "--csv", "--json"], 2, "--csv and --json: choose one"),
    (["--vary", "A.ac=5..6", "--runs", "10", "--tolerance", "1e-9"], 2, "--tolerance goes with exact odds"),
    (["--vary", "A.ac=5..6", "--runs", "0"], 2, "--runs 0"),
    (["--vary", "A.ac=5..6", "--cap", "0"], 2, "--cap 0"),
    (["--vary", "B.hp=6000"], 2, "B.hp = 6000: no exact odds"),
    (["--vary", "A.ac=5..6", "--plot", "curve.pdf"], 2, "give a file name ending in .png or .svg"),
]


@pytest.mark.parametrize(("args", "code", "fragment"), REFUSED)
def test_refused_in_one_line(args: list[str], code: int, fragment: str) -> None:
    assert_one_line_error(run("sweep", *D14, *args), code, fragment)


def test_vary_is_required_and_the_help_has_examples() -> None:
    assert run("sweep").exit_code == 2
    for lang in ("en", "fr"):
        result = run("sweep", "--help", "--lang", lang)
        assert result.exit_code == 0 and "--vary A.ac=5..12 --fair" in result.stdout


def test_json_error_document() -> None:
    result = run("sweep", *D14, "--vary", "A.ac=9..5", "--json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["key"] == "whatif.vary_range"
