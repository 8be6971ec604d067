"""d20 exact numbers: the whole ``fight --exact`` against a plain float chain, the rounds
distribution, and the exact fractions' cost (run by hand, not collected by pytest)::

    python benchmarks/bench_d20_rounds.py [--repeat 5]

Every figure comes from fresh child processes (nothing cached but Python's bytecode, kept in a
temporary folder), median of ``--repeat`` runs, CPU time of the child (user + system):

* **d20 200 HP each**: the whole ``fight a b -r d20 --exact --json --set A.hp=200 --set
  B.hp=200`` (imports, the round tables, the odds, the rounds distribution, the JSON) against
  *a plain float chain of the same fight*: a script that imports numpy and the round tables'
  code, builds the tables (icepool) and solves the fight played to the end in float64 by the
  textbook backward pass over both fighters' hit points (numpy, one anti-diagonal at a time),
  printing P(A wins).  Goal: the whole command at most 1.5 times the float chain.
* **Kestrel against Brute** (the sheets of tests/helpers.py): the rounds distribution alone,
  in one process (:func:`sevendag_cli.d20.rounds.timed`, the tables built), and the whole
  ``fight --exact`` command.
* **the exact fractions**: at the largest size whose fractions come by default (the size rule,
  :func:`sevendag_cli.d20.exact.fractions_pay`), a whole process computing the exact odds with
  them against one without them (goal: at most 1.5 times); and ``fight --exact --fractions``
  at 100 and 200 HP each against the same command without them (whose fractions the size rule
  leaves out by default), the ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import PRELUDE, ROOT, command_cpu

FLOAT_CHAIN = """
t = clock()
import numpy as np
from sevendag_cli.rules import load_pair, load_ruleset
from sevendag_cli.d20.chain import d20_tables
from msgspec.structs import replace
rs = load_ruleset("d20"); a, b = load_pair(rs, None)
a, b = replace(a, hp=HP), replace(b, hp=HP)
tab = d20_tables(rs, a, b)
p = tab.first / tab.first_den
qa = {d: w / tab.den_a for d, w in tab.damage_a}
qb = {d: w / tab.den_b for d, w in tab.damage_b}
stay = p * qa.get(0, 0.0) + (1 - p) * qb.get(0, 0.0)
w = np.zeros((a.hp + 1, b.hp + 1))
# W(ha, hb) = (sum p qa(d) W(ha, hb - d) + sum (1 - p) qb(d) W(ha - d, hb)) / (1 - stay),
# a fighter at 0 or below: 1 (b down) or 0; one anti-diagonal ha + hb = k at a time.
for k in range(2, a.hp + b.hp + 1):
    ha = np.arange(max(1, k - b.hp), min(a.hp, k - 1) + 1)
    hb = k - ha
    v = np.zeros(ha.size)
    for d, q in qa.items():
        if d > 0:
            v += p * q * np.where(hb - d <= 0, 1.0, w[ha, np.maximum(hb - d, 0)])
    for d, q in qb.items():
        if d > 0:
            v += (1 - p) * q * np.where(ha - d <= 0, 0.0, w[np.maximum(ha - d, 0), hb])
    w[ha, hb] = v / (1.0 - stay)
print(w[a.hp, b.hp], file=sys.stderr)
out = since(t)
"""

ROUNDS = """
from sevendag_cli.d20.chain import chain_for
from sevendag_cli.d20.rounds import timed
from sevendag_cli.library import matchup
m = matchup(KESTREL, BRUTE, "d20")
chain = chain_for(m.ruleset, m.a, m.b)
p = chain.p_first
t = clock()
res = timed(chain.jumps, m.a.hp, m.b.hp, [(0, p), (1, 1 - p)], None, 1e-12)
out = since(t)
assert res.push.tail <= 1e-12
"""


EDGE_SIZE = """
from sevendag_cli.library import matchup
from sevendag_cli.d20.chain import chain_for
from sevendag_cli.d20.exact import fractions_pay
m = matchup("A", "B", "d20")
h = 1
while fractions_pay(chain_for(m.ruleset, m.a, m.b).jumps, h + 1, h + 1):
    h += 1
print(h)
"""

EXACT_AT = """
from sevendag_cli.library import matchup
m = matchup("A", "B", "d20").vary("A.hp", str(HP)).vary("B.hp", str(HP))
r = m.exact(fractions=FRACTIONS).result
assert (r.fractions is not None) is (FRACTIONS is None)
"""


def child(code: str, env: dict[str, str], **names: object) -> float:
    """CPU ms of a child script (its own clock)."""
    import json

    script = PRELUDE + "".join(f"{k} = {v!r}\n" for k, v in names.items()) + code \
        + "\nprint(json.dumps(out))\n"
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, check=True)
    cpu, _ = json.loads(done.stdout.strip().splitlines()[-1])
    return float(cpu)


def whole_child(code: str, env: dict[str, str], **names: object) -> float:
    """CPU ms of a whole child process running ``code`` (imports included)."""
    script = PRELUDE + "".join(f"{k} = {v!r}\n" for k, v in names.items()) + code
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                   check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def command(args: list[str], env: dict[str, str], cwd: str) -> float:
    cpu, _, done = command_cpu(args, env=env, cwd=cwd)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr.strip()}")
    return cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    fighters = str(ROOT / "rulesets" / "fighters")
    sys.path.insert(0, str(ROOT))
    from tests.helpers import BRUTE, KESTREL

    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, PYTHONPYCACHEPREFIX=cache, SEVENDAG_NO_CACHE="1")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        Path(work, "kestrel.toml").write_text(KESTREL, "utf-8")
        Path(work, "brute.toml").write_text(BRUTE, "utf-8")
        print(f"load average {os.getloadavg()[0]:.2f} (2 cores); medians of {args.repeat} runs, CPU")

        def median(f: object, *a: object, **k: object) -> float:
            f(*a, **k)  # type: ignore[operator]  # warm-up: writes the bytecode
            return statistics.median(f(*a, **k) for _ in range(args.repeat))  # type: ignore[operator]

        hp = ["--set", "A.hp=200", "--set", "B.hp=200"]
        whole = median(command, ["fight", "a", "b", "-r", "d20", "--exact", "--json", *hp], env,
                       fighters)
        float_chain = median(whole_child, FLOAT_CHAIN, env, HP=200)
        print(f"d20 200 HP each: whole fight --exact {whole:.0f} ms; a plain float chain "
              f"{float_chain:.0f} ms; ratio {whole / float_chain:.2f} (goal <= 1.5)")
        rounds = median(child, ROUNDS, env, KESTREL=str(Path(work, "kestrel.toml")),
                        BRUTE=str(Path(work, "brute.toml")))
        whole_kb = median(command, ["fight", "kestrel.toml", "brute.toml", "-r", "d20", "--exact",
                                    "--json"], env, work)
        print(f"Kestrel against Brute: the rounds distribution {rounds:.1f} ms; the whole "
              f"fight --exact {whole_kb:.0f} ms")
        edge = median(whole_child, EDGE_SIZE, env)  # warm the bytecode, then the size itself
        size = int(subprocess.run([sys.executable, "-c", PRELUDE + EDGE_SIZE], env=env,
                                  capture_output=True, text=True, check=True).stdout)
        with_them = median(whole_child, EXACT_AT, env, HP=size, FRACTIONS=None)
        without = median(whole_child, EXACT_AT, env, HP=size, FRACTIONS=False)
        print(f"d20 {size} HP each, the largest size whose fractions come by default: exact odds "
              f"with them {with_them:.0f} ms, without {without:.0f} ms; ratio "
              f"{with_them / without:.2f} (goal <= 1.5)")
        del edge
        for size in (100, 200):
            hp = ["--set", f"A.hp={size}", "--set", f"B.hp={size}"]
            base = ["fight", "a", "b", "-r", "d20", "--exact", "--json", *hp]
            plain = median(command, base, env, fighters)
            with_fractions = median(command, [*base, "--fractions"], env, fighters)
            print(f"d20 {size} HP each: fight --exact {plain:.0f} ms (no fractions by default); "
                  f"--fractions {with_fractions:.0f} ms ({with_fractions / plain:.2f}x)")


if __name__ == "__main__":
    main()
