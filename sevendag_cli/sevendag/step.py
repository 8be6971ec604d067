"""The Sevendag step engine behind the typed interface every ruleset's step engine shares
(:class:`sevendag_cli.backend.StepEngine`): :mod:`.engine`'s functions, the records narrowed to
Sevendag's, and a fight under policies handed to the game's optimal play
(:func:`.policy.fight_play`).  What the backend's ``engine()`` gives: :data:`STEP_ENGINE`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sevendag_cli.backend import own
from sevendag_cli.engine.common import InitiativeEvent
from sevendag_cli.policies import PLAIN, Policies
from sevendag_cli.sevendag.engine import (
    InitiativeReversedEvent,
    apply_heal,
    apply_wound,
    fight,
    fight_play,
    fighter_states,
    initial_state,
    play_round,
    start,
    state_from_data,
    state_to_data,
)
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
from sevendag_cli.sevendag.state import FighterState, SevendagState
from sevendag_cli.sevendag.state import check_state as _check_state

if TYPE_CHECKING:
    from sevendag_cli.backend import Choices, Fighter, Ruleset, State
    from sevendag_cli.dice import DiceSource
    from sevendag_cli.engine.common import FightPlay, FightResult, RoundResult, WoundResult


def _pair(ruleset: Ruleset, a: Fighter,
          b: Fighter) -> tuple[SevendagRuleset, SevendagFighter, SevendagFighter]:
    """The three as Sevendag records (a sheet of another ruleset: one line)."""
    return own(ruleset, SevendagRuleset), own(a, SevendagFighter), own(b, SevendagFighter)


def _state(state: State) -> SevendagState:
    return own(state, SevendagState)


class SevendagStepEngine:
    """The Sevendag step engine (:class:`sevendag_cli.backend.StepEngine`): this module's
    functions, the records narrowed to Sevendag's."""

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
        """Under policies, each round declared by the game's optimal play for the fighters
        playing optimally (:func:`.policy.fight_play`); the sheets' rules, if any, the step
        engine plays itself."""
        pair = _pair(ruleset, a, b)
        if tuple(policies) != PLAIN:
            from sevendag_cli.sevendag.policy import fight_play as policy_play

            return policy_play(*pair, dice, cap, policies)
        return fight_play(*pair, dice, cap)

    def fight_states(self, ruleset: Ruleset, a: Fighter, b: Fighter,
                     result: FightResult) -> list[State]:
        """The assaillant: the initiative's leader (S-02), then whoever a critical defence
        made it (S-14, ``initiative-reversed``)."""
        _, fa, fb = _pair(ruleset, a, b)
        leader = result.initiative.leader
        states: list[State] = [initial_state(fa, fb, leader)]
        assaillant = leader
        for r in result.rounds:
            for ev in r.events:
                if isinstance(ev, InitiativeReversedEvent):
                    assaillant = ev.assaillant
            states.append(SevendagState(r.number, assaillant, (r.states[0], r.states[1]), r.over,
                                        r.winner, r.capped))
        return states

    def state_to_data(self, state: State) -> dict[str, object]:
        return state_to_data(_state(state))

    def state_from_data(self, data: object) -> State:
        return state_from_data(data)

    def fighter_states(self, state: State) -> tuple[FighterState, ...]:
        return fighter_states(_state(state))

    def check_state(self, ruleset: Ruleset, fighters: tuple[Fighter, Fighter], state: State) -> None:
        rs, a, b = _pair(ruleset, *fighters)
        _check_state(rs, (a, b), _state(state))


STEP_ENGINE = SevendagStepEngine()
"""This engine behind :class:`sevendag_cli.backend.StepEngine`."""
