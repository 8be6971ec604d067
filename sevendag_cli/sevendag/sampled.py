"""Sevendag's ``fight --runs`` batches: drawn from the pair's chain where it fits (numpy).

The fight of ``fight`` and ``--runs`` (each sheet's tactic every round, no yield, no
technique) is the chain of :mod:`sevendag_cli.sevendag.chain`; its states reachable
from the start are few for the usual sheets (some 500 for Brannoc and Ysolde), and
:mod:`sevendag_cli.sim.sample` draws whole fights from their tables, the wounds of
each round with it: a handful of array operations a round instead of every die.  The
initiative (S-02) is drawn from its exact probability (:func:`initiative`: plain dice
convolved here, any other roll by the formulas' exact laws).

Where the chain does not fit — more dice faces than it enumerates, or more states
reachable than :func:`state_budget` allows for the batch — the batches are the
vectorised simulator's (:func:`~sevendag_cli.sevendag.vector.simulate_sevendag_batch`),
which rolls every die.  :attr:`SevendagBatches.method` says which one ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import numpy.typing as npt

from sevendag_cli.errors import UsageError
from sevendag_cli.formula import Formula
from sevendag_cli.sevendag.chain import MAX_STATES, chain_for
from sevendag_cli.sevendag.model import speed_odds
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
from sevendag_cli.sim.sample import Sampler
from sevendag_cli.sim.weights import Weights, convolve

CHAIN = "chain"
""":attr:`SevendagBatches.method`: fights drawn from the chain's tables."""
VECTOR = "vector"
""":attr:`SevendagBatches.method`: every die rolled (the vectorised simulator)."""

STATE_COST = 25
"""Fights the vectorised simulator plays, every die rolled, in the time the chain builds one
state (some 100 µs against 4 µs; drawing a fight from the tables then takes well under 1 µs)."""


def state_budget(n: int) -> int:
    """Most states reachable for the chain to be sampled, for batches of ``n`` fights: as many
    as the vectorised simulator would take to play the batch (4,000 for batches of 100,000;
    Brannoc and Ysolde's 496 from batches of 12,400)."""
    return min(MAX_STATES, n // STATE_COST)


@dataclass(frozen=True)
class SevendagSample:
    """``n`` fights, as :class:`~sevendag_cli.sevendag.vector.SevendagBatch`."""

    winner: npt.NDArray[np.int8]
    rounds: npt.NDArray[np.int64]
    first_striker: npt.NDArray[np.int8]
    wounds: npt.NDArray[np.int64]  # (n, 2, bands)

    @property
    def n(self) -> int:
        return int(self.winner.size)


MAX_PLAIN_FACES = 10_000
"""Most (dice x sides) of a speed roll convolved here (:func:`initiative`) rather than by the
formulas' exact laws (:mod:`sevendag_cli.sim.formula_dice`)."""


def _plain_weights(formula: Formula, env: dict[str, int]) -> Weights | None:
    """A formula's exact distribution when it is a constant plus or minus plain dice (no
    explosion, selection, counting nor modifier): convolved here; else None."""
    from sevendag_cli.sim.vec_formula import VecFormula

    linear = VecFormula.bind(formula, env).linear
    if linear is None:
        return None
    const, terms = linear
    dist: Weights = {const: 1}
    for sign, dice in terms:
        if not dice.plain or dice.count * dice.sides > MAX_PLAIN_FACES:
            return None
        face = {v: 1 for v in range(1, dice.sides + 1)}
        for _ in range(dice.count):
            dist = convolve(dist, face, sign)
    return dist


def initiative(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter) -> Fraction:
    """S-02 (:func:`~sevendag_cli.sevendag.model.speed_odds`): plain dice convolved here, any
    other roll by :func:`~sevendag_cli.sevendag.exact.initiative_probability` (the formulas'
    exact laws)."""
    wa = _plain_weights(ruleset.speed_roll, a.env())
    wb = _plain_weights(ruleset.speed_roll, b.env())
    if wa is not None and wb is not None:
        return speed_odds(ruleset, wa, wb)
    from sevendag_cli.sevendag.exact import initiative_probability

    return initiative_probability(ruleset, a, b)


def chain_sampler(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter, cap: int,
                  budget: int) -> Sampler | None:
    """The pair's chain ready to sample (the initiative its starts' weights), or None where it
    does not fit (the chain's own limits, or more states than ``budget``)."""
    try:
        chain = chain_for(ruleset, a, b)
        chain.keep_moves = True  # the sampler reads every state's moves once, just built
        starts = [chain.state_id(chain.start_key(0)), chain.state_id(chain.start_key(1))]
        if chain.reachable(starts, budget) is None:
            return None
    except UsageError as exc:
        if exc.msg.key in ("exact.sev.faces", "exact.sev.states"):
            return None
        raise
    p_a = initiative(ruleset, a, b)
    return Sampler(chain, [(starts[0], p_a), (starts[1], 1 - p_a)], cap)


class SevendagBatches:
    """The runner's batch function (:data:`sevendag_cli.backend.BatchFn`): the first call picks
    the method (the chain if it fits batches of that size) and keeps its tables."""

    def __init__(self) -> None:
        self.method: str | None = None
        self._sampler: Sampler | None = None
        self._key: tuple[object, ...] | None = None

    def __call__(self, ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter, n: int,
                 rng: np.random.Generator, cap: int | None = None) -> object:
        cap = ruleset.round_cap if cap is None else cap
        key = (id(ruleset), id(a), id(b), cap)
        if key != self._key:
            self._key = key
            self._sampler = None
            self.method = VECTOR
            if isinstance(cap, int) and not isinstance(cap, bool) and cap >= 1 and n >= 1:
                from sevendag_cli.sevendag.model import check_fighters

                check_fighters(ruleset, a, b)
                self._sampler = chain_sampler(ruleset, a, b, cap, state_budget(n))
                if self._sampler is not None:
                    self.method = CHAIN
        if self._sampler is None:
            from sevendag_cli.sevendag.vector import simulate_sevendag_batch  # every die rolled

            return simulate_sevendag_batch(ruleset, a, b, n, rng, cap)
        s = self._sampler.sample(n, rng)
        return SevendagSample(s.winner, s.rounds, s.first_striker,
                              s.rewards.reshape(n, 2, self._sampler.kinds // 2))
