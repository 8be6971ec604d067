"""Result records shared by both engines.

Results are immutable and keep every roll with its purpose, so the Rich
step-by-step display and the JSON output are two views of the same object.
Each event class has a ``kind`` (its JSON ``type``) and a ``rules`` tuple of
the rule IDs that fired (docs/rules.md), which renderers name.

Records are frozen ``msgspec.Struct`` classes (docs/development.md, "Record types"); the
ones made only of immutable data are also ``gc=False``: they can never be
part of a reference cycle, so the garbage collector need not track them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, ClassVar

from msgspec import Struct, field

from sevendag_cli.dice import DiceSource, Roll, face_noted
from sevendag_cli.errors import EncounterError, Msg, shown_value
from sevendag_cli.formula import Evaluated, Formula


def state_invalid(field: str, value: object, expected: Msg) -> EncounterError:
    """A saved state its rules or its sheets could not have reached (each ruleset's
    ``check_state``): one line naming the field, its value and what would hold there."""
    shown = ("true" if value else "false") if isinstance(value, bool) else (
        "null" if value is None else shown_value(value))
    return EncounterError(Msg("engine.state.invalid", field=field, value=shown, expected=expected))


def over_message(winner: str | None) -> Msg:
    """The fight is over (who won, or a draw): start a new one with ``sevendag init``."""
    who = Msg("engine.won", name=winner) if winner else Msg("engine.draw")
    return Msg("engine.over_who", who=who)


class RecordingDice:
    """Wraps a source and keeps every roll made through it, in order (C-02)."""

    def __init__(self, source: DiceSource) -> None:
        self.source = source
        self.rolls: list[Roll] = []

    def face(self, sides: int, purpose: str, fighter: str | None) -> int:
        value = self.source.face(sides, purpose, fighter)
        self.rolls.append(Roll(purpose, sides, value, fighter))
        return value

    def face_noted(self, sides: int, purpose: str, fighter: str | None, note: Msg) -> int:
        """A die with a note on what it is for (see :class:`~sevendag_cli.dice.NotedDice`)."""
        value = face_noted(self.source, sides, purpose, fighter, note)
        self.rolls.append(Roll(purpose, sides, value, fighter))
        return value

    def take(self) -> tuple[Roll, ...]:
        out = tuple(self.rolls)
        self.rolls.clear()
        return out


class Check(Struct, frozen=True, gc=False):
    """One formula evaluated for a fighter: the dice, the fixed part, the total."""

    purpose: str
    fighter: str
    formula: str
    rolls: tuple[Roll, ...]
    total: int
    evaluated: Evaluated | None = None  # the formula's evaluation tree, when one formula made it

    @property
    def natural(self) -> int | None:
        """The natural (D-06): the kept die of ``2d20kh1``, else the first die (formula.py)."""
        if self.evaluated is not None:
            return self.evaluated.natural
        return self.rolls[0].face if self.rolls else None

    @property
    def modifier(self) -> int:
        """Total minus the dice that count: what the formula adds to the faces."""
        dice = self.evaluated.dice_total if self.evaluated is not None else sum(r.face for r in self.rolls)
        return self.total - dice


def check(
    formula: Formula, env: Mapping[str, int], dice: DiceSource, purpose: str, fighter: str
) -> Check:
    ev: Evaluated = formula.evaluate(env, dice, purpose, fighter)
    return Check(purpose, fighter, formula.text, ev.rolls, ev.value, ev)


class Event(Struct, frozen=True, gc=False):
    """Base of every event; ``kind`` is the JSON ``type``."""

    kind: ClassVar[str] = "event"


class InitiativeEvent(Event, frozen=True, gc=False):
    """Initiative (S-02 / D-02): every attempt's checks (ties roll again), then the leader."""

    kind: ClassVar[str] = "initiative"
    attempts: tuple[tuple[Check, Check], ...]
    leader: str
    other: str
    rules: tuple[str, ...] = ()


SAFETY_LIMIT = "safety-limit"
"""A :class:`FightOverEvent`'s reason when a whole fight with no round cap is stopped at the
simulators' safety limit (:data:`sevendag_cli.limits.MAX_PLAYED_ROUNDS`): not over by the
rules, and not a draw."""


class FightOverEvent(Event, frozen=True, gc=False):
    """The fight ends: a winner and a loser, or a draw at the round cap (winner None).

    ``reason``: ``defeated`` (d20, D-12), ``out`` (Sevendag, S-19) or ``round-cap``; or
    :data:`SAFETY_LIMIT` (no winner, not a draw: a fight with no round cap stopped there).
    """

    kind: ClassVar[str] = "fight-over"
    winner: str | None
    loser: str | None
    reason: str
    rules: tuple[str, ...]


class WoundResult(Struct, frozen=True, gc=False):
    """A judgement applied by hand (S-16, the ``wound`` command)."""

    fighter: str
    amount: int | None
    band: str | None
    events: tuple[Event, ...]
    states: tuple[Any, ...]
    over: bool
    winner: str | None


class RoundResult(Struct, frozen=True, gc=False):
    """One round: its events in order, every roll in order, the states after it."""

    number: int
    events: tuple[Event, ...]
    rolls: tuple[Roll, ...]
    states: tuple[Any, ...]
    over: bool
    winner: str | None
    elapsed_seconds: int | None = None
    capped: bool = False


class FightResult(Struct, frozen=True):
    """A whole fight: the initiative, every round, the winner (None for a draw)."""

    ruleset: str
    fighters: tuple[str, str]
    initiative: InitiativeEvent
    initiative_rolls: tuple[Roll, ...]
    rounds: tuple[RoundResult, ...]
    winner: str | None
    capped: bool
    states: tuple[Any, ...]
    extra: Mapping[str, Any] = field(default_factory=dict)


class FightPlay:
    """A whole fight, played round by round as it is iterated (a long fight is never held).

    The initiative is rolled when the play is made; iterating plays the rounds
    one at a time (each :class:`RoundResult` can be shown or written, then
    dropped); :meth:`result` then gives the :class:`FightResult`, holding the
    rounds it is given (none by default).  ``played`` counts the rounds and
    ``last`` is the last one.  The engines' ``fight`` is ``fight_play(...).collect()``.
    """

    def __init__(
        self,
        ruleset: str,
        fighters: tuple[str, str],
        initiative: InitiativeEvent,
        initiative_rolls: tuple[Roll, ...],
        state: Any,
        step: Callable[[Any], tuple[RoundResult, Any]],
        extra: Callable[[Any], Mapping[str, Any]] | None = None,
    ) -> None:
        self.ruleset = ruleset
        self.fighters = fighters
        self.initiative = initiative
        self.initiative_rolls = initiative_rolls
        self.state = state
        self.played = 0
        self.last: RoundResult | None = None
        self._step = step
        self._extra = extra

    def __iter__(self) -> Iterator[RoundResult]:
        while not self.state.over:
            result, self.state = self._step(self.state)
            self.played += 1
            self.last = result
            yield result

    def result(self, rounds: tuple[RoundResult, ...] = ()) -> FightResult:
        """The fight's record once played (the rounds given, if kept)."""
        state = self.state
        extra = dict(self._extra(state)) if self._extra is not None else {}
        return FightResult(self.ruleset, self.fighters, self.initiative, self.initiative_rolls,
                           rounds, state.winner, state.capped, state.fighters, extra=extra)

    def collect(self) -> FightResult:
        """Play every round and keep them all."""
        rounds = tuple(self)
        return self.result(rounds)
