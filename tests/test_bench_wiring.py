"""The designer's bench on every command it serves: what-ifs (``--set``, ``--tactic``) on
``odds``, ``matrix`` and ``fight --odds``; ``--csv`` on ``matrix``, ``odds`` and ``fight --odds``;
``--plot`` on ``matrix`` (a heat map) and ``fight --odds`` (the swing).

* a what-if on ``odds`` gives what ``odds`` gives on an encounter started with the edited
  sheet, from the same state; the encounter file is not touched, and the solver's work it
  keeps (its own pair's) is never used for the changed pair;
* a what-if on ``matrix`` gives each cell ``fight --exact --set`` gives for that pair, in the
  workers too (any ``--jobs``); on ``fight --odds`` the first moment is ``fight --exact --set``;
* the CSV tables parse back with the csv module and hold the JSON's numbers;
* the pictures are valid PNG / SVG files; without matplotlib, ``--plot`` is one line;
* every JSON validates against the self-contained schema ``sevendag schema NAME`` prints.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from sevendag_cli.render.matrix_out import MATRIX_CSV_COLUMNS
from sevendag_cli.render.odds_out import ODDS_CSV_COLUMNS, SWING_CSV_COLUMNS
from tests.helpers import (
    ENCOUNTER,
    TWINBLADE,
    assert_one_line_error,
    assert_picture,
    edited_sheet,
    folder_state,
    ok,
    parse_csv,
    run,
    run_json,
    validate,
)


def close(fields: list[str], numbers: list[float]) -> bool:
    """CSV fields that read back as these numbers (to the rounding of a solver whose chain another
    question of the same process numbered otherwise: ``same_odds``)."""
    return len(fields) == len(numbers) and all(
        float(x) == pytest.approx(y, abs=1e-12) for x, y in zip(fields, numbers, strict=True))


# --- odds --set / --tactic --------------------------------------------------------------------------

# (ruleset, the pair, the what-ifs, the same sheets edited, judgements that move the state)
ODDS_CASES = [
    pytest.param("d20", ["A", "B"], ["--set", "A.weapon.damage=2d8", "--set", "B.ac=9"],
                 [("a", [("damage = \"1d6\"", "damage = \"2d8\"")]), ("b", [("ac = 5", "ac = 9")])],
                 [["wound", "A", "12"], ["wound", "B", "20"]], id="d20"),
    pytest.param("sevendag", ["Brannoc", "Ysolde"],
                 ["--set", "Ysolde.attack=10", "--tactic", "Brannoc=all-out"],
                 [("brannoc", [('tactic = "weapons-attack"', 'tactic = "all-out"')]),
                  ("ysolde", [("attack = 9", "attack = 10")])],
                 [["wound", "Brannoc", "light"], ["wound", "Ysolde", "17"]], id="sevendag"),
]


NUMBERS = ("fighters", "draw_probability", "draw_bounds", "unresolved", "note")


def same_odds(x: dict[str, Any], y: dict[str, Any]) -> None:
    """Two answers for the same state and pair: the same document, the numbers the same up to
    the rounding of sums taken in another order (a chain's states are numbered as first met, so
    the process's earlier questions change the order): their certified intervals meet."""
    assert {k: v for k, v in x.items() if k not in NUMBERS} == {k: v for k, v in y.items()
                                                                if k not in NUMBERS}
    for fx, fy in zip(x["fighters"], y["fighters"], strict=True):
        assert fx["name"] == fy["name"]
        assert fx["bounds"][0] <= fy["bounds"][1] and fy["bounds"][0] <= fx["bounds"][1]
        assert fx["win_probability"] == pytest.approx(fy["win_probability"], abs=1e-12)
    assert x["draw_probability"] == pytest.approx(y["draw_probability"], abs=1e-12)
    assert x["unresolved"] <= x["tolerance"] and y["unresolved"] <= y["tolerance"]


def _edited_pair(edits: list[tuple[str, list[tuple[str, str]]]]) -> list[str]:
    return [edited_sheet(stem, *swaps) for stem, swaps in edits]


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset", "pair", "what_ifs", "edits", "judgements"), ODDS_CASES)
def test_odds_what_if_is_odds_of_an_encounter_started_with_the_edited_sheets(
        tmp_path: Path, ruleset: str, pair: list[str], what_ifs: list[str],
        edits: list[tuple[str, list[tuple[str, str]]]], judgements: list[list[str]]) -> None:
    """The same initiative (the same seed; the changes touch neither D-02 nor S-02), the same
    judgements: the same state, so ``odds --set`` on the first is ``odds`` on the second —
    although the first keeps the solver's work of its own pair (``init --odds``): d20 round
    tables are recognised by the fighters' names alone, so using them would give the
    unchanged pair's odds.  The encounter file is not touched (bytes, mode, time, no lock)."""
    ok("init", *pair, "-r", ruleset, "--seed", "31", "--odds")
    assert list((Path(os.environ["SEVENDAG_CACHE"]) / "odds").glob("*.bin"))
    other = Path("edited.sevendag.json")
    ok("init", *_edited_pair(edits), "-r", ruleset, "--seed", "31", "-e", str(other))
    for judgement in judgements:
        ok(*judgement)
        ok(*judgement, "-e", str(other))
    os.chmod(ENCOUNTER, 0o640)
    for lock in tmp_path.glob("*.lock"):
        lock.unlink()
    before = folder_state(tmp_path)
    for tolerance in ([], ["--tolerance", "1e-9"]):
        by_set = run_json("odds", *what_ifs, *tolerance)
        validate("odds", by_set)
        by_file = run_json("odds", "-e", str(other), *tolerance)
        changes = by_set.pop("changes")
        assert {(c["fighter"], c["field"]) for c in changes} >= {
            (pair[0], "weapon.damage" if ruleset == "d20" else "tactic")}
        assert by_set.pop("encounter") == str(ENCOUNTER) and by_file.pop("encounter") == str(other)
        same_odds(by_set, by_file)
        assert by_set["fighters"] != run_json("odds", *tolerance)["fighters"]  # the change matters
    assert folder_state(tmp_path) == before
    assert stat.S_IMODE(ENCOUNTER.stat().st_mode) == 0o640


@pytest.mark.slow
def test_a_kept_sevendag_table_of_another_pair_is_ignored_by_the_solver() -> None:
    """S-04: the solver's own guard: a kept Sevendag table carries its pair's fingerprint (the
    fighters' models and constants), so handed a changed pair it is not used (the odds are those
    computed without it); d20 tables carry only the names, hence ``odds`` hands none over."""
    from sevendag_cli import solver_cache
    from sevendag_cli.commands.table import open_encounter
    from sevendag_cli.rules.whatif import WhatIf
    from sevendag_cli.sim.moment import OddsSolver

    ok("init", "--seed", "31", "--odds")
    enc, rs, a, b, state = open_encounter(ENCOUNTER)
    kept = solver_cache.load(solver_cache.pair_key(rs, a, b))
    assert kept is not None
    docs = [(a.path, enc.fighters[0]["data"]), (b.path, enc.fighters[1]["data"])]
    a2, b2, _ = WhatIf.parse(["Ysolde.attack=10"], ["Brannoc=all-out"]).load_pair(rs, docs)
    with_kept = OddsSolver(rs, a2, b2, kept=kept)(state)
    assert with_kept == OddsSolver(rs, a2, b2)(state)
    assert with_kept.win != OddsSolver(rs, a, b, kept=kept)(state).win


@pytest.mark.slow
def test_odds_what_ifs_are_shown_and_refused_in_one_line() -> None:
    ok("init", "-r", "d20", "--seed", "4")
    shown = ok("odds", "--set", "A.weapon.damage=2d8")
    assert shown.startswith("What-if: A.weapon.damage 2d8 (was 1d6)\n")
    assert "Hypothèse : A.weapon.damage 2d8 (au lieu de 1d6)" in ok("odds", "--set", "A.weapon.damage=2d8",
                                                                    "--lang", "fr")
    assert "changes" not in run_json("odds")  # without what-ifs, the document is as before
    for args, code, fragment in (
            (["--set", "A.name=Z"], 2, "--set A.name: the saved encounter names its fighters"),
            (["--set", "Zed.str=3"], 2, "no fighter 'Zed' in this fight: use A, B"),
            (["--set", "A.str=abc"], 2, "--set A.str=abc: str: expected a whole number"),
            (["--tactic", "A=all-out"], 2, "tactics are Sevendag's; this fight is d20"),
            (["--csv", "--json"], 2, "--csv and --json: choose one")):
        assert_one_line_error(run("odds", *args), code, fragment)


@pytest.mark.slow
def test_odds_say_which_changes_the_saved_state_has_settled() -> None:
    """D-12: the encounter keeps each fighter's hit points; S-02: the initiative was rolled at
    init.  Such a change is applied, said on stderr, and changes nothing."""
    ok("init", "-r", "d20", "--seed", "4")
    result = run("odds", "--set", "A.hp=90", "--json")
    assert result.exit_code == 0
    assert "A.hp: the odds start from the encounter as saved, hit points included" in result.stderr
    doc = json.loads(result.stdout)
    assert doc.pop("changes") == [{"fighter": "A", "field": "hp", "value": 90, "previous": 45}]
    assert doc == run_json("odds")
    ok("init", "--seed", "4", "--force")
    result = run("odds", "--set", "Brannoc.speed=12", "--lang", "fr")
    assert result.exit_code == 0
    assert "Brannoc.speed : l'initiative (S-02) a été tirée au début de la rencontre" in result.stderr


@pytest.mark.slow
def test_odds_what_if_names_the_second_of_a_mirror_as_the_encounter_does() -> None:
    ok("init", "brannoc", "brannoc", "--seed", "2")
    second = run_json("odds", "--set", "Brannoc (2).attack=10")
    first = run_json("odds", "--set", "brannoc.attack=10")
    assert second["changes"][0]["fighter"] == "Brannoc (2)" and first["changes"][0]["fighter"] == "Brannoc"
    assert second["fighters"][1]["win_probability"] > 0.5 > first["fighters"][1]["win_probability"]


# --- matrix --set / --tactic ------------------------------------------------------------------------


@pytest.mark.slow
def test_a_sevendag_matrix_cell_with_what_ifs_is_fight_exact_with_them() -> None:
    """S-02..S-18: each cell is the very push of ``fight --exact`` with the same what-ifs."""
    Path("twinblade.toml").write_text(TWINBLADE, "utf-8")
    what_ifs = ["--set", "Ysolde.attack=10", "--tactic", "Brannoc=all-out",
                "--set", "Twinblade.hands[1].die=8"]
    doc = run_json("matrix", "brannoc", "ysolde", "twinblade.toml", *what_ifs, "--tolerance", "1e-12",
                   "--jobs", "1")
    validate("matrix", doc)
    assert [(c["fighter"], c["field"]) for c in doc["changes"]] == [
        ("Ysolde", "attack"), ("Twinblade", "hands[1].die"), ("Brannoc", "tactic")]
    names = doc["fighters"]
    for i, j in ((i, j) for i in range(3) for j in range(3) if i != j):
        pair = [doc["sheets"][i], doc["sheets"][j]]
        mine = [w for k in range(0, len(what_ifs), 2) for w in what_ifs[k:k + 2]
                if what_ifs[k + 1].split(".")[0].split("=")[0] in (names[i], names[j])]
        fight = run_json("fight", *pair, "--exact", *mine)
        assert doc["win_probability"][i][j] == fight["fighters"][0]["win_probability"]
        assert doc["bounds"][i][j] == fight["fighters"][0]["bounds"]
        assert doc["draw_probability"][i][j] == fight["draw_probability"]
    assert run_json("matrix", "brannoc", "ysolde", "twinblade.toml", "--jobs", "1",
                    "--tolerance", "1e-12")["win_probability"] != doc["win_probability"]


@pytest.mark.slow
def test_a_d20_matrix_cell_with_what_ifs_is_fight_exact_with_them_in_every_worker() -> None:
    """D-02..D-12: the matrix's solver and fight --exact's push agree within their intervals;
    the mirror's second fighter is changed by its roster name, ``A (2)``; two workers give the
    same document as one (they get the changed fighters)."""
    args = ["a", "b", "a", "-r", "d20", "--set", "A (2).ac=9", "--set", "B.weapon.damage=1d10"]
    doc = run_json("matrix", *args, "--jobs", "1")
    validate("matrix", doc)
    assert doc["changes"] == [
        {"fighter": "A (2)", "field": "ac", "value": 9, "previous": 5},
        {"fighter": "B", "field": "weapon.damage", "value": "1d10", "previous": "1d8"}]
    assert run_json("matrix", *args, "--jobs", "2") == doc
    names = doc["fighters"]
    i, j = names.index("A (2)"), names.index("B")
    fight = run_json("fight", "a", "b", "-r", "d20", "--exact", "--set", "A.ac=9",
                     "--set", "B.weapon.damage=1d10")
    assert abs(doc["win_probability"][i][j] - fight["fighters"][0]["win_probability"]) <= 1e-9
    assert abs(doc["win_probability"][j][i] - fight["fighters"][1]["win_probability"]) <= 1e-9
    k = names.index("A")  # unchanged A against the changed B
    plain = run_json("fight", "a", "b", "-r", "d20", "--exact", "--set", "B.weapon.damage=1d10")
    assert abs(doc["win_probability"][k][j] - plain["fighters"][0]["win_probability"]) <= 1e-9


def test_matrix_what_ifs_are_shown_and_refused_in_one_line() -> None:
    shown = run("matrix", "a", "b", "-r", "d20", "--set", "A.armour=3", "--jobs", "1")
    assert shown.exit_code == 0
    assert shown.stdout.startswith("What-if: A.armour 3 (not in the sheet)\nRound-robin")
    assert "A's sheet states ac = 5, which comes before armour (D-05)" in shown.stderr
    assert "changes" not in run_json("matrix", "a", "b", "-r", "d20", "--jobs", "1")
    for args, fragment in (
            (["--set", "Zed.ac=9"], "--set Zed.ac=9: no fighter 'Zed' in this roster: use A, B"),
            (["--set", "B.ac=x"], "--set B.ac=x: ac: expected a whole number"),
            (["--tactic", "A=all-out"], "tactics are Sevendag's"),
            (["--csv", "--json"], "--csv and --json: choose one")):
        assert_one_line_error(run("matrix", "a", "b", "-r", "d20", "--jobs", "1", *args), 2, fragment)
    fr = run("matrix", "a", "b", "-r", "d20", "--set", "Zed.ac=9", "--lang", "fr")
    assert_one_line_error(fr, 2, "aucun combattant 'Zed' dans ce groupe")


# --- fight --odds --set -----------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset", "what_ifs", "limits"), [
    ("sevendag", ["--set", "Ysolde.attack=10", "--tactic", "Brannoc=all-out"], ["--cap", "30"]),
    ("d20", ["--set", "A.ac=9"], ["--cap", "40", "--tolerance", "1e-9"]),
])
def test_fight_odds_with_what_ifs_start_from_fight_exact_with_them(
        ruleset: str, what_ifs: list[str], limits: list[str]) -> None:
    doc = run_json("fight", "-r", ruleset, "--seed", "5", "--odds", *what_ifs, *limits)
    validate("fight", doc)
    exact = run_json("fight", "-r", ruleset, "--exact", *what_ifs, *limits)
    assert doc["changes"] == exact["changes"]
    first = doc["odds"][0]
    assert first["fighters"] == [{k: f[k] for k in ("name", "win_probability", "bounds")}
                                 for f in exact["fighters"]]
    assert (first["draw_probability"], first["unresolved"]) == (exact["draw_probability"],
                                                                exact["unresolved"])
    played = run_json("fight", "-r", ruleset, "--seed", "5", *what_ifs, *limits[:2])
    assert {k: v for k, v in doc.items() if k not in ("cap", "tolerance", "assumes", "odds")} == played
    lines = [json.loads(x) for x in ok("fight", "-r", ruleset, "--seed", "5", "--odds", "--jsonl",
                                       *what_ifs, *limits).splitlines()]
    for line in lines:
        validate("fight-event", line)
    assert lines[0]["type"] == "start" and lines[0]["changes"] == doc["changes"]
    shown = ok("fight", "-r", ruleset, "--seed", "5", "--odds", *what_ifs, *limits)
    assert shown.startswith("What-if: ")


# --- CSV --------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ["a", "b", "a", "-r", "d20", "--set", "A (2).ac=9"],
    ["brannoc", "ysolde", "--runs", "300", "--seed", "2"],
])
def test_matrix_csv_is_one_row_per_ordered_pair_in_ranking_order(args: list[str]) -> None:
    result = run("matrix", *args, "--jobs", "1", "--csv")
    assert result.exit_code == 0, result.stderr
    rows = parse_csv(result.stdout_bytes)
    doc = run_json("matrix", *args, "--jobs", "1")
    names, n = doc["fighters"], len(doc["fighters"])
    assert tuple(rows[0]) == MATRIX_CSV_COLUMNS and len(rows) == 1 + n * (n - 1)
    pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
    for row, (i, j) in zip(rows[1:], pairs, strict=True):
        assert row[:5] == [str(i + 1), names[i], str(j + 1), names[j], doc["methods"][i][j]]
        assert float(row[5]) == doc["win_probability"][i][j]
        assert [float(row[6]), float(row[7])] == doc["bounds"][i][j]
        assert float(row[8]) == doc["draw_probability"][i][j]
        assert float(row[9]) == doc["unresolved"][i][j]
    assert run("matrix", *args, "--jobs", "1", "--csv", "--lang", "fr").stdout_bytes == result.stdout_bytes
    if "--runs" in args:
        assert "seed 2 (--seed 2)" in result.stderr  # the seed that replays the simulated cells


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_odds_csv_is_each_fighter_then_the_draw(ruleset: str) -> None:
    ok("init", "-r", ruleset, "--seed", "8")
    ok("round", "--seed", "9", "--no-input")
    rows = parse_csv(run("odds", "--csv").stdout_bytes)
    doc = run_json("odds")
    assert tuple(rows[0]) == ODDS_CSV_COLUMNS and len(rows) == 4
    for row, f in zip(rows[1:3], doc["fighters"], strict=True):
        assert row[:3] == ["1", "win", f["name"]]
        assert close(row[3:], [f["win_probability"], *f["bounds"]])
    assert rows[3][:3] == ["1", "draw", ""]
    assert close(rows[3][3:], [doc["draw_probability"], *doc["draw_bounds"]])
    assert run("odds", "--csv", "--lang", "fr").stdout_bytes == run("odds", "--csv").stdout_bytes


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_fight_odds_csv_is_each_moment_s_fighters_then_the_draw(ruleset: str) -> None:
    args = ["fight", "-r", ruleset, "--seed", "5", "--odds", "--cap", "30"]
    result = run(*args, "--csv")
    assert result.exit_code == 0 and "seed 5 (--seed 5)" in result.stderr
    rows = parse_csv(result.stdout_bytes)
    doc = run_json(*args)
    assert tuple(rows[0]) == SWING_CSV_COLUMNS and len(rows) == 1 + 3 * len(doc["odds"])
    for k, p in enumerate(doc["odds"]):
        block = rows[1 + 3 * k:4 + 3 * k]
        assert [r[:4] for r in block] == [
            [str(p["round"]), p["moment"], "win", p["fighters"][0]["name"]],
            [str(p["round"]), p["moment"], "win", p["fighters"][1]["name"]],
            [str(p["round"]), p["moment"], "draw", ""]]
        for r, f in zip(block, p["fighters"], strict=False):
            assert close(r[4:], [f["win_probability"], *f["bounds"]])
        assert close(block[2][4:], [p["draw_probability"], p["draw_probability"],
                                    p["draw_probability"] + p["unresolved"]])
    assert run(*args, "--csv", "--lang", "fr").stdout_bytes == result.stdout_bytes
    assert_one_line_error(run(*args, "--csv", "--jsonl"), 2, "--csv and --jsonl: choose one")


# --- pictures -----------------------------------------------------------------------------------------

PLOTS = [
    ["matrix", "a", "b", "a", "-r", "d20", "--set", "A (2).ac=9", "--jobs", "1"],
    ["matrix", "brannoc", "ysolde", "--runs", "200", "--seed", "3", "--jobs", "1"],
    ["fight", "--seed", "5", "--odds"],
    ["fight", "-r", "d20", "--seed", "5", "--odds", "--set", "A.ac=9"],
]


@pytest.mark.slow
@pytest.mark.parametrize("args", PLOTS)
@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_matrix_and_swing_pictures_are_valid_files_of_some_size(args: list[str], suffix: str) -> None:
    path = Path(f"picture.{suffix}")
    for output in (["--json"], ["--csv"], []):  # the data stay on stdout, whatever they are
        result = run(*args, "--plot", str(path), *output)
        assert result.exit_code == 0, result.stderr
        assert result.stdout and f"plot written to {path}" in result.stderr
        if output == ["--json"]:
            json.loads(result.stdout)
        assert_picture(path, suffix)
        path.unlink()


@pytest.mark.slow
def test_a_matrix_with_simulated_cells_marks_them_in_the_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pairs beyond the exact solver (d20: more than 5,000 hit points a fighter) are simulated:
    their cells carry the display's ``~`` in the heat map too (the SVG keeps the labels as text)."""
    from sevendag_cli.sim import roster

    monkeypatch.setattr(roster, "FALLBACK_RUNS", 200)
    giant = ('ruleset = "d20"\nname = "{n}"\nstr = 12\ndex = 12\ncon = 10\nwis = 10\nbba = 2\n'
             'hp = {hp}\n\n[weapon]\nname = "dagger"\ndamage = "1d4"\n')
    Path("colossus.toml").write_text(giant.format(n="Colossus", hp=5001), "utf-8")
    Path("leviathan.toml").write_text(giant.format(n="Leviathan", hp=5000), "utf-8")
    args = ["colossus.toml", "leviathan.toml", "a", "--cap", "50", "--seed", "3", "--jobs", "1"]
    import matplotlib

    monkeypatch.setitem(matplotlib.rcParams, "svg.fonttype", "none")  # labels as <text>
    result = run("matrix", *args, "--plot", "heat.svg", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["method"] == "mixed"
    texts = ["".join(e.itertext()) for e in ET.fromstring(Path("heat.svg").read_bytes()).iter()
             if e.tag.endswith("text")]
    # Colossus's two pairs, both orders (Leviathan against A is exact)
    assert sum(re.fullmatch(r"~\d+", x.strip()) is not None for x in texts) == 4
    assert any("Leviathan" in x for x in texts) and any("simulated" in x for x in texts)


@pytest.mark.slow
def test_without_matplotlib_matrix_and_swing_plots_are_one_line_before_any_work(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # ``import matplotlib`` fails
    for args in PLOTS[:1] + PLOTS[2:3]:
        result = run(*args, "--plot", "x.png")
        assert_one_line_error(result, 2, "--plot needs matplotlib, which is not installed: "
                                         "pip install ")
        assert result.stdout == "" and not Path("x.png").exists()
    assert_one_line_error(run(*PLOTS[0], "--plot", "x.svg", "--lang", "fr"), 2, "--plot demande matplotlib")
    assert run(*PLOTS[0], "--csv").exit_code == 0  # nothing else needs it


@pytest.mark.parametrize(("args", "fragment"), [
    (["matrix", "a", "b", "-r", "d20", "--plot", "x.jpg"], "give a file name ending in .png or .svg"),
    (["fight", "--odds", "--plot", "x.pdf"], "give a file name ending in .png or .svg"),
    (["fight", "--odds", "--plot", "folder.svg"], "folder.svg: is a folder, not a file to write"),
])
def test_plot_misuse_is_one_line_before_any_work(args: list[str], fragment: str) -> None:
    Path("folder.svg").mkdir()
    result = run(*args)
    assert_one_line_error(result, 2, fragment)
    assert result.stdout == ""
