"""``played_to_end`` in the JSON of ``fight --exact``, ``sweep`` and ``matrix`` (D-12 and the
decision in docs/rules.md: the bundled d20 ruleset has no round cap, so its fights are played to
the end unless ``--cap N``): true exactly when there is no round cap (``cap`` null), so that a
tool knows whether a draw can come from it — whatever the method, simulated included."""

from __future__ import annotations

from pathlib import Path

import pytest

import sevendag_cli as sd
from tests.helpers import capped_ruleset


@pytest.mark.parametrize(("ruleset", "cap", "expected"), [
    ("d20", None, True),
    ("d20", 30, False),
    ("sevendag", None, False),
])
def test_D12_fight_exact_says_whether_the_fight_is_played_to_the_end(
        ruleset: str, cap: int | None, expected: bool) -> None:
    doc = sd.matchup(ruleset=ruleset).exact(cap=cap).to_dict()
    assert doc["played_to_end"] is expected
    if expected:
        assert doc["draw_probability"] == 0.0


@pytest.mark.parametrize(("ruleset", "options", "expected"), [
    ("d20", {}, True),
    ("d20", {"cap": 30}, False),
    ("d20", {"runs": 500, "seed": 1}, True),
    ("d20", {"runs": 500, "seed": 1, "cap": 30}, False),
])
def test_D12_sweep_says_whether_its_odds_are_played_to_the_end(
        ruleset: str, options: dict[str, int], expected: bool) -> None:
    doc = sd.matchup(ruleset=ruleset).sweep("A.ac", "5..6", **options).to_dict()
    assert doc["played_to_end"] is expected


def test_sevendag_sweep_is_never_played_to_the_end() -> None:
    doc = sd.matchup(ruleset="sevendag").sweep("Brannoc.attack", "8..9").to_dict()
    assert doc["played_to_end"] is False


@pytest.mark.parametrize(("options", "expected"), [
    ({}, True), ({"cap": 30}, False), ({"runs": 300, "seed": 2}, True)])
def test_D12_matrix_says_whether_its_cells_are_played_to_the_end(
        options: dict[str, int], expected: bool) -> None:
    doc = sd.matrix(["A", "B"], "d20", jobs=1, **options).to_dict()
    assert doc["played_to_end"] is expected
    assert (doc["cap"] is None) is expected


def test_D12_a_ruleset_with_a_round_cap_is_never_played_to_the_end(tmp_path: Path) -> None:
    """A d20 ruleset saying ``round_cap = 30`` means it: every method plays the capped fight."""
    path = capped_ruleset(tmp_path, 30)
    exact = sd.matchup(ruleset=str(path)).exact().to_dict()
    assert exact["played_to_end"] is False and exact["cap"] == 30
    assert exact["draw_probability"] > 0.9
    sweep = sd.matchup(ruleset=str(path)).sweep("A.ac", "5..6").to_dict()
    assert sweep["played_to_end"] is False and sweep["cap"] == 30
    matrix = sd.matrix(["A", "B"], str(path), jobs=1).to_dict()
    assert matrix["played_to_end"] is False and matrix["cap"] == 30
