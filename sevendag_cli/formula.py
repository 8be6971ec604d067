"""A small, safe expression language for ruleset formulas and the ``roll`` command (C-03).

Stages, as in a dice engine: ``parse`` (text → tokens → tree of immutable
nodes), then ``Formula.evaluate`` (tree + fighter fields + a dice source → an
evaluation tree: every node with its value, every die with its faces, kept or
dropped).  Nothing is ever ``eval``'d.

Grammar::

    expr   := term (("+" | "-") term)*
    term   := unary (("*" | "//") unary)*
    unary  := ("-" | "+") unary | atom
    atom   := INT | DICE | NAME | NAME "(" expr ("," expr)* ")" | "(" expr ")"
    DICE   := [INT] "d" (INT | "%") (MOD* | "!") [SELECT [INT]] [COUNT INT]
    MOD    := ("ro" | "rr") ["<" | ">"] INT | ("mi" | "ma") INT
    SELECT := "kh" | "kl" | "dh" | "dl" | "k"
    COUNT  := ">=" | ">" | "<=" | "<" | "="

and, for the ``roll`` command only (``parse_roll``; a ruleset's formulas never
compare), one comparison of two totals at the top: ``roll := expr [COUNT expr]``.

``1d20``, ``d6``, ``3d6``; ``d%`` is ``d100``; ``3d6!`` explodes (a die showing
its highest face is rolled again and adds, at most :data:`MAX_EXPLOSIONS` times
per die); ``4d6kh3`` keeps the 3 highest dice, ``2d20kl1`` the lowest, ``4d6dl1``
drops the lowest, ``dh`` the highest; ``k`` is ``kh`` and a missing count is 1
(``2d20kh`` = ``2d20kh1``).  An exploding die is one die: keep and drop compare
its total (``4d6!kh3``).  Letters in dice may be upper case (``4D6KH3``).

**Die modifiers** (avrae's d20 notation), each at most once, before any selection and never
with ``!``: ``ro`` rerolls a die once when its face matches (``4d6ro1``: a 1 is rolled
again and the new face stands, whatever it is), ``rr`` rerolls it while it matches, at most
:data:`MAX_REROLLS` times (``4d6rr<3``; the last roll stands), the match a face (``ro1``),
below (``ro<3``) or above (``rr>18``); ``mi`` raises a die below it to it (``2d20mi10``),
``ma`` lowers a die above it to it (``1d20ma15``).  Each die is modified on its own, in
this order: rerolls, then ``mi``, then ``ma``; keep and drop and success counting then read
the modified dice.  A die that may be rerolled counts every roll it may make against the
budget (``ro`` 2, ``rr`` ``1 + MAX_REROLLS``).  ``rr`` whose match covers every face, a
match no face can show, and ``mi``/``ma`` off the die are refused.

**Success counting** (``roll`` only): a comparison written right after the dice, with
no space, makes the group's value the number of its (kept) dice whose total passes it:
``6d10>=7`` counts the dice showing 7 or more (Roll20 writes this ``6d10>7``; here ``>``
means strictly more).  With spaces, or after anything but dice, a comparison compares
two totals and is worth 1 (true) or 0 (false): ``1d20 + 5 >= 15``.

Functions: ``min(a, b, ...)``, ``max(a, b, ...)``, ``mod(x)`` = floor((x - 10) / 2)
(D-01).  Names are the fighter's fields; which names exist is checked when a
ruleset is loaded.  A roll budget refuses formulas that could roll too many
dice (``1000000d1000000``; an exploding die counts ``1 + MAX_EXPLOSIONS``)
before a single die is rolled.

**The value bound** (:data:`sevendag_cli.limits.INT_LIMIT`, a signed 64 bits, what the
vectorised engine computes in): every value a formula takes, the whole and every part
of it, lies within ±``INT_LIMIT``.  :func:`value_range` finds a formula's range from
its dice and the ranges of the fields it reads (interval arithmetic, every node checked),
so a formula that could pass the bound is refused when its file is loaded
(:meth:`Formula.check_bound`); at evaluation, every operation is checked too
(:func:`apply_op`), for what could not be known before.  The three engines (this
module's evaluation, the vectorised and the exact ones) share both checks.

**Roll order** (C-02): a group's dice are rolled one after the other, then
the rerolls, wave by wave (every die whose face matches, in order), then the explosions,
wave by wave (every die that showed its highest face, in order), as one rolls physical
dice.

**The natural** of a d20 check (D-06) is the first face of one die of the
formula's first dice group: its first die, or, when the group keeps or drops
dice, its highest kept die (``kh``, ``dl``: ``2d20kh1`` is advantage) or its
lowest kept die (``kl``, ``dh``: disadvantage).  A modified die's natural is the face
that stands, raised or lowered (``1d20mi10`` never has a natural 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from itertools import pairwise

import msgspec

from sevendag_cli.dice import DiceSource, Roll
from sevendag_cli.errors import FormulaError, Msg, RollBudgetError
from sevendag_cli.limits import INT_LIMIT

ROLL_BUDGET = 1000
"""Most dice one formula evaluation may roll."""
MAX_SIDES = 1000
"""Most faces a die in a formula may have."""
MAX_EXPLOSIONS = 9
"""Most times one exploding die is rolled again (as icepool's default depth): a die of
``3d6!`` rolls at most 10 times, and counts 10 dice against the budget."""
MAX_REROLLS = 9
"""Most times ``rr`` rerolls one die (as an exploding die's explosions): a die of ``4d6rr1``
rolls at most 10 times, the tenth face standing even if it matches, and counts 10 dice
against the budget."""
MAX_LENGTH = 500
MAX_DEPTH = 40
MAX_LITERAL_DIGITS = 9

FUNCTIONS = {"min": (1, None), "max": (1, None), "mod": (1, 1)}
COMPARISONS = (">=", "<=", ">", "<", "=")
"""Comparison operators of ``roll`` (success counting, and a total against another)."""
SELECTORS = ("kh", "kl", "dh", "dl")
"""Keep highest, keep lowest, drop highest, drop lowest (``k`` is read as ``kh``)."""
MODIFIERS = ("ro", "rr", "mi", "ma")
"""Reroll once, reroll while, minimum, maximum: avrae's die modifiers."""


def ability_mod(score: int) -> int:
    """D-01: mod(score) = floor((score - 10) / 2)."""
    return (score - 10) // 2


# --- tree -------------------------------------------------------------------


class Num(msgspec.Struct, frozen=True):
    value: int


class Dice(msgspec.Struct, frozen=True):
    """A group of dice: ``count`` dice of ``sides`` faces, maybe exploding, maybe keeping some.

    ``select``: ``kh`` / ``kl`` / ``dh`` / ``dl`` (or None) and ``select_count`` its number.
    """

    count: int
    sides: int
    explode: bool = False
    select: str | None = None
    select_count: int = 0
    count_op: str | None = None
    count_target: int = 0
    reroll: str | None = None  # "ro" (once) or "rr" (while), or None
    reroll_op: str = "="  # "=", "<" or ">": which faces are rerolled
    reroll_target: int = 0
    minimum: int | None = None  # mi
    maximum: int | None = None  # ma

    def counts(self, value: int) -> bool:
        """Success counting: does a die of this total count (``count_op`` set)?"""
        return compare(self.count_op or "=", value, self.count_target)

    def rerolls(self, face: int) -> bool:
        """Does a die showing ``face`` get rolled again (``reroll`` set)?"""
        return compare(self.reroll_op, face, self.reroll_target)

    def clamped(self, face: int) -> int:
        """A face raised to ``mi`` and lowered to ``ma``."""
        if self.minimum is not None and face < self.minimum:
            face = self.minimum
        if self.maximum is not None and face > self.maximum:
            face = self.maximum
        return face

    @property
    def modified(self) -> bool:
        """Any die modifier (``ro``, ``rr``, ``mi``, ``ma``)."""
        return self.reroll is not None or self.minimum is not None or self.maximum is not None

    @property
    def plain(self) -> bool:
        """A plain sum of dice: no explosion, selection, success counting nor modifier."""
        return not (self.explode or self.select is not None or self.count_op is not None or self.modified)

    @property
    def rolls_per_die(self) -> int:
        """The most rolls one die may make: 10 exploding, 2 with ``ro``, 10 with ``rr``."""
        if self.explode:
            return 1 + MAX_EXPLOSIONS
        if self.reroll == "ro":
            return 2
        if self.reroll == "rr":
            return 1 + MAX_REROLLS
        return 1

    @property
    def keeps_highest(self) -> bool:
        """Which dice count: the highest (``kh``, ``dl``, and no selection) or the lowest."""
        return self.select not in ("kl", "dh")

    @property
    def kept(self) -> int:
        """How many dice count towards the value."""
        if self.select in ("kh", "kl"):
            return self.select_count
        if self.select in ("dh", "dl"):
            return self.count - self.select_count
        return self.count

    @property
    def rolls_at_most(self) -> int:
        """Dice it may roll (its share of the budget): explosions and rerolls included."""
        return self.count * self.rolls_per_die

    @property
    def reroll_text(self) -> str:
        """``ro1``, ``rr<3`` (empty without a reroll)."""
        if self.reroll is None:
            return ""
        return f"{self.reroll}{'' if self.reroll_op == '=' else self.reroll_op}{self.reroll_target}"

    @property
    def modifiers_text(self) -> str:
        """``ro1``, ``rr<3``, ``mi10``, ``ma15`` as written (empty without modifiers)."""
        out = self.reroll_text
        if self.minimum is not None:
            out += f"mi{self.minimum}"
        if self.maximum is not None:
            out += f"ma{self.maximum}"
        return out

    @property
    def notation(self) -> str:
        """``4d6kh3``, ``3d6!``, ``1d100`` (for ``d%``), ``4d6ro1kh3``."""
        select = f"{self.select}{self.select_count}" if self.select else ""
        success = f"{self.count_op}{self.count_target}" if self.count_op else ""
        return (f"{self.count}d{self.sides}{'!' if self.explode else ''}{self.modifiers_text}"
                f"{select}{success}")


class Name(msgspec.Struct, frozen=True):
    name: str


class Neg(msgspec.Struct, frozen=True):
    operand: Node


class BinOp(msgspec.Struct, frozen=True):
    op: str  # "+", "-", "*", "//"
    left: Node
    right: Node


class Call(msgspec.Struct, frozen=True):
    function: str
    args: tuple[Node, ...]


class Compare(msgspec.Struct, frozen=True):
    """``left op right`` (``roll`` only, at the top): 1 if true, else 0."""

    op: str  # one of COMPARISONS
    left: Node
    right: Node


Node = Num | Dice | Name | Neg | BinOp | Call | Compare


def compare(op: str, a: int, b: int) -> bool:
    """``a op b`` for the comparisons of :data:`COMPARISONS`."""
    if op == ">=":
        return a >= b
    if op == "<=":
        return a <= b
    if op == ">":
        return a > b
    if op == "<":
        return a < b
    return a == b


def node_text(node: Node) -> str:
    """A part of a formula written back from its tree (``10d100 * 10d100``, ``d%`` as
    ``1d100``), with the parentheses its operators' precedence needs: what a message names."""
    return _text(node)[0]


def _text(node: Node) -> tuple[str, int]:
    """The text and its precedence: 0 a comparison, 1 a sum, 2 a product, 3 a negation, 4 an atom."""
    match node:
        case Num(value):
            return str(value), 4
        case Dice():
            return node.notation, 4
        case Name(name):
            return name, 4
        case Neg(operand):
            inner, level = _text(operand)
            return "-" + (inner if level >= 3 else f"({inner})"), 3
        case BinOp(op, left, right) | Compare(op, left, right):
            level = 0 if isinstance(node, Compare) else 1 if op in "+-" else 2
            a, la = _text(left)
            b, lb = _text(right)
            a = a if la >= level else f"({a})"
            b = b if lb > level else f"({b})"
            return f"{a} {op} {b}", level
        case Call(function, args):
            return f"{function}({', '.join(_text(a)[0] for a in args)})", 4
    raise AssertionError(f"unknown node {node!r}")  # pragma: no cover


# --- evaluation tree ----------------------------------------------------------


class Die(msgspec.Struct, frozen=True):
    """One die of a group: its rolls (the first face, then one per explosion), kept or dropped.

    A modified die (``ro``, ``rr``, ``mi``, ``ma``): its first ``rerolled`` rolls were rolled
    again (they do not count; the next roll stands), and ``forced`` is the value ``mi`` or
    ``ma`` gave the face that stood (None: not raised nor lowered).
    """

    rolls: tuple[Roll, ...]
    kept: bool = True
    rerolled: int = 0
    forced: int | None = None

    @property
    def value(self) -> int:
        """The die's total: its faces added (one face unless it exploded), or its forced value."""
        if self.forced is not None:
            return self.forced
        if self.rerolled:
            return sum(r.face for r in self.rolls[self.rerolled:])
        return sum(r.face for r in self.rolls)

    @property
    def face(self) -> int:
        """The first face that stands, raised or lowered (the natural, for the die chosen as
        a check's natural)."""
        if self.forced is not None:
            return self.forced
        return self.rolls[self.rerolled].face

    @property
    def exploded(self) -> bool:
        return len(self.rolls) - self.rerolled > 1


class NumResult(msgspec.Struct, frozen=True):
    value: int


class FieldResult(msgspec.Struct, frozen=True):
    """A fighter's field as the formula read it (``bba`` 3)."""

    name: str
    value: int


class DiceResult(msgspec.Struct, frozen=True):
    """A group of dice rolled: the group as written, every die, the value of the kept dice."""

    dice: Dice
    rolled: tuple[Die, ...]
    value: int

    @property
    def natural_die(self) -> Die:
        """The die whose first face is the natural: the first, or the highest (lowest) kept."""
        if self.dice.select is None:
            return self.rolled[0]
        kept = [d for d in self.rolled if d.kept]
        if self.dice.keeps_highest:
            return max(kept, key=lambda d: d.value)  # the first of equal dice
        return min(kept, key=lambda d: d.value)


class NegResult(msgspec.Struct, frozen=True):
    operand: ResultNode
    value: int


class OpResult(msgspec.Struct, frozen=True):
    op: str
    left: ResultNode
    right: ResultNode
    value: int


class CallResult(msgspec.Struct, frozen=True):
    function: str
    args: tuple[ResultNode, ...]
    value: int


class CompareResult(msgspec.Struct, frozen=True):
    op: str
    left: ResultNode
    right: ResultNode
    value: int  # 1: true, 0: false


ResultNode = NumResult | FieldResult | DiceResult | NegResult | OpResult | CallResult | CompareResult
"""The evaluation tree: one node per node of the formula, each with its value."""


def result_nodes(node: ResultNode) -> list[ResultNode]:
    """Every node of an evaluation tree, parents first, left to right (the formula's order)."""
    out: list[ResultNode] = []
    stack: list[ResultNode] = [node]
    while stack:  # a stack, not recursion: this runs for every check of a fight's JSON
        node = stack.pop()
        out.append(node)
        if isinstance(node, OpResult | CompareResult):
            stack += (node.right, node.left)
        elif isinstance(node, NegResult):
            stack.append(node.operand)
        elif isinstance(node, CallResult):
            stack += reversed(node.args)
    return out


class Evaluated(msgspec.Struct, frozen=True):
    """A formula evaluated: its value, every die rolled (in roll order), the tree, the natural.

    ``natural``: the "natural" of a d20 check (see the module's docstring); None without dice.
    """

    value: int
    rolls: tuple[Roll, ...]
    tree: ResultNode
    natural: int | None = None

    @property
    def groups(self) -> list[DiceResult]:
        """The dice groups, in the formula's order."""
        return [n for n in result_nodes(self.tree) if isinstance(n, DiceResult)]

    @property
    def dice_total(self) -> int:
        """The faces that count: every kept die's faces, explosions included."""
        return sum(d.value for g in self.groups for d in g.rolled if d.kept)


# --- tokens -----------------------------------------------------------------

_DIGITS = frozenset("0123456789")
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _LETTERS | _DIGITS


class _Token(msgspec.Struct, frozen=True):
    kind: str  # "int" | "dice" | "name" | "op" | "end"
    text: str
    pos: int  # index in the expression, from 0
    parts: tuple[str, ...] = ()  # dice: count, sides ("%" too), "!" or "", selector, its count,
    # comparison and target (success counting) or "", then the modifiers: "ro"/"rr" or "",
    # its comparison ("", "<", ">") and face, mi's face, ma's face (or "")


def _digits_end(text: str, i: int) -> int:
    while i < len(text) and text[i] in _DIGITS:
        i += 1
    return i


class _Scanner:
    """Turns the text into tokens; an error names the offending character and its position.

    ``shown`` is the text an error quotes (the whole argument of ``roll``, label included)
    and ``offset`` where the expression starts in it, so positions count in ``shown``.
    """

    def __init__(self, text: str, shown: str, offset: int, comparisons: bool = False) -> None:
        self.text = text
        self.shown = shown
        self.offset = offset
        self.comparisons = comparisons  # roll: success counting and a comparison of totals

    def comparison(self, i: int) -> str | None:
        """The comparison operator at ``i`` (``>=`` before ``>``), or None."""
        if not self.comparisons:
            return None
        return next((op for op in COMPARISONS if self.text.startswith(op, i)), None)

    def unexpected(self, i: int, hint: object = "") -> FormulaError:
        return FormulaError(self.shown, Msg("formula.unexpected", char=self.text[i],
                                            pos=self.offset + i + 1, hint=hint))

    def expected(self, i: int, what: str) -> FormulaError:
        found = (Msg("formula.found_token", token=self.text[i]) if i < len(self.text)
                 else Msg("formula.found_end"))
        return FormulaError(self.shown, Msg("formula.expected", expected=Msg(f"formula.expected.{what}"),
                                            pos=self.offset + i + 1, found=found))

    def tokens(self) -> list[_Token]:
        text, n = self.text, len(self.text)
        out: list[_Token] = []
        i = 0
        while True:
            while i < n and text[i].isspace():
                i += 1
            if i >= n:
                break
            ch = text[i]
            if ch in _DIGITS:
                j = _digits_end(text, i)
                if j < n and text[j] in "dD":
                    tok = self.dice(i, j)
                else:
                    if j < n and text[j] in _NAME_CHARS:
                        raise self.unexpected(j)
                    tok = _Token("int", text[i:j], i)
            elif ch in "dD" and i + 1 < n and (text[i + 1] in _DIGITS or text[i + 1] == "%"):
                tok = self.dice(i, i)
            elif ch in _LETTERS:
                j = i + 1
                while j < n and text[j] in _NAME_CHARS:
                    j += 1
                tok = _Token("name", text[i:j], i)
            elif text.startswith("//", i):
                tok = _Token("op", "//", i)
            elif (cmp := self.comparison(i)) is not None:
                tok = _Token("op", cmp, i)
            elif ch in "+-*(),":
                tok = _Token("op", ch, i)
            else:
                raise self.unexpected(i, Msg("formula.hint_division") if ch == "/" else "")
            out.append(tok)
            i = tok.pos + len(tok.text)
        out.append(_Token("end", "", n))
        return out

    def dice(self, start: int, d: int) -> _Token:
        """``[count]d`` at ``start``..``d``, then the sides, ``!``, a selector and its count."""
        text, n = self.text, len(self.text)
        k = d + 1
        if k < n and text[k] == "%":
            sides, k = "%", k + 1
        else:
            j = _digits_end(text, k)
            if j == k:
                if k < n and text[k] == "-":
                    raise self.unexpected(k, Msg("formula.hint_sides"))
                raise self.expected(k, "sides")
            sides, k = text[k:j], j
        mods: dict[str, tuple[str, str, str]] = {}  # "reroll", "mi", "ma" -> (name, op, face)
        while (name := text[k:k + 2].lower()) in MODIFIERS:
            kind = "reroll" if name in ("ro", "rr") else name
            if kind in mods:
                raise self.unexpected(k, Msg("formula.hint_modifier_once"))
            j, op = k + 2, ""
            if kind == "reroll" and j < n and text[j] in "<>":
                op, j = text[j], j + 1
            e = _digits_end(text, j)
            if e == j:
                raise self.expected(j, "modifier_face")
            mods[kind], k = (name, op, text[j:e]), e
        explode = ""
        if k < n and text[k] == "!":
            if mods:
                raise self.unexpected(k, Msg("formula.hint_explode_modifiers"))
            explode, k = "!", k + 1
            if text[k:k + 2].lower() in MODIFIERS:
                raise self.unexpected(k, Msg("formula.hint_explode_modifiers"))
        select = select_count = ""
        if text[k:k + 2].lower() in SELECTORS:
            select, k = text[k:k + 2].lower(), k + 2
        elif text[k:k + 1] in ("k", "K"):
            select, k = "kh", k + 1
        if select:
            j = _digits_end(text, k)
            select_count, k = text[k:j], j
            if text[k:k + 2].lower() in MODIFIERS:
                raise self.unexpected(k, Msg("formula.hint_modifier_first"))
        count_op = target = ""
        if (cmp := self.comparison(k)) is not None:
            j = _digits_end(text, k + len(cmp))
            if j == k + len(cmp):
                raise self.expected(j, "target")
            count_op, target, k = cmp, text[k + len(cmp):j], j
        if k < n and (text[k] in _NAME_CHARS or text[k] in "!%"):
            hint = Msg("formula.hint_explode_first") if text[k] == "!" and select else ""
            raise self.unexpected(k, hint)
        reroll = mods.get("reroll", ("", "", ""))
        return _Token("dice", text[start:k], start,
                      (text[start:d], sides, explode, select, select_count, count_op, target,
                       *reroll, mods.get("mi", ("", "", ""))[2], mods.get("ma", ("", "", ""))[2]))


# --- parser -----------------------------------------------------------------


class _Parser:
    def __init__(self, text: str, shown: str, offset: int, comparisons: bool = False) -> None:
        self.text = text
        self.shown = shown
        self.offset = offset
        self.tokens = _Scanner(text, shown, offset, comparisons).tokens()
        self.i = 0
        self.depth = 0

    def error(self, message: Msg) -> FormulaError:
        return FormulaError(self.shown, message)

    def peek(self) -> _Token:
        return self.tokens[self.i]

    def take(self) -> _Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def fail(self, tok: _Token, expected: str) -> FormulaError:
        """``expected``: a key ``formula.expected.*`` of the message catalogue."""
        found = Msg("formula.found_end") if tok.kind == "end" else Msg("formula.found_token", token=tok.text)
        return self.error(Msg("formula.expected", expected=Msg(f"formula.expected.{expected}"),
                              pos=self.offset + tok.pos + 1, found=found))

    def parse(self) -> Node:
        if not self.text.strip():
            raise self.error(Msg("formula.empty"))
        node = self.expr()
        if self.peek().kind == "op" and self.peek().text in COMPARISONS:
            op = self.take().text
            node = Compare(op, node, self.expr())
        tok = self.peek()
        if tok.kind != "end":
            raise self.fail(tok, "operator")
        return node

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error(Msg("formula.too_deep", max=MAX_DEPTH))

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
        """``what``: ``number``, ``count``, ``sides`` or ``select`` (for the message)."""
        if len(text) > MAX_LITERAL_DIGITS:
            raise self.error(Msg("formula.too_large", what=Msg(f"formula.what.{what}"),
                                 text=text, max=MAX_LITERAL_DIGITS))
        return int(text)

    def dice(self, tok: _Token) -> Dice:
        (count_text, sides_text, explode, select, select_text, count_op, target_text,
         reroll, reroll_op, reroll_text, min_text, max_text) = tok.parts
        count = self._int(count_text, "count") if count_text else 1
        sides = 100 if sides_text == "%" else self._int(sides_text, "sides")
        n = self._int(select_text, "select") if select_text else 1
        if count < 1:
            raise self.error(Msg("formula.at_least_one_die", dice=tok.text))
        if count > ROLL_BUDGET:
            raise RollBudgetError(self.shown, Msg("formula.dice_over_budget", dice=tok.text,
                                                  count=count, budget=ROLL_BUDGET))
        if sides < 1:
            raise self.error(Msg("formula.no_sides", dice=tok.text))
        if sides > MAX_SIDES:
            raise self.error(Msg("formula.too_many_sides", dice=tok.text, max=MAX_SIDES))
        if explode and sides == 1:
            raise self.error(Msg("formula.explode_one_side", dice=tok.text))
        if select in ("kh", "kl") and not 1 <= n <= count:
            raise self.error(Msg("formula.keep_range", dice=tok.text, n=n, count=count))
        if select in ("dh", "dl") and not 1 <= n < count:
            raise self.error(Msg("formula.drop_range", dice=tok.text, n=n, count=count))
        target = self._int(target_text, "number") if count_op else 0
        reroll_target = self._int(reroll_text, "face") if reroll else 0
        minimum = self._int(min_text, "face") if min_text else None
        maximum = self._int(max_text, "face") if max_text else None
        node = Dice(count, sides, bool(explode), select or None, n if select else 0, count_op or None, target,
                    reroll or None, reroll_op or "=", reroll_target, minimum, maximum)
        self._check_modifiers(node, tok.text)
        if node.rolls_at_most > ROLL_BUDGET:
            key = "formula.explode_over_budget" if node.explode else "formula.reroll_over_budget"
            raise RollBudgetError(self.shown, Msg(key, dice=tok.text, count=node.rolls_at_most,
                                                  times=node.rolls_per_die, budget=ROLL_BUDGET))
        return node

    def _check_modifiers(self, node: Dice, text: str) -> None:
        """A reroll that matches some face (``rr``: not every face), ``mi``/``ma`` on the die."""
        if node.reroll is not None:
            matching = sum(1 for f in range(1, node.sides + 1) if node.rerolls(f))
            if not matching:
                raise self.error(Msg("formula.reroll_nothing", dice=text, sides=node.sides,
                                     mod=node.reroll_text))
            if node.reroll == "rr" and matching == node.sides:
                raise self.error(Msg("formula.reroll_every_face", dice=text, sides=node.sides,
                                     mod=node.reroll_text))
        for name, value in (("mi", node.minimum), ("ma", node.maximum)):
            if value is not None and not 1 <= value <= node.sides:
                raise self.error(Msg("formula.modifier_off_die", dice=text, mod=f"{name}{value}",
                                     sides=node.sides))
        if node.minimum is not None and node.maximum is not None and node.minimum > node.maximum:
            raise self.error(Msg("formula.minimum_above_maximum", dice=text, mi=node.minimum,
                                 ma=node.maximum))

    def atom(self) -> Node:
        tok = self.take()
        if tok.kind == "int":
            return Num(self._int(tok.text, "number"))
        if tok.kind == "dice":
            return self.dice(tok)
        if tok.kind == "name":
            if self.peek().kind == "op" and self.peek().text == "(":
                return self.call(tok)
            if tok.text in FUNCTIONS:
                raise self.error(Msg("formula.is_function", name=tok.text))
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
            raise self.error(Msg("formula.unknown_function", name=name.text, known=known))
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
            raise self.error(Msg("formula.arg_count", name=name.text, want=want, got=len(args)))
        return Call(name.text, tuple(args))


# --- formula ----------------------------------------------------------------


def _walk(node: Node) -> list[Node]:
    out: list[Node] = [node]
    match node:
        case Neg(operand):
            out += _walk(operand)
        case BinOp(_, left, right) | Compare(_, left, right):
            out += _walk(left) + _walk(right)
        case Call(_, args):
            for arg in args:
                out += _walk(arg)
    return out


class Formula(msgspec.Struct, frozen=True):
    """A parsed formula: its text, its tree, the fields it reads, its dice groups in order."""

    text: str
    tree: Node
    names: frozenset[str]
    dice: tuple[Dice, ...]

    @property
    def dice_count(self) -> int:
        """The most dice one evaluation may roll (an exploding die counts its explosions)."""
        return sum(d.rolls_at_most for d in self.dice)

    @property
    def is_constant(self) -> bool:
        return not self.dice

    def check_bound(self, fields: Mapping[str, tuple[int, int]] | None = None) -> tuple[int, int]:
        """The formula's range of values; a :class:`FormulaError` if any part could pass the bound.

        ``fields``: the lowest and highest value of each field it reads (a field not
        given may be anything within the bound).
        """
        return value_range(self.tree, fields or {}, self.text)

    def check_names(self, allowed: frozenset[str] | set[str]) -> None:
        unknown = sorted(self.names - set(allowed))
        if unknown and not allowed:  # a weapon's damage: dice and numbers only
            raise FormulaError(self.text, Msg("formula.no_fields", name=unknown[0]))
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
        run = _Evaluation(self.text, env, dice, purpose, fighter)
        tree = run.node(self.tree)
        natural = run.first.natural_die.face if run.first is not None else None
        return Evaluated(tree.value, tuple(run.rolls), tree, natural)

    def value(self, env: Mapping[str, int]) -> int:
        """Evaluate a formula that rolls no dice."""
        if self.dice:
            raise FormulaError(self.text, Msg("formula.fixed_value"))
        return self.evaluate(env).value

    def __str__(self) -> str:
        return self.text


def apply_op(op: str, a: int, b: int, text: str) -> int:
    """``a op b`` for a formula's operators, ``//`` flooring; shared by every evaluator.

    A result beyond the value bound is a :class:`FormulaError` (never a number the
    vectorised engine cannot hold).
    """
    if op == "+":
        value = a + b
    elif op == "-":
        value = a - b
    elif op == "*":
        value = a * b
    elif b == 0:
        raise FormulaError(text, Msg("formula.division_by_zero"))
    else:
        value = a // b
    if not -INT_LIMIT <= value <= INT_LIMIT:
        raise FormulaError(text, Msg("formula.value_beyond", value=value, limit=INT_LIMIT))
    return value


# --- the range of values ---------------------------------------------------------


def die_range(d: Dice) -> tuple[int, int]:
    """One die's lowest and highest value: 1 (or ``mi``) to its sides (or ``ma``), or its
    highest face with every explosion."""
    if d.explode:
        return 1, d.sides * (1 + MAX_EXPLOSIONS)
    return d.clamped(1), d.clamped(d.sides)


def _dice_range(d: Dice) -> tuple[int, int]:
    """A dice group's lowest and highest value (each kept die at its lowest, or its highest)."""
    if d.count_op is not None:
        return 0, d.kept
    low, high = die_range(d)
    return d.kept * low, d.kept * high


def _floor_div_range(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    """``a // b`` over the ranges, b never 0: floor division is monotonic in each operand on
    each side of 0, so the extremes are at the corners of each side."""
    corners: list[int] = []
    for lo, hi in ((b[0], min(b[1], -1)), (max(b[0], 1), b[1])):
        if lo <= hi:
            corners += [x // y for x in a for y in (lo, hi)]
    if not corners:  # b is always 0: the evaluation will say so
        return 0, 0
    return min(corners), max(corners)


def value_range(node: Node, fields: Mapping[str, tuple[int, int]], text: str) -> tuple[int, int]:
    """The lowest and highest value of ``node`` (interval arithmetic); every part is checked
    against the bound, a :class:`FormulaError` names the first that passes it."""
    match node:
        case Num(value):
            out = (value, value)
        case Name(name):
            out = fields.get(name, (-INT_LIMIT, INT_LIMIT))
        case Dice():
            out = _dice_range(node)
        case Neg(operand):
            lo, hi = value_range(operand, fields, text)
            out = (-hi, -lo)
        case BinOp(op, left, right):
            a = value_range(left, fields, text)
            b = value_range(right, fields, text)
            if op == "+":
                out = (a[0] + b[0], a[1] + b[1])
            elif op == "-":
                out = (a[0] - b[1], a[1] - b[0])
            elif op == "*":
                products = [x * y for x in a for y in b]
                out = (min(products), max(products))
            else:
                out = _floor_div_range(a, b)
        case Call(function, args):
            ranges = [value_range(x, fields, text) for x in args]
            if function == "min":
                out = (min(r[0] for r in ranges), min(r[1] for r in ranges))
            elif function == "max":
                out = (max(r[0] for r in ranges), max(r[1] for r in ranges))
            else:
                out = (ability_mod(ranges[0][0]), ability_mod(ranges[0][1]))
        case Compare(_, left, right):
            value_range(left, fields, text)
            value_range(right, fields, text)
            out = (0, 1)
        case _:  # pragma: no cover
            raise AssertionError(f"unknown node {node!r}")
    if out[0] < -INT_LIMIT or out[1] > INT_LIMIT:
        value = out[1] if out[1] > INT_LIMIT else out[0]
        raise FormulaError(text, Msg("formula.beyond_bound", value=value, limit=INT_LIMIT))
    return out


def field_value(env: Mapping[str, int], name: str, text: str) -> int:
    """A fighter field's value for a formula; every evaluator (scalar, vectorised, exact) uses it."""
    try:
        return env[name]
    except KeyError:
        raise FormulaError(text, Msg("formula.unknown_field", name=name)) from None


def kept_flags(dice: Dice, values: list[int]) -> list[bool]:
    """Which dice of a group count, from their totals: the highest (lowest) ones, the first of equals."""
    if dice.select is None:
        return [True] * len(values)
    order = sorted(range(len(values)), key=values.__getitem__, reverse=dice.keeps_highest)
    keep = set(order[:dice.kept])
    return [i in keep for i in range(len(values))]


class _Evaluation:
    """One evaluation of a formula: walks the tree, rolls the dice in order, records them."""

    def __init__(self, text: str, env: Mapping[str, int], dice: DiceSource | None, purpose: str,
                 fighter: str | None) -> None:
        self.text = text
        self.env = env
        self.source = dice
        self.purpose = purpose
        self.fighter = fighter
        self.rolls: list[Roll] = []
        self.first: DiceResult | None = None  # the first group: it holds the natural

    def roll(self, sides: int) -> Roll:
        assert self.source is not None
        r = Roll(self.purpose, sides, self.source.face(sides, self.purpose, self.fighter), self.fighter)
        self.rolls.append(r)
        return r

    def dice(self, node: Dice) -> DiceResult:
        if self.source is None:
            raise FormulaError(self.text, Msg("formula.fixed_value"))
        sides = node.sides
        if node.plain:  # the common case
            faces = [self.roll(sides) for _ in range(node.count)]
            result = DiceResult(node, tuple(Die((r,)) for r in faces), sum(r.face for r in faces))
        else:
            result = self.group(node)
        if self.first is None:
            self.first = result
        return result

    def group(self, node: Dice) -> DiceResult:
        """Modified or exploding dice (every first roll, then the rerolls or the explosions
        wave by wave) and keep/drop."""
        sides = node.sides
        chains = [[self.roll(sides)] for _ in range(node.count)]
        if node.modified:
            return self.modified(node, chains)
        if node.explode:
            pending = [c for c in chains if c[0].face == sides]
            for _ in range(MAX_EXPLOSIONS):
                if not pending:
                    break
                again = []
                for chain in pending:
                    chain.append(self.roll(sides))
                    if chain[-1].face == sides:
                        again.append(chain)
                pending = again
        values = [sum(r.face for r in c) for c in chains]
        kept = kept_flags(node, values)
        rolled = tuple(Die(tuple(c), k) for c, k in zip(chains, kept, strict=True))
        return self.selected(node, rolled, values, kept)

    @staticmethod
    def selected(node: Dice, rolled: tuple[Die, ...], values: list[int], kept: list[bool]) -> DiceResult:
        """The group's value from its dice: the kept ones added, or counted (success counting)."""
        if node.count_op is not None:  # success counting: the kept dice that pass
            return DiceResult(node, rolled, sum(1 for v, k in zip(values, kept, strict=True)
                                                if k and node.counts(v)))
        return DiceResult(node, rolled, sum(v for v, k in zip(values, kept, strict=True) if k))

    def modified(self, node: Dice, chains: list[list[Roll]]) -> DiceResult:
        """``ro``/``rr`` (every die whose face matches rolled again, wave by wave: once, or
        while it matches, at most MAX_REROLLS times), then ``mi``/``ma``; then keep/drop."""
        rerolled = [0] * len(chains)
        if node.reroll is not None:
            pending = [i for i, c in enumerate(chains) if node.rerolls(c[0].face)]
            for _ in range(1 if node.reroll == "ro" else MAX_REROLLS):
                if not pending:
                    break
                again = []
                for i in pending:
                    chains[i].append(self.roll(node.sides))
                    rerolled[i] += 1
                    if node.rerolls(chains[i][-1].face):
                        again.append(i)
                pending = again
        values = [node.clamped(c[-1].face) for c in chains]
        kept = kept_flags(node, values)
        rolled = tuple(Die(tuple(c), k, r, v if v != c[-1].face else None)
                       for c, k, r, v in zip(chains, kept, rerolled, values, strict=True))
        return self.selected(node, rolled, values, kept)

    def node(self, node: Node) -> ResultNode:
        if isinstance(node, BinOp):
            a = self.node(node.left)
            b = self.node(node.right)
            return OpResult(node.op, a, b, apply_op(node.op, a.value, b.value, self.text))
        if isinstance(node, Name):
            return FieldResult(node.name, field_value(self.env, node.name, self.text))
        if isinstance(node, Dice):
            return self.dice(node)
        if isinstance(node, Num):
            return NumResult(node.value)
        if isinstance(node, Call):
            results = tuple(self.node(a) for a in node.args)
            values = [r.value for r in results]
            if node.function == "min":
                value = min(values)
            elif node.function == "max":
                value = max(values)
            else:
                value = ability_mod(values[0])
            return CallResult(node.function, results, value)
        if isinstance(node, Neg):
            inner = self.node(node.operand)
            return NegResult(inner, -inner.value)
        if isinstance(node, Compare):
            a = self.node(node.left)
            b = self.node(node.right)
            return CompareResult(node.op, a, b, int(compare(node.op, a.value, b.value)))
        raise AssertionError(f"unknown node {node!r}")  # pragma: no cover


@lru_cache(maxsize=512)
def parse(text: str) -> Formula:
    """Parse a formula; raise :class:`FormulaError` (one line) if it is not valid."""
    return parse_part(text, text, 0)


@lru_cache(maxsize=64)
def parse_roll(text: str) -> Formula:
    """Parse an expression of ``roll``: success counting and a comparison of totals allowed."""
    return parse_part(text, text, 0, comparisons=True)


def parse_part(text: str, shown: str, offset: int, comparisons: bool = False) -> Formula:
    """Parse ``text``, the part of ``shown`` from index ``offset`` (``roll``'s labelled expressions).

    An error quotes ``shown`` and counts positions in it.  ``comparisons``: ``roll``'s
    success counting (``6d10>=7``) and comparison of totals (``1d20 + 5 >= 15``).
    """
    if not isinstance(text, str):
        raise FormulaError(str(text), Msg("formula.not_text"))
    if len(text) > MAX_LENGTH:
        raise FormulaError(shown[:40] + "...", Msg("formula.too_long", max=MAX_LENGTH))
    if "\n" in text or "\r" in text:
        raise FormulaError(shown, Msg("formula.one_line"))
    tree = _Parser(text, shown, offset, comparisons).parse()
    nodes = _walk(tree)
    names = frozenset(n.name for n in nodes if isinstance(n, Name))
    dice = tuple(n for n in nodes if isinstance(n, Dice))
    total = sum(d.rolls_at_most for d in dice)
    if total > ROLL_BUDGET:
        raise RollBudgetError(shown, Msg("formula.over_budget", count=total, budget=ROLL_BUDGET))
    return Formula(text, tree, names, dice)


def first_field(text: str, comparisons: bool = False) -> tuple[str, int] | None:
    """The first field a formula reads and where it is (from 0), or None."""
    tokens = _Scanner(text, text, 0, comparisons).tokens()
    for tok, after in pairwise(tokens):
        if tok.kind == "name" and after.text != "(":
            return tok.text, tok.pos
    return None
