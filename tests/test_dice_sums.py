"""Dice sums of any size, exact (C-03): a group's law is one power of its die's law (the weights
of :mod:`sevendag_cli.sim.weights`), never icepool's recursion, so every formula the budget
accepts answers (``1000d2``, ``999d1 + 1d2``, ``1000d6``) in ``roll --odds`` and in every exact
path of a fight; a law too large is refused from its size, estimated from the formula before
any work, in one line."""

from __future__ import annotations

import json
import math
import shutil
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sevendag_cli as sd
from sevendag_cli.data import bundled_dir
from sevendag_cli.errors import UsageError
from sevendag_cli.formula import node_text, parse, parse_roll
from sevendag_cli.sim import formula_dice
from sevendag_cli.sim.formula_dice import check_size, formula_dist, formula_weights
from sevendag_cli.sim.weights import add, convolve, ordered, power
from tests.helpers import assert_one_line_error, ok, run, run_json

# --- the weights: one multiplication equals the pairs, exactly -------------------------------

laws = st.dictionaries(st.integers(-60, 60), st.integers(1, 10**40), min_size=1, max_size=80)


@settings(max_examples=60, deadline=None)
@given(laws, laws, st.sampled_from([1, -1]))
def test_add_equals_the_sum_over_every_pair(x: dict[int, int], y: dict[int, int], sign: int) -> None:
    assert add(x, y, sign) == ordered(convolve(x, y, sign))


@settings(max_examples=40, deadline=None)
@given(laws, st.integers(1, 7))
def test_power_equals_repeated_convolution(x: dict[int, int], n: int) -> None:
    ref = {0: 1}
    for _ in range(n):
        ref = convolve(ref, x)
    assert power(x, n) == ordered(ref)


@pytest.mark.slow
def test_weights_wider_than_python_s_text_limit_stay_exact() -> None:
    """Weights of more than 4,300 digits (Python's int-to-text limit) go through Decimal."""
    big = {v: 10**4400 + v for v in range(65)}  # 4,225 pairs: one multiplication
    assert add(big, big) == ordered(convolve(big, big))
    assert power({0: 10**4500, 1: 3}, 2) == {0: 10**9000, 1: 6 * 10**4500, 2: 9}


# --- large sums, exact -----------------------------------------------------------------------


def test_C03_1000d2_is_the_binomial_law() -> None:
    assert formula_weights(parse("1000d2"), {}) == {1000 + k: math.comb(1000, k) for k in range(1001)}


def test_C03_999d1_plus_1d2() -> None:
    assert formula_dist(parse("999d1 + 1d2"), {}) == {1000: Fraction(1, 2), 1001: Fraction(1, 2)}


@pytest.mark.slow
def test_C03_900d6() -> None:
    law = formula_weights(parse("900d6"), {})  # was refused: icepool would recurse too deep
    assert (len(law), sum(law.values()), law[900], law[901]) == (4501, 6**900, 1, 900)


@pytest.mark.slow
def test_C03_1000d6_counts_every_way() -> None:
    """The number of ways to roll t on 1000d6, by inclusion-exclusion, at a few totals."""
    law = formula_weights(parse("1000d6"), {})
    assert len(law) == 5001 and sum(law.values()) == 6**1000

    def ways(t: int, n: int = 1000, s: int = 6) -> int:
        return sum((-1) ** k * math.comb(n, k) * math.comb(t - n - k * s + n - 1, n - 1)
                   for k in range((t - n) // s + 1))

    for t in (1000, 1001, 1234, 3500, 5999, 6000):
        assert law[t] == ways(t)


@pytest.mark.slow
def test_roll_odds_1000d2_999d1_plus_1d2_and_1000d6_answer() -> None:
    binomial, plus, d6 = (run_json("roll", text, "--odds") for text in ("1000d2", "999d1+1d2", "1000d6"))
    assert [r["value"] for r in binomial["distribution"]] == list(range(1000, 2001))
    assert [r["probability"] for r in binomial["distribution"]] == \
        [math.comb(1000, k) / 2**1000 for k in range(1001)]
    assert binomial["mean_exact"] == "1500"
    assert [(r["value"], r["probability"]) for r in plus["distribution"]] == [(1000, 0.5), (1001, 0.5)]
    assert d6["mean_exact"] == "3500" and d6["sd"] == pytest.approx(math.sqrt(1000 * 35 / 12))
    assert len(d6["distribution"]) == 5001


@pytest.mark.slow
def test_roll_odds_1000d6_shows_a_table_within_80_columns() -> None:
    out = ok("roll", "1000d6", "--odds")
    assert "mean 3500.00, sd 54.01" in out
    assert max(len(line) for line in out.splitlines()) <= 80


# --- bounds before work ----------------------------------------------------------------------

TOO_LARGE = [
    ("10d%*10d% + 10d%*10d%", "10d100 * 10d100: its exact distribution could hold 982,081 values, "
                              "over the limit of 200,000"),
    ("1000d100", "1000d100: its exact distribution could hold 198,101,001 digits (99,001 values, "
                 "weights of up to 2,001 digits), over the limit of 10,000,000"),
    ("100d20 * 100d20", "100d20 * 100d20: exact odds would combine 3,613,801 pairs of values, "
                        "over the limit of 1,000,000"),
    ("max(500d20, 500d20) + 1", "max(500d20, 500d20): its exact distribution could hold 12,370,302 digits"),
    ("300d6kh10>=5", "300d6kh10>=5: exact odds count successes among kept dice for at most 200 dice"),
    ("100d20kh50", "100d20kh50: keeping or dropping among these dice would cost 16,000,000 steps, "
                   "over the limit of 4,000,000 of exact odds"),
]


@pytest.mark.parametrize(("text", "fragment"), TOO_LARGE, ids=[t for t, _ in TOO_LARGE])
def test_C03_a_law_too_large_is_refused_before_any_work(text: str, fragment: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The size comes from the formula alone: nothing is computed (the laws' builders fail
    if called), the refusal is one line naming the part, its size and the limit."""
    def no_work(*_: object) -> None:
        raise AssertionError("computed before the refusal")

    monkeypatch.setattr(formula_dice, "group_weights", no_work)
    monkeypatch.setattr(formula_dice, "_law", no_work)
    result = run("roll", text, "--odds")
    assert_one_line_error(result, 2, f"expression '{text}': {fragment}")
    assert result.stdout == ""


def test_refusals_in_french() -> None:
    assert_one_line_error(run("roll", "10d%*10d%", "--odds", "--lang", "fr"), 2,
                          "10d100 * 10d100 : sa distribution exacte pourrait compter 982\u00a0081 valeurs")


def test_C03_a_fight_s_formula_too_large_says_to_simulate() -> None:
    with pytest.raises(UsageError) as refused:
        check_size(parse("1000d100"), {})
    assert refused.value.msg.key == "formula.exact_digits"
    assert refused.value.render().endswith("over the limit of 10,000,000: simulate with --runs instead")


def test_the_part_named_is_written_back_from_the_tree() -> None:
    assert node_text(parse_roll("d% * (2 + -1d4) // max(3d6kh2, 1)").tree) == \
        "1d100 * (2 + -1d4) // max(3d6kh2, 1)"
    assert node_text(parse_roll("1 - (2 - 3)").tree) == "1 - (2 - 3)"
    assert node_text(parse_roll("(1 - 2) - 3 >= 4d6ro1").tree) == "1 - 2 - 3 >= 4d6ro1"


# --- every path that meets such a formula answers ----------------------------------------------

LARGE = "999d1 + 1d2"
"""A weapon inside the budget that icepool's sum could not build (it recursed once per die)."""
SAME = "999 + 1d2"
"""The same law, with no dice to sum."""


def _d20_sheet(name: str, damage: str) -> str:
    text = (bundled_dir() / "fighters" / "a.toml").read_text("utf-8")
    Path(name).write_text(text.replace('damage = "1d6"', f'damage = "{damage}"'), "utf-8")
    return name


@pytest.mark.slow
def test_D09_every_exact_d20_path_answers_a_999_dice_weapon() -> None:
    """fight --exact and --odds, sweep, matrix, the library: the same numbers as the same law
    written without dice (the fight's own exact fractions)."""
    large, same = _d20_sheet("large.toml", LARGE), _d20_sheet("same.toml", SAME)

    def both(command: str, *args: str) -> tuple[Any, Any]:
        return run_json(command, large, *args), run_json(command, same, *args)

    exact, exact_same = both("fight", "b", "--ruleset", "d20", "--exact")
    assert exact["fighters"] == exact_same["fighters"]
    assert exact["rounds_mean_exact"] == exact_same["rounds_mean_exact"]
    odds, odds_same = both("fight", "b", "--ruleset", "d20", "--odds", "--seed", "1")
    assert odds["odds"] == odds_same["odds"]
    sweep, sweep_same = both("sweep", "b", "--ruleset", "d20", "--vary", "A.ac=5..6")
    assert sweep["points"] == sweep_same["points"]
    matrix = run("matrix", large, "b", "--ruleset", "d20", "--json")
    assert matrix.exit_code == 0, matrix.stderr
    assert json.loads(matrix.stdout)["methods"] == [[None, "exact"], ["exact", None]]
    lib = sd.matchup(large, "b", "d20").exact().to_dict()
    assert lib["fighters"] == exact["fighters"]


@pytest.mark.slow
def test_D09_the_table_s_odds_answer_a_999_dice_weapon() -> None:
    """init --odds, odds, round --odds: the encounter's solver builds the round tables (whose
    exact weights pass 64 bits: they are not kept in the cache, and built again)."""
    large, same = _d20_sheet("large.toml", LARGE), _d20_sheet("same.toml", SAME)
    init = run_json("init", same, "b", "--ruleset", "d20", "--dice", "19,5", "--odds")
    init_large = run_json("init", large, "b", "--ruleset", "d20", "--dice", "19,5", "--odds", "--force")
    assert init_large["odds"] == init["odds"]
    assert run_json("odds")["fighters"] == init["odds"]["fighters"]
    done = run_json("round", "--seed", "3", "--odds")
    assert done["odds"]["before"] == init["odds"]["fighters"]


def test_D09_simulation_and_the_step_engine_play_a_999_dice_weapon() -> None:
    large = _d20_sheet("large.toml", LARGE)
    runs = run_json("fight", large, "b", "--ruleset", "d20", "--runs", "300", "--seed", "2")
    assert runs["fighters"][0]["wins"] + runs["fighters"][1]["wins"] + runs["draws"] == 300
    one = run_json("fight", large, "b", "--ruleset", "d20", "--seed", "2")
    assert one["winner"] in ("A", "B")
    assert "valid" in ok("rulesets", "validate", large)


@pytest.mark.slow
def test_S02_a_999_dice_speed_roll_answers_exactly() -> None:
    """Sevendag's initiative (S-02) from a speed roll of 999 dice: the same exact odds as the
    same law written without dice."""
    for name, roll in (("large.toml", "999d1 + 1d20 + speed"), ("same.toml", "999 + 1d20 + speed")):
        text = (bundled_dir() / "sevendag.toml").read_text("utf-8")
        Path(name).write_text(text.replace('speed_roll = "1d20 + speed"', f'speed_roll = "{roll}"'),
                              "utf-8")
    got = run_json("fight", "--ruleset", "large.toml", "--exact")
    same = run_json("fight", "--ruleset", "same.toml", "--exact")
    assert got["fighters"] == same["fighters"]
    assert formula_dist(parse("999d1 + 1d20"), {}) == {1000 + k: Fraction(1, 20) for k in range(20)}


@pytest.mark.slow
def test_D09_fight_exact_with_999d2_damage_answers() -> None:
    """The case as found: a d20 weapon doing 999d2 (valid, inside the budget) once ended every
    exact path in a RecursionError."""
    shutil.copy(bundled_dir() / "fighters" / "b.toml", "b.toml")
    large = _d20_sheet("large.toml", "999d2")
    assert "valid" in ok("rulesets", "validate", large)
    exact = run_json("fight", large, "b.toml", "--ruleset", "d20", "--exact")
    assert exact["fighters"][0]["win_probability"] > 0.99
