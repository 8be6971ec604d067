"""``advise``'s result (:meth:`sevendag_cli.encounter.Encounter.advise`): the advice for the
fighter who declares now, from the saved encounter, and its JSON document."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from msgspec import Struct

from sevendag_cli.arguments import checked

if TYPE_CHECKING:
    from sevendag_cli.backend import Advice, Fighter, Ruleset, State


class AdviceAt(Struct, frozen=True):
    """``advise``: every option of the fighter declaring now, from the saved state; ``busy``:
    a writer was at work (the file is read as last saved)."""

    state: State
    ruleset: Ruleset
    encounter: str
    advice: Advice  # the ruleset's own record of its options (Sevendag's ``Advice``)
    cap: int | None  # rounds to the cap (None: a ruleset with none)
    tolerance: float
    busy: bool = False

    @checked
    def to_dict(self, lang: str = "en", top: int | None = None) -> dict[str, object]:
        """``advise --json``; ``top``: only the ``top`` best options (``--top``), in their order."""
        from sevendag_cli.render.advise_data import advise_document

        return advise_document(self, lang, top)


class Read(Protocol):
    """An encounter as read (:class:`sevendag_cli.encounter.Loaded`): what advice needs of it."""

    @property
    def ruleset(self) -> Ruleset: ...
    @property
    def a(self) -> Fighter: ...
    @property
    def b(self) -> Fighter: ...
    @property
    def state(self) -> State: ...


def advice_from(loaded: Read, encounter: str, busy: bool, *, after: str | None,
                cap: int | None, tolerance: float | None) -> AdviceAt:
    """The advice from an encounter as read (``Encounter.advise``), from its ruleset's backend
    (a ruleset that leaves no choice: one line)."""
    from sevendag_cli.backend import backend_for
    from sevendag_cli.library import check_numbers

    check_numbers(cap, None, None)
    rs, a, b, state = loaded.ruleset, loaded.a, loaded.b, loaded.state
    advice, tol = backend_for(rs).table.advise(rs, a, b, state, after, cap, tolerance)
    return AdviceAt(state, rs, encounter, advice, rs.round_cap if cap is None else cap, tol, busy)
