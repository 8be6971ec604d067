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

**One round** (:meth:`SevendagChain.successors`): the exact round form's
(:mod:`sevendag_cli.sevendag.rounds`, the one place a round's sequencing is written: the
exchanges, S-08's penalty on the second, S-14, S-19 mid-round, granted criticals, drops) with
the sheets' declarations (the allocations of the shared fighter model,
:mod:`sevendag_cli.sevendag.model`, no yield, no new technique), its outcomes taken to the
next states (:class:`~sevendag_cli.sevendag.rounds.Pieces`).  Probabilities are exact integers
over a common denominator; floats are taken from them.

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
from array import array
from collections.abc import Sequence
from fractions import Fraction

import msgspec

from sevendag_cli.errors import EncounterError, Msg, UsageError
from sevendag_cli.sevendag.engine import SevendagState
from sevendag_cli.sevendag.model import FighterModel, check_fighters, check_plain, fighter_model
from sevendag_cli.sevendag.rounds import KEEP, Pieces, RoundForm, Tech, mask_of
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

MAX_FACES = 250_000
"""Most (sum of a's dice faces) x (sum of b's): the size of one exchange's enumeration."""
MAX_STATES = 100_000
"""Most fight states one chain holds (a finite ruleset of 74,000 states: some 4 s to build and
push, 300 MB at the peak)."""
MAX_WORK = 30_000_000
"""Most (state, successor) steps one solve makes (a few seconds); then it stops, unresolved."""
MAX_TECHNIQUE_ROUNDS = 100
"""Longest technique still in effect that a saved state may carry."""

StateKey = tuple[
    int,  # assaillant: 0 = a, 1 = b
    int,  # D = a's penalty - b's penalty (clamped to [lo, hi] without technique)
    tuple[int, ...], tuple[int, ...],  # wounds per band counted towards out_after, a and b
    tuple[int, ...], tuple[int, ...],  # rounds left picking each unit up, a and b
    bool, bool,  # granted critical, a and b
    Tech, Tech,  # technique in effect, a and b
]



class OddsTable(msgspec.Struct, frozen=True):
    """Certified odds of every state of a chain, for any state with ``horizon`` rounds or more
    to go (:func:`sevendag_cli.sevendag.push.chain_table` builds it; ``to_bytes`` keeps it).

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
    """One round from a state: where the mass goes (``targets``, ``probs``: the round summed
    by where it leads; ``absorb``: the weights of a winning and of b winning, over ``den``),
    ``rewards`` the weight of each wound taken; ``moves`` keeps them together, each way the
    round can go with the wounds taken in it (what :mod:`sevendag_cli.sim.sample` draws).
    Kept lean (compact arrays, the exact weights of the targets not kept:
    :meth:`SevendagChain.exact_weights` works them out again)."""

    __slots__ = ("_moves", "absorb", "den", "pa", "pb", "probs", "rewards", "targets")

    def __init__(self, targets: list[int], weights: list[int], absorb: tuple[int, int], den: int,
                 rewards: tuple[int, ...],
                 moves: tuple[Move, ...] | tuple[SevendagChain, int] = ()) -> None:
        self.targets = array("q", targets)
        self.absorb = absorb  # weight of a winning, of b winning, this round
        self.den = den
        self.probs = array("d", [w / den for w in weights])
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

        self.constants = ((a.attack, a.defence), (b.attack, b.defence))
        # The exact round (the models' allocations indexed by the dropped units' mask).
        self.form = form = RoundForm(ruleset, self.models, self.constants)
        self.pieces = Pieces(form)
        self.band_names, self.lows, self.highs = form.band_names, form.lows, form.highs
        self.penalty, self.tracked, self.slot, self.limit = (form.penalty, form.tracked,
                                                             form.slot, form.limit)
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
        """State ``i``'s round (the sheets' declarations: no yield, no new technique) from the
        exact round form, its outcomes taken to the next states."""
        assail, d, ca, cb, ra, rb, ga, gb, ta, tb = self.states[i]
        pieces = self.pieces
        near = pieces.near(ca, cb)
        x, y = self.form.offsets(d, pieces.mods(ta, tb))
        kernel = self.form.kernel(assail, x, y, near, (mask_of(ra), mask_of(rb)), (ga, gb))
        ta2, tb2 = pieces.tech_next(ta), pieces.tech_next(tb)
        free = ta2 is None and tb2 is None
        nb = len(self.penalty)
        absorb = [0, 0]
        rewards = [0] * (2 * nb)
        by_target: dict[int, int] = {}
        moves: dict[tuple[int, tuple[int, ...]], int] = {}
        taken = self._taken
        for winner, ha, hb, assail2, da, db, ga2, gb2, w in kernel.outcomes:
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
            d2 = d + pieces.delta(ha, hb)
            if free:
                d2 = self.clamp(d2)
            t = self.state_id((assail if assail2 == KEEP else assail2, d2, pieces.bump(ca, ha),
                               pieces.bump(cb, hb), pieces.recover(ra, da),
                               pieces.recover(rb, db), ga2, gb2, ta2, tb2))
            by_target[t] = by_target.get(t, 0) + w
            mk = (t, got_rewards)
            moves[mk] = moves.get(mk, 0) + w
        return Successors(list(by_target), list(by_target.values()), (absorb[0], absorb[1]),
                          kernel.den, tuple(rewards),
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
        by_target: dict[int, int] = {}
        for t, w, _taken in self.moves(i):
            if t >= 0:
                by_target[t] = by_target.get(t, 0) + w
        s = self.successors(i)
        return ([(t, Fraction(w, s.den)) for t, w in by_target.items()],
                (Fraction(s.absorb[0], s.den), Fraction(s.absorb[1], s.den)))


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
