"""Formulas as exact laws: every formula of the formula language (:mod:`sevendag_cli.formula`)
turned into integer weights (:mod:`sevendag_cli.sim.weights`) by walking its tree, and a check
split by its "natural" (its first die, or the kept die of ``2d20kh1``).  Shared by the exact
solvers of both rulesets and by ``roll --odds``; no ruleset's rules here.

- **One die** (:func:`die_weights`): its faces, rerolled (``ro``, ``rr``: the same bounded
  rerolls as the roller), raised or lowered (``mi``, ``ma``), or its explosion chain (at most
  ``MAX_EXPLOSIONS`` more rolls), each outcome with its whole-number weight.
- **A group**: the sum of its dice is one power of that law (:func:`~.weights.power`, any
  count of dice, no recursion); keep and drop are :mod:`icepool`'s pool of the die, its
  highest or lowest dice (its multiset algorithm is what icepool is good at), bounded by
  :data:`MAX_GROUP_WORK`; success counting (``roll``) counts the kept dice that pass from the
  multinomial law of three classes of faces.
- **Arithmetic**: ``+``/``-`` by :func:`~.weights.add` (one multiplication for large laws),
  ``*`` and ``//`` pair by pair, ``min``/``max`` from the laws' cumulative weights,
  ``mod`` value by value; a comparison of totals (``roll``) is a law over 0 and 1.

**Bounds before work** (:func:`check_size`): the values, the digits of the weights and the
pairs of values of every part are estimated from the tree (its dice, the ranges of its
values) before anything is computed, and a part past :data:`~sevendag_cli.limits.MAX_EXACT_VALUES`,
:data:`~sevendag_cli.limits.MAX_EXACT_DIGITS` or :data:`~sevendag_cli.limits.MAX_EXACT_PAIRS`
is refused with one line naming it: no refusal comes after seconds of work.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping
from fractions import Fraction
from itertools import accumulate

import msgspec

from sevendag_cli.errors import FormulaError, Msg, UsageError
from sevendag_cli.formula import (
    MAX_EXPLOSIONS,
    MAX_REROLLS,
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
    die_range,
    field_value,
    node_text,
)
from sevendag_cli.limits import MAX_EXACT_DIGITS, MAX_EXACT_PAIRS, MAX_EXACT_VALUES
from sevendag_cli.sim.weights import Weights, add, digits_bound, mapped, ordered, power, total

Dist = dict[int, Fraction]
"""A finite distribution: value -> probability."""

Law = Weights | int
"""A part of a formula's value: its law, or a number where it rolls no die."""

MAX_GROUP_WORK = 4_000_000
"""Largest keep/drop group exact odds accept, in (dice × values of one die)² × 4: icepool's
pool of ``N`` dice of ``m`` values costs about that (``20d20kh10`` is 640,000); a plain sum
has no such limit (its size is bounded by the distribution's)."""
MAX_COUNTED_DICE = 200
"""Most dice in a group that counts successes and keeps or drops some (``200d10kh100>=7``):
its law runs over every split of the dice into three classes, about N²/2 of them."""


# --- one die, one group ----------------------------------------------------------------------


def die_weights(dice: Dice) -> Weights:
    """One die of the group: its law, values in increasing order.

    Over ``S**k`` for ``k`` rolls at most: a plain die ``{1: 1, …, S: 1}``; ``ro`` (``k`` = 2)
    a face that stands at once ``S + m`` (``m`` faces match), a matching face ``m``; ``rr``
    at most ``R`` rerolls (``k`` = R + 1) ``Σ m^j S^(R-j)`` and ``m^R`` likewise (the last
    roll stands); then ``mi``/``ma`` move the weights of the faces they raise or lower.
    """
    if dice.explode:
        return explosion_chain(dice.sides, MAX_EXPLOSIONS)
    s = dice.sides
    if dice.reroll is None:
        faces = {f: 1 for f in range(1, s + 1)}
    else:
        rerolls = 1 if dice.reroll == "ro" else MAX_REROLLS
        m = sum(1 for f in range(1, s + 1) if dice.rerolls(f))
        stands = sum(m**j * s ** (rerolls - j) for j in range(rerolls + 1))
        faces = {f: m**rerolls if dice.rerolls(f) else stands for f in range(1, s + 1)}
    if dice.minimum is None and dice.maximum is None:
        return faces
    return mapped(faces, dice.clamped)


def explosion_chain(sides: int, depth: int) -> Weights:
    """An exploding die (at most ``depth`` explosions), over ``sides**(depth + 1)``: ``k``
    highest faces then a lower one, ``k·S + f``, weighs ``S**(depth - k)``; ``depth + 1``
    highest faces (the last counts, no more roll) weighs 1."""
    out: Weights = {}
    for k in range(depth + 1):
        for f in range(1, sides):
            out[k * sides + f] = sides ** (depth - k)
    out[(depth + 1) * sides] = 1
    return ordered(out)


def group_weights(dice: Dice, one: Weights | None = None) -> Weights:
    """A group's value: the sum of its dice, of its kept dice, or its successes (each die
    drawn from ``one``, by default :func:`die_weights`)."""
    if one is None:
        one = die_weights(dice)
    if dice.count_op is not None:
        return _counted(dice, one)
    if dice.select is None:
        return power(one, dice.count)
    import icepool

    pool = icepool.Die(one).pool(dice.count)
    kept = pool.highest(dice.kept) if dice.keeps_highest else pool.lowest(dice.kept)
    return {int(v): int(q) for v, q in kept.sum().items() if q}


def _counted(dice: Dice, one: Weights) -> Weights:
    """Success counting: the law of the number of kept dice whose total passes the target."""
    below = sum(w for v, w in one.items() if v < dice.count_target)
    equal = one.get(dice.count_target, 0)
    above = total(one) - below - equal
    n, op = dice.count, dice.count_op or "="
    passing = {">=": (0, 1, 1), ">": (0, 0, 1), "<=": (1, 1, 0), "<": (1, 0, 0), "=": (0, 1, 0)}[op]
    if dice.select is None:  # every die kept: a binomial
        p = sum(w for w, on in zip((below, equal, above), passing, strict=True) if on)
        fail = below + equal + above - p
        return ordered({c: math.comb(n, c) * p**c * fail ** (n - c) for c in range(n + 1)})
    k = dice.kept
    out: Weights = {}
    for a in range(n + 1):  # a dice above, e equal, the rest below
        ways_a = math.comb(n, a) * above**a
        for e in range(n - a + 1):
            b = n - a - e
            weight = ways_a * math.comb(n - a, e) * equal**e * below**b
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
    return ordered(out)


# --- bounds before work ----------------------------------------------------------------------


class Size(msgspec.Struct, frozen=True):
    """What a part's law may hold, estimated from the tree: its lowest and highest value, at
    most ``values`` values, weights of at most ``digits`` digits (0: a number, no law)."""

    low: int
    high: int
    values: int
    digits: int


def _group_digits(dice: Dice) -> int:
    """Digits of the total weight of a group's law: its dice's, ``S**rolls`` each."""
    return digits_bound(dice.sides ** (dice.rolls_per_die * dice.count))


def check_size(formula: Formula, env: Mapping[str, int], runs_hint: bool = True) -> Size:
    """Refuse, before any work, a formula whose exact law (or a part's) is too large: one
    line naming the part, its estimated size and the limit (see the module).

    ``runs_hint``: the message ends with "simulate with --runs instead" (a fight's exact
    odds; ``roll --odds`` has no simulation to offer).
    """
    return _size(formula.tree, env, formula.text, Msg("formula.hint_runs") if runs_hint else "")


def _refuse(key: str, node: Node, hint: object, **params: object) -> UsageError:
    return UsageError(Msg(key, part=node_text(node), hint=hint, **params))


def _checked(node: Node, size: Size, hint: object) -> Size:
    if size.values > MAX_EXACT_VALUES:
        raise _refuse("formula.exact_values", node, hint, n=size.values, max=MAX_EXACT_VALUES)
    if size.values * size.digits > MAX_EXACT_DIGITS:
        raise _refuse("formula.exact_digits", node, hint, n=size.values * size.digits,
                      values=size.values, each=size.digits, max=MAX_EXACT_DIGITS)
    return size


def _size(node: Node, env: Mapping[str, int], text: str, hint: object) -> Size:
    match node:
        case Num(value):
            return Size(value, value, 1, 0)
        case Name(name):
            value = field_value(env, name, text)
            return Size(value, value, 1, 0)
        case Dice():
            return _checked(node, _dice_size(node, hint), hint)
        case Neg(operand):
            inner = _size(operand, env, text, hint)
            return Size(-inner.high, -inner.low, inner.values, inner.digits)
        case BinOp(op, left, right):
            x, y = _size(left, env, text, hint), _size(right, env, text, hint)
            corners = [a * b for a in (x.low, x.high) for b in (y.low, y.high)]
            if op == "+":
                low, high = x.low + y.low, x.high + y.high
            elif op == "-":
                low, high = x.low - y.high, x.high - y.low
            elif op == "*":
                low, high = min(corners), max(corners)
            else:  # floor division: within the dividend's magnitude, either sign
                reach = max(abs(x.low), abs(x.high))
                low, high = -reach, reach
            pairs = x.values * y.values
            if op in ("*", "//") and pairs > MAX_EXACT_PAIRS:
                raise _refuse("formula.exact_pairs", node, hint, n=pairs, max=MAX_EXACT_PAIRS)
            return _checked(node, Size(low, high, min(pairs, high - low + 1), x.digits + y.digits), hint)
        case Call(function, args):
            parts = [_size(a, env, text, hint) for a in args]
            if function == "mod":
                x = parts[0]
                return Size((x.low - 10) // 2, (x.high - 10) // 2, x.values, x.digits)
            pick = min if function == "min" else max
            low, high = pick(p.low for p in parts), pick(p.high for p in parts)
            values = min(sum(p.values for p in parts), high - low + 1)
            return _checked(node, Size(low, high, values, sum(p.digits for p in parts)), hint)
        case Compare(_, left, right):
            x, y = _size(left, env, text, hint), _size(right, env, text, hint)
            return Size(0, 1, 2, x.digits + y.digits)
    raise AssertionError(f"unknown node {node!r}")  # pragma: no cover


def _dice_size(dice: Dice, hint: object) -> Size:
    low, high = die_range(dice)
    one = high - low + 1  # values of one die (at most)
    digits = _group_digits(dice)
    if dice.count_op is not None:
        if dice.select is not None and dice.count > MAX_COUNTED_DICE:
            raise _refuse("formula.exact_counted", dice, hint, max=MAX_COUNTED_DICE)
        return Size(0, dice.kept, dice.kept + 1, digits)
    if dice.select is not None:
        work = (dice.count * one) ** 2 * 4
        if work > MAX_GROUP_WORK:
            raise _refuse("formula.exact_too_big", dice, hint, work=work, max=MAX_GROUP_WORK)
    return Size(dice.kept * low, dice.kept * high, dice.kept * (high - low) + 1, digits)


# --- formulas as laws ------------------------------------------------------------------------


def _law(node: Node, env: Mapping[str, int], replaced: tuple[Dice, Weights] | None, text: str) -> Law:
    """A formula's value as a law; ``replaced``: a dice node (by identity) and its law instead."""
    match node:
        case Num(value):
            return value
        case Name(name):
            return field_value(env, name, text)
        case Dice():
            if replaced is not None and node is replaced[0]:
                return replaced[1]
            return group_weights(node)
        case Neg(operand):
            x = _law(operand, env, replaced, text)
            return -x if isinstance(x, int) else mapped(x, lambda v: -v)
        case BinOp(op, left, right):
            x = _law(left, env, replaced, text)
            y = _law(right, env, replaced, text)
            if isinstance(x, int) and isinstance(y, int):
                return apply_op(op, x, y, text)
            return _binary(op, x, y, text)
        case Call(function, args):
            values = [_law(a, env, replaced, text) for a in args]
            numbers = [v for v in values if isinstance(v, int)]
            if len(numbers) == len(values):
                if function == "min":
                    return min(numbers)
                if function == "max":
                    return max(numbers)
                return (numbers[0] - 10) // 2
            laws = [{v: 1} if isinstance(v, int) else v for v in values]
            if function == "mod":
                return mapped(laws[0], lambda v: (v - 10) // 2)
            return _extreme(laws, highest=function == "max")
        case Compare(op, left, right):
            return _compared(op, _as_weights(_law(left, env, replaced, text)),
                             _as_weights(_law(right, env, replaced, text)))
    raise AssertionError(f"unknown node {node!r}")  # pragma: no cover


def _as_weights(x: Law) -> Weights:
    return {x: 1} if isinstance(x, int) else x


def _binary(op: str, x: Law, y: Law, text: str) -> Weights:
    if op in ("+", "-"):
        sign = 1 if op == "+" else -1
        if isinstance(y, int):
            return {v + sign * y: w for v, w in _as_weights(x).items()}
        if isinstance(x, int):
            return {x + sign * v: w for v, w in sorted(y.items(), reverse=sign < 0)}
        return add(x, y, sign)
    if op == "//":
        if isinstance(y, int) and y == 0:
            raise FormulaError(text, Msg("formula.division_by_zero"))
        if not isinstance(y, int) and 0 in y:
            raise FormulaError(text, Msg("formula.division_by_zero_possible"))
    f: Callable[[int, int], int] = (lambda a, b: a * b) if op == "*" else (lambda a, b: a // b)
    out: Weights = {}
    for a, p in _as_weights(x).items():
        for b, q in _as_weights(y).items():
            k = f(a, b)
            out[k] = out.get(k, 0) + p * q
    return ordered(out)


def _extreme(laws: list[Weights], highest: bool) -> Weights:
    """The law of the highest (lowest) of independent laws, from their cumulative weights:
    P(max ≤ t) = Π P(X_i ≤ t) (P(min ≥ t) likewise), over the union of their values."""
    values = sorted({v for law in laws for v in law})
    order = values if highest else values[::-1]
    running: list[list[int]] = []
    for law in laws:  # each law's weight of values at or below (above) each value, in order
        running.append(list(accumulate(law.get(v, 0) for v in order)))
    out: Weights = {}
    previous = 0
    for i, v in enumerate(order):
        joint = 1
        for acc in running:
            joint *= acc[i]
        if joint != previous:
            out[v] = joint - previous
        previous = joint
    return ordered(out)


def _compared(op: str, x: Weights, y: Weights) -> Law:
    """``x op y`` as a law over 0 (false) and 1 (true); a number where it is certain."""
    values = sorted(x)
    at_or_below = list(accumulate(x[v] for v in values))
    whole = at_or_below[-1]

    def upto(i: int) -> int:  # weight of the i lowest values
        return at_or_below[i - 1] if i else 0

    true = 0
    for b, q in y.items():
        below, above = bisect_left(values, b), bisect_right(values, b)
        if op == ">=":
            count = whole - upto(below)
        elif op == ">":
            count = whole - upto(above)
        elif op == "<=":
            count = upto(above)
        elif op == "<":
            count = upto(below)
        else:
            count = upto(above) - upto(below)
        true += count * q
    every = whole * total(y)
    if 0 < true < every:
        return {0: every - true, 1: true}
    return int(true == every)


def formula_weights(formula: Formula, env: Mapping[str, int]) -> Weights:
    """The exact law of a formula's value for a fighter (refused first if too large)."""
    check_size(formula, env)
    return _as_weights(_law(formula.tree, env, None, formula.text))


def formula_law(formula: Formula, env: Mapping[str, int], runs_hint: bool = True) -> Weights:
    """:func:`formula_weights` with the hint of its refusals chosen (``roll --odds``: none)."""
    check_size(formula, env, runs_hint)
    return _as_weights(_law(formula.tree, env, None, formula.text))


def formula_dist(formula: Formula, env: Mapping[str, int]) -> Dist:
    """The exact distribution of a formula's value for a fighter."""
    return _fractions(formula_weights(formula, env))


# --- a check split by its natural ------------------------------------------------------------


def _restricted(dice: Dice, low: int, high: int | None) -> Dist:
    """P(every die of the group within [low, high] and the group's value = t), for each t."""
    one = die_weights(dice)
    inside = {v: q for v, q in one.items() if v >= low and (high is None or v <= high)}
    if not inside:
        return {}
    mass = Fraction(total(inside), total(one)) ** dice.count
    group = group_weights(dice, inside)
    den = total(group)
    return {v: mass * Fraction(q, den) for v, q in group.items() if q}


def _minus(x: Dist, y: Dist) -> Dist:
    out = dict(x)
    for v, p in y.items():
        out[v] = out.get(v, Fraction(0)) - p
    return {v: p for v, p in out.items() if p}


def _scaled_weights(joint: Dist) -> Weights:
    """A sub-distribution as integer weights (normalised)."""
    scale = math.lcm(*(p.denominator for p in joint.values()))
    return ordered({v: int(p * scale) for v, p in joint.items()})


def natural_groups(dice: Dice) -> list[tuple[int, Fraction, Law]]:
    """A dice group split by its natural: ``(natural, its probability, the group's value given it)``.

    The natural (formula.py) is the first face that stands of the group's first die, or of
    its highest (lowest) kept die.  A die's first face is ``min(its total, sides)`` (it
    explodes only on its highest face; a modified die never explodes and its value is its
    face), so with a selection the natural is ``min(max total, S)`` (``min`` for the
    lowest): the joint law comes from the groups whose dice all lie below (above) each
    face, by difference.
    """
    s = dice.sides
    if dice.select is None:
        rest: Law = group_weights(msgspec.structs.replace(dice, count=dice.count - 1)) \
            if dice.count > 1 else 0
        if dice.explode:
            again = explosion_chain(s, MAX_EXPLOSIONS - 1)
            return [(n, Fraction(1, s), _plus(_binary("+", again, n, "") if n == s else n, rest))
                    for n in range(1, s + 1)]
        one = die_weights(dice)
        whole = total(one)
        return [(n, Fraction(w, whole), _plus(n, rest)) for n, w in one.items()]
    if dice.keeps_highest:  # natural n: every die's first face <= n, and not all < n
        below: list[Dist] = [{}, *(_restricted(dice, 1, v) for v in range(1, s)), _restricted(dice, 1, None)]
        joints = [_minus(below[n], below[n - 1]) for n in range(1, s + 1)]
    else:  # natural n: every die >= n, and not all > n (n = s: every die >= s)
        above = [_restricted(dice, v, None) for v in range(1, s + 1)] + [{}]
        joints = [_minus(above[n - 1], above[n]) for n in range(1, s + 1)]
    return [(n, sum(j.values(), Fraction(0)), _scaled_weights(j)) for n, j in enumerate(joints, start=1) if j]


def _plus(x: Law, y: Law) -> Law:
    if isinstance(x, int) and isinstance(y, int):
        return x + y
    return _binary("+", x, y, "")


def natural_split(formula: Formula, env: Mapping[str, int]) -> list[tuple[int, Fraction, Weights]]:
    """A check split by its natural: ``(natural, its probability, weights of the total)``.

    A formula that rolls no die has the single natural 0, as in the step-by-step engine.
    """
    if not formula.dice:
        return [(0, Fraction(1), formula_weights(formula, env))]
    check_size(formula, env)
    first = formula.dice[0]
    return [
        (n, p, _as_weights(_law(formula.tree, env, (first, _as_weights(group)), formula.text)))
        for n, p, group in natural_groups(first)
    ]


# --- what the solvers combine ------------------------------------------------------------------


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
    """The law of ``times`` independent copies of ``x`` added (``{0: 1}`` for none)."""
    if times < 1:
        return {0: 1}
    return power(x, times)
