"""The solver cache is bounded: after a write, each folder (``odds``, ``game``) keeps
at most ``MAX_CACHE_ENTRIES`` entries and ``MAX_CACHE_BYTES`` bytes, the least recently used
(by modification time, an entry read touched) removed first; never an error, never anything
that is not an entry of that folder."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from sevendag_cli import limits, solver_cache
from sevendag_cli.folders import cache_dir


def key(i: int) -> str:
    return hashlib.sha256(str(i).encode()).hexdigest()


def folder(name: str = "odds") -> Path:
    top = cache_dir()
    assert top is not None
    return top / name


def put(i: int, when: int, *, name: str = "odds", data: bytes = b"x") -> None:
    """Store entry ``i`` and date it ``when`` (seconds): an order the test controls."""
    assert solver_cache.store(key(i), data, folder=name)
    os.utime(folder(name) / f"{key(i)}.bin", (when, when))


def kept(name: str = "odds") -> set[str]:
    return {p.name for p in folder(name).iterdir()}


@pytest.mark.parametrize("name", ["odds", "game"])
def test_least_recently_used_entries_go_beyond_the_count(monkeypatch: pytest.MonkeyPatch,
                                                          name: str) -> None:
    monkeypatch.setattr(limits, "MAX_CACHE_ENTRIES", 3)
    for i in range(3):
        put(i, 1000 + i, name=name)
    assert kept(name) == {f"{key(i)}.bin" for i in range(3)}
    assert solver_cache.load(key(0), folder=name) == b"x"  # read: now the most recently used
    put(3, 2000, name=name)  # written after the read: the newest
    assert kept(name) == {f"{key(i)}.bin" for i in (0, 2, 3)}  # 1, the oldest untouched, gone
    put(4, 3000, name=name)
    assert kept(name) == {f"{key(i)}.bin" for i in (0, 3, 4)}


def test_bytes_bound_never_removes_the_entry_just_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_CACHE_BYTES", 2500)
    put(0, 1000, data=b"a" * 1000)
    put(1, 1001, data=b"b" * 1000)
    assert len(kept()) == 2
    put(2, 1002, data=b"c" * 1000)  # three entries of some 1,080 bytes: the oldest goes
    assert kept() == {f"{key(i)}.bin" for i in (1, 2)}
    put(3, 1003, data=b"d" * 5000)  # alone beyond the bound: kept, every other goes
    assert kept() == {f"{key(3)}.bin"}
    assert solver_cache.load(key(3)) == b"d" * 5000


def test_only_entries_of_the_folder_are_counted_or_removed(monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path) -> None:
    monkeypatch.setattr(limits, "MAX_CACHE_ENTRIES", 1)
    put(0, 1000)
    odds = folder()
    outside = tmp_path / "precious.bin"
    outside.write_bytes(b"mine")
    others = {
        "notes.txt": b"n", key(50).upper() + ".bin": b"u", key(51) + ".bin.old": b"o",
        key(52)[:63] + ".bin": b"s", "x" + key(53) + ".bin": b"p",
    }
    for other, data in others.items():
        (odds / other).write_bytes(data)
        os.utime(odds / other, (1, 1))  # older than any entry
    (odds / f"{key(60)}.bin").symlink_to(outside)  # a link named as an entry
    (odds / f"{key(61)}.bin").mkdir()  # a folder named as one
    game = folder("game")
    game.mkdir(parents=True)
    (game / f"{key(70)}.bin").write_bytes(b"g")  # another folder's entry
    os.utime(game / f"{key(70)}.bin", (1, 1))
    put(1, 2000)
    assert kept() == {f"{key(1)}.bin", f"{key(60)}.bin", f"{key(61)}.bin", *others}
    assert outside.read_bytes() == b"mine" and (odds / f"{key(60)}.bin").is_symlink()
    assert kept("game") == {f"{key(70)}.bin"}


def test_a_vanished_or_unremovable_entry_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_CACHE_ENTRIES", 2)
    for i in range(3):
        put(i, 1000 + i)
    assert len(kept()) == 2  # entry 0 went
    stuck, gone = f"{key(1)}.bin", f"{key(2)}.bin"
    real_unlink = os.unlink

    def unlink(path: os.PathLike[str] | str, *args: object, **kw: object) -> None:
        name = Path(path).name
        if name == stuck:
            raise PermissionError(13, "permission denied", str(path))
        if name == gone:
            real_unlink(path)  # another process removed it first
            raise FileNotFoundError(2, "no such file", str(path))
        real_unlink(path)

    monkeypatch.setattr(os, "unlink", unlink)
    put(3, 2000)  # two to remove: 1 cannot be, 2 vanished; no error
    put(4, 2001)  # 1 still there and still stuck: 3 goes instead
    assert kept() == {stuck, f"{key(4)}.bin"}


def test_bound_folder_on_a_missing_folder_is_nothing(tmp_path: Path) -> None:
    assert solver_cache.bound_folder(tmp_path / "absent") == 0


def test_the_limits_are_documented() -> None:
    text = (Path(__file__).parent.parent / "docs" / "failures.md").read_text("utf-8")
    assert "`MAX_CACHE_ENTRIES`" in text and "`MAX_CACHE_BYTES`" in text
