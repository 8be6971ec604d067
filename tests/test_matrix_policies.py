"""``matrix`` under policies and with ``--exploit``.

* ``--tactic optimal``: every cell is the fight ``fight i j --exact --tactic optimal`` solves
  (S-03..S-05 declared by the solved game, a draw counting half), within the tolerances;
  ``--tactic NAME=optimal`` changes that fighter's cells only;
* ``--exploit``: each cell's figure is ``fight i j --exact``'s ``exploitability`` of the row's
  fighter (the pair's game solved once, the first of the roster named first); a standing's is
  the mean over its row; d20 has no choices: every figure 0, said once;
* the JSON says each fighter's policy; ``--jobs 1`` and ``--jobs 2`` give the same table.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import pytest

import sevendag_cli.library as sd
from sevendag_cli.commands.schema import validator
from tests.helpers import assert_one_line_error, run, run_json

YRSA = """\
ruleset = "sevendag"
name = "Yrsa"
speed = 2
attack = 8
defence = 5
tactic = "weapons-attack"

[[hands]]
die = 8
holds = "greatsword"
[[hands]]
die = 8
holds = "greatsword"

[items.greatsword]
kind = "weapon"
label = "greatsword"
hands = 2
metal = "steel"
skill = 12
"""

CELL_TOL = 1e-8
"""A cell (tolerance 1e-9) against fight --exact (1e-12): both certified, so this close."""


def cells(doc: dict[str, Any]) -> list[tuple[int, int]]:
    n = len(doc["fighters"])
    return [(i, j) for i in range(n) for j in range(n) if i != j]


def valid(doc: dict[str, Any]) -> dict[str, Any]:
    validator("matrix").validate(doc)
    return doc


@pytest.fixture(scope="module")
def yrsa(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("sheets") / "yrsa.toml"
    path.write_text(YRSA, "utf-8")
    return str(path)


@pytest.fixture(scope="module")
def optimal_doc() -> dict[str, Any]:
    return valid(run_json("matrix", "Brannoc", "Ysolde", "--tactic", "optimal", "--exploit",
                          "--jobs", "1"))


@pytest.fixture(scope="module")
def one_optimal(yrsa: str) -> dict[str, Any]:
    return valid(run_json("matrix", "Brannoc", "Ysolde", yrsa, "--tactic", "Brannoc=optimal",
                          "--jobs", "1"))


@pytest.mark.slow
def test_every_fighter_optimal_cells_are_fight_exact_under_optimal_play(
        optimal_doc: dict[str, Any]) -> None:
    """S-03..S-05 under optimal play: cell [i][j] is ``fight i j --exact --tactic optimal``."""
    doc = optimal_doc
    names = doc["fighters"]
    assert doc["policies"] == {name: "optimal" for name in names}
    assert "every fighter plays optimally" in doc["note"]
    for i, j in cells(doc):
        e = sd.matchup(names[i], names[j], tactic="optimal").exact()
        assert e.policies == ("optimal", "optimal")
        fi, fj = e.result.fighters
        assert doc["win_probability"][i][j] == pytest.approx(fi.win_probability, abs=CELL_TOL)
        low, high = doc["bounds"][i][j]
        assert low - CELL_TOL <= fi.win_probability <= high + CELL_TOL
        assert doc["draw_probability"][i][j] == pytest.approx(e.result.draw_probability,
                                                              abs=CELL_TOL)
        assert 1 - doc["win_probability"][i][j] - doc["draw_probability"][i][j] == pytest.approx(
            fj.win_probability, abs=CELL_TOL)


@pytest.mark.slow
def test_optimal_play_ranks_differently_from_the_sheets(optimal_doc: dict[str, Any]) -> None:
    plain = valid(run_json("matrix", "Brannoc", "Ysolde", "--jobs", "1"))
    assert plain["policies"] == {"Brannoc": "sheet", "Ysolde": "sheet"}
    assert plain["exploitability"] is None
    assert "optimal" not in plain["note"]
    by_name = {n: r["mean"] for n, r in zip(plain["fighters"], plain["ranking"], strict=True)}
    assert by_name["Brannoc"] > by_name["Ysolde"]  # on their sheets Brannoc leads...
    assert optimal_doc["fighters"][0] == "Ysolde"  # ...optimally, Ysolde does


@pytest.mark.slow
def test_exploitability_per_cell_is_fight_exact_s_and_per_fighter_its_mean(
        optimal_doc: dict[str, Any]) -> None:
    """Cell [i][j]: what fighters[i]'s sheet gives away against fighters[j]'s optimal answer,
    as ``fight A B --exact`` reports it (A the first of the roster as given)."""
    doc = optimal_doc
    names = doc["fighters"]
    ex = doc["exploitability"]
    assert ex is not None and ex["tolerance"] == 1e-6
    given = [names[doc["order"].index(k)] for k in range(len(names))]  # as typed
    e = sd.matchup(given[0], given[1]).exact().exploitability
    assert e is not None and e.names == tuple(given)
    for k, (a, b) in enumerate(((given[0], given[1]), (given[1], given[0]))):
        i, j = names.index(a), names.index(b)
        assert ex["gives_away"][i][j] == pytest.approx(e.gives_away[k], abs=1e-12)
        assert ex["bounds"][i][j] == pytest.approx(list(e.bounds[k]), abs=1e-12)
        low, high = ex["bounds"][i][j]
        assert low <= ex["gives_away"][i][j] <= high and high - low <= 2e-6
        assert ex["gives_away"][i][j] > 0.1  # both house sheets give a lot away
    for i, standing in enumerate(ex["fighters"]):
        row = [x for x in ex["gives_away"][i] if x is not None]
        assert standing["name"] == names[i]
        assert standing["gives_away"] == pytest.approx(math.fsum(row) / len(row))
    assert ex["gives_away"][0][0] is None and ex["bounds"][1][1] is None


@pytest.mark.slow
def test_one_fighter_optimal_changes_only_its_own_cells(one_optimal: dict[str, Any]) -> None:
    doc = one_optimal
    plain = valid(run_json("matrix", "Brannoc", "Ysolde", str(Path(_sheet(doc, "Yrsa"))),
                           "--jobs", "1"))
    assert doc["policies"] == {"Brannoc": "optimal", "Ysolde": "sheet", "Yrsa": "sheet"}
    assert plain["policies"] == {"Brannoc": "sheet", "Ysolde": "sheet", "Yrsa": "sheet"}
    assert "Brannoc play(s) optimally" in doc["note"]

    def p(d: dict[str, Any], a: str, b: str) -> float:
        names = d["fighters"]
        return float(d["win_probability"][names.index(a)][names.index(b)])

    # the pair without Brannoc: the very same numbers
    assert p(doc, "Ysolde", "Yrsa") == p(plain, "Ysolde", "Yrsa")
    assert p(doc, "Yrsa", "Ysolde") == p(plain, "Yrsa", "Ysolde")
    # Brannoc's pairs: as fight --exact with Brannoc optimal, better for Brannoc than its sheet
    for other in ("Ysolde", "Yrsa"):
        assert p(doc, "Brannoc", other) > p(plain, "Brannoc", other) + 0.05
        assert p(doc, other, "Brannoc") < p(plain, other, "Brannoc") - 0.05
    e = sd.matchup("Ysolde", "Brannoc", tactic="Brannoc=optimal").exact()
    assert e.policies == ("sheet", "optimal")
    assert p(doc, "Ysolde", "Brannoc") == pytest.approx(e.result.fighters[0].win_probability,
                                                        abs=CELL_TOL)


def _sheet(doc: dict[str, Any], name: str) -> str:
    return str(doc["sheets"][doc["fighters"].index(name)])


@pytest.mark.slow
def test_jobs_1_and_2_give_the_same_table(one_optimal: dict[str, Any]) -> None:
    doc = one_optimal
    two = valid(run_json("matrix", "Brannoc", "Ysolde", _sheet(doc, "Yrsa"), "--tactic",
                         "Brannoc=optimal", "--jobs", "2"))
    for key in ("fighters", "order", "win_probability", "bounds", "draw_probability",
                "unresolved", "methods", "ranking", "policies", "exploitability", "note"):
        assert two[key] == doc[key], key


@pytest.mark.slow
def test_exploit_jobs_2_and_the_text_display(optimal_doc: dict[str, Any]) -> None:
    two = valid(run_json("matrix", "Brannoc", "Ysolde", "--tactic", "optimal", "--exploit",
                         "--jobs", "2"))
    assert two["exploitability"] == optimal_doc["exploitability"]
    assert two["win_probability"] == optimal_doc["win_probability"]
    result = run("matrix", "Brannoc", "Ysolde", "--exploit", "--jobs", "1")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    assert "What each sheet gives away against optimal play" in text
    ex = optimal_doc["exploitability"]
    names = optimal_doc["fighters"]
    shown = f"{100 * ex['gives_away'][names.index('Brannoc')][names.index('Ysolde')]:.1f}"
    assert shown in text
    assert "plays optimally" not in text  # the sheets played: no policy line


@pytest.mark.slow
def test_exploit_csv_has_its_columns_only_when_asked(optimal_doc: dict[str, Any]) -> None:
    result = run("matrix", "Brannoc", "Ysolde", "--exploit", "--csv", "--jobs", "1")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == 2
    ex = optimal_doc["exploitability"]
    names = optimal_doc["fighters"]
    for row in rows:
        i, j = names.index(row["row"]), names.index(row["column"])
        assert float(row["gives_away"]) == pytest.approx(ex["gives_away"][i][j], abs=1e-12)
        assert float(row["gives_away_low"]) <= float(row["gives_away"]) <= float(
            row["gives_away_high"])
    plain = run("matrix", "Brannoc", "Ysolde", "--csv", "--jobs", "1")
    assert "gives_away" not in plain.stdout.splitlines()[0]


@pytest.mark.slow
def test_d20_optimal_is_the_sheet_said_once_and_gives_nothing_away() -> None:
    result = run("matrix", "A", "B", "-r", "d20", "--tactic", "optimal", "--exploit", "--json",
                 "--jobs", "1")
    assert result.exit_code == 0, result.stderr
    import json

    doc = valid(json.loads(result.stdout))
    plain = valid(run_json("matrix", "A", "B", "-r", "d20", "--jobs", "1"))
    assert doc["policies"] == {"A": "sheet", "B": "sheet"}
    assert doc["win_probability"] == plain["win_probability"]
    assert result.stderr.count("optimal play is each sheet's own") == 1
    assert result.stderr.count("every figure is 0") == 1
    ex = doc["exploitability"]
    assert all(ex["gives_away"][i][j] == 0.0 and ex["bounds"][i][j] == [0.0, 0.0]
               for i, j in cells(doc))
    assert [f["gives_away"] for f in ex["fighters"]] == [0.0, 0.0]
    text = run("matrix", "A", "B", "-r", "d20", "--exploit", "--jobs", "1")
    assert text.exit_code == 0 and "gives away" not in text.stdout  # no table of zeros
    assert text.stderr.count("every figure is 0") == 1


def test_an_unknown_fighter_in_tactic_optimal_is_one_line() -> None:
    result = run("matrix", "A", "B", "-r", "d20", "--tactic", "Nobody=optimal", "--jobs", "1")
    assert_one_line_error(result, 2)


def test_the_roster_refuses_policies_that_do_not_fit() -> None:
    from sevendag_cli.errors import UsageError
    from sevendag_cli.sim.roster import play_roster

    m = sd.matchup("A", "B", "d20")
    rs, a, b = m.ruleset, m.a, m.b
    with pytest.raises(UsageError) as caught:
        play_roster(rs, [a, b], policies=("sheet",))
    assert caught.value.msg.key == "roster.policies"
    with pytest.raises(UsageError):
        play_roster(rs, [a, b], policies=("sheet", "best"))


def test_lineup_policies_and_notes() -> None:
    line = sd.Lineup.load(["Brannoc", "Ysolde"], tactic="Ysolde=optimal")
    assert line.asked == ("sheet", "optimal") and line.policies == ("sheet", "optimal")
    assert line.policy_notes == ()
    d20 = sd.Lineup.load(["A", "B"], "d20", tactic="optimal")
    assert d20.policies == ("sheet", "sheet")
    assert [m.key for m in d20.notes] == ["policy.no_choices"]


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_policy_line_and_the_exploit_table_fit_80_columns(lang: str) -> None:
    from rich.console import Console

    from sevendag_cli.render.rich_matrix import render_matrix

    roster = sd.matrix(["Brannoc", "Ysolde"], tactic="Ysolde=optimal", exploit=True,
                       jobs=1).roster
    console = Console(width=80, record=True, no_color=True, force_terminal=False)
    with console.capture() as captured:
        render_matrix(console, roster, lang)
    text = captured.get()
    assert max(len(line) for line in text.splitlines()) <= 80
    flat = " ".join(text.split())  # lines wrapped at 80 columns
    assert ("optimally (the best declaration each round): Ysolde; the others play their sheets"
            in flat if lang == "en" else "Ysolde ; les autres suivent leur fiche" in flat)
    assert text.count("mean" if lang == "en" else "moyenne") >= 2  # both tables


@pytest.mark.slow
def test_runs_play_the_policies_and_exploit_still_comes_from_the_exact_game(
        one_optimal: dict[str, Any], optimal_doc: dict[str, Any]) -> None:
    """``--runs`` with ``Brannoc=optimal``: each simulated fight declared by the game (within 4
    standard errors of the exact cell); ``--exploit`` there is the exact game's, not sampled."""
    runs = 300
    doc = valid(run_json("matrix", "Brannoc", "Ysolde", "--runs", str(runs), "--seed", "5",
                         "--tactic", "Brannoc=optimal", "--exploit", "--jobs", "1"))
    assert doc["method"] == "runs" and doc["policies"] == {"Brannoc": "optimal", "Ysolde": "sheet"}
    assert doc["exploitability"]["gives_away"] == _by_name(optimal_doc, doc)

    def p(d: dict[str, Any], a: str, b: str) -> float:
        names = d["fighters"]
        return float(d["win_probability"][names.index(a)][names.index(b)])

    for a, b in (("Brannoc", "Ysolde"), ("Ysolde", "Brannoc")):
        exact = p(one_optimal, a, b)
        assert abs(p(doc, a, b) - exact) <= 4 * math.sqrt(exact * (1 - exact) / runs), (a, b)


def _by_name(source: dict[str, Any], target: dict[str, Any]) -> list[list[float | None]]:
    """``source``'s exploitability grid in ``target``'s order of fighters."""
    names = source["fighters"]
    grid = source["exploitability"]["gives_away"]
    return [[grid[names.index(a)][names.index(b)] for b in target["fighters"]]
            for a in target["fighters"]]
