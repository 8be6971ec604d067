"""A small, safe expression language for ruleset formulas (C-03).

Stages, as in a dice engine: ``parse`` (text → tokens → tree of frozen nodes),
then ``Formula.evaluate`` (tree + fighter fields + a dice source → value and
the rolls made).  Nothing is ever ``eval``'d.

Grammar::

    expr  := term (("+" | "-") term)*
    term  := unary (("*" | "//") unary)*
    unary := "-" unary | atom
    atom  := INT | DICE | NAME | NAME "(" expr ("," expr)* ")" | "(" expr ")"
    DICE  := [INT] "d" INT          e.g. 1d20, d6, 3d6

Functions: ``min(a, b, ...)``, ``max(a, b, ...)``, ``mod(x)`` = floor((x - 10) / 2)
(D-01).  Names are the fighter's fields; which names exist is checked when a
ruleset is loaded.  A roll budget refuses formulas that would roll too many
dice (``1000000d1000000``) before a single die is rolled.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from sevendag_cli.dice import DiceSource, Roll
from sevendag_cli.errors import FormulaError, RollBudgetError

ROLL_BUDGET = 1000
"""Most dice one formula evaluation may roll."""
MAX_SIDES = 1000
"""Most faces a die in a formula may have."""
MAX_LENGTH = 500
MAX_DEPTH = 40
MAX_LITERAL_DIGITS = 9

FUNCTIONS = {"min": (1, None), "max": (1, None), "mod": (1, 1)}


def ability_mod(score: int) -> int:
    """D-01: mod(score) = floor((score - 10) / 2)."""
    return (score - 10) // 2


# --- tree -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Num:
    value: int


@dataclass(frozen=True, slots=True)
class Dice:
    count: int
    sides: int


@dataclass(frozen=True, slots=True)
class Name:
    name: str


@dataclass(frozen=True, slots=True)
class Neg:
    operand: Node


@dataclass(frozen=True, slots=True)
class BinOp:
    op: str  # "+", "-", "*", "//"
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Call:
    function: str
    args: tuple[Node, ...]


Node = Num | Dice | Name | Neg | BinOp | Call


# --- tokens -----------------------------------------------------------------

_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<dice>\d*d\d+)(?![A-Za-z0-9_])"
    r"|(?P<int>\d+)(?![A-Za-z0-9_])"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>//|[-+*(),])"
    r")"
)


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str
    text: str
    pos: int


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    stripped_end = len(text.rstrip())
    while pos < stripped_end:
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            ch = text[pos:].lstrip()[:1]
            at = len(text) - len(text[pos:].lstrip())
            hint = " (use // for division)" if ch == "/" else ""
            if re.match(r"\d*d\s*-", text[at:]):
                hint = " (a die needs at least one side, like 1d6)"
            raise FormulaError(text, f"unexpected {ch!r} at position {at + 1}{hint}")
        kind = m.lastgroup
        assert kind is not None
        tokens.append(_Token(kind, m.group(kind), m.start(kind)))
        pos = m.end()
    tokens.append(_Token("end", "", len(text)))
    return tokens


# --- parser -----------------------------------------------------------------


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0
        self.depth = 0

    def peek(self) -> _Token:
        return self.tokens[self.i]

    def take(self) -> _Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def fail(self, tok: _Token, expected: str) -> FormulaError:
        found = "the end" if tok.kind == "end" else repr(tok.text)
        return FormulaError(self.text, f"expected {expected} at position {tok.pos + 1}, found {found}")

    def parse(self) -> Node:
        if not self.text.strip():
            raise FormulaError(self.text, "empty formula: write a value such as 1d20 + mod(dex)")
        node = self.expr()
        tok = self.peek()
        if tok.kind != "end":
            raise self.fail(tok, "an operator (+ - * //)")
        return node

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise FormulaError(self.text, f"nested more than {MAX_DEPTH} levels deep")

    def expr(self) -> Node:
        self._enter()
        node = self.term()
        while self.peek().kind == "op" and self.peek().text in "+-":
            op = self.take().text
            node = BinOp(op, node, self.term())
        self.depth -= 1
        return node

    def term(self) -> Node:
        node = self.unary()
        while self.peek().kind == "op" and self.peek().text in ("*", "//"):
            op = self.take().text
            node = BinOp(op, node, self.unary())
        return node

    def unary(self) -> Node:
        tok = self.peek()
        if tok.kind == "op" and tok.text == "-":
            self.take()
            self._enter()
            node = Neg(self.unary())
            self.depth -= 1
            return node
        if tok.kind == "op" and tok.text == "+":
            self.take()
            self._enter()
            inner = self.unary()
            self.depth -= 1
            return inner
        return self.atom()

    def _int(self, text: str, what: str) -> int:
        if len(text) > MAX_LITERAL_DIGITS:
            raise FormulaError(self.text, f"{what} {text} is too large (at most {MAX_LITERAL_DIGITS} digits)")
        return int(text)

    def atom(self) -> Node:
        tok = self.take()
        if tok.kind == "int":
            return Num(self._int(tok.text, "number"))
        if tok.kind == "dice":
            count_text, sides_text = tok.text.split("d")
            count = self._int(count_text, "dice count") if count_text else 1
            sides = self._int(sides_text, "die size")
            if count > ROLL_BUDGET:
                raise RollBudgetError(
                    self.text, f"{tok.text} rolls {count} dice, over the budget of {ROLL_BUDGET}"
                )
            if count < 1:
                raise FormulaError(self.text, f"{tok.text}: roll at least one die")
            if sides < 1:
                raise FormulaError(self.text, f"{tok.text}: a die needs at least one side")
            if sides > MAX_SIDES:
                raise FormulaError(self.text, f"{tok.text}: a die has at most {MAX_SIDES} sides")
            return Dice(count, sides)
        if tok.kind == "name":
            if self.peek().kind == "op" and self.peek().text == "(":
                return self.call(tok)
            if tok.text in FUNCTIONS:
                raise FormulaError(self.text, f"{tok.text} is a function: write {tok.text}(...)")
            return Name(tok.text)
        if tok.kind == "op" and tok.text == "(":
            node = self.expr()
            close = self.take()
            if close.kind != "op" or close.text != ")":
                raise self.fail(close, "')'")
            return node
        raise self.fail(tok, "a number, a die such as 1d20, a field or '('")

    def call(self, name: _Token) -> Node:
        if name.text not in FUNCTIONS:
            known = ", ".join(sorted(FUNCTIONS))
            raise FormulaError(self.text, f"unknown function {name.text!r}: use one of {known}")
        self.take()  # "("
        args = [self.expr()]
        while self.peek().kind == "op" and self.peek().text == ",":
            self.take()
            args.append(self.expr())
        close = self.take()
        if close.kind != "op" or close.text != ")":
            raise self.fail(close, "',' or ')'")
        low, high = FUNCTIONS[name.text]
        if len(args) < low or (high is not None and len(args) > high):
            want = f"exactly {low}" if low == high else f"at least {low}"
            raise FormulaError(self.text, f"{name.text}() takes {want} argument(s), got {len(args)}")
        return Call(name.text, tuple(args))


# --- formula ----------------------------------------------------------------


def _walk(node: Node) -> list[Node]:
    out: list[Node] = [node]
    match node:
        case Neg(operand):
            out += _walk(operand)
        case BinOp(_, left, right):
            out += _walk(left) + _walk(right)
        case Call(_, args):
            for arg in args:
                out += _walk(arg)
    return out


@dataclass(frozen=True, slots=True)
class Evaluated:
    """The value of a formula and every die it rolled, in order."""

    value: int
    rolls: tuple[Roll, ...]

    @property
    def natural(self) -> int | None:
        """The face of the first die rolled (the "natural" of a d20 check)."""
        return self.rolls[0].face if self.rolls else None


@dataclass(frozen=True)
class Formula:
    """A parsed formula: its text, its tree, the fields it reads, the dice it rolls."""

    text: str
    tree: Node
    names: frozenset[str]
    dice: tuple[Dice, ...]

    @property
    def dice_count(self) -> int:
        return sum(d.count for d in self.dice)

    @property
    def is_constant(self) -> bool:
        return not self.dice

    def check_names(self, allowed: frozenset[str] | set[str]) -> None:
        unknown = sorted(self.names - set(allowed))
        if unknown:
            raise FormulaError(
                self.text,
                f"unknown field {unknown[0]!r}: use one of {', '.join(sorted(allowed))}",
            )

    def evaluate(
        self,
        env: Mapping[str, int],
        dice: DiceSource | None = None,
        purpose: str = "roll",
        fighter: str | None = None,
    ) -> Evaluated:
        rolls: list[Roll] = []
        value = _eval(self, self.tree, env, dice, purpose, fighter, rolls)
        return Evaluated(value, tuple(rolls))

    def value(self, env: Mapping[str, int]) -> int:
        """Evaluate a formula that rolls no dice."""
        if self.dice:
            raise FormulaError(self.text, "rolls dice where a fixed value is expected")
        return self.evaluate(env).value

    def __str__(self) -> str:
        return self.text


def _eval(
    formula: Formula,
    node: Node,
    env: Mapping[str, int],
    dice: DiceSource | None,
    purpose: str,
    fighter: str | None,
    rolls: list[Roll],
) -> int:
    match node:
        case Num(value):
            return value
        case Name(name):
            try:
                return env[name]
            except KeyError:
                raise FormulaError(formula.text, f"unknown field {name!r}") from None
        case Dice(count, sides):
            if dice is None:
                raise FormulaError(formula.text, "rolls dice where a fixed value is expected")
            total = 0
            for _ in range(count):
                face = dice.face(sides, purpose, fighter)
                rolls.append(Roll(purpose, sides, face, fighter))
                total += face
            return total
        case Neg(operand):
            return -_eval(formula, operand, env, dice, purpose, fighter, rolls)
        case BinOp(op, left, right):
            a = _eval(formula, left, env, dice, purpose, fighter, rolls)
            b = _eval(formula, right, env, dice, purpose, fighter, rolls)
            if op == "+":
                return a + b
            if op == "-":
                return a - b
            if op == "*":
                return a * b
            if b == 0:
                raise FormulaError(formula.text, "division by zero")
            return a // b
        case Call(function, args):
            values = [_eval(formula, a, env, dice, purpose, fighter, rolls) for a in args]
            if function == "min":
                return min(values)
            if function == "max":
                return max(values)
            return ability_mod(values[0])
    raise AssertionError(f"unknown node {node!r}")  # pragma: no cover


@lru_cache(maxsize=512)
def parse(text: str) -> Formula:
    """Parse a formula; raise :class:`FormulaError` (one line) if it is not valid."""
    if not isinstance(text, str):
        raise FormulaError(str(text), "a formula is a text such as \"1d20 + mod(dex)\"")
    if len(text) > MAX_LENGTH:
        raise FormulaError(text[:40] + "...", f"longer than {MAX_LENGTH} characters")
    if "\n" in text or "\r" in text:
        raise FormulaError(text, "a formula fits on one line")
    tree = _Parser(text).parse()
    nodes = _walk(tree)
    names = frozenset(n.name for n in nodes if isinstance(n, Name))
    dice = tuple(n for n in nodes if isinstance(n, Dice))
    total = sum(d.count for d in dice)
    if total > ROLL_BUDGET:
        raise RollBudgetError(text, f"rolls {total} dice, over the budget of {ROLL_BUDGET}")
    return Formula(text, tree, names, dice)
