"""``roll --odds``: the exact distribution of a dice expression, with no sampling.

Each expression of :mod:`sevendag_cli.roller` is turned into its exact law by
:mod:`sevendag_cli.sim.formula_dice`, the same walk of its tree as the exact odds of a fight:
a dice group is one power of its die's law (any count of dice within the budget: ``1000d6``
is 5,001 values over 6^1000), keep and drop icepool's pool of the die, rerolls (``ro``,
``rr``) and ``mi``/``ma`` in the die's law, success counting (``6d10>=7``) the kept dice that
pass; arithmetic and ``min``/``max``/``mod`` combine the laws; a comparison of two totals
(``1d20 + 5 >= 15``) is a law over 0 and 1.

Bounded work: every part's size (its values, the digits of its exact weights, the pairs of
values a product combines) is estimated from the tree and refused with one line before
anything is computed (:func:`~sevendag_cli.sim.formula_dice.check_size`, the bounds of
:mod:`sevendag_cli.limits`).  Probabilities are exact integers over one denominator
(:class:`Distribution`); what is shown as a float is the correctly rounded quotient.
No typer, Rich or JSON here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import msgspec

from sevendag_cli.errors import ExpressionError, FormulaError, UsageError
from sevendag_cli.formula import Compare, Formula
from sevendag_cli.roller import Expression


class Distribution(msgspec.Struct, frozen=True):
    """One expression's exact law: ``weights[i]`` over ``denominator`` is P(value = ``values[i]``).

    ``values`` ascending, every weight positive.  ``comparison``: the expression compares two
    totals (values 0 and 1 only: false, true).
    """

    label: str | None
    expression: str
    values: tuple[int, ...]
    weights: tuple[int, ...]
    denominator: int
    comparison: bool = False

    def probability(self, i: int) -> Fraction:
        return Fraction(self.weights[i], self.denominator)

    @property
    def floats(self) -> list[float]:
        """P(value = ``values[i]``) as floats (each the correctly rounded quotient)."""
        den = self.denominator
        return [w / den for w in self.weights]

    @property
    def at_least_weights(self) -> list[int]:
        """The weight of the values ≥ ``values[i]``, for each i."""
        out: list[int] = []
        acc = 0
        for w in reversed(self.weights):
            acc += w
            out.append(acc)
        out.reverse()
        return out

    @property
    def at_least(self) -> tuple[Fraction, ...]:
        """P(value ≥ ``values[i]``), for each i."""
        return tuple(Fraction(w, self.denominator) for w in self.at_least_weights)

    @property
    def at_least_floats(self) -> list[float]:
        """P(value ≥ ``values[i]``) as floats (each the correctly rounded quotient)."""
        den = self.denominator
        return [w / den for w in self.at_least_weights]

    @property
    def mean(self) -> Fraction:
        return Fraction(sum(v * w for v, w in zip(self.values, self.weights, strict=True)),
                        self.denominator)

    @property
    def variance(self) -> Fraction:
        """E[(X - mean)²], from whole sums: (den · Σ v²w − (Σ vw)²) / den²."""
        first = sum(v * w for v, w in zip(self.values, self.weights, strict=True))
        second = sum(v * v * w for v, w in zip(self.values, self.weights, strict=True))
        den = self.denominator
        return Fraction(den * second - first * first, den * den)

    @property
    def sd(self) -> float:
        return math.sqrt(self.variance)

    @property
    def p_true(self) -> Fraction:
        """A comparison's probability of being true (P(value = 1))."""
        return sum((Fraction(w, self.denominator) for v, w in zip(self.values, self.weights, strict=True)
                    if v == 1), Fraction(0))


class OddsCall(msgspec.Struct, frozen=True):
    """Every expression of one ``roll --odds``, in the order given."""

    results: tuple[Distribution, ...]


def distribution(formula: Formula, label: str | None = None) -> Distribution:
    """The exact distribution of one expression's value (bounded work, see the module)."""
    from sevendag_cli.sim.formula_dice import formula_law

    try:
        w = formula_law(formula, {}, runs_hint=False)
    except UsageError as exc:  # a size refused before any work: the expression's mistake here
        raise FormulaError(formula.text, exc.msg) from None
    values = tuple(w)
    weights = tuple(w.values())
    total = sum(weights)
    g = math.gcd(total, *weights)
    return Distribution(label, formula.text, values, tuple(x // g for x in weights), total // g,
                        isinstance(formula.tree, Compare))


def odds_expressions(exprs: Sequence[Expression]) -> OddsCall:
    """Each expression's exact distribution, in the order given."""
    out = []
    for e in exprs:
        try:
            out.append(distribution(e.formula, e.label))
        except FormulaError as exc:
            raise ExpressionError(e.argument, exc.detail) from None
    return OddsCall(tuple(out))
