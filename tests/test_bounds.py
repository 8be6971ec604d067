"""Hostile values below the CLI: the value bound, control characters, endless fights.

* the range of a formula (interval arithmetic) holds every value it takes: property-tested
  against evaluations with random dice and fields;
* every engine refuses the same pairs (the step-by-step, vectorised and exact engines);
* :func:`sevendag_cli.text.visible` escapes what it must, keeps the rest, and is idempotent;
* :func:`sevendag_cli.rules.bounds.endless` calls a fight endless only when it is.
"""

from __future__ import annotations

import io
import json
import sys

import msgspec
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from sevendag_cli.d20.bounds import d20_damage_range
from sevendag_cli.d20.sim_extra import D20Extra
from sevendag_cli.dice import SeededDice
from sevendag_cli.engine import engine_for
from sevendag_cli.errors import DataError, FormulaError, UsageError
from sevendag_cli.formula import apply_op, parse, value_range
from sevendag_cli.limits import INT_LIMIT
from sevendag_cli.output import Output
from sevendag_cli.render.data import fight_document, round_data
from sevendag_cli.rules import D20Fighter, D20Ruleset, load_pair, load_ruleset
from sevendag_cli.rules.bounds import check_values, endless, widest_dice
from sevendag_cli.sim.runner import MAX_CELLS, batch_for, simulate
from sevendag_cli.text import is_visible, visible, visible_data

FUZZ = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


def d20_pair() -> tuple[D20Ruleset, D20Fighter, D20Fighter]:
    rs = load_ruleset("d20")
    a, b = load_pair(rs, None)
    assert isinstance(rs, D20Ruleset) and isinstance(a, D20Fighter) and isinstance(b, D20Fighter)
    return rs, a, b


# --- the range of a formula --------------------------------------------------------------------

ATOMS = st.sampled_from(["1d6", "2d4", "3d6!", "4d6kh3", "2d20kl1", "1d20", "x", "y", "0", "3",
                         "-2", "17"])


@st.composite
def formulas(draw: st.DrawFn, depth: int = 3) -> str:
    if depth == 0 or draw(st.booleans()):
        return draw(ATOMS)
    kind = draw(st.sampled_from(["+", "-", "*", "//", "neg", "min", "max", "mod"]))
    a = draw(formulas(depth - 1))
    if kind == "neg":
        return f"-({a})"
    if kind == "mod":
        return f"mod({a})"
    b = draw(formulas(depth - 1))
    if kind in ("min", "max"):
        return f"{kind}({a}, {b})"
    return f"({a}) {kind} ({b})"


@pytest.mark.slow
@FUZZ
@given(text=formulas(), x=st.integers(-50, 50), y=st.integers(1, 9), seed=st.integers(0, 2**32))
def test_the_range_holds_every_value(text: str, x: int, y: int, seed: int) -> None:
    """Interval arithmetic over the dice and the fields' ranges contains every evaluation."""
    f = parse(text)
    lo, hi = f.check_bound({"x": (-50, 50), "y": (1, 9)})
    dice = SeededDice(seed)
    for _ in range(5):
        try:
            value = f.evaluate({"x": x, "y": y}, dice).value
        except FormulaError:  # a division by zero: no value
            continue
        assert lo <= value <= hi, (text, x, y, value, (lo, hi))


def test_exact_ranges() -> None:
    assert parse("1d6").check_bound() == (1, 6)
    assert parse("3d6!").check_bound() == (3, 180)  # ten rolls a die at most
    assert parse("4d6kh3").check_bound() == (3, 18)
    assert parse("-(2d4) + 1").check_bound() == (-7, -1)
    assert parse("mod(str)").check_bound({"str": (1, 100)}) == (-5, 45)
    assert parse("10 // (1d3 - 2)").check_bound() == (-10, 10)  # divisor -1, 0 or 1
    assert parse("min(1d20, hp)").check_bound({"hp": (5, 8)}) == (1, 8)


@pytest.mark.parametrize("text", ["1d6 * 999999999 * 999999999 * 99", "-(999999999 * 999999999 * 99)",
                                  "hp * hp * hp * hp", "999999999 * 999999999 * 10 - hp"])
def test_a_formula_past_the_bound_is_refused_before_rolling(text: str) -> None:
    with pytest.raises(FormulaError, match="beyond the bound"):
        parse(text).check_bound({"hp": (1, 100_000)})


def test_every_operation_is_checked_at_evaluation() -> None:
    """What a range cannot know (a field beyond its sheet range) fails at the operation."""
    with pytest.raises(FormulaError, match="beyond the bound"):
        apply_op("*", INT_LIMIT, 2, "x * 2")
    with pytest.raises(FormulaError, match="beyond the bound"):
        parse("x * 2").evaluate({"x": INT_LIMIT})
    assert apply_op("-", -INT_LIMIT + 1, 1, "x") == -INT_LIMIT
    with pytest.raises(FormulaError, match="beyond the bound"):
        value_range(parse("x + 1").tree, {}, "x + 1")  # an unknown field: anything in bounds


# --- the same refusal in the three engines --------------------------------------------------------


def crit_heavy() -> tuple[D20Ruleset, D20Fighter, D20Fighter]:
    rs, a, b = d20_pair()
    assert a.weapon is not None
    weapon = replace(a.weapon, damage=parse("1d6 + 999999999 * 999999999"), crit_factor=10)
    return rs, replace(a, weapon=weapon), b


def test_damage_sets_past_the_bound_are_refused_by_every_engine() -> None:
    rs, a, b = crit_heavy()
    assert d20_damage_range(rs, a, b) is None
    with pytest.raises(DataError, match="could pass the bound"):
        check_values(rs, a, b)
    with pytest.raises(DataError, match="could pass the bound"):
        engine_for(rs).fight(rs, a, b, SeededDice(1))
    with pytest.raises(DataError, match="could pass the bound"):
        simulate(rs, a, b, 100, seed=1)
    from sevendag_cli.d20.exact import exact_d20

    with pytest.raises(DataError, match="could pass the bound"):
        exact_d20(rs, a, b)


def test_damage_just_within_the_bound_is_simulated_without_wrapping() -> None:
    """Damage near 2**62 a hit: int64 sums never wrap (the JSON stays exact and positive)."""
    rs, a, b = d20_pair()
    assert a.weapon is not None
    a = replace(a, weapon=replace(a.weapon, damage=parse("1d6 * 999999999 * 999999999 // 2"),
                                  crit_factor=2))
    hi = (d20_damage_range(rs, a, b) or (0, 0))[1]
    assert hi + b.hp <= INT_LIMIT < 2 * hi
    r = simulate(rs, a, b, 2_000, seed=3)
    assert isinstance(r.extras, D20Extra) and r.extras.fighters[0].damage_dealt > 1e18
    exact = engine_for(rs).fight(rs, a, b, SeededDice(3))
    assert all(s.hp >= -INT_LIMIT for s in exact.states)


def test_exact_odds_refuse_damage_their_chain_cannot_hold() -> None:
    rs, a, b = d20_pair()
    assert a.weapon is not None
    a = replace(a, weapon=replace(a.weapon, damage=parse("1d6 * 1000000")))
    from sevendag_cli.d20.exact import exact_d20

    with pytest.raises(UsageError, match="--runs"):
        exact_d20(rs, a, b)


@pytest.mark.slow
def test_batches_shrink_for_wide_dice_groups_only() -> None:
    rs, a, b = d20_pair()
    assert widest_dice(rs, a, b) == 1 and batch_for(rs, a, b, 100_000) == 100_000
    assert a.weapon is not None
    wide = replace(a, weapon=replace(a.weapon, damage=parse("1000d1000")))
    assert widest_dice(rs, wide, b) == 1000
    assert batch_for(rs, wide, b, 100_000) == MAX_CELLS // 1000
    r = simulate(rs, wide, b, 5_000, seed=1)
    assert r.batch_size == MAX_CELLS // 1000 and r.runs == 5_000


# --- fights that cannot end ------------------------------------------------------------------------


def test_the_bundled_duels_can_end() -> None:
    for name in ("d20", "sevendag"):
        rs = load_ruleset(name)
        a, b = load_pair(rs, None)
        assert endless(rs, a, b) is None


@pytest.mark.parametrize(("options", "is_endless"), [
    ({"save_natural_success": 1}, True),  # every natural dodges
    ({"save_natural_success": 2}, False),  # a natural 1 fails (save_natural_failure 1)
    ({"save_natural_failure": 0, "save_success": "negate"}, False),  # the save may lose to the DD
    ({"min_damage": 0}, False),  # 1d6 + 1 against VIG 1d10: some hit hurts
])
def test_d20_endless_from_the_rules(options: dict[str, object], is_endless: bool) -> None:
    rs, a, b = d20_pair()
    rs = replace(rs, **options)
    assert (endless(rs, a, b) is not None) == is_endless


def test_d20_no_hit_deals_damage() -> None:
    rs, a, b = d20_pair()
    rs = replace(rs, min_damage=0)
    assert a.weapon is not None and b.weapon is not None
    a = replace(a, weapon=replace(a.weapon, damage=parse("1d2 - 50")))
    assert endless(rs, a, b) is None  # b can still hurt a
    b = replace(b, weapon=replace(b.weapon, damage=parse("1d2 - 50")))
    assert endless(rs, a, b) is not None
    rs = replace(rs, min_damage=1)
    assert endless(rs, a, b) is None  # D-10: every hit not dodged deals at least 1


def test_d20_saves_that_always_beat_a_fixed_dd() -> None:
    """``dd = level_table`` below every save: negated, or halved to 0 without a minimum."""
    rs, a, b = d20_pair()
    rs = replace(rs, dd_mode="level_table", dd_table=(replace(rs.dd_table[0], low=0, high=None, dd=-100)
                                                       if rs.dd_table else _band(),),
                 save_natural_failure=0, save_success="negate")
    assert endless(rs, a, b) is not None
    assert endless(replace(rs, save_success="half"), a, b) is None  # halved damage still hurts
    assert endless(replace(rs, save_success="half", min_damage=0), a, b) is None


def _band() -> object:
    from sevendag_cli.d20.rules import DDBand

    return DDBand(0, None, -100)


# --- control characters ----------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "shown"), [
    ("a\x1b[2Jb", "a\\x1b[2Jb"), ("a\nb\rc\td", "a\\nb\\rc\\td"), ("\x00\x7f\x9b", "\\x00\\x7f\\x9b"),
    ("a\u202eb\u2066c\u061c", "a\\u202eb\\u2066c\\u061c"), ("a\u2028b\u2029", "a\\u2028b\\u2029"),
    ("a\u200eb\u200f", "a\\u200eb\\u200f"), ("x\udcffy", "x\\udcffy"),
    ("soft\u00adhyphen", "soft\\xadhyphen"),  # a format character (Cf): invisible, escaped
])
def test_visible_escapes(raw: str, shown: str) -> None:
    assert visible(raw) == shown
    assert visible(shown) == shown and is_visible(shown)  # idempotent
    assert len(shown.splitlines()) == 1


@pytest.mark.parametrize("text", ["Forêt", "10\u00a0000", "a\u202fb", "C:\\path", "👩\u200d👩\u200d👧",
                                  "[red]x[/]"])
def test_visible_keeps_what_is_not_a_control(text: str) -> None:
    assert visible(text) is text


def test_visible_data_copies_only_what_changes() -> None:
    rs, a, b = d20_pair()
    assert visible_data(rs) is rs
    evil = replace(a, name="A\x1b[2J", race="r\u2028")
    shown = visible_data((evil, b, {"k\n": ["x\t", 3]}))
    assert shown[0].name == "A\\x1b[2J" and shown[0].race == "r\\u2028" and shown[1] is b
    assert shown[2] == {"k\\n": ["x\\t", 3]}
    assert msgspec.json.encode(shown[0]) != msgspec.json.encode(evil)


# --- a long fight's JSON, streamed ---------------------------------------------------------------------


@pytest.mark.parametrize("tty", [False, True])
@pytest.mark.parametrize("name", ["d20", "sevendag"])
def test_streamed_fight_json_is_the_same_document(name: str, tty: bool,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """--json built round by round is byte for byte the document built whole (compact or indented)."""
    rs = load_ruleset(name)
    a, b = load_pair(rs, None)
    whole = fight_document(engine_for(rs).fight(rs, a, b, SeededDice(7)), 7)

    class Out(io.StringIO):
        def isatty(self) -> bool:
            return tty

    out = Out()
    monkeypatch.setattr(sys, "stdout", out)
    play = engine_for(rs).fight_play(rs, a, b, SeededDice(7))

    def rest() -> dict[str, object]:
        doc = fight_document(play.result(), 7)
        doc["rounds_played"] = play.played
        return doc

    Output(True, False, "en").data_with_list("rounds", (round_data(r) for r in play), rest)
    options: dict[str, object] = {"indent": 2} if tty else {"separators": (",", ":")}
    assert out.getvalue() == json.dumps(whole, ensure_ascii=False, **options) + "\n"  # type: ignore[arg-type]
    assert np.isfinite(len(whole["rounds"]))
