"""``odds``: each fighter's chance to win from where the saved encounter stands; read only.

It reads the encounter as ``status`` does (a shared lock, nothing written or made:
:meth:`sevendag_cli.encounter.Encounter.odds`) and asks the exact solver
(:mod:`sevendag_cli.sim.moment`) for the odds of the saved state: hit points, or wounds
and penalties, dropped weapons and their rounds left, granted criticals, techniques in
effect, the assaillant, and the round (for the cap).  It uses the solver's work kept in
the user's cache for this very pair (:mod:`sevendag_cli.table_odds`) when ``round --odds``
or ``init --odds`` built it; without it, it computes (and keeps nothing: it only reads).
Solver work an encounter file carries is never used.
"""

from __future__ import annotations

from typing import Annotated

import typer

from sevendag_cli.commandline import SevendagCommand
from sevendag_cli.failure import handled
from sevendag_cli.options import (
    DEFAULT_ENCOUNTER,
    CsvOpt,
    EncounterCapOpt,
    EncounterOpt,
    JsonOpt,
    LangOpt,
    SetOpt,
    TacticOpt,
    check_numbers,
)
from sevendag_cli.output import check_table_options, make_output, note
from sevendag_cli.render.whatif import print_changes

app = typer.Typer()

ToleranceOpt = Annotated[
    float | None,
    typer.Option("--tolerance", help="Most probability left unresolved (default 1e-12)."),
]


@app.command("odds", cls=SevendagCommand)
def odds_cmd(
    encounter: EncounterOpt = DEFAULT_ENCOUNTER,
    cap: EncounterCapOpt = None,
    tolerance: ToleranceOpt = None,
    set_: SetOpt = None,
    tactic: TacticOpt = None,
    json_: JsonOpt = False,
    csv_: CsvOpt = False,
    lang: LangOpt = None,
) -> None:
    """Show each fighter's chance to win from where the encounter stands, without changing it.

    The odds assume each fighter keeps the sheet's tactic from now on (no yield, no new
    technique) and that a fight still going at the round cap is a draw; --tactic
    FIGHTER=optimal has that fighter declare its best each round instead.

    Example: sevendag odds  ·  sevendag odds --json --tolerance 1e-9
    ·  sevendag odds --set Ysolde.attack=9 --tactic Brannoc=full-defence  ·  sevendag odds --csv
    ·  sevendag odds --tactic Brannoc=optimal
    """
    with handled(lang):
        from sevendag_cli.commands.table import busy_note
        from sevendag_cli.encounter import Encounter
        from sevendag_cli.rules.whatif import WhatIf
        from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, check_tolerance

        out = make_output(json_, False, lang, jsonl_allowed=False)
        check_table_options(out, csv_, None)
        check_numbers(cap, None, None)
        check_tolerance(DEFAULT_TOLERANCE if tolerance is None else tolerance)
        WhatIf.parse(set_, tactic)
        at = Encounter(encounter).odds(cap=cap, tolerance=tolerance, set=set_, tactic=tactic)
        busy_note(at.busy, encounter, out.lang)
        for message in at.notes:
            note(f"sevendag: {message.render(out.lang)}")
        changes = at.changes
        if out.json:
            out.data(at.to_dict(out.lang))
            return
        if csv_:
            from sevendag_cli.render.csv_out import write_csv
            from sevendag_cli.render.odds_out import ODDS_CSV_COLUMNS, odds_rows

            write_csv(ODDS_CSV_COLUMNS, odds_rows(at.moment))
            return
        from sevendag_cli.render.rich_odds import odds_display

        console = out.console()
        print_changes(console, changes, out.lang)
        odds_display(console, out.lang, at.ruleset, at.state, str(encounter), at.odds, at.moment,
                     at.cap, at.tolerance, at.policies, at.fighters)
