"""``status``: the saved encounter as the table needs it, read only.

The ruleset and round, who attacks (Sevendag: the assaillant; d20: who
attacks next when ``init`` rolled it), each fighter's hit points or wounds
with the penalty, dropped weapons and techniques with their rounds left,
granted criticals, and whether the fight is over and who won.  It reads the
encounter under a shared lock (:meth:`sevendag_cli.encounter.Encounter.status`)
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
        from sevendag_cli.commands.table import busy_note
        from sevendag_cli.encounter import Encounter

        out = make_output(json_, False, lang, jsonl_allowed=False)
        status = Encounter(encounter).status()
        busy_note(status.busy, encounter, out.lang)
        if out.json:
            out.data(status.to_dict())
            return
        from sevendag_cli.render.rich_encounter import status as show

        loaded = status.loaded
        show(renderer(out, loaded.ruleset), loaded.state, {loaded.a.name: loaded.a, loaded.b.name: loaded.b},
             str(encounter))
