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
* it keeps every earlier state (``history``), so ``undo`` can take a step back.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sevendag_cli.errors import EncounterError

FORMAT = "sevendag-encounter"
VERSION = 1
DEFAULT_PATH = "encounter.sevendag.json"


@dataclass(frozen=True)
class Encounter:
    """Everything needed to go on with a fight (plain data; the engine rebuilds from it)."""

    ruleset: dict[str, Any]  # {"name", "path", "data"}
    fighters: tuple[dict[str, Any], dict[str, Any]]  # each {"path", "data"}
    state: dict[str, Any]
    history: tuple[dict[str, Any], ...] = ()  # earlier states, oldest first
    log: tuple[dict[str, Any], ...] = ()  # one summary per step (init, round, wound)
    extra: dict[str, Any] = field(default_factory=dict)

    def step(self, state: dict[str, Any], entry: dict[str, Any]) -> Encounter:
        """The encounter after one more step (the old state goes into the history)."""
        return replace(
            self, state=state, history=(*self.history, self.state), log=(*self.log, entry)
        )

    def undo(self) -> tuple[Encounter, dict[str, Any]]:
        if not self.history or not self.log:
            raise EncounterError("nothing to undo: the encounter has only just started")
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


def from_document(doc: Any, path: str) -> Encounter:
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise EncounterError(f"{path}: not a sevendag encounter file")
    version = doc.get("version")
    if version != VERSION:
        raise EncounterError(
            f"{path}: encounter format version {version!r}, this sevendag reads version "
            f"{VERSION}: finish it with the sevendag that made it, or start a new one"
        )
    try:
        fighters = doc["fighters"]
        if not isinstance(fighters, list) or len(fighters) != 2:
            raise ValueError("two fighters expected")
        for key in ("ruleset", "state", "extra"):
            if not isinstance(doc[key], dict):
                raise ValueError(f"{key} is not an object")
        if not all(isinstance(x, dict) for x in (*fighters, *doc["history"], *doc["log"])):
            raise ValueError("fighters, history and log hold objects")
        return Encounter(
            ruleset=doc["ruleset"],
            fighters=(fighters[0], fighters[1]),
            state=doc["state"],
            history=tuple(doc["history"]),
            log=tuple(doc["log"]),
            extra=doc["extra"],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise EncounterError(f"{path}: the encounter file is damaged ({exc})") from None


def load(path: Path) -> Encounter:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise EncounterError(
            f"{path}: no encounter here: start one with `sevendag init` (or give --encounter PATH)"
        ) from None
    except IsADirectoryError:
        raise EncounterError(f"{path}: is a folder, not an encounter file") from None
    except OSError as exc:
        raise EncounterError(f"{path}: cannot be read ({exc.strerror})") from None
    if not raw.strip():
        raise EncounterError(f"{path}: the encounter file is empty: start again with `sevendag init`")
    try:
        doc = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise EncounterError(f"{path}: the encounter file is not UTF-8 text (damaged?)") from None
    except json.JSONDecodeError as exc:
        raise EncounterError(
            f"{path}: the encounter file is damaged (not valid JSON at line {exc.lineno}): "
            "restore it or start again with `sevendag init`"
        ) from None
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
        raise EncounterError(f"{path}: cannot write in {folder} ({exc.strerror})") from None
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
        raise EncounterError(f"{lock_path}: cannot create the lock file ({exc.strerror})") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise EncounterError(
                f"{path}: the encounter is in use by another sevendag command: wait for it to finish"
            ) from None
        yield
    finally:
        os.close(fd)
