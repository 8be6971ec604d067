"""Le combat (d20 homebrew): the step-by-step engine (D-01 .. D-15).

Roll order (D-15): initiative of the first-named fighter then the second (both
again on a tie); attack d20; save d20 (defender); DD d20 (attacker); damage dice
(every set of a critical, in order); VIG d10; magic dice; VOL d10.  A roll that
can no longer change the outcome is not made: no save after a miss, no DD after
a natural 1 or natural 20 on the save, no damage after a full dodge.

This package is the engine's facade (what ``engine_for`` returns), laid out
as the Sevendag engine's:

* :mod:`.events` — what a round did (attack, save, damage, hit points);
* :mod:`.state` — hit points and the encounter state, and its codec for the
  encounter file (``state_to_data`` / ``state_from_data``, which validates);
* :mod:`.resolution` — initiative, the round's one attack, judgements by
  hand, a whole fight.

There is no planning module: in Le combat nobody chooses anything for a
round (initiative decides who attacks, D-02), so ``play_round`` takes a
``choices`` argument only to share the Sevendag engine's signature, and
ignores it.

:data:`STEP_ENGINE` is this engine behind the typed interface every ruleset's step engine
shares (:class:`sevendag_cli.backend.StepEngine`), what the backend's ``engine()`` gives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sevendag_cli.backend import own
from sevendag_cli.d20.events import AttackEvent, DamageEvent, HitPointsEvent, SaveEvent
from sevendag_cli.d20.resolution import (
    MAX_INITIATIVE_ATTEMPTS,
    apply_heal,
    apply_wound,
    fight,
    fight_play,
    play_round,
    resolve_attack,
    roll_initiative,
    start,
)
from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
from sevendag_cli.d20.state import (
    D20FighterState,
    D20State,
    fighter_states,
    initial_state,
    state_from_data,
    state_to_data,
)
from sevendag_cli.d20.state import check_state as _check_state
from sevendag_cli.engine.common import FightOverEvent, InitiativeEvent
from sevendag_cli.policies import PLAIN, Policies

if TYPE_CHECKING:
    from sevendag_cli.backend import Choices, Fighter, Ruleset, State
    from sevendag_cli.dice import DiceSource
    from sevendag_cli.engine.common import FightPlay, FightResult, RoundResult, WoundResult



def _pair(ruleset: Ruleset, a: Fighter,
          b: Fighter) -> tuple[D20Ruleset, D20Fighter, D20Fighter]:
    """The three as d20 records (a sheet of another ruleset: one line)."""
    return own(ruleset, D20Ruleset), own(a, D20Fighter), own(b, D20Fighter)


def _state(state: State) -> D20State:
    return own(state, D20State)


class D20StepEngine:
    """The d20 step engine (:class:`sevendag_cli.backend.StepEngine`): this module's functions,
    the records narrowed to d20's."""

    def start(self, ruleset: Ruleset, a: Fighter, b: Fighter,
              dice: DiceSource) -> tuple[InitiativeEvent, State]:
        return start(*_pair(ruleset, a, b), dice)

    def play_round(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State, dice: DiceSource,
                   choices: Choices | None = None) -> tuple[RoundResult, State]:
        return play_round(*_pair(ruleset, a, b), _state(state), dice, choices)

    def apply_wound(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State, fighter: str,
                    amount: int | None = None, band: str | None = None) -> tuple[WoundResult, State]:
        return apply_wound(*_pair(ruleset, a, b), _state(state), fighter, amount, band)

    def apply_heal(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State, fighter: str,
                   amount: int | None = None, band: str | None = None) -> tuple[WoundResult, State]:
        return apply_heal(*_pair(ruleset, a, b), _state(state), fighter, amount, band)

    def fight(self, ruleset: Ruleset, a: Fighter, b: Fighter, dice: DiceSource,
              cap: int | None = None) -> FightResult:
        return fight(*_pair(ruleset, a, b), dice, cap)

    def fight_play(self, ruleset: Ruleset, a: Fighter, b: Fighter, dice: DiceSource,
                   cap: int | None = None, policies: Policies = PLAIN) -> FightPlay:
        """Every policy is the sheet: nobody chooses anything (D-02)."""
        return fight_play(*_pair(ruleset, a, b), dice, cap)

    def fight_states(self, ruleset: Ruleset, a: Fighter, b: Fighter,
                     result: FightResult) -> list[State]:
        """Who attacks in round 1 (``start`` rolls it; later rounds roll their own, D-02)."""
        from msgspec.structs import replace

        _, fa, fb = _pair(ruleset, a, b)
        states: list[State] = [replace(initial_state(fa, fb),
                                       next_attacker=result.initiative.leader)]
        for r in result.rounds:
            states.append(D20State(r.number, (r.states[0], r.states[1]), None, r.over, r.winner,
                                   r.capped))
        return states

    def state_to_data(self, state: State) -> dict[str, object]:
        return state_to_data(_state(state))

    def state_from_data(self, data: object) -> State:
        return state_from_data(data)

    def fighter_states(self, state: State) -> tuple[D20FighterState, ...]:
        return fighter_states(_state(state))

    def check_state(self, ruleset: Ruleset, fighters: tuple[Fighter, Fighter], state: State) -> None:
        rs, a, b = _pair(ruleset, *fighters)
        _check_state(rs, (a, b), _state(state))


STEP_ENGINE = D20StepEngine()
"""This engine behind :class:`sevendag_cli.backend.StepEngine`."""


__all__ = [
    "MAX_INITIATIVE_ATTEMPTS",
    "STEP_ENGINE",
    "AttackEvent",
    "D20FighterState",
    "D20State",
    "D20StepEngine",
    "DamageEvent",
    "FightOverEvent",
    "HitPointsEvent",
    "InitiativeEvent",
    "SaveEvent",
    "apply_heal",
    "apply_wound",
    "fight",
    "fight_play",
    "fighter_states",
    "initial_state",
    "play_round",
    "resolve_attack",
    "roll_initiative",
    "start",
    "state_from_data",
    "state_to_data",
]
