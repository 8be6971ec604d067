"""The combat engines: pure functions from (ruleset, fighters, state, dice) to results.

No terminal, CLI or JSON code here.  Each ruleset's step engine lives in its package
(``sevendag_cli.d20``, ``sevendag_cli.sevendag``) with the same layout — ``events``,
``state`` (with its codec), ``planning`` where the ruleset has choices to make,
``attack`` (what a round's dice decide, written once for the engine and the simulator),
``resolution`` — whose ``engine`` module is its facade, exposing the same functions, and its
``STEP_ENGINE`` (d20: in ``engine``; Sevendag: in ``step``, beside the facade, as it hands a
fight under policies to the game, which plays through the facade) those functions behind the
typed interface every ruleset's step engine shares
(:class:`sevendag_cli.backend.StepEngine`, what the backend's ``engine()`` and
:func:`engine_for` give):

* ``start(ruleset, a, b, dice) -> (InitiativeEvent, State)``
* ``play_round(ruleset, a, b, state, dice, choices=None) -> (RoundResult, State)``
* ``apply_wound(ruleset, a, b, state, fighter, amount=None, band=None) -> (WoundResult, State)``
* ``apply_heal(ruleset, a, b, state, fighter, amount=None, band=None) -> (WoundResult, State)``
  (d20: hit points back; Sevendag: the last wound of a band, named or from damage)
* ``fight(ruleset, a, b, dice, cap=None) -> FightResult``
* ``fight_play(ruleset, a, b, dice, cap=None) -> FightPlay`` (the same fight, played
  round by round as it is iterated, so a long fight is never held whole; through
  ``STEP_ENGINE`` each round declared by the fighters' policies too)
* ``state_to_data(state) -> dict`` / ``state_from_data(dict) -> State`` (plain
  dicts for the encounter file; damaged data gives one clear error)
* ``fighter_states(state) -> tuple`` (each fighter's track)

and through ``STEP_ENGINE`` also ``fight_states`` (the states of a fight played) and
``check_state`` (a state read back, against the rules and the sheets).

Records shared by both engines are in :mod:`sevendag_cli.engine.common`; arithmetic that
works on one value or on numpy arrays alike in :mod:`sevendag_cli.engine.arith`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sevendag_cli.backend import Ruleset, StepEngine


def engine_for(ruleset: Ruleset) -> StepEngine:
    """The ruleset's step engine (its backend's :meth:`~sevendag_cli.backend.Backend.engine`)."""
    from sevendag_cli.backend import backend_for

    return backend_for(ruleset).engine()
