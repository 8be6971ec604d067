"""What the benchmarks share: the project's root, the clock of their child scripts, and the
CPU time of a whole command run in a fresh process."""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The start of every child script: the project importable, and a clock (CPU, wall) in ms.
PRELUDE = f"""
import json, os, resource, sys, time
sys.path.insert(0, {str(ROOT)!r})
def clock():
    return time.process_time(), time.perf_counter()
def since(t):
    c, w = clock()
    return (c - t[0]) * 1000, (w - t[1]) * 1000
"""


def command_cpu(args: list[str], **run: object) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """``python -m sevendag_cli ARGS`` in a fresh process (``run``: ``subprocess.run``'s
    options): the child's CPU time (user + system, its workers included) and the wall time,
    in ms, and what it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "sevendag_cli", *args], capture_output=True,
                          text=True, **run)  # type: ignore[call-overload]
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return cpu, wall, done
