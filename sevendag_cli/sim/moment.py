"""Odds from any moment of a fight, for either ruleset: the entry point of ``odds``,
``round --odds`` and ``fight --odds`` (no numpy, no icepool for Sevendag).

``odds_at(ruleset, a, b, state)`` answers one state.  :class:`OddsSolver` answers many
states of one fight, building the pair's tables once (they are also kept per
(ruleset, pair) for the process: :func:`sevendag_cli.sevendag.chain.chain_for`,
:func:`sevendag_cli.d20.chain.chain_for`).  Each answer is an :class:`~.odds.Odds`: each
fighter's win probability as a certified interval, the draw (the round cap) and
the unresolved mass; a finished fight gives 1 and 0 (or a draw).

**Keeping the work between commands** (``round --odds`` runs in a fresh process each
round): :meth:`OddsSolver.keep` returns bytes to keep (in the user's cache folder,
:mod:`sevendag_cli.solver_cache`, never in an encounter file) and pass back as
``kept=``.  For d20 they are the pair's round tables (the next process needs
no icepool); for Sevendag, the certified odds of every state of the pair's fight
(built with numpy, :func:`sevendag_cli.sevendag.push.chain_table`), so that any state with enough
rounds to go is a look-up.  Bytes of another pair or ruleset are ignored.

What "from any moment" assumes: each fighter keeps its sheet's tactic from now on
(no yield, no new technique; a technique already in effect runs its course), as
``fight`` plays; the fight is a draw once ``round_cap`` rounds have been played
(``cap`` overrides it; a ruleset with no cap plays it to the end), and at least one more
round is played from a state that is not over, as ``round`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sevendag_cli.policies import PLAIN, Policies
from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, WORK, Odds, check_cap, check_tolerance

if TYPE_CHECKING:
    from sevendag_cli.backend import MomentOdds


class OddsSolver:
    """The odds of any state of one pair's fight (tables built on first use, then shared)."""

    def __init__(self, ruleset: Any, a: Any, b: Any, *, cap: int | None = None,
                 tolerance: float = DEFAULT_TOLERANCE, kept: bytes | None = None,
                 policies: Policies = PLAIN) -> None:
        self.ruleset, self.a, self.b = ruleset, a, b
        self.policies = policies
        self.tolerance = check_tolerance(tolerance)
        cap = ruleset.round_cap if cap is None else cap
        self.cap: int | None = None if cap is None else check_cap(cap)  # None: no round cap
        self._kept = kept
        self.cache_key: str | None = None  # set by :mod:`sevendag_cli.solver_cache`
        self.cache_folder = "odds"  # where it keeps its work
        self._odds: MomentOdds | None = None

    def _moment(self) -> MomentOdds:
        if self._odds is None:
            from sevendag_cli.backend import backend_for

            kept, self._kept = self._kept, None
            self._odds = backend_for(self.ruleset).exact.moment_odds(self.ruleset, self.a, self.b, kept,
                                                               self.tolerance, self.policies,
                                                               self.cap)
        return self._odds

    @property
    def used_kept(self) -> bool:
        """Whether the kept bytes were this very pair's and are in use (read them if not yet)."""
        return self._moment().used_kept

    def __call__(self, state: Any) -> Odds:
        odds = self._moment().odds(state, self.cap, self.tolerance)
        if odds.stop == WORK and odds.unresolved > self.tolerance:  # nothing from unresolved mass
            from sevendag_cli.errors import Msg, UsageError

            raise UsageError(Msg("exact.unresolved", unresolved=odds.unresolved,
                                 tolerance=self.tolerance))
        return odds

    def keep(self) -> bytes:
        """What to store to answer this pair's states fast in a later process (see above)."""
        return self._moment().keep(self.tolerance)


def decode(kind: Any, data: bytes | None) -> Any:
    """``kind.from_bytes(data)``, or None when there is nothing kept or it does not decode."""
    if data is None:
        return None
    import msgspec

    try:
        return kind.from_bytes(data)
    except (msgspec.MsgspecError, ValueError, TypeError, OverflowError, RecursionError):
        return None  # bytes of no solver: ignored, the work is done again


def odds_at(ruleset: Any, a: Any, b: Any, state: Any, *, cap: int | None = None,
            tolerance: float = DEFAULT_TOLERANCE, kept: bytes | None = None,
            policies: Policies = PLAIN) -> Odds:
    """Each fighter's win probability (with bounds), the draw and the unresolved mass from ``state``.

    ``state``: the ruleset's encounter state between rounds, fighters in the order
    ``a``, ``b``; ``kept``: what :meth:`OddsSolver.keep` returned for this pair.
    """
    return OddsSolver(ruleset, a, b, cap=cap, tolerance=tolerance, kept=kept,
                      policies=policies)(state)
