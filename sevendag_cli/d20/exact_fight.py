"""d20: the whole fight of ``fight --exact`` / ``--runs``, exactly (see
:mod:`sevendag_cli.sim.exact_fight`, whose records it fills).

The odds, the winner's hit points left, the damage dealt and the mean rounds are those of
the fight played to the end, from one pass over both fighters' hit points with no time
dimension (:func:`sevendag_cli.d20.solve.forward`): the ruleset's round cap is a guard for
play and simulation, not part of them.  With ``cap`` given (``--cap``), a fight still going
after it is a draw: its share is bounded, or, where it matters, the fight is pushed round by
round to the cap.  The rounds distribution is pushed too, within :data:`ROUNDS_WORK`; a
longer fight has its mean only."""

from __future__ import annotations

import math
from typing import Any

import msgspec

from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
from sevendag_cli.errors import Msg, SevendagError
from sevendag_cli.sim.exact_fight import (
    D20FighterExact,
    ExactFight,
    FighterExact,
    Fractions,
    HpLeft,
    RoundsExact,
    check_resolved,
    exact_result,
    rounds_of,
)
from sevendag_cli.sim.odds import (
    COMPLETE,
    DEFAULT_TOLERANCE,
    TOLERANCE,
    WORK,
    check_cap,
    check_tolerance,
)
from sevendag_cli.sim.push import Push, d20_push

ROUNDS_WORK = 100_000_000
"""Most multiply-adds the round-by-round push may take for the rounds distribution of a d20
fight whose odds the chain has already certified (a fraction of a second); a longer fight
gives its mean rounds only."""

ROUNDS_TOLERANCE = 1e-12
"""The rounds distribution of a d20 fight solved by the chain stops once at most this much of
the fights is still going (or the tolerance, if larger): its tail is shown as such."""

def d20_fight(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter, *, cap: int | None = None,
              tolerance: float = DEFAULT_TOLERANCE, fractions: bool = True) -> ExactFight:
    """The whole fight of ``fight`` / ``--runs``, exactly: D-02 initiative every round.

    The odds are those of the fight played to the end (:func:`sevendag_cli.d20.solve.forward`,
    no time dimension): the ruleset's round cap is a guard for play and simulation, not part
    of them.  With a ``cap`` given (``--cap``), a fight still going after it is a draw: its
    share is bounded (:meth:`~.chain.D20Chain.cap_bound`), and where the bound passes the
    tolerance the cap matters and the fight is pushed round by round to it
    (:func:`.push.d20_push`).  The rounds distribution is pushed too, within
    :data:`ROUNDS_WORK`, never holding the odds back.
    """
    from sevendag_cli.d20.chain import chain_for

    tolerance = check_tolerance(tolerance)
    capped = cap is not None
    cap = ruleset.round_cap if cap is None else check_cap(cap)
    chain = chain_for(ruleset, a, b)
    exact, why = _d20_fractions(ruleset, a, b) if fractions else (None, None)
    if chain.moves:
        solved = _d20_solved(chain, a.hp, b.hp, cap if capped else None, tolerance, exact, why)
        if solved is not None:
            return _result_from_chain(ruleset.name, chain, cap, capped, tolerance, *solved)
    p = chain.p_first
    res = d20_push(chain, a.hp, b.hp, None, cap, tolerance, columns=[(0, p), (1, 1.0 - p)])
    check_resolved(res.push, chain.names, tolerance)
    rw = res.rewards
    extra = []
    for i, name in enumerate(chain.names):
        hp = (rw.hp_a if i == 0 else rw.hp_b).sum(axis=0)
        extra.append(D20FighterExact(name, _hp_left([float(x) for x in hp]),
                                     float(rw.dealt[i].sum())))
    return exact_result(ruleset.name, "d20", chain.names, cap, tolerance, res.push, exact, why,
                   d20=(extra[0], extra[1]))

def _hp_left(hp: list[float]) -> HpLeft:
    total = math.fsum(hp)
    dist = tuple((h, hp[h] / total) for h in range(1, len(hp)) if hp[h] > 0) if total > 0 else ()
    mean = math.fsum(h * q for h, q in dist)
    var = max(0.0, math.fsum(h * h * q for h, q in dist) - mean * mean)
    return HpLeft(mean, math.sqrt(var), dist)

def _d20_solved(chain: Any, ha: int, hb: int, cap: int | None, tolerance: float,
                exact: Fractions | None, why: Msg | None) -> tuple[Any, ...] | None:
    """The chain's answer when the round cap's share is within the tolerance (``cap`` None:
    no cap, the fight played to the end), else None."""
    from sevendag_cli.d20.solve import forward
    from sevendag_cli.limits import MAX_ROUND_CAP
    from sevendag_cli.sim.push import MAX_CELLS

    beyond = 0.0 if cap is None else chain.cap_bound(ha, hb, cap, fixed=True)
    if 2 * beyond > tolerance:
        return None
    first = chain.jumps.pa
    sol = forward(chain.jumps, ha, hb, [(0, first), (1, 1 - first)])
    slack = sol.error + beyond
    lows = [max(0.0, w - slack) for w in (math.fsum(sol.win_a), math.fsum(sol.win_b))]
    if 1.0 - math.fsum(lows) > tolerance and cap is not None:
        return None  # the cap matters: pushed instead
    # With no cap, what is unresolved is only the rounding bound (COMPLETE, as a push that
    # reaches its cap), even when a tolerance below it was asked.
    rounds: Push | None = None
    terms = len(chain.qa) + len(chain.qb) + 1
    if ha * hb <= MAX_CELLS and ha * hb * terms * 2 * sol.rounds_mean <= ROUNDS_WORK:
        res = d20_push(chain, ha, hb, None, MAX_ROUND_CAP if cap is None else cap,
                       max(tolerance, ROUNDS_TOLERANCE),
                       columns=[(0, chain.p_first), (1, 1.0 - chain.p_first)])
        # With no cap, only a distribution that ends before the pushed cap is the fight's.
        if res.push.stop != WORK and (cap is not None or res.push.stop == TOLERANCE):
            rounds = res.push
    return sol, beyond, rounds, exact, why

def _result_from_chain(ruleset: str, chain: Any, cap: int, capped: bool, tolerance: float,
                       sol: Any,
                       beyond: float, pushed: Push | None, fractions: Fractions | None,
                       why: Msg | None) -> ExactFight:
    from sevendag_cli.sim.odds import certified

    names = chain.names
    slack = sol.error + beyond
    odds = certified(names, math.fsum(sol.win_a), math.fsum(sol.win_b), 0.0, slack, cap,
                     TOLERANCE)
    if odds.unresolved > tolerance:
        odds = msgspec.structs.replace(odds, stop=COMPLETE)
    p = chain.p_first
    first = (p, 1.0 - p)
    won = (sol.win_a, sol.win_b)
    fighters = tuple(
        FighterExact(names[i], odds.win[i], odds.win_bounds[i], first[i],
                     max(0.0, won[i][i] - slack))
        for i in (0, 1))
    decided = math.fsum(sol.win_a) + math.fsum(sol.win_b)
    first_striker_won = (sol.win_a[0] + sol.win_b[1]) / decided if decided > 0 else None
    extra = (D20FighterExact(names[0], _hp_left(list(sol.hp_a)), sol.dealt[0]),
             D20FighterExact(names[1], _hp_left(list(sol.hp_b)), sol.dealt[1]))
    if pushed is not None:
        rounds = rounds_of(pushed, cap)
    else:
        mean = sol.rounds_mean
        rounds = RoundsExact(mean, (mean * (1 - sol.error), mean * (1 + sol.error)), None, None,
                             None, (), 0.0)
    return ExactFight(
        ruleset=ruleset, engine="d20", cap=cap, tolerance=tolerance, stop=odds.stop,
        fighters=(fighters[0], fighters[1]), draw_probability=odds.draw,
        draw_bounds=odds.draw_bounds, unresolved=odds.unresolved, rounds=rounds,
        first_striker_won=first_striker_won, fractions=fractions, no_fractions=why, d20=extra,
        solver="chain" if capped else "end")

def _d20_fractions(ruleset: D20Ruleset, a: D20Fighter,
                   b: D20Fighter) -> tuple[Fractions | None, Msg | None]:
    from sevendag_cli.d20.chain import chain_for
    from sevendag_cli.d20.exact import MAX_HP, MAX_WORK, exact_d20

    jumps = chain_for(ruleset, a, b).jumps
    top = max(jumps.top_a, jumps.top_b, 1)
    if max(a.hp, b.hp) > MAX_HP or a.hp * b.hp * (a.hp + b.hp) * min(top, max(a.hp, b.hp)) > MAX_WORK:
        return None, Msg("exact.fractions_size", a=a.name, hp_a=a.hp, b=b.name, hp_b=b.hp)
    try:
        r = exact_d20(ruleset, a, b)
    except SevendagError as exc:
        return None, exc.msg
    return Fractions(r.win_probability, r.draw_probability, r.rounds_mean), None
