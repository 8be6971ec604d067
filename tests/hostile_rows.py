"""The hostile catalogue, continued: nothing lies, nothing crashes, nothing runs away.

Rows (:class:`tests.hostile_catalogue.Hostile`) run exactly as the catalogue's own
(:func:`tests.hostile_catalogue.check_case`: exit code, one error line, the working folder
unchanged when refused, the row's check); the classes that need more than a
row (processes with chosen hash seeds, a warm cache, the cache folder) are functions below.

1. certified numbers only from work nobody could forge: the solver's kept work lives in the
   user's cache, keyed by a stable hash of the pair; an encounter's ``extra.odds`` is never read;
2. every output path guarded (``--csv``, JSON, the display, the plot file);
3. pictures: names are text, matplotlib writes nothing into ``$HOME``, the target is checked
   first, a symlinked target is refused;
4. resources: workers capped, endless pairs refused before any work, huge d20 odds refused
   from the sizes;
5. environment and text: long folder names, non-ASCII digits, clear and short messages.

This module holds the rows (``CASES``) and their set-ups; ``tests/test_hostile_rows.py`` runs
them with :func:`tests.hostile_catalogue.check_case` and holds the function tests.
"""


from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

from tests.helpers import ENCOUNTER
from tests.hostile_catalogue import Hostile, Outcome

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


_KEYS = """
from sevendag_cli.rules import load_pair, load_ruleset
from sevendag_cli.solver_cache import pair_key
from sevendag_cli.d20.chain import pair_fingerprint
d20 = load_ruleset("d20"); a, b = load_pair(d20, None)
sev = load_ruleset("sevendag"); c, d = load_pair(sev, None)
print(pair_key(d20, a, b), pair_fingerprint(d20, a, b), pair_key(sev, c, d))
"""


def _cache() -> Path:
    return Path(os.environ["SEVENDAG_CACHE"])


_NO_ICEPOOL = """
import sys
from sevendag_cli.start import main
sys.argv = ["sevendag", "round", "--seed", sys.argv[1], "--odds", "--json"]
try:
    main()
finally:
    sys.stderr.write("BUILT=%s\\n" % ("sevendag_cli.sim.formula_dice" in sys.modules))
"""


# --- the rows ------------------------------------------------------------------------------------

def init_d20() -> None:
    from tests.hostile_catalogue import init_d20 as make

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
    from tests.hostile_catalogue import A

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
    from tests.hostile_catalogue import A

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
    from tests.hostile_catalogue import init_sevendag

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
        rows.append(Hostile("numbers", f"--seed: a seed with {what}",
                            ("fight", "--seed", f"1{digit}"), 2, "is not a valid int"))
        rows.append(Hostile("numbers", f"--runs: a count with {what}",
                            ("fight", "--runs", f"{digit}00"), 2, "is not a valid int"))
        rows.append(Hostile("numbers", f"wound: an amount with {what}",
                            ("wound", "B", f"{digit}"), 1, "give an amount", setup=init_d20))
    return rows


# --- 4. resources --------------------------------------------------------------------------------


def _walls() -> None:
    from tests.hostile_catalogue import defender

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
