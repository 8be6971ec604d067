"""d20: the whole fight of ``fight --exact``, exactly (see :mod:`sevendag_cli.sim.exact_fight`,
whose records it fills).

The fight asked is the ruleset's: a draw after its ``round_cap``, or after ``cap``
(``--cap N``); a ruleset with no round cap (the bundled one) is played to the end.

* **No cap**: the odds, the winner's hit points left, the damage dealt and the mean rounds
  come from one pass over both fighters' hit points, with no time dimension
  (:func:`sevendag_cli.d20.solve.forward`); the rounds distribution (every round until at
  most :data:`ROUNDS_TOLERANCE` of the fights is still going, the rest shown as its tail; its
  standard deviation exact) from the law of the number of hits that end the fight
  (:func:`sevendag_cli.d20.rounds.timed`).
* **A cap**: everything from :func:`~sevendag_cli.d20.rounds.timed`, the draw after the cap
  computed, not bounded.

Both are certified; their work is bounded by the hit points (at most
:data:`sevendag_cli.d20.limits.MAX_EXACT_HP` each) and the cap.  The exact fractions of the fight
played to the end (:func:`sevendag_cli.d20.exact.exact_d20`) come by default only where they
cost little beside the float answer (:func:`sevendag_cli.d20.exact.fractions_pay`), else on
request (``fractions=True``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import msgspec

from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
from sevendag_cli.errors import Msg, RuleError, SevendagError
from sevendag_cli.sim.exact_fight import (
    ExactFight,
    FighterExact,
    Fractions,
    RoundsExact,
    check_resolved,
    exact_result,
)
from sevendag_cli.sim.odds import COMPLETE, DEFAULT_TOLERANCE, certified, check_cap, check_tolerance


class HpLeft(msgspec.Struct, frozen=True):
    mean: float
    sd: float
    distribution: tuple[tuple[int, float], ...]  # (hit points left, P(... | this fighter wins))


class FighterFigures(msgspec.Struct, frozen=True):
    """One fighter's figures of the exact fight: hit points left when winning, damage dealt."""

    name: str
    hp_left_when_winning: HpLeft
    damage_dealt: float  # expected per fight


class ExactFigures(msgspec.Struct, frozen=True):
    """What d20 adds to ``fight --exact``'s odds (the JSON's ``d20``): per fighter."""

    fighters: tuple[FighterFigures, FighterFigures]


ROUNDS_TOLERANCE = 1e-12
"""The rounds distribution of a fight played to the end is followed until at most this much of
the fights (or the tolerance, if larger) is still going: that tail is shown as such."""


def d20_fight(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter, *, cap: int | None = None,
              tolerance: float = DEFAULT_TOLERANCE, fractions: bool | None = None,
              progress: Callable[[int, int], None] | None = None) -> ExactFight:
    """The whole fight of ``fight`` / ``--runs``, exactly: D-02 initiative every round.

    ``cap``: a draw after this round (``--cap``); None: the ruleset's ``round_cap``, itself
    None for a fight played to the end.  ``fractions``: the exact fractions of the fight
    played to the end — None: where they pay (:func:`~.exact.fractions_pay`), True: asked
    (``progress(done, total)`` along the way), False: none.
    """
    from sevendag_cli.d20.chain import chain_for

    tolerance = check_tolerance(tolerance)
    cap = ruleset.round_cap if cap is None else check_cap(cap)
    chain = chain_for(ruleset, a, b)
    if not chain.moves:
        if cap is None:  # nobody can ever deal damage, and no cap ends the fight
            from sevendag_cli.d20.bounds import endless

            raise RuleError(endless(ruleset, a, b) or Msg("rules.endless_d20", a=a.name, b=b.name))
        from sevendag_cli.d20.push import grid_push

        p = chain.p_first
        res = grid_push(chain, a.hp, b.hp, None, cap, tolerance, columns=[(0, p), (1, 1.0 - p)])
        return exact_result(ruleset.name, "d20", chain.names, cap, tolerance, res.push, None,
                            None, _method(cap), _extras(chain.names, res.rewards.hp_a.sum(axis=0),
                                                        res.rewards.hp_b.sum(axis=0),
                                                        tuple(res.rewards.dealt.sum(axis=1))))
    exact, why = _d20_fractions(ruleset, a, b, fractions, progress)
    if cap is None:
        return _to_the_end(ruleset.name, chain, a.hp, b.hp, tolerance, exact, why)
    return _capped(ruleset.name, chain, a.hp, b.hp, cap, tolerance, exact, why)


def _columns(chain: Any) -> list[tuple[int, float]]:
    p = chain.p_first
    return [(0, p), (1, 1.0 - p)]


def _capped(ruleset: str, chain: Any, ha: int, hb: int, cap: int, tolerance: float,
            exact: Fractions | None, why: Msg | None) -> ExactFight:
    """A draw after round ``cap``: every figure from the law of the hits and their rounds."""
    from sevendag_cli.d20.rounds import timed

    res = timed(chain.jumps, ha, hb, _columns(chain), cap, tolerance, hp=True)
    check_resolved(res.push, chain.names, tolerance)
    return exact_result(ruleset, "d20", chain.names, cap, tolerance, res.push, exact, why,
                        _method(cap), _extras(chain.names, res.hp_a, res.hp_b, res.dealt))


def _to_the_end(ruleset: str, chain: Any, ha: int, hb: int, tolerance: float,
                exact: Fractions | None, why: Msg | None) -> ExactFight:
    """No round cap: the odds from the pass over the hit points, the rounds from the hits."""
    from sevendag_cli.d20.rounds import timed
    from sevendag_cli.d20.solve import forward

    first = chain.jumps.pa
    sol = forward(chain.jumps, ha, hb, [(0, first), (1, 1 - first)])
    names = chain.names
    odds = certified(names, math.fsum(sol.win_a), math.fsum(sol.win_b), 0.0, sol.error, 0,
                     COMPLETE)
    p = chain.p_first
    fighters = tuple(
        FighterExact(names[i], odds.win[i], odds.win_bounds[i], (p, 1.0 - p)[i],
                     max(0.0, (sol.win_a, sol.win_b)[i][i] - sol.error))
        for i in (0, 1))
    decided = math.fsum(sol.win_a) + math.fsum(sol.win_b)
    first_striker_won = (sol.win_a[0] + sol.win_b[1]) / decided if decided > 0 else None
    timing = timed(chain.jumps, ha, hb, _columns(chain), None, max(tolerance, ROUNDS_TOLERANCE))
    rounds = _rounds_to_the_end(timing, sol.rounds_mean, sol.error, [w for _, w in _columns(chain)])
    return ExactFight(
        ruleset=ruleset, engine="d20", cap=None, tolerance=tolerance, stop=odds.stop,
        fighters=(fighters[0], fighters[1]), draw_probability=odds.draw,
        draw_bounds=odds.draw_bounds, unresolved=odds.unresolved, rounds=rounds,
        first_striker_won=first_striker_won, fractions=exact, no_fractions=why,
        method=_method(None), extras=_extras(names, sol.hp_a, sol.hp_b, sol.dealt), solver="end")


def _rounds_to_the_end(timing: Any, mean: float, error: float,
                       weights: list[float]) -> RoundsExact:
    """The rounds of the fight played to the end: the histogram followed until its tail is
    small (the tail shown), the mean from the pass over the hit points, the standard deviation
    from the law of the hits (exact, whatever the tail)."""
    from sevendag_cli.sim.exact_fight import rank

    push = timing.push
    hist = [(t + 1, float(push.won[0][t].sum() + push.won[1][t].sum()))
            for t in range(len(push.won[0]))]
    pairs = [(t, x) for t, x in hist if x > 0]
    mu = math.fsum(w * m for w, (m, _) in zip(weights, timing.moments, strict=True))
    var = math.fsum(w * (v + (m - mu) ** 2) for w, (m, v) in zip(weights, timing.moments,
                                                                 strict=True))
    tail = push.tail
    return RoundsExact(mean, (mean * (1 - error), mean * (1 + error)), math.sqrt(max(0.0, var)),
                       rank(pairs, tail, 0.5), rank(pairs, tail, 0.9), tuple(pairs), tail)


def _method(cap: int | None) -> Msg:
    """How the odds were computed: with a round cap, or played to the end (no cap)."""
    return Msg("exact.note.d20", cap=cap) if cap is not None else Msg("exact.note.d20_end", cap=cap)


def _extras(names: tuple[str, str], hp_a: Any, hp_b: Any, dealt: Any) -> ExactFigures:
    return ExactFigures((FighterFigures(names[0], _hp_left([float(x) for x in hp_a]), float(dealt[0])),
                         FighterFigures(names[1], _hp_left([float(x) for x in hp_b]), float(dealt[1]))))


def _hp_left(hp: list[float]) -> HpLeft:
    total = math.fsum(hp)
    dist = tuple((h, hp[h] / total) for h in range(1, len(hp)) if hp[h] > 0) if total > 0 else ()
    mean = math.fsum(h * q for h, q in dist)
    var = max(0.0, math.fsum(h * h * q for h, q in dist) - mean * mean)
    return HpLeft(mean, math.sqrt(var), dist)


def _d20_fractions(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter, asked: bool | None,
                   progress: Callable[[int, int], None] | None
                   ) -> tuple[Fractions | None, Msg | None]:
    """The exact fractions of the fight played to the end, or why there are none."""
    if asked is False:
        return None, None
    from sevendag_cli.d20.chain import chain_for
    from sevendag_cli.d20.exact import (
        MAX_HP,
        MAX_WORK,
        exact_d20,
        fraction_work,
        fractions_pay,
    )

    jumps = chain_for(ruleset, a, b).jumps
    work = fraction_work(jumps, a.hp, b.hp)
    if max(a.hp, b.hp) > MAX_HP or work > MAX_WORK:
        return None, Msg("exact.fractions_size", a=a.name, hp_a=a.hp, b=b.name, hp_b=b.hp)
    pay = fractions_pay(jumps, a.hp, b.hp)
    if asked is None and not pay:
        return None, Msg("exact.fractions_ask", a=a.name, hp_a=a.hp, b=b.name, hp_b=b.hp)
    try:  # only a long solve reports its progress
        r = exact_d20(ruleset, a, b, progress=None if pay else progress)
    except SevendagError as exc:
        return None, exc.msg
    return Fractions(r.win_probability, r.draw_probability, r.rounds_mean), None

