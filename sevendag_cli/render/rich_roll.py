"""A formula's evaluation tree as one line of text (Rich), and the ``roll`` display.

The line keeps the expression's structure with each die's face in place:
``d6 2 − d6 5 = -3``, ``(d6 2 + d6 5) × 2 = 14``, ``max(d20 5, d20 19▲) = 19``.
Marks that need no colour (``NO_COLOR`` or a pipe loses nothing):

* ``▲`` a die's highest face, ``▼`` its lowest (1) — also green / red in colour;
* ``!`` after a face: the die exploded (showed its highest face and was rolled
  again); its next roll follows it: ``d6 6! + d6 2``, in parentheses among
  other dice: ``(d6 6! + d6 2) + d6 3``;
* ``~d20 3~``: a dropped die (keep/drop), which does not count — struck in colour.

Parentheses come from the operators' precedence, not from the text typed.
Fields read from a fighter show their name and value (``bba 3``): a later
display of fight checks can use :func:`tree_text` as it is.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from sevendag_cli.dice import Roll
from sevendag_cli.formula import (
    CallResult,
    DiceResult,
    Die,
    FieldResult,
    NegResult,
    NumResult,
    OpResult,
    ResultNode,
)
from sevendag_cli.i18n import t
from sevendag_cli.roller import RollCall
from sevendag_cli.text import visible

HIGHEST = "▲"
LOWEST = "▼"
EXPLODED = "!"
DROPPED = "~"
MINUS = "−"
OPERATORS = {"+": "+", "-": MINUS, "*": "×", "//": "//"}

_SUM, _PRODUCT, _UNARY, _ATOM = 1, 2, 3, 4


def number(value: int) -> str:
    """An integer with a true minus sign."""
    return f"{MINUS}{-value}" if value < 0 else str(value)


def face_text(r: Roll, exploded: bool = False) -> Text:
    """``d20 20▲``, ``d20 1▼``, ``d6 6!`` (exploded), ``d8 5``."""
    style = "bold green" if r.is_max else ("bold red" if r.is_min else "bold")
    mark = EXPLODED if exploded else (HIGHEST if r.is_max else (LOWEST if r.is_min else ""))
    return Text.assemble((r.die, "dim"), " ", (f"{r.face}{mark}", style))


def die_text(die: Die, alone: bool = True) -> Text:
    """One die: its face, or its explosion chain ``d6 6! + d6 2`` (in parentheses among
    other dice: ``(d6 6! + d6 2) + d6 3``); a dropped die ``~d6 1▼~``."""
    out = Text()
    last = len(die.rolls) - 1
    for i, r in enumerate(die.rolls):
        if i:
            out.append(" + ")
        out.append_text(face_text(r, exploded=i < last))
    if not die.kept:
        out.stylize("strike dim")
        return Text.assemble((DROPPED, "dim"), out, (DROPPED, "dim"))
    if die.exploded and not alone:
        return Text.assemble("(", out, ")")
    return out


def _items(node: DiceResult) -> int:
    return sum(len(d.rolls) for d in node.rolled)


def _precedence(node: ResultNode) -> int:
    match node:
        case OpResult(op):
            return _SUM if op in ("+", "-") else _PRODUCT
        case NegResult():
            return _UNARY
        case DiceResult():
            return _SUM if _items(node) > 1 else _ATOM
        case FieldResult(_, value) if value < 0:
            return _UNARY
    return _ATOM


def _wrapped(node: ResultNode, parens: bool) -> Text:
    inner = tree_text(node)
    return Text.assemble("(", inner, ")") if parens else inner


def tree_text(node: ResultNode) -> Text:
    """An evaluation tree as text, each die's face in place (no total)."""
    match node:
        case NumResult(value):
            return Text(number(value))
        case FieldResult(name, value):
            return Text.assemble((visible(name), "dim"), " ", number(value))
        case DiceResult():
            out = Text()
            for i, die in enumerate(node.rolled):
                if i:
                    out.append(" + ")
                out.append_text(die_text(die, alone=len(node.rolled) == 1))
            return out
        case NegResult(operand):
            return Text.assemble(MINUS, _wrapped(operand, _precedence(operand) <= _UNARY))
        case OpResult(op, left, right):
            level = _precedence(node)
            return Text.assemble(
                _wrapped(left, _precedence(left) < level),
                f" {OPERATORS[op]} ",
                _wrapped(right, _precedence(right) <= level),
            )
        case CallResult(function, args):
            out = Text(f"{function}(")
            for i, arg in enumerate(args):
                if i:
                    out.append(", ")
                out.append_text(tree_text(arg))
            out.append(")")
            return out
    raise AssertionError(f"unknown node {node!r}")  # pragma: no cover


def result_text(node: ResultNode, total: int, label: str | None = None, lang: str = "en") -> Text:
    """``damage: d6 3 + d6 5 + 3 = 11``"""
    out = Text()
    if label is not None:
        out.append(t("roll_label", lang, label=visible(label)), "bold")
    out.append_text(tree_text(node))
    out.append(" = ")
    out.append(str(total), "bold cyan")
    return out


def render_roll(console: Console, call: RollCall, lang: str = "en") -> None:
    """One line per expression, in the order given."""
    for r in call.results:
        console.print(result_text(r.tree, r.total, r.label, lang))
