"""Distributions as integer weights (value → weight), exact and without icepool: what the d20
solver (:mod:`sevendag_cli.d20.exact`) and the Sevendag chain
(:mod:`sevendag_cli.sevendag.chain`) both combine."""

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
