"""``sweep``: the odds of one fight for each value of one sheet field, and the fairest value.

Thin: the options are read here; the values come from :func:`.rules.whatif.vary_values`,
each point is a what-if (:class:`.rules.whatif.WhatIf`), the solving is
:func:`.sim.sweep.sweep` and the outputs are :mod:`.render.rich_sweep`,
:mod:`.render.sweep_data`, :mod:`.render.csv_out` and :mod:`.render.plot`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sevendag_cli.commandline import SevendagCommand
from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.failure import handled
from sevendag_cli.options import (
    CapOpt,
    CsvOpt,
    FightersArg,
    JsonOpt,
    LangOpt,
    PlotOpt,
    RulesetOpt,
    SeedOpt,
    SetOpt,
    TacticOpt,
    check_fighter_count,
    check_numbers,
)
from sevendag_cli.output import Output, check_table_options, make_output, note_seed, what_if_notes

if TYPE_CHECKING:
    from sevendag_cli.library import Matchup, SweepResult

app = typer.Typer()

@app.command("sweep", cls=SevendagCommand)
def sweep_cmd(
    vary: Annotated[
        str,
        typer.Option("--vary", help="FIGHTER.FIELD=RANGE: LO..HI, LO..HI/STEP or a list like 1d6,1d8,2d4 "
                                    "(at most 200 values).", show_default=False),
    ],
    fighters: FightersArg = None,
    fair: Annotated[bool, typer.Option("--fair", help="Report the value closest to 50/50.")] = False,
    ruleset: RulesetOpt = None,
    runs: Annotated[
        int | None,
        typer.Option("--runs", "-n", help="Simulate this many fights per value instead of exact odds."),
    ] = None,
    seed: SeedOpt = None,
    cap: CapOpt = None,
    tolerance: Annotated[
        float | None,
        typer.Option("--tolerance", help="Exact odds: most probability left unresolved per value "
                                         "(default 1e-12)."),
    ] = None,
    set_: SetOpt = None,
    tactic: TacticOpt = None,
    json_: JsonOpt = False,
    csv_: CsvOpt = False,
    plot: PlotOpt = None,
    lang: LangOpt = None,
) -> None:
    """Odds of a fight for each value of one sheet field, exact where possible: find the fair value.

    Examples: sevendag sweep A B --ruleset d20 --vary A.ac=5..12 --fair
    ·  sevendag sweep --vary Ysolde.attack=6..12 --tactic Brannoc=all-out
    ·  sevendag sweep A B -r d20 --vary A.weapon.damage=1d6,1d8,2d4 --csv
    """
    with handled(lang):
        out = make_output(json_, False, lang)
        check_table_options(out, csv_, plot)
        check_numbers(cap, None, seed)
        from sevendag_cli.library import MAX_RUNS_PER_VALUE, Matchup

        if runs is not None:
            if tolerance is not None:
                raise UsageError(Msg("sweep.tolerance_runs"))
            if not 1 <= runs <= MAX_RUNS_PER_VALUE:
                raise UsageError(Msg("sweep.runs", runs=runs, max=MAX_RUNS_PER_VALUE))
        from sevendag_cli.limits import MAX_SWEEP_POINTS
        from sevendag_cli.rules.whatif import WhatIf, vary_values

        target, values = vary_values(vary, MAX_SWEEP_POINTS)  # before any sheet is read
        WhatIf.parse(set_, tactic)  # the what-ifs' syntax too
        m = Matchup.load(check_fighter_count(fighters), ruleset, set=set_, tactic=tactic)
        what_if_notes(m.ruleset, (m.a, m.b), m.vary(target, values[0]).changes, out)
        run_sweep(m, vary, out, runs=runs, seed=seed, fair=fair, cap=cap, tolerance=tolerance,
                  csv_=csv_, plot=plot, points=len(values))


def run_sweep(m: Matchup, vary: str, out: Output, *, fair: bool, runs: int | None,
              seed: int | None, cap: int | None, tolerance: float | None, csv_: bool,
              plot: str | None, points: int) -> None:
    if runs is not None:
        from sevendag_cli.dice import check_seed, fresh_seed

        seed = check_seed(seed) if seed is not None else fresh_seed()
    field, _, values = vary.partition("=")

    def work(progress: Callable[[int], None] | None = None) -> SweepResult:
        return m.sweep(field, values, fair=fair, runs=runs, seed=seed, cap=cap,
                       tolerance=tolerance, progress=progress)

    if sys.stderr.isatty():
        from sevendag_cli.render.progress import with_progress

        done = with_progress(work, points, Msg("sweep.progress").render(out.lang))
    else:
        done = work()
    result = done.result
    if out.json:
        out.data(done.to_dict())
    elif csv_:
        from sevendag_cli.render.csv_out import write_csv
        from sevendag_cli.render.sweep_data import CSV_COLUMNS, csv_rows

        write_csv(CSV_COLUMNS, csv_rows(result))
    else:
        from sevendag_cli.render.rich_sweep import render_sweep

        render_sweep(out.console(), result, m.changes, out.lang)
    if plot is not None:
        draw(plot, result, out.lang)
    if runs is not None and not out.json:
        assert seed is not None
        note_seed(seed, out.lang)


def draw(path: str, result: Any, lang: str) -> None:
    """The P(win) curve of each fighter over the values, with its interval band."""
    from sevendag_cli.i18n import t
    from sevendag_cli.render import plot as plotting
    from sevendag_cli.render.sweep_data import interval
    from sevendag_cli.text import visible

    points = result.points
    curves = []
    for i in (0, 1):
        name = visible(points[0].fighters[i].name)
        lows, highs = zip(*(interval(p.fighters[i]) for p in points), strict=True)
        curves.append(plotting.Curve(name, [p.fighters[i].win_probability for p in points],
                                     list(lows), list(highs)))
    title = t("sweep.title_exact" if result.method == "exact" else "sweep.title_runs", lang,
              field=visible(result.field), cap=result.cap, tol=result.tolerance or 0.0,
              runs=result.runs, seed=result.seed)
    plotting.curves(path, [p.value for p in points], curves, title=title,
                    x_label=visible(result.field), y_label=t("plot.p_win", lang))
    plotting.report(path, lang)
