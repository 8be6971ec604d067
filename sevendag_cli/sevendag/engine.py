"""Sevendag: the step-by-step engine (S-01 .. S-20, C-01, C-02).

Pure functions from (ruleset, fighters, state, dice) to (result, new state);
every die comes from the injected :class:`~sevendag_cli.dice.DiceSource`, every
state and result is an immutable record.

This package is the engine's facade (what ``engine_for`` returns); one concern
per module:

* :mod:`.events` — what a round did (allocation, exchange, drop, wound...);
* :mod:`.state` — fighters' tracks and the encounter state, and its codec for
  the encounter file (``state_to_data`` / ``state_from_data``, which validates);
* :mod:`.planning` — the players' choices and each sheet's tactic turned into
  one plan per fighter, every choice checked before a die is rolled;
* :mod:`.attack` — what the attack dice say (S-10..S-13) and the metals (S-17);
* :mod:`.resolution` — initiative, rounds and exchanges, wounds, a whole fight.

Roll order (C-02, S-20):

* ``start``: the first-named fighter's speed roll, then the second's
  (purpose ``initiative``); on a tie, both again, until they differ.
* each exchange of a round: the attacker's attack dice in hand order
  (purpose ``attack``); on a critical failure, right away, one drop check per
  weapon that failed (purpose ``drop``, on ``drop_check_die``); then the
  defender's defence dice in hand order (purpose ``defence``).  Defence dice
  are rolled even when the attack already failed: they can still end the
  round (S-14).  A fighter with no attack dice does not attack and nobody
  rolls in that exchange.
* exchange 1: the round's first actor (the assaillant, or the défenseur when
  the assaillant yields, S-03) attacks; exchange 2: the other one, unless the
  fight is over or exchange 1 ended the round by a critical defence (S-14).

Hands are numbered from 1 (the order of ``[[hands]]`` in the sheet) in states,
events and messages.

Decisions where the rules are silent:

* **Drops (S-10, S-18).** One drop check per weapon that failed: a one-handed
  weapon whose die showed 1, a two-handed weapon whose dice both showed 1
  (one check, both hands drop), and with several attacking weapons (S-12)
  each weapon with a die on 1 — an empty hand has nothing to drop.
  A weapon dropped in round N is picked up during the next
  ``drop_recovery_rounds`` rounds: its hand(s) are committed to **nothing**
  then (neither attack nor defend empty-handed — picking the weapon up is
  what the hand does) and it is back at the end of the last of them
  (``RecoveredEvent``).  With ``drop_recovery_rounds = 0`` it is back at the
  end of the round it was dropped in.  The sheet's tactic turns such hands
  to ``none`` silently; an explicit choice asking them to attack or defend is
  refused.
* **Granted critical (S-10, ``fumble_grants_crit``).** The opponent of a
  fighter who fumbles holds one granted critical (they do not stack).  Its
  next attack that *lands* — not a failure, not foiled by a shield, and a
  margin (attack total - defence total, before any metal effect) above 0 —
  and is not already a critical hit by its dice counts as a critical hit with
  the metal of its first attacking weapon (hand order); the grant is then
  used up.  A natural critical does not use it.
* **Several attack dice (S-12).** A weapon in each hand and an empty hand
  attacking beside a weapon follow S-12 (an empty hand has no metal); so does
  any attack with more than one weapon/hand group (3-4 hands).  With a plain
  critical (highest face on some dice, not all) the metal of the first weapon
  that showed its highest face applies; with a devastating one each weapon's
  metal applies once.  A single empty hand attacking follows S-10 (a critical
  hit without metal; a critical failure without drop check).
* **Precedence (S-13).** With ``failure_beats_crit = false`` the critical wins
  entirely (no failure, no drop check).
* **Shield (S-15).** A failed attack keeps its own outcome (``failed`` /
  ``critical-failure``) even if the shield shows its highest face; otherwise
  a shield die on its highest face foils the attack, critical or not.
* **Critical defence (S-14).** The defender of that exchange becomes (or
  stays) the assaillant for the rest of the fight; ``InitiativeReversedEvent``
  is emitted only when the assaillant actually changes.  If the defender is
  out after that exchange the fight is simply over.
* **Sheet rules (S-03, S-05).** What the players leave open (``Choices``:
  ``yield_initiative`` None, a fighter left out of ``technique``) the sheets'
  rules decide (``with_sheet_rules``): the assaillant's ``yield`` rule
  (``never``; ``always``; ``behind``: its wound penalty larger than its
  opponent's), each fighter's ``technique`` rule when none is in effect
  (``attacking``: it holds the initiative at the start of the round, yield or
  not; ``defending``: it does not; ``always``).  Each choice a rule makes is a
  ``SheetRuleEvent``, first in the round.
* **Techniques (S-05).** Chosen at the start of the round (``Choices``);
  the modifiers apply to the attack and defence totals of this round and the
  next ``duration - 1``.  A fighter under a technique cannot start one.
* **Wounds (S-19).** A wound's penalty counts from the next total computed
  (so a fighter wounded in exchange 1 attacks in exchange 2 with it).
* **Healing by hand (S-16).**  ``apply_heal`` takes away the last wound
  received of the band named (or of the band of a damage amount), and its
  penalty.  Whether the fighter is out is counted again from the wounds left:
  healing the wound that took a fighter out brings them back in, and if they
  had lost, the fight goes on (``HealEvent.reopened``), as healing a defeated
  d20 fighter above 0 HP does.  A draw by the round cap stays a draw.
* **Round cap (S-19).** As in the d20 engine, ``play_round`` ends the fight as
  a draw once ``round_cap`` rounds have been played; ``fight(cap=...)`` uses
  its own cap.
* **Fight over mid-round.** Nothing more happens in that round: no second
  exchange, no recovery, no technique count-down.

This engine behind the typed interface every ruleset's step engine shares
(:class:`sevendag_cli.backend.StepEngine`, what the backend's ``engine()`` gives) is
:data:`.step.STEP_ENGINE`: beside this facade, not in it, as it hands a fight under policies
to the game's optimal play, which plays its rounds through this engine.
"""

from __future__ import annotations

from sevendag_cli.engine.common import (
    FightOverEvent,
    InitiativeEvent,
)
from sevendag_cli.sevendag.attack import (
    attack_groups,
    judge_attack,
)
from sevendag_cli.sevendag.events import (
    ASSAILLANT,
    DEFENSEUR,
    OUTCOMES,
    AllocationEvent,
    CriticalGrantedEvent,
    DropEvent,
    ExchangeEvent,
    HandCommitment,
    HealEvent,
    InitiativeReversedEvent,
    MetalEffect,
    RecoveredEvent,
    SheetRuleEvent,
    WoundEvent,
)
from sevendag_cli.sevendag.planning import (
    ATTACK,
    DEFENCE,
    NONE,
    Choices,
    allocation_for,
    check_choices,
    plan_for,
    with_sheet_rules,
)
from sevendag_cli.sevendag.resolution import (
    MAX_INITIATIVE_ATTEMPTS,
    apply_heal,
    apply_wound,
    classify,
    fight,
    fight_play,
    play_round,
    start,
)
from sevendag_cli.sevendag.state import (
    ENGINE,
    ActiveTechnique,
    DroppedWeapon,
    FighterState,
    SevendagState,
    fighter_states,
    initial_state,
    state_from_data,
    state_to_data,
)

# ``plan_for``, ``attack_groups`` and ``judge_attack`` are the engine's own rulings, shared with the
# vectorised and exact models (sevendag_cli.sevendag.model) and the tests that check them.
__all__ = [
    "ASSAILLANT",
    "ATTACK",
    "DEFENCE",
    "DEFENSEUR",
    "ENGINE",
    "MAX_INITIATIVE_ATTEMPTS",
    "NONE",
    "OUTCOMES",
    "ActiveTechnique",
    "AllocationEvent",
    "Choices",
    "CriticalGrantedEvent",
    "DropEvent",
    "DroppedWeapon",
    "ExchangeEvent",
    "FightOverEvent",
    "FighterState",
    "HandCommitment",
    "HealEvent",
    "InitiativeEvent",
    "InitiativeReversedEvent",
    "MetalEffect",
    "RecoveredEvent",
    "SevendagState",
    "SheetRuleEvent",
    "WoundEvent",
    "allocation_for",
    "apply_heal",
    "apply_wound",
    "attack_groups",
    "check_choices",
    "classify",
    "fight",
    "fight_play",
    "fighter_states",
    "initial_state",
    "judge_attack",
    "plan_for",
    "play_round",
    "start",
    "state_from_data",
    "state_to_data",
    "with_sheet_rules",
]
