"""One Sevendag round, exactly: the distribution of its outcomes from a state under given
declarations (S-03 .. S-19); no numpy.

This is the round's **exact form**, beside its step form (the step-by-step engine,
:mod:`sevendag_cli.sevendag.resolution`, die by die, what the table sees).  Every solver and
sampler of the fight is built on it: the sheets' chain (:mod:`~sevendag_cli.sevendag.chain`),
the game with every declaration open (:mod:`~sevendag_cli.sevendag.game`), and through them
the push of ``fight --exact``, the odds from any moment, the exact fractions and the
sampler of ``fight --runs``.  ``tests/test_round_forms.py`` ties the two forms together over
every face of every die, in every kind of state.

**An exchange** (one attack): every die of both fighters split into lowest / in-between /
highest faces — all S-10 .. S-15 look at — the in-between faces only adding to the totals;
the attack dice read by the engine's own verdicts (S-10 .. S-13, through
:func:`~sevendag_cli.sevendag.model.judge`), the defence dice for critical defence and
shields (S-14, S-15), drop checks after a critical failure (S-10, S-18).  What lands is kept
as the margins *without the constants*: the exchange's outcome at a given **offset**
(attack constant + technique, less the defender's defence constant + technique, less the
attacker's penalty plus the defender's: S-06, S-19) is a few prefix sums (S-06, S-07, the
metals of S-17, a granted critical of S-10).  Beyond an exchange's own offset range every
landing attack is foiled, or every one is in the last band: offsets are clamped there.

**A round** (:meth:`RoundForm.kernel`), S-08: the fighter attacking first (the assaillant, or
the défenseur when the assaillant yields, S-03), then the other, with

* the first exchange's wound penalty on the second (its attacker's offset lowered by the
  penalty of the wound it took, S-19);
* **S-19 mid-round**: a wound that reaches a band's ``out_after`` ends the fight at once;
* **S-14 in either exchange**: a critical defence ends the round after its exchange and the
  fighter who defended holds the initiative — in exchange 1 that is the fighter attacking
  second; in exchange 2 the fighter attacking first, who holds it already unless the
  assaillant yielded (then the yielder takes it back).  Read literally, in both exchanges
  (docs/rules.md, S-14);
* S-10's granted critical: a critical failure grants the opponent's next landed attack a
  critical (``fumble_grants_crit``), used by the first attack landing with a margin above 0;
* S-18: the weapons dropped by each fighter.

A round's outcome is :data:`RoundOutcome`; what it does to the state between rounds (the
penalty difference, the wounds counted, the weapons picked up, the techniques counting down)
is :class:`Pieces`.  Probabilities are exact integers over the kernel's denominator.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from collections.abc import Sequence
from typing import NamedTuple

from sevendag_cli.sevendag.model import Allocation, FighterModel, Verdict, granted_unit, judge
from sevendag_cli.sevendag.planning import Option, merge
from sevendag_cli.sevendag.rules import SevendagRuleset
from sevendag_cli.sim.weights import convolve

Counts = dict[int, int]
"""A distribution as integer weights: value -> number of face combinations."""

Tech = tuple[int, int, int] | None
"""A technique in effect: (attack modifier, defence modifier, rounds left), or None."""

Near = tuple[tuple[bool, ...], tuple[bool, ...]]
"""Per fighter, per band counted towards ``out_after``: one more wound of it takes the
fighter out (a fighter defends at most once a round, so this is all a round reads of the
wounds counted)."""

ExchangeOutcome = tuple[int, bool, bool, int, bool]
"""One exchange: (final band or -1, critical failure, granted critical used, units dropped,
critical defence)."""

KEEP = 2
"""A round's initiative after it (:data:`RoundOutcome`): the assaillant keeps it."""

RoundOutcome = tuple[int, int, int, int, int, int, bool, bool, int]
"""One way a round can go: (winner: 0 = a, 1 = b, -1 the fight goes on; the band of the wound
a took or -1; b's; who holds the initiative after it: 0, 1 or :data:`KEEP`; the units a
dropped, as a mask; b's; a holds a granted critical; b does; the weight).  A round that ends
the fight keeps only the winner and the wounds."""

Counted = dict[int, int]
"""A round's outcomes counted with its fighters as (first attacker, second), each without its
weight (as :data:`RoundOutcome`, the winner and the initiative 0 for the first attacker, 1 for
the second) packed into one int (:class:`OutcomeCodes`), to its weight, in the order found
(:meth:`RoundForm.count`)."""

SWAPPED = (0, 2, 1, 3, 5, 4, 7, 6)
"""An outcome counted first attacker first (:data:`Counted`) read as (a, b) when b attacked
first: the fields at these places (the wounds, the units dropped, the granted criticals
swapped), the winner and the initiative turned (:data:`TURNED`)."""

TURNED = (1, 0, KEEP)
"""Who holds the initiative after a round that goes on, counted first attacker first, as (a,
b) when b attacked first; a won fight's winner turns (1 - winner), its initiative stays 0."""

LOW, MID, HIGH = 0, 1, 2

MAX_KEPT_OUTCOMES = 200_000
"""Most outcomes of the rounds (:meth:`RoundForm.kernel`) one form keeps built (some 30 MB);
the least recently used are built again when asked."""


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


class Exchange:
    """One attack of a fighter on the other for given allocations, before the constants."""

    def __init__(self, form: RoundForm, att: int, alloc_att: int, alloc_def: int) -> None:
        ma, md = form.models[att], form.models[1 - att]
        alloc_a, alloc_d = ma.allocations[alloc_att], md.allocations[alloc_def]
        self.fixed: dict[ExchangeOutcome, int]
        self.landing: list[_Landing] = []
        if not alloc_a.attack:  # S-04: no attack, nobody rolls
            self.den = 1
            self.fixed = {(-1, False, False, 0, False): 1}
            self.x_lo = self.x_hi = 0
            self.g_extra = self.g_shift = 0
            self.o_min = self.o_max = 0
            return
        die = form.drop_die
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
        fixed: dict[ExchangeOutcome, int] = {}
        defence = defence_cases(md, alloc_d)
        x_lo, x_hi = math.inf, -math.inf
        for v, attack in attack_cases(ma, alloc_a, form.failure_beats_crit).items():
            n_attack = sum(attack.values())
            extra = sum(t * ma.units[u].extra_damage for u, t in enumerate(v.times))
            shift = sum(t * ma.units[u].band_shift for u, t in enumerate(v.times))
            for (top, shield), dsums in defence.items():
                n = n_attack * sum(dsums.values())
                if v.failure:  # S-10 .. S-13, S-18: fails whatever the totals
                    for dropped, w in drop_weights(ma, v.fumbled, die):
                        key: ExchangeOutcome = (-1, v.fumble, False, dropped, top)
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
        self.o_min = -self.x_hi - e_max if self.landing else 0
        self.o_max = form.lows[-1] - self.x_lo if self.landing else 0

    def clamp(self, offset: int) -> int:
        """The offset with the same outcomes, within the exchange's own range."""
        if not self.landing:
            return 0
        return min(self.o_max, max(self.o_min, offset))

    def outcomes(self, form: RoundForm, offset: int, granted: bool,
                 ) -> list[tuple[ExchangeOutcome, int]]:
        """S-06, S-07, S-10 (granted critical), S-17: outcomes at ``offset`` (clamped)."""
        out: dict[ExchangeOutcome, int] = dict(self.fixed)
        lows, highs, last = form.lows, form.highs, len(form.lows) - 1
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
                k: ExchangeOutcome = (-1, False, False, 0, grp.top)
                out[k] = out.get(k, 0) + foiled
            for j in range(last + 1):
                c = grp.count(max(floor_x, lows[j] - o - e), highs[j] - o - e)
                if c:
                    k = (min(last, j + sh), False, used, 0, grp.top)
                    out[k] = out.get(k, 0) + c
        return list(out.items())


# --- the declarations --------------------------------------------------------------------


# --- the round ---------------------------------------------------------------------------


_Fields = tuple[int, int, int, int, int, int, bool, bool]  # a RoundOutcome, its weight left out


class OutcomeCodes:
    """A round's outcome without its weight, counted first attacker first, packed into one int
    (:data:`Counted`): its eight fields (:data:`RoundOutcome`'s, the weight left out) side by
    side, each in bits of its own — the winner + 1 (0 .. 2), each wound's band + 1 (0: none),
    the initiative (0, 1, :data:`KEEP`), each mask of units dropped, each granted critical —
    the first field highest, the last at bit 0.  An int is hashed and compared faster than a
    tuple, fields that come from two exchanges are merged with ``|``, and the game's rows
    read them a column at a time (:attr:`fields`).  ``bands``: the wound bands; ``units``: the
    most units a fighter has."""

    __slots__ = ("_turned", "bits", "fields", "shift")

    def __init__(self, bands: int, units: int) -> None:
        b, u = (bands + 1).bit_length(), max(1, units)
        widths = (2, b, b, 2, u, u, 1, 1)
        offsets = [sum(widths[k + 1:]) for k in range(len(widths))]
        # per field: (offset, width, bias): the field is (code >> offset) & (2**width - 1) - bias
        self.fields = tuple(zip(offsets, widths, (1, 1, 1, 0, 0, 0, 0, 0), strict=True))
        self.shift = tuple(offsets)
        self.bits = sum(widths)
        self._turned: tuple[dict[int, _Fields], dict[int, _Fields]] = ({}, {})

    def pack(self, winner: int, hf: int, hs: int, init: int, df: int, ds: int, g1: bool,
             g2: bool) -> int:
        code = 0
        for (offset, _, bias), v in zip(self.fields, (winner, hf, hs, init, df, ds, g1, g2),
                                        strict=True):
            code |= (v + bias) << offset
        return code

    def mask(self, *which: int) -> int:
        """The bits of the fields ``which`` (indices into :attr:`fields`)."""
        return sum(((1 << self.fields[k][1]) - 1) << self.fields[k][0] for k in which)

    def unpack(self, code: int) -> _Fields:
        winner, hf, hs, init, df, ds, g1, g2 = (
            (code >> offset & ((1 << width) - 1)) - bias for offset, width, bias in self.fields)
        return winner, hf, hs, init, df, ds, g1 == 1, g2 == 1

    def oriented(self, first: int, counted: Counted) -> list[RoundOutcome]:
        """A round's outcomes counted first attacker first (:meth:`RoundForm.count`), in the
        same order, as (a, b) (:data:`RoundOutcome`): when b attacked first, the pairs swapped
        (:data:`SWAPPED`), the winner and the initiative turned (:data:`TURNED`; a won
        fight's initiative is 0 whoever won).  Each code read once."""
        known = self._turned[first]
        out: list[RoundOutcome] = []
        for code, wt in counted.items():
            r = known.get(code)
            if r is None:
                winner, hf, hs, at, df, ds, g1, g2 = self.unpack(code)
                r = known[code] = (
                    (winner, hf, hs, at, df, ds, g1, g2) if first == 0 else
                    (-1, hs, hf, TURNED[at], ds, df, g2, g1) if winner < 0 else
                    (1 - winner, hs, hf, 0, 0, 0, False, False))
            out.append((*r, wt))
        return out


class Kernel(NamedTuple):
    """One round's outcomes (:data:`RoundOutcome`), exactly: weights over ``den``."""

    den: int
    outcomes: list[RoundOutcome]


class RoundForm:
    """The exact round of one pair under one ruleset (see the module).

    ``models``: the fighters as the exact engines read them, with the allocations the
    declarations may name (an allocation is an index into ``model.allocations``);
    ``constants``: ((a's attack, a's defence), (b's attack, b's defence)).
    """

    def __init__(self, ruleset: SevendagRuleset, models: tuple[FighterModel, FighterModel],
                 constants: tuple[tuple[int, int], tuple[int, int]]) -> None:
        self.models = models
        self.constants = constants
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
        self._exchanges: dict[tuple[int, int, int], Exchange] = {}
        self._outcomes: dict[tuple[int, int, int, int, bool], list[tuple[ExchangeOutcome, int]]] = {}
        self._bounds: dict[tuple[int, int, int], tuple[int, int, int, int]] = {}
        self._kernels: OrderedDict[tuple[object, ...], Kernel] = OrderedDict()
        self._outs: dict[Near, tuple[frozenset[int], ...]] = {}  # per near: see count
        self.codes = OutcomeCodes(len(self.lows), max(len(m.units) for m in models))
        # exchange 2's outcomes read for count, per reading of who is out (see _second)
        self._seconds: dict[tuple[object, ...], list[tuple[int, int, int]]] = {}
        self._kept = 0  # outcomes in the rounds kept

    # --- exchanges

    def exchange_table(self, att: int, alloc_att: int, alloc_def: int) -> Exchange:
        key = (att, alloc_att, alloc_def)
        table = self._exchanges.get(key)
        if table is None:
            table = self._exchanges[key] = Exchange(self, att, alloc_att, alloc_def)
        return table

    def exchange(self, att: int, alloc_att: int, alloc_def: int, offset: int,
                 granted: bool) -> list[tuple[ExchangeOutcome, int]]:
        """Fighter ``att``'s attack at ``offset`` (``granted``: it holds a granted critical)."""
        table = self.exchange_table(att, alloc_att, alloc_def)
        offset = table.clamp(offset)
        key = (att, alloc_att, alloc_def, offset, granted)
        got = self._outcomes.get(key)
        if got is None:
            got = self._outcomes[key] = table.outcomes(self, offset, granted)
        return got

    def offsets(self, d: int, mods: tuple[int, int, int, int]) -> tuple[int, int]:
        """Each fighter's attack offset (S-06, S-19): a's attack constant and technique less
        b's defence and technique, less ``d`` (a's penalty less b's); and b's, plus ``d``.
        ``mods``: the techniques' (a's attack, a's defence, b's attack, b's defence)."""
        (aa, ad), (ba, bd) = self.constants
        return (aa + mods[0] - bd - mods[3] - d, ba + mods[2] - ad - mods[1] + d)

    def bounds(self, first: int, ids: tuple[int, int]) -> tuple[int, int, int, int]:
        """Where the first attacker's offset, and the second's before the penalty of a wound
        it takes in exchange 1, still change something (beyond: clamped)."""
        key = (first, ids[0], ids[1])
        got = self._bounds.get(key)
        if got is None:
            second = 1 - first
            t1 = self.exchange_table(first, ids[first], ids[second])
            t2 = self.exchange_table(second, ids[second], ids[first])
            pens = [0, *self.penalty]
            got = self._bounds[key] = (
                t1.o_min, t1.o_max,
                *((t2.o_min + min(pens), t2.o_max + max(pens)) if t2.landing else (0, 0)))
        return got

    def den(self, first: int, ids: tuple[int, int]) -> int:
        """The denominator of every round with these allocations, ``first`` attacking first."""
        second = 1 - first
        return (self.exchange_table(first, ids[first], ids[second]).den
                * self.exchange_table(second, ids[second], ids[first]).den)

    # --- the round

    def forget(self) -> None:
        """Drop the rounds and exchanges kept (built again when asked)."""
        self._outcomes.clear()
        self._seconds.clear()
        self._kernels.clear()
        self._kept = 0

    def kernel_key(self, first: int, x: int, y: int, near: object, ids: tuple[int, int],
                   granted: tuple[bool, bool]) -> tuple[object, ...]:
        """What :meth:`kernel` depends on: a's attack offset ``x`` and b's ``y`` count only
        through the first attacker's and the second's, clamped to where they still change
        something, so rounds that roll the same exchanges are one."""
        lo1, hi1, lo2, hi2 = self.bounds(first, ids)
        w, z = (x, y) if first == 0 else (y, x)
        return (first, min(hi1, max(lo1, w)), min(hi2, max(lo2, z)), near, ids, granted)

    def kernel(self, first: int, x: int, y: int, near: Near, ids: tuple[int, int],
               granted: tuple[bool, bool]) -> Kernel:
        """One round (see the module): ``first`` attacks first; ``x``, ``y``: a's and b's attack
        offsets (:meth:`offsets`); ``ids``: the allocations (a's, b's); ``granted``: who holds a
        granted critical.  Built once (a bounded number kept)."""
        key = self.kernel_key(first, x, y, near, ids, granted)
        kernels = self._kernels
        got = kernels.get(key)
        if got is not None:
            kernels.move_to_end(key)
            return got
        w, z = (x, y) if first == 0 else (y, x)
        got = self._round(first, w, z, near, ids, granted)
        kernels[key] = got
        self._kept += len(got.outcomes)
        while self._kept > MAX_KEPT_OUTCOMES and len(kernels) > 1:
            self._kept -= len(kernels.popitem(last=False)[1].outcomes)
        return got

    def _round(self, first: int, w: int, z: int, near: Near, ids: tuple[int, int],
               granted: tuple[bool, bool]) -> Kernel:
        """The round (see :meth:`count`), its outcomes turned into (a, b)
        (:meth:`OutcomeCodes.oriented`)."""
        den, counted = self.count(first, w, z, near, ids, granted)
        return Kernel(den, self.codes.oriented(first, counted))

    def count(self, first: int, w: int, z: int, near: Near, ids: tuple[int, int],
              granted: tuple[bool, bool]) -> tuple[int, Counted]:
        """S-08, S-10, S-14, S-18, S-19: exchange 1 at offset ``w``, then exchange 2 at ``z``
        (less the penalty of the wound its attacker took) unless the fight or the round is
        over: the denominator, and the outcomes counted with the fighters as (first attacker,
        second) (:data:`Counted`; not kept: :meth:`kernel` keeps them turned).

        Exchange 2's outcomes are read once per reading of who is out (:meth:`_second`): each
        as the fields it gives the round's outcome and a mask of the fields of exchange 1 it
        keeps, so that a round's outcome is exchange 1's fields ``|`` exchange 2's, ``&`` that
        mask."""
        second = 1 - first
        pen = self.penalty
        grants = self.grants
        # exchange 1's fields of an outcome, packed inline (OutcomeCodes.pack, bit for bit):
        # the winner + 1 at s_win, the second attacker's wound + 1 at s_hs, the initiative at
        # s_init, its units dropped at s_df, the granted criticals at s_g1 and bit 0
        s_win, _, s_hs, s_init, s_df, _, s_g1, _ = self.codes.shift
        outs = self._outs.get(near)
        if outs is None:  # S-19: the bands of which one more wound takes each fighter out now
            outs = self._outs[near] = tuple(
                frozenset(band for band, i in self.slot.items() if near[f][i]) for f in (0, 1))
        out_first, out_second = outs[first], outs[second]
        g_first, g_second = granted[first], granted[second]
        i1, i2 = ids[first], ids[second]
        t2 = self.exchange_table(second, i2, i1)
        den2 = t2.den
        out: Counted = {}
        get = out.get
        seen: dict[tuple[int, bool], list[tuple[int, int, int]]] = {}  # exchange 2's, read
        for (band, fumble, used, dropped, top), w1 in self.exchange(first, i1, i2, w, g_first):
            # a wound band or -1 (S-07): exchange 1 wounds the second attacker alone
            gf = False if used else g_first
            gs = True if fumble and grants else g_second
            if band in out_second:  # S-19: out, the fight ends mid-round
                r = 1 << s_win | (band + 1) << s_hs  # (0, -1, band, 0, 0, 0, False, False)
                out[r] = get(r, 0) + w1 * den2
                continue
            c1 = (band + 1) << s_hs | dropped << s_df | gf << s_g1 | gs  # (-1, -1, band, 0,
            # dropped, 0, gf, gs)
            if top:  # S-14: the round ends; exchange 1's defender holds the initiative
                r = c1 | 1 << s_init  # (-1, -1, band, 1, dropped, 0, gf, gs)
                out[r] = get(r, 0) + w1 * den2
                continue
            z2 = z - (pen[band] if band >= 0 else 0)  # S-19: the second attacker's wound
            got = seen.get((z2, gs))
            if got is None:
                got = seen[(z2, gs)] = self._second(second, i2, i1, t2.clamp(z2), gs, out_first)
            for c2, keep, w2 in got:
                r = (c1 | c2) & keep
                out[r] = get(r, 0) + w1 * w2
        return self.exchange_table(first, i1, i2).den * den2, out

    def _second(self, second: int, alloc_att: int, alloc_def: int, offset: int, granted: bool,
                out_first: frozenset[int]) -> list[tuple[int, int, int]]:
        """Exchange 2 (``second`` attacking at ``offset``, clamped) read for :meth:`count`:
        per outcome, the fields it gives the round's outcome, the mask of the fields it keeps
        (of exchange 1's: its wound, units dropped and granted criticals), and its weight."""
        key = (second, alloc_att, alloc_def, offset, granted, out_first)
        got = self._seconds.get(key)
        if got is None:
            codes, pack = self.codes, self.codes.pack
            ended = codes.mask(0, 1, 2)  # the winner and the wounds: the fight is over
            going, no_g2 = codes.mask(*range(8)), codes.mask(7)
            got = self._seconds[key] = []
            for (band2, fumble2, used2, dropped2, top2), w2 in self.exchange(
                    second, alloc_att, alloc_def, offset, granted):
                if band2 in out_first:  # S-19: the first attacker is out
                    got.append((pack(1, band2, -1, 0, 0, 0, False, False), ended, w2))
                else:
                    # S-14 in exchange 2: its defender (the first attacker) holds the initiative;
                    # S-10: a critical failure grants one, a granted critical used is spent
                    got.append((pack(-1, band2, -1, 0 if top2 else KEEP, 0, dropped2,
                                     fumble2 and self.grants, False),
                                going & ~no_g2 if used2 else going, w2))
        return got


# --- what a round does to the state --------------------------------------------------------


class Pieces:
    """The parts of a state between rounds that a round changes, and how (S-05, S-18, S-19).

    * the **wounds counted** towards ``out_after`` per tracked band: a wound adds one
      (:meth:`bump`; the wound that reaches the limit ends the fight instead);
    * the **rounds left picking each unit up** (S-18): a unit dropped this round starts at
      ``drop_recovery_rounds``, the others count down (:meth:`recover`);
    * the **technique in effect** (S-05): its rounds left count down (:meth:`tech_next`).

    The penalty difference ``D`` moves by the penalties of the wounds taken (:meth:`delta`).
    """

    def __init__(self, form: RoundForm) -> None:
        self.form = form
        self._bumps: dict[tuple[int, ...], dict[int, tuple[int, ...]]] = {}
        self._recs: dict[tuple[int, ...], dict[int, tuple[int, ...]]] = {}
        self._near: dict[tuple[tuple[int, ...], tuple[int, ...]], Near] = {}

    def delta(self, ha: int, hb: int) -> int:
        """D after a round less D before: a's wound's penalty less b's (-1: no wound)."""
        pen = self.form.penalty
        return (pen[ha] if ha >= 0 else 0) - (pen[hb] if hb >= 0 else 0)

    def near(self, ca: tuple[int, ...], cb: tuple[int, ...]) -> Near:
        """Which counted bands are one wound from ``out_after``, per fighter."""
        got = self._near.get((ca, cb))
        if got is None:
            lim = self.form.limit
            got = self._near[(ca, cb)] = (
                tuple(c + 1 >= n for c, n in zip(ca, lim, strict=True)),
                tuple(c + 1 >= n for c, n in zip(cb, lim, strict=True)))
        return got

    def bump(self, counts: tuple[int, ...], band: int) -> tuple[int, ...]:
        """The wounds counted after a wound of ``band`` (-1: none)."""
        got = self._bumps.get(counts)
        if got is None:
            slot = self.form.slot
            got = self._bumps[counts] = {-1: counts}
            for band_j, s in slot.items():
                got[band_j] = (*counts[:s], counts[s] + 1, *counts[s + 1:])
            for j in range(len(self.form.penalty)):
                got.setdefault(j, counts)
        return got[band]

    def recover(self, rec: tuple[int, ...], dropped: int) -> tuple[int, ...]:
        """S-18: the rounds left picking each unit up after a round dropping ``dropped``."""
        got = self._recs.get(rec)
        if got is None:
            r0 = self.form.recovery
            got = self._recs[rec] = {
                m: tuple(r0 if m >> u & 1 else max(0, r - 1) for u, r in enumerate(rec))
                for m in range(1 << len(rec))}
        return got[dropped]

    @staticmethod
    def tech_next(t: Tech) -> Tech:
        """S-05: the technique in effect next round."""
        return (t[0], t[1], t[2] - 1) if t and t[2] > 1 else None

    @staticmethod
    def mods(ta: Tech, tb: Tech) -> tuple[int, int, int, int]:
        """The techniques' modifiers: a's attack, a's defence, b's attack, b's defence."""
        return ((ta[0], ta[1]) if ta else (0, 0)) + ((tb[0], tb[1]) if tb else (0, 0))


def wound_weights(kernel: Kernel, bands: int) -> tuple[int, ...]:
    """The weight (over the kernel's denominator) of each fighter taking a wound of each band
    in the round, a's bands then b's (the wound that takes a fighter out included)."""
    out = [0] * (2 * bands)
    for _winner, ha, hb, *_rest, w in kernel.outcomes:
        if ha >= 0:
            out[ha] += w
        if hb >= 0:
            out[bands + hb] += w
    return tuple(out)


def mask_of(rec: Sequence[int]) -> int:
    """The units being picked up (S-18), as a mask."""
    return sum(1 << u for u, r in enumerate(rec) if r > 0)


__all__ = [
    "KEEP",
    "SWAPPED",
    "TURNED",
    "Counted",
    "Counts",
    "Exchange",
    "ExchangeOutcome",
    "Kernel",
    "Near",
    "Option",
    "OutcomeCodes",
    "Pieces",
    "RoundForm",
    "RoundOutcome",
    "Tech",
    "attack_cases",
    "defence_cases",
    "drop_weights",
    "mask_of",
    "merge",
    "wound_weights",
]
