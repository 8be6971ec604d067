"""A formula's evaluation tree as one line of text (Rich), and the ``roll`` display.

The line keeps the expression's structure with each die's face in place:
``d6 2 − d6 5 = -3``, ``(d6 2 + d6 5) × 2 = 14``, ``max(d20 5, d20 19▲) = 19``.
Marks that need no colour (``NO_COLOR`` or a pipe loses nothing):

* ``▲`` a die's highest face, ``▼`` its lowest (1) — also green / red in colour;
* ``!`` after a face: the die exploded (showed its highest face and was rolled
  again); its next roll follows it: ``d6 6! + d6 2``, in parentheses among
  other dice: ``(d6 6! + d6 2) + d6 3``;
* ``~d20 3~``: a dropped die (keep/drop), which does not count — struck in colour;
* ``d6 1▼↻4``: a die rolled again (``ro``, ``rr``): the faces before ``↻`` do not count
  (struck in colour), the last stands; ``d20 7↑10``, ``d20 18↓15``: a face raised by
  ``mi`` or lowered by ``ma`` to the value after the arrow;
* ``{d10 4, d10 9✓}≥7``: success counting, each die that counts marked ``✓``; the
  group is worth the number of marks;
* ``d20 12 + 5 = 17 ≥ 15 → 1``: a comparison of two totals, worth 1 (true) or 0.

Parentheses come from the operators' precedence, not from the text typed.
Fields read from a fighter show their name and value (``bba 3``), or the
label a game master reads (``BBA 3``, and ``mod(str)`` as ``STR +1``) when
:func:`tree_text` is given ``labels``: the fight displays explain each check so.
A die and its face, an operator and its operand stay on one line when the
display wraps (:mod:`sevendag_cli.render.layout`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from sevendag_cli.dice import Roll
from sevendag_cli.formula import (
    CallResult,
    CompareResult,
    DiceResult,
    Die,
    FieldResult,
    NegResult,
    NumResult,
    OpResult,
    ResultNode,
)
from sevendag_cli.i18n import number as shown_number
from sevendag_cli.i18n import t
from sevendag_cli.render.layout import GLUE, print_wrapped
from sevendag_cli.text import visible

if TYPE_CHECKING:  # the roll command's records: a fight's display imports neither (nor fractions)
    from sevendag_cli.roll_odds import OddsCall
    from sevendag_cli.roller import RollCall

HIGHEST = "▲"
LOWEST = "▼"
EXPLODED = "!"
DROPPED = "~"
REROLLED = "↻"
RAISED = "↑"
LOWERED = "↓"
MINUS = "−"
OPERATORS = {"+": "+", "-": MINUS, "*": "×", "//": "//"}
COMPARISONS = {">=": "≥", "<=": "≤", ">": ">", "<": "<", "=": "="}
COUNTED = "✓"

_SUM, _PRODUCT, _UNARY, _ATOM = 1, 2, 3, 4


def number(value: int) -> str:
    """An integer with a true minus sign."""
    return f"{MINUS}{-value}" if value < 0 else str(value)


def signed(value: int) -> str:
    """A modifier: ``+1``, ``−1``, ``+0``."""
    return f"{MINUS}{-value}" if value < 0 else f"+{value}"


def face_text(r: Roll, exploded: bool = False) -> Text:
    """``d20 20▲``, ``d20 1▼``, ``d6 6!`` (exploded), ``d8 5``."""
    style = "bold green" if r.is_max else ("bold red" if r.is_min else "bold")
    mark = EXPLODED if exploded else (HIGHEST if r.is_max else (LOWEST if r.is_min else ""))
    return Text.assemble((r.die, "dim"), GLUE, (f"{r.face}{mark}", style))


def modified_text(die: Die) -> Text:
    """A die rolled again or raised or lowered, its history in place: ``d6 1▼↻4`` (the faces
    before the last ``↻`` were rolled again and do not count), ``d20 7↑10`` (``mi``),
    ``d20 18↓15`` (``ma``), ``d20 1▼↻3↑5``."""
    out = Text.assemble((die.rolls[0].die, "dim"), GLUE)
    for i, r in enumerate(die.rolls):
        if i:
            out.append(REROLLED, "dim")
        style = "bold green" if r.is_max else ("bold red" if r.is_min else "bold")
        face = Text(f"{r.face}{HIGHEST if r.is_max else (LOWEST if r.is_min else '')}", style)
        if i < die.rerolled:
            face.stylize("strike dim")
        out.append_text(face)
    if die.forced is not None:
        out.append(RAISED if die.forced > die.rolls[-1].face else LOWERED, "dim")
        out.append(str(die.forced), "bold")
    return out


def die_text(die: Die, alone: bool = True) -> Text:
    """One die: its face, or its explosion chain ``d6 6! + d6 2`` (in parentheses among
    other dice: ``(d6 6! + d6 2) + d6 3``), or its rerolls and forced value (:func:`modified_text`);
    a dropped die ``~d6 1▼~``."""
    if die.rerolled or die.forced is not None:
        out = modified_text(die)
    else:
        out = Text()
        last = len(die.rolls) - 1
        for i, r in enumerate(die.rolls):
            if i:
                out.append(f" +{GLUE}")
            out.append_text(face_text(r, exploded=i < last))
    if not die.kept:
        out.stylize("strike dim")
        return Text.assemble((DROPPED, "dim"), out, (DROPPED, "dim"))
    if die.exploded and not alone:
        return Text.assemble("(", out, ")")
    return out


def _items(node: DiceResult) -> int:
    """The terms a group shows: a die each, and each of its explosions."""
    return sum(len(d.rolls) - d.rerolled for d in node.rolled)


def _labelled_mod(node: ResultNode, labels: Mapping[str, str] | None) -> FieldResult | None:
    """``mod(str)`` with labels: the field whose modifier it is (shown ``STR +1``)."""
    if labels is not None and isinstance(node, CallResult) and node.function == "mod" \
            and len(node.args) == 1 and isinstance(node.args[0], FieldResult):
        return node.args[0]
    return None


def _precedence(node: ResultNode, labels: Mapping[str, str] | None = None) -> int:
    if labels is not None and isinstance(node, FieldResult):
        return _ATOM  # "type −1": the label makes the sign part of the value
    match node:
        case OpResult(op):
            return _SUM if op in ("+", "-") else _PRODUCT
        case NegResult():
            return _UNARY
        case DiceResult():
            return _SUM if _items(node) > 1 and node.dice.count_op is None else _ATOM
        case CompareResult():
            return 0
        case FieldResult(_, value) if value < 0:
            return _UNARY
    return _ATOM


def _wrapped(node: ResultNode, parens: bool, labels: Mapping[str, str] | None) -> Text:
    inner = tree_text(node, labels)
    return Text.assemble("(", inner, ")") if parens else inner


def tree_text(node: ResultNode, labels: Mapping[str, str] | None = None) -> Text:
    """An evaluation tree as text, each die's face in place (no total).

    ``labels``: how to name a fighter's fields (``{"bba": "BBA", "str": "STR"}``);
    with them ``mod(str)`` reads ``STR +1``.  A field without a label shows its name.
    """
    field = _labelled_mod(node, labels)
    if field is not None:
        assert labels is not None
        name = labels.get(field.name) or visible(field.name)
        return Text.assemble((glued_label(name), "dim"), GLUE, signed(node.value))
    match node:
        case NumResult(value):
            return Text(number(value))
        case FieldResult(name, value):
            shown_name = (labels or {}).get(name) or visible(name)
            return Text.assemble((glued_label(shown_name), "dim"), GLUE, number(value))
        case DiceResult() if node.dice.count_op is not None:
            return counted_text(node)
        case DiceResult():
            out = Text()
            for i, die in enumerate(node.rolled):
                if i:
                    out.append(f" +{GLUE}")
                out.append_text(die_text(die, alone=len(node.rolled) == 1))
            return out
        case NegResult(operand):
            return Text.assemble(MINUS, _wrapped(operand, _precedence(operand, labels) <= _UNARY,
                                                 labels))
        case OpResult(op, left, right):
            level = _precedence(node)
            return Text.assemble(
                _wrapped(left, _precedence(left, labels) < level, labels),
                f" {OPERATORS[op]}{GLUE}",
                _wrapped(right, _precedence(right, labels) <= level, labels),
            )
        case CompareResult(op, left, right):
            out = Text.assemble(tree_text(left, labels), f" ={GLUE}", number(left.value))
            out.append(f" {COMPARISONS[op]}{GLUE}")
            out.append_text(tree_text(right, labels))
            if not isinstance(right, NumResult):
                out.append_text(Text.assemble(f" ={GLUE}", number(right.value)))
            return out
        case CallResult(function, args):
            out = Text(f"{function}(")
            for i, arg in enumerate(args):
                if i:
                    out.append(", ")
                out.append_text(tree_text(arg, labels))
            out.append(")")
            return out
    raise AssertionError(f"unknown node {node!r}")  # pragma: no cover


def counted_text(node: DiceResult) -> Text:
    """Success counting: ``{d10 4, d10 9✓, ~d10 1▼~}≥7`` (each die that counts marked)."""
    dice = node.dice
    out = Text("{")
    for i, die in enumerate(node.rolled):
        if i:
            out.append(", ")
        out.append_text(die_text(die))
        if die.kept and dice.counts(die.value):
            out.append(COUNTED, "bold green")
    out.append("}" + COMPARISONS[dice.count_op or "="] + number(dice.count_target))
    return out


def result_text(node: ResultNode, total: int, label: str | None = None, lang: str = "en") -> Text:
    """``damage: d6 3 + d6 5 + 3 = 11``; a comparison ``d20 12 + 5 = 17 ≥ 15 → 1``; ``label``:
    what names the line (a label, or the expression echoed)."""
    out = Text()
    if label is not None:
        out.append(t("roll_label", lang, label=visible(label)), "bold")
    out.append_text(tree_text(node))
    out.append(f" →{GLUE}" if isinstance(node, CompareResult) else f" ={GLUE}")
    out.append(str(total), "bold cyan")
    return out


def glued_label(name: str) -> str:
    """A field's label kept on one line (``crit range``)."""
    return name.replace(" ", GLUE)


def render_roll(console: Console, call: RollCall, lang: str = "en") -> None:
    """One line per expression, in the order given, wrapped under itself at the console's width:
    its label, or the expression itself echoed where it has none (``1d20 + 5: d20 12 + 5 = 17``,
    as a bot answers ``1d20 (12) + 5 = 17``), then every die in place."""
    for r in call.results:
        name = r.label if r.label is not None else _shown(r.expression)
        print_wrapped(console, result_text(r.tree, r.total, name, lang))


# --- roll --odds ----------------------------------------------------------------------------------

MAX_ODDS_ROWS = 40
"""Most rows of one ``roll --odds`` table: beyond, the rarest tails are left out, then the
values grouped in ranges of equal width (``--json`` has every value)."""
TAIL = 0.0001
"""A tail left out of a long table holds at most this probability on each side."""


def odds_percent(p: float, lang: str = "en") -> str:
    """``12.50%`` (French ``12,50 %``); a probability too small to show ``<0.01%``, never
    ``0.00%`` for a possible value."""
    if 0 < p < 0.00005:
        return "<" + shown_number(0.0001, ".2%", lang)
    return shown_number(p, ".2%", lang)


def odds_rows(values: tuple[int, ...], probs: list[float]) -> tuple[list[tuple[str, float, float]], int, float, int]:
    """The rows of a distribution's table: ``(value or range, P(= n), P(≥ n))``, then how many
    values were left out of the tails, their probability, and the width of a range (1: none)."""
    lo, hi = 0, len(values)
    left_out, mass = 0, 0.0
    if hi > MAX_ODDS_ROWS:
        acc = 0.0
        while lo < hi and acc + probs[lo] <= TAIL:
            acc += probs[lo]
            lo += 1
        acc2 = 0.0
        while hi > lo and acc2 + probs[hi - 1] <= TAIL:
            acc2 += probs[hi - 1]
            hi -= 1
        left_out, mass = lo + len(values) - hi, acc + acc2
    span = values[hi - 1] - values[lo] + 1 if hi > lo else 1
    width = 1 if hi - lo <= MAX_ODDS_ROWS else -(-span // MAX_ODDS_ROWS)
    at_least = [0.0] * (len(values) + 1)
    for i in range(len(values) - 1, -1, -1):
        at_least[i] = at_least[i + 1] + probs[i]
    rows: list[tuple[str, float, float]] = []
    i = lo
    while i < hi:
        start = values[i]
        j, p = i, 0.0
        while j < hi and values[j] < start + width:
            p += probs[j]
            j += 1
        end = values[j - 1] if width == 1 else min(start + width - 1, values[hi - 1])  # never past
        # the highest value shown: the range is clipped to the values the expression can take
        name = number(start) if end == start else f"{number(start)}–{number(end)}"
        rows.append((name, p, min(1.0, at_least[i])))
        i = j
    return rows, left_out, mass, width


def render_odds(console: Console, call: OddsCall, lang: str = "en") -> None:
    """Each expression's exact distribution: P(= n) and P(≥ n), the mean and the standard
    deviation; a comparison of totals: its probability (and its fraction when short)."""
    for k, d in enumerate(call.results):
        if k:
            console.print()
        name = (t("roll_label", lang, label=visible(d.label)) if d.label is not None else "") + visible(
            _shown(d.expression))
        if d.comparison:
            p = d.p_true
            fraction = f" ({p.numerator}/{p.denominator})" if p.denominator < 10 ** 9 else ""
            print_wrapped(console, Text.assemble((name, "bold"), t("colon", lang),
                                                 (odds_percent(float(p), lang), "bold cyan"),
                                                 fraction, "  ", (t("odds_exact", lang), "dim")))
            continue
        print_wrapped(console, Text.assemble((name, "bold"), "  ", (t("odds_exact", lang), "dim")))
        probs = d.floats
        rows, left_out, mass, width = odds_rows(d.values, probs)
        column = max(5, *(len(r[0]) for r in rows))
        console.print(Text(f"  {'n':>{column}}  {t('odds_eq', lang):>8}  {t('odds_ge', lang):>8}", "bold"))
        for value, eq, ge in rows:
            console.print(f"  {value:>{column}}  {odds_percent(eq, lang):>8}  {odds_percent(ge, lang):>8}")
        if width > 1:
            print_wrapped(console, Text("  " + t("odds_grouped", lang, width=width), "dim"), hang=2)
        if left_out:
            print_wrapped(console, Text("  " + t("odds_left_out", lang, n=left_out, p=odds_percent(mass, lang)),
                                        "dim"), hang=2)
        print_wrapped(console, Text("  " + t("odds_mean_sd", lang, mean=shown_number(float(d.mean), ".2f", lang),
                                                  sd=shown_number(d.sd, ".2f", lang))), hang=2)


def _shown(expression: str) -> str:
    """An expression as shown above its table: comparisons with their signs."""
    for op, sign in ((">=", "≥"), ("<=", "≤")):
        expression = expression.replace(op, sign)
    return expression
