"""C-03: the safe expression language of ruleset formulas (parse, evaluate, errors)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sevendag_cli.dice import EnteredDice, Roll, SeededDice
from sevendag_cli.errors import FormulaError, RollBudgetError, SevendagError
from sevendag_cli.formula import (
    MAX_DEPTH,
    MAX_LENGTH,
    ROLL_BUDGET,
    Formula,
    ability_mod,
    parse,
)

FUZZ = settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
# A robustness bound against runaway parsing (a 500-character text parses in ~1 ms), not
# a benchmark: generous enough that a loaded CI machine never trips it.


def run(text: str, env: dict[str, int] | None = None, faces: list[int] | None = None):
    source = EnteredDice(faces or [])
    ev = parse(text).evaluate(env or {}, source, "test", "A")
    source.check_all_used()
    return ev


# --- evaluation table --------------------------------------------------------

CASES = [
    # text, env, faces, value, [(sides, face), ...]
    ("7", {}, [], 7, []),
    ("1 + 2 * 3", {}, [], 7, []),
    ("(1 + 2) * 3", {}, [], 9, []),
    ("10 - 4 - 3", {}, [], 3, []),
    ("2 * 3 // 4", {}, [], 1, []),
    ("2 * (3 // 4)", {}, [], 0, []),
    ("100 // 10 // 3", {}, [], 3, []),
    ("-3 + 5", {}, [], 2, []),
    ("--3", {}, [], 3, []),
    ("-(2 + 3) * 2", {}, [], -10, []),
    ("- 2 * 3", {}, [], -6, []),
    ("+4", {}, [], 4, []),
    ("1 - -1", {}, [], 2, []),
    ("7 // 2", {}, [], 3, []),
    ("-7 // 2", {}, [], -4, []),
    ("7 // -2", {}, [], -4, []),
    ("-7 // -2", {}, [], 3, []),
    ("(3 - 10) // 2", {}, [], -4, []),
    ("min(3, 1, 2)", {}, [], 1, []),
    ("max(3, 1, 2)", {}, [], 3, []),
    ("min(4)", {}, [], 4, []),
    ("max(-1, -5)", {}, [], -1, []),
    ("mod(18)", {}, [], 4, []),
    ("mod(dex) + dex", {"dex": 12}, [], 13, []),
    ("dex + str * 2", {"dex": 3, "str": 4}, [], 11, []),
    ("10 + armour + mod(dex) + size", {"armour": 2, "dex": 14, "size": -1}, [], 13, []),
    ("1d20 + mod(dex)", {"dex": 18}, [19], 23, [(20, 19)]),
    ("d6", {}, [4], 4, [(6, 4)]),
    ("3d6", {}, [1, 2, 3], 6, [(6, 1), (6, 2), (6, 3)]),
    ("2d4 + 1d8 - 1", {}, [1, 4, 8], 12, [(4, 1), (4, 4), (8, 8)]),
    ("max(1d20, 1d20)", {}, [5, 17], 17, [(20, 5), (20, 17)]),
    ("min(1d20, 1d20) + 1", {}, [5, 17], 6, [(20, 5), (20, 17)]),
    ("1d1", {}, [1], 1, [(1, 1)]),
    ("2 * 1d6", {}, [3], 6, [(6, 3)]),
    ("-1d4", {}, [2], -2, [(4, 2)]),
    ("mod(3d6)", {}, [6, 6, 6], 4, [(6, 6), (6, 6), (6, 6)]),
    ("  1d20+2  ", {}, [10], 12, [(20, 10)]),
    ("1d20 + bba + mod(str) + weapon_type", {"bba": 3, "str": 12, "weapon_type": 0}, [8], 12,
     [(20, 8)]),
]


@pytest.mark.parametrize(("text", "env", "faces", "value", "rolls"), CASES)
def test_C03_evaluation_table(text, env, faces, value, rolls) -> None:
    ev = run(text, env, faces)
    assert ev.value == value
    assert [(r.sides, r.face) for r in ev.rolls] == rolls
    assert all(r.purpose == "test" and r.fighter == "A" for r in ev.rolls)


@pytest.mark.parametrize(
    ("score", "mod"),
    [(18, 4), (12, 1), (10, 0), (8, -1), (5, -3), (1, -5), (11, 0), (9, -1), (3, -4), (20, 5)],
)
def test_D01_modifier(score: int, mod: int) -> None:
    assert ability_mod(score) == mod
    assert parse(f"mod({score})").value({}) == mod
    assert parse("mod(x)").value({"x": score}) == mod


def test_C03_rolls_are_recorded_in_order_with_purpose_sides_face_fighter() -> None:
    source = EnteredDice([3, 5, 17, 2])
    ev = parse("2d6 + 1d20 - d4").evaluate({}, source, "damage", "Brannoc")
    assert ev.rolls == (
        Roll("damage", 6, 3, "Brannoc"),
        Roll("damage", 6, 5, "Brannoc"),
        Roll("damage", 20, 17, "Brannoc"),
        Roll("damage", 4, 2, "Brannoc"),
    )
    assert ev.value == 3 + 5 + 17 - 2
    assert ev.rolls[2].die == "d20"
    assert source.consumed == 4


def test_C03_natural_is_the_first_die() -> None:
    ev = parse("1d20 + 1d6 + 3").evaluate({}, EnteredDice([11, 6]), "attack", "A")
    assert ev.natural == 11
    ev = parse("max(1d20, 1d20)").evaluate({}, EnteredDice([2, 19]), "attack", "A")
    assert ev.natural == 2
    assert parse("3 + 4").evaluate({}).natural is None


def test_C03_formula_metadata() -> None:
    f = parse("2d6 + 1d20 + mod(dex) - str")
    assert isinstance(f, Formula)
    assert f.names == frozenset({"dex", "str"})
    assert [(d.count, d.sides) for d in f.dice] == [(2, 6), (1, 20)]
    assert f.dice_count == 3
    assert not f.is_constant
    assert parse("10 + armour").is_constant
    assert str(f) == "2d6 + 1d20 + mod(dex) - str"


def test_C03_value_refuses_dice_and_evaluate_needs_a_source() -> None:
    with pytest.raises(FormulaError, match="fixed value"):
        parse("1d6").value({})
    with pytest.raises(FormulaError, match="fixed value"):
        parse("1d6 + 1").evaluate({})


def test_C03_missing_field_at_evaluation() -> None:
    with pytest.raises(FormulaError, match="unknown field 'dex'"):
        parse("mod(dex)").value({})


def test_C03_check_names() -> None:
    f = parse("1d20 + mod(dex) + luck")
    f.check_names({"dex", "luck", "str"})
    with pytest.raises(FormulaError) as err:
        f.check_names(frozenset({"dex", "str"}))
    msg = str(err.value)
    assert "unknown field 'luck'" in msg
    assert "dex, str" in msg
    assert "\n" not in msg


def test_C03_division_by_zero_is_an_evaluation_error() -> None:
    f = parse("10 // (dex - 10)")  # parses fine
    assert f.value({"dex": 12}) == 5
    with pytest.raises(FormulaError, match="division by zero"):
        f.value({"dex": 10})
    with pytest.raises(FormulaError, match="division by zero"):
        parse("1 // 0").value({})


# --- errors ------------------------------------------------------------------

ERRORS = [
    # text, error class, fragment of the message
    ("1 +", FormulaError, "expected a number"),
    ("(1 + 2", FormulaError, "')'"),
    ("1 2", FormulaError, "expected an operator"),
    ("1 + * 2", FormulaError, "position 5"),
    ("max(1,", FormulaError, "the end"),
    ("max()", FormulaError, "expected a number"),
    ("1 $ 2", FormulaError, "unexpected '$' at position 3"),
    ("1d6d6", FormulaError, "unexpected 'd' at position 4"),
    ("12abc", FormulaError, "unexpected 'a' at position 3"),
    ("foo(1)", FormulaError, "unknown function 'foo'"),
    ("sqrt(dex)", FormulaError, "max, min, mod"),
    ("mod(1, 2)", FormulaError, "exactly 1"),
    ("min", FormulaError, "min is a function"),
    ("1d0", FormulaError, "at least one side"),
    ("0d6", FormulaError, "at least one die"),
    ("1d-6", FormulaError, "at least one side"),
    ("1d1001", FormulaError, "at most 1000 sides"),
    ("1234567890", FormulaError, "too large"),
    ("1000000d1000000", RollBudgetError, f"budget of {ROLL_BUDGET}"),
    ("600d6 + 600d6", RollBudgetError, f"budget of {ROLL_BUDGET}"),
    (f"{ROLL_BUDGET + 1}d6", RollBudgetError, "budget"),
    ("1" + " + 1" * 200, FormulaError, f"longer than {MAX_LENGTH}"),
    ("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1), FormulaError, "nested"),
    ("-" * (MAX_DEPTH + 1) + "1", FormulaError, "nested"),
    ("+" * (MAX_DEPTH + 1) + "1", FormulaError, "nested"),
    ("dex / 2", FormulaError, "use // for division"),
    ("", FormulaError, "empty formula"),
    ("   ", FormulaError, "empty formula"),
    ("1\n+ 2", FormulaError, "one line"),
]


@pytest.mark.parametrize(("text", "cls", "fragment"), ERRORS)
def test_C03_errors_are_one_line_formula_errors(text: str, cls: type, fragment: str) -> None:
    with pytest.raises(cls) as err:
        parse(text)
    assert isinstance(err.value, FormulaError) and isinstance(err.value, SevendagError)
    msg = str(err.value)
    assert fragment in msg
    assert msg.startswith("formula ")
    assert "\n" not in msg.replace("\\n", "")  # the text is shown with repr
    assert len(msg) < 300


def test_C03_budget_holds_exactly_at_the_limit() -> None:
    f = parse(f"{ROLL_BUDGET // 2}d6 + {ROLL_BUDGET // 2}d6")
    assert f.dice_count == ROLL_BUDGET
    ev = f.evaluate({}, SeededDice(1), "damage", "A")
    assert len(ev.rolls) == ROLL_BUDGET


def test_C03_nesting_at_the_limit_is_accepted() -> None:
    depth = MAX_DEPTH - 1
    assert parse("(" * depth + "1" + ")" * depth).value({}) == 1
    assert parse("-" * (MAX_DEPTH - 1) + "1").value({}) == -1


def test_C03_no_eval() -> None:
    with pytest.raises(FormulaError):
        parse("__import__('os')")
    with pytest.raises(FormulaError):
        parse("dex.__class__")


# --- fuzzing -----------------------------------------------------------------

TOKENS = [
    "1", "0", "7", "20", "999999999", "1234567890", "1d20", "d6", "3d6", "1d0", "0d6",
    "1000d1000", "999d1", "d", "dex", "str", "con", "x_1", "+", "-", "*", "//", "/", "(", ")",
    ",", "min", "max", "mod", "min(", "max(", "mod(", "foo(", " ", "  ", "$", "\t", "é", "1.5",
    "4d6kh3", "2d20kl1", "4d6dl1", "3d6dh", "d%", "3d6!", "2d4!k1", "1d1!", "2d20kh3", "!", "%",
    "kh", "dl1", "k", "D6", "200d6!",
]

near_valid = st.lists(st.sampled_from(TOKENS), max_size=40).flatmap(
    lambda toks: st.sampled_from(["", " "]).map(lambda sep: sep.join(toks))
)
any_text = st.one_of(st.text(), st.text(alphabet="0123456789d+-*/(),minaxodkhl!% ", max_size=80),
                     near_valid)


def parsed_or_refused(text: str) -> Formula | FormulaError:
    """The formula, or the one-line error refusing it (never another exception)."""
    try:
        out: Formula | FormulaError = parse(text)
    except FormulaError as exc:
        out = exc
    return out


@pytest.mark.slow
@FUZZ
@given(text=any_text, seed=st.integers(0, 2**32), value=st.integers(-30, 30))
def test_C03_fuzz_parse_never_crashes_and_evaluation_is_safe(text: str, seed: int,
                                                              value: int) -> None:
    out = parsed_or_refused(text)
    if isinstance(out, FormulaError):
        assert str(out).startswith("formula ")
        return
    assert isinstance(out, Formula)
    env = dict.fromkeys(out.names, value)
    try:
        ev = out.evaluate(env, SeededDice(seed), "fuzz", "A")
    except FormulaError as exc:
        assert "division by zero" in str(exc)
        return
    assert isinstance(ev.value, int)
    assert len(ev.rolls) <= out.dice_count <= ROLL_BUDGET
    assert all(1 <= r.face <= r.sides for r in ev.rolls)


@pytest.mark.slow
@FUZZ
@given(text=st.text(min_size=MAX_LENGTH - 5, max_size=MAX_LENGTH + 5,
                    alphabet="+-(1d6) "))
def test_C03_fuzz_texts_about_the_length_limit_are_parsed_or_refused_in_one_line(text: str) -> None:
    """Texts about :data:`MAX_LENGTH` long (how long they take: benchmarks/bench_pathological.py)."""
    out = parsed_or_refused(text)
    if isinstance(out, FormulaError):
        assert str(out).startswith("formula ") and "\n" not in str(out)
    else:
        assert len(text) <= MAX_LENGTH
