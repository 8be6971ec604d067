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
from sevendag_cli.errors import FormulaError, Msg, RollBudgetError

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
            hint: object = Msg("formula.hint_division") if ch == "/" else ""
            if re.match(r"\d*d\s*-", text[at:]):
                hint = Msg("formula.hint_sides")
            raise FormulaError(text, Msg("formula.unexpected", char=ch, pos=at + 1, hint=hint))
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
        """``expected``: a key ``formula.expected.*`` of the message catalogue."""
        found = Msg("formula.found_end") if tok.kind == "end" else Msg("formula.found_token", token=tok.text)
        return FormulaError(self.text, Msg("formula.expected", expected=Msg(f"formula.expected.{expected}"),
                                           pos=tok.pos + 1, found=found))

    def parse(self) -> Node:
        if not self.text.strip():
            raise FormulaError(self.text, Msg("formula.empty"))
        node = self.expr()
        tok = self.peek()
        if tok.kind != "end":
            raise self.fail(tok, "operator")
        return node

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise FormulaError(self.text, Msg("formula.too_deep", max=MAX_DEPTH))

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
        """``what``: ``number``, ``count`` or ``sides`` (for the message)."""
        if len(text) > MAX_LITERAL_DIGITS:
            raise FormulaError(self.text, Msg("formula.too_large", what=Msg(f"formula.what.{what}"),
                                              text=text, max=MAX_LITERAL_DIGITS))
        return int(text)

    def atom(self) -> Node:
        tok = self.take()
        if tok.kind == "int":
            return Num(self._int(tok.text, "number"))
        if tok.kind == "dice":
            count_text, sides_text = tok.text.split("d")
            count = self._int(count_text, "count") if count_text else 1
            sides = self._int(sides_text, "sides")
            if count > ROLL_BUDGET:
                raise RollBudgetError(self.text, Msg("formula.dice_over_budget", dice=tok.text,
                                                     count=count, budget=ROLL_BUDGET))
            if count < 1:
                raise FormulaError(self.text, Msg("formula.at_least_one_die", dice=tok.text))
            if sides < 1:
                raise FormulaError(self.text, Msg("formula.no_sides", dice=tok.text))
            if sides > MAX_SIDES:
                raise FormulaError(self.text, Msg("formula.too_many_sides", dice=tok.text, max=MAX_SIDES))
            return Dice(count, sides)
        if tok.kind == "name":
            if self.peek().kind == "op" and self.peek().text == "(":
                return self.call(tok)
            if tok.text in FUNCTIONS:
                raise FormulaError(self.text, Msg("formula.is_function", name=tok.text))
            return Name(tok.text)
        if tok.kind == "op" and tok.text == "(":
            node = self.expr()
            close = self.take()
            if close.kind != "op" or close.text != ")":
                raise self.fail(close, "close")
            return node
        raise self.fail(tok, "atom")

    def call(self, name: _Token) -> Node:
        if name.text not in FUNCTIONS:
            known = ", ".join(sorted(FUNCTIONS))
            raise FormulaError(self.text, Msg("formula.unknown_function", name=name.text, known=known))
        self.take()  # "("
        args = [self.expr()]
        while self.peek().kind == "op" and self.peek().text == ",":
            self.take()
            args.append(self.expr())
        close = self.take()
        if close.kind != "op" or close.text != ")":
            raise self.fail(close, "comma_or_close")
        low, high = FUNCTIONS[name.text]
        if len(args) < low or (high is not None and len(args) > high):
            want = Msg("formula.exactly" if low == high else "formula.at_least", n=low)
            raise FormulaError(self.text, Msg("formula.arg_count", name=name.text, want=want, got=len(args)))
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
            raise FormulaError(self.text, Msg("formula.unknown_field_use", name=unknown[0],
                                              known=", ".join(sorted(allowed))))

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
            raise FormulaError(self.text, Msg("formula.fixed_value"))
        return self.evaluate(env).value

    def __str__(self) -> str:
        return self.text


def apply_op(op: str, a: int, b: int, text: str) -> int:
    """``a op b`` for a formula's operators, ``//`` flooring; shared by every evaluator."""
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if b == 0:
        raise FormulaError(text, Msg("formula.division_by_zero"))
    return a // b


def field_value(env: Mapping[str, int], name: str, text: str) -> int:
    """A fighter field's value for a formula; every evaluator (scalar, vectorised, exact) uses it."""
    try:
        return env[name]
    except KeyError:
        raise FormulaError(text, Msg("formula.unknown_field", name=name)) from None


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
            return field_value(env, name, formula.text)
        case Dice(count, sides):
            if dice is None:
                raise FormulaError(formula.text, Msg("formula.fixed_value"))
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
            return apply_op(op, a, b, formula.text)
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
        raise FormulaError(str(text), Msg("formula.not_text"))
    if len(text) > MAX_LENGTH:
        raise FormulaError(text[:40] + "...", Msg("formula.too_long", max=MAX_LENGTH))
    if "\n" in text or "\r" in text:
        raise FormulaError(text, Msg("formula.one_line"))
    tree = _Parser(text).parse()
    nodes = _walk(tree)
    names = frozenset(n.name for n in nodes if isinstance(n, Name))
    dice = tuple(n for n in nodes if isinstance(n, Dice))
    total = sum(d.count for d in dice)
    if total > ROLL_BUDGET:
        raise RollBudgetError(text, Msg("formula.over_budget", count=total, budget=ROLL_BUDGET))
    return Formula(text, tree, names, dice)
