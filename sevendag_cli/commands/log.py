"""``log``: the encounter's history, step by step, as each step was shown when played; read only.

Each step (``init``, every ``round``, wounds and heals by hand) is played
again through the engine from what the encounter recorded (its dice and
choices: :mod:`sevendag_cli.history`), so the display and the JSON are the
very ones of the step; a replay that does not give the saved state means a
damaged file.  ``--json`` gives one document, ``--jsonl`` one line per event
(the lines of ``round --jsonl``).  It reads the encounter under a shared lock
and changes nothing.
"""

from __future__ import annotations

import typer

from sevendag_cli.commandline import SevendagCommand
from sevendag_cli.failure import handled
from sevendag_cli.options import DEFAULT_ENCOUNTER, EncounterOpt, JsonlOpt, JsonOpt, LangOpt
from sevendag_cli.output import make_output, renderer

app = typer.Typer()


@app.command("log", cls=SevendagCommand)
def log_cmd(
    encounter: EncounterOpt = DEFAULT_ENCOUNTER,
    json_: JsonOpt = False,
    jsonl: JsonlOpt = False,
    lang: LangOpt = None,
) -> None:
    """Replay the encounter's history round by round, as it was shown, without changing it.

    Example: sevendag log  ·  sevendag log --jsonl | jq -c 'select(.type == "wound")'
    """
    with handled(lang):
        from sevendag_cli.commands.table import busy_note
        from sevendag_cli.encounter import Encounter

        out = make_output(json_, jsonl, lang)
        log = Encounter(encounter).log()
        busy_note(log.busy, encounter, out.lang)
        if out.json:
            out.data(log.to_dict())
        elif out.jsonl:
            out.lines(log.events())
        else:
            from sevendag_cli.render.rich_encounter import log as show

            show(renderer(out, log.ruleset, log.fighters), list(log.steps))
