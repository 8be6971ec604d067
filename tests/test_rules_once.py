"""Each round's rules written once (issue 16): where two forms remain, every face, state by state.

The step engine and the vectorised simulator read the same rule functions (Sevendag:
``attack.read_attack_dice``, ``attack.landing``, ``rules.band_index`` / ``shifted_index``;
d20: ``d20.rules`` verdicts), but each still has its own loop around them: the engine
rolls die by die and records events, the simulator works on arrays of fights.  These
tests give both the same faces, for every face of every die the engine asks for, in
every kind of state the simulator supports, and compare what they decide: no sampling.

Faces the engine does not ask for (a hand that neither attacks nor defends, a padding
hand, the drop check of a weapon that did not fail) are given to the simulator as the
worst for it: an unread attacking face shows its lowest, an unread defence face its
highest, an unread drop check its highest, so reading one of them would show.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import product
from typing import Any

import numpy as np
import pytest

from sevendag_cli.dice import DiceSource
from sevendag_cli.sevendag.events import CriticalGrantedEvent, DropEvent, ExchangeEvent
from sevendag_cli.sevendag.model import FighterModel, fighter_model
from sevendag_cli.sevendag.planning import Choices, plan_for
from sevendag_cli.sevendag.resolution import _Round
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
from sevendag_cli.sevendag.state import DroppedWeapon, FighterState, SevendagState
from sevendag_cli.sevendag.vector import Faces, _Ruling, _Tables, _tables, exchange
from tests.exact_helpers import every_face
from tests.records import replace
from tests.sevendag_helpers import RS, make

IntArray = np.ndarray[Any, np.dtype[np.int64]]


class _Recorder:
    """A dice source that notes each face asked for (purpose, face)."""

    def __init__(self, inner: DiceSource) -> None:
        self.inner = inner
        self.faces: list[tuple[str, int]] = []

    def face(self, sides: int, purpose: str, fighter: str | None) -> int:
        f = self.inner.face(sides, purpose, fighter)
        self.faces.append((purpose, f))
        return f


class _GivenFaces(Faces):
    """The simulator's faces from arrays: per hand the attacker's and the defender's, per
    unit the drop checks (indexed by row)."""

    def __init__(self, attack: list[IntArray], defence: list[IntArray], drops: list[IntArray]):
        self.attack, self.defence, self.drops = attack, defence, drops
        self.calls = 0

    def hand(self, t: _Tables, sides: IntArray) -> IntArray:
        i, defending = divmod(self.calls, 2)
        self.calls += 1
        faces = (self.defence if defending else self.attack)[i]
        assert ((faces >= 1) & (faces <= sides)).all()
        return faces

    def drop(self, unit: int, die: int, rows: IntArray) -> IntArray:
        return self.drops[unit][rows]


# --- Sevendag: one exchange --------------------------------------------------------------

HOUSE = (RS.examples[0], RS.examples[1])


def _house() -> tuple[SevendagFighter, SevendagFighter]:
    from sevendag_cli.rules import load_pair

    a, b = load_pair(RS, None)
    assert isinstance(a, SevendagFighter) and isinstance(b, SevendagFighter)
    return a, b


# Small dice, so that every face of every hand is cheap; between them every kind of
# attack (S-10 one die, S-11 two-handed, S-12 a weapon in each hand, a weapon beside an
# empty hand, an empty hand alone, three hands), shields, metals with extra damage, band
# shifts and both, and each default tactic.
PAIRS: dict[str, Callable[[], tuple[SevendagFighter, SevendagFighter]]] = {
    "house": _house,
    "sword-shield/greatsword": lambda: (
        make("X", [{"die": 4, "holds": "sword"}, {"die": 3, "holds": "shield"}],
             {"sword": {"metal": "bronze", "skill": 2}, "shield": {"kind": "shield"}}),
        make("Y", [{"die": 3, "holds": "g"}, {"die": 3, "holds": "g"}],
             {"g": {"hands": 2, "metal": "steel", "skill": 1}}, defence=4)),
    "dual/guard": lambda: (
        make("Z", [{"die": 3, "holds": "a"}, {"die": 2, "holds": "k"}],
             {"a": {"metal": "iron", "skill": 2}, "k": {"metal": "starmetal", "skill": 3}}),
        make("G", [{"die": 3, "holds": "w"}, {"die": 3, "holds": "s"}],
             {"w": {"metal": "iron", "skill": 1}, "s": {"kind": "shield"}},
             tactic="full-defence")),
    "three-hands/empty": lambda: (
        make("T", [{"die": 2, "holds": "g"}, {"die": 2, "holds": "g"}, {"die": 3, "holds": "d"}],
             {"g": {"hands": 2, "metal": "steel", "skill": 2}, "d": {"metal": "iron", "skill": 1}}),
        make("E", [{"die": 3, "holds": "w"}, {"die": 2}], {"w": {"metal": "starmetal", "skill": 2}},
             tactic="all-out")),
    "bare/quad": lambda: (
        make("B", [{"die": 3}], attack=12),
        make("Q", [{"die": 2, "holds": "a"}, {"die": 2, "holds": "b"}, {"die": 3}],
             {"a": {"metal": "bronze", "skill": 1}, "b": {"metal": "steel", "skill": 2}},
             tactic="all-out")),
}

# Penalties (attacker's, defender's): nothing, margins pushed down to foiled, and up
# through every band to fatal.
PENALTIES = [(0, 0), (4, 0), (12, 0), (0, 3), (0, 9), (0, 17), (0, 26)]


def _state(model: FighterModel, name: str, penalty: int, mask: int, granted: bool) -> FighterState:
    dropped = tuple(
        DroppedWeapon(unit.key, tuple(h + 1 for h in unit.hands), 1)
        for u, unit in enumerate(model.units) if mask >> u & 1 and unit.key is not None
    )
    return FighterState(name, penalty=penalty, dropped=dropped, granted_crit=granted)


def _masks(model: FighterModel) -> list[int]:
    return [m for m in range(1 << len(model.units)) if m & ~model.droppable == 0]


Outcome = tuple[bool, int, int, bool, bool, int, bool]  # wound, damage, band, granted, used, drops, cd


def _engine_exchanges(rs: SevendagRuleset, fighters: tuple[SevendagFighter, SevendagFighter],
                      models: tuple[FighterModel, FighterModel], att: int,
                      states: tuple[FighterState, FighterState],
                      ) -> Iterator[tuple[list[tuple[str, int]], dict[int, int], Outcome]]:
    """Every branch of one exchange through the step engine: its faces, its drop checks
    (unit: face) and what it decided."""
    names = (fighters[0].name, fighters[1].name)
    plans = {names[i]: plan_for(rs, fighters[i], states[i], Choices()) for i in (0, 1)}
    state = SevendagState(0, names[att], states)
    band_names = [w.name for w in rs.wounds]

    def call(dice: DiceSource) -> tuple[tuple[tuple[str, int], ...], tuple[tuple[int, int], ...],
                                        Outcome]:
        rec = _Recorder(dice)
        rnd = _Round(rs, dict(zip(names, fighters, strict=True)), state, plans, rec)
        cd = rnd.exchange(1, names[att], names[1 - att])
        ex = next(e for e in rnd.events if isinstance(e, ExchangeEvent))
        units = {u.key: i for i, u in enumerate(models[att].units)}
        checks = tuple((units[e.item], e.roll.face) for e in rnd.events if isinstance(e, DropEvent))
        drops = sum(1 << units[e.item] for e in rnd.events if isinstance(e, DropEvent) and e.dropped)
        granted = any(isinstance(e, CriticalGrantedEvent) for e in rnd.events)
        used = states[att].granted_crit and not rnd.states[names[att]].granted_crit
        assert used == ex.granted_critical
        wound = ex.final_band is not None
        band = band_names.index(ex.final_band) if ex.final_band is not None else -1
        return tuple(rec.faces), checks, (wound, ex.damage, band, granted, used, drops, cd)

    for (faces, checks, outcome), _p in every_face(call):
        yield list(faces), dict(checks), outcome


def _check_exchanges(rs: SevendagRuleset, fighters: tuple[SevendagFighter, SevendagFighter]) -> int:
    """Both forms over every face, every state; returns how many branches were compared."""
    models = (fighter_model(rs, fighters[0]), fighter_model(rs, fighters[1]))
    t = _tables(models, rs.failure_beats_crit)
    r = _Ruling(tuple(w.low for w in rs.wounds), len(rs.wounds), rs.drop_check_die)
    compared = 0
    for att, (pen_att, pen_def), granted in product((0, 1), PENALTIES, (False, True)):
        de = 1 - att
        for mask_att, mask_def in product(_masks(models[att]), _masks(models[de])):
            pens = {att: pen_att, de: pen_def}
            masks = {att: mask_att, de: mask_def}
            states = tuple(_state(models[i], fighters[i].name, pens[i], masks[i],
                                  granted and i == att) for i in (0, 1))
            branches = list(_engine_exchanges(rs, fighters, models, att, states))  # type: ignore[arg-type]
            n = len(branches)
            alloc_att = models[att].allocations[mask_att]
            alloc_def = models[de].allocations[mask_def]
            attack = [np.ones(n, dtype=np.int64) for _ in range(t.hands)]  # unread: lowest
            defence = [np.full(n, int(t.sides[i][de]), dtype=np.int64) for i in range(t.hands)]
            drops = [np.full(n, rs.drop_check_die, dtype=np.int64) for _ in range(t.units)]
            for row, (faces, checks, _) in enumerate(branches):
                rolled_attack = iter(f for p, f in faces if p == "attack")
                rolled_defence = iter(f for p, f in faces if p == "defence")
                if faces:  # a fighter with no attack dice: nobody rolls
                    for h in alloc_att.attack:
                        attack[h][row] = next(rolled_attack)
                    for h in alloc_def.defence:
                        defence[h][row] = next(rolled_defence)
                    assert next(rolled_attack, None) is None and next(rolled_defence, None) is None
                assert len(checks) == sum(p == "drop" for p, _ in faces)
                for u, f in checks.items():
                    drops[u][row] = f
            at = np.full(n, att, dtype=np.int64)
            aid = np.full(n, att * t.k + mask_att, dtype=np.int64)
            did = np.full(n, de * t.k + mask_def, dtype=np.int64)
            offset = np.full(n, models[att].attack - pen_att - models[de].defence + pen_def,
                             dtype=np.int64)
            got = exchange(t, r, _GivenFaces(attack, defence, drops), at, aid, did, offset,
                           np.full(n, granted, dtype=np.bool_))
            for row, (faces, _, want) in enumerate(branches):
                wound = want[0]
                mine = (bool(got.wound[row]), int(got.damage[row]) if wound else 0,
                        int(got.band[row]) if wound else -1,
                        bool(got.fumble[row]) and rs.fumble_grants_crit,
                        bool(got.grant_used[row]), int(got.dropped[row]),
                        bool(got.critical_defence[row]))
                assert mine == want, (att, pens, masks, granted, faces)
            compared += n
    return compared


@pytest.mark.parametrize("pair", list(PAIRS))
@pytest.mark.parametrize("failure_beats_crit", [True, False])
def test_S06_S07_S10_to_S18_exchange_every_face_every_state(pair: str,
                                                           failure_beats_crit: bool) -> None:
    """S-06 .. S-18: one exchange, every face of every die the engine rolls, for each
    attacker, each set of dropped weapons on either side, penalties from foiled to fatal,
    with and without a granted critical, S-13 either way: the vectorised exchange decides
    what the step engine decides (wound, damage, band after the metal's shift, fumble
    granting a critical, grant used up, weapons dropped, critical defence)."""
    fighters = PAIRS[pair]()
    drop_die = RS.drop_check_die if pair == "house" else 4
    rs = replace(RS, failure_beats_crit=failure_beats_crit, fumble_grants_crit=True,
                 drop_check_die=drop_die)
    assert _check_exchanges(rs, fighters) > 0
