"""Rich display of Sevendag events (allocation, exchanges, drops, wounds, reversals).

A yield is said before the roles it swaps (``round_intro``); each hand's
commitment (``d8 steel greatsword → attack``) and each part of a total
(``+ 3 (technique)``) stays on one line when the display wraps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text

from sevendag_cli.i18n import label, t
from sevendag_cli.render.layout import GLUE, glued
from sevendag_cli.render.rich_base import (
    BAND_STYLES,
    Display,
    Handler,
    RulesetDisplay,
    WhoAttacks,
    face,
    rules_text,
)
from sevendag_cli.text import visible


def w(r: Display, key: str) -> str:
    return t(f"sev.{key}", r.lang)


def band_text(r: Display, band: str | None) -> Text:
    if band is None:
        return Text("")
    found = r.ruleset.band_named(band)
    name = label(found.label, r.lang) if found else band
    return Text(glued(visible(name)), BAND_STYLES.get(band, "bold red"))


def item_label(r: Display, fighter: str, key: str | None, shown: str | None) -> str:
    """What a fighter holds, by its label in the language when the sheet is known (else the
    label the event carries, else the key)."""
    sheet = r.sheets.get(fighter)
    item = sheet.items.get(key) if sheet is not None and key is not None else None
    if item is not None:
        return visible(item.label_in(r.lang))
    return visible(shown or key or "")


def technique_name(r: Display, key: str | None) -> str:
    """A technique by its label in the language (its key if the ruleset has no such technique)."""
    if key is None:
        return r.tr("technique")
    tech = r.ruleset.techniques.get(key)
    return visible(label(tech.label, r.lang) if tech else key)


def total_text(r: Display, side: str, constant: int, rolls: Any, modifier: int,
               technique: str | None, penalty: int, total: int) -> Text:
    """``attack 8 + d10 5 + feint 3 − wounds 1 = 15``: every number named (S-06, S-05, S-19)."""
    out = Text(f"{w(r, side)}{GLUE}{constant}")
    for roll in rolls:
        out.append(f" +{GLUE}")
        out.append_text(face(roll))
    if modifier:
        sign = "+" if modifier > 0 else "−"
        out.append(f" {sign}{GLUE}{glued(technique_name(r, technique))}{GLUE}{abs(modifier)}")
    if penalty:
        out.append(f" −{GLUE}{w(r, 'wounds')}{GLUE}{penalty}")
    out.append(f" ={GLUE}")
    out.append(str(total), "bold cyan")
    return out


def modifiers_text(r: Display, attack: int, defence: int) -> str:
    """``(attack +3, defence -2)``: a technique's effect on each constant, named (S-05)."""
    parts = [f"{w(r, 'attack')}{GLUE}{attack:+d}" if attack else "",
             f"{w(r, 'defence')}{GLUE}{defence:+d}" if defence else ""]
    shown = ", ".join(p for p in parts if p)
    return f"{GLUE}({shown})" if shown else ""


def allocation(r: Display, ev: Any) -> None:
    parts: list[Text | str] = [Text(visible(ev.fighter), "bold"), f" ({w(r, ev.role)}){r.tr('colon')}"]
    for i, h in enumerate(ev.hands):
        if i:
            parts.append(", ")
        what = item_label(r, ev.fighter, h.holds, h.label) if h.holds else w(r, "empty")
        commit = w(r, "recovering") if h.recovering else w(r, h.commitment)
        style = {"attack": "red", "defence": "blue"}.get(h.commitment, "dim")
        parts += [glued(f"d{h.die} {what} → "), Text(glued(commit), style)]
    if ev.technique:
        tech = r.ruleset.techniques.get(ev.technique)
        name = visible(label(tech.label, r.lang) if tech else ev.technique)
        parts += [" · ", Text(glued(f"{r.tr('technique')}{r.tr('colon')}{name}"), "magenta"),
                  modifiers_text(r, ev.attack_modifier, ev.defence_modifier)]
    r.line(*parts, rules_text(ev.rules))


def round_intro(r: Display, events: Sequence[Any]) -> None:
    """S-03: a yield is said first, then the roles it swapped for the round."""
    for ev in events:
        if getattr(ev, "kind", None) == "allocation" and ev.yielded:
            r.line(Text(r.tr("yields", name=ev.fighter), "yellow"), rules_text(("S-03",)))


def sheet_rule(r: Display, ev: Any) -> None:
    """S-03/S-05: a yield or a technique the sheet's rule chose (the players left it open)."""
    if ev.choice == "yield":
        text = r.tr(f"sheet_yield.{ev.rule}", name=ev.fighter, p=-ev.penalty, q=-ev.opponent_penalty)
    else:
        text = r.tr(f"sheet_tech.{ev.rule}", name=ev.fighter,
                    technique=technique_name(r, ev.technique))
    r.line("  ", Text(text, "dim"), rules_text(ev.rules))


def exchange(r: Display, ev: Any) -> None:
    r.line(Text(r.tr("attacks", a=ev.attacker, d=ev.defender), "bold magenta"),
           Text(f"{GLUE}{GLUE}({w(r, 'exchange')}{GLUE}{ev.number})", "dim"))
    if ev.outcome == "no-attack":
        r.line("  ", Text(r.tr("no_attack", a=ev.attacker), "dim"), rules_text(ev.rules))
        return
    if ev.attack_total is not None:
        r.line(f"  {r.tr('attack')}{r.tr('colon')}",
               total_text(r, "attack", ev.attack_constant, ev.attack_rolls, ev.attack_modifier,
                          ev.attack_technique, ev.attack_penalty, ev.attack_total))
    if ev.defence_total is not None:
        r.line(f"  {r.tr('defence')}{r.tr('colon')}",
               total_text(r, "defence", ev.defence_constant, ev.defence_rolls, ev.defence_modifier,
                          ev.defence_technique, ev.defence_penalty, ev.defence_total))
    notes: list[Text | str] = []
    if ev.critical == "devastating":
        notes.append(Text(r.tr("devastating"), "bold green"))
    elif ev.critical == "critical":
        notes.append(Text(r.tr("critical_hit"), "bold green"))
    if ev.granted_critical:
        notes.append(Text(w(r, "granted"), "green"))
    for m in ev.metals:
        metal = r.ruleset.metals.get(m.metal)
        name = visible(label(metal.label, r.lang) if metal else m.metal)
        text = visible(label(metal.text, r.lang) if metal else "")
        times = f"{GLUE}×{m.times}" if m.times > 1 else ""
        notes.append(Text(f"{glued(name)}{times}{r.tr('colon')}{text}", "green"))
    for n in notes:
        r.line("  ", n)
    outcome = ev.outcome
    if outcome == "critical-failure":
        verdict = Text(glued(r.tr("critical_failure")), "bold red")
    elif outcome == "failed":
        verdict = Text(glued(r.tr("failure")), "red")
    elif outcome == "shield-foiled":
        verdict = Text(glued(r.tr("shield_foiled")), "bold blue")
    elif outcome == "foiled":
        verdict = Text(f"{r.tr('foiled')} ({w(r, 'margin')}{GLUE}{ev.margin})", "blue")
    else:
        dmg = Text(f"{r.tr('damage')}{GLUE}{ev.damage}", "bold red")
        if ev.extra_damage:  # S-17: the margin and the metal's extra damage, each named
            dmg = Text(f"{r.tr('damage')}{GLUE}{w(r, 'margin')}{GLUE}{ev.margin} +{GLUE}"
                       f"{w(r, 'metal')}{GLUE}{ev.extra_damage} ={GLUE}{ev.damage}", "bold red")
        verdict = Text.assemble(dmg, f" →{GLUE}", band_text(r, ev.final_band))
        if ev.band_shift and ev.band != ev.final_band:
            verdict.append(" (")
            verdict.append_text(band_text(r, ev.band))
            verdict.append(f"{GLUE}{glued(r.tr('band_shift' if ev.band_shift != 1 else 'band_shift_one', n=ev.band_shift))})")
    r.line(f"  →{GLUE}", verdict, rules_text(ev.rules))
    if ev.initiative is not None:  # S-14: the initiative passes, or stays with the defender
        key = "critical_defence" if ev.initiative == "passes" else "critical_defence_kept"
        r.line("  ", Text(r.tr(key, name=ev.defender), "bold green"), rules_text(("S-14",)))


def drop(r: Display, ev: Any) -> None:
    item = item_label(r, ev.fighter, ev.item, ev.label)
    verdict = (Text(r.tr("dropped", name=ev.fighter, item=item), "bold red") if ev.dropped
               else Text(r.tr("kept", name=ev.fighter, item=item), "green"))
    r.line(f"  {r.tr('drop_check')}{r.tr('colon')}", face(ev.roll),
           f" {'>' if ev.dropped else '≤'}{GLUE}{w(r, 'skill')}{GLUE}{ev.skill} →{GLUE}", verdict,
           rules_text(ev.rules))


def granted(r: Display, ev: Any) -> None:
    r.line("  ", Text(f"{visible(ev.fighter)}{r.tr('colon')}{r.tr('granted_crit')} ({visible(ev.by)})", "green"),
           rules_text(ev.rules))


def wound(r: Display, ev: Any) -> None:
    text = Text.assemble((visible(ev.fighter), "bold"), f" ←{GLUE}", band_text(r, ev.band))
    if ev.penalty:
        text.append(f"  ({glued(r.tr('penalty', p=-ev.penalty))})", "yellow")
    r.line(text, rules_text(ev.rules))
    if ev.out:
        r.line(Text(r.tr("out", name=ev.fighter), "bold red"))


def heal(r: Display, ev: Any) -> None:
    text = Text.assemble((r.tr("healed", name=ev.fighter), "bold green"), band_text(r, ev.band))
    if ev.penalty:
        text.append(f"  ({r.tr('penalty', p=-ev.penalty)})", "yellow")
    r.line(text, rules_text(ev.rules))
    if ev.reopened:
        r.line(Text(r.tr("back_in", name=ev.fighter), "bold green"))


def reversed_(r: Display, ev: Any) -> None:
    r.line(Text(r.tr("assaillant", name=ev.assaillant), "bold magenta"), rules_text(ev.rules))


def recovered(r: Display, ev: Any) -> None:
    r.line(Text(r.tr("recovered", name=ev.fighter, item=item_label(r, ev.fighter, ev.item, ev.label)),
                "green"),
           rules_text(ev.rules))


def handlers(r: Display) -> dict[str, Handler]:
    return {
        "sheet-rule": lambda ev: sheet_rule(r, ev),
        "allocation": lambda ev: allocation(r, ev),
        "exchange": lambda ev: exchange(r, ev),
        "drop": lambda ev: drop(r, ev),
        "critical-granted": lambda ev: granted(r, ev),
        "wound": lambda ev: wound(r, ev),
        "heal": lambda ev: heal(r, ev),
        "initiative-reversed": lambda ev: reversed_(r, ev),
        "recovered": lambda ev: recovered(r, ev),
    }


def state_text(r: Display, s: Any) -> Text:
    out = Text()
    if not s.wounds:
        out.append(r.tr("healthy"), "green")
    else:  # counts per band, in the ruleset's order: "light wound ×3, serious wound"
        order = [b.name for b in r.ruleset.wounds]
        bands = sorted(set(s.wounds), key=lambda b: order.index(b) if b in order else len(order))
        for i, band in enumerate(bands):
            if i:
                out.append(", ")
            out.append_text(band_text(r, band))
            count = s.wounds.count(band)
            if count > 1:
                out.append(f"{GLUE}×{count}")
    if s.penalty:
        out.append(f"  {glued(r.tr('penalty', p=-s.penalty))}", "yellow")
    if s.technique is not None:
        tech = r.ruleset.techniques.get(s.technique.name)
        name = visible(label(tech.label, r.lang) if tech else s.technique.name)
        technique = f"{r.tr('technique')}{r.tr('colon')}{name} ({s.technique.rounds_left})"
        out.append(f"  {glued(technique)}", "magenta")
    for d in s.dropped:  # the item's label from the sheet, its key only if the sheet is unknown
        what = item_label(r, s.name, d.item, None)
        out.append(f"  {glued(r.tr('on_ground', item=what))}", "red")
    if s.granted_crit:
        out.append(f"  {glued(r.tr('granted_crit'))}", "green")
    if s.out:
        out.append(f"  {glued(r.tr('out', name=s.name))}", "bold red")
    return out


def who_attacks(state: Any) -> WhoAttacks:
    """The assaillant (S-02, and S-14 when a critical defence reversed it)."""
    return ("status.assaillant", {"name": state.assaillant, "other": state.defenseur},
            "bold magenta", ("S-02", "S-14"))


def elapsed(r: Any, rounds: int) -> str:
    """`` · 30 s`` of game time: each round lasts ``round_seconds``."""
    rs = r.ruleset
    return f" · {r.tr('elapsed', s=rounds * rs.round_seconds, per=rs.round_seconds)}"


def status_rows(r: Any, name: Text, s: Any, sheet: Any) -> list[tuple[Text, Text]]:
    """The wounds as everywhere, then what has rounds left, one line each."""
    from msgspec.structs import replace

    rows = [(name, r.state_text(replace(s, technique=None, dropped=(), granted_crit=False)))]
    return rows + [(Text(""), detail) for detail in _details(r, s, sheet)]


def _details(r: Any, s: Any, sheet: Any) -> list[Text]:
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



def extras_table(console: Any, fighters: Sequence[Any], extras: Any, lang: str,
                 ruleset: Any) -> None:
    """``--runs``, ``--exact``: the wounds per band, one column per fighter (so no band name
    is split)."""
    from sevendag_cli.i18n import number
    from sevendag_cli.render.rich_sim import sim_table
    from sevendag_cli.render.rich_sim import w as sim_word

    per_fighter = [{b.band: b.mean for b in ex.wounds} for ex in extras.fighters]
    rows: list[list[Text | str]] = []
    for name in (list(per_fighter[0]) if per_fighter else []):
        band = ruleset.band_named(name) if hasattr(ruleset, "band_named") else None
        rows.append([visible(label(band.label, lang) if band else name),
                     *(number(means.get(name, 0.0), ".2f", lang) for means in per_fighter)])
    headers = [sim_word(lang, "wounds"), *(visible(f.name) for f in fighters)]
    console.print(sim_table(headers, rows))


DISPLAY = RulesetDisplay(handlers, state_text, leader_key="assaillant", who_attacks=who_attacks,
                         status_rows=status_rows, round_intro=round_intro, elapsed=elapsed,
                         extras_table=extras_table)
