"""The encounter file: atomic saves, locking, format version, undo history."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sevendag_cli import store
from sevendag_cli.errors import EncounterError


def sample(state: dict[str, object] | None = None) -> store.Encounter:
    return store.Encounter(
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
    # flock locks are per open file description: a second open in the same
    # process conflicts exactly as a second process would.
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
