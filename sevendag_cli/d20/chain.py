"""A d20 fight's odds from any moment (D-02 .. D-12); no numpy for a small fight.

**Tables** (:class:`D20Tables`, once per (ruleset, pair)): who attacks a round
(D-02) and the exact damage distribution of each fighter's attack (D-04 .. D-10),
from :func:`sevendag_cli.d20.exact.round_distribution` (the formulas' exact laws).  They are
plain integers, so they can be kept (``msgspec`` encodes them, when each fits 64 bits) and a
later process answers without computing them again.

**Odds** (:class:`D20Chain`): hit points only go down, and a round deals no damage
(a miss, a full dodge) with the same probability ``s`` in every state, so the
chain of the rounds that deal damage (the *jump chain*) is a DAG.  One pass in
increasing hit points gives ``V(ha, hb)`` = P(a wins) from *every* state at once
(no round cap): the table is kept, and the odds of any state of the fight are a
look-up.  Small fights (:data:`PY_CELLS`) in pure Python; larger ones by
:mod:`sevendag_cli.d20.solve` (numpy, extended precision, a far tighter rounding
bound), up to :data:`sevendag_cli.d20.limits.MAX_EXACT_HP` hit points each.

**The round cap** (a draw after round ``cap``, as ``round`` and ``fight``; a ruleset with
no cap plays the fight to the end): from ``(ha, hb)`` the fight is over after at most
``K = ha + hb - 1`` damaging rounds, so ``P(round cap reached) <= P(Binomial(n, 1 - s) <
K)`` with ``n`` the rounds left; and it is reached only if each fighter's damage over those
rounds falls short of the other's hit points, which a Chernoff bound caps
(:meth:`D20Chain.cap_bound`: the least of the three).  When that bound is below the
tolerance it is added to the unresolved mass (each win probability lies within it);
otherwise the cap matters and the capped fight is computed from the law of the number of
hits that end it (:meth:`D20Chain.capped_odds`, :mod:`sevendag_cli.d20.rounds`).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from fractions import Fraction
from functools import reduce
from operator import mul
from typing import Any

import msgspec

from sevendag_cli.d20.engine import D20State
from sevendag_cli.d20.limits import MAX_EXACT_HP
from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
from sevendag_cli.errors import EncounterError, Msg, UsageError
from sevendag_cli.sim.odds import (
    COMPLETE,
    DEFAULT_TOLERANCE,
    TOLERANCE,
    WORK,
    Odds,
    binomial_cdf_upper,
    certified,
    check_tolerance,
    finished,
    gamma,
)

MAX_HP = MAX_EXACT_HP
"""Most hit points a fighter may have for exact odds (:data:`sevendag_cli.d20.limits.MAX_EXACT_HP`)."""
MAX_KEPT_DAMAGE = 10_000_000
"""Largest damage (and most damage values) kept tables may hold when read back."""


class D20Tables(msgspec.Struct, frozen=True):
    """One round of a d20 pair (D-02 .. D-10) as exact integer weights.

    ``first``: weight of a attacking a round, over ``first_den`` (D-02, ties roll
    again).  ``damage_a``: (damage, weight) of a's attack on b, over ``den_a``
    (0 = a miss or a full dodge); ``damage_b`` the same for b's attack on a.
    """

    names: tuple[str, str]
    first: int
    first_den: int
    damage_a: tuple[tuple[int, int], ...]
    den_a: int
    damage_b: tuple[tuple[int, int], ...]
    den_b: int
    fingerprint: str = ""  # the ruleset and pair they belong to (:func:`pair_fingerprint`)

    def __post_init__(self) -> None:
        """Kept bytes come back from a file: tables no solver could have built are refused
        (decoding raises ``msgspec.ValidationError``, and :class:`~.moment.OddsSolver`
        ignores the bytes), and no damage is so large that the odds would fill the memory."""
        if not 0 <= self.first <= self.first_den or self.first_den < 1:
            raise ValueError("d20 tables: the first attacker's weight is out of range")
        for dist, den in ((self.damage_a, self.den_a), (self.damage_b, self.den_b)):
            if den < 1 or len(dist) > MAX_KEPT_DAMAGE or sum(w for _, w in dist) != den \
                    or not all(0 <= d <= MAX_KEPT_DAMAGE and w > 0 for d, w in dist):
                raise ValueError("d20 tables: a damage distribution is not one")

    def to_bytes(self) -> bytes:
        return msgspec.msgpack.encode(self)

    @classmethod
    def from_bytes(cls, data: bytes) -> D20Tables:
        return msgspec.msgpack.decode(data, type=cls)


def _weights(dist: dict[int, Fraction]) -> tuple[tuple[tuple[int, int], ...], int]:
    den = reduce(math.lcm, (p.denominator for p in dist.values()), 1)
    return tuple(sorted((d, int(p * den)) for d, p in dist.items() if p)), den


def d20_tables(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter) -> D20Tables:
    """The exact round tables of a against b (from the formulas' exact laws)."""
    from sevendag_cli.d20.exact import round_distribution

    if max(a.hp, b.hp) > MAX_HP:
        raise UsageError(Msg("exact.d20.hp", max=MAX_HP, a=a.name, hp_a=a.hp, b=b.name,
                             hp_b=b.hp))
    rd = round_distribution(ruleset, a, b)
    qa, den_a = _weights(rd.a_attacks.damage)
    qb, den_b = _weights(rd.b_attacks.damage)
    p = rd.p_a_attacks
    return D20Tables((a.name, b.name), p.numerator, p.denominator, qa, den_a, qb, den_b,
                     pair_fingerprint(ruleset, a, b))


def pair_fingerprint(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter) -> str:
    """What a pair's round tables depend on: the ruleset's rules and both sheets, not where
    they were read nor the round cap.  Kept tables of another pair (``odds --set``, a sheet
    edited since) are told apart by it, not by the fighters' names."""
    from msgspec.structs import replace

    parts = (replace(ruleset, path="", round_cap=1), replace(a, path=""), replace(b, path=""))
    # sets (a formula's names) sorted: the same fingerprint in every process and hash seed
    return hashlib.sha256(msgspec.msgpack.encode(parts, order="deterministic")).hexdigest()[:32]


class _JumpGrid:
    """``F`` on [1, ha] x [1, hb] hit points by one pass over the jump chain of a d20 pair (the
    rounds that deal damage): ``F(h, g) = base(g) + sum ja(d) F(h, g - d) + sum jb(d) F(h - d, g)``,
    a fighter at 0 or below counting 0; computed once, grown when asked for more."""

    def __init__(self, ja_rev: list[float], jb_rev: list[float],
                 base: Callable[[int], float]) -> None:
        self.ja_rev, self.jb_rev = ja_rev, jb_rev
        self.base = base
        self.rows: list[list[float]] = [[]]  # rows[ha][hb] = F(ha, hb); index 0 unused
        self.cols: list[list[float]] = [[]]  # cols[hb][ha], the same values
        self.width = 0  # hb computed so far (every row)

    def _grow(self, ha: int, hb: int) -> None:
        ha0 = len(self.rows) - 1
        if ha <= ha0 and hb <= self.width:
            return
        new_w = max(hb, self.width)
        new_h = max(ha, ha0)
        bases = [0.0] + [self.base(g) for g in range(1, new_w + 1)]
        ja_rev, jb_rev = self.ja_rev, self.jb_rev
        na, nb = len(ja_rev), len(jb_rev)
        while len(self.cols) <= new_w:
            self.cols.append([0.0])
        for h in range(1, new_h + 1):
            if h >= len(self.rows):
                self.rows.append([0.0])
            row = self.rows[h]
            start = len(row)
            for g in range(start, new_w + 1):
                col = self.cols[g]
                k = min(na, g - 1)
                v = bases[g]
                if k:
                    v += sum(map(mul, ja_rev[na - k:], row[g - k:g]))
                k = min(nb, h - 1)
                if k:
                    v += sum(map(mul, jb_rev[nb - k:], col[h - k:h]))
                row.append(v)
                col.append(v)
        self.width = new_w

    def value(self, ha: int, hb: int) -> float:
        self._grow(ha, hb)
        return self.rows[ha][hb]



PY_CELLS = 10_000
"""Most states the odds from a moment solve in pure Python (:class:`_JumpGrid`, no numpy: a
few milliseconds); a larger fight, or one whose pure-Python rounding bound passes
:data:`PY_BOUND`, is solved by :mod:`~.solve` (numpy, extended precision)."""
PY_BOUND = 5e-13
"""Largest rounding bound of the pure-Python pass (half the default tolerance)."""


class D20Chain:
    """Odds of every state of one d20 pair, from its tables (pure Python, kept per pair)."""

    def __init__(self, tables: D20Tables) -> None:
        self.tables = tables
        self.names = tables.names
        p = tables.first / tables.first_den
        self.p_first = p
        self.qa = {d: w / tables.den_a for d, w in tables.damage_a}  # a's attack: damage to b
        self.qb = {d: w / tables.den_b for d, w in tables.damage_b}
        from sevendag_cli.d20.jumps import Jumps

        self.jumps = Jumps(Fraction(tables.first, tables.first_den),
                           {d: Fraction(w, tables.den_a) for d, w in tables.damage_a},
                           {d: Fraction(w, tables.den_b) for d, w in tables.damage_b})
        self.s = float(self.jumps.s)
        self.moves = self.jumps.moves  # some round can deal damage
        self.terms = self.jumps.terms
        self._values: Any = None  # the last :class:`~.solve.Values`, kept
        ja, jb = self.jumps.ja, self.jumps.jb
        self.ja = {d: float(p) for d, p in ja.items()}
        self.jb = {d: float(p) for d, p in jb.items()}
        self.top_a, self.top_b = self.jumps.top_a, self.jumps.top_b
        # ja_rev[k] = P(a deals top_a - k | a damaging round): reversed for slice products.
        self.ja_rev = [self.ja.get(d, 0.0) for d in range(self.top_a, 0, -1)]
        self.jb_rev = [self.jb.get(d, 0.0) for d in range(self.top_b, 0, -1)]
        self._wins = _JumpGrid(self.ja_rev, self.jb_rev, self._tail_a)  # V, kept and grown

    def _tail_a(self, hb: int) -> float:
        """P(a's damage drops b from hb hit points | a damaging round)."""
        return math.fsum(p for d, p in self.ja.items() if d >= hb)

    def _python(self, ha: int, hb: int) -> bool:
        """Whether the odds from (ha, hb) are solved in pure Python (small, and its bound tight)."""
        return ha * hb <= PY_CELLS and (ha + hb) * gamma(self.terms + 3) <= PY_BOUND

    def value(self, ha: int, hb: int) -> float:
        """P(a wins) from (ha, hb) hit points with no round cap, between rounds: every state up to
        the largest asked is solved once and kept (a grid, while it is small), else the state
        alone (one pass, holding a few diagonals)."""
        if ha <= 0 or hb <= 0:
            return 1.0 if hb <= 0 else 0.0
        if self._python(ha, hb):
            return self._wins.value(ha, hb)
        from sevendag_cli.d20.solve import MAX_GRID_CELLS, backward

        kept = self._values
        if kept is not None and kept.covers(ha, hb):
            return float(kept(ha, hb))
        if kept is not None and kept.grid is not None:
            ha, hb = max(ha, kept.ha0), max(hb, kept.hb0)
        grid = (ha + 1) * (hb + 1) <= MAX_GRID_CELLS
        self._values = backward(self.jumps, ha, hb, grid)
        return float(self._values(ha, hb))

    def rounds_mean(self, ha: int, hb: int) -> float:
        """Expected rounds of the fight from (ha, hb) hit points, played to the end (no cap).

        Each state of the jump chain lasts ``1 / (1 - s)`` rounds on average, then moves on
        by a's or b's damage, so ``E(ha, hb) = 1/(1 - s) + sum ja(d) E(ha, hb - d) + sum
        jb(d) E(ha - d, hb)``, a state that ends the fight counting 0: the same pass as
        :meth:`value`'s (pure Python while small, else :func:`~.solve.forward`).
        """
        if self._python(ha, hb):
            stay = 1.0 / (1.0 - self.s)
            return _JumpGrid(self.ja_rev, self.jb_rev, lambda hb: stay).value(ha, hb)
        from sevendag_cli.d20.solve import forward

        return forward(self.jumps, ha, hb, [(None, Fraction(1))]).rounds_mean

    def error(self, ha: int, hb: int) -> float:
        """A bound on the rounding error of :meth:`value` (each level adds one rounded sum;
        :mod:`~.solve` for the larger fights)."""
        if self._python(ha, hb):
            return (ha + hb) * gamma(self.terms + 3)
        return self.jumps.error(ha, hb)

    def after_attack(self, attacker: int, ha: int, hb: int) -> tuple[float, float]:
        """P(a wins) (no cap) when ``attacker`` attacks the next round, and its error bound."""
        q = self.qa if attacker == 0 else self.qb
        self.value(ha, hb)  # solves (and keeps) every state the attack can reach
        terms: list[float] = []
        for d, p in q.items():
            if d == 0:  # no damage: the rounds after roll initiative again
                nxt = self.value(ha, hb)
            elif attacker == 0:
                nxt = 1.0 if d >= hb else self.value(ha, hb - d)
            else:
                nxt = 0.0 if d >= ha else self.value(ha - d, hb)
            terms.append(p * nxt)
        return math.fsum(terms), self.error(ha, hb) + gamma(3)

    def cap_bound(self, ha: int, hb: int, rounds: int, fixed: bool) -> float:
        """An upper bound of P(the fight from (ha, hb) is still going after ``rounds`` rounds)
        (``fixed``: the next round's attacker is set, and that round is left out).

        Still going means both still stand: each fighter's damage over the rounds fell short
        of the other's hit points, and at most ``ha + hb - 2`` rounds dealt damage.  The least
        of three bounds: the binomial tail of the damaging rounds, and a Chernoff bound for
        each fighter's total damage, ``P(S < h) <= exp(t (h - 1)) E[exp(-t X)]^n`` (any
        ``t > 0``; a few are tried), each round's damage ``X`` from the exact tables.
        """
        free_rounds = rounds - 1 if fixed else rounds
        if free_rounds <= 0:
            return 1.0
        best = binomial_cdf_upper(free_rounds, 1.0 - self.s, ha + hb - 2)
        p = self.p_first
        for q, share, h in ((self.qa, p, hb), (self.qb, 1.0 - p, ha)):
            mean = share * math.fsum(d * w for d, w in q.items())
            if mean * free_rounds <= h:
                continue  # the expected damage does not reach: no useful bound
            for t in (2.0 ** -e for e in range(0, 40)):
                m = (1.0 - share) + share * math.fsum(w * math.exp(-t * d) for d, w in q.items())
                if m >= 1.0:
                    break
                log_bound = t * (h - 1) + free_rounds * math.log(m)
                # exp, log and the sums are within a few ulps: a relative margin covers them.
                best = min(best, math.exp(log_bound) * (1.0 + 1e-9) + 1e-300)
        return min(1.0, best)

    def uncapped_odds(self, ha: int, hb: int, fixed: int | None, rounds: int | None) -> Odds:
        """The odds within ``rounds`` rounds from (ha, hb) hit points as the fight's with no cap,
        certified: the cap's share is bounded, not computed (``fixed``: the fighter who attacks
        the next round, else the next round rolls initiative; ``rounds`` None: the fight played
        to the end, no cap at all)."""
        if fixed is None:
            v, err = self.value(ha, hb), self.error(ha, hb)
        else:
            v, err = self.after_attack(fixed, ha, hb)
        beyond = 0.0 if rounds is None else self.cap_bound(ha, hb, rounds, fixed is not None)
        return certified(self.names, v, 1.0 - v, 0.0, err + beyond, rounds or 0, TOLERANCE)

    def odds(self, state: D20State, cap: int | None, tolerance: float = DEFAULT_TOLERANCE) -> Odds:
        """The odds from ``state`` (``cap`` None: the fight played to the end, no draw)."""
        names = tuple(f.name for f in state.fighters)
        if names != self.names:
            raise EncounterError(Msg("exact.d20.state", a=names[0], b=names[1], c=self.names[0],
                                     d=self.names[1]))
        if state.over and (state.winner is not None or state.capped):  # not a safety stop
            return finished(self.names, None if state.winner is None
                            else self.names.index(state.winner))
        ha, hb = state.fighters[0].hp, state.fighters[1].hp
        if ha <= 0 or hb <= 0:
            return finished(self.names, 1 if ha <= 0 else 0)
        if max(ha, hb) > MAX_HP:
            raise UsageError(Msg("exact.d20.hp", max=MAX_HP, a=self.names[0], hp_a=ha,
                                 b=self.names[1], hp_b=hb))
        rounds = None if cap is None else max(1, cap - state.round)
        if not self.moves:  # nobody can ever deal damage: a draw at the cap (D-12, cap)
            if rounds is None:  # and no cap ends the fight: nothing ever resolves
                return Odds(self.names, (0.0, 0.0), 0.0, 1.0, 0, COMPLETE)
            return Odds(self.names, (0.0, 0.0), 1.0, 0.0, rounds, COMPLETE)
        fixed = None if state.next_attacker is None else self.names.index(state.next_attacker)
        odds = self.uncapped_odds(ha, hb, fixed, rounds)
        if rounds is None:  # no cap: everything resolved, only the rounding unresolved
            return msgspec.structs.replace(odds, stop=COMPLETE)
        if odds.unresolved > tolerance and rounds is not None:  # the cap matters: computed
            return self.capped_odds(ha, hb, fixed, rounds, tolerance)
        return odds

    def capped_odds(self, ha: int, hb: int, fixed: int | None, rounds: int,
                    tolerance: float) -> Odds:
        """The odds within ``rounds`` rounds from (ha, hb), a draw after them: from the law of
        the number of hits that end the fight and the rounds they take
        (:func:`sevendag_cli.d20.rounds.timed`), the draw computed."""
        from sevendag_cli.d20.rounds import timed

        p = self.p_first
        columns = [(0, p), (1, 1.0 - p)] if fixed is None else [(fixed, 1.0)]
        push = timed(self.jumps, ha, hb, columns, rounds, tolerance).push
        odds = push.odds(self.names, rounds, len(push.alive))
        if odds.stop == WORK and odds.unresolved > tolerance:  # nothing from unresolved mass
            raise UsageError(Msg("exact.unresolved", unresolved=odds.unresolved,
                                 tolerance=tolerance))
        return odds


_CACHE: dict[tuple[object, ...], D20Chain] = {}
_CACHE_SIZE = 8


def chain_for(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter) -> D20Chain:
    """The chain of this pair under this ruleset, built once per process (a few are kept)."""
    key = (ruleset.path, ruleset.name, repr(ruleset), repr(a), repr(b))
    chain = _CACHE.get(key)
    if chain is None:
        chain = D20Chain(d20_tables(ruleset, a, b))
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = chain
    return chain


def d20_odds(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter, state: D20State, *,
             cap: int | None = None, tolerance: float = DEFAULT_TOLERANCE,
             tables: D20Tables | None = None) -> Odds:
    """Each fighter's win probability from ``state``, with bounds, the draw and the unresolved mass.

    ``tables``: the pair's :class:`D20Tables` kept from an earlier call (skips the formulas' laws).
    From a finished fight: 1 and 0.
    """
    chain = D20Chain(tables) if tables is not None else chain_for(ruleset, a, b)
    cap = ruleset.round_cap if cap is None else cap
    return chain.odds(state, cap, check_tolerance(tolerance))
