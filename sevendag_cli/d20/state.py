"""Le combat (d20) encounter state between rounds, and its codec for the encounter file.

``state_from_data`` validates everything it reads: damaged data gives one
:class:`~sevendag_cli.errors.EncounterError` line saying how.
"""

from __future__ import annotations

from typing import Any, ClassVar

from msgspec import Struct
from msgspec.structs import replace

from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
from sevendag_cli.errors import EncounterError, Msg, UsageError, joined
from sevendag_cli.limits import MAX_PLAYED_ROUNDS


class D20FighterState(Struct, frozen=True, gc=False):
    """One fighter's hit points (D-12); the JSON also says whether they are defeated."""

    json_properties: ClassVar[tuple[str, ...]] = ("defeated",)
    name: str
    hp: int
    max_hp: int

    @property
    def defeated(self) -> bool:
        return self.hp <= 0


class D20State(Struct, frozen=True, gc=False):
    """An encounter between rounds."""

    round: int
    fighters: tuple[D20FighterState, D20FighterState]
    next_attacker: str | None  # initiative already rolled for the next round (by `init`)
    over: bool = False
    winner: str | None = None
    capped: bool = False

    def fighter(self, name: str) -> D20FighterState:
        for f in self.fighters:
            if f.name == name:
                return f
        names = joined(f.name for f in self.fighters)
        raise UsageError(Msg("engine.no_fighter", name=name, names=names))  # a name typed



def initial_state(a: D20Fighter, b: D20Fighter) -> D20State:
    return D20State(
        0, (D20FighterState(a.name, a.hp, a.hp), D20FighterState(b.name, b.hp, b.hp)), None
    )


def fighter_states(state: D20State) -> tuple[D20FighterState, ...]:
    return state.fighters


def _set_hp(state: D20State, name: str, hp: int) -> D20State:
    fighters = tuple(replace(f, hp=hp) if f.name == name else f for f in state.fighters)
    return replace(state, fighters=(fighters[0], fighters[1]))


# --- encounter data ---------------------------------------------------------


def state_to_data(state: D20State) -> dict[str, Any]:
    return {
        "round": state.round,
        "fighters": [{"name": f.name, "hp": f.hp, "max_hp": f.max_hp} for f in state.fighters],
        "next_attacker": state.next_attacker,
        "over": state.over,
        "winner": state.winner,
        "capped": state.capped,
    }


class _Bad(ValueError):
    """Damaged encounter data, with the message saying how."""

    def __init__(self, msg: Msg) -> None:
        super().__init__(str(msg))
        self.msg = msg


def _obj(v: object, where: str) -> Any:
    if not isinstance(v, dict):
        raise _Bad(Msg("engine.state.not_object", where=where))
    return v


def state_from_data(data: Any) -> D20State:
    detail: Msg
    try:
        data = _obj(data, "state")
        raw = data["fighters"]
        if not isinstance(raw, list):
            raise _Bad(Msg("engine.state.two_fighters"))
        rows = [_obj(f, f"state.fighters[{i}]") for i, f in enumerate(raw)]
        fighters = tuple(
            D20FighterState(_str(f["name"]), _int(f["hp"]), _int(f["max_hp"])) for f in rows
        )
        if len(fighters) != 2:
            raise _Bad(Msg("engine.state.two_fighters"))
        names = {f.name for f in fighters}
        if len(names) != 2:
            raise _Bad(Msg("engine.state.same_name"))
        nxt = data["next_attacker"]
        winner = data["winner"]
        for who in (nxt, winner):
            if who is not None and _str(who) not in names:
                raise _Bad(Msg("engine.state.not_a_fighter", name=who))
        return D20State(
            _int(data["round"]), (fighters[0], fighters[1]),
            None if nxt is None else _str(nxt), _bool(data["over"]),
            None if winner is None else _str(winner), _bool(data.get("capped", False)),
        )
    except _Bad as exc:
        detail = exc.msg
    except KeyError as exc:
        detail = Msg("engine.state.key_missing", key=exc.args[0] if exc.args else "?")
    except (TypeError, ValueError, AttributeError) as exc:
        detail = Msg("engine.state.shape", error=exc)
    raise EncounterError(Msg("engine.d20.state_damaged", detail=detail))


def _int(v: object) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _Bad(Msg("engine.state.not_int", value=v))
    return v


def _bool(v: object) -> bool:
    if not isinstance(v, bool):
        raise _Bad(Msg("engine.state.not_bool", value=v))
    return v


def _str(v: object) -> str:
    if not isinstance(v, str):
        raise _Bad(Msg("engine.state.not_text", value=v))
    return v



# --- the state against the rules and the sheets -------------------------------------------------


def check_state(ruleset: D20Ruleset, fighters: tuple[D20Fighter, D20Fighter], state: D20State) -> None:
    """Refuse a state the rules (D-02, D-12, the round cap) and the embedded sheets could not
    have reached: one :class:`~sevendag_cli.errors.EncounterError` naming the first field
    that does not hold (the encounter's reader calls this on every read, before any die)."""
    from sevendag_cli.engine.common import state_invalid

    cap = ruleset.round_cap
    for i, (sheet, f) in enumerate(zip(fighters, state.fighters, strict=True)):
        where = f"state.fighters[{i}]"
        if f.name != sheet.name:
            raise state_invalid(f"{where}.name", f.name, Msg("engine.state.want.sheet_name",
                                                                n=i + 1, name=sheet.name))
        if f.max_hp != sheet.hp:
            raise state_invalid(f"{where}.max_hp", f.max_hp, Msg("engine.state.want.max_hp", hp=sheet.hp))
        if f.hp > f.max_hp:
            raise state_invalid(f"{where}.hp", f.hp, Msg("engine.state.want.hp_max", max=f.max_hp))
    if cap is None:  # no round cap: a round count no fight reaches at the table is damage
        if not 0 <= state.round <= MAX_PLAYED_ROUNDS:
            raise state_invalid("state.round", state.round,
                                Msg("engine.state.want.round_none", max=MAX_PLAYED_ROUNDS))
    elif not 0 <= state.round <= cap + 1:  # a fight reopened by a heal at the cap has one more
        raise state_invalid("state.round", state.round, Msg("engine.state.want.round", cap=cap))
    if state.next_attacker is not None and state.round != 0:
        raise state_invalid("state.next_attacker", state.next_attacker,
                            Msg("engine.state.want.next_attacker"))
    if state.capped and not state.over:
        raise state_invalid("state.capped", True, Msg("engine.state.want.capped_going_on"))
    if not state.over:
        if state.winner is not None:
            raise state_invalid("state.winner", state.winner, Msg("engine.state.want.no_winner"))
        for i, f in enumerate(state.fighters):
            if f.hp <= 0:
                raise state_invalid(f"state.fighters[{i}].hp", f.hp, Msg("engine.state.want.alive"))
        return
    if state.capped:
        if cap is None:
            raise state_invalid("state.capped", True, Msg("engine.state.want.capped_no_cap"))
        if state.winner is not None:
            raise state_invalid("state.winner", state.winner, Msg("engine.state.want.capped_winner"))
        if state.round < cap:
            raise state_invalid("state.round", state.round, Msg("engine.state.want.round_capped", cap=cap))
        return
    if state.winner is None:
        raise state_invalid("state.winner", None, Msg("engine.state.want.winner"))
    for i, f in enumerate(state.fighters):
        if (f.name == state.winner) != (f.hp > 0):
            want = "winner_alive" if f.name == state.winner else "loser_down"
            raise state_invalid(f"state.fighters[{i}].hp", f.hp, Msg(f"engine.state.want.{want}"))
