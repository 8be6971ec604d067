"""Random sources and roll records (C-01, C-02).

Every die the engine rolls goes through a :class:`DiceSource`.  A source only
answers "which face?" for a die of ``sides`` faces rolled for a ``purpose`` by a
``fighter``; the engine turns faces into :class:`Roll` records, so a seeded
generator, faces typed on the command line and faces asked at the terminal are
interchangeable.

The seeded generator is Python's Mersenne Twister (``random.Random``) seeded
with the integer, from which faces are drawn by rejection sampling on
``getrandbits`` — both documented and stable across Python versions, unlike
``randint``/``randrange`` whose algorithm is not guaranteed.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from sevendag_cli.errors import DiceError, UsageError

MAX_SEED = 2**63 - 1


@dataclass(frozen=True, slots=True)
class Roll:
    """One die rolled: what for, on which die, the face, and by whom."""

    purpose: str
    sides: int
    face: int
    fighter: str | None = None

    @property
    def die(self) -> str:
        return f"d{self.sides}"

    @property
    def is_max(self) -> bool:
        return self.face == self.sides

    @property
    def is_min(self) -> bool:
        return self.face == 1


class DiceSource(Protocol):
    """Anything that can tell the face of a die."""

    def face(self, sides: int, purpose: str, fighter: str | None) -> int: ...


def fresh_seed() -> int:
    """A new seed for a run without ``--seed`` (reported so it can be replayed)."""
    return int.from_bytes(os.urandom(4), "big")


def check_seed(seed: int) -> int:
    if not 0 <= seed <= MAX_SEED:
        raise UsageError(f"--seed {seed}: a seed is a whole number from 0 to {MAX_SEED}")
    return seed


class SeededDice:
    """The tool's generator: same seed, same faces, on any machine."""

    def __init__(self, seed: int) -> None:
        self.seed = check_seed(seed)
        self._rng = random.Random(seed)

    def face(self, sides: int, purpose: str, fighter: str | None) -> int:
        if sides < 1:
            raise DiceError(f"a d{sides} cannot be rolled: a die needs at least one side")
        if sides == 1:
            return 1
        bits = (sides - 1).bit_length()
        getrandbits = self._rng.getrandbits
        while True:
            r = getrandbits(bits)
            if r < sides:
                return r + 1


def describe(sides: int, purpose: str, fighter: str | None) -> str:
    who = f"{fighter}'s " if fighter else ""
    return f"d{sides} for {who}{purpose}"


def parse_faces(text: str, option: str = "--dice") -> tuple[int, ...]:
    """Parse ``"19,5,8"`` (commas and/or spaces) into faces; refuse what is not a number."""
    parts = [p for p in text.replace(",", " ").split() if p]
    faces: list[int] = []
    for i, part in enumerate(parts, start=1):
        try:
            value = int(part)
        except ValueError:
            raise DiceError(
                f"{option}: face {i} is {part!r}, not a whole number: enter faces like 19,5,8"
            ) from None
        faces.append(value)
    return tuple(faces)


class EnteredDice:
    """Faces typed in advance, consumed in roll order; then an optional fallback.

    A face is checked against the die it is used for when the engine asks for it:
    a 7 for a d6 is refused with a message naming the position and the die.
    Without a fallback, running out of faces is an error.
    """

    def __init__(
        self, faces: Iterable[int], fallback: DiceSource | None = None, option: str = "--dice"
    ) -> None:
        self._faces: Sequence[int] = tuple(faces)
        self._next = 0
        self._fallback = fallback
        self._option = option

    @property
    def consumed(self) -> int:
        return self._next

    @property
    def remaining(self) -> int:
        return len(self._faces) - self._next

    def face(self, sides: int, purpose: str, fighter: str | None) -> int:
        if self._next >= len(self._faces):
            if self._fallback is not None:
                return self._fallback.face(sides, purpose, fighter)
            raise DiceError(
                f"{self._option}: {len(self._faces)} face(s) entered but more are needed: "
                f"the next roll is a {describe(sides, purpose, fighter)}"
            )
        value = self._faces[self._next]
        if not 1 <= value <= sides:
            raise DiceError(
                f"{self._option}: face {self._next + 1} is {value}, not on the "
                f"{describe(sides, purpose, fighter)}: enter 1 to {sides}"
            )
        self._next += 1
        return value

    def check_all_used(self) -> None:
        """Refuse leftover faces: they were meant for rolls that never happened."""
        if self.remaining > 0:
            raise DiceError(
                f"{self._option}: {self.remaining} face(s) left unused after the "
                f"{self._next} needed: enter exactly the faces rolled"
            )


class ManualDice:
    """Asks for each physical die at the terminal, re-asking until the face is valid.

    ``ask`` shows a prompt and returns what was typed; ``warn`` shows why an
    answer was refused.  Both are given by the CLI, so the engine stays
    independent of any terminal library.
    """

    def __init__(self, ask: Callable[[str], str], warn: Callable[[str], None]) -> None:
        self._ask = ask
        self._warn = warn

    def face(self, sides: int, purpose: str, fighter: str | None) -> int:
        label = describe(sides, purpose, fighter)
        while True:
            raw = self._ask(label).strip()
            try:
                value = int(raw)
            except ValueError:
                self._warn(f"{raw!r} is not a number: enter a face from 1 to {sides}")
                continue
            if 1 <= value <= sides:
                return value
            self._warn(f"{value} is not on a d{sides}: enter a face from 1 to {sides}")
