"""The encounter's history, step by step: what each step records, and replaying it.

The encounter file keeps every state (``history`` then ``state``) and one log
entry per step (``init``, ``round``, ``wound``, ``heal``).  Since format
version 2 an entry also records what the engine needs to play the step again:

* ``init`` and ``round``: ``dice``, every face rolled in roll order (from the
  generator, ``--dice`` or ``--manual`` alike); a Sevendag round also its
  ``choices`` (yield, allocations, techniques: what the players decided);
* ``wound`` and ``heal``: the judgement (``fighter``, ``amount``, ``band``),
  which rolls nothing.

The engines are deterministic, so :func:`replay` plays each step again from
the state saved before it and gets the very results that were shown at the
time (``sevendag log``).  A replay that does not give the state saved after
the step means the file was edited or damaged: one clear error.

Older files (version 1) recorded no dice: their steps are replayed where the
entry says enough — a judgement always; an ``init`` from its seed; a d20
round from its seed (it has no choices) — and otherwise shown as what is
known (the step, its seed, the states after it), marked not replayed.  Those
seed replays are checked against the saved state like the others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from sevendag_cli.dice import EnteredDice, Roll, SeededDice
from sevendag_cli.engine.common import InitiativeEvent, RecordingDice, RoundResult, WoundResult
from sevendag_cli.errors import EncounterError, Msg, SevendagError

if TYPE_CHECKING:
    from sevendag_cli.backend import StepEngine

STEPS = ("init", "round", "wound", "heal")
REPLAY_KEYS = ("dice", "choices")
"""What a log entry records for the replay (not part of what ``undo`` reports)."""


# --- what each step records ------------------------------------------------------------------


def init_entry(seed: int | None, leader: str, rolls: tuple[Roll, ...]) -> dict[str, Any]:
    return {"step": "init", "seed": seed, "leader": leader, "dice": [r.face for r in rolls]}


def round_entry(result: RoundResult, seed: int | None, choices: Any) -> dict[str, Any]:
    return {"step": "round", "round": result.number, "seed": seed,
            "dice": [r.face for r in result.rolls], "choices": choices_to_data(choices)}


def judgement_entry(result: WoundResult, heal: bool) -> dict[str, Any]:
    """A wound or a heal by hand, as given: the fighter (as the engine named them), the amount
    (a heal's is what ``--heal`` gave: d20 hit points back, Sevendag damage), or the band."""
    amount = result.amount
    if heal and amount is not None:
        amount = abs(amount)  # the d20 result counts a heal as negative damage
    return {"step": "heal" if heal else "wound", "fighter": result.fighter,
            "amount": amount, "band": result.band if amount is None else None}


def summary(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A log entry as ``undo`` reports it: without the faces and choices kept for the replay."""
    return {k: v for k, v in entry.items() if k not in REPLAY_KEYS}


def is_heal(entry: Mapping[str, Any]) -> bool:
    """A heal: a ``heal`` step, or a d20 ``wound`` with a negative amount (how heals were given)."""
    amount = entry.get("amount")
    return entry.get("step") == "heal" or (
        entry.get("step") == "wound" and isinstance(amount, int) and amount < 0)


def choices_to_data(choices: Any) -> dict[str, Any] | None:
    """A round's choices (Sevendag's ``Choices``) as plain data (none: None)."""
    if choices is None:
        return None
    # null: left to the assaillant's sheet (its yield rule, S-03)
    return {"yield": None if choices.yield_initiative is None else bool(choices.yield_initiative),
            "allocation": {k: list(v) for k, v in choices.allocation.items()},
            "technique": dict(choices.technique)}


class _Bad(Exception):
    def __init__(self, msg: Msg) -> None:
        super().__init__(str(msg))
        self.msg = msg


def choices_from_data(rs: Any, data: Any) -> Any:
    """The recorded choices back, as the ruleset's engine takes them (None stays None);
    damaged data → ``_Bad``."""
    from sevendag_cli.backend import backend_for

    try:
        return backend_for(rs).table.choices_from_data(data)
    except ValueError:
        raise _Bad(Msg("history.bad_key", key="choices")) from None


# --- replaying -----------------------------------------------------------------------------------


class Step(Struct, frozen=True):
    """One step of the encounter, played again (or, when it cannot be, what is known of it).

    ``replayed``: the results are here (``initiative`` and ``initiative_rolls`` for
    ``init``, ``result`` for the others); otherwise only the states after the step.
    ``round``: the rounds played once the step is done.  ``states``, ``over``,
    ``winner``, ``capped``: the encounter after the step (as saved).
    """

    index: int
    kind: str  # one of STEPS
    seed: int | None
    replayed: bool
    round: int
    states: tuple[Any, ...]
    over: bool
    winner: str | None
    capped: bool
    initiative: InitiativeEvent | None = None
    initiative_rolls: tuple[Roll, ...] = ()
    result: RoundResult | WoundResult | None = None
    choices: dict[str, Any] | None = None
    leader: str | None = None  # init: who won the initiative
    fighter: str | None = None  # a judgement's fighter
    amount: int | None = None
    band: str | None = None


def _int(value: Any, key: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Bad(Msg("history.bad_key", key=key))
    return value


def _faces(entry: Mapping[str, Any]) -> list[int] | None:
    faces = entry.get("dice")
    if faces is None:
        return None
    if not isinstance(faces, list):
        raise _Bad(Msg("history.bad_key", key="dice"))
    return [_int(f, "dice") for f in faces]


def _source(entry: Mapping[str, Any], kind: str, seeded: bool) -> EnteredDice | SeededDice | None:
    """The dice of a step: its recorded faces, else (version 1) its seed where that is enough."""
    faces = _faces(entry)
    if faces is not None:
        return EnteredDice(faces, option="dice")
    seed = entry.get("seed")
    if seed is None:
        return None
    seed = _int(seed, "seed")
    if kind == "init" or seeded:  # no choices to know
        try:
            return SeededDice(seed)
        except SevendagError:
            raise _Bad(Msg("history.bad_key", key="seed")) from None
    return None


def _play(kind: str, entry: Mapping[str, Any], rs: Any, a: Any, b: Any, before: Any,
          engine: StepEngine) -> tuple[Any, Any, Any] | None:
    """Play one step again: (its results, the state after), or None if the entry cannot tell."""
    if kind in ("wound", "heal"):
        fighter = entry.get("fighter")
        amount = entry.get("amount")
        band = entry.get("band")
        if not isinstance(fighter, str) or not (amount is None or isinstance(amount, int)) or not (
                band is None or isinstance(band, str)):
            raise _Bad(Msg("history.bad_key", key="fighter, amount, band"))
        apply = engine.apply_heal if kind == "heal" else engine.apply_wound
        judged, after = apply(rs, a, b, before, fighter, amount, band)
        return judged, None, after
    from sevendag_cli.backend import backend_for

    source = _source(entry, kind, backend_for(rs).table.seed_replays_round())
    if source is None:
        return None
    if kind == "init":
        rec = RecordingDice(source)
        init, after = engine.start(rs, a, b, rec)
        if isinstance(source, EnteredDice):
            source.check_all_used()
        return init, tuple(rec.rolls), after
    choices = choices_from_data(rs, entry.get("choices"))
    result, after = engine.play_round(rs, a, b, before, source, choices)
    if isinstance(source, EnteredDice):
        source.check_all_used()
    return result, None, after


def replay(enc: Any, rs: Any, a: Any, b: Any, path: object) -> list[Step]:
    """Every step of the encounter ``enc`` (a :class:`~sevendag_cli.store.SavedEncounter`), played again.

    Raises :class:`EncounterError` (the file at ``path`` is damaged) when a step's
    replay does not give the state saved after it, or its entry is damaged.
    """
    try:
        return _replay(enc, rs, a, b)
    except EncounterError as exc:
        raise EncounterError(Msg("store.damaged", path=path, detail=exc.msg)) from None


def _replay(enc: Any, rs: Any, a: Any, b: Any) -> list[Step]:
    from sevendag_cli.engine import engine_for

    engine = engine_for(rs)
    saved = [*enc.history, enc.state]
    if len(saved) != len(enc.log):
        raise EncounterError(Msg("history.unmatched", states=len(saved), steps=len(enc.log)))
    states = [engine.state_from_data(s) for s in saved]
    steps: list[Step] = []
    for i, entry in enumerate(enc.log):
        kind = entry.get("step")
        where = _where(i, entry)
        if kind not in STEPS or (kind == "init") != (i == 0):
            raise EncounterError(Msg("history.bad_step", where=where))
        after = states[i]
        try:
            played = _play(str(kind), entry, rs, a, b, states[i - 1] if i else None, engine)
        except _Bad as exc:
            raise EncounterError(Msg("history.bad_entry", where=where, detail=exc.msg)) from None
        except SevendagError as exc:
            raise EncounterError(Msg("history.not_replayed", where=where, detail=exc.msg)) from None
        if played is not None and engine.state_to_data(played[2]) != engine.state_to_data(after):
            raise EncounterError(Msg("history.not_replayed", where=where,
                                     detail=Msg("history.other_state")))
        seed = entry.get("seed")
        common: dict[str, Any] = {
            "index": i, "kind": str(kind), "seed": seed if isinstance(seed, int) else None,
            "replayed": played is not None, "round": after.round,
            "states": engine.fighter_states(after), "over": after.over, "winner": after.winner,
            "capped": after.capped,
        }
        if kind == "init":
            init = played[0] if played else None
            leader = init.leader if init is not None else entry.get("leader")
            if not isinstance(leader, str):
                raise EncounterError(Msg("history.bad_entry", where=where,
                                         detail=Msg("history.bad_key", key="leader")))
            steps.append(Step(**common, initiative=init, initiative_rolls=played[1] if played else (),
                              leader=leader))
        elif kind == "round":
            choices = entry.get("choices")
            steps.append(Step(**common, result=played[0] if played else None,
                              choices=choices if isinstance(choices, dict) else None))
        else:
            assert played is not None
            steps.append(Step(**common, result=played[0], fighter=played[0].fighter,
                              amount=played[0].amount, band=played[0].band))
    return steps


def _where(i: int, entry: Mapping[str, Any]) -> Msg:
    """The step, named for a message: ``step 3 (round 2)``."""
    kind = entry.get("step")
    if kind == "round" and isinstance(entry.get("round"), int):
        return Msg("history.step_round", n=i + 1, round=entry["round"])
    return Msg("history.step", n=i + 1, kind=str(kind))
