"""``status``: the saved encounter as the table needs it, read only.

The ruleset and round, who attacks (Sevendag: the assaillant; d20: who
attacks next when ``init`` rolled it), each fighter's hit points or wounds
with the penalty, dropped weapons and techniques with their rounds left,
granted criticals, and whether the fight is over and who won.  It reads the
encounter under a shared lock (:func:`sevendag_cli.commands.table.open_read_only`)
and changes nothing.
"""

from __future__ import annotations

import typer

from sevendag_cli.commandline import SevendagCommand
from sevendag_cli.failure import handled
from sevendag_cli.options import DEFAULT_ENCOUNTER, EncounterOpt, JsonOpt, LangOpt
from sevendag_cli.output import make_output, renderer

app = typer.Typer()


@app.command("status", cls=SevendagCommand)
def status_cmd(
    encounter: EncounterOpt = DEFAULT_ENCOUNTER,
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Show where the encounter stands, without changing it: round, who attacks, each fighter.

    Example: sevendag status --encounter duel.json
    """
    with handled(lang):
        from sevendag_cli.commands.table import open_read_only

        out = make_output(json_, False, lang, jsonl_allowed=False)
        enc, rs, a, b, state = open_read_only(encounter, out.lang)
        if out.json:
            from sevendag_cli.render.data import status_document

            out.data(status_document(state, rs, str(encounter), enc.log))
            return
        from sevendag_cli.render.rich_encounter import status

        status(renderer(out, rs), state, {a.name: a, b.name: b}, str(encounter))
