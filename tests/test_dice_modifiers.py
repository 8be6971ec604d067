"""Die modifiers (C-03), avrae's notation: ``ro`` rerolls once, ``rr`` rerolls while the face
matches (at most 9 times), ``mi``/``ma`` raise or lower a die.  The parser and its refusals,
the step-by-step roll with each die's history, the seeded roller, the JSON tree, and the exact
odds against brute force: every sequence of faces, rerolls included, in fractions."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sevendag_cli.commands.schema import validator
from sevendag_cli.dice import EnteredDice, SeededDice
from sevendag_cli.errors import FormulaError, RollBudgetError
from sevendag_cli.formula import MAX_REROLLS, Dice, parse, parse_roll
from sevendag_cli.roll_odds import distribution
from sevendag_cli.roller import parse_expression
from tests.exact_helpers import distribution as enumerated
from tests.helpers import assert_one_line_error, run, run_json


@pytest.fixture(autouse=True)
def _plain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "80")


# --- the notation ---------------------------------------------------------------------------

PARSED = [
    # text, (reroll, op, target, minimum, maximum), notation, dice it may roll (the budget)
    ("4d6ro1", ("ro", "=", 1, None, None), "4d6ro1", 8),
    ("4d6rr<3", ("rr", "<", 3, None, None), "4d6rr<3", 40),
    ("1d20rr>18", ("rr", ">", 18, None, None), "1d20rr>18", 10),
    ("2d20mi10", (None, "=", 0, 10, None), "2d20mi10", 2),
    ("1d20ma15", (None, "=", 0, None, 15), "1d20ma15", 1),
    ("4D6RO1KH3", ("ro", "=", 1, None, None), "4d6ro1kh3", 8),
    ("1d20ro1mi5ma15", ("ro", "=", 1, 5, 15), "1d20ro1mi5ma15", 2),
    ("2d6ma5mi2ro<2", ("ro", "<", 2, 2, 5), "2d6ro<2mi2ma5", 4),
    ("d%ro<11", ("ro", "<", 11, None, None), "1d100ro<11", 2),
    ("6d10ro1>=7", ("ro", "=", 1, None, None), "6d10ro1>=7", 12),
]


@pytest.mark.parametrize(("text", "mods", "notation", "rolls"), PARSED, ids=[p[0] for p in PARSED])
def test_C03_modifiers_parse(text: str, mods: tuple[object, ...], notation: str, rolls: int) -> None:
    f = parse_roll(text)
    d = f.dice[0]
    assert (d.reroll, d.reroll_op, d.reroll_target, d.minimum, d.maximum) == mods
    assert (d.notation, f.dice_count) == (notation, rolls)


def test_C03_sheet_formulas_take_modifiers_too() -> None:
    """The formula language is shared: a sheet's damage or a ruleset's check may use them."""
    assert parse("1d20mi10 + bba").dice[0] == Dice(1, 20, minimum=10)
    assert parse("2d6ro<3 + 2").dice[0].notation == "2d6ro<3"


REFUSED = [
    ("4d6ro1ro2", FormulaError, "unexpected 'r' at position 7 (each of ro or rr, mi and ma at most once"),
    ("4d6ro1rr2", FormulaError, "unexpected 'r' at position 7"),
    ("3d6!ro1", FormulaError, "unexpected 'r' at position 5 (an exploding die takes no ro, rr, mi nor ma)"),
    ("3d6mi2!", FormulaError, "unexpected '!' at position 7 (an exploding die takes no ro, rr, mi nor ma)"),
    ("4d6kh3ro1", FormulaError, "(write ro, rr, mi and ma before kh, kl, dh or dl, like 4d6ro1kh3)"),
    ("1d6rr<7", FormulaError, "1d6rr<7: rr<7 matches every face of a d6, so no face would ever stand"),
    ("1d6rr>0", FormulaError, "matches every face"),
    ("1d6ro7", FormulaError, "1d6ro7: no face of a d6 matches ro7, so nothing would be rerolled"),
    ("1d6ro<1", FormulaError, "no face of a d6 matches ro<1"),
    ("1d6mi7", FormulaError, "1d6mi7: mi7 is not a face of a d6: write 1 to 6"),
    ("1d6ma0", FormulaError, "ma0 is not a face of a d6"),
    ("1d6mi5ma3", FormulaError, "1d6mi5ma3: the minimum mi5 is above the maximum ma3"),
    ("1d6ro", FormulaError, "expected a face (like 4d6ro1, 4d6rr<3 or 2d20mi10) at position 6"),
    ("1d6mi<3", FormulaError, "expected a face"),
    ("101d6rr1", RollBudgetError, "101d6rr1 may roll 1010 dice (a die at most 10 times with its rerolls), "
                                  "over the budget of 1000"),
    ("501d6ro1", RollBudgetError, "may roll 1002 dice (a die at most 2 times"),
]


@pytest.mark.parametrize(("text", "kind", "fragment"), REFUSED, ids=[r[0] for r in REFUSED])
def test_C03_modifier_mistakes_are_one_line(text: str, kind: type, fragment: str) -> None:
    with pytest.raises(kind) as refused:
        parse_roll(text)
    assert fragment in refused.value.render()
    assert_one_line_error(run("roll", text), 2, fragment)


def test_C03_modifier_mistakes_in_french() -> None:
    assert_one_line_error(run("roll", "1d6rr<7", "--lang", "fr"), 2,
                          "rr<7 correspond à toutes les faces d'un d6, aucune face ne resterait")
    assert_one_line_error(run("roll", "4d6kh3ro1", "--lang", "fr"), 2,
                          "(écrire ro, rr, mi et ma avant kh, kl, dh ou dl, comme 4d6ro1kh3)")


def test_C03_the_budget_counts_every_roll_a_die_may_make() -> None:
    assert parse_roll("100d6rr1").dice_count == 1000
    assert parse_roll("500d6ro1").dice_count == 1000
    assert_one_line_error(run("roll", "95d6rr1", "60d6"), 2, "roll up to 1010 dice together")


# --- the roll, step by step -------------------------------------------------------------------

ROLLED = [
    # text, faces entered, each die's (faces rolled, rerolled, forced, kept), the value, the natural
    ("4d6ro1", [1, 3, 5, 1, 1, 2], [((1, 1), 1, None, True), ((3,), 0, None, True), ((5,), 0, None, True),
                                    ((1, 2), 1, None, True)], 11, 1),
    ("4d6ro1kh3", [1, 3, 5, 1, 6, 2], [((1, 6), 1, None, True), ((3,), 0, None, True),
                                       ((5,), 0, None, True), ((1, 2), 1, None, False)], 14, 6),
    # wave by wave: both dice that show < 3 are rolled again in order, then those still below
    ("2d6rr<3", [1, 2, 2, 5, 1, 6], [((1, 2, 1, 6), 3, None, True), ((2, 5), 1, None, True)], 11, 6),
    ("2d20mi10", [3, 15], [((3,), 0, 10, True), ((15,), 0, None, True)], 25, 10),
    ("1d20ma15", [18], [((18,), 0, 15, True)], 15, 15),
    ("1d20ro1mi5", [1, 3], [((1, 3), 1, 5, True)], 5, 5),
    ("3d6ro1>=4", [1, 4, 6, 2], [((1, 2), 1, None, True), ((4,), 0, None, True),
                                 ((6,), 0, None, True)], 2, 2),
]


@pytest.mark.parametrize(("text", "faces", "dice", "value", "natural"), ROLLED, ids=[r[0] for r in ROLLED])
def test_C02_C03_each_die_keeps_its_history(text: str, faces: list[int],
                                            dice: list[tuple[object, ...]], value: int, natural: int) -> None:
    ev = parse_roll(text).evaluate({}, EnteredDice(faces), "roll")
    assert [r.face for r in ev.rolls] == faces  # every face used, in roll order
    got = [(tuple(r.face for r in d.rolls), d.rerolled, d.forced, d.kept) for d in ev.groups[0].rolled]
    assert (got, ev.value, ev.natural) == (dice, value, natural)


def test_rr_rolls_a_die_at_most_10_times_and_the_last_face_stands() -> None:
    ev = parse_roll("1d2rr1").evaluate({}, EnteredDice([1] * 10), "roll")
    die = ev.groups[0].rolled[0]
    assert (len(die.rolls), die.rerolled, ev.value) == (1 + MAX_REROLLS, MAX_REROLLS, 1)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**63 - 1), st.sampled_from(["3d2rr1", "2d4rr<4", "4d6ro<3kh3", "2d20mi8ma12"]))
def test_seeded_rolls_stay_within_the_budget_and_the_rules(seed: int, text: str) -> None:
    f = parse_roll(text)
    ev = f.evaluate({}, SeededDice(seed), "roll")
    d = f.dice[0]
    assert len(ev.rolls) <= f.dice_count
    for die in ev.groups[0].rolled:
        stands = die.rolls[die.rerolled].face
        assert die.rolls[die.rerolled:] == die.rolls[-1:]  # one face stands, the last
        assert all(d.rerolls(r.face) for r in die.rolls[:die.rerolled])
        assert not d.rerolls(stands) or die.rerolled == (1 if d.reroll == "ro" else MAX_REROLLS)
        assert die.value == d.clamped(stands)


DISPLAYED = [
    (["4d6ro1kh3"], "1,3,5,1,6,2", "4d6ro1kh3: d6 1▼↻6▲ + d6 3 + d6 5 + ~d6 1▼↻2~ = 14"),
    (["gwf: 2d6ro<3 + 4"], "2,6,1", "gwf: d6 2↻1▼ + d6 6▲ + 4 = 11"),
    (["2d6rr<3"], "1,2,2,5,1,6", "2d6rr<3: d6 1▼↻2↻1▼↻6▲ + d6 2↻5 = 11"),
    (["reliable: 1d20mi10 + 7"], "3", "reliable: d20 3↑10 + 7 = 17"),
    (["1d20ma15"], "18", "1d20ma15: d20 18↓15 = 15"),
    (["1d6ro1 * 2"], "1,4", "1d6ro1 * 2: d6 1▼↻4 × 2 = 8"),
    (["3d6ro1>=4"], "1,4,6,2", "3d6ro1≥4: {d6 1▼↻2, d6 4✓, d6 6▲✓}≥4 = 2"),
]


@pytest.mark.parametrize(("args", "faces", "line"), DISPLAYED, ids=[d[0][0] for d in DISPLAYED])
def test_the_display_shows_rerolled_faces_and_forced_values(args: list[str], faces: str, line: str) -> None:
    result = run("roll", *args, "--dice", faces)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [line]


def test_the_display_in_french() -> None:
    result = run("roll", "fiable : 1d20mi10", "--dice", "4", "--lang", "fr")
    assert result.stdout == "fiable : d20 4↑10 = 10\n"


def test_the_json_tree_has_the_modifiers_and_each_die_s_history() -> None:
    doc = run_json("roll", "4d6ro1kh3", "2d20mi10", "3d6", "--dice", "1,3,5,1,6,2,3,15,1,2,3")
    assert not list(validator("roll").iter_errors(doc))
    group = doc["tree"]
    assert group["modifiers"] == {"reroll": {"mode": "ro", "op": "=", "target": 1}, "minimum": None,
                                  "maximum": None}
    history = [(d["value"], d["rerolled"], d["forced"], [r["face"] for r in d["rolls"]])
               for d in group["dice"]]
    assert history == [(6, 1, None, [1, 6]), (3, 0, None, [3]), (5, 0, None, [5]), (2, 1, None, [1, 2])]
    mi = doc["results"][1]["tree"]
    assert mi["modifiers"]["minimum"] == 10 and [d["forced"] for d in mi["dice"]] == [10, None]
    plain = doc["results"][2]["tree"]  # a group without modifiers: its document as before
    assert "modifiers" not in plain and all("rerolled" not in d for d in plain["dice"])


# --- the exact odds against brute force ---------------------------------------------------------


def die_outcomes(sides: int, matches: Callable[[int], bool] = lambda f: False, rerolls: int = 0,
                 low: int = 1, high: int | None = None) -> list[tuple[int, Fraction]]:
    """Every sequence of faces one die may roll (the rules as written, not the library's):
    a face; while it matches and rerolls are left, another face, which replaces it; then
    raised to ``low`` and lowered to ``high``.  The value that stands, with its probability."""
    out: list[tuple[int, Fraction]] = []
    stack: list[tuple[int, int, Fraction]] = [(f, 0, Fraction(1, sides)) for f in range(1, sides + 1)]
    while stack:
        face, used, p = stack.pop()
        if matches(face) and used < rerolls:
            stack += [(f, used + 1, p / sides) for f in range(1, sides + 1)]
            continue
        out.append((min(max(face, low), high or sides), p))
    return out


def brute_sum(outcomes: list[tuple[int, Fraction]], count: int,
              keep: int | None = None) -> dict[int, Fraction]:
    """Every combination of the dice (each die's sequences gathered by the value that stands,
    the dice independent): the kept (highest) dice added."""
    one: dict[int, Fraction] = {}
    for v, p in outcomes:
        one[v] = one.get(v, Fraction(0)) + p
    law: dict[int, Fraction] = {}
    for combo in itertools.product(one.items(), repeat=count):
        values = sorted((v for v, _ in combo), reverse=True)[:keep]
        p = Fraction(1)
        for _, q in combo:
            p *= q
        law[sum(values)] = law.get(sum(values), Fraction(0)) + p
    return law


BRUTE = {
    "4d6ro1": brute_sum(die_outcomes(6, lambda f: f == 1, 1), 4),
    "2d20mi10": brute_sum(die_outcomes(20, low=10), 2),
    "1d20ma15": brute_sum(die_outcomes(20, high=15), 1),
    "2d6rr<3": brute_sum(die_outcomes(6, lambda f: f < 3, MAX_REROLLS), 2),
    "4d6ro<3kh3": brute_sum(die_outcomes(6, lambda f: f < 3, 1), 4, keep=3),
    "1d2rr1": brute_sum(die_outcomes(2, lambda f: f == 1, MAX_REROLLS), 1),
}


@pytest.mark.parametrize("text", list(BRUTE))
def test_C03_exact_odds_equal_brute_force(text: str) -> None:
    d = distribution(parse_expression(text).formula)
    assert {v: d.probability(i) for i, v in enumerate(d.values)} == BRUTE[text]


@pytest.mark.parametrize("text", ["4d6ro1", "2d20mi10"])
def test_roll_odds_4d6ro1_and_2d20mi10_equal_brute_force(text: str) -> None:
    """``roll --odds``: every value and probability shown is brute force's, exactly."""
    brute = BRUTE[text]
    doc = run_json("roll", text, "--odds")
    assert [(r["value"], r["probability"]) for r in doc["distribution"]] == \
        [(v, float(brute[v])) for v in sorted(brute)]
    assert doc["mean_exact"] == str(sum(v * p for v, p in brute.items()))


def test_rr_is_bounded_in_the_odds_as_in_the_roller() -> None:
    """``1d2rr1`` shows 1 only when ten rolls in a row show 1: P = 2^-10."""
    d = distribution(parse_expression("1d2rr1").formula)
    assert (d.values, d.probability(0)) == ((1, 2), Fraction(1, 2**10))


MODIFIED = ["4d4ro1kh3", "2d4rr1 + 1", "2d6mi3", "1d8ma5 - 1", "3d4ro>3dl1", "max(1d6rr1, 1d4mi2)",
            "3d4ro1>=3", "2d3rr1kl1", "1d20ro1mi5ma15", "d%ro<50 // 10"]


@pytest.mark.parametrize("text", MODIFIED)
def test_C03_exact_odds_equal_the_roller_s_every_face_sequence(text: str) -> None:
    """The exact law against the roller itself: every sequence of faces it may ask for."""
    formula = parse_expression(text).formula
    d = distribution(formula)
    assert {v: d.probability(i) for i, v in enumerate(d.values)} == \
        enumerated(lambda dice: formula.evaluate({}, dice).value)


def test_odds_table_of_a_modified_expression_fits_80_columns() -> None:
    result = run("roll", "gwf: 2d6ro<3", "4d6rr1kh3", "--odds")
    assert result.exit_code == 0, result.stderr
    assert "gwf: 2d6ro<3  exact odds" in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
