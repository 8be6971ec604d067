"""Sevendag events: what one round (or a judgement by hand) did, in order.

Each event has a ``kind`` (its JSON ``type``) and the ``rules`` that fired.
The events shared with the d20 engine (initiative, fight over) are in
:mod:`sevendag_cli.engine.common`.
"""

from __future__ import annotations

from typing import ClassVar

from msgspec import Struct

from sevendag_cli.dice import Roll
from sevendag_cli.engine.common import Event

ASSAILLANT = "assaillant"
DEFENSEUR = "défenseur"
OUTCOMES = ("no-attack", "foiled", "wound", "failed", "critical-failure", "shield-foiled")


class HandCommitment(Struct, frozen=True, gc=False):
    """One hand's die for the round (S-04)."""

    hand: int  # numbered from 1
    die: int  # sides
    holds: str | None  # item key, None for an empty hand
    label: str | None  # the item's label
    item_kind: str  # "weapon" | "shield" | "empty"
    commitment: str  # "attack" | "defence" | "none"
    recovering: bool  # S-18: picking its weapon up


class AllocationEvent(Event, frozen=True, gc=False):
    """S-03/S-04/S-05: one fighter's commitments for the round (assaillant's first)."""

    kind: ClassVar[str] = "allocation"
    fighter: str
    role: str  # this round's role: "assaillant" | "défenseur" (swapped by a yield)
    order: int  # 1 = acts first this round
    hands: tuple[HandCommitment, ...]
    source: str  # "choice", or the sheet tactic used ("weapons-attack", ..., "custom")
    technique: str | None  # technique in effect this round
    technique_started: bool  # started this round (S-05)
    technique_rounds_left: int  # this round included; 0 without technique
    attack_modifier: int  # from the technique
    defence_modifier: int
    penalty: int  # S-19 wound penalty at the start of the round
    yielded: bool  # this fighter is the assaillant and lets the other act first (S-03)
    rules: tuple[str, ...]


class SheetRuleEvent(Event, frozen=True, gc=False):
    """S-03/S-05: a choice the fighter's sheet made by its rule, the players having left it
    open: a yield (its ``yield`` rule) or a technique started (its ``technique`` rule).

    A yield or a technique start without this event was the players' choice.
    """

    kind: ClassVar[str] = "sheet-rule"
    fighter: str
    choice: str  # "yield" | "technique"
    rule: str  # the sheet's rule: yield "always" | "behind"; technique "attacking" | ...
    technique: str | None  # the technique started (choice "technique"), else None
    penalty: int  # S-19: the fighter's wound penalty at the start of the round
    opponent_penalty: int
    rules: tuple[str, ...]


class MetalEffect(Struct, frozen=True, gc=False):
    """S-17: a weapon metal's critical effect as applied (``times`` 2 when doubled)."""

    metal: str
    item: str
    times: int
    extra_damage: int  # already multiplied
    band_shift: int  # already multiplied


class ExchangeEvent(Event, frozen=True, gc=False):
    """S-06..S-15, S-17: one attack and its defence."""

    kind: ClassVar[str] = "exchange"
    number: int  # 1 or 2 within the round
    attacker: str
    defender: str
    attack_hands: tuple[int, ...]
    defence_hands: tuple[int, ...]
    attack_rolls: tuple[Roll, ...]
    defence_rolls: tuple[Roll, ...]
    attack_constant: int
    defence_constant: int
    attack_modifier: int  # technique (S-05)
    defence_modifier: int
    attack_penalty: int  # wounds (S-19)
    defence_penalty: int
    attack_total: int | None  # None when there was no attack
    defence_total: int | None
    margin: int | None  # attack total - defence total
    outcome: str  # one of OUTCOMES
    critical: str | None  # None | "critical" | "devastating" (what the attack dice showed)
    granted_critical: bool  # the critical came from a fumble's grant (S-10)
    metals: tuple[MetalEffect, ...]  # metal effects applied to this attack (S-17)
    extra_damage: int
    damage: int  # damage dealt: > 0 only for a wound
    band: str | None  # S-07 band of the damage
    band_shift: int
    final_band: str | None  # after the metal's band shift
    critical_defence: bool  # S-14
    shield_hand: int | None  # S-15: the shield hand whose die showed its highest face
    rules: tuple[str, ...]
    initiative: str | None = None  # S-14, with a critical defence: "passes" (to the defender),
    # "kept" (the defender already held it), None (no critical defence, or the fight is over)
    attack_technique: str | None = None  # the technique behind attack_modifier (S-05)
    defence_technique: str | None = None  # the technique behind defence_modifier (S-05)


class DropEvent(Event, frozen=True, gc=False):
    """S-10/S-18: the drop check after a critical failure."""

    kind: ClassVar[str] = "drop"
    fighter: str
    item: str
    hands: tuple[int, ...]
    roll: Roll
    skill: int
    dropped: bool  # face above the skill
    recovery_rounds: int
    rules: tuple[str, ...]
    label: str = ""  # the item's label, for display


class CriticalGrantedEvent(Event, frozen=True, gc=False):
    """S-10 ``fumble_grants_crit``: a fumble grants the opponent a critical."""

    kind: ClassVar[str] = "critical-granted"
    fighter: str  # who holds the critical now
    by: str  # who fumbled
    rules: tuple[str, ...]


class WoundEvent(Event, frozen=True, gc=False):
    """S-07/S-19 (S-16 when by hand): a wound and its consequences."""

    kind: ClassVar[str] = "wound"
    fighter: str
    band: str
    damage: int | None  # None for a band given by hand
    by: str | None  # the attacker, None for a judgement by hand
    wounds: tuple[str, ...]  # all wounds now
    penalty: int  # lasting penalty now
    out: bool
    rules: tuple[str, ...]


class HealEvent(Event, frozen=True, gc=False):
    """S-16: a wound healed by the game master (the last wound of that band goes, with its penalty).

    ``reopened``: the fighter healed had lost the fight and is back in it (the fight goes on).
    """

    kind: ClassVar[str] = "heal"
    fighter: str
    band: str
    wounds: tuple[str, ...]  # all wounds now
    penalty: int  # lasting penalty now
    out: bool
    reopened: bool
    rules: tuple[str, ...]


class InitiativeReversedEvent(Event, frozen=True, gc=False):
    """S-14: the défenseur of the exchange becomes the assaillant."""

    kind: ClassVar[str] = "initiative-reversed"
    assaillant: str
    defenseur: str
    rules: tuple[str, ...]


class RecoveredEvent(Event, frozen=True, gc=False):
    """S-18: a dropped weapon is back in hand."""

    kind: ClassVar[str] = "recovered"
    fighter: str
    item: str
    hands: tuple[int, ...]
    rules: tuple[str, ...]
    label: str = ""  # the item's label, for display
