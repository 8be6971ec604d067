"""Distributions as integer weights (value → weight), exact and without icepool: what the d20
solver (:mod:`.exact_d20`) and the Sevendag chain (:mod:`.chain_sevendag`) both combine."""

from __future__ import annotations

Weights = dict[int, int]
"""A finite distribution as integer weights: value -> weight (probability = weight / sum)."""


def convolve(x: Weights, y: Weights, sign: int = 1) -> Weights:
    """The distribution of x + sign * y, as integer weights."""
    out: Weights = {}
    for u, pu in x.items():
        for v, pv in y.items():
            k = u + sign * v
            out[k] = out.get(k, 0) + pu * pv
    return out
