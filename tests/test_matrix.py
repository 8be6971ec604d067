"""``matrix``: a roster's round-robin.

The cells against ``fight --exact`` of each ordered pair, the two orders of a pair
against each other (p(i,j) + p(j,i) + draws = 1: the fight does not depend on who is
named first), the ranking, folders and what they skip, the bound, the same JSON for
any number of jobs, the schema, the fallback to simulation, Ctrl-C and a worker's
error as one line, and the display at 80 columns in both languages.  The pools stay
small (2 workers, a handful of pairs).
"""

from __future__ import annotations

import csv
import io
import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
from rich.console import Console

from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.sim.roster import EXACT, RUNS, Roster, RosterCell, Standing
from tests.helpers import (
    BRUTE,
    GOLDEN,
    KESTREL,
    TWINBLADE,
    assert_one_line_error,
    assert_picture,
    check_width,
    compare,
    run,
    run_json,
)

ROOT = Path(__file__).resolve().parent.parent


def d20_roster() -> list[str]:
    Path("kestrel.toml").write_text(KESTREL, "utf-8")
    Path("brute.toml").write_text(BRUTE, "utf-8")
    return ["a", "b", "kestrel.toml", "brute.toml"]


def small_d20(name: str, hp: int) -> str:
    return (f'ruleset = "d20"\nname = "{name}"\nstr = 12\ndex = 12\ncon = 10\nwis = 10\nbba = 2\n'
            f'hp = {hp}\n\n[weapon]\nname = "dagger"\ndamage = "1d4"\n')


def matrix(*args: str) -> Any:
    return run_json("matrix", *args)


def cells(doc: Any) -> list[tuple[int, int]]:
    n = len(doc["fighters"])
    return [(i, j) for i in range(n) for j in range(n) if i != j]


# --- the cells -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_d20_cells_agree_with_fight_exact_within_their_intervals() -> None:
    """d20: the matrix's DAG and fight --exact's push are two certified computations of the
    same number (D-02..D-12): their intervals meet, and the values agree to the tolerance."""
    doc = matrix(*d20_roster()[:3], "--jobs", "1")
    assert doc["method"] == EXACT and doc["tolerance"] == 1e-9
    sheets = doc["sheets"]
    for i, j in cells(doc):
        fight = run_json("fight", sheets[i], sheets[j], "--exact")
        first = fight["fighters"][0]
        assert first["name"] == doc["fighters"][i]
        low, high = doc["bounds"][i][j]
        assert low == doc["win_probability"][i][j] <= high
        assert max(low, first["bounds"][0]) <= min(high, first["bounds"][1]), (i, j)
        assert abs(low - first["win_probability"]) <= 1e-9
        assert doc["methods"][i][j] == EXACT


@pytest.mark.slow
def test_sevendag_cells_are_fight_exact_s_numbers() -> None:
    """Sevendag: the same push from the same starts (S-02) as fight --exact: the same floats
    for the order solved, the other order (the same fight, each fighter's odds swapped) to
    the last bits."""
    Path("twinblade.toml").write_text(TWINBLADE, "utf-8")
    doc = matrix("brannoc", "ysolde", "twinblade.toml", "--tolerance", "1e-12", "--jobs", "1")
    same = 0
    for i, j in cells(doc):
        fight = run_json("fight", doc["sheets"][i], doc["sheets"][j], "--exact")
        same += doc["win_probability"][i][j] == fight["fighters"][0]["win_probability"]
        close = pytest.approx(fight["fighters"][0]["win_probability"], rel=0, abs=1e-15)
        assert doc["win_probability"][i][j] == close
        assert doc["bounds"][i][j] == pytest.approx(fight["fighters"][0]["bounds"], abs=1e-15)
        assert doc["draw_probability"][i][j] == pytest.approx(fight["draw_probability"],
                                                              abs=1e-15)
        assert doc["unresolved"][i][j] == pytest.approx(fight["unresolved"], abs=1e-15)
    assert same >= 3  # one order of each pair


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    ["a", "b", "kestrel.toml", "brute.toml", "--ruleset", "d20"],
    ["a", "b", "kestrel.toml", "brute.toml", "--cap", "3"],  # mostly draws: the push at the cap
    ["brannoc", "ysolde", "twinblade.toml"],
    ["brannoc", "ysolde", "twinblade.toml", "--cap", "2"],
    ["a", "b", "kestrel.toml", "--runs", "400", "--seed", "5"],
])
def test_the_two_orders_of_a_pair_and_the_draws_sum_to_one(args: list[str]) -> None:
    """p(i,j) + p(j,i) + draws = 1: each from its own fight (i named first, then j), so this
    checks that naming a fighter first changes nothing (D-02, S-02) and the mirrored tables."""
    d20_roster()
    Path("twinblade.toml").write_text(TWINBLADE, "utf-8")
    doc = matrix(*args, "--jobs", "1")
    if "--cap" in args:
        assert max(doc["draw_probability"][0][1:]) > 0.01  # the draws matter here
    p, draw, unresolved = doc["win_probability"], doc["draw_probability"], doc["unresolved"]
    for i, j in cells(doc):
        if doc["methods"][i][j] == RUNS:  # simulated: each order is its own sample
            assert abs(p[i][j] + p[j][i] + draw[i][j] - 1) < 0.1
            continue
        slack = unresolved[i][j] + unresolved[j][i] + 1e-14
        assert abs(p[i][j] + p[j][i] + draw[i][j] - 1) <= slack, (i, j)
        assert abs(draw[i][j] - draw[j][i]) <= slack


@pytest.mark.slow
def test_the_rows_are_ranked_by_their_mean() -> None:
    doc = matrix(*d20_roster(), "--jobs", "1")
    names = doc["fighters"]
    given = ["A", "B", "Kestrel", "Brute"]
    assert sorted(doc["order"]) == [0, 1, 2, 3]
    assert [given[k] for k in doc["order"]] == names
    means = []
    for i, entry in enumerate(doc["ranking"]):
        row = [x for x in doc["win_probability"][i] if x is not None]
        assert doc["win_probability"][i][i] is None
        assert entry == {"rank": i + 1, "name": names[i], "mean": pytest.approx(sum(row) / 3),
                         "mean_bounds": entry["mean_bounds"]}
        low, high = entry["mean_bounds"]
        assert low == pytest.approx(entry["mean"]) and high >= low
        means.append(entry["mean"])
    assert means == sorted(means, reverse=True) and means[0] > means[-1]
    # the columns follow the rows: the cell of Kestrel against A is Kestrel's fight against A
    k, a = names.index("Kestrel"), names.index("A")
    fight = run_json("fight", "kestrel.toml", "a", "--exact")
    assert doc["win_probability"][k][a] == pytest.approx(fight["fighters"][0]["win_probability"],
                                                         abs=1e-9)


def test_the_same_sheet_twice_is_a_mirror_match() -> None:
    doc = matrix("a", "b", "a", "--jobs", "1")
    assert sorted(doc["fighters"]) == ["A", "A (2)", "B"]
    i, j = doc["fighters"].index("A"), doc["fighters"].index("A (2)")
    assert doc["win_probability"][i][j] == pytest.approx(0.5, abs=1e-9)


# --- folders, bounds, errors ------------------------------------------------------------------------


def test_a_folder_of_sheets_skips_the_other_ruleset_and_what_is_not_a_sheet() -> None:
    folder = Path("roster")
    folder.mkdir()
    (folder / "kestrel.toml").write_text(KESTREL, "utf-8")
    (folder / "brute.toml").write_text(BRUTE, "utf-8")
    (folder / "twinblade.toml").write_text(TWINBLADE, "utf-8")  # Sevendag: skipped
    (folder / "house.toml").write_text('engine = "d20"\nname = "house"\n', "utf-8")  # a ruleset
    (folder / "notes.txt").write_text("not a sheet", "utf-8")  # not .toml: not looked at
    (folder / "sub.toml").mkdir()  # a folder: not a regular file
    result = run("matrix", "roster", "a", "--jobs", "1", "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert sorted(doc["fighters"]) == ["A", "Brute", "Kestrel"]
    assert doc["ruleset"] == "d20"  # from the first sheet found (brute.toml)
    assert doc["skipped"] == [{"file": str(Path("roster/house.toml")), "ruleset": None},
                              {"file": str(Path("roster/twinblade.toml")), "ruleset": "sevendag"}]
    note = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(note) == 1 and "twinblade.toml (sevendag)" in note[0] and "house.toml" in note[0]


def test_a_skipped_file_s_control_characters_are_made_visible() -> None:
    Path("roster").mkdir()
    Path("roster/kestrel.toml").write_text(KESTREL, "utf-8")
    Path("roster/brute.toml").write_text(BRUTE, "utf-8")
    Path("roster/ev\x1bil.toml").write_text(TWINBLADE, "utf-8")
    result = run("matrix", "roster", "--jobs", "1")
    assert result.exit_code == 0 and "\x1b" not in result.stderr
    assert "ev\\x1bil.toml (sevendag)" in result.stderr


def test_a_sheet_of_another_ruleset_named_on_its_own_is_one_line() -> None:
    Path("twinblade.toml").write_text(TWINBLADE, "utf-8")
    assert_one_line_error(run("matrix", "a", "b", "twinblade.toml", "--jobs", "1"), 1, "sevendag")


def test_more_fighters_than_the_bound_are_refused_before_any_fight() -> None:
    folder = Path("crowd")
    folder.mkdir()
    for k in range(41):
        (folder / f"f{k:02}.toml").write_text(small_d20(f"F{k}", 5), "utf-8")
    assert_one_line_error(run("matrix", "crowd", "--jobs", "1"), 2, "from 2 to 40 fighters, not 41")
    assert_one_line_error(run("matrix", "crowd", "--lang", "fr"), 2, "de 2 à 40 combattants")


@pytest.mark.parametrize(("args", "code", "fragment"), [
    (["a"], 2, "not 1"),
    (["nobody", "a"], 2, "nobody"),
    (["a", "b", "--jobs", "0"], 2, "--jobs 0"),
    (["a", "b", "--runs", "0"], 2, "--runs 0"),
    (["a", "b", "--runs", "10", "--tolerance", "1e-6"], 2, "--tolerance"),
    (["a", "b", "--tolerance", "2"], 2, "--tolerance 2"),
    (["a", "b", "--cap", "0"], 2, "--cap 0"),
    (["a", "b", "--seed", "-1"], 2, "seed"),
])
def test_mistakes_are_one_line(args: list[str], code: int, fragment: str) -> None:
    assert_one_line_error(run("matrix", *args, "--ruleset", "d20"), code, fragment)


def test_a_broken_sheet_in_a_folder_is_one_line() -> None:
    Path("roster").mkdir()
    Path("roster/bad.toml").write_text("ruleset = [", "utf-8")
    assert_one_line_error(run("matrix", "roster", "a", "b"), 1, "bad.toml")


@pytest.mark.slow
def test_a_worker_s_error_is_one_line() -> None:
    """An error raised while solving (here the engine refusing a sheet's allocation, S-04, when
    the fighter's model is built) comes back from the worker as one line, not a traceback."""
    bad = (TWINBLADE.replace('name = "Twinblade"', 'name = "Bad"')
           .replace("defence = 5\n", 'defence = 5\nallocation = ["attack", "attack"]\n')
           .replace('[items.dagger]\nkind = "weapon"', '[items.dagger]\nkind = "shield"'))
    Path("bad.toml").write_text(bad, "utf-8")
    for jobs in ("1", "2"):
        result = run("matrix", "brannoc", "ysolde", "bad.toml", "--jobs", jobs)
        assert_one_line_error(result, 1, "shield")


# --- processes ------------------------------------------------------------------------------------


@pytest.mark.slow
def test_one_job_and_two_give_the_same_json() -> None:
    args = [*d20_roster(), "--json"]
    one = run("matrix", *args, "--jobs", "1")
    two = run("matrix", *args, "--jobs", "2")
    assert one.exit_code == two.exit_code == 0
    assert one.stdout == two.stdout
    runs = ["a", "b", "kestrel.toml", "--runs", "300", "--seed", "9", "--json"]
    assert run("matrix", *runs, "--jobs", "1").stdout == run("matrix", *runs, "--jobs", "2").stdout


@pytest.mark.slow
def test_simulated_cells_have_their_own_seeds() -> None:
    """A matchup's seed comes from the table's seed and the two names: the same cell whatever
    else is in the roster."""
    d20_roster()
    small = matrix("a", "b", "--runs", "300", "--seed", "4", "--jobs", "1")
    large = matrix("kestrel.toml", "a", "b", "--runs", "300", "--seed", "4", "--jobs", "1")
    assert small["seed"] == large["seed"] == 4 and small["method"] == large["method"] == RUNS
    ia, ib = small["fighters"].index("A"), small["fighters"].index("B")
    ja, jb = large["fighters"].index("A"), large["fighters"].index("B")
    assert small["win_probability"][ia][ib] == large["win_probability"][ja][jb]
    assert small["win_probability"][ia][ib] != small["win_probability"][ib][ia]


def sevendag_roster() -> Path:
    """The benchmark's six Sevendag sheets, a roster long enough to interrupt (``./sevendag``)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from bench_matrix import write_rosters
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return write_rosters(Path("."))[1]


@pytest.mark.slow
def test_workers_end_when_the_parent_is_killed() -> None:
    """SIGKILL of the parent (no handler runs) leaves no worker behind: each sees its parent
    gone within ORPHAN_CHECK and ends, instead of finishing its solve and waiting for ever."""
    from sevendag_cli.sim.roster import ORPHAN_CHECK

    folder = sevendag_roster()
    child = subprocess.Popen([sys.executable, "-m", "sevendag_cli", "matrix", str(folder), "--jobs", "2"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        deadline = time.monotonic() + 60
        workers: list[str] = []
        while len(workers) < 2 and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.05)
            workers = subprocess.run(["pgrep", "-P", str(child.pid)], capture_output=True,
                                     text=True).stdout.split()
        assert len(workers) == 2, "the pool never started"
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        deadline = time.monotonic() + 20 * ORPHAN_CHECK + 10
        left = workers
        while left and time.monotonic() < deadline:
            time.sleep(0.1)
            left = subprocess.run(["pgrep", "-s", str(child.pid)], capture_output=True,
                                  text=True).stdout.split()
        assert left == []
    finally:  # a failed test leaves no process behind
        subprocess.run(["pkill", "-KILL", "-s", str(child.pid)], capture_output=True)
        if child.poll() is None:
            child.kill()
            child.wait()


def test_ctrl_c_while_the_pool_is_waited_on_is_a_flag_not_an_exception() -> None:
    """A KeyboardInterrupt raised inside concurrent.futures.wait can leave a future's lock held,
    and the executor's shutdown then waits for ever: while the pool runs, Ctrl-C only sets a
    flag, and the handler before it is back afterwards."""
    from sevendag_cli.sim.roster import _sigint_as_flag

    before = signal.getsignal(signal.SIGINT)
    with _sigint_as_flag() as interrupted:
        assert not interrupted()
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler runs between two bytecodes of the main thread
        assert interrupted()
    assert signal.getsignal(signal.SIGINT) is before


@pytest.mark.slow
@pytest.mark.parametrize("presses", [1, 2])
def test_ctrl_c_stops_the_workers_with_one_line(presses: int) -> None:
    """Ctrl-C at a terminal reaches the whole process group, workers included: exit 130, one
    line, no worker's traceback, no worker left behind; pressed again while the workers are
    being stopped, the same."""
    import pty

    folder = sevendag_roster()
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    child = subprocess.Popen([sys.executable, "-m", "sevendag_cli", "matrix", str(folder), "--jobs", "2"],
                             stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                             env={**env, "PYTHONPATH": str(ROOT)})
    os.close(slave)
    try:
        seen = b""
        deadline = time.monotonic() + 60
        while b"matchups" not in seen and time.monotonic() < deadline:  # the progress bar: pool started
            if select.select([master], [], [], 0.1)[0]:
                seen += os.read(master, 4096)
        assert b"matchups" in seen
        for press in range(presses):
            if press:
                time.sleep(0.02)
            os.killpg(child.pid, signal.SIGINT)
        deadline = time.monotonic() + 60
        while child.poll() is None and time.monotonic() < deadline:  # drain: a full pty blocks it
            if select.select([master], [], [], 0.1)[0]:
                try:
                    seen += os.read(master, 4096)
                except OSError:
                    break
        assert child.wait(timeout=max(0.0, deadline - time.monotonic())) == 130
    finally:  # a failed test leaves no process behind
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
    while select.select([master], [], [], 0.3)[0]:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    text = seen.decode("utf-8", "replace")
    assert "Traceback" not in text and "KeyboardInterrupt" not in text
    assert text.count("sevendag: error: ") == 1 and "interrupted after" in text
    leftover = subprocess.run(["pgrep", "-s", str(child.pid)], capture_output=True, text=True)
    assert leftover.stdout.strip() == ""


# --- exact, simulated, mixed: the JSON against its schema ---------------------------------------


def schema() -> Any:
    result = run("schema", "matrix")
    assert result.exit_code == 0
    return json.loads(result.stdout)


@pytest.mark.slow
def test_exact_and_simulated_documents_match_the_schema() -> None:
    validator = jsonschema.Draft202012Validator(schema())
    exact = matrix(*d20_roster(), "--jobs", "1")
    runs = matrix("a", "b", "brute.toml", "--runs", "300", "--seed", "2", "--jobs", "1")
    sev = matrix("brannoc", "ysolde", "brannoc", "--jobs", "1", "--lang", "fr")
    for doc in (exact, runs, sev):
        validator.validate(doc)
    assert exact["seed"] is None and exact["runs"] is None and exact["skipped"] == []
    assert runs["tolerance"] is None and runs["runs"] == 300
    assert all(e["mean_bounds"] is None for e in runs["ranking"])
    assert "P(la ligne bat la colonne)" in sev["note"]
    for key, bad in (("methods", [[None, "guess"], ["exact", None]]),
                     ("win_probability", [[None, 1.5], [0.2, None]]),
                     ("bounds", [[None, [0.1]], [[0.1, 0.2], None]]),
                     ("method", "guess")):
        assert not validator.is_valid(dict(exact, **{key: bad})), key


@pytest.mark.slow
def test_a_pair_too_large_for_exact_odds_is_simulated(monkeypatch: pytest.MonkeyPatch) -> None:
    """Beyond the exact solvers' limits (here the d20 solver's 5,000 hit points a fighter),
    the pairs are simulated and say why; the table is 'mixed', the other pairs exact (5,000 hit
    points against 45 included, the cap of 50 computed)."""
    from sevendag_cli.sim import roster

    monkeypatch.setattr(roster, "FALLBACK_RUNS", 300)  # the test's budget, not 100,000
    giant = small_d20("Colossus", 5001)
    Path("colossus.toml").write_text(giant, "utf-8")
    Path("leviathan.toml").write_text(giant.replace("Colossus", "Leviathan")
                                      .replace("hp = 5001", "hp = 5000"), "utf-8")
    args = ["colossus.toml", "leviathan.toml", "a", "--cap", "50", "--seed", "3", "--jobs", "1"]
    result = run("matrix", *args, "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    jsonschema.Draft202012Validator(schema()).validate(doc)
    assert doc["method"] == "mixed" and doc["seed"] == 3 and doc["runs"] == 300
    c, v = doc["fighters"].index("Colossus"), doc["fighters"].index("Leviathan")
    a = doc["fighters"].index("A")
    assert doc["methods"][c][v] == doc["methods"][v][c] == RUNS  # Colossus's pairs: simulated
    assert doc["methods"][c][a] == doc["methods"][a][c] == RUNS
    assert doc["methods"][v][a] == doc["methods"][a][v] == "exact"  # 5,000 HP: still exact
    assert sum(m == RUNS for row in doc["methods"] for m in row if m) == 4
    assert "simulated with 300 fights" in doc["note"]
    shown = run("matrix", *args)
    assert "~" in shown.stdout and "5,000 hit points" in shown.stdout


# --- the display ------------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_golden_matrix_at_80_columns(lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    args = ["matrix", *d20_roster(), "--jobs", "1"]
    result = run(*args, "--lang", lang)
    assert result.exit_code == 0, result.stderr
    text = f"$ sevendag {' '.join(args)}\n{result.stdout}"
    check_width(text, 80)
    compare(text, GOLDEN / f"d20-matrix.{lang}.txt")


def synthetic(names: list[str], method: str = EXACT) -> Roster:
    """A roster record to draw (no fight is solved): row i beats column j with (n - i + j) / 2n."""
    n = len(names)

    def cell(i: int, j: int) -> RosterCell | None:
        if i == j:
            return None
        p = (n - i + j) / (2 * n)
        return RosterCell(method, p, (p, p + 1e-12), 1 - p, 0.0, 1e-12)

    return Roster("d20", "d20", method, 1000, 1e-9, None, None,
                  tuple(Standing(name, f"{name}.toml", 0.5, None) for name in names),
                  tuple(tuple(cell(i, j) for j in range(n)) for i in range(n)), tuple(range(n)))


def draw(roster: Roster, width: int, lang: str = "en") -> str:
    from sevendag_cli.render.rich_matrix import render_matrix

    console = Console(width=width, record=True, no_color=True, force_terminal=False)
    with console.capture() as captured:
        render_matrix(console, roster, lang)
    return captured.get()


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_eight_fighters_with_long_names_fit_80_columns(lang: str) -> None:
    names = [f"Sir Reginald the {k}th of the Marches" for k in range(8)]
    text = draw(synthetic(names), 80, lang)
    check_width(text, 80)
    lines = text.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("1 "))
    assert header.split()[:8] == [str(k) for k in range(1, 9)]  # headed by the ranks
    legend = [line for line in lines if line.startswith(("1: ", "1 : "))]
    assert legend and names[0] in legend[0]  # a name cut short is given in full


def test_a_large_roster_is_drawn_in_blocks_that_fit() -> None:
    names = [f"F{k}" for k in range(30)]
    for width in (80, 60):
        text = draw(synthetic(names), width)
        check_width(text, width)
    heads = [line for line in text.splitlines() if line.split()[:1] == ["1"] and "·" not in line]
    assert len(heads) > 1  # more than one block of columns
    assert sum(line.endswith("mean") for line in text.splitlines()) == 1  # in the last block only


def test_short_names_head_their_columns_and_colour_shows_with_a_terminal(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR")
    roster = synthetic(["Ann", "Bo", "Cy"])
    text = draw(roster, 80)
    assert any(line.split() == ["Ann", "Bo", "Cy", "mean"] for line in text.splitlines())
    console = Console(width=80, force_terminal=True, color_system="truecolor")
    from sevendag_cli.render.rich_matrix import render_matrix

    with console.capture() as captured:
        render_matrix(console, roster, "en")
    assert "\x1b[" in captured.get() and "48;2;" in captured.get()  # cells have backgrounds


# --- a pair beyond the bounds even to simulate: not computed, the rest kept --------------------


def small_sevendag(name: str, attack: int, defence: int, die: int) -> str:
    """A one-handed Sevendag fighter whose games under optimal play are small (a fraction of a
    second at a cap of a few rounds)."""
    return (f'ruleset = "sevendag"\nname = "{name}"\nspeed = 3\nattack = {attack}\n'
            f'defence = {defence}\n[[hands]]\ndie = {die}\nholds = "knife"\n'
            f'[items.knife]\nkind = "weapon"\nmetal = "iron"\nskill = 14\n')


def four_handed(name: str, speed: int, attack: int) -> str:
    """Four d12 hands: optimal play's game against anyone is beyond the game's bound, refused
    by its size estimate at once (game.size)."""
    hands = "".join(f'[[hands]]\ndie = 12\nholds = "w{k}"\n' for k in range(1, 5))
    items = "".join(f'[items.w{k}]\nkind = "weapon"\nmetal = "{metal}"\nskill = 14\n'
                    for k, metal in enumerate(("iron", "steel", "bronze", "iron"), 1))
    return (f'ruleset = "sevendag"\nname = "{name}"\nspeed = {speed}\nattack = {attack}\n'
            f'defence = 6\n{hands}{items}')


def holes_roster() -> list[str]:
    """Imp and Pip (solved), Quad and Quint (four-handed: every pair of theirs refused)."""
    for stem, text in (("imp", small_sevendag("Imp", 12, 2, 6)),
                       ("pip", small_sevendag("Pip", 11, 3, 8)),
                       ("quad", four_handed("Quad", 3, 8)), ("quint", four_handed("Quint", 2, 9))):
        Path(f"{stem}.toml").write_text(text, "utf-8")
    return ["imp.toml", "pip.toml", "quad.toml", "quint.toml", "--tactic", "optimal",
            "--cap", "4", "--jobs", "1"]


@pytest.fixture
def holes(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """:func:`holes_roster`'s arguments, with one user cache for the tests that use it: Imp
    against Pip is solved once (its game, a few tenths of a second), a hole is never kept, so
    each test still meets every refusal."""
    monkeypatch.setenv("SEVENDAG_CACHE", str(tmp_path_factory.getbasetemp() / "holes_cache"))
    return holes_roster()


def hole_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "not computed (both orders)" in line]


def test_a_pair_too_large_even_to_simulate_is_not_computed_and_the_rest_is_kept(holes: list[str]) -> None:
    """Optimal play simulated needs the very game its exact solve was refused: the pair is left
    out (both orders, null numbers, its refusal as why), exit 0, the other cells as they were,
    each mean over the cells computed, a fighter with none ranked last with a null mean."""
    from sevendag_cli.sim.roster import NOT_COMPUTED, PARTIAL

    result = run("matrix", *holes, "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    jsonschema.Draft202012Validator(schema()).validate(doc)
    assert doc["method"] == PARTIAL and doc["tolerance"] == 1e-9
    assert doc["fighters"][2:] == ["Quad", "Quint"]  # no mean: last, as given
    assert [e["mean"] for e in doc["ranking"][2:]] == [None, None]
    pi, ii = doc["fighters"].index("Pip"), doc["fighters"].index("Imp")
    for i, j in cells(doc):
        if {i, j} == {pi, ii}:
            assert doc["methods"][i][j] == EXACT and doc["why"][i][j] is None
            assert 0 < doc["win_probability"][i][j] < 0.2
            continue
        assert doc["methods"][i][j] == NOT_COMPUTED
        for grid in ("win_probability", "bounds", "draw_probability", "unresolved"):
            assert doc[grid][i][j] is None, (grid, i, j)
        why = doc["why"][i][j]
        assert why["key"] == "game.size" and "over the limit of" in why["message"]
    for i, j in ((pi, ii), (ii, pi)):  # the mean over the one cell computed, not certified
        entry = doc["ranking"][i]
        assert entry["mean"] == doc["win_probability"][i][j] and entry["mean_bounds"] is None
    # the cell computed is the one a table without the four-handed sheets computes
    alone = matrix("imp.toml", "pip.toml", "--tactic", "optimal", "--cap", "4", "--jobs", "1")
    a, b = alone["fighters"].index("Pip"), alone["fighters"].index("Imp")
    assert alone["win_probability"][a][b] == doc["win_probability"][pi][ii]
    notes = hole_lines(result.stderr)  # once per pair: 5 of the 6
    assert len(notes) == 5 and len(set(notes)) == 5
    assert any(line.startswith("sevendag: Quad against Quint not computed") for line in notes)
    assert "Quad against Quint not computed" in doc["note"]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_display_marks_the_holes_and_the_partial_means_at_80_columns(
        lang: str, monkeypatch: pytest.MonkeyPatch, holes: list[str]) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = run("matrix", *holes, "--lang", lang)
    assert result.exit_code == 0, result.stderr
    check_width(result.stdout, 80)
    mark = {"en": "n/a", "fr": "n.c."}[lang]
    rows = {line.split()[1]: line.split()[2:] for line in result.stdout.splitlines()
            if line.split()[:2] in (["1", "Pip"], ["2", "Imp"], ["3", "Quad"], ["4", "Quint"])}
    assert rows["Quad"] == ["n/a" if lang == "en" else "n.c."] * 2 + ["·", mark, mark]
    assert rows["Pip"][2:4] == [mark, mark] and rows["Pip"][-1].endswith("*")
    assert f"{mark}{' ' if lang == 'fr' else ''}: " in result.stdout  # the line under the table
    notes = [line for line in result.stderr.splitlines() if "Quad" in line and "Quint" in line]
    words = {"en": "not computed (both orders)", "fr": "non calculé (dans les deux ordres)"}
    assert len(notes) == 1 and words[lang] in notes[0]
    assert len([line for line in result.stderr.splitlines() if words[lang] in line]) == 5


def test_the_csv_keeps_the_rows_not_computed_with_empty_numbers_and_the_reason(holes: list[str]) -> None:
    result = run("matrix", *holes, "--csv")
    assert result.exit_code == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == 12 and list(rows[0])[-2:] == ["why_key", "why"]
    missing = [r for r in rows if r["method"] == "not_computed"]
    assert len(missing) == 10
    for r in missing:
        assert r["win_probability"] == r["low"] == r["high"] == r["draw_probability"] == ""
        assert r["unresolved"] == "" and r["why_key"] == "game.size" and "MB" in r["why"]
    kept = [r for r in rows if r["method"] == EXACT]
    assert len(kept) == 2 and all(r["why_key"] == r["why"] == "" for r in kept)
    assert float(kept[0]["win_probability"]) > 0
    assert len(hole_lines(result.stderr)) == 5


def test_a_table_with_no_cell_computed_is_refused_in_one_line() -> None:
    holes_roster()
    result = run("matrix", "quad.toml", "quint.toml", "--tactic", "optimal", "--jobs", "1")
    assert_one_line_error(result, 2, "Quad against Quint has up to")


def test_the_library_returns_the_partial_roster(holes: list[str]) -> None:
    import sevendag_cli.library as sd
    from sevendag_cli.sim.roster import NOT_COMPUTED, PARTIAL, RosterHole

    sheets = holes[:4]
    table = sd.matrix(sheets, tactic="optimal", cap=4, jobs=1)
    roster = table.roster
    assert roster.method == PARTIAL and roster.names[2:] == ("Quad", "Quint")
    quad = roster.names.index("Quad")
    hole = roster.cells[quad][0]
    assert isinstance(hole, RosterHole) and hole.method == NOT_COMPUTED
    assert hole.win is None and hole.bounds is None and hole.why.key == "game.size"
    assert roster.standings[quad].mean is None and roster.standings[0].mean is not None
    assert len(roster.holes) == 5 and table.to_dict()["method"] == PARTIAL


def refused_late(monkeypatch: pytest.MonkeyPatch, pair: set[str],
                 error: Exception | None = None) -> list[tuple[str, str]]:
    """The game of ``pair`` refused once built (game.grown, as a game that outgrows its
    estimate), or ``error`` raised instead; the calls made, as the pairs' names."""
    from sevendag_cli.errors import UsageError
    from sevendag_cli.sevendag.game import SevendagGame

    calls: list[tuple[str, str]] = []
    solve = SevendagGame.solve

    def refusing(self: Any, *args: Any, **kwargs: Any) -> Any:
        if set(self.names) == pair:
            calls.append(self.names)
            if error is not None:
                raise error
            raise UsageError(Msg("game.grown", a=self.names[0], b=self.names[1], states=9000,
                                 rows=900_000, mb=400, max=380))
        return solve(self, *args, **kwargs)

    monkeypatch.setattr(SevendagGame, "solve", refusing)
    return calls


def three_small() -> list[str]:
    for stem, text in (("imp", small_sevendag("Imp", 12, 2, 6)),
                       ("pip", small_sevendag("Pip", 11, 3, 8)),
                       ("tod", small_sevendag("Tod", 10, 3, 4))):
        Path(f"{stem}.toml").write_text(text, "utf-8")
    return ["imp.toml", "pip.toml", "tod.toml", "--cap", "4", "--jobs", "1"]


def test_a_game_refused_after_it_was_built_is_a_hole_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """game.grown (refused after work): the same hole; the pair's game is built once, for
    the exact odds (its simulation would play the same game's declarations: not tried; the
    other order is the same pair), and a hole is not kept: a later table computes it (Imp
    plays optimally: its pairs need the game, Pip against Tod does not)."""
    from sevendag_cli.sevendag.game import SevendagGame

    solve = SevendagGame.solve
    calls = refused_late(monkeypatch, {"Imp", "Pip"})
    args = [*three_small(), "--tactic", "Imp=optimal", "--json"]
    result = run("matrix", *args)
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    i, p = doc["fighters"].index("Imp"), doc["fighters"].index("Pip")
    assert doc["method"] == "partial" and len(calls) == 1
    assert doc["methods"][i][p] == doc["methods"][p][i] == "not_computed"
    assert doc["why"][i][p]["key"] == doc["why"][p][i]["key"] == "game.grown"
    assert sum(m == EXACT for row in doc["methods"] for m in row) == 4
    assert len(hole_lines(result.stderr)) == 1
    monkeypatch.setattr(SevendagGame, "solve", solve)  # larger bounds, as it were: computed now
    again = run("matrix", *args)
    assert again.exit_code == 0, again.stderr
    later = json.loads(again.stdout)
    assert later["method"] == EXACT and "why" not in later and hole_lines(again.stderr) == []


@pytest.mark.parametrize(("error", "code", "fragment"), [
    (RuntimeError("the solver broke"), 1, "the solver broke"),
    (UsageError(Msg("game.policy", policy="best", known="sheet, optimal")), 2, "best"),
])
def test_any_other_error_still_fails_the_table_in_one_line(
        monkeypatch: pytest.MonkeyPatch, error: Exception, code: int, fragment: str) -> None:
    refused_late(monkeypatch, {"Imp", "Pip"}, error)
    result = run("matrix", *three_small()[:2], "--tactic", "optimal", "--jobs", "1")
    assert_one_line_error(result, code, fragment)


def test_exploit_leaves_out_the_figures_of_a_game_beyond_its_bounds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """--exploit: the sheets' cells are solved without the game; a pair whose game is refused
    has no figure (null, its why), its fighters no mean of them; the others' figures are
    there, exit 0, said once on stderr and in the display."""
    calls = refused_late(monkeypatch, {"Imp", "Pip"})
    result = run("matrix", *three_small(), "--exploit", "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    jsonschema.Draft202012Validator(schema()).validate(doc)
    assert doc["method"] == EXACT and "why" not in doc and calls
    i, p, t = (doc["fighters"].index(x) for x in ("Imp", "Pip", "Tod"))
    ex = doc["exploitability"]
    assert ex["gives_away"][i][p] is None and ex["gives_away"][p][i] is None
    assert ex["why"][i][p]["key"] == "game.grown" and ex["why"][i][t] is None
    assert ex["gives_away"][i][t] is not None and ex["gives_away"][t][p] is not None
    means = {e["name"]: e["gives_away"] for e in ex["fighters"]}
    assert means["Imp"] is None and means["Pip"] is None and means["Tod"] is not None
    note = [line for line in result.stderr.splitlines() if "give away was not computed" in line]
    assert len(note) == 1 and "Imp against Pip" in note[0]
    shown = run("matrix", *three_small(), "--exploit")
    assert shown.exit_code == 0 and "n/a: not computed, the game too large" in shown.stdout
    table = run("matrix", *three_small(), "--exploit", "--csv")
    rows = list(csv.DictReader(io.StringIO(table.stdout)))
    refused = [r for r in rows if {r["row"], r["column"]} == {"Imp", "Pip"}]
    assert len(refused) == 2
    assert all(r["gives_away"] == "" and r["why_key"] == "game.grown" for r in refused)
    assert all(r["method"] == EXACT and r["win_probability"] for r in refused)


def test_exploit_with_a_pair_not_computed_keeps_the_table(holes: list[str]) -> None:
    result = run("matrix", *holes, "--exploit", "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    q, p = doc["fighters"].index("Quad"), doc["fighters"].index("Pip")
    assert doc["exploitability"]["gives_away"][q][p] is None
    assert doc["exploitability"]["why"][q][p]["key"] == "game.size"
    assert doc["exploitability"]["tolerance"] == 1e-6  # the figures' own, none of them a mean
    i = doc["fighters"].index("Imp")
    assert doc["exploitability"]["gives_away"][p][i] is not None
    assert len(hole_lines(result.stderr)) == 5


def with_hole(names: list[str]) -> Roster:
    """:func:`synthetic` with the pair of its last two fighters not computed."""
    from sevendag_cli.sim.roster import PARTIAL, RosterHole

    base = synthetic(names)
    hole = RosterHole(Msg("game.size", a=names[-2], b=names[-1], states=1, rows=2, mb=500,
                          max=380))
    grid = [list(row) for row in base.cells]
    grid[-2][-1] = grid[-1][-2] = hole
    return msgspec.structs.replace(base, method=PARTIAL, cells=tuple(tuple(r) for r in grid))


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_hole_in_a_wide_roster_fits_80_columns(lang: str) -> None:
    names = [f"Sir Reginald the {k}th of the Marches" for k in range(8)]
    text = draw(with_hole(names), 80, lang)
    check_width(text, 80)
    assert text.count({"en": " n/a", "fr": " n.c."}[lang]) == 2


@pytest.mark.slow
def test_a_hole_is_drawn_hatched_in_the_picture(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from sevendag_cli.render.matrix_out import plot_matrix

    plot_matrix(str(tmp_path / "holes.png"), with_hole(["Ann", "Bo", "Cy"]), "en")
    assert_picture(tmp_path / "holes.png", "png")
