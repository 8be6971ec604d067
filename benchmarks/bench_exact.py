"""Exact odds benchmarks, run by hand (not collected by pytest)::

    python benchmarks/bench_exact.py [--repeat 5]

Every figure comes from fresh child processes (cold: nothing cached but Python's
bytecode, kept in a temporary folder), median of ``--repeat`` runs, CPU time of the
child (``time.process_time``) with the wall time beside it.  Goals:

* the Sevendag house pair (Brannoc, Ysolde) certified to 1e-12 (``fight --exact``'s
  solve): at most 1 s;
* d20 D-14 odds from any state: at most 30 ms (the first state of a process, the
  pair's tables kept as bytes; any later state is a look-up);
* what ``round --odds`` adds to ``round``: at most 50 ms — measured after importing
  what ``round`` imports and loading the pair, for two states (before and after);
* peak memory (``ru_maxrss``) of ``fight --exact``: under 200 MB;
* d20 at any size, the whole ``fight --exact`` command certified to 1e-12, CPU
  time of the child (its imports, the tables, the pass over the hit points, the exact
  fractions where the pair has them): 200 and 1,000 hit points each at most 2 s, 5,000
  each at most 30 s (run once: ``--repeat`` does not apply), with its peak memory.

For reference it also times ``import numpy`` and ``import icepool`` (the odds path
of Sevendag needs neither; d20's needs icepool for its tables unless they are kept).
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

# What `round` has imported and done before it could ask for odds.
ROUND_PRELUDE = """
import sevendag_cli.cli, sevendag_cli.store, sevendag_cli.sevendag.engine, sevendag_cli.d20.engine
from sevendag_cli.rules import load_pair, load_ruleset
"""

CASES: dict[str, str] = {
    "import numpy": """
t = clock()
import numpy
out = since(t)
""",
    "import icepool": """
t = clock()
import icepool
out = since(t)
""",
    "sevendag house pair, fight --exact solve (1e-12)": """
from sevendag_cli.rules import load_pair, load_ruleset
import numpy, icepool  # imports are not the solve
from sevendag_cli.sim.exact_fight import exact_fight
rs = load_ruleset("sevendag"); a, b = load_pair(rs, None)
t = clock()
r = exact_fight(rs, a, b, tolerance=1e-12)
out = since(t)
assert r.unresolved <= 1e-12, r.unresolved
""",
    "sevendag house pair, whole `fight --exact` (imports included)": """
t = clock()
from sevendag_cli.rules import load_pair, load_ruleset
from sevendag_cli.sim.exact_fight import exact_fight
rs = load_ruleset("sevendag"); a, b = load_pair(rs, None)
r = exact_fight(rs, a, b, tolerance=1e-12)
out = since(t)
""",
    "d20 D-14 from a state, tables kept as bytes": """
from sevendag_cli.rules import load_pair, load_ruleset
from sevendag_cli.d20.engine import D20FighterState, D20State
from sevendag_cli.d20.chain import d20_tables
rs = load_ruleset("d20"); a, b = load_pair(rs, None)
kept = d20_tables(rs, a, b).to_bytes()
for m in [m for m in sys.modules if m.startswith("sevendag_cli.sim")]:
    del sys.modules[m]
state = D20State(12, (D20FighterState("A", 45, 45), D20FighterState("B", 50, 50)), None)
t = clock()
from sevendag_cli.d20.chain import D20Tables, d20_odds
o = d20_odds(rs, a, b, state, tables=D20Tables.from_bytes(kept), tolerance=1e-12)
out = since(t)
assert o.unresolved <= 1e-12
""",
    "d20 D-14 from a state, tables from the sheets (icepool)": """
from sevendag_cli.rules import load_pair, load_ruleset
from sevendag_cli.d20.engine import D20FighterState, D20State
rs = load_ruleset("d20"); a, b = load_pair(rs, None)
state = D20State(12, (D20FighterState("A", 30, 45), D20FighterState("B", 41, 50)), "B")
t = clock()
from sevendag_cli.d20.chain import d20_odds
o = d20_odds(rs, a, b, state, tolerance=1e-12)
out = since(t)
""",
    "d20 D-14, a later state of the same fight": """
from sevendag_cli.rules import load_pair, load_ruleset
from sevendag_cli.d20.engine import D20FighterState, D20State
from sevendag_cli.d20.chain import d20_odds
rs = load_ruleset("d20"); a, b = load_pair(rs, None)
d20_odds(rs, a, b, D20State(0, (D20FighterState("A", 45, 45), D20FighterState("B", 50, 50)), None))
state = D20State(12, (D20FighterState("A", 30, 45), D20FighterState("B", 41, 50)), "B")
t = clock()
o = d20_odds(rs, a, b, state, tolerance=1e-12)
out = since(t)
""",
}

for tol in ("1e-12", "1e-6"):
    CASES[f"round --odds, sevendag house pair, two states ({tol})"] = ROUND_PRELUDE + f"""
from sevendag_cli.sevendag.engine import FighterState, SevendagState
rs = load_ruleset("sevendag"); a, b = load_pair(rs, None)
before = SevendagState(4, "Brannoc", (FighterState("Brannoc", ("light",), 1),
                                      FighterState("Ysolde", ("serious",), 3)))
after = SevendagState(5, "Ysolde", (FighterState("Brannoc", ("light", "light"), 2),
                                    FighterState("Ysolde", ("serious",), 3)))
t = clock()
from sevendag_cli.sim.moment import OddsSolver
solver = OddsSolver(rs, a, b, tolerance={tol})
o1, o2 = solver(before), solver(after)
out = since(t)
assert "numpy" not in sys.modules and "icepool" not in sys.modules
"""
CASES["round --odds, sevendag house pair, two states, odds kept as bytes"] = ROUND_PRELUDE + """
from sevendag_cli.sevendag.engine import FighterState, SevendagState
from sevendag_cli.sim.moment import OddsSolver
rs = load_ruleset("sevendag"); a, b = load_pair(rs, None)
kept = OddsSolver(rs, a, b).keep()
for m in [m for m in sys.modules if m.startswith("sevendag_cli.sim")]:
    del sys.modules[m]
before = SevendagState(4, "Brannoc", (FighterState("Brannoc", ("light",), 1),
                                      FighterState("Ysolde", ("serious",), 3)))
after = SevendagState(5, "Ysolde", (FighterState("Brannoc", ("light", "light"), 2),
                                    FighterState("Ysolde", ("serious",), 3)))
t = clock()
from sevendag_cli.sim.moment import OddsSolver
solver = OddsSolver(rs, a, b, kept=kept)
o1, o2 = solver(before), solver(after)
out = since(t)
assert o1.unresolved <= 1e-12 and o2.unresolved <= 1e-12
"""
CASES["sevendag house pair, building the odds to keep (numpy)"] = """
from sevendag_cli.rules import load_pair, load_ruleset
rs = load_ruleset("sevendag"); a, b = load_pair(rs, None)
t = clock()
from sevendag_cli.sim.moment import OddsSolver
kept = OddsSolver(rs, a, b).keep()
out = since(t)
"""
CASES["round --odds, d20 D-14, two states, tables kept as bytes"] = ROUND_PRELUDE + """
from sevendag_cli.d20.engine import D20FighterState, D20State
rs = load_ruleset("d20"); a, b = load_pair(rs, None)
from sevendag_cli.d20.chain import d20_tables
kept = d20_tables(rs, a, b).to_bytes()
for m in [m for m in sys.modules if m.startswith("sevendag_cli.sim")]:
    del sys.modules[m]
before = D20State(6, (D20FighterState("A", 40, 45), D20FighterState("B", 44, 50)), None)
after = D20State(7, (D20FighterState("A", 40, 45), D20FighterState("B", 38, 50)), None)
t = clock()
from sevendag_cli.d20.chain import D20Chain, D20Tables
chain = D20Chain(D20Tables.from_bytes(kept))
o1, o2 = chain.odds(before, rs.round_cap, 1e-12), chain.odds(after, rs.round_cap, 1e-12)
out = since(t)
"""
CASES["round --odds, d20 D-14, two states, tables from the sheets"] = ROUND_PRELUDE + """
from sevendag_cli.d20.engine import D20FighterState, D20State
rs = load_ruleset("d20"); a, b = load_pair(rs, None)
before = D20State(6, (D20FighterState("A", 40, 45), D20FighterState("B", 44, 50)), None)
after = D20State(7, (D20FighterState("A", 40, 45), D20FighterState("B", 38, 50)), None)
t = clock()
from sevendag_cli.sim.moment import OddsSolver
solver = OddsSolver(rs, a, b)
o1, o2 = solver(before), solver(after)
out = since(t)
"""
MEMORY = {
    "peak memory, sevendag fight --exact": """
from sevendag_cli.rules import load_pair, load_ruleset
from sevendag_cli.sim.exact_fight import exact_fight
rs = load_ruleset("sevendag"); a, b = load_pair(rs, None)
exact_fight(rs, a, b)
out = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 0.0)
""",
    "peak memory, d20 fight --exact": """
from sevendag_cli.rules import load_pair, load_ruleset
from sevendag_cli.sim.exact_fight import exact_fight
rs = load_ruleset("d20"); a, b = load_pair(rs, None)
exact_fight(rs, a, b)
out = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 0.0)
""",
}

GOALS = {
    "sevendag house pair, fight --exact solve (1e-12)": 1000.0,
    "d20 D-14 from a state, tables kept as bytes": 30.0,
    "round --odds, sevendag house pair, two states (1e-12)": 50.0,
    "round --odds, sevendag house pair, two states (1e-6)": 50.0,
    "round --odds, d20 D-14, two states, tables kept as bytes": 50.0,
    "round --odds, sevendag house pair, two states, odds kept as bytes": 50.0,
    "round --odds, d20 D-14, two states, tables from the sheets": 50.0,
    "peak memory, sevendag fight --exact": 200.0,
    "peak memory, d20 fight --exact": 200.0,
}


WHOLE = {  # hit points each -> goal (ms of CPU), the whole `fight --exact` command
    200: 2000.0,
    1000: 2000.0,
    5000: 30000.0,
}


def whole_command(hp: int, env: dict[str, str]) -> tuple[float, float, float]:
    """``fight a b -r d20 --exact`` at ``hp`` hit points each: CPU, wall (ms), peak memory (MB)."""
    import resource

    args = ["fight", "a", "b", "-r", "d20", "--exact", "--json", "--set", f"A.hp={hp}",
            "--set", f"B.hp={hp}"]
    cpu, wall, done = command_cpu(args, env=env, cwd=str(ROOT / "rulesets" / "fighters"))
    if done.returncode != 0:
        raise SystemExit(f"fight --exact at {hp} HP failed: {done.stderr.strip()}")
    doc = json.loads(done.stdout)
    assert doc["unresolved"] <= 1e-12, doc["unresolved"]
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return cpu, wall, peak


def child(code: str, env: dict[str, str]) -> tuple[float, float]:
    script = PRELUDE + code + "\nprint(json.dumps(out))\n"
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, check=True)
    cpu, wall = json.loads(done.stdout.strip().splitlines()[-1])
    return float(cpu), float(wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--whole", action="store_true",
                        help="only the whole d20 fight --exact commands at 200, 1,000, 5,000 HP")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PYTHONPYCACHEPREFIX=cache)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        print(f"{'what':<66} {'CPU':>9} {'wall':>9} {'goal':>8} {'ratio':>6}")
        for name, code in ({} if args.whole else {**CASES, **MEMORY}).items():
            child(code, env)  # warm-up: writes the bytecode
            runs = [child(code, env) for _ in range(args.repeat)]
            cpu = statistics.median(r[0] for r in runs)
            wall = statistics.median(r[1] for r in runs)
            goal = GOALS.get(name)
            unit = "MB" if name.startswith("peak") else "ms"
            ratio = f"{cpu / goal:.2f}" if goal else ""
            goal_text = f"{goal:.0f} {unit}" if goal else ""
            wall_text = "" if unit == "MB" else f"{wall:.1f} ms"
            print(f"{name:<66} {cpu:>6.1f} {unit} {wall_text:>9} {goal_text:>8} {ratio:>6}",
                  flush=True)
        for hp, goal in WHOLE.items():
            repeat = 1 if hp >= 5000 else args.repeat
            runs3 = [whole_command(hp, env) for _ in range(repeat)]
            cpu = statistics.median(r[0] for r in runs3)
            wall = statistics.median(r[1] for r in runs3)
            name = f"d20 whole fight --exact, {hp:,} HP each (1e-12)"
            print(f"{name:<66} {cpu:>6.0f} ms {wall:>6.0f} ms {goal:>5.0f} ms {cpu / goal:>6.2f}"
                  f"   (peak of the children so far {runs3[-1][2]:.0f} MB)", flush=True)


if __name__ == "__main__":
    main()
