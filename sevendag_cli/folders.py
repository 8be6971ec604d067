"""Sevendag's folders in the user's XDG base directories, found without platformdirs (issue 16)."""

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
