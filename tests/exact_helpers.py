"""Brute force through the step-by-step engine, for the exact solvers' agreement tests.

Every die of a round is enumerated (each face of each die the engine asks for, in
its own roll order), so the distribution of the next state is the engine's own,
exactly (fractions).  No code of the solvers is used here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

from sevendag_cli.rules import D20Fighter, D20Ruleset, load_pair, load_ruleset
from sevendag_cli.sevendag import engine
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
from tests.records import replace


class _Branch(Exception):
    def __init__(self, sides: int) -> None:
        self.sides = sides


class _PrefixDice:
    """Faces from a prefix; the first die beyond it raises _Branch (its number of sides)."""

    def __init__(self, prefix: tuple[int, ...]) -> None:
        self.prefix = prefix
        self.i = 0

    def face(self, sides: int, purpose: str, fighter: str | None) -> int:
        if self.i < len(self.prefix):
            self.i += 1
            return self.prefix[self.i - 1]
        raise _Branch(sides)


def every_face(call: Callable[[Any], Any], limit: int | None = None,
               certain: Any = Fraction(1)) -> Iterator[tuple[Any, Any]]:
    """Every outcome of ``call(dice)`` with its exact probability (``certain`` is 1: a
    Fraction, or 1.0 for floats); outcomes that need more than ``limit`` dice are dropped."""
    stack: list[tuple[tuple[int, ...], Any]] = [((), certain)]
    while stack:
        prefix, p = stack.pop()
        try:
            result = call(_PrefixDice(prefix))
        except _Branch as b:
            if limit is None or len(prefix) < limit:
                stack.extend(((*prefix, f), p / b.sides) for f in range(1, b.sides + 1))
            continue
        yield result, p


def distribution(call: Callable[[Any], Any]) -> dict[Any, Fraction]:
    """The exact distribution of ``call(dice)``'s outcomes."""
    out: dict[Any, Fraction] = {}
    for result, p in every_face(call):
        out[result] = out.get(result, Fraction(0)) + p
    return out


def d14_pair() -> tuple[D20Ruleset, D20Fighter, D20Fighter]:
    """The bundled d20 ruleset and its example pair, A and B (D-14)."""
    rs = load_ruleset("d20")
    a, b = load_pair(rs, None)
    assert isinstance(rs, D20Ruleset) and isinstance(a, D20Fighter) and isinstance(b, D20Fighter)
    return rs, a, b


def canonical(rs: SevendagRuleset, st: engine.SevendagState) -> engine.SevendagState:
    """Forget what cannot matter to the rest of the fight: the round number (the caller counts
    rounds) and the order of the wounds and of the dropped weapons."""
    order = {w.name: i for i, w in enumerate(rs.wounds)}
    fs = tuple(replace(f, wounds=tuple(sorted(f.wounds, key=order.__getitem__)),
                       dropped=tuple(sorted(f.dropped, key=lambda d: d.item)))
               for f in st.fighters)
    return replace(st, round=0, fighters=(fs[0], fs[1]))


def engine_round(rs: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
                 state: engine.SevendagState) -> dict[engine.SevendagState, Fraction]:
    """One round of the engine from ``state`` (sheet tactics): each next state and its probability."""
    return distribution(lambda d: engine.play_round(rs, a, b, state, d)[1])


def engine_push(rs: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
                state: engine.SevendagState, rounds: int) -> tuple[float, float, float]:
    """(P(a wins), P(b wins), P(still going)) after ``rounds`` rounds of the engine from ``state``.

    What is still going after the last round is what ``play_round`` would call a draw at a
    round cap ``state.round + rounds``.
    """
    rs = replace(rs, round_cap=10**9)
    memo: dict[engine.SevendagState, list[tuple[Any, float]]] = {}
    dist = {canonical(rs, state): 1.0}
    won = [0.0, 0.0]
    names = (a.name, b.name)
    for _ in range(rounds):
        new: dict[engine.SevendagState, float] = {}
        for st, p in dist.items():
            if st not in memo:
                memo[st] = [(("over", names.index(n.winner)) if n.over and n.winner else
                             canonical(rs, n), float(q))
                            for n, q in engine_round(rs, a, b, st).items()]
            for key, q in memo[st]:
                if isinstance(key, tuple):
                    won[key[1]] += p * q
                else:
                    new[key] = new.get(key, 0.0) + p * q
        dist = new
    return won[0], won[1], sum(dist.values())
