"""A Sevendag fight as a chain of rounds, solved from any moment (S-02 .. S-19); no numpy.

The fight is ``fight``'s and ``--runs``': each sheet's tactic every round, no yield,
no new technique (a technique already in effect runs its course), and a draw once
the round cap is reached (S-19).

**The state between rounds.**  Penalties (S-19) enter the rules only through the
totals of an exchange (S-06), as *attacker's penalty - defender's penalty*; the
margin then decides everything else — foiled or not (after a metal's
``extra_damage``, S-17), the band (S-07, then ``band_shift``), whether a granted
critical is used (S-10: margin above 0).  Critical defence (S-14), shields (S-15),
fumbles and drop checks (S-10, S-18) depend on the dice alone.  So the state is

* the assaillant (S-02, S-14);
* ``D`` = a's penalty - b's penalty (not the two penalties);
* per fighter, the wounds counted in each band with an ``out_after`` (S-19),
  each below its limit;
* per fighter and weapon, the rounds left picking it up (S-18);
* per fighter, a granted critical (S-10 ``fumble_grants_crit``);
* per fighter, a technique still in effect: its modifiers and rounds left (S-05).

**Far out, D stops mattering.**  Beyond ``D >= hi`` every attack of a that lands
is foiled (``margin + extra <= 0``) and every attack of b that lands is in the last
band, whatever the dice; symmetrically below ``D <= lo``.  There, a round's outcome
no longer depends on D, and D can only move further out (b alone wounds, and only
in the last band).  All the states beyond ``hi`` behave as the one at ``hi``: D is
clamped to ``[lo, hi]`` and the chain is finite, exactly (no approximation).
Techniques change the constants, so a state under a technique is not clamped; it
lasts a few rounds.

**One round** (:meth:`SevendagChain.successors`): every exchange's outcome comes
from an exact enumeration of the dice — each hand's die split into lowest /
in-between / highest faces (all S-10 .. S-15 look at), the in-between faces only
adding to the totals — with the verdicts (S-10 .. S-13) and allocations (S-04,
S-18) of the shared fighter model (:mod:`sevendag_cli.sevendag.model`, built
on the step-by-step engine's planning code).  Exchange 2 sees exchange 1's wound
penalty, granted critical and the end of the round by critical defence (S-08,
S-14); drops and techniques count down at the end of the round.  Probabilities
are exact integers over a common denominator; floats are taken from them.

**Solving** (:meth:`SevendagChain.solve`): the mass of the starting state is pushed
round by round — round by round because the round cap is a number of rounds: the
mass still in play after ``cap - round`` rounds is a draw, exactly as ``fight`` and
``--runs`` end a fight at the cap.  The push stops at the cap, or as soon as the
mass still in play (plus the rounding bound, :mod:`sevendag_cli.sim.odds`) is below
the tolerance; that mass is reported as unresolved.
"""

from __future__ import annotations

import hashlib
import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from fractions import Fraction

import msgspec

from sevendag_cli.errors import EncounterError, Msg, UsageError
from sevendag_cli.sevendag.engine import SevendagState
from sevendag_cli.sevendag.model import (
    Allocation,
    FighterModel,
    Verdict,
    check_fighters,
    check_plain,
    fighter_model,
    granted_unit,
    judge,
)
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
from sevendag_cli.sim.odds import (
    COMPLETE,
    DEFAULT_TOLERANCE,
    TOLERANCE,
    WORK,
    Odds,
    certified,
    check_tolerance,
    finished,
    gamma,
)
from sevendag_cli.sim.weights import convolve

MAX_FACES = 250_000
"""Most (sum of a's dice faces) x (sum of b's): the size of one exchange's enumeration."""
MAX_STATES = 100_000
"""Most fight states one chain holds (a finite ruleset of 74,000 states: some 4 s to build and
push, 300 MB at the peak)."""
MAX_WORK = 30_000_000
"""Most (state, successor) steps one solve makes (a few seconds); then it stops, unresolved."""
MAX_TECHNIQUE_ROUNDS = 100
"""Longest technique still in effect that a saved state may carry."""

Counts = dict[int, int]
"""A distribution as integer weights: value -> number of face combinations."""

Tech = tuple[int, int, int] | None
"""A technique in effect: (attack modifier, defence modifier, rounds left), or None."""

StateKey = tuple[
    int,  # assaillant: 0 = a, 1 = b
    int,  # D = a's penalty - b's penalty (clamped to [lo, hi] without technique)
    tuple[int, ...], tuple[int, ...],  # wounds per band counted towards out_after, a and b
    tuple[int, ...], tuple[int, ...],  # rounds left picking each unit up, a and b
    bool, bool,  # granted critical, a and b
    Tech, Tech,  # technique in effect, a and b
]

_Outcome = tuple[int, bool, bool, int, bool]
"""One exchange: (final band or -1, fumble, granted critical used, units dropped, critical defence)."""

_RoundOutcome = tuple[int, int, int, int, int, int, bool, bool]
"""One round: (winner or -1, band a took or -1, band b took or -1, assaillant after,
units a dropped, units b dropped, a holds a granted critical, b holds one)."""



class OddsTable(msgspec.Struct, frozen=True):
    """Certified odds of every state of a chain, for any state with ``horizon`` rounds or more
    to go (:func:`sevendag_cli.sim.push.sevendag_table` builds it; ``to_bytes`` keeps it).

    Per state: the masses resolved within ``horizon`` rounds to a's win, to b's (lower
    bounds), the mass resolved to a draw (states from which nobody can ever be taken out:
    a draw at any cap), and the unresolved rest.  ``fingerprint`` names the ruleset and
    pair it belongs to (:attr:`SevendagChain.fingerprint`).
    """

    fingerprint: str
    names: tuple[str, str]
    tolerance: float
    horizon: int
    states: tuple[StateKey, ...]
    win_a: tuple[float, ...]
    win_b: tuple[float, ...]
    draw: tuple[float, ...]
    unresolved: tuple[float, ...]

    def __post_init__(self) -> None:
        """Kept bytes come back from a file: a table no solver could have built is refused
        (decoding raises ``msgspec.ValidationError``, and :class:`~.moment.OddsSolver`
        ignores the bytes)."""
        n = len(self.states)
        columns = (self.win_a, self.win_b, self.draw, self.unresolved)
        if any(len(column) != n for column in columns):
            raise ValueError("an odds table's columns differ in length")
        if self.horizon < 1 or not 0.0 <= self.tolerance < 1.0:
            raise ValueError("an odds table's horizon or tolerance is out of range")
        if not all(0.0 <= x <= 1.0 for column in columns for x in column):  # NaN fails too
            raise ValueError("an odds table holds a value that is not a probability")

    def to_bytes(self) -> bytes:
        return msgspec.msgpack.encode(self)

    @classmethod
    def from_bytes(cls, data: bytes) -> OddsTable:
        return msgspec.msgpack.decode(data, type=cls)


class Lookup:
    """An :class:`OddsTable` indexed by state."""

    def __init__(self, table: OddsTable) -> None:
        self.table = table
        self.index = {k: i for i, k in enumerate(table.states)}


LOW, MID, HIGH = 0, 1, 2


# --- dice ------------------------------------------------------------------------------


def _add_into(total: Counts, x: Counts) -> None:
    for v, c in x.items():
        total[v] = total.get(v, 0) + c


def _category(sides: int, cat: int) -> Counts:
    """Faces of a d``sides`` in one category: lowest, in between, highest."""
    if cat == LOW:
        return {1: 1}
    if cat == HIGH:
        return {sides: 1}
    return {v: 1 for v in range(2, sides)}


def attack_cases(model: FighterModel, alloc: Allocation,
                 failure_beats_crit: bool) -> dict[Verdict, Counts]:
    """S-10 .. S-13: the attack dice grouped by verdict, with their sums' weights."""
    cases: dict[Verdict, Counts] = {}

    def walk(i: int, lo: int, hi: int, dist: Counts) -> None:
        if i == len(alloc.attack):
            v = judge(model, alloc, lo, hi, failure_beats_crit)
            _add_into(cases.setdefault(v, {}), dist)
            return
        h = alloc.attack[i]
        sides = model.sides[h]
        for cat in (LOW, MID, HIGH):
            if cat == MID and sides <= 2:
                continue
            walk(i + 1, lo | (1 << h if cat == LOW else 0), hi | (1 << h if cat == HIGH else 0),
                 convolve(dist, _category(sides, cat)))

    walk(0, 0, 0, {0: 1})
    return cases


def defence_cases(model: FighterModel, alloc: Allocation) -> dict[tuple[bool, bool], Counts]:
    """S-14, S-15: the defence dice as (critical defence, shield) with their sums' weights."""
    cases: dict[tuple[bool, bool], Counts] = {}

    def walk(i: int, top: bool, shield: bool, dist: Counts) -> None:
        if i == len(alloc.defence):
            _add_into(cases.setdefault((top, shield), {}), dist)
            return
        h = alloc.defence[i]
        sides = model.sides[h]
        walk(i + 1, top, shield, convolve(dist, {v: 1 for v in range(1, sides)}))
        walk(i + 1, True, shield or model.shield[h], convolve(dist, {sides: 1}))

    walk(0, False, False, {0: 1})
    return cases


def drop_weights(model: FighterModel, fumbled: int, die: int) -> list[tuple[int, int]]:
    """S-10/S-18: every set of weapons dropped among ``fumbled``, weighted over ``die ** units``.

    One drop check per fumbled weapon, dropped above its skill; units that make no
    check contribute the factor ``die`` so that every exchange shares one denominator.
    """
    cases: list[tuple[int, int]] = [(0, 1)]
    for u, unit in enumerate(model.units):
        if not fumbled >> u & 1:
            cases = [(bits, w * die) for bits, w in cases]
            continue
        drop = max(0, die - unit.skill)
        keep = die - drop
        cases = [(bits | (1 << u), w * drop) for bits, w in cases if drop] + [
            (bits, w * keep) for bits, w in cases if keep]
    return cases


class _Landing:
    """Attacks that land (no failure, no shield): margins without the constants, one verdict."""

    __slots__ = ("critical", "extra", "prefix", "shift", "top", "xs")

    def __init__(self, margins: Counts, factor: int, extra: int, shift: int, critical: bool,
                 top: bool) -> None:
        self.xs = sorted(margins)
        self.prefix = [0]
        for x in self.xs:
            self.prefix.append(self.prefix[-1] + margins[x] * factor)
        self.extra, self.shift, self.critical, self.top = extra, shift, critical, top

    def count(self, lo: float, hi: float) -> int:
        """Weight of the margins x with lo <= x <= hi."""
        if lo > hi:
            return 0
        return self.prefix[bisect_right(self.xs, hi)] - self.prefix[bisect_left(self.xs, lo)]


class _Exchange:
    """One attack of a fighter on the other for given dropped weapons, before the constants."""

    def __init__(self, chain: SevendagChain, att: int, mask_att: int, mask_def: int) -> None:
        ma, md = chain.models[att], chain.models[1 - att]
        alloc_a, alloc_d = ma.allocations[mask_att], md.allocations[mask_def]
        self.fixed: dict[_Outcome, int]
        self.landing: list[_Landing] = []
        if not alloc_a.attack:  # S-04: no attack, nobody rolls
            self.den = 1
            self.fixed = {(-1, False, False, 0, False): 1}
            self.x_lo = self.x_hi = 0
            self.g_extra = self.g_shift = 0
            return
        die = chain.drop_die
        factor = die ** len(ma.units)
        den = factor
        for h in alloc_a.attack:
            den *= ma.sides[h]
        for h in alloc_d.defence:
            den *= md.sides[h]
        self.den = den
        g = granted_unit(ma, alloc_a)
        self.g_extra = ma.units[g].extra_damage if g is not None else 0
        self.g_shift = ma.units[g].band_shift if g is not None else 0
        fixed: dict[_Outcome, int] = {}
        defence = defence_cases(md, alloc_d)
        x_lo, x_hi = math.inf, -math.inf
        for v, attack in attack_cases(ma, alloc_a, chain.failure_beats_crit).items():
            n_attack = sum(attack.values())
            extra = sum(t * ma.units[u].extra_damage for u, t in enumerate(v.times))
            shift = sum(t * ma.units[u].band_shift for u, t in enumerate(v.times))
            for (top, shield), dsums in defence.items():
                n = n_attack * sum(dsums.values())
                if v.failure:  # S-10 .. S-13, S-18: fails whatever the totals
                    for dropped, w in drop_weights(ma, v.fumbled, die):
                        key: _Outcome = (-1, v.fumble, False, dropped, top)
                        fixed[key] = fixed.get(key, 0) + n * w
                elif shield:  # S-15
                    key = (-1, False, False, 0, top)
                    fixed[key] = fixed.get(key, 0) + n * factor
                else:
                    margins = convolve(attack, dsums, -1)
                    x_lo, x_hi = min(x_lo, min(margins)), max(x_hi, max(margins))
                    self.landing.append(_Landing(margins, factor, extra, shift, v.critical, top))
        self.fixed = fixed
        self.x_lo, self.x_hi = (int(x_lo), int(x_hi)) if self.landing else (0, 0)
        e_max = max([self.g_extra] + [g.extra for g in self.landing])
        # Offsets beyond these give the same outcomes: every landing attack foiled / last band.
        self.o_min = -self.x_hi - e_max
        self.o_max = chain.lows[-1] - self.x_lo

    def outcomes(self, chain: SevendagChain, offset: int, granted: bool) -> list[tuple[_Outcome, int]]:
        """S-06, S-07, S-10 (granted critical), S-17: outcomes at ``offset`` = constants + penalties."""
        if self.landing:
            offset = min(self.o_max, max(self.o_min, offset))
        out: dict[_Outcome, int] = dict(self.fixed)
        lows, highs, last = chain.lows, chain.highs, len(chain.lows) - 1
        for grp in self.landing:
            o = offset
            if granted and not grp.critical:
                # A granted critical: used by an attack with a margin above 0 (its metal's effect).
                foiled = grp.count(-math.inf, -o)
                floor_x: float = -o + 1
                e, sh, used = self.g_extra, self.g_shift, True
            else:
                e, sh, used = grp.extra, grp.shift, False
                foiled = grp.count(-math.inf, -o - e)
                floor_x = -math.inf
            if foiled:
                k: _Outcome = (-1, False, False, 0, grp.top)
                out[k] = out.get(k, 0) + foiled
            for j in range(last + 1):
                c = grp.count(max(floor_x, lows[j] - o - e), highs[j] - o - e)
                if c:
                    k = (min(last, j + sh), False, used, 0, grp.top)
                    out[k] = out.get(k, 0) + c
        return list(out.items())


# --- the chain ---------------------------------------------------------------------------


Move = tuple[int, int, tuple[int, ...]]
"""One way a round can go (:attr:`Successors.moves`): (target, weight over ``den``, the rewards
taken).  The target is a state id, or :data:`A_WINS` / :data:`B_WINS` when the round ends the
fight; the rewards are indices into :attr:`Successors.rewards` (a's bands, then b's), one per
wound taken in that round (a fighter defends at most once a round: at most one each)."""

A_WINS = -1
"""A :data:`Move`'s target when a wins in that round."""
B_WINS = -2
"""A :data:`Move`'s target when b wins in that round."""


class Successors:
    """One round from a state: where the mass goes, exactly (integer weights over ``den``).

    ``targets``/``weights``/``absorb`` are the round summed by where it leads, ``rewards``
    the weight of each wound taken; ``moves`` keeps them together, each way the round can
    go with the wounds taken in it (what :mod:`sevendag_cli.sim.sample` draws)."""

    __slots__ = ("_moves", "absorb", "den", "pa", "pb", "probs", "rewards", "targets", "weights")

    def __init__(self, targets: list[int], weights: list[int], absorb: tuple[int, int], den: int,
                 rewards: tuple[int, ...],
                 moves: tuple[Move, ...] | tuple[SevendagChain, int] = ()) -> None:
        self.targets = targets
        self.weights = weights
        self.absorb = absorb  # weight of a winning, of b winning, this round
        self.den = den
        self.probs = [w / den for w in weights]
        self.pa, self.pb = absorb[0] / den, absorb[1] / den
        self.rewards = rewards  # weight of each (fighter, band) wound this round: a's bands, b's
        self._moves = moves  # the moves, or (chain, state) to work them out when asked

    @property
    def moves(self) -> tuple[Move, ...]:
        """(target or A_WINS / B_WINS, weight, rewards taken): the round whole."""
        kept = self._moves
        if len(kept) == 2 and isinstance(kept[0], SevendagChain):
            return kept[0].moves(kept[1])
        return kept


class SevendagChain:
    """The fight of one pair under one ruleset: its states, built on demand and kept.

    Build it once per (ruleset, pair) (:func:`chain_for` caches them) and ask it for
    the odds of as many states as needed (:meth:`odds`): the transition tables are
    shared by every question.
    """

    def __init__(self, ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
                 models: tuple[FighterModel, FighterModel] | None = None) -> None:
        check_fighters(ruleset, a, b)
        faces = sum(h.die for h in a.hands) * sum(h.die for h in b.hands)
        if faces > MAX_FACES:
            raise UsageError(Msg("exact.sev.faces", a=a.name, b=b.name, faces=faces,
                                 max=MAX_FACES))
        self.ruleset = ruleset
        self.names = (a.name, b.name)
        self.models = models or (fighter_model(ruleset, a), fighter_model(ruleset, b))
        self.fingerprint = hashlib.sha256(
            repr((_ruleset_key(ruleset), self.names, self.models,
                  a.attack, a.defence, b.attack, b.defence)).encode()).hexdigest()[:32]

        bands = ruleset.wounds
        self.band_names = tuple(band.name for band in bands)
        self.lows = tuple(band.low for band in bands)
        # S-07: a band runs from its low to the next band's low - 1 (bands are contiguous).
        self.highs: tuple[float, ...] = (*(low - 1 for low in self.lows[1:]), math.inf)
        self.penalty = tuple(band.penalty for band in bands)
        self.tracked = tuple(j for j, band in enumerate(bands) if band.out_after)
        self.slot = {j: i for i, j in enumerate(self.tracked)}
        self.limit = tuple(bands[j].out_after for j in self.tracked)
        self.recovery = ruleset.drop_recovery_rounds
        self.grants = ruleset.fumble_grants_crit
        self.failure_beats_crit = ruleset.failure_beats_crit
        self.drop_die = ruleset.drop_check_die
        self.constants = ((a.attack, a.defence), (b.attack, b.defence))
        self._exchanges: dict[tuple[int, int, int], _Exchange] = {}
        self._outcomes: dict[tuple[int, int, int, int, bool], list[tuple[_Outcome, int]]] = {}
        self._kernels: dict[tuple[object, ...], tuple[int, list[tuple[_RoundOutcome, int]]]] = {}
        self.index: dict[StateKey, int] = {}
        self.states: list[StateKey] = []
        self._succ: list[Successors | None] = []
        self._indegree: list[int] = []  # per state: the built states that lead to it
        self._taken: dict[tuple[int, int], tuple[int, ...]] = {}  # moves' rewards, shared
        self.keep_moves = False
        """Whether the rounds built keep their :attr:`Successors.moves` (a sampler's chain: some
        40% more memory a state); else each state's are worked out again when asked."""
        self.max_indegree = 0
        self.lo, self.hi = self._thresholds()

    # --- states

    def _thresholds(self) -> tuple[int, int]:
        """The D beyond which nothing depends on D (see the module docstring)."""
        lows = self.lows
        bounds: list[tuple[int, int, int, int] | None] = []
        for att in (0, 1):
            ma, md = self.models[att], self.models[1 - att]
            masks_a = [m for m in range(len(ma.allocations)) if not m & ~ma.droppable]
            masks_d = [m for m in range(len(md.allocations)) if not m & ~md.droppable]
            attacking = [ma.allocations[m] for m in masks_a if ma.allocations[m].attack]
            if not attacking:
                bounds.append(None)
                continue
            x_min = (min(len(al.attack) for al in attacking)
                     - max(sum(md.sides[h] for h in md.allocations[m].defence) for m in masks_d))
            x_max = (max(sum(ma.sides[h] for h in al.attack) for al in attacking)
                     - min(len(md.allocations[m].defence) for m in masks_d))
            e_max = 2 * sum(u.extra_damage for u in ma.units)
            c = self.constants[att][0] - self.constants[1 - att][1]
            bounds.append((c, x_min, x_max, e_max))
        hi_terms, lo_terms = [], []
        if bounds[0] is not None:  # a attacks b at offset c - D
            c, x_min, x_max, e_max = bounds[0]
            hi_terms.append(c + x_max + e_max)  # all foiled
            lo_terms.append(c + x_min - lows[-1])  # all in the last band
        if bounds[1] is not None:  # b attacks a at offset c + D
            c, x_min, x_max, e_max = bounds[1]
            hi_terms.append(lows[-1] - c - x_min)
            lo_terms.append(-c - x_max - e_max)
        hi = max(hi_terms) if hi_terms else 0
        lo = min(lo_terms) if lo_terms else 0
        return lo, hi

    def clamp(self, d: int) -> int:
        if d >= self.hi:
            return self.hi
        if d <= self.lo:
            return self.lo
        return d

    def state_id(self, key: StateKey) -> int:
        i = self.index.get(key)
        if i is None:
            if len(self.states) >= MAX_STATES:
                raise UsageError(Msg("exact.sev.states", a=self.names[0], b=self.names[1],
                                     max=MAX_STATES))
            i = self.index[key] = len(self.states)
            self.states.append(key)
            self._succ.append(None)
            self._indegree.append(0)
        return i

    def key_of(self, state: SevendagState) -> StateKey | int:
        """The chain's state for an engine state, or the winner (0, 1; -1 a draw) when it is over."""
        names = tuple(f.name for f in state.fighters)
        if names != self.names:
            raise EncounterError(Msg("engine.sev.between", a=names[0], b=names[1], c=self.names[0],
                                     d=self.names[1]))
        if state.over:
            return -1 if state.winner is None else self.names.index(state.winner)
        for i, fs in enumerate(state.fighters):
            if fs.out:
                return 1 - i
        counts: list[tuple[int, ...]] = []
        recs: list[tuple[int, ...]] = []
        techs: list[Tech] = []
        for i, fs in enumerate(state.fighters):
            c = tuple(fs.wounds.count(self.band_names[j]) for j in self.tracked)
            if any(n >= lim for n, lim in zip(c, self.limit, strict=True)):
                return 1 - i  # S-19: out, though the state does not say so
            counts.append(c)
            model = self.models[i]
            left = {d.item: d.rounds_left for d in fs.dropped}
            recs.append(tuple(max(0, left.get(u.key, 0)) if u.is_weapon and u.key else 0
                              for u in model.units))
            techs.append(self._technique(fs.technique, self.names[i]))
        if state.assaillant not in self.names:
            raise EncounterError(Msg("engine.sev.bad_assaillant", name=state.assaillant))
        assail = self.names.index(state.assaillant)
        d = state.fighters[0].penalty - state.fighters[1].penalty
        if techs[0] is None and techs[1] is None:
            d = self.clamp(d)
        return (assail, d, counts[0], counts[1], recs[0], recs[1],
                state.fighters[0].granted_crit, state.fighters[1].granted_crit, techs[0], techs[1])

    def _technique(self, active: object, name: str) -> Tech:
        if active is None:
            return None
        tech_name = getattr(active, "name", None)
        left = getattr(active, "rounds_left", 0)
        t = self.ruleset.techniques.get(tech_name) if isinstance(tech_name, str) else None
        if t is None:
            known: object = ", ".join(self.ruleset.techniques) or Msg("engine.sev.none")
            raise EncounterError(Msg("engine.sev.undefined_technique", name=name,
                                     technique=tech_name, known=known))
        if not isinstance(left, int) or left < 1:
            return None
        return (t.attack, t.defence, min(left, MAX_TECHNIQUE_ROUNDS))

    def start_key(self, assaillant: int) -> StateKey:
        """The state before round 1 (S-02: ``assaillant`` won the initiative)."""
        zero = tuple(0 for _ in self.tracked)
        return (assaillant, self.clamp(0), zero, zero, tuple(0 for _ in self.models[0].units),
                tuple(0 for _ in self.models[1].units), False, False, None, None)

    # --- one round

    def _exchange(self, att: int, mask_att: int, mask_def: int, offset: int,
                  granted: bool) -> list[tuple[_Outcome, int]]:
        table = self._exchanges.get((att, mask_att, mask_def))
        if table is None:
            table = self._exchanges[(att, mask_att, mask_def)] = _Exchange(
                self, att, mask_att, mask_def)
        if table.landing:
            offset = min(table.o_max, max(table.o_min, offset))
        key = (att, mask_att, mask_def, offset, granted)
        got = self._outcomes.get(key)
        if got is None:
            got = self._outcomes[key] = table.outcomes(self, offset, granted)
        return got

    def _den(self, att: int, mask_att: int, mask_def: int) -> int:
        table = self._exchanges.get((att, mask_att, mask_def))
        if table is None:
            table = self._exchanges[(att, mask_att, mask_def)] = _Exchange(
                self, att, mask_att, mask_def)
        return table.den

    def kernel(self, assail: int, d: int, near: tuple[tuple[bool, ...], tuple[bool, ...]],
               masks: tuple[int, int], granted: tuple[bool, bool],
               mods: tuple[int, int, int, int]) -> tuple[int, list[tuple[_RoundOutcome, int]]]:
        """S-08: exchange 1, then exchange 2 unless the fight is over or S-14 ended the round.

        Depends on the wounds only through D and which tracked bands are one wound
        from ``out_after`` (a fighter defends at most once a round).  Returns the
        common denominator and the outcomes with their weights.
        """
        key = (assail, d, near, masks, granted, mods)
        got = self._kernels.get(key)
        if got is not None:
            return got
        first, second = assail, 1 - assail
        den1 = self._den(first, masks[first], masks[second])
        den2 = self._den(second, masks[second], masks[first])
        (aa, ad), (ba, bd) = self.constants
        attack_a, defence_a = aa + mods[0], ad + mods[1]
        attack_b, defence_b = ba + mods[2], bd + mods[3]
        pen = self.penalty
        out: dict[_RoundOutcome, int] = {}

        def offset(att: int, dd: int) -> int:
            return attack_a - defence_b - dd if att == 0 else attack_b - defence_a + dd

        def out_now(fighter: int, band: int) -> bool:
            i = self.slot.get(band)
            return i is not None and near[fighter][i]

        for o1, w1 in self._exchange(first, masks[first], masks[second], offset(first, d),
                                     granted[first]):
            band, fumble, used, dropped, top = o1
            g = [granted[0], granted[1]]
            if used:
                g[first] = False
            if fumble and self.grants:
                g[second] = True
            hits = [-1, -1]
            drops = [0, 0]
            drops[first] = dropped
            weight = w1 * den2
            if band >= 0:
                hits[second] = band
                if out_now(second, band):  # S-19: out, the fight ends mid-round
                    r: _RoundOutcome = (first, hits[0], hits[1], 0, 0, 0, False, False)
                    out[r] = out.get(r, 0) + weight
                    continue
            if top:  # S-14: the round ends; the défenseur becomes the assaillant
                r = (-1, hits[0], hits[1], second, drops[0], drops[1], g[0], g[1])
                out[r] = out.get(r, 0) + weight
                continue
            d2 = d + (pen[hits[0]] if hits[0] >= 0 else 0) - (pen[hits[1]] if hits[1] >= 0 else 0)
            for o2, w2 in self._exchange(second, masks[second], masks[first], offset(second, d2),
                                         g[second]):
                band2, fumble2, used2, dropped2, _top2 = o2
                h = [hits[0], hits[1]]
                gg = [g[0], g[1]]
                if used2:
                    gg[second] = False
                if fumble2 and self.grants:
                    gg[first] = True
                winner = -1
                if band2 >= 0:
                    h[first] = band2
                    if out_now(first, band2):
                        winner = second
                if winner >= 0:
                    r = (winner, h[0], h[1], 0, 0, 0, False, False)
                else:
                    dr = [drops[0], drops[1]]
                    dr[second] = dropped2
                    r = (-1, h[0], h[1], assail, dr[0], dr[1], gg[0], gg[1])
                out[r] = out.get(r, 0) + w1 * w2
        got = (den1 * den2, list(out.items()))
        self._kernels[key] = got
        return got

    def successors(self, i: int) -> Successors:
        """One round from state ``i`` (built once, then kept; its ``moves`` kept too while
        :attr:`keep_moves`, else worked out again when asked)."""
        got = self._succ[i]
        if got is not None:
            return got
        got = self._round(i, self.keep_moves)
        self._succ[i] = got
        for t in got.targets:
            self._indegree[t] += 1
            if self._indegree[t] > self.max_indegree:
                self.max_indegree = self._indegree[t]
        return got

    def moves(self, i: int) -> tuple[Move, ...]:
        """State ``i``'s round as :attr:`Successors.moves` (worked out again, not kept)."""
        return self._round(i, True).moves

    def _round(self, i: int, keep: bool) -> Successors:
        assail, d, ca, cb, ra, rb, ga, gb, ta, tb = self.states[i]
        near = (tuple(c + 1 >= lim for c, lim in zip(ca, self.limit, strict=True)),
                tuple(c + 1 >= lim for c, lim in zip(cb, self.limit, strict=True)))
        masks = (sum(1 << u for u, r in enumerate(ra) if r > 0),
                 sum(1 << u for u, r in enumerate(rb) if r > 0))
        mods = ((ta[0], ta[1]) if ta else (0, 0)) + ((tb[0], tb[1]) if tb else (0, 0))
        den, outcomes = self.kernel(assail, d, near, masks, (ga, gb),
                                    (mods[0], mods[1], mods[2], mods[3]))
        ta2: Tech = (ta[0], ta[1], ta[2] - 1) if ta and ta[2] > 1 else None
        tb2: Tech = (tb[0], tb[1], tb[2] - 1) if tb and tb[2] > 1 else None
        free = ta2 is None and tb2 is None
        pen, nb = self.penalty, len(self.penalty)
        absorb = [0, 0]
        rewards = [0] * (2 * nb)
        by_target: dict[int, int] = {}
        rec = self.recovery
        moves: dict[tuple[int, tuple[int, ...]], int] = {}
        taken = self._taken
        for (winner, ha, hb, assail2, da, db, ga2, gb2), w in outcomes:
            if ha >= 0:
                rewards[ha] += w
            if hb >= 0:
                rewards[nb + hb] += w
            got_rewards = taken.get((ha, hb))
            if got_rewards is None:  # one shared tuple per (band a took, band b took)
                got_rewards = taken[(ha, hb)] = tuple(
                    [ha] * (ha >= 0) + [nb + hb] * (hb >= 0))
            if winner >= 0:
                absorb[winner] += w
                mk = (A_WINS if winner == 0 else B_WINS, got_rewards)
                moves[mk] = moves.get(mk, 0) + w
                continue
            d2 = d + (pen[ha] if ha >= 0 else 0) - (pen[hb] if hb >= 0 else 0)
            if free:
                d2 = self.clamp(d2)
            ca2 = ca if ha < 0 or ha not in self.slot else _bump(ca, self.slot[ha])
            cb2 = cb if hb < 0 or hb not in self.slot else _bump(cb, self.slot[hb])
            ra2 = tuple(rec if da >> u & 1 else max(0, r - 1) for u, r in enumerate(ra))
            rb2 = tuple(rec if db >> u & 1 else max(0, r - 1) for u, r in enumerate(rb))
            t = self.state_id((assail2, d2, ca2, cb2, ra2, rb2, ga2, gb2, ta2, tb2))
            by_target[t] = by_target.get(t, 0) + w
            mk = (t, got_rewards)
            moves[mk] = moves.get(mk, 0) + w
        return Successors(list(by_target), list(by_target.values()), (absorb[0], absorb[1]), den,
                          tuple(rewards),
                          tuple((t, w, r) for (t, r), w in moves.items()) if keep else (self, i))

    def closure(self, starts: Sequence[int]) -> list[int]:
        """Every state reachable from ``starts`` (their rounds built), in the order found."""
        order = self.reachable(starts)
        return order if order is not None else []  # no budget: never None

    def reachable(self, starts: Sequence[int], budget: int | None = None) -> list[int] | None:
        """As :meth:`closure`, or None once more than ``budget`` states are found."""
        order = list(dict.fromkeys(starts))
        seen = set(order)
        k = 0
        while k < len(order):
            for t in self.successors(order[k]).targets:
                if t not in seen:
                    if budget is not None and len(order) >= budget:
                        return None
                    seen.add(t)
                    order.append(t)
            k += 1
        return order

    # --- solving

    def lookup(self, table: OddsTable | None) -> Lookup | None:
        """``table`` ready to answer this chain's states; None if it is another pair's."""
        if table is None or table.fingerprint != self.fingerprint:
            return None
        return Lookup(table)

    def solve(self, start: int, rounds: int, tolerance: float = DEFAULT_TOLERANCE,
              max_work: int = MAX_WORK, lookup: Lookup | None = None) -> Odds:
        """Push state ``start``'s mass for at most ``rounds`` rounds (then: a draw).

        Stops early once the mass still in play plus the rounding bound is at most
        ``tolerance``; states holding less than a tiny share of the tolerance are
        dropped on the way (their mass counts as unresolved).  With ``lookup`` (an
        :class:`OddsTable` of this chain at most as tolerant), the mass of a state it
        knows, with enough rounds to go, is resolved from the table at once.
        """
        ids = [start]  # states holding mass, and their masses
        mass = [1.0]
        won_a: list[float] = []
        won_b: list[float] = []
        drawn: list[float] = []
        table = lookup.table if lookup and lookup.table.tolerance <= tolerance else None
        index = lookup.index if lookup else {}
        looked_up: list[float] = []  # the unresolved mass of the states answered by the table
        error = 0.0
        dropped = 0.0
        work = 0
        t = 0
        stop = COMPLETE
        fsum = math.fsum
        while t < rounds:
            if table is not None and rounds - t >= table.horizon:
                # States the table knows, with enough rounds to go: their answer, at once.
                keep_ids, keep_mass = [], []
                for i, m in zip(ids, mass, strict=True):
                    row = index.get(self.states[i])
                    if row is None:
                        keep_ids.append(i)
                        keep_mass.append(m)
                        continue
                    won_a.append(m * table.win_a[row])
                    won_b.append(m * table.win_b[row])
                    drawn.append(m * table.draw[row])
                    looked_up.append(m * table.unresolved[row])
                ids, mass = keep_ids, keep_mass
            if not ids:  # everything resolved, or dropped for being too small
                stop = COMPLETE if dropped == 0.0 and fsum(looked_up) == 0.0 else TOLERANCE
                break
            alive = fsum(mass)
            if alive + dropped + fsum(looked_up) + 3 * (error + gamma(3)) <= tolerance:
                stop = TOLERANCE
                break
            if work > max_work:
                stop = WORK
                break
            t += 1
            succs = [self.successors(s) for s in ids]  # first: they may add states
            new = [0.0] * len(self.states)
            won_a.append(fsum([m * su.pa for m, su in zip(mass, succs, strict=True)]))
            won_b.append(fsum([m * su.pb for m, su in zip(mass, succs, strict=True)]))
            for m, su in zip(mass, succs, strict=True):
                for target, p in zip(su.targets, su.probs, strict=True):
                    new[target] += m * p
                work += len(su.targets) + 1
            # Each new mass is a sum of products of rounded numbers, one per state leading to it.
            error += gamma(min(len(ids), self.max_indegree) + 2) * alive
            threshold = tolerance * 2.0**-12 / max(1, len(ids))
            ids = [i for i, v in enumerate(new) if v > threshold]
            mass = [new[i] for i in ids]
            if threshold > 0.0:
                dropped += fsum([v for v in new if 0.0 < v <= threshold])
        if stop == COMPLETE:
            drawn.append(fsum(mass))
        error += gamma(3)  # the sums over rounds (fsum) and the products by pa, pb
        return certified(self.names, fsum(won_a), fsum(won_b), fsum(drawn), error,
                         t + (table.horizon if looked_up and table else 0), stop)

    def odds(self, state: SevendagState, cap: int | None = None,
             tolerance: float = DEFAULT_TOLERANCE, lookup: Lookup | None = None) -> Odds:
        """Each fighter's chances from ``state`` (between rounds), the sheets' tactics from now on.

        ``cap``: the round cap (default: the ruleset's); the fight is a draw if still
        going after round ``cap`` (at least one more round is played, as ``round`` does).
        """
        key = self.key_of(state)
        if isinstance(key, int):
            return finished(self.names, None if key < 0 else key)
        cap = self.ruleset.round_cap if cap is None else cap
        rounds = max(1, cap - state.round)
        return self.solve(self.state_id(key), rounds, check_tolerance(tolerance), lookup=lookup)

    def exact_weights(self, i: int) -> tuple[list[tuple[int, Fraction]], tuple[Fraction, Fraction]]:
        """Round ``i``'s transitions as exact fractions: (target, p) pairs and (P(a wins), P(b wins))."""
        s = self.successors(i)
        return ([(t, Fraction(w, s.den)) for t, w in zip(s.targets, s.weights, strict=True)],
                (Fraction(s.absorb[0], s.den), Fraction(s.absorb[1], s.den)))


def _bump(counts: tuple[int, ...], i: int) -> tuple[int, ...]:
    return (*counts[:i], counts[i] + 1, *counts[i + 1:])


# --- one chain per (ruleset, pair) --------------------------------------------------------

_CACHE: dict[tuple[object, ...], SevendagChain] = {}
_CACHE_SIZE = 8


def _ruleset_key(rs: SevendagRuleset) -> tuple[object, ...]:
    return (
        tuple((w.name, w.low, w.high, w.penalty, w.out_after) for w in rs.wounds),
        tuple(sorted((k, m.extra_damage, m.band_shift) for k, m in rs.metals.items())),
        tuple(sorted((k, t.attack, t.defence, t.duration) for k, t in rs.techniques.items())),
        rs.fumble_grants_crit, rs.failure_beats_crit, rs.drop_check_die, rs.drop_recovery_rounds,
    )


def chain_for(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter) -> SevendagChain:
    """The chain of this pair under this ruleset, built once per process (a few are kept);
    sheets with a yield or technique rule refused (the chain assumes neither)."""
    check_fighters(ruleset, a, b)
    check_plain(a, b)
    models = (fighter_model(ruleset, a), fighter_model(ruleset, b))
    key = (_ruleset_key(ruleset), a.name, b.name, models, a.attack, a.defence, b.attack,
           b.defence)
    chain = _CACHE.get(key)
    if chain is None:
        chain = SevendagChain(ruleset, a, b, models)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = chain
    return chain


def sevendag_odds(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
                  state: SevendagState, *, cap: int | None = None,
                  tolerance: float = DEFAULT_TOLERANCE) -> Odds:
    """Each fighter's win probability from ``state``, with bounds, the draw and the unresolved mass.

    Assumes each fighter keeps its sheet's tactic from now on (no yield, no new
    technique); a technique in effect runs its course.  From a finished fight: 1 and 0.
    """
    return chain_for(ruleset, a, b).odds(state, cap, tolerance)
