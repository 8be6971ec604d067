"""Matchup tables (``matrix``), run by hand (not collected by pytest)::

    python benchmarks/bench_matrix.py [--repeat 3] [--jobs 2]

The rosters are written here (varied sheets: light and heavy weapons, armour, magic,
critical ranges and factors, unarmed for d20; sword and shield, two-handed, dual
wield, an empty hand beside a weapon, custom allocations, every metal for Sevendag):

* a d20 roster of 10 sheets, 90 ordered matchups, exact: at most 5 s on 2 cores;
* a Sevendag roster of 6 sheets, 30 ordered matchups, certified exact: at most 30 s.

Every figure comes from fresh child processes (cold: nothing cached but Python's
bytecode, written once before), median of ``--repeat`` runs: wall time, and CPU time (the child's, plus its
worker processes' for the whole command).  The split says where the time goes:

* **imports** — the command's modules, then numpy and icepool (what the workers use);
* **load** — reading and checking the sheets;
* **solve, 1 process** — every matchup in the parent (``--jobs 1``), and per matchup;
* **pool start** — forking the workers and a first empty task on each;
* **solve, N processes** — the same table with ``--jobs N`` (wall; the ratio to one
  process is the speed-up), and the workers' CPU time: in all (against one process's: the
  cost of the processes) and the busiest worker's (one process's CPU divided by it is the
  speed-up on idle cores, which a machine shared with other work cannot show in wall time);
* **whole command** — ``sevendag matrix FOLDER --json --jobs N``, start to end.

It also compares, for one d20 pair, the matrix's solve (the hit-point DAG of the odds
from any moment, tables mirrored for the other order, at the matrix's tolerance 1e-9)
with ``fight --exact``'s push (with its fractions), at 1e-12 and at 1e-9.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import PRELUDE, ROOT, command_cpu

D20_SHEETS = {
    # name: (level, str, dex, con, wis, bba, armour, dodge, hp, weapon lines)
    "Aela": (5, 12, 18, 8, 5, 3, 0, 0, 45, 'name = "rapier"\ndamage = "1d6"\ncrit_range = 18'),
    "Borin": (5, 18, 10, 14, 8, 4, 5, 0, 60, 'name = "war axe"\ndamage = "1d12"\ncrit_factor = 3'),
    "Cyra": (4, 10, 16, 10, 14, 2, 2, 2, 35,
             'name = "staff"\ndamage = "1d6"\nmagic = "1d6"'),
    "Dorn": (6, 16, 12, 16, 10, 5, 6, 0, 70, 'name = "greatsword"\ndamage = "2d6"\ncrit_range = 19'),
    "Elke": (3, 14, 14, 12, 12, 3, 3, 1, 40, 'name = "spear"\ndamage = "1d8"\ntype = 1'),
    "Fenn": (2, 10, 18, 10, 10, 2, 1, 3, 28,
             'name = "dagger"\ndamage = "1d4"\ncrit_range = 19\ncrit_factor = 3'),
    "Gunna": (7, 20, 8, 18, 6, 6, 4, 0, 80, 'name = "maul"\ndamage = "2d8"'),
    "Hale": (5, 13, 13, 13, 13, 4, 4, 1, 50, 'name = "longsword"\ndamage = "1d8"\ncrit_range = 19'),
    "Iver": (4, 15, 11, 14, 9, 3, 2, 0, 55, None),  # unarmed (D-11)
    "Juna": (6, 11, 17, 11, 16, 4, 3, 2, 42,
             'name = "enchanted bow"\ndamage = "1d8"\nmagic = "1d4"\ncrit_factor = 3'),
}

SEVENDAG_SHEETS = {
    "Warden": """speed = 3
attack = 8
defence = 6
tactic = "weapons-attack"
[[hands]]
die = 10
holds = "sword"
[[hands]]
die = 8
holds = "shield"
[items.sword]
kind = "weapon"
label = "iron longsword"
metal = "iron"
skill = 14
[items.shield]
kind = "shield"
label = "round shield"
""",
    "Reaver": """speed = 2
attack = 9
defence = 5
[[hands]]
die = 8
holds = "greatsword"
[[hands]]
die = 8
holds = "greatsword"
[items.greatsword]
kind = "weapon"
label = "steel greatsword"
hands = 2
metal = "steel"
skill = 12
""",
    "Twinblade": """speed = 4
attack = 8
defence = 5
[[hands]]
die = 8
holds = "sword"
[[hands]]
die = 6
holds = "dagger"
[items.sword]
kind = "weapon"
label = "iron sword"
metal = "iron"
skill = 13
[items.dagger]
kind = "weapon"
label = "bronze dagger"
metal = "bronze"
skill = 15
""",
    "Lancer": """speed = 1
attack = 10
defence = 4
[[hands]]
die = 10
holds = "spear"
[[hands]]
die = 10
holds = "spear"
[items.spear]
kind = "weapon"
label = "bronze spear"
hands = 2
metal = "bronze"
skill = 11
""",
    "Shieldwall": """speed = 2
attack = 7
defence = 8
tactic = "custom"
allocation = ["attack", "defence"]
[[hands]]
die = 8
holds = "axe"
[[hands]]
die = 12
holds = "tower"
[items.axe]
kind = "weapon"
label = "iron axe"
metal = "iron"
skill = 14
[items.tower]
kind = "shield"
label = "tower shield"
""",
    "Duelist": """speed = 5
attack = 9
defence = 6
tactic = "all-out"
[[hands]]
die = 12
holds = "rapier"
[[hands]]
die = 6
[items.rapier]
kind = "weapon"
label = "star-metal rapier"
metal = "starmetal"
skill = 16
""",
}


def write_rosters(folder: Path) -> tuple[Path, Path]:
    d20 = folder / "d20"
    sev = folder / "sevendag"
    d20.mkdir()
    sev.mkdir()
    for name, (level, st, dex, con, wis, bba, armour, dodge, hp, weapon) in D20_SHEETS.items():
        text = (f'ruleset = "d20"\nname = "{name}"\nlevel = {level}\nstr = {st}\ndex = {dex}\n'
                f"con = {con}\nwis = {wis}\nbba = {bba}\narmour = {armour}\ndodge = {dodge}\n"
                f"hp = {hp}\n")
        if weapon is not None:
            text += f"\n[weapon]\n{weapon}\n"
        (d20 / f"{name.lower()}.toml").write_text(text, "utf-8")
    for name, body in SEVENDAG_SHEETS.items():
        (sev / f"{name.lower()}.toml").write_text(
            f'ruleset = "sevendag"\nname = "{name}"\n{body}', "utf-8")
    return d20, sev


SPLIT = """
t = clock()
import sevendag_cli.cli
from sevendag_cli.commands import matrix
from sevendag_cli.rules.roster import first_sheet, read_sheets, roster_fighters
from sevendag_cli.options import pick_ruleset
from sevendag_cli.sim import roster as sim_roster
out["imports: the command"] = since(t)
t = clock()
import numpy, icepool
import sevendag_cli.sim.push, sevendag_cli.d20.chain, sevendag_cli.d20.exact
import sevendag_cli.sevendag.chain, sevendag_cli.sevendag.exact
out["imports: numpy, icepool, solvers"] = since(t)
t = clock()
docs = read_sheets([FOLDER])
rs = pick_ruleset(None, [first_sheet(docs)])
fighters, sources, skipped = roster_fighters(rs, docs)
out["load the sheets"] = since(t)
n = len(fighters)
if MODE == "serial":
    t = clock()
    r = sim_roster.play_roster(rs, fighters, jobs=1)
    out["solve, 1 process"] = since(t)
    c, w = out["solve, 1 process"]
    out["solve, 1 process, per matchup"] = (c / (n * (n - 1)), w / (n * (n - 1)))
    out["_unresolved"] = max(c.unresolved for row in r.cells for c in row if c is not None)
    out["_method"] = r.method
else:
    from concurrent.futures import ProcessPoolExecutor, wait
    t = clock()
    with ProcessPoolExecutor(JOBS, mp_context=sim_roster._context()) as ex:
        wait([ex.submit(os.getpid) for _ in range(JOBS)])
    out[f"pool start ({JOBS} workers, an empty task each)"] = since(t)
    # Each worker writes its CPU time so far after each task (forked: it runs this wrapper).
    import tempfile
    log = tempfile.mkdtemp()
    play = sim_roster.play_chunk
    def timed(pairs):
        result = play(pairs)
        with open(os.path.join(log, str(os.getpid())), "w") as fh:
            fh.write(repr(time.process_time()))
        return result
    timed.__module__, timed.__qualname__ = "sevendag_cli.sim.roster", "play_chunk"
    sim_roster.play_chunk = timed
    t = clock()
    r = sim_roster.play_roster(rs, fighters, jobs=JOBS)
    out[f"solve, {JOBS} processes"] = since(t)
    cpus = [float(open(os.path.join(log, f)).read()) * 1000 for f in os.listdir(log)]
    out["_workers"] = [max(cpus), sum(cpus)]
"""

PAIR = """
from sevendag_cli.rules import load_ruleset, load_fighter
import icepool
from sevendag_cli.sim.exact_fight import exact_fight
from sevendag_cli.sim.roster import MATRIX_TOLERANCE, Setup, play_pair, _set_up
rs = load_ruleset("d20")
a = load_fighter(os.path.join(FOLDER, "dorn.toml"), rs)
b = load_fighter(os.path.join(FOLDER, "hale.toml"), rs)
exact_fight(rs, a, b); exact_fight(rs, b, a)  # warm icepool's caches for both (numpy imported)
for tol in (1e-12, MATRIX_TOLERANCE):
    t = clock()
    exact_fight(rs, a, b, tolerance=tol); exact_fight(rs, b, a, tolerance=tol)
    out[f"fight --exact, both orders, {tol:g} (push + fractions)"] = since(t)
setup = Setup(rs, (a, b), rs.round_cap, MATRIX_TOLERANCE, None, 0)
_set_up(setup)
t = clock()
play_pair(setup, 0, 1)
out[f"matrix, both orders, {MATRIX_TOLERANCE:g} (DAG, mirrored tables)"] = since(t)
"""


WARM_UP = """
import numpy, icepool
import sevendag_cli.cli, sevendag_cli.commands.matrix, sevendag_cli.rules.roster
import sevendag_cli.sim.roster, sevendag_cli.sim.push, sevendag_cli.sim.runner
import sevendag_cli.d20.chain, sevendag_cli.d20.exact, sevendag_cli.sim.exact_fight
import sevendag_cli.sevendag.chain, sevendag_cli.sevendag.exact
import sevendag_cli.render.rich_matrix, sevendag_cli.render.matrix_data
"""


def warm_up() -> None:
    """Every module imported once, so that its bytecode is there (as installed): the figures
    count importing, not compiling."""
    subprocess.run([sys.executable, "-c", WARM_UP], check=True, cwd=ROOT)


def child(code: str, folder: Path, mode: str, jobs: int) -> dict[str, object]:
    script = (PRELUDE + f"FOLDER = {str(folder)!r}\nMODE = {mode!r}\nJOBS = {jobs}\nout = {{}}\n"
              + code + "\nprint(json.dumps(out))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    data: dict[str, object] = json.loads(done.stdout)
    return data


def whole(folder: Path, jobs: int) -> tuple[float, float]:
    """``sevendag matrix FOLDER --json --jobs N``: wall and CPU (with its workers), in ms."""
    cpu, wall, _ = command_cpu(["matrix", str(folder), "--json", "--jobs", str(jobs)], check=True,
                               cwd=ROOT)
    return cpu, wall


def median_of(runs: list[dict[str, object]]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key in runs[0]:
        values = [r[key] for r in runs]
        if isinstance(values[0], list):
            out[key] = [statistics.median(v[k] for v in values) for k in (0, 1)]  # type: ignore[index]
        else:
            out[key] = values[-1]
    return out


def show(title: str, split: dict[str, object], goal_ms: float | None = None) -> None:
    print(f"\n{title}")
    for key, value in split.items():
        if key.startswith("_"):
            continue
        cpu, wall = value  # type: ignore[misc]
        print(f"  {key:<56} CPU {cpu:9.1f} ms   wall {wall:9.1f} ms")
    if goal_ms is not None and "whole command" in split:
        wall = split["whole command"][1]  # type: ignore[index]
        verdict = "met" if wall <= goal_ms else "NOT MET"
        print(f"  goal: whole command at most {goal_ms / 1000:.0f} s: {wall / 1000:.2f} s, "
              f"{wall / goal_ms:.2f} of the goal ({verdict})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPU(s); load average {os.getloadavg()[0]:.2f}; "
          f"median of {args.repeat}; --jobs {args.jobs}")
    warm_up()
    with tempfile.TemporaryDirectory() as tmp:
        d20, sev = write_rosters(Path(tmp))
        for title, folder, goal in (("d20, 10 sheets, 90 matchups, exact", d20, 5000.0),
                                    ("Sevendag, 6 sheets, 30 matchups, exact", sev, 30000.0)):
            serial = median_of([child(SPLIT, folder, "serial", 1) for _ in range(args.repeat)])
            pool = median_of([child(SPLIT, folder, "pool", args.jobs) for _ in range(args.repeat)])
            split = {**serial, **{k: v for k, v in pool.items() if k not in serial}}
            cmd = [whole(folder, args.jobs) for _ in range(args.repeat)]
            split["whole command"] = [statistics.median(c[k] for c in cmd) for k in (0, 1)]
            show(title, split, goal)
            one_cpu, one = serial["solve, 1 process"]  # type: ignore[misc]
            many = pool[f"solve, {args.jobs} processes"][1]  # type: ignore[index]
            busiest, total = pool["_workers"]  # type: ignore[misc]
            print(f"  speed-up of the solve with {args.jobs} processes: {one / many:.2f}x (wall); "
                  f"workers' CPU {total:.0f} ms in all ({total / one_cpu:.2f}x one process's), "
                  f"the busiest {busiest:.0f} ms: {one_cpu / busiest:.2f}x on idle cores")
            print(f"  largest unresolved mass {serial['_unresolved']:.1e} ({serial['_method']})")
        pair = median_of([child(PAIR, d20, "pair", 1) for _ in range(args.repeat)])
        show("one d20 pair (Dorn, Hale), both orders, warm", pair)
        values = list(pair.values())
        dag = values[-1][0]  # type: ignore[index]
        print(f"  fight --exact / matrix (CPU): {values[0][0] / dag:.1f}x at 1e-12, "  # type: ignore[index]
              f"{values[1][0] / dag:.1f}x at the same tolerance")  # type: ignore[index]


if __name__ == "__main__":
    main()
