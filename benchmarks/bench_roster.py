"""Rosters under optimal play, and the solved game kept between runs, run by hand (not
collected by pytest)::

    python benchmarks/bench_roster.py [--repeat 3] [--forty] [--jobs 2]

Each figure is a whole command in a fresh process (``python -m sevendag_cli ...``): the
child's CPU time (user + system, its workers included) and the wall time, medians of
``--repeat`` runs (the house-pair solve and the 6-sheet roster in turn), nothing kept between
runs unless said (``SEVENDAG_NO_CACHE``, or a fresh cache folder):

* **one house-pair solve**: ``fight --exact --tactic optimal`` (Brannoc and Ysolde, both
  optimal) — the unit of the ratios below;
* **6-sheet roster**: ``matrix`` of bench_matrix.py's six Sevendag sheets (sword and shield,
  two-handed, dual wield, a lance, a buckler, a shield wall) ``--tactic optimal --jobs 1``:
  its ratio to one house-pair solve (goal: at most 15x), then the same table again with its
  cells kept (a second run).  The roster's 15 games are not house-sized: the benchmark also
  prints their declared rounds (the games' sizes as ``SevendagGame.size`` estimates them
  before anything is built) in house games, and the roster's CPU per house game's worth of
  rounds against one house-pair solve;
* **odds at the table**: ``odds --tactic optimal`` from a fresh encounter, first (the game
  solved for the whole fight and kept) and again (a look-up), against a plain ``odds``
  (goal: at most 2x once solved), and the first ``advise`` (goal: 1 s of CPU or less);
* with ``--forty``: a 40-sheet roster (the six and 34 variations of them) under optimal play,
  ``--jobs N``: its wall and CPU time (aim: under 10 minutes on the 2-core machine).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from _common import command_cpu
from bench_matrix import SEVENDAG_SHEETS


def median_cpu(argv: list[str], repeat: int, **run: object) -> tuple[float, float]:
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(repeat):
        c, w, done = command_cpu(argv, **run)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.strip()}")
        cpu.append(c)
        wall.append(w)
    return statistics.median(cpu), statistics.median(wall)


def interleaved(argvs: list[list[str]], repeat: int,
                **run: object) -> list[tuple[float, float]]:
    """As :func:`median_cpu` for each command, the commands run in turn ``repeat`` times."""
    cpu: list[list[float]] = [[] for _ in argvs]
    wall: list[list[float]] = [[] for _ in argvs]
    for _ in range(repeat):
        for k, argv in enumerate(argvs):
            c, w = median_cpu(argv, 1, **run)
            cpu[k].append(c)
            wall[k].append(w)
    return [(statistics.median(c), statistics.median(w)) for c, w in zip(cpu, wall, strict=True)]


def write_roster(folder: Path, count: int) -> Path:
    """The six sheets, and variations of them (attack, defence, speed shifted) up to ``count``."""
    folder.mkdir(parents=True, exist_ok=True)
    bodies = list(SEVENDAG_SHEETS.items())
    for k in range(count):
        name, body = bodies[k % len(bodies)]
        if k >= len(bodies):
            shift = 1 + k // len(bodies)
            name = f"{name}{shift}"
            lines = []
            for line in body.splitlines():
                for field, delta in (("attack", shift % 3 - 1), ("defence", (shift + 1) % 3 - 1),
                                     ("speed", shift % 2)):
                    if line.startswith(f"{field} = "):
                        line = f"{field} = {int(line.split('=')[1]) + delta}"
                lines.append(line)
            body = "\n".join(lines) + "\n"
        (folder / f"{name.lower()}.toml").write_text(
            f'ruleset = "sevendag"\nname = "{name}"\n{body}', "utf-8")
    return folder


def roster_rows(folder: Path | None) -> int:
    """The declared rounds of every game a ``matrix --tactic optimal`` of the sheets in
    ``folder`` solves (each unordered pair once), as the game estimates them before building
    anything; ``None``: the house pair's one game."""
    import itertools

    from sevendag_cli.policies import OPTIMAL
    from sevendag_cli.rules import load_fighter, load_pair, load_ruleset
    from sevendag_cli.sevendag.game import SevendagGame

    rs = load_ruleset("sevendag")
    if folder is None:
        pairs = [load_pair(rs, None)]
    else:
        sheets = [load_fighter(str(p), rs) for p in sorted(folder.glob("*.toml"))]
        pairs = list(itertools.combinations(sheets, 2))
    total = 0
    for a, b in pairs:
        game = SevendagGame(rs, a, b)  # type: ignore[arg-type]
        seeds = [game.start_key(0), game.start_key(1)]
        total += game.size((OPTIMAL, OPTIMAL), seeds).rows
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--forty", action="store_true")
    args = parser.parse_args()
    cold = {**os.environ, "SEVENDAG_NO_CACHE": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        six = write_roster(root / "six", 6)
        table = ["matrix", str(six), "--tactic", "optimal", "--jobs", "1", "--json"]
        # the unit and the roster run in turn, so that a machine slower for a while weighs on
        # both terms of the ratio alike (this 2-core machine's speed drifts by a quarter)
        (one, one_wall), (c, w) = interleaved(
            [["fight", "--exact", "--tactic", "optimal", "--json"], table], args.repeat,
            env=cold)
        print(f"one house-pair solve (fight --exact --tactic optimal)  cpu {one:8.0f} ms  "
              f"wall {one_wall:8.0f} ms")
        print(f"6-sheet roster, optimal, 1 process                    cpu {c:8.0f} ms  "
              f"wall {w:8.0f} ms  x{c / one:5.1f} one solve (goal <= 15)")
        house_games = roster_rows(six) / roster_rows(None)
        print(f"  its 15 games hold {house_games:5.1f} house games' declared rounds: "
              f"x{c / house_games / one:4.2f} one solve per house game's worth")
        kept = {**os.environ, "SEVENDAG_CACHE": str(root / "cache")}
        median_cpu(table, 1, env=kept)
        c2, w2 = median_cpu(table, args.repeat, env=kept)
        print(f"6-sheet roster again, its cells kept                  cpu {c2:8.0f} ms  "
              f"wall {w2:8.0f} ms")
        table_dir = root / "table"
        table_dir.mkdir()
        at = {"cwd": table_dir, "env": {**os.environ, "SEVENDAG_CACHE": str(root / "cache2")}}
        command_cpu(["init", "--seed", "1"], **at)
        first, _, _ = command_cpu(["odds", "--tactic", "optimal"], **at)
        again, _ = median_cpu(["odds", "--tactic", "optimal"], args.repeat, **at)
        plain, _ = median_cpu(["odds"], args.repeat, **at)
        adv_first, _, _ = command_cpu(["advise"], cwd=table_dir,
                                      env={**os.environ, "SEVENDAG_CACHE": str(root / "cache3")})
        print(f"odds --tactic optimal: first {first:6.0f} ms (solved and kept), then "
              f"{again:6.0f} ms; plain odds {plain:6.0f} ms: x{again / plain:4.2f} (goal <= 2)")
        print(f"advise, first call (the game solved and kept)  cpu {adv_first:6.0f} ms "
              f"(goal <= 1000)")
        if args.forty:
            forty = write_roster(root / "forty", 40)
            c, w = median_cpu(["matrix", str(forty), "--tactic", "optimal", "--jobs",
                               str(args.jobs), "--json"], 1, env=cold)
            print(f"40-sheet roster, optimal, --jobs {args.jobs}                    cpu "
                  f"{c / 1000:8.1f} s  wall {w / 1000:8.1f} s (aim: under 600 s)")


if __name__ == "__main__":
    main()
