"""Optimal play benchmarks, run by hand (not collected by pytest)::

    python benchmarks/bench_optimal.py [--repeat 3]

Each figure is a whole command in a fresh process (``python -m sevendag_cli ...``): the
child's CPU time (user + system) and the wall time, in ms, median of ``--repeat`` runs.
The house pair (Brannoc, Ysolde, the three bundled techniques):

* ``fight --exact --tactic optimal``: both fighters optimal, the game's value (goal: 2 s);
* ``fight --exact --tactic Brannoc=optimal``: a best response to Ysolde's sheet;
* ``fight --exact``: the sheets, with what each gives away (three solves of the game);
* ``fight --seed 1 --tactic optimal``: one fight, each round declared optimally;
* ``fight --runs 1000 --tactic optimal``: fights played by the step engine, die by die.

It prints each figure and its ratio to the plain ``fight --exact`` of the same pair.
"""

from __future__ import annotations

import argparse
import statistics

from _common import command_cpu

CASES: dict[str, list[str]] = {
    "fight --exact (sheets + what they give away)": ["fight", "--exact"],
    "fight --exact --tactic optimal": ["fight", "--exact", "--tactic", "optimal", "--json"],
    "fight --exact --tactic Brannoc=optimal": ["fight", "--exact", "--tactic", "Brannoc=optimal",
                                               "--json"],
    "fight --seed 1 --tactic optimal": ["fight", "--seed", "1", "--tactic", "optimal", "--json"],
    "fight --runs 1000 --tactic optimal": ["fight", "--runs", "1000", "--seed", "1", "--tactic",
                                           "optimal", "--json"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    base: float | None = None
    for name, argv in CASES.items():
        cpu: list[float] = []
        wall: list[float] = []
        for _ in range(args.repeat):
            c, w, done = command_cpu(argv)
            if done.returncode != 0:
                raise SystemExit(f"{name}: exit {done.returncode}: {done.stderr.strip()}")
            cpu.append(c)
            wall.append(w)
        c, w = statistics.median(cpu), statistics.median(wall)
        base = base if base is not None else c
        print(f"{name:48} cpu {c:8.0f} ms  wall {w:8.0f} ms  ×{c / base:5.1f}")


if __name__ == "__main__":
    main()
