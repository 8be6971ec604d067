"""``matrix --json``: the round-robin as a JSON document (docs/json.md, schema ``matrix``).

Rows and columns are in ranking order: ``fighters[i]`` is the ``i``-th of the
ranking, ``win_probability[i][j]`` P(fighters[i] beats fighters[j]) in the
fight where ``fighters[i]`` is named first, null on the diagonal; ``order[i]``
is the position ``fighters[i]`` had as given.  Per cell: ``bounds`` (exact: the
certified interval; simulated: the 95% interval), ``draw_probability``,
``unresolved`` and ``methods`` (``exact``, ``runs`` or ``not_computed``).  ``policies``: how
each fighter played (``sheet`` or ``optimal``); ``exploitability`` (``--exploit``, else null):
per cell, what the row's sheet gives away against the column's optimal answer, with its bounds;
per fighter (``fighters``, in ranking order), the mean over its opponents.

A table with a pair not computed (``method`` ``partial``): that pair's cells have ``methods``
``not_computed`` and null numbers, and a ``why`` grid (only then) gives each cell's reason as
``{key, message}`` — the refusal of a cell not computed, the exact solver's of a simulated one,
else null; ``exploitability.why`` likewise, only when some figure is missing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from sevendag_cli.errors import Msg
from sevendag_cli.render.data import header

if TYPE_CHECKING:
    from sevendag_cli.rules.roster import Skipped
    from sevendag_cli.sim.roster import Cell, GivesAway, Roster


def short_float(x: float) -> str:
    """``1e-9`` rather than ``1e-09``."""
    import re

    return re.sub(r"e([+-])0*(\d)", r"e\1\2", f"{x:g}")


def method_line(roster: Roster, lang: str) -> str:
    """The line under the title: how the table was computed (the display's and the picture's).

    Fights played to the end (a ruleset with no round cap, d20's house default) name no round
    cap: there is none, as ``fight --exact`` says."""
    from sevendag_cli.i18n import count, t
    if roster.all_runs:
        return t("matrix.runs_end" if roster.to_end else "matrix.runs", lang,
                 runs=count(roster.runs or 0, lang), seed=roster.seed, cap=roster.cap)
    return t("matrix.exact_end" if roster.to_end else "matrix.exact", lang, cap=roster.cap,
             tol=short_float(roster.tolerance or 0.0))


def policies_text(roster: Roster, names: list[str], lang: str) -> str | None:
    """Who plays how (the display's line and the picture's): who plays optimally, or that
    every fighter plays its sheet; None where the rules leave no choice (d20)."""
    from sevendag_cli.backend import backend_named
    from sevendag_cli.i18n import t
    from sevendag_cli.policies import OPTIMAL

    if not backend_named(roster.engine).has_choices():
        return None
    optimal = [x for x, p in zip(names, roster.policies, strict=False)
               if p == OPTIMAL]  # no policies (a Roster made by hand): every sheet
    if not optimal:
        return t("matrix.sheets_all", lang)
    if len(optimal) == len(names):
        return t("matrix.optimal_all", lang)
    return t("matrix.optimal_some", lang, who=", ".join(optimal))


def matrix_notes(roster: Roster) -> list[Msg]:
    """What the display and the JSON say about how the table was computed."""
    if roster.all_runs:
        notes = [Msg("roster.note.runs_end" if roster.to_end else "roster.note.runs",
                     runs=roster.runs or 0)]
    else:
        notes = [Msg("roster.note.exact_end" if roster.to_end else "roster.note.exact")]
        if roster.simulated:
            notes.append(Msg("roster.note.mixed", n=roster.simulated, runs=roster.runs or 0))
    return notes + policy_notes(roster) + hole_notes(roster)


def hole_notes(roster: Roster) -> list[Msg]:
    """Each pair not computed, and each pair whose ``--exploit`` figures were not, once, with
    the refusal (on stderr after the display, the CSV or the JSON; in the JSON's ``note``)."""
    from sevendag_cli.text import visible

    return ([Msg("roster.hole", a=visible(a), b=visible(b), why=why)
             for a, b, why in roster.holes] +
            [Msg("roster.exploit_hole", a=visible(a), b=visible(b), why=why)
             for a, b, why in roster.exploit_holes])


def why_data(why: Msg | None, lang: str) -> dict[str, str] | None:
    """A cell's reason in the JSON: its message's stable key and its text."""
    return None if why is None else {"key": why.key, "message": why.render(lang)}


def policy_notes(roster: Roster) -> list[Msg]:
    """What the fighters' policies and the exploitability figures assume (none when every
    fighter plays its sheet and nothing else was asked)."""
    from sevendag_cli.backend import backend_named
    from sevendag_cli.policies import OPTIMAL
    from sevendag_cli.text import visible

    notes: list[Msg] = []
    optimal = [name for name, p in zip(roster.names, roster.policies, strict=False)
               if p == OPTIMAL]  # no policies (a Roster made by hand): every sheet
    if optimal and len(optimal) == len(roster.names):
        notes.append(Msg("roster.note.optimal"))
    elif optimal:
        notes.append(Msg("roster.note.optimal_some", who=", ".join(visible(x) for x in optimal)))
    if roster.exploit:
        if not backend_named(roster.engine).has_choices():
            notes.append(Msg("roster.exploit_no_choices", ruleset=roster.ruleset))
        else:
            notes.append(Msg("roster.note.exploit", tol=exploit_tolerance(roster)))
    return notes


def exploit_tolerance(roster: Roster) -> float:
    """The widest tolerance of the exploitability figures (0 when none was computed)."""
    return max((c.gives_away.tolerance for row in roster.cells for c in row
                if c is not None and c.gives_away is not None), default=0.0)


def policies_of(roster: Roster) -> dict[str, str]:
    """JSON ``policies``: every fighter's, in ranking order."""
    from sevendag_cli.policies import SHEET, policies_data

    names = roster.names
    return policies_data(names, roster.policies or (SHEET,) * len(names))


def exploitability_of(roster: Roster, lang: str = "en") -> dict[str, Any] | None:
    """JSON ``exploitability``: per cell, what the row's sheet gives away, and its bounds;
    ``why`` when some figure is missing (the game beyond its bounds)."""
    if not roster.exploit:
        return None

    def grid(value: Callable[[GivesAway], Any]) -> list[list[Any]]:
        return [[None if c is None or c.gives_away is None else value(c.gives_away)
                 for c in row] for row in roster.cells]

    missing = {"why": [[None if c is None else why_data(exploit_why(c), lang) for c in row]
                       for row in roster.cells]} if roster.holes or roster.exploit_holes else {}
    return {"tolerance": exploit_tolerance(roster),
            "gives_away": grid(lambda g: g.value),
            "bounds": grid(lambda g: list(g.bounds)),
            "fighters": [{"name": s.name,
                          "gives_away": None if s.gives_away is None else s.gives_away.value,
                          "bounds": None if s.gives_away is None else list(s.gives_away.bounds)}
                         for s in roster.standings],
            **missing}


def exploit_why(c: Cell) -> Msg | None:
    """Why a cell has no ``--exploit`` figure: the refusal of its pair not computed, or of its
    game (None: it has one)."""
    from sevendag_cli.sim.roster import RosterHole

    return c.why if isinstance(c, RosterHole) else c.exploit_why





def matrix_document(roster: Roster, skipped: Sequence[Skipped] = (),
                    lang: str = "en") -> dict[str, Any]:
    def grid(value: Callable[[Cell], Any]) -> list[list[Any]]:
        return [[None if c is None else value(c) for c in row] for row in roster.cells]

    why = {"why": grid(lambda c: why_data(c.why, lang))} if roster.holes else {}
    return {
        **header("matrix", roster.ruleset, roster.seed),
        "method": roster.method,
        "engine": roster.engine,
        "cap": roster.cap,
        "played_to_end": roster.to_end,
        "tolerance": roster.tolerance,
        "runs": roster.runs,
        "fighters": [s.name for s in roster.standings],
        "sheets": [s.source for s in roster.standings],
        "order": list(roster.order),
        "win_probability": grid(lambda c: c.win),
        "bounds": grid(lambda c: None if c.bounds is None else list(c.bounds)),
        "draw_probability": grid(lambda c: c.draw),
        "unresolved": grid(lambda c: c.unresolved),
        "methods": grid(lambda c: c.method),
        **why,
        "ranking": [
            {"rank": k + 1, "name": s.name, "mean": s.mean,
             "mean_bounds": None if s.mean_bounds is None else list(s.mean_bounds)}
            for k, s in enumerate(roster.standings)],
        "skipped": [{"file": s.path, "ruleset": s.ruleset} for s in skipped],
        "note": " ".join(m.render(lang) for m in matrix_notes(roster)),
        "policies": policies_of(roster),
        "exploitability": exploitability_of(roster, lang),
    }
