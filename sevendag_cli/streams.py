"""The standard streams of a real ``sevendag`` process.

Data go to stdout, messages to stderr.  What happens when they cannot be written:

* **A reader that stops reading** (``sevendag fight --jsonl | head``: the pipe
  is closed, a write fails with ``EPIPE``) is normal: the command stops quietly,
  with no message, and exits :data:`EXIT_BROKEN_PIPE` (141, what a shell reports
  for a tool ended by ``SIGPIPE``, as ``yes | head`` gives with ``pipefail``).
  Whatever the command did before (a saved round) stands.
* **Any other failure to write the data** (a full disk, ``/dev/full``, an
  input/output error) is one line on stderr and exit 1; if the command saved the
  encounter before its output was lost, the line says so (:func:`note_saved`).
* **Stdout closed** before the command starts (``sevendag fight >&-``) is one
  line and exit 1 before anything is read, rolled or saved.
* **Stderr** is best effort: a message that cannot be written is dropped (there
  is nowhere to report it), the exit code still tells.  A closed stdin reads as
  empty.
* Nothing is left for the interpreter to flush at exit (no ``Exception ignored``,
  no exit code 120): after a failure the descriptor is pointed at ``/dev/null``.

:func:`install` sets this up for the process (the console script and
``python -m sevendag_cli``; tests that run the app in-process through Typer's
``CliRunner`` keep the runner's own streams), :func:`finish` flushes stdout
and gives the exit code.  A closed descriptor 0, 1 or 2 is opened on
``/dev/null`` first, so no file the command opens can take its number (the
encounter file must never become "stdout").
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from sevendag_cli.errors import Msg

EXIT_BROKEN_PIPE = 141
"""Exit code when the reader of stdout stopped reading (128 + SIGPIPE): quiet, no message."""
EXIT_WRITE_ERROR = 1
"""Exit code when stdout cannot be written for another reason: one line on stderr."""

_SAVED: list[str] = []


def note_saved(path: str | Path) -> None:
    """The encounter ``path`` was saved by this command (an error after it must say so)."""
    _SAVED.append(str(path))


def forget_saved() -> None:
    """A new command starts (the app may run several in one process: tests)."""
    _SAVED.clear()


def saved() -> str | None:
    """The encounter this command saved, if any (the last one)."""
    return _SAVED[-1] if _SAVED else None


class OutputLost(Exception):
    """The data could not be written on stdout; ``error`` is why."""

    def __init__(self, error: OSError | ValueError) -> None:
        super().__init__(str(error))
        self.error = error

    @property
    def broken_pipe(self) -> bool:
        """The reader stopped reading (``EPIPE``): a quiet exit, not an error."""
        return isinstance(self.error, OSError) and self.error.errno == errno.EPIPE


def _to_devnull(fd: int) -> None:
    """Point descriptor ``fd`` at ``/dev/null`` (what is still buffered for it goes nowhere)."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:  # pragma: no cover - no /dev/null
        return
    try:
        if null != fd:
            os.dup2(null, fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        if null != fd:
            os.close(null)


class _Stream:
    """A text stream that handles its own write failures (see the subclasses)."""

    def __init__(self, stream: TextIO, fd: int) -> None:
        self._stream = stream
        self._fd = fd
        self.failed: OSError | ValueError | None = None

    def write(self, text: str) -> int:
        if self.failed is not None:
            return len(text)
        try:
            return self._stream.write(text)
        except (OSError, ValueError) as exc:
            self._fail(exc)
            return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self.failed is not None:
            return
        try:
            self._stream.flush()
        except (OSError, ValueError) as exc:
            self._fail(exc)

    def _fail(self, exc: OSError | ValueError) -> None:
        self.failed = exc
        _to_devnull(self._fd)  # the interpreter's last flush then succeeds, silently

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding... of the real stream
        return getattr(self._stream, name)


class GuardedOutput(_Stream):
    """Stdout: the first write or flush that fails raises :class:`OutputLost`; later ones do nothing."""

    def _fail(self, exc: OSError | ValueError) -> None:
        super()._fail(exc)
        raise OutputLost(exc)


class QuietErrors(_Stream):
    """Stderr: a write that fails is dropped (there is nowhere left to report it)."""


def _closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


def output_encoding(stream: Any, windows: bool = sys.platform == "win32") -> dict[str, str]:
    """How a standard stream is to encode: a terminal that is not UTF-8 gets '?' for what it
    cannot show, not a crash; on Windows, a file or a pipe (``sevendag fight --json > f.json``)
    gets UTF-8, as on every other system, not the system's ANSI code page (which has no '→'
    and few of the world's names).  A Windows console needs nothing: Python writes it in
    Unicode whatever its code page."""
    isatty = getattr(stream, "isatty", None)
    if windows and isatty is not None and not isatty():
        return {"encoding": "utf-8", "errors": "replace"}
    return {"errors": "replace"}


def install() -> bool:
    """Guard the standard streams of this process; True if stdout was closed at start.

    Closed descriptors are opened on ``/dev/null`` first (in order, so each takes
    its own number).
    """
    closed = {fd: _closed(fd) for fd in (0, 1, 2)}
    for fd in (0, 1, 2):
        if closed[fd]:
            _to_devnull(fd)
    if closed[0] or sys.stdin is None:
        sys.stdin = open(0, encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
    if closed[1] or sys.stdout is None:
        sys.stdout = open(1, "w", encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
    if closed[2] or sys.stderr is None:
        sys.stderr = open(2, "w", encoding="utf-8", errors="replace", closefd=False)  # noqa: SIM115
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(**output_encoding(stream))
    sys.stdout = GuardedOutput(sys.stdout, 1)
    sys.stderr = QuietErrors(sys.stderr, 2)
    return closed[1]


def write_bytes(data: bytes) -> None:
    """Bytes on stdout as they are (no newline translation: ``--csv``), under the same guard
    as text: a failure raises :class:`OutputLost` (one line, or exit 141 for a reader gone)."""
    out = sys.stdout
    raw = getattr(out, "buffer", None)
    if raw is None:  # a text-only stream (a test's): the text as it is
        out.write(data.decode("utf-8"))
        return
    out.flush()
    failed = getattr(out, "failed", None)
    if failed is not None:  # the guard already failed: nothing more is written
        return
    try:
        raw.write(data)
        raw.flush()
    except (OSError, ValueError) as exc:
        fail = getattr(out, "_fail", None)
        if fail is not None:
            fail(exc)  # the guard points stdout at /dev/null and raises OutputLost
        raise OutputLost(exc) from None


def flush_output() -> None:
    """Flush stdout (raises :class:`OutputLost` if that fails)."""
    sys.stdout.flush()


def lost_output(lost: OutputLost) -> tuple[int, Msg | None]:
    """The exit code and the error line (None: quiet) for output that could not be written."""
    if lost.broken_pipe:
        return EXIT_BROKEN_PIPE, None
    from sevendag_cli.errors import Msg
    from sevendag_cli.files import os_reason

    reason = os_reason(lost.error) if isinstance(lost.error, OSError) else Msg("cli.output_closed")
    path = saved()
    if path is not None:
        return EXIT_WRITE_ERROR, Msg("cli.output_lost_saved", path=path, reason=reason)
    return EXIT_WRITE_ERROR, Msg("cli.output_lost", reason=reason)
