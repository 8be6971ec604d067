"""Files the user names, read safely: regular files only, bounded, every failure a message.

* A file is looked at (``stat``) before it is opened, so a named pipe, a device,
  a socket or a folder is never opened; it is then opened non-blocking and
  checked again on the open file (``fstat``), so nothing swapped in between
  can make a read block.
* A file larger than its bound is refused before it is read, and the read
  itself stops one byte past the bound.
* An ``OSError`` becomes a message in the user's language (:func:`os_reason`),
  never a traceback; the caller names the file.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from sevendag_cli.errors import Msg

PathLike = str | Path

_REASONS = {
    errno.ENOENT: "common.os.enoent",
    errno.EACCES: "common.os.eacces",
    errno.EPERM: "common.os.eperm",
    errno.EISDIR: "common.os.eisdir",
    errno.ENOTDIR: "common.os.enotdir",
    errno.ENAMETOOLONG: "common.os.enametoolong",
    errno.ELOOP: "common.os.eloop",
    errno.EROFS: "common.os.erofs",
    errno.ENOSPC: "common.os.enospc",
    errno.EDQUOT: "common.os.edquot",
    errno.EFBIG: "common.os.efbig",
    errno.ENXIO: "common.os.enxio",
    errno.ENODEV: "common.os.enodev",
    errno.EIO: "common.os.eio",
    errno.EBUSY: "common.os.ebusy",
    errno.ETXTBSY: "common.os.etxtbsy",
    errno.EMFILE: "common.os.emfile",
    errno.ENFILE: "common.os.emfile",
    errno.EEXIST: "common.os.eexist",
    errno.EXDEV: "common.os.exdev",
    errno.EINVAL: "common.os.einval",
    errno.EAGAIN: "common.os.eagain",
    errno.ENOMEM: "common.os.enomem",
    errno.EOVERFLOW: "common.os.efbig",
}


def os_reason(exc: OSError | ValueError) -> Msg:
    """Why a file operation failed, in the user's language (``exc.strerror`` is English only).

    A ``ValueError`` is what Python raises for a path holding a NUL character.
    """
    if not isinstance(exc, OSError):
        return Msg("common.os.nul")
    key = _REASONS.get(exc.errno or 0)
    if key is not None:
        return Msg(key)
    return Msg("common.os.other", text=exc.strerror or exc, code=exc.errno)


def kind_of(mode: int) -> Msg:
    """What a file that is not a regular file is: a folder, a named pipe..."""
    if stat.S_ISDIR(mode):
        return Msg("common.kind.folder")
    if stat.S_ISFIFO(mode):
        return Msg("common.kind.fifo")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return Msg("common.kind.device")
    if stat.S_ISSOCK(mode):
        return Msg("common.kind.socket")
    if stat.S_ISLNK(mode):
        return Msg("common.kind.link")
    return Msg("common.kind.other")


class Unreadable(Exception):
    """A file that cannot be used; ``reason`` says why (the caller names the file).

    ``missing``: nothing is there; ``folder``: a folder is there; ``kind``: what
    is there instead of a regular file (a folder, a named pipe...).  Callers with a
    message of their own for these cases (``no encounter here``...) use them.
    """

    def __init__(
        self, reason: Msg, *, missing: bool = False, folder: bool = False, kind: Msg | None = None
    ) -> None:
        super().__init__(str(reason))
        self.reason = reason
        self.missing = missing
        self.folder = folder
        self.kind = kind


def _failed(exc: OSError | ValueError) -> Unreadable:
    missing = isinstance(exc, OSError) and exc.errno == errno.ENOENT
    folder = isinstance(exc, OSError) and exc.errno == errno.EISDIR
    kind = Msg("common.kind.folder") if folder else None
    return Unreadable(os_reason(exc), missing=missing, folder=folder, kind=kind)


def stat_or_none(path: PathLike, *, follow: bool = True) -> os.stat_result | None:
    """The file's status (links followed, unless ``follow`` is false); None if nothing is there.

    Any other failure (a name too long, a loop of links, a folder that cannot be
    searched...) raises :class:`Unreadable`.
    """
    try:
        return os.stat(path, follow_symlinks=follow)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise _failed(exc) from None


def is_regular(path: PathLike) -> bool:
    """A regular file is there (links followed).  Never raises: for lookups and listings."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def require_regular(st: os.stat_result) -> None:
    """Refuse anything but a regular file (a folder says so)."""
    if not stat.S_ISREG(st.st_mode):
        kind = kind_of(st.st_mode)
        raise Unreadable(Msg("common.file.not_regular", kind=kind),
                         folder=stat.S_ISDIR(st.st_mode), kind=kind)


def _require_size(size: int, limit: int) -> None:
    if size > limit:
        raise Unreadable(Msg("common.file.too_large", size=size, limit=limit))


_READ_FLAGS = os.O_RDONLY
for _flag in ("O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC", "O_BINARY", "O_NOINHERIT"):
    _READ_FLAGS |= getattr(os, _flag, 0)
"""How a file is opened for reading: never blocking on a FIFO nor taking a terminal, inherited
by no child, in binary (each flag where the system has it: Windows has the last two only)."""


def read_regular(path: PathLike, limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; :class:`Unreadable` otherwise."""
    st = stat_or_none(path)
    if st is None:
        raise Unreadable(Msg("common.os.enoent"), missing=True)
    require_regular(st)  # a pipe, device, socket or folder is never opened
    _require_size(st.st_size, limit)
    try:
        fd = os.open(path, _READ_FLAGS)
    except (OSError, ValueError) as exc:
        raise _failed(exc) from None
    try:
        st = os.fstat(fd)  # what was opened, whatever the name points to now
        require_regular(st)
        _require_size(st.st_size, limit)
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            _require_size(total, limit)  # the file grew while being read
        return b"".join(chunks)
    except OSError as exc:
        raise _failed(exc) from None
    finally:
        os.close(fd)
