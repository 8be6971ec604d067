"""What ``advise`` costs with the game kept in the user's cache, run by hand::

    python benchmarks/bench_advise.py [--repeat 9] [--cold 2]

Every figure is a whole command in a fresh process (``python -m sevendag_cli ...``, its
bytecode already compiled, in a temporary folder with its own cache folder), the wall time
with the CPU time of the child (user + system) beside it, the median of the runs, the warm
cases interleaved with ``python -c "import typer"`` and ``status`` so that the machine's load
falls on all of them alike.

* **cold**: ``advise`` with an empty cache (the game solved over the fight's closure and
  kept), and with ``SEVENDAG_NO_CACHE`` (solved from the state, as before: nothing kept);
* **warm**: ``advise``, ``advise --json``, ``advise --after ...`` at the start, and
  ``advise`` two rounds later (another state, the same kept game).

Goal: every warm ``advise`` within 200 ms, wall clock.  The ratio is to
``python -c "import typer"`` (the floor of any Typer command).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, command_cpu

GOAL_MS = 200.0
AFTER = "yield=no;allocation=attack,attack;technique=guard"
WARM: dict[str, tuple[str, list[str]]] = {
    "advise": ("start", ["advise"]),
    "advise --json": ("start", ["advise", "--json"]),
    "advise --after ...": ("start", ["advise", "--after", AFTER]),
    "advise --json --after ...": ("start", ["advise", "--json", "--after", AFTER]),
    "advise (two rounds later)": ("later", ["advise"]),
    "status (for comparison)": ("start", ["status"]),
}


def typer_floor(env: dict[str, str]) -> tuple[float, float]:
    """CPU and wall time (ms) of ``python -c "import typer"``."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import typer"], env=env, check=True)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000, wall


def run(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """CPU (user + system of the child) and wall time of one command, in ms."""
    cpu, wall, done = command_cpu(args, cwd=cwd, env=env)
    if done.returncode != 0:
        raise SystemExit(f"sevendag {' '.join(args)}: {done.stderr.strip()}")
    return cpu, wall


def show(name: str, runs: list[tuple[float, float]], floor: float | None, goal: bool,
         status: float | None = None) -> None:
    cpu = statistics.median(r[0] for r in runs)
    wall = statistics.median(r[1] for r in runs)
    ratio = f"{wall / floor:>5.2f}x" if floor else ""
    over = f"{cpu - status:>+8.1f} ms" if status is not None else ""
    verdict = ("  met" if wall <= GOAL_MS else "  NOT met") if goal else ""
    print(f"{name:<44} {wall:>8.1f} ms {cpu:>8.1f} ms {ratio:>7} {over:>11}{verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9, help="runs of each warm case (median)")
    parser.add_argument("--cold", type=int, default=2, help="runs of each cold case (median)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        env = dict(os.environ, PYTHONPYCACHEPREFIX=str(base / "pycache"), NO_COLOR="1",
                   COLUMNS="80", PYTHONPATH=str(ROOT), LANG="C.UTF-8",
                   SEVENDAG_HOME=str(base / "home"), SEVENDAG_CACHE=str(base / "cache"))
        for name in ("PYTHONDONTWRITEBYTECODE", "SEVENDAG_ENCOUNTER", "SEVENDAG_NO_CACHE"):
            env.pop(name, None)
        folders = {"start": base / "start", "later": base / "later"}
        for folder in folders.values():
            folder.mkdir()
            run(["init", "--seed", "3"], folder, env)
        for seed in ("11", "12"):
            run(["round", "--seed", seed, "--no-input"], folders["later"], env)
        no_cache = dict(env, SEVENDAG_NO_CACHE="1")
        cold: dict[str, list[tuple[float, float]]] = {
            "advise, cache empty (solves, keeps)": [],
            "advise, SEVENDAG_NO_CACHE (solves)": []}
        for _ in range(args.cold):
            shutil.rmtree(base / "cache", ignore_errors=True)
            cold["advise, cache empty (solves, keeps)"].append(
                run(["advise"], folders["start"], env))
            cold["advise, SEVENDAG_NO_CACHE (solves)"].append(
                run(["advise"], folders["start"], no_cache))
        kept = sorted((base / "cache" / "game").glob("*.bin"))
        size = sum(p.stat().st_size for p in kept)
        print(f"kept: {len(kept)} file(s), {size:,} bytes in <cache>/game\n")
        typer_floor(env)
        for where, command in WARM.values():  # writes the bytecode: not counted
            run(command, folders[where], env)
        floors: list[tuple[float, float]] = []
        warm: dict[str, list[tuple[float, float]]] = {name: [] for name in WARM}
        for _ in range(args.repeat):
            floors.append(typer_floor(env))
            for name, (where, command) in WARM.items():
                warm[name].append(run(command, folders[where], env))
        floor = statistics.median(f[1] for f in floors)
        status = statistics.median(r[0] for r in warm["status (for comparison)"])
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"load average (1, 5, 15 min): {load} on {os.cpu_count()} CPUs: wall times grow "
              "with it, the goal is for an idle machine\n")
        print(f"{'command (fresh process)':<44} {'wall':>11} {'CPU':>11} {'/typer':>7} "
              f"{'CPU-status':>11}")
        show('python -c "import typer"', floors, floor, False)
        for name, runs in cold.items():
            show(name, runs, floor, False)
        for name, runs in warm.items():
            show(name, runs, floor, name.startswith("advise"), status)


if __name__ == "__main__":
    main()
