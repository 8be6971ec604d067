"""Many fights, summarised: the ``simulate`` command's engine (no CLI code here).

Fights are simulated in batches by the ruleset's vectorised engine, all batches
drawing from one ``numpy.random.Generator(PCG64(seed))`` in a fixed order, so a
seed, a number of runs and a batch size always give the same statistics.  Only
histograms and running sums are kept between batches: memory stays flat however
many runs are asked for.

The ruleset's backend (:func:`sevendag_cli.backend.backend_for`) gives its batch
function and an aggregator (each package's ``sim_extra``) that turns a batch into
the ruleset's extras, its own record (:class:`~sevendag_cli.sim.exact_records.Extras`):
every batch exposes ``winner`` (0 = a, 1 = b, -1 = draw), ``rounds`` and ``first_striker``
(0/1) arrays (:class:`~sevendag_cli.backend.Batch`), and what the ruleset's aggregator reads
besides (d20: hit points left and damage dealt; Sevendag: the wounds of each band).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from sevendag_cli.dice import check_seed
from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.limits import INT_LIMIT, MAX_PLAYED_ROUNDS, MAX_ROUND_CAP, MAX_RUNS
from sevendag_cli.policies import PLAIN, Policies
from sevendag_cli.rules import Fighter, Ruleset
from sevendag_cli.sim.exact_records import Extras
from sevendag_cli.sim.stats import MeanSd, Summary, summarize, wilson

DEFAULT_BATCH = 100_000
MAX_BATCH = 1_000_000
MAX_CELLS = 4_000_000
"""Most dice one batch rolls at once for one group (fights × dice of the widest group):
32 MB of int64.  A formula rolling many dice (``1000d1000``) gets smaller batches, so
memory stays flat whatever the ruleset (under 300 MB for any ruleset the
validator accepts); the usual rulesets (groups of up to 40 dice) keep the asked size."""

RunsProgress = Callable[[int], None]


# --- results -------------------------------------------------------------------


@dataclass(frozen=True)
class FighterStats:
    name: str
    wins: int
    win_probability: float
    ci95: tuple[float, float]  # Wilson 95% interval
    first_strikes: int  # fights in which this fighter attacked first
    first_strike_wins: int  # ... and won


@dataclass(frozen=True)
class RoundStats:
    mean: float
    sd: float
    p50: int
    p90: int
    max: int
    histogram: tuple[tuple[int, int], ...]  # (rounds, fights)


@dataclass(frozen=True)
class SimulationResult:
    ruleset: str
    engine: str
    seed: int
    runs: int  # fights completed (fewer than asked when interrupted)
    requested_runs: int
    batch_size: int
    cap: int | None  # round cap: a fight still going after it is a draw; None: no cap
    interrupted: bool
    fighters: tuple[FighterStats, FighterStats]
    draws: int
    draw_probability: float
    rounds: RoundStats
    first_striker_won: float | None  # among decided fights; None if none was decided
    extras: Extras | None = None  # the ruleset's own figures (JSON: under the engine's name)
    unfinished: int = 0  # no round cap: fights stopped at the safety limit, neither won nor drawn
    safety_limit: int | None = None  # no round cap: the rounds a fight is played to at most

    def to_data(self) -> dict[str, Any]:
        """Plain data (dicts, lists, numbers, texts) for a JSON renderer: the JSON document's
        fields, the extras under the engine's name (:func:`~sevendag_cli.backend.by_engine`)."""
        from sevendag_cli.backend import with_extras

        data: dict[str, Any] = with_extras(_plain(asdict(self)), self.engine)
        return data


def _plain(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x


# --- aggregation ---------------------------------------------------------------
#
# A batch is first reduced to a *tally* (a flat dict of Python ints and numpy
# count arrays, computed without touching the running totals); tallies are then
# merged into a new totals dict that replaces the old one in a single
# assignment.  A Ctrl-C can therefore never leave the totals half-updated.

Tally = dict[str, Any]


def merge(x: Tally, y: Tally) -> Tally:
    """Sum two tallies key by key (count arrays padded to the longer)."""
    out: Tally = dict(x)
    for key, value in y.items():
        if key not in out:
            out[key] = value
        elif isinstance(value, np.ndarray):
            old = out[key]
            size = max(old.size, value.size)
            grown = np.zeros(size, dtype=np.int64)
            grown[: old.size] += old
            grown[: value.size] += value
            out[key] = grown
        else:
            out[key] = out[key] + value
    return out


def moments(prefix: str, values: npt.ArrayLike) -> Tally:
    v = np.asarray(values, dtype=np.int64).ravel()
    # Square and sum in float-free chunks as Python ints (no int64 overflow).
    s2 = sum(int(c) for c in np.add.reduceat(v * v, np.arange(0, v.size, 4096))) if v.size else 0
    return {f"{prefix}.n": int(v.size), f"{prefix}.s1": int(v.sum()), f"{prefix}.s2": s2}


def mean_sd(t: Tally, prefix: str) -> MeanSd:
    n, s1, s2 = t.get(f"{prefix}.n", 0), t.get(f"{prefix}.s1", 0), t.get(f"{prefix}.s2", 0)
    if n == 0:
        return MeanSd(0.0, 0.0)
    var = max(0.0, (s2 * n - s1 * s1) / (n * n))
    return MeanSd(s1 / n, math.sqrt(var))


class _Batch(Protocol):
    @property
    def winner(self) -> npt.NDArray[np.int8]: ...
    @property
    def rounds(self) -> npt.NDArray[np.int64]: ...
    @property
    def first_striker(self) -> npt.NDArray[np.int8]: ...


def batch_for(ruleset: Ruleset, a: Fighter, b: Fighter, asked: int) -> int:
    """The batch size: the one asked, or fewer fights when a dice group is wide (:data:`MAX_CELLS`)."""
    from sevendag_cli.rules.bounds import widest_dice

    return max(1, min(asked, MAX_CELLS // widest_dice(ruleset, a, b)))


def exact_sum(values: npt.ArrayLike) -> int:
    """The sum of an integer array as a Python int: exact even where int64 would wrap."""
    v = np.asarray(values, dtype=np.int64).ravel()
    if v.size == 0:
        return 0
    top = int(max(abs(int(v.max())), abs(int(v.min()))))
    if top <= INT_LIMIT // v.size:
        return int(v.sum())
    return sum(int(x) for x in v.tolist())


def _common_tally(batch: _Batch) -> Tally:
    """What every engine reports: winners, rounds, who struck first."""
    w = np.asarray(batch.winner)
    f = np.asarray(batch.first_striker)
    t: Tally = {"runs": int(w.size), "draws": int(np.count_nonzero(w == -1)),
                "rounds": np.bincount(np.asarray(batch.rounds, dtype=np.int64))}
    for i in (0, 1):
        t[f"wins{i}"] = int(np.count_nonzero(w == i))
        t[f"first{i}"] = int(np.count_nonzero(f == i))
        t[f"first_wins{i}"] = int(np.count_nonzero((f == i) & (w == i)))
    return t


def _fighter_stats(t: Tally, names: tuple[str, str]) -> tuple[FighterStats, FighterStats]:
    runs = t.get("runs", 0)

    def one(i: int) -> FighterStats:
        wins = t.get(f"wins{i}", 0)
        return FighterStats(names[i], wins, wins / runs if runs else 0.0, wilson(wins, runs),
                            t.get(f"first{i}", 0), t.get(f"first_wins{i}", 0))

    return one(0), one(1)


def _round_stats(t: Tally) -> RoundStats:
    counts = t.get("rounds", np.zeros(0, dtype=np.int64))
    s: Summary = summarize(counts)
    pairs = tuple((int(v), int(counts[v])) for v in np.flatnonzero(counts))
    return RoundStats(s.mean, s.sd, s.p50, s.p90, s.max, pairs)


def _first_striker_won(t: Tally) -> float | None:
    decided: int = t.get("wins0", 0) + t.get("wins1", 0)
    if decided == 0:
        return None
    first_wins: int = t.get("first_wins0", 0) + t.get("first_wins1", 0)
    return first_wins / decided


# --- the runner ----------------------------------------------------------------


def check_runs(runs: int) -> int:
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= MAX_RUNS:
        raise UsageError(Msg("cli.runs", runs=runs, max=MAX_RUNS))
    return runs


def simulate(
    ruleset: Ruleset,
    a: Fighter,
    b: Fighter,
    runs: int,
    seed: int,
    *,
    batch_size: int = DEFAULT_BATCH,
    progress: RunsProgress | None = None,
    cap: int | None = None,
    policies: Policies = PLAIN,
) -> SimulationResult:
    """``runs`` fights of a against b, in batches; Ctrl-C returns what is done so far.

    ``policies``: how each fighter plays (:mod:`sevendag_cli.policies`).

    The batch size is ``batch_size``, or fewer fights when a formula rolls a wide
    dice group (:func:`batch_for`); the result reports the size used.  A pair whose
    numbers could pass the value bound is refused first, as by the other engines.
    ``progress(done)`` is called after each batch.  A KeyboardInterrupt (during a
    batch or from ``progress``) stops the loop: the result covers the completed
    batches and has ``interrupted=True``.
    """
    check_runs(runs)
    check_seed(seed)
    if not 1 <= batch_size <= MAX_BATCH:
        raise UsageError(Msg("sim.batch", size=batch_size, max=MAX_BATCH))
    from sevendag_cli.backend import backend_for

    backend = backend_for(ruleset)
    backend.sim.check_batch(ruleset, a, b)
    cap = ruleset.round_cap if cap is None else cap  # None: no round cap (d20's house default)
    limit = MAX_PLAYED_ROUNDS if cap is None else cap  # then the safety limit stops a fight
    if limit < 1:
        raise UsageError(Msg("cli.cap", cap=cap, max=MAX_ROUND_CAP))
    from sevendag_cli.rules.bounds import check_can_end, check_values

    check_values(ruleset, a, b)
    check_can_end(ruleset, a, b)  # every fight would run to the cap: refused, as by fight
    batch_size = batch_for(ruleset, a, b, batch_size)
    batch_fn, extra = backend.sim.batch(ruleset, a, b, policies)
    rng = np.random.Generator(np.random.PCG64(seed))
    totals: Tally = {"runs": 0}
    interrupted = False
    try:
        while totals["runs"] < runs:
            n = min(batch_size, runs - totals["runs"])
            batch = batch_fn(n, rng, limit)
            part = merge(_common_tally(batch), extra.tally(batch))
            totals = merge(totals, part)  # one assignment: all of the batch or none of it
            del batch, part
            if progress is not None:
                progress(totals["runs"])
    except KeyboardInterrupt:
        interrupted = totals["runs"] < runs  # a Ctrl-C after the last batch loses nothing
    done: int = totals["runs"]
    stopped: int = totals.get("draws", 0)  # not over at the limit: draws at a cap, else unfinished
    draws = stopped if cap is not None else 0
    return SimulationResult(
        ruleset=ruleset.name,
        engine=ruleset.engine,
        seed=seed,
        runs=done,
        requested_runs=runs,
        batch_size=batch_size,
        cap=cap,
        interrupted=interrupted,
        fighters=_fighter_stats(totals, (a.name, b.name)),
        draws=draws,
        draw_probability=draws / done if done else 0.0,
        rounds=_round_stats(totals),
        first_striker_won=_first_striker_won(totals),
        extras=extra.result(totals, done),
        unfinished=stopped - draws,
        safety_limit=None if cap is not None else limit,
    )
