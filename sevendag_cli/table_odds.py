"""The odds at the table: an encounter's solver, and its work kept in the encounter file.

``round --odds`` runs in a fresh process each round and may add at most 50 ms to
``round``; building a pair's tables costs more (Sevendag: the certified odds of every
state, about 200 ms with numpy; d20: the round tables, with icepool).  So the solver's
work (:meth:`sevendag_cli.sim.moment.OddsSolver.keep`) is kept in the encounter file,
under ``extra.odds``::

    "extra": {"odds": {"engine": "sevendag", "data": "<base64 of the kept bytes>"}}

It is built by ``init --odds`` or by the first ``round --odds`` (and saved with the
round, in the same atomic save), then read by every later ``round --odds`` and by
``odds``, which only reads.  It is a cache: it belongs to the pair of the encounter
(the ruleset and sheets embedded at ``init``, which never change), not to a state, so
``undo`` and ``wound`` keep it; the solver ignores bytes of another pair or that do not
decode (a damaged entry is then built again by the next ``round --odds``); removing
``extra.odds`` only makes the next ``round --odds`` slower.  ``status`` and ``log``
never look at it.
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from sevendag_cli.sim.odds import DEFAULT_TOLERANCE

if TYPE_CHECKING:
    from sevendag_cli.sim.moment import OddsSolver
    from sevendag_cli.store import Encounter

KEY = "odds"
"""The key of the kept work in the encounter's ``extra``."""

MAX_KEPT_TEXT = 8 * 1024 * 1024
"""Longest kept text read (a Sevendag table is about 35 KB of base64; d20 tables less)."""


def kept_bytes(enc: Encounter) -> bytes | None:
    """The solver's kept bytes from the encounter file; None if absent or not readable as such."""
    entry = enc.extra.get(KEY)
    if not isinstance(entry, dict):
        return None
    data = entry.get("data")
    if not isinstance(data, str) or len(data) > MAX_KEPT_TEXT:
        return None
    try:
        return base64.b64decode(data.encode("ascii"), validate=True)
    except (binascii.Error, ValueError, UnicodeEncodeError):
        return None


def solver_for(enc: Encounter, ruleset: Any, a: Any, b: Any, *, cap: int | None = None,
               tolerance: float = DEFAULT_TOLERANCE) -> OddsSolver:
    """The odds of any state of the encounter, with what the encounter file keeps.

    The solver uses kept work only if it belongs to this ruleset and pair (a fingerprint of
    both, Sevendag's and d20's alike), so fighters changed by ``odds --set`` get their own."""
    from sevendag_cli.sim.moment import OddsSolver

    return OddsSolver(ruleset, a, b, cap=cap, tolerance=tolerance, kept=kept_bytes(enc))


def keeping(enc: Encounter, engine: str, kept: bytes) -> Encounter:
    """The encounter with ``kept`` (what the solver's :meth:`keep` returned) in its file."""
    entry = {"engine": engine, "data": base64.b64encode(kept).decode("ascii")}
    if enc.extra.get(KEY) == entry:
        return enc
    return replace(enc, extra={**enc.extra, KEY: entry})
