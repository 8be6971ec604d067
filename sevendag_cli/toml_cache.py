"""A cache of parsed TOML documents (rulesets, fighter sheets), for a faster start.

Parsing a ruleset and two sheets costs a command about 4 ms (importing ``tomllib``, the
depth scan, the parse); reading a cached document costs a tenth of that.  Safety first:

* only a document that :func:`sevendag_cli.data.parse_toml` accepted whole (valid TOML,
  within every bound) is stored, with the exact bytes of its file: an entry is used only
  when the file's bytes, read again each time, are the same (a changed file is parsed
  anew, whatever its date or size), so the cache never changes what a file means;
* the store is one ``marshal`` file in the user's cache folder, written atomically
  (a temporary file, then ``os.replace``), stamped with its format, sevendag's version and
  Python's; an entry that does not check out (damaged, truncated, another version, a
  checksum that differs) is ignored, and any failure to read or write the cache is silent:
  the file is then parsed as without a cache;
* documents ``marshal`` cannot hold (TOML dates) are simply not cached.

The folder: ``$SEVENDAG_CACHE`` if set (an absolute path; a relative one turns the cache
off), else sevendag's folder in the platform's cache directory (``$XDG_CACHE_HOME/sevendag``
or ``~/.cache/sevendag`` on Linux), never the user's folder of rulesets (``SEVENDAG_HOME``):
a command changes no file of the user's.
``SEVENDAG_NO_CACHE`` (any non-empty value) turns the cache off.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib
from pathlib import Path
from typing import Any

from sevendag_cli import __version__
from sevendag_cli.folders import cache_dir

FILE_NAME = "toml-cache.marshal"
MAX_ENTRIES = 64
"""Documents kept (the most recently stored); an older one is parsed again when needed."""
MAX_CACHE_BYTES = 8 * 1024 * 1024
"""A cache file larger than this is not read (a damaged or foreign file)."""
_STAMP = ("sevendag-toml-cache", 1, __version__, tuple(sys.version_info[:2]), marshal.version)

_loaded: dict[str, dict[str, Any]] = {}
"""This process's view of the store, by cache file (read once, then kept in step)."""


def _entries(store: Path) -> dict[str, Any]:
    """The entries of the cache file ``store`` (empty if missing, damaged or of another stamp)."""
    key = str(store)
    known = _loaded.get(key)
    if known is not None:
        return known
    entries: dict[str, Any] = {}
    try:
        with open(store, "rb") as f:
            raw = f.read(MAX_CACHE_BYTES + 1)
        if len(raw) <= MAX_CACHE_BYTES:
            stamp, found = marshal.loads(raw)
            if stamp == _STAMP and isinstance(found, dict):
                entries = found
    except Exception:  # missing, unreadable, damaged: an empty cache
        entries = {}
    _loaded[key] = entries
    return entries


def _key(path: Path) -> str:
    return os.path.abspath(path)


def lookup(path: Path, raw: bytes) -> dict[str, Any] | None:
    """The document parsed from ``raw``, the bytes just read from ``path``, if it is cached
    (a new copy each time: the caller may change it); None otherwise."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        entry = _entries(folder / FILE_NAME).get(_key(path))
        if not (isinstance(entry, tuple) and len(entry) == 3):
            return None
        cached_raw, checksum, blob = entry
        if cached_raw != raw or not isinstance(blob, bytes) or zlib.crc32(blob) != checksum:
            return None
        doc = marshal.loads(blob)
    except Exception:  # a damaged entry: parsed again
        return None
    return doc if isinstance(doc, dict) and _plain(doc) else None


def _plain(doc: dict[str, Any]) -> bool:
    """Whether ``doc`` holds only what TOML gives (tables with text keys, arrays, texts, numbers,
    booleans; a document with dates is never stored), walked without recursion."""
    stack: list[object] = [doc]
    while stack:
        value = stack.pop()
        if type(value) is dict:
            for key, item in value.items():
                if type(key) is not str:
                    return False
                stack.append(item)
        elif type(value) is list:
            stack.extend(value)
        elif type(value) not in (str, int, float, bool):
            return False
    return True


def store(path: Path, raw: bytes, doc: dict[str, Any]) -> None:
    """Keep ``doc``, parsed from ``raw`` (the bytes of ``path``) and accepted whole; silent on
    any failure (a document ``marshal`` cannot hold, a folder that cannot be written)."""
    folder = cache_dir()
    if folder is None:
        return
    try:
        blob = marshal.dumps(doc)
        target = folder / FILE_NAME
        entries = dict(_entries(target))
        key = _key(path)
        entries.pop(key, None)
        entries[key] = (raw, zlib.crc32(blob), blob)
        while len(entries) > MAX_ENTRIES:
            del entries[next(iter(entries))]
        data = marshal.dumps((_STAMP, entries))
        if len(data) > MAX_CACHE_BYTES:
            return
        folder.mkdir(parents=True, exist_ok=True)
        temporary = folder / f".{FILE_NAME}.{os.getpid()}.tmp"
        try:
            with open(temporary, "wb") as f:
                f.write(data)
            os.replace(temporary, target)
        finally:
            if temporary.exists():
                temporary.unlink()
        _loaded[str(target)] = entries
    except Exception:  # no cache this time
        return
