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


def run_exact(rs: Ruleset, a: Fighter, b: Fighter, out: Output) -> None:
    from sevendag_cli.rules import D20Fighter, D20Ruleset, SevendagFighter, SevendagRuleset

    if isinstance(rs, D20Ruleset) and isinstance(a, D20Fighter) and isinstance(b, D20Fighter):
        from sevendag_cli.sim.exact_d20 import exact_d20

        result = exact_d20(rs, a, b)
    elif (isinstance(rs, SevendagRuleset) and isinstance(a, SevendagFighter)
          and isinstance(b, SevendagFighter)):
        try:
            from sevendag_cli.sim.exact_sevendag import exact_sevendag
        except ImportError:
            raise UsageError(Msg("cli.no_exact_sevendag")) from None
        result = exact_sevendag(rs, a, b)
    else:  # pragma: no cover - load_pair guarantees matching sheets
        raise UsageError(Msg("cli.mismatch"))
    doc = exact_document(rs.name, result)
    if out.json:
        out.data(doc)
        return
    from sevendag_cli.render.rich_sim import render_exact

    render_exact(out.console(), doc, out.lang)


def exact_document(ruleset: str, result: Any) -> dict[str, Any]:
    return {
        **header("fight", ruleset, None),
        "mode": "exact",
        "fighters": [
            {"name": name, "win_probability": float(p), "win_probability_exact": str(p)}
            for name, p in zip(result.fighters, result.win_probability, strict=True)
        ],
        "draw_probability": float(result.draw_probability),
        "draw_probability_exact": str(result.draw_probability),
        "rounds_mean": float(result.rounds_mean),
        "rounds_mean_exact": str(result.rounds_mean),
        "note": result.note,
    }
