"""A d20 fight by its rounds (D-02, D-12): the law of the number of hits that end the fight and
the rounds they take (``sevendag_cli.d20.rounds``), against two references written apart from
it — the round-by-round push over the grid of both fighters' hit points
(``sevendag_cli.d20.push.grid_push``) and a brute force in exact fractions here — and the whole
answer it gives ``fight --exact``: the rounds distribution at every size, the capped fight.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sevendag_cli.d20.chain import chain_for
from sevendag_cli.d20.jumps import Jumps
from sevendag_cli.d20.push import grid_push
from sevendag_cli.d20.rounds import timed
from sevendag_cli.d20.solve import forward
from sevendag_cli.sim.exact_fight import exact_fight
from tests.exact_helpers import d14_pair
from tests.helpers import BRUTE, KESTREL, run_json, validate
from tests.records import replace


def brute(j: Jumps, ha: int, hb: int, first: int | None, rounds: int
          ) -> tuple[list[tuple[Fraction, Fraction]], Fraction]:
    """Each round's P(a wins in it), P(b wins in it), and the mass still in play after
    ``rounds`` rounds, in fractions: every state of the grid, round by round (round 1's attacker
    ``first``, or D-02's draw)."""
    mass = {(ha, hb): Fraction(1)}
    ends = []
    for t in range(rounds):
        pa = j.pa if t > 0 or first is None else Fraction(1 if first == 0 else 0)
        won_a = won_b = Fraction(0)
        nxt: dict[tuple[int, int], Fraction] = {}
        for (x, y), m in mass.items():
            for d, q in j.qa.items():
                w = m * pa * q
                if d >= y:
                    won_a += w
                elif w:
                    nxt[x, y - d] = nxt.get((x, y - d), Fraction(0)) + w
            for d, q in j.qb.items():
                w = m * (1 - pa) * q
                if d >= x:
                    won_b += w
                elif w:
                    nxt[x - d, y] = nxt.get((x - d, y), Fraction(0)) + w
        mass = nxt
        ends.append((won_a, won_b))
    return ends, sum(mass.values(), Fraction(0))


def law(weights: list[int]) -> dict[int, Fraction]:
    total = sum(weights)
    return {d: Fraction(w, total) for d, w in enumerate(weights) if w}


@st.composite
def pairs(draw: Any) -> tuple[Jumps, int, int, int | None, int]:
    """A round's tables (who attacks, each attack's damage 0..4, misses included), small hit
    points, round 1's attacker and a cap; some round can deal damage."""
    pa = Fraction(draw(st.integers(0, 8)), 8)
    qa = law(draw(st.lists(st.integers(0, 3), min_size=5, max_size=5).filter(any)))
    qb = law(draw(st.lists(st.integers(0, 3), min_size=5, max_size=5).filter(any)))
    j = Jumps(pa, qa, qb)
    if not j.moves:
        qa = {0: Fraction(1, 2), 1: Fraction(1, 2)}
        pa = Fraction(1, 2)
        j = Jumps(pa, qa, qb)
    first = draw(st.sampled_from([None, 0, 1]))
    return j, draw(st.integers(1, 6)), draw(st.integers(1, 6)), first, draw(st.integers(1, 9))


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(pairs())
def test_D02_D12_every_rounds_mass_is_the_brute_forces(case: Any) -> None:
    """D-02, D-12: whatever the round's tables (one side may never hit, every round may deal
    damage), the mass ending in each round, by winner, and the draw after the cap are the exact
    brute force's, within the rounding bound."""
    j, ha, hb, first, cap = case
    columns = [(0, float(j.pa)), (1, float(1 - j.pa))] if first is None else [(first, 1.0)]
    res = timed(j, ha, hb, columns, cap, 0.0).push
    ends, draw = brute(j, ha, hb, first, cap)
    slack = res.error + 1e-15
    assert len(res.won[0]) <= cap
    for t, (won_a, won_b) in enumerate(ends):
        got_a = float(res.won[0][t].sum()) if t < len(res.won[0]) else 0.0
        got_b = float(res.won[1][t].sum()) if t < len(res.won[1]) else 0.0
        assert got_a == pytest.approx(float(won_a), abs=slack), t
        assert got_b == pytest.approx(float(won_b), abs=slack), t
    if len(res.won[0]) == cap:
        assert float(res.draw.sum()) == pytest.approx(float(draw), abs=slack)
    else:  # stopped with nothing left in play
        assert float(draw) <= slack


@pytest.mark.parametrize(("ha", "hb", "cap"), [(17, 23, 30), (45, 50, 30), (5, 3, 4), (12, 14, 60)])
@pytest.mark.parametrize("first", [None, 0, 1])
def test_D02_D12_the_hits_law_equals_the_push_over_the_grid(ha: int, hb: int, cap: int,
                                                            first: int | None) -> None:
    """The D-14 pair: per round and per column (who struck first), what ended the fight and
    who won, the mass in play, the draw at the cap, the winner's hit points left and the damage
    dealt equal the round-by-round push over both fighters' hit points."""
    rs, a, b = d14_pair()
    chain = chain_for(rs, a, b)
    p = chain.p_first
    columns = [(0, p), (1, 1.0 - p)] if first is None else [(first, 1.0)]
    got = timed(chain.jumps, ha, hb, columns, cap, 0.0, hp=True)
    ref = grid_push(chain, ha, hb, None, cap, 0.0, columns=columns)
    slack = got.push.error + ref.push.error
    assert len(got.push.won[0]) == len(ref.push.won[0])
    for w in (0, 1):
        for mine, theirs in zip(got.push.won[w], ref.push.won[w], strict=True):
            assert np.allclose(mine, theirs, rtol=0, atol=slack)
    for mine, theirs in zip(got.push.alive, ref.push.alive, strict=True):
        assert np.allclose(mine, theirs, rtol=0, atol=1e-12)
    assert np.allclose(got.push.draw, ref.push.draw, rtol=0, atol=slack)
    assert np.allclose(got.hp_a, ref.rewards.hp_a.sum(axis=0), rtol=0, atol=1e-13)
    assert np.allclose(got.hp_b, ref.rewards.hp_b.sum(axis=0), rtol=0, atol=1e-13)
    assert np.allclose(got.dealt, ref.rewards.dealt.sum(axis=1), rtol=1e-12)


def test_D12_the_rounds_moments_are_the_chains() -> None:
    """The mean rounds of the fight played to the end, from the law of the hits, is the pass
    over the hit points' (``forward``); the histogram followed to its tail has that mean and
    variance within what the tail can hold."""
    rs, a, b = d14_pair()
    chain = chain_for(rs, a, b)
    p = chain.p_first
    res = timed(chain.jumps, a.hp, b.hp, [(0, p), (1, 1.0 - p)], None, 1e-13)
    mean = p * res.moments[0][0] + (1 - p) * res.moments[1][0]
    second = sum(w * (v + m * m) for w, (m, v) in zip((p, 1 - p), res.moments, strict=True))
    sol = forward(chain.jumps, a.hp, b.hp, [(0, chain.jumps.pa), (1, 1 - chain.jumps.pa)])
    assert mean == pytest.approx(sol.rounds_mean, rel=1e-13)
    hist = [(t + 1, float(res.push.won[0][t].sum() + res.push.won[1][t].sum()))
            for t in range(len(res.push.won[0]))]
    assert res.push.tail <= 1e-13
    assert math.fsum(t * q for t, q in hist) == pytest.approx(mean, abs=1e-9)
    assert math.fsum(t * t * q for t, q in hist) == pytest.approx(second, abs=1e-7)


@pytest.mark.slow
def test_D12_kestrel_against_brute_has_its_whole_rounds_distribution(tmp_path: Any,
                                                                     monkeypatch: Any) -> None:
    """Kestrel against Brute (some 65 rounds): fight --exact --json gives the rounds' mean, sd,
    median, 90th percentile and every round, the tail after the last at most 1e-12."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kestrel.toml").write_text(KESTREL, "utf-8")
    (tmp_path / "brute.toml").write_text(BRUTE, "utf-8")
    doc = run_json("fight", "kestrel.toml", "brute.toml", "-r", "d20", "--exact")
    validate("fight-exact", doc)
    r = doc["rounds"]
    assert 60 < r["mean"] < 70 and 20 < r["sd"] < 30 and r["p50"] < r["p90"] < 130
    probs = [q for _, q in r["histogram"]]
    assert r["tail"] <= 1e-12 and math.fsum(probs) + r["tail"] == pytest.approx(1, abs=1e-12)
    mean = math.fsum(t * q for t, q in r["histogram"])
    sd = math.sqrt(math.fsum(t * t * q for t, q in r["histogram"]) - mean * mean)
    assert mean == pytest.approx(r["mean"], abs=1e-9) and sd == pytest.approx(r["sd"], abs=1e-6)


@pytest.mark.slow
def test_D12_a_thousand_hit_points_each_have_their_rounds_and_their_cap() -> None:
    """1,000 hit points each (some 1,000 rounds): the rounds distribution of the fight played to
    the end, and under a cap of 1,000 rounds the capped fight: its draw is the share of fights
    the distribution has beyond round 1,000 (some 64%)."""
    rs, a, b = d14_pair()
    a, b = replace(a, hp=1000), replace(b, hp=1000)
    end = exact_fight(rs, a, b, fractions=False)
    assert end.rounds.tail <= 1e-12 and len(end.rounds.histogram) > 500
    beyond = math.fsum(q for t, q in end.rounds.histogram if t > 1000) + end.rounds.tail
    capped = exact_fight(replace(rs, round_cap=1000), a, b, fractions=False)
    assert capped.unresolved <= 1e-12 and capped.cap == 1000
    assert capped.draw_probability == pytest.approx(beyond, abs=1e-11)
    assert 0.6 < capped.draw_probability < 0.7
