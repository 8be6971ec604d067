"""CSV and pictures: RFC 4180 tables parsed back by the csv module; PNG and SVG
files of non-trivial size; matplotlib only for --plot, and a missing one is one line."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sevendag_cli.render.csv_out import csv_text, plain
from sevendag_cli.render.fight_out import FIGHT_CSV_COLUMNS
from tests.helpers import (
    assert_one_line_error,
    assert_picture,
    edited_sheet,
    parse_csv,
    run,
    run_json,
)

# --- the CSV module -------------------------------------------------------------------------------


def test_rfc_4180_quoting_and_plain_numbers() -> None:
    text = csv_text(["name", "p", "n", "flag", "none"],
                    [['Sir "Bob", the 2nd', 0.25, 1234567, True, None],
                     ["line\nbreak", 1e-13, -3, False, None]])
    assert text.splitlines(keepends=True)[0] == "name,p,n,flag,none\r\n"
    assert '"Sir ""Bob"", the 2nd",0.25,1234567,true,\r\n' in text
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[1] == ['Sir "Bob", the 2nd', "0.25", "1234567", "true", ""]
    assert rows[2] == ["line\\nbreak", "1e-13", "-3", "false", ""]  # made visible, as displayed
    assert float(rows[2][1]) == 1e-13
    assert plain(0.1 + 0.2) == "0.30000000000000004"  # every digit: parses back to the same float
    with pytest.raises(ValueError):
        csv_text(["a", "b"], [[1]])


@pytest.mark.parametrize(("text", "written"), [
    ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"),
    ("+1", "'+1"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"),
    ("\t=1", "\\t=1"), ("\r=1", "\\r=1"),  # escaped: no longer a formula's start
    ("ev\x1bil", "ev\\x1bil"), ("A (2)", "A (2)"), ("1d8+2", "1d8+2"), ("", ""),
])
def test_text_from_files_cannot_become_a_formula_or_a_terminal_escape(text: str, written: str) -> None:
    assert plain(text) == written
    assert plain(-3) == "-3" and plain(-0.5) == "-0.5"  # numbers are numbers, never guarded


@pytest.mark.slow
def test_a_hostile_fighter_name_in_a_csv_table() -> None:
    # a name holding '=' is refused where the sheet is read (no NAME=VALUE option could type
    # it): '+' starts a formula in a spreadsheet as '=' does
    bad = edited_sheet("a", ('name = "A"', r'name = "+cmd|\u001b[2J"'))
    rows = parse_csv(run("fight", bad, "b", "--ruleset", "d20", "--exact", "--csv").stdout_bytes)
    assert rows[1][1] == r"'+cmd|\x1b[2J"


# --- fight --runs / --exact --csv -----------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_fight_runs_csv_parses_back(ruleset: str) -> None:
    args = ["fight", "--ruleset", ruleset, "--runs", "3000", "--seed", "5"]
    rows = parse_csv(run(*args, "--csv").stdout_bytes)
    doc = run_json(*args)
    assert tuple(rows[0]) == FIGHT_CSV_COLUMNS and len(rows) == 4
    for row, f in zip(rows[1:3], doc["fighters"], strict=True):
        assert row[:2] == ["win", f["name"]]
        assert float(row[2]) == f["win_probability"] and int(row[5]) == f["wins"]
        assert [float(row[3]), float(row[4])] == f["ci95"]
    assert rows[3][:2] == ["draw", ""] and int(rows[3][5]) == doc["draws"]
    assert sum(int(r[5]) for r in rows[1:]) == 3000
    assert run(*args, "--csv", "--lang", "fr").stdout_bytes == run(*args, "--csv").stdout_bytes


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_fight_exact_csv_parses_back(ruleset: str) -> None:
    rows = parse_csv(run("fight", "--ruleset", ruleset, "--exact", "--csv").stdout_bytes)
    doc = run_json("fight", "--ruleset", ruleset, "--exact")
    assert tuple(rows[0]) == FIGHT_CSV_COLUMNS
    for row, f in zip(rows[1:3], doc["fighters"], strict=True):
        assert [float(row[3]), float(row[4])] == f["bounds"] and row[5] == ""
    assert [float(rows[3][3]), float(rows[3][4])] == doc["draw_bounds"]
    probabilities = sum(float(r[2]) for r in rows[1:])
    assert probabilities == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize(("args", "fragment"), [
    (["--exact", "--csv", "--json"], "--csv and --json: choose one"),
    (["--csv"], "--csv goes with --runs, --exact or --odds"),
    (["--plot", "x.png"], "--plot goes with --runs, --exact or --odds"),
    (["--exact", "--plot", "x.jpg"], "give a file name ending in .png or .svg"),
])
def test_csv_and_plot_misuse_is_one_line(args: list[str], fragment: str) -> None:
    assert_one_line_error(run("fight", *args), 2, fragment)


# --- pictures -------------------------------------------------------------------------------------

PLOTS = [
    ["sweep", "A", "B", "-r", "d20", "--vary", "A.ac=5..12"],
    ["sweep", "--vary", "Ysolde.attack=7..9", "--runs", "300", "--seed", "1"],
    ["sweep", "A", "B", "-r", "d20", "--vary", "A.weapon.damage=1d6,1d8,2d4"],
    ["fight", "--exact"],
    ["fight", "-r", "d20", "--runs", "2000", "--seed", "3"],
]


@pytest.mark.slow
@pytest.mark.parametrize("args", PLOTS)
@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_pictures_are_valid_files_of_some_size(args: list[str], suffix: str) -> None:
    path = Path(f"picture.{suffix}")
    result = run(*args, "--plot", str(path), "--json")
    assert result.exit_code == 0, result.stderr
    json.loads(result.stdout)  # the data stay on stdout, whole
    assert f"plot written to {path}" in result.stderr
    assert_picture(path, suffix)


def test_without_matplotlib_plot_is_one_line_and_nothing_is_computed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # ``import matplotlib`` fails
    for args in (["sweep", "A", "B", "-r", "d20", "--vary", "A.ac=5..6"], ["fight", "--exact"]):
        result = run(*args, "--plot", "x.png")
        assert_one_line_error(result, 2, "--plot needs matplotlib, which is not installed: "
                                         "pip install ")
        assert result.stdout == "" and not Path("x.png").exists()
    fr = run("fight", "--exact", "--plot", "x.svg", "--lang", "fr")
    assert_one_line_error(fr, 2, "--plot demande matplotlib")
    assert run("fight", "--exact", "--csv").exit_code == 0  # nothing else needs it


@pytest.mark.slow
def test_matplotlib_is_imported_only_for_plot() -> None:
    code = ("import sys\nfrom sevendag_cli.cli import main\nsys.argv = {argv!r}\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('MPL=%s' % ('matplotlib' in sys.modules))\n")
    for argv, expected in ((["sevendag", "sweep", "A", "B", "-r", "d20", "--vary", "A.ac=5..6"], False),
                           (["sevendag", "fight", "--exact", "--csv"], False),
                           (["sevendag", "fight", "--exact", "--plot", "r.svg"], True)):
        done = subprocess.run([sys.executable, "-c", code.format(argv=argv)], capture_output=True,
                              text=True, check=True)
        assert done.stderr.endswith(f"MPL={expected}"), done.stderr


def test_a_plot_that_cannot_be_written_is_one_line() -> None:
    Path("folder.png").mkdir()
    result = run("fight", "--exact", "--plot", "folder.png")
    assert_one_line_error(result, 2, "folder.png: is a folder, not a file to write")
    assert result.stdout == ""  # refused before the work
