"""One source for the JSON contract: every record that reaches JSON matches its schema, both ways.

The JSON Schemas in ``sevendag_cli/schemas`` are written by hand (they say what a
type cannot: a capped fight is a draw, d20 rolls carry d20 purposes...).  This
module checks them against the record types, so that a field cannot be added in
one place and forgotten in the other:

* the record classes are found by walking the engine packages (every record
  class they define, every subclass of ``Event``) and then every record a
  rendered record's fields can hold; each must either map to its schema
  definition(s) in ``CONTRACT`` or be named in ``INTERNAL`` with the reason it
  never reaches JSON.  An event class can never be internal;
* for every mapped class and each place it is rendered, the keys the renderer
  writes — the fields, plus ``type`` for an event and the class's
  ``json_properties``, or the stated changes of a hand-written renderer — equal
  the schema definition's properties: a field missing from the schema fails, and
  so does a schema property that no field gives;
* real results from both engines, the simulation and ``rulesets show`` are
  rendered and their keys compared with the same expectations, so this table
  cannot drift from the renderers either.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import inspect
import json
import pkgutil
import typing
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from msgspec import Struct
from msgspec.structs import fields as struct_fields

import sevendag_cli.engine
from sevendag_cli.d20 import engine as d20
from sevendag_cli.d20.rules import DDBand
from sevendag_cli.d20.sim_extra import D20Extra
from sevendag_cli.dice import Roll, SeededDice
from sevendag_cli.engine import engine_for
from sevendag_cli.engine.common import Check, Event, FightResult, InitiativeEvent, RoundResult, WoundResult
from sevendag_cli.history import Step
from sevendag_cli.library import Fight, Simulation
from sevendag_cli.render import data as render
from sevendag_cli.rules import load_pair, load_ruleset
from sevendag_cli.sevendag import engine as sevendag
from sevendag_cli.sevendag.rules import Metal, Technique, WoundBand
from sevendag_cli.sevendag.sim_extra import SevendagExtra
from sevendag_cli.sim.runner import SimulationResult, simulate
from sevendag_cli.sim.swing import FighterOdds, OddsPoint, OddsSwing
from tests.catalogue import check_every
from tests.helpers import run_json

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "sevendag_cli" / "schemas"
HEADER = frozenset({"schema_version", "command", "ruleset", "seed"})
STATUS_ADDED = frozenset({"encounter", "engine", "elapsed_seconds", "draw", "steps", "last_step"})
ODDS_BASIS = frozenset({"cap", "tolerance", "assumes", "policies"})
POLICIES = frozenset({"policies"})
"""How each fighter played, added to every fight document."""
ODDS_ADDED = frozenset({"encounter", "engine", "rounds_left", "stop", "over", "winner", "draw_bounds",
                        "note"})


@dataclasses.dataclass(frozen=True)
class View:
    """One place a record is rendered: the schema definition(s) it must match, and how.

    ``where``: ``"file.json#/json/pointer"`` (several for a record rendered the same
    way under several definitions, e.g. the d20 and Sevendag variants).
    ``added``/``renamed``/``omitted``: what a hand-written renderer does beyond the
    generic walk (``render.data.to_data``), which writes the fields in order, ``type``
    first for an event and the class's ``json_properties`` last.  ``optional``: keys the
    schema declares that the renderer adds only sometimes (``changes``: with what-ifs).
    """

    where: tuple[str, ...]
    added: frozenset[str] = frozenset()
    renamed: tuple[tuple[str, str], ...] = ()
    omitted: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()


def view(*where: str, added: set[str] | frozenset[str] = frozenset(), renamed: dict[str, str] | None = None,
         omitted: set[str] | frozenset[str] = frozenset(),
         optional: set[str] | frozenset[str] = frozenset()) -> View:
    return View(tuple(where), frozenset(added), tuple((renamed or {}).items()), frozenset(omitted),
                frozenset(optional))


WHAT_IF = frozenset({"changes"})
"""Written only when --set or --tactic changed a sheet (rules/whatif.py)."""


C = "common.json#/$defs/"
STEP_RENAMED = {"kind": "step", "round": "rounds_played", "states": "fighters"}

# Every record class that reaches JSON, with the schema definition(s) it is rendered as.
CONTRACT: dict[type, tuple[View, ...]] = {
    # dice and checks (render.data.roll_data / check_data)
    Roll: (view(C + "roll", C + "d20Roll", C + "sevendagRoll", added={"die", "highest", "lowest"}),),
    # (check_data writes the evaluation's tree by hand, as roll's: common.json#/$defs/formulaTree)
    Check: (view(C + "check", C + "d20Check", C + "initiativeCheck",
                  added={"natural", "modifier", "tree"}, omitted={"evaluated"}),),
    # events shared by both engines
    InitiativeEvent: (view(C + "initiativeEvent"),),
    sevendag.FightOverEvent: (view(C + "d20FightOverEvent", C + "sevendagFightOverEvent"),),
    # d20
    d20.AttackEvent: (view(C + "d20AttackEvent"),),
    d20.SaveEvent: (view(C + "d20SaveEvent"),),
    d20.DamageEvent: (view(C + "d20DamageEvent"),),
    d20.HitPointsEvent: (view(C + "d20HpEvent"),),
    d20.D20FighterState: (view(C + "d20FighterState"),),
    # Sevendag
    sevendag.AllocationEvent: (view(C + "sevendagAllocationEvent"),),
    sevendag.HandCommitment: (view(C + "sevendagAllocationEvent/properties/hands/items"),),
    sevendag.ExchangeEvent: (view(C + "sevendagExchangeEvent"),),
    sevendag.MetalEffect: (view(C + "sevendagExchangeEvent/properties/metals/items"),),
    sevendag.DropEvent: (view(C + "sevendagDropEvent"),),
    sevendag.CriticalGrantedEvent: (view(C + "sevendagCriticalGrantedEvent"),),
    sevendag.WoundEvent: (view(C + "sevendagWoundEvent"),),
    sevendag.HealEvent: (view(C + "sevendagHealEvent"),),
    sevendag.InitiativeReversedEvent: (view(C + "sevendagInitiativeReversedEvent"),),
    sevendag.RecoveredEvent: (view(C + "sevendagRecoveredEvent"),),
    sevendag.SheetRuleEvent: (view(C + "sevendagSheetRuleEvent"),),
    sevendag.FighterState: (view(C + "sevendagFighterState"),),
    sevendag.ActiveTechnique: (view(C + "sevendagFighterState/properties/technique/oneOf/0"),),
    sevendag.DroppedWeapon: (view(C + "sevendagFighterState/properties/dropped/items"),),
    # the encounter's state: status --json (the generic walk, plus what both rulesets share) and
    # the encounter file (state_to_data)
    sevendag.SevendagState: (
        view("status.json#", added=HEADER | STATUS_ADDED | {"next_attacker"}),
        view("encounter.json#/$defs/sevendagState", added={"engine"}),
    ),
    d20.D20State: (
        view("status.json#", added=HEADER | STATUS_ADDED | {"assaillant"}),
        view("encounter.json#/$defs/d20State"),
    ),
    # results, assembled into documents by hand (render.data)
    RoundResult: (
        view(C + "d20Round", C + "sevendagRound", added={"draw"}, renamed={"states": "fighters"}),
        view("round-event.json#/$defs/roundEnd", added={"type", "round", "draw"},
             renamed={"states": "fighters"}, omitted={"number", "events", "elapsed_seconds"}),
    ),
    WoundResult: (view("wound.json#", added=HEADER | {"encounter"}, renamed={"states": "fighters"}),),
    FightResult: (
        view("fight.json#", added=HEADER | POLICIES | {"mode", "rounds_played", "draw"},
             renamed={"states": "fighters"}, omitted={"fighters", "extra"}, optional=WHAT_IF),
        view("fight-event.json#/$defs/start", added=HEADER | POLICIES | {"type", "round"},
             omitted={"ruleset", "initiative", "initiative_rolls", "rounds", "winner", "capped", "states",
                      "extra"}, optional=WHAT_IF),
        view("fight-event.json#/$defs/end", added={"type", "round", "draw"}, renamed={"states": "fighters"},
             omitted={"ruleset", "fighters", "initiative", "initiative_rolls", "rounds", "extra"}),
    ),
    # the steps of log --json and log --jsonl (render.data.step_data, log_events), by kind
    Step: (
        view("log.json#/$defs/initStep", renamed=STEP_RENAMED | {"initiative_rolls": "rolls"},
             omitted={"capped", "result", "choices", "fighter", "amount", "band"}),
        view("log.json#/$defs/roundStep", renamed=STEP_RENAMED | {"result": "round"}, added={"number"},
             omitted={"capped", "initiative", "initiative_rolls", "leader", "fighter", "amount", "band"}),
        view("log.json#/$defs/judgementStep", renamed=STEP_RENAMED, added={"events"},
             omitted={"capped", "initiative", "initiative_rolls", "leader", "choices", "result"}),
        view("log-event.json#/$defs/step", renamed={"kind": "step", "states": "fighters"}, added={"type"},
             omitted={"capped", "initiative", "initiative_rolls", "leader", "choices", "result", "fighter",
                      "amount", "band"}),
    ),
    # the odds from any moment (render.odds_data): each fighter's, one moment's, a fight's swing
    FighterOdds: (view(C + "fighterOdds"),),
    OddsPoint: (
        view(C + "oddsPoint"),
        view("fight-event.json#/$defs/odds", added=ODDS_BASIS - POLICIES | {"type"}),
        view("odds.json#", added=HEADER | ODDS_BASIS | ODDS_ADDED, omitted={"moment"},
             optional=WHAT_IF),
    ),
    OddsSwing: (view("fight.json#/$defs/odds", renamed={"points": "odds"}),),
    # the simulation's results (fight --runs --json: the header, the mode, then the generic walk)
    # (its ``extras``, the ruleset's own record, written under each engine's name: by_engine)
    SimulationResult: (view("fight-runs.json#", added=HEADER | POLICIES | {"mode", "d20", "sevendag"},
                            omitted={"extras"}, optional=WHAT_IF),),
    # the ruleset's tables (rulesets show --json, one object per record)
    WoundBand: (view("rulesets-show.json#/allOf/0/else/properties/wounds/items"),),
    Metal: (view("rulesets-show.json#/allOf/0/else/properties/metals/additionalProperties"),),
    Technique: (view("rulesets-show.json#/allOf/0/else/properties/techniques/additionalProperties"),),
    DDBand: (view("rulesets-show.json#/allOf/0/then/properties/dd_table/items"),),
}

# The nested records of the simulation's result: found from SimulationResult's fields and each
# ruleset's own record of its extras (EXTRAS), mapped here by class name (names are what the
# schema follows).
NESTED_BY_NAME: dict[str, tuple[View, ...]] = {
    "FighterStats": (view("fight-runs.json#/properties/fighters/items"),),
    "RoundStats": (view("fight-runs.json#/properties/rounds"),),
    "D20Extra": (view("fight-runs.json#/properties/d20/oneOf/0"),),
    "D20FighterExtra": (view("fight-runs.json#/properties/d20/oneOf/0/properties/fighters/items"),),
    "MeanSd": (view("fight-runs.json#/properties/d20/oneOf/0/properties/fighters/items/properties/"
                    "hp_left_when_winning"),),
    "SevendagExtra": (view("fight-runs.json#/properties/sevendag/oneOf/0"),),
    "SevendagFighterExtra": (view("fight-runs.json#/properties/sevendag/oneOf/0/properties/fighters/items"),),
    "BandStats": (view("fight-runs.json#/properties/sevendag/oneOf/0/properties/fighters/items/properties/"
                       "wounds/items"),),
}

EXTRAS: tuple[type, ...] = (D20Extra, SevendagExtra)
"""Each ruleset's own record of ``fight --runs`` (``SimulationResult.extras``, typed by a
Protocol the walk cannot follow)."""

# Engine records that never reach a JSON output, and why.
INTERNAL: dict[str, str] = {
    "sevendag_cli.sevendag.planning.Choices": "the players' input to play_round",
    "sevendag_cli.sevendag.planning.Plan": "a fighter's plan while a round is played",
    "sevendag_cli.sevendag.planning.Option": "one fighter's declaration, as the game and advise "
                                             "list them (advise's JSON writes its parts)",
    "sevendag_cli.sevendag.attack.AttackGroup": "attack dice grouped by weapon, while judged",
    "sevendag_cli.sevendag.attack.AttackVerdict": "what the attack dice say, before the event",
    "sevendag_cli.sevendag.attack.DiceReading": "attack dice read on bit masks (S-10..S-13), "
                                                "before the verdict or a simulator's table",
}


# --- finding the record classes ---------------------------------------------------------------


def is_record_class(obj: object) -> bool:
    return inspect.isclass(obj) and (
        (issubclass(obj, Struct) and obj is not Struct) or dataclasses.is_dataclass(obj)
    )


def qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def engine_modules() -> Iterator[ModuleType]:
    yield sevendag_cli.engine
    for info in pkgutil.walk_packages(sevendag_cli.engine.__path__, "sevendag_cli.engine."):
        yield importlib.import_module(info.name)
    for package in ("d20", "sevendag"):  # each ruleset's step engine lives in its own package
        for name in ("engine", "events", "state", "resolution", "planning", "attack"):
            with contextlib.suppress(ModuleNotFoundError):
                yield importlib.import_module(f"sevendag_cli.{package}.{name}")


def engine_records() -> set[type]:
    """Every record class the engine packages define, and every Event subclass the tool
    defines (not a test's: the third ruleset of ``tests/fake_ruleset.py`` has its own)."""
    found: set[type] = set()
    for module in engine_modules():
        for _, obj in inspect.getmembers(module, is_record_class):
            if obj.__module__ == module.__name__:
                found.add(obj)
    stack = [Event]
    while stack:
        cls = stack.pop()
        if cls.__module__.startswith("sevendag_cli."):
            found.add(cls)
        stack += cls.__subclasses__()
    return found


def field_types(cls: type) -> dict[str, Any]:
    if issubclass(cls, Struct):
        return {f.name: f.type for f in struct_fields(cls)}
    return typing.get_type_hints(cls)


def records_in(tp: Any) -> Iterator[type]:
    """The record classes a field's type can hold (through tuples, unions, mappings...)."""
    if is_record_class(tp):
        yield tp
    for arg in typing.get_args(tp):
        yield from records_in(arg)


def field_names(cls: type) -> tuple[str, ...]:
    if issubclass(cls, Struct):
        return cls.__struct_fields__
    return tuple(f.name for f in dataclasses.fields(typing.cast(Any, cls)))


@cache
def contract() -> dict[type, tuple[View, ...]]:
    """CONTRACT, plus the simulation's nested records found from SimulationResult's fields."""
    out = dict(CONTRACT)
    out.update({cls: NESTED_BY_NAME[cls.__name__] for cls in EXTRAS})
    stack: list[type] = [SimulationResult, *EXTRAS]
    while stack:
        for tp in field_types(stack.pop()).values():
            for rec in records_in(tp):
                if rec not in out and rec.__name__ in NESTED_BY_NAME:
                    out[rec] = NESTED_BY_NAME[rec.__name__]
                    stack.append(rec)
    return out


def rendered_keys(cls: type, v: View) -> set[str]:
    """The keys the renderer writes for a record of ``cls`` in this view."""
    renamed = dict(v.renamed)
    keys = {renamed.get(f, f) for f in field_names(cls) if f not in v.omitted}
    if issubclass(cls, Event):
        keys.add("type")
    keys |= set(getattr(cls, "json_properties", ()))
    return keys | v.added


# --- reading the schemas -------------------------------------------------------------------------


@cache
def schema(name: str) -> Any:
    return json.loads((SCHEMA_DIR / name).read_text("utf-8"))


def resolve(ref: str, base: str) -> tuple[Any, str]:
    file, _, pointer = ref.partition("#")
    file = file or base
    node = schema(file)
    for part in filter(None, pointer.split("/")):
        node = node[int(part)] if isinstance(node, list) else node[part.replace("~1", "/").replace("~0", "~")]
    return node, file


def properties(node: Any, base: str) -> set[str]:
    """The property names a definition declares: its own, its ``$ref``'s and its ``allOf``'s."""
    out: set[str] = set(node.get("properties", {}))
    if "$ref" in node:
        out |= properties(*resolve(node["$ref"], base))
    for sub in node.get("allOf", []):
        out |= properties(sub, base)
    return out


def schema_properties(where: str) -> set[str]:
    node, base = resolve(where, where.partition("#")[0])
    return properties(node, base)


# --- the table covers every record --------------------------------------------------------------


def test_every_engine_record_is_in_the_contract_or_said_internal() -> None:
    records = engine_records()
    assert Event in records and len(records) > 20  # the walk found the engines' records
    table = contract()
    internal = set(INTERNAL)
    missing = sorted(qualname(c) for c in records
                     if c not in table and qualname(c) not in internal and c is not Event)
    assert not missing, f"engine records with no schema mapping (CONTRACT) nor reason (INTERNAL): {missing}"
    stale = sorted(internal - {qualname(c) for c in records})
    assert not stale, f"INTERNAL names classes the engines no longer define: {stale}"


def test_no_event_class_is_internal() -> None:
    events = [c for c in engine_records() if issubclass(c, Event) and c is not Event]
    assert len(events) >= 13
    assert not [qualname(c) for c in events if qualname(c) in INTERNAL]
    assert not [qualname(c) for c in events if c not in contract()]


def test_every_record_a_rendered_record_holds_is_in_the_contract() -> None:
    table = contract()
    assert {"FighterStats", "RoundStats", "MeanSd", "BandStats"} <= {c.__name__ for c in table}
    unmapped: list[str] = []
    for cls in table:
        never_rendered = frozenset.intersection(*(v.omitted for v in table[cls]))
        for name, tp in field_types(cls).items():
            if name in never_rendered:
                continue
            # ``Event`` itself is abstract: each of its subclasses is checked above
            unmapped += [f"{qualname(cls)}.{name}: {qualname(rec)}" for rec in records_in(tp)
                         if rec not in table and rec is not Event]
    assert not unmapped, f"records reached through rendered fields, with no schema mapping: {unmapped}"


def test_every_event_kind_is_the_type_its_schema_names() -> None:
    for cls, views in CONTRACT.items():
        if not issubclass(cls, Event):
            continue
        for where in views[0].where:
            node, _ = resolve(where, where.partition("#")[0])
            assert node["properties"]["type"] == {"const": cls.kind}, (qualname(cls), where)


# --- fields against schema properties, both ways --------------------------------------------------


def contract_cases() -> list[tuple[type, View, str]]:
    return [(cls, v, where) for cls, views in contract().items() for v in views for where in v.where]


def case_id(case: tuple[type, View, str]) -> str:
    cls, _v, where = case
    return f"{cls.__name__} at {where}"


def test_record_fields_and_schema_properties_agree() -> None:
    def check(case: tuple[type, View, str]) -> None:
        cls, v, where = case
        keys = rendered_keys(cls, v)
        props = schema_properties(where)
        assert props, f"{where}: no properties found (a wrong pointer?)"
        extra = keys - props
        assert not extra, f"{qualname(cls)} renders {sorted(extra)}, which {where} does not declare"
        missing = props - keys - v.optional
        assert not missing, f"{where} declares {sorted(missing)}, which {qualname(cls)} does not render"

    check_every(contract_cases(), check, name=case_id)


def test_the_check_fails_both_ways() -> None:
    """A field the schema lacks and a property no field gives are both caught."""

    class Extra(Struct, frozen=True):
        purpose: str
        fighter: str
        formula: str
        rolls: tuple[Roll, ...]
        total: int
        bonus: int

    props = schema_properties(C + "check")
    assert rendered_keys(Extra, CONTRACT[Check][0]) - props == {"bonus"}

    class Fewer(Struct, frozen=True):
        purpose: str
        fighter: str
        formula: str
        rolls: tuple[Roll, ...]

    assert props - rendered_keys(Fewer, CONTRACT[Check][0]) == {"total"}


# --- the renderers write exactly those keys ----------------------------------------------------


def instances(obj: Any, out: dict[type, list[Any]]) -> dict[type, list[Any]]:
    """Every record inside a result, by class."""
    if is_record_class(type(obj)):
        out.setdefault(type(obj), []).append(obj)
        for name in field_names(type(obj)):
            instances(getattr(obj, name), out)
    elif isinstance(obj, tuple | list):
        for x in obj:
            instances(x, out)
    elif isinstance(obj, dict):
        for x in obj.values():
            instances(x, out)
    return out


@cache
def played() -> tuple[dict[type, list[Any]], list[tuple[str, dict[str, Any], FightResult]]]:
    """Records from real fights of both rulesets (several seeds, a fumble-granting variant)."""
    from msgspec.structs import replace

    found: dict[type, list[Any]] = {}
    fights: list[tuple[str, dict[str, Any], FightResult]] = []
    for name in ("d20", "sevendag"):
        rs = load_ruleset(name)
        variants = [rs]
        if name == "sevendag":
            variants.append(replace(rs, fumble_grants_crit=True, drop_recovery_rounds=2))
        a, b = load_pair(rs, None)
        for rsv in variants:
            for seed in range(1, 13):
                result = engine_for(rsv).fight(rsv, a, b, SeededDice(seed), cap=40)
                instances(result, found)
                doc = Fight(result, seed).to_dict()  # what fight --json writes
                fights.append((name, doc, result))
        if name == "sevendag":  # a sheet's yield rule (S-03): sheet-rule events
            ruled = replace(a, yield_rule="always")
            for seed in range(1, 4):
                result = engine_for(rs).fight(rs, ruled, b, SeededDice(seed), cap=40)
                instances(result, found)
                fights.append((name, Fight(result, seed).to_dict(), result))
        engine = engine_for(rs)
        _, state = engine.start(rs, a, b, SeededDice(1))
        amount = 5 if name == "d20" else 12
        wound, after = engine.apply_wound(rs, a, b, state, b.name, amount)
        instances(wound, found)
        heal, _ = engine.apply_heal(rs, a, b, after, b.name, amount)
        instances(heal, found)
    return found, fights


@pytest.mark.slow
def test_the_generic_walk_writes_the_expected_keys_for_every_record_played() -> None:
    found, _ = played()
    generic = {cls: views[0] for cls, views in CONTRACT.items()
               if not views[0].added and not views[0].renamed and not views[0].omitted}
    seen = set()
    for cls, objs in found.items():
        if cls in generic:
            seen.add(cls)
            for obj in objs[:50]:
                data = render.event_data(obj) if isinstance(obj, Event) else render.to_data(obj)
                assert set(data) == rendered_keys(cls, generic[cls]), qualname(cls)
                names = list(data)
                if isinstance(obj, Event):  # the order too: type, then the fields
                    assert names[0] == "type" and names[1:] == list(field_names(cls))
    # the fights played reach every event kind of both engines
    assert {c for c in generic if issubclass(c, Event)} <= seen
    assert {sevendag.ActiveTechnique, sevendag.DroppedWeapon, sevendag.MetalEffect} - seen == {
        sevendag.ActiveTechnique}  # techniques are never chosen by a sheet's tactic


@pytest.mark.slow
def test_the_hand_written_renderers_write_the_expected_keys() -> None:
    found, fights = played()
    (roll_view,) = CONTRACT[Roll]
    (check_view,) = CONTRACT[Check]
    for r in found[Roll][:50]:
        assert set(render.roll_data(r)) == rendered_keys(Roll, roll_view)
    for c in found[Check][:50]:
        assert set(render.check_data(c)) == rendered_keys(Check, check_view)
    round_view, round_end_view = CONTRACT[RoundResult]
    doc_view, start_view, end_view = CONTRACT[FightResult]
    for _name, doc, result in fights:
        assert set(doc) == rendered_keys(FightResult, doc_view)
        lines = render.fight_events(result, 1)  # the command adds how each fighter played
        assert set(lines[0]) | POLICIES == rendered_keys(FightResult, start_view)
        assert set(lines[-1]) == rendered_keys(FightResult, end_view)
        for rnd in result.rounds:
            assert set(render.round_data(rnd)) == rendered_keys(RoundResult, round_view)
            assert set(render.round_events(rnd)[-1]) == rendered_keys(RoundResult, round_end_view)
    for wound in found[WoundResult]:
        doc = render.wound_document(wound, "r", "encounter.sevendag.json")
        assert set(doc) == rendered_keys(WoundResult, CONTRACT[WoundResult][0])


def test_the_simulation_and_rulesets_show_write_the_expected_keys() -> None:
    table = contract()
    for name in ("d20", "sevendag"):
        rs = load_ruleset(name)
        a, b = load_pair(rs, None)
        result = simulate(rs, a, b, 200, seed=1)
        doc = Simulation(result, rs.name, 1).to_dict()  # what fight --runs --json writes
        assert set(doc) == rendered_keys(SimulationResult, table[SimulationResult][0])
        for cls, objs in instances(result, {}).items():
            if cls is not SimulationResult:
                assert set(render.to_data(objs[0])) == rendered_keys(cls, table[cls][0]), qualname(cls)
    show = run_json("rulesets", "show", "sevendag")
    tables: list[tuple[type, list[dict[str, Any]]]] = [
        (WoundBand, show["wounds"]), (Metal, list(show["metals"].values())),
        (Technique, list(show["techniques"].values())),
        (DDBand, run_json("rulesets", "show", "d20")["dd_table"])]
    for cls, rows in tables:
        assert rows
        for row in rows:
            assert set(row) == rendered_keys(cls, CONTRACT[cls][0]), qualname(cls)


def table_session(ruleset: str) -> None:
    """A session at the table through the CLI: init, rounds, a wound and a heal by hand."""
    from tests.helpers import run

    if ruleset == "d20":
        steps = [["init", "--ruleset", "d20", "--seed", "3"], ["round", "--seed", "4"],
                 ["wound", "B", "5"], ["wound", "B", "--heal", "3"], ["round", "--seed", "5"]]
    else:
        steps = [["init", "--seed", "11"], ["round", "--seed", "12", "--no-input"],
                 ["round", "--seed", "13", "--technique", "Ysolde=feint"],
                 ["wound", "Brannoc", "17"], ["wound", "Brannoc", "--heal", "serious"]]
    for args in steps:
        result = run(*args)
        assert result.exit_code == 0, (args, result.stderr)


@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_status_log_and_the_encounter_file_write_the_expected_keys(ruleset: str) -> None:
    """status --json, log --json/--jsonl and the encounter file's states, against their views."""
    from sevendag_cli import store
    from sevendag_cli.backend import backend_for
    from sevendag_cli.commands.table import open_encounter
    from sevendag_cli.history import replay

    table_session(ruleset)
    path = Path("encounter.sevendag.json")
    enc, rs, a, b, state = open_encounter(path)
    engine = engine_for(rs)
    status_view, file_view = CONTRACT[type(state)]
    doc = render.status_document(state, rs, str(path), enc.log, backend_for(rs).table.round_seconds(rs))
    assert set(doc) == rendered_keys(type(state), status_view)
    for saved in (*enc.history, enc.state):
        written = engine.state_to_data(engine.state_from_data(saved))
        assert set(written) == rendered_keys(type(state), file_view)
    # a version 1 file: the rounds recorded no dice (Sevendag's cannot be replayed without them)
    old = dict(store.to_document(enc), version=1,
               log=[{k: v for k, v in e.items() if k not in ("dice", "choices")} for e in enc.log])
    old_enc = store.from_document(old, str(path))
    init_view, round_view, judgement_view, line_view = CONTRACT[Step]
    views = {"init": init_view, "round": round_view, "wound": judgement_view, "heal": judgement_view}
    kinds: set[tuple[str, bool]] = set()
    for e in (enc, old_enc):
        steps = replay(e, rs, a, b, path)
        for step in steps:
            kinds.add((step.kind, step.replayed))
            assert set(render.step_data(step)) == rendered_keys(Step, views[step.kind]), step.kind
        for line in render.log_events(steps, rs.name, str(path)):
            if line["type"] == "step":
                keys = rendered_keys(Step, line_view)
                assert set(line) == (keys if not line["replayed"] else keys - {"fighters", "over", "winner"})
    assert {("init", True), ("round", True), ("wound", True), ("heal", True)} <= kinds
    assert ("round", False) in kinds or ruleset == "d20"  # d20 rounds replay from their seed


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_the_odds_outputs_write_the_expected_keys(ruleset: str) -> None:
    """odds --json, round --odds, init --odds and fight --odds (JSON and JSON lines), against their views."""
    from tests.helpers import run

    point_view, line_view, odds_view = CONTRACT[OddsPoint]
    (fighter_view,) = CONTRACT[FighterOdds]
    (swing_view,) = CONTRACT[OddsSwing]
    fighter_keys = rendered_keys(FighterOdds, fighter_view)
    init = run_json("init", "--ruleset", ruleset, "--seed", "3", "--odds")
    assert set(init["odds"]) == ODDS_BASIS | {"fighters", "draw_probability", "unresolved"}
    doc = run_json("odds")
    assert set(doc) == rendered_keys(OddsPoint, odds_view)
    rnd = run_json("round", "--seed", "4", "--odds", "--no-input")["odds"] if ruleset == "sevendag" else (
        run_json("round", "--seed", "4", "--odds")["odds"])
    assert set(rnd) == ODDS_BASIS | {"before", "after", "draw_probability", "unresolved"}
    for f in (*init["odds"]["fighters"], *doc["fighters"], *rnd["before"], *rnd["after"]):
        assert set(f) == fighter_keys
    fight = run_json("fight", "--ruleset", ruleset, "--seed", "5", "--cap", "10", "--odds")
    assert set(fight) - set(run_json("fight", "--ruleset", ruleset, "--seed", "5", "--cap", "10")) == (
        rendered_keys(OddsSwing, swing_view))
    for p in fight["odds"]:
        assert set(p) == rendered_keys(OddsPoint, point_view)
        assert all(set(f) == fighter_keys for f in p["fighters"])
    lines = [json.loads(x) for x in run("fight", "--ruleset", ruleset, "--seed", "5", "--cap", "10", "--odds",
                                        "--jsonl").stdout.splitlines()]
    odds_lines = [x for x in lines if x["type"] == "odds"]
    assert len(odds_lines) == len(fight["odds"])
    for line in odds_lines:
        assert set(line) == rendered_keys(OddsPoint, line_view)
