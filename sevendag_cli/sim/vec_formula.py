"""Formulas on arrays: a formula bound to a fighter's fields, rolled for many fights at once
(numpy), for either ruleset's vectorised simulator.

A die ``NdS`` is ``N`` columns of ``rng.integers(1, S + 1)``; rerolls (``ro``, ``rr``) draw
again the cells that match, ``mi``/``ma`` clip the columns, explosions add to the columns
that showed the highest face, keep/drop sorts the columns; the natural of a check is its
first die, or the kept die of ``2d20kh1``.  A formula that is a sum of dice and a constant
(the usual weapon) is rolled without walking its tree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sevendag_cli.errors import FormulaError, Msg
from sevendag_cli.formula import (
    MAX_EXPLOSIONS,
    MAX_REROLLS,
    BinOp,
    Call,
    Dice,
    Formula,
    Name,
    Neg,
    Node,
    Num,
    ability_mod,
    apply_op,
    field_value,
)
from sevendag_cli.limits import INT_LIMIT

IntArray = npt.NDArray[np.int64]
Value = IntArray | int


# --- formulas on arrays ---------------------------------------------------------


def _constant(node: Node, env: Mapping[str, int], text: str) -> int | None:
    """The value of a subtree that rolls no dice, else None."""
    match node:
        case Num(value):
            return value
        case Name(name):
            return field_value(env, name, text)
        case Dice():
            return None
        case Neg(operand):
            v = _constant(operand, env, text)
            return None if v is None else -v
        case BinOp(op, left, right):
            x = _constant(left, env, text)
            y = _constant(right, env, text)
            if x is None or y is None:
                return None
            return apply_op(op, x, y, text)
        case Call(function, args):
            vals = [_constant(a, env, text) for a in args]
            if any(v is None for v in vals):
                return None
            ints = [v for v in vals if v is not None]
            if function == "min":
                return min(ints)
            if function == "max":
                return max(ints)
            return ability_mod(ints[0])
    raise AssertionError(f"unknown node {node!r}")  # pragma: no cover


def _linear(node: Node, env: Mapping[str, int], text: str,
            sign: int = 1) -> tuple[int, list[tuple[int, Dice]]] | None:
    """``node`` as constant + Σ ±dice when it is made of + - and negation only."""
    c = _constant(node, env, text)
    if c is not None:
        return sign * c, []
    match node:
        case Dice():
            return 0, [(sign, node)]
        case Neg(operand):
            return _linear(operand, env, text, -sign)
        case BinOp(op, left, right) if op in "+-":
            x = _linear(left, env, text, sign)
            y = _linear(right, env, text, sign if op == "+" else -sign)
            if x is None or y is None:
                return None
            return x[0] + y[0], x[1] + y[1]
    return None


@dataclass(frozen=True)
class VecFormula:
    """A formula bound to one fighter's fields, ready to roll on arrays."""

    formula: Formula
    env: tuple[tuple[str, int], ...]
    linear: tuple[int, tuple[tuple[int, Dice], ...]] | None

    @classmethod
    def bind(cls, formula: Formula, env: Mapping[str, int]) -> VecFormula:
        lin = _linear(formula.tree, env, formula.text)
        if lin is not None and not -INT_LIMIT <= lin[0] <= INT_LIMIT:
            lin = None  # its constants, gathered, pass the bound: add them in the formula's order
        linear = None if lin is None else (lin[0], tuple(lin[1]))
        return cls(formula, tuple(sorted(env.items())), linear)

    def roll(self, rng: np.random.Generator, n: int,
             natural: bool = False) -> tuple[IntArray, IntArray | None]:
        """``n`` independent evaluations; with ``natural``, also the first die's faces.

        A formula that rolls no die has natural 0, as in the step-by-step engine.
        """
        nat: list[IntArray] = []
        if self.linear is not None:
            const, terms = self.linear
            rolled: IntArray | None = None
            for sign, dice in terms:
                faces = _dice(rng, dice, n, nat if natural else None)
                if rolled is None:  # a new array (the faces may be the natural's)
                    rolled = faces + const if sign > 0 else const - faces
                elif sign > 0:
                    rolled += faces
                else:
                    rolled -= faces
            total = np.full(n, const, dtype=np.int64) if rolled is None else rolled
        else:
            value = _eval(self.formula.tree, dict(self.env), rng, n, nat if natural else None,
                          self.formula.text)
            total = np.broadcast_to(np.asarray(value, dtype=np.int64), (n,)).copy()
        if not natural:
            return total, None
        first = nat[0] if nat else np.zeros(n, dtype=np.int64)
        return total, first


def _dice(rng: np.random.Generator, dice: Dice, n: int,
          nat: list[IntArray] | None) -> IntArray:
    """``n`` rolls of a dice group; the first group rolled gives the natural (formula.py)."""
    if dice.explode or dice.select is not None or dice.modified:
        return _dice_group(rng, dice, n, nat)
    if dice.count == 1:
        faces: IntArray = rng.integers(1, dice.sides + 1, size=n, dtype=np.int64)
        if nat is not None and not nat:
            nat.append(faces)
        return faces
    grid = rng.integers(1, dice.sides + 1, size=(n, dice.count), dtype=np.int64)
    if nat is not None and not nat:
        nat.append(grid[:, 0].copy())
    out: IntArray = grid.sum(axis=1)
    return out


def _dice_group(rng: np.random.Generator, dice: Dice, n: int,
                nat: list[IntArray] | None) -> IntArray:
    """Exploding dice and keep/drop: each die's total, then the kept ones added.

    An exploding die's first face is ``min(total, sides)``, so the natural of a selection is
    the highest (lowest) kept total capped at the sides.
    """
    s = dice.sides
    grid = rng.integers(1, s + 1, size=(n, dice.count), dtype=np.int64)
    if dice.reroll is not None:
        _reroll(rng, dice, grid)
    if dice.minimum is not None:
        np.maximum(grid, dice.minimum, out=grid)
    if dice.maximum is not None:
        np.minimum(grid, dice.maximum, out=grid)
    if dice.explode:
        rows, cols = np.nonzero(grid == s)
        for _ in range(MAX_EXPLOSIONS):
            if rows.size == 0:
                break
            extra = rng.integers(1, s + 1, size=rows.size, dtype=np.int64)
            grid[rows, cols] += extra
            again = extra == s
            rows, cols = rows[again], cols[again]
    if dice.select is None:
        natural = np.minimum(grid[:, 0], s)
        out: IntArray = grid.sum(axis=1)
    else:
        ordered = np.sort(grid, axis=1)
        if dice.keeps_highest:
            kept = ordered[:, dice.count - dice.kept:]
            natural = np.minimum(ordered[:, -1], s)
        else:
            kept = ordered[:, :dice.kept]
            natural = np.minimum(ordered[:, 0], s)
        out = kept.sum(axis=1)
    if nat is not None and not nat:
        nat.append(natural)
    return out


def _matching(dice: Dice, faces: IntArray) -> npt.NDArray[np.bool_]:
    """Which faces ``ro``/``rr`` roll again (:meth:`~sevendag_cli.formula.Dice.rerolls`)."""
    out: npt.NDArray[np.bool_]
    if dice.reroll_op == "<":
        out = faces < dice.reroll_target
    elif dice.reroll_op == ">":
        out = faces > dice.reroll_target
    else:
        out = faces == dice.reroll_target
    return out


def _reroll(rng: np.random.Generator, dice: Dice, grid: IntArray) -> None:
    """``ro``: the cells that match drawn again once; ``rr``: again while they match, at most
    MAX_REROLLS times (the last draw stands), in place."""
    rows, cols = np.nonzero(_matching(dice, grid))
    for _ in range(1 if dice.reroll == "ro" else MAX_REROLLS):
        if rows.size == 0:
            break
        faces = rng.integers(1, dice.sides + 1, size=rows.size, dtype=np.int64)
        grid[rows, cols] = faces
        again = _matching(dice, faces)
        rows, cols = rows[again], cols[again]


def _eval(node: Node, env: Mapping[str, int], rng: np.random.Generator, n: int,
          nat: list[IntArray] | None, text: str) -> Value:
    """Generic tree walk, dice in evaluation order (left to right)."""
    match node:
        case Num(value):
            return value
        case Name(name):
            return field_value(env, name, text)
        case Dice():
            return _dice(rng, node, n, nat)
        case Neg(operand):
            return -_eval(operand, env, rng, n, nat, text)
        case BinOp(op, left, right):
            x = _eval(left, env, rng, n, nat, text)
            y = _eval(right, env, rng, n, nat, text)
            if op == "+":
                return x + y
            if op == "-":
                return x - y
            if op == "*":
                return x * y
            if np.any(np.asarray(y) == 0):
                raise FormulaError(text, Msg("formula.division_by_zero"))
            return np.floor_divide(x, y)
        case Call(function, args):
            vals = [_eval(a, env, rng, n, nat, text) for a in args]
            if function == "min":
                out = vals[0]
                for v in vals[1:]:
                    out = np.minimum(out, v)
                return out
            if function == "max":
                out = vals[0]
                for v in vals[1:]:
                    out = np.maximum(out, v)
                return out
            return ability_mod(vals[0])  # type: ignore[arg-type]  # works on arrays too
    raise AssertionError(f"unknown node {node!r}")  # pragma: no cover


__all__ = ["IntArray", "Value", "VecFormula"]
