"""Exact outcome of a d20 fight (D-02 .. D-12), with no sampling.

Two stages:

1. **One round** (:func:`round_distribution`): the exact distribution of what a
   round does — who attacks (D-02, ties roll again, so ``P(a attacks) =
   P(a > b) / (1 - P(tie))``) and the damage that attacker deals (D-04..D-10:
   natural hit / miss, AC, critical range and factor, save with natural success
   / failure, DD rolled or from the level table, ``half`` or ``negate``, magic
   damage, minimum damage).  Every formula is turned into its exact law by
   walking its tree (:mod:`sevendag_cli.sim.formula_dice`: fixed fields from
   ``fighter.env()``; a group's sum as one power of its die's law, keep and drop
   as icepool's pools, explosions and rerolls in the die's law); a
   check is split by its "natural" (its first die, or the kept die of
   ``2d20kh1``: :func:`natural_groups`), each natural with its probability.

2. **The fight** (:func:`exact_d20`): an absorbing Markov chain over
   ``(hp_a, hp_b)``.  Hit points only go down and a round deals 0 only on a miss
   or a full dodge — a self-loop with the same probability ``s`` in every
   state — so the chain is solved exactly by one pass in decreasing total HP
   over the *jump chain* (the rounds that deal damage, probability ``q(d) / M``
   with ``M = D (1 - s)``).  The pass computes the probability of visiting each
   state, scaled by ``M ** L`` so that everything stays an integer (one exact
   division by ``M`` per state, no Fraction in the loop); win probability and
   expected rounds (each visited state lasts ``1 / (1 - s)`` rounds on average)
   come out of the same pass as exact fractions.

There is no round cap here: the exact model's fights always end, so the draw
probability is 0.  A fight in which neither side can ever deal damage is
refused (:class:`UsageError`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce
from operator import mul

from sevendag_cli.d20.jumps import Jumps
from sevendag_cli.d20.rules import D20Fighter, D20Ruleset, Weapon, unarmed
from sevendag_cli.errors import UsageError
from sevendag_cli.rules.bounds import check_exact
from sevendag_cli.sim.exact_records import ExactResult
from sevendag_cli.sim.formula_dice import (
    Dist,
    _map,
    _p_above,
    _p_greater,
    _sum_of,
    formula_weights,
    natural_split,
)
from sevendag_cli.sim.weights import Weights, convolve

MAX_WORK = 10_000_000_000
"""Most work the exact fractions take, in the units of :func:`fraction_work` (some 6 ns each on
this project's machine: about a minute); beyond it, none (the float odds are certified all the
same)."""
PAY_WORK = 20_000_000
"""Most work (:func:`fraction_work`) the fractions take by default: some 0.12 s, under half of
a whole ``fight --exact`` without them (0.25-0.3 s of CPU at that size), so that they never
make the command more than 1.5 times slower (``python benchmarks/bench_d20_rounds.py``);
beyond it, they are given only when asked (``--fractions``)."""
MAX_HP = 2000

# --- one round -----------------------------------------------------------------


@dataclass(frozen=True)
class AttackDistribution:
    """What one attack by ``attacker`` on ``defender`` does (D-04 .. D-10)."""

    attacker: str
    defender: str
    p_hit: Fraction
    p_critical: Fraction  # hit and critical
    damage: Dist  # damage of one attack, 0 on a miss or a full dodge
    damage_on_hit: Dist  # damage given a hit (0 when dodged entirely)


def attack_distribution(ruleset: D20Ruleset, attacker: D20Fighter,
                        defender: D20Fighter) -> AttackDistribution:
    aenv, denv = attacker.env(), defender.env()
    ac = defender.ac(ruleset)
    weapon: Weapon = attacker.weapon or unarmed(ruleset)

    # D-04, D-06, D-07: hit and critical, by natural.
    p_hit = Fraction(0)
    p_crit = Fraction(0)
    for n, pn, totals in natural_split(ruleset.attack, aenv):
        if n >= ruleset.natural_hit:
            ph = Fraction(1)
        elif n <= ruleset.natural_miss:
            ph = Fraction(0)
        else:
            ph = _p_above(totals, ac)
        p_hit += pn * ph
        if n >= weapon.crit_range:
            p_crit += pn * ph

    # D-08: save.
    if ruleset.dd_mode == "roll":
        dd = formula_weights(ruleset.dd, aenv)
    else:
        who = attacker if ruleset.dd_level_of == "attacker" else defender
        dd = {ruleset.dd_from_level(who.level): 1}
    p_dodge = Fraction(0)  # dodged entirely: natural success (or beats DD with negate)
    p_beats = Fraction(0)
    for n, pn, totals in natural_split(ruleset.save, denv):
        if n >= ruleset.save_natural_success:
            p_dodge += pn
        elif n > ruleset.save_natural_failure:
            p_beats += pn * _p_greater(totals, dd)
    if ruleset.save_success == "negate":
        p_dodge, p_half = p_dodge + p_beats, Fraction(0)
    else:
        p_half = p_beats
    p_fail = 1 - p_dodge - p_half

    # D-07, D-09, D-10: damage given (critical?, halved?).
    bonus = ruleset.damage_bonus.value(aenv)
    one_set = _map(formula_weights(weapon.damage, aenv), lambda v: v + bonus)
    vig = formula_weights(ruleset.vig, denv)
    magic_one: Weights | None = None
    vol: Weights | None = None
    if weapon.magic is not None:
        mbonus = ruleset.magic_bonus.value(aenv)  # every magic set adds it (as the engine)
        magic_one = _map(formula_weights(weapon.magic, aenv), lambda v: v + mbonus)
        vol = formula_weights(ruleset.vol, denv)

    def raw_damage(sets: int) -> Weights:
        physical = _map(convolve(_sum_of(one_set, sets), vig, -1), lambda v: max(0, v))
        if magic_one is None or vol is None:
            return physical
        msets = sets if ruleset.crit_multiplies_magic else 1
        magic = _map(convolve(_sum_of(magic_one, msets), vol, -1), lambda v: max(0, v))
        return convolve(physical, magic)

    md = ruleset.min_damage
    on_hit: Dist = {}

    def add(raw: Weights, weight: Fraction, halve: bool) -> None:
        if not weight:
            return
        final = _map(raw, lambda v: max(v // 2 if halve else v, md))
        den = sum(final.values())
        for v, q in final.items():
            on_hit[v] = on_hit.get(v, Fraction(0)) + weight * Fraction(q, den)

    p_normal = p_hit - p_crit
    for sets, p_kind in ((1, p_normal), (weapon.crit_factor, p_crit)):
        if not p_kind or not p_hit:
            continue
        raw = raw_damage(sets)
        add(raw, p_kind / p_hit * p_fail, False)
        add(raw, p_kind / p_hit * p_half, True)
    if p_hit and p_dodge:
        on_hit[0] = on_hit.get(0, Fraction(0)) + p_dodge
    damage = {d: p * p_hit for d, p in on_hit.items()}
    if p_hit != 1:
        damage[0] = damage.get(0, Fraction(0)) + (1 - p_hit)
    return AttackDistribution(attacker.name, defender.name, p_hit, p_crit, damage, on_hit)


@dataclass(frozen=True)
class RoundDistribution:
    """One round (D-02 .. D-10): who attacks and the damage that attacker deals."""

    p_a_attacks: Fraction
    a_attacks: AttackDistribution  # a on b
    b_attacks: AttackDistribution  # b on a


def initiative_probability(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter) -> Fraction:
    """D-02: P(a attacks this round) = P(a > b) / (1 - P(tie))."""
    ia = formula_weights(ruleset.initiative, a.env())
    ib = formula_weights(ruleset.initiative, b.env())
    win = _p_greater(ia, ib)
    tie = Fraction(sum(q * ib.get(v, 0) for v, q in ia.items()),
                   sum(ia.values()) * sum(ib.values()))
    if tie == 1:
        raise UsageError(
            "the initiative always ties (formulas.initiative rolls no die that can separate "
            "the fighters): no fight can start"
        )
    return win / (1 - tie)


def round_distribution(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter) -> RoundDistribution:
    return RoundDistribution(
        initiative_probability(ruleset, a, b),
        attack_distribution(ruleset, a, b),
        attack_distribution(ruleset, b, a),
    )


# --- the fight ------------------------------------------------------------------


NOTE = (
    "Exact (no sampling): per-round outcome from the dice distributions of the ruleset's "
    "formulas (D-02..D-10), then an absorbing Markov chain over both fighters' hit points "
    "(D-12). No round cap in this model, so no draws; a simulation with a round cap can "
    "differ only by its (rare) capped fights."
)


def _scaled(dist: Dist, den: int) -> list[int]:
    """q[d] = P(d) * den as integers, for d = 0 .. max."""
    top = max(dist) if dist else 0
    out = [0] * (top + 1)
    for d, p in dist.items():
        v = p * den
        assert v.denominator == 1
        out[d] += int(v)
    return out


def _integer_weights(jumps: Jumps) -> tuple[list[int], list[int], int]:
    """Each round's outcomes as integers over one denominator: damage to b (a attacks), to a
    (b attacks), the weight M of a damaging round, and the weights' common factor taken out."""
    pa = jumps.pa
    ra = {d: pa * p for d, p in jumps.qa.items()}  # damage to b
    rb = {d: (1 - pa) * p for d, p in jumps.qb.items()}  # damage to a
    den = reduce(math.lcm, (p.denominator for p in (*ra.values(), *rb.values())), 1)
    qa = _scaled(ra, den)
    qb = _scaled(rb, den)
    move = den - qa[0] - qb[0]  # D * P(this round deals damage)
    g = reduce(math.gcd, qa[1:] + qb[1:], move) if move else 1
    return [q // g for q in qa], [q // g for q in qb], move // g


def fraction_work(jumps: Jumps, ha: int, hb: int) -> int:
    """The work of :func:`exact_d20`, from the sizes: each of the ``ha * hb`` states sums its
    damage values' products (and one division) on integers of ``(ha + hb) * log2(M)`` bits,
    64 a machine word."""
    qa, qb, m = _integer_weights(jumps)
    terms = sum(1 for q in qa[1:] if q) + sum(1 for q in qb[1:] if q) + 2
    return ha * hb * terms * ((ha + hb) * max(1, m.bit_length()) // 64 + 1)


def fractions_pay(jumps: Jumps, ha: int, hb: int) -> bool:
    """Whether the exact fractions come by default: their work at most :data:`PAY_WORK`."""
    return fraction_work(jumps, ha, hb) <= PAY_WORK


def exact_d20(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter, *,
              progress: Callable[[int, int], None] | None = None) -> ExactResult:
    """The exact win probabilities and expected rounds of a d20 fight (no round cap);
    ``progress(done, total)``: the states solved so far (rows of a's hit points)."""
    check_exact(ruleset, a, b)  # the value bound, and damage the chain can hold
    if max(a.hp, b.hp) > MAX_HP:
        raise UsageError(
            f"exact odds handle at most {MAX_HP:,} hit points a fighter "
            f"({a.name} {a.hp}, {b.name} {b.hp}): simulate with --runs instead"
        )
    rd = round_distribution(ruleset, a, b)
    jumps = Jumps(rd.p_a_attacks, rd.a_attacks.damage, rd.b_attacks.damage)
    if fraction_work(jumps, a.hp, b.hp) > MAX_WORK:
        raise UsageError(
            f"exact odds for {a.name} ({a.hp} HP) against {b.name} ({b.hp} HP) would take too "
            "long (hit points times damage too large): simulate with --runs instead"
        )
    qa, qb, m = _integer_weights(jumps)
    if m == 0 or (sum(qa[1:]) == 0 and sum(qb[1:]) == 0):
        raise UsageError(
            f"neither {a.name} nor {b.name} can ever deal damage with these sheets: "
            "the fight would never end (the exact solver has no round cap)"
        )
    wins_num, visits_num, scale_exp = _solve(a.hp, b.hp, qa, qb, m, progress)
    # P(a wins) = sum over visited states of visit * P(b drops) / M, visit = visits / M**L.
    scale = m**scale_exp
    p_a = Fraction(wins_num, scale * m)
    rounds = Fraction(visits_num, scale) / (1 - jumps.s)
    return ExactResult((a.name, b.name), (p_a, 1 - p_a), Fraction(0), rounds, NOTE)


def _solve(ha0: int, hb0: int, qa: list[int], qb: list[int], m: int,
           progress: Callable[[int, int], None] | None = None) -> tuple[int, int, int]:
    """Pull DP over the jump chain, in decreasing hp; returns (Σ visit·tail_a, Σ visit, L).

    ``visit(ha, hb) * M**L`` is an integer for every state because a state is at
    most ``L = ha0 + hb0 - 2`` damaging rounds away from the start.
    """
    big_l = ha0 + hb0 - 2
    qa1 = qa[1:]  # qa1[d-1] = weight of a dealing d to b
    qb1 = qb[1:]
    na, nb = len(qa1), len(qb1)
    # tail_a[h] = Σ_{d >= h} qa[d]: the weight of b dropping from h hit points.
    tail_a = [0] * (hb0 + 1)
    running = sum(qa[hb0:])
    tail_a[hb0] = running
    for h in range(hb0 - 1, 0, -1):
        if h < len(qa):
            running += qa[h]
        tail_a[h] = running
    # The same scaled visits stored twice: rows[ha][hb] and cols[hb][ha] (slices either way).
    rows = [[0] * (hb0 + 1) for _ in range(ha0 + 1)]
    cols = [[0] * (ha0 + 1) for _ in range(hb0 + 1)]
    start = m**big_l
    wins = 0
    visits = 0
    for ha in range(ha0, 0, -1):
        if progress is not None:
            progress(ha0 - ha, ha0)
        row = rows[ha]
        for hb in range(hb0, 0, -1):
            if ha == ha0 and hb == hb0:
                v = start
            else:
                # from (ha, hb + d): a dealt d; from (ha + d, hb): b dealt d.
                s = (sum(map(mul, qa1, row[hb + 1:hb + 1 + na]))
                     + sum(map(mul, qb1, cols[hb][ha + 1:ha + 1 + nb])))
                v = s // m
            if v:
                row[hb] = v
                cols[hb][ha] = v
                visits += v
                wins += v * tail_a[hb]
    if progress is not None:
        progress(ha0, ha0)
    return wins, visits, big_l
