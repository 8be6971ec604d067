"""Step-by-step display for the game master (Rich).

Every roll with its die and face (highest faces green, lowest red), the
totals and the comparison that decided, the rule that fired by name and ID,
wound bands and HP in colour.  Reads result records only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from sevendag_cli.dice import Roll
from sevendag_cli.engine.common import (
    Check,
    Event,
    FightResult,
    InitiativeEvent,
    RoundResult,
    WoundResult,
)
from sevendag_cli.i18n import t

BAND_STYLES = {"light": "yellow", "serious": "dark_orange", "critical": "red", "fatal": "bold red"}


def face(r: Roll) -> Text:
    style = "bold green" if r.is_max else ("bold red" if r.is_min else "bold")
    return Text.assemble((r.die, "dim"), " ", (str(r.face), style))


def rolls_text(rolls: Iterable[Roll]) -> Text:
    out = Text()
    for i, r in enumerate(rolls):
        if i:
            out.append(" + ")
        out.append_text(face(r))
    return out


def check_text(c: Check) -> Text:
    """``d20 19 + 4 = 23``"""
    out = rolls_text(c.rolls)
    mod = c.modifier
    if c.rolls and mod:
        out.append(f" {'+' if mod > 0 else '−'} {abs(mod)}")
    elif not c.rolls:
        out.append(str(mod))
    out.append(" = ")
    out.append(str(c.total), "bold cyan")
    return out


def rules_text(rules: Iterable[str]) -> Text:
    ids = list(rules)
    return Text(f"  [{', '.join(ids)}]", "dim") if ids else Text()


class RichRenderer:
    def __init__(self, console: Console, lang: str, ruleset: Any) -> None:
        self.c = console
        self.lang = lang
        self.ruleset = ruleset
        self._handlers: dict[str, Callable[[Any], None]] = {
            "initiative": self.initiative,
            "attack": self.d20_attack,
            "save": self.d20_save,
            "damage": self.d20_damage,
            "hp": self.d20_hp,
            "fight-over": self.fight_over,
        }
        if ruleset.engine == "sevendag":
            from sevendag_cli.render.rich_sevendag import sevendag_handlers

            self._handlers.update(sevendag_handlers(self))

    def tr(self, key: str, **kw: object) -> str:
        return t(key, self.lang, **kw)

    def line(self, *parts: Text | str) -> None:
        out = Text("  ")
        for p in parts:
            out.append_text(p if isinstance(p, Text) else Text(p))
        self.c.print(out)

    # --- generic ------------------------------------------------------------

    def event(self, ev: Event) -> None:
        handler = self._handlers.get(ev.kind)
        if handler is None:  # pragma: no cover - every engine event has a handler
            self.line(Text(repr(ev), "dim"))
            return
        handler(ev)

    def initiative(self, ev: InitiativeEvent) -> None:
        self.c.print(Text(self.tr("initiative"), "bold underline"))
        for i, pair in enumerate(ev.attempts):
            for c in pair:
                self.line(Text(f"{c.fighter}: ", "bold"), check_text(c))
            if i < len(ev.attempts) - 1:
                self.line(Text(self.tr("tie"), "yellow"))
        key = "assaillant" if self.ruleset.engine == "sevendag" else "leads"
        self.line(Text(self.tr(key, name=ev.leader), "bold magenta"), rules_text(ev.rules))

    def round(self, result: RoundResult) -> None:
        title = self.tr("round", n=result.number)
        if result.elapsed_seconds is not None:
            title += f" · {self.tr('elapsed', s=result.elapsed_seconds)}"
        self.c.print(Text(title, "bold underline"))
        for ev in result.events:
            self.event(ev)
        self.states(result.states)

    def fight(self, result: FightResult) -> None:
        self.initiative(result.initiative)
        for rnd in result.rounds:
            self.c.print()
            self.round(rnd)
        self.c.print()
        self.summary(result)

    def summary(self, result: FightResult) -> None:
        self.c.print(Text(self.tr("summary"), "bold underline"))
        n = len(result.rounds)
        seconds = result.rounds[-1].elapsed_seconds if result.rounds else None
        count = self.tr("rounds_played", n=n, s=seconds) if seconds else self.tr("rounds_only", n=n)
        if result.winner:
            self.line(Text(self.tr("winner", name=result.winner), "bold green"), " · ", count)
        else:
            self.line(Text(self.tr("draw", n=n), "bold yellow"), " · ", count)

    def wound(self, result: WoundResult) -> None:
        for ev in result.events:
            self.event(ev)
        self.states(result.states)

    def states(self, states: Iterable[Any]) -> None:
        table = Table(box=None, show_header=False, padding=(0, 1), pad_edge=True)
        for s in states:
            table.add_row(Text(s.name, "bold"), self.state_text(s))
        self.c.print(table)

    def state_text(self, s: Any) -> Text:
        if hasattr(s, "hp"):
            ratio = s.hp / s.max_hp if s.max_hp else 0
            style = "green" if ratio > 0.5 else ("yellow" if ratio > 0.25 else "red")
            out = Text.assemble((f"{s.hp}", f"bold {style}"), f"/{s.max_hp} {self.tr('hp')}")
            if s.hp <= 0:
                out.append(f"  {self.tr('defeated', name=s.name)}", "bold red")
            return out
        from sevendag_cli.render.rich_sevendag import sevendag_state_text

        return sevendag_state_text(self, s)

    def fight_over(self, ev: Any) -> None:
        if ev.winner:
            self.line(Text(self.tr("winner", name=ev.winner), "bold green"), rules_text(ev.rules))
        else:
            self.line(Text(self.tr("draw", n=self.ruleset.round_cap), "bold yellow"))

    # --- d20 ----------------------------------------------------------------

    def d20_attack(self, ev: Any) -> None:
        self.line(Text(self.tr("attacks", a=ev.attacker, d=ev.defender), "bold magenta"))
        verdict = Text(self.tr("hit") if ev.hit else self.tr("miss"),
                       "bold green" if ev.hit else "bold red")
        parts: list[Text | str] = [f"{self.tr('attack')}: ", check_text(ev.roll), " ",
                                   self.tr("vs_ac", ac=ev.ac), " → ", verdict]
        if ev.reason == "natural-hit":
            parts += [" (", Text(self.tr("natural_hit", n=ev.roll.natural), "green"), ")"]
        elif ev.reason == "natural-miss":
            parts += [" (", Text(self.tr("natural_miss", n=ev.roll.natural), "red"), ")"]
        if ev.critical:
            parts += [" · ", Text(self.tr("critical_hit"), "bold green")]
        self.line(*parts, rules_text(ev.rules))

    def d20_save(self, ev: Any) -> None:
        parts: list[Text | str] = [f"{self.tr('save')} {ev.defender}: ", check_text(ev.roll)]
        if ev.reason == "natural-success":
            parts += [" → ", Text(self.tr("natural_save", n=ev.roll.natural), "bold green")]
        elif ev.reason == "natural-failure":
            parts += [" → ", Text(self.tr("natural_save_fail", n=ev.roll.natural), "bold red")]
        else:
            if ev.dd is not None:
                parts += [f" {'>' if ev.reason == 'beats-dd' else '≤'} {self.tr('dd')} {ev.attacker}: ",
                          check_text(ev.dd)]
            else:
                parts += [f" {'>' if ev.reason == 'beats-dd' else '≤'} ",
                          self.tr("dd_table", dd=ev.dd_total)]
            key = {"dodged": "dodged", "halved": "halved", "failed": "failed"}[ev.outcome]
            style = "green" if ev.outcome != "failed" else "red"
            parts += [" → ", Text(self.tr(key), f"bold {style}")]
        self.line(*parts, rules_text(ev.rules))

    def d20_damage(self, ev: Any) -> None:
        parts: list[Text | str] = [f"{self.tr('damage')}, {ev.weapon}: "]
        for i, s in enumerate(ev.sets):
            if i:
                parts.append(" + ")
            parts.append(Text("(") + check_text(s) + Text(")"))
        parts += [" − VIG ", check_text(ev.vig), " → ", Text(str(ev.physical), "bold")]
        self.line(*parts)
        if ev.magic is not None and ev.vol is not None:
            self.line(f"{self.tr('magic')}: ", check_text(ev.magic), " − VOL ", check_text(ev.vol),
                      " → ", Text(str(ev.magic_damage), "bold"))
        notes: list[Text | str] = []
        if ev.halved:
            notes += [" · ", Text(self.tr("halved"), "green")]
        if ev.minimum_applied:
            notes += [" · ", Text(self.tr("minimum"), "yellow")]
        self.line(Text(f"{self.tr('damage')} = ", "bold"), Text(str(ev.total), "bold red"), *notes,
                  rules_text(ev.rules))

    def d20_hp(self, ev: Any) -> None:
        style = "bold red" if ev.after <= 0 else ("bold green" if ev.after > ev.before else "bold yellow")
        self.line(Text(f"{ev.fighter}: ", "bold"), f"{ev.before} → ",
                  Text(f"{ev.after} {self.tr('hp')}", style), rules_text(ev.rules))
        if ev.defeated:
            self.line(Text(self.tr("defeated", name=ev.fighter), "bold red"))
