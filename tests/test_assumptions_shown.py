"""Every assumption said where the number is: who plays how (each fighter on its sheet, or
optimal) on the header of every display of odds and on the title of every picture, in both
languages; and, under optimal play, how many fights end near the round cap and why.

Pictures are drawn as SVG: matplotlib writes each line of a text as a comment before its
glyphs, so what is drawn can be read back.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sevendag_cli.render.rich_sim import near_cap_share
from tests.helpers import ok, run

SHEETS = "play: both on their sheets"
BRANNOC = "play: Brannoc optimal, Ysolde on its sheet"


def drawn(svg: Path) -> list[str]:
    """Every text line the SVG draws, as its comments give them."""
    return re.findall(r"<!-- (.*?) -->", svg.read_text("utf-8"), flags=re.S)


@pytest.mark.slow
def test_plain_fight_exact_and_matrix_say_the_sheets_are_played() -> None:
    assert ok("fight", "--exact").splitlines()[1] == SHEETS
    assert ok("fight", "--exact", "--lang", "fr").splitlines()[1] == "jeu : les deux selon leur fiche"
    matrix = ok("matrix", "Brannoc", "Ysolde").splitlines()
    assert matrix[2] == "every fighter plays its sheet"
    assert "chaque combattant suit sa fiche" in ok("matrix", "Brannoc", "Ysolde", "--lang", "fr")


@pytest.mark.slow
def test_a_ruleset_without_choices_says_nothing_of_sheets() -> None:
    """d20 leaves no choice: every fighter plays its sheet whatever is asked; not said."""
    assert "play:" not in ok("fight", "--exact", "--ruleset", "d20")
    assert "sheet" not in ok("matrix", "A", "B", "--ruleset", "d20")


def test_runs_and_fight_odds_say_who_plays_how() -> None:
    assert SHEETS in ok("fight", "--runs", "200", "--seed", "1").splitlines()
    swing = ok("fight", "--odds", "--seed", "1", "--cap", "2")  # the fight as plain, then the chart
    assert SHEETS not in swing and "These odds assume each fighter keeps the sheet's tactic" in swing


@pytest.mark.slow
def test_sweep_under_optimal_play_says_so_in_its_header_and_picture() -> None:
    out = ok("sweep", "--vary", "Brannoc.attack=7,8", "--tactic", "Brannoc=optimal",
             "--plot", "s.svg").splitlines()
    assert out[0].startswith("Sweep of Brannoc.attack") and out[1] == BRANNOC
    lines = drawn(Path("s.svg"))
    assert BRANNOC in lines and any(x.startswith("Sweep of Brannoc.attack") for x in lines)
    french = ok("sweep", "--vary", "Brannoc.attack=7,8", "--tactic", "Brannoc=optimal",
                "--lang", "fr").splitlines()
    assert french[1] == "jeu : Brannoc au mieux, Ysolde selon sa fiche"


@pytest.mark.slow
def test_fight_exact_pictures_say_who_plays_how_and_differ() -> None:
    ok("fight", "--exact", "--plot", "sheets.svg")
    ok("fight", "--exact", "--tactic", "Brannoc=optimal", "--plot", "optimal.svg")
    sheets, optimal = drawn(Path("sheets.svg")), drawn(Path("optimal.svg"))
    assert SHEETS in sheets and BRANNOC not in sheets
    assert BRANNOC in optimal and SHEETS not in optimal


@pytest.mark.slow
def test_matrix_picture_says_the_sheets_are_played() -> None:
    ok("matrix", "Brannoc", "Ysolde", "--plot", "m.svg")
    assert "every fighter plays its sheet" in drawn(Path("m.svg"))


@pytest.mark.slow
def test_round_odds_under_optimal_play_say_so_on_their_line() -> None:
    ok("init", "--seed", "1")
    line = ok("round", "--odds", "--seed", "2", "--no-input", "--tactic", "optimal").splitlines()
    said = " ".join(" ".join(line[-3:]).split())
    assert "odds (Brannoc optimal, Ysolde optimal): Brannoc " in said
    ok("undo")
    plain = ok("round", "--odds", "--seed", "2", "--no-input").splitlines()[-1]
    assert plain.startswith("  odds: Brannoc ")


def test_near_cap_share_counts_the_last_tenth_and_the_draws_at_the_cap() -> None:
    histogram = [(1, 0.5), (150, 0.2), (181, 0.1), (200, 0.2)]  # the cap's round: draws too
    assert near_cap_share(histogram, 1.0, 200) == (181, pytest.approx(0.3))
    assert near_cap_share([(1, 90), (20, 10)], 100, 20) == (19, pytest.approx(0.1))


@pytest.mark.slow
def test_holding_out_toward_the_cap_is_explained_where_it_happens() -> None:
    """Brannoc optimal against Ysolde's sheet: some 6% of fights end in the last 20 rounds
    before the cap (Brannoc, far ahead, holds out on defence while Ysolde's sheet attacks
    into it, and strikes as the cap nears): said, and why; the sheets' fight says nothing."""
    out = " ".join(ok("fight", "--exact", "--tactic", "Brannoc=optimal").split())
    found = re.search(r"fights ending from round 181 to the round cap \(200\), draws included: "
                      r"(\d+\.\d)%", out)
    assert found and 5.0 <= float(found.group(1)) <= 7.0
    assert "why so late: optimal play values a win whenever it comes" in out
    assert "why so late" not in ok("fight", "--exact")
    french = " ".join(ok("fight", "--exact", "--tactic", "Brannoc=optimal", "--lang", "fr").split())
    assert "combats finis entre le round 181 et le plafond (200), nuls compris : 6,2 %" in french
    runs = " ".join(ok("fight", "--runs", "4000", "--seed", "1", "--tactic", "Brannoc=optimal").split())
    assert "fights ending from round 181 to the round cap (200)" in runs
    assert run("fight", "--exact", "--tactic", "optimal").stdout.count("why so late") == 0
