"""d20's extras of ``fight --runs`` (numpy): hit points left by the winner, damage dealt."""

from __future__ import annotations

from typing import Any

import numpy as np

from sevendag_cli.sim.runner import D20Extra, D20FighterExtra, Tally, exact_sum, mean_sd, moments


class D20Aggregator:
    """A d20 batch (:mod:`sevendag_cli.d20.vector`) to a tally; the totals to ``d20``."""

    def __init__(self, names: tuple[str, str]) -> None:
        self.names = names

    def tally(self, batch: Any) -> Tally:
        w = np.asarray(batch.winner)
        t: Tally = {}
        t.update(moments("hp_left0", np.asarray(batch.hp_a)[w == 0]))
        t.update(moments("hp_left1", np.asarray(batch.hp_b)[w == 1]))
        t["dealt0"] = exact_sum(batch.dealt_a)
        t["dealt1"] = exact_sum(batch.dealt_b)
        return t

    def result(self, totals: Tally, runs: int) -> dict[str, Any]:
        def one(i: int) -> D20FighterExtra:
            return D20FighterExtra(self.names[i], mean_sd(totals, f"hp_left{i}"),
                                   totals.get(f"dealt{i}", 0) / runs if runs else 0.0)

        return {"d20": D20Extra((one(0), one(1)))}
