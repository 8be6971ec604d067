"""Statistics helpers for the simulators: pure numpy / Python, no I/O.

Integer samples (rounds, hit points, damage) are kept as histograms — counts
per value, accumulated batch after batch with :func:`numpy.bincount` — so the
memory used does not grow with the number of runs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile."""

IntArray = npt.NDArray[np.int64]


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default).

    ``n == 0`` gives the uninformative interval (0, 1).
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"wilson: need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2 / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class Summary:
    """Summary of an integer sample: population sd, nearest-rank percentiles."""

    count: int
    mean: float
    sd: float
    p50: int
    p90: int
    max: int


EMPTY_SUMMARY = Summary(0, 0.0, 0.0, 0, 0, 0)


def summarize(counts: npt.ArrayLike) -> Summary:
    """Summary of a sample given as a histogram: ``counts[v]`` = how many times v occurred.

    Values are the indices (0, 1, 2, ...).  Percentiles use the nearest rank:
    p50 is the smallest value v with at least half the sample at or below v.
    Sums are exact (Python integers), so 10 million samples lose no precision.
    """
    c = np.asarray(counts, dtype=np.int64)
    if c.ndim != 1 or (c.size and int(c.min()) < 0):
        raise ValueError("summarize: counts must be a 1-D array of non-negative integers")
    total = int(c.sum()) if c.size else 0
    if total == 0:
        return EMPTY_SUMMARY
    values = np.arange(c.size, dtype=np.int64)
    s1 = sum(int(v) * int(k) for v, k in zip(values[c > 0], c[c > 0], strict=True))
    s2 = sum(int(v) * int(v) * int(k) for v, k in zip(values[c > 0], c[c > 0], strict=True))
    mean = s1 / total
    var = max(0.0, (s2 * total - s1 * s1) / (total * total))
    cum = np.cumsum(c)
    return Summary(
        count=total,
        mean=mean,
        sd=math.sqrt(var),
        p50=_rank(cum, total, 0.5),
        p90=_rank(cum, total, 0.9),
        max=int(np.flatnonzero(c)[-1]),
    )


def _rank(cum: IntArray, total: int, q: float) -> int:
    need = max(1, math.ceil(q * total))
    return int(np.searchsorted(cum, need, side="left"))


class Histogram:
    """Counts per non-negative integer value, grown as needed (memory ~ the largest value)."""

    def __init__(self) -> None:
        self.counts: IntArray = np.zeros(0, dtype=np.int64)

    def add(self, values: npt.ArrayLike) -> None:
        v = np.asarray(values, dtype=np.int64).ravel()
        if v.size == 0:
            return
        if int(v.min()) < 0:
            raise ValueError("Histogram.add: values must be non-negative")
        binned = np.bincount(v)
        if binned.size > self.counts.size:
            grown = np.zeros(binned.size, dtype=np.int64)
            grown[: self.counts.size] = self.counts
            self.counts = grown
        self.counts[: binned.size] += binned

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    def summary(self) -> Summary:
        return summarize(self.counts)

    def pairs(self) -> tuple[tuple[int, int], ...]:
        """The non-empty bins as (value, count) pairs, in increasing value."""
        nz = np.flatnonzero(self.counts)
        return tuple((int(v), int(self.counts[v])) for v in nz)


@dataclass(frozen=True)
class MeanSd:
    mean: float
    sd: float
