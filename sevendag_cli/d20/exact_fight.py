"""d20: the whole fight of ``fight --exact`` / ``--runs``, exactly (see
:mod:`sevendag_cli.sim.exact_fight`, whose records it fills)."""

from __future__ import annotations

import math

from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
from sevendag_cli.errors import Msg, SevendagError
from sevendag_cli.sim.exact_fight import (
    D20FighterExact,
    ExactFight,
    Fractions,
    HpLeft,
    exact_result,
)
from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, check_cap, check_tolerance
from sevendag_cli.sim.push import d20_push


def d20_fight(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter, *, cap: int | None = None,
              tolerance: float = DEFAULT_TOLERANCE, fractions: bool = True) -> ExactFight:
    """The whole fight of ``fight`` / ``--runs``, exactly: D-02 initiative every round, the cap."""
    from sevendag_cli.d20.chain import chain_for

    tolerance = check_tolerance(tolerance)
    cap = ruleset.round_cap if cap is None else check_cap(cap)
    chain = chain_for(ruleset, a, b)
    p = chain.p_first
    res = d20_push(chain, a.hp, b.hp, None, cap, tolerance, columns=[(0, p), (1, 1.0 - p)])
    rw = res.rewards
    exact, why = _d20_fractions(ruleset, a, b) if fractions else (None, None)
    won = (res.push.won_total(0).sum(), res.push.won_total(1).sum())
    extra = []
    for i, name in enumerate(chain.names):
        hp = (rw.hp_a if i == 0 else rw.hp_b).sum(axis=0)
        total = float(hp.sum())
        dist = tuple((h, float(hp[h]) / total) for h in range(1, hp.size) if hp[h] > 0) \
            if total > 0 else ()
        mean = math.fsum(h * q for h, q in dist)
        var = max(0.0, math.fsum(h * h * q for h, q in dist) - mean * mean)
        extra.append(D20FighterExact(name, HpLeft(mean, math.sqrt(var), dist),
                                     float(rw.dealt[i].sum())))
    del won
    return exact_result(ruleset.name, "d20", chain.names, cap, tolerance, res.push, exact, why,
                   d20=(extra[0], extra[1]))


def _d20_fractions(ruleset: D20Ruleset, a: D20Fighter,
                   b: D20Fighter) -> tuple[Fractions | None, Msg | None]:
    from sevendag_cli.d20.exact import exact_d20

    try:
        r = exact_d20(ruleset, a, b)
    except SevendagError as exc:
        return None, exc.msg
    return Fractions(r.win_probability, r.draw_probability, r.rounds_mean), None
