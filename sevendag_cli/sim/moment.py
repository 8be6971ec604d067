"""Odds from any moment of a fight, for either ruleset: the entry point of ``odds``,
``round --odds`` and ``fight --odds`` (no numpy, no icepool for Sevendag).

``odds_at(ruleset, a, b, state)`` answers one state.  :class:`OddsSolver` answers many
states of one fight, building the pair's tables once (they are also kept per
(ruleset, pair) for the process: :func:`.chain_sevendag.chain_for`,
:func:`.chain_d20.chain_for`).  Each answer is an :class:`~.odds.Odds`: each
fighter's win probability as a certified interval, the draw (the round cap) and
the unresolved mass; a finished fight gives 1 and 0 (or a draw).

**Keeping the work between commands** (``round --odds`` runs in a fresh process each
round): :meth:`OddsSolver.keep` returns bytes to store with the encounter and pass
back as ``kept=``.  For d20 they are the pair's round tables (the next process needs
no icepool); for Sevendag, the certified odds of every state of the pair's fight
(built with numpy, :func:`.push.sevendag_table`), so that any state with enough
rounds to go is a look-up.  Bytes of another pair or ruleset are ignored.

What "from any moment" assumes: each fighter keeps its sheet's tactic from now on
(no yield, no new technique; a technique already in effect runs its course), as
``fight`` plays; the fight is a draw once ``round_cap`` rounds have been played
(``cap`` overrides it), and at least one more round is played from a state that
is not over, as ``round`` does.
"""

from __future__ import annotations

from typing import Any

from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, WORK, Odds, check_cap, check_tolerance


class OddsSolver:
    """The odds of any state of one pair's fight (tables built on first use, then shared)."""

    def __init__(self, ruleset: Any, a: Any, b: Any, *, cap: int | None = None,
                 tolerance: float = DEFAULT_TOLERANCE, kept: bytes | None = None) -> None:
        self.ruleset, self.a, self.b = ruleset, a, b
        self.tolerance = check_tolerance(tolerance)
        self.cap = check_cap(ruleset.round_cap if cap is None else cap)
        self.d20 = ruleset.engine == "d20"
        self._kept = kept
        self._chain: Any = None
        self._lookup: Any = None  # Sevendag: the kept odds of every state, indexed

    def _get(self) -> Any:
        if self._chain is not None:
            return self._chain
        kept, self._kept = self._kept, None
        if self.d20:
            from sevendag_cli.d20.chain import D20Chain, D20Tables, pair_fingerprint
            from sevendag_cli.d20.chain import chain_for as d20_chain

            tables = _decode(D20Tables, kept)
            if tables is not None and tables.fingerprint == pair_fingerprint(self.ruleset, self.a,
                                                                             self.b):
                self._chain = D20Chain(tables)
            else:
                self._chain = d20_chain(self.ruleset, self.a, self.b)
        else:
            from sevendag_cli.sevendag.chain import OddsTable
            from sevendag_cli.sevendag.chain import chain_for as sev_chain

            self._chain = sev_chain(self.ruleset, self.a, self.b)
            table = _decode(OddsTable, kept)
            if table is not None and table.tolerance <= self.tolerance:
                self._lookup = self._chain.lookup(table)
        return self._chain

    def __call__(self, state: Any) -> Odds:
        chain = self._get()
        if self.d20:
            d20_odds: Odds = chain.odds(state, self.cap, self.tolerance)
            return d20_odds
        odds: Odds = chain.odds(state, self.cap, self.tolerance, lookup=self._lookup)
        if odds.stop == WORK and odds.unresolved > self.tolerance:  # nothing from unresolved mass
            from sevendag_cli.errors import Msg, UsageError

            raise UsageError(Msg("exact.unresolved", unresolved=odds.unresolved,
                                 tolerance=self.tolerance))
        return odds

    def keep(self) -> bytes:
        """What to store to answer this pair's states fast in a later process (see above)."""
        chain = self._get()
        if self.d20:
            data: bytes = chain.tables.to_bytes()
            return data
        if self._lookup is None:
            from sevendag_cli.sim.push import sevendag_table

            starts = [chain.state_id(chain.start_key(0)), chain.state_id(chain.start_key(1))]
            self._lookup = chain.lookup(sevendag_table(chain, starts, self.tolerance))
        kept: bytes = self._lookup.table.to_bytes()
        return kept


def _decode(kind: Any, data: bytes | None) -> Any:
    if data is None:
        return None
    import msgspec

    try:
        return kind.from_bytes(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None


def odds_at(ruleset: Any, a: Any, b: Any, state: Any, *, cap: int | None = None,
            tolerance: float = DEFAULT_TOLERANCE, kept: bytes | None = None) -> Odds:
    """Each fighter's win probability (with bounds), the draw and the unresolved mass from ``state``.

    ``state``: a :class:`~sevendag_cli.sevendag.engine.SevendagState` or a
    :class:`~sevendag_cli.d20.engine.D20State` between rounds, fighters in the order
    ``a``, ``b``; ``kept``: what :meth:`OddsSolver.keep` returned for this pair.
    """
    return OddsSolver(ruleset, a, b, cap=cap, tolerance=tolerance, kept=kept)(state)
