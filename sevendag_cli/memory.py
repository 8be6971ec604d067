"""Running out of memory: one line saying what ran out and what to try, exit 1.

The tool sizes its work from its inputs before allocating (:mod:`sevendag_cli.limits`), yet
the machine or the user's limit (``ulimit -v``) may still leave too little: a ``MemoryError``
(numpy's ``_ArrayMemoryError`` is one), or a module that cannot be loaded.  The command
layer turns any of them into one line (:func:`memory_message`, called by
:func:`sevendag_cli.failure.handled` and the root group), never a traceback:

* a ``MemoryError`` anywhere, also as the cause of another error (a ``MemoryError`` during
  the lazy import of numpy comes out as an ``ImportError`` caused by it);
* an ``ImportError`` of a module whose shared library could not be mapped for lack of memory
  (``failed to map segment from shared object``, ``Cannot allocate memory``);
* a ``SystemError`` (a C extension that failed without saying why) under an address-space
  limit: numpy does so when an allocation fails there;
* numpy asked for with too little address space left for it to load
  (:func:`numpy_guard`): refused before its import is tried, because what then fails is
  not always an exception (OpenBLAS, numpy's linear algebra, ends the process itself when
  it cannot allocate its buffer: ``OpenBLAS error: Memory allocation still failed``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

from sevendag_cli.errors import Msg

NUMPY_ADDRESS_SPACE = 84 << 20
"""Address space numpy (with ``numpy.random``) needs left to load: measured with numpy 2.4 and
its OpenBLAS on Linux (x86-64), a command whose numpy import began with 85.5 MiB left ran, one
with 83.6 MiB or less failed (a ``MemoryError`` or an ``ImportError`` from the loader, caught;
with some 72 MiB or less, OpenBLAS's message and the process ended by OpenBLAS itself, which
nothing can catch).  Below this, numpy is refused before its import is tried."""

FALLBACK = {
    "en": "sevendag: error: out of memory: give the process more memory (ulimit -v)\n",
    "fr": "sevendag: error: mémoire insuffisante : donner plus de mémoire au processus (ulimit -v)\n",
}
"""The line written when even the message of a memory failure cannot be made (the catalogue
itself cannot be loaded): fixed text, loaded with this module at start-up."""

_MEMORY_WORDS = ("failed to map segment", "cannot allocate memory", "out of memory")
"""What the system's loader says when a shared library cannot be mapped for lack of memory."""


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """The error, then its causes and contexts (at most 20, never in a loop)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < 20:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def size_text(n: int) -> Msg:
    """A number of bytes as a person reads it, in the message's language: ``610 KiB``,
    ``7.5 GiB`` (``7,5 Gio`` in French)."""
    value, unit = n / 1024, "KiB"
    for bigger in ("MiB", "GiB", "TiB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    if n < 1024:
        return Msg("memory.bytes", n=n)
    return Msg("memory.size", n=value, unit=Msg(f"memory.unit.{unit}"))


def _array_bytes(exc: BaseException) -> int | None:
    """The size of the array numpy could not allocate (its ``_ArrayMemoryError``), or None."""
    shape: Any = getattr(exc, "shape", None)
    dtype: Any = getattr(exc, "dtype", None)
    if shape is None or dtype is None:
        return None
    try:
        count = 1
        for n in shape:
            count *= int(n)
        return count * int(dtype.itemsize)
    except (TypeError, ValueError, AttributeError):
        return None


def _module_of(exc: ImportError) -> str:
    """The package that could not be loaded: from the library's path when the loader gives
    one (``…/site-packages/numpy/random/_generator…so``: numpy), else the module's name."""
    parts = (exc.path or "").replace("\\", "/").split("/")
    if "site-packages" in parts[:-2]:
        return parts[parts.index("site-packages") + 1]
    return (exc.name or "").partition(".")[0] or "?"


def _limit_hint() -> Msg:
    """What to allow: the process's address-space limit when there is one (``ulimit -v``)."""
    limit = address_space_limit()
    if limit is None:
        return Msg("memory.more")
    return Msg("memory.more_limited", limit=size_text(limit))


def memory_message(exc: BaseException) -> Msg | None:
    """The one line for an error that means memory ran out, or None for any other error."""
    for err in _chain(exc):
        if isinstance(err, NumpyTooBig):
            return too_big_message(err)
        if isinstance(err, MemoryError):
            return out_of_memory(err)
    for err in _chain(exc):
        if isinstance(err, ImportError) and any(w in str(err).lower() for w in _MEMORY_WORDS):
            what = Msg("memory.module", module=_module_of(exc if isinstance(exc, ImportError) else err))
            return Msg("memory.out_loading", what=what, hint=_limit_hint())
    if isinstance(exc, SystemError) and address_space_limit() is not None:
        # a C extension that failed without an error: numpy does so when an allocation fails
        # under ``ulimit -v`` (``error return without exception set``)
        return Msg("memory.out", what=Msg("memory.system"), hint=_limit_hint())
    return None


def out_of_memory(err: MemoryError) -> Msg:
    """The one line of a ``MemoryError`` (numpy's says the size of the array it could not make)."""
    if isinstance(err, NumpyTooBig):
        return too_big_message(err)
    size = _array_bytes(err)
    what = Msg("memory.array", size=size_text(size)) if size is not None else Msg("memory.some")
    return Msg("memory.out", what=what, hint=_limit_hint())


# --- the address space left, and numpy's guard ---------------------------------------------------


def address_space_limit() -> int | None:
    """The process's address-space limit in bytes (``ulimit -v``), or None when unlimited."""
    if sys.platform == "win32":  # pragma: no cover - Windows has no such limit
        return None
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return None if soft in (resource.RLIM_INFINITY, -1) or soft < 0 else soft


def address_space_left() -> int | None:
    """Bytes of address space the process may still map, or None when there is no limit (or
    the system does not say what is in use: only Linux does, in ``/proc/self/statm``)."""
    limit = address_space_limit()
    if limit is None or sys.platform == "win32":
        return None
    try:
        with open("/proc/self/statm", "rb") as fh:
            pages = int(fh.read().split()[0])
        used = pages * int(os.sysconf("SC_PAGE_SIZE"))
    except (OSError, ValueError, IndexError):
        return None
    return limit - used


class NumpyTooBig(MemoryError):
    """numpy asked for with less address space left than it needs to load."""

    def __init__(self, left: int) -> None:
        super().__init__(f"numpy needs {NUMPY_ADDRESS_SPACE} bytes of address space, {left} left")
        self.left = left


class _NumpyGuard:
    """A finder first on ``sys.meta_path`` that looks at the address space left when numpy is
    first imported (and finds nothing itself: the import goes on as usual)."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        if fullname == "numpy" and "numpy" not in sys.modules:
            left = address_space_left()
            if left is not None and left < NUMPY_ADDRESS_SPACE:
                raise NumpyTooBig(left)

    def invalidate_caches(self) -> None:
        pass


def too_big_message(exc: NumpyTooBig) -> Msg:
    what = Msg("memory.numpy", need=size_text(NUMPY_ADDRESS_SPACE), left=size_text(max(exc.left, 0)))
    return Msg("memory.out_loading", what=what, hint=_limit_hint())


@contextlib.contextmanager
def numpy_guard() -> Iterator[None]:
    """For one run of the program: numpy refused in one line when it could not load
    (:class:`NumpyTooBig`, a ``MemoryError``), before its import is tried."""
    guard = _NumpyGuard()
    sys.meta_path.insert(0, guard)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(guard)
