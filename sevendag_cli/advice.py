"""``advise``'s result (:meth:`sevendag_cli.encounter.Encounter.advise`): the advice for the
fighter who declares now, from the saved encounter, and its JSON document."""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from sevendag_cli.sevendag.advice import Advice


class AdviceAt(Struct, frozen=True):
    """``advise``: every option of the fighter declaring now, from the saved state; ``busy``:
    a writer was at work (the file is read as last saved)."""

    state: Any
    ruleset: Any
    encounter: str
    advice: Advice
    cap: int
    tolerance: float
    busy: bool = False

    def to_dict(self, lang: str = "en") -> dict[str, Any]:
        from sevendag_cli.render.advise_data import advise_document

        return advise_document(self, lang)


def advice_from(loaded: Any, encounter: str, busy: bool, *, after: str | None,
                cap: int | None, tolerance: float | None) -> AdviceAt:
    """The advice from an encounter as read (``Encounter.advise``); d20 has no choices."""
    from sevendag_cli.errors import Msg, UsageError
    from sevendag_cli.library import check_numbers
    from sevendag_cli.sevendag.advice import ADVICE_TOLERANCE, advise, parse_after
    from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
    from sevendag_cli.sim.odds import check_tolerance

    check_numbers(cap, None, None)
    tol = check_tolerance(ADVICE_TOLERANCE if tolerance is None else tolerance)
    rs, a, b, state = loaded.ruleset, loaded.a, loaded.b, loaded.state
    if not isinstance(rs, SevendagRuleset):
        raise UsageError(Msg("advise.d20"))
    assert isinstance(a, SevendagFighter) and isinstance(b, SevendagFighter)
    declared = None
    if after is not None:
        first = a if state.assaillant == a.name else b
        declared = parse_after(after, rs, first, state)
    advice = advise(rs, a, b, state, after=declared, cap=cap, tolerance=tol)
    return AdviceAt(state, rs, encounter, advice, rs.round_cap if cap is None else cap, tol, busy)
