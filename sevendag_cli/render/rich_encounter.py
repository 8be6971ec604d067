"""Rich display of the saved encounter: ``status`` (where the fight stands) and ``log`` (its steps).

``log`` shows each step with the very display it had when it was played
(the initiative and states of ``init``, a ``round``, a ``wound``'s events and
states), each judgement under a title; a step an older sevendag played without
recording its dice shows what is known of it.  Reads records only.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace
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
    if state.round == 0:
        played = r.tr("status.no_round")
    else:
        played = r.tr("status.rounds", n=state.round)
        if rs.engine == "sevendag":
            played += f" · {r.tr('elapsed', s=state.round * rs.round_seconds, per=rs.round_seconds)}"
    r.line(played)
    if state.over:
        pass
    elif rs.engine == "sevendag":
        r.line(Text(r.tr("status.assaillant", name=visible(state.assaillant),
                         other=visible(state.defenseur)), "bold magenta"), rules_text(("S-02", "S-14")))
    elif state.next_attacker is not None:
        r.line(Text(r.tr("status.next", name=visible(state.next_attacker)), "bold magenta"),
               rules_text(("D-02",)))
    else:
        r.line(Text(r.tr("status.initiative_each"), "magenta"), rules_text(("D-02",)))
    rows: list[tuple[Text, Text]] = []
    for s in state.fighters:
        name = Text(visible(s.name), "bold")
        if rs.engine == "sevendag":  # the wounds as everywhere, then what has rounds left
            rows.append((name, r.state_text(replace(s, technique=None, dropped=(), granted_crit=False))))
            rows += [(Text(""), detail) for detail in _sevendag_details(r, s, sheets.get(s.name))]
        else:
            hp = Text(r.tr("status.hp", hp=s.hp, max=s.max_hp), "bold red" if s.defeated else "bold")
            if s.defeated:
                hp.append(f"  {r.tr('defeated', name=visible(s.name))}", "bold red")
            rows.append((name, hp))
    print_rows(r.c, rows)
    if state.over:
        who = (r.tr("winner", name=visible(state.winner)) if state.winner is not None
               else r.tr("draw", n=rs.round_cap))
        r.line(Text(r.tr("status.over", who=who), "bold green" if state.winner else "bold yellow"))
    else:
        r.line(Text(r.tr("status.in_progress", n=state.round + 1), "bold"))


def _sevendag_details(r: RichRenderer, s: Any, sheet: Any) -> list[Text]:
    """What has rounds left (a technique, a dropped weapon) and a critical held, one line each."""
    out: list[Text] = []
    if s.technique is not None:
        tech = r.ruleset.techniques.get(s.technique.name)
        name = label(tech.label, r.lang) if tech else visible(s.technique.name)
        out.append(Text(r.tr("status.technique", technique=name, n=s.technique.rounds_left),
                        "magenta"))
    for d in s.dropped:
        item = sheet.items.get(d.item) if sheet is not None else None
        what = visible(item.label_in(r.lang)) if item is not None else visible(d.item)
        out.append(Text(r.tr("status.dropped", item=what, n=d.rounds_left), "red"))
    if s.granted_crit:
        out.append(Text(r.tr("status.granted"), "green"))
    return out


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
