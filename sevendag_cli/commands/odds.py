"""``odds``: each fighter's chance to win from where the saved encounter stands; read only.

It reads the encounter as ``status`` does (a shared lock, nothing written or made:
:func:`sevendag_cli.commands.table.open_read_only`) and asks the exact solver
(:mod:`sevendag_cli.sim.moment`) for the odds of the saved state: hit points, or wounds
and penalties, dropped weapons and their rounds left, granted criticals, techniques in
effect, the assaillant, and the round (for the cap).  It uses the solver's work the
encounter file keeps (:mod:`sevendag_cli.table_odds`) when ``round --odds`` or
``init --odds`` saved it; without it, it computes (and keeps nothing: it only reads).
"""

from __future__ import annotations

from typing import Annotated

import typer

from sevendag_cli.failure import handled
from sevendag_cli.options import DEFAULT_ENCOUNTER, EncounterOpt, JsonOpt, LangOpt, check_numbers
from sevendag_cli.output import make_output

app = typer.Typer()

CapOpt = Annotated[
    int | None,
    typer.Option("--cap", help="Round cap: a fight still going after it is a draw "
                 "(default: the encounter ruleset's)."),
]
ToleranceOpt = Annotated[
    float | None,
    typer.Option("--tolerance", help="Most probability left unresolved (default 1e-12)."),
]


@app.command("odds")
def odds_cmd(
    encounter: EncounterOpt = DEFAULT_ENCOUNTER,
    cap: CapOpt = None,
    tolerance: ToleranceOpt = None,
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Show each fighter's chance to win from where the encounter stands, without changing it.

    The odds assume each fighter keeps the sheet's tactic from now on (no yield, no new
    technique) and that a fight still going at the round cap is a draw.

    Example: sevendag odds  ·  sevendag odds --json --tolerance 1e-9
    """
    with handled(lang):
        from sevendag_cli.commands.table import open_read_only
        from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, check_tolerance
        from sevendag_cli.sim.swing import point
        from sevendag_cli.table_odds import solver_for

        out = make_output(json_, False, lang, jsonl_allowed=False)
        check_numbers(cap, None, None)
        tol = check_tolerance(DEFAULT_TOLERANCE if tolerance is None else tolerance)
        enc, rs, a, b, state = open_read_only(encounter, out.lang)
        solver = solver_for(enc, rs, a, b, cap=cap, tolerance=tol)
        odds = solver(state)
        moment = point(odds, state.round)
        if out.json:
            from sevendag_cli.render.odds_data import odds_document

            out.data(odds_document(state, rs, str(encounter), odds, moment, solver.cap, tol,
                                   out.lang))
            return
        from sevendag_cli.render.rich_odds import odds_display

        odds_display(out.console(), out.lang, rs, state, str(encounter), odds, moment,
                     solver.cap, tol)
