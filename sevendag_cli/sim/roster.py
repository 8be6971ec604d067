"""A roster's round-robin (``matrix``): every ordered pair's fight, spread over processes.

Each cell ``[i][j]`` is P(fighter i beats fighter j) in the fight ``fight i j``
plays (``i`` named first; sheet tactics, no yield, no technique, a draw at the
round cap), as a :class:`RosterCell`; each fighter plays its policy (``sheet``, or
``optimal`` with ``--tactic NAME=optimal``), the cell solved as
``fight --exact`` solves that pair under those policies:

* **exact** (the default), a certified interval within the tolerance, as
  ``fight --exact``: Sevendag by the same round-by-round push over the pair's chain
  (:func:`sevendag_cli.sevendag.push.chain_push`, the same numbers as ``fight --exact``); d20 by the
  hit-point DAG of :class:`sevendag_cli.d20.chain.D20Chain` (with no round cap the fight
  played to the end, as ``fight --exact``; with the ruleset's cap or ``--cap``, the cap's
  share bounded, and computed only when it matters — the method of the odds from any
  moment), which agrees with ``fight --exact`` within their intervals and is about ten
  times faster;
* **runs**, simulated (:func:`.runner.simulate`): every cell with ``--runs N``,
  or, in an exact table, a pair too large for the exact solvers (their limits:
  hit points, fight states, dice), with :data:`FALLBACK_RUNS` fights.  A cell's
  seed is derived from the table's seed and the two names
  (:func:`matchup_seed`), so a matchup gives the same numbers whatever else is in
  the roster.

**Not computed** (:class:`RosterHole`): a pair beyond a solver's bounds even to simulate (optimal
play simulated needs the very game the exact solve was refused: its size, ``game.size`` or
``game.grown``).  Both orders of the pair are left out, with the refusal as their ``why``, the
rest of the table kept (the table's method :data:`PARTIAL`); a fighter's mean is over its
computed cells.  Any other error still fails the table.  A table with no cell computed at all
is refused with the first pair's refusal.

**Exploitability** (``--exploit``): per cell, what the row fighter's sheet gives away
against the column fighter's optimal answer (:class:`GivesAway`), from the pair's game
solved once per unordered pair in the task (``Backend.exploitability``: both fighters'
figures), whatever the cells' method (with ``--runs`` too: the figures are the exact
game's, never sampled); per fighter, the mean over its opponents.

**What is shared.**  The work is one task per *unordered* pair, which plays both
orders: d20's round tables are built once per pair and mirrored for
the other order (the same integers ``d20_tables`` gives for it); a Sevendag
fighter's model (units, allocations) is built once per process.  The roster is
handed to each worker process once (its initializer), never per task; a task is
a few pairs of indices, its answer a few floats.

**Processes.**  With ``jobs > 1`` the pairs go to a
:class:`~concurrent.futures.ProcessPoolExecutor` in chunks (the costliest pairs
first).  On Linux the workers are forked, after the parent has imported what
they need (numpy, icepool: once, not once per worker) and before any other
thread exists; elsewhere they are spawned.  Workers ignore SIGINT: Ctrl-C
reaches the parent, which stops them and raises ``KeyboardInterrupt``.  A
worker's error comes back as data (its message), never as a traceback.  Every
cell depends only on the roster and the options, so the result is the same for
any number of jobs and any scheduling.
"""

from __future__ import annotations

import hashlib
import math
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import msgspec

from sevendag_cli.errors import Msg, SevendagError, UsageError
from sevendag_cli.limits import MAX_ROSTER
from sevendag_cli.sim.odds import check_tolerance

if TYPE_CHECKING:
    from sevendag_cli.rules import Fighter, Ruleset

EXACT = "exact"
RUNS = "runs"
MIXED = "mixed"
NOT_COMPUTED = "not_computed"
"""A cell's method: neither solved exactly nor simulated, the pair beyond a solver's bounds
(:class:`RosterHole`)."""
PARTIAL = "partial"
"""A table's method: some of its cells not computed (:class:`RosterHole`), the others exact or
simulated."""

FALLBACK_RUNS = 100_000
"""Fights simulated for a pair too large for exact odds, in an exact table."""

MATRIX_TOLERANCE = 1e-9
"""Most mass a cell leaves unresolved, by default (``matrix --tolerance``).  Looser than
``fight --exact``'s 1e-12: the d20 DAG's rounding bound alone passes 1e-12 for fighters of
some 60 hit points and more, and the round-by-round push it then needs is 10 to 30 times
slower; a table shows tenths of a percent."""

MAX_JOBS = 256
"""Most worker processes ``--jobs`` may ask for."""

_FALLBACK_KEYS = frozenset({"formula.exact_too_big", "formula.exact_values", "formula.exact_digits",
                            "formula.exact_pairs", "exact.unresolved"})
"""The size limits every exact solver shares (a formula's dice; a push that stops at its work
limit with more than the tolerance unresolved); each backend adds its own
solvers' (:meth:`~sevendag_cli.backend.Backend.solver_limits`).  A pair beyond them is
simulated instead."""


def _beyond_limits(setup: Setup, exc: UsageError) -> bool:
    from sevendag_cli.backend import backend_for

    key = exc.msg.key
    return key in _FALLBACK_KEYS or key in backend_for(setup.ruleset).roster.solver_limits()

TableProgress = Callable[[int, int], None]
"""``progress(matchups done, matchups in all)``."""


# --- records ---------------------------------------------------------------------------------


class GivesAway(msgspec.Struct, frozen=True):
    """What a sheet gives away against optimal play (``matrix --exploit``): the opponent's
    best-response value (P(win) + ½ P(draw)) minus its value when both play their sheets;
    ``bounds`` certified, within ``tolerance``.  A standing's: the mean over its row."""

    value: float
    bounds: tuple[float, float]
    tolerance: float


class RosterCell(msgspec.Struct, frozen=True):
    """One ordered fight: the row's fighter (named first) against the column's.

    ``win`` is P(row wins): exact, the mass resolved to it (the low end of
    ``bounds``, certified); simulated, the share of fights won, with ``bounds``
    its 95% (Wilson) interval.  ``loss`` is P(column wins) in the same fight and
    ``draw`` P(a draw at the round cap), likewise; ``unresolved`` (exact) is
    the mass neither, so ``win + loss + draw + unresolved = 1``.
    """

    method: str  # EXACT or RUNS
    win: float
    bounds: tuple[float, float]
    loss: float
    draw: float
    unresolved: float
    stop: str | None = None  # exact: why the solver stopped (sim.odds)
    runs: int | None = None  # simulated: fights played, and their seed
    seed: int | None = None
    why: Msg | None = None  # simulated in an exact table: the exact solver's refusal
    gives_away: GivesAway | None = None  # --exploit: what the row's sheet gives away
    exploit_why: Msg | None = None  # --exploit, gives_away None: the game's refusal (its bounds)


class RosterHole(msgspec.Struct, frozen=True):
    """An ordered fight not computed: the pair beyond a solver's bounds, both to solve exactly
    and to simulate (optimal play simulated needs the game the exact solve was refused).
    ``why`` is the refusal; no probability (every one None), no ``gives_away``."""

    why: Msg
    method: str = NOT_COMPUTED
    win: None = None
    bounds: None = None
    loss: None = None
    draw: None = None
    unresolved: None = None
    gives_away: None = None


Cell = RosterCell | RosterHole
"""A table's cell off the diagonal: computed (exact or simulated), or not."""


class Standing(msgspec.Struct, frozen=True):
    """A fighter's place in the ranking: the mean of its row over its opponents (those whose
    cell was computed: None when none was)."""

    name: str
    source: str  # its sheet
    mean: float | None
    mean_bounds: tuple[float, float] | None  # certified when its whole row is exact, else None
    gives_away: GivesAway | None = None  # --exploit: the mean over its row


class Roster(msgspec.Struct, frozen=True):
    """The round-robin of a roster, in ranking order (rows and columns alike).

    ``cells[i][j]`` is ``standings[i]`` against ``standings[j]`` (None on the
    diagonal; a :class:`RosterHole` where it was not computed); ``order[i]`` is the position
    ``standings[i]`` had in the roster as given.  The rows are sorted by their mean, highest
    first, a fighter with no cell computed last (ties: as given).
    """

    ruleset: str
    engine: str
    method: str  # EXACT, RUNS, MIXED (some pairs simulated) or PARTIAL (some not computed)
    cap: int | None  # None: no round cap (the fights played to the end)
    tolerance: float | None  # exact cells
    runs: int | None  # fights per simulated cell (None when no cell was simulated)
    seed: int | None  # the seed of the simulated cells (None when none was)
    standings: tuple[Standing, ...]
    cells: tuple[tuple[Cell | None, ...], ...]
    order: tuple[int, ...]
    policies: tuple[str, ...] = ()  # each fighter's, in ranking order (empty: all sheet)
    exploit: bool = False  # --exploit: the cells and standings carry gives_away
    to_end: bool = False  # no round cap: the fights played to the end (simulated: to the safety limit)

    @property
    def optimal(self) -> bool:
        """Whether some fighter plays optimally."""
        from sevendag_cli.policies import OPTIMAL

        return OPTIMAL in self.policies

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.standings)

    @property
    def simulated(self) -> int:
        """How many cells were simulated."""
        return sum(1 for row in self.cells for c in row if c is not None and c.method == RUNS)

    @property
    def all_runs(self) -> bool:
        """Whether every cell was to be simulated (``--runs``), whether or not some are missing."""
        return self.method == RUNS or (self.method == PARTIAL and self.tolerance is None)

    @property
    def some_simulated(self) -> bool:
        """Whether some cells of an exact table were simulated (a pair too large for exact odds)."""
        return not self.all_runs and self.simulated > 0

    @property
    def holes(self) -> tuple[tuple[str, str, Msg], ...]:
        """The pairs not computed, once each: the two names (in the roster's order as given,
        as the refusal names them) and the refusal, in ranking order."""
        return self._pairs(lambda c: c.why if isinstance(c, RosterHole) else None)

    @property
    def exploit_holes(self) -> tuple[tuple[str, str, Msg], ...]:
        """``--exploit``: the pairs computed whose figures were not (the game beyond its
        bounds), once each, as :attr:`holes`."""
        return self._pairs(lambda c: c.exploit_why if isinstance(c, RosterCell) else None)

    def _pairs(self, why: Callable[[Cell], Msg | None]) -> tuple[tuple[str, str, Msg], ...]:
        names, out = self.names, []
        for i, row in enumerate(self.cells):
            for j in range(i + 1, len(row)):
                c = row[j]
                said = None if c is None else why(c)
                if said is not None:
                    first, second = (i, j) if self.order[i] < self.order[j] else (j, i)
                    out.append((names[first], names[second], said))
        return tuple(out)


# --- one pair, both orders (what a task does) ----------------------------------------------


class Setup(msgspec.Struct, frozen=True):
    """What every task needs: handed to each worker once."""

    ruleset: Any  # Ruleset (a msgspec Struct; Any here so that this module loads no rules)
    fighters: tuple[Any, ...]
    cap: int | None  # the round cap; None: none, the fights played to the end
    tolerance: float
    runs: int | None  # simulate every pair with this many fights
    seed: int
    played_to_end: bool = False  # no round cap (``cap`` None)
    policies: tuple[str, ...] = ()  # each fighter's policy, as given (empty: all sheet)
    exploit: bool = False  # compute what each sheet gives away (GivesAway)

    def pair_policies(self, i: int, j: int) -> tuple[str, str]:
        """The policies of the fight ``i`` against ``j``, in its order."""
        from sevendag_cli.policies import PLAIN

        return (self.policies[i], self.policies[j]) if self.policies else PLAIN


class Failure(msgspec.Struct, frozen=True):
    """A task's error, as data: its message and exit code (exceptions are not sent back)."""

    msg: Msg
    exit_code: int


_SETUP: Setup | None = None
_MODELS: dict[int, Any] = {}  # what the backend keeps of each fighter in this process (Sevendag: its model)


def matchup_seed(seed: int, a: str, b: str) -> int:
    """The seed of the simulated fight ``a`` against ``b``: from the table's seed and the names."""
    digest = hashlib.sha256(f"{seed}\x1f{a}\x1f{b}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1  # 63 bits: within the seeds' range


def _simulated(setup: Setup, i: int, j: int, runs: int, why: Msg | None) -> RosterCell:
    from sevendag_cli.sim.runner import simulate

    a, b = setup.fighters[i], setup.fighters[j]
    seed = matchup_seed(setup.seed, a.name, b.name)
    r = simulate(setup.ruleset, a, b, runs, seed, cap=setup.cap,
                 policies=setup.pair_policies(i, j))
    fa, fb = r.fighters
    return RosterCell(RUNS, fa.win_probability, fa.ci95, fb.win_probability, r.draw_probability,
                   0.0, runs=r.runs, seed=seed, why=why)


def matchup_from_odds(odds: Any) -> RosterCell:
    """An exact cell from the solver's :class:`~.odds.Odds`."""
    return RosterCell(EXACT, odds.win[0], odds.win_bounds[0], odds.win[1], odds.draw,
                   odds.unresolved, stop=odds.stop)


class _Pair:
    """The two orders of one pair, as they are computed: once an order is not computed (a
    :class:`RosterHole`), the other is the same hole, never tried again — the pair's size,
    which the solvers' bounds refuse, does not depend on who is named first (a refusal that
    came after work would come again after as much)."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.hole: RosterHole | None = None

    def cell(self, compute: Callable[[], RosterCell]) -> Cell:
        """``compute()``'s cell, or the pair's hole: refused by a solver's bounds."""
        if self.hole is not None:
            return self.hole
        try:
            return compute()
        except UsageError as exc:
            if not _beyond_limits(self.setup, exc):
                raise
            self.hole = RosterHole(exc.msg)
            return self.hole

    def fallback(self, i: int, j: int, exc: UsageError) -> Cell:
        """An exact solver's refusal: simulated if its bounds are why, else raised again; a
        simulation refused by the bounds too: not computed (the pair's hole, if it has one)."""
        from sevendag_cli.backend import backend_for

        if self.hole is not None:
            return self.hole
        if not _beyond_limits(self.setup, exc):
            raise exc
        roster = backend_for(self.setup.ruleset).roster
        if exc.msg.key in roster.refused_alike(self.setup.pair_policies(i, j)):
            self.hole = RosterHole(exc.msg)  # its simulation would meet the same refusal
            return self.hole
        return self.cell(lambda: _simulated(self.setup, i, j, FALLBACK_RUNS, exc.msg))

    def exact_or_simulated(self, i: int, j: int, solve: Callable[[], RosterCell]) -> Cell:
        if self.hole is not None:
            return self.hole
        try:
            return solve()
        except UsageError as exc:
            return self.fallback(i, j, exc)


def play_pair(setup: Setup, i: int, j: int) -> tuple[Cell, Cell]:
    """Fighters ``i`` against ``j`` and ``j`` against ``i`` (the two cells of the pair), with
    what each sheet gives away when ``setup.exploit``; exact cells kept in the user's cache
    (:func:`_kept_pair`), so a later table with this pair solves nothing again.  A pair
    beyond the solvers' bounds both to solve and to simulate: two :class:`RosterHole`."""
    pair = _Pair(setup)
    if setup.runs is not None:
        runs = setup.runs
        simulated = (pair.cell(lambda: _simulated(setup, i, j, runs, None)),
                     pair.cell(lambda: _simulated(setup, j, i, runs, None)))
        return _with_exploit(setup, i, j, *simulated) if setup.exploit else simulated
    from sevendag_cli.backend import backend_for

    key = _pair_key(setup, i, j)
    kept = _kept_pair(key)
    if kept is not None:
        return kept
    cells: tuple[Cell, Cell] = backend_for(setup.ruleset).roster.matrix_pair(
        setup, i, j, _MODELS,
        lambda x, y, solve: pair.exact_or_simulated(x, y, lambda: matchup_from_odds(solve())),
        pair.fallback)
    cells = _with_exploit(setup, i, j, *cells) if setup.exploit else cells
    if key is not None and all(isinstance(c, RosterCell) and c.method == EXACT
                               and c.exploit_why is None for c in cells):  # a hole is never kept
        from sevendag_cli import solver_cache

        solver_cache.store(key, msgspec.msgpack.encode(cells), folder=CELLS_FOLDER,
                           magic=CELLS_MAGIC)
    return cells


CELLS_FOLDER = "cells"
"""Where a table's exact cells are kept, per pair (``<cache>/cells``)."""
CELLS_FORMAT = 1
CELLS_MAGIC = b"sevendag-cells\x00"


def _pair_key(setup: Setup, i: int, j: int) -> str | None:
    """What a pair's exact cells depend on (both sheets in their order, the ruleset, the
    policies, the cap, the tolerance, whether what the sheets give away is asked), or None
    without a cache folder."""
    from sevendag_cli import solver_cache
    from sevendag_cli.folders import cache_dir

    if cache_dir() is None:
        return None
    return solver_cache.work_key(CELLS_FOLDER, CELLS_FORMAT, setup.ruleset, setup.fighters[i],
                                 setup.fighters[j], list(setup.pair_policies(i, j)), setup.cap,
                                 setup.tolerance, setup.exploit)


def _kept_pair(key: str | None) -> tuple[RosterCell, RosterCell] | None:
    """The pair's kept exact cells, or None (none, damaged, or not exact probabilities)."""
    if key is None:
        return None
    from sevendag_cli import solver_cache

    raw = solver_cache.load(key, folder=CELLS_FOLDER, magic=CELLS_MAGIC, max_size=1 << 16)
    if raw is None:
        return None
    try:
        cells = msgspec.msgpack.decode(raw, type=tuple[RosterCell, RosterCell])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    for c in cells:
        values = (c.win, c.loss, c.draw, c.unresolved, *c.bounds)
        if c.method != EXACT or c.exploit_why is not None \
                or not all(0.0 <= x <= 1.0 for x in values) \
                or abs(c.win + c.loss + c.draw + c.unresolved - 1.0) > 1e-9:
            return None
    return cells


def _with_exploit(setup: Setup, i: int, j: int, ij: Cell, ji: Cell) -> tuple[Cell, Cell]:
    """Both cells with what their row's sheet gives away: the pair's game solved once (``i``
    named first, as ``fight i j --exact``); a ruleset with no choices gives nothing away.  A
    game beyond the solver's bounds: no figure, the refusal in ``exploit_why`` (a pair not
    computed has none: its game is not tried again)."""
    if not (isinstance(ij, RosterCell) and isinstance(ji, RosterCell)):
        return ij, ji
    from sevendag_cli.backend import backend_for
    from sevendag_cli.sim.odds import Odds

    backend = backend_for(setup.ruleset)
    a, b = setup.fighters[i], setup.fighters[j]
    sheet = None if backend.has_choices() else Odds(
        (a.name, b.name), (ij.win, ij.loss), ij.draw, ij.unresolved, 0, ij.stop or "")
    try:
        e = backend.exact.exploitability(setup.ruleset, a, b, cap=setup.cap,
                                         tolerance=setup.tolerance, sheet=sheet)
        if isinstance(e, Msg):  # never when asked: the solver's bounds refuse instead
            raise UsageError(e)
    except UsageError as exc:
        if not _beyond_limits(setup, exc):
            raise
        return (msgspec.structs.replace(ij, exploit_why=exc.msg),
                msgspec.structs.replace(ji, exploit_why=exc.msg))
    return (msgspec.structs.replace(ij, gives_away=GivesAway(e.gives_away[0], e.bounds[0],
                                                             e.tolerance)),
            msgspec.structs.replace(ji, gives_away=GivesAway(e.gives_away[1], e.bounds[1],
                                                             e.tolerance)))


ChunkResult = list[tuple[int, int, Cell, Cell]] | Failure


def play_chunk(pairs: Sequence[tuple[int, int]]) -> ChunkResult:
    """A task: some pairs of the roster set up in this process (:func:`_init_worker`)."""
    setup = _SETUP
    assert setup is not None, "the worker was not set up"
    out: list[tuple[int, int, Cell, Cell]] = []
    for i, j in pairs:
        try:
            ij, ji = play_pair(setup, i, j)
        except SevendagError as exc:
            return Failure(exc.msg, exc.exit_code)
        except MemoryError as exc:  # what ran out and what to try (sevendag_cli.memory)
            from sevendag_cli.memory import out_of_memory

            return Failure(out_of_memory(exc), 1)
        except Exception as exc:  # a bug or a system failure: one line, not a worker's traceback
            a, b = setup.fighters[i].name, setup.fighters[j].name
            return Failure(Msg("roster.failed", a=a, b=b, error=f"{type(exc).__name__}: {exc}"), 1)
        out.append((i, j, ij, ji))
    return out


def _init_worker(setup: Setup, parent: int) -> None:
    """A worker process: Ctrl-C is the parent's to handle; the roster is set once; the worker
    ends if the parent does."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _end_with_parent(parent)
    _set_up(setup)


ORPHAN_CHECK = 0.5  # seconds between a worker's two looks at its parent


def _end_with_parent(parent: int) -> None:
    """End this worker once ``parent`` is gone (POSIX), however it went: a parent killed by
    SIGKILL stops no worker, and an orphan would finish its solve, then wait for work for ever."""
    if os.name != "posix":
        return
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_CHECK)
        os._exit(1)

    threading.Thread(target=watch, name="sevendag-parent-watch", daemon=True).start()


def _set_up(setup: Setup | None) -> None:
    global _SETUP
    _SETUP = setup
    _MODELS.clear()


# --- the table ---------------------------------------------------------------------------------


class RosterError(SevendagError):
    """A task's error, raised again in the parent with its own exit code."""

    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.msg)
        self.exit_code = failure.exit_code


def default_jobs() -> int:
    """The CPUs this process may use (its affinity where the system tells it)."""
    counter = getattr(os, "process_cpu_count", None)  # Python 3.13
    if counter is not None:
        return int(counter() or 1)
    try:
        return len(os.sched_getaffinity(0)) or 1  # type: ignore[attr-defined,unused-ignore]  # (Linux)
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def check_jobs(jobs: int) -> int:
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise UsageError(Msg("roster.jobs", jobs=jobs, max=MAX_JOBS))
    return jobs


def _cost(setup: Setup, i: int, j: int) -> int:
    """A rough cost of a pair, to hand out the costliest first (results do not depend on it)."""
    from sevendag_cli.backend import backend_for

    return backend_for(setup.ruleset).roster.pair_cost(setup.fighters[i], setup.fighters[j])


def _chunks(setup: Setup, jobs: int) -> list[list[tuple[int, int]]]:
    n = len(setup.fighters)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    pairs.sort(key=lambda p: -_cost(setup, *p))  # stable: ties as given
    size = max(1, min(8, len(pairs) // (4 * jobs))) if jobs > 1 else 1
    return [pairs[k:k + size] for k in range(0, len(pairs), size)]


def _warm(setup: Setup) -> None:
    """Import, in the parent, what the workers need: forked, they inherit it (once, not per worker)."""
    import importlib

    from sevendag_cli.backend import backend_for

    names = (("sevendag_cli.sim.runner",) if setup.runs is not None else
             backend_for(setup.ruleset).roster.warm_modules())
    for name in names:
        importlib.import_module(name)


def _context() -> Any:
    import multiprocessing

    if sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


Cells = dict[tuple[int, int], Cell]


def _take(result: ChunkResult, cells: Cells) -> int:
    if isinstance(result, Failure):
        raise RosterError(result)
    for i, j, ij, ji in result:
        cells[(i, j)] = ij
        cells[(j, i)] = ji
    return 2 * len(result)


def _in_process(setup: Setup, chunks: list[list[tuple[int, int]]], total: int,
                progress: TableProgress | None) -> Cells:
    cells: Cells = {}
    saved = _SETUP
    _set_up(setup)
    try:
        done = 0
        if progress is not None:
            progress(0, total)
        for chunk in chunks:
            done += _take(play_chunk(chunk), cells)
            if progress is not None:
                progress(done, total)
    finally:
        _set_up(saved)
    return cells


def _in_pool(setup: Setup, chunks: list[list[tuple[int, int]]], jobs: int, total: int,
             progress: TableProgress | None) -> Cells:
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    context = _context()
    if context.get_start_method() == "fork":
        _warm(setup)
    cells: Cells = {}
    executor = ProcessPoolExecutor(max_workers=jobs, mp_context=context,
                                   initializer=_init_worker, initargs=(setup, os.getpid()))
    try:
        # The workers start here (forked at the first submit, before the progress display
        # starts its thread), with SIGINT blocked: a Ctrl-C before their initializer ignores
        # it cannot interrupt them; the parent gets it once unblocked.
        with _sigint_blocked():
            pending = {executor.submit(play_chunk, chunk) for chunk in chunks}
        done = 0
        if progress is not None:
            progress(0, total)
        with _sigint_as_flag() as interrupted:
            while pending:
                finished, pending = wait(pending, timeout=_POLL, return_when=FIRST_COMPLETED)
                if interrupted():
                    raise KeyboardInterrupt
                for future in finished:
                    done += _take(future.result(), cells)
                if finished and progress is not None:
                    progress(done, total)
    except BrokenProcessPool:
        _stop(executor)
        raise SevendagError(Msg("roster.worker_died")) from None
    except BaseException:  # Ctrl-C, a task's error: stop the workers at once
        _stop(executor)
        raise
    executor.shutdown(wait=True)
    return cells


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:  # no signal masks here (Windows): the initializer is the only guard
        yield
        return
    block, restore = getattr(signal, "SIG_BLOCK"), getattr(signal, "SIG_SETMASK")  # noqa: B009 (Unix only)
    old = mask(block, {signal.SIGINT})
    try:
        yield
    finally:
        mask(restore, old)


_POLL = 0.1  # seconds between two looks at the Ctrl-C flag while the workers run


@contextmanager
def _sigint_as_flag() -> Iterator[Callable[[], bool]]:
    """Ctrl-C sets a flag instead of raising, while the pool is waited on.

    A ``KeyboardInterrupt`` raised at an arbitrary point of ``concurrent.futures.wait``
    can leave a future's lock held (a signal between acquiring a lock and entering the
    ``with`` block that releases it); the executor's shutdown then waits on that lock
    for ever.  The caller looks at the flag between two waits and raises itself.
    """
    import threading

    hit: list[bool] = []
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False  # signal handlers belong to the main thread: nothing to catch
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: hit.append(True))
    try:
        yield lambda: bool(hit)
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler if previous is None else previous)


def _stop(executor: Any) -> None:
    """Cancel what is queued and end the workers now (they may be in a long solve); a second
    Ctrl-C meanwhile must not break into the shutdown either."""
    with _sigint_as_flag():
        for process in list((getattr(executor, "_processes", None) or {}).values()):
            if process.is_alive():
                process.terminate()
        executor.shutdown(wait=True, cancel_futures=True)


def _mean_given(row: Sequence[Cell]) -> GivesAway | None:
    """A fighter's mean of what its sheet gives away over its opponents (None: not asked, or
    some of its row's figures not computed)."""
    given = [c.gives_away for c in row]
    if not given or any(g is None for g in given):
        return None
    got = [g for g in given if g is not None]
    k = len(got)
    return GivesAway(math.fsum(g.value for g in got) / k,
                     (math.fsum(g.bounds[0] for g in got) / k,
                      math.fsum(g.bounds[1] for g in got) / k),
                     max(g.tolerance for g in got))


def _standings(setup: Setup, cells: Cells) -> tuple[list[int], list[float | None],
                                                    list[tuple[float, float] | None]]:
    """Each fighter's mean over its computed cells (None: none was), its certified bounds when
    its whole row is exact; the ranking, highest mean first, no mean last, ties as given."""
    n = len(setup.fighters)
    means: list[float | None] = []
    bounds: list[tuple[float, float] | None] = []
    for i in range(n):
        row = [c for j in range(n) if j != i and isinstance(c := cells[(i, j)], RosterCell)]
        means.append(math.fsum(c.win for c in row) / len(row) if row else None)
        if len(row) == n - 1 and all(c.method == EXACT for c in row):
            bounds.append((math.fsum(c.bounds[0] for c in row) / len(row),
                           min(1.0, math.fsum(c.bounds[1] for c in row) / len(row))))
        else:
            bounds.append(None)

    def rank(i: int) -> tuple[bool, float, int]:
        mean = means[i]
        return (mean is None, 0.0 if mean is None else -mean, i)

    order = sorted(range(n), key=rank)
    return order, means, bounds


def play_roster(ruleset: Ruleset, fighters: Sequence[Fighter], *, cap: int | None = None,
                tolerance: float = MATRIX_TOLERANCE, runs: int | None = None, seed: int = 0,
                jobs: int = 1, progress: TableProgress | None = None,
                sources: Sequence[str] | None = None, policies: Sequence[str] | None = None,
                exploit: bool = False) -> Roster:
    """Every ordered pair of ``fighters`` (at least 2, at most ``MAX_ROSTER``), ranked.

    ``runs``: simulate every pair with this many fights (else exact, falling back to
    :data:`FALLBACK_RUNS` simulated fights for a pair too large; a pair too large to simulate
    too is not computed, :class:`RosterHole`, and the table :data:`PARTIAL`; a table with no
    cell computed is refused with the first pair's refusal); ``seed``: the
    simulated fights' seed (:func:`matchup_seed`); ``jobs``: processes;
    ``progress(done, total)`` after each task; ``policies``: each fighter's (``sheet`` or
    ``optimal``, in the order of ``fighters``; None: every sheet); ``exploit``: what each
    sheet gives away against optimal play, per cell and per fighter.  Ctrl-C raises
    ``KeyboardInterrupt`` once the workers are stopped.
    """
    n = len(fighters)
    if not 2 <= n <= MAX_ROSTER:
        raise UsageError(Msg("roster.size", n=n, max=MAX_ROSTER))
    names = [f.name for f in fighters]
    if len(set(names)) != n:
        twice = next(x for x in names if names.count(x) > 1)
        raise UsageError(Msg("roster.same_name", name=twice))
    cap = ruleset.round_cap if cap is None else cap
    played_to_end = cap is None  # no round cap (d20's house default): the fights played to the end
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
        raise UsageError(Msg("cli.cap", cap=cap))
    jobs = check_jobs(jobs)
    from sevendag_cli.rules.bounds import check_can_end

    for i in range(n):  # before any work, as fight: a matchup that can never end
        for j in range(i + 1, n):
            check_can_end(ruleset, fighters[i], fighters[j])
    from sevendag_cli.policies import POLICIES, SHEET

    pols = tuple(policies) if policies is not None else (SHEET,) * n
    if len(pols) != n or any(p not in POLICIES for p in pols):
        raise UsageError(Msg("roster.policies", n=n, known=", ".join(POLICIES)))
    setup = Setup(ruleset, tuple(fighters), cap, check_tolerance(tolerance), runs, seed,
                  played_to_end, pols, exploit)
    chunks = _chunks(setup, jobs)
    total = n * (n - 1)
    jobs = min(jobs, len(chunks))
    cells = (_in_pool(setup, chunks, jobs, total, progress) if jobs > 1
             else _in_process(setup, chunks, total, progress))
    if all(isinstance(c, RosterHole) for c in cells.values()):  # nothing to show: refused
        raise UsageError(next(c.why for _, c in sorted(cells.items())
                              if isinstance(c, RosterHole)))
    order, means, bounds = _standings(setup, cells)
    table = tuple(tuple(None if i == j else cells[(i, j)] for j in order) for i in order)
    simulated = [c for row in table for c in row if c is not None and c.method == RUNS]
    holes = any(isinstance(c, RosterHole) for c in cells.values())
    method = (PARTIAL if holes else RUNS if runs is not None else MIXED if simulated
              else EXACT)
    src = list(sources) if sources is not None else [getattr(f, "path", "") for f in fighters]
    return Roster(
        ruleset=ruleset.name, engine=ruleset.engine, method=method, cap=cap,
        tolerance=None if runs is not None else setup.tolerance,
        runs=(runs if runs is not None else FALLBACK_RUNS) if simulated else None,
        seed=seed if simulated else None,
        standings=tuple(Standing(names[i], src[i], means[i], bounds[i],
                                 _mean_given([cells[(i, j)] for j in range(n) if j != i]))
                        for i in order),
        cells=table, order=tuple(order), policies=tuple(pols[i] for i in order), exploit=exploit,
        to_end=played_to_end)
