"""Random sources and roll records (C-01, C-02).

Every die the engine rolls goes through a :class:`DiceSource`.  A source only
answers "which face?" for a die of ``sides`` faces rolled for a ``purpose`` by a
``fighter``; the engine turns faces into :class:`Roll` records, so a seeded
generator, faces typed on the command line and faces asked at the terminal are
interchangeable.

The seeded generator is Python's Mersenne Twister (``random.Random``) seeded
with the integer, from which faces are drawn by rejection sampling on
``getrandbits`` — both documented and stable across Python versions, unlike
``randint``/``randrange`` whose algorithm is not guaranteed.  It is built from
``random.Random``'s base, ``_random.Random``: for an integer seed, the very
generator and stream (a test compares them), without importing :mod:`random`
(its imports and tables: about a millisecond of start-up).
"""

from __future__ import annotations

import os
from _random import Random  # random.Random's base: the same generator (see above)
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

import msgspec

from sevendag_cli.errors import DiceError, Msg, UsageError, shown_value
from sevendag_cli.text import ascii_int

MAX_SEED = 2**63 - 1


class Roll(msgspec.Struct, frozen=True):
    """One die rolled: what for, on which die, the face, and by whom.

    A roll is one face: a die that explodes (``3d6!``) makes one roll per face,
    and whether a die was kept or dropped (``4d6kh3``) belongs to the formula's
    evaluation tree (:mod:`sevendag_cli.formula`), not to the roll.
    """

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


class NotedDice:
    """A source seen with a note on what its dice are for, e.g. a critical's extra damage set.

    The roll keeps its purpose (``damage``); a source that shows or asks for the die
    (``--manual``, ``--dice`` errors) has a ``face_noted`` method and says the note too:
    ``d8 for B's damage (critical, set 2 of 2)``.  Other sources just give the face.
    """

    def __init__(self, source: DiceSource, note: Msg) -> None:
        self.source = source
        self.note = note

    def face(self, sides: int, purpose: str, fighter: str | None) -> int:
        noted = getattr(self.source, "face_noted", None)
        if noted is None:
            return self.source.face(sides, purpose, fighter)
        value: int = noted(sides, purpose, fighter, self.note)
        return value


def face_noted(source: DiceSource, sides: int, purpose: str, fighter: str | None,
               note: Msg | None) -> int:
    """A face from ``source``, passing the note on when the source takes one."""
    noted = getattr(source, "face_noted", None) if note is not None else None
    if noted is None:
        return source.face(sides, purpose, fighter)
    value: int = noted(sides, purpose, fighter, note)
    return value


def fresh_seed() -> int:
    """A new seed for a run without ``--seed`` (reported so it can be replayed)."""
    return int.from_bytes(os.urandom(4), "big")


def check_seed(seed: int) -> int:
    if not 0 <= seed <= MAX_SEED:
        raise UsageError(Msg("dice.seed_range", seed=seed, max=MAX_SEED))
    return seed


class SeededDice:
    """The tool's generator: same seed, same faces, on any machine."""

    def __init__(self, seed: int) -> None:
        self.seed = check_seed(seed)
        self._rng = Random(seed)

    def face(self, sides: int, purpose: str, fighter: str | None) -> int:
        if sides < 1:
            raise DiceError(Msg("dice.no_sides", sides=sides))
        if sides == 1:
            return 1
        bits = (sides - 1).bit_length()
        getrandbits = self._rng.getrandbits
        while True:
            r = getrandbits(bits)
            if r < sides:
                return r + 1


PURPOSES = frozenset(
    {"initiative", "attack", "defence", "drop", "save", "dd", "damage", "magic", "vig", "vol",
     "ability", "roll"}
)
"""The purposes the engines roll for (each has a label in the message catalogue)."""


def describe_msg(sides: int, purpose: str, fighter: str | None, note: Msg | None = None) -> Msg:
    """``d6 for A's damage`` / ``d6 pour les dégâts de A``, in words: ``d20 for B's difficulty
    (DD) roll``; with a note, ``d8 for B's damage (critical, set 2 of 2)``."""
    what: object = Msg(f"dice.purpose.{purpose}") if purpose in PURPOSES else purpose
    if fighter:
        msg = Msg("dice.roll_by", sides=sides, purpose=what, fighter=fighter)
    else:
        msg = Msg("dice.roll", sides=sides, purpose=what)
    return msg if note is None else Msg("dice.noted", roll=msg, note=note)


def describe(sides: int, purpose: str, fighter: str | None, lang: str = "en",
             note: Msg | None = None) -> str:
    return describe_msg(sides, purpose, fighter, note).render(lang)


def parse_faces(text: str, option: str = "--dice") -> tuple[int, ...]:
    """Parse ``"19,5,8"`` (commas and/or spaces) into faces; refuse what is not a number."""
    parts = [p for p in text.replace(",", " ").split() if p]
    faces: list[int] = []
    for i, part in enumerate(parts, start=1):
        try:
            value = ascii_int(part)
        except ValueError:
            raise DiceError(Msg("dice.not_whole", option=option, i=i, text=part)) from None
        faces.append(value)
    return tuple(faces)


class CallerDice:
    """A dice source a library caller gave (``fight(dice=my_source)``): each face it gives is
    checked as entered faces are — a whole number on the die — since nothing else checked it
    (a 100 on a d20 was played, a ``"x"`` failed deep inside)."""

    def __init__(self, source: DiceSource) -> None:
        self.source = source

    def face(self, sides: int, purpose: str, fighter: str | None) -> int:
        return self.face_noted(sides, purpose, fighter, None)

    def face_noted(self, sides: int, purpose: str, fighter: str | None, note: Msg | None) -> int:
        value: object = face_noted(self.source, sides, purpose, fighter, note)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= sides:
            raise DiceError(Msg("dice.source_off_die", value=shown_value(value), sides=sides,
                                roll=describe_msg(sides, purpose, fighter, note)))
        return value


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
        return self.face_noted(sides, purpose, fighter, None)

    def face_noted(self, sides: int, purpose: str, fighter: str | None, note: Msg | None) -> int:
        if self._next >= len(self._faces):
            if self._fallback is not None:
                return face_noted(self._fallback, sides, purpose, fighter, note)
            raise DiceError(Msg("dice.too_few", option=self._option, count=len(self._faces),
                                roll=describe_msg(sides, purpose, fighter, note)))
        value = self._faces[self._next]
        if not 1 <= value <= sides:
            raise DiceError(Msg("dice.off_die", option=self._option, i=self._next + 1, value=value,
                                roll=describe_msg(sides, purpose, fighter, note), sides=sides))
        self._next += 1
        return value

    def check_all_used(self) -> None:
        """Refuse leftover faces: they were meant for rolls that never happened."""
        if self.remaining > 0:
            raise DiceError(Msg("dice.unused", option=self._option, remaining=self.remaining,
                                needed=self._next))


class ManualDice:
    """Asks for each physical die at the terminal, re-asking until the face is valid.

    ``ask`` shows a prompt (the die and what it is for, e.g. ``d6 for A's damage``)
    and returns what was typed; ``warn`` shows why an answer was refused.  Both
    are given by the CLI, so the engine stays independent of any terminal
    library; ``lang`` is the language of the label and of the refusals.
    ``only``: the fighters whose dice are asked (the players who roll their own);
    the others' dice come from ``others`` (the seeded generator).
    """

    def __init__(
        self, ask: Callable[[str], str], warn: Callable[[str], None], lang: str = "en",
        only: Iterable[str] | None = None, others: DiceSource | None = None,
    ) -> None:
        self._ask = ask
        self._warn = warn
        self._lang = lang
        self._only = frozenset(only) if only is not None else None
        self._others = others

    def asks_for(self, fighter: str | None) -> bool:
        """Whether this fighter's dice are asked (``only``: the players rolling their own; every
        die when None)."""
        return self._only is None or fighter in self._only

    def face(self, sides: int, purpose: str, fighter: str | None) -> int:
        return self.face_noted(sides, purpose, fighter, None)

    def face_noted(self, sides: int, purpose: str, fighter: str | None, note: Msg | None) -> int:
        if not self.asks_for(fighter) and self._others is not None:  # rolled by the tool
            return face_noted(self._others, sides, purpose, fighter, note)
        label = describe(sides, purpose, fighter, self._lang, note)
        while True:
            raw = self._ask(label).strip()
            try:
                value = ascii_int(raw)
            except ValueError:
                self._warn(Msg("dice.manual_not_number", text=raw, sides=sides).render(self._lang))
                continue
            if 1 <= value <= sides:
                return value
            self._warn(Msg("dice.manual_off_die", value=value, sides=sides).render(self._lang))
