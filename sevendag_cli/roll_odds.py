"""``roll --odds``: the exact distribution of a dice expression, with no sampling.

Each expression of :mod:`sevendag_cli.roller` is turned into a distribution by
walking its tree: a dice group is icepool's sum of its dice (keep and drop as a
pool's highest or lowest dice, an exploding die as icepool's ``explode``, the same
depth as the roller: :func:`sevendag_cli.d20.exact._group_die`), arithmetic and
``min``/``max``/``mod`` are applied outcome by outcome.  Success counting
(``6d10>=7``) classes each die as below, at or above the target, then counts the
kept dice that pass from the multinomial law of the three classes (the kept dice
of ``kh``/``kl`` are the highest or lowest, so which classes they come from
follows from the three counts).  A comparison of two totals (``1d20 + 5 >= 15``)
is a distribution over 0 and 1.

Bounded work: a dice group past icepool's budget (``MAX_GROUP_WORK`` of the d20 solver),
an operation on two distributions of more than :data:`MAX_PAIRS` pairs of
outcomes, or success counting with a selection on more than
:data:`MAX_COUNTED_DICE` dice is refused with one line before it is computed.
Probabilities are exact integers over one denominator (:class:`Distribution`).
No typer, Rich or JSON here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import msgspec

from sevendag_cli.errors import ExpressionError, FormulaError, Msg
from sevendag_cli.formula import (
    BinOp,
    Call,
    Compare,
    Dice,
    Formula,
    Name,
    Neg,
    Node,
    Num,
    apply_op,
    compare,
)
from sevendag_cli.roller import Expression

MAX_PAIRS = 1_000_000
"""Most pairs of outcomes one operation on two distributions may combine (``100d20 * 100d20``
is 3.6e6: refused; ``3d6 * 1d20`` is 320)."""
MAX_COUNTED_DICE = 200
"""Most dice in a group that counts successes and keeps or drops some (``200d10kh100>=7``):
its law runs over every split of the dice into three classes, about N²/2 of them."""


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
    def at_least(self) -> tuple[Fraction, ...]:
        """P(value ≥ ``values[i]``), for each i."""
        out: list[int] = []
        acc = 0
        for w in reversed(self.weights):
            acc += w
            out.append(acc)
        return tuple(Fraction(w, self.denominator) for w in reversed(out))

    @property
    def mean(self) -> Fraction:
        return Fraction(sum(v * w for v, w in zip(self.values, self.weights, strict=True)),
                        self.denominator)

    @property
    def variance(self) -> Fraction:
        m = self.mean
        return sum((Fraction(w, self.denominator) * (v - m) ** 2
                    for v, w in zip(self.values, self.weights, strict=True)), Fraction(0))

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


Weights = dict[int, int]


def _weights(x: Any) -> tuple[Weights, int]:
    """A die or an int as integer weights and their total."""
    if isinstance(x, int):
        return {x: 1}, 1
    w = {int(v): int(q) for v, q in x.items() if q}
    return w, sum(w.values())


def _as_die(w: Weights) -> Any:
    import icepool

    return icepool.Die(w)


def _pairs(text: str, *xs: Any) -> None:
    """Refuse an operation on distributions whose outcomes make too many pairs."""
    n = 1
    for x in xs:
        n *= 1 if isinstance(x, int) else len(x)
    if n > MAX_PAIRS:
        raise FormulaError(text, Msg("roll.odds_too_big", pairs=n, max=MAX_PAIRS))


def _counted(dice: Dice, text: str) -> Any:
    """Success counting: the law of the number of kept dice whose total passes the target."""
    from sevendag_cli.sim.formula_dice import _base_die

    one = _base_die(dice)
    below = equal = above = 0
    for v, q in one.items():
        q = int(q)
        if v < dice.count_target:
            below += q
        elif v == dice.count_target:
            equal += q
        else:
            above += q
    n, op = dice.count, dice.count_op or "="
    passing = {">=": (0, 1, 1), ">": (0, 0, 1), "<=": (1, 1, 0), "<": (1, 0, 0), "=": (0, 1, 0)}[op]
    if dice.select is None:  # every die kept: a binomial
        p = sum(w for w, on in zip((below, equal, above), passing, strict=True) if on)
        fail = below + equal + above - p
        return _as_die({c: math.comb(n, c) * p ** c * fail ** (n - c) for c in range(n + 1)})
    if n > MAX_COUNTED_DICE:
        raise FormulaError(text, Msg("roll.odds_counted_too_many", dice=dice.notation, max=MAX_COUNTED_DICE))
    k = dice.kept
    out: Weights = {}
    for a in range(n + 1):  # a dice above, e equal, the rest below
        ways_a = math.comb(n, a) * above ** a
        for e in range(n - a + 1):
            b = n - a - e
            weight = ways_a * math.comb(n - a, e) * equal ** e * below ** b
            if not weight:
                continue
            if dice.keeps_highest:
                ka = min(a, k)
                ke = min(e, k - ka)
                kb = k - ka - ke
            else:
                kb = min(b, k)
                ke = min(e, k - kb)
                ka = k - kb - ke
            c = kb * passing[0] + ke * passing[1] + ka * passing[2]
            out[c] = out.get(c, 0) + weight
    return _as_die(out)


def _die(node: Node, text: str) -> Any:
    """A formula's value as an icepool die (or an int when no dice are involved)."""
    match node:
        case Num(value):
            return value
        case Name(name):  # pragma: no cover - roll refuses names before this
            raise FormulaError(text, Msg("formula.unknown_field", name=name))
        case Dice():
            if node.count_op is not None:
                return _counted(node, text)
            from sevendag_cli.sim.formula_dice import MAX_GROUP_WORK, _base_die, _group_die

            work = (node.count * len(_base_die(node))) ** 2 * (4 if node.select is not None else 1)
            if work > MAX_GROUP_WORK:  # what _group_die would refuse, said for roll
                raise FormulaError(text, Msg("roll.odds_group_too_big", dice=node.notation))
            return _group_die(node)
        case Neg(operand):
            return -_die(operand, text)
        case BinOp(op, left, right):
            x = _die(left, text)
            y = _die(right, text)
            if isinstance(x, int) and isinstance(y, int):
                return apply_op(op, x, y, text)
            _pairs(text, x, y)
            if op == "+":
                return x + y
            if op == "-":
                return x - y
            if op == "*":
                return x * y
            if (y == 0) if isinstance(y, int) else (0 in y):
                raise FormulaError(text, Msg("formula.division_by_zero_possible"))
            return x // y
        case Call(function, args):
            values = [_die(a, text) for a in args]
            if all(isinstance(v, int) for v in values):
                if function == "min":
                    return min(values)
                if function == "max":
                    return max(values)
                return (values[0] - 10) // 2
            import icepool

            if function == "mod":
                return values[0].map(lambda v: (v - 10) // 2)
            _pairs(text, *values)
            dice = [icepool.Die([v]) if isinstance(v, int) else v for v in values]
            return icepool.lowest(*dice) if function == "min" else icepool.highest(*dice)
        case Compare(op, left, right):
            x, wx = _weights(_die(left, text))
            y, wy = _weights(_die(right, text))
            _pairs(text, x, y)
            true = sum(p * q for a, p in x.items() for b, q in y.items() if compare(op, a, b))
            total = wx * wy
            return _as_die({v: w for v, w in ((0, total - true), (1, true)) if w}) \
                if 0 < true < total else int(true == total)
    raise AssertionError(f"unknown node {node!r}")  # pragma: no cover


def distribution(formula: Formula, label: str | None = None) -> Distribution:
    """The exact distribution of one expression's value (bounded work, see the module)."""
    w, total = _weights(_die(formula.tree, formula.text))
    values = tuple(sorted(w))
    weights = tuple(w[v] for v in values)
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
