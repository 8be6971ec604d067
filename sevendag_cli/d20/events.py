"""Le combat (d20) events: the attack, the save, the damage and the hit points (D-03..D-12).

The events shared with the Sevendag engine (initiative, fight over) are in
:mod:`sevendag_cli.engine.common`.
"""

from __future__ import annotations

from typing import ClassVar

from sevendag_cli.engine.common import Check, Event


class AttackEvent(Event, frozen=True, gc=False):
    """D-03..D-07: the attack roll against AC."""

    kind: ClassVar[str] = "attack"
    attacker: str
    defender: str
    roll: Check
    ac: int
    hit: bool
    reason: str  # "natural-hit" | "natural-miss" | "beats-ac" | "below-ac"
    critical: bool
    rules: tuple[str, ...]


class SaveEvent(Event, frozen=True, gc=False):
    """D-08: the defender's save against the attacker's DD."""

    kind: ClassVar[str] = "save"
    defender: str
    attacker: str
    roll: Check
    dd: Check | None  # rolled DD (dd = roll), or None
    dd_total: int | None  # None when no DD was needed (natural 1 or 20)
    outcome: str  # "dodged" | "halved" | "failed"
    reason: str  # "natural-success" | "natural-failure" | "beats-dd" | "below-dd"
    rules: tuple[str, ...]


class DamageEvent(Event, frozen=True, gc=False):
    """D-07, D-09, D-10: damage dealt by a hit."""

    kind: ClassVar[str] = "damage"
    attacker: str
    defender: str
    weapon: str
    sets: tuple[Check, ...]
    vig: Check
    physical: int
    magic: Check | None
    vol: Check | None
    magic_damage: int
    halved: bool
    minimum_applied: bool
    total: int
    rules: tuple[str, ...]


class HitPointsEvent(Event, frozen=True, gc=False):
    """D-12: hit points after damage (or a judgement by hand)."""

    kind: ClassVar[str] = "hp"
    fighter: str
    before: int
    after: int
    defeated: bool
    rules: tuple[str, ...]
