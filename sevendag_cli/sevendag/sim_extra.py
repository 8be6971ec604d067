"""Sevendag's extras of ``fight --runs`` (numpy): the wounds of each band each fighter took.

A batch's ``wounds`` is an integer array of shape (n, 2, number of bands): wounds of
each band (in ``ruleset.wounds`` order) taken by each fighter in each fight.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, cast

import numpy as np
import numpy.typing as npt

from sevendag_cli.sim.runner import Tally


class WoundsBatch(Protocol):
    """What a Sevendag batch adds to every batch's arrays (its simulators':
    :class:`~sevendag_cli.sevendag.vector.SevendagBatch`, :class:`~.sampled.SevendagSample`)."""

    @property
    def wounds(self) -> npt.NDArray[np.int64]: ...


@dataclass(frozen=True)
class BandStats:
    band: str
    mean: float  # wounds of this band per fight
    total: int


@dataclass(frozen=True)
class SevendagFighterExtra:
    name: str
    wounds: tuple[BandStats, ...]


@dataclass(frozen=True)
class SevendagExtra:
    """What Sevendag adds to ``fight --runs`` (the JSON's ``sevendag``): per fighter."""

    fighters: tuple[SevendagFighterExtra, SevendagFighterExtra]


class SevendagAggregator:
    """A Sevendag batch (:mod:`sevendag_cli.sevendag.vector`) to a tally; the totals to its extras."""

    def __init__(self, names: tuple[str, str], bands: tuple[str, ...]) -> None:
        self.names = names
        self.bands = bands

    def tally(self, batch: object) -> Tally:
        wounds = np.asarray(cast("WoundsBatch", batch).wounds, dtype=np.int64)  # its simulators'
        if wounds.ndim != 3 or wounds.shape[1:] != (2, len(self.bands)):
            raise ValueError(
                f"sevendag batch: wounds has shape {wounds.shape}, expected "
                f"(n, 2, {len(self.bands)})"
            )
        sums = wounds.sum(axis=0)
        return {f"wounds{i}.{j}": int(sums[i, j])
                for i in (0, 1) for j in range(len(self.bands))}

    def result(self, totals: Tally, runs: int) -> SevendagExtra:
        def one(i: int) -> SevendagFighterExtra:
            bands = []
            for j, band in enumerate(self.bands):
                total = totals.get(f"wounds{i}.{j}", 0)
                bands.append(BandStats(band, total / runs if runs else 0.0, total))
            return SevendagFighterExtra(self.names[i], tuple(bands))

        return SevendagExtra((one(0), one(1)))
