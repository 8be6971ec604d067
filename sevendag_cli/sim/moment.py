"""Odds from any moment of a fight, for either ruleset: the entry point of ``odds``,
``round --odds`` and ``fight --odds`` (no numpy, no icepool for Sevendag).

``odds_at(ruleset, a, b, state)`` answers one state; ``OddsSolver`` answers many
states of one fight, building the pair's transition tables once (they are also
kept per (ruleset, pair) for the process: :func:`.chain_sevendag.chain_for`,
:func:`.chain_d20.chain_for`).  Each answer is an :class:`~.odds.Odds`: each
fighter's win probability as a certified interval, the draw (the round cap) and
the unresolved mass; a finished fight gives 1 and 0 (or a draw).

What "from any moment" assumes: each fighter keeps its sheet's tactic from now on
(no yield, no new technique; a technique already in effect runs its course), as
``fight`` plays; the fight is a draw once ``round_cap`` rounds have been played
(``cap`` overrides it), and at least one more round is played from a state that
is not over, as ``round`` does.
"""

from __future__ import annotations

from typing import Any

from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, Odds, check_tolerance


class OddsSolver:
    """The odds of any state of one pair's fight (tables built on first use, then shared)."""

    def __init__(self, ruleset: Any, a: Any, b: Any, *, cap: int | None = None,
                 tolerance: float = DEFAULT_TOLERANCE) -> None:
        self.ruleset, self.a, self.b = ruleset, a, b
        self.tolerance = check_tolerance(tolerance)
        self.cap = ruleset.round_cap if cap is None else cap
        if isinstance(self.cap, bool) or not isinstance(self.cap, int) or self.cap < 1:
            raise UsageError(Msg("cli.cap", cap=self.cap))
        self._chain: Any = None

    def _get(self) -> Any:
        if self._chain is None:
            if self.ruleset.engine == "d20":
                from sevendag_cli.sim.chain_d20 import chain_for as d20_chain

                self._chain = d20_chain(self.ruleset, self.a, self.b)
            else:
                from sevendag_cli.sim.chain_sevendag import chain_for as sev_chain

                self._chain = sev_chain(self.ruleset, self.a, self.b)
        return self._chain

    def __call__(self, state: Any) -> Odds:
        odds: Odds = self._get().odds(state, self.cap, self.tolerance)
        return odds


def odds_at(ruleset: Any, a: Any, b: Any, state: Any, *, cap: int | None = None,
            tolerance: float = DEFAULT_TOLERANCE) -> Odds:
    """Each fighter's win probability (with bounds), the draw and the unresolved mass from ``state``.

    ``state``: a :class:`~sevendag_cli.engine.sevendag.SevendagState` or a
    :class:`~sevendag_cli.engine.d20.D20State` between rounds, fighters in the order
    ``a``, ``b``.
    """
    return OddsSolver(ruleset, a, b, cap=cap, tolerance=tolerance)(state)
