"""What the odds cost at the table and in a fight, run by hand (not by pytest)::

    python benchmarks/bench_odds.py [--repeat 9]

Every figure is a whole command in a fresh process (``python -m sevendag_cli ...``, its
bytecode already compiled, in a temporary folder), the CPU time of the child (user +
system) with the wall time beside it, the median of ``--repeat`` runs, the cases
interleaved so that the machine's load falls on all of them alike.  Each ``round`` starts
from a copy of the same saved encounter (after ``init``, or ``init --odds``), so the two
commands compared play the same round.

Goal: ``round --odds`` adds at most 50 ms to ``round`` — with the solver's work kept in the
encounter (``init --odds``, or any earlier ``round --odds``); the first ``round --odds`` of
an encounter that keeps nothing builds it (measured too).  It also measures what the kept
work costs a plain ``round`` (a larger file to read and save), ``odds`` with and without it,
``init --odds`` against ``init``, and ``fight --odds`` against ``fight``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import ROOT, command_cpu

ENCOUNTER = "encounter.sevendag.json"

# name: (template encounter to start from or None, the command's arguments)
SEVENDAG_ROUND = ["round", "--seed", "12", "--no-input"]
D20_ROUND = ["round", "--seed", "12"]
CASES: dict[str, tuple[str | None, list[str]]] = {
    "sevendag: round": ("sev-plain", SEVENDAG_ROUND),
    "sevendag: round --odds (work kept: init --odds)": ("sev-kept", [*SEVENDAG_ROUND, "--odds"]),
    "sevendag: round --odds (nothing kept: builds it)": ("sev-plain", [*SEVENDAG_ROUND, "--odds"]),
    "sevendag: round on an encounter keeping the work": ("sev-kept", SEVENDAG_ROUND),
    "sevendag: round --odds --json (work kept)": ("sev-kept", [*SEVENDAG_ROUND, "--odds", "--json"]),
    "sevendag: round --json": ("sev-plain", [*SEVENDAG_ROUND, "--json"]),
    "d20: round": ("d20-plain", D20_ROUND),
    "d20: round --odds (work kept: init --odds)": ("d20-kept", [*D20_ROUND, "--odds"]),
    "d20: round --odds (nothing kept: builds it)": ("d20-plain", [*D20_ROUND, "--odds"]),
    "sevendag: odds (work kept)": ("sev-kept", ["odds"]),
    "sevendag: odds (nothing kept)": ("sev-plain", ["odds"]),
    "d20: odds (work kept)": ("d20-kept", ["odds"]),
    "d20: odds (nothing kept)": ("d20-plain", ["odds"]),
    "sevendag: init": (None, ["init", "--seed", "11"]),
    "sevendag: init --odds": (None, ["init", "--seed", "11", "--odds"]),
    "sevendag: fight --seed 5": (None, ["fight", "--seed", "5"]),
    "sevendag: fight --seed 5 --odds": (None, ["fight", "--seed", "5", "--odds"]),
    "d20: fight --seed 89": (None, ["fight", "--ruleset", "d20", "--seed", "89"]),
    "d20: fight --seed 89 --odds": (None, ["fight", "--ruleset", "d20", "--seed", "89", "--odds"]),
    "d20: fight --seed 7 --odds --json (42 rounds)": (None, ["fight", "--ruleset", "d20", "--seed", "7",
                                                              "--odds", "--json"]),
}
TEMPLATES = {
    "sev-plain": ["init", "--seed", "11"],
    "sev-kept": ["init", "--seed", "11", "--odds"],
    "d20-plain": ["init", "--ruleset", "d20", "--seed", "11"],
    "d20-kept": ["init", "--ruleset", "d20", "--seed", "11", "--odds"],
}
# (what, base, compared, goal in ms added or None)
COMPARISONS = [
    ("round --odds adds, Sevendag, work kept", "sevendag: round",
     "sevendag: round --odds (work kept: init --odds)", 50.0),
    ("round --odds adds, d20, work kept", "d20: round", "d20: round --odds (work kept: init --odds)", 50.0),
    ("round --odds --json adds, Sevendag, work kept", "sevendag: round --json",
     "sevendag: round --odds --json (work kept)", 50.0),
    ("the first round --odds adds (builds the work), Sevendag", "sevendag: round",
     "sevendag: round --odds (nothing kept: builds it)", None),
    ("the first round --odds adds (builds the work), d20", "d20: round",
     "d20: round --odds (nothing kept: builds it)", None),
    ("a plain round on an encounter keeping the work adds", "sevendag: round",
     "sevendag: round on an encounter keeping the work", None),
    ("init --odds adds, Sevendag", "sevendag: init", "sevendag: init --odds", None),
    ("fight --odds adds, Sevendag (8 rounds)", "sevendag: fight --seed 5", "sevendag: fight --seed 5 --odds",
     None),
    ("fight --odds adds, d20 (17 rounds)", "d20: fight --seed 89", "d20: fight --seed 89 --odds", None),
]


# In one fresh process per line, after importing what ``round`` imports and loading the encounter:
# the part of ``round --odds`` that ``round`` does not do (the odds' modules, the solver from the
# kept work, the two states, the JSON object, the kept work back in the encounter), and what the
# kept work adds to reading and saving the encounter.  Medians of 15.
IN_PROCESS = """
import json, statistics, sys, time
from pathlib import Path
import sevendag_cli.cli, sevendag_cli.store, sevendag_cli.sevendag.engine, sevendag_cli.d20.engine
import sevendag_cli.commands.table
from sevendag_cli import store
from sevendag_cli.commands.table import open_encounter
path = Path(sys.argv[1])
enc, rs, a, b, state = open_encounter(path)
t = time.process_time()
from sevendag_cli.render.odds_data import round_odds
from sevendag_cli.sim.swing import point
from sevendag_cli.table_odds import keeping, solver_for
solver = solver_for(enc, rs, a, b)
kept = solver.keep()
before, after = solver(state), solver(state)
round_odds(point(before, 0), point(after, 1), rs.engine, solver.cap, solver.tolerance)
keeping(enc, rs.engine, kept)
odds_ms = (time.process_time() - t) * 1000
loads, saves = [], []
for _ in range(15):
    t = time.process_time(); e = store.load(path); loads.append(time.process_time() - t)
    t = time.process_time(); store.save(path.with_name("copy.json"), e); saves.append(time.process_time() - t)
print(json.dumps([odds_ms, statistics.median(loads) * 1000, statistics.median(saves) * 1000,
                  "numpy" in sys.modules, "icepool" in sys.modules]))
"""


def in_process(templates: dict[str, bytes], base: Path, env: dict[str, str], repeat: int) -> None:
    print(f"\n{'in one process, after what round does (CPU, median)':<56} {'odds':>9} {'load':>8} "
          f"{'save':>8}  numpy icepool")
    for name in ("sev-kept", "d20-kept", "sev-plain", "d20-plain"):
        folder = base / f"in-{name}"
        folder.mkdir()
        path = folder / ENCOUNTER
        rows = []
        for _ in range(repeat):
            path.write_bytes(templates[name])
            done = subprocess.run([sys.executable, "-c", IN_PROCESS, str(path)], env=env,
                                  capture_output=True, text=True, check=True)
            rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        odds_ms = statistics.median(r[0] for r in rows)
        load = statistics.median(r[1] for r in rows)
        save = statistics.median(r[2] for r in rows)
        what = f"{name}: the odds of round --odds; load; save (fsync)"
        print(f"{what:<56} {odds_ms:>6.1f} ms {load:>5.2f} ms {save:>5.2f} ms  {rows[0][3]!s:>5} "
              f"{rows[0][4]!s:>7}")


def run(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """CPU (user + system of the child) and wall time of one command, in ms."""
    cpu, wall, done = command_cpu(args, cwd=cwd, env=env)
    if done.returncode != 0:
        raise SystemExit(f"sevendag {' '.join(args)}: {done.stderr.strip()}")
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        env = dict(os.environ, PYTHONPYCACHEPREFIX=str(base / "pycache"), NO_COLOR="1", COLUMNS="80",
                   PYTHONPATH=str(ROOT), LANG="C.UTF-8", SEVENDAG_HOME=str(base / "home"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.pop("SEVENDAG_ENCOUNTER", None)
        templates = {}
        for name, init in TEMPLATES.items():
            folder = base / name
            folder.mkdir()
            run(init, folder, env)
            templates[name] = (folder / ENCOUNTER).read_bytes()
            print(f"{name:<10} encounter file: {len(templates[name]):>7,} bytes")
        work = base / "work"
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in CASES}
        for i in range(args.repeat + 1):  # the first pass writes the bytecode: not counted
            for name, (template, command) in CASES.items():
                shutil.rmtree(work, ignore_errors=True)
                work.mkdir()
                if template is not None:
                    (work / ENCOUNTER).write_bytes(templates[template])
                measured = run(command, work, env)
                if i:
                    times[name].append(measured)
        print(f"\n{'command (fresh process)':<56} {'CPU':>9} {'wall':>9}")
        med = {}
        for name, runs in times.items():
            cpu = statistics.median(r[0] for r in runs)
            wall = statistics.median(r[1] for r in runs)
            med[name] = (cpu, wall)
            print(f"{name:<56} {cpu:>6.1f} ms {wall:>6.1f} ms")
        print(f"\n{'difference':<56} {'CPU':>9} {'wall':>9} {'ratio':>6} {'goal':>8}")
        for what, plain, compared, goal in COMPARISONS:
            (c0, w0), (c1, w1) = med[plain], med[compared]
            goal_text = f"{goal:.0f} ms" if goal is not None else ""
            verdict = "" if goal is None else ("  met" if c1 - c0 <= goal else "  NOT met")
            print(f"{what:<56} {c1 - c0:>+6.1f} ms {w1 - w0:>+6.1f} ms {c1 / c0:>5.2f}x "
                  f"{goal_text:>8}{verdict}")
        in_process(templates, base, env, args.repeat)


if __name__ == "__main__":
    main()
