"""Start-up: the cache of parsed TOML documents and the user folders found without
platformdirs.  A cache never changes what a file means: a damaged entry is ignored, a changed
file is parsed again."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sevendag_cli import toml_cache
from sevendag_cli.data import read_toml, user_dir
from sevendag_cli.errors import DataError
from sevendag_cli.folders import xdg_dir

SHEET = 'name = "Ysold"\nruleset = "d20"\nhp = 12\n[attack]\nbonus = 3\n'


@pytest.fixture()
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cache of this test's own; forget what this process read of it (as a new command would)."""
    monkeypatch.delenv("SEVENDAG_NO_CACHE", raising=False)
    monkeypatch.setenv("SEVENDAG_CACHE", str(tmp_path / "cache"))
    toml_cache._loaded.clear()


def store_file() -> Path:
    folder = toml_cache.cache_dir()
    assert folder is not None
    return folder / toml_cache.FILE_NAME


def test_a_parsed_document_is_cached_and_read_back(tmp_path: Path, fresh: None) -> None:
    sheet = tmp_path / "ysold.toml"
    sheet.write_text(SHEET)
    first = read_toml(sheet)
    assert store_file().is_file()
    toml_cache._loaded.clear()
    assert toml_cache.lookup(sheet, sheet.read_bytes()) == first
    again = read_toml(sheet)
    assert again == first and again is not first
    again["hp"] = 1  # a caller may change its copy: the next read is unchanged
    assert read_toml(sheet)["hp"] == 12


def test_a_changed_file_is_parsed_again(tmp_path: Path, fresh: None) -> None:
    sheet = tmp_path / "ysold.toml"
    sheet.write_text(SHEET)
    stat = sheet.stat()
    assert read_toml(sheet)["hp"] == 12
    sheet.write_text(SHEET.replace("hp = 12", "hp = 13"))  # same size
    os.utime(sheet, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same date
    assert read_toml(sheet)["hp"] == 13
    toml_cache._loaded.clear()
    assert read_toml(sheet)["hp"] == 13


def test_a_file_made_invalid_is_an_error_despite_the_cache(tmp_path: Path, fresh: None) -> None:
    sheet = tmp_path / "ysold.toml"
    sheet.write_text(SHEET)
    read_toml(sheet)
    sheet.write_text(SHEET + "hp = \n")
    with pytest.raises(DataError):
        read_toml(sheet)


@pytest.mark.parametrize("damage", ["truncated", "garbage", "bad_checksum", "wrong_stamp", "not_dict",
                                    "not_toml_values"])
def test_a_damaged_cache_is_ignored(tmp_path: Path, fresh: None, damage: str) -> None:
    sheet = tmp_path / "ysold.toml"
    sheet.write_text(SHEET)
    expected = read_toml(sheet)
    path = store_file()
    raw = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "garbage":
        path.write_bytes(b"\x00\xff" * 50)
    else:
        stamp, entries = marshal.loads(raw)
        key = next(iter(entries))
        cached_raw, checksum, _blob = entries[key]
        if damage == "bad_checksum":  # the document itself altered
            entries[key] = (cached_raw, checksum, marshal.dumps({"hp": 99}))
        elif damage == "wrong_stamp":
            entries[key] = (cached_raw, zlib_crc(b := marshal.dumps({"hp": 99})), b)
            stamp = ("sevendag-toml-cache", 0)
        elif damage == "not_toml_values":  # what marshal holds but TOML never gives
            doc = {"name": "Ysold", "ruleset": "d20", "hp": (12,), "attack": {"bonus": b"3"}}
            entries[key] = (cached_raw, zlib_crc(b := marshal.dumps(doc)), b)
        else:
            entries[key] = (cached_raw, zlib_crc(b := marshal.dumps([1, 2])), b)
        path.write_bytes(marshal.dumps((stamp, entries)))
    toml_cache._loaded.clear()
    assert read_toml(sheet) == expected


def zlib_crc(blob: bytes) -> int:
    import zlib

    return zlib.crc32(blob)


def test_an_unwritable_cache_folder_is_silent(tmp_path: Path, fresh: None,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("SEVENDAG_CACHE", str(blocker / "cache"))  # cannot be made
    sheet = tmp_path / "ysold.toml"
    sheet.write_text(SHEET)
    assert read_toml(sheet)["hp"] == 12
    assert read_toml(sheet)["hp"] == 12


def test_documents_marshal_cannot_hold_are_read_uncached(tmp_path: Path, fresh: None) -> None:
    sheet = tmp_path / "dated.toml"
    sheet.write_text("when = 2026-12-01\n" + SHEET)
    assert str(read_toml(sheet)["when"]) == "2026-12-01"
    assert str(read_toml(sheet)["when"]) == "2026-12-01"


def test_sevendag_no_cache_turns_it_off(tmp_path: Path, fresh: None,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEVENDAG_NO_CACHE", "1")
    sheet = tmp_path / "ysold.toml"
    sheet.write_text(SHEET)
    read_toml(sheet)
    assert toml_cache.cache_dir() is None
    assert not (tmp_path / "cache").exists()
    monkeypatch.delenv("SEVENDAG_NO_CACHE")
    monkeypatch.setenv("SEVENDAG_CACHE", "relative")  # never a folder in the current one
    assert toml_cache.cache_dir() is None
    read_toml(sheet)
    assert not (tmp_path / "relative").exists()


def test_the_users_folder_gets_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SEVENDAG_CACHE", raising=False)
    monkeypatch.delenv("SEVENDAG_NO_CACHE", raising=False)
    folder = toml_cache.cache_dir()
    assert folder is None or not folder.is_relative_to(tmp_path / "_home")


ENVS = [
    {"HOME": "/home/ysold"},
    {"HOME": "/home/ysold/"},
    {"HOME": "/"},
    {"HOME": "/home/ysold", "XDG_CONFIG_HOME": "/xdg/conf", "XDG_CACHE_HOME": "/xdg/cache"},
    {"HOME": "/home/ysold", "XDG_CONFIG_HOME": "/xdg/conf/", "XDG_CACHE_HOME": ""},
    {"HOME": "/home/ysold", "XDG_CONFIG_HOME": "relative", "XDG_CACHE_HOME": "rel"},
    {"HOME": "relative"},
    {"HOME": ""},
]


@pytest.mark.skipif(sys.platform != "linux", reason="the fast path is for Linux")
@pytest.mark.parametrize("env", ENVS)
def test_the_user_folders_are_platformdirs_own(env: dict[str, str]) -> None:
    """Where the fast path answers, it gives what platformdirs gives (checked in a child process:
    platformdirs reads the environment when imported)."""
    clean = {k: v for k, v in os.environ.items()
             if k not in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "SEVENDAG_HOME")}
    code = (
        "import platformdirs, sys\n"
        "from sevendag_cli.folders import xdg_dir\n"
        "for var, default, real in (('XDG_CONFIG_HOME', '.config', platformdirs.user_config_dir),"
        " ('XDG_CACHE_HOME', '.cache', platformdirs.user_cache_dir)):\n"
        "    fast = xdg_dir(var, default)\n"
        "    try:\n"
        "        want = real('sevendag', appauthor=False)\n"
        "    except Exception:\n"
        "        want = None\n"
        "    print(fast is None or str(fast) == want, fast, want)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], env={**clean, **env}, capture_output=True,
                          text=True, timeout=60, check=True)
    lines = proc.stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith("True") for line in lines), proc.stdout


@pytest.mark.skipif(sys.platform != "linux", reason="the fast path is for Linux")
def test_the_fast_path_answers_the_plain_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SEVENDAG_HOME")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("ANDROID_DATA", raising=False)
    monkeypatch.delenv("ANDROID_ROOT", raising=False)
    monkeypatch.setenv("HOME", "/home/ysold")
    assert user_dir() == Path("/home/ysold/.config/sevendag")
    monkeypatch.setenv("XDG_CONFIG_HOME", "/conf")
    assert xdg_dir("XDG_CONFIG_HOME", ".config") == Path("/conf/sevendag")
    monkeypatch.setenv("XDG_CONFIG_HOME", "conf")
    assert xdg_dir("XDG_CONFIG_HOME", ".config") is None  # platformdirs decides
