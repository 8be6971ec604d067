"""d20's extras of ``fight --runs`` (numpy): hit points left by the winner, damage dealt."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np

from sevendag_cli.sim.runner import Tally, exact_sum, mean_sd, moments
from sevendag_cli.sim.stats import MeanSd

if TYPE_CHECKING:
    from sevendag_cli.d20.vector import D20Batch


@dataclass(frozen=True)
class D20FighterExtra:
    name: str
    hp_left_when_winning: MeanSd
    damage_dealt: float  # mean per fight


@dataclass(frozen=True)
class D20Extra:
    """What d20 adds to ``fight --runs`` (the JSON's ``d20``): per fighter."""

    fighters: tuple[D20FighterExtra, D20FighterExtra]


class D20Aggregator:
    """A d20 batch (:mod:`sevendag_cli.d20.vector`) to a tally; the totals to its extras."""

    def __init__(self, names: tuple[str, str]) -> None:
        self.names = names

    def tally(self, batch: object) -> Tally:
        batch = cast("D20Batch", batch)  # its simulators' (:mod:`.vector`, :mod:`.sampled`)
        w = np.asarray(batch.winner)
        t: Tally = {}
        t.update(moments("hp_left0", np.asarray(batch.hp_a)[w == 0]))
        t.update(moments("hp_left1", np.asarray(batch.hp_b)[w == 1]))
        t["dealt0"] = exact_sum(batch.dealt_a)
        t["dealt1"] = exact_sum(batch.dealt_b)
        return t

    def result(self, totals: Tally, runs: int) -> D20Extra:
        def one(i: int) -> D20FighterExtra:
            return D20FighterExtra(self.names[i], mean_sd(totals, f"hp_left{i}"),
                                   totals.get(f"dealt{i}", 0) / runs if runs else 0.0)

        return D20Extra((one(0), one(1)))
