"""Rich display of Le combat (d20) events: the attack, the save, the damage, hit points."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from sevendag_cli.render.rich_base import Display, Handler, RulesetDisplay, check_text, rules_text


def attack(r: Display, ev: Any) -> None:
    r.line(Text(r.tr("attacks", a=ev.attacker, d=ev.defender), "bold magenta"))
    verdict = Text(r.tr("hit") if ev.hit else r.tr("miss"),
                   "bold green" if ev.hit else "bold red")
    parts: list[Text | str] = [f"{r.tr('attack')}: ", check_text(ev.roll), " ",
                               r.tr("vs_ac", ac=ev.ac), " → ", verdict]
    if ev.reason == "natural-hit":
        parts += [" (", Text(r.tr("natural_hit", n=ev.roll.natural), "green"), ")"]
    elif ev.reason == "natural-miss":
        parts += [" (", Text(r.tr("natural_miss", n=ev.roll.natural), "red"), ")"]
    if ev.critical:
        parts += [" · ", Text(r.tr("critical_hit"), "bold green")]
    r.line(*parts, rules_text(ev.rules))


def save(r: Display, ev: Any) -> None:
    parts: list[Text | str] = [f"{r.tr('save')} {ev.defender}: ", check_text(ev.roll)]
    if ev.reason == "natural-success":
        parts += [" → ", Text(r.tr("natural_save", n=ev.roll.natural), "bold green")]
    elif ev.reason == "natural-failure":
        parts += [" → ", Text(r.tr("natural_save_fail", n=ev.roll.natural), "bold red")]
    else:
        if ev.dd is not None:
            parts += [f" {'>' if ev.reason == 'beats-dd' else '≤'} {r.tr('dd')} {ev.attacker}: ",
                      check_text(ev.dd)]
        else:
            parts += [f" {'>' if ev.reason == 'beats-dd' else '≤'} ",
                      r.tr("dd_table", dd=ev.dd_total)]
        key = {"dodged": "dodged", "halved": "halved", "failed": "failed"}[ev.outcome]
        style = "green" if ev.outcome != "failed" else "red"
        parts += [" → ", Text(r.tr(key), f"bold {style}")]
    r.line(*parts, rules_text(ev.rules))


def damage(r: Display, ev: Any) -> None:
    parts: list[Text | str] = [f"{r.tr('damage')}, {ev.weapon}: "]
    for i, s in enumerate(ev.sets):
        if i:
            parts.append(" + ")
        parts.append(Text("(") + check_text(s) + Text(")"))
    parts += [" − VIG ", check_text(ev.vig), " → ", Text(str(ev.physical), "bold")]
    r.line(*parts)
    if ev.magic is not None and ev.vol is not None:
        r.line(f"{r.tr('magic')}: ", check_text(ev.magic), " − VOL ", check_text(ev.vol),
               " → ", Text(str(ev.magic_damage), "bold"))
    notes: list[Text | str] = []
    if ev.halved:
        notes += [" · ", Text(r.tr("halved"), "green")]
    if ev.minimum_applied:
        notes += [" · ", Text(r.tr("minimum"), "yellow")]
    r.line(Text(f"{r.tr('damage')} = ", "bold"), Text(str(ev.total), "bold red"), *notes,
           rules_text(ev.rules))


def hp(r: Display, ev: Any) -> None:
    style = "bold red" if ev.after <= 0 else ("bold green" if ev.after > ev.before else "bold yellow")
    r.line(Text(f"{ev.fighter}: ", "bold"), f"{ev.before} → ",
           Text(f"{ev.after} {r.tr('hp')}", style), rules_text(ev.rules))
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
    out = Text.assemble((f"{s.hp}", f"bold {style}"), f"/{s.max_hp} {r.tr('hp')}")
    if s.hp <= 0:
        out.append(f"  {r.tr('defeated', name=s.name)}", "bold red")
    return out


DISPLAY = RulesetDisplay(handlers, state_text, leader_key="leads")
