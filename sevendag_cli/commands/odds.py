"""``odds``: each fighter's chance to win from where the saved encounter stands; read only.

It reads the encounter as ``status`` does (a shared lock, nothing written or made:
:func:`sevendag_cli.commands.table.open_read_only`) and asks the exact solver
(:mod:`sevendag_cli.sim.moment`) for the odds of the saved state: hit points, or wounds
and penalties, dropped weapons and their rounds left, granted criticals, techniques in
effect, the assaillant, and the round (for the cap).  It uses the solver's work kept in
the user's cache for this very pair (:mod:`sevendag_cli.table_odds`) when ``round --odds``
or ``init --odds`` built it; without it, it computes (and keeps nothing: it only reads).
Solver work an encounter file carries is never used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.failure import handled
from sevendag_cli.options import (
    DEFAULT_ENCOUNTER,
    CsvOpt,
    EncounterOpt,
    JsonOpt,
    LangOpt,
    SetOpt,
    TacticOpt,
    check_numbers,
)
from sevendag_cli.output import Output, check_table_options, make_output, what_if_notes
from sevendag_cli.render.whatif import print_changes, with_changes

if TYPE_CHECKING:
    from sevendag_cli.rules import Fighter, Ruleset
    from sevendag_cli.rules.whatif import Change, WhatIf
    from sevendag_cli.store import Encounter

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
    set_: SetOpt = None,
    tactic: TacticOpt = None,
    json_: JsonOpt = False,
    csv_: CsvOpt = False,
    lang: LangOpt = None,
) -> None:
    """Show each fighter's chance to win from where the encounter stands, without changing it.

    The odds assume each fighter keeps the sheet's tactic from now on (no yield, no new
    technique) and that a fight still going at the round cap is a draw.

    Example: sevendag odds  ·  sevendag odds --json --tolerance 1e-9
    ·  sevendag odds --set Ysolde.attack=9 --tactic Brannoc=all-out  ·  sevendag odds --csv
    """
    with handled(lang):
        from sevendag_cli.commands.table import open_read_only
        from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, check_tolerance
        from sevendag_cli.sim.swing import point
        from sevendag_cli.table_odds import solver_for

        out = make_output(json_, False, lang, jsonl_allowed=False)
        check_table_options(out, csv_, None)
        check_numbers(cap, None, None)
        tol = check_tolerance(DEFAULT_TOLERANCE if tolerance is None else tolerance)
        from sevendag_cli.rules.whatif import WhatIf

        what = WhatIf.parse(set_, tactic)
        enc, rs, a, b, state = open_read_only(encounter, out.lang)
        changes: tuple[Change, ...] = ()
        if what:
            a, b, changes = _what_if(what, enc, rs, (a, b), out)
        # the kept work is keyed by the pair: a changed pair has its own
        solver = solver_for(enc, rs, a, b, cap=cap, tolerance=tol)
        odds = solver(state)
        moment = point(odds, state.round)
        if out.json:
            from sevendag_cli.render.odds_data import odds_document

            doc = odds_document(state, rs, str(encounter), odds, moment, solver.cap, tol, out.lang)
            out.data(with_changes(doc, changes))
            return
        if csv_:
            from sevendag_cli.render.csv_out import write_csv
            from sevendag_cli.render.odds_out import ODDS_CSV_COLUMNS, odds_rows

            write_csv(ODDS_CSV_COLUMNS, odds_rows(moment))
            return
        from sevendag_cli.render.rich_odds import odds_display

        console = out.console()
        print_changes(console, changes, out.lang)
        odds_display(console, out.lang, rs, state, str(encounter), odds, moment, solver.cap, tol)


def _what_if(what: WhatIf, enc: Encounter, rs: Ruleset, fighters: tuple[Fighter, Fighter],
             out: Output) -> tuple[Fighter, Fighter, tuple[Change, ...]]:
    """The encounter's two fighters with the what-ifs applied to its embedded sheets (the file
    is not changed); a change that cannot matter from the saved state is said on stderr."""
    from sevendag_cli.output import note
    from sevendag_cli.rules.whatif import saved_state_notes

    docs = [(fighter.path, dict(entry["data"])) for fighter, entry in zip(fighters, enc.fighters,
                                                                          strict=True)]
    a, b, changes = what.load_pair(rs, docs)
    for change in changes:
        if change.field == "name":  # the saved state names the fighters
            raise UsageError(Msg("whatif.odds_name", name=change.fighter))
    what_if_notes(rs, (a, b), changes, out)
    for message in saved_state_notes(rs, changes):
        note(f"sevendag: {message.render(out.lang)}")
    return a, b, changes
