"""The records of ``fight --exact`` (:mod:`.exact_fight` computes them): plain data, no numpy.

Kept apart from the computation so that the backend interface
(:mod:`sevendag_cli.backend`) can name them without importing what imports it.  What a
ruleset adds to the odds (its :class:`Extras`: Sevendag's wounds per band, d20's hit points
left and damage dealt) is its own record, defined in its package.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Protocol, runtime_checkable

import msgspec

from sevendag_cli.errors import Msg
from sevendag_cli.sim.odds import Odds

# --- records -------------------------------------------------------------------------------


class FighterExact(msgspec.Struct, frozen=True):
    name: str
    win_probability: float  # resolved to this fighter: a lower bound
    bounds: tuple[float, float]  # [low, low + unresolved]
    first_strike_probability: float  # P(this fighter strikes first: S-02 assaillant, D-02 round 1)
    first_strike_win_probability: float  # P(strikes first and wins), a lower bound


class RoundsExact(msgspec.Struct, frozen=True):
    """The rounds distribution: P(T = t) for every round with mass, up to the cap (the draws
    counted at it) or, with no cap, until ``tail`` is small (the fights still going after the
    last round shown), with its mean, standard deviation, median and 90th percentile."""

    mean: float  # a lower bound; mean_bounds adds what the tail can add
    mean_bounds: tuple[float, float]
    sd: float
    p50: int
    p90: int
    histogram: tuple[tuple[int, float], ...]  # (rounds, probability), every round with mass
    tail: float  # mass of the fights not over when the push stopped (beyond the histogram)


@runtime_checkable
class Extras(Protocol):
    """What a ruleset adds to the odds of a whole fight (``fight --runs``, ``fight --exact``):
    its own record, one entry per fighter, written in JSON under the engine's name (the other
    engines' keys null, :func:`sevendag_cli.backend.by_engine`) as its fields are, and drawn
    by its display (:attr:`~sevendag_cli.render.rich_base.RulesetDisplay.extras_table`)."""

    @property
    def fighters(self) -> Sequence[object]:
        """One record per fighter, in the fight's order."""
        ...


class Fractions(msgspec.Struct, frozen=True):
    """Exact odds of the fight played to the end (no round cap)."""

    win_probability: tuple[Fraction, Fraction]
    draw_probability: Fraction
    rounds_mean: Fraction


class ExactFight(msgspec.Struct, frozen=True):
    ruleset: str
    engine: str
    cap: int | None  # None: no round cap (d20's house default), the fight played to the end
    tolerance: float
    stop: str  # COMPLETE, TOLERANCE or WORK (see sim.odds)
    fighters: tuple[FighterExact, FighterExact]
    draw_probability: float
    draw_bounds: tuple[float, float]
    unresolved: float
    rounds: RoundsExact
    first_striker_won: float | None  # among decided fights
    fractions: Fractions | None
    no_fractions: Msg | None  # why there are none
    method: Msg  # how the ruleset's solver computed the odds, in words (the note's first)
    extras: Extras | None = None  # the ruleset's own figures (JSON: under the engine's name)
    solver: str = "push"  # "end": the fight played to the end (no round cap), in one pass

    @property
    def odds(self) -> Odds:
        return Odds((self.fighters[0].name, self.fighters[1].name),
                    (self.fighters[0].win_probability, self.fighters[1].win_probability),
                    self.draw_probability, self.unresolved, len(self.rounds.histogram), self.stop)


class Exploitability(msgspec.Struct, frozen=True):
    """What each sheet gives away against optimal play (``fight --exact``, ``matrix``).

    For each fighter X of the pair: the opponent's value (P(win) + ½ P(draw)) when it plays
    optimally against X's sheet (the best response), minus its value when both play their
    sheets.  ``best_response``: those best-response values, from the opponent's side;
    ``sheet_value``: each fighter's own value with both on their sheets; ``bounds``: each
    ``gives_away`` as a certified interval.
    """

    names: tuple[str, str]
    gives_away: tuple[float, float]
    bounds: tuple[tuple[float, float], tuple[float, float]]
    best_response: tuple[float, float]
    sheet_value: tuple[float, float]
    tolerance: float


class ExactResult(msgspec.Struct, frozen=True):
    """A fight played to the end, in exact fractions (either ruleset's exact solver)."""

    fighters: tuple[str, str]
    win_probability: tuple[Fraction, Fraction]
    draw_probability: Fraction
    rounds_mean: Fraction
    note: str
