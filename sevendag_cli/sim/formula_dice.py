"""Formulas as exact dice: every formula of the formula language (:mod:`sevendag_cli.formula`)
turned into an :mod:`icepool` die by walking its tree (fixed fields from the environment; keep
and drop as a pool's highest or lowest dice, an exploding die as a chain of at most
``MAX_EXPLOSIONS`` more rolls), and a check split by its "natural" (its first die, or the kept
die of ``2d20kh1``).  Shared by the exact solvers of both rulesets and by ``roll --odds``; no
ruleset's rules here."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import icepool
import msgspec

from sevendag_cli.errors import FormulaError, Msg, UsageError
from sevendag_cli.formula import (
    MAX_EXPLOSIONS,
    BinOp,
    Call,
    Dice,
    Formula,
    Name,
    Neg,
    Node,
    Num,
    apply_op,
    field_value,
)
from sevendag_cli.sim.weights import Weights, convolve

Dist = dict[int, Fraction]
"""A finite distribution: value -> probability."""


# --- formulas as dice ---------------------------------------------------------

DieOrInt = Any  # icepool.Die | int (icepool is untyped)


def _base_die(dice: Dice) -> Any:
    """One die of a group: ``d(S)``, or its explosion chain (at most MAX_EXPLOSIONS more rolls)."""
    die = icepool.d(dice.sides)
    return die.explode(depth=MAX_EXPLOSIONS) if dice.explode else die


MAX_GROUP_WORK = 4_000_000
"""Largest dice group exact odds accept, in (dice × outcomes of one die)²: icepool's sum of
``N`` dice of ``m`` outcomes costs about ``N² m²`` (``100d20`` is 4e6, about a second here);
a keep/drop pool counts 4 times as much."""


def _group_die(dice: Dice, base: Any = None) -> Any:
    """A group's value: the sum of its dice, or of the kept ones (each die drawn from ``base``)."""
    one = _base_die(dice) if base is None else base
    work = (dice.count * len(one)) ** 2 * (4 if dice.select is not None else 1)
    if work > MAX_GROUP_WORK:
        raise UsageError(Msg("formula.exact_too_big", dice=dice.notation))
    if dice.select is None:
        return one if dice.count == 1 else dice.count @ one
    pool = one.pool(dice.count)
    return (pool.highest(dice.kept) if dice.keeps_highest else pool.lowest(dice.kept)).sum()


def _die_of(node: Node, env: Mapping[str, int], replaced: tuple[Dice, DieOrInt] | None,
            text: str) -> DieOrInt:
    """A formula's value as a die; ``replaced``: a dice node (by identity) and what it is instead."""
    match node:
        case Num(value):
            return value
        case Name(name):
            return field_value(env, name, text)
        case Dice():
            if replaced is not None and node is replaced[0]:
                return replaced[1]
            return _group_die(node)
        case Neg(operand):
            return -_die_of(operand, env, replaced, text)
        case BinOp(op, left, right):
            x = _die_of(left, env, replaced, text)
            y = _die_of(right, env, replaced, text)
            if isinstance(x, int) and isinstance(y, int):
                return apply_op(op, x, y, text)
            if op == "+":
                return x + y
            if op == "-":
                return x - y
            if op == "*":
                return x * y
            if isinstance(y, int):
                if y == 0:
                    raise FormulaError(text, Msg("formula.division_by_zero"))
                return x // y
            if 0 in y:
                raise FormulaError(text, Msg("formula.division_by_zero_possible"))
            return x // y
        case Call(function, args):
            values = [_die_of(a, env, replaced, text) for a in args]
            if all(isinstance(v, int) for v in values):
                if function == "min":
                    return min(values)
                if function == "max":
                    return max(values)
                return (values[0] - 10) // 2
            dice = [v if not isinstance(v, int) else icepool.Die([v]) for v in values]
            if function == "min":
                return icepool.lowest(*dice) if len(dice) > 1 else dice[0]
            if function == "max":
                return icepool.highest(*dice) if len(dice) > 1 else dice[0]
            return dice[0].map(lambda v: (v - 10) // 2)
    raise AssertionError(f"unknown node {node!r}")  # pragma: no cover


def formula_weights(formula: Formula, env: Mapping[str, int]) -> Weights:
    return _weights(_die_of(formula.tree, env, None, formula.text))


def formula_dist(formula: Formula, env: Mapping[str, int]) -> Dist:
    """The exact distribution of a formula's value for a fighter."""
    return _fractions(formula_weights(formula, env))


def _restricted(dice: Dice, low: int, high: int | None) -> Dist:
    """P(every die of the group within [low, high] and the group's value = t), for each t."""
    one = _base_die(dice)
    inside = sum(q for v, q in one.items() if v >= low and (high is None or v <= high))
    if not inside:
        return {}
    mass = Fraction(inside, one.denominator()) ** dice.count
    group = _group_die(dice, one.truncate(low, high))
    den = group.denominator()
    return {int(v): mass * Fraction(q, den) for v, q in group.items() if q}


def _minus(x: Dist, y: Dist) -> Dist:
    out = dict(x)
    for v, p in y.items():
        out[v] = out.get(v, Fraction(0)) - p
    return {v: p for v, p in out.items() if p}


def _as_die(joint: Dist) -> Any:
    """A sub-distribution as a die (integer weights, normalised)."""
    scale = math.lcm(*(p.denominator for p in joint.values()))
    return icepool.Die({v: int(p * scale) for v, p in joint.items()})


def natural_groups(dice: Dice) -> list[tuple[int, Fraction, DieOrInt]]:
    """A dice group split by its natural: ``(natural, its probability, the group's value given it)``.

    The natural (formula.py) is the first face of the group's first die, or of its highest
    (lowest) kept die.  A die's first face is ``min(its total, sides)`` (it explodes only on
    its highest face), so with a selection the natural is ``min(max total, S)`` (``min`` for
    the lowest): the joint law comes from the groups whose dice all lie below (above) each
    face, by difference.
    """
    s = dice.sides
    if dice.select is None:
        rest = _group_die(msgspec.structs.replace(dice, count=dice.count - 1)) if dice.count > 1 else 0
        again = icepool.d(s).explode(depth=MAX_EXPLOSIONS - 1) if dice.explode else 0
        return [(n, Fraction(1, s), (n + again if n == s else n) + rest) for n in range(1, s + 1)]
    if dice.keeps_highest:  # natural n: every die's first face <= n, and not all < n
        below: list[Dist] = [{}, *(_restricted(dice, 1, v) for v in range(1, s)), _restricted(dice, 1, None)]
        joints = [_minus(below[n], below[n - 1]) for n in range(1, s + 1)]
    else:  # natural n: every die >= n, and not all > n (n = s: every die >= s)
        above = [_restricted(dice, v, None) for v in range(1, s + 1)] + [{}]
        joints = [_minus(above[n - 1], above[n]) for n in range(1, s + 1)]
    return [(n, sum(j.values(), Fraction(0)), _as_die(j)) for n, j in enumerate(joints, start=1) if j]


def natural_split(formula: Formula, env: Mapping[str, int]) -> list[tuple[int, Fraction, Weights]]:
    """A check split by its natural: ``(natural, its probability, weights of the total)``.

    A formula that rolls no die has the single natural 0, as in the step-by-step engine.
    """
    if not formula.dice:
        return [(0, Fraction(1), formula_weights(formula, env))]
    first = formula.dice[0]
    return [
        (n, p, _weights(_die_of(formula.tree, env, (first, group), formula.text)))
        for n, p, group in natural_groups(first)
    ]


def _weights(x: DieOrInt) -> Weights:
    if isinstance(x, int):
        return {x: 1}
    return {int(v): int(q) for v, q in x.items() if q}


def _fractions(w: Weights) -> Dist:
    den = sum(w.values())
    return {v: Fraction(q, den) for v, q in w.items()}


def _p_greater(x: Weights, threshold: Weights) -> Fraction:
    """P(X > T) for independent X, T."""
    values = sorted(x)
    above = [0] * (len(values) + 1)  # above[i] = weight of values[i:]
    for i in range(len(values) - 1, -1, -1):
        above[i] = above[i + 1] + x[values[i]]
    num = sum(wt * above[bisect_right(values, t)] for t, wt in threshold.items())
    return Fraction(num, above[0] * sum(threshold.values()))


def _p_above(x: Weights, level: int) -> Fraction:
    return Fraction(sum(q for v, q in x.items() if v > level), sum(x.values()))


def _map(x: Weights, f: Callable[[int], int]) -> Weights:
    out: Weights = {}
    for v, p in x.items():
        k = f(v)
        out[k] = out.get(k, 0) + p
    return out


def _sum_of(x: Weights, times: int) -> Weights:
    out: Weights = {0: 1}
    for _ in range(times):
        out = convolve(out, x)
    return out


