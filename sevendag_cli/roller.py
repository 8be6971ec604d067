"""The ``roll`` command: several dice expressions rolled in one call, each maybe labelled.

One argument is ``[LABEL:] EXPRESSION``: ``"1d20 + 5"``, ``"damage: 2d6 + 3"``.
The label is the text before the first ``:`` (an expression never holds one),
trimmed, at most :data:`MAX_LABEL` characters.  The expression is the formula
language of :mod:`sevendag_cli.formula` without fighter fields.  The
expressions are rolled in the order given, from one dice source (entered faces
are consumed across them); together they stay within the dice budget.

An invalid expression is a usage mistake (:class:`ExpressionError`, exit code
2): the message quotes the argument as typed and counts positions in it.
No Rich and no JSON here: renderers read :class:`RollCall`.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from sevendag_cli.dice import DiceSource, Roll
from sevendag_cli.errors import ExpressionError, FormulaError, Msg, UsageError
from sevendag_cli.formula import (
    ROLL_BUDGET,
    Evaluated,
    Formula,
    ResultNode,
    first_field,
    parse_part,
    parse_roll,
)

MAX_EXPRESSIONS = 20
"""Most expressions in one ``roll``."""
MAX_LABEL = 40
"""Longest label, in characters."""

PURPOSE = "roll"


class Expression(msgspec.Struct, frozen=True):
    """One argument of ``roll``: its label (or None), the formula, the argument as typed."""

    label: str | None
    formula: Formula
    argument: str


class Rolled(msgspec.Struct, frozen=True):
    """One expression rolled: its label, its text, the evaluation (value, rolls, tree)."""

    label: str | None
    expression: str
    evaluated: Evaluated

    @property
    def total(self) -> int:
        return self.evaluated.value

    @property
    def rolls(self) -> tuple[Roll, ...]:
        return self.evaluated.rolls

    @property
    def tree(self) -> ResultNode:
        return self.evaluated.tree


class RollCall(msgspec.Struct, frozen=True):
    """Every expression of one ``roll``, in the order given."""

    results: tuple[Rolled, ...]

    @property
    def rolls(self) -> tuple[Roll, ...]:
        """Every die of the call, in roll order."""
        return tuple(r for res in self.results for r in res.rolls)


def parse_expression(argument: str) -> Expression:
    """``[LABEL:] EXPRESSION`` → :class:`Expression`; an error is an :class:`ExpressionError`."""
    try:
        label_text, colon, rest = argument.partition(":")
        if not colon:
            formula, label, offset = parse_roll(argument), None, 0
        else:
            label = label_text.strip()
            if not label:
                raise FormulaError(argument, Msg("roll.empty_label"))
            if len(label) > MAX_LABEL:
                raise FormulaError(argument, Msg("roll.label_too_long", max=MAX_LABEL))
            offset = len(label_text) + 1 + len(rest) - len(rest.lstrip())
            formula = parse_part(rest.strip(), argument, offset, comparisons=True)
        field = first_field(formula.text, comparisons=True)
        if field is not None:
            raise FormulaError(argument, Msg("roll.unknown_name", name=field[0], pos=offset + field[1] + 1))
        formula.check_bound()  # a value beyond the bound is refused before anything is rolled
    except FormulaError as exc:
        raise ExpressionError(exc.formula, exc.detail) from None
    return Expression(label, formula, argument)


def parse_expressions(arguments: Sequence[str]) -> tuple[Expression, ...]:
    """Every argument of ``roll``; at most :data:`MAX_EXPRESSIONS`, within the dice budget together.

    With several arguments, one that starts or ends with an operator was most likely
    split by the shell (``roll 1d20 + 5``): the error says to quote the expression.
    """
    if len(arguments) > MAX_EXPRESSIONS:
        raise UsageError(Msg("roll.too_many", n=len(arguments), max=MAX_EXPRESSIONS))
    exprs = []
    for argument in arguments:
        try:
            exprs.append(parse_expression(argument))
        except ExpressionError as exc:
            text = argument.strip()
            if len(arguments) > 1 and text and (text[0] in "+*/" or text[-1] in "+-*/"):
                raise ExpressionError(exc.formula, Msg("roll.hint_quote", message=exc.detail)) from None
            raise
    total = sum(e.formula.dice_count for e in exprs)
    if total > ROLL_BUDGET:
        raise UsageError(Msg("roll.over_budget", n=len(exprs), count=total, budget=ROLL_BUDGET))
    return tuple(exprs)


def roll_expressions(exprs: Sequence[Expression], dice: DiceSource) -> RollCall:
    """Roll each expression in order from ``dice`` (purpose ``roll``, no fighter)."""
    results = []
    for e in exprs:
        try:
            ev = e.formula.evaluate({}, dice, PURPOSE, None)
        except FormulaError as exc:  # a division by zero
            raise ExpressionError(e.argument, exc.detail) from None
        results.append(Rolled(e.label, e.formula.text, ev))
    return RollCall(tuple(results))
