"""d20 exact fractions only where they pay (D-12): by default ``fight --exact`` gives the exact
fractions of the fight played to the end only when a size rule computed from the sheets says
they cost little beside the certified odds (``sevendag_cli.d20.exact.fractions_pay``); beyond
it, a note says how to ask, and ``--fractions`` (library: ``exact(fractions=True)``) computes
them, reporting its progress.  No timing here: ``benchmarks/bench_d20_rounds.py`` measures.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import sevendag_cli as sd
from sevendag_cli.d20.chain import chain_for
from sevendag_cli.d20.exact import PAY_WORK, fraction_work, fractions_pay
from tests.exact_helpers import d14_pair
from tests.helpers import assert_one_line_error, run, run_json
from tests.records import replace


def pays(hp_a: int, hp_b: int) -> bool:
    rs, a, b = d14_pair()
    a, b = replace(a, hp=hp_a), replace(b, hp=hp_b)
    return fractions_pay(chain_for(rs, a, b).jumps, hp_a, hp_b)


def test_D12_the_size_rule_gives_the_fractions_of_small_fights_only() -> None:
    """The D-14 duel (45 and 50 hit points) has its fractions by default; 100 and 200 hit points
    each do not; the rule is monotonic in the hit points and its edge is PAY_WORK."""
    assert pays(45, 50)
    assert not pays(100, 100) and not pays(200, 200)
    rs, a, b = d14_pair()
    jumps = chain_for(rs, a, b).jumps
    edge = max(h for h in range(1, 120) if fraction_work(jumps, h, h) <= PAY_WORK)
    assert pays(edge, edge) and not pays(edge + 1, edge + 1)
    assert all(fraction_work(jumps, h, h) < fraction_work(jumps, h + 1, h + 1)
               for h in range(1, 120))


def test_D12_small_fights_have_their_fractions_by_default() -> None:
    result = sd.matchup("A", "B", "d20").exact().result
    assert result.fractions is not None and result.no_fractions is None
    p = result.fractions.win_probability[0]
    assert isinstance(p, Fraction)
    low, high = result.fighters[0].bounds
    assert low <= p <= high


def test_D12_beyond_the_size_rule_a_note_says_how_to_ask() -> None:
    m = sd.matchup("A", "B", "d20").vary("A.hp", "100").vary("B.hp", "100")
    result = m.exact().result
    assert result.fractions is None and result.no_fractions is not None
    assert result.no_fractions.key == "exact.fractions_ask"
    doc = m.exact().to_dict()
    assert "--fractions computes them" in doc["note"]
    assert doc["fighters"][0]["win_probability_exact"] is None
    assert m.exact(fractions=False).result.no_fractions is None  # not asked: nothing said


@pytest.mark.slow
def test_D12_fractions_on_request_at_any_size_with_their_progress() -> None:
    """``exact(fractions=True)`` beyond the size rule: the fractions, within the certified
    intervals, and the progress reported row by row up to the whole; the CLI's ``--fractions``
    gives them in the JSON."""
    m = sd.matchup("A", "B", "d20").vary("A.hp", "100").vary("B.hp", "90")
    seen: list[tuple[int, int]] = []
    result = m.exact(fractions=True, progress=lambda done, total: seen.append((done, total))).result
    assert result.fractions is not None
    for f, p in zip(result.fighters, result.fractions.win_probability, strict=True):
        assert f.bounds[0] - 1e-16 <= p <= f.bounds[1] + 1e-16
    assert seen and seen[-1] == (100, 100)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    doc = run_json("fight", "a", "b", "-r", "d20", "--exact", "--fractions", "--set", "A.hp=100",
                   "--set", "B.hp=90")
    assert doc["fighters"][0]["win_probability_exact"] == str(result.fractions.win_probability[0])
    assert "--fractions computes them" not in doc["note"]


def test_D12_small_fights_asked_fractions_report_no_progress() -> None:
    """A solve within the size rule is short: no progress bar."""
    seen: list[tuple[int, int]] = []
    result = sd.matchup("A", "B", "d20").exact(
        fractions=True, progress=lambda done, total: seen.append((done, total))).result
    assert result.fractions is not None and seen == []


def test_fractions_goes_with_exact() -> None:
    assert_one_line_error(run("fight", "--ruleset", "d20", "--fractions"), 2,
                          "--fractions and --no-fractions go with --exact")
    assert_one_line_error(run("fight", "--ruleset", "d20", "--runs", "10", "--fractions"), 2,
                          "--fractions and --no-fractions go with --exact")
