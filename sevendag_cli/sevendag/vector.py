"""Vectorised Monte-Carlo of whole Sevendag fights (S-02 .. S-19) with numpy.

Same rules and decisions as the step-by-step engine's ``fight``
(:mod:`sevendag_cli.sevendag.engine`: each sheet's tactic every round, no
technique, no yield), many fights at once.  Dice are drawn in a different
order (C-02 is about that engine's record, not this one), so single fights
differ while the distributions are the same.

How it is built:

* **Per fighter, in Python** (:func:`~sevendag_cli.sevendag.model.fighter_model`,
  numpy-free, shared with the exact solvers): the *units* an attack groups
  (S-10..S-12), their metals (S-17) and skills, and the hands that attack and
  defend for every set of dropped weapons (S-18), from the engine's own
  planning code.
* **Per batch, in numpy** (:func:`simulate_sevendag_batch`): both fighters'
  tables padded to the same number of hands and units and stacked (index 0 =
  a, 1 = b), so that one exchange of every running fight is a handful of array
  operations whatever the direction of the attack.  The round loop runs over
  the fights still going; the set is compacted as fights end.

State of a running fight: the assaillant (S-02, S-14), each fighter's wound
counts per band and lasting penalty (S-07, S-19), each unit's recovery timer
(S-18) and each fighter's granted critical (S-10 ``fumble_grants_crit``).

Every die is exactly uniform: faces are ``r mod sides + 1`` with ``r`` uniform
on ``[0, L)`` where ``L`` is a common multiple of all the hands' dice.

The rules are not written here.  What attack dice say (S-10 .. S-13) is
:func:`~sevendag_cli.sevendag.attack.read_attack_dice`, read once per state into the
tables; what a read attack does (S-06, S-10's granted critical, S-15, S-17) is
:func:`~sevendag_cli.sevendag.attack.landing`, and a wound's band (S-07, S-17)
:func:`~sevendag_cli.sevendag.rules.band_index` / ``shifted_index``, both called on
arrays; the step engine calls the same functions on single values.  This module keeps
the sequencing on arrays: :func:`exchange` (one attack and its defence, faces from a
:class:`Faces` source) and :func:`play_round` (the round's two exchanges, S-14, wounds,
S-18's recovery, S-19), which the exhaustive tests (``tests/test_rules_once.py``) drive
with every face the step engine rolls, state by state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import reduce

import numpy as np
import numpy.typing as npt

from sevendag_cli.errors import Msg, RuleError, UsageError
from sevendag_cli.limits import MAX_ROUND_CAP
from sevendag_cli.sevendag.attack import landing
from sevendag_cli.sevendag.engine import MAX_INITIATIVE_ATTEMPTS
from sevendag_cli.sevendag.model import (  # re-exported: the model's historical home
    EMPTY,
    NO_ATTACK,
    SHIELD,
    WEAPON,
    Allocation,
    FighterModel,
    Unit,
    Verdict,
    check_fighters,
    check_plain,
    fighter_model,
    granted_unit,
    judge,
)
from sevendag_cli.sevendag.rules import (
    SevendagFighter,
    SevendagRuleset,
    band_index,
    shifted_index,
)
from sevendag_cli.sim.vec_formula import VecFormula

__all__ = [
    "EMPTY", "NO_ATTACK", "SHIELD", "WEAPON", "Allocation", "FighterModel", "SevendagBatch",
    "Unit", "Verdict", "check_fighters", "fighter_model", "granted_unit", "judge",
    "simulate_sevendag_batch",
]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

MAX_LCM = 2**62
"""Largest common multiple of the dice for the one-draw-per-die trick."""


# --- batch tables ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tables:
    """Both fighters as lookup tables over small integer codes (index 0 = a, 1 = b).

    ``aid = fighter * K + dropped mask`` names a fighter's allocation for the
    round (``K = 2 ** U``); an attack is judged by one lookup at
    ``(aid << 2H) | (lo << H) | hi`` and a defence by one at ``(aid << H) | hi``.
    """

    hands: int  # H: hands after padding
    units: int  # U: units after padding
    k: int  # 2 ** U
    lcm: int  # a common multiple of every hand's die (0: draw with per-row bounds)
    constant_attack: IntArray  # (2,)
    constant_defence: IntArray  # (2,)
    sides: tuple[IntArray, ...]  # per hand: (2,) sides (2 for padding)
    attacks: tuple[BoolArray, ...]  # per hand: (2K,) the hand attacks
    defends: tuple[BoolArray, ...]  # per hand: (2K,) the hand defends
    has_attack: BoolArray  # (2K,)
    grant_extra: IntArray  # (2K,): a granted critical's extra damage
    grant_shift: IntArray  # (2K,)
    failure: BoolArray  # (2K * 4**H,)
    fumble: BoolArray
    critical: BoolArray
    extra: IntArray
    shift: IntArray
    fumbled: IntArray  # bit mask of units
    critical_defence: BoolArray  # (2K * 2**H,)
    shield: BoolArray
    skill: IntArray  # (2, U)
    droppable: IntArray  # (2,)


def _tables(models: tuple[FighterModel, FighterModel], failure_beats_crit: bool) -> _Tables:
    h = max(len(m.sides) for m in models)
    u = max(len(m.units) for m in models)
    k = 1 << u
    sides = [[m.sides[i] if i < len(m.sides) else 2 for m in models] for i in range(h)]
    attacks = [[False] * (2 * k) for _ in range(h)]
    defends = [[False] * (2 * k) for _ in range(h)]
    has_attack = [False] * (2 * k)
    grant_extra = [0] * (2 * k)
    grant_shift = [0] * (2 * k)
    size = 2 * k << 2 * h
    failure = [False] * size
    fumble = [False] * size
    critical = [False] * size
    extra = [0] * size
    shift = [0] * size
    fumbled = [0] * size
    critical_defence = [False] * (2 * k << h)
    shield = [False] * (2 * k << h)
    skill = [[0] * u for _ in models]
    for f, m in enumerate(models):
        for j, unit in enumerate(m.units):
            skill[f][j] = unit.skill
        masks = [x for x in range(k) if x & ~m.droppable == 0]
        for mask in masks:
            aid = f * k + mask
            alloc = m.allocations[mask]
            for i in alloc.attack:
                attacks[i][aid] = True
            for i in alloc.defence:
                defends[i][aid] = True
            has_attack[aid] = bool(alloc.attack)
            g = granted_unit(m, alloc)
            if g is not None:
                grant_extra[aid] = m.units[g].extra_damage
                grant_shift[aid] = m.units[g].band_shift
            att_bits = sum(1 << i for i in alloc.attack)
            judged: dict[tuple[int, int], tuple[bool, bool, bool, int, int, int]] = {}
            for lo in range(1 << h):
                for hi in range(1 << h):
                    # Faces of hands that do not attack are in the code but do not count.
                    key = (lo & att_bits, hi & att_bits & ~lo)
                    if key not in judged:
                        v = judge(m, alloc, key[0], key[1], failure_beats_crit)
                        judged[key] = (
                            v.failure, v.fumble, v.critical,
                            sum(x * m.units[j].extra_damage for j, x in enumerate(v.times)),
                            sum(x * m.units[j].band_shift for j, x in enumerate(v.times)),
                            v.fumbled,
                        )
                    c = (aid << 2 * h) | (lo << h) | hi
                    (failure[c], fumble[c], critical[c], extra[c], shift[c],
                     fumbled[c]) = judged[key]
            def_bits = sum(1 << i for i in alloc.defence)
            shield_bits = sum(1 << i for i, s in enumerate(m.shield) if s)
            for hi in range(1 << h):
                c = (aid << h) | hi
                critical_defence[c] = hi & def_bits != 0
                shield[c] = hi & def_bits & shield_bits != 0
    lcm = reduce(math.lcm, (s for m in models for s in m.sides), 1)
    return _Tables(
        hands=h, units=u, k=k, lcm=lcm if lcm <= MAX_LCM else 0,
        constant_attack=np.array([m.attack for m in models], dtype=np.int64),
        constant_defence=np.array([m.defence for m in models], dtype=np.int64),
        sides=tuple(np.array(s, dtype=np.int64) for s in sides),
        attacks=tuple(np.array(x, dtype=np.bool_) for x in attacks),
        defends=tuple(np.array(x, dtype=np.bool_) for x in defends),
        has_attack=np.array(has_attack, dtype=np.bool_),
        grant_extra=np.array(grant_extra, dtype=np.int64),
        grant_shift=np.array(grant_shift, dtype=np.int64),
        failure=np.array(failure, dtype=np.bool_),
        fumble=np.array(fumble, dtype=np.bool_),
        critical=np.array(critical, dtype=np.bool_),
        extra=np.array(extra, dtype=np.int64),
        shift=np.array(shift, dtype=np.int64),
        fumbled=np.array(fumbled, dtype=np.int64),
        critical_defence=np.array(critical_defence, dtype=np.bool_),
        shield=np.array(shield, dtype=np.bool_),
        skill=np.array(skill, dtype=np.int64).reshape(2, u),
        droppable=np.array([m.droppable for m in models], dtype=np.int64),
    )


def _dice(rng: np.random.Generator, t: _Tables, sides: IntArray) -> IntArray:
    """One die per row, uniform on 1..sides (per row)."""
    if t.lcm:
        raw: IntArray = rng.integers(0, t.lcm, size=sides.size, dtype=np.int64)
        raw %= sides
        raw += 1
        return raw
    faces: IntArray = rng.integers(1, sides + 1, dtype=np.int64)
    return faces


# --- one exchange on arrays (S-06 .. S-15, S-17, S-18) -----------------------------------


@dataclass(frozen=True)
class _Ruling:
    """Ruleset values an exchange needs."""

    lows: tuple[int, ...]  # band lower bounds, in order
    n_bands: int
    drop_die: int


@dataclass(frozen=True)
class _Exchange:
    """What ``m`` exchanges did (rows as given)."""

    wound: BoolArray  # the defender took a wound
    damage: IntArray  # margin + metal (S-06, S-17): the wound's damage where there is one
    band: IntArray  # its final band index (S-07 after S-17's shift); meaningless without wound
    fumble: BoolArray  # critical failure (S-10): grants a critical when the option is on
    grant_used: BoolArray | bool  # the attacker's granted critical was used up
    dropped: IntArray  # bit mask of the attacker's units dropped (S-18)
    critical_defence: BoolArray  # S-14


class Faces:
    """Where an exchange's dice come from (:func:`exchange`), in the order it asks for them."""

    def begin(self, number: int, rows: IntArray) -> None:
        """Exchange ``number`` (1 or 2) of a round starts, for these rows of the round."""

    def hand(self, t: _Tables, sides: IntArray) -> IntArray:
        """One die per row, uniform on 1..sides (per row): a hand's attack or defence die."""
        raise NotImplementedError

    def drop(self, unit: int, die: int, rows: IntArray) -> IntArray:
        """The drop checks of ``unit`` for the rows ``rows`` (S-10)."""
        raise NotImplementedError


class RandomFaces(Faces):
    """Faces from the batch's generator (the simulator's stream)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def hand(self, t: _Tables, sides: IntArray) -> IntArray:
        return _dice(self.rng, t, sides)

    def drop(self, unit: int, die: int, rows: IntArray) -> IntArray:
        faces: IntArray = self.rng.integers(1, die + 1, size=rows.size, dtype=np.int64)
        return faces


def exchange(t: _Tables, r: _Ruling, faces: Faces, at: IntArray, aid: IntArray, did: IntArray,
             offset: IntArray, granted_at: BoolArray | bool) -> _Exchange:
    """``m`` exchanges, one per row (S-06 .. S-15, S-17, S-18).

    ``at``: the attacker (0 = a, 1 = b); ``aid`` / ``did``: the attacker's and the defender's
    allocation codes; ``offset``: attack constant - penalty - (defence constant - penalty);
    ``granted_at``: the attacker holds a granted critical (``False``: nobody does, and
    ``grant_used`` is then ``False`` too).  Faces are asked hand by hand
    (the attacker's die of hand ``i``, then the defender's), every hand of every row (a
    hand that neither attacks nor defends is not read), then the drop checks unit by unit
    for the rows with a weapon to check.  The rules are the step engine's:
    :func:`~sevendag_cli.sevendag.attack.read_attack_dice` through the tables,
    :func:`~sevendag_cli.sevendag.attack.landing`,
    :func:`~sevendag_cli.sevendag.rules.band_index` and ``shifted_index``.
    """
    de = 1 - at
    lo = np.zeros(at.size, dtype=np.int64)
    hi = np.zeros(at.size, dtype=np.int64)
    dhi = np.zeros(at.size, dtype=np.int64)
    margin = offset.copy()
    for i in range(t.hands):
        s = t.sides[i][at]
        f = faces.hand(t, s)
        lo |= (f == 1).astype(np.int64) << i
        hi |= (f == s).astype(np.int64) << i
        margin += f * t.attacks[i][aid]
        s = t.sides[i][de]
        f = faces.hand(t, s)
        dhi |= (f == s).astype(np.int64) << i
        margin -= f * t.defends[i][did]
    code = (aid << 2 * t.hands) | (lo << t.hands) | hi
    dcode = (did << t.hands) | dhi
    has = t.has_attack[aid]
    grant_used, raw, shift, wound = landing(
        has, t.failure[code], t.shield[dcode], t.critical[code], granted_at, margin,
        t.extra[code], t.shift[code], t.grant_extra[aid], t.grant_shift[aid],
    )
    band = shifted_index(band_index(r.lows, raw), shift, r.n_bands)  # S-07, S-17

    # S-10/S-18: one drop check per weapon that failed.
    fumbled = t.fumbled[code]
    dropped = np.zeros(at.size, dtype=np.int64)
    rows = np.flatnonzero(fumbled)
    if rows.size:
        bits = fumbled[rows]
        who = at[rows]
        lost = np.zeros(rows.size, dtype=np.int64)
        for u in range(t.units):
            check = faces.drop(u, r.drop_die, rows)
            lost |= ((bits >> u & 1).astype(np.bool_) & (check > t.skill[who, u])
                     ).astype(np.int64) << u
        dropped[rows] = lost
    return _Exchange(wound, raw, band, t.fumble[code], grant_used, dropped,
                     has & t.critical_defence[dcode])


@dataclass
class Fights:
    """The state of ``m`` running fights (S-02 .. S-19), one column per fight; changed in place."""

    assail: IntArray  # (m,): the assaillant, 0 = a, 1 = b (S-02, S-14)
    pen: IntArray  # (2, m): lasting penalty (S-19)
    wounds: IntArray  # (2 * bands, m): wound counts, row = fighter * bands + band (S-07)
    rec: IntArray  # (2, units, m): rounds each unit's weapon is still being picked up (S-18)
    granted: BoolArray  # (2, m): holds a granted critical (S-10 fumble_grants_crit)


@dataclass(frozen=True)
class RoundRules:
    """What a round needs besides the state: the tables and the ruleset's numbers."""

    t: _Tables
    r: _Ruling
    penalty: IntArray  # per band (S-19)
    out_after: IntArray  # per band: wounds that take a fighter out (S-19; never: int64 max)
    grants: bool  # fumble_grants_crit (S-10)
    recovery: int  # drop_recovery_rounds (S-18)


def play_round(rules: RoundRules, faces: Faces, s: Fights) -> tuple[BoolArray, IntArray]:
    """One round of every fight (S-04, S-08, S-14, S-18, S-19), the step engine's ``play_round``
    with sheet tactics: the fights over, and their winner (-1 elsewhere).

    S-04/S-18: each fighter's allocation by its dropped weapons; exchange 1: the assaillant
    attacks (S-08); exchange 2: the défenseur, unless the fight is over or a critical
    defence ended the round (S-14, which also makes that defender the assaillant); wounds
    add penalties and may take a fighter out (S-19); at the end, weapons come back (S-18).
    """
    t, r = rules.t, rules.r
    nb = r.n_bands
    k = t.k
    m = s.assail.size
    over = np.zeros(m, dtype=np.bool_)
    won = np.full(m, -1, dtype=np.int64)
    dropping = bool(t.droppable.any())
    aid = np.empty((2, m), dtype=np.int64)
    for f in (0, 1):
        mask = np.zeros(m, dtype=np.int64)
        if dropping:
            for u in range(t.units):
                mask |= (s.rec[f, u] > 0).astype(np.int64) << u
        aid[f] = f * k + mask

    go = np.arange(m, dtype=np.int64)
    at = s.assail.copy()
    for which in (1, 2):
        if go.size == 0:
            break
        de = 1 - at
        offset = (t.constant_attack[at] - s.pen[at, go]
                  - t.constant_defence[de] + s.pen[de, go])
        faces.begin(which, go)
        res = exchange(t, r, faces, at, aid[at, go], aid[de, go], offset,
                       s.granted[at, go] if rules.grants else False)  # none without grants
        used = res.grant_used
        if not isinstance(used, bool) and used.any():
            s.granted[at[used], go[used]] = False
        if rules.grants and res.fumble.any():
            s.granted[de[res.fumble], go[res.fumble]] = True
        rows = np.flatnonzero(res.dropped)
        if rows.size:
            g, ga, bits = go[rows], at[rows], res.dropped[rows]
            for u in range(t.units):
                hit = (bits >> u & 1).astype(np.bool_)
                s.rec[ga[hit], u, g[hit]] = rules.recovery + 1  # back after `recovery` more rounds
        w = np.flatnonzero(res.wound)
        if w.size:
            g, gd, gb = go[w], de[w], res.band[w]
            row = gd * nb + gb
            s.wounds[row, g] += 1
            s.pen[gd, g] += rules.penalty[gb]
            out = s.wounds[row, g] >= rules.out_after[gb]  # S-19
            if out.any():
                over[g[out]] = True
                won[g[out]] = at[w[out]]
        keep = ~over[go]
        if which == 1:
            stop = res.critical_defence & keep
            s.assail[go[stop]] = de[stop]  # S-14: the defender becomes the assaillant
            keep &= ~res.critical_defence
            go = go[keep]
            at = 1 - s.assail[go]

    # End of round: weapons come back (S-18).
    if dropping:
        np.maximum(s.rec - 1, 0, out=s.rec)
    return over, won


# --- whole fights ------------------------------------------------------------------------


@dataclass(frozen=True)
class SevendagBatch:
    """``n`` fights: index 0 is fighter a, 1 is fighter b."""

    winner: npt.NDArray[np.int8]  # 0 = a, 1 = b, -1 = draw (round cap)
    rounds: IntArray  # rounds played
    first_striker: npt.NDArray[np.int8]  # the initiative winner, assaillant of round 1 (S-02)
    wounds: IntArray  # (n, 2, bands): wounds of each band (ruleset order) taken by each

    @property
    def n(self) -> int:
        return int(self.winner.size)


def _initiative(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
                rng: np.random.Generator, n: int) -> npt.NDArray[np.int8]:
    """S-02: 0 where a is the assaillant; ties roll again (both), as the engine."""
    fa = VecFormula.bind(ruleset.speed_roll, a.env())
    fb = VecFormula.bind(ruleset.speed_roll, b.env())
    leader = np.zeros(n, dtype=np.int8)
    todo = np.arange(n, dtype=np.int64)
    for _ in range(MAX_INITIATIVE_ATTEMPTS):
        if todo.size == 0:
            return leader
        ta, _ = fa.roll(rng, todo.size)
        tb, _ = fb.roll(rng, todo.size)
        leader[todo] = np.where(ta > tb, 0, 1)
        todo = todo[ta == tb]
        if todo.size and not ruleset.speed_roll.dice:
            break
    if todo.size == 0:
        return leader
    raise RuleError(
        f"the speed rolls tie again and again ({ruleset.speed_roll.text!r} for both): "
        "formulas.speed_roll must roll a die to break ties (S-02)"
    )


def simulate_sevendag_batch(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
                            n: int, rng: np.random.Generator,
                            cap: int | None = None) -> SevendagBatch:
    """``n`` whole fights of a against b (``fight``'s rules); not over after ``cap`` rounds: a draw.
    Sheets with a yield or technique rule are refused (played as plain, they would be wrong)."""
    check_fighters(ruleset, a, b)
    check_plain(a, b)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise UsageError(Msg("sim.fights", n=n))
    cap = ruleset.round_cap if cap is None else cap
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
        raise UsageError(Msg("cli.cap", cap=cap, max=MAX_ROUND_CAP))
    t = _tables((fighter_model(ruleset, a), fighter_model(ruleset, b)),
                ruleset.failure_beats_crit)
    bands = ruleset.wounds
    nb = len(bands)
    r = _Ruling(tuple(w.low for w in bands), nb, ruleset.drop_check_die)
    penalty = np.array([w.penalty for w in bands], dtype=np.int64)
    never = np.iinfo(np.int64).max
    out_after = np.array([w.out_after or never for w in bands], dtype=np.int64)

    winner = np.full(n, -1, dtype=np.int8)
    rounds = np.full(n, cap, dtype=np.int64)
    wounds_out = np.zeros((n, 2, nb), dtype=np.int64)
    first = _initiative(ruleset, a, b, rng, n)

    # State of the fights still going (rows), fighter axis first where it helps gathers.
    idx = np.arange(n, dtype=np.int64)
    fights = Fights(
        assail=first.astype(np.int64),  # S-02 / S-14
        pen=np.zeros((2, n), dtype=np.int64),  # S-19 lasting penalty
        wounds=np.zeros((2 * nb, n), dtype=np.int64),  # S-07 counts, row = fighter * nb + band
        rec=np.zeros((2, t.units, n), dtype=np.int64),  # S-18 rounds left picking up
        granted=np.zeros((2, n), dtype=np.bool_),  # S-10 fumble_grants_crit
    )
    rules = RoundRules(t, r, penalty, out_after, ruleset.fumble_grants_crit,
                       ruleset.drop_recovery_rounds)
    faces = RandomFaces(rng)

    for number in range(1, cap + 1):
        if idx.size == 0:
            break
        over, won = play_round(rules, faces, fights)
        # The fights over leave.
        if over.any():
            gone = idx[over]
            winner[gone] = won[over]
            rounds[gone] = number
            wounds_out[gone] = fights.wounds.take(np.flatnonzero(over), axis=1).T.reshape(-1, 2, nb)
            keep = np.flatnonzero(~over)  # take: much faster than a boolean mask on 2-D arrays
            idx = idx[keep]
            fights = Fights(fights.assail[keep], fights.pen.take(keep, axis=1),
                            fights.wounds.take(keep, axis=1), fights.rec.take(keep, axis=2),
                            fights.granted.take(keep, axis=1))
    # The rest reached the round cap (S-19): draws, with ``rounds`` already ``cap``.
    wounds_out[idx] = fights.wounds.T.reshape(-1, 2, nb)
    return SevendagBatch(winner, rounds, first, wounds_out)
