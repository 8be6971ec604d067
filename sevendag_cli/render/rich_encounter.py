"""Rich display of the saved encounter: ``status`` (where the fight stands) and ``log`` (its steps).

``log`` shows each step with the very display it had when it was played
(the initiative and states of ``init``, a ``round``, a ``wound``'s events and
states), each judgement under a title; a step an older sevendag played without
recording its dice shows what is known of it.  Reads records only.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from sevendag_cli.i18n import label
from sevendag_cli.render.layout import print_rows, print_wrapped
from sevendag_cli.render.rich_base import rules_text
from sevendag_cli.render.rich_render import RichRenderer
from sevendag_cli.text import visible

# --- status ------------------------------------------------------------------------------------


def status(r: RichRenderer, state: Any, sheets: dict[str, Any], encounter: str) -> None:
    """The encounter as the table needs it: who attacks, every fighter's track, over or not."""
    rs = r.ruleset
    print_wrapped(r.c, Text(r.tr("status.title", path=visible(encounter), ruleset=label(rs.label, r.lang)),
                            "bold underline"))
    display = r.display
    if state.round == 0:
        played = r.tr("status.no_round")
    else:
        played = r.tr("status.rounds", n=state.round)
        if display.elapsed is not None:
            played += display.elapsed(r, state.round)
    r.line(played)
    if not state.over:
        key, names, style, rules = display.who_attacks(state)
        r.line(Text(r.tr(key, **{k: visible(v) for k, v in names.items()}), style), rules_text(rules))
    rows: list[tuple[Text, Text]] = []
    for s in state.fighters:
        rows += display.status_rows(r, Text(visible(s.name), "bold"), s, sheets.get(s.name))
    print_rows(r.c, rows)
    if state.over:
        who = (r.tr("winner", name=visible(state.winner)) if state.winner is not None
               else r.tr("draw", n=rs.round_cap if rs.round_cap is not None else state.round))
        r.line(Text(r.tr("status.over", who=who), "bold green" if state.winner else "bold yellow"))
    else:
        r.line(Text(r.tr("status.in_progress", n=state.round + 1), "bold"))


# --- log ------------------------------------------------------------------------------------------


def log(r: RichRenderer, steps: list[Any]) -> None:
    """Every step as it was shown when played, a blank line between steps."""
    for i, step in enumerate(steps):
        if i:
            r.c.print()
        if step.kind == "init":
            if step.initiative is not None:
                r.initiative(step.initiative)
            else:
                r.c.print(Text(r.tr("initiative"), "bold underline"))
                r.line(Text(r.tr(r.display.leader_key, name=visible(step.leader)), "bold magenta"))
                _not_replayed(r)
            r.states(step.states)
        elif step.kind == "round":
            if step.result is not None:
                r.round(step.result)
            else:
                r.c.print(Text(r.tr("round", n=step.round), "bold underline"))
                _not_replayed(r)
                r.states(step.states)
        else:
            title = "log.heal" if _healed(step) else "log.wound"
            r.c.print(Text(r.tr(title, name=visible(step.fighter)), "bold underline"))
            r.wound(step.result)


def _healed(step: Any) -> bool:
    return step.kind == "heal" or (step.amount is not None and step.amount < 0)


def _not_replayed(r: RichRenderer) -> None:
    r.line(Text(r.tr("log.not_replayed"), "dim italic"))
