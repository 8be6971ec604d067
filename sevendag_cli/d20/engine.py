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
"""

from __future__ import annotations

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
from sevendag_cli.d20.state import (
    D20FighterState,
    D20State,
    fighter_states,
    initial_state,
    state_from_data,
    state_to_data,
)
from sevendag_cli.engine.common import FightOverEvent, InitiativeEvent

__all__ = [
    "MAX_INITIATIVE_ATTEMPTS",
    "AttackEvent",
    "D20FighterState",
    "D20State",
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
