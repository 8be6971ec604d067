"""The Sevendag fight as a game: every choice of the rules, and optimal play (S-03, S-04, S-05).

The chain of :mod:`sevendag_cli.sevendag.chain` assumes each sheet's tactic, no
yield and no new technique.  Here each round is declared as at the table:

1. the **assaillant** declares (S-03 yield or not; S-04 an allocation of each
   hand's die to attack or defence, as the sheet's hands allow — shields only
   defend, a two-handed weapon's dice go together, a hand picking up a dropped
   weapon does nothing; S-05 a technique if none is in effect);
2. the **défenseur**, having heard it, declares its own (allocation, technique);
3. the dice are rolled: the round is the step engine's
   (:func:`sevendag_cli.sevendag.engine.play_round` with those
   :class:`~sevendag_cli.sevendag.planning.Choices`), computed exactly from the
   chain's exchange enumeration.

Decisions where the rules are silent: a hand that is free is committed to attack
or defence (``none`` is offered only to a hand picking up its weapon, S-18); the
assaillant declares its yield together with its allocation and technique, then
the défenseur answers, yield or not (the declaration order of S-04 for the
fighter holding the initiative).

**The state** is the chain's (assaillant, penalty difference ``D``, counted
wounds, weapons being picked up, granted criticals, techniques in effect as
(attack, defence, rounds left)).  ``D`` is clamped where nothing depends on it
any more, whatever allocation or technique either fighter picks (the chain's
argument, with every allocation and every technique's modifiers).

**The value** of a state is P(a wins) + ½ P(draw), a draw being the round cap
(S-19): zero-sum, a maximises it, b minimises it.  Within a round the game has
perfect information (the défenseur hears the assaillant), so pure choices
suffice: ``V(s) = max_i min_j Σ P(s'|s,i,j) V(s')`` when a holds the initiative
(``min_i max_j`` when b does).  It is solved by value iteration over the rounds
left, from ``V = 0`` and ``V = 1`` at once (both monotone, so the game's value
with the cap lies between them: a certified interval) and from ``V = ½`` (the
draw at the cap: the value itself once every round to the cap is counted); it
stops when the interval is within the tolerance.

A fighter may also be held to its **sheet**: the sheet's tactic, and its rules
(:class:`~sevendag_cli.sevendag.rules.TechniqueRule`, ``yield_rule``: without
them no yield and no new technique): one side optimal and the other on its
sheet is the best response to the sheet; both on their sheets is the step
engine's ``fight`` (the chain's game when both play plain).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from itertools import product
from typing import TYPE_CHECKING

from msgspec import Struct

from sevendag_cli.errors import Msg, RuleError, UsageError
from sevendag_cli.policies import OPTIMAL, POLICIES, SHEET
from sevendag_cli.sevendag.chain import SevendagChain, StateKey
from sevendag_cli.sevendag.engine import (
    ATTACK,
    DEFENCE,
    NONE,
    Choices,
    DroppedWeapon,
    FighterState,
    SevendagState,
    allocation_for,
    plan_for,
)
from sevendag_cli.sevendag.model import (
    Allocation,
    FighterModel,
    check_fighters,
    fighter_model,
)
from sevendag_cli.sevendag.rounds import KEEP, Kernel, RoundOutcome, Tech, wound_weights
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
from sevendag_cli.sevendag.rules import yields as rule_yields
from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, check_tolerance, gamma

if TYPE_CHECKING:
    import numpy as np


MAX_GAME_BYTES = 380 << 20
"""Most memory one solved game may take: its states, declared rounds and their outcomes,
estimated before it is built (:meth:`SevendagGame.size`) and counted as it is built (with
numpy loaded and the declarations played kept, :data:`MAX_DECISIONS`, the process stays
under 500 MB)."""
ROW_BYTES = 120
"""Memory per declared round of a solved game (measured): its state, option, chances to win
now, outcome count, and its values through value iteration and the declarations."""
ENTRY_BYTES = 60
"""Memory per outcome of a declared round that leads to a state (measured): its round, its
target and probability, their copies by column for the values, and the build's own."""
KERNEL_BYTES = 160
"""Memory per outcome of a distinct round kept for the build (compact arrays, and their
arrays for numpy)."""
STATE_BYTES = 600
"""Memory per state of a solved game: its key, its index, its options and values."""
MAX_BATCH_ROWS = 200_000
"""Most declared rounds built at once (the memory a build holds at a time)."""
MAX_STEPS = 5_000
"""Most rounds of value iteration (a fight that can go on for ever stops there, its interval
left open)."""
TIE = 1e-12
"""Values this close are a tie when the declarations are chosen: the one that wins sooner
is played (the game's value moves by at most this much a round)."""
SETTLED = 32
"""Rounds with the same declarations everywhere (and values within ``TIE``) after which they
are taken as settled for every further round to go."""
MAX_DECISIONS = 20_000_000
"""Most (state, rounds to go) declarations one solved game keeps for play (80 MB)."""

WIDE = 1 << 62
"""Codes (a state, a kernel, as one int in mixed radix) this large or larger are Python ints
in object arrays instead of int64."""

Target = StateKey | int
"""Where a round leads: a state, or the winner (0 = a, 1 = b)."""


class GameSize(Struct, frozen=True, gc=False):
    """A game's size at most (:meth:`SevendagGame.size`): its states and declared rounds."""

    states: int
    rows: int

    def bytes(self, entries: int, kernel_outcomes: int = 0) -> int:
        """Memory of a solved game of this size with ``entries`` outcomes leading to a state,
        built from rounds of ``kernel_outcomes`` outcomes in all."""
        return (self.states * STATE_BYTES + self.rows * ROW_BYTES + entries * ENTRY_BYTES
                + kernel_outcomes * KERNEL_BYTES)


class Option(Struct, frozen=True, gc=False):
    """One fighter's declaration for a round (S-03, S-04, S-05)."""

    yield_initiative: bool
    allocation: tuple[str, ...]  # per hand: attack / defence / none
    technique: str | None  # started this round

    def choices(self, name: str) -> Choices:
        """This declaration as the step engine's choices for fighter ``name``."""
        return Choices(self.yield_initiative, {name: self.allocation}, {name: self.technique})


def merge(a_name: str, a: Option, b_name: str, b: Option, assaillant: str) -> Choices:
    """Both fighters' declarations as the engine's :class:`Choices` (the assaillant's yield)."""
    yielded = a.yield_initiative if assaillant == a_name else b.yield_initiative
    tech = {a_name: a.technique, b_name: b.technique}  # None: no technique, whatever the sheet
    return Choices(yielded, {a_name: a.allocation, b_name: b.allocation}, tech)


def _dropped(fighter: SevendagFighter, model: FighterModel, mask: int) -> tuple[DroppedWeapon, ...]:
    return tuple(DroppedWeapon(u.key, tuple(h + 1 for h in u.hands), 1)
                 for i, u in enumerate(model.units) if mask >> i & 1 and u.is_weapon and u.key)


def _allocation(model: FighterModel, alloc: tuple[str, ...]) -> Allocation:
    attack = tuple(i for i, c in enumerate(alloc) if c == ATTACK)
    defence = tuple(i for i, c in enumerate(alloc) if c == DEFENCE)
    units = tuple(u for u, unit in enumerate(model.units) if set(unit.hands) & set(attack))
    return Allocation(attack, defence, units)


class SevendagGame:
    """The fight of one pair under one ruleset with every declaration open (see the module)."""

    def __init__(self, ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter) -> None:
        check_fighters(ruleset, a, b)
        self.ruleset = ruleset
        self.fighters = (a, b)
        self.names = (a.name, b.name)
        sheet = (fighter_model(ruleset, a), fighter_model(ruleset, b))
        self.allocs: list[list[tuple[str, ...]]] = []  # per fighter: every allocation, by id
        self.valid: list[list[list[int]]] = []  # per fighter, per dropped mask: allocation ids
        self.sheet_alloc: list[list[int]] = []  # per fighter, per dropped mask: the sheet's id
        models: list[FighterModel] = []
        for f, model in zip((a, b), sheet, strict=True):
            allocs: list[tuple[str, ...]] = []
            index: dict[tuple[str, ...], int] = {}
            valid: list[list[int]] = []
            sheet_ids: list[int] = []
            for mask in range(1 << len(model.units)):
                fs = FighterState(f.name, dropped=_dropped(f, model, mask))
                rec = fs.recovering()
                ids: list[int] = []
                for alloc in product(*[((NONE,) if i + 1 in rec else (ATTACK, DEFENCE))
                                       for i in range(len(f.hands))]):
                    try:
                        plan_for(ruleset, f, fs, Choices(allocation={f.name: alloc}))
                    except RuleError:
                        continue
                    if alloc not in index:
                        index[alloc] = len(allocs)
                        allocs.append(alloc)
                    ids.append(index[alloc])
                own = allocation_for(f, None, fs)
                if own not in index:  # a sheet may commit a free hand to nothing
                    index[own] = len(allocs)
                    allocs.append(own)
                valid.append(ids)
                sheet_ids.append(index[own])
            self.allocs.append(allocs)
            self.valid.append(valid)
            self.sheet_alloc.append(sheet_ids)
            models.append(FighterModel(model.name, model.attack, model.defence, model.sides,
                                       model.shield, model.units,
                                       tuple(_allocation(model, al) for al in allocs)))
        self.alloc_index = [{al: i for i, al in enumerate(x)} for x in self.allocs]
        self.models = (models[0], models[1])
        # The chain (its states' keys) and its exact round, the allocations indexed by id.
        self.chain = SevendagChain(ruleset, a, b, self.models)
        self.form = self.chain.form
        self.pieces = self.chain.pieces
        self.techniques = tuple(ruleset.techniques)
        self.lo, self.hi = self._thresholds()
        self._solved: dict[tuple[object, ...], Solution] = {}
        self._flat_kernels: _Kernels | None = None
        self._options: dict[tuple[int, bool, int, bool], list[Option]] = {}

    def _flat(self) -> _Kernels:
        """The game's rounds flattened for solving (see :class:`_Kernels`), built once."""
        got = self._flat_kernels
        if got is None:
            got = self._flat_kernels = _Kernels(self)
        return got

    # --- states

    def _thresholds(self) -> tuple[int, int]:
        """The D beyond which nothing depends on D, whatever either fighter declares."""
        ch = self.chain
        last = ch.lows[-1]
        techs = list(self.ruleset.techniques.values())
        att_mods = [0, *(t.attack for t in techs)]
        def_mods = [0, *(t.defence for t in techs)]
        hi_terms: list[int] = [0]
        lo_terms: list[int] = [0]
        for att in (0, 1):
            ma, md = self.models[att], self.models[1 - att]
            attacking = [al for al in ma.allocations if al.attack]
            if not attacking:
                continue
            x_min = (min(len(al.attack) for al in attacking)
                     - max(sum(md.sides[h] for h in al.defence) for al in md.allocations))
            x_max = (max(sum(ma.sides[h] for h in al.attack) for al in attacking)
                     - min(len(al.defence) for al in md.allocations))
            e_max = 2 * sum(u.extra_damage for u in ma.units)
            c = ch.constants[att][0] - ch.constants[1 - att][1]
            m_max = max(att_mods) - min(def_mods)
            m_min = min(att_mods) - max(def_mods)
            if att == 0:  # a attacks b at offset c + mod - D
                hi_terms.append(c + m_max + x_max + e_max)
                lo_terms.append(c + m_min + x_min - last)
            else:  # b attacks a at offset c + mod + D
                hi_terms.append(last - c - m_min - x_min)
                lo_terms.append(-c - m_max - x_max - e_max)
        if any(f.yield_rule == "behind" for f in self.fighters):
            # a sheet that yields when behind on wounds reads D's sign: keep it through the clamp
            lo_terms.append(-1)
            hi_terms.append(1)
        return min(lo_terms), max(hi_terms)

    def clamp(self, d: int) -> int:
        return self.hi if d >= self.hi else self.lo if d <= self.lo else d

    def key_of(self, state: SevendagState) -> Target:
        """The game's state for an engine state between rounds, or the winner (-1: a draw)."""
        key = self.chain.key_of(state)
        if isinstance(key, int):
            return key
        d = state.fighters[0].penalty - state.fighters[1].penalty
        return (key[0], self.clamp(d), *key[2:])

    def start_key(self, assaillant: int) -> StateKey:
        key = self.chain.start_key(assaillant)
        return (key[0], self.clamp(0), *key[2:])

    # --- declarations

    @staticmethod
    def _mask(rec: tuple[int, ...]) -> int:
        return sum(1 << u for u, r in enumerate(rec) if r > 0)

    def options(self, key: StateKey, fighter: int, policy: str = OPTIMAL) -> list[Option]:
        """Fighter ``fighter``'s declarations in state ``key`` (its sheet's alone for ``sheet``).
        Optimal play's depend on the state only through who holds the initiative, the weapons
        being picked up and whether a technique is in effect: one list, shared."""
        assail, _d, _ca, _cb, ra, rb, _ga, _gb, ta, tb = key
        mask = self._mask(ra if fighter == 0 else rb)
        if policy != SHEET:
            free = (ta if fighter == 0 else tb) is None
            shared = (fighter, assail == fighter, mask, free)
            got = self._options.get(shared)
            if got is None:
                got = self._options[shared] = self._options_for(key, fighter, policy, mask)
            return got
        return self._options_for(key, fighter, policy, mask)

    def _options_for(self, key: StateKey, fighter: int, policy: str, mask: int) -> list[Option]:
        assail, _d, _ca, _cb, _ra, _rb, _ga, _gb, ta, tb = key
        allocs = self.allocs[fighter]
        if policy == SHEET:  # S-03, S-05: the sheet's yield and technique rules
            f = self.fighters[fighter]
            holds = assail == fighter
            # D is a's penalty less b's; its sign survives the clamp (see _thresholds)
            own = _d if fighter == 0 else -_d
            yielded = holds and rule_yields(f.yield_rule, own, 0)
            rule = f.technique_rule
            free = (ta if fighter == 0 else tb) is None
            tech = rule.technique if rule is not None and free and rule.applies(holds) else None
            return [Option(yielded, allocs[self.sheet_alloc[fighter][mask]], tech)]
        free = (ta if fighter == 0 else tb) is None
        techs: list[str | None] = [None, *(self.techniques if free else ())]
        yields = (False, True) if assail == fighter else (False,)
        return [Option(y, allocs[i], t) for y in yields
                for i in self.valid[fighter][mask] for t in techs]

    # --- size

    def size(self, policies: tuple[str, str], seeds: Sequence[StateKey] = ()) -> GameSize:
        """How large the game is at most, from the sheets and the ruleset alone, before
        anything is built: its states (every assaillant, penalty difference within the
        clamp, wounds counted, weapons being picked up, granted criticals and techniques in
        effect that the policies can reach, and the ``seeds``'), and its declared rounds (each
        state's options, first declarer's times the answer's, summed over those states)."""
        rs = self.ruleset
        # D moves with the penalties; where every band with a penalty is counted, the wounds
        # counted fix it (a seed's aside)
        free = any(band.penalty and not band.out_after for band in rs.wounds)
        n_d = self.hi - self.lo + 1 if free else 1 + len(seeds)
        counts = math.prod(rs.wounds[j].out_after for j in self.chain.tracked)
        granted = 2 if rs.fumble_grants_crit else 1
        per_state = [0, 0]  # per assaillant: the product over the fighters of their sums
        pieces = []
        for f, fighter in enumerate(self.fighters):
            model = self.models[f]
            recs = [k[4] if f == 0 else k[5] for k in seeds]
            held = [k[8] if f == 0 else k[9] for k in seeds]
            rec_max = max([rs.drop_recovery_rounds, *(max(r, default=0) for r in recs)])
            weapons = [u for u, unit in enumerate(model.units) if unit.is_weapon]
            # techniques in effect: every (modifiers, rounds left) the fighter can start, or a
            # seed holds
            if policies[f] == OPTIMAL:
                started = list(rs.techniques.values())
            else:
                rule = fighter.technique_rule
                started = [rs.techniques[rule.technique]] if rule is not None else []
            busy = sum(max(0, t.duration - 1) for t in started)
            busy += sum(t[2] for t in held if t is not None)
            n_rec = (rec_max + 1) ** len(weapons)
            pieces.append(n_rec * (1 + busy))
            for assail in (0, 1):
                total = 0
                for mask in range(1 << len(weapons)):
                    unit_mask = sum(1 << weapons[i] for i in range(len(weapons)) if mask >> i & 1)
                    ways = rec_max ** bin(mask).count("1")  # rec tuples with that mask
                    if policies[f] == OPTIMAL:
                        allocs = len(self.valid[f][unit_mask])
                        ys = 2 if assail == f else 1
                        opts = ys * allocs * (1 + len(self.techniques)) + ys * allocs * busy
                    else:
                        opts = 1 + busy
                    total += ways * opts
                per_state[assail] = total if f == 0 else per_state[assail] * total
        base = n_d * (counts * granted) ** 2
        states = 2 * base * pieces[0] * pieces[1] + len(seeds)
        rows = base * (per_state[0] + per_state[1]) + len(seeds)
        return GameSize(states, rows)

    def check_size(self, policies: tuple[str, str], seeds: Sequence[StateKey] = ()) -> GameSize:
        """:meth:`size`, refused in one line when it may take more than :data:`MAX_GAME_BYTES`
        (the outcomes, not known before the rounds are built, counted as one a round)."""
        size = self.size(policies, seeds)
        if size.bytes(size.rows) > MAX_GAME_BYTES:
            raise UsageError(Msg("game.size", a=self.names[0], b=self.names[1],
                                 states=size.states, rows=size.rows,
                                 mb=size.bytes(size.rows) >> 20, max=MAX_GAME_BYTES >> 20))
        return size

    # --- one round

    def round_targets(self, key: StateKey, oa: Option, ob: Option,
                 ) -> tuple[int, list[tuple[Target, int]], list[RoundOutcome]]:
        """One round's targets and weights, not merged (see :meth:`transitions`); and the
        round's outcomes they come from, in the same order."""
        assail, d, ca, cb, ra, rb, _ga, _gb, ta, tb = key
        t0, t1, _ = self._techs(ta, tb, oa, ob)
        kernel = self.round_outcomes(key, oa, ob)
        pieces = self.pieces
        ta2, tb2 = pieces.tech_next(t0), pieces.tech_next(t1)
        out: list[tuple[Target, int]] = []
        for winner, ha, hb, assail2, da, db, ga2, gb2, w in kernel.outcomes:
            if winner >= 0:
                out.append((winner, w))
                continue
            d2 = self.clamp(d + pieces.delta(ha, hb))
            out.append(((assail if assail2 == KEEP else assail2, d2, pieces.bump(ca, ha),
                         pieces.bump(cb, hb), pieces.recover(ra, da), pieces.recover(rb, db),
                         ga2, gb2, ta2, tb2), w))
        return kernel.den, out, kernel.outcomes

    def round_outcomes(self, key: StateKey, oa: Option, ob: Option) -> Kernel:
        """One round from ``key`` with these declarations, from the exact round form (S-03:
        the défenseur attacks first when the assaillant yields)."""
        assail, d, ca, cb, _ra, _rb, ga, gb, ta, tb = key
        yielded = (oa if assail == 0 else ob).yield_initiative
        x, y = self.form.offsets(d, self._techs(ta, tb, oa, ob)[2])
        ids = (self.alloc_index[0][oa.allocation], self.alloc_index[1][ob.allocation])
        first = 1 - assail if yielded else assail
        return self.form.kernel(first, x, y, self.pieces.near(ca, cb), ids, (ga, gb))

    def transitions(self, key: StateKey, oa: Option, ob: Option,
                    ) -> tuple[int, list[tuple[Target, int]]]:
        """One round from ``key`` with a's and b's declarations: (denominator, [(target, weight)]).

        A target is the next state, or the winner (0, 1).  Exactly the step engine's
        ``play_round`` with :func:`merge` of the declarations (the exhaustive test).
        """
        den, targets, _ = self.round_targets(key, oa, ob)
        out: dict[Target, int] = {}
        for t, w in targets:
            out[t] = out.get(t, 0) + w
        return den, list(out.items())

    def _techs(self, ta: Tech, tb: Tech, oa: Option, ob: Option,
               ) -> tuple[Tech, Tech, tuple[int, int, int, int]]:
        """S-05: the techniques in effect this round (one started now where none was), and
        their modifiers (a's attack, defence, b's attack, defence)."""
        t0, t1 = ta, tb
        if oa.technique is not None:
            t = self.ruleset.techniques[oa.technique]
            t0 = (t.attack, t.defence, t.duration)
        if ob.technique is not None:
            t = self.ruleset.techniques[ob.technique]
            t1 = (t.attack, t.defence, t.duration)
        return t0, t1, self.pieces.mods(t0, t1)

    def wounds(self, key: StateKey, oa: Option, ob: Option) -> tuple[int, ...]:
        """One round's wounds from ``key`` with these declarations: the weight (over the
        denominator of :meth:`transitions`) of each fighter taking a wound of each band,
        a's bands then b's (the wound that takes a fighter out included)."""
        return wound_weights(self.round_outcomes(key, oa, ob), len(self.form.penalty))

    # --- solving

    def solve(self, start: StateKey, rounds: int, policies: tuple[str, str] = (OPTIMAL, OPTIMAL),
              tolerance: float = DEFAULT_TOLERANCE, also: Sequence[StateKey] = ()) -> Solution:
        """The game from ``start`` with ``rounds`` rounds to the cap (then a draw), each
        fighter playing its policy (``optimal`` or ``sheet``); ``also``: more states whose
        values must be within the tolerance too (:meth:`Solution.value_at`).  Kept per
        question."""
        for p in policies:
            if p not in POLICIES:
                raise UsageError(Msg("game.policy", policy=p, known=", ".join(POLICIES)))
        tolerance = check_tolerance(tolerance)
        ask = (start, rounds, policies, tolerance, tuple(also))
        got = self._solved.get(ask)
        if got is None:
            # one solved game kept at a time in the process: each may take most of the memory
            # a game is allowed (MAX_GAME_BYTES)
            for game in (*_GAMES.values(), self):
                game._solved.clear()
            got = self._solved[ask] = Solution(self, start, max(1, rounds), policies, tolerance,
                                               tuple(also))
        return got


class _Kernels:
    """The game's rounds flattened for :class:`Solution` (built once per game, grown as
    solves need more): each kernel (:meth:`SevendagGame._kernel`) as a slice of flat arrays
    of its outcomes that lead to a state (the kernel's order, winners left out), and the
    pieces of a state interned to small ints, with what a round does to each (a wound
    counted, weapons picked up, a technique's rounds), so that a round's targets are
    computed for many rows at once and a state is looked up by one int instead of its
    nested tuple.  The weights are the kernel's own, divided in Python as before (the
    same floats)."""

    def __init__(self, game: SevendagGame) -> None:
        self.game = game
        self.ids: dict[tuple[int, ...], int] = {}  # (first, offsets, near, ids, granted) -> kernel
        self.same: dict[tuple[object, ...], int] = {}  # the same by what it depends on
        self.near_ids: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        self.nears: list[tuple[tuple[bool, ...], tuple[bool, ...]]] = []
        # per kernel: where its outcomes to a state start, how many, all outcomes, P(a wins),
        # P(b wins)
        self.off: list[int] = []
        self.length: list[int] = []
        self.n_all: list[int] = []
        self.pa: list[float] = []
        self.pb: list[float] = []
        # per outcome to a state: the keep-or-give initiative, D's change, the tracked slot of
        # a's wound and of b's (-1: none), the masks dropped, the granted criticals (2a + b)
        self.cols: tuple[array[int], ...] = tuple(array("i") for _ in range(7))
        self.p: array[float] = array("d")
        self._arrays: tuple[np.ndarray, ...] | None = None  # None: kernels added since
        self._kept: tuple[np.ndarray, ...] | None = None
        self._done = (0, 0)  # kernels, outcomes in _kept
        # interned pieces: counted wounds (both fighters), weapons picked up (per fighter),
        # techniques in effect
        self.count_ids: dict[tuple[int, ...], int] = {}
        self.counts: list[tuple[int, ...]] = []
        self.bump: list[list[int]] = []  # per counts: after no wound (0), a wound in slot s (s+1)
        self.rec_ids: tuple[dict[tuple[int, ...], int], dict[tuple[int, ...], int]] = ({}, {})
        self.recs: tuple[list[tuple[int, ...]], list[tuple[int, ...]]] = ([], [])
        self.recover: tuple[list[list[int]], list[list[int]]] = ([], [])  # per rec, per mask
        self.tech_ids: dict[Tech, int] = {}
        self.techs: list[Tech] = []
        self.tech_next: list[int] = []  # the technique in effect the next round
        self.started: dict[str, Tech] = {}
        for name, t in game.ruleset.techniques.items():
            self.started[name] = (t.attack, t.defence, t.duration)
            self.tech(self.started[name])
        self.tech(None)

    # --- interned pieces (each closed under what a round does to it)

    def tech(self, t: Tech) -> int:
        got = self.tech_ids.get(t)
        if got is None:
            got = self.tech_ids[t] = len(self.techs)
            self.techs.append(t)
            self.tech_next.append(-1)
            self.tech_next[got] = self.tech(self.game.pieces.tech_next(t))
        return got

    def count(self, c: tuple[int, ...]) -> int:
        got = self.count_ids.get(c)
        if got is None:
            got = self.count_ids[c] = len(self.counts)
            self.counts.append(c)
            row = [got]
            self.bump.append(row)
            form = self.game.form
            for band, s in form.slot.items():  # a wound that does not take the fighter out (S-19)
                ok = c[s] + 1 < form.limit[s]
                row.append(self.count(self.game.pieces.bump(c, band)) if ok else -1)
        return got

    def rec(self, f: int, r: tuple[int, ...]) -> int:
        ids = self.rec_ids[f]
        got = ids.get(r)
        if got is None:
            got = ids[r] = len(self.recs[f])
            self.recs[f].append(r)
            row: list[int] = []
            self.recover[f].append(row)
            for m in range(1 << len(r)):  # S-18
                row.append(self.rec(f, self.game.pieces.recover(r, m)))
        return got

    def near(self, ca: tuple[int, ...], cb: tuple[int, ...]) -> int:
        got = self.near_ids.get((ca, cb))
        if got is None:
            got = self.near_ids[(ca, cb)] = len(self.nears)
            self.nears.append(self.game.pieces.near(ca, cb))
        return got

    @property
    def outcomes(self) -> int:
        """The outcomes leading to a state of every kernel built."""
        return len(self.p)

    # --- kernels

    def kernel(self, first: int, x: int, y: int, near: int, ida: int, idb: int,
               granted: int) -> int:
        """The id of the kernel at attack offsets ``x`` (a's) and ``y`` (b's)."""
        key = (first, x, y, near, ida, idb, granted)
        got = self.ids.get(key)
        if got is not None:
            return got
        form = self.game.form
        g = (granted >> 1 == 1, granted & 1 == 1)
        same = form.kernel_key(first, x, y, self.nears[near], (ida, idb), g)
        got = self.same.get(same)
        if got is not None:
            self.ids[key] = got
            return got
        kernel = form.kernel(first, x, y, self.nears[near], (ida, idb), g)
        den, outcomes = kernel.den, kernel.outcomes
        slot = form.slot
        got = self.ids[key] = self.same[same] = len(self.off)
        self.off.append(len(self.p))
        self.n_all.append(len(outcomes))
        win = loss = 0
        cols = self.cols
        delta = self.game.pieces.delta
        for winner, ha, hb, assail2, da, db, ga2, gb2, w in outcomes:
            if winner >= 0:
                if winner == 0:
                    win += w
                else:
                    loss += w
                continue
            cols[0].append(assail2)
            cols[1].append(delta(ha, hb))
            cols[2].append(slot.get(ha, -1) + 1)
            cols[3].append(slot.get(hb, -1) + 1)
            cols[4].append(da)
            cols[5].append(db)
            cols[6].append(2 * (ga2 > 0) + (gb2 > 0))
            self.p.append(w / den)
        self.length.append(len(self.p) - self.off[got])
        self.pa.append(win / den)
        self.pb.append(loss / den)
        self._arrays = None
        return got

    def arrays(self) -> tuple[np.ndarray, ...]:
        """(off, length, n_all, pa, pb, p, *cols) as arrays (the kernels added since the last
        call appended)."""
        got = self._arrays
        if got is None:
            import numpy as np

            i64 = np.int64
            k0, e0 = self._done
            new = (np.array(self.off[k0:], dtype=i64), np.array(self.length[k0:], dtype=i64),
                   np.array(self.n_all[k0:], dtype=i64), np.array(self.pa[k0:]),
                   np.array(self.pb[k0:]), np.frombuffer(self.p, dtype=np.float64)[e0:].copy(),
                   *(np.frombuffer(c, dtype=np.int32)[e0:].copy() for c in self.cols))
            old = self._kept
            got = self._arrays = new if old is None else tuple(
                np.concatenate((a, b)) for a, b in zip(old, new, strict=True))
            self._kept = got
            self._done = (len(self.off), len(self.p))
        return got


class Solution:
    """A solved game from one state (see :meth:`SevendagGame.solve`).

    ``value``: P(a wins) + ½ P(draw) with both fighters playing their policies,
    within ``[low, high]`` (certified, rounding included); per option of the
    fighter who declares first in ``start``: :meth:`first_options`.
    """

    def __init__(self, game: SevendagGame, start: StateKey, rounds: int,
                 policies: tuple[str, str], tolerance: float,
                 also: tuple[StateKey, ...] = ()) -> None:
        import numpy as np

        self.game, self.start, self.rounds, self.policies = game, start, rounds, policies
        self.tolerance = tolerance
        states: list[StateKey] = list(dict.fromkeys((start, *also)))
        game.check_size(policies, states)  # bounded before anything is built
        index: dict[StateKey, int] = {k: i for i, k in enumerate(states)}
        seeds = len(states)  # the states whose interval must be within the tolerance
        # per state: the assaillant's options, the défenseur's
        self.opts: list[tuple[list[Option], list[Option]]] = []
        kern = game._flat()
        for key in states:  # the seeds' pieces (closed under a round: no new piece below)
            kern.count(key[2])
            kern.count(key[3])
            kern.rec(0, key[4])
            kern.rec(1, key[5])
            kern.tech(key[8])
            kern.tech(key[9])
        # A state as one int: its pieces in mixed radix
        lo, hi = game.lo, game.hi
        d_lo = min(lo, *(k[1] for k in states))
        n_d = max(hi, *(k[1] for k in states)) - d_lo + 1
        n_c, n_ra, n_rb, n_t = len(kern.counts), len(kern.recs[0]), len(kern.recs[1]), len(kern.techs)
        radix = (2, n_d, n_c, n_c, n_ra, n_rb, 4, n_t * n_t)
        wide = math.prod(radix) >= WIDE  # beyond int64: Python ints in object arrays
        bump = np.array(kern.bump, dtype=np.int64)
        recover = (np.array(kern.recover[0], dtype=np.int64),
                   np.array(kern.recover[1], dtype=np.int64))
        tech_ids, tech_next, started = kern.tech_ids, kern.tech_next, kern.started

        def encode(key: StateKey) -> int:
            assail, d, ca, cb, ra, rb, ga, gb, ta, tb = key
            code = 0
            for part, r in zip((assail, d - d_lo, kern.count_ids[ca], kern.count_ids[cb],
                                kern.rec_ids[0][ra], kern.rec_ids[1][rb], 2 * bool(ga) + bool(gb),
                                tech_ids[ta] * n_t + tech_ids[tb]), radix, strict=True):
                code = code * r + part
            return code

        codes: dict[int, int] = {encode(key): i for i, key in enumerate(states)}
        (aa, ad), (ba, bd) = game.chain.constants
        alloc_index = game.alloc_index
        n_alloc_b = len(game.allocs[1])
        parts: list[tuple[np.ndarray, ...]] = []  # per batch: rows, then entries
        n_rows = 0
        longest = 1
        k = 0
        # Breadth first, a batch at a time: every state known and not yet expanded, in order
        # (the order in which they are found, as when expanded one by one)
        n_entries = 0
        n_units = 0
        while k < len(states):
            batch: list[StateKey] = []
            # per option, first declarer's then answer's (S-05): yield, allocation id, attack
            # and defence modifiers, the technique in effect next round
            opt: tuple[list[int], ...] = ([], [], [], [], [])
            # per state: assaillant, D, counted, picking up (a, b), near, granted, options
            pieces: list[int] = []
            batch_rows = 0
            for key in states[k:]:
                if batch_rows >= MAX_BATCH_ROWS:
                    break
                batch.append(key)
                assail, d, ca, cb, ra, rb, ga, gb, ta, tb = key
                first = game.options(key, assail, policies[assail])
                second = game.options(key, 1 - assail, policies[1 - assail])
                self.opts.append((first, second))
                batch_rows += len(first) * len(second)
                pieces += (assail, d, kern.count_ids[ca], kern.count_ids[cb],
                           kern.rec_ids[0][ra], kern.rec_ids[1][rb], kern.near(ca, cb),
                           2 * bool(ga) + bool(gb), len(first), len(second))
                for f, opts in ((assail, first), (1 - assail, second)):
                    held = ta if f == 0 else tb
                    ids = alloc_index[f]
                    for o in opts:
                        tech = started[o.technique] if o.technique is not None else held
                        opt[0].append(o.yield_initiative)
                        opt[1].append(ids[o.allocation])
                        opt[2].append(tech[0] if tech else 0)
                        opt[3].append(tech[1] if tech else 0)
                        opt[4].append(tech_next[tech_ids[tech]])
            state = np.array(pieces, dtype=np.int64).reshape(-1, 10).T
            n1, n2 = state[8], state[9]
            o_yield, o_alloc, o_att, o_def, o_next = (np.array(x, dtype=np.int64) for x in opt)
            # each row: its state, first option i and answer j (rows: i, then j)
            per_state = n1 * n2
            row_state = np.repeat(np.arange(len(batch), dtype=np.int64), per_state)
            r = np.arange(batch_rows, dtype=np.int64) - np.repeat(
                np.cumsum(per_state) - per_state, per_state)
            row_i = r // n2[row_state]
            f_opt = np.repeat(np.cumsum(n1 + n2) - n1 - n2, per_state) + row_i
            s_opt = f_opt - row_i + n1[row_state] + r % n2[row_state]
            assail_r = state[0][row_state]
            a_first = assail_r == 0
            a_opt, b_opt = np.where(a_first, f_opt, s_opt), np.where(a_first, s_opt, f_opt)
            ida, idb = o_alloc[a_opt], o_alloc[b_opt]
            att = np.where(o_yield[f_opt] == 1, 1 - assail_r, assail_r)  # S-03: a yield
            d_r = state[1][row_state]
            x = (aa - bd) - d_r + o_att[a_opt] - o_def[b_opt]  # a's attack offset
            y = (ba - ad) + d_r + o_att[b_opt] - o_def[a_opt]  # b's
            # the kernel: by what it depends on (RoundForm.kernel_key), as one int
            pair = (att * len(game.allocs[0]) + ida) * n_alloc_b + idb
            pairs, pair_at = np.unique(pair, return_inverse=True)
            bounds = np.array([game.form.bounds(int(p) // (len(game.allocs[0]) * n_alloc_b), (
                int(p) // n_alloc_b % len(game.allocs[0]), int(p) % n_alloc_b))
                for p in pairs.tolist()], dtype=np.int64).reshape(-1, 4)[pair_at].T
            w = np.clip(np.where(att == 0, x, y), bounds[0], bounds[1])
            z = np.clip(np.where(att == 0, y, x), bounds[2], bounds[3])
            kernel_parts = (w - int(w.min()), z - int(z.min()), state[6][row_state],
                            state[7][row_state])
            sizes = [int(part.max()) + 1 for part in kernel_parts]
            code: np.ndarray = pair.astype(object) if math.prod(
                sizes, start=int(pair.max()) + 1) >= WIDE else pair
            for part, size in zip(kernel_parts, sizes, strict=True):
                code = code * size + part
            _, same_at, same_inverse = np.unique(code, return_index=True, return_inverse=True)
            kid_same = np.array([kern.kernel(*args) for args in zip(*(
                v[same_at].tolist() for v in (att, x, y, state[6][row_state], ida, idb,
                                              state[7][row_state])),
                strict=True)], dtype=np.int64)
            kid_arr = kid_same[same_inverse]
            row_tech = o_next[a_opt] * n_t + o_next[b_opt]  # a's technique next round, b's
            (k_off, k_len, k_all, k_pa, k_pb, k_p, c_assail, c_delta, c_sa, c_sb, c_da, c_db,
             c_g) = kern.arrays()
            # Rows of a state with the same round and the same techniques next round lead to the
            # same places with the same chances: one *unit* each, in the order first found
            unit_code = row_state.astype(object) if len(batch) * (len(k_off) + 1) * (
                n_t * n_t) >= WIDE else row_state
            unit_code = (unit_code * (len(k_off) + 1) + kid_arr) * (n_t * n_t) + row_tech
            _, u_first, u_inverse = np.unique(unit_code, return_index=True, return_inverse=True)
            u_order = np.argsort(u_first, kind="stable")
            u_rank = np.empty_like(u_order)
            u_rank[u_order] = np.arange(u_order.size)
            u_rows = u_first[u_order]  # each unit's first row
            row_unit = u_rank[u_inverse.reshape(-1)]
            u_kid, u_state = kid_arr[u_rows], row_state[u_rows]
            lens = k_len[u_kid]
            n_entries += int(lens.sum())
            _check_bytes(game, len(states), n_rows + batch_rows, n_entries)
            ent = np.repeat(k_off[u_kid] - np.cumsum(lens) + lens, lens) + np.arange(
                int(lens.sum()), dtype=np.int64)
            piece = state[:6, np.repeat(u_state, lens)]
            # each entry's target: the pieces after the round
            to_assail = c_assail[ent]
            to_assail = np.where(to_assail == KEEP, piece[0], to_assail)
            to_d = np.clip(piece[1] + c_delta[ent], lo, hi) - d_lo
            to_ca, to_cb = bump[piece[2], c_sa[ent]], bump[piece[3], c_sb[ent]]
            to_ra, to_rb = recover[0][piece[4], c_da[ent]], recover[1][piece[5], c_db[ent]]
            to_g = c_g[ent]
            to_t = np.repeat(row_tech[u_rows], lens)
            if ent.size and min(int(to_ca.min()), int(to_cb.min())) < 0:
                raise RuntimeError("a wound counted past the fighter's last")  # never: S-19
            code = to_assail.astype(object) if wide else to_assail
            for part, r in zip((to_d, to_ca, to_cb, to_ra, to_rb, to_g, to_t), radix[1:],
                               strict=True):
                code = code * r + part
            uniq, first_at, inverse = np.unique(code, return_index=True, return_inverse=True)
            col_of = np.array([codes.get(c, -1) for c in uniq.tolist()], dtype=np.int64)
            new = np.flatnonzero(col_of < 0)
            if new.size:
                new = new[np.argsort(first_at[new], kind="stable")]  # in the order found
                _check_bytes(game, len(states) + new.size, n_rows + batch_rows, n_entries)
                col_of[new] = np.arange(len(states), len(states) + new.size)
                at = first_at[new]
                for c, a2, d2, ca2, cb2, ra2, rb2, g2, t2 in zip(
                        uniq[new].tolist(), *(arr[at].tolist() for arr in (
                            to_assail, to_d, to_ca, to_cb, to_ra, to_rb, to_g, to_t)),
                        strict=True):
                    t_a, t_b = divmod(t2, n_t)
                    key = (a2, d2 + d_lo, kern.counts[ca2], kern.counts[cb2], kern.recs[0][ra2],
                           kern.recs[1][rb2], g2 >> 1 == 1, g2 & 1 == 1, kern.techs[t_a],
                           kern.techs[t_b])
                    codes[c] = index[key] = len(states)
                    states.append(key)
            n_batch = batch_rows
            if n_batch:
                longest = max(longest, int(k_all[kid_arr].max()))
            i32 = np.int32  # states, rows, units and outcomes counted well within 2**31
            parts.append(((row_state + k).astype(i32), row_i.astype(i32), k_pa[kid_arr],
                          k_pb[kid_arr], (row_unit + n_units).astype(i32),
                          k_all[kid_arr].astype(i32), (u_state + k).astype(i32),
                          np.repeat(np.arange(n_units, n_units + u_rows.size, dtype=i32), lens),
                          col_of[inverse].astype(i32), k_p[ent]))
            n_rows += n_batch
            n_units += u_rows.size
            k += len(batch)
        (rs_arr, ri_arr, pa_arr, pb_arr, row_unit_arr, outcomes, unit_state, ent_unit, ent_col,
         ent_p) = (np.concatenate([p[i] for p in parts]) for i in range(10))
        self.row_outcomes: np.ndarray = outcomes
        """Each row's outcomes (the winners' included): its rounding allowance counts them."""
        self.states = states
        self.index = index
        # groups: (state, first option) blocks, then state blocks (rows are in order)
        new_si = np.ones(n_rows, dtype=bool)
        new_si[1:] = (rs_arr[1:] != rs_arr[:-1]) | (ri_arr[1:] != ri_arr[:-1])
        si_starts = np.flatnonzero(new_si)
        si_state = rs_arr[si_starts]
        new_s = np.ones(len(si_starts), dtype=bool)
        new_s[1:] = si_state[1:] != si_state[:-1]
        s_starts = np.flatnonzero(new_s)
        a_first = np.array([s[0] == 0 for s in states], dtype=bool)
        self._np = np
        self._pa = pa_arr
        self._pb = pb_arr
        self._unit = row_unit_arr  # each row's unit: the rows of a unit have the same entries
        self._unit_state = unit_state
        self._row = ent_unit  # each entry's unit
        self._col = ent_col
        self._p = ent_p
        self._n_rows = n_rows
        self._n_units = n_units
        self._si_starts, self._s_starts = si_starts, s_starts
        self._si_a_first = a_first[si_state]  # a declares first: the answer (b) minimises
        self._a_first = a_first
        self._row_state, self._row_i = rs_arr, ri_arr
        self._ptr: np.ndarray | None = None
        self._columns: tuple[np.ndarray, list[tuple[int, np.ndarray, np.ndarray]]] | None = None
        # +1 where the side choosing maximises (a), -1 where it minimises (b): per row and
        # per group the answer's, per group and per state the first declarer's
        sign_group = np.where(self._si_a_first, -1.0, 1.0)
        sign_state = np.where(a_first, 1.0, -1.0)
        self._signs = (np.repeat(sign_group, np.diff(np.append(si_starts, n_rows))), sign_group,
                       sign_state[si_state], sign_state)
        self._start_rows = np.flatnonzero(rs_arr < seeds)
        self._longest = longest
        self.n_rows = n_rows
        self._decisions: np.ndarray | None = None
        self._values: _Values | None = None

    # --- the game's value (value iteration), computed when first asked

    def _iterated(self) -> _Values:
        """Value iteration from ``V = 0`` and ``V = 1`` at once (each row's value, t rounds to go
        after it), until the start's interval is within the tolerance or every round to the cap
        is counted (then the draw at the cap, exactly, from ``V = ½``).  Not needed to play the
        declarations (:meth:`decisions`): done when a value is first asked for."""
        got = self._values
        if got is not None:
            return got
        np = self._np
        n, rounds, start_rows = len(self.states), self.rounds, self._start_rows
        low, high = np.zeros(n), np.ones(n)
        q_low, q_high = self._q(low), self._q(high)
        t = 0
        last = min(rounds - 1, MAX_STEPS)
        while t < last:
            width = float(np.max(q_high[start_rows] - q_low[start_rows]))
            if width <= self.tolerance:
                break
            low, high = self._reduce(q_low), self._reduce(q_high)
            q_low, q_high = self._q(low), self._q(high)
            t += 1
        # rounding: each step sums at most ``longest`` + 1 rounded products per row
        error = (t + 1) * gamma(self._longest + 4)
        complete = t >= rounds - 1
        if complete:  # every round to the cap counted: the draw at the cap, exactly
            mid = np.full(n, 0.5)
            for _ in range(t):
                mid = self._step(mid)
            q_mid = self._q(mid)
            q_low = q_high = q_mid
        else:
            q_mid = (q_low + q_high) / 2
        q_rows = (q_low, q_high, q_mid)
        v_low, v_high, v_mid = (self._reduce(q) for q in q_rows)
        got = self._values = _Values(t, error, complete, q_rows, (v_low, v_high, v_mid))
        return got

    @property
    def steps(self) -> int:
        """Rounds of value iteration until the start's interval fit the tolerance."""
        return self._iterated().steps

    @property
    def error(self) -> float:
        """The values' rounding allowance."""
        return self._iterated().error

    @property
    def complete(self) -> bool:
        """Whether every round to the cap was counted (the values exact but for rounding)."""
        return self._iterated().complete

    @property
    def value(self) -> float:
        """a's value from the start: P(a wins) + ½ P(draw)."""
        return float(self._iterated().v[2][0])

    @property
    def low(self) -> float:
        got = self._iterated()
        return max(0.0, float(got.v[0][0]) - got.error)

    @property
    def high(self) -> float:
        got = self._iterated()
        return min(1.0, float(got.v[1][0]) + got.error)

    def _q(self, v: np.ndarray) -> np.ndarray:
        """Each row's value with ``v`` after it: P(a wins now) + Σ p v(target), the entries
        summed in their order from 0 (as ``bincount`` would), once per unit (the rows of a
        unit share their entries): column ``j`` holds each unit's ``j``-th entry, the units
        longest first, so that column is added to a prefix."""
        cols = self._columns
        if cols is None:
            cols = self._columns = self._by_column()
        rank, columns = cols
        acc = self._np.zeros(self._n_units)
        for k, col, p in columns:
            acc[:k] += p * v[col]
        q: np.ndarray = self._pa + acc[rank]
        return q

    def _by_column(self) -> tuple[np.ndarray, list[tuple[int, np.ndarray, np.ndarray]]]:
        """The entries by column (see :meth:`_q`): each row's place (its unit's, longest
        first), and per column the units that have one, its targets and its probabilities."""
        xp = self._np
        ptr = self.unit_entries()
        lens = xp.diff(ptr)
        order = xp.argsort(-lens, kind="stable")
        rank = xp.empty(self._n_units, dtype=xp.int64)
        rank[order] = xp.arange(self._n_units)
        longest = -lens[order]  # ascending
        first = ptr[order]
        columns: list[tuple[int, np.ndarray, np.ndarray]] = []
        for j in range(int(lens.max()) if lens.size else 0):
            k = int(xp.searchsorted(longest, -j, side="left"))  # units with more than j
            e = first[:k] + j
            columns.append((k, self._col[e], self._p[e]))
        return rank[self._unit], columns

    def _reduce(self, q: np.ndarray) -> np.ndarray:
        """Each state's value from its rows' (the answer's best, then the first declarer's):
        a minimum taken as the maximum of the values negated, then negated back (exact)."""
        xp = self._np
        sign_row, sign_group, sign_first, sign_state = self._signs
        inner = sign_group * xp.maximum.reduceat(sign_row * q, self._si_starts)
        v: np.ndarray = sign_state * xp.maximum.reduceat(sign_first * inner, self._s_starts)
        return v

    def _step(self, v: np.ndarray) -> np.ndarray:
        return self._reduce(self._q(v))

    # --- what the first declarer can do

    def best(self, key: StateKey, declared: Option | None = None) -> Option:
        """The optimal declaration in state ``key`` (of this solution's closure): the first
        declarer's, or with ``declared`` (the first's declaration) the answer."""
        xp = self._np
        s = self.index[key]
        rows = xp.flatnonzero(self._row_state == s)
        first, second = self.opts[s]
        q = self._iterated().q_rows[2][rows].reshape(len(first), len(second))
        a_first = key[0] == 0
        if declared is None:
            inner = q.min(axis=1) if a_first else q.max(axis=1)
            return first[int(xp.argmax(inner) if a_first else xp.argmin(inner))]
        row = q[first.index(declared)]
        return second[int(xp.argmin(row) if a_first else xp.argmax(row))]

    def value_at(self, key: StateKey) -> tuple[float, float, float]:
        """a's value from ``key`` (of this solution's closure), and its certified bounds
        (within the tolerance for the start and the states solved ``also``)."""
        v_low, v_high, v_mid = self._iterated().v
        s = self.index[key]
        e = self.error
        return (float(v_mid[s]), max(0.0, float(v_low[s]) - e),
                min(1.0, float(v_high[s]) + e))

    def decisions(self) -> np.ndarray:
        """The rows both fighters play, per rounds to go: ``D[t - 1, s]`` is the row (an index
        of :meth:`row_options`) of state ``s`` with ``t`` rounds to go, this one included.

        Optimal play with the cap depends on the rounds left: far from the cap, a fighter
        ahead may lose nothing by waiting (several declarations tie), and only near the cap
        must it act, so one declaration per state, whatever the round, can fall well short
        of the game's value.  These are the declarations of the game with every round to the
        cap counted (value iteration from ½, the draw at the cap): the first declarer's best
        option, then the best answer to it; among options within :data:`TIE` of the best,
        the one most likely to win this very round (then the first listed), so that a fighter
        who can win now does not wait for the cap.  Played round by round, they give the
        game's value (within ``TIE`` a round).  Kept once computed.

        Far from the cap they settle: once no declaration has changed for :data:`SETTLED`
        rounds and no value by more than ``TIE``, the rows stop there, and every further
        round to go plays the last (:meth:`rows_for`).
        """
        kept = self._decisions
        if kept is not None:
            return kept
        np = self._np
        n, rounds = len(self.states), self.rounds
        out = np.empty((min(rounds, MAX_DECISIONS // max(1, n)), n), dtype=np.int32)
        big = self._n_rows
        si_starts, s_starts = self._si_starts, self._s_starts
        group_len = np.diff(np.append(si_starts, big))
        n_groups = len(si_starts)
        state_len = np.diff(np.append(s_starts, n_groups))
        groups = np.arange(n_groups)
        # +1 where a maximises (a declares first in the state, or answers b), per row / group
        sign_answer, _, sign_first, _ = self._signs
        a_answers = sign_answer > 0
        # who ends the fight this round in the chooser's favour: a's win, or b's
        progress_answer = np.where(a_answers, self._pa, self._pb)
        progress_first = np.where(self._a_first[self._row_state], self._pa, self._pb)
        # each group's rows in the order an answer is preferred among those within TIE of the
        # best: the most likely to win this very round first, then the first listed
        order = np.lexsort((np.arange(big), -progress_answer, np.repeat(groups, group_len)))
        sign_order = sign_answer[order]
        at = np.arange(big, dtype=np.int64)
        v = np.full(n, 0.5)
        same = 0
        for t in range(rounds):
            q = self._q(v)
            # the answer to each first option: its best, the fastest win among equals
            x = sign_order * q[order]
            low = np.repeat(np.maximum.reduceat(x, si_starts) - TIE, group_len)
            answer = order[np.minimum.reduceat(np.where(x >= low, at, big), si_starts)]
            # the first declarer's option: the same, over the answered options
            y = sign_first * q[answer]
            top = np.repeat(np.maximum.reduceat(y, s_starts) - TIE, state_len)
            group = _first_best(y >= top, progress_first[answer], groups, s_starts, n_groups)
            rows = answer[group]
            new_v = q[rows]
            if t > 0 and np.array_equal(rows, out[t - 1]) and \
                    float(np.max(np.abs(new_v - v))) <= TIE:
                same += 1
            else:
                same = 0
            v = new_v
            if t >= len(out):
                raise UsageError(Msg("game.horizon", a=self.game.names[0],
                                     b=self.game.names[1], rounds=rounds, max=len(out)))
            out[t] = rows
            if same >= SETTLED:
                out = out[:t + 1]
                break
        self._decisions = out[:rounds]
        return self.decisions()

    def rows_for(self, togo: int) -> np.ndarray:
        """Each state's row with ``togo`` rounds to go (see :meth:`decisions`)."""
        d = self.decisions()
        rows: np.ndarray = d[min(togo, len(d)) - 1]
        return rows

    def unit_entries(self) -> np.ndarray:
        """Where each unit's entries start (and, last, where they end), in the entry arrays."""
        kept = self._ptr
        if kept is None:
            np = self._np
            kept = self._ptr = np.searchsorted(self._row, np.arange(self._n_units + 1))
        return kept

    @property
    def row_states(self) -> np.ndarray:
        """Each row's state (rows: a state's first declarer's options, each with every answer)."""
        return self._row_state

    @property
    def wins_now(self) -> tuple[np.ndarray, np.ndarray]:
        """Each row's chance that a wins in that very round, and that b does."""
        return self._pa, self._pb

    def row_values(self, v: np.ndarray) -> np.ndarray:
        """Each row's value with the states' values ``v`` after its round (see :meth:`_q`)."""
        return self._q(v)

    def state_values(self, q: np.ndarray) -> np.ndarray:
        """Each state's value from its rows' (see :meth:`_reduce`)."""
        return self._reduce(q)

    @property
    def targets(self) -> np.ndarray:
        """Each entry's target state (entries: the outcomes of a unit's round that lead to a
        state, the units' in order)."""
        return self._col

    @property
    def probs(self) -> np.ndarray:
        """Each entry's probability."""
        return self._p

    def entry_states(self) -> np.ndarray:
        """Each entry's state (non-decreasing)."""
        got: np.ndarray = self._unit_state[self._row]
        return got

    def entries_of(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The entries of ``rows`` (their units'): each entry's index in the entry arrays, and
        the position in ``rows`` of the row it belongs to."""
        np = self._np
        ptr = self.unit_entries()
        units = self._unit[rows]
        lengths = ptr[units + 1] - ptr[units]
        ent = np.repeat(ptr[units] - np.cumsum(lengths) + lengths, lengths) + np.arange(
            int(lengths.sum()))
        return ent, np.repeat(np.arange(len(rows)), lengths)

    def row_options(self, row: int) -> tuple[Option, Option]:
        """The declarations (a's, b's) of one row."""
        s = int(self._row_state[row])
        first, second = self.opts[s]
        k = row - int(self._si_starts[self._s_starts[s]])
        i, j = divmod(k, len(second))
        return (first[i], second[j]) if self.states[s][0] == 0 else (second[j], first[i])

    def first_options(self) -> list[OptionValue]:
        """Each option of the fighter declaring first in ``start``: its value for a (the
        opponent answering optimally within the round, both playing their policies after),
        its bounds, and the answer."""
        np = self._np
        q_low, q_high, q_mid = self._iterated().q_rows
        rows = np.flatnonzero(self._row_state == 0)
        first, second = self.opts[0]
        a_first = self.start[0] == 0
        out: list[OptionValue] = []
        n2 = len(second)
        e = self.error
        for i, o in enumerate(first):
            block = rows[i * n2:(i + 1) * n2]
            vals = q_mid[block]
            j = int(np.argmin(vals) if a_first else np.argmax(vals))
            lo_v = float(np.min(q_low[block]) if a_first else np.max(q_low[block]))
            hi_v = float(np.min(q_high[block]) if a_first else np.max(q_high[block]))
            out.append(OptionValue(o, float(vals[j]), max(0.0, lo_v - e), min(1.0, hi_v + e),
                                   second[j]))
        return out

    def answers(self, declared: Option) -> list[OptionValue]:
        """Each answer of the fighter declaring second once the first declared ``declared``."""
        np = self._np
        q_low, q_high, q_mid = self._iterated().q_rows
        rows = np.flatnonzero(self._row_state == 0)
        first, second = self.opts[0]
        i = first.index(declared)
        n2 = len(second)
        e = self.error
        return [OptionValue(o, float(q_mid[r]), max(0.0, float(q_low[r]) - e),
                            min(1.0, float(q_high[r]) + e), None)
                for o, r in zip(second, rows[i * n2:(i + 1) * n2], strict=True)]


def _check_bytes(game: SevendagGame, states: int, rows: int, entries: int) -> None:
    """Refuse, in one line, a game whose build has grown past :data:`MAX_GAME_BYTES`."""
    size = GameSize(states, rows)
    used = size.bytes(entries, game._flat().outcomes)
    if used > MAX_GAME_BYTES:
        raise UsageError(Msg("game.grown", a=game.names[0], b=game.names[1], states=states,
                             rows=rows, mb=used >> 20, max=MAX_GAME_BYTES >> 20))


def _first_best(tied: np.ndarray, progress: np.ndarray, pos: np.ndarray, starts: np.ndarray,
                big: int) -> np.ndarray:
    """Per segment (``starts``): the first position among the ``tied`` best with the most
    ``progress`` (the chooser's chance to win this very round)."""
    import numpy as np

    score = np.where(tied, progress, -1.0)
    seg_len = np.diff(np.append(starts, len(score)))
    most = np.repeat(np.maximum.reduceat(score, starts), seg_len)
    found: np.ndarray = np.minimum.reduceat(np.where(tied & (score >= most), pos, big), starts)
    return found


class _Values(Struct, frozen=True, gc=False):
    """A solved game's values (:meth:`Solution._iterated`): the steps, the rounding allowance,
    whether every round to the cap was counted, each row's (low, high, mid) and each state's."""

    steps: int
    error: float
    complete: bool
    q_rows: tuple[np.ndarray, np.ndarray, np.ndarray]
    v: tuple[np.ndarray, np.ndarray, np.ndarray]


class OptionValue(Struct, frozen=True, gc=False):
    """One declaration with the game's value for a if taken (P(a wins) + ½ P(draw)), its
    certified bounds, and the opponent's best answer (None for an answer itself)."""

    option: Option
    value: float
    low: float
    high: float
    answer: Option | None


def value_for(fighter: int, v: OptionValue) -> tuple[float, float, float]:
    """(value, low, high) from ``fighter``'s side (b's is 1 - a's)."""
    if fighter == 0:
        return v.value, v.low, v.high
    return 1.0 - v.value, 1.0 - v.high, 1.0 - v.low


# --- one game per (ruleset, pair) --------------------------------------------------------

_GAMES: dict[tuple[object, ...], SevendagGame] = {}
_GAMES_SIZE = 2


def game_for(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter) -> SevendagGame:
    """The game of this pair under this ruleset, built once per process (its solutions kept)."""
    from sevendag_cli.sevendag.chain import _ruleset_key

    check_fighters(ruleset, a, b)
    key = (_ruleset_key(ruleset), a.name, b.name, fighter_model(ruleset, a),
           fighter_model(ruleset, b), a.attack, a.defence, b.attack, b.defence,
           a.yield_rule, a.technique_rule, b.yield_rule, b.technique_rule)
    game = _GAMES.get(key)
    if game is None:
        game = SevendagGame(ruleset, a, b)
        if len(_GAMES) >= _GAMES_SIZE:
            _GAMES.pop(next(iter(_GAMES)))
        _GAMES[key] = game
    return game


def solve_state(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
                state: SevendagState, *, policies: Sequence[str] = (OPTIMAL, OPTIMAL),
                cap: int | None = None, tolerance: float = DEFAULT_TOLERANCE,
                ) -> Solution | int:
    """The solved game from an engine state between rounds, or the winner when it is over
    (0 = a, 1 = b, -1 = a draw)."""
    game = game_for(ruleset, a, b)
    key = game.key_of(state)
    if isinstance(key, int):
        return key
    cap = ruleset.round_cap if cap is None else cap
    p = tuple(policies)
    return game.solve(key, max(1, cap - state.round), (p[0], p[1]), tolerance)


__all__ = [
    "OPTIMAL",
    "POLICIES",
    "SHEET",
    "Option",
    "OptionValue",
    "SevendagGame",
    "Solution",
    "game_for",
    "merge",
    "solve_state",
    "value_for",
]
