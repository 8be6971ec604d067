"""Rich display of Le combat (d20) events: the attack, the save, the damage, hit points.

Each check names its parts as the game master reads them: ``attack: d20 8 + BBA 3
+ STR +1 + type 0 = 12 against AC 5 → hit``, ``− VIG (d10 3 + CON +0 = 3)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text

from sevendag_cli.render.layout import GLUE, glued
from sevendag_cli.render.rich_base import (
    Display,
    Handler,
    RulesetDisplay,
    WhoAttacks,
    check_text,
    rules_text,
)
from sevendag_cli.text import visible


def arrow(verdict: Text) -> Text:
    """`` → hit``: the arrow and the verdict stay on one line."""
    verdict.plain = glued(verdict.plain)
    return Text.assemble(f" →{GLUE}", verdict)


def attack(r: Display, ev: Any) -> None:
    r.line(Text(r.tr("attacks", a=ev.attacker, d=ev.defender), "bold magenta"))
    verdict = Text(r.tr("hit") if ev.hit else r.tr("miss"),
                   "bold green" if ev.hit else "bold red")
    parts: list[Text | str] = [f"{r.tr('attack')}{r.tr('colon')}", check_text(ev.roll, r.lang), " ",
                               glued(r.tr("vs_ac", ac=ev.ac)), arrow(verdict)]
    if ev.reason == "natural-hit":
        parts += [" (", Text(glued(r.tr("natural_hit", n=ev.roll.natural)), "green"), ")"]
    elif ev.reason == "natural-miss":
        parts += [" (", Text(glued(r.tr("natural_miss", n=ev.roll.natural)), "red"), ")"]
    if ev.critical:
        parts += [" · ", Text(glued(r.tr("critical_hit")), "bold green")]
    r.line(*parts, rules_text(ev.rules))


def save(r: Display, ev: Any) -> None:
    parts: list[Text | str] = [f"{r.tr('save')} {visible(ev.defender)}{r.tr('colon')}", check_text(ev.roll, r.lang)]
    if ev.reason == "natural-success":
        parts.append(arrow(Text(r.tr("natural_save", n=ev.roll.natural), "bold green")))
    elif ev.reason == "natural-failure":
        parts.append(arrow(Text(r.tr("natural_save_fail", n=ev.roll.natural), "bold red")))
    else:
        sign = ">" if ev.reason == "beats-dd" else "≤"
        if ev.dd is not None:
            parts += [f" {sign}{GLUE}{r.tr('dd')} {visible(ev.attacker)}{r.tr('colon')}", check_text(ev.dd, r.lang)]
        else:
            parts += [f" {sign}{GLUE}", r.tr("dd_table", dd=ev.dd_total)]
        key = {"dodged": "dodged", "halved": "halved", "failed": "failed"}[ev.outcome]
        style = "green" if ev.outcome != "failed" else "red"
        parts.append(arrow(Text(r.tr(key), f"bold {style}")))
    r.line(*parts, rules_text(ev.rules))


def weapon_name(r: Display, ev: Any) -> str:
    """The attacker's weapon by its name in the language when the sheet is known."""
    from sevendag_cli.d20.rules import unarmed

    sheet = r.sheets.get(ev.attacker)
    if sheet is not None:
        weapon = sheet.weapon or unarmed(r.ruleset)
        if weapon.name == ev.weapon:
            return visible(weapon.label_in(r.lang))
    return visible(ev.weapon)


def damage(r: Display, ev: Any) -> None:
    parts: list[Text | str] = [f"{r.tr('damage')}, {weapon_name(r, ev)}{r.tr('colon')}"]
    for i, s in enumerate(ev.sets):
        if i:
            parts.append(f" +{GLUE}")
        parts.append(Text("(") + check_text(s, r.lang) + Text(")"))
    parts += [f" −{GLUE}VIG{GLUE}(", check_text(ev.vig, r.lang), ")",
              arrow(Text(str(ev.physical), "bold"))]
    r.line(*parts)
    if ev.magic is not None and ev.vol is not None:
        r.line(f"{r.tr('magic')}{r.tr('colon')}(", check_text(ev.magic, r.lang), f") −{GLUE}VOL{GLUE}(",
               check_text(ev.vol, r.lang), ")", arrow(Text(str(ev.magic_damage), "bold")))
    notes: list[Text | str] = []
    if ev.halved:
        notes += [" · ", Text(r.tr("halved"), "green")]
    if ev.minimum_applied:
        notes += [" · ", Text(r.tr("minimum"), "yellow")]
    r.line(Text(f"{r.tr('damage')} ={GLUE}", "bold"), Text(str(ev.total), "bold red"), *notes,
           rules_text(ev.rules))


def hp(r: Display, ev: Any) -> None:
    style = "bold red" if ev.after <= 0 else ("bold green" if ev.after > ev.before else "bold yellow")
    r.line(Text(f"{visible(ev.fighter)}{r.tr('colon')}", "bold"), f"{ev.before} →{GLUE}",
           Text(f"{ev.after}{GLUE}{r.tr('hp')}", style), rules_text(ev.rules))
    if ev.defeated:
        r.line(Text(r.tr("defeated", name=ev.fighter), "bold red"))


def handlers(r: Display) -> dict[str, Handler]:
    return {
        "attack": lambda ev: attack(r, ev),
        "save": lambda ev: save(r, ev),
        "damage": lambda ev: damage(r, ev),
        "hp": lambda ev: hp(r, ev),
    }


def state_text(r: Display, s: Any) -> Text:
    ratio = s.hp / s.max_hp if s.max_hp else 0
    style = "green" if ratio > 0.5 else ("yellow" if ratio > 0.25 else "red")
    out = Text.assemble((f"{s.hp}", f"bold {style}"), f"/{s.max_hp}{GLUE}{r.tr('hp')}")
    if s.hp <= 0:
        out.append(f"  {glued(r.tr('defeated', name=s.name))}", "bold red")
    return out


def who_attacks(state: Any) -> WhoAttacks:
    """Who attacks next: the one ``init`` rolled for round 1, else each round rolls (D-02)."""
    if state.next_attacker is not None:
        return "status.next", {"name": state.next_attacker}, "bold magenta", ("D-02",)
    return "status.initiative_each", {}, "magenta", ("D-02",)


def status_rows(r: Any, name: Text, s: Any, sheet: Any) -> list[tuple[Text, Text]]:
    """A fighter's hit points (and defeated)."""
    hp = Text(r.tr("status.hp", hp=s.hp, max=s.max_hp), "bold red" if s.defeated else "bold")
    if s.defeated:
        hp.append(f"  {r.tr('defeated', name=visible(s.name))}", "bold red")
    return [(name, hp)]


def extras_table(console: Any, fighters: Sequence[Any], extras: Any, lang: str,
                 ruleset: Any) -> None:
    """``--runs``, ``--exact``: each fighter's hit points left when winning, and damage dealt."""
    from sevendag_cli.i18n import number
    from sevendag_cli.render.rich_sim import sim_table, w

    rows: list[list[Text | str]] = [
        [Text(visible(f.name), "bold"),
         w(lang, "mean_sd", mean=ex.hp_left_when_winning.mean, sd=ex.hp_left_when_winning.sd),
         number(ex.damage_dealt, ".1f", lang)] for f, ex in zip(fighters, extras.fighters, strict=True)]
    console.print(sim_table([w(lang, "fighter"), w(lang, "hp"), w(lang, "dealt")], rows))


DISPLAY = RulesetDisplay(handlers, state_text, leader_key="leads", who_attacks=who_attacks,
                         status_rows=status_rows, extras_table=extras_table)
