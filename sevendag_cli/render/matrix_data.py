"""``matrix --json``: the round-robin as a JSON document (docs/json.md, schema ``matrix``).

Rows and columns are in ranking order: ``fighters[i]`` is the ``i``-th of the
ranking, ``win_probability[i][j]`` P(fighters[i] beats fighters[j]) in the
fight where ``fighters[i]`` is named first, null on the diagonal; ``order[i]``
is the position ``fighters[i]`` had as given.  Per cell: ``bounds`` (exact: the
certified interval; simulated: the 95% interval), ``draw_probability``,
``unresolved`` and ``methods`` (``exact`` or ``runs``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from sevendag_cli.errors import Msg
from sevendag_cli.render.data import header

if TYPE_CHECKING:
    from sevendag_cli.rules.roster import Skipped
    from sevendag_cli.sim.roster import Matchup, Roster


def matrix_notes(roster: Roster) -> list[Msg]:
    """What the display and the JSON say about how the table was computed."""
    from sevendag_cli.sim.roster import RUNS

    if roster.method == RUNS:
        return [Msg("roster.note.runs", runs=roster.runs or 0)]
    notes = [Msg("roster.note.exact")]
    if roster.simulated:
        notes.append(Msg("roster.note.mixed", n=roster.simulated, runs=roster.runs or 0))
    return notes


def matrix_document(roster: Roster, skipped: Sequence[Skipped] = (),
                    lang: str = "en") -> dict[str, Any]:
    def grid(value: Callable[[Matchup], Any]) -> list[list[Any]]:
        return [[None if c is None else value(c) for c in row] for row in roster.cells]

    return {
        **header("matrix", roster.ruleset, roster.seed),
        "method": roster.method,
        "engine": roster.engine,
        "cap": roster.cap,
        "tolerance": roster.tolerance,
        "runs": roster.runs,
        "fighters": [s.name for s in roster.standings],
        "sheets": [s.source for s in roster.standings],
        "order": list(roster.order),
        "win_probability": grid(lambda c: c.win),
        "bounds": grid(lambda c: list(c.bounds)),
        "draw_probability": grid(lambda c: c.draw),
        "unresolved": grid(lambda c: c.unresolved),
        "methods": grid(lambda c: c.method),
        "ranking": [
            {"rank": k + 1, "name": s.name, "mean": s.mean,
             "mean_bounds": None if s.mean_bounds is None else list(s.mean_bounds)}
            for k, s in enumerate(roster.standings)],
        "skipped": [{"file": s.path, "ruleset": s.ruleset} for s in skipped],
        "note": " ".join(m.render(lang) for m in matrix_notes(roster)),
    }
