"""The bench's polish: the verdict stays on screen, every number
says how it was obtained, pictures, the rulesets listing at 80 columns, the help of ``roll``
and the hands prompt (S-04)."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from sevendag_cli.render.layout import path_lines
from sevendag_cli.render.rich_info import render_rulesets
from tests.helpers import run


@pytest.fixture(autouse=True)
def _plain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "80")


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_runs_keeps_the_verdict_last_and_no_empty_histogram_row(lang: str) -> None:
    result = run("fight", "--ruleset", "d20", "--runs", "50000", "--seed", "5", "--lang", lang)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1].startswith("└")  # the win table is the last thing shown
    assert lines[-2].lstrip("│ ").startswith("B") and lines[-3].lstrip("│ ").startswith("A")
    bars = [line for line in lines if "█" in line]
    assert 1 <= len(bars) <= 12
    assert not [line for line in bars if line.endswith(" 0.0%") or line.endswith(" 0,0 %")]
    assert any("--json" in line for line in lines)  # the rows left out are said


def test_a_standard_deviation_says_sd_and_an_interval_says_95_ci() -> None:
    runs = run("fight", "--ruleset", "d20", "--runs", "2000", "--seed", "5").stdout
    assert ", sd " in runs and " ± " not in runs
    sweep = run("sweep", "A", "B", "-r", "d20", "--vary", "A.ac=9..10", "--runs", "500", "--seed", "3").stdout
    assert "± 95% CI" in sweep  # the columns' header: each cell's "±" is half the 95% CI
    assert re.search(r"\d%, ±\d|\d% ±\d", sweep)
    exact = run("fight", "--ruleset", "d20", "--exact").stdout
    assert "certified" in exact.splitlines()[2]  # floating point with a certified bound, no fraction


def test_fight_csv_has_a_method_column() -> None:
    text = run("fight", "-r", "d20", "--runs", "200", "--seed", "1", "--csv").stdout
    runs = list(csv.reader(io.StringIO(text)))
    assert runs[0][-1] == "method" and {r[-1] for r in runs[1:]} == {"runs"}
    exact = list(csv.reader(io.StringIO(run("fight", "-r", "d20", "--exact", "--csv").stdout)))
    assert exact[0][-1] == "method" and {r[-1] for r in exact[1:]} == {"exact"}


def test_a_path_breaks_only_after_a_slash() -> None:
    path = "/tmp/some-rather-long-directory-name/another-long-directory-for-testing/rulesets/x.toml"
    lines = path_lines(path, 50)
    assert "".join(lines) == path
    assert all(len(line) <= 50 for line in lines)
    assert all(line.endswith("/") for line in lines[:-1])
    assert path_lines("/" + "x" * 30, 10) == ["/", "x" * 10, "x" * 10, "x" * 10]


def test_rulesets_listing_too_wide_has_headers_and_whole_names() -> None:
    long = "/tmp/some-rather-long-directory-name/another-long-directory-for-testing/rulesets"
    doc = {"rulesets": [{"name": "house-rules-variant", "engine": "d20", "origin": "user", "valid": True,
                         "path": f"{long}/house-rules-variant.toml"}],
           "fighters": [], "search_path": [long, "/root/.config/sevendag"]}
    console = Console(width=80, record=True, no_color=True, force_terminal=False)
    render_rulesets(console, doc, "en")
    lines = console.export_text().splitlines()
    assert "name  engine  from" in lines[1] and lines[2].strip() == "file"
    assert all(len(line) <= 80 for line in lines)
    words = {w for line in lines for w in line.replace("/", " ").split()}
    assert {"another-long-directory-for-testing", "house-rules-variant.toml"} <= words
    assert "Search path:" in lines


def test_roll_help_speaks_of_rolls_not_fights() -> None:
    for lang, same in (("en", "same seed, same rolls"), ("fr", "même graine, mêmes jets")):
        text = " ".join(run("roll", "--help", "--lang", lang).stdout.replace("│", " ").split())
        assert same in text and "same fight" not in text and "même combat" not in text


def test_S04_the_hands_prompt_never_suggests_attacking_with_a_shield() -> None:
    from sevendag_cli.sevendag.prompts import ask_sevendag_choices
    from sevendag_cli.sevendag.state import initial_state
    from tests.sevendag_helpers import RS, make

    a = make("Ann", [{"die": 10, "holds": "w"}, {"die": 8, "holds": "s"}],
             {"w": {"metal": "iron", "label": "sword"}, "s": {"kind": "shield"}})
    b = make("Bob", [{"die": 6}])
    state = initial_state(a, b, a.name)
    prompts: list[str] = []
    warnings: list[str] = []
    answers = iter(["n", "a,a", "a", "", ""])  # refused (shield), refused (count), Enter

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers, "")

    ask_sevendag_choices(RS, a, b, state, None, {}, {}, "en", read=read, warn=warnings.append)
    assert any("only defends" in w for w in warnings)
    count = [w for w in warnings if "answer once per hand" in w]
    assert count and "e.g. a,d" in count[0] and "a,a" not in count[0]
    assert "[a,d]" in prompts[1]


@pytest.mark.slow
def test_heat_map_labels_contrast_and_the_map_is_colour_blind_safe(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from sevendag_cli.render import plot

    target = tmp_path / "heat.svg"
    plot.heat_map(target, ["a", "b"], ["a", "b"], [[None, 0.02], [0.98, None]], title="t",
                  value_label="P", curve=[(0.5, 0.0), (0.5, 1.0)], x_label="x", y_label="y")
    assert "50/50" in target.read_text("utf-8")  # the curve's legend
    import matplotlib

    cmap = matplotlib.colormaps["RdBu"]
    assert plot.label_colour(cmap(0.0)) == "white" and plot.label_colour(cmap(1.0)) == "white"
    assert plot.label_colour(cmap(0.5)) == "black"


@pytest.mark.slow
def test_fight_pictures_show_who_wins_beside_the_rounds(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    for mode in (["--runs", "2000", "--seed", "3"], ["--exact"]):
        target = tmp_path / f"rounds{len(mode)}.svg"
        result = run("fight", "-r", "d20", *mode, "--plot", str(target))
        assert result.exit_code == 0, result.stderr
        svg = target.read_text("utf-8")
        assert "P(win)" in svg and "rounds" in svg  # the winners' panel beside the histogram
