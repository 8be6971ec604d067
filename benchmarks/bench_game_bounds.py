"""Exact odds of large Sevendag pairs and the game's bounds, run by hand (not collected by pytest)::

    python benchmarks/bench_game_bounds.py

Each line is a whole command in a fresh process (``python -m sevendag_cli ...``): its exit
status, CPU time (user + system), wall time and peak memory (the child's maximum resident set).
The sheets and rulesets are written here:

* **four-handed**: two sheets of four one-handed weapons, a d12 in each hand — plain
  ``fight --exact`` (goal: within 60 s and 500 MB), then both optimal (goal: an answer or a
  one-line refusal within 30 s and 500 MB);
* **finite bands**: Brawler (axe and knife) against Duelist (rapier and buckler) under a ruleset
  whose penalised bands take a fighter out — plain ``fight --exact`` (goal: 60 s, 500 MB);
* **techniques**: the house pair under the bundled ruleset with 7 and 40 techniques more
  (10 and 43 in all) — both optimal (10: an answer within a minute; 43: a one-line refusal
  within 1 s and 100 MB).
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT

FOUR = """ruleset = "sevendag"
name = "{name}"
speed = {speed}
attack = {attack}
defence = 6
{hands}
"""


def four_handed(folder: Path) -> tuple[str, str]:
    hands = "".join(f'[[hands]]\ndie = 12\nholds = "w{i}"\n' for i in range(4))
    items = "".join(f'[items.w{i}]\nkind = "weapon"\nmetal = "{m}"\nskill = 14\n'
                    for i, m in enumerate(("iron", "steel", "bronze", "iron")))
    paths = []
    for name, speed, attack in (("Quad", 3, 8), ("Quint", 2, 9)):
        path = folder / f"{name.lower()}.toml"
        path.write_text(FOUR.format(name=name, speed=speed, attack=attack, hands=hands) + items,
                        "utf-8")
        paths.append(str(path))
    return paths[0], paths[1]


BRAWLER = """ruleset = "sevendag"
name = "Brawler"
speed = 3
attack = 7
defence = 6
[[hands]]
die = 10
holds = "axe"
[[hands]]
die = 6
holds = "knife"
[items.axe]
kind = "weapon"
metal = "iron"
skill = 12
[items.knife]
kind = "weapon"
metal = "bronze"
skill = 15
"""
DUELIST = """ruleset = "sevendag"
name = "Duelist"
speed = 5
attack = 8
defence = 7
[[hands]]
die = 12
holds = "rapier"
[[hands]]
die = 6
holds = "buckler"
[items.rapier]
kind = "weapon"
metal = "steel"
skill = 15
[items.buckler]
kind = "shield"
"""


def ruleset(folder: Path, name: str, techniques: int = 0, counted: bool = False) -> str:
    text = (ROOT / "rulesets" / "sevendag.toml").read_text("utf-8")
    text = text.replace('name = "sevendag"', f'name = "{name}"', 1)
    if counted:
        for low, limit in (("to = 10\npenalty = 1\n", 4), ("to = 20\npenalty = 3\n", 3),
                           ("to = 30\npenalty = 6\n", 2)):
            text = text.replace(low, f"{low}out_after = {limit}\n")
    block = "".join(
        f'\n[techniques.t{i}]\nlabel = {{ en = "t{i}", fr = "t{i}" }}\n'
        f'text = {{ en = "x", fr = "x" }}\nattack = {i % 7 - 2}\ndefence = {i * 3 % 7 - 3}\n'
        f"duration = {1 + i % 2}\n" for i in range(techniques))
    text = text.replace("\n[house_defaults]\n", block + "\n[house_defaults]\n")
    path = folder / f"{name}.toml"
    path.write_text(text, "utf-8")
    return str(path)


def run(label: str, args: list[str]) -> None:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "sevendag_cli", *args], capture_output=True,
                          text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    peak = after.ru_maxrss / 1024  # the largest child so far, in MB (Linux: KiB)
    said = (done.stderr.strip().splitlines() or [""])[-1][:110]
    print(f"{label:44} exit {done.returncode}  cpu {cpu:6.1f} s  wall {wall:6.1f} s  "
          f"peak {peak:5.0f} MB  {said}")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        quad, quint = four_handed(folder)
        (folder / "brawler.toml").write_text(BRAWLER, "utf-8")
        (folder / "duelist.toml").write_text(DUELIST, "utf-8")
        finite = ruleset(folder, "finite", counted=True)
        tech10 = ruleset(folder, "tech10", techniques=7)
        tech43 = ruleset(folder, "tech43", techniques=40)
        # the smallest first: the children's peak is the largest so far
        run("43 techniques, both optimal (refused)", ["fight", "--exact", "--tactic", "optimal",
                                                       "--ruleset", tech43, "--json"])
        run("four-handed, both optimal (refused)", ["fight", quad, quint, "--exact", "--tactic",
                                                    "optimal", "--json"])
        run("finite bands, Brawler v Duelist, plain", ["fight", str(folder / "brawler.toml"),
                                                       str(folder / "duelist.toml"), "--ruleset",
                                                       finite, "--exact", "--json"])
        run("four-handed, plain", ["fight", quad, quint, "--exact", "--json"])
        run("10 techniques, both optimal", ["fight", "--exact", "--tactic", "optimal",
                                            "--ruleset", tech10, "--json"])


if __name__ == "__main__":
    main()
