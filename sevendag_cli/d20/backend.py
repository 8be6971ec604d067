"""Le combat (d20) behind the :class:`~sevendag_cli.backend.Backend` interface.

Importing this module costs nothing: each method imports what it uses (the rules,
the step engine, numpy and icepool for the simulator and the chain, Rich for the
display) when it is called.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.policies import PLAIN, Policies

if TYPE_CHECKING:
    import numpy as np

    from sevendag_cli.backend import (
        Advice,
        Aggregator,
        Ask,
        Backend,
        Band,
        Batch,
        BatchFn,
        Cell,
        Choices,
        Fighter,
        MomentOdds,
        PairSetup,
        Ruleset,
        RulesetEntries,
        SheetChange,
        State,
        StepEngine,
    )
    from sevendag_cli.d20.chain import D20Chain, D20Tables
    from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
    from sevendag_cli.d20.sampled import D20Batches
    from sevendag_cli.data import Reader
    from sevendag_cli.dice import DiceSource
    from sevendag_cli.formula import Formula
    from sevendag_cli.render.rich_base import RulesetDisplay
    from sevendag_cli.sim.exact_records import ExactFight, Exploitability
    from sevendag_cli.sim.odds import Odds

ABILITIES = ("str", "dex", "con", "wis")
"""What ``new`` rolls 3d6 for (D-13), in the sheet's order."""

SHEET_TEMPLATE = """\
# A d20 (Le combat) fighter sheet.  Abilities rolled 3d6 each (D-13):
{rolls}
ruleset = "{ruleset}"
name = "{name}"
race = ""
level = 1
str = {str}
dex = {dex}
con = {con}
wis = {wis}
bba = 1        # base attack bonus (D-03)
armour = 0     # armour bonus (D-05)
size = 0       # size modifier (D-05)
dodge = 0      # dodge bonus to saves (D-08)
hp = 10
# ac = 12      # state AC directly instead of the formula (D-05)

[weapon]       # remove this table to fight bare-handed (D-11)
name = "short sword"
damage = "1d6"
# magic = "1d4"   # magic damage dice (D-09)
type = 0       # weapon type modifier (D-03)
crit_range = 20   # lowest natural that threatens a critical (D-07)
crit_factor = 2
"""


def _pair(ruleset: Ruleset, a: Fighter, b: Fighter) -> tuple[D20Ruleset, D20Fighter, D20Fighter] | None:
    """The three as d20 records, or None if a sheet is not a d20 one."""
    from sevendag_cli.d20.rules import D20Fighter, D20Ruleset

    if isinstance(ruleset, D20Ruleset) and isinstance(a, D20Fighter) and isinstance(b, D20Fighter):
        return ruleset, a, b
    return None


def _d20(ruleset: Ruleset, a: Fighter, b: Fighter) -> tuple[D20Ruleset, D20Fighter, D20Fighter]:
    """The three as d20 records (a sheet of another ruleset: one line)."""
    return _rules(ruleset), _sheet(a), _sheet(b)


def _rules(ruleset: Ruleset) -> D20Ruleset:
    from sevendag_cli.backend import own
    from sevendag_cli.d20.rules import D20Ruleset

    return own(ruleset, D20Ruleset)


def _sheet(fighter: Fighter) -> D20Fighter:
    from sevendag_cli.backend import own
    from sevendag_cli.d20.rules import D20Fighter

    return own(fighter, D20Fighter)


class _Batches:
    """The pair's batch function: fights drawn from the round's exact table
    (:mod:`~sevendag_cli.d20.sampled`) where it fits, else every die rolled
    (:mod:`~sevendag_cli.d20.vector`)."""

    def __init__(self, ruleset: D20Ruleset, a: D20Fighter, b: D20Fighter) -> None:
        from sevendag_cli.d20.sampled import D20Batches

        self.pair = (ruleset, a, b)
        self.fn: D20Batches = D20Batches()

    def __call__(self, n: int, rng: np.random.Generator, cap: int) -> Batch:
        return self.fn(*self.pair, n, rng, cap)


class _MomentOdds:
    """The odds of any state of one d20 pair: the round tables (kept, or built from the
    formulas' exact laws)."""

    def __init__(self, chain: D20Chain, used_kept: bool = False) -> None:
        self.chain = chain
        self.used_kept = used_kept

    def odds(self, state: State, cap: int | None, tolerance: float) -> Odds:
        from sevendag_cli.d20.state import D20State

        if not isinstance(state, D20State):
            raise UsageError(Msg("cli.mismatch"))
        return self.chain.odds(state, cap, tolerance)  # None: no cap, the fight played to the end

    def keep(self, tolerance: float) -> bytes:
        """The round tables as kept bytes; none (``b""``, nothing kept) when an exact weight
        passes what msgpack holds, 64 bits (a weapon summing hundreds of dice, ``999d2``):
        the next process builds them again."""
        try:
            return self.chain.tables.to_bytes()
        except OverflowError:
            return b""


def mirrored(tables: D20Tables) -> D20Tables:
    """The round tables of the same pair named the other way round (exactly what
    ``d20_tables(ruleset, b, a)`` gives: D-02 is symmetric, and each attack is the same)."""
    from sevendag_cli.d20.chain import D20Tables

    return D20Tables((tables.names[1], tables.names[0]), tables.first_den - tables.first,
                     tables.first_den, tables.damage_b, tables.den_b, tables.damage_a,
                     tables.den_a)


def _dag_odds(setup: PairSetup, tables: D20Tables, a: D20Fighter, b: D20Fighter) -> Odds:
    """One order of a roster's pair, from the hit-point DAG."""
    from sevendag_cli.d20.chain import D20Chain
    from sevendag_cli.d20.limits import MAX_DAG_CELLS
    from sevendag_cli.d20.state import initial_state

    if a.hp * b.hp > MAX_DAG_CELLS:
        raise UsageError(Msg("roster.d20_cells", max=MAX_DAG_CELLS, a=a.name, hp_a=a.hp,
                             b=b.name, hp_b=b.hp))
    return D20Chain(tables).odds(initial_state(a, b), setup.cap, setup.tolerance)  # None: no cap


class _Sheets:
    """Reading d20 rulesets and sheets; ``rulesets show``, ``new``."""

    def record_types(self) -> tuple[type[D20Ruleset], type[D20Fighter]]:
        from sevendag_cli.d20.rules import D20Fighter, D20Ruleset

        return D20Ruleset, D20Fighter

    def read_ruleset(self, r: Reader, name: str, source: str) -> Ruleset:
        from sevendag_cli.d20 import rules

        return rules.read_ruleset(r, name, source)

    def read_fighter(self, r: Reader, source: str, ruleset: Ruleset) -> Fighter:
        from sevendag_cli.d20 import rules

        return rules.read_fighter(r, source)

    def describe(self, ruleset: Ruleset) -> dict[str, object]:
        from msgspec import structs

        from sevendag_cli.d20.rules import D20Ruleset

        if not isinstance(ruleset, D20Ruleset):
            return {}
        return {"dd_table": [structs.asdict(b) for b in ruleset.dd_table]}

    def roll_sheet(self, dice: DiceSource) -> dict[str, list[int]] | None:
        from sevendag_cli.formula import parse

        three = parse("3d6")
        rolled: dict[str, list[int]] = {}
        for ability in ABILITIES:
            ev = three.evaluate({}, dice, "ability", ability)
            rolled[ability] = [r.face for r in ev.rolls]
        return rolled

    def sheet_template(self, ruleset: Ruleset, name: str,
                       rolled: dict[str, list[int]] | None, lang: str = "en") -> str:
        assert rolled is not None
        rolls = "\n".join(
            f"#   {k.upper()}: {' + '.join(map(str, v))} = {sum(v)}" for k, v in rolled.items()
        )
        return SHEET_TEMPLATE.format(ruleset=ruleset.name, name=name, rolls=rolls,
                                     **{k: sum(v) for k, v in rolled.items()})


class _Bounds:
    """What a d20 pair's numbers can reach (:mod:`sevendag_cli.d20.bounds`)."""

    def sheet_formulas(self, fighter: Fighter) -> list[Formula]:
        weapon = getattr(fighter, "weapon", None)
        if weapon is None:
            return []
        return [x for x in (weapon.damage, weapon.magic) if x is not None]

    def check_values(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
        pair = _pair(ruleset, a, b)
        if pair is not None:
            from sevendag_cli.d20.bounds import check_values

            check_values(*pair)

    def endless(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> Msg | None:
        pair = _pair(ruleset, a, b)
        if pair is None:
            return None
        from sevendag_cli.d20.bounds import endless

        return endless(*pair)

    def check_exact(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
        pair = _pair(ruleset, a, b)
        if pair is not None:
            from sevendag_cli.d20.bounds import check_exact

            check_exact(*pair)


class _Table:
    """A d20 round at the table: nobody chooses anything (D-02)."""

    def round_choices(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State,
                      yield_: bool | None, allocate: Sequence[tuple[str, str]],
                      technique: Sequence[tuple[str, str]], ask: Ask | None) -> Choices | None:
        if yield_ is not None or allocate or technique:
            raise UsageError(Msg("cli.d20_no_choices"))
        return None

    def prompt_choices(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State,
                       yield_: bool | None, allocation: dict[str, tuple[str, ...]],
                       technique: dict[str, str | None], lang: str,
                       only: Sequence[str] | None = None) -> Choices | None:
        return None  # nobody chooses anything in Le combat (D-02)

    def seed_replays_round(self) -> bool:
        return True  # no choices to know

    def choices_from_data(self, data: object) -> Choices | None:
        if data is None:
            return None
        raise ValueError("a d20 round has no choices")

    def classify(self, ruleset: Ruleset, amount: int) -> Band | None:
        raise UsageError(Msg("cli.classify_d20", name=ruleset.name))  # hit points, no bands

    def round_seconds(self, ruleset: Ruleset) -> int | None:
        return None  # the d20 source gives a round no length

    def advise(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State, after: str | None,
               cap: int | None, tolerance: float | None) -> tuple[Advice, float]:
        raise UsageError(Msg("advise.d20"))  # nobody chooses anything in Le combat (D-02)


class _Sim:
    """``fight --runs`` of a d20 pair (d20 has no choices: every policy is the sheet)."""

    def check_batch(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
        if _pair(ruleset, a, b) is None:
            raise UsageError(Msg("sim.d20_sheets"))

    def batch(self, ruleset: Ruleset, a: Fighter, b: Fighter,
              policies: Policies = PLAIN) -> tuple[BatchFn, Aggregator]:
        from sevendag_cli.d20.sim_extra import D20Aggregator

        return _Batches(*_d20(ruleset, a, b)), D20Aggregator((a.name, b.name))


class _Exact:
    """Exact odds of d20 pairs: the round tables (icepool), the chain over the hit points."""

    def exact_fight(self, ruleset: Ruleset, a: Fighter, b: Fighter, *, cap: int | None,
                    tolerance: float, fractions: bool | None, policies: Policies = PLAIN,
                    progress: Callable[[int, int], None] | None = None) -> ExactFight:
        from sevendag_cli.d20.exact_fight import d20_fight

        return d20_fight(*_d20(ruleset, a, b), cap=cap, tolerance=tolerance, fractions=fractions,
                         progress=progress)

    def start_odds(self, ruleset: Ruleset, a: Fighter, b: Fighter, cap: int | None,
                   tolerance: float) -> tuple[tuple[str, str], Odds, float] | None:
        """From the start, as the odds from any moment: the fight played to the end (``cap`` None
        and no cap in the ruleset), or with the cap's share bounded (None where it matters: the
        whole fight is computed instead)."""
        from sevendag_cli.d20.chain import MAX_HP, chain_for

        rs, fa, fb = _d20(ruleset, a, b)
        if max(fa.hp, fb.hp) > MAX_HP:
            return None
        chain = chain_for(rs, fa, fb)
        if not chain.moves:
            return None
        odds = chain.uncapped_odds(fa.hp, fb.hp, None, rs.round_cap if cap is None else cap)
        if odds.unresolved > tolerance:
            return None
        return chain.names, odds, chain.rounds_mean(fa.hp, fb.hp)

    def moment_odds(self, ruleset: Ruleset, a: Fighter, b: Fighter, kept: bytes | None,
                    tolerance: float, policies: Policies = PLAIN,
                    cap: int | None = None) -> MomentOdds:
        from sevendag_cli.d20.chain import D20Chain, D20Tables, chain_for, pair_fingerprint
        from sevendag_cli.sim.moment import decode

        rs, fa, fb = _d20(ruleset, a, b)
        tables = decode(D20Tables, kept)
        if tables is not None and tables.names == (fa.name, fb.name) \
                and tables.fingerprint == pair_fingerprint(rs, fa, fb):
            return _MomentOdds(D20Chain(tables), used_kept=True)
        return _MomentOdds(chain_for(rs, fa, fb))

    def assumptions(self, policies: Policies = PLAIN,
                    fighters: Sequence[Fighter] = ()) -> tuple[str, ...]:
        from sevendag_cli.sim.swing import DRAW_AT_CAP

        return (DRAW_AT_CAP,)  # d20 has no choices

    def sheets_note(self) -> Msg:
        return Msg("exact.assume.d20")  # the rounds as round plays them: no choices (D-02)

    def exploitability(self, ruleset: Ruleset, a: Fighter, b: Fighter, *, cap: int | None,
                       tolerance: float, sheet: Odds | None = None,
                       asked: bool = True) -> Exploitability | Msg:
        """Nothing to give away: with no choices, the best response is the sheet."""
        from sevendag_cli.sim.exact_records import Exploitability

        value = sheet if sheet is not None else self.exact_fight(
            ruleset, a, b, cap=cap, tolerance=tolerance, fractions=False).odds
        own = (value.win[0] + value.draw / 2, value.win[1] + value.draw / 2)
        return Exploitability((a.name, b.name), (0.0, 0.0), ((0.0, 0.0), (0.0, 0.0)),
                              (own[1], own[0]), own, tolerance)


class _Roster:
    """A ``matrix``'s d20 pairs: the round tables built once a pair, mirrored for the other order."""

    def matrix_pair(self, setup: PairSetup, i: int, j: int, cache: dict[int, object],
                    solved: Callable[[int, int, Callable[[], Odds]], Cell],
                    fallen: Callable[[int, int, UsageError], Cell]) -> tuple[Cell, Cell]:
        """The round tables built once for the pair, mirrored for the other order."""
        from sevendag_cli.d20.chain import d20_tables

        rs, a, b = _d20(setup.ruleset, setup.fighters[i], setup.fighters[j])
        try:
            tables = d20_tables(rs, a, b)
        except UsageError as exc:
            return fallen(i, j, exc), fallen(j, i, exc)
        return (solved(i, j, lambda: _dag_odds(setup, tables, a, b)),
                solved(j, i, lambda: _dag_odds(setup, mirrored(tables), b, a)))

    def solver_limits(self) -> frozenset[str]:
        return frozenset({"exact.d20.hp", "exact.d20.cells", "roster.d20_cells"})

    def refused_alike(self, policies: tuple[str, str]) -> frozenset[str]:
        return frozenset()  # the simulation plays the sheets, whatever the policies

    def pair_cost(self, a: Fighter, b: Fighter) -> int:
        return int(_sheet(a).hp * _sheet(b).hp)

    def warm_modules(self) -> tuple[str, ...]:
        return ("sevendag_cli.d20.chain", "sevendag_cli.d20.exact", "sevendag_cli.d20.state")


class _WhatIf:
    """What-ifs on d20 sheets (no tactics, no techniques)."""

    def tactics(self, typed: str) -> tuple[str, ...]:
        raise UsageError(Msg("whatif.tactic_d20", typed=typed))  # a d20 sheet has no tactic

    def ruleset_entries(self, ruleset: Ruleset, table: str) -> RulesetEntries:
        return {}  # no techniques: nothing of the ruleset is a what-if

    def inert_notes(self, ruleset: Ruleset, fighters: Sequence[Fighter],
                    changes: Sequence[SheetChange], policies: Sequence[str] = ("sheet", "sheet"),
                    state: State | None = None) -> list[Msg]:
        """A field that only the AC formula reads (``armour``, ``size``), on a sheet that
        states its AC (D-05: the stated AC wins)."""
        from sevendag_cli.d20.rules import FORMULA_KEYS

        rs = _rules(ruleset)
        ac_names = rs.ac.names
        elsewhere: set[str] = set()
        for key in FORMULA_KEYS:
            if key != "ac":
                elsewhere |= getattr(rs, key).names
        notes = []
        for change in changes:
            fighter = next((f for f in fighters if f.name == change.fighter), None)
            ac = getattr(fighter, "ac_override", None)
            if ac is not None and change.field in ac_names and change.field not in elsewhere:
                notes.append(Msg("whatif.ac_stated", name=change.fighter, ac=ac, field=change.field))
        return notes

    def saved_state_notes(self, ruleset: Ruleset, changes: Sequence[SheetChange]) -> list[Msg]:
        """``hp``: the encounter keeps each fighter's hit points."""
        from sevendag_cli.d20.rules import FORMULA_KEYS

        read: set[str] = set()
        for key in FORMULA_KEYS:
            read |= getattr(ruleset, key).names
        return [Msg("whatif.saved_hp", name=c.fighter) for c in changes
                if c.field == "hp" and "hp" not in read]


class D20Backend:
    """The d20 ruleset's backend (see :class:`sevendag_cli.backend.Backend`)."""

    sheets = _Sheets()
    bounds = _Bounds()
    table = _Table()
    sim = _Sim()
    exact = _Exact()
    roster = _Roster()
    whatif = _WhatIf()

    def has_choices(self) -> bool:
        return False  # every policy is the sheet

    def engine(self) -> StepEngine:
        from sevendag_cli.d20.engine import STEP_ENGINE

        return STEP_ENGINE

    def display(self) -> RulesetDisplay:
        from sevendag_cli.d20.display import DISPLAY

        return DISPLAY


BACKEND: Backend = D20Backend()
