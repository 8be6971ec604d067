"""Step-by-step display for the game master (Rich).

Every roll with its die and face (highest faces green and ``▲``, lowest red and
``▼``), each check's named parts, the totals and the comparison that decided,
the rule that fired by name and ID, wound bands and HP in colour.  Reads result
records only.  Every line fits the console: it wraps at spaces, under itself,
with rule tags kept beside their words (:mod:`sevendag_cli.render.layout`);
names and labels from the files are shown with control characters made visible.

The renderer shows what every ruleset shares (initiative, rounds, the
summary) and hands each ruleset's events and fighter states to that ruleset's
display, found through its backend (:mod:`sevendag_cli.backend`; imported when first needed).
The shared Rich pieces are in :mod:`sevendag_cli.render.rich_base`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.text import Text

from sevendag_cli.engine.common import (
    SAFETY_LIMIT,
    Event,
    FightPlay,
    FightResult,
    InitiativeEvent,
    RoundResult,
    WoundResult,
)
from sevendag_cli.i18n import t
from sevendag_cli.render.layout import print_rows, print_wrapped
from sevendag_cli.render.rich_base import (
    BAND_STYLES,
    Handler,
    RulesetDisplay,
    check_text,
    face,
    rolls_text,
    rules_text,
)
from sevendag_cli.text import visible, visible_data

__all__ = ["BAND_STYLES", "RichRenderer", "check_text", "display_for", "face", "rolls_text",
           "rules_text"]


def display_for(engine: str) -> RulesetDisplay:
    """The display of a ruleset's engine (its backend's, :mod:`sevendag_cli.backend`)."""
    from sevendag_cli.backend import backend_named

    return backend_named(engine).display()


class RichRenderer:
    """The step-by-step display of one ruleset's results on a Rich console, in ``lang``.

    Each public method passes what it is given through
    :func:`~sevendag_cli.text.visible_data` first (the ruleset too, once): names,
    labels and weapons from files are drawn with their control characters visible.
    """

    def __init__(self, console: Console, lang: str, ruleset: Any,
                 sheets: Iterable[Any] = ()) -> None:
        self.c = console
        self.lang = lang
        self.ruleset = visible_data(ruleset)
        self.sheets: dict[str, Any] = {s.name: s for s in sheets}
        """The fighters' sheets by name, when known: what they hold is shown by its label."""
        self.number = 0  # the round being shown: a draw at the round cap ends it
        self.display = display_for(ruleset.engine)
        self._handlers: dict[str, Handler] = {
            "initiative": self.initiative,
            "fight-over": self.fight_over,
            **self.display.handlers(self),
        }

    def tr(self, key: str, **kw: object) -> str:
        """A display word in the language; names and labels in it shown with control characters visible."""
        return t(key, self.lang, **{k: visible(v) if isinstance(v, str) else v for k, v in kw.items()})

    def line(self, *parts: Text | str) -> None:
        """One line of the display, indented by two; wrapped under itself at the console's width."""
        out = Text("  ")
        for p in parts:
            out.append_text(p if isinstance(p, Text) else Text(p))
        print_wrapped(self.c, out)

    def title(self, text: str) -> None:
        print_wrapped(self.c, Text(text, "bold underline"), hang=2)

    # --- generic ------------------------------------------------------------

    def event(self, ev: Event) -> None:
        handler = self._handlers.get(ev.kind)
        if handler is None:  # pragma: no cover - every engine event has a handler
            self.line(Text(repr(ev), "dim"))
            return
        handler(ev)

    def initiative(self, ev: InitiativeEvent) -> None:
        ev = visible_data(ev)
        self.title(self.tr("initiative"))
        for i, pair in enumerate(ev.attempts):
            for c in pair:
                self.line(Text(f"{visible(c.fighter)}{self.tr('colon')}", "bold"), check_text(c, self.lang))
            if i < len(ev.attempts) - 1:
                self.line(Text(self.tr("tie"), "yellow"))
        self.line(Text(self.tr(self.display.leader_key, name=ev.leader), "bold magenta"),
                  rules_text(ev.rules))

    def round(self, result: RoundResult) -> None:
        result = visible_data(result)
        self.number = result.number
        title = self.tr("round", n=result.number)
        if result.elapsed_seconds is not None:  # game time (S-01), not the time at the table
            per = result.elapsed_seconds // max(1, result.number)
            title += f" · {self.tr('elapsed', s=result.elapsed_seconds, per=per)}"
        self.title(title)
        if self.display.round_intro is not None:
            self.display.round_intro(self, result.events)
        for ev in result.events:
            self.event(ev)
        self.states(result.states)

    def fight(self, result: FightResult) -> None:
        result = visible_data(result)
        self.initiative(result.initiative)
        for rnd in result.rounds:
            self.c.print()
            self.round(rnd)
        self.c.print()
        self.summary(result)

    def fight_play(self, play: FightPlay) -> None:
        """:meth:`fight`, each round shown as soon as it is played (a long fight is never held)."""
        self.initiative(play.initiative)
        for rnd in play:
            self.c.print()
            self.round(rnd)
        self.c.print()
        self.summary(visible_data(play.result()), play.played, play.last)

    def summary(self, result: FightResult, played: int | None = None,
                last: RoundResult | None = None) -> None:
        """The winner (or a draw) and the rounds played (``played`` and ``last`` when the
        fight's rounds were not kept)."""
        self.title(self.tr("summary"))
        n = len(result.rounds) if played is None else played
        if played is None and result.rounds:
            last = result.rounds[-1]
        seconds = last.elapsed_seconds if last is not None else None
        count = self.tr("rounds_played", n=n, s=seconds) if seconds else self.tr("rounds_only", n=n)
        if result.winner:
            self.line(Text(self.tr("winner", name=result.winner), "bold green"), " · ", count)
        elif not result.capped:  # no round cap: stopped at the safety limit, not a draw
            self.line(Text(self.tr("safety_stop", n=n), "bold yellow"), " · ", count)
        else:
            self.line(Text(self.tr("draw", n=n), "bold yellow"), " · ", count)

    def wound(self, result: WoundResult) -> None:
        result = visible_data(result)
        for ev in result.events:
            self.event(ev)
        self.states(result.states)

    def states(self, states: Iterable[Any]) -> None:
        """Each fighter's track, one row each: the name, then its state wrapped under its column."""
        states = visible_data(tuple(states))
        print_rows(self.c, [(Text(s.name, "bold"), self.state_text(s)) for s in states])

    def state_text(self, s: Any) -> Text:
        return self.display.state_text(self, s)

    def fight_over(self, ev: Any) -> None:
        if ev.winner:
            self.line(Text(self.tr("winner", name=ev.winner), "bold green"), rules_text(ev.rules))
        elif ev.reason == SAFETY_LIMIT:
            self.line(Text(self.tr("safety_stop", n=self.number), "bold yellow"))
        else:
            self.line(Text(self.tr("draw", n=self.number), "bold yellow"))
