"""Exact outcome of a Sevendag fight (S-02 .. S-19), with no sampling.

Same rules and decisions as the step-by-step engine's ``fight`` (each sheet's
tactic, no technique, no yield, no round cap), solved as an absorbing Markov
chain over the fight's state between rounds:

* the assaillant (S-02, S-14);
* each fighter's wound counts in the bands that take a fighter out
  (``out_after > 0``), each below its ``out_after`` (S-07, S-19);
* each dropped weapon's rounds left to pick it up (S-18);
* each fighter's granted critical (S-10 ``fumble_grants_crit``).

This state space is finite only when every band with a lasting penalty also
takes a fighter out after some number of wounds: a penalty that can pile up
without bound (the house default, light -1 forever) makes every wound count a
different state, and :func:`exact_sevendag` refuses it with a
:class:`UsageError` rather than approximate.  Bands with no penalty and no
``out_after`` change nothing and are not tracked.

One round's transition probabilities come from exact enumeration of the dice:
each hand's die is split into lowest face / highest face / the rest (that is
all S-10 .. S-15 look at), the faces in between only add to the totals (S-06),
so a round costs a few convolutions of small integer counts.  The chain is
then solved exactly with fractions, one *layer* of wound counts at a time from
the most wounded down (wounds never heal, so each layer only leads to itself,
to more wounded layers and to the end of the fight).

The attack-dice verdicts (S-10 .. S-13) and the allocations per dropped
weapons (S-04, S-18) are the vectorised engine's
(:func:`~sevendag_cli.sim.vector_sevendag.judge`,
:func:`~sevendag_cli.sim.vector_sevendag.fighter_model`), themselves built on
the step-by-step engine's planning code.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from sevendag_cli.errors import RuleError, UsageError
from sevendag_cli.rules.bounds import check_exact
from sevendag_cli.rules.sevendag import SevendagFighter, SevendagRuleset
from sevendag_cli.sim.exact_d20 import ExactResult, convolve, formula_dist
from sevendag_cli.sim.vector_sevendag import (
    Allocation,
    FighterModel,
    Verdict,
    check_fighters,
    fighter_model,
    granted_unit,
    judge,
)

MAX_STATES = 15_000
"""Most reachable states the exact solver accepts."""
MAX_WORK = 8_000_000
"""Most work in exact linear solves, counted as the sum of n**3 over the layers of n states
that need their own inverse (about a second per 2 million on a laptop)."""

MAX_FACES = 250_000
"""Most (sum of a's dice faces) x (sum of b's): the size of one exchange's convolutions."""

NOTE = (
    "Exact (no sampling): each round's outcome from exact enumeration of the dice "
    "(S-06..S-18), then an absorbing Markov chain over the assaillant, the wounds that count "
    "towards out_after, dropped weapons and granted criticals (S-02..S-19). No round cap in "
    "this model, so no draws; a simulation with a round cap can differ only by its (rare) "
    "capped fights."
)

Counts = dict[int, int]
"""A distribution as integer weights: value -> number of face combinations."""

A_WINS = "a"
B_WINS = "b"


@dataclass(frozen=True, order=True)
class State:
    """The fight between two rounds (fighter index 0 = a, 1 = b)."""

    wounds: tuple[tuple[int, ...], tuple[int, ...]]  # per fighter, per tracked band
    assaillant: int
    recovering: tuple[tuple[int, ...], tuple[int, ...]]  # per fighter, per unit: rounds left
    granted: tuple[bool, bool]


Target = State | str
"""A state, or A_WINS / B_WINS."""


@dataclass(frozen=True)
class _Outcome:
    """One exchange's result, as far as the state is concerned."""

    band: int  # final band index (S-07 + S-17 shift), -1: no wound
    fumble: bool
    grant_used: bool
    dropped: int  # bit mask of the attacker's units dropped (S-18)
    critical_defence: bool  # S-14


# --- refusals ------------------------------------------------------------------------


def check_finite(ruleset: SevendagRuleset) -> None:
    """Refuse, in one line, a ruleset whose fight state space is infinite or never ends."""
    for band in ruleset.wounds:
        if band.penalty and not band.out_after:
            raise UsageError(
                "exact odds need a finite state space: wound penalties accumulate without "
                f"bound (wounds {band.name!r} penalty {band.penalty}, no out_after); "
                "use --runs N to simulate"
            )
    if not any(band.out_after for band in ruleset.wounds):
        raise UsageError(
            "exact odds need fights that end: no wound band takes a fighter out (out_after); "
            "use --runs N to simulate"
        )


# --- dice ----------------------------------------------------------------------------




def _add_into(total: Counts, x: Counts) -> None:
    for v, c in x.items():
        total[v] = total.get(v, 0) + c


LOW, MID, HIGH = 0, 1, 2


def _category(sides: int, cat: int) -> Counts:
    """Faces of a d``sides`` in one category: lowest, in between, highest."""
    if cat == LOW:
        return {1: 1}
    if cat == HIGH:
        return {sides: 1}
    return {v: 1 for v in range(2, sides)}


def _attack_cases(model: FighterModel, alloc: Allocation,
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


def _defence_cases(model: FighterModel, alloc: Allocation) -> dict[tuple[bool, bool], Counts]:
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


# --- the chain -------------------------------------------------------------------------


class _Chain:
    """Transitions of one fight, built on demand and cached."""

    def __init__(self, ruleset: SevendagRuleset, models: tuple[FighterModel, FighterModel]):
        self.rs = ruleset
        self.models = models
        self.tracked = tuple(j for j, band in enumerate(ruleset.wounds) if band.out_after)
        self.slot = {j: i for i, j in enumerate(self.tracked)}
        self.limit = tuple(ruleset.wounds[j].out_after for j in self.tracked)
        self.penalty = tuple(ruleset.wounds[j].penalty for j in self.tracked)
        self.lows = tuple(band.low for band in ruleset.wounds)
        self.recovery = ruleset.drop_recovery_rounds
        self.grants = ruleset.fumble_grants_crit
        self.exchange = lru_cache(maxsize=None)(self._exchange)
        self.kernel = lru_cache(maxsize=None)(self._kernel)

    # one exchange

    def _band(self, raw: int, shift: int) -> int:
        band = 0
        for j, low in enumerate(self.lows):
            if raw >= low:
                band = j
        return min(len(self.lows) - 1, max(0, band + shift))

    def _exchange(self, att: int, mask_at: int, mask_de: int, offset: int,
                  granted: bool) -> tuple[tuple[_Outcome, Fraction], ...]:
        """One exchange's outcomes; ``offset`` = the constants and penalties (S-06, S-19)."""
        ma, md = self.models[att], self.models[1 - att]
        alloc_a, alloc_d = ma.allocations[mask_at], md.allocations[mask_de]
        if not alloc_a.attack:
            return ((_Outcome(-1, False, False, 0, False), Fraction(1)),)
        den = 1
        for h in alloc_a.attack:
            den *= ma.sides[h]
        for h in alloc_d.defence:
            den *= md.sides[h]
        g = granted_unit(ma, alloc_a)
        g_extra = ma.units[g].extra_damage if g is not None else 0
        g_shift = ma.units[g].band_shift if g is not None else 0
        drop_die = self.rs.drop_check_die
        out: dict[_Outcome, Fraction] = {}

        def add(o: _Outcome, p: Fraction) -> None:
            out[o] = out.get(o, Fraction(0)) + p

        defence = _defence_cases(md, alloc_d)
        for v, attack in _attack_cases(ma, alloc_a, self.rs.failure_beats_crit).items():
            n_attack = sum(attack.values())
            extra = sum(t * ma.units[u].extra_damage for u, t in enumerate(v.times))
            shift = sum(t * ma.units[u].band_shift for u, t in enumerate(v.times))
            for (top, shield), dsums in defence.items():
                weight = Fraction(n_attack * sum(dsums.values()), den)
                if v.failure:
                    # S-10/S-18: one drop check per weapon that failed.
                    for dropped, p in _drops(ma, v.fumbled, drop_die):
                        add(_Outcome(-1, v.fumble, False, dropped, top), weight * p)
                    continue
                if shield:  # S-15
                    add(_Outcome(-1, False, False, 0, top), weight)
                    continue
                for margin, c in convolve(attack, dsums, -1).items():
                    margin += offset
                    p = Fraction(c, den)
                    used = not v.critical and granted and margin > 0
                    raw = margin + (g_extra if used else extra)
                    if raw <= 0:
                        add(_Outcome(-1, False, False, 0, top), p)
                    else:
                        band = self._band(raw, g_shift if used else shift)
                        add(_Outcome(band, False, used, 0, top), p)
        return tuple(out.items())

    # one round

    def _penalty(self, wounds: tuple[int, ...]) -> int:
        return sum(c * p for c, p in zip(wounds, self.penalty, strict=True))

    def penalties(self, wounds: tuple[tuple[int, ...], tuple[int, ...]]) -> tuple[int, int]:
        return self._penalty(wounds[0]), self._penalty(wounds[1])

    def round(self, s: State) -> dict[Target, Fraction]:
        """One round from ``s``: the kernel's outcomes applied to its wound counts."""
        near = tuple(
            tuple(c + 1 >= lim for c, lim in zip(w, self.limit, strict=True)) for w in s.wounds
        )
        key = (s.assaillant, s.recovering, s.granted,
               (self._penalty(s.wounds[0]), self._penalty(s.wounds[1])), (near[0], near[1]))
        out: dict[Target, Fraction] = {}
        for result, p in self.kernel(*key):
            if isinstance(result, str):
                target: Target = result
            else:
                hits, assail, rec, granted = result
                wounds = tuple(
                    tuple(c + (1 if hit == i else 0) for i, c in enumerate(w))
                    for w, hit in zip(s.wounds, hits, strict=True)
                )
                target = State((wounds[0], wounds[1]), assail, rec, granted)
            out[target] = out.get(target, Fraction(0)) + p
        return out

    def _kernel(self, assail: int, recovering: tuple[tuple[int, ...], tuple[int, ...]],
                granted: tuple[bool, bool], pen: tuple[int, int],
                near: tuple[tuple[bool, ...], tuple[bool, ...]]) -> tuple[tuple[_Result, Fraction], ...]:
        """S-08: exchange 1, exchange 2 unless over or ended by S-14, then S-18 bookkeeping.

        Depends on the wounds only through the penalties and which tracked bands are one
        wound from ``out_after`` (each fighter defends at most once a round).
        """
        masks = (self._mask(recovering[0]), self._mask(recovering[1]))
        out: dict[_Result, Fraction] = {}

        def add(t: _Result, p: Fraction) -> None:
            out[t] = out.get(t, Fraction(0)) + p

        def play(att: int, hits: list[int], pen: list[int], rec: list[list[int]],
                 g: list[bool], number: int, p: Fraction) -> None:
            de = 1 - att
            ma, md = self.models[att], self.models[de]
            offset = ma.attack - pen[att] - (md.defence - pen[de])
            for o, q in self.exchange(att, masks[att], masks[de], offset, g[att]):
                h2, pen2, r2, g2 = list(hits), list(pen), [list(x) for x in rec], list(g)
                if o.grant_used:
                    g2[att] = False
                if o.fumble and self.grants:
                    g2[de] = True
                for u in range(len(r2[att])):
                    if o.dropped >> u & 1:
                        r2[att][u] = self.recovery + 1
                if o.band >= 0 and o.band in self.slot:
                    i = self.slot[o.band]
                    if near[de][i]:  # S-19: out
                        add(A_WINS if att == 0 else B_WINS, p * q)
                        continue
                    h2[de] = i
                    pen2[de] += self.penalty[i]
                if number == 1 and not o.critical_defence:
                    play(de, h2, pen2, r2, g2, 2, p * q)
                    continue
                new_assail = de if number == 1 else assail  # S-14
                rec_after = (tuple(max(0, x - 1) for x in r2[0]),
                             tuple(max(0, x - 1) for x in r2[1]))
                add(((h2[0], h2[1]), new_assail, rec_after, (g2[0], g2[1])), p * q)

        play(assail, [-1, -1], list(pen), [list(x) for x in recovering], list(granted), 1,
             Fraction(1))
        return tuple(out.items())

    def _mask(self, rec: tuple[int, ...]) -> int:
        return sum(1 << u for u, left in enumerate(rec) if left > 0)


_Result = (
    str  # A_WINS / B_WINS
    | tuple[
        tuple[int, int],  # tracked band slot each fighter was wounded in, -1: none
        int,  # assaillant
        tuple[tuple[int, ...], tuple[int, ...]],  # rounds left picking up, after the round
        tuple[bool, bool],  # granted criticals
    ]
)


def _drops(model: FighterModel, fumbled: int, die: int) -> Iterable[tuple[int, Fraction]]:
    """Every set of weapons dropped among ``fumbled``: above the skill on the drop die."""
    cases: list[tuple[int, Fraction]] = [(0, Fraction(1))]
    for u, unit in enumerate(model.units):
        if not fumbled >> u & 1:
            continue
        p = Fraction(max(0, die - unit.skill), die)
        cases = [(bits | (1 << u), q * p) for bits, q in cases if p] + [
            (bits, q * (1 - p)) for bits, q in cases if p != 1]
    return cases


def initiative_probability(ruleset: SevendagRuleset, a: SevendagFighter,
                           b: SevendagFighter) -> Fraction:
    """S-02: P(a is the assaillant) = P(a > b) / (1 - P(tie))."""
    da = formula_dist(ruleset.speed_roll, a.env())
    db = formula_dist(ruleset.speed_roll, b.env())
    win = sum((pa * pb for x, pa in da.items() for y, pb in db.items() if x > y), Fraction(0))
    tie = sum((p * db.get(x, Fraction(0)) for x, p in da.items()), Fraction(0))
    if tie == 1:
        raise RuleError(
            f"the speed rolls tie again and again ({ruleset.speed_roll.text!r} for both): "
            "formulas.speed_roll must roll a die to break ties (S-02)"
        )
    return win / (1 - tie)


def _inverse(rows: list[dict[int, Fraction]]) -> list[list[Fraction]]:
    """(I - Q)^-1 exactly (Gauss-Jordan); ``rows[i]`` is Q's row i, sparse."""
    n = len(rows)
    a: list[list[Fraction]] = []
    for i, row in enumerate(rows):
        line = [Fraction(0)] * (2 * n)
        line[i] += 1
        line[n + i] = Fraction(1)
        for j, q in row.items():
            line[j] -= q
        a.append(line)
    for col in range(n):
        pivot = next((r for r in range(col, n) if a[r][col] != 0), None)
        if pivot is None:  # pragma: no cover - excluded by the reachability check
            raise UsageError("exact odds: the fight can go on forever; use --runs N to simulate")
        a[col], a[pivot] = a[pivot], a[col]
        inv = 1 / a[col][col]
        prow = [x * inv if x else x for x in a[col]]
        a[col] = prow
        nz = [j for j in range(col, 2 * n) if prow[j]]
        for r in range(n):
            f = a[r][col]
            if r != col and f:
                ar = a[r]
                for j in nz:
                    ar[j] -= f * prow[j]
    return [line[n:] for line in a]


def exact_sevendag(ruleset: SevendagRuleset, a: SevendagFighter,
                   b: SevendagFighter) -> ExactResult:
    """Exact win probabilities and expected rounds (no round cap), or a one-line UsageError."""
    check_fighters(ruleset, a, b)
    check_exact(ruleset, a, b)  # the value bound (issue 9)
    check_finite(ruleset)
    faces = sum(h.die for h in a.hands) * sum(h.die for h in b.hands)
    if faces > MAX_FACES:
        raise UsageError(
            f"exact odds: dice too large to enumerate ({a.name} and {b.name}'s hands have "
            f"{faces:,} face pairs, at most {MAX_FACES:,}); use --runs N to simulate"
        )
    chain = _Chain(ruleset, (fighter_model(ruleset, a), fighter_model(ruleset, b)))
    p_a = initiative_probability(ruleset, a, b)
    zero = tuple(0 for _ in chain.tracked)
    starts = {
        State((zero, zero), f,
              (tuple(0 for _ in chain.models[0].units), tuple(0 for _ in chain.models[1].units)),
              (False, False)): p
        for f, p in ((0, p_a), (1, 1 - p_a)) if p
    }

    # Every reachable state and its round.
    trans: dict[State, dict[Target, Fraction]] = {}
    todo = deque(starts)
    while todo:
        s = todo.popleft()
        if s in trans:
            continue
        if len(trans) >= MAX_STATES:
            raise UsageError(
                f"exact odds: more than {MAX_STATES:,} fight states for these sheets; "
                "use --runs N to simulate"
            )
        trans[s] = chain.round(s)
        todo.extend(t for t in trans[s] if isinstance(t, State) and t not in trans)

    # Every state must be able to end (else some fights never do).
    back: dict[Target, list[State]] = {}
    for s, targets in trans.items():
        for t in targets:
            back.setdefault(t, []).append(s)
    ends: set[Target] = {A_WINS, B_WINS}
    queue = deque(ends)
    while queue:
        t = queue.popleft()
        for s in back.get(t, ()):
            if s not in ends:
                ends.add(s)
                queue.append(s)
    stuck = [s for s in trans if s not in ends]
    if stuck:
        raise UsageError(
            f"exact odds: some fights of {a.name} against {b.name} never end (neither can take "
            "the other out from some situations); use --runs N to simulate with a round cap"
        )

    # Layers of equal wounds, most wounded first: x = (P(a wins), E[rounds]) = N r with
    # N = (I - Q)^-1 over the layer (Q: the rounds that wound nobody counted in a band that
    # takes a fighter out).  N depends on the layer only through the penalties and its states,
    # so layers that share them (all, without penalties) share N.
    layers: dict[tuple[tuple[int, ...], tuple[int, ...]], list[State]] = {}
    for s in trans:
        layers.setdefault(s.wounds, []).append(s)
    value: dict[State, list[Fraction]] = {}
    inverses: dict[object, tuple[list[list[int]], int]] = {}
    work = 0
    for key in sorted(layers, key=lambda w: -sum(w[0]) - sum(w[1])):
        states = sorted(layers[key])
        pos = {s: i for i, s in enumerate(states)}
        rows: list[dict[int, Fraction]] = []
        rhs: list[tuple[Fraction, Fraction]] = []
        for s in states:
            row: dict[int, Fraction] = {}
            win = Fraction(0)
            rounds = Fraction(1)
            for t, p in trans[s].items():
                if t == A_WINS:
                    win += p
                elif isinstance(t, State) and t in pos:
                    row[pos[t]] = row.get(pos[t], Fraction(0)) + p
                elif isinstance(t, State):
                    win += p * value[t][0]
                    rounds += p * value[t][1]
            rows.append(row)
            rhs.append((win, rounds))
        shape = (chain.penalties(key), tuple((s.assaillant, s.recovering, s.granted)
                                              for s in states))
        if shape not in inverses:
            work += len(states) ** 3
            if work > MAX_WORK:
                raise UsageError(
                    f"exact odds: too much work to solve exactly ({len(trans):,} fight states, "
                    "too many of them alike but for wounds or dropped weapons); "
                    "use --runs N to simulate"
                )
            inverse = _inverse(rows)
            inv_den = math.lcm(*(x.denominator for line in inverse for x in line))
            inverses[shape] = (
                [[x.numerator * (inv_den // x.denominator) for x in line] for line in inverse],
                inv_den,
            )
        inv_num, inv_den = inverses[shape]
        for col in (0, 1):
            # x = N r in integers: N = inv_num / inv_den, r over one common denominator.
            den = math.lcm(*(r[col].denominator for r in rhs))
            num = [r[col].numerator * (den // r[col].denominator) for r in rhs]
            for s, line in zip(states, inv_num, strict=True):
                total = sum(x * y for x, y in zip(line, num, strict=True) if x)
                value.setdefault(s, [Fraction(0), Fraction(0)])[col] = Fraction(
                    total, den * inv_den)
    win_a = sum((p * value[s][0] for s, p in starts.items()), Fraction(0))
    rounds = sum((p * value[s][1] for s, p in starts.items()), Fraction(0))
    return ExactResult((a.name, b.name), (win_a, 1 - win_a), Fraction(0), rounds, NOTE)
