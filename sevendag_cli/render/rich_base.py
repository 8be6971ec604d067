"""Shared pieces of the Rich step-by-step display, and what a ruleset's display provides.

Dice faces (highest green and ``▲``, lowest red and ``▼``, so nothing is lost
without colour), formula checks with each named part (``d20 8 + BBA 3 + STR +1
+ type 0 = 12``), rule tags glued to the word before them; the
:class:`Display` a ruleset's handlers write through; and :class:`RulesetDisplay`,
what each ruleset's display module (``d20/display.py``, ``sevendag/display.py``) gives the
renderer, which finds it through the ruleset's backend (:mod:`sevendag_cli.backend`).  The
per-ruleset modules import only this one, never the renderer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text

from sevendag_cli.dice import Roll
from sevendag_cli.i18n import field_labels
from sevendag_cli.render.layout import GLUE, TIGHT
from sevendag_cli.render.rich_roll import face_text, tree_text

if TYPE_CHECKING:
    from rich.console import Console

    from sevendag_cli.engine.common import Check

BAND_STYLES = {"light": "yellow", "serious": "dark_orange", "critical": "red", "fatal": "bold red"}

Handler = Callable[[Any], None]


def face(r: Roll) -> Text:
    """``d8 5``, ``d8 8▲`` (highest face), ``d20 1▼`` (lowest): the die and its face, never apart."""
    return face_text(r)


def rolls_text(rolls: Iterable[Roll]) -> Text:
    out = Text()
    for i, r in enumerate(rolls):
        if i:
            out.append(f" +{GLUE}")
        out.append_text(face(r))
    return out


def check_text(c: Check, lang: str = "en") -> Text:
    """``d20 8 + BBA 3 + STR +1 + type 0 = 12``: every part of the formula named, then the total.

    A check without its evaluation tree shows the dice and the fixed part: ``d20 19 + 4 = 23``.
    """
    if c.evaluated is not None:
        out = tree_text(c.evaluated.tree, field_labels(lang))
    else:
        out = rolls_text(c.rolls)
        mod = c.modifier
        if c.rolls and mod:
            out.append(f" {'+' if mod > 0 else '−'}{GLUE}{abs(mod)}")
        elif not c.rolls:
            out.append(str(mod))
    out.append(f" ={GLUE}")
    out.append(str(c.total), "bold cyan")
    return out


def rules_text(rules: Iterable[str]) -> Text:
    """``  [S-04, S-05]``, glued to the word before it: a tag never starts a line."""
    ids = list(rules)
    return Text(f"{TIGHT}{TIGHT}[{f',{TIGHT}'.join(ids)}]", "dim") if ids else Text()


class Display(Protocol):
    """The renderer as a ruleset's display sees it: where to write, in which language."""

    c: Console
    lang: str
    ruleset: Any
    sheets: dict[str, Any]  # the fighters' sheets by name (empty when not known)

    def tr(self, key: str, **kw: object) -> str: ...

    def line(self, *parts: Text | str) -> None: ...


WhoAttacks = tuple[str, dict[str, str], str, tuple[str, ...]]
"""Who attacks next: the display word (``i18n``), the names it takes, its style, the rules."""


class RulesetDisplay:
    """One ruleset's display: its event handlers, a fighter's state, the initiative leader's line.

    ``handlers(display)`` maps event kinds (the JSON ``type``) to functions;
    ``state_text(display, state)`` shows one fighter's track; ``leader_key`` is
    the display word (``i18n``) naming who won the initiative; ``round_intro``
    (optional) shows what a round's events need said first (a Sevendag yield).
    ``status`` and ``odds`` ask three more things: ``who_attacks(state)``, who attacks
    next in an encounter not over (:data:`WhoAttacks`); ``status_rows(renderer, name,
    fighter_state, sheet)``, a fighter's rows under its name; ``elapsed(renderer,
    rounds)`` (optional), the game time the rounds took, said after them.  ``fight --runs``
    and ``--exact`` ask ``extras_table(console, fighters, extras, lang, ruleset)`` (optional):
    the table of what the ruleset adds to the win rates, ``extras`` its own record (one entry
    per fighter in its ``fighters``).
    """

    __slots__ = ("elapsed", "extras_table", "handlers", "leader_key", "round_intro", "state_text",
                 "status_rows", "who_attacks")

    def __init__(
        self,
        handlers: Callable[[Display], dict[str, Handler]],
        state_text: Callable[[Display, Any], Text],
        leader_key: str,
        who_attacks: Callable[[Any], WhoAttacks],
        status_rows: Callable[[Any, Text, Any, Any], list[tuple[Text, Text]]],
        round_intro: Callable[[Display, Sequence[Any]], None] | None = None,
        elapsed: Callable[[Any, int], str] | None = None,
        extras_table: Callable[[Any, Sequence[Any], Any, str, Any], None] | None = None,
    ) -> None:
        self.handlers = handlers
        self.state_text = state_text
        self.leader_key = leader_key
        self.who_attacks = who_attacks
        self.status_rows = status_rows
        self.round_intro = round_intro
        self.elapsed = elapsed
        self.extras_table = extras_table
