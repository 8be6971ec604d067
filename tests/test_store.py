"""The encounter file: atomic saves, locking, format version, undo history."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sevendag_cli import store
from sevendag_cli.errors import EncounterError


def sample(state: dict[str, object] | None = None) -> store.SavedEncounter:
    return store.SavedEncounter(
        ruleset={"name": "d20", "path": "d20.toml", "data": {"engine": "d20"}},
        fighters=({"path": "a.toml", "data": {"name": "A"}}, {"path": "b.toml", "data": {"name": "B"}}),
        state=state or {"round": 0},
        log=({"step": "init"},),
    )


def test_save_then_load_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "e.json"
    enc = sample().step({"round": 1}, {"step": "round", "round": 1})
    store.save(path, enc)
    assert store.load(path) == enc


def test_save_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "e.json"
    store.save(path, sample())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.json"]


def test_crash_between_write_and_rename_keeps_the_previous_encounter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save interrupted after the temporary file is written leaves the old file intact."""
    path = tmp_path / "e.json"
    store.save(path, sample({"round": 1}))
    before = path.read_bytes()

    def crash(tmp: str, target: Path) -> None:
        assert Path(tmp).read_text("utf-8").startswith("{")  # the new data was written
        raise KeyboardInterrupt

    monkeypatch.setattr(store, "_replace", crash)
    with pytest.raises(KeyboardInterrupt):
        store.save(path, sample({"round": 2}))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.json"]  # temp file cleaned up


def test_lock_refuses_a_second_command(tmp_path: Path) -> None:
    path = tmp_path / "e.json"
    store.save(path, sample())
    # the system's locks are per open of the file (flock; msvcrt.locking): a second open in
    # the same process conflicts exactly as a second process would.
    with store.locked(path), pytest.raises(EncounterError, match="in use"), store.locked(path):
        pass
    with store.locked(path):  # released after the first command
        pass


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b"   \n", "empty"),
        (b'{"format": "sevendag-encounter", "version": 1, "rul', "not valid JSON"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b"[1, 2, 3]", "not a sevendag encounter"),
        (b'{"format": "other"}', "not a sevendag encounter"),
        (b'{"format": "sevendag-encounter", "version": 99}', "version 99"),
        (b'{"format": "sevendag-encounter", "version": 0}', "version 0"),
        (b'{"format": "sevendag-encounter", "version": 1}', "damaged"),
        (
            b'{"format": "sevendag-encounter", "version": 1, "ruleset": {}, "fighters": [1],'
            b' "state": {}, "history": [], "log": [], "extra": {}}',
            "damaged",
        ),
    ],
)
def test_bad_encounter_files_are_refused_clearly(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "e.json"
    path.write_bytes(content)
    with pytest.raises(EncounterError, match=message):
        store.load(path)
    assert path.read_bytes() == content


def test_missing_encounter(tmp_path: Path) -> None:
    with pytest.raises(EncounterError, match="sevendag init"):
        store.load(tmp_path / "nope.json")


def test_undo_walks_back_the_history() -> None:
    enc = sample({"round": 0})
    enc2 = enc.step({"round": 1}, {"step": "round", "round": 1})
    enc3 = enc2.step({"round": 2}, {"step": "round", "round": 2})
    back, undone = enc3.undo()
    assert back == enc2 and undone == {"step": "round", "round": 2}
    back2, _ = back.undo()
    assert back2.state == {"round": 0}
    with pytest.raises(EncounterError, match="nothing to undo"):
        back2.undo()


def test_document_is_versioned(tmp_path: Path) -> None:
    path = tmp_path / "e.json"
    store.save(path, sample())
    doc = json.loads(path.read_text("utf-8"))
    assert doc["format"] == "sevendag-encounter" and doc["version"] == store.VERSION


def test_save_into_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EncounterError, match="cannot write"):
        store.save(tmp_path / "no" / "such" / "e.json", sample())
    assert not os.path.exists(tmp_path / "no")


# --- the lock, careful saves, bounds ----------------------------------------------------


def test_the_lock_file_goes_when_the_command_ends(tmp_path: Path) -> None:
    path = tmp_path / "e.json"
    with store.locked(path):
        assert (tmp_path / "e.json.lock").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    with pytest.raises(EncounterError, match="no encounter here"), store.locked(path):
        store.load(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # a failed command leaves none


def test_a_lock_file_replaced_before_it_is_locked_is_taken_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command that opened a lock file its holder then removed locks the new one instead."""
    from sevendag_cli import oslock

    path = tmp_path / "e.json"
    lock = tmp_path / "e.json.lock"
    real_try_lock = oslock.try_lock
    calls: list[int] = []

    def replaced_first(fd: int, *, shared: bool = False) -> bool:
        calls.append(fd)
        if len(calls) == 1:  # the holder finished and removed it; another made a new one
            os.unlink(lock)
            lock.write_bytes(b"")
        return real_try_lock(fd, shared=shared)

    monkeypatch.setattr(oslock, "try_lock", replaced_first)
    with store.locked(path):
        assert len(calls) == 2
        held = os.stat(lock).st_ino
        monkeypatch.setattr(oslock, "try_lock", real_try_lock)
        with pytest.raises(EncounterError, match="in use"), store.locked(path):
            pass
        assert os.stat(lock).st_ino == held  # the refused command did not remove it
    assert not lock.exists()


def test_stale_temporary_files_are_removed_only_under_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "e.json"
    stale = tmp_path / ".e.json.k2j4_x9a.tmp"
    other = tmp_path / ".f.json.k2j4_x9a.tmp"
    stale.write_text("{half", "utf-8")
    other.write_text("{half", "utf-8")
    store.save(path, sample())
    assert stale.exists()  # no lock: another command may be writing it
    with store.locked(path):
        store.save(path, sample({"round": 1}))
    assert not stale.exists() and other.exists()


def test_a_save_writes_through_a_link_and_keeps_the_mode(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "e.json"
    store.save(target, sample())
    os.chmod(target, 0o640)
    link = tmp_path / "e.json"
    link.symlink_to(target)
    with store.locked(link):
        store.save(link, sample({"round": 3}))
    assert link.is_symlink() and store.load(target).state == {"round": 3}
    assert os.stat(target).st_mode & 0o777 == 0o640
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["e.json"]


@pytest.mark.parametrize("mode", [0o444, 0o400, 0o555])
def test_a_read_only_encounter_is_refused_not_replaced(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "e.json"
    store.save(path, sample())
    os.chmod(path, mode)
    before = path.read_bytes()
    with pytest.raises(EncounterError, match="read-only"), store.locked(path):
        pass
    with pytest.raises(EncounterError, match="read-only"):
        store.save(path, sample({"round": 1}))
    assert path.read_bytes() == before and os.stat(path).st_mode & 0o777 == mode
    with store.locked(path, write=False):  # a command that only reads may go on
        assert store.load(path) == sample()


def test_an_encounter_too_large_to_read_back_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "e.json"
    store.save(path, sample())
    before = path.read_bytes()
    monkeypatch.setattr(store, "MAX_ENCOUNTER_BYTES", len(before) + 10)
    with pytest.raises(EncounterError, match="would grow beyond"):
        store.save(path, sample({"round": 1, "log": "x" * 100}))
    assert path.read_bytes() == before


@pytest.mark.parametrize(("content", "message"), [
    (b"[" * 100_000, "nested deeper than 64"),
    (b"[" + b"[]," * 100_000 + b"[]]", "not read: its values"),  # more lists than memory allows
    (b"[" * 65 + b"]" * 65, "nested deeper than 64"),
    (b'{"a":' * 65 + b"1" + b"}" * 65, "nested deeper than 64"),
    (b'{"format": "sevendag-encounter", "n": ' + b"9" * 5000 + b"}", "whole number beyond"),
    (b'{"format": "sevendag-encounter", "n": -9223372036854775808}', "whole number beyond"),
])
def test_an_encounter_beyond_the_bounds_is_refused(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "e.json"
    path.write_bytes(content)
    with pytest.raises(EncounterError, match=message):
        store.load(path)


def test_exists_says_why_a_path_cannot_be_looked_at(tmp_path: Path) -> None:
    assert not store.exists(tmp_path / "e.json")
    assert store.exists(tmp_path)
    with pytest.raises(EncounterError, match="longer than the system allows"):
        store.exists(tmp_path / ("a" * 300))
    with pytest.raises(EncounterError, match="longer than the system allows"):
        store.require_encounter(tmp_path / ("a" * 300))
    with pytest.raises(EncounterError, match="no encounter here"):
        store.require_encounter(tmp_path / "e.json")
