"""The odds at the table and through a fight: the records ``odds``, ``round --odds`` and
``fight --odds`` render, and the swing of one fight played (no Typer, Rich nor JSON here).

* :class:`FighterOdds` — one fighter's chance to win from a moment: the mass resolved to
  them (``win_probability``, a lower bound) and the certified interval ``bounds``;
* :class:`OddsPoint` — one moment: each fighter's odds, the draw (the round cap) and the
  unresolved mass;
* :class:`OddsSwing` — a whole fight's moments (``fight --odds``): ``start`` (before the
  initiative: the odds of ``fight --exact``), ``initiative`` (after it, before round 1:
  what ``odds`` gives right after ``init``), then one ``round`` point after each round.
  A plotter reads :attr:`OddsSwing.points` (``--plot``).

Every moment assumes what :mod:`.moment` assumes (:func:`assumptions`): each fighter keeps
its sheet's tactic from now on (Sevendag: no yield, no new technique; a technique in effect
runs its course), and a fight still going after round ``cap`` is a draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from sevendag_cli.policies import PLAIN, Policies
from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, Odds

if TYPE_CHECKING:
    from sevendag_cli.engine.common import FightResult
    from sevendag_cli.sim.moment import OddsSolver

START, INITIATIVE, ROUND = "start", "initiative", "round"
"""What a point of the swing follows: nothing yet, the initiative roll, a round."""

SHEET_TACTICS, NO_YIELD, NO_NEW_TECHNIQUE, DRAW_AT_CAP, OPTIMAL_PLAY, SHEET_RULES = (
    "sheet-tactics", "no-yield", "no-new-technique", "draw-at-cap", "optimal-play", "sheet-rules")


def assumptions(engine: str, policies: Policies = PLAIN,
                fighters: Sequence[Any] = (), capped: bool = True) -> tuple[str, ...]:
    """What the odds from any moment assume, as stable keys (JSON ``assumes``).

    Sevendag: each fighter commits its hands as its sheet's tactic says, the assailant
    never yields (S-03), nobody starts a technique (one in effect runs its course); both
    rulesets: a fight still going after round ``cap`` is a draw — unless there is no round
    cap (``capped`` False: d20's house default, the fight played to the end).  d20 has no
    choices.
    """
    from sevendag_cli.backend import backend_named

    keys = backend_named(engine).exact.assumptions(policies, fighters)
    return keys if capped else tuple(k for k in keys if k != DRAW_AT_CAP)


class FighterOdds(msgspec.Struct, frozen=True, gc=False):
    """One fighter's chance to win from a moment (JSON: ``{name, win_probability, bounds}``)."""

    name: str
    win_probability: float  # resolved to this fighter: the low end of bounds
    bounds: tuple[float, float]  # [low, high]: the probability lies within


class OddsPoint(msgspec.Struct, frozen=True, gc=False):
    """The odds at one moment: after ``round`` rounds (0: before the first), ``moment``
    saying what came just before (:data:`START`, :data:`INITIATIVE`, :data:`ROUND`)."""

    round: int
    moment: str
    fighters: tuple[FighterOdds, FighterOdds]
    draw_probability: float  # resolved to a draw (the round cap): a lower bound
    unresolved: float  # wins, draw and unresolved sum to 1

    @property
    def draw_bounds(self) -> tuple[float, float]:
        return self.draw_probability, min(1.0, self.draw_probability + self.unresolved)


class OddsSwing(msgspec.Struct, frozen=True):
    """How the odds swung through one fight (``fight --odds``), at the fight's cap and tolerance."""

    cap: int | None  # None: no round cap, the fight played to the end
    tolerance: float
    assumes: tuple[str, ...]
    points: tuple[OddsPoint, ...]


def fighters_of(odds: Odds) -> tuple[FighterOdds, FighterOdds]:
    bounds = odds.win_bounds
    return (FighterOdds(odds.names[0], odds.win[0], bounds[0]),
            FighterOdds(odds.names[1], odds.win[1], bounds[1]))


def point(odds: Odds, round_: int, moment: str = ROUND) -> OddsPoint:
    """The record of one solver answer."""
    return OddsPoint(round_, moment, fighters_of(odds), odds.draw, odds.unresolved)


def rounds_left(state: Any, cap: int | None) -> int | None:
    """Rounds the odds look at from ``state``: up to the cap, at least one (as ``round`` plays
    one more); none once the fight is over; None with no round cap (to the end)."""
    if state.over:
        return 0
    return None if cap is None else max(1, cap - state.round)


# --- a fight played ---------------------------------------------------------------------------


def fight_states(ruleset: Any, a: Any, b: Any, result: FightResult) -> list[Any]:
    """The engine's states of a fight ``fight`` played: after the initiative, then after each round.

    A round's result keeps the fighters' states after it; what the encounter state adds is
    read from the fight: d20, who attacks in round 1 (``start`` rolls it; later rounds roll
    their own, D-02); Sevendag, the assaillant — the initiative's leader (S-02), then whoever
    a critical defence made it (S-14, ``initiative-reversed``).
    """
    from sevendag_cli.backend import backend_for

    return backend_for(ruleset).engine().fight_states(ruleset, a, b, result)


LOOKUP_FROM = 4
"""From this many states to answer, ``fight_swing`` builds the Sevendag odds of every state
at once (numpy, :meth:`.moment.OddsSolver.keep`): each state is then a look-up."""


def fight_swing(ruleset: Any, a: Any, b: Any, result: FightResult, *, cap: int | None = None,
                tolerance: float = DEFAULT_TOLERANCE,
                solver: OddsSolver | None = None, policies: Policies = PLAIN) -> OddsSwing:
    """The odds before the initiative, after it and after every round of a fight played.

    ``cap``: the cap the fight was played with (default: the ruleset's).  The first point
    is ``fight --exact``'s answer (the same computation); the others come from one
    :class:`~.moment.OddsSolver` (``solver``, or one built here), so a fight is solved once.
    """
    from sevendag_cli.sim.exact_fight import exact_fight
    from sevendag_cli.sim.moment import OddsSolver

    if solver is None and policies != PLAIN:  # the game's odds kept in the user's cache
        from sevendag_cli import solver_cache

        solver = solver_cache.solver(ruleset, a, b, cap=cap, tolerance=tolerance,
                                     policies=policies)
        solver_cache.keep(solver)
    if solver is None:
        solver = OddsSolver(ruleset, a, b, cap=cap, tolerance=tolerance, policies=policies)
    start = exact_fight(ruleset, a, b, cap=solver.cap, tolerance=solver.tolerance,
                        fractions=False, policies=solver.policies).odds
    states = fight_states(ruleset, a, b, result)
    if len(states) >= LOOKUP_FROM and solver.policies == PLAIN:
        solver.keep()
    points = [point(start, 0, START)]
    for i, state in enumerate(states):
        points.append(point(solver(state), state.round, INITIATIVE if i == 0 else ROUND))
    return OddsSwing(solver.cap, solver.tolerance,
                     assumptions(ruleset.engine, solver.policies, (a, b), solver.cap is not None),
                     tuple(points))
