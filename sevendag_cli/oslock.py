"""The operating system's lock on an open file, without waiting: one interface, every platform.

What :mod:`sevendag_cli.store` locks an encounter with.  The system keeps these locks, not
a file's contents: a lock goes when its file is closed or its process ends, however it ends
(``kill -9`` too), so no lock is ever left behind.  They are advisory: they stop only
another program that asks for the same lock (every sevendag command does).

* **Linux, macOS and the other Unix systems**: ``fcntl.flock`` on the whole file, shared or
  exclusive.  Each ``open`` has its own lock: a second open of the same file in the same
  process is refused as a second process would be.
* **Windows**: ``msvcrt.locking`` on the file's first byte, exclusive only (the standard
  library has no shared lock on Windows): a shared request takes the exclusive lock
  (:data:`SHARED`, False there, says so).  Locked bytes cannot be read by others either: a
  lock file is never read.

Why the standard library and not a locking package: ``filelock`` and ``portalocker`` lock
the same way (``flock``; ``LockFileEx`` or ``msvcrt.locking`` on Windows) but importing one
costs ``round`` and every other command that locks 10–70 ms more start-up (they import
``logging``, ``secrets``, ``importlib.metadata``...), more than its start-up guard allows
(``docs/development.md``, "Start-up").
"""

from __future__ import annotations

import errno
import os
import sys

WINDOWS = sys.platform == "win32"

if sys.platform == "win32":  # (written so for type checkers: they read sys.platform)
    import msvcrt
else:
    import fcntl

SHARED = not WINDOWS
"""Whether this system has shared locks (several readers at once)."""

_BUSY = frozenset({errno.EACCES, errno.EAGAIN, errno.EWOULDBLOCK, getattr(errno, "EDEADLOCK", errno.EDEADLK)})
"""The error numbers that mean "another holds a conflicting lock" (some file systems answer
EACCES for flock; Windows' ``_locking`` EACCES or EDEADLOCK)."""


def try_lock(fd: int, *, shared: bool = False) -> bool:
    """Lock the open file ``fd`` without waiting: True if locked, False if another holds it.

    ``shared``: a reader's lock, which other readers share (where :data:`SHARED`; else the
    exclusive lock).  Any other failure (a file system without locks...) raises ``OSError``.
    """
    try:
        if sys.platform == "win32":
            os.lseek(fd, 0, os.SEEK_SET)  # the byte locked is counted from the file's position
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        else:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in _BUSY:
            return False
        raise
    return True


def unlock(fd: int) -> None:
    """Release the lock :func:`try_lock` took on ``fd`` (closing ``fd`` releases it too)."""
    if sys.platform == "win32":
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)


def open_flags(*, write: bool) -> int:
    """``os.open`` flags for a lock file: read (and create, to ``write``) without following a
    symbolic link, blocking on a FIFO, or taking a terminal; inherited by no child process.
    Each flag only where the system has it (Windows has none of the first four)."""
    flags = (os.O_RDWR | os.O_CREAT) if write else os.O_RDONLY
    for name in ("O_NOFOLLOW", "O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC", "O_NOINHERIT"):
        flags |= getattr(os, name, 0)
    return flags
