"""Shared pieces of the Rich step-by-step display, and what a ruleset's display provides.

Dice faces (highest green, lowest red), formula checks, rule tags; the
:class:`Display` a ruleset's handlers write through; and :class:`RulesetDisplay`,
what each ruleset's display module (``rich_d20``, ``rich_sevendag``) gives the
renderer, which finds it through its registry (``rich_render.DISPLAYS``).  The
per-ruleset modules import only this one, never the renderer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text

from sevendag_cli.dice import Roll

if TYPE_CHECKING:
    from rich.console import Console

    from sevendag_cli.engine.common import Check

BAND_STYLES = {"light": "yellow", "serious": "dark_orange", "critical": "red", "fatal": "bold red"}

Handler = Callable[[Any], None]


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


class Display(Protocol):
    """The renderer as a ruleset's display sees it: where to write, in which language."""

    c: Console
    lang: str
    ruleset: Any

    def tr(self, key: str, **kw: object) -> str: ...

    def line(self, *parts: Text | str) -> None: ...


class RulesetDisplay:
    """One ruleset's display: its event handlers, a fighter's state, the initiative leader's line.

    ``handlers(display)`` maps event kinds (the JSON ``type``) to functions;
    ``state_text(display, state)`` shows one fighter's track; ``leader_key`` is
    the display word (``i18n``) naming who won the initiative.
    """

    __slots__ = ("handlers", "leader_key", "state_text")

    def __init__(
        self,
        handlers: Callable[[Display], dict[str, Handler]],
        state_text: Callable[[Display, Any], Text],
        leader_key: str,
    ) -> None:
        self.handlers = handlers
        self.state_text = state_text
        self.leader_key = leader_key
