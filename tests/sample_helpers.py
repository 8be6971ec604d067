"""A chain small enough to solve by hand, for the sampler's tests (:mod:`sevendag_cli.sim.sample`)."""

from __future__ import annotations

from sevendag_cli.sim import sample


class Su:
    def __init__(self, den: int, moves: list[tuple[int, int, tuple[int, ...]]],
                 kinds: int) -> None:
        self.den, self.moves, self.rewards = den, moves, (0,) * kinds


class Toy:
    """State 0: 1/4 to state 1 (reward 0), 1/4 a wins (reward 1 twice), 1/2 stays.
    State 1: 1/2 b wins (reward 2), 1/2 back to 0.  P(a wins from 0) = 2/3, from 1: 1/3."""

    def __init__(self, moves: dict[int, Su] | None = None) -> None:
        self.moves = moves or {
            0: Su(4, [(1, 1, (0,)), (sample.A_WINS, 1, (1, 1)), (0, 2, ())], 3),
            1: Su(2, [(sample.B_WINS, 1, (2,)), (0, 1, ())], 3),
        }
        self.asked: list[int] = []

    def closure(self, starts: list[int]) -> list[int]:
        order = list(dict.fromkeys(starts))
        for g in order:
            for t, _, _ in self.moves[g].moves:
                if t >= 0 and t not in order:
                    order.append(t)
        return order

    def successors(self, i: int) -> Su:
        self.asked.append(i)
        return self.moves[i]
