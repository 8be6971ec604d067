"""``fight --runs`` against a plain pure-Python loop of the same rules, by hand::

    python benchmarks/bench_runs.py [--runs 200000 1000000] [--seconds 3] [--repeat 3]

Goal: the whole command ``sevendag fight --runs N`` (a fresh process: start-up, sheets,
the vectorised simulator, the tally and the display, CPU time of the child) handles at
least 50 times as many fights per CPU second as a plain loop of the same rules written
the obvious way in pure Python (``random.randint``, plain ints, no events, no records,
nothing checked), on each ruleset's house pair: Brannoc against Ysolde (Sevendag, sheet
tactics) and the D-14 duel A against B (Le combat).  The loops are written for those
pairs only; their win rates are printed beside the command's so that a loop that drifted
from the rules shows.

The whole command pays a fixed cost the loop does not (some 0.3 s of CPU: Python, Typer,
numpy, the pair's tables), so its ratio grows with the runs: the guard is read at a million
fights and more (at 200,000 the fixed cost is most of the command).
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time

from _common import ROOT, command_cpu

sys.path.insert(0, str(ROOT))


# --- Sevendag, Brannoc (sword d10 attacks, shield d8 defends) against Ysolde (greatsword 2d8)


def sevendag_fight(rng: random.Random) -> int:
    """One fight with the house rules and sheet tactics: 0 Brannoc wins, 1 Ysolde, -1 draw."""
    ri = rng.randint
    penalty = (1, 3, 6, 0)  # light, serious, critical, fatal (out)
    # S-02: speed rolls, again on a tie.
    while True:
        sb, sy = ri(1, 20) + 3, ri(1, 20) + 2
        if sb != sy:
            break
    assail = 0 if sb > sy else 1
    pen = [0, 0]
    drop = [0, 0]  # rounds the weapon is still on the ground (S-18)
    for _ in range(200):
        new_drop = [False, False]
        att = assail
        for _exchange in (1, 2):
            de = 1 - att
            if drop[att]:
                failure = fumble = False
                has_attack = False
                extra = shift = margin = 0
            else:
                has_attack = True
                if att == 0:  # Brannoc's sword, one die (S-10), iron +4 (S-17)
                    f = ri(1, 10)
                    failure = fumble = f == 1
                    crit = f == 10
                    extra, shift = (4, 0) if crit else (0, 0)
                    skill = 14
                    dice = f
                else:  # Ysolde's greatsword, two dice (S-11), steel one band (S-17)
                    f1, f2 = ri(1, 8), ri(1, 8)
                    failure = f1 == 1 or f2 == 1
                    fumble = f1 == 1 and f2 == 1
                    n_hi = (f1 == 8) + (f2 == 8)
                    extra, shift = 0, (2 if n_hi == 2 else n_hi)
                    crit = n_hi > 0
                    skill = 12
                    dice = f1 + f2
                if failure and crit:  # S-13
                    extra = shift = 0
                if fumble and ri(1, 20) > skill:  # S-10 / S-18
                    new_drop[att] = True
                margin = (8 if att == 0 else 9) + dice - pen[att]
            # Defence: Brannoc's shield d8 unless the sword is down (no, the shield stays);
            # Ysolde defends on her constant, or with nothing while the greatsword is down.
            if de == 0:
                d = ri(1, 8) if has_attack else 0
                critical_defence = d == 8
                margin -= 6 + d - pen[0]
            else:
                critical_defence = False
                margin -= 5 - pen[1]
            if has_attack and not failure and not critical_defence:  # S-15: the shield foils
                raw = margin + extra
                if raw > 0:
                    band = 3 if raw >= 31 else 2 if raw >= 21 else 1 if raw >= 11 else 0
                    band = min(3, band + shift)
                    if band == 3:
                        return att
                    pen[de] += penalty[band]
            if critical_defence:
                assail = de
                break
            att = de
        for f in (0, 1):
            if new_drop[f]:
                drop[f] = 2
            drop[f] = max(0, drop[f] - 1)
    return -1


# --- Le combat, D-14: A (club 1d6) against B (spear 1d8) ---------------------------------


def d20_fight(rng: random.Random) -> int:
    """One D-14 duel: 0 A wins, 1 B wins, -1 draw."""
    ri = rng.randint
    hp = [45, 50]
    # per attacker: attack bonus, defender AC, REF of the attacker (DD), damage die, STR mod,
    # defender's save bonus, VIG bonus
    attack = (4, 7)  # A: bba 3 + mod(12) 1; B: bba 3 + mod(18) 4
    ac = (5, 5)  # stated on both sheets: the defender's
    ref = (4, 0)  # mod(dex): A 18 -> 4, B 10 -> 0
    die = (6, 8)
    strmod = (1, 4)
    vigmod = (-1, 0)  # mod(con): A 8 -> -1, B 10 -> 0
    for _ in range(1000):
        while True:
            ia, ib = ri(1, 20) + ref[0], ri(1, 20) + ref[1]
            if ia != ib:
                break
        att = 0 if ia > ib else 1
        de = 1 - att
        nat = ri(1, 20)
        if nat == 20:
            hit = True
        elif nat == 1:
            hit = False
        else:
            hit = nat + attack[att] > ac[de]
        if not hit:
            continue
        critical = nat >= 20  # the crit range of both weapons
        snat = ri(1, 20)
        if snat == 20:
            continue
        halved = snat != 1 and snat + ref[de] > ri(1, 20) + ref[att]
        dmg = ri(1, die[att]) + strmod[att]
        if critical:
            dmg += ri(1, die[att]) + strmod[att]
        dmg = max(0, dmg - (ri(1, 10) + vigmod[de]))
        if halved:
            dmg //= 2
        dmg = max(dmg, 1)
        hp[de] -= dmg
        if hp[de] <= 0:
            return att
    return -1


def loop_rate(fight: object, seconds: float) -> tuple[float, float]:
    """Fights per CPU second of the plain loop, and the first fighter's win rate."""
    rng = random.Random(1)
    n = wins = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        for _ in range(1000):
            wins += fight(rng) == 0  # type: ignore[operator]
        n += 1000
    return n / (time.process_time() - start), wins / n


def command_rate(ruleset: str, runs: int, repeat: int,
                 tree: str | None = None) -> tuple[float, float, str]:
    """Median CPU ms of ``fight --runs`` (whole command), fights per CPU second, its output;
    with ``tree``, the command of that checkout (run from its folder)."""
    cpus = []
    out = ""
    for _ in range(repeat):
        cpu, _wall, done = command_cpu(["fight", "--ruleset", ruleset, "--runs", str(runs),
                                        "--seed", "1", "--json"], cwd=tree or str(ROOT))
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        cpus.append(cpu)
        out = done.stdout
    cpu = statistics.median(cpus)
    return cpu, runs / (cpu / 1000), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[200_000, 1_000_000],
                        help="fights of the command (one line each)")
    parser.add_argument("--seconds", type=float, default=3.0, help="time of each plain loop")
    parser.add_argument("--repeat", type=int, default=3, help="command runs (median)")
    parser.add_argument("--tree", help="also time the command of another checkout (a folder)")
    args = parser.parse_args()
    for ruleset, fight in (("sevendag", sevendag_fight), ("d20", d20_fight)):
        rate, win = loop_rate(fight, args.seconds)
        for tree, runs in ((t, r) for t in ((None, args.tree) if args.tree else (None,))
                           for r in args.runs):
            cpu, crate, out = command_rate(ruleset, runs, args.repeat, tree)
            p = re.search(r'"win_probability":\s*([0-9.e-]+)', out)
            print(f"{ruleset}{' (' + tree + ')' if tree else ''}: plain loop {rate:,.0f} "
                  f"fights/s (first wins {win:.4f}); fight --runs {runs:,}: "
                  f"{cpu:,.0f} ms CPU, {crate:,.0f} fights/s (first wins "
                  f"{p.group(1) if p else '?'}); ratio {crate / rate:.1f}x")


if __name__ == "__main__":
    main()
