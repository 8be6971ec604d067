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
from sevendag_cli.sevendag.rounds import (
    KEEP,
    Kernel,
    Option,
    RoundOutcome,
    Tech,
    merge,
    wound_weights,
)
from sevendag_cli.sevendag.rows import MAX_GAME_BYTES, GameSize
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
from sevendag_cli.sevendag.rules import yields as rule_yields
from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, check_tolerance, gamma

if TYPE_CHECKING:
    import numpy as np
    from scipy.sparse import csr_matrix

    from sevendag_cli.sevendag.declare import Chooser
    from sevendag_cli.sevendag.rows import Kernels


MAX_STEPS = 5_000
"""Most rounds of value iteration (a fight that can go on for ever stops there, its interval
left open)."""
TIE = 1e-12
"""Values this close are a tie when the declarations are chosen: the one that wins sooner
is played (the game's value moves by at most this much a round)."""
SETTLED = 32
"""Rounds with the same declarations everywhere (and values within ``TIE``) after which they
are taken as settled for every further round to go."""
SAMPLED_ROUNDS = 256
"""Allocation pairs whose round is computed to estimate a game's outcomes before it is built
(:meth:`SevendagGame.sampled_outcomes`)."""
ENTRY_SHARE = 0.27
"""A game's outcomes leading to a state, per declared round, over a sampled round's: rows of
a state that lead to the same places with the same chances share their outcomes (measured
0.28-0.98 over the bench pairs, the 10-technique ruleset, dual wield and every policy pair:
the least, so that a game refused before it is built would not have fitted)."""
MAX_DECISIONS = 20_000_000
"""Most (state, rounds to go) declarations one solved game keeps for play (80 MB)."""


Target = StateKey | int
"""Where a round leads: a state, or the winner (0 = a, 1 = b)."""


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
        self._kernels: Kernels | None = None
        self._options: dict[tuple[int, bool, int, bool], list[Option]] = {}

    def release(self) -> None:
        """Drop the rounds built for solving (built again if this game is solved again)."""
        self._kernels = None
        self.form.forget()

    def kernels(self) -> Kernels:
        """The game's rounds flattened for solving (see :class:`~.rows.Kernels`), built once."""
        got = self._kernels
        if got is None:
            from sevendag_cli.sevendag.rows import Kernels

            got = self._kernels = Kernels(self)
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
        """:meth:`size`, refused in one line when it would take more than
        :data:`MAX_GAME_BYTES`: its states and rows, and the outcomes of its rounds that lead
        to a state (not known before the rounds are built) as :data:`ENTRY_SHARE` of the rows
        times a sampled round's (:meth:`sampled_outcomes`).  The build counts them again as it
        goes (``game.grown``)."""
        size = self.size(policies, seeds)
        used = size.bytes(size.rows)  # at least one outcome a round
        if used <= MAX_GAME_BYTES:
            used = size.bytes(max(size.rows, int(size.rows * self.sampled_outcomes() * ENTRY_SHARE)))
        if used > MAX_GAME_BYTES:
            raise UsageError(Msg("game.size", a=self.names[0], b=self.names[1],
                                 states=size.states, rows=size.rows,
                                 mb=used >> 20, max=MAX_GAME_BYTES >> 20))
        return size

    def sampled_outcomes(self) -> float:
        """The mean number of outcomes leading to a state of a round, over up to
        :data:`SAMPLED_ROUNDS` allocation pairs spread over all of them, each attacking first
        in turn, at the start's wounds and no penalty or technique."""
        pairs = [(i, j) for i in range(len(self.allocs[0])) for j in range(len(self.allocs[1]))]
        step = max(1, -(-len(pairs) // SAMPLED_ROUNDS))
        key = self.start_key(0)
        near = self.pieces.near(key[2], key[3])
        x, y = self.form.offsets(0, (0, 0, 0, 0))
        counts = [sum(1 for o in self.form.kernel(first, x, y, near, ids, (False, False)).outcomes
                      if o[0] < 0) for ids in pairs[::step] for first in (0, 1)]
        return sum(counts) / len(counts)

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
            # a game is allowed (MAX_GAME_BYTES); the other games' rounds go too (a roster's
            # worker solves pair after pair)
            for game in (*_GAMES.values(), self):
                game._solved.clear()
                if game is not self:
                    game.release()
            got = self._solved[ask] = Solution(self, start, max(1, rounds), policies, tolerance,
                                               tuple(also))
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
        seeds = len(states)  # the states whose interval must be within the tolerance
        from sevendag_cli.sevendag.rows import Rows

        built = Rows(game, states, policies).build()
        # per state: the assaillant's options, the défenseur's
        self.opts: list[tuple[list[Option], list[Option]]] = built.opts
        index, longest, n_rows, n_units = built.index, built.longest, built.n_rows, built.n_units
        (rs_arr, ri_arr, pa_arr, pb_arr, row_unit_arr, outcomes, unit_state, ent_unit, ent_col,
         ent_p, row_kernel) = built.arrays()
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
        # each row's unit (the rows of a unit have the same entries), as numpy's index type:
        # a gather by int32 indices converts them on every call
        self._unit = row_unit_arr.astype(np.intp)
        self._unit_state = unit_state
        # each row's round (a kernel of game.kernels()): a unit's rows may roll different
        # rounds that lead to the same places, with wounds of their own
        self._row_kernel = row_kernel
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
        self._matrix: csr_matrix | None = None  # the entries as a sparse matrix (units x states)
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
        self._chooser: Chooser | None = None
        self._unit_sign: np.ndarray | None = None

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
        start_units, start_pa = self._unit.take(start_rows), self._pa.take(start_rows)[:, None]
        start_sign = self.unit_sign.take(start_units)[:, None]
        # from 0 and from 1 side by side: column 0 the low values, column 1 the high; the
        # rows' values (P(a wins now) + the units') only where they are read
        v = np.stack([np.zeros(n), np.ones(n)], axis=1)
        acc = self.unit_values(v)
        t = 0
        last = min(rounds - 1, MAX_STEPS)
        while t < last:
            q_start = start_pa + start_sign * acc.take(start_units, axis=0)
            width = float(np.max(q_start[:, 1] - q_start[:, 0]))
            if width <= self.tolerance:
                break
            v = self.values_after(acc)
            acc = self.unit_values(v)
            t += 1
        q = self._rows_of(acc)
        q_low, q_high = q[:, 0].copy(), q[:, 1].copy()
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
        """Each row's value with ``v`` after it: P(a wins now) + Σ p v(target), once per unit
        (the rows of a unit share their entries), as one sparse product: scipy's CSR product
        sums each unit's entries one after the other in their order from 0 (as ``bincount``
        would), so the values are the same to the last bit whatever the product's speed.
        ``v`` may hold several value vectors side by side (one per column)."""
        return self._rows_of(self.unit_values(v))

    def _rows_of(self, acc: np.ndarray) -> np.ndarray:
        """Each row's value from the units' (:meth:`unit_values`, one column or several):
        P(a wins now) + its unit's, the sign taken off."""
        two = acc.ndim == 2
        sign = self.unit_sign[:, None] if two else self.unit_sign
        pa = self._pa[:, None] if two else self._pa
        q: np.ndarray = pa + (sign * acc).take(self._unit, axis=0)
        return q

    def _unit_matrix(self) -> csr_matrix:
        """The entries as a sparse matrix (units x states), each unit's negated where its
        state's answer minimises (:attr:`unit_sign`), built when first needed."""
        matrix = self._matrix
        if matrix is None:
            import scipy.sparse

            matrix = self._matrix = scipy.sparse.csr_matrix(
                (self._p * self.unit_sign.take(self._row), self._col, self.unit_entries()),
                shape=(self._n_units, len(self.states)))
        return matrix

    @property
    def unit_sign(self) -> np.ndarray:
        """Per unit, 1.0 where its state's answer maximises a's value (b declares first),
        -1.0 where it minimises: :meth:`unit_values` are the units' values times this."""
        got = self._unit_sign
        if got is None:
            got = self._unit_sign = self._np.where(self._a_first.take(self._unit_state), -1.0,
                                                   1.0)
        return got

    def _reduce(self, q: np.ndarray) -> np.ndarray:
        """Each state's value from its rows' (the answer's best, then the first declarer's):
        a minimum taken as the maximum of the values negated, then negated back (exact)."""
        xp = self._np
        sign_row, sign_group, sign_first, sign_state = self._signs
        if q.ndim == 2:  # several side by side (see _q)
            sign_row, sign_group, sign_first, sign_state = (
                x[:, None] for x in (sign_row, sign_group, sign_first, sign_state))
        inner = sign_group * xp.maximum.reduceat(sign_row * q, self._si_starts)
        v: np.ndarray = sign_state * xp.maximum.reduceat(sign_first * inner, self._s_starts)
        return v

    def _step(self, v: np.ndarray) -> np.ndarray:
        return self.values_after(self.unit_values(v))

    def unit_values(self, v: np.ndarray) -> np.ndarray:
        """Each unit's value with the states' values ``v`` after its round, P(a wins now) left
        out (see :meth:`_q`), as the answer reads it: negated where it minimises (times
        :attr:`unit_sign`; negation is exact, so the sums are the plain ones negated, bit for
        bit); ``v`` may hold several value vectors side by side."""
        acc: np.ndarray = self._unit_matrix() @ v
        return acc

    def values_after(self, acc: np.ndarray) -> np.ndarray:
        """Each state's value from its units' (:meth:`unit_values`): ``_reduce(_q(v))`` bit
        for bit, over the rows laid out once (:meth:`chooser`), a column at a time."""
        chooser = self.chooser()
        if acc.ndim == 1:
            return chooser.values(acc)
        return self._np.stack([chooser.values(acc[:, k]) for k in range(acc.shape[1])],
                              axis=1)

    def chooser(self) -> Chooser:
        """The rows laid out for choosing (:class:`~sevendag_cli.sevendag.declare.Chooser`),
        built when first needed."""
        got = self._chooser
        if got is None:
            from sevendag_cli.sevendag.declare import Chooser

            np = self._np
            sign_answer, sign_group, _, _ = self._signs
            # who ends the fight this round in the chooser's favour: a's win, or b's
            got = self._chooser = Chooser(
                self._si_starts, self._s_starts, sign_group > 0, self._a_first, self._unit,
                np.where(sign_answer > 0, self._pa, self._pb),
                np.where(self._a_first[self._row_state], self._pa, self._pb), self._pa)
        return got

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
        from sevendag_cli.sevendag.declare import settle

        chooser = self.chooser()
        matrix = self._unit_matrix()
        names = self.game.names
        kept = self._decisions = settle(
            chooser, lambda v: matrix @ v, self.rounds, MAX_DECISIONS // max(1, len(self.states)),
            TIE, SETTLED, lambda most: UsageError(Msg("game.horizon", a=names[0], b=names[1],
                                                      rounds=self.rounds, max=most)))
        return kept

    def rows_for(self, togo: int) -> np.ndarray:
        """Each state's row with ``togo`` rounds to go (see :meth:`decisions`)."""
        from sevendag_cli.sevendag.declare import row_index

        d = self.decisions()
        rows: np.ndarray = d[row_index(len(d), togo)]
        return rows

    def unit_entries(self) -> np.ndarray:
        """Where each unit's entries start (and, last, where they end), in the entry arrays."""
        kept = self._ptr
        if kept is None:
            np = self._np
            # the entries are in their units' order: each unit's count, summed
            kept = self._ptr = np.concatenate((np.zeros(1, dtype=np.int64), np.cumsum(
                np.bincount(self._row, minlength=self._n_units), dtype=np.int64)))
        return kept

    @property
    def row_units(self) -> np.ndarray:
        """Each row's unit (the rows of a unit lead to the same places with the same chances:
        the same chances to win now, the same entries)."""
        return self._unit

    @property
    def unit_states(self) -> np.ndarray:
        """Each unit's state (non-decreasing)."""
        return self._unit_state

    @property
    def n_units(self) -> int:
        return self._n_units

    @property
    def row_states(self) -> np.ndarray:
        """Each row's state (rows: a state's first declarer's options, each with every answer)."""
        return self._row_state

    @property
    def wins_now(self) -> tuple[np.ndarray, np.ndarray]:
        """Each row's chance that a wins in that very round, and that b does."""
        return self._pa, self._pb

    def row_wounds(self, rows: np.ndarray) -> np.ndarray:
        """The wounds of each of ``rows``' rounds: their chances, a's bands then b's (the one
        that takes a fighter out included), a line per row."""
        table: np.ndarray = self.game.kernels().wound_table()[self._row_kernel[rows]]
        return table

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
    # the techniques in the ruleset's order too: a game lists each fighter's options in it
    # (rules alike but for that order would share a game whose options come in another order)
    key = (_ruleset_key(ruleset), tuple(ruleset.techniques), a.name, b.name, fighter_model(ruleset, a),
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
