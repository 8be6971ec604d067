"""One backend per ruleset behind one typed interface, and the registry that finds them.

Each ruleset's package (``sevendag_cli/d20/``, ``sevendag_cli/sevendag/``) has a
``backend`` module whose ``BACKEND`` object implements :class:`Backend`: reading
the ruleset and a sheet, the step engine, the batch simulator and its extras, the
exact solvers, the bounds, the what-if facts, the ``new`` sheet template, the Rich
display.  Code outside the packages asks the backend, never which ruleset it holds.

:data:`BACKENDS` is the registry: engine name → module path.  Adding a third
ruleset means adding its package and one line here (and, for the type checker, its
record classes to the ``Ruleset`` and ``Fighter`` unions below).  A backend module
is imported when first asked for, and its methods import their heavy modules
(numpy, icepool, rich) inside: getting a backend costs nothing at start-up.

The only places outside the packages that name a ruleset are here: the registry,
the default ruleset (and the reader of a file naming no known engine), and those
type unions; ``tests/test_backend.py`` checks that no other code chooses one.
This module imports nothing that imports it back (the names it types with are read
only by the type checker, and none of their modules asks for a backend).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypeVar

from sevendag_cli.policies import PLAIN, Policies

if TYPE_CHECKING:
    from sevendag_cli.d20.rules import D20Fighter, D20Ruleset
    from sevendag_cli.data import Reader
    from sevendag_cli.dice import DiceSource
    from sevendag_cli.engine.common import FightPlay, FightResult
    from sevendag_cli.errors import Msg, UsageError
    from sevendag_cli.formula import Formula
    from sevendag_cli.render.rich_base import RulesetDisplay
    from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
    from sevendag_cli.sim.exact_records import ExactFight, Exploitability, Extras
    from sevendag_cli.sim.odds import Odds

    Ruleset: TypeAlias = "D20Ruleset | SevendagRuleset"
    Fighter: TypeAlias = "D20Fighter | SevendagFighter"

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
"""A roster's cell (:class:`sevendag_cli.sim.roster.Matchup`): what ``matrix_pair``'s
callbacks give back."""


class SheetChange(Protocol):
    """A what-if's change of a sheet field (:class:`sevendag_cli.rules.whatif.Change`)."""

    @property
    def fighter(self) -> str: ...
    @property
    def field(self) -> str: ...
    @property
    def value(self) -> Any: ...
    @property
    def ruleset(self) -> str | None:
        """A change of the ruleset (``techniques.feint.attack``): the ruleset's name; else None."""
        ...


RulesetEntries: TypeAlias = "dict[str, tuple[tuple[str, ...], dict[str, int]]]"
"""A ruleset's table that ``--set`` may change: each entry's key, its labels and the fields a
what-if may set with their values (:meth:`Backend.ruleset_entries`)."""


class PairSetup(Protocol):
    """What a roster's task knows (:class:`sevendag_cli.sim.roster.Setup`)."""

    @property
    def ruleset(self) -> Any: ...
    @property
    def fighters(self) -> tuple[Any, ...]: ...
    @property
    def cap(self) -> int | None:
        """The round cap (``--cap``, else the ruleset's); None: none, the fights played to the end."""
        ...
    @property
    def tolerance(self) -> float: ...

    def pair_policies(self, i: int, j: int) -> tuple[str, str]:
        """The policies of the fight of fighter ``i`` against ``j``, in its order."""
        ...


class Aggregator(Protocol):
    """A ruleset's simulator extras: a batch to a tally, the totals to result fields."""

    def tally(self, batch: Any) -> dict[str, Any]: ...
    def result(self, totals: dict[str, Any], runs: int) -> Extras: ...


BatchFn = Callable[[Any, Any, Any, int, Any, int], Any]
"""``batch(ruleset, a, b, n, rng, cap)``: ``n`` fights at once (numpy arrays)."""


class MomentOdds(Protocol):
    """One pair's exact odds from any state of its fight (tables built once)."""

    @property
    def chain(self) -> Any:
        """The ruleset's chain of the pair."""
        ...

    @property
    def used_kept(self) -> bool:
        """Whether the kept bytes given were this very pair's and are in use."""
        ...

    def odds(self, state: Any, cap: int | None, tolerance: float) -> Odds:
        """The odds from ``state``: a draw after round ``cap``; None: no cap, to the end."""
        ...
    def keep(self, tolerance: float) -> bytes: ...


class Backend(Protocol):
    """Everything the code outside a ruleset's package asks of that ruleset."""

    @property
    def name(self) -> str:
        """The engine name (``engine`` in a ruleset file; the registry's key)."""
        ...

    # --- rules and sheets ---------------------------------------------------------------

    def record_types(self) -> tuple[type, type]:
        """The ruleset's and the fighter sheet's record classes."""
        ...

    def read_ruleset(self, r: Reader, name: str, source: str) -> Ruleset: ...
    def read_fighter(self, r: Reader, source: str, ruleset: Ruleset) -> Fighter: ...

    def describe(self, ruleset: Ruleset) -> dict[str, Any]:
        """``rulesets show``: the ruleset's own tables as plain data (after formulas and options)."""
        ...

    def sheet_formulas(self, fighter: Fighter) -> list[Formula]:
        """The formulas a fighter's sheet brings to its fights (d20: its weapon's dice)."""
        ...

    def roll_sheet(self, dice: DiceSource) -> dict[str, list[int]] | None:
        """``new``: what a new sheet rolls (d20: the abilities, D-13), or None."""
        ...

    def sheet_template(self, ruleset: Ruleset, name: str,
                       rolled: dict[str, list[int]] | None, lang: str = "en") -> str:
        """``new``: the sheet's TOML, ``name`` already escaped for a TOML string; the optional
        fields it shows commented out are explained in ``lang``."""
        ...

    def classify(self, ruleset: Ruleset, amount: int) -> Any:
        """``wound --classify``: the wound band of this much damage (None: no wound);
        a ruleset without bands refuses (one line)."""
        ...

    # --- the step engine ----------------------------------------------------------------

    def engine(self) -> ModuleType:
        """The step-by-step engine's facade (``start``, ``play_round``, ``fight``, the state codec)."""
        ...

    def fight_states(self, ruleset: Ruleset, a: Fighter, b: Fighter,
                     result: FightResult) -> list[Any]:
        """The states of a fight played: after the initiative, then after each round."""
        ...

    def advise(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: Any, after: str | None,
               cap: int | None, tolerance: float | None) -> tuple[Any, float]:
        """``advise``: every option of the fighter declaring now (``after``: what the other
        declared), both playing optimally afterwards, and the tolerance used; a ruleset with
        no choices refuses in one line (``advise.d20``)."""
        ...

    def round_choices(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: Any,
                      yield_: bool | None, allocate: Sequence[tuple[str, str]],
                      technique: Sequence[tuple[str, str]], ask: Any) -> Any:
        """``round``: the players' choices from the arguments ((fighter name, value) as typed;
        a fighter named twice is refused), completed by ``ask`` (a callable, or None: the
        sheets' tactics); None where the ruleset has no choices (then giving any is a usage
        error)."""
        ...

    def prompt_choices(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: Any,
                       yield_: bool | None, allocation: Any, technique: Any, lang: str,
                       only: Sequence[str] | None = None) -> Any:
        """Ask at a terminal what the arguments left out (the command's ``ask``); ``only``:
        ask only these fighters' choices (``round --ask NAME``), the others' are their sheets'."""
        ...

    def check_state(self, ruleset: Ruleset, fighters: tuple[Fighter, Fighter], state: object) -> None:
        """Refuse a saved state the rules and the embedded sheets could not have reached (names
        of the sheets, bounds, what is derived from the rest): one
        :class:`~sevendag_cli.errors.EncounterError` naming the field.  Called on every read of
        an encounter, by the library and so by every command, before any die is rolled."""
        ...

    def seed_replays_round(self) -> bool:
        """Whether a recorded seed alone replays a round (no choices to know)."""
        ...

    def choices_from_data(self, data: object) -> Any:
        """A round's recorded choices back (None stays None); damaged data: ValueError."""
        ...

    # --- bounds ------------------------------------------------------------------------

    def check_values(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None: ...
    def endless(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> Msg | None: ...
    def check_exact(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None: ...

    # --- many fights --------------------------------------------------------------------

    def check_batch(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
        """Refuse sheets the batch simulator cannot take (before anything else is checked)."""
        ...

    def check_plain(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
        """Refuse sheets the plain solvers (chain, exact, vectorised) cannot play: a sheet
        whose rules make choices they assume away (a Sevendag yield or technique rule)."""
        ...

    def batch(self, ruleset: Ruleset, a: Fighter, b: Fighter,
              policies: Policies = PLAIN) -> tuple[BatchFn, Aggregator]:
        """The batch simulator of this pair under these policies, and its extras."""
        ...

    def exact_fight(self, ruleset: Ruleset, a: Fighter, b: Fighter, *, cap: int | None,
                    tolerance: float, fractions: bool | None, policies: Policies = PLAIN,
                    progress: Callable[[int, int], None] | None = None) -> ExactFight:
        """``fight --exact``: ``cap`` None is the ruleset's own round cap; ``fractions`` the exact
        fractions of the fight played to the end — True asked (``progress(done, total)`` along
        the way), False none, None where the ruleset finds they pay."""
        ...

    def moment_odds(self, ruleset: Ruleset, a: Fighter, b: Fighter, kept: bytes | None,
                    tolerance: float, policies: Policies = PLAIN,
                    cap: int | None = None) -> MomentOdds: ...

    def assumptions(self, policies: Policies = PLAIN,
                    fighters: Sequence[Fighter] = ()) -> tuple[str, ...]:
        """What the odds from any moment assume (JSON ``assumes``), for these fighters."""
        ...

    # --- policies (issue 17) ------------------------------------------------------------

    def has_choices(self) -> bool:
        """Whether the rules leave the fighters choices (yield, allocation, technique): if not,
        ``optimal`` is the sheet, and a command says so once."""
        ...

    def fight_play(self, ruleset: Ruleset, a: Fighter, b: Fighter, dice: DiceSource,
                   cap: int | None, policies: Policies = PLAIN) -> FightPlay:
        """One fight to play round by round, each round declared by the policies."""
        ...

    def exploitability(self, ruleset: Ruleset, a: Fighter, b: Fighter, *, cap: int | None,
                       tolerance: float, sheet: Odds | None = None,
                       asked: bool = True) -> Exploitability | Msg:
        """What each sheet gives away against optimal play (see :class:`Exploitability`);
        ``sheet``: the odds of both on their sheets, when already solved.  Not ``asked`` (an
        addition to plain exact odds): only when it is cheap, else a note saying why not and
        how to ask for it; asked: refused in one line beyond the solver's bounds."""
        ...

    def start_odds(self, ruleset: Ruleset, a: Fighter, b: Fighter, cap: int | None,
                   tolerance: float) -> tuple[tuple[str, str], Odds, float] | None:
        """A sweep's point faster than the whole fight's push: the names, the odds from the
        start and the expected rounds; None when there is no faster way."""
        ...

    def matrix_pair(self, setup: PairSetup, i: int, j: int, cache: dict[int, Any],
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

    def pair_cost(self, a: Fighter, b: Fighter) -> int: ...
    def warm_modules(self) -> tuple[str, ...]: ...

    def round_seconds(self, ruleset: Ruleset) -> int | None:
        """The game time a round lasts, in seconds, or None when the ruleset does not say."""
        ...

    # --- what-if ------------------------------------------------------------------------

    def tactics(self) -> tuple[str, ...] | None:
        """The tactics ``--tactic`` may name, or None when the sheets have none."""
        ...

    def ruleset_entries(self, ruleset: Ruleset, table: str) -> RulesetEntries:
        """What ``--set TABLE.ENTRY.FIELD=VALUE`` may change in the ruleset (``table``: one of
        :data:`sevendag_cli.rules.whatif.RULESET_TABLES`); empty when the ruleset has no such
        entries (d20 has no techniques)."""
        ...

    def inert_notes(self, ruleset: Ruleset, fighters: Sequence[Fighter],
                    changes: Sequence[SheetChange], policies: Sequence[str] = ("sheet", "sheet"),
                    state: Any = None) -> list[Msg]:
        """Changes that change nothing here, and why (``policies``: each fighter's play,
        ``sheet`` or ``optimal``; ``state``: where the fight stands, None at its start)."""
        ...

    def saved_state_notes(self, ruleset: Ruleset, changes: Sequence[SheetChange]) -> list[Msg]: ...

    # --- display ------------------------------------------------------------------------

    def display(self) -> RulesetDisplay:
        """The Rich display (imports Rich: only when asked)."""
        ...


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


__all__ = ["BACKENDS", "DEFAULT_RULESET", "FALLBACK_ENGINE", "Aggregator", "Backend", "BatchFn",
           "Cell", "MomentOdds", "PairSetup", "RulesetEntries", "SheetChange",
           "backend_for", "backend_named", "by_engine", "engines", "with_extras"]
