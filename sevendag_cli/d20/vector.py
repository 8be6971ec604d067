"""Vectorised Monte-Carlo of whole d20 fights (D-02 .. D-12) with numpy.

Same rules as the step-by-step engine (:mod:`sevendag_cli.d20.engine`), many
fights at once: every formula is evaluated on arrays by walking its tree (a die
``NdS`` is ``N`` columns of ``rng.integers(1, S + 1)``; explosions add to the
columns that showed the highest face, keep/drop sorts the columns; the natural
of a check is its first die, or the kept die of ``2d20kh1``), and the round
loop runs over the fights still going, the active set shrinking as fights end.
Dice are drawn in a different order from the step-by-step engine (C-02 is about
that engine's record, not about this one), so single fights differ while the
distributions are the same.  What the values rolled decide (hit, critical, save,
damage) is not written here: :func:`attacks` applies the functions of
:mod:`sevendag_cli.d20.attack`, the step engine's own, to arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sevendag_cli.d20.attack import (
    attack_verdict,
    damage_dealt,
    is_critical,
    save_outcome,
    save_verdict,
)
from sevendag_cli.d20.rules import D20Fighter, D20Ruleset, Weapon, play_limit, unarmed
from sevendag_cli.errors import Msg, RuleError, UsageError
from sevendag_cli.limits import MAX_ROUND_CAP
from sevendag_cli.sim.vec_formula import VecFormula

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Value = IntArray | int

MAX_INITIATIVE_ATTEMPTS = 1000  # as the step-by-step engine


# --- one attack ----------------------------------------------------------------


@dataclass(frozen=True)
class _Side:
    """Everything one attacker needs against one defender, bound once per batch."""

    attack: VecFormula
    save: VecFormula  # the defender's
    dd: VecFormula | None  # the attacker's (dd = roll)
    dd_fixed: int  # dd = level_table
    ac: int
    crit_range: int
    crit_factor: int
    damage: VecFormula
    bonus: int
    vig: VecFormula  # the defender's
    magic: VecFormula | None
    magic_bonus: int
    vol: VecFormula | None


def _side(ruleset: D20Ruleset, attacker: D20Fighter, defender: D20Fighter) -> _Side:
    aenv, denv = attacker.env(), defender.env()
    weapon: Weapon = attacker.weapon or unarmed(ruleset)
    who = attacker if ruleset.dd_level_of == "attacker" else defender
    return _Side(
        attack=VecFormula.bind(ruleset.attack, aenv),
        save=VecFormula.bind(ruleset.save, denv),
        dd=VecFormula.bind(ruleset.dd, aenv) if ruleset.dd_mode == "roll" else None,
        dd_fixed=ruleset.dd_from_level(who.level) if ruleset.dd_mode != "roll" else 0,
        ac=defender.ac(ruleset),
        crit_range=weapon.crit_range,
        crit_factor=weapon.crit_factor,
        damage=VecFormula.bind(weapon.damage, aenv),
        bonus=ruleset.damage_bonus.value(aenv),
        vig=VecFormula.bind(ruleset.vig, denv),
        magic=VecFormula.bind(weapon.magic, aenv) if weapon.magic is not None else None,
        magic_bonus=ruleset.magic_bonus.value(aenv) if weapon.magic is not None else 0,
        vol=VecFormula.bind(ruleset.vol, denv) if weapon.magic is not None else None,
    )


@dataclass(frozen=True)
class AttackSample:
    """``n`` independent attacks (D-04 .. D-10)."""

    hit: BoolArray
    critical: BoolArray
    outcome: npt.NDArray[np.int8]  # save: -1 no save (miss), 0 failed, 1 halved, 2 dodged
    damage: IntArray  # 0 on a miss or a full dodge


class Draws:
    """Where an attack's values come from (:func:`attacks`): one formula for some rows."""

    def roll(self, what: str, formula: VecFormula, rows: IntArray,
             natural: bool = False) -> tuple[IntArray, IntArray | None]:
        """``formula`` rolled for the rows ``rows`` (indices into the batch) as ``what``
        (``attack``, ``save``, ``dd``, ``damage``, ``vig``, ``magic``, ``vol``); with
        ``natural``, also its natural."""
        raise NotImplementedError


class RandomDraws(Draws):
    """Values from the batch's generator (the simulator's stream)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def roll(self, what: str, formula: VecFormula, rows: IntArray,
             natural: bool = False) -> tuple[IntArray, IntArray | None]:
        return formula.roll(self.rng, rows.size, natural)


def attacks(ruleset: D20Ruleset, side: _Side, draws: Draws, n: int) -> AttackSample:
    """``n`` attacks (D-04 .. D-10), one per row: the rules of :mod:`sevendag_cli.d20.attack`.

    Values are drawn formula by formula for the rows that need them: the attack for all,
    the save and the DD for the hits, the damage sets (the first for every hit not dodged
    entirely, each further critical set for the criticals), VIG, the magic sets and VOL.
    """
    everyone = np.arange(n, dtype=np.int64)
    total, nat = draws.roll("attack", side.attack, everyone, natural=True)
    assert nat is not None
    hit = attack_verdict(ruleset, nat, total, side.ac) >= 2  # D-04, D-06
    crit = is_critical(hit, nat, side.crit_range)  # D-07
    outcome = np.full(n, -1, dtype=np.int8)
    damage = np.zeros(n, dtype=np.int64)
    hits = np.flatnonzero(hit)
    m = hits.size
    if m == 0:
        return AttackSample(hit, crit, outcome, damage)

    # D-08: the defender's save against the DD.
    stotal, snat = draws.roll("save", side.save, hits, natural=True)
    assert snat is not None
    dd: IntArray | int = side.dd_fixed
    if side.dd is not None:
        dd, _ = draws.roll("dd", side.dd, hits)
    saved = save_outcome(ruleset, save_verdict(ruleset, snat, stotal, dd))
    outcome[hits] = saved
    dodged = saved == 2
    halved = saved == 1

    # D-07, D-09: damage for the hits not dodged entirely.
    keep = np.flatnonzero(~dodged)
    k = keep.size
    if k == 0:
        return AttackSample(hit, crit, outcome, damage)
    where = hits[keep]
    kcrit = crit[where]
    physical, _ = draws.roll("damage", side.damage, where)
    physical += side.bonus
    crits = np.flatnonzero(kcrit)
    for _ in range(side.crit_factor - 1):
        if crits.size:
            extra, _ = draws.roll("damage", side.damage, where[crits])
            physical[crits] += extra + side.bonus
    vig, _ = draws.roll("vig", side.vig, where)
    magic: IntArray | None = None
    vol: IntArray | None = None
    if side.magic is not None and side.vol is not None:
        magic, _ = draws.roll("magic", side.magic, where)
        magic += side.magic_bonus
        if ruleset.crit_multiplies_magic:
            for _ in range(side.crit_factor - 1):
                if crits.size:
                    extra, _ = draws.roll("magic", side.magic, where[crits])
                    magic[crits] += extra + side.magic_bonus
        vol, _ = draws.roll("vol", side.vol, where)
    _, damage[where] = damage_dealt(ruleset, physical, vig, magic, vol, halved[keep])
    return AttackSample(hit, crit, outcome, damage)


def _attacks(ruleset: D20Ruleset, side: _Side, rng: np.random.Generator, n: int) -> AttackSample:
    return attacks(ruleset, side, RandomDraws(rng), n)


def sample_attacks(ruleset: D20Ruleset, attacker: D20Fighter, defender: D20Fighter, n: int,
                   rng: np.random.Generator) -> AttackSample:
    """``n`` independent attacks of ``attacker`` on ``defender`` (for tests and tools)."""
    return _attacks(ruleset, _side(ruleset, attacker, defender), rng, n)


# --- whole fights --------------------------------------------------------------


@dataclass(frozen=True)
class D20Batch:
    """``n`` fights: index 0 is fighter a, 1 is fighter b."""

    winner: npt.NDArray[np.int8]  # 0 = a, 1 = b, -1 = draw (round cap)
    rounds: IntArray
    first_striker: npt.NDArray[np.int8]  # who attacked in round 1
    hp_a: IntArray  # hit points left (<= 0 for the loser)
    hp_b: IntArray
    dealt_a: IntArray  # damage dealt by a (the killing blow counted in full)
    dealt_b: IntArray

    @property
    def n(self) -> int:
        return int(self.winner.size)


def _initiative(ia: VecFormula, ib: VecFormula, rng: np.random.Generator,
                m: int) -> BoolArray:
    """D-02: True where a attacks; ties roll again (both), as the step-by-step engine."""
    ta, _ = ia.roll(rng, m)
    tb, _ = ib.roll(rng, m)
    a_leads = ta > tb
    tied = np.flatnonzero(ta == tb)
    attempts = 1
    while tied.size:
        attempts += 1
        if attempts > MAX_INITIATIVE_ATTEMPTS:
            raise RuleError(
                f"initiative tied {MAX_INITIATIVE_ATTEMPTS} times: formulas.initiative never "
                "separates the fighters (does it roll a die?)"
            )
        ta, _ = ia.roll(rng, tied.size)
        tb, _ = ib.roll(rng, tied.size)
        a_leads[tied] = ta > tb
        tied = tied[ta == tb]
    return a_leads


def simulate_d20_batch(ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter, n: int,
                       rng: np.random.Generator, cap: int | None = None) -> D20Batch:
    """``n`` whole fights of a against b; a fight not over after ``cap`` rounds (default: the
    ruleset's :func:`~sevendag_cli.d20.rules.play_limit`) stops there: a draw, or with no
    round cap unfinished."""
    if n < 0:
        raise UsageError(Msg("sim.fights", n=n))
    cap = play_limit(ruleset) if cap is None else cap
    if cap < 1:
        raise UsageError(Msg("cli.cap", cap=cap, max=MAX_ROUND_CAP))
    ia = VecFormula.bind(ruleset.initiative, a.env())
    ib = VecFormula.bind(ruleset.initiative, b.env())
    a_on_b = _side(ruleset, a, b)
    b_on_a = _side(ruleset, b, a)

    winner = np.full(n, -1, dtype=np.int8)
    rounds = np.full(n, cap, dtype=np.int64)
    first = np.zeros(n, dtype=np.int8)
    out_hp_a = np.empty(n, dtype=np.int64)
    out_hp_b = np.empty(n, dtype=np.int64)
    out_dealt_a = np.empty(n, dtype=np.int64)
    out_dealt_b = np.empty(n, dtype=np.int64)

    idx = np.arange(n, dtype=np.int64)  # fights still going
    hp_a = np.full(n, a.hp, dtype=np.int64)
    hp_b = np.full(n, b.hp, dtype=np.int64)
    dealt_a = np.zeros(n, dtype=np.int64)
    dealt_b = np.zeros(n, dtype=np.int64)

    for number in range(1, cap + 1):
        m = idx.size
        if m == 0:
            break
        a_leads = _initiative(ia, ib, rng, m)
        if number == 1:
            first[:] = np.where(a_leads, 0, 1)
        ka = np.flatnonzero(a_leads)
        kb = np.flatnonzero(~a_leads)
        if ka.size:
            d = _attacks(ruleset, a_on_b, rng, ka.size).damage
            hp_b[ka] -= d
            dealt_a[ka] += d
        if kb.size:
            d = _attacks(ruleset, b_on_a, rng, kb.size).damage
            hp_a[kb] -= d
            dealt_b[kb] += d
        done = (hp_a <= 0) | (hp_b <= 0)  # D-12: only the defender can drop
        if done.any():
            gone = idx[done]
            winner[gone] = np.where(hp_b[done] <= 0, 0, 1)
            rounds[gone] = number
            out_hp_a[gone] = hp_a[done]
            out_hp_b[gone] = hp_b[done]
            out_dealt_a[gone] = dealt_a[done]
            out_dealt_b[gone] = dealt_b[done]
            still = ~done
            idx, hp_a, hp_b = idx[still], hp_a[still], hp_b[still]
            dealt_a, dealt_b = dealt_a[still], dealt_b[still]
    # The rest reached the round cap: draws.
    out_hp_a[idx] = hp_a
    out_hp_b[idx] = hp_b
    out_dealt_a[idx] = dealt_a
    out_dealt_b[idx] = dealt_b
    return D20Batch(winner, rounds, first, out_hp_a, out_hp_b, out_dealt_a, out_dealt_b)
