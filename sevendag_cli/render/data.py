"""Result records → plain data (dicts, lists, numbers, strings) for JSON output.

One generic walk: records (``msgspec.Struct``, or a dataclass for the
simulation's results) become objects with their fields in order (an event gets
its ``type`` first, a record's ``json_properties`` after its fields), tuples
become lists, a :class:`Roll` gets its ``die``, ``highest`` and ``lowest``, a
Fraction becomes its exact text.  The JSON documents of
each command are assembled here too, so the contract lives in one place
(documented in docs/json.md, the JSON contract).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from numbers import Rational
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from sevendag_cli.dice import Roll
from sevendag_cli.engine.common import (
    Check,
    Event,
    FightPlay,
    FightResult,
    InitiativeEvent,
    RoundResult,
    WoundResult,
)
from sevendag_cli.formula import (
    CallResult,
    CompareResult,
    DiceResult,
    Die,
    FieldResult,
    NegResult,
    NumResult,
    OpResult,
    ResultNode,
)

if TYPE_CHECKING:
    from sevendag_cli.roller import RollCall, Rolled

SCHEMA_VERSION = 1


def roll_data(r: Roll) -> dict[str, Any]:
    return {"purpose": r.purpose, "die": r.die, "sides": r.sides, "face": r.face,
            "fighter": r.fighter, "highest": r.is_max, "lowest": r.is_min}


def check_data(c: Check) -> dict[str, Any]:
    return {
        "purpose": c.purpose,
        "fighter": c.fighter,
        "formula": c.formula,
        "rolls": [roll_data(r) for r in c.rolls],
        "natural": c.natural,
        "modifier": c.modifier,
        "total": c.total,
        "tree": tree_data(c.evaluated.tree) if c.evaluated is not None else None,
    }


_FIELDS: dict[type, tuple[str, ...]] = {}


def field_names(cls: type) -> tuple[str, ...]:
    """A record class's fields, in order: a Struct's, or a dataclass's (the simulation's)."""
    names = _FIELDS.get(cls)
    if names is None:
        struct_fields: tuple[str, ...] | None = getattr(cls, "__struct_fields__", None)
        if struct_fields is None:  # a dataclass: the simulation's (imported here: start-up)
            import dataclasses

            struct_fields = tuple(f.name for f in dataclasses.fields(cls))
        names = _FIELDS[cls] = struct_fields
    return names


def to_data(obj: Any) -> Any:
    """Any result object → JSON-compatible data (one converter per type, found once)."""
    convert = _CONVERTERS.get(type(obj))
    if convert is None:
        convert = _CONVERTERS[type(obj)] = _converter(type(obj))
    return convert(obj)


def _converter(cls: type) -> Callable[[Any], Any]:
    """How ``to_data`` turns an object of ``cls`` into data: a roll, a check, a fraction (exact,
    as text), a record (an event gets its ``type``, then the fields and ``json_properties``),
    a mapping, a sequence, or a plain value."""
    if issubclass(cls, Roll):
        return roll_data
    if issubclass(cls, Check):
        return check_data
    if issubclass(cls, Rational) and not issubclass(cls, int):
        return str
    if issubclass(cls, Struct) or hasattr(cls, "__dataclass_fields__"):
        kind = cls.kind if issubclass(cls, Event) else None
        names = (*field_names(cls), *getattr(cls, "json_properties", ()))

        def record(obj: Any) -> dict[str, Any]:
            out: dict[str, Any] = {"type": kind} if kind is not None else {}
            for name in names:
                value = getattr(obj, name)
                out[name] = value if type(value) in _PLAIN else to_data(value)
            return out

        return record
    if issubclass(cls, Mapping):
        return lambda obj: {str(k): to_data(v) for k, v in obj.items()}
    if issubclass(cls, tuple | list | frozenset | set):
        return lambda obj: [v if type(v) in _PLAIN else to_data(v) for v in obj]
    if cls is type(None) or issubclass(cls, bool | int | float | str):
        return _same
    raise TypeError(f"cannot render {cls.__name__} as data")  # a bug, not user error


def _same(obj: Any) -> Any:
    return obj


# The types that are data as they are (no lookup, no call: the common case of a record's field).
_PLAIN = frozenset({str, int, float, bool, type(None)})


_CONVERTERS: dict[type, Callable[[Any], Any]] = {}


def state_data(state: Any) -> dict[str, Any]:
    """A fighter's state: ``name`` plus its track (``hp`` for d20, ``wounds`` for Sevendag)."""
    data: dict[str, Any] = to_data(state)
    return data


def initiative_data(init: InitiativeEvent) -> dict[str, Any]:
    return {
        "type": "initiative",
        "attempts": [[check_data(c) for c in pair] for pair in init.attempts],
        "leader": init.leader,
        "other": init.other,
        "rules": list(init.rules),
    }


def event_data(event: Event) -> dict[str, Any]:
    if isinstance(event, InitiativeEvent):
        return initiative_data(event)
    data: dict[str, Any] = to_data(event)
    return data


def round_data(result: RoundResult) -> dict[str, Any]:
    return {
        "number": result.number,
        "elapsed_seconds": result.elapsed_seconds,
        "events": [event_data(e) for e in result.events],
        "rolls": [roll_data(r) for r in result.rolls],
        "fighters": [state_data(s) for s in result.states],
        "over": result.over,
        "winner": result.winner,
        "draw": result.over and result.winner is None and result.capped,  # not a safety stop
        "capped": result.capped,
    }


def header(command: str, ruleset: str | None, seed: int | None) -> dict[str, Any]:
    return {"schema_version": SCHEMA_VERSION, "command": command, "ruleset": ruleset, "seed": seed}


def fight_document(result: FightResult, seed: int | None) -> dict[str, Any]:
    return {
        **header("fight", result.ruleset, seed),
        "mode": "play",
        "fighters": [state_data(s) for s in result.states],
        "initiative": initiative_data(result.initiative),
        "initiative_rolls": [roll_data(r) for r in result.initiative_rolls],
        "rounds": [round_data(r) for r in result.rounds],
        "rounds_played": len(result.rounds),
        "winner": result.winner,
        "draw": result.winner is None and result.capped,  # a safety stop is not a draw
        "capped": result.capped,
    }


def fight_events(result: FightResult, seed: int | None) -> list[dict[str, Any]]:
    """``--jsonl``: one object per event, each tagged with its round (0 = initiative)."""
    return list(_fight_lines(result.ruleset, result.fighters, result.initiative, result.rounds,
                             lambda: result, seed))


def fight_event_stream(play: FightPlay, seed: int | None) -> Iterator[dict[str, Any]]:
    """:func:`fight_events` of a fight played as the lines are read (a long fight is never held)."""
    return _fight_lines(play.ruleset, play.fighters, play.initiative, play, play.result, seed)


def _fight_lines(ruleset: str, fighters: tuple[str, str], initiative: InitiativeEvent,
                 rounds: Iterable[RoundResult], final: Callable[[], FightResult],
                 seed: int | None) -> Iterator[dict[str, Any]]:
    yield {**header("fight", ruleset, seed), "type": "start", "round": 0,
           "fighters": list(fighters)}
    yield {**initiative_data(initiative), "round": 0}
    played = 0
    for rnd in rounds:
        played += 1
        yield from round_events(rnd)
    result = final()
    yield {"type": "end", "round": played, "winner": result.winner,
           "draw": result.winner is None and result.capped, "capped": result.capped,
           "fighters": [state_data(s) for s in result.states]}


def round_events(
    rnd: RoundResult, ruleset: str | None = None, seed: int | None = None
) -> list[dict[str, Any]]:
    """``round --jsonl`` (with a ``start`` line) and each round of ``fight --jsonl``: a
    ``round-start`` line, the round's events, a ``round-end`` line."""
    lines: list[dict[str, Any]] = []
    if ruleset is not None:
        lines.append({**header("round", ruleset, seed), "type": "start", "round": rnd.number})
    lines.append({"type": "round-start", "round": rnd.number})
    lines += [{**event_data(e), "round": rnd.number} for e in rnd.events]
    lines.append({"type": "round-end", "round": rnd.number, "rolls": [roll_data(r) for r in rnd.rolls],
                  "fighters": [state_data(s) for s in rnd.states], "over": rnd.over,
                  "winner": rnd.winner, "draw": rnd.over and rnd.winner is None and rnd.capped,
                  "capped": rnd.capped})
    return lines


def round_document(
    result: RoundResult, ruleset: str, seed: int | None, encounter: str
) -> dict[str, Any]:
    return {**header("round", ruleset, seed), "encounter": encounter, "round": round_data(result),
            "events": [event_data(e) for e in result.events],
            "rolls": [roll_data(r) for r in result.rolls],
            "fighters": [state_data(s) for s in result.states],
            "over": result.over, "winner": result.winner}


def init_document(
    init: InitiativeEvent, rolls: tuple[Roll, ...], states: tuple[Any, ...], ruleset: str,
    seed: int | None, encounter: str,
) -> dict[str, Any]:
    return {**header("init", ruleset, seed), "encounter": encounter,
            "initiative": initiative_data(init), "rolls": [roll_data(r) for r in rolls],
            "leader": init.leader, "fighters": [state_data(s) for s in states]}


def wound_document(result: WoundResult, ruleset: str, encounter: str) -> dict[str, Any]:
    return {**header("wound", ruleset, None), "encounter": encounter, "fighter": result.fighter,
            "amount": result.amount, "band": result.band,
            "events": [event_data(e) for e in result.events],
            "fighters": [state_data(s) for s in result.states], "over": result.over,
            "winner": result.winner}


def die_data(die: Die, modified: bool = False) -> dict[str, Any]:
    """One die of a group: its total, kept or dropped, exploded, and its rolls (first face first);
    ``modified`` (a group with ``ro``/``rr``/``mi``/``ma``): also its rerolls and forced value."""
    out = {"value": die.value, "kept": die.kept, "exploded": die.exploded,
           "rolls": [roll_data(r) for r in die.rolls]}
    if modified:
        out["rerolled"] = die.rerolled
        out["forced"] = die.forced
    return out


def tree_data(node: ResultNode) -> dict[str, Any]:
    """A formula's evaluation tree: every node with its ``type`` and ``value`` (schema: common.json)."""
    return _TREE[type(node)](node)


def _dice_data(node: DiceResult) -> dict[str, Any]:
    dice = node.dice
    select = {"mode": dice.select, "count": dice.select_count} if dice.select else None
    modified = dice.modified
    out = {"type": "dice", "value": node.value, "notation": dice.notation, "count": dice.count,
           "sides": dice.sides, "explode": dice.explode, "select": select,
           "dice": [die_data(d, modified) for d in node.rolled]}
    if dice.count_op is not None:  # roll's success counting only: fights' documents unchanged
        out["successes"] = {"op": dice.count_op, "target": dice.count_target}
    if modified:  # die modifiers only: other documents unchanged
        reroll = None if dice.reroll is None else {"mode": dice.reroll, "op": dice.reroll_op,
                                                   "target": dice.reroll_target}
        out["modifiers"] = {"reroll": reroll, "minimum": dice.minimum, "maximum": dice.maximum}
    return out


# One converter per node type (a dict, not a match: this runs for every check of a fight's JSON).
_TREE: dict[type, Callable[[Any], dict[str, Any]]] = {
    NumResult: lambda n: {"type": "number", "value": n.value},
    FieldResult: lambda n: {"type": "field", "value": n.value, "name": n.name},
    DiceResult: _dice_data,
    NegResult: lambda n: {"type": "negate", "value": n.value, "operand": tree_data(n.operand)},
    OpResult: lambda n: {"type": "operation", "value": n.value, "op": n.op, "left": tree_data(n.left),
                         "right": tree_data(n.right)},
    CallResult: lambda n: {"type": "call", "value": n.value, "function": n.function,
                           "args": [tree_data(a) for a in n.args]},
    CompareResult: lambda n: {"type": "compare", "value": n.value, "op": n.op, "left": tree_data(n.left),
                              "right": tree_data(n.right)},
}


def rolled_data(r: Rolled) -> dict[str, Any]:
    return {"label": r.label, "expression": r.expression, "rolls": [roll_data(x) for x in r.rolls],
            "total": r.total, "tree": tree_data(r.tree)}


def roll_document(call: RollCall, seed: int | None) -> dict[str, Any]:
    """``roll``: the first expression's keys at the top level (as before several were allowed),
    every expression in ``results``."""
    first = rolled_data(call.results[0])
    return {**header("roll", None, seed), "expression": first["expression"], "rolls": first["rolls"],
            "total": first["total"], "label": first["label"], "tree": first["tree"],
            "results": [first] + [rolled_data(r) for r in call.results[1:]]}


def distribution_data(d: Any) -> dict[str, Any]:
    """One expression of ``roll --odds``: its exact law (a :class:`~sevendag_cli.roll_odds.Distribution`)."""
    probabilities = d.floats
    at_least = d.at_least_floats
    mean = d.mean
    p_true = d.p_true if d.comparison else None
    return {"label": d.label, "expression": d.expression, "method": "exact",
            "distribution": [{"value": v, "probability": probabilities[i],
                              "at_least": at_least[i]} for i, v in enumerate(d.values)],
            "mean": float(mean), "mean_exact": str(mean), "sd": d.sd,
            "probability": None if p_true is None else float(p_true),
            "probability_exact": None if p_true is None else str(p_true)}


def roll_odds_document(call: Any) -> dict[str, Any]:
    """``roll --odds``: the first expression's law at the top level (as ``roll``), every one in
    ``results``; no dice are rolled, so no seed."""
    results = [distribution_data(d) for d in call.results]
    return {**header("roll", None, None), "mode": "odds", **results[0], "results": results}


# --- status and log (the saved encounter, read only) ----------------------------------------------


def status_document(
    state: Any, ruleset: Any, encounter: str, log: tuple[dict[str, Any], ...],
    seconds: int | None,
) -> dict[str, Any]:
    """``status``: the encounter's state as the table needs it (schema ``status``).

    The state record's own fields (the generic walk) — Sevendag ``round``,
    ``assaillant``, ``fighters``, ``over``, ``winner``, ``capped``; d20 the same
    with ``next_attacker`` for ``assaillant`` — and what both have in common
    (the other ruleset's key is null); ``seconds``: the game time of a round, if the
    ruleset gives one.
    """
    from sevendag_cli.history import summary

    data: dict[str, Any] = to_data(state)
    return {**header("status", ruleset.name, None), "encounter": encounter, "engine": ruleset.engine,
            "round": data["round"],
            "elapsed_seconds": state.round * seconds if seconds is not None else None,
            "assaillant": data.get("assaillant"), "next_attacker": data.get("next_attacker"),
            "fighters": data["fighters"], "over": data["over"], "winner": data["winner"],
            "draw": state.over and state.winner is None, "capped": data["capped"],
            "steps": len(log), "last_step": summary(log[-1]) if log else None}


def step_data(step: Any) -> dict[str, Any]:
    """One step of ``log --json`` (schema ``log``, ``$defs/step``): what every step has, then its own."""
    out: dict[str, Any] = {"step": step.kind, "index": step.index, "replayed": step.replayed,
                           "seed": step.seed, "rounds_played": step.round,
                           "fighters": [state_data(s) for s in step.states], "over": step.over,
                           "winner": step.winner}
    if step.kind == "init":
        init = step.initiative
        out |= {"initiative": initiative_data(init) if init is not None else None,
                "rolls": [roll_data(r) for r in step.initiative_rolls],
                "leader": step.leader}
    elif step.kind == "round":
        out |= {"number": step.round, "choices": step.choices,
                "round": round_data(step.result) if step.result is not None else None}
    else:
        out |= {"fighter": step.fighter, "amount": step.amount, "band": step.band,
                "events": [event_data(e) for e in step.result.events]}
    return out


def log_document(steps: list[Any], ruleset: str, encounter: str) -> dict[str, Any]:
    """``log --json``: every step of the encounter, played again (``steps``), and where it stands."""
    last = steps[-1]
    return {**header("log", ruleset, None), "encounter": encounter,
            "steps": [step_data(s) for s in steps], "rounds_played": last.round,
            "fighters": [state_data(s) for s in last.states], "over": last.over,
            "winner": last.winner, "draw": last.over and last.winner is None, "capped": last.capped}


def log_events(steps: list[Any], ruleset: str, encounter: str) -> list[dict[str, Any]]:
    """``log --jsonl``: a start line; per step a ``step`` line then the lines ``round --jsonl`` gives
    (the initiative; round-start, the events, round-end; a judgement's events); an end line."""
    first, last = steps[0], steps[-1]
    lines: list[dict[str, Any]] = [
        {**header("log", ruleset, None), "type": "start", "round": 0, "encounter": encounter,
         "fighters": [s.name for s in first.states]}]
    played = 0
    for step in steps:
        number = step.round if step.kind == "round" else played
        line: dict[str, Any] = {"type": "step", "round": number, "step": step.kind,
                                "index": step.index, "replayed": step.replayed, "seed": step.seed}
        if not step.replayed:  # what is known of it: the states after it
            line |= {"fighters": [state_data(s) for s in step.states], "over": step.over,
                     "winner": step.winner}
        lines.append(line)
        if step.replayed and step.kind == "init":
            lines.append({**initiative_data(step.initiative), "round": 0})
        elif step.replayed and step.kind == "round":
            lines += round_events(step.result)
        elif step.replayed:
            lines += [{**event_data(e), "round": number} for e in step.result.events]
        played = step.round
    lines.append({"type": "end", "round": last.round, "winner": last.winner,
                  "draw": last.over and last.winner is None, "capped": last.capped,
                  "fighters": [state_data(s) for s in last.states], "over": last.over})
    return lines
