"""``fight``: a whole fight step by step, many simulated (``--runs N``), or exact odds (``--exact``).

The step-by-step fight is the engine's ``fight`` with the table's display; the
simulation (numpy) and the exact solvers (icepool) are imported only by
``--runs`` and ``--exact``, so a plain fight starts fast.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.failure import handled
from sevendag_cli.options import (
    DiceOpt,
    FightersArg,
    JsonlOpt,
    JsonOpt,
    LangOpt,
    RulesetOpt,
    SeedOpt,
    check_fighter_count,
    pick_ruleset,
)
from sevendag_cli.output import Output, make_dice, make_output, renderer, report_seed

if TYPE_CHECKING:
    from sevendag_cli.rules import Fighter, Ruleset

app = typer.Typer()


@app.command("fight")
def fight_cmd(
    fighters: FightersArg = None,
    ruleset: RulesetOpt = None,
    seed: SeedOpt = None,
    dice: DiceOpt = None,
    runs: Annotated[
        int | None, typer.Option("--runs", "-n", help="Simulate this many fights and report the odds.")
    ] = None,
    exact: Annotated[bool, typer.Option("--exact", help="Exact odds, within --tolerance.")] = False,
    cap: Annotated[
        int | None,
        typer.Option("--cap", help="Round cap: a fight still going is a draw (default: the ruleset's)."),
    ] = None,
    tolerance: Annotated[
        float | None,
        typer.Option("--tolerance",
                     help="With --exact or --odds: most probability left unresolved (default 1e-12)."),
    ] = None,
    odds: Annotated[
        bool, typer.Option("--odds", help="Show how each fighter's chance to win swung, round by "
                           "round (a chart; a list in the JSON).")
    ] = False,
    json_: JsonOpt = False,
    jsonl: JsonlOpt = False,
    lang: LangOpt = None,
) -> None:
    """Play a whole fight step by step, simulate many (--runs), or compute exact odds (--exact).

    Examples: sevendag fight  ·  sevendag fight A B --ruleset d20 --seed 7 --json
    ·  sevendag fight --runs 100000  ·  sevendag fight --exact --tolerance 1e-9
    ·  sevendag fight --seed 7 --odds
    """
    with handled(lang):
        out = make_output(json_, jsonl, lang, jsonl_allowed=runs is None and not exact)
        if runs is not None and exact:
            raise UsageError(Msg("cli.runs_and_exact"))
        if odds and (runs is not None or exact):
            raise UsageError(Msg("cli.odds_one_fight"))
        if (runs is not None or exact) and dice is not None:
            raise UsageError(Msg("cli.dice_one_fight"))
        if cap is not None and cap < 1:
            raise UsageError(Msg("cli.cap", cap=cap))
        if tolerance is not None and not (exact or odds):
            raise UsageError(Msg("cli.tolerance_exact"))
        refs = check_fighter_count(fighters)
        rs = pick_ruleset(ruleset, refs)
        from sevendag_cli.rules import load_pair

        a, b = load_pair(rs, refs)
        if runs is not None:
            run_simulation(rs, a, b, runs, seed, cap, out)
            return
        if exact:
            run_exact(rs, a, b, out, cap, tolerance)
            return
        if odds:
            play_fight_with_odds(rs, a, b, seed, dice, cap, tolerance, out)
            return
        play_fight(rs, a, b, seed, dice, cap, out)


def play_fight(
    rs: Ruleset, a: Fighter, b: Fighter, seed: int | None, dice: str | None, cap: int | None,
    out: Output,
) -> None:
    """One fight step by step: entered faces first, then the seeded generator."""
    from sevendag_cli.engine import engine_for

    choice = make_dice(seed, dice, False, out, continue_after=True)
    result = engine_for(rs).fight(rs, a, b, choice.source, cap)
    if out.json:
        from sevendag_cli.render.data import fight_document

        out.data(fight_document(result, choice.seed))
    elif out.jsonl:
        from sevendag_cli.render.data import fight_events

        out.lines(fight_events(result, choice.seed))
    else:
        renderer(out, rs).fight(result)
        report_seed(out, choice)


def play_fight_with_odds(
    rs: Ruleset, a: Fighter, b: Fighter, seed: int | None, dice: str | None, cap: int | None,
    tolerance: float | None, out: Output,
) -> None:
    """``--odds``: the fight ``play_fight`` plays (same seed, same fight), then how the odds swung:
    before the initiative, after it and after each round (one solver for the whole fight)."""
    from sevendag_cli.engine import engine_for
    from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, check_tolerance
    from sevendag_cli.sim.swing import fight_swing

    tol = check_tolerance(DEFAULT_TOLERANCE if tolerance is None else tolerance)
    choice = make_dice(seed, dice, False, out, continue_after=True)
    result = engine_for(rs).fight(rs, a, b, choice.source, cap)
    swing = fight_swing(rs, a, b, result, cap=cap, tolerance=tol)
    if out.json:
        from sevendag_cli.render.data import fight_document
        from sevendag_cli.render.odds_data import swing_data

        out.data({**fight_document(result, choice.seed), **swing_data(swing)})
    elif out.jsonl:
        from sevendag_cli.render.data import fight_events
        from sevendag_cli.render.odds_data import with_swing_lines

        out.lines(with_swing_lines(fight_events(result, choice.seed), swing))
    else:
        from sevendag_cli.render.rich_odds import swing_chart

        r = renderer(out, rs)
        r.fight(result)
        r.c.print()
        swing_chart(r.c, swing, out.lang, rs.engine)
        report_seed(out, choice)


# --- --runs and --exact -------------------------------------------------------------------


def run_simulation(
    rs: Ruleset, a: Fighter, b: Fighter, runs: int, seed: int | None, cap: int | None,
    out: Output,
) -> None:
    """``--runs N``: the vectorised simulation, with a progress bar at a terminal."""
    from sevendag_cli.dice import check_seed, fresh_seed
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
        from sevendag_cli.render.data import header, to_data

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
    """The simulation with a Rich progress bar on stderr (only at a terminal)."""
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
    """``--exact``: the fight's chain pushed round by round to the cap, within ``tolerance``."""
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
