"""Sweep benchmarks, run by hand (not collected by pytest)::

    python benchmarks/bench_sweep.py [--repeat 5]

Goal: a d20 sweep of 20 values in at most 2 s on 2 cores.  Every figure comes from
fresh child processes (bytecode cached in a temporary folder, warmed once), median of
``--repeat`` runs: CPU time of the child (``time.process_time``) and wall time.

* the whole command, ``sevendag sweep A B -r d20 --vary A.ac=1..20 --json``, from the
  shell: interpreter start, imports, sheets, 20 exact points, the JSON;
* the sweep alone (imports and sheets done): the d20 path (the chain's start odds and a
  rounds pass per value) against what 20 ``fight --exact`` solves cost (the
  round-by-round push, with and without the fractions of the uncapped fight), so the
  ratio shows what the sweep's method saves;
* what each value costs besides its solve: the what-if applied and both sheets read
  again;
* a Sevendag sweep of 20 values (the push of ``fight --exact`` per value), for reference.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from _common import PRELUDE, ROOT, command_cpu

SETUP = """
import numpy, icepool  # imported once per command; not the sweep
from sevendag_cli.rules import load_ruleset, pair_docs
from sevendag_cli.rules.whatif import WhatIf
rs = load_ruleset({ruleset!r}); docs = pair_docs(rs, None)
what = WhatIf()
values = [str(v) for v in range({lo}, {hi} + 1)]
def load(text):
    a, b, changes = what.plus({field!r}, text).load_pair(rs, docs)
    return a, b, changes[-1].value
"""

D20 = {"ruleset": "d20", "field": "A.ac", "lo": 1, "hi": 20}
SEVENDAG = {"ruleset": "sevendag", "field": "Ysolde.attack", "lo": 0, "hi": 19}

CASES: dict[str, str] = {
    "d20, 20 values: the sweep (exact)": SETUP.format(**D20) + """
from sevendag_cli.sim.sweep import sweep
t = clock()
result = sweep(rs, "A.ac", values, load, fair=True)
out = since(t)
assert len(result.points) == 20
""",
    "d20, 20 values: 20 fight --exact solves (push + fractions)": SETUP.format(**D20) + """
from sevendag_cli.sim.exact_fight import exact_fight
t = clock()
for v in values:
    a, b, _ = load(v)
    exact_fight(rs, a, b)
out = since(t)
""",
    "d20, 20 values: 20 fight --exact pushes (no fractions)": SETUP.format(**D20) + """
from sevendag_cli.sim.exact_fight import exact_fight
t = clock()
for v in values:
    a, b, _ = load(v)
    exact_fight(rs, a, b, fractions=False)
out = since(t)
""",
    "d20, 20 values: the what-ifs alone (apply, read both sheets)": SETUP.format(**D20) + """
t = clock()
for v in values:
    load(v)
out = since(t)
""",
    "sevendag, 20 values: the sweep (exact, fight --exact's push)": SETUP.format(**SEVENDAG) + """
from sevendag_cli.sim.sweep import sweep
t = clock()
result = sweep(rs, "Ysolde.attack", values, load)
out = since(t)
""",
}

COMMAND = ["sweep", "A", "B", "-r", "d20", "--vary", "A.ac=1..20", "--fair", "--json"]
GOALS = {"d20, whole `sevendag sweep` of 20 values (fresh process)": 2000.0,
         "d20, 20 values: the sweep (exact)": 2000.0}
BASE = "d20, 20 values: 20 fight --exact solves (push + fractions)"


def child(code: str, env: dict[str, str]) -> tuple[float, float]:
    script = PRELUDE + code + "\nprint(json.dumps(out))\n"
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, check=True)
    cpu, wall = json.loads(done.stdout.strip().splitlines()[-1])
    return float(cpu), float(wall)


def command(env: dict[str, str]) -> tuple[float, float]:
    """The whole command in a fresh process: the child's CPU time and the wall time."""
    cpu, wall, _ = command_cpu(COMMAND, env=env, check=True, cwd=ROOT)
    return cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PYTHONPYCACHEPREFIX=cache, PYTHONPATH=str(ROOT))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        print(f"{'what':<62} {'CPU':>9} {'wall':>9} {'goal':>8} {'ratio':>6}")
        figures: dict[str, float] = {}
        jobs = {"d20, whole `sevendag sweep` of 20 values (fresh process)": None, **CASES}
        for name, code in jobs.items():
            run = (lambda: command(env)) if code is None else (lambda c=code: child(c, env))
            run()  # warm-up: writes the bytecode
            runs = [run() for _ in range(args.repeat)]
            cpu = statistics.median(r[0] for r in runs)
            wall = statistics.median(r[1] for r in runs)
            figures[name] = cpu
            goal = GOALS.get(name)
            ratio = f"{cpu / goal:.2f}" if goal else ""
            goal_text = f"{goal:.0f} ms" if goal else ""
            print(f"{name:<62} {cpu:>6.1f} ms {wall:>6.1f} ms {goal_text:>8} {ratio:>6}", flush=True)
        sweep_cpu = figures["d20, 20 values: the sweep (exact)"]
        print(f"\n20 fight --exact solves ÷ the d20 sweep: {figures[BASE] / sweep_cpu:.1f}×  "
              f"(pushes without fractions ÷ sweep: "
              f"{figures['d20, 20 values: 20 fight --exact pushes (no fractions)'] / sweep_cpu:.1f}×)")


if __name__ == "__main__":
    main()
