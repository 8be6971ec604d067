"""What exact dice odds cost: large sums answered, oversized laws refused, run by hand (not by
pytest)::

    python benchmarks/bench_dice.py [--repeat 5]

Every figure is a whole ``sevendag roll … --odds`` in a fresh process: the child's CPU time
(user + system) and wall time, medians of ``--repeat`` runs, the cases interleaved so that
the machine's load falls on all of them alike, and the child's peak memory (its largest
resident set, the largest of the runs).  ``sevendag --version`` is the floor every command
pays (Python, Typer); each case is also given as a ratio of it.

Goals: a law too large is refused from its size, before any work, in under 0.3 s and small
memory (``10d% * 10d% + 10d% * 10d%`` once took 4-12 s and 200 MB before its refusal);
``1000d2``, ``999d1 + 1d2`` and ``1000d6`` answer exactly (they once ended in a
RecursionError, or were refused).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from _common import ROOT

WRAPPER = f"""
import atexit, resource, sys
sys.path.insert(0, {str(ROOT)!r})
atexit.register(lambda: sys.stderr.write("MAXRSS=%d\\n" % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
sys.argv = ["sevendag", *sys.argv[1:]]
from sevendag_cli.start import main
main()
"""

CASES: dict[str, list[str]] = {
    "sevendag --version (the floor)": ["--version"],
    "refused: 10d% * 10d% + 10d% * 10d%": ["roll", "10d%*10d% + 10d%*10d%", "--odds"],
    "refused: 1000d100 (digits)": ["roll", "1000d100", "--odds"],
    "refused: 100d20 * 100d20 (pairs)": ["roll", "100d20 * 100d20", "--odds"],
    "answered: 1000d2": ["roll", "1000d2", "--odds"],
    "answered: 999d1 + 1d2": ["roll", "999d1 + 1d2", "--odds"],
    "answered: 1000d6": ["roll", "1000d6", "--odds"],
    "answered: 1000d10 (the largest 1000-dice sum within the bound)": ["roll", "1000d10", "--odds"],
    "answered: 4d6ro1": ["roll", "4d6ro1", "--odds"],
    "answered: 2d20mi10": ["roll", "2d20mi10", "--odds"],
}


def run(args: list[str], folder: str) -> tuple[float, float, int, int]:
    """CPU ms, wall ms, peak RSS (KB) and exit code of one command in a fresh process."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", WRAPPER, *args], capture_output=True, text=True,
                          cwd=folder, env={**os.environ, "NO_COLOR": "1", "COLUMNS": "80"})
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    rss = max((int(line.split("=")[1]) for line in done.stderr.splitlines() if line.startswith("MAXRSS=")),
              default=0)
    return cpu, wall, rss, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    runs: dict[str, list[tuple[float, float, int, int]]] = {name: [] for name in CASES}
    with tempfile.TemporaryDirectory() as folder:
        for args in CASES.values():  # compile the bytecode once
            run(args, folder)
        for _ in range(repeat):
            for name, args in CASES.items():
                runs[name].append(run(args, folder))
    floor = statistics.median(r[0] for r in runs["sevendag --version (the floor)"])
    print(f"{'case':66} {'CPU ms':>7} {'wall ms':>8} {'÷ floor':>7} {'peak MB':>8} exit")
    for name, rs in runs.items():
        cpu = statistics.median(r[0] for r in rs)
        wall = statistics.median(r[1] for r in rs)
        print(f"{name:66} {cpu:7.0f} {wall:8.0f} {cpu / floor:7.2f} {max(r[2] for r in rs) / 1024:8.1f} "
              f"{rs[-1][3]}")


if __name__ == "__main__":
    main()
