"""Each round's rules written once: where two forms remain, every face, state by state.

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

from sevendag_cli.d20.events import AttackEvent, SaveEvent
from sevendag_cli.d20.resolution import resolve_attack
from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
from sevendag_cli.d20.vector import _side, attacks
from sevendag_cli.dice import DiceSource
from sevendag_cli.formula import parse
from sevendag_cli.rules import fighter_from_data, load_ruleset
from sevendag_cli.sevendag.events import CriticalGrantedEvent, DropEvent, ExchangeEvent
from sevendag_cli.sevendag.model import FighterModel, fighter_model
from sevendag_cli.sevendag.planning import Choices, plan_for
from sevendag_cli.sevendag.resolution import _Round
from sevendag_cli.sevendag.resolution import play_round as engine_round
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
from sevendag_cli.sevendag.state import DroppedWeapon, FighterState, SevendagState
from sevendag_cli.sevendag.vector import (
    Faces,
    Fights,
    RoundRules,
    _Ruling,
    _Tables,
    _tables,
    exchange,
    play_round,
)
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
                        bool(np.asarray(got.grant_used)[row]), int(got.dropped[row]),
                        bool(got.critical_defence[row]))
                assert mine == want, (att, pens, masks, granted, faces)
            compared += n
    return compared


@pytest.mark.parametrize("pair", list(PAIRS))
@pytest.mark.parametrize("failure_beats_crit", [True, False])
@pytest.mark.slow
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


# --- d20: one attack ---------------------------------------------------------------------


class _QueuedRng:
    """Stands for the generator inside ``VecFormula.roll``: each ``integers`` call takes, for
    every row asked, the next faces that row's queue holds (the step engine's, in its order);
    a face the engine never rolled (a DD after a natural) is the die's highest."""

    def __init__(self, queues: list[list[int]], rows: IntArray) -> None:
        self.queues, self.rows = queues, rows

    def integers(self, low: int, high: int, size: Any = None, dtype: Any = None) -> IntArray:
        shape = size if isinstance(size, tuple) else (size,)
        assert shape[0] == self.rows.size
        count = shape[1] if len(shape) > 1 else 1
        out = np.empty((self.rows.size, count), dtype=np.int64)
        for i, row in enumerate(self.rows):
            q = self.queues[row]
            for j in range(count):
                out[i, j] = q.pop(0) if q else high - 1
        assert ((out >= low) & (out < high)).all()
        return out.reshape(shape)


class _GivenDraws:
    """The vectorised attack's values from the step engine's faces, purpose by purpose."""

    def __init__(self, faces: list[list[tuple[str, int]]]) -> None:
        self.queues: dict[str, list[list[int]]] = {}
        for row, rolled in enumerate(faces):
            for purpose, f in rolled:
                per = self.queues.setdefault(purpose, [[] for _ in faces])
                per[row].append(f)
        self.n = len(faces)

    def roll(self, what: str, formula: Any, rows: IntArray,
             natural: bool = False) -> tuple[IntArray, IntArray | None]:
        queues = self.queues.setdefault(what, [[] for _ in range(self.n)])
        total, nat = formula.roll(_QueuedRng(queues, rows), rows.size, natural)
        return total, nat

    def left(self) -> int:
        return sum(len(q) for per in self.queues.values() for q in per)


def _sheet(rs: D20Ruleset, **changes: Any) -> D20Fighter:
    """A d20 sheet (the D-14 fighter A's numbers, then ``changes``; ``weapon``: its fields)."""
    data: dict[str, Any] = {"ruleset": "d20", "name": "A", "race": "Forêt", "level": 5,
                            "str": 12, "dex": 18, "con": 8, "wis": 5, "bba": 3, "ac": 5,
                            "hp": 45, "weapon": {"name": "club", "damage": "1d6", "type": 0}}
    data.update({k: v for k, v in changes.items() if k != "weapon"})
    data["weapon"] = {**data["weapon"], **changes.get("weapon", {})}
    f = fighter_from_data(data, "test", rs)
    assert isinstance(f, D20Fighter)
    return f


def _d20_ruleset(formulas: dict[str, str], rules: dict[str, Any]) -> D20Ruleset:
    """Le combat on small dice (d4 attack and save, d3 DD, d2 VIG and VOL), then changes."""
    rs = load_ruleset("d20")
    assert isinstance(rs, D20Ruleset)
    small = dict(attack="1d4 + bba + mod(str) + weapon_type", save="1d4 + mod(dex) + dodge",
                 dd="1d3 + mod(dex)", vig="1d2 + mod(con)", vol="1d2 + mod(wis)")
    rs = replace(rs, natural_hit=4, natural_miss=1, save_natural_success=4,
                 save_natural_failure=1, **{k: parse(v) for k, v in {**small, **formulas}.items()})
    return replace(rs, **rules)


# (name, ruleset changes, formulas, attacker's weapon, attacker's changes, defender's changes)
D20_VARIANTS: list[tuple[str, dict[str, Any], dict[str, str], dict[str, Any]]] = [
    ("half, rolled DD, crit 3-4 x2", {}, {}, {"damage": "1d2", "crit_range": 3}),
    ("negate, crit x3, min 0", {"save_success": "negate", "min_damage": 0}, {},
     {"damage": "1d2", "crit_range": 3, "crit_factor": 3}),
    ("magic, crit multiplies magic, min 2", {"crit_multiplies_magic": True, "min_damage": 2}, {},
     {"damage": "1d2", "magic": "1d2 + 1", "crit_range": 4}),
    ("magic once, level-table DD, defender's level, damage 2d2kl1", {"dd_mode": "level_table",
                                                      "dd_level_of": "defender"}, {},
     {"damage": "2d2kl1", "magic": "1d2", "crit_range": 4}),
    ("natural hit 3, the kept die of 2d3kh1",
     {"natural_hit": 3, "natural_miss": 1},
     {"attack": "2d3kh1 + bba + mod(str) - 2"}, {"damage": "1d2 + 1", "crit_range": 3}),
    ("naturals 3 and 2 (a natural hit beats a natural miss)",
     {"natural_hit": 3, "natural_miss": 3, "save_natural_failure": 2}, {},
     {"damage": "1d2", "crit_range": 4}),
    ("save with 2d3kl1, natural success 3, failure 1",
     {"save_natural_success": 3}, {"save": "2d3kl1 + mod(dex) + dodge"},
     {"damage": "1d3 - 1", "crit_range": 4}),
]


@pytest.mark.parametrize(("name", "rules", "formulas", "weapon"), D20_VARIANTS,
                         ids=[v[0] for v in D20_VARIANTS])
@pytest.mark.parametrize("ac", [2, 4])
def test_D04_to_D10_attack_every_face(name: str, rules: dict[str, Any], formulas: dict[str, str],
                                      weapon: dict[str, Any], ac: int) -> None:
    """D-04, D-06 .. D-11: one attack, every face of every die the step engine rolls
    (attack, save, DD, each damage set, VIG, magic sets, VOL), on small dice, for ACs the
    totals fall below, on and above: the vectorised attacks (given the same faces) decide
    what the engine decides (hit, critical, save outcome, damage)."""
    rs = _d20_ruleset(formulas, rules)
    att = _sheet(rs, bba=0, str=12, dex=14, weapon=weapon, level=20)
    dfd = _sheet(rs, name="B", ac=ac, dodge=0, dex=16, con=12, wis=10, level=5,
                 weapon={"damage": "1d8"})
    outcomes = {"failed": 0, "halved": 1, "dodged": 2}

    def call(dice: DiceSource) -> tuple[tuple[tuple[str, int], ...], tuple[bool, bool, int, int]]:
        rec = _Recorder(dice)
        events, damage = resolve_attack(rs, att, dfd, rec)
        attack = next(e for e in events if isinstance(e, AttackEvent))
        save = next((e for e in events if isinstance(e, SaveEvent)), None)
        saved = -1 if save is None else outcomes[save.outcome]
        return tuple(rec.faces), (attack.hit, attack.critical, saved, damage)

    branches = [(list(faces), want) for (faces, want), _p in every_face(call)]
    draws = _GivenDraws([faces for faces, _ in branches])
    got = attacks(rs, _side(rs, att, dfd), draws, len(branches))  # type: ignore[arg-type]
    assert draws.left() == 0  # every face the engine rolled was used
    kinds = set()
    for row, (faces, want) in enumerate(branches):
        mine = (bool(got.hit[row]), bool(got.critical[row]), int(got.outcome[row]),
                int(got.damage[row]))
        assert mine == want, faces
        kinds.add(want[:3])
    assert {k[0] for k in kinds} == {False, True}  # both misses and hits occur


# --- Sevendag: a whole round -------------------------------------------------------------


class _GivenRoundFaces(Faces):
    """A round's faces: per exchange (1, 2), per hand the attacker's and the defender's, per
    unit the drop checks; each exchange reads the rows it is given."""

    def __init__(self, given: dict[int, tuple[list[IntArray], list[IntArray], list[IntArray]]]):
        self.given = given
        self.rows = np.zeros(0, dtype=np.int64)
        self.number = 0
        self.calls = 0

    def begin(self, number: int, rows: IntArray) -> None:
        self.number, self.rows, self.calls = number, rows, 0

    def hand(self, t: _Tables, sides: IntArray) -> IntArray:
        i, defending = divmod(self.calls, 2)
        self.calls += 1
        faces = self.given[self.number][1 if defending else 0][i][self.rows]
        assert ((faces >= 1) & (faces <= sides)).all()
        return faces

    def drop(self, unit: int, die: int, rows: IntArray) -> IntArray:
        return self.given[self.number][2][unit][self.rows[rows]]


ROUND_PAIRS = ["sword-shield/greatsword", "three-hands/empty"]


def _round_ruleset(failure_beats_crit: bool, recovery: int) -> SevendagRuleset:
    """The house bands, with two critical wounds taking a fighter out too (S-19)."""
    bands = tuple(replace(w, out_after=2) if w.name == "critical" else w for w in RS.wounds)
    return replace(RS, wounds=bands, fumble_grants_crit=True, drop_check_die=4,
                   failure_beats_crit=failure_beats_crit, drop_recovery_rounds=recovery)


@pytest.mark.parametrize("pair", ROUND_PAIRS)
@pytest.mark.parametrize(("failure_beats_crit", "recovery"), [(True, 1), (False, 0), (True, 2)])
@pytest.mark.slow
def test_S04_S08_S14_S18_S19_round_every_face_every_state(pair: str, failure_beats_crit: bool,
                                                          recovery: int) -> None:
    """S-04 .. S-19, a whole round: every face of every die the step engine rolls in both
    exchanges, for each assaillant, each set of weapons being picked up (and how long),
    wounds close to taking either fighter out, with and without granted criticals: the
    vectorised round leaves the same state (assaillant after S-14, penalties, wounds per
    band, weapons still down and for how long, granted criticals, who is out, who won)."""
    rs = _round_ruleset(failure_beats_crit, recovery)
    fighters = PAIRS[pair]()
    names = (fighters[0].name, fighters[1].name)
    models = (fighter_model(rs, fighters[0]), fighter_model(rs, fighters[1]))
    t = _tables(models, rs.failure_beats_crit)
    nb = len(rs.wounds)
    r = _Ruling(tuple(w.low for w in rs.wounds), nb, rs.drop_check_die)
    never = np.iinfo(np.int64).max
    rules = RoundRules(t, r, np.array([w.penalty for w in rs.wounds], dtype=np.int64),
                       np.array([w.out_after or never for w in rs.wounds], dtype=np.int64),
                       rs.fumble_grants_crit, rs.drop_recovery_rounds)
    band_names = [w.name for w in rs.wounds]
    penalty_of = {w.name: w.penalty for w in rs.wounds}
    wound_sets = [((), ()), (("light", "critical"), ("serious",)), (("serious",), ("critical",))]
    units = [{u.key: i for i, u in enumerate(m.units)} for m in models]
    compared = 0
    for assail, wounds, granted in product((0, 1), wound_sets, ((False, False), (True, True))):
        lefts = range(1, max(rs.drop_recovery_rounds, 1) + 1)
        downs = [[(mask, left) for mask in _masks(m) for left in (lefts if mask else [0])]
                 for m in models]
        for down_a, down_b in product(*downs):
            down = (down_a, down_b)
            states = tuple(
                FighterState(
                    names[f], wounds=wounds[f], penalty=sum(penalty_of[w] for w in wounds[f]),
                    dropped=tuple(
                        DroppedWeapon(unit.key, tuple(h + 1 for h in unit.hands), down[f][1])
                        for u, unit in enumerate(models[f].units)
                        if down[f][0] >> u & 1 and unit.key is not None),
                    granted_crit=granted[f])
                for f in (0, 1))
            state = SevendagState(0, names[assail], states)  # type: ignore[arg-type]

            def call(dice: DiceSource, state: SevendagState = state) -> tuple[Any, Any]:
                result, new = engine_round(rs, fighters[0], fighters[1], state, dice)
                return result.events, new

            branches = [(events, new) for (events, new), _p in every_face(call)]
            n = len(branches)
            given: dict[int, tuple[list[IntArray], list[IntArray], list[IntArray]]] = {}
            for number, att in ((1, assail), (2, 1 - assail)):
                de_sides = [int(t.sides[i][1 - att]) for i in range(t.hands)]
                given[number] = ([np.ones(n, dtype=np.int64) for _ in range(t.hands)],
                                 [np.full(n, de_sides[i], dtype=np.int64) for i in range(t.hands)],
                                 [np.full(n, rs.drop_check_die, dtype=np.int64)
                                  for _ in range(t.units)])
            for row, (events, _) in enumerate(branches):
                number = 0
                for e in events:
                    if isinstance(e, ExchangeEvent):
                        number = e.number
                        att = names.index(e.attacker)
                        for h, roll in zip(e.attack_hands, e.attack_rolls, strict=True):
                            given[number][0][h - 1][row] = roll.face
                        if e.attack_rolls:  # no attack: nobody rolls
                            for h, roll in zip(e.defence_hands, e.defence_rolls, strict=True):
                                given[number][1][h - 1][row] = roll.face
                    elif isinstance(e, DropEvent):
                        given[number][2][units[att][e.item]][row] = e.roll.face
            mask = [sum(1 << units[f][d.item] for d in states[f].dropped) for f in (0, 1)]
            rec = np.zeros((2, t.units, n), dtype=np.int64)
            for f in (0, 1):
                for u in range(t.units):
                    rec[f, u] = down[f][1] if mask[f] >> u & 1 else 0
            fights = Fights(
                assail=np.full(n, assail, dtype=np.int64),
                pen=np.array([[states[f].penalty] * n for f in (0, 1)], dtype=np.int64),
                wounds=np.array([[states[f].wounds.count(b)] * n for f in (0, 1) for b in band_names],
                                dtype=np.int64),
                rec=rec,
                granted=np.array([[granted[f]] * n for f in (0, 1)], dtype=np.bool_),
            )
            over, won = play_round(rules, _GivenRoundFaces(given), fights)
            for row, (events, new) in enumerate(branches):
                want = (new.over, -1 if new.winner is None else names.index(new.winner),
                        names.index(new.assaillant) if not new.over else None,
                        [fs.penalty for fs in new.fighters],
                        [fs.wounds.count(b) for fs in new.fighters for b in band_names],
                        [[next((d.rounds_left for d in fs.dropped if units[f][d.item] == u), 0)
                          for u in range(t.units)] for f, fs in enumerate(new.fighters)],
                        [fs.granted_crit for fs in new.fighters])
                mine = (bool(over[row]), int(won[row]),
                        int(fights.assail[row]) if not over[row] else None,
                        fights.pen[:, row].tolist(), fights.wounds[:, row].tolist(),
                        fights.rec[:, :, row].tolist() if not over[row] else want[5],
                        fights.granted[:, row].tolist())
                assert mine == want, (assail, wounds, granted, down, events)
            compared += n
    assert compared > 0


# --- the helpers that let one rule function take a value or an array ---------------------


def test_arith_helpers_same_on_values_and_arrays() -> None:
    """S-07, D-09, D-10: ``at_least``, ``between``, ``pick`` and ``reached`` give, element by
    element on an array, what they give on each value alone (and never import numpy for a
    value: they are plain builtins there)."""
    from sevendag_cli.engine.arith import at_least, between, pick, reached

    xs = list(range(-5, 40))
    arr = np.array(xs, dtype=np.int64)
    starts = (1, 11, 21, 31)
    assert reached(starts, arr).tolist() == [reached(starts, x) for x in xs]
    assert [reached(starts, x) for x in xs] == [sum(x >= s for s in starts) for x in xs]
    assert at_least(arr, 2).tolist() == [at_least(x, 2) for x in xs] == [max(x, 2) for x in xs]
    assert between(arr, 0, 3).tolist() == [between(x, 0, 3) for x in xs] == [
        min(3, max(0, x)) for x in xs]
    cond = arr % 3 == 0
    assert pick(cond, arr, -arr).tolist() == [pick(bool(c), x, -x) for c, x in zip(cond, xs,
                                                                                  strict=True)]
    for x in xs:
        assert type(at_least(x, 0)) is int and type(between(x, 0, 3)) is int
        assert type(reached(starts, x)) is int
