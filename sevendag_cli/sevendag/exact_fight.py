"""Sevendag: the whole fight of ``fight --exact`` / ``--runs``, exactly (see
:mod:`sevendag_cli.sim.exact_fight`, whose records it fills)."""

from __future__ import annotations

from sevendag_cli.errors import Msg, SevendagError
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
from sevendag_cli.sim.exact_fight import (
    BandExact,
    ExactFight,
    Fractions,
    SevendagFighterExact,
    check_resolved,
    exact_result,
)
from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, check_cap, check_tolerance
from sevendag_cli.sim.push import sevendag_push


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
    check_resolved(push, chain.names, tolerance)
    exact, why = _sevendag_fractions(ruleset, a, b) if fractions else (None, None)
    bands = chain.band_names
    extra = tuple(
        SevendagFighterExact(name, tuple(BandExact(band, float(wounds[i, j].sum()))
                                         for j, band in enumerate(bands)))
        for i, name in enumerate(chain.names))
    return exact_result(ruleset.name, "sevendag", chain.names, cap, tolerance, push, exact, why,
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
        return None, exc.msg
    return Fractions(r.win_probability, r.draw_probability, r.rounds_mean), None
