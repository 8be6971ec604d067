"""``fight --runs N`` and ``fight --exact``: odds for the designer.

numpy and the solvers are imported here only, so the other commands start fast.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import typer

from sevendag_cli.dice import check_seed, fresh_seed
from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.render.data import header, to_data

if TYPE_CHECKING:
    from sevendag_cli.cli import Output
    from sevendag_cli.rules import Fighter, Ruleset


def run_simulation(
    rs: Ruleset, a: Fighter, b: Fighter, runs: int, seed: int | None, cap: int | None,
    out: Output,
) -> None:
    from sevendag_cli.sim.runner import MAX_RUNS, check_runs, simulate

    if not 1 <= runs <= MAX_RUNS:  # checked here too, for a message in the user's language
        raise UsageError(Msg("cli.runs", runs=runs, max=MAX_RUNS))
    check_runs(runs)
    seed = check_seed(seed) if seed is not None else fresh_seed()
    if sys.stderr.isatty() and out.rich:
        result = _with_progress(rs, a, b, runs, seed, cap, simulate, out.lang)
    else:
        result = simulate(rs, a, b, runs, seed, cap=cap)
    if out.json:
        doc = {**header("fight", rs.name, seed), "mode": "runs", **to_data(result)}
        out.data(doc)
    else:
        from sevendag_cli.render.rich_sim import render_simulation

        render_simulation(out.console(), result, out.lang, rs)
    if result.interrupted:
        message = Msg("cli.interrupted_runs", done=result.runs, requested=result.requested_runs)
        sys.stderr.write(f"sevendag: {message.render(out.lang)}\n")
        raise typer.Exit(130)


def _with_progress(
    rs: Ruleset, a: Fighter, b: Fighter, runs: int, seed: int, cap: int | None, simulate: Any,
    lang: str,
) -> Any:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    console = Console(stderr=True)
    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console, transient=True) as progress:
        task = progress.add_task(Msg("cli.progress").render(lang), total=runs)

        def advance(done: int) -> None:
            progress.update(task, completed=done)

        return simulate(rs, a, b, runs, seed, cap=cap, progress=advance)


def run_exact(rs: Ruleset, a: Fighter, b: Fighter, out: Output, cap: int | None = None,
              tolerance: float | None = None) -> None:
    from sevendag_cli.render.sim_data import exact_document
    from sevendag_cli.sim.exact_fight import exact_fight
    from sevendag_cli.sim.odds import DEFAULT_TOLERANCE

    result = exact_fight(rs, a, b, cap=cap,
                         tolerance=DEFAULT_TOLERANCE if tolerance is None else tolerance)
    if out.json:
        out.data(exact_document(rs.name, result, out.lang))
        return
    from sevendag_cli.render.rich_sim import render_exact

    render_exact(out.console(), result, out.lang, rs)
