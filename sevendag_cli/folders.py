"""Sevendag's folders in the user's base directories: the XDG ones found without platformdirs in
the plain cases, and the one cache folder every kept file goes in."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def xdg_dir(variable: str, default: str) -> Path | None:
    """Sevendag's folder of the XDG base directory ``variable`` (default ``~/default``) on Linux,
    without importing platformdirs (3 ms of start-up), in the plain cases only, where it is what
    ``platformdirs`` gives (a test compares them): the variable absolute, or unset or empty with
    an absolute ``HOME``.  None: anything else (another system, Android, a relative value...),
    for platformdirs to decide."""
    if sys.platform != "linux" or hasattr(sys, "getandroidapilevel"):
        return None
    if os.environ.get("ANDROID_DATA") or os.environ.get("ANDROID_ROOT"):
        return None
    value = os.environ.get(variable, "")
    if value:
        return Path(value, "sevendag") if value.startswith("/") else None
    home = os.environ.get("HOME", "")
    if not home.startswith("/"):
        return None
    return Path(os.path.expanduser(f"~/{default}"), "sevendag")


CACHE_ENV = "SEVENDAG_CACHE"
"""The cache folder to use instead of the platform's (an absolute path; tests, a read-only home)."""
NO_CACHE_ENV = "SEVENDAG_NO_CACHE"
"""Set (to anything): nothing is kept between runs."""


def cache_dir() -> Path | None:
    """The user's cache folder for sevendag (not created), or None: no cache.

    ``$SEVENDAG_NO_CACHE`` set: None.  ``$SEVENDAG_CACHE``: that folder if it is an absolute path
    (a relative one would write in the current folder: None).  Else the platform's cache folder
    (``$XDG_CACHE_HOME/sevendag`` or ``~/.cache/sevendag`` on Linux), but only when the home
    folder exists (a cache never makes one), and None when it cannot be named at all (no home,
    a name too long): never an error."""
    if os.environ.get(NO_CACHE_ENV):
        return None
    chosen = os.environ.get(CACHE_ENV)
    if chosen:
        return Path(chosen) if os.path.isabs(chosen) else None
    try:
        if not Path.home().is_dir():
            return None
        fast = xdg_dir("XDG_CACHE_HOME", ".cache")
        if fast is not None:
            return fast
        from platformdirs import user_cache_dir

        return Path(user_cache_dir("sevendag", appauthor=False))
    except Exception:  # no home at all, a name too long: no cache
        return None
