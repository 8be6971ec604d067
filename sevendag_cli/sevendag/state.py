"""Sevendag encounter state between rounds, and its codec for the encounter file.

``state_from_data`` validates everything it reads: damaged data gives one
:class:`~sevendag_cli.errors.EncounterError` line saying where and what.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import Struct

from sevendag_cli.errors import EncounterError, Msg, UsageError, joined
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset

ENGINE = "sevendag"


class ActiveTechnique(Struct, frozen=True, gc=False):
    """S-05: a technique in effect; ``rounds_left`` = rounds it still applies to (>= 1)."""

    name: str
    rounds_left: int


class DroppedWeapon(Struct, frozen=True, gc=False):
    """S-18: a dropped weapon; its hands spend ``rounds_left`` more rounds picking it up."""

    item: str
    hands: tuple[int, ...]  # numbered from 1
    rounds_left: int


class FighterState(Struct, frozen=True, gc=False):
    """One fighter's track: wounds in the order received, penalty, out, technique, drops."""

    name: str
    wounds: tuple[str, ...] = ()
    penalty: int = 0  # S-19: subtracted from both constants
    out: bool = False
    technique: ActiveTechnique | None = None
    dropped: tuple[DroppedWeapon, ...] = ()
    granted_crit: bool = False  # S-10 fumble_grants_crit: holds a critical from a fumble

    def recovering(self) -> frozenset[int]:
        """Hands (numbered from 1) busy picking up a weapon this round (S-18)."""
        return frozenset(h for d in self.dropped for h in d.hands)


class SevendagState(Struct, frozen=True, gc=False):
    """An encounter between rounds."""

    round: int  # rounds played so far
    assaillant: str  # S-02, reversed by S-14
    fighters: tuple[FighterState, FighterState]  # in the order a, b
    over: bool = False
    winner: str | None = None
    capped: bool = False  # ended as a draw by the round cap

    @property
    def defenseur(self) -> str:
        return self.other(self.assaillant)

    def other(self, name: str) -> str:
        a, b = self.fighters
        return b.name if name == a.name else a.name

    def fighter(self, name: str) -> FighterState:
        for f in self.fighters:
            if f.name == name:
                return f
        names = joined(repr(f.name) for f in self.fighters)
        raise UsageError(Msg("engine.no_fighter", name=name, names=names))  # a name typed


def fighter_states(state: SevendagState) -> tuple[FighterState, ...]:
    return state.fighters


def initial_state(a: SevendagFighter, b: SevendagFighter, assaillant: str) -> SevendagState:
    return SevendagState(0, assaillant, (FighterState(a.name), FighterState(b.name)))


def _require(
    ruleset: object, a: object, b: object, state: SevendagState | None = None
) -> None:
    """The engine's arguments: a Sevendag ruleset, two Sevendag sheets, and their state."""
    if not isinstance(ruleset, SevendagRuleset):
        raise UsageError(Msg("engine.sev.needs_ruleset"))
    for f in (a, b):
        if not isinstance(f, SevendagFighter):
            raise UsageError(Msg("engine.sev.not_sheet", name=getattr(f, "name", f)))
    assert isinstance(a, SevendagFighter) and isinstance(b, SevendagFighter)
    if a.name == b.name:
        raise UsageError(Msg("rules.same_name", name=a.name))
    if state is not None:
        names = tuple(f.name for f in state.fighters)
        if names != (a.name, b.name):
            raise EncounterError(Msg("engine.sev.between", a=names[0], b=names[1], c=a.name, d=b.name))
        if state.assaillant not in names:
            raise EncounterError(Msg("engine.sev.bad_assaillant", name=state.assaillant))


# --- encounter data ---------------------------------------------------------------


def state_to_data(state: SevendagState) -> dict[str, Any]:
    """Plain JSON data for the encounter file (round-trips through ``state_from_data``)."""
    return {
        "engine": ENGINE,
        "round": state.round,
        "assaillant": state.assaillant,
        "over": state.over,
        "winner": state.winner,
        "capped": state.capped,
        "fighters": [
            {
                "name": f.name,
                "wounds": list(f.wounds),
                "penalty": f.penalty,
                "out": f.out,
                "technique": None if f.technique is None else {
                    "name": f.technique.name, "rounds_left": f.technique.rounds_left,
                },
                "dropped": [
                    {"item": d.item, "hands": list(d.hands), "rounds_left": d.rounds_left}
                    for d in f.dropped
                ],
                "granted_crit": f.granted_crit,
            }
            for f in state.fighters
        ],
    }


class _Bad(Exception):
    """Damaged state data, with the message saying where and how."""

    def __init__(self, msg: Msg) -> None:
        super().__init__(str(msg))
        self.msg = msg


def _obj(v: object, where: str) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise _Bad(Msg("engine.sev.state.object", where=where, type=type(v).__name__))
    return v


def _get(m: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in m:
        raise _Bad(Msg("engine.sev.state.missing", where=where, key=key))
    return m[key]


def _int(v: object, where: str, lo: int = 0) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _Bad(Msg("engine.sev.state.int", where=where, value=v))
    if v < lo:
        raise _Bad(Msg("engine.sev.state.below", where=where, value=v, lo=lo))
    return v


def _text(v: object, where: str) -> str:
    if not isinstance(v, str) or not v:
        raise _Bad(Msg("engine.sev.state.text", where=where, value=v))
    return v


def _flag(v: object, where: str) -> bool:
    if not isinstance(v, bool):
        raise _Bad(Msg("engine.sev.state.flag", where=where, value=v))
    return v


def _list(v: object, where: str) -> list[Any]:
    if not isinstance(v, list | tuple):
        raise _Bad(Msg("engine.sev.state.list", where=where, type=type(v).__name__))
    return list(v)


def _fighter_from(v: object, where: str) -> FighterState:
    m = _obj(v, where)
    tech_raw = _get(m, "technique", where)
    technique: ActiveTechnique | None = None
    if tech_raw is not None:
        t = _obj(tech_raw, f"{where}.technique")
        technique = ActiveTechnique(
            _text(_get(t, "name", f"{where}.technique"), f"{where}.technique.name"),
            _int(_get(t, "rounds_left", f"{where}.technique"), f"{where}.technique.rounds_left",
                 1),
        )
    dropped: list[DroppedWeapon] = []
    for j, d_raw in enumerate(_list(_get(m, "dropped", where), f"{where}.dropped")):
        w = f"{where}.dropped[{j}]"
        d = _obj(d_raw, w)
        hands = tuple(
            _int(h, f"{w}.hands[{k}]", 1) for k, h in enumerate(_list(_get(d, "hands", w),
                                                                     f"{w}.hands"))
        )
        if not hands:
            raise _Bad(Msg("engine.sev.state.one_hand", where=f"{w}.hands"))
        dropped.append(DroppedWeapon(_text(_get(d, "item", w), f"{w}.item"), hands,
                                     _int(_get(d, "rounds_left", w), f"{w}.rounds_left", 1)))
    wounds = tuple(
        _text(x, f"{where}.wounds[{k}]")
        for k, x in enumerate(_list(_get(m, "wounds", where), f"{where}.wounds"))
    )
    return FighterState(
        name=_text(_get(m, "name", where), f"{where}.name"),
        wounds=wounds,
        penalty=_int(_get(m, "penalty", where), f"{where}.penalty"),
        out=_flag(_get(m, "out", where), f"{where}.out"),
        technique=technique,
        dropped=tuple(dropped),
        granted_crit=_flag(_get(m, "granted_crit", where), f"{where}.granted_crit"),
    )


def state_from_data(data: object) -> SevendagState:
    """Rebuild a state from ``state_to_data``'s output; damaged data → EncounterError."""
    try:
        m = _obj(data, "state")
        engine = m.get("engine", ENGINE)
        if engine != ENGINE:
            raise _Bad(Msg("engine.sev.state.engine", engine=engine))
        raw = _list(_get(m, "fighters", "state"), "state.fighters")
        if len(raw) != 2:
            raise _Bad(Msg("engine.sev.state.two", n=len(raw)))
        f0 = _fighter_from(raw[0], "state.fighters[0]")
        f1 = _fighter_from(raw[1], "state.fighters[1]")
        names = (f0.name, f1.name)
        if f0.name == f1.name:
            raise _Bad(Msg("engine.sev.state.same_name", name=f0.name))
        assaillant = _text(_get(m, "assaillant", "state"), "state.assaillant")
        if assaillant not in names:
            raise _Bad(Msg("engine.sev.state.neither", where="state.assaillant", value=assaillant,
                           a=names[0], b=names[1]))
        winner_raw = _get(m, "winner", "state")
        winner = None if winner_raw is None else _text(winner_raw, "state.winner")
        if winner is not None and winner not in names:
            raise _Bad(Msg("engine.sev.state.neither", where="state.winner", value=winner,
                           a=names[0], b=names[1]))
        over = _flag(_get(m, "over", "state"), "state.over")
        capped = _flag(m.get("capped", False), "state.capped")
        if winner is not None and not over:
            raise _Bad(Msg("engine.sev.state.winner_not_over"))
        return SevendagState(
            _int(_get(m, "round", "state"), "state.round"), assaillant, (f0, f1), over, winner,
            capped,
        )
    except _Bad as exc:
        raise EncounterError(Msg("engine.sev.state_damaged", detail=exc.msg)) from None


# --- the state against the rules and the sheets -------------------------------------------------


def check_state(ruleset: SevendagRuleset, fighters: tuple[SevendagFighter, SevendagFighter],
                state: SevendagState) -> None:
    """Refuse a state the rules (S-05, S-07, S-10, S-18, S-19, the round cap) and the embedded
    sheets could not have reached: one :class:`~sevendag_cli.errors.EncounterError` naming the
    first field that does not hold (the encounter's reader calls this on every read, before
    any die).  What is derived is derived again: a fighter's penalty is the sum of its wounds'
    (S-19), it is out exactly when its wounds take it out, and the fight is over exactly when
    a fighter is out or the round cap was reached."""
    from sevendag_cli.engine.common import state_invalid

    bands = {b.name: b for b in ruleset.wounds}
    cap = ruleset.round_cap
    outs = []
    for i, (sheet, f) in enumerate(zip(fighters, state.fighters, strict=True)):
        where = f"state.fighters[{i}]"
        if f.name != sheet.name:
            raise state_invalid(f"{where}.name", f.name, Msg("engine.state.want.sheet_name",
                                                                n=i + 1, name=sheet.name))
        for k, wound in enumerate(f.wounds):
            if wound not in bands:
                raise state_invalid(f"{where}.wounds[{k}]", wound,
                                    Msg("engine.state.want.band", bands=", ".join(bands)))
        penalty = sum(bands[w].penalty for w in f.wounds)
        if f.penalty != penalty:
            raise state_invalid(f"{where}.penalty", f.penalty,
                                Msg("engine.state.want.penalty", penalty=penalty))
        out = any(b.out_after > 0 and f.wounds.count(b.name) >= b.out_after for b in ruleset.wounds)
        if f.out != out:
            raise state_invalid(f"{where}.out", f.out, Msg("engine.state.want.out_wounds",
                                                              out="true" if out else "false"))
        outs.append(out)
        if f.technique is not None:
            technique = ruleset.techniques.get(f.technique.name)
            if technique is None:
                raise state_invalid(f"{where}.technique.name", f.technique.name, Msg(
                    "engine.state.want.technique", names=", ".join(ruleset.techniques) or "-"))
            if f.technique.rounds_left > technique.duration:
                raise state_invalid(f"{where}.technique.rounds_left", f.technique.rounds_left,
                                    Msg("engine.state.want.rounds", most=technique.duration))
        for k, d in enumerate(f.dropped):
            item = sheet.items.get(d.item)
            held = tuple(h + 1 for h, hand in enumerate(sheet.hands) if hand.holds == d.item)
            if item is None or not held:
                raise state_invalid(f"{where}.dropped[{k}].item", d.item, Msg(
                    "engine.state.want.item", name=sheet.name,
                    items=", ".join(sorted({h.holds for h in sheet.hands if h.holds})) or "-"))
            if d.hands != held:
                raise state_invalid(f"{where}.dropped[{k}].hands", list(d.hands),
                                    Msg("engine.state.want.hands", hands=list(held)))
            if d.rounds_left > max(1, ruleset.drop_recovery_rounds):
                raise state_invalid(f"{where}.dropped[{k}].rounds_left", d.rounds_left,
                                    Msg("engine.state.want.rounds", most=ruleset.drop_recovery_rounds))
        if f.granted_crit and not ruleset.fumble_grants_crit:
            raise state_invalid(f"{where}.granted_crit", True, Msg("engine.state.want.no_grant"))
    if state.round > cap + 1:  # a fight reopened by a heal at the cap has one round more
        raise state_invalid("state.round", state.round, Msg("engine.state.want.round", cap=cap))
    if state.capped and not state.over:
        raise state_invalid("state.capped", True, Msg("engine.state.want.capped_going_on"))
    if not state.over:
        for i, out in enumerate(outs):
            if out:
                raise state_invalid(f"state.fighters[{i}].out", True,
                                    Msg("engine.state.want.not_out"))
        return
    if state.capped:
        if state.winner is not None:
            raise state_invalid("state.winner", state.winner, Msg("engine.state.want.capped_winner"))
        if state.round < cap:
            raise state_invalid("state.round", state.round, Msg("engine.state.want.round_capped", cap=cap))
        return
    standing = [f.name for f, out in zip(state.fighters, outs, strict=True) if not out]
    if len(standing) != 1 or state.winner != standing[0]:
        raise state_invalid("state.winner", state.winner, Msg(
            "engine.state.want.standing", name=standing[0]) if len(standing) == 1 else
            Msg("engine.state.want.one_out"))
