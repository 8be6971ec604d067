"""The encounter file: the game master's record of a fight in progress.

Safety:
* saves are atomic: the new document goes to a temporary file beside the
  encounter, is flushed and fsync'd, then renamed over the old one — a crash at
  any point leaves either the old or the new encounter, never half of one;
* a save is what a careful editor does: a symbolic link is written through (the
  temporary file goes beside the link's target, which gets the new document),
  the file's mode is kept, a read-only file is refused, and temporary files of
  the same encounter left by a killed command are removed (under the lock, no
  other command can be writing one);
* a lock (the system's lock on ``<file>.lock`` beside the real file:
  :mod:`sevendag_cli.oslock`, ``flock`` on Unix, ``msvcrt.locking`` on Windows) stops
  two commands from working on the same encounter at once: the second is told the
  encounter is in use, at once (no waiting).  The system releases it when its command
  ends, however it ends.  The lock file is removed when the command ends (its
  holder removes it, and a command that opened a lock file since removed tries
  again), so no failed command leaves one behind (on Windows, where an open file
  cannot be removed, one another command has open stays: harmless, it is only locked);
* only a regular file is read (never a pipe or a device), of at most
  ``MAX_ENCOUNTER_BYTES``, nested at most ``MAX_ENCOUNTER_DEPTH`` levels, with
  every integer within ``INT_LIMIT`` (:mod:`sevendag_cli.limits`); what it holds is
  counted before it is parsed, and a file whose objects would take more memory than
  ``ENCOUNTER_MEMORY_PER_BYTE`` bytes per byte of the file, or ``MAX_ENCOUNTER_MEMORY``, is
  refused before a single object is made of it (:func:`json_shape`: 20 MB of ``{}`` took
  667 MB before);
* the document carries a format name and version; anything else is refused
  with a clear message;
* the encounter embeds the ruleset and both fighter sheets as they were when
  it started, so editing a sheet mid-fight cannot corrupt it;
* it keeps every earlier state (``history``), so ``undo`` can take a step back,
  and one log entry per step (``log``), which since version 2 records the
  step's dice and choices, so ``log`` can replay it (:mod:`sevendag_cli.history`).

Format versions: 1 kept the states and a short log entry per step; 2 adds to
the ``init`` and ``round`` entries the faces rolled (``dice``) and a round's
``choices``.  Version 1 files are read (their earlier steps lack the dice, and
are shown as far as they can be); a save writes version 2.  The schema of the
file is ``sevendag schema encounter``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from msgspec import Struct, field
from msgspec.structs import replace

from sevendag_cli import oslock
from sevendag_cli.errors import EncounterError, Msg, joined
from sevendag_cli.files import Unreadable, kind_of, os_reason, read_regular, stat_or_none
from sevendag_cli.limits import (
    ENCOUNTER_MEMORY_PER_BYTE,
    INT_LIMIT,
    MAX_ENCOUNTER_BYTES,
    MAX_ENCOUNTER_DEPTH,
    MAX_ENCOUNTER_MEMORY,
)
from sevendag_cli.streams import note_saved

FORMAT = "sevendag-encounter"
VERSION = 2
READS = (1, 2)  # the versions this sevendag reads (it writes VERSION)
DEFAULT_PATH = "encounter.sevendag.json"


class SavedEncounter(Struct, frozen=True):
    """Everything needed to go on with a fight (plain data; the engine rebuilds from it)."""

    ruleset: dict[str, Any]  # {"name", "path", "data"}
    fighters: tuple[dict[str, Any], dict[str, Any]]  # each {"path", "data"}
    state: dict[str, Any]
    history: tuple[dict[str, Any], ...] = ()  # earlier states, oldest first
    log: tuple[dict[str, Any], ...] = ()  # one entry per step (init, round, wound, heal)
    extra: dict[str, Any] = field(default_factory=dict)

    def step(self, state: dict[str, Any], entry: dict[str, Any]) -> SavedEncounter:
        """The encounter after one more step (the old state goes into the history)."""
        return replace(
            self, state=state, history=(*self.history, self.state), log=(*self.log, entry)
        )

    def undo(self) -> tuple[SavedEncounter, dict[str, Any]]:
        if not self.history or not self.log:
            raise EncounterError(Msg("store.nothing_to_undo"))
        undone = self.log[-1]
        return (
            replace(self, state=self.history[-1], history=self.history[:-1], log=self.log[:-1]),
            undone,
        )


def to_document(enc: SavedEncounter) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "ruleset": enc.ruleset,
        "fighters": list(enc.fighters),
        "state": enc.state,
        "history": list(enc.history),
        "log": list(enc.log),
        "extra": enc.extra,
    }


class _Bad(ValueError):
    """A damaged document, with the message saying how."""

    def __init__(self, msg: Msg) -> None:
        super().__init__(str(msg))
        self.msg = msg


def no_encounter(path: Path | str) -> Msg:
    return Msg("store.no_encounter", path=path)


def from_document(doc: Any, path: str) -> SavedEncounter:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise EncounterError(Msg("store.not_encounter", path=path))
    version = doc.get("version")
    if type(version) is not int or version not in READS:
        raise EncounterError(Msg("store.version", path=path, version=version, expected=joined(READS)))
    try:
        fighters = doc["fighters"]
        if not isinstance(fighters, list) or len(fighters) != 2:
            raise _Bad(Msg("engine.state.two_fighters"))
        for key in ("ruleset", "state", "extra"):
            if not isinstance(doc[key], dict):
                raise _Bad(Msg("store.not_object", key=key))
        if not all(isinstance(x, dict) for x in (*fighters, *doc["history"], *doc["log"])):
            raise _Bad(Msg("store.hold_objects"))
        return SavedEncounter(
            ruleset=doc["ruleset"],
            fighters=(fighters[0], fighters[1]),
            state=doc["state"],
            history=tuple(doc["history"]),
            log=tuple(doc["log"]),
            extra=doc["extra"],
        )
    except _Bad as exc:
        raise EncounterError(Msg("store.damaged", path=path, detail=exc.msg)) from None
    except (KeyError, TypeError, ValueError) as exc:
        raise EncounterError(Msg("store.damaged", path=path, detail=str(exc))) from None


class _Beyond(ValueError):
    """An integer beyond ``INT_LIMIT`` in an encounter file."""


def _bounded_int(text: str) -> int:
    """``parse_int`` for the encounter: no integer beyond the bound (nor a 5,000-digit one)."""
    if len(text) > 20:
        raise _Beyond(text[:20])
    value = int(text)
    if abs(value) > INT_LIMIT:
        raise _Beyond(text)
    return value


_NOT_A_BRACKET = re.compile(rb'(?:"[^"\\]*+(?:\\.[^"\\]*+)*+"|[^"\[\]{}]++)++')
"""Whatever is not a bracket outside a string: strings (with their escapes) and other bytes."""
_DIGITS = tuple(str(d).encode() for d in range(10))
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_NOT_COUNTED = bytes(c for c in range(256) if c not in b'[]{},:".0123456789')
_NOT_DIGITS = bytes(c for c in range(256) if c not in b"0123456789")
_NOT_LEAD_3 = bytes(c for c in range(256) if not 0xE0 <= c <= 0xEF)  # lead bytes of U+0800..U+FFFF
_NOT_LEAD_4 = bytes(c for c in range(256) if not 0xF0 <= c <= 0xF4)  # lead bytes beyond U+FFFF
_PAIRS = (b"{}", b"[]", b"{]", b"[}")  # innermost pairs (the last two: damaged text, refused later)


class JsonShape(NamedTuple):
    """What a JSON text holds at most, counted before it is parsed (:func:`json_shape`).

    The counts are of the whole text, its strings' characters included: at most what the
    parsed text holds (a ``{`` inside a name counts as an object here), never less.
    """

    size: int  # bytes of the text
    too_deep: bool  # nested deeper than the limit asked
    objects: int
    arrays: int
    separators: int  # commas: each value after the first of its object or array
    pairs: int  # colons: the keys of the objects
    texts: int  # strings, keys included
    chars: int  # bytes but spaces and line ends (the indentation): the texts' characters at most
    digits: int
    points: int  # decimal points (the fractions of numbers)
    char_size: int  # bytes per character of the text once decoded: 1, 2 or 4 (Python's str)

    @property
    def values(self) -> int:
        """Every value, containers included (at most: an empty container counts one)."""
        return self.separators + self.objects + self.arrays + 1

    def memory(self) -> int:
        """The memory Python's objects of the parsed text take, at most about (CPython 3.11 on
        64 bits, measured with ``tracemalloc``): a dict 72 bytes, 192 with a key, and 24 a
        key more; a list 64 bytes and 10 an item; a text 56 bytes and its characters (a key
        as a text, though the parser shares a key met twice); a number of three digits or
        more, or with a decimal point, 32 (smaller ones are shared); ``true``, ``false`` and
        ``null`` nothing.  The decoded text itself is not counted: it is as large as the file
        (or 2 or 4 times, as :attr:`char_size` says)."""
        filled = min(self.objects, self.pairs)
        items = max(0, self.values - self.pairs)
        numbers = self.digits // 3 + self.points
        return (72 * self.objects + 120 * filled + 24 * self.pairs + 64 * self.arrays
                + 10 * items + 56 * self.texts + self.char_size * self.chars + 32 * numbers)


def json_shape(raw: bytes, depth_limit: int | None = None) -> JsonShape:
    """Count what the JSON text ``raw`` holds (see :class:`JsonShape`) before parsing it, in a
    copy of the characters counted (no object per value is made: 20 MB of ``{}`` is counted
    in 20 MB); with ``depth_limit``, also whether it is nested deeper (:func:`json_deeper`)."""
    counted = raw.translate(None, _NOT_COUNTED)  # one pass; what is left is counted
    shape = JsonShape(
        size=len(raw), too_deep=False, objects=counted.count(b"{"), arrays=counted.count(b"["),
        separators=counted.count(b","), pairs=counted.count(b":"),
        texts=counted.count(b'"') // 2,
        chars=len(raw) - raw.count(b" ") - raw.count(b"\n"),  # the indentation is no text
        digits=len(counted.translate(None, _NOT_DIGITS)), points=counted.count(b"."),
        char_size=_char_size(raw))
    del counted
    if depth_limit is not None:
        shape = shape._replace(too_deep=json_deeper(raw, depth_limit))
    return shape


def json_deeper(raw: bytes, limit: int) -> bool:
    """The JSON text ``raw`` nested deeper than ``limit``, found before parsing it.

    Its brackets outside strings kept (one pass of a regular expression splitting the text at
    them: the pieces are the brackets, one or a few bytes each, so call this once the number
    of brackets is known to be bounded, :meth:`JsonShape.memory`); each pass then removes the
    innermost pairs, so a text ``limit`` deep is empty after ``limit`` passes; an unbalanced
    text stops early (the parser then says what is wrong).
    """
    brackets = b"".join(_NOT_A_BRACKET.split(raw)).translate(None, _NOT_BRACKETS)
    for _ in range(limit):
        before = len(brackets)
        for pair in _PAIRS:  # each pair marked first, so that a pass removes one level only
            brackets = brackets.replace(pair, b"\0")
        brackets = brackets.replace(b"\0", b"")
        if not brackets or len(brackets) == before:
            return False
    return any(pair in brackets for pair in _PAIRS)


def _char_size(raw: bytes) -> int:
    """The bytes per character of Python's ``str`` of the UTF-8 text ``raw``: 1, 2 or 4."""
    if raw.isascii():
        return 1
    if raw.translate(None, _NOT_LEAD_4):
        return 4
    return 2 if raw.translate(None, _NOT_LEAD_3) else 1


def opens_deeper(raw: bytes, limit: int) -> bool:
    """The JSON text ``raw`` opens with more than ``limit`` nested objects or arrays (each but
    the first maybe after a key): a sure sign it is too deep, found in a glance at its start
    (no bracket there can be inside a string), before what it holds is counted."""
    return re.match(_OPENS % (limit + 1), raw) is not None


_OPENS = rb'\s*(?:[\[{]\s*(?:"[^"\\]*+(?:\\.[^"\\]*+)*+"\s*:\s*)?){%d}'


def json_too_deep(text: str | bytes, limit: int) -> bool:
    """A JSON text nested deeper than ``limit``, found before parsing (:func:`json_deeper`)."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return json_deeper(raw, limit)


def memory_allowed(size: int) -> int:
    """The most memory an encounter file of ``size`` bytes may take once read (estimated by
    :meth:`JsonShape.memory`): in proportion to its size, and never beyond what the largest
    encounter takes (:mod:`sevendag_cli.limits`)."""
    return min(MAX_ENCOUNTER_MEMORY, ENCOUNTER_MEMORY_PER_BYTE * size + (1 << 20))


def _unusable(path: Path, exc: Unreadable) -> EncounterError:
    if exc.missing:
        return EncounterError(no_encounter(path))
    if exc.folder:
        return EncounterError(Msg("store.is_folder", path=path))
    if exc.kind is not None:
        return EncounterError(Msg("store.not_regular", path=path, kind=exc.kind))
    return EncounterError(Msg("store.unreadable", path=path, reason=exc.reason))


def load(path: Path) -> SavedEncounter:
    try:
        raw = read_regular(path, MAX_ENCOUNTER_BYTES)
    except Unreadable as exc:
        raise _unusable(path, exc) from None
    if not raw.strip():
        raise EncounterError(Msg("store.empty", path=path))
    too_deep = EncounterError(Msg("store.too_deep", path=path, limit=MAX_ENCOUNTER_DEPTH))
    if opens_deeper(raw, MAX_ENCOUNTER_DEPTH):  # a text opening deeper than the bound: that first
        raise too_deep
    shape = json_shape(raw)  # before it is even decoded
    need, allowed = shape.memory(), memory_allowed(len(raw))
    if need > allowed:  # before a single object is made of it
        from sevendag_cli.memory import size_text

        raise EncounterError(Msg("store.too_many_items", path=path, items=shape.values,
                                 need=size_text(need), limit=size_text(allowed),
                                 size=size_text(len(raw))))
    if json_deeper(raw, MAX_ENCOUNTER_DEPTH):
        raise too_deep
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise EncounterError(Msg("store.not_utf8", path=path)) from None
    del raw  # the text is what is parsed: the bytes need not be held meanwhile
    try:
        doc = json.loads(text, parse_int=_bounded_int)
    except _Beyond:
        raise EncounterError(Msg("store.int_limit", path=path, limit=INT_LIMIT)) from None
    except json.JSONDecodeError as exc:
        raise EncounterError(Msg("store.not_json", path=path, line=exc.lineno)) from None
    except RecursionError:  # not reached within the bound: a last guard
        raise too_deep from None
    return from_document(doc, str(path))


def require_encounter(path: Path) -> None:
    """Refuse, in one line, an encounter path with no encounter file (before anything is rolled)."""
    if _check_target(path, write=False) is None:
        raise EncounterError(no_encounter(path))


def exists(path: Path) -> bool:
    """Something is at ``path`` (links followed); one line if the path cannot be looked at
    (a name too long, a loop of links...), where ``Path.exists`` raises."""
    try:
        return stat_or_none(path) is not None
    except Unreadable as exc:
        raise EncounterError(Msg("common.file.cannot_write", path=path, reason=exc.reason)) from None


def save(path: Path, enc: SavedEncounter) -> None:
    """Write the encounter atomically (call it holding the lock: :func:`locked`)."""
    text = json.dumps(to_document(enc), ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    if len(text.encode("utf-8")) > MAX_ENCOUNTER_BYTES:
        raise EncounterError(Msg("store.would_be_too_large", path=path, limit=MAX_ENCOUNTER_BYTES))
    target = _real(path)
    if os.path.abspath(target) in _HELD:
        _remove_stale_temporaries(target)
    write_text_atomic(path, text)
    note_saved(path)  # an output lost or a Ctrl-C after this must say the encounter was saved


def _real(path: Path) -> Path:
    """The file a save replaces: ``path``, or the end of its chain of symbolic links."""
    if os.path.islink(path):
        return Path(os.path.realpath(path))
    return path


def _read_only(path: Path, st: os.stat_result) -> bool:
    """No write permission bit at all (even for root, as an editor warns), or none for us."""
    return not st.st_mode & 0o222 or not os.access(path, os.W_OK)


def _check_target(path: Path, *, write: bool) -> os.stat_result | None:
    """The encounter file's status (None: nothing there yet); one line if it cannot be used."""
    try:
        st = stat_or_none(path)
    except Unreadable as exc:
        raise _unusable(path, exc) from None
    if st is None:
        return None
    if stat.S_ISDIR(st.st_mode):
        raise EncounterError(Msg("store.is_folder", path=path))
    if not stat.S_ISREG(st.st_mode):
        raise EncounterError(Msg("store.not_regular", path=path, kind=kind_of(st.st_mode)))
    if write and _read_only(path, st):
        raise EncounterError(Msg("store.read_only", path=path))
    return st


def _temporary_name(target: Path) -> re.Pattern[str]:
    """The names :func:`_temporary` gives this file's temporary files (8 random characters)."""
    return re.compile(re.escape(f".{target.name}.") + r"[a-z0-9_]{8}\.tmp")


def _remove_stale_temporaries(target: Path) -> None:
    """Remove temporary files of this encounter left by a killed command (lock held)."""
    folder = target.parent
    pattern = _temporary_name(target)
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if pattern.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    os.unlink(folder / entry.name)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) atomically: :func:`write_bytes_atomic`."""
    write_bytes_atomic(path, text.encode("utf-8"))


_TEMP_LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789_"


def _temporary(target: Path) -> tuple[int, str]:
    """A new file beside ``target``, open for writing, readable by its owner only: ``.NAME.XXXXXXXX.tmp``
    (as ``tempfile.mkstemp`` makes them, without importing it: start-up)."""
    flags = (os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
             | getattr(os, "O_BINARY", 0))  # Windows: bytes as written, no newline translation
    for _ in range(100):
        letters = "".join(_TEMP_LETTERS[b % len(_TEMP_LETTERS)] for b in os.urandom(8))
        name = str(target.parent / f".{target.name}.{letters}.tmp")
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(target.parent))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write atomically, as a careful editor does.

    Through a symbolic link (the link's target is replaced, the link stays);
    temporary file beside the target, fsync, rename, fsync the folder; the
    target's mode (and group, owner where allowed) kept, a new file gets
    ``0666`` less the umask; a read-only file, a folder, a pipe or a device is
    refused.  Every failure is one line naming ``path``.
    """
    target = _real(path)
    try:
        st = stat_or_none(target)
    except Unreadable as exc:
        raise EncounterError(Msg("common.file.cannot_write", path=path, reason=exc.reason)) from None
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            kind = kind_of(st.st_mode)
            raise EncounterError(Msg("common.file.not_regular_target", path=path, kind=kind))
        if _read_only(target, st):
            raise EncounterError(Msg("common.file.read_only", path=path))
        mode = stat.S_IMODE(st.st_mode)
    else:
        mode = 0o666 & ~_umask()
    folder = target.parent
    try:
        fd, tmp = _temporary(target)
    except (OSError, ValueError) as exc:
        message = Msg("store.cannot_write", path=path, folder=folder, reason=os_reason(exc))
        raise EncounterError(message) from None
    try:
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                _keep_owner_and_mode(fh.fileno(), st, mode)
                os.fsync(fh.fileno())
            _replace(tmp, target)
        except OSError as exc:
            message = Msg("store.cannot_write", path=path, folder=folder, reason=os_reason(exc))
            raise EncounterError(message) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _keep_owner_and_mode(fd: int, st: os.stat_result | None, mode: int) -> None:
    """The new file gets the old one's group (and owner, for root) and ``mode``, where the
    system has owners and modes (Unix; Windows keeps only its read-only flag, left as is)."""
    if sys.platform == "win32":
        return
    if st is not None and (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
        with contextlib.suppress(OSError):
            os.fchown(fd, st.st_uid if os.geteuid() == 0 else -1, st.st_gid)
    os.fchmod(fd, mode)


REPLACE_TRIES = 20
"""Windows: how many times a save's rename is tried while another program has the encounter
open (a reader, an antivirus), 50 ms apart; Unix renames over an open file."""


def _replace(tmp: str, path: Path) -> None:
    """The rename that makes a save visible (a seam for the crash test).

    On Windows a file another program holds open cannot be replaced (``PermissionError``): a
    reader (``status``) holds it a few milliseconds, so the rename is tried again for up to a
    second before the save fails (one line; the old encounter kept whole).
    """
    for attempt in range(REPLACE_TRIES):
        try:
            os.replace(tmp, path)
            return
        except PermissionError:
            if not oslock.WINDOWS or attempt == REPLACE_TRIES - 1:
                raise
            import time

            time.sleep(0.05)


_HELD: set[str] = set()
"""The encounters (real files, absolute) whose lock this process holds."""


@contextlib.contextmanager
def locked(path: Path, *, write: bool = True) -> Iterator[None]:
    """Hold the encounter's lock for the duration of a command; refuse if it is held.

    The encounter path is checked first (a folder, a pipe, a read-only file when
    ``write``: one line, and no lock file made).  The lock is ``<file>.lock``
    beside the real file (links followed), so every name of one encounter
    shares it; it is removed when the command ends.
    """
    _check_target(path, write=write)
    target = _real(path)
    lock_path = target.with_name(target.name + ".lock")
    fd, held = _acquire(path, lock_path)
    key = os.path.abspath(target)
    _HELD.add(key)
    try:
        yield
    finally:
        _HELD.discard(key)
        _release(fd, lock_path, held)


def _release(fd: int, lock_path: Path, held: tuple[int, int]) -> None:
    """Unlock and remove the lock file (Unix: removed first, then closed, and only if it is ours
    still: whoever opened it since will try again; Windows, where an open file cannot be
    removed: closed first, then removed unless another command has it open)."""
    if oslock.WINDOWS:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(lock_path)
        return
    if _identity(lock_path) == held:
        with contextlib.suppress(OSError):
            os.unlink(lock_path)
    os.close(fd)


def _identity(path: Path) -> tuple[int, int] | None:
    """The (device, inode) of the file named ``path`` itself, or None."""
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def _acquire(path: Path, lock_path: Path) -> tuple[int, tuple[int, int]]:
    """Open and lock ``lock_path``: the descriptor and the lock file's (device, inode)."""

    def cannot(exc: OSError | ValueError) -> EncounterError:
        return EncounterError(Msg("store.cannot_lock", path=lock_path, reason=os_reason(exc)))

    for _ in range(100):
        try:
            before = stat_or_none(lock_path, follow=False)
        except Unreadable as exc:
            raise EncounterError(Msg("store.cannot_lock", path=lock_path, reason=exc.reason)) from None
        if before is not None and not stat.S_ISREG(before.st_mode):  # never opened
            raise EncounterError(Msg("store.lock_not_file", path=lock_path, kind=kind_of(before.st_mode)))
        try:
            fd = os.open(lock_path, oslock.open_flags(write=True), 0o644)
        except (OSError, ValueError) as exc:
            raise cannot(exc) from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise EncounterError(Msg("store.lock_not_file", path=lock_path, kind=kind_of(st.st_mode)))
            try:
                if not oslock.try_lock(fd):
                    raise EncounterError(Msg("store.in_use", path=path))
            except OSError as exc:
                raise cannot(exc) from None
        except BaseException:
            os.close(fd)
            raise
        if _identity(lock_path) == (st.st_dev, st.st_ino):
            return fd, (st.st_dev, st.st_ino)
        os.close(fd)  # its holder removed that lock file meanwhile: take the new one
    raise EncounterError(Msg("store.in_use", path=path))


@contextlib.contextmanager
def read_locked(path: Path) -> Iterator[bool]:
    """Share the encounter's lock while reading it (``status``, ``log``); never write nor create.

    Yields True when no command is changing the encounter (several readers can
    share the lock; a command that would change the encounter meanwhile is told
    it is in use), False when one is: the reader then reads the encounter as
    last saved — saves are atomic, so that is a whole encounter, never half of
    one — and says so.  No lock file is made: without one, nobody is writing.
    The lock file is the one :func:`locked` uses, beside the real file (links
    followed).  On Windows, which has no shared lock, the reader takes the lock only to see
    whether it is free and lets it go at once (readers never stop each other; a save that
    comes while the file is being read waits for the reader: :func:`_replace`).
    """
    target = Path(os.path.realpath(path))
    lock_path = target.with_name(target.name + ".lock")
    try:
        fd = os.open(lock_path, oslock.open_flags(write=False))
    except (OSError, ValueError):  # none (nobody is writing), or not ours to open: read as saved
        yield True
        return
    try:
        free = True
        try:
            free = oslock.try_lock(fd, shared=True)
            if free and not oslock.SHARED:
                oslock.unlock(fd)
        except OSError:
            pass  # a lock file that cannot be locked: read as saved
        yield free
    finally:
        os.close(fd)
