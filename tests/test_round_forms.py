"""A round's two forms, tied together for each ruleset: the step engine (die by die, what the
table sees) and the exact round form (every way a round can go, with its exact probability).

Every solver and sampler is built on the exact form — Sevendag's sheets' chain, its game with
every declaration open, the push of ``fight --exact``, the odds from any moment, the exact
fractions and the sampler of ``fight --runs``; d20's round tables and its chain — so this
file is what ties them to the rules the table sees: each form over every face of every die,
in every kind of state, as exact fractions.

* **Sevendag** (S-02 .. S-19): the exact form (:mod:`sevendag_cli.sevendag.rounds`, through
  the game's :meth:`~sevendag_cli.sevendag.game.SevendagGame.transitions`) against the
  engine's ``play_round`` with the same declarations: yields (S-03), allocations (S-04,
  S-18), techniques (S-05), the exchanges, metals, bands, critical defence in either
  exchange (S-14), shields, drops, granted criticals, penalties and ``out_after`` (S-19).
  On the tiny sheets every pair of declarations; on the house pair the sheets' and a few
  others (its dice are many).
* **d20** (D-02 .. D-12): the round's exact distribution of damage against the engine's
  round, every face.
* **S-14 after a yield**, end to end at the table: the entered dice of docs/rules.md.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from sevendag_cli.sevendag import engine
from sevendag_cli.sevendag.engine import (
    ActiveTechnique,
    DroppedWeapon,
    FighterState,
    SevendagState,
    initial_state,
)
from sevendag_cli.sevendag.game import SHEET, Option, SevendagGame, merge
from sevendag_cli.sevendag.rounds import KEEP, OutcomeCodes
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
from tests.exact_helpers import distribution
from tests.helpers import ok, run_json
from tests.sevendag_helpers import HOUSE_GRANTS, TINY_COUNTED, TINY_HOUSE, TINY_X, TINY_Y, TINY_Z, bundled


def fs(name: str, wounds: tuple[str, ...] = (), penalty: int = 0, **kw: Any) -> FighterState:
    return FighterState(name, wounds, penalty, **kw)


def _cases() -> list[Any]:
    brannoc, ysolde = bundled()
    slow = pytest.mark.slow
    return [
        pytest.param(TINY_HOUSE, TINY_X, TINY_Y, initial_state(TINY_X, TINY_Y, "X"), True,
                     id="tiny-S02-start-X-holds"),
        pytest.param(TINY_HOUSE, TINY_X, TINY_Y, initial_state(TINY_X, TINY_Y, "Y"), True,
                     id="tiny-S02-start-Y-holds", marks=slow),
        pytest.param(
            TINY_HOUSE, TINY_X, TINY_Y,
            SevendagState(3, "Y", (fs("X", ("light",), 3, granted_crit=True),
                                   fs("Y", ("serious",), 2))),
            True, id="tiny-S10-grant-S19-penalty-difference", marks=slow),
        pytest.param(
            TINY_COUNTED, TINY_Z, TINY_Y,
            SevendagState(2, "Z", (
                fs("Z", ("light",), 1, dropped=(DroppedWeapon("k", (2,), 2),)),
                fs("Y", ("light", "serious"), 1, technique=ActiveTechnique("guard", 1)))),
            True, id="tiny-S12-S18-dropped-S19-out_after-near-S05-guard", marks=slow),
        pytest.param(
            TINY_COUNTED, TINY_Z, TINY_Y,
            SevendagState(2, "Y", (fs("Z", technique=ActiveTechnique("charge", 1)),
                                   fs("Y", ("light",), 1,
                                      dropped=(DroppedWeapon("g", (1, 2), 1),)))),
            True, id="tiny-S05-charge-S11-two-handed-dropped", marks=slow),
        pytest.param(
            HOUSE_GRANTS, brannoc, ysolde,
            SevendagState(5, "Ysolde", (
                fs("Brannoc", ("light", "serious"), 4, technique=ActiveTechnique("feint", 1),
                   granted_crit=True),
                fs("Ysolde", ("critical",), 11, technique=ActiveTechnique("guard", 2)))),
            False, id="house-S05-S10-S14-S17-S19-techniques-grant-penalties", marks=slow),
        pytest.param(
            HOUSE_GRANTS, brannoc, ysolde,
            SevendagState(9, "Brannoc", (
                fs("Brannoc", dropped=(DroppedWeapon("sword", (1,), 1),)),
                fs("Ysolde", penalty=3, granted_crit=True))),
            False, id="house-S18-dropped-sword-S10-grant", marks=slow),
    ]


def _declarations(game: SevendagGame, key: Any, every: bool) -> list[tuple[Option, Option]]:
    """Every pair of declarations; or the sheets' and, for the fighter declaring first, each
    of its options against the answer's sheet (a yield and each technique among them)."""
    sheets = (game.options(key, 0, SHEET)[0], game.options(key, 1, SHEET)[0])
    if every:
        return list(product(game.options(key, 0), game.options(key, 1)))
    first = key[0]
    out = [sheets]
    for o in game.options(key, first):
        out.append((o, sheets[1]) if first == 0 else (sheets[0], o))
    return list(dict.fromkeys(out))


def _engine(game: SevendagGame, rs: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
            state: SevendagState, oa: Option, ob: Option) -> dict[Any, Fraction]:
    choices = merge(a.name, oa, b.name, ob, state.assaillant)
    out: dict[Any, Fraction] = {}
    for new, p in distribution(lambda d: engine.play_round(rs, a, b, state, d, choices)[1]).items():
        k = game.key_of(new)
        out[k] = out.get(k, Fraction(0)) + p
    return out


def _exact(game: SevendagGame, key: Any, oa: Option, ob: Option) -> dict[Any, Fraction]:
    den, targets = game.transitions(key, oa, ob)
    return {t: Fraction(w, den) for t, w in targets}


@pytest.mark.parametrize(("rs", "a", "b", "state", "every"), _cases())
def test_S02_S19_sevendag_the_exact_round_is_the_engines_over_every_face(
        rs: SevendagRuleset, a: SevendagFighter, b: SevendagFighter, state: SevendagState,
        every: bool) -> None:
    """S-03 .. S-19 as the engine plays them: for each pair of declarations, the exact round
    form's next states (or winners) and their probabilities are the engine's ``play_round``
    over every face of every die it rolls, exactly."""
    game = SevendagGame(rs, a, b)
    key = game.key_of(state)
    assert not isinstance(key, int)
    pairs = _declarations(game, key, every)
    for oa, ob in pairs:
        assert _exact(game, key, oa, ob) == _engine(game, rs, a, b, state, oa, ob), (oa, ob)
    assert len(pairs) >= (32 if every else 2)


def test_S14_after_a_yield_the_first_attackers_critical_defence_takes_the_initiative() -> None:
    """S-03, S-14, S-15 at the table (docs/rules.md): Ysolde holds the initiative and yields;
    Brannoc attacks first (2: a light wound); Ysolde's greatsword (2, 2) meets Brannoc's shield
    on its highest face (8): foiled, and the initiative passes to Brannoc."""
    ok("init", "--dice", "5,19")
    assert run_json("status")["assaillant"] == "Ysolde"
    ok("round", "--yield", "--no-input", "--dice", "2,2,2,8")
    assert run_json("status")["assaillant"] == "Brannoc"


@pytest.mark.parametrize(("bands", "units"), [(1, 1), (4, 2), (12, 1), (2, 3)])
def test_S08_a_rounds_outcome_packed_into_one_int_reads_back_the_same(bands: int,
                                                                       units: int) -> None:
    """Every outcome a round can have (the winner, each wound's band or none, the initiative,
    each mask of units dropped, each granted critical) packs into its own int and reads back
    the same, fields apart: what one exchange sets (``|``) leaves the other's alone, and a
    field's mask clears it alone."""
    codes = OutcomeCodes(bands, units)
    masks = range(1 << units)
    seen: dict[int, tuple[object, ...]] = {}
    for outcome in product((-1, 0, 1), range(-1, bands), range(-1, bands), (0, 1, KEEP),
                           masks, masks, (False, True), (False, True)):
        code = codes.pack(*outcome)
        assert codes.unpack(code) == outcome
        assert seen.setdefault(code, outcome) == outcome
        winner, hf, hs, init, df, ds, g1, g2 = outcome
        first = codes.pack(-1, -1, hs, 0, df, 0, g1, g2)
        second = codes.pack(winner, hf, -1, init, 0, ds, False, False)
        assert first | second == code == codes.pack(*outcome)
        assert code & ~codes.mask(7) == codes.pack(*outcome[:7], False)
    assert codes.bits < 63 and code < 1 << codes.bits
