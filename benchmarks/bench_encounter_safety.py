"""Encounter safety under races and crashes, run by hand (not collected by pytest)::

    python benchmarks/bench_encounter_safety.py [--race 290] [--kills 500]
                                                [--store-tries 2000] [--store-kills 2000]

Prints, for each run, tries / saved / refused / corrupt / lost / litter (see ``tests/stress.py``):

* store level: 8 forked processes racing ``lock → load → round → save`` on one encounter;
  then a process killed (SIGKILL) mid-save, again and again;
* CLI level: ``--race`` real ``sevendag round --json`` commands, 10 started at once; then
  ``--kills`` real ``sevendag round`` commands killed at a random moment of their run.

Every figure but saved and refused must be 0.  The reduced versions run in the test suite
(``tests/test_stress.py``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import stress  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--race", type=int, default=290, help="racing CLI commands")
    parser.add_argument("--kills", type=int, default=500, help="CLI commands killed")
    parser.add_argument("--store-tries", type=int, default=2000, help="store-level saves tried")
    parser.add_argument("--store-kills", type=int, default=2000, help="store-level kills")
    args = parser.parse_args()
    runs = [
        ("store race (8 processes)", lambda d: stress.store_race(d, 8, args.store_tries // 8)),
        ("store kill -9 mid-save", lambda d: stress.store_kill(d, args.store_kills)),
        ("cli race (10 at once)", lambda d: stress.cli_race(d, args.race, 10)),
        ("cli kill -9 during round", lambda d: stress.cli_kill(d, args.kills)),
    ]
    bad = 0
    for what, run in runs:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            report = run(Path(tmp))
            print(report.line(what) + f"  ({time.perf_counter() - start:.1f} s)", flush=True)
            bad += report.corrupt + report.lost + report.litter + report.bad_errors
    raise SystemExit(1 if bad else 0)


if __name__ == "__main__":
    main()
