"""Whole fights, exactly (``fight --exact``): what ``--runs`` reports, from the chain (numpy).

The fight's starting mass — split by who strikes first (S-02 / D-02), which is
what ``first_striker_won`` needs — is pushed round by round through the chain of
:mod:`sevendag_cli.sevendag.chain` (the Sevendag states, their rounds built once) or over the
grid of both fighters' hit points (d20, the tables of :mod:`sevendag_cli.d20.chain`).  Each
round gives the mass that ends the fight in that round, and who won; the mass
still in play after round ``cap`` is a draw (S-19; the d20 ruleset's cap), as in
``fight`` and ``--runs``; the push stops earlier once the mass still in play is
below the tolerance (then: unresolved, see :mod:`.odds`).  Along the way it
accumulates the rewards:

* the rounds distribution (absorption times): ``P(T = t)``, ``E[T] = sum P(T >= t)``;
* Sevendag: expected wounds of each band taken by each fighter (the final wound
  included, as ``--runs`` counts it);
* d20: hit points left by the winner (a distribution) and damage dealt (the
  killing blow counted in full, as ``--runs``).

Exact fractions (:attr:`ExactFight.fractions`) are those of the fight played to
the end, with no cap, from the exact solvers of :mod:`sevendag_cli.d20.exact` and
:mod:`sevendag_cli.sevendag.exact` where their state space is finite; they differ from the
capped odds by at most the draw probability.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.policies import PLAIN, Policies
from sevendag_cli.sim.exact_records import (
    ExactFight,
    Extras,
    FighterExact,
    Fractions,
    RoundsExact,
)
from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, WORK
from sevendag_cli.sim.push import Push

__all__ = ["ExactFight", "Extras", "FighterExact", "Fractions", "RoundsExact", "check_resolved",
           "exact_fight", "exact_result", "rank", "rounds_of"]


# --- either ruleset ---------------------------------------------------------------------------


def exact_result(ruleset: str, engine: str, names: tuple[str, str], cap: int, tolerance: float,
                 push: Push, fractions: Fractions | None, why: Msg | None, method: Msg,
                 extras: Extras | None = None) -> ExactFight:
    """The record of a push of the whole fight: the odds, who struck first, the rounds; the
    ruleset's ``method`` (its note) and ``extras`` (its own figures) as given."""
    odds = push.odds(names, cap, len(push.alive))
    first = [float(x) for x in (push.alive[0] if push.alive else push.draw)]
    won = [push.won_total(0), push.won_total(1)]
    first_won = [max(0.0, float(won[i][i]) - push.error) for i in (0, 1)]
    unresolved = odds.unresolved
    fighters = tuple(
        FighterExact(names[i], odds.win[i], odds.win_bounds[i], first[i], first_won[i])
        for i in (0, 1))
    decided = float(won[0].sum() + won[1].sum())
    first_striker_won = (float(won[0][0] + won[1][1]) / decided) if decided > 0 else None
    return ExactFight(
        ruleset=ruleset, engine=engine, cap=cap, tolerance=tolerance, stop=odds.stop,
        fighters=(fighters[0], fighters[1]), draw_probability=odds.draw,
        draw_bounds=odds.draw_bounds, unresolved=unresolved,
        rounds=rounds_of(push, cap), first_striker_won=first_striker_won, fractions=fractions,
        no_fractions=why, method=method, extras=extras)


def check_resolved(push: Push, names: tuple[str, str], tolerance: float) -> None:
    """Nothing from unresolved mass: a push stopped at its work limit with more than the
    tolerance unresolved is refused (one line), not shown."""
    odds = push.odds(names, push.draw_round, len(push.alive))
    if odds.stop == WORK and odds.unresolved > tolerance:
        raise UsageError(Msg("exact.unresolved", unresolved=odds.unresolved, tolerance=tolerance))


def rounds_of(push: Push, cap: int) -> RoundsExact:
    """The rounds distribution: P(T = t) for every round pushed (draws at the cap)."""
    n = len(push.alive)
    ends = [float(push.won[0][t].sum() + push.won[1][t].sum()) for t in range(n)]
    hist: dict[int, float] = {t + 1: e for t, e in enumerate(ends) if e > 0}
    draws = float(push.draw.sum())
    if draws > 0:
        hist[push.draw_round] = hist.get(push.draw_round, 0.0) + draws
    tail = push.tail
    # E[T] = sum over t of P(T >= t); the fights still going after round n last n + 1 to cap.
    low = math.fsum(float(x.sum()) for x in push.alive) + push.rounds_extra + tail
    high = low + tail * max(0, cap - n - 1)
    pairs = sorted(hist.items())
    second = math.fsum(t * t * q for t, q in pairs) + tail * (n + 1) ** 2
    mean = low
    var = max(0.0, second - mean * mean)
    return RoundsExact(mean, (low, high), math.sqrt(var), rank(pairs, tail, 0.5),
                       rank(pairs, tail, 0.9), tuple(pairs), tail)


def rank(pairs: list[tuple[int, float]], tail: float, q: float) -> int:
    """Nearest rank as ``--runs``: the smallest t with P(T <= t) >= q (the tail counts last)."""
    total = math.fsum(p for _, p in pairs) + tail
    need = q * total
    acc = 0.0
    for t, p in pairs:
        acc += p
        if acc >= need * (1 - 1e-12):
            return t
    return pairs[-1][0] + 1 if pairs else 0


def exact_fight(ruleset: Any, a: Any, b: Any, *, cap: int | None = None,
                tolerance: float = DEFAULT_TOLERANCE, fractions: bool | None = None,
                policies: Policies = PLAIN,
                progress: Callable[[int, int], None] | None = None) -> ExactFight:
    """``fight --exact`` for either ruleset; ``cap`` None: the ruleset's round cap, if any;
    ``policies``: how each fighter plays.

    ``fractions``: the exact fractions of the fight played to the end where they can be had
    — None where they cost little beside the certified odds (else a note says how to ask for
    them), True whatever they cost (with ``progress(done, total)``), False never (a sweep does
    not report them)."""
    from sevendag_cli.backend import backend_for
    from sevendag_cli.rules.bounds import check_exact

    check_exact(ruleset, a, b)  # the value bound, as the step-by-step and vectorised engines
    return backend_for(ruleset).exact.exact_fight(ruleset, a, b, cap=cap, tolerance=tolerance,
                                            fractions=fractions, policies=policies,
                                            progress=progress)
