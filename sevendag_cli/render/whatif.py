"""The what-ifs applied (``--set``, ``--tactic``): a line of the display, a list in the JSON.

JSON (``changes``): one object per change, ``{fighter, field, value, previous}``; ``value``
null when the key was removed (the sheet's default applies), ``previous`` null when the
sheet did not have the key.  A change of the ruleset is ``{ruleset, field, value,
previous}`` (``techniques.feint.attack``; ``previous`` the value in effect before).  The
display: one line, ``What-if: B.armour 7 (was 0) · Brannoc.tactic all-out (was
weapons-attack) · techniques.feint.attack 5 (was 3)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sevendag_cli.i18n import t

if TYPE_CHECKING:
    from rich.console import Console

    from sevendag_cli.rules.whatif import Change


def changes_data(changes: Sequence[Change]) -> list[dict[str, Any]]:
    """A sheet's change ``{fighter, field, value, previous}``; the ruleset's ``{ruleset, field,
    value, previous}`` (``ruleset``: its name, ``field``: ``techniques.feint.attack``,
    ``previous``: the value in effect before)."""
    return [{"fighter": c.fighter, "field": c.field, "value": c.value, "previous": c.previous}
            if c.ruleset is None else
            {"ruleset": c.ruleset, "field": c.field, "value": c.value, "previous": c.previous}
            for c in changes]


def with_changes(doc: dict[str, Any], changes: Sequence[Change]) -> dict[str, Any]:
    """A document with its ``changes`` last (only when there are: outputs without what-ifs keep
    their bytes)."""
    if not changes:
        return doc
    return {**doc, "changes": changes_data(changes)}


def _value(value: Any) -> str:
    from sevendag_cli.text import visible

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(visible(v) for v in value)
    return visible(value)


def change_text(change: Change, lang: str) -> str:
    from sevendag_cli.text import visible

    field = visible(change.field) if change.ruleset is not None else \
        f"{visible(change.fighter)}.{visible(change.field)}"
    if change.value is None:
        return t("whatif.removed", lang, field=field, previous=_value(change.previous))
    if change.previous is None:
        return t("whatif.new", lang, field=field, value=_value(change.value))
    return t("whatif.changed", lang, field=field, value=_value(change.value),
             previous=_value(change.previous))


def changes_line(changes: Sequence[Change], lang: str) -> str:
    return t("whatif.line", lang, changes=" · ".join(change_text(c, lang) for c in changes))


def print_changes(console: Console, changes: Sequence[Change], lang: str) -> None:
    """The line of the changes (nothing without changes), wrapped to the console."""
    if not changes:
        return
    from rich.text import Text

    from sevendag_cli.render.layout import print_wrapped

    print_wrapped(console, Text(changes_line(changes, lang), "italic"), hang=2)


def play_words(engine: str, names: Sequence[str], policies: Sequence[str] | None,
               lang: str) -> str | None:
    """Who plays how, for a display's header and a picture's title: ``play: Brannoc optimal,
    Ysolde on its sheet``, ``play: both on their sheets``; None where the rules leave no
    choice (d20: every fighter plays its sheet, whatever is asked)."""
    from sevendag_cli.backend import backend_named
    from sevendag_cli.policies import SHEET
    from sevendag_cli.text import visible

    if not backend_named(engine).has_choices():
        return None
    if policies is None or all(p == SHEET for p in policies):
        return t("sim.policies", lang, who=t("sim.policy.sheets", lang))
    who = ", ".join(t(f"sim.policy.{p}", lang, name=visible(n))
                    for n, p in zip(names, policies, strict=True))
    return t("sim.policies", lang, who=who)


def titled(title: str, play: str | None) -> str:
    """A picture's title with who plays how on its own line."""
    return title if play is None else f"{title}\n{play}"
