"""The odds at the table: an encounter's solver, with the work kept in the user's cache.

``round --odds`` runs in a fresh process each round and may add at most 50 ms to
``round``; building a pair's tables costs more (Sevendag: the certified odds of every
state, about 200 ms with numpy; d20: the round tables, with icepool).  So the solver's
work (:meth:`sevendag_cli.sim.moment.OddsSolver.keep`) is kept between processes in the
user's cache folder (:mod:`sevendag_cli.solver_cache`), keyed by a hash of the ruleset
and both sheets embedded in the encounter: built by ``init --odds`` or the first
``round --odds``, read by every later ``round --odds`` and by ``odds`` (which writes
nothing).  An encounter of the same pair elsewhere (a copy, another folder) finds it too.

The encounter file never carries it: a shared, hand-edited file cannot vouch for
numbers shown as certified.  ``extra.odds``, where earlier versions kept it, is never
read, and is dropped when ``init --odds`` or ``round --odds`` saves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from sevendag_cli.policies import PLAIN, Policies
from sevendag_cli.sim.odds import DEFAULT_TOLERANCE

if TYPE_CHECKING:
    from sevendag_cli.sim.moment import OddsSolver
    from sevendag_cli.store import SavedEncounter

KEY = "odds"
"""The key under which earlier versions kept the work in the encounter's ``extra`` (ignored)."""


def solver_for(enc: SavedEncounter, ruleset: Any, a: Any, b: Any, *, cap: int | None = None,
               tolerance: float = DEFAULT_TOLERANCE, policies: Policies = PLAIN) -> OddsSolver:
    """The odds of any state of the encounter, with the work kept for exactly this pair.

    The encounter's own ``extra`` is not looked at; fighters changed by ``odds --set``
    have another key, hence their own work."""
    from sevendag_cli import solver_cache

    return solver_cache.solver(ruleset, a, b, cap=cap, tolerance=tolerance, policies=policies)


def keep_work(solver: OddsSolver) -> None:
    """Build what the solver keeps, if not read from the cache, and keep it there."""
    from sevendag_cli import solver_cache

    solver_cache.keep(solver)


def keeping(enc: SavedEncounter) -> SavedEncounter:
    """The encounter without the solver work an earlier version kept in its file."""
    if KEY not in enc.extra:
        return enc
    return replace(enc, extra={k: v for k, v in enc.extra.items() if k != KEY})
