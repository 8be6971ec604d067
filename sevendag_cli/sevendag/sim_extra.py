"""Sevendag's extras of ``fight --runs`` (numpy): the wounds of each band each fighter took.

A batch's ``wounds`` is an integer array of shape (n, 2, number of bands): wounds of
each band (in ``ruleset.wounds`` order) taken by each fighter in each fight.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from sevendag_cli.sim.runner import BandStats, SevendagExtra, SevendagFighterExtra, Tally


class SevendagAggregator:
    """A Sevendag batch (:mod:`sevendag_cli.sevendag.vector`) to a tally; the totals to ``sevendag``."""

    def __init__(self, names: tuple[str, str], bands: tuple[str, ...]) -> None:
        self.names = names
        self.bands = bands

    def tally(self, batch: Any) -> Tally:
        wounds = np.asarray(batch.wounds, dtype=np.int64)
        if wounds.ndim != 3 or wounds.shape[1:] != (2, len(self.bands)):
            raise ValueError(
                f"sevendag batch: wounds has shape {wounds.shape}, expected "
                f"(n, 2, {len(self.bands)})"
            )
        sums = wounds.sum(axis=0)
        return {f"wounds{i}.{j}": int(sums[i, j])
                for i in (0, 1) for j in range(len(self.bands))}

    def result(self, totals: Tally, runs: int) -> dict[str, Any]:
        def one(i: int) -> SevendagFighterExtra:
            bands = []
            for j, band in enumerate(self.bands):
                total = totals.get(f"wounds{i}.{j}", 0)
                bands.append(BandStats(band, total / runs if runs else 0.0, total))
            return SevendagFighterExtra(self.names[i], tuple(bands))

        return {"sevendag": SevendagExtra((one(0), one(1)))}
