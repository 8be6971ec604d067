"""``sweep`` says where the answer is : a fair value beyond the range is said
(not an end named the fairest), a stepped range that stops short of its end is said, and two
``--vary`` make a grid — its points equal the one-field sweep's, in the display (80 columns, both
languages), the JSON (``values`` on every point), the CSV, the heat map and the library."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import msgspec
import pytest

import sevendag_cli as sd
from sevendag_cli.commands.schema import validator
from sevendag_cli.render.sweep_data import CSV_COLUMNS, GRID_CSV_COLUMNS
from sevendag_cli.sim.sweep import PointFighter, SweepPoint, fairest
from tests.helpers import assert_one_line_error, run, run_json

D14 = ["A", "B", "--ruleset", "d20"]
GRID = [*D14, "--vary", "A.ac=9..11", "--vary", "B.ac=7..9"]


@pytest.fixture(autouse=True)
def _plain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "80")


def valid(doc: Any) -> None:
    errors = list(validator("sweep").iter_errors(doc))
    assert not errors, errors[0].message


def _points(pairs: list[tuple[int, float]]) -> list[SweepPoint]:
    return [SweepPoint(v, (PointFighter("A", p, (p, p), None),
                           PointFighter("B", 1 - p, (1 - p, 1 - p), None)), 0.0, 3.0) for v, p in pairs]


def test_fair_beyond_the_range_is_said_on_the_right_side() -> None:
    rising = _points([(3, 0.6), (4, 0.7), (5, 0.8)])  # A leads everywhere, least at the first
    low = fairest(rising)
    assert low is not None and (low.value, low.between, low.beyond) == (3, None, "below")
    falling = _points([(3, 0.9), (4, 0.8), (5, 0.7)])
    assert fairest(falling).beyond == "above"  # type: ignore[union-attr]
    crossing = _points([(3, 0.4), (4, 0.55), (5, 0.7)])
    cross = fairest(crossing)
    assert cross is not None and (cross.value, cross.between, cross.beyond) == (4, (3, 4), None)
    middle = _points([(3, 0.8), (4, 0.6), (5, 0.8)])  # closest inside, no crossing: no claim
    assert fairest(middle).beyond is None  # type: ignore[union-attr]
    two = _points([(0, 0.6), (0, 0.7)])
    texts = [msgspec.structs.replace(p, value=v) for p, v in zip(two, ("1d6", "1d8"), strict=True)]
    assert fairest(texts).beyond is None  # type: ignore[union-attr]


@pytest.mark.slow
def test_the_display_says_extend_the_range_instead_of_naming_an_end() -> None:
    result = run("sweep", "--vary", "Brannoc.defence=8..12", "--fair")
    assert result.exit_code == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "the fair value lies below Brannoc.defence = 8" in text and "extend the range" in text
    assert "Fairest:" not in text and "◀ fairest" not in text
    doc = run_json("sweep", "--vary", "Brannoc.defence=8..12", "--fair")
    valid(doc)
    assert doc["fair"]["beyond"] == "below" and doc["fair"]["value"] == 8
    fr = run("sweep", "--vary", "Brannoc.defence=8..12", "--fair", "--lang", "fr")
    assert "étendre la plage" in " ".join(fr.stdout.split())


def test_a_stepped_range_that_stops_short_is_said() -> None:
    result = run("sweep", *D14, "--vary", "A.ac=1..20/5")
    assert result.exit_code == 0, result.stderr
    assert "--vary A.ac=1..20/5: the values stop at 16, not 20 (steps of 5 from 1)" in result.stderr
    exact = run("sweep", *D14, "--vary", "A.ac=1..21/5")
    assert "stop at" not in exact.stderr
    fr = run("sweep", *D14, "--vary", "A.ac=1..20/5", "--lang", "fr")
    assert "les valeurs s'arrêtent à 16, pas à 20" in fr.stderr


def test_grid_points_equal_the_one_field_sweeps() -> None:
    doc = run_json("sweep", *GRID, "--fair")
    valid(doc)
    assert doc["fields"] == ["A.ac", "B.ac"] and doc["rows"] == [9, 10, 11] and doc["columns"] == [7, 8, 9]
    pairs = [(a, b) for a in (9, 10, 11) for b in (7, 8, 9)]
    assert [tuple(p["values"].values()) for p in doc["points"]] == pairs
    for a in (9, 10, 11):
        line = run_json("sweep", *D14, "--set", f"A.ac={a}", "--vary", "B.ac=7..9")
        valid(line)
        assert [p["values"] for p in line["points"]] == [{"B.ac": b} for b in (7, 8, 9)]
        mine = [p for p in doc["points"] if p["values"]["A.ac"] == a]
        assert [p["fighters"] for p in mine] == [p["fighters"] for p in line["points"]]
    curve = doc["fair_curve"]
    assert [c["values"] for c in curve] == [{"A.ac": a} for a in (9, 10, 11)]
    assert curve[0]["fair"]["beyond"] == "below" and curve[2]["fair"]["between"] == [7, 8]


def test_the_library_takes_the_grid_and_its_document_is_the_json() -> None:
    m = sd.matchup("A", "B", "d20")
    s = m.sweep("A.ac", "9..11", by=("B.ac", [7, 8, 9]), fair=True)
    assert [p.values for p in s.result.points][:2] == [(9, 7), (9, 8)]
    doc = run_json("sweep", *GRID, "--fair")
    mine = s.to_dict()
    assert mine == doc


GRID_EN = """\
Sweep of A.ac × B.ac · certified odds · the fight played to the end · tolerance
  1e-12
A win %: A.ac down, B.ac across
ac │    7     8     9
───┼──────────────────
 9 │   41    35    30
10 │   45    40    35
11 │   51*   45    40
Where 50/50 lies (B.ac for each A.ac; * the fairest cell):
  A.ac = 9: B.ac below 7: extend the range
  A.ac = 10: B.ac below 7: extend the range
  A.ac = 11: B.ac between 7 and 8
"""


def test_grid_display_in_english_at_80_columns() -> None:
    result = run("sweep", *D14, "--vary", "A.ac=9..11", "--vary", "B.ac=7..9", "--fair")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == GRID_EN
    assert all(len(line) <= 80 for line in result.stdout.splitlines())


@pytest.mark.slow
def test_grid_display_in_french_and_wide_grids_in_blocks() -> None:
    fr = run("sweep", *GRID, "--fair", "--lang", "fr")
    assert fr.exit_code == 0, fr.stderr
    assert "% victoire A : A.ac en lignes, B.ac en colonnes" in fr.stdout
    assert "Où se trouve le 50/50" in fr.stdout
    wide = run("sweep", *D14, "--vary", "A.ac=10..11", "--vary", "B.ac=1..20")
    lines = wide.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert sum(1 for line in lines if "┼" in line) == 2  # two blocks of columns


def test_grid_csv_has_one_row_per_pair_and_the_method() -> None:
    result = run("sweep", *GRID, "--csv")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert tuple(rows[0]) == GRID_CSV_COLUMNS
    assert [(r[1], r[3]) for r in rows[1:]] == [(str(a), str(b)) for a in (9, 10, 11) for b in (7, 8, 9)]
    assert {r[-1] for r in rows[1:]} == {"exact"}
    one = list(csv.reader(io.StringIO(run("sweep", *D14, "--vary", "A.ac=9..10", "--csv").stdout)))
    assert tuple(one[0]) == CSV_COLUMNS and one[0][-1] == "method" and one[1][-1] == "exact"


@pytest.mark.slow
def test_grid_heat_map_and_sweep_picture(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    heat = tmp_path / "grid.png"
    result = run("sweep", *GRID, "--plot", str(heat))
    assert result.exit_code == 0, result.stderr
    assert heat.read_bytes().startswith(b"\x89PNG")
    curve = tmp_path / "curve.svg"
    result = run("sweep", *D14, "--vary", "A.ac=8..13", "--fair", "--plot", str(curve))
    assert result.exit_code == 0, result.stderr
    assert "fairest: " in curve.read_text("utf-8")  # the fair value is marked


REFUSED = [
    ([*D14, "--vary", "A.ac=1..3", "--vary", "A.ac=4..5"], "a grid varies two different fields"),
    ([*D14, "--vary", "A.ac=1..30", "--vary", "B.ac=1..30"], "a grid of 900 pairs of values, at most 400"),
    ([*D14, "--vary", "A.ac=1..3", "--vary", "B.ac=1..3", "--vary", "A.hp=1..2"], "--vary given 3 times"),
]


@pytest.mark.parametrize(("args", "fragment"), REFUSED, ids=["same field", "too big", "three"])
def test_grid_refusals_are_one_line(args: list[str], fragment: str) -> None:
    assert_one_line_error(run("sweep", *args), 2, fragment)
