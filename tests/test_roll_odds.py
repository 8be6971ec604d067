"""``roll --odds``: exact distributions equal brute-force enumeration of every
sequence of faces; success counting (``6d10>=7``) and comparisons of totals (``1d20 + 5 >= 15``) in a
roll and under ``--odds``; the JSON against its schema; the displays at 80 columns in both languages;
every refusal is one line, and the work is bounded (C-03: the formula language)."""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path

import pytest

from sevendag_cli.commands.schema import validator
from sevendag_cli.errors import FormulaError
from sevendag_cli.formula import parse
from sevendag_cli.roll_odds import distribution
from sevendag_cli.roller import parse_expression
from tests.helpers import assert_one_line_error, run, run_json


@pytest.fixture(autouse=True)
def _plain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "80")


class _NeedMore(Exception):
    def __init__(self, sides: int) -> None:
        self.sides = sides


class _Script:
    """Faces from a list; past its end, says which die comes next (the enumeration branches)."""

    def __init__(self, faces: list[int]) -> None:
        self.faces = faces
        self.i = 0

    def face(self, sides: int, purpose: str, fighter: str | None) -> int:
        if self.i == len(self.faces):
            raise _NeedMore(sides)
        self.i += 1
        return self.faces[self.i - 1]


def brute_force(text: str) -> dict[int, Fraction]:
    """Every sequence of faces the roller can use, each with its probability, evaluated."""
    formula = parse_expression(text).formula
    out: dict[int, Fraction] = {}
    stack: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    while stack:
        faces, p = stack.pop()
        try:
            value = formula.evaluate({}, _Script(faces)).value
        except _NeedMore as more:
            stack += [([*faces, f], p / more.sides) for f in range(1, more.sides + 1)]
            continue
        out[value] = out.get(value, Fraction(0)) + p
    return out


SMALL = ["3d6 + 2", "2d6*2", "4d6kh3", "3d4dl1", "2d20kl1 + 1", "1d6 - 1d4", "max(1d6, 1d4)", "min(2d4, 5)",
         "mod(3d6)", "(1d6 + 1)//2", "1d6//1d4", "-1d4", "2d4!", "1d6!kh1", "5d6>=5", "6d10>7", "4d6kh2>=4",
         "4d6kl2<3", "3d6dh1=3", "3d4!>4", "2d4!kl1<=2", "1d20 + 5 >= 15", "2d6 < 1d10", "1d6 = 1d6",
         "2d6>=4 + 1d4 > 2", "d%>50"]


@pytest.mark.parametrize("text", SMALL)
@pytest.mark.slow
def test_exact_distribution_equals_brute_force_enumeration(text: str) -> None:
    d = distribution(parse_expression(text).formula)
    got = {v: d.probability(i) for i, v in enumerate(d.values)}
    assert got == brute_force(text)
    assert sum(got.values()) == 1
    assert d.mean == sum(v * p for v, p in got.items())


def test_mean_sd_and_at_least_of_3d6() -> None:
    d = distribution(parse_expression("3d6").formula)
    assert d.values == tuple(range(3, 19))
    assert d.mean == Fraction(21, 2)
    assert d.variance == Fraction(35, 4)
    assert d.at_least[0] == 1
    assert d.at_least[d.values.index(18)] == Fraction(1, 216)


def test_success_counting_in_a_roll_counts_the_dice_that_pass() -> None:
    result = run("roll", "6d10>=7", "--dice", "7,1,10,6,8,2")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == ["6d10≥7: {d10 7✓, d10 1▼, d10 10▲✓, d10 6, d10 8✓, d10 2}≥7 = 3"]
    strict = run("roll", "6d10>7", "--dice", "7,1,10,6,8,2")
    assert strict.stdout.splitlines()[-1].endswith("= 2")  # > is strictly more (Roll20's > is >=)
    kept = run("roll", "4d6kh2>=4", "--dice", "6,4,5,1")
    assert kept.stdout.splitlines() == ["4d6kh2≥4: {d6 6▲✓, ~d6 4~, d6 5✓, ~d6 1▼~}≥4 = 2"]


def test_a_comparison_of_totals_is_one_or_zero_in_a_roll() -> None:
    yes = run("roll", "1d20 + 5 >= 15", "--dice", "10")
    assert yes.stdout.splitlines() == ["1d20 + 5 ≥ 15: d20 10 + 5 = 15 ≥ 15 → 1"]
    no = run("roll", "attack: 1d20+5>=15", "--dice", "9")
    assert no.stdout.splitlines() == ["attack: d20 9 + 5 = 14 ≥ 15 → 0"]
    two = run("roll", "2d6 < 1d10", "--dice", "1,2,9")
    assert two.stdout.splitlines() == ["2d6 < 1d10: d6 1▼ + d6 2 = 3 < d10 9 = 9 → 1"]


def test_roll_json_with_successes_and_comparisons_matches_the_schema() -> None:
    doc = run_json("roll", "6d10>=7", "1d20 >= 2d6", "--seed", "3")
    assert not list(validator("roll").iter_errors(doc))
    group = doc["tree"]
    assert group["type"] == "dice" and group["successes"] == {"op": ">=", "target": 7}
    assert group["value"] == sum(1 for d in group["dice"] if d["value"] >= 7)
    compare = doc["results"][1]["tree"]
    assert compare["type"] == "compare" and compare["op"] == ">="
    assert compare["value"] == int(compare["left"]["value"] >= compare["right"]["value"])


def test_odds_json_has_the_distribution_mean_sd_and_matches_the_schema() -> None:
    doc = run_json("roll", "3d6", "hit: 1d20 + 5 >= 15", "--odds")
    assert not list(validator("roll").iter_errors(doc))
    assert doc["mode"] == "odds" and doc["method"] == "exact" and doc["seed"] is None
    assert [p["value"] for p in doc["distribution"]] == list(range(3, 19))
    assert doc["distribution"][0]["probability"] == pytest.approx(1 / 216)
    assert sum(p["probability"] for p in doc["distribution"]) == pytest.approx(1)
    assert doc["mean"] == 10.5 and doc["mean_exact"] == "21/2"
    assert doc["sd"] == pytest.approx(35 ** 0.5 / 2)
    assert doc["probability"] is None
    hit = doc["results"][1]
    assert hit["label"] == "hit" and hit["probability_exact"] == "11/20"
    assert hit["probability"] == 0.55
    broken = dict(doc)
    del broken["distribution"]
    assert list(validator("roll").iter_errors(broken))


ODDS_EN = """\
2d4 + 1  exact odds
      n    P(= n)    P(≥ n)
      3     6.25%   100.00%
      4    12.50%    93.75%
      5    18.75%    81.25%
      6    25.00%    62.50%
      7    18.75%    37.50%
      8    12.50%    18.75%
      9     6.25%     6.25%
  mean 6.00, sd 1.58

attack: 1d20 + 5 ≥ 15: 55.00% (11/20)  exact odds
"""

ODDS_FR = """\
dégâts : 4d6≥5  probabilités exactes
      n    P(= n)    P(≥ n)
      0   19,75 %  100,00 %
      1   39,51 %   80,25 %
      2   29,63 %   40,74 %
      3    9,88 %   11,11 %
      4    1,23 %    1,23 %
  moyenne 1,33, écart-type 0,94
"""


def test_odds_display_at_80_columns_in_english() -> None:
    result = run("roll", "2d4 + 1", "attack: 1d20 + 5 >= 15", "--odds")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ODDS_EN
    assert result.stderr == ""  # no seed: nothing was rolled


def test_odds_display_at_80_columns_in_french() -> None:
    result = run("roll", "dégâts : 4d6>=5", "--odds", "--lang", "fr")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ODDS_FR


def test_a_long_distribution_is_trimmed_and_grouped_within_80_columns() -> None:
    result = run("roll", "30d20", "--odds")
    lines = result.stdout.splitlines()
    assert result.exit_code == 0
    assert all(len(line) <= 80 for line in lines)
    assert len(lines) <= 50
    assert any("grouped by" in line for line in lines)
    assert any("not shown: --json has them all" in line for line in lines)


@pytest.mark.slow
def test_odds_plot_is_drawn(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "odds.png"
    result = run("roll", "dmg $x$: 2d6 + 3", "--odds", "--plot", str(target))
    assert result.exit_code == 0, result.stderr
    assert target.read_bytes().startswith(b"\x89PNG")
    assert "plot written to" in result.stderr


REFUSED = [
    (["6d10>="], "expected a number to compare each die with"),
    (["1d20 >= 5 >= 3"], "expected an operator"),
    (["3d6", "--odds", "--seed", "3"], "--seed with --odds: --odds rolls no dice"),
    (["3d6", "--odds", "--dice", "3"], "--dice with --odds"),
    (["3d6", "--plot", "x.png"], "--plot draws the odds: add --odds"),
    (["1000d100", "--odds"], "1000d100: its exact distribution could hold 198,101,001 digits"),
    (["100d20 * 100d20", "--odds"], "over the limit of 1,000,000"),
    (["300d6kh10>=5", "--odds"], "at most 200 dice"),
    (["1d6 // (1d4 - 1)", "--odds"], "division by zero is possible"),
]


@pytest.mark.parametrize(("args", "fragment"), REFUSED, ids=[" ".join(a) for a, _ in REFUSED])
@pytest.mark.slow
def test_refusals_are_one_line_and_fast(args: list[str], fragment: str) -> None:
    start = time.perf_counter()
    result = run("roll", *args)
    assert time.perf_counter() - start < 10
    assert_one_line_error(result, 2, fragment)


def test_refusals_in_french() -> None:
    assert_one_line_error(run("roll", "100d20 * 100d20", "--odds", "--lang", "fr"), 2,
                          "les probabilités exactes combineraient 3\u00a0613\u00a0801 paires de valeurs")


@pytest.mark.parametrize("text", ["d%", "1d100", "d% + 1", "3d6", "2d20kh1", "10d10", "d%*2"])
def test_grouped_rows_show_only_values_the_expression_can_take(text: str) -> None:
    """A grouped row is clipped to the values the expression takes: ``d%`` by 3 ends with a
    row "100", never "100–102"."""
    from sevendag_cli.render.rich_roll import odds_rows

    d = distribution(parse_expression(text).formula)
    rows, _, _, _ = odds_rows(d.values, d.floats)
    for name, _, _ in rows:
        low, _, high = name.replace("−", "-").partition("–")
        assert int(low) in d.values and int(high or low) <= d.values[-1], (text, name)


def test_d_percent_rows_end_at_100() -> None:
    lines = run("roll", "d%", "--odds").stdout.splitlines()
    rows = [line.split()[0] for line in lines[2:] if line.strip() and line.split()[0][0].isdigit()]
    assert rows[0] == "1–3" and rows[-1] == "100"


def test_ruleset_formulas_never_compare() -> None:
    """C-03: the comparisons are roll's only; a ruleset's formula with one is refused when read."""
    with pytest.raises(FormulaError):
        parse("1d20>=5")
    with pytest.raises(FormulaError):
        parse("1d20 + 5 >= 15")


def test_roll_help_has_an_odds_example_and_no_fight() -> None:
    result = run("roll", "--help")
    assert "--odds" in result.stdout and "6d10>=7" in result.stdout
    assert "same fight" not in result.stdout
