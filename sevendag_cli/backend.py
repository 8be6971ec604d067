"""One backend per ruleset behind one typed interface, and the registry that finds them.

Each ruleset's package (``sevendag_cli/d20/``, ``sevendag_cli/sevendag/``) has a
``backend`` module whose ``BACKEND`` object implements :class:`Backend`: whether
its rules leave the fighters choices, its step engine (:class:`StepEngine`), its Rich display,
and seven groups of what the code outside the package asks of it, each its own Protocol and
each asked by its own part of the tool:

* :attr:`~Backend.sheets` (:class:`Sheets`): reading the ruleset and a sheet, ``rulesets
  show``, ``new``;
* :attr:`~Backend.bounds` (:class:`Bounds`): what a pair's numbers can reach, whether their
  fight can end (:mod:`sevendag_cli.rules.bounds`);
* :attr:`~Backend.table` (:class:`Table`): a round's choices, the encounter's log, ``wound
  --classify``, ``advise`` (:mod:`sevendag_cli.encounter`, :mod:`sevendag_cli.history`);
* :attr:`~Backend.sim` (:class:`Simulator`): the batch simulator and its extras
  (:mod:`sevendag_cli.sim.runner`);
* :attr:`~Backend.exact` (:class:`ExactSolvers`): the exact odds of a whole fight, from any
  moment, what they assume, what each sheet gives away (:mod:`sevendag_cli.sim`);
* :attr:`~Backend.roster` (:class:`RosterPairs`): a ``matrix``'s pairs (:mod:`sevendag_cli.sim.roster`);
* :attr:`~Backend.whatif` (:class:`WhatIfs`): what ``--set`` and ``--tactic`` may change,
  and the changes that change nothing (:mod:`sevendag_cli.rules.whatif`).

Code outside the packages asks the backend, never which ruleset it holds, and never names a
ruleset's own function, limit, record field or message key (``tests/test_backend.py``).

:data:`BACKENDS` is the registry: engine name → module path.  Adding a third ruleset means
adding its package and one line here (and, for the type checker, its record classes to the
unions below: ``Ruleset``, ``Fighter``, ``State``, ``FighterState``, ``Choices``, ``Advice``,
``Band``).  A backend module is imported when first asked for, and its methods import their
heavy modules (numpy, icepool, rich) inside: getting a backend costs nothing at start-up.

The only places outside the packages that name a ruleset are here: the registry, the default
ruleset (and the reader of a file naming no known engine), those type unions, and the JSON
documents' keys of a ruleset's own figures (:func:`by_engine`, the registry's names).
This module imports nothing that imports it back (the names it types with are read only by
the type checker, and none of their modules asks for a backend).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Protocol, TypeAlias, TypeVar

from sevendag_cli.policies import PLAIN, Policies

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
    from sevendag_cli.d20.state import D20FighterState, D20State
    from sevendag_cli.data import Reader
    from sevendag_cli.dice import DiceSource
    from sevendag_cli.engine.common import (
        FightPlay,
        FightResult,
        InitiativeEvent,
        RoundResult,
        WoundResult,
    )
    from sevendag_cli.errors import Msg, UsageError
    from sevendag_cli.formula import Formula
    from sevendag_cli.render.rich_base import RulesetDisplay
    from sevendag_cli.sevendag.advised import Advice as SevendagAdvice
    from sevendag_cli.sevendag.planning import Choices as SevendagChoices
    from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset, WoundBand
    from sevendag_cli.sevendag.state import FighterState as SevendagFighterState
    from sevendag_cli.sevendag.state import SevendagState
    from sevendag_cli.sim.exact_records import ExactFight, Exploitability, Extras
    from sevendag_cli.sim.odds import Odds

    Ruleset: TypeAlias = "D20Ruleset | SevendagRuleset"
    """A ruleset read (its file's tables, formulas and options)."""
    Fighter: TypeAlias = "D20Fighter | SevendagFighter"
    """A fighter sheet read."""
    State: TypeAlias = "D20State | SevendagState"
    """An encounter's state between rounds (what the encounter file saves)."""
    FighterState: TypeAlias = "D20FighterState | SevendagFighterState"
    """One fighter's track in a state (hit points, wounds...)."""
    Choices: TypeAlias = "SevendagChoices"
    """A round's declared choices, in the rulesets that have any (the others take None)."""
    Advice: TypeAlias = "SevendagAdvice"
    """``advise``'s answer, in the rulesets that have choices to advise on."""
    Band: TypeAlias = "WoundBand"
    """A wound band (``wound --classify``), in the rulesets that have bands."""
    Tally: TypeAlias = "dict[str, int | npt.NDArray[np.int64]]"
    """A batch reduced to counts and sums (:mod:`sevendag_cli.sim.runner`)."""

BACKENDS: dict[str, str] = {
    "sevendag": "sevendag_cli.sevendag.backend",
    "d20": "sevendag_cli.d20.backend",
}
"""The registry: each engine name (a ruleset file's ``engine``) and its backend's module."""

DEFAULT_RULESET = "sevendag"
"""The ruleset a command uses when none is named (data, not a choice of code)."""

FALLBACK_ENGINE = "sevendag"
"""The backend that reads a ruleset file whose ``engine`` is missing or unknown (that
problem is reported, with every other one the file has)."""


Cell = TypeVar("Cell")
"""A roster's cell (:class:`sevendag_cli.sim.roster.RosterCell`): what ``matrix_pair``'s
callbacks give back."""

RulesetEntries: TypeAlias = "dict[str, tuple[tuple[str, ...], dict[str, int]]]"
"""A ruleset's table that ``--set`` may change: each entry's key, its labels and the fields a
what-if may set with their values (:meth:`WhatIfs.ruleset_entries`)."""

Ask: TypeAlias = ("Callable[[Ruleset, Fighter, Fighter, State, bool | None, "
                  "dict[str, tuple[str, ...]], dict[str, str | None]], Choices | None]")
"""``round`` at a terminal: asks what the arguments did not say, given the ruleset, the two
fighters, the state, the yield and the choices so far (hands and techniques by fighter)."""


# --- what the backend is given and gives -------------------------------------------------------


class SheetChange(Protocol):
    """A what-if's change of a sheet field (:class:`sevendag_cli.rules.whatif.Change`)."""

    @property
    def fighter(self) -> str: ...
    @property
    def field(self) -> str: ...
    @property
    def value(self) -> object: ...
    @property
    def ruleset(self) -> str | None:
        """A change of the ruleset (``techniques.feint.attack``): the ruleset's name; else None."""
        ...


class PairSetup(Protocol):
    """What a roster's task knows (:class:`sevendag_cli.sim.roster.Setup`)."""

    @property
    def ruleset(self) -> Ruleset: ...
    @property
    def fighters(self) -> tuple[Fighter, ...]: ...
    @property
    def cap(self) -> int | None:
        """The round cap (``--cap``, else the ruleset's); None: none, the fights played to the end."""
        ...
    @property
    def tolerance(self) -> float: ...

    def pair_policies(self, i: int, j: int) -> tuple[str, str]:
        """The policies of the fight of fighter ``i`` against ``j``, in its order."""
        ...


class Batch(Protocol):
    """``n`` fights at once (numpy arrays, fighter a is 0 and b is 1): what every ruleset's
    batch holds; each adds what its aggregator reads."""

    @property
    def winner(self) -> npt.NDArray[np.int8]:
        """0 = a, 1 = b, -1 = not over (a draw at the cap, else stopped at the safety limit)."""
        ...
    @property
    def rounds(self) -> npt.NDArray[np.int64]: ...
    @property
    def first_striker(self) -> npt.NDArray[np.int8]:
        """Who struck first in each fight (0 or 1)."""
        ...


class BatchFn(Protocol):
    """The batch simulator of one pair under its policies: ``n`` fights drawn from ``rng``, each
    stopped after ``cap`` rounds."""

    def __call__(self, n: int, rng: np.random.Generator, cap: int) -> Batch: ...


class Aggregator(Protocol):
    """A ruleset's simulator extras: a batch to a tally, the totals to its own record."""

    def tally(self, batch: Batch) -> Tally: ...
    def result(self, totals: Tally, runs: int) -> Extras: ...


class MomentOdds(Protocol):
    """One pair's exact odds from any state of its fight (tables built once)."""

    @property
    def used_kept(self) -> bool:
        """Whether the kept bytes given were this very pair's and are in use."""
        ...

    def odds(self, state: State, cap: int | None, tolerance: float) -> Odds:
        """The odds from ``state``: a draw after round ``cap``; None: no cap, to the end."""
        ...
    def keep(self, tolerance: float) -> bytes:
        """What to keep (in the user's cache) to answer the pair's states fast in a later process."""
        ...


# --- the step engine ---------------------------------------------------------------------------


class StepEngine(Protocol):
    """The step-by-step engine (what ``engine_for`` gives): pure functions from the ruleset,
    the fighters, a state and the dice to a result and the next state; the encounter file's
    codec of its states; and the check of a state read back."""

    def start(self, ruleset: Ruleset, a: Fighter, b: Fighter,
              dice: DiceSource) -> tuple[InitiativeEvent, State]:
        """``init``: the initiative rolled, and the state before round 1."""
        ...

    def play_round(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State, dice: DiceSource,
                   choices: Choices | None = None) -> tuple[RoundResult, State]:
        """The next round from ``state`` (``choices``: what the players declared, None: their
        sheets')."""
        ...

    def apply_wound(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State, fighter: str,
                    amount: int | None = None, band: str | None = None) -> tuple[WoundResult, State]:
        """``wound``: damage (or a band's wound) by hand."""
        ...

    def apply_heal(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State, fighter: str,
                   amount: int | None = None, band: str | None = None) -> tuple[WoundResult, State]:
        """``wound --heal``."""
        ...

    def fight(self, ruleset: Ruleset, a: Fighter, b: Fighter, dice: DiceSource,
              cap: int | None = None) -> FightResult:
        """A whole fight, each fighter on its sheet (``cap``: a draw after it; None: the
        ruleset's, or the safety limit)."""
        ...

    def fight_play(self, ruleset: Ruleset, a: Fighter, b: Fighter, dice: DiceSource,
                   cap: int | None = None, policies: Policies = PLAIN) -> FightPlay:
        """The same fight played round by round as it is iterated, each round declared by the
        policies (``fight``: a long fight is never held whole)."""
        ...

    def fight_states(self, ruleset: Ruleset, a: Fighter, b: Fighter,
                     result: FightResult) -> list[State]:
        """The states of a fight played: after the initiative, then after each round."""
        ...

    def state_to_data(self, state: State) -> dict[str, object]:
        """A state as the encounter file writes it (plain data)."""
        ...

    def state_from_data(self, data: object) -> State:
        """A state read back from the file (damaged data: one
        :class:`~sevendag_cli.errors.EncounterError`)."""
        ...

    def fighter_states(self, state: State) -> tuple[FighterState, ...]:
        """Each fighter's track in the state, in the fight's order."""
        ...

    def check_state(self, ruleset: Ruleset, fighters: tuple[Fighter, Fighter], state: State) -> None:
        """Refuse a saved state the rules and the embedded sheets could not have reached (names
        of the sheets, bounds, what is derived from the rest): one
        :class:`~sevendag_cli.errors.EncounterError` naming the field.  Called on every read of
        an encounter, by the library and so by every command, before any die is rolled."""
        ...


# --- the groups --------------------------------------------------------------------------------


class Sheets(Protocol):
    """Reading the ruleset and its sheets (:mod:`sevendag_cli.rules`), ``rulesets show``, ``new``."""

    def record_types(self) -> tuple[type[Ruleset], type[Fighter]]:
        """The ruleset's and the fighter sheet's record classes."""
        ...

    def read_ruleset(self, r: Reader, name: str, source: str) -> Ruleset: ...
    def read_fighter(self, r: Reader, source: str, ruleset: Ruleset) -> Fighter: ...

    def describe(self, ruleset: Ruleset) -> dict[str, object]:
        """``rulesets show``: the ruleset's own tables as plain data (after formulas and options)."""
        ...

    def roll_sheet(self, dice: DiceSource) -> dict[str, list[int]] | None:
        """``new``: what a new sheet rolls (d20: the abilities, D-13), or None."""
        ...

    def sheet_template(self, ruleset: Ruleset, name: str,
                       rolled: dict[str, list[int]] | None, lang: str = "en") -> str:
        """``new``: the sheet's TOML, ``name`` already escaped for a TOML string; the optional
        fields it shows commented out are explained in ``lang``."""
        ...


class Bounds(Protocol):
    """What a pair's numbers can reach and whether their fight can end (:mod:`sevendag_cli.rules.bounds`)."""

    def sheet_formulas(self, fighter: Fighter) -> list[Formula]:
        """The formulas a fighter's sheet brings to its fights (d20: its weapon's dice)."""
        ...

    def check_values(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
        """Refuse a pair whose sums could pass the value bound (one line)."""
        ...

    def endless(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> Msg | None:
        """Why the pair's fight can never end, or None."""
        ...

    def check_exact(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
        """Refuse a pair the exact solvers cannot take, before any work (one line)."""
        ...


class Table(Protocol):
    """A round at the table, the encounter's log, ``wound --classify``, ``advise``."""

    def round_choices(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State,
                      yield_: bool | None, allocate: Sequence[tuple[str, str]],
                      technique: Sequence[tuple[str, str]], ask: Ask | None) -> Choices | None:
        """``round``: the players' choices from the arguments ((fighter name, value) as typed;
        a fighter named twice is refused), completed by ``ask`` (None: the sheets' tactics);
        None where the ruleset has no choices (then giving any is a usage error)."""
        ...

    def prompt_choices(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State,
                       yield_: bool | None, allocation: dict[str, tuple[str, ...]],
                       technique: dict[str, str | None], lang: str,
                       only: Sequence[str] | None = None) -> Choices | None:
        """Ask at a terminal what the arguments left out (the command's ``ask``); ``only``:
        ask only these fighters' choices (``round --ask NAME``), the others' are their sheets'."""
        ...

    def seed_replays_round(self) -> bool:
        """Whether a recorded seed alone replays a round (no choices to know)."""
        ...

    def choices_from_data(self, data: object) -> Choices | None:
        """A round's recorded choices back (None stays None); damaged data: ValueError."""
        ...

    def classify(self, ruleset: Ruleset, amount: int) -> Band | None:
        """``wound --classify``: the wound band of this much damage (None: no wound);
        a ruleset without bands refuses (one line)."""
        ...

    def round_seconds(self, ruleset: Ruleset) -> int | None:
        """The game time a round lasts, in seconds, or None when the ruleset does not say."""
        ...

    def advise(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State, after: str | None,
               cap: int | None, tolerance: float | None) -> tuple[Advice, float]:
        """``advise``: every option of the fighter declaring now (``after``: what the other
        declared), both playing optimally afterwards, and the tolerance used; a ruleset with
        no choices (:meth:`Backend.has_choices`) refuses in one line."""
        ...


class Simulator(Protocol):
    """``fight --runs`` (:mod:`sevendag_cli.sim.runner`)."""

    def check_batch(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
        """Refuse sheets the batch simulator cannot take (before anything else is checked)."""
        ...

    def batch(self, ruleset: Ruleset, a: Fighter, b: Fighter,
              policies: Policies = PLAIN) -> tuple[BatchFn, Aggregator]:
        """The batch simulator of this pair under these policies, and its extras."""
        ...


class ExactSolvers(Protocol):
    """Exact odds: a whole fight (``fight --exact``, ``sweep``), from any moment (``odds``,
    ``--odds``), what they assume, and what each sheet gives away."""

    def exact_fight(self, ruleset: Ruleset, a: Fighter, b: Fighter, *, cap: int | None,
                    tolerance: float, fractions: bool | None, policies: Policies = PLAIN,
                    progress: Callable[[int, int], None] | None = None) -> ExactFight:
        """``fight --exact``: ``cap`` None is the ruleset's own round cap; ``fractions`` the exact
        fractions of the fight played to the end — True asked (``progress(done, total)`` along
        the way), False none, None where the ruleset finds they pay."""
        ...

    def start_odds(self, ruleset: Ruleset, a: Fighter, b: Fighter, cap: int | None,
                   tolerance: float) -> tuple[tuple[str, str], Odds, float] | None:
        """A sweep's point faster than the whole fight's push: the names, the odds from the
        start and the expected rounds; None when there is no faster way."""
        ...

    def moment_odds(self, ruleset: Ruleset, a: Fighter, b: Fighter, kept: bytes | None,
                    tolerance: float, policies: Policies = PLAIN,
                    cap: int | None = None) -> MomentOdds:
        """The pair's odds from any state (``kept``: what :meth:`MomentOdds.keep` gave)."""
        ...

    def assumptions(self, policies: Policies = PLAIN,
                    fighters: Sequence[Fighter] = ()) -> tuple[str, ...]:
        """What the odds from any moment assume (JSON ``assumes``), for these fighters."""
        ...

    def sheets_note(self) -> Msg:
        """What the odds assume of the fighters' play when each plays its sheet, in words."""
        ...

    def exploitability(self, ruleset: Ruleset, a: Fighter, b: Fighter, *, cap: int | None,
                       tolerance: float, sheet: Odds | None = None,
                       asked: bool = True) -> Exploitability | Msg:
        """What each sheet gives away against optimal play (see :class:`Exploitability`);
        ``sheet``: the odds of both on their sheets, when already solved.  Not ``asked`` (an
        addition to plain exact odds): only when it is cheap, else a note saying why not and
        how to ask for it; asked: refused in one line beyond the solver's bounds."""
        ...


class RosterPairs(Protocol):
    """``matrix``'s pairs, solved in worker processes (:mod:`sevendag_cli.sim.roster`)."""

    def matrix_pair(self, setup: PairSetup, i: int, j: int, cache: dict[int, object],
                    solved: Callable[[int, int, Callable[[], Odds]], Cell],
                    fallen: Callable[[int, int, UsageError], Cell]) -> tuple[Cell, Cell]:
        """Both cells of a pair of a roster, exactly: ``solved(i, j, solve)`` runs a solver
        of the odds of ``i`` against ``j`` (a solver's size limit falls back to a
        simulation), ``fallen(i, j, error)`` is the cell of a pair refused before either
        order is solved; ``cache``: what the backend keeps of each fighter (by index) in
        this process."""
        ...

    def solver_limits(self) -> frozenset[str]:
        """The message keys of the exact solvers' size limits: a roster simulates such a pair."""
        ...

    def refused_alike(self, policies: tuple[str, str]) -> frozenset[str]:
        """Of :meth:`solver_limits`, those a simulation with these policies meets too (it plays
        the solver's own declarations): a pair refused so is not computed, not simulated."""
        ...

    def pair_cost(self, a: Fighter, b: Fighter) -> int:
        """How much work a pair's solve is, roughly (the largest pairs are sent first)."""
        ...

    def warm_modules(self) -> tuple[str, ...]:
        """The modules the workers' solvers use, imported once before they are forked."""
        ...


class WhatIfs(Protocol):
    """``--set``, ``--tactic`` and ``--vary`` (:mod:`sevendag_cli.rules.whatif`)."""

    def tactics(self, typed: str) -> tuple[str, ...]:
        """The tactics ``--tactic`` may name; a ruleset whose sheets have none refuses
        ``typed`` (the option as typed) in one line."""
        ...

    def ruleset_entries(self, ruleset: Ruleset, table: str) -> RulesetEntries:
        """What ``--set TABLE.ENTRY.FIELD=VALUE`` may change in the ruleset (``table``: one of
        :data:`sevendag_cli.rules.whatif.RULESET_TABLES`); empty when the ruleset has no such
        entries."""
        ...

    def inert_notes(self, ruleset: Ruleset, fighters: Sequence[Fighter],
                    changes: Sequence[SheetChange], policies: Sequence[str] = ("sheet", "sheet"),
                    state: State | None = None) -> list[Msg]:
        """Changes that change nothing here, and why (``policies``: each fighter's play,
        ``sheet`` or ``optimal``; ``state``: where the fight stands, None at its start)."""
        ...

    def saved_state_notes(self, ruleset: Ruleset, changes: Sequence[SheetChange]) -> list[Msg]:
        """Changes a saved encounter's state does not take (it keeps what they would change)."""
        ...


# --- the backend -------------------------------------------------------------------------------


class Backend(Protocol):
    """Everything the code outside a ruleset's package asks of that ruleset."""

    def has_choices(self) -> bool:
        """Whether the rules leave the fighters choices (yield, allocation, technique): if not,
        ``optimal`` is the sheet, and a command says so once."""
        ...

    def engine(self) -> StepEngine:
        """The step-by-step engine (imported when asked)."""
        ...

    def display(self) -> RulesetDisplay:
        """The Rich display (imports Rich: only when asked)."""
        ...

    @property
    def sheets(self) -> Sheets: ...
    @property
    def bounds(self) -> Bounds: ...
    @property
    def table(self) -> Table: ...
    @property
    def sim(self) -> Simulator: ...
    @property
    def exact(self) -> ExactSolvers: ...
    @property
    def roster(self) -> RosterPairs: ...
    @property
    def whatif(self) -> WhatIfs: ...


GROUPS: Mapping[str, type] = {"sheets": Sheets, "bounds": Bounds, "table": Table,
                              "sim": Simulator, "exact": ExactSolvers, "roster": RosterPairs,
                              "whatif": WhatIfs}
"""The backend's groups of methods, each a Protocol, by the attribute that holds it."""


Own = TypeVar("Own")


def own(value: object, kind: type[Own]) -> Own:
    """``value`` as the backend's own record ``kind`` (its ruleset's, a sheet's, a state's
    class): a record of another ruleset (a sheet given with another's ruleset) is refused in
    one line."""
    if not isinstance(value, kind):
        from sevendag_cli.errors import Msg, UsageError

        raise UsageError(Msg("cli.mismatch"))
    return value


def backend_named(engine: str) -> Backend:
    """The backend of an engine name (one a ruleset file was accepted with: any other is
    refused in one line, ``sim.engine``)."""
    path = BACKENDS.get(engine)
    if path is None:
        from sevendag_cli.errors import Msg, UsageError

        raise UsageError(Msg("sim.engine", engine=engine))
    module: ModuleType = importlib.import_module(path)
    backend: Backend = module.BACKEND
    return backend


def backend_for(ruleset: Ruleset) -> Backend:
    """The backend of a ruleset (by its ``engine``)."""
    return backend_named(ruleset.engine)


def engines() -> tuple[str, ...]:
    """The registered engine names, in the registry's order."""
    return tuple(BACKENDS)


def by_engine(engine: str, data: object) -> dict[str, object]:
    """Where the JSON documents of whole fights (``fight --runs``, ``fight --exact``) write a
    ruleset's own figures: one key per registered engine, in alphabetical order (``d20``,
    ``sevendag``), each null but the fight's own, ``data``."""
    return {name: data if name == engine else None for name in sorted(BACKENDS)}


def with_extras(doc: dict[str, object], engine: str) -> dict[str, object]:
    """``doc`` (a record's fields as data) with its ``extras`` field, the ruleset's own figures,
    written where it stands as :func:`by_engine` says."""
    out: dict[str, object] = {}
    for key, value in doc.items():
        if key == "extras":
            out.update(by_engine(engine, value))
        else:
            out[key] = value
    return out


__all__ = ["BACKENDS", "DEFAULT_RULESET", "FALLBACK_ENGINE", "GROUPS", "Aggregator", "Ask",
           "Backend", "Batch", "BatchFn", "Bounds", "Cell", "ExactSolvers", "MomentOdds",
           "PairSetup", "RosterPairs", "RulesetEntries", "SheetChange", "Sheets", "Simulator",
           "StepEngine", "Table", "WhatIfs", "backend_for", "backend_named", "by_engine",
           "engines", "with_extras"]
