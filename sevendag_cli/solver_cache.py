"""The odds solver's work, kept between processes in the user's cache folder.

``round --odds`` runs in a fresh process each round; building a pair's tables costs
more than a round may add (Sevendag: the certified odds of every state, with numpy;
d20: the round tables, with icepool).  So what :meth:`~.sim.moment.OddsSolver.keep`
returns is kept in one file per pair::

    <cache>/odds/<key>.bin      (<cache>: $SEVENDAG_CACHE, else the platform's user
                                 cache folder for sevendag, e.g. ~/.cache/sevendag,
                                 if the home folder exists: it is never made)

(``advise``'s solved game is kept the same way, ``<cache>/game/<key>.bin``, keyed by
:func:`work_key`: :mod:`sevendag_cli.sevendag.game_cache`.)

``key`` (:func:`pair_key`) is the SHA-256 of a canonical serialisation of what the work
depends on: this format, the solver's version, the ruleset's rules and both sheets
(not where they were read), encoded with sets and maps sorted, so it is the same in
every process, under any hash seed and Python version.  The file starts with its key,
so an entry copied under another name is not read; the solver then checks the bytes
itself (their own fingerprint of the pair, values no solver could have written).

**Why not in the encounter file.**  An encounter is shared and edited by hand; numbers
shown as certified ("exact, everything resolved") must never come from data that a
file carries unverified.  Solver work in an encounter (``extra.odds``, written by
earlier versions) is never read, and ``round --odds`` and ``init --odds`` remove it.

It is a cache: a missing, unreadable, damaged or foreign entry is ignored (the work is
done again and the entry rewritten), never an error; writing is atomic (a temporary
file beside the entry, then a rename) and a failure to write is silent.  Removing the
folder only makes the next ``round --odds`` slower.  No encounter, no output of any
command, depends on what is there.

**Bounded.**  Each folder (``odds``, ``game``) holds at most
:data:`~sevendag_cli.limits.MAX_CACHE_ENTRIES` entries and
:data:`~sevendag_cli.limits.MAX_CACHE_BYTES` bytes: after a write, the least recently used
entries (by modification time; an entry read is touched) are removed until it is within
both, never the entry just written (:func:`bound_folder`).  Only the folder's own entries are
counted or removed: regular files named exactly ``<64 hex digits>.bin``, never a symbolic link
(nor what it points to), a sub-folder or any other file; an entry that vanished meanwhile or
cannot be removed is skipped, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sevendag_cli.folders import cache_dir
from sevendag_cli.policies import PLAIN, Policies

if TYPE_CHECKING:
    from sevendag_cli.sim.moment import OddsSolver

FORMAT = 1
"""Raised when the meaning of the kept bytes changes: old entries are then never read."""
MAGIC = b"sevendag-odds\x00"
MAX_ENTRY = 16 * 1024 * 1024
"""Largest entry read back (a Sevendag table is about 30 KB, d20 tables less)."""


def pair_key(ruleset: Any, a: Any, b: Any) -> str:
    """What a pair's solver work depends on, as a hex SHA-256 stable across processes."""
    import msgspec
    from msgspec.structs import replace

    from sevendag_cli import __version__

    parts = ("odds", FORMAT, __version__, ruleset.engine, replace(ruleset, path=""),
             replace(a, path=""), replace(b, path=""))
    return hashlib.sha256(msgspec.msgpack.encode(parts, order="deterministic")).hexdigest()


def work_key(kind: str, version: int, ruleset: Any, a: Any, b: Any, *extra: Any) -> str:
    """:func:`pair_key` for another kind of work (its own folder): what it depends on, the
    ruleset and both sheets (not where they were read) and ``extra`` (msgpack-encodable), as a
    hex SHA-256 stable across processes."""
    import msgspec
    from msgspec.structs import replace

    from sevendag_cli import __version__

    parts = (kind, version, __version__, ruleset.engine, replace(ruleset, path=""),
             replace(a, path=""), replace(b, path=""), *extra)
    return hashlib.sha256(msgspec.msgpack.encode(parts, order="deterministic")).hexdigest()


def _entry(key: str, folder: str = "odds") -> Path | None:
    top = cache_dir()
    return None if top is None else top / folder / f"{key}.bin"


def load(key: str, *, folder: str = "odds", magic: bytes = MAGIC,
         max_size: int = MAX_ENTRY) -> bytes | None:
    """The kept bytes under ``key`` (in ``<cache>/<folder>``, starting with ``magic``); None if
    absent, unreadable, larger than ``max_size`` or not this key's."""
    path = _entry(key, folder)
    if path is None:
        return None
    head = magic + key.encode("ascii") + b"\n"
    try:
        from sevendag_cli.files import Unreadable, read_regular

        raw = read_regular(path, max_size)
    except (Unreadable, OSError, ValueError):
        return None
    if not raw.startswith(head):
        return None
    with contextlib.suppress(OSError, NotImplementedError, ValueError):  # recently used
        os.utime(path, follow_symlinks=False)
    return raw[len(head):]


def store(key: str, data: bytes, *, folder: str = "odds", magic: bytes = MAGIC) -> bool:
    """Keep ``data`` under ``key`` (atomically); False if it could not be written (ignored)."""
    path = _entry(key, folder)
    if path is None:
        return False
    tmp: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if path.parent.is_symlink() or not path.parent.is_dir():
            return False
        tmp = path.with_name(f".{key}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                     0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(magic + key.encode("ascii") + b"\n" + data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        tmp = None
        _sweep_stale(path.parent)
        bound_folder(path.parent, keep=path.name)
        return True
    except (OSError, ValueError):
        return False
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


STALE_AFTER = 3600.0
"""Seconds after which a temporary file of the cache is a leftover (a writer killed with -9)."""


def _sweep_stale(folder: Path) -> None:
    """Remove the cache's temporary files left by writers that died (never a fresh one)."""
    import time

    now = time.time()
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.startswith(".") and entry.name.endswith(".tmp") \
                        and entry.is_file(follow_symlinks=False):
                    with contextlib.suppress(OSError):
                        if now - entry.stat(follow_symlinks=False).st_mtime > STALE_AFTER:
                            os.unlink(entry.path)
    except OSError:
        pass


ENTRY_NAME = re.compile(r"[0-9a-f]{64}\.bin")
"""The name of a cache entry (its key, a hex SHA-256): nothing else in a folder is one."""


def bound_folder(folder: Path, keep: str = "") -> int:
    """Remove the least recently used entries of ``folder`` (oldest modification time first)
    until it holds at most :data:`~sevendag_cli.limits.MAX_CACHE_ENTRIES` entries and
    :data:`~sevendag_cli.limits.MAX_CACHE_BYTES` bytes; never ``keep`` (the entry just written),
    never anything but a regular file named as an entry (:data:`ENTRY_NAME`; a symbolic link is
    not one).  Returns how many were removed; every failure is skipped silently."""
    import stat

    from sevendag_cli import limits

    entries: list[tuple[int, str, int]] = []  # (mtime, name, size)
    try:
        with os.scandir(folder) as found:
            for entry in found:
                if ENTRY_NAME.fullmatch(entry.name) is None:
                    continue
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue  # vanished
                if stat.S_ISREG(st.st_mode):
                    entries.append((st.st_mtime_ns, entry.name, st.st_size))
    except OSError:
        return 0
    count, size = len(entries), sum(e[2] for e in entries)
    removed = 0
    for _, name, bytes_ in sorted(entries):
        if count <= limits.MAX_CACHE_ENTRIES and size <= limits.MAX_CACHE_BYTES:
            break
        if name == keep:
            continue
        try:
            os.unlink(folder / name)  # a name in the folder: the link itself, were it one now
            removed += 1
        except FileNotFoundError:
            pass  # removed meanwhile (another process): gone all the same
        except OSError:
            continue  # cannot be removed: skipped, the others still go
        count, size = count - 1, size - bytes_
    return removed


POLICY_FOLDER = "policy"
"""Where the odds of fights under policies are kept (:class:`~.sevendag.policy.KeptOdds`)."""
POLICY_FORMAT = 1
MAX_POLICY_ENTRY = 64 * 1024 * 1024
"""Largest kept table of odds under policies read back (the house pair's: 15 MB)."""


def solver(ruleset: Any, a: Any, b: Any, *, cap: int | None = None,
           tolerance: float | None = None, policies: Policies = PLAIN) -> OddsSolver:
    """An odds solver for this pair, starting from the work kept for exactly this pair (and,
    under policies, these policies and this cap)."""
    from sevendag_cli.sim.moment import OddsSolver
    from sevendag_cli.sim.odds import DEFAULT_TOLERANCE

    tol = DEFAULT_TOLERANCE if tolerance is None else tolerance
    if policies != PLAIN:
        rounds = ruleset.round_cap if cap is None else cap
        key = work_key(POLICY_FOLDER, POLICY_FORMAT, ruleset, a, b, list(policies), rounds)
        s = OddsSolver(ruleset, a, b, cap=cap, policies=policies, tolerance=tol,
                       kept=load(key, folder=POLICY_FOLDER, max_size=MAX_POLICY_ENTRY))
        s.cache_folder = POLICY_FOLDER
    else:
        key = pair_key(ruleset, a, b)
        s = OddsSolver(ruleset, a, b, cap=cap, tolerance=tol, kept=load(key))
    s.cache_key = key
    return s


def keep(s: OddsSolver) -> None:
    """Build what ``s`` would keep (if it has not been read from the cache) and keep it
    (nothing when the solver has nothing it can keep: empty bytes)."""
    if s.cache_key is None or cache_dir() is None or s.used_kept:
        return
    data = s.keep()
    if data:
        store(s.cache_key, data, folder=s.cache_folder)
