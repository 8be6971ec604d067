"""Whole fights, exactly (``fight --exact``): what ``--runs`` reports, from the chain (numpy).

**d20** (:func:`d20_fight`): the odds, the winner's hit points left, the damage dealt and
the mean rounds are those of the fight played to the end, from one pass over both
fighters' hit points with no time dimension (:func:`sevendag_cli.d20.solve.forward`):
the ruleset's round cap is a guard for play and simulation, not part of them.  With
``cap`` given (``--cap``), a fight still going after it is a draw: its share is bounded,
or, where it matters, the fight is pushed round by round to the cap as below.  The
rounds distribution is pushed too, within :data:`ROUNDS_WORK`; a longer fight has its
mean only.

**Sevendag**, and d20 where its cap matters: the fight's starting mass — split by who
strikes first (S-02 / D-02), which is what ``first_striker_won`` needs — is pushed
round by round through the chain of :mod:`.chain_sevendag` (the Sevendag states,
their rounds built once) or over the grid of both fighters' hit points (d20, the
tables of :mod:`.chain_d20`).  Each round gives the mass that ends the fight in that
round, and who won; the mass still in play after round ``cap`` is a draw (S-19; the d20 ruleset's cap), as in
``fight`` and ``--runs``; the push stops earlier once the mass still in play is
below the tolerance (then: unresolved, see :mod:`.odds`).  Along the way it
accumulates the rewards:

* the rounds distribution (absorption times): ``P(T = t)``, ``E[T] = sum P(T >= t)``;
* Sevendag: expected wounds of each band taken by each fighter (the final wound
  included, as ``--runs`` counts it);
* d20: hit points left by the winner (a distribution) and damage dealt (the
  killing blow counted in full, as ``--runs``).

Exact fractions (:attr:`ExactFight.fractions`) are those of the fight played to
the end, with no cap, from the exact solvers of :mod:`.exact_d20` and
:mod:`.exact_sevendag` where their state space is finite; they differ from the
capped odds by at most the draw probability.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import msgspec

from sevendag_cli.errors import Msg, SevendagError, UsageError
from sevendag_cli.sim.odds import (
    COMPLETE,
    DEFAULT_TOLERANCE,
    TOLERANCE,
    WORK,
    Odds,
    check_cap,
    check_tolerance,
)
from sevendag_cli.sim.push import Push, d20_push, sevendag_push

if TYPE_CHECKING:
    from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
    from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset




# --- records -------------------------------------------------------------------------------


class FighterExact(msgspec.Struct, frozen=True):
    name: str
    win_probability: float  # resolved to this fighter: a lower bound
    bounds: tuple[float, float]  # [low, low + unresolved]
    first_strike_probability: float  # P(this fighter strikes first: S-02 assaillant, D-02 round 1)
    first_strike_win_probability: float  # P(strikes first and wins), a lower bound


class RoundsExact(msgspec.Struct, frozen=True):
    """The rounds distribution, pushed round by round.  A d20 fight too long to push within
    its work limit has only its mean (the fight played to the end: ``histogram`` empty, ``sd``,
    ``p50`` and ``p90`` None)."""

    mean: float  # a lower bound; mean_bounds adds what the tail can add
    mean_bounds: tuple[float, float]
    sd: float | None
    p50: int | None
    p90: int | None
    histogram: tuple[tuple[int, float], ...]  # (rounds, probability), every round with mass
    tail: float  # mass of the fights not over when the push stopped (beyond the histogram)


class BandExact(msgspec.Struct, frozen=True):
    band: str
    mean: float  # expected wounds of this band per fight


class SevendagFighterExact(msgspec.Struct, frozen=True):
    name: str
    wounds: tuple[BandExact, ...]


class HpLeft(msgspec.Struct, frozen=True):
    mean: float
    sd: float
    distribution: tuple[tuple[int, float], ...]  # (hit points left, P(... | this fighter wins))


class D20FighterExact(msgspec.Struct, frozen=True):
    name: str
    hp_left_when_winning: HpLeft
    damage_dealt: float  # expected per fight


class Fractions(msgspec.Struct, frozen=True):
    """Exact odds of the fight played to the end (no round cap)."""

    win_probability: tuple[Fraction, Fraction]
    draw_probability: Fraction
    rounds_mean: Fraction


class ExactFight(msgspec.Struct, frozen=True):
    ruleset: str
    engine: str
    cap: int
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
    d20: tuple[D20FighterExact, D20FighterExact] | None = None
    sevendag: tuple[SevendagFighterExact, SevendagFighterExact] | None = None
    solver: str = "push"  # d20 with no time dimension: "chain" (the --cap bounded) or "end" (no cap)

    @property
    def odds(self) -> Odds:
        return Odds((self.fighters[0].name, self.fighters[1].name),
                    (self.fighters[0].win_probability, self.fighters[1].win_probability),
                    self.draw_probability, self.unresolved, len(self.rounds.histogram), self.stop)


def sevendag_fight(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter, *,
                   cap: int | None = None, tolerance: float = DEFAULT_TOLERANCE,
                   fractions: bool = True) -> ExactFight:
    """The whole fight of ``fight`` / ``--runs`` (sheet tactics, no yield, no technique), exactly."""
    from sevendag_cli.sevendag.chain import chain_for
    from sevendag_cli.sevendag.exact import initiative_probability

    tolerance = check_tolerance(tolerance)
    cap = ruleset.round_cap if cap is None else check_cap(cap)
    chain = chain_for(ruleset, a, b)
    p_a = initiative_probability(ruleset, a, b)
    starts = [(chain.state_id(chain.start_key(0)), float(p_a)),
              (chain.state_id(chain.start_key(1)), float(1 - p_a))]
    push, wounds = sevendag_push(chain, starts, cap, tolerance)
    _check_resolved(push, chain.names, tolerance)
    exact, why = _sevendag_fractions(ruleset, a, b) if fractions else (None, None)
    bands = chain.band_names
    extra = tuple(
        SevendagFighterExact(name, tuple(BandExact(band, float(wounds[i, j].sum()))
                                         for j, band in enumerate(bands)))
        for i, name in enumerate(chain.names))
    return _result(ruleset.name, "sevendag", chain.names, cap, tolerance, push, exact, why,
                   sevendag=(extra[0], extra[1]))


def _sevendag_fractions(ruleset: SevendagRuleset, a: SevendagFighter,
                        b: SevendagFighter) -> tuple[Fractions | None, Msg | None]:
    from sevendag_cli.sevendag.exact import exact_sevendag

    for band in ruleset.wounds:
        if band.penalty and not band.out_after:
            return None, Msg("exact.note.unbounded", band=band.name, penalty=band.penalty)
    try:
        r = exact_sevendag(ruleset, a, b)
    except SevendagError as exc:
        return None, _reason(exc)
    return Fractions(r.win_probability, r.draw_probability, r.rounds_mean), None


def _reason(exc: SevendagError) -> Msg:
    return exc.msg


# --- d20 --------------------------------------------------------------------------------------


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
    _check_resolved(res.push, chain.names, tolerance)
    rw = res.rewards
    extra = []
    for i, name in enumerate(chain.names):
        hp = (rw.hp_a if i == 0 else rw.hp_b).sum(axis=0)
        extra.append(D20FighterExact(name, _hp_left([float(x) for x in hp]),
                                     float(rw.dealt[i].sum())))
    return _result(ruleset.name, "d20", chain.names, cap, tolerance, res.push, exact, why,
                   d20=(extra[0], extra[1]))


def _hp_left(hp: list[float]) -> HpLeft:
    total = math.fsum(hp)
    dist = tuple((h, hp[h] / total) for h in range(1, len(hp)) if hp[h] > 0) if total > 0 else ()
    mean = math.fsum(h * q for h, q in dist)
    var = max(0.0, math.fsum(h * h * q for h, q in dist) - mean * mean)
    return HpLeft(mean, math.sqrt(var), dist)


def _check_resolved(push: Push, names: tuple[str, str], tolerance: float) -> None:
    """Nothing from unresolved mass: a push stopped at its work limit with more than the
    tolerance unresolved is refused (one line), not shown."""
    odds = push.odds(names, push.draw_round, len(push.alive))
    if odds.stop == WORK and odds.unresolved > tolerance:
        raise UsageError(Msg("exact.unresolved", unresolved=odds.unresolved, tolerance=tolerance))


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
        rounds = _rounds(pushed, cap)
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
        return None, _reason(exc)
    return Fractions(r.win_probability, r.draw_probability, r.rounds_mean), None


# --- both ---------------------------------------------------------------------------------------


def _result(ruleset: str, engine: str, names: tuple[str, str], cap: int, tolerance: float,
            push: Push, fractions: Fractions | None, why: Msg | None, **extra: Any) -> ExactFight:
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
        rounds=_rounds(push, cap), first_striker_won=first_striker_won, fractions=fractions,
        no_fractions=why, **extra)


def _rounds(push: Push, cap: int) -> RoundsExact:
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
    return RoundsExact(mean, (low, high), math.sqrt(var), _rank(pairs, tail, 0.5),
                       _rank(pairs, tail, 0.9), tuple(pairs), tail)


def _rank(pairs: list[tuple[int, float]], tail: float, q: float) -> int:
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
                tolerance: float = DEFAULT_TOLERANCE, fractions: bool = True) -> ExactFight:
    """``fight --exact`` for either ruleset (``fractions=False``: without the exact fractions of
    the uncapped fight, which a sweep does not report)."""
    from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
    from sevendag_cli.rules.bounds import check_exact
    from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset

    check_exact(ruleset, a, b)  # the value bound, as the step-by-step and vectorised engines
    if isinstance(ruleset, D20Ruleset) and isinstance(a, D20Fighter) and isinstance(b, D20Fighter):
        return d20_fight(ruleset, a, b, cap=cap, tolerance=tolerance, fractions=fractions)
    if (isinstance(ruleset, SevendagRuleset) and isinstance(a, SevendagFighter)
            and isinstance(b, SevendagFighter)):
        return sevendag_fight(ruleset, a, b, cap=cap, tolerance=tolerance, fractions=fractions)
    raise UsageError(Msg("cli.mismatch"))
