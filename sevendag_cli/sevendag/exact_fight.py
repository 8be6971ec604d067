"""Sevendag: the whole fight of ``fight --exact`` / ``--runs``, exactly (see
:mod:`sevendag_cli.sim.exact_fight`, whose records it fills)."""

from __future__ import annotations

import msgspec
import numpy as np
import numpy.typing as npt

from sevendag_cli.errors import Msg, SevendagError
from sevendag_cli.sevendag.push import chain_push
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
from sevendag_cli.sim.exact_fight import (
    ExactFight,
    Fractions,
    check_resolved,
    exact_result,
)
from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, check_cap, check_tolerance


class BandExact(msgspec.Struct, frozen=True):
    band: str
    mean: float  # expected wounds of this band per fight


class FighterWounds(msgspec.Struct, frozen=True):
    """One fighter's expected wounds of each band in the exact fight."""

    name: str
    wounds: tuple[BandExact, ...]


class ExactWounds(msgspec.Struct, frozen=True):
    """What Sevendag adds to ``fight --exact``'s odds (the JSON's ``sevendag``): per fighter."""

    fighters: tuple[FighterWounds, FighterWounds]


def exact_wounds(names: tuple[str, str], bands: tuple[str, ...],
                 wounds: npt.NDArray[np.float64]) -> ExactWounds:
    """The wounds a push took (2 fighters, bands, columns), summed over its columns."""
    one = [FighterWounds(name, tuple(BandExact(band, float(wounds[i, j].sum()))
                                     for j, band in enumerate(bands)))
           for i, name in enumerate(names)]
    return ExactWounds((one[0], one[1]))

FRACTION_ENTRIES = 4_000
"""Most ways the rounds of a chain go (its states' successors, summed) for exact fractions
computed unasked: their numbers grow a thousand digits and more, and cost 3 to 6 times the
certified odds beyond (``--fractions`` asks for them whatever they cost)."""


def sevendag_fight(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter, *,
                   cap: int | None = None, tolerance: float = DEFAULT_TOLERANCE,
                   fractions: bool | None = None) -> ExactFight:
    """The whole fight of ``fight`` / ``--runs`` (sheet tactics, no yield, no technique), exactly.

    ``fractions``: None where the chain is small (:data:`FRACTION_ENTRIES`), True always,
    False never."""
    from sevendag_cli.sevendag.chain import chain_for
    from sevendag_cli.sevendag.exact import initiative_probability

    tolerance = check_tolerance(tolerance)
    cap = ruleset.round_cap if cap is None else check_cap(cap)
    chain = chain_for(ruleset, a, b)
    p_a = initiative_probability(ruleset, a, b)
    starts = [(chain.state_id(chain.start_key(0)), float(p_a)),
              (chain.state_id(chain.start_key(1)), float(1 - p_a))]
    push, wounds = chain_push(chain, starts, cap, tolerance)
    check_resolved(push, chain.names, tolerance)
    exact, why = (None, None)
    if fractions is None:
        order = chain.closure([s for s, _ in starts])
        entries = sum(len(chain.successors(s).targets) for s in order)
        if entries > FRACTION_ENTRIES and _finite(ruleset) is None:
            why = Msg("exact.note.fractions_skipped", states=len(order), entries=entries,
                      max=FRACTION_ENTRIES)
        else:
            exact, why = _sevendag_fractions(ruleset, a, b)
    elif fractions:
        exact, why = _sevendag_fractions(ruleset, a, b)
    return exact_result(ruleset.name, "sevendag", chain.names, cap, tolerance, push, exact, why,
                        Msg("exact.note.sevendag", cap=cap),
                        exact_wounds(chain.names, chain.band_names, wounds))


def _finite(ruleset: SevendagRuleset) -> Msg | None:
    """Why the chain has no exact fractions (its penalties pile up without bound), or None."""
    for band in ruleset.wounds:
        if band.penalty and not band.out_after:
            return Msg("exact.note.unbounded", band=band.name, penalty=band.penalty)
    return None


def _sevendag_fractions(ruleset: SevendagRuleset, a: SevendagFighter,
                        b: SevendagFighter) -> tuple[Fractions | None, Msg | None]:
    from sevendag_cli.sevendag.exact import exact_sevendag

    unbounded = _finite(ruleset)
    if unbounded is not None:
        return None, unbounded
    try:
        r = exact_sevendag(ruleset, a, b)
    except SevendagError as exc:
        return None, exc.msg
    return Fractions(r.win_probability, r.draw_probability, r.rounds_mean), None
