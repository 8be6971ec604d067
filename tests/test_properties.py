"""Properties over generated rulesets and fighter sheets (hypothesis).

Any input, valid or not, yields either a result or a project error — never another
exception; and for every fight that runs: HP only falls, wounds only accumulate, the
fight ends within the cap and the winner is the fighter still standing.
"""

from __future__ import annotations

import copy
import tomllib
from itertools import pairwise
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sevendag_cli.data import bundled_dir
from sevendag_cli.dice import SeededDice
from sevendag_cli.engine import engine_for
from sevendag_cli.errors import SevendagError
from sevendag_cli.rules import fighter_from_data, ruleset_from_data

pytestmark = pytest.mark.slow  # Hypothesis: many generated fights per test


def load(name: str) -> dict[str, Any]:
    return tomllib.loads((bundled_dir() / name).read_text("utf-8"))


DOCS = {
    "sevendag": (load("sevendag.toml"), load("fighters/brannoc.toml"), load("fighters/ysolde.toml")),
    "d20": (load("d20.toml"), load("fighters/a.toml"), load("fighters/b.toml")),
}

values = st.one_of(
    st.integers(-5, 40),
    st.integers(),
    st.booleans(),
    st.sampled_from(["1d20 + speed", "1d6", "2d8 + mod(str)", "dex // 0", "1d0", "", "zz",
                     "weapon", "shield", "light", "iron", "attack", "none", "custom"]),
    st.text(max_size=8),
    st.lists(st.sampled_from(["attack", "defence", "none", "x"]), max_size=3),
    st.just({}),
)


def paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.append((*prefix, k))
            out += paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.append((*prefix, i))
            out += paths(v, (*prefix, i))
    return out


@st.composite
def mutated(draw: st.DrawFn, doc: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(0, 3))):
        candidates = paths(doc)
        if not candidates:
            break
        path = draw(st.sampled_from(candidates))
        parent: Any = doc
        for key in path[:-1]:
            parent = parent[key]
        if draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(values)
    return doc


def check_fight(engine_name: str, rs_doc: dict, a_doc: dict, b_doc: dict, seed: int) -> None:
    try:
        rs = ruleset_from_data(rs_doc, "ruleset")
        a = fighter_from_data(a_doc, "a", rs)
        b = fighter_from_data(b_doc, "b", rs)
        if a.name == b.name:
            return
        result = engine_for(rs).fight(rs, a, b, SeededDice(seed), cap=30)
    except SevendagError:
        return
    assert len(result.rounds) <= 30
    states = [result.rounds[i].states for i in range(len(result.rounds))]
    if rs.engine == "d20":
        for before, after in pairwise(states):
            for x, y in zip(before, after, strict=True):
                assert y.hp <= x.hp  # HP only falls in a fight
        if result.winner is not None:
            loser = next(s for s in result.states if s.name != result.winner)
            winner = next(s for s in result.states if s.name == result.winner)
            assert loser.hp <= 0 < winner.hp
    else:
        for before, after in pairwise(states):
            for x, y in zip(before, after, strict=True):
                assert y.wounds[: len(x.wounds)] == x.wounds  # wounds only accumulate
        if result.winner is not None:
            loser = next(s for s in result.states if s.name != result.winner)
            winner = next(s for s in result.states if s.name == result.winner)
            assert loser.out and not winner.out
    for rnd in result.rounds:
        for ev in rnd.events:
            dmg = getattr(ev, "damage", 0)
            assert not isinstance(dmg, int) or dmg >= 0  # damage is never negative
    if result.winner is None:
        assert result.capped


SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@SETTINGS
@given(data=st.data(), engine=st.sampled_from(sorted(DOCS)), seed=st.integers(0, 2**32))
def test_any_mutated_input_gives_a_result_or_a_project_error(
    data: st.DataObject, engine: str, seed: int
) -> None:
    rs_doc, a_doc, b_doc = DOCS[engine]
    which = data.draw(st.sampled_from(["ruleset", "a", "b"]))
    if which == "ruleset":
        rs_doc = data.draw(mutated(rs_doc))
    elif which == "a":
        a_doc = data.draw(mutated(a_doc))
    else:
        b_doc = data.draw(mutated(b_doc))
    check_fight(engine, rs_doc, a_doc, b_doc, seed)


@SETTINGS
@given(
    stats=st.fixed_dictionaries({k: st.integers(3, 18) for k in ("str", "dex", "con", "wis")}),
    hp=st.integers(1, 60), bba=st.integers(-2, 10), seed=st.integers(0, 2**32),
    damage=st.sampled_from(["1d4", "1d6", "2d6", "1d12"]),
)
def test_generated_d20_sheets_fight_to_a_proper_end(
    stats: dict[str, int], hp: int, bba: int, seed: int, damage: str
) -> None:
    rs_doc, a_doc, b_doc = DOCS["d20"]
    a = {**a_doc, **stats, "hp": hp, "bba": bba, "weapon": {"name": "w", "damage": damage}}
    check_fight("d20", rs_doc, a, b_doc, seed)


@SETTINGS
@given(
    attack=st.integers(-5, 15), defence=st.integers(-5, 15), die=st.sampled_from([4, 6, 8, 10, 12]),
    tactic=st.sampled_from(["weapons-attack", "all-out", "full-defence"]), seed=st.integers(0, 2**32),
)
def test_generated_sevendag_sheets_fight_to_a_proper_end(
    attack: int, defence: int, die: int, tactic: str, seed: int
) -> None:
    rs_doc, a_doc, b_doc = DOCS["sevendag"]
    a = {**a_doc, "attack": attack, "defence": defence, "tactic": tactic,
         "hands": [{"die": die, "holds": "sword"}, {"die": 8, "holds": "shield"}]}
    check_fight("sevendag", rs_doc, a, b_doc, seed)
