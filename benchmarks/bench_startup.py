"""Start-up benchmark, run by hand (not collected by pytest)::

    python benchmarks/bench_startup.py [--repeat 15]

Measures the CPU time (user + system) of child processes, from the
``resource.getrusage(RUSAGE_CHILDREN)`` deltas around each run, and prints the
medians and the two start-up ratios against their goals:

* ``python -m sevendag_cli fight --ruleset d20 --seed 1 --json`` against
  ``python -c "import typer"`` (goal: at most 1.5x);
* ``sevendag round --seed 4`` on a saved d20 encounter, with the plain Rich
  display (stdout not a terminal, ``NO_COLOR``), against
  ``python -c "import typer, rich.console, rich.table"`` (goal: at most 1.3x).

The four commands are interleaved, so a change in the machine's load touches
them alike; the ratio of the minima is printed too, as it moves less when the
machine is busy.  The encounter is restored before each ``round``, outside the
measured time.  CPU time, not wall time: the machine is shared.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ENCOUNTER = "encounter.sevendag.json"


def sevendag_exe() -> str:
    exe = Path(sys.executable).with_name("sevendag")
    if exe.is_file():
        return str(exe)
    found = shutil.which("sevendag")
    if found is None:
        sys.exit("the sevendag command is not installed (pip install -e .)")
    return found


def cpu_seconds(cmd: list[str], cwd: str, env: dict[str, str]) -> float:
    """The CPU time (user + system) of one run of ``cmd``, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   stdin=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs of each command (median)")
    args = parser.parse_args()

    py, exe = sys.executable, sevendag_exe()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80"}
        env.pop("SEVENDAG_ENCOUNTER", None)
        for name in ("SEVENDAG_HOME", "FORCE_COLOR", "PYTHONDONTWRITEBYTECODE", "PYTHONPROFILEIMPORTTIME"):
            env.pop(name, None)
        subprocess.run([exe, "init", "--ruleset", "d20", "--dice", "19,5"], cwd=tmp, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        saved = Path(tmp) / "saved.json"
        shutil.copyfile(Path(tmp) / ENCOUNTER, saved)

        commands = {
            "fight": [py, "-m", "sevendag_cli", "fight", "--ruleset", "d20", "--seed", "1", "--json"],
            "typer": [py, "-c", "import typer"],
            "round": [exe, "round", "--seed", "4"],
            "typer+rich": [py, "-c", "import typer, rich.console, rich.table"],
        }
        for cmd in commands.values():  # warm the file cache and the bytecode
            shutil.copyfile(saved, Path(tmp) / ENCOUNTER)
            cpu_seconds(cmd, tmp, env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, cmd in commands.items():
                if name == "round":
                    shutil.copyfile(saved, Path(tmp) / ENCOUNTER)
                times[name].append(cpu_seconds(cmd, tmp, env))

    median = {name: statistics.median(ts) * 1000 for name, ts in times.items()}
    least = {name: min(ts) * 1000 for name, ts in times.items()}
    width = max(len(" ".join(Path(c[0]).name if i == 0 else c[i] for i in range(len(c))))
                for c in commands.values())
    print(f"CPU time of the child, median of {args.repeat} runs (min-max):")
    for name, cmd in commands.items():
        text = " ".join(Path(cmd[0]).name if i == 0 else cmd[i] for i in range(len(cmd)))
        print(f"  {text:<{width}}  {median[name]:6.1f} ms  "
              f"({min(times[name]) * 1000:.0f}-{max(times[name]) * 1000:.0f})")
    for label, cmd, base, goal in (
        ("fight --json ÷ import typer", "fight", "typer", 1.5),
        ("round (Rich) ÷ import typer, rich.console, rich.table", "round", "typer+rich", 1.3),
    ):
        ratio = median[cmd] / median[base]
        verdict = "met" if ratio <= goal else "NOT met"
        print(f"{label}: {ratio:.2f}x (goal {goal}x: {verdict}); "
              f"ratio of the minima {least[cmd] / least[base]:.2f}x")


if __name__ == "__main__":
    main()
