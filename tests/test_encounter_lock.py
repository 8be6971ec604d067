"""The encounter's lock, through its public interface: the system's lock (``sevendag_cli.oslock``,
the same calls on every platform), the store's ``locked`` / ``read_locked``, the library's
``Encounter`` and the commands.  Two holders contend: the second is refused at once with the
documented one line (``in use``), nothing is half-written, and the lock goes with its holder,
however the holder ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import sevendag_cli as sd
from sevendag_cli import oslock, store
from sevendag_cli.errors import EncounterError
from tests.helpers import ENCOUNTER, assert_one_line_error, ok, run, snapshot

# --- the system's lock ---------------------------------------------------------------------------


def opened(path: Path, *, write: bool = True) -> int:
    return os.open(path, oslock.open_flags(write=write), 0o644)


def test_a_second_open_is_refused_until_the_first_lets_go(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    first, second = opened(lock), opened(lock)
    try:
        assert oslock.try_lock(first)
        assert not oslock.try_lock(second)  # at once: no waiting
        assert not oslock.try_lock(second, shared=True)  # a reader too
        oslock.unlock(first)
        assert oslock.try_lock(second)
    finally:
        os.close(first)
        os.close(second)
    third = opened(lock)  # closing a holder releases its lock
    try:
        assert oslock.try_lock(third)
    finally:
        os.close(third)


def test_readers_share_where_the_system_has_shared_locks(tmp_path: Path) -> None:
    lock = tmp_path / "x.lock"
    os.close(opened(lock))
    a, b, writer = opened(lock, write=False), opened(lock, write=False), opened(lock)
    try:
        assert oslock.try_lock(a, shared=True)
        assert oslock.try_lock(b, shared=True) is oslock.SHARED  # Windows: exclusive only
        assert not oslock.try_lock(writer)
    finally:
        for fd in (a, b, writer):
            os.close(fd)


def test_a_failure_that_is_not_contention_is_raised(tmp_path: Path) -> None:
    fd = opened(tmp_path / "x.lock")
    os.close(fd)
    with pytest.raises(OSError):
        oslock.try_lock(fd)  # a closed descriptor: an error, never "held by another"


def test_lock_files_are_opened_without_following_links_where_the_system_can() -> None:
    flags = oslock.open_flags(write=True)
    assert flags & os.O_CREAT and flags & os.O_RDWR
    assert not oslock.open_flags(write=False) & os.O_CREAT
    if hasattr(os, "O_NOFOLLOW"):
        assert flags & os.O_NOFOLLOW


# --- two holders of one encounter ----------------------------------------------------------------


def test_two_threads_contend_the_second_is_refused_and_nothing_is_half_written(tmp_path: Path) -> None:
    """Each command's lock is its own open of the lock file: a second holder in the same process
    (a thread of a library user) is refused as a second process would be."""
    ok("init", "--ruleset", "d20", "--seed", "1")
    before = snapshot(tmp_path)
    held, done = threading.Event(), threading.Event()

    def holder() -> None:
        with store.locked(tmp_path / ENCOUNTER):
            held.set()
            done.wait(10)

    thread = threading.Thread(target=holder)
    thread.start()
    try:
        assert held.wait(10)
        with pytest.raises(EncounterError, match="in use") as refused:
            sd.Encounter.open(ENCOUNTER).round(seed=2)
        assert "\n" not in str(refused.value)
        assert_one_line_error(run("round", "--seed", "2"), 1, "in use by another sevendag command")
        status = sd.Encounter.open(ENCOUNTER).status()  # a reader reads the encounter as saved
        assert status.busy and status.to_dict()["round"] == 0
    finally:
        done.set()
        thread.join()
    assert snapshot(tmp_path) == before  # nothing written, no temporary file, no lock file left
    assert sd.Encounter.open(ENCOUNTER).round(seed=2).to_dict()["round"]["number"] == 1  # free again
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("_")) == [ENCOUNTER.name]


HOLDER = """\
import sys
from sevendag_cli import store
with store.locked(store.Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.readline()  # until the test says so, or is gone
"""


def hold(path: Path) -> subprocess.Popen[str]:
    """Another process holding the encounter's lock (as a command does while it works)."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    return holder


@pytest.mark.slow
def test_two_processes_contend_the_second_is_refused_and_nothing_is_half_written(tmp_path: Path) -> None:
    ok("init", "--ruleset", "d20", "--seed", "1")
    before = snapshot(tmp_path)
    holder = hold(tmp_path / ENCOUNTER)
    try:
        for args in (["round", "--seed", "2"], ["wound", "A", "3"], ["undo"]):
            done = subprocess.run([sys.executable, "-m", "sevendag_cli", *args], capture_output=True,
                                  text=True, stdin=subprocess.DEVNULL, timeout=60)
            assert done.returncode == 1 and done.stdout == ""
            assert done.stderr == (f"sevendag: error: {ENCOUNTER}: the encounter is in use by another "
                                   "sevendag command: wait for it to finish\n")
        status = run("status", "--json")
        assert status.exit_code == 0 and "as last saved" in status.stderr
        assert snapshot(tmp_path) == before
    finally:
        holder.communicate("\n", timeout=60)
    assert holder.returncode == 0
    assert run("round", "--seed", "2").exit_code == 0  # free again, the lock file gone with it
    assert not (tmp_path / f"{ENCOUNTER}.lock").exists()


@pytest.mark.slow
def test_the_lock_goes_with_a_killed_holder(tmp_path: Path) -> None:
    """No stale lock: a holder killed outright (``kill -9``) leaves the encounter free."""
    ok("init", "--ruleset", "d20", "--seed", "1")
    holder = hold(tmp_path / ENCOUNTER)
    assert_one_line_error(run("round", "--seed", "2"), 1, "in use")
    if hasattr(signal, "SIGKILL"):
        holder.send_signal(signal.SIGKILL)
    else:  # Windows: TerminateProcess, as abrupt
        holder.kill()
    holder.communicate(timeout=60)
    assert run("round", "--seed", "2").exit_code == 0
