"""The hostile catalogue, continued (issue 18): nothing lies, nothing crashes, nothing runs away.

Rows (:class:`tests.test_hostile.Hostile`) run exactly as the catalogue's own
(:func:`tests.test_hostile.test_hostile`: exit code, one error line, the working folder
unchanged when refused, the row's check); the classes of issue 18 that need more than a
row (processes with chosen hash seeds, a warm cache, the cache folder) are functions below.

1. certified numbers only from work nobody could forge: the solver's kept work lives in the
   user's cache, keyed by a stable hash of the pair; an encounter's ``extra.odds`` is never read;
2. every output path guarded (``--csv``, JSON, the display, the plot file);
3. pictures: names are text, matplotlib writes nothing into ``$HOME``, the target is checked
   first, a symlinked target is refused;
4. resources: workers capped, endless pairs refused before any work, huge d20 odds refused
   from the sizes;
5. environment and text: long folder names, non-ASCII digits, clear and short messages.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ENCOUNTER, ok, run, run_json
from tests.test_hostile import Hostile, Outcome
from tests.test_hostile import test_hostile as run_case

# --- 1. certified numbers ------------------------------------------------------------------------


def _encounter() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(ENCOUNTER.read_text("utf-8"))
    return doc


def _forge(mutate: Any) -> None:
    """The d20 encounter's kept tables as an earlier version kept them, changed by ``mutate``
    (fingerprint kept right, so only not reading them at all protects the odds)."""
    import msgspec

    from sevendag_cli.commands.table import open_encounter
    from sevendag_cli.d20.chain import d20_tables

    _, rs, a, b, _ = open_encounter(ENCOUNTER)
    raw = msgspec.to_builtins(d20_tables(rs, a, b))
    mutate(raw)
    doc = _encounter()
    doc["extra"]["odds"] = {"engine": "d20",
                            "data": base64.b64encode(msgspec.msgpack.encode(raw)).decode("ascii")}
    ENCOUNTER.write_text(json.dumps(doc), "utf-8")


FORGERIES = {
    "a always wins": lambda t: t.update(damage_a=[[1000, 1]], den_a=1, damage_b=[[0, 1]], den_b=1),
    "nobody ever hurts": lambda t: t.update(damage_a=[[0, 1]], den_a=1, damage_b=[[0, 1]], den_b=1),
    "fighters swapped": lambda t: t.update(damage_a=t["damage_b"], den_a=t["den_b"],
                                           damage_b=t["damage_a"], den_b=t["den_a"]),
    "other fighters": lambda t: t.update(names=["Zed", "Yan"]),
}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_forged_kept_work_in_an_encounter_is_never_read(forgery: str) -> None:
    """D-02, D-04: ``odds`` and ``round --odds`` give the solver's own numbers, whatever an
    encounter file carries as kept work (a right fingerprint included)."""
    ok("init", "--ruleset", "d20", "--dice", "19,5")
    honest = run_json("odds")
    _forge(FORGERIES[forgery])
    assert run_json("odds") == honest
    assert run("odds").exit_code == 0
    doc = run_json("round", "--seed", "3", "--odds")
    assert doc["odds"]["before"] == honest["fighters"]
    assert "odds" not in _encounter()["extra"]  # dropped when round --odds saves


def test_forged_sevendag_kept_table_in_an_encounter_is_never_read() -> None:
    """S-19: a Sevendag table claiming an even fight, with the right fingerprint, is not read."""
    import msgspec

    from sevendag_cli.commands.table import open_encounter
    from sevendag_cli.sim.moment import OddsSolver

    ok("init", "--seed", "22")
    _, rs, a, b, _ = open_encounter(ENCOUNTER)
    raw = msgspec.to_builtins(msgspec.msgpack.decode(OddsSolver(rs, a, b).keep()))
    honest = run_json("odds")  # after the table above: the process's chain as the next odds finds it
    n = len(raw["states"])
    raw.update(win_a=[1 / 3] * n, win_b=[1 / 3] * n, draw=[1 / 3] * n, unresolved=[0.0] * n)
    doc = _encounter()
    doc["extra"]["odds"] = {"engine": "sevendag",
                            "data": base64.b64encode(msgspec.msgpack.encode(raw)).decode("ascii")}
    ENCOUNTER.write_text(json.dumps(doc), "utf-8")
    assert run_json("odds") == honest


_KEYS = """
from sevendag_cli.rules import load_pair, load_ruleset
from sevendag_cli.solver_cache import pair_key
from sevendag_cli.d20.chain import pair_fingerprint
d20 = load_ruleset("d20"); a, b = load_pair(d20, None)
sev = load_ruleset("sevendag"); c, d = load_pair(sev, None)
print(pair_key(d20, a, b), pair_fingerprint(d20, a, b), pair_key(sev, c, d))
"""


def test_fingerprints_are_the_same_under_any_hash_seed() -> None:
    """The kept work's key and the d20 tables' fingerprint, in processes with different
    ``PYTHONHASHSEED`` (sets of names inside the sheets iterate differently)."""
    seen = set()
    for seed in ("0", "1", "2", "12345", "random"):
        done = subprocess.run([sys.executable, "-c", _KEYS], capture_output=True, text=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}, timeout=60, check=True)
        seen.add(done.stdout)
    assert len(seen) == 1, seen


def _cache() -> Path:
    return Path(os.environ["SEVENDAG_CACHE"])


_NO_ICEPOOL = """
import sys
from sevendag_cli.start import main
sys.argv = ["sevendag", "round", "--seed", sys.argv[1], "--odds", "--json"]
try:
    main()
finally:
    sys.stderr.write("ICEPOOL=%s\\n" % ("icepool" in sys.modules))
"""


def test_D02_a_warm_cache_answers_round_odds_without_icepool() -> None:
    """D-02: the first ``round --odds`` of a d20 pair builds its tables (icepool) and keeps them;
    the next ones, in new processes, read them: no icepool, the same odds as ``odds``."""
    ok("init", "--ruleset", "d20", "--dice", "19,5")
    loaded = []
    for seed in ("1", "2", "3"):
        done = subprocess.run([sys.executable, "-c", _NO_ICEPOOL, seed], capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        loaded.append(done.stderr.strip().splitlines()[-1])
        assert json.loads(done.stdout)["odds"]["after"] == run_json("odds")["fighters"]
    assert loaded == ["ICEPOOL=True", "ICEPOOL=False", "ICEPOOL=False"]
    assert len(list((_cache() / "odds").glob("*.bin"))) == 1


def test_kept_work_of_another_pair_under_this_pairs_name_is_ignored() -> None:
    """An entry copied under another pair's key is not read (the key is inside), and a table
    with the wrong fingerprint is not used: the odds are the solver's own."""
    ok("init", "--ruleset", "d20", "--dice", "19,5", "--odds")
    honest = run_json("odds")
    (mine,) = (_cache() / "odds").glob("*.bin")
    ok("init", "B", "A", "--ruleset", "d20", "--dice", "19,5", "-e",
       "other.json", "--odds")
    other = next(p for p in (_cache() / "odds").glob("*.bin") if p != mine)
    my_head = mine.read_bytes().partition(b"\n")[0]
    mine.write_bytes(other.read_bytes())  # another pair's work under this pair's key
    assert run_json("odds") == honest
    body = other.read_bytes().partition(b"\n")[2]
    mine.write_bytes(my_head + b"\n" + body)  # the right key, another pair's tables
    assert run_json("odds") == honest


@pytest.mark.parametrize("where", ["a file", "a folder without rights", "a dangling link"])
def test_a_cache_that_cannot_be_used_changes_nothing(where: str, tmp_path: Path) -> None:
    """A cache folder that cannot be written or read: ``round --odds`` works, silently."""
    ok("init", "--ruleset", "d20", "--dice", "19,5")
    honest = run_json("odds")
    cache = tmp_path / "cache"
    if where == "a file":
        cache.write_text("x", "utf-8")
    elif where == "a dangling link":
        cache.symlink_to(tmp_path / "nowhere" / "deeper")
    else:
        cache.mkdir()
        cache.chmod(0o500)
    os.environ["SEVENDAG_CACHE"] = str(cache / "sub") if where == "a file" else str(cache)
    try:
        result = run("round", "--seed", "3", "--odds", "--json")
        assert result.exit_code == 0, result.stderr
        assert result.stderr == ""
        assert json.loads(result.stdout)["odds"]["before"] == honest["fighters"]
    finally:
        if where == "a folder without rights":
            cache.chmod(0o700)


def test_D12_huge_d20_odds_are_refused_from_the_sizes_at_once(tmp_path: Path) -> None:
    """D-12: two fighters of 2,000 hit points, whose fight the round cap bounds: the odds would
    need the round-by-round push beyond its size; refused before the grid is built (it took
    6 to 13 s, and 50 s on a loaded machine): here in a few seconds, with one line."""
    import time

    from tests.test_hostile import A, B

    Path("g1.toml").write_text(A.replace("hp = 45", "hp = 2000"), "utf-8")
    Path("g2.toml").write_text(B.replace("hp = 50", "hp = 2000"), "utf-8")
    ok("init", "g1.toml", "g2.toml", "-r", "d20", "--seed", "1")
    for args in (["odds"], ["round", "--odds", "--seed", "1"]):
        start = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "sevendag_cli", *args], capture_output=True,
                              text=True, timeout=60)
        took = time.monotonic() - start
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "1,000,000 pairs of hit points" in done.stderr
        assert "--runs" not in done.stderr.replace("fight --runs", "")  # odds have no --runs
        assert took < 6, took


def test_sweep_and_matrix_refuse_with_fights_own_line() -> None:
    """The same line as ``fight`` for a pair that can never end (S-03: no tactic attacks)."""
    _walls()
    line = run("fight", "w1.toml", "w2.toml").stderr
    assert ENDLESS in line
    for args in (["sweep", "w1.toml", "w2.toml", "--vary", "Wall.attack=1..2"],
                 ["matrix", "w1.toml", "w2.toml"]):
        assert run(*args).stderr == line


# --- the rows ------------------------------------------------------------------------------------

def init_d20() -> None:
    from tests.test_hostile import init_d20 as make

    make()()


CSV_COMMANDS: list[tuple[str, tuple[str, ...], Any]] = [
    ("odds", ("odds", "--csv"), init_d20),
    ("sweep", ("sweep", "A", "B", "-r", "d20", "--vary", "A.ac=5..7", "--csv"), None),
    ("matrix", ("matrix", "A", "B", "-r", "d20", "--csv"), None),
    ("fight --runs", ("fight", "--runs", "200", "--seed", "1", "--csv"), None),
    ("fight --exact", ("fight", "-r", "d20", "--exact", "--csv"), None),
    ("fight --odds", ("fight", "--seed", "1", "--odds", "--csv"), None),
]

# --- 3. pictures -------------------------------------------------------------------------------

TEX_NAMES = {
    "an undefined TeX command": r"$\undefinedcmd$",
    "an unclosed superscript": r"$x^{$",
    "a fraction without its braces": r"\frac{1} and $\frac{1}$",
    "60 nested superscripts": "$" + "x^{" * 60 + "1" + "}" * 60 + "$",
}


def tex_sheet(name: str) -> str:
    """Fighter A (d20) named ``name`` (a TOML literal string: backslashes as they are)."""
    from tests.test_hostile import A

    return A.replace('name = "A"', f"name = '{name}'", 1)


def pictured(path: str, *more: str) -> Any:
    """The picture was written (PNG or SVG, whole) and stderr holds only the usual notes
    (no warning of matplotlib's, no traceback)."""
    def check(top: Path, out: Outcome) -> None:
        data = (top / path).read_bytes()
        assert data.startswith(b"\x89PNG") or data.rstrip().endswith(b"</svg>"), data[:40]
        for line in out.stderr.splitlines():
            assert line.startswith(("plot written to", "seed ")), out.stderr[-2000:]
        for text in more:
            assert text in data.decode("utf-8", "replace"), text
    return check


def _tex_rows() -> list[Hostile]:
    rows = []
    for what, name in TEX_NAMES.items():
        setup = _writer({"t.toml": tex_sheet(name)})
        rows += [
            Hostile("injection", f"--plot: a name with {what}: sweep",
                    ("sweep", "t.toml", "B", "-r", "d20", "--vary", f"{name}.ac=5..6", "--plot",
                     "s.png"), 0, setup=setup, check=pictured("s.png")),
            Hostile("injection", f"--plot: a name with {what}: matrix (SVG, the name as text)",
                    ("matrix", "t.toml", "B", "-r", "d20", "--plot", "m.svg"), 0, setup=setup,
                    check=pictured("m.svg", "B")),
            Hostile("injection", f"--plot: a name with {what}: fight --runs",
                    ("fight", "t.toml", "B", "-r", "d20", "--runs", "200", "--seed", "1",
                     "--plot", "r.png"), 0, setup=setup, check=pictured("r.png")),
            Hostile("injection", f"--plot: a name with {what}: fight --odds",
                    ("fight", "t.toml", "B", "-r", "d20", "--odds", "--seed", "1", "--plot",
                     "f.svg"), 0, setup=setup, check=pictured("f.svg")),
        ]
    return rows


def _writer(files: dict[str, str]) -> Any:
    def setup() -> None:
        for name, text in files.items():
            Path(name).parent.mkdir(parents=True, exist_ok=True)
            Path(name).write_text(text, "utf-8")
    return setup


def _link(name: str, target: str) -> Any:
    def setup() -> None:
        Path(target).write_bytes(b"precious")
        os.symlink(target, name)
    return setup


def both_(*setups: Any) -> Any:
    def setup() -> None:
        for one in setups:
            one()
    return setup


def nothing_on_stdout(top: Path, out: Outcome) -> None:
    assert out.stdout == "", out.stdout[:500]


NO_HOME = "/nonexistent-sevendag-home-18/h"
HOME_ENV = {"HOME": NO_HOME, "SEVENDAG_CACHE": "", "XDG_CACHE_HOME": "", "XDG_CONFIG_HOME": "",
            "MPLCONFIGDIR": ""}


def home_untouched(top: Path, out: Outcome) -> None:
    pictured("h.png")(top, out)
    assert not Path(NO_HOME).parent.exists()


PLOT_COMMANDS: list[tuple[str, tuple[str, ...]]] = [
    ("sweep", ("sweep", "A", "B", "-r", "d20", "--vary", "A.ac=5..6")),
    ("matrix", ("matrix", "A", "B", "-r", "d20")),
    ("fight --runs", ("fight", "--runs", "200", "--seed", "1")),
    ("fight --exact", ("fight", "-r", "d20", "--exact")),
]

# --- 5. environment and text --------------------------------------------------------------------

LONG_DIR = "/tmp/" + "x" * 300  # one name longer than any file system allows


def lists(top: Path, out: Outcome) -> None:
    if out.stdout.lstrip().startswith("{"):
        doc = json.loads(out.stdout)
        assert {r["name"] for r in doc["rulesets"]} >= {"d20", "sevendag"}
    else:
        assert "d20" in out.stdout and "sevendag" in out.stdout, out.stdout[:2000]
    assert out.stderr == "", out.stderr[-2000:]


def short(limit: int) -> Any:
    def check(top: Path, out: Outcome) -> None:
        assert len(out.stderr) < limit, len(out.stderr)
    return check


def big_formula_sheet() -> str:
    from tests.test_hostile import A

    return A.replace('damage = "1d6"', 'damage = "' + "1+" * 100_000 + '1"', 1)


ENV_ROWS = [
    ("SEVENDAG_HOME", {"SEVENDAG_HOME": LONG_DIR}),
    ("XDG_CONFIG_HOME", {"SEVENDAG_HOME": "", "XDG_CONFIG_HOME": LONG_DIR}),
    ("HOME", {"SEVENDAG_HOME": "", "XDG_CONFIG_HOME": "", "HOME": LONG_DIR}),
]
DIGITS = {"a superscript two": "²", "a circled one": "①", "an Arabic-Indic one": "١"}
WHATIF_COMMANDS: list[tuple[str, tuple[str, ...], str, Any]] = [
    ("fight --set", ("fight",), "--set", None),
    ("matrix --set", ("matrix", "Brannoc", "Ysolde"), "--set", None),
    ("odds --set", ("odds",), "--set", "sevendag"),
    ("sweep --vary", ("sweep",), "--vary", None),
]


def _init_sevendag() -> None:
    from tests.test_hostile import init_sevendag

    init_sevendag()


def _digit_rows() -> list[Hostile]:
    rows = []
    for what, digit in DIGITS.items():
        for name, args, option, setup in WHATIF_COMMANDS:
            value = "6..8" if option == "--vary" else "6"
            rows.append(Hostile(
                "numbers", f"{name}: an index with {what}",
                (*args, option, f"Brannoc.hands.{digit}.die={value}"), 2, "hands is a list of 2",
                setup=_init_sevendag if setup else None))
        rows.append(Hostile("numbers", f"--set: an index in brackets with {what}",
                            ("fight", "--set", f"Brannoc.hands[{digit}].die=6"), 2, "is not a field"))
        rows.append(Hostile("numbers", f"--set: a number with {what}",
                            ("fight", "--set", f"Brannoc.attack={digit}"), 2,
                            "expected a whole number"))
        rows.append(Hostile("numbers", f"--vary: a range with {what}",
                            ("sweep", "--vary", f"Brannoc.attack={digit}..3"), 2,
                            "expected a whole number"))
        rows.append(Hostile("numbers", f"--dice: a face with {what}",
                            ("fight", "A", "B", "-r", "d20", "--dice", f"1{digit},5"), 2,
                            "not a whole number"))
        rows.append(Hostile("numbers", f"wound: an amount with {what}",
                            ("wound", "B", f"{digit}"), 1, "give an amount", setup=init_d20))
    return rows


# --- 4. resources --------------------------------------------------------------------------------


def _walls() -> None:
    from tests.test_hostile import defender

    Path("w1.toml").write_text(defender("Wall"), "utf-8")
    Path("w2.toml").write_text(defender("Moat"), "utf-8")


def capped_note(top: Path, out: Outcome) -> None:
    assert "worker(s) used, one per CPU" in out.stderr, out.stderr
    assert sorted(json.loads(out.stdout)["fighters"]) == ["A", "B"]


ENDLESS = "ever attacks"

CASES: list[Hostile] = [
    # --- 4. resources: workers capped; a fight that can never end refused everywhere at once ----
    Hostile("endless", "matrix --jobs 256: capped at the CPUs and the matchups, said on stderr",
            ("matrix", "A", "B", "-r", "d20", "--jobs", "256", "--json"), 0, process=True,
            check=capped_note),
    *[Hostile("endless", f"two fighters who only defend: {name}", args, 1, ENDLESS, setup=_walls)
      for name, args in (
          ("sweep --runs", ("sweep", "w1.toml", "w2.toml", "--vary", "Wall.attack=1..3", "--runs",
                            "100000")),
          ("sweep (exact)", ("sweep", "w1.toml", "w2.toml", "--vary", "Wall.attack=1..3")),
          ("sweep: one value of the tactic", ("sweep", "w1.toml", "w2.toml", "--vary",
                                             "Wall.tactic=all-out,full-defence", "--runs", "1000")),
          ("matrix --runs", ("matrix", "w1.toml", "w2.toml", "Ysolde", "--runs", "100000",
                             "--jobs", "1")),
          ("matrix (exact)", ("matrix", "w1.toml", "w2.toml", "Ysolde", "--jobs", "1")),
          ("fight --odds", ("fight", "w1.toml", "w2.toml", "--odds", "--seed", "1")),
      )],
    # --- 5. environment and text ----------------------------------------------------------------
    *[Hostile("paths", f"rulesets{shown} with {var} of a 300-character name", ("rulesets", *extra), 0,
              env=env, process=True, check=lists)
      for var, env in ENV_ROWS for shown, extra in (("", ()), (" --json", ("--json",)))],
    Hostile("paths", "fight by name with SEVENDAG_HOME of a 300-character name",
            ("fight", "A", "B", "--seed", "1", "--json"), 0, env={"SEVENDAG_HOME": LONG_DIR},
            process=True, check=lambda top, out: None),
    Hostile("paths", "round --odds with a cache folder of a 300-character name",
            ("round", "--seed", "2", "--odds", "--json"), 0, setup=init_d20,
            env={"SEVENDAG_CACHE": LONG_DIR}, process=True, check=lambda top, out: None),
    *_digit_rows(),
    Hostile("numbers", "--set: a fighter and a dot, no field", ("fight", "A", "B", "--set", "A.=5"), 2,
            "which field of A?"),
    Hostile("numbers", "--vary: a fighter and a dot, no field",
            ("sweep", "A", "B", "--vary", "a. =1..3"), 2, "which field of A?"),
    Hostile("numbers", "--set: a weapon formula reading a field",
            ("fight", "A", "B", "--set", "A.weapon.damage=1d6 + hp"), 2,
            "this formula reads no field, only dice and numbers"),
    Hostile("numbers", "a 200,000-character formula in a sheet: a short line",
            ("fight", "big.toml", "B"), 1, "longer than 500 characters",
            setup=_writer({"big.toml": big_formula_sheet()}), check=short(300)),
    Hostile("numbers", "--set: a 3,000-character fighter name: a short line",
            ("fight", "A", "B", "--set", "Q" * 900 + ".hp=5"), 2, "no fighter 'QQQ",
            check=short(300)),
    Hostile("numbers", "--set: a 900-character formula: a short line",
            ("fight", "A", "B", "--set", "A.weapon.damage=" + "1d6+" * 200 + "zz"), 2, "",
            check=short(600)),
    # --- 3. pictures: names are text; the target is checked first; links refused; no $HOME ----
    *_tex_rows(),
    *[Hostile("paths", f"{name} --plot into a folder that does not exist", (*args, "--plot", "nodir/p.png"),
              2, "nodir/p.png: cannot write in the folder nodir", check=nothing_on_stdout)
      for name, args in PLOT_COMMANDS],
    *[Hostile("paths", f"{name} --plot through a planted symbolic link", (*args, "--plot", "link.png"),
              2, "link.png: is a symbolic link", setup=_link("link.png", "precious.png"),
              check=nothing_on_stdout)
      for name, args in PLOT_COMMANDS],
    Hostile("paths", "--plot into a folder that is a file", ("matrix", "A", "B", "-r", "d20", "--plot",
                                                              "f.txt/p.svg"),
            2, "cannot write in the folder f.txt", setup=_writer({"f.txt": "x"}), check=nothing_on_stdout),
    Hostile("paths", "--plot onto a read-only picture: refused before any work",
            ("matrix", "A", "B", "-r", "d20", "--plot", "ro.png"), 2, "ro.png: the file is read-only",
            setup=both_(_writer({"ro.png": "old"}), lambda: os.chmod("ro.png", 0o444)),
            unprivileged=True, check=nothing_on_stdout),
    Hostile("paths", "--plot with no home folder: matplotlib makes none, says nothing",
            ("matrix", "A", "B", "-r", "d20", "--plot", "h.png"), 0, env=HOME_ENV, process=True,
            check=home_untouched),
    # --- 2. every output path guarded: --csv as every other output ----------------------------
    *[Hostile("streams", f"{name} --csv on /dev/full", args, 1, "no space left", setup=setup,
              redirect=">/dev/full")
      for name, args, setup in CSV_COMMANDS],
    *[Hostile("streams", f"{name} --csv, the reader closes at once", args, 141, setup=setup,
              early=True, quiet=True)
      for name, args, setup in CSV_COMMANDS],
]


def params() -> list[object]:
    out: list[object] = []
    for c in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else []
        out.append(pytest.param(c, id=f"{c.kind}: {c.name}", marks=marks))
    return out


@pytest.mark.parametrize("case", params())
def test_hostile_more(case: Hostile, tmp_path: Path) -> None:
    run_case(case, tmp_path)


def test_the_rows_are_named_once() -> None:
    from tests.test_hostile import CASES as FIRST

    names = [c.name for c in (*FIRST, *CASES)]
    assert len(set(names)) == len(names)
    assert all(isinstance(c, Hostile) for c in CASES)
    assert Outcome  # the row's checks receive the catalogue's outcome


def test_a_writer_killed_mid_write_leaves_nothing_that_stays() -> None:
    """kill -9 between the temporary file and the rename leaves a ``.tmp`` in the cache: the
    next write removes it once it is old (never a fresh one, which may be another writer's);
    the entry itself is whole or absent, never half."""
    from sevendag_cli import solver_cache

    folder = _cache() / "odds"
    folder.mkdir(parents=True)
    old, fresh = folder / ".deadbeef.1.aa.tmp", folder / ".deadbeef.2.bb.tmp"
    for p in (old, fresh):
        p.write_bytes(b"half")
    os.utime(old, (1, 1))
    assert solver_cache.store("k" * 64, b"data")
    assert not old.exists() and fresh.exists()
    assert solver_cache.load("k" * 64) == b"data"
    (folder / ("k" * 64 + ".bin")).write_bytes(solver_cache.MAGIC + b"k" * 64)  # cut short
    assert solver_cache.load("k" * 64) is None
