"""Distributions as integer weights (value → weight), exact and without icepool: what the d20
solver (:mod:`sevendag_cli.d20.exact`), the Sevendag chain (:mod:`sevendag_cli.sevendag.chain`)
and the formulas' exact laws (:mod:`sevendag_cli.sim.formula_dice`) combine.

Sums of many dice (:func:`power`) and of two large laws (:func:`add`) are one big
multiplication, not a loop over pairs of values: a law over ``lo .. lo + n - 1`` is the
polynomial ``Σ w_i x^i``, and written with ``x = 10**D``, ``D`` digits more than any weight
of the result can have, it is one integer whose ``D``-digit slices are its weights.  The
product of two such integers holds the law of the sum in its slices (no slice overflows
into the next), and its ``N``-th power the law of ``N`` dice (Kronecker substitution).  The
multiplication is :mod:`decimal`'s (libmpdec: a number-theoretic transform for large
operands, exact at unlimited precision, with every rounding trapped): ``1000d6`` is one
number of 3.9 million digits raised to the 1000th power, far faster than Python's own
integers or than 1000 convolutions.  No recursion, no float: every weight is exact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from decimal import Decimal

Weights = dict[int, int]
"""A finite distribution as integer weights: value -> weight (probability = weight / sum)."""

DIRECT_PAIRS = 4096
"""Largest number of pairs of values :func:`add` combines one pair at a time; beyond, one
multiplication, when the laws are dense enough (see :func:`add`)."""
_TEXT_DIGITS = 4000
"""Widest weight written or read through ``str``/``int`` (Python refuses more than 4300
digits by default); wider ones go through :class:`decimal.Decimal`, which has no such limit."""


def convolve(x: Weights, y: Weights, sign: int = 1) -> Weights:
    """The distribution of x + sign * y, as integer weights."""
    out: Weights = {}
    for u, pu in x.items():
        for v, pv in y.items():
            k = u + sign * v
            out[k] = out.get(k, 0) + pu * pv
    return out


def total(x: Weights) -> int:
    """The sum of the weights (the denominator of the probabilities)."""
    return sum(x.values())


def digits_bound(n: int) -> int:
    """At least the number of decimal digits of ``n`` ≥ 0, from its bits (no conversion)."""
    return n.bit_length() * 30103 // 100000 + 1


def ordered(x: Weights) -> Weights:
    """The same law with its values in increasing order and no zero weight."""
    return {v: x[v] for v in sorted(x) if x[v]}


def mapped(x: Weights, f: Callable[[int], int]) -> Weights:
    """The law of ``f(X)``, values in increasing order."""
    out: Weights = {}
    for v, w in x.items():
        k = f(v)
        out[k] = out.get(k, 0) + w
    return ordered(out)


def add(x: Weights, y: Weights, sign: int = 1) -> Weights:
    """The law of ``x + sign * y`` (independent), values in increasing order.

    Pair by pair when there are few pairs or the laws are sparse (``1d6*1000 + 1d6*1000``);
    else one multiplication (see the module), whose size is the span of the values times
    the digits of the weights.
    """
    if sign < 0:
        y = {-v: w for v, w in y.items()}
    pairs = len(x) * len(y)
    span = (max(x) - min(x)) + (max(y) - min(y)) + 1 if x and y else 0
    if pairs <= DIRECT_PAIRS or span > 4 * pairs:
        return ordered(convolve(x, y))
    return _product([x, y])


def power(x: Weights, n: int) -> Weights:
    """The law of the sum of ``n`` ≥ 1 independent copies of ``x`` (``n`` dice), values in
    increasing order: one power of one number (see the module)."""
    if n == 1 or len(x) <= 1:
        return {n * v: w**n for v, w in sorted(x.items())}
    if n * n * len(x) * (max(x) - min(x) + 1) <= 2 * DIRECT_PAIRS:  # a few small dice: pairs
        # cost less than packing (about n² · values · span / 2 of them)
        out = {0: 1}
        for _ in range(n):
            out = convolve(out, x)
        return ordered(out)
    return _product([x], n)


def _product(laws: list[Weights], times: int = 1) -> Weights:
    """The law of the sum of the independent ``laws``, each ``times`` times (Kronecker
    substitution through :mod:`decimal`, see the module)."""
    from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal, Inexact, Rounded

    ctx = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN, traps=[Inexact, Rounded])
    top = 1
    for law in laws:
        top *= total(law)
    top **= times
    width = digits_bound(top)  # every weight of the result is at most ``top``: no slice overflows
    base = sum(min(law) for law in laws) * times
    packed = [_packed(law, width) for law in laws]
    result = packed[0]
    for other in packed[1:]:
        result = ctx.multiply(result, other)
    if times > 1:
        result = ctx.power(result, times)
    text = format(result, "f")
    out: Weights = {}
    end = len(text)
    value = base
    while end > 0:  # the lowest slice is the lowest value's weight
        chunk = text[max(0, end - width):end]
        weight = int(chunk) if width <= _TEXT_DIGITS else int(Decimal(chunk))
        if weight:
            out[value] = weight
        value += 1
        end -= width
    return out


def _packed(law: Weights, width: int) -> Decimal:
    """A law as one :class:`decimal.Decimal`: its weights in ``width``-digit slices, the
    lowest value's last."""
    from decimal import Decimal

    low, high = min(law), max(law)
    text: Iterable[str] = (_digits(law.get(v, 0), width) for v in range(high, low - 1, -1))
    return Decimal("".join(text))


def _digits(weight: int, width: int) -> str:
    if weight.bit_length() < _TEXT_DIGITS * 3:
        return str(weight).zfill(width)
    from decimal import Decimal

    return format(Decimal(weight), "f").zfill(width)
