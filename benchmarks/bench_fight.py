"""Benchmarks, run by hand (not collected by pytest)::

    python benchmarks/bench_fight.py [--seconds 3] [--memory-runs 10000000]

On the D-14 duel (Le combat, fighters A and B) it prints:

* step-by-step duels per second (``engine.d20.fight`` with ``SeededDice``);
* vectorised duels per second (``sim.vector_d20.simulate_d20_batch``) and the ratio;
* the exact solve time (``sim.exact_d20.exact_d20``);
* the start-up of ``sevendag fight --json`` against ``python -c "import typer"``
  (median of several runs; skipped if the ``sevendag`` command is not installed);
* with ``--memory-runs N``: the peak memory of ``simulate`` for N runs, in a child process.
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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from sevendag_cli.d20.engine import fight  # noqa: E402
from sevendag_cli.d20.exact import exact_d20  # noqa: E402
from sevendag_cli.d20.rules import D20Fighter, D20Ruleset  # noqa: E402
from sevendag_cli.d20.vector import simulate_d20_batch  # noqa: E402
from sevendag_cli.dice import SeededDice  # noqa: E402
from sevendag_cli.rules import load_pair, load_ruleset  # noqa: E402


def d14() -> tuple[D20Ruleset, D20Fighter, D20Fighter]:
    rs = load_ruleset("d20")
    a, b = load_pair(rs, None)
    assert isinstance(rs, D20Ruleset) and isinstance(a, D20Fighter) and isinstance(b, D20Fighter)
    return rs, a, b


def step_rate(seconds: float) -> float:
    rs, a, b = d14()
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        fight(rs, a, b, SeededDice(n))
        n += 1
    return n / (time.perf_counter() - start)


def vector_rate(seconds: float, batch: int = 100_000) -> float:
    rs, a, b = d14()
    rng = np.random.Generator(np.random.PCG64(1))
    simulate_d20_batch(rs, a, b, 1000, rng, rs.round_cap)  # warm up
    n = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        simulate_d20_batch(rs, a, b, batch, rng, rs.round_cap)
        n += batch
    return n / (time.perf_counter() - start)


def exact_ms(repeat: int = 15) -> tuple[float, float, float]:
    """Median wall and CPU milliseconds of one exact solve (after a warm-up)."""
    rs, a, b = d14()
    result = exact_d20(rs, a, b)
    wall, cpu = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        result = exact_d20(rs, a, b)
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return (statistics.median(wall) * 1000, statistics.median(cpu) * 1000,
            float(result.win_probability[0]))


def median_run(cmd: list[str], repeat: int, cwd: str) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def startup(repeat: int) -> None:
    exe = shutil.which("sevendag") or str(Path(sys.executable).with_name("sevendag"))
    if not Path(exe).is_file():
        print("start-up: skipped (the sevendag command is not installed)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        env_cwd = tmp  # no encounter or config lying around
        probe = subprocess.run([exe, "fight", "--json", "--seed", "1"], cwd=env_cwd,
                               capture_output=True, check=False)
        if probe.returncode != 0:
            print(f"start-up: skipped (sevendag fight --json exited {probe.returncode})")
            return
        cli = median_run([exe, "fight", "--json", "--seed", "1"], repeat, env_cwd)
        base = median_run([sys.executable, "-c", "import typer"], repeat, env_cwd)
    print(f"start-up: sevendag fight --json {cli * 1000:.0f} ms, "
          f"python -c 'import typer' {base * 1000:.0f} ms, ratio {cli / base:.2f}x "
          f"(median of {repeat})")


CHILD = """
import resource, sys, time
from sevendag_cli.rules import load_pair, load_ruleset
from sevendag_cli.sim.runner import simulate
rs = load_ruleset("d20"); a, b = load_pair(rs, None)
t = time.perf_counter()
r = simulate(rs, a, b, int(sys.argv[1]), seed=1)
dt = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{r.runs} {dt:.1f} {peak:.0f} {r.fighters[0].win_probability:.5f}")
"""


def memory(runs: int) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(runs)], capture_output=True,
                         text=True, env=env, check=True).stdout.split()
    print(f"simulate {int(out[0]):,} runs: {out[1]} s, peak RSS {out[2]} MB, "
          f"P(A wins) {out[3]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per throughput test")
    parser.add_argument("--repeat", type=int, default=7, help="start-up runs (median)")
    parser.add_argument("--memory-runs", type=int, default=0, help="also measure simulate peak")
    args = parser.parse_args()

    step = step_rate(args.seconds)
    print(f"step-by-step: {step:,.0f} duels/s")
    vec = vector_rate(args.seconds)
    print(f"vectorised:   {vec:,.0f} duels/s")
    print(f"ratio:        {vec / step:,.0f}x")
    wall, cpu, p = exact_ms()
    print(f"exact solve:  {wall:.1f} ms wall, {cpu:.1f} ms CPU (medians), P(A wins) = {p:.6f}")
    startup(args.repeat)
    if args.memory_runs:
        memory(args.memory_runs)


if __name__ == "__main__":
    main()
