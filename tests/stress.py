"""Races and crashes on one encounter file, shared by the reduced tests (``tests/test_stress.py``,
seconds) and the full runs (``benchmarks/bench_encounter_safety.py``, by hand).

Two levels:

* **store**: forked processes run ``lock → load → one more round → save`` in a loop, straight
  on :mod:`sevendag_cli.store` (no start-up cost, so thousands of real collisions and kills
  land inside a save);
* **cli**: real ``sevendag round`` processes, as a user would run them.

Each returns a :class:`Report`: ``tries``, how many succeeded or were refused ("in use"),
``corrupt`` (the file no longer loads), ``lost`` (a round reported saved that the file does
not hold, or round numbers given twice), ``litter`` (lock or temporary files left after a
final clean command), ``bad_errors`` (a refusal that is not exactly one ``in use`` line).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from sevendag_cli import store
from sevendag_cli.data import bundled_dir
from sevendag_cli.errors import EncounterError

ENC = "encounter.sevendag.json"


@dataclass
class Report:
    tries: int = 0
    ok: int = 0
    refused: int = 0
    corrupt: int = 0
    lost: int = 0
    litter: int = 0
    bad_errors: int = 0
    stale_seen: int = 0  # kills that left a temporary file (removed by the next save)

    def line(self, what: str) -> str:
        return (f"{what}: tries {self.tries}, saved {self.ok}, refused (in use) {self.refused}, "
                f"corrupt {self.corrupt}, lost {self.lost}, litter {self.litter}, "
                f"bad errors {self.bad_errors}, kills that left a temporary file {self.stale_seen}")


# --- the encounter ------------------------------------------------------------------------


def sample(rounds: int = 0) -> store.SavedEncounter:
    return store.SavedEncounter(
        ruleset={"name": "d20", "path": "d20.toml", "data": {"engine": "d20"}},
        fighters=({"path": "a.toml", "data": {"name": "A"}}, {"path": "b.toml", "data": {"name": "B"}}),
        state={"round": rounds, "padding": "x" * 5_000},  # a save takes some time
        log=({"step": "init"},),
    )


def rounds_in(path: Path) -> int:
    """The rounds the file holds; -1 if it does not load (corrupt)."""
    try:
        return len(store.load(path).history)
    except EncounterError:
        return -1


def litter(folder: Path) -> int:
    return sum(1 for p in folder.iterdir() if p.name.endswith((".lock", ".tmp")))


def one_round(path: Path) -> int:
    """Lock, load, add a round, save: the round number saved."""
    with store.locked(path):
        enc = store.load(path)
        n = enc.state["round"] + 1
        store.save(path, enc.step({**enc.state, "round": n}, {"step": "round", "round": n}))
        return int(n)


# --- store level ---------------------------------------------------------------------------


def _race_worker(path: str, tries: int, seed: int, out: multiprocessing.Queue[object]) -> None:
    rng = random.Random(seed)
    saved: list[int] = []
    refused = bad = 0
    for _ in range(tries):
        try:
            saved.append(one_round(Path(path)))
        except EncounterError as exc:
            refused += 1
            bad += "in use" not in str(exc)
        time.sleep(rng.random() * 0.02)
    out.put((saved, refused, bad))


def store_race(folder: Path, workers: int, tries: int) -> Report:
    """``workers`` processes each try ``tries`` rounds at once on one encounter."""
    path = folder / ENC
    store.save(path, sample())
    ctx = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue[object] = ctx.Queue()
    procs = [ctx.Process(target=_race_worker, args=(str(path), tries, i, queue)) for i in range(workers)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=600) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    report = Report(tries=workers * tries)
    numbers: list[int] = []
    for saved, refused, bad in results:  # type: ignore[misc]
        numbers += saved
        report.refused += refused
        report.bad_errors += bad
    report.ok = len(numbers)
    held = rounds_in(path)
    report.corrupt = int(held < 0)
    report.lost = abs(report.ok - held) + (len(numbers) - len(set(numbers)))
    report.litter = litter(folder)
    return report


def _saver(path: str, pipe: int) -> None:
    """Save rounds until killed; after each save, tell the parent the round now on disk."""
    while True:
        try:
            n = one_round(Path(path))
        except EncounterError:
            continue
        os.write(pipe, n.to_bytes(8, "big"))


def store_kill(folder: Path, kills: int, max_delay: float = 0.1, seed: int = 1) -> Report:
    """Kill (SIGKILL) a process in the middle of its saves ``kills`` times; check after each."""
    rng = random.Random(seed)
    path = folder / ENC
    store.save(path, sample())
    report = Report(tries=kills)
    ctx = multiprocessing.get_context("fork")
    committed = 0
    for _ in range(kills):
        r, w = os.pipe()
        proc = ctx.Process(target=_saver, args=(str(path), w))
        proc.start()
        os.close(w)
        time.sleep(rng.random() * max_delay)
        os.kill(proc.pid or 0, signal.SIGKILL)
        proc.join()
        data = b""
        while chunk := os.read(r, 1 << 16):
            data += chunk
        os.close(r)
        if len(data) >= 8:
            committed = int.from_bytes(data[len(data) // 8 * 8 - 8: len(data) // 8 * 8], "big")
        report.stale_seen += int(any(p.name.endswith(".tmp") for p in folder.iterdir()))
        held = rounds_in(path)
        if held < 0:
            report.corrupt += 1
            store.save(path, sample(committed))  # go on from a sound file
            continue
        report.lost += int(not committed <= held <= committed + 1)  # reported saved, not there
        committed = held
    report.ok = committed  # rounds saved over all the kills
    one_round(path)  # the next command cleans what the killed ones left
    report.litter = litter(folder)
    return report


# --- CLI level ------------------------------------------------------------------------------


def cli_encounter(folder: Path) -> None:
    """A d20 encounter whose fighters last thousands of rounds."""
    for name in ("a", "b"):
        text = (bundled_dir() / "fighters" / f"{name}.toml").read_text("utf-8")
        text = text.replace("hp = 45", "hp = 100000").replace("hp = 50", "hp = 100000")
        (folder / f"long{name}.toml").write_text(text, "utf-8")
    subprocess.run([sys.executable, "-m", "sevendag_cli", "init", "longa.toml", "longb.toml",
                    "--ruleset", "d20", "--seed", "1"], cwd=folder, check=True, capture_output=True)


def sevendag(folder: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "sevendag_cli", *args], cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)


def cli_race(folder: Path, commands: int, parallel: int) -> Report:
    """``commands`` ``sevendag round --json`` processes, ``parallel`` started at once."""
    cli_encounter(folder)
    report = Report(tries=commands)
    numbers: list[int] = []
    started = 0
    while started < commands:
        wave = [sevendag(folder, "round", "--json", "--seed", str(started + i))
                for i in range(min(parallel, commands - started))]
        started += len(wave)
        for p in wave:
            out, err = p.communicate(timeout=600)
            lines = err.decode("utf-8", "replace").splitlines()
            if p.returncode == 0:
                numbers.append(json.loads(out)["round"]["number"])
            elif p.returncode == 1 and len(lines) == 1 and "in use" in lines[0]:
                report.refused += 1
            else:
                report.bad_errors += 1
    report.ok = len(numbers)
    held = rounds_in(folder / ENC)
    report.corrupt = int(held < 0)
    report.lost = abs(report.ok - held) + (len(numbers) - len(set(numbers)))
    report.litter = litter(folder)
    return report


def cli_kill(folder: Path, kills: int, seed: int = 1) -> Report:
    """``sevendag round`` killed (SIGKILL) at a random moment of its run, ``kills`` times."""
    rng = random.Random(seed)
    cli_encounter(folder)
    start = time.perf_counter()
    full = sevendag(folder, "round", "--seed", "0")
    full.communicate(timeout=600)
    duration = time.perf_counter() - start  # a whole round, start-up included
    report = Report(tries=kills)
    held = rounds_in(folder / ENC)
    for i in range(kills):
        proc = sevendag(folder, "round", "--seed", str(i + 1))
        time.sleep(rng.random() * duration * 1.2)
        proc.kill()
        proc.communicate(timeout=600)
        report.stale_seen += int(any(p.name.endswith(".tmp") for p in folder.iterdir()))
        now = rounds_in(folder / ENC)
        if now < 0:
            report.corrupt += 1
            break
        report.ok += now - held
        report.lost += int(now not in (held, held + 1))
        held = now
    last = sevendag(folder, "round", "--seed", "999999")  # cleans what the killed ones left
    report.bad_errors += int(last.wait(timeout=600) != 0)
    report.litter = litter(folder)
    return report
