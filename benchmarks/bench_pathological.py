"""Peak memory and time of valid but pathological fights, run by hand::

    python benchmarks/bench_pathological.py [--tree OTHER_CHECKOUT]

Prints, for each case, the wall time, the peak resident memory (RSS) of the command and the
bytes it wrote: a 10,000-round fight (the longest the round cap allows) in ``--json``,
``--jsonl`` and the display; ``--runs 100000`` with a ``1000d1000`` weapon; and a fight that
can never end (refused at once).  ``--tree`` runs the same cases with another checkout's
``sevendag_cli`` (e.g. ``git archive`` of an older commit) for a before/after comparison.
The goal: every case under 300 MB.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULESETS = ROOT / "rulesets"

# A child that runs the command and reports its peak RSS (its only child, so RUSAGE_CHILDREN
# is that command's alone).
MEASURE = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(done.returncode, peak, len(done.stdout), done.stderr.decode()[-200:].replace(chr(10), ' '))
"""


def hopeless(name: str) -> str:
    """Brannoc renamed, attack -100 and defence 100: he attacks, and never wounds."""
    text = (RULESETS / "fighters" / "brannoc.toml").read_text("utf-8")
    return (text.replace('name = "Brannoc"', f'name = "{name}"')
            .replace("attack = 8", "attack = -100").replace("defence = 6", "defence = 100"))


def setup(folder: Path) -> None:
    (folder / "h1.toml").write_text(hopeless("Hob"), "utf-8")
    (folder / "h2.toml").write_text(hopeless("Nob"), "utf-8")
    (folder / "w1.toml").write_text(hopeless("Wall").replace('"weapons-attack"', '"full-defence"'))
    (folder / "w2.toml").write_text(hopeless("Moat").replace('"weapons-attack"', '"full-defence"'))
    a = (RULESETS / "fighters" / "a.toml").read_text("utf-8")
    (folder / "wide.toml").write_text(a.replace('damage = "1d6"', 'damage = "1000d1000"'), "utf-8")


CASES = [
    ("10,000 rounds, --json", ["fight", "h1.toml", "h2.toml", "--cap", "10000", "--seed", "1", "--json"]),
    ("10,000 rounds, --jsonl", ["fight", "h1.toml", "h2.toml", "--cap", "10000", "--seed", "1", "--jsonl"]),
    ("10,000 rounds, display", ["fight", "h1.toml", "h2.toml", "--cap", "10000", "--seed", "1"]),
    ("1000d1000 weapon, --runs 100000",
     ["fight", "wide.toml", "B", "--runs", "100000", "--seed", "1", "--json"]),
    ("a fight that cannot end", ["fight", "w1.toml", "w2.toml", "--json"]),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", help="another checkout whose sevendag_cli to measure instead")
    args = parser.parse_args()
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100", "LANG": "C.UTF-8"}
    env["PYTHONPATH"] = str(Path(args.tree).resolve()) if args.tree else str(ROOT)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env["SEVENDAG_HOME"] = str(folder / "_home")
        setup(folder)
        print(f"{'case':36} {'exit':>4} {'time':>8} {'peak RSS':>10} {'output':>12}")
        for name, command in CASES:
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", MEASURE, sys.executable, "-m", "sevendag_cli",
                                   *command], cwd=folder, env=env, capture_output=True, text=True)
            elapsed = time.perf_counter() - start
            code, peak, size, err = done.stdout.split(" ", 3)
            print(f"{name:36} {code:>4} {elapsed:7.1f}s {int(peak) / 1024:8.0f} MB {int(size):>12,}"
                  + (f"  {err.strip()[:80]}" if code != "0" else ""))


if __name__ == "__main__":
    main()
