"""``advise``: every option of the fighter who declares now, with its chance to win; read only.

Like ``odds`` it reads the encounter under a shared lock and changes nothing
(:meth:`sevendag_cli.encounter.Encounter.advise`); the game is solved by
:mod:`sevendag_cli.sevendag.game`, once per pair over the whole fight, and kept in the user's
cache (:mod:`sevendag_cli.sevendag.game_cache`): later states are a look-up.
"""

from __future__ import annotations

from typing import Annotated

import typer

from sevendag_cli.commandline import SevendagCommand
from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.failure import handled
from sevendag_cli.options import (
    DEFAULT_ENCOUNTER,
    EncounterCapOpt,
    EncounterOpt,
    JsonOpt,
    LangOpt,
    check_numbers,
)
from sevendag_cli.output import make_output

app = typer.Typer()

AfterOpt = Annotated[
    str | None,
    typer.Option("--after", help="What the assailant declared, for the defender's advice: "
                 "'yield=no;allocation=attack,attack;technique=feint'."),
]
TopOpt = Annotated[
    int | None,
    typer.Option("--top", help="Show only the N best lines (with --json: the N best options).",
                 metavar="N"),
]
ToleranceOpt = Annotated[
    float | None,
    typer.Option("--tolerance", help="Widest interval of each option's chance (default 1e-6)."),
]


@app.command("advise", cls=SevendagCommand)
def advise_cmd(
    encounter: EncounterOpt = DEFAULT_ENCOUNTER,
    after: AfterOpt = None,
    cap: EncounterCapOpt = None,
    tolerance: ToleranceOpt = None,
    top: TopOpt = None,
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Show every option of the Sevendag fighter who declares now, with its chance to win.

    Each option (yield or not, allocation, technique if one is free) comes with the chance
    to win if taken, both fighters playing optimally afterwards and the opponent answering
    optimally, and the opponent's best answer. Options that change neither the chance nor
    the answer share a line. Reads the encounter, changes nothing.

    Example: sevendag advise --top 5  ·  sevendag advise --after 'yield=no;allocation=attack,defence'
    """
    with handled(lang):
        from sevendag_cli.commands.table import busy_note
        from sevendag_cli.encounter import Encounter
        from sevendag_cli.sim.odds import check_tolerance

        out = make_output(json_, False, lang, jsonl_allowed=False)
        check_numbers(cap, None, None)
        if top is not None and top < 1:
            raise UsageError(Msg("advise.top", value=top))
        if tolerance is not None:
            check_tolerance(tolerance)
        at = Encounter(encounter).advise(after=after, cap=cap, tolerance=tolerance)
        busy_note(at.busy, encounter, out.lang)
        if out.json:
            out.data(at.to_dict(out.lang, top=top))
            return
        from sevendag_cli.render.rich_advise import advise_lines

        advise_lines(out.console(), out.lang, at, top=top)
