"""The encounter file: the game master's record of a fight in progress.

Safety:
* saves are atomic: the new document goes to a temporary file in the same
  folder, is flushed and fsync'd, then renamed over the old one — a crash at
  any point leaves either the old or the new encounter, never half of one;
* a lock (``fcntl.flock`` on ``<file>.lock``) stops two commands from working
  on the same encounter at once: the second is told the encounter is in use;
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
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from msgspec import Struct, field
from msgspec.structs import replace

from sevendag_cli.errors import EncounterError, Msg, joined

FORMAT = "sevendag-encounter"
VERSION = 2
READS = (1, 2)  # the versions this sevendag reads (it writes VERSION)
DEFAULT_PATH = "encounter.sevendag.json"


class Encounter(Struct, frozen=True):
    """Everything needed to go on with a fight (plain data; the engine rebuilds from it)."""

    ruleset: dict[str, Any]  # {"name", "path", "data"}
    fighters: tuple[dict[str, Any], dict[str, Any]]  # each {"path", "data"}
    state: dict[str, Any]
    history: tuple[dict[str, Any], ...] = ()  # earlier states, oldest first
    log: tuple[dict[str, Any], ...] = ()  # one entry per step (init, round, wound, heal)
    extra: dict[str, Any] = field(default_factory=dict)

    def step(self, state: dict[str, Any], entry: dict[str, Any]) -> Encounter:
        """The encounter after one more step (the old state goes into the history)."""
        return replace(
            self, state=state, history=(*self.history, self.state), log=(*self.log, entry)
        )

    def undo(self) -> tuple[Encounter, dict[str, Any]]:
        if not self.history or not self.log:
            raise EncounterError(Msg("store.nothing_to_undo"))
        undone = self.log[-1]
        return (
            replace(self, state=self.history[-1], history=self.history[:-1], log=self.log[:-1]),
            undone,
        )


def to_document(enc: Encounter) -> dict[str, Any]:
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


def from_document(doc: Any, path: str) -> Encounter:
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
        return Encounter(
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


def load(path: Path) -> Encounter:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise EncounterError(no_encounter(path)) from None
    except IsADirectoryError:
        raise EncounterError(Msg("store.is_folder", path=path)) from None
    except OSError as exc:
        raise EncounterError(Msg("store.unreadable", path=path, reason=exc.strerror)) from None
    if not raw.strip():
        raise EncounterError(Msg("store.empty", path=path))
    try:
        doc = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise EncounterError(Msg("store.not_utf8", path=path)) from None
    except json.JSONDecodeError as exc:
        raise EncounterError(Msg("store.not_json", path=path, line=exc.lineno)) from None
    return from_document(doc, str(path))


def save(path: Path, enc: Encounter) -> None:
    """Write the encounter atomically."""
    text = json.dumps(to_document(enc), ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    write_text_atomic(path, text)


def write_text_atomic(path: Path, text: str) -> None:
    """Write atomically: temporary file in the same folder, fsync, rename, fsync the folder."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        message = Msg("store.cannot_write", path=path, folder=folder, reason=exc.strerror)
        raise EncounterError(message) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        _replace(tmp, path)
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


def _replace(tmp: str, path: Path) -> None:
    """The rename that makes a save visible (a seam for the crash test)."""
    os.replace(tmp, path)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the encounter's lock for the duration of a command; refuse if it is held."""
    import fcntl

    lock_path = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise EncounterError(Msg("store.cannot_lock", path=lock_path, reason=exc.strerror)) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise EncounterError(Msg("store.in_use", path=path)) from None
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def read_locked(path: Path) -> Iterator[bool]:
    """Share the encounter's lock while reading it (``status``, ``log``); never write nor create.

    Yields True when no command is changing the encounter (several readers can
    share the lock; a command that would change the encounter meanwhile is told
    it is in use), False when one is: the reader then reads the encounter as
    last saved — saves are atomic, so that is a whole encounter, never half of
    one — and says so.  No lock file is made: without one, nobody is writing.
    The lock file is the one :func:`locked` uses, beside the real file (links
    followed).
    """
    import fcntl

    target = Path(os.path.realpath(path))
    lock_path = target.with_name(target.name + ".lock")
    try:
        fd = os.open(lock_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except (OSError, ValueError):  # none (nobody is writing), or not ours to open: read as saved
        yield True
        return
    try:
        free = True
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            free = False
        except OSError:
            pass  # a lock file that cannot be locked: read as saved
        yield free
    finally:
        os.close(fd)
