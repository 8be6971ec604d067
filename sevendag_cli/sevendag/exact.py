"""Exact fractions of a Sevendag fight played to the end (S-02 .. S-19), no round cap.

Same fight as ``fight`` (each sheet's tactic, no technique, no yield), on the
rounds of :class:`~sevendag_cli.sevendag.chain.SevendagChain` (one round's
outcomes by exact enumeration of the dice, shared with the odds from any moment
and ``fight --exact``), taken as exact fractions.  The chain's state is the
assaillant, the penalty difference, the wounds counted towards ``out_after``,
dropped weapons and granted criticals.

Solved exactly only when the state space is finite without the chain's lumping:
every band with a lasting penalty must also take a fighter out after some number
of wounds.  A penalty that can pile up without bound (the house default, light -1
forever) is refused with a :class:`UsageError` (``fight --exact`` then gives its
certified intervals without fractions).  Wounds never heal, so the chain is solved
one *layer* of wound counts at a time from the most wounded down: each layer only
leads to itself, to more wounded layers and to the end of the fight.
"""

from __future__ import annotations

import math
from collections import deque
from fractions import Fraction

from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.rules.bounds import check_exact
from sevendag_cli.sevendag.chain import chain_for
from sevendag_cli.sevendag.model import check_fighters, check_plain, speed_odds
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
from sevendag_cli.sim.exact_records import ExactResult
from sevendag_cli.sim.formula_dice import formula_dist

MAX_STATES = 100_000
"""Most reachable states the exact solver accepts (its layers are small and share their
inverses: about 10 s at 74,000 states, the fractions' 1,000 digits dominating)."""
MAX_WORK = 8_000_000
"""Most work in exact linear solves, counted as the sum of n**3 over the layers of n states
that need their own inverse (about a second per 2 million on a laptop)."""

MAX_FACES = 250_000
"""Most (sum of a's dice faces) x (sum of b's): the size of one exchange's convolutions."""

NOTE = (
    "Exact (no sampling): each round's outcome from exact enumeration of the dice "
    "(S-06..S-18), then an absorbing Markov chain over the assailant, the wounds that count "
    "towards out_after, dropped weapons and granted criticals (S-02..S-19). No round cap in "
    "this model, so no draws; a simulation with a round cap can differ only by its (rare) "
    "capped fights."
)

A_WINS = -1
B_WINS = -2
ChainTarget = int
"""A state of the chain, or A_WINS / B_WINS."""


# --- refusals ------------------------------------------------------------------------


def check_finite(ruleset: SevendagRuleset) -> None:
    """Refuse, in one line, a ruleset whose fight state space is infinite or never ends."""
    for band in ruleset.wounds:
        if band.penalty and not band.out_after:
            raise UsageError(Msg("exact.sev.unbounded", band=band.name, penalty=band.penalty))
    if not any(band.out_after for band in ruleset.wounds):
        raise UsageError(Msg("exact.sev.no_out"))


def initiative_probability(ruleset: SevendagRuleset, a: SevendagFighter,
                           b: SevendagFighter) -> Fraction:
    """S-02 (:func:`~sevendag_cli.sevendag.model.speed_odds`) for any speed roll."""
    return speed_odds(ruleset, formula_dist(ruleset.speed_roll, a.env()),
                      formula_dist(ruleset.speed_roll, b.env()))


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
            raise UsageError(Msg("exact.sev.singular"))
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
    check_plain(a, b)  # no yield, no new technique
    check_exact(ruleset, a, b)  # the value bound
    check_finite(ruleset)
    faces = sum(h.die for h in a.hands) * sum(h.die for h in b.hands)
    if faces > MAX_FACES:
        raise UsageError(Msg("exact.sev.faces", a=a.name, b=b.name, faces=faces, max=MAX_FACES))
    chain = chain_for(ruleset, a, b)
    p_a = initiative_probability(ruleset, a, b)
    starts = {chain.state_id(chain.start_key(f)): p for f, p in ((0, p_a), (1, 1 - p_a)) if p}

    # Every reachable state and its round, as exact fractions.
    order = chain.closure(list(starts))
    if len(order) > MAX_STATES:
        raise UsageError(Msg("exact.sev.states", a=a.name, b=b.name, max=MAX_STATES))
    trans: dict[int, dict[ChainTarget, Fraction]] = {}
    for s in order:
        moves, (win_a, win_b) = chain.exact_weights(s)
        row: dict[ChainTarget, Fraction] = dict(moves)
        if win_a:
            row[A_WINS] = win_a
        if win_b:
            row[B_WINS] = win_b
        trans[s] = row

    # Every state must be able to end (else some fights never do).
    back: dict[ChainTarget, list[int]] = {}
    for s, targets in trans.items():
        for t in targets:
            back.setdefault(t, []).append(s)
    ends: set[ChainTarget] = {A_WINS, B_WINS}
    queue = deque(ends)
    while queue:
        t = queue.popleft()
        for s in back.get(t, ()):
            if s not in ends:
                ends.add(s)
                queue.append(s)
    if any(s not in ends for s in trans):
        raise UsageError(Msg("exact.sev.never_ends", a=a.name, b=b.name))

    # Layers of equal wound counts, most wounded first: x = (P(a wins), E[rounds]) = N r with
    # N = (I - Q)^-1 over the layer (Q: the rounds that wound nobody in a band that takes a
    # fighter out).  N depends on the layer only through D and its states, so layers that
    # share them (all, without penalties) share N.
    layers: dict[tuple[tuple[int, ...], tuple[int, ...]], list[int]] = {}
    for s in trans:
        key = chain.states[s]
        layers.setdefault((key[2], key[3]), []).append(s)
    value: dict[int, list[Fraction]] = {}
    inverses: dict[object, tuple[list[list[int]], int]] = {}
    work = 0
    for counts in sorted(layers, key=lambda w: -sum(w[0]) - sum(w[1])):
        states = sorted(layers[counts], key=lambda i: chain.states[i])
        pos = {s: i for i, s in enumerate(states)}
        rows: list[dict[int, Fraction]] = []
        rhs: list[tuple[Fraction, Fraction]] = []
        for s in states:
            line: dict[int, Fraction] = {}
            win = Fraction(0)
            rounds = Fraction(1)
            for t, p in trans[s].items():
                if t == A_WINS:
                    win += p
                elif t == B_WINS:
                    continue
                elif t in pos:
                    line[pos[t]] = line.get(pos[t], Fraction(0)) + p
                else:
                    win += p * value[t][0]
                    rounds += p * value[t][1]
            rows.append(line)
            rhs.append((win, rounds))
        shape = tuple((chain.states[s][:2], chain.states[s][4:]) for s in states)
        if shape not in inverses:
            work += len(states) ** 3
            if work > MAX_WORK:
                raise UsageError(Msg("exact.sev.work", states=len(trans)))
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
            for s, inv_line in zip(states, inv_num, strict=True):
                total = sum(x * y for x, y in zip(inv_line, num, strict=True) if x)
                value.setdefault(s, [Fraction(0), Fraction(0)])[col] = Fraction(
                    total, den * inv_den)
    win_a = sum((p * value[s][0] for s, p in starts.items()), Fraction(0))
    rounds = sum((p * value[s][1] for s, p in starts.items()), Fraction(0))
    return ExactResult((a.name, b.name), (win_a, 1 - win_a), Fraction(0), rounds, NOTE)
