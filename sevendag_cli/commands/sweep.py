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
from sevendag_cli.errors import Msg
from sevendag_cli.failure import handled
from sevendag_cli.i18n import t
from sevendag_cli.library import Matchup, check_sweep, played_policies
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
from sevendag_cli.output import Output, check_table_options, make_output, note, note_seed, what_if_notes
from sevendag_cli.text import visible

if TYPE_CHECKING:
    from sevendag_cli.library import Matchup, SweepResult
    from sevendag_cli.sim.sweep import SweepGrid

app = typer.Typer()

@app.command("sweep", cls=SevendagCommand)
def sweep_cmd(
    vary: Annotated[
        list[str],
        typer.Option("--vary", help="FIGHTER.FIELD=RANGE (or techniques.NAME.FIELD=RANGE): LO..HI, "
                                    "LO..HI/STEP or a list like 1d6,1d8,2d4 (at most 200 values); "
                                    "twice: a grid of both fields.",
                     show_default=False),
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
    ·  sevendag sweep --vary Ysolde.attack=6..12 --tactic Brannoc=full-defence
    ·  sevendag sweep A B -r d20 --vary A.weapon.damage=1d6,1d8,2d4 --csv
    ·  sevendag sweep A B -r d20 --vary A.ac=8..14 --vary B.ac=8..14 --fair --plot grid.png
    """
    with handled(lang):
        out = make_output(json_, False, lang)
        check_table_options(out, csv_, plot)
        check_numbers(cap, None, seed)
        from sevendag_cli.rules.whatif import WhatIf, range_note

        asked = check_sweep(vary, runs=runs, tolerance=tolerance)  # before any sheet is read
        WhatIf.parse(set_, tactic)  # the what-ifs' syntax too
        m = Matchup.load(check_fighter_count(fighters), ruleset, set=set_, tactic=tactic)
        first = m.vary(asked.target, asked.texts[0], f"--vary {vary[0]}")
        targets = [asked.target]
        if asked.by is not None:
            first = first.vary(asked.by[0], asked.by[1][0], f"--vary {vary[1]}")
            targets.append(asked.by[0])
        what_if_notes(m.ruleset, (m.a, m.b), first.changes, out, m.policies, targets)
        for said in played_policies(m.ruleset, m.asked)[1]:  # no choices: optimal is the sheet
            note(f"sevendag: {said.render(out.lang)}")
        for v in vary:
            stops = range_note(v)
            if stops is not None:
                note(f"sevendag: {stops.render(out.lang)}")
        points = len(asked.texts) * (1 if asked.by is None else len(asked.by[1]))
        run_sweep(m, vary, out, runs=runs, seed=seed, fair=fair, cap=cap, tolerance=tolerance,
                  csv_=csv_, plot=plot, points=points)


def run_sweep(m: Matchup, vary: list[str], out: Output, *, fair: bool, runs: int | None,
              seed: int | None, cap: int | None, tolerance: float | None, csv_: bool,
              plot: str | None, points: int) -> None:
    field, _, values = vary[0].partition("=")
    by = None
    if len(vary) == 2:
        field2, _, values2 = vary[1].partition("=")
        by = (field2, values2)

    def work(progress: Callable[[int], None] | None = None) -> SweepResult:
        return m.sweep(field, values, fair=fair, runs=runs, seed=seed, cap=cap,
                       tolerance=tolerance, progress=progress, by=by)

    if sys.stderr.isatty():
        from sevendag_cli.render.progress import with_progress

        done = with_progress(work, points, Msg("sweep.progress").render(out.lang))
    else:
        done = work()
    result = done.result
    from sevendag_cli.render.whatif import play_words
    from sevendag_cli.sim.sweep import SweepGrid

    play = play_words(m.ruleset.engine, m.names, m.policies, out.lang)
    if isinstance(result, SweepGrid):
        _grid_outputs(out, done, result, csv_=csv_, plot=plot, play=play)
    elif out.json:
        out.data(done.to_dict())
    elif csv_:
        from sevendag_cli.render.csv_out import write_csv
        from sevendag_cli.render.sweep_data import CSV_COLUMNS, csv_rows

        write_csv(CSV_COLUMNS, csv_rows(result))
    else:
        from sevendag_cli.render.rich_sweep import render_sweep

        render_sweep(out.console(), result, m.changes, out.lang, play)
    if plot is not None and not isinstance(result, SweepGrid):
        draw(plot, result, out.lang, play)
    if runs is not None and result.seed is not None and not out.json:  # the seed the library drew
        note_seed(result.seed, out.lang)


def draw(path: str, result: Any, lang: str, play: str | None = None) -> None:
    """The P(win) curve of each fighter over the values, with its interval band; ``play``: who
    plays how, the title's second line."""
    from sevendag_cli.render import plot as plotting
    from sevendag_cli.render.sweep_data import interval, sweep_title
    from sevendag_cli.render.whatif import titled

    points = result.points
    curves = []
    for i in (0, 1):
        name = visible(points[0].fighters[i].name)
        lows, highs = zip(*(interval(p.fighters[i]) for p in points), strict=True)
        curves.append(plotting.Curve(name, [p.fighters[i].win_probability for p in points],
                                     list(lows), list(highs)))
    title = titled(sweep_title(result, lang), play)
    fair = result.fair if not result.unchanged else None
    mark, mark_label = None, ""
    if fair is not None and fair.beyond is None:
        mark, mark_label = fair.value, t("sweep.fair_plot", lang, value=visible(str(fair.value)))
    x = [p.value for p in points]
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in x)
    plotting.curves(path, x, curves, title=title, x_label=visible(result.field),
                    y_label=t("plot.p_win", lang), x_mark=mark, x_mark_label=mark_label,
                    joined=numbers)  # values that are not a scale (1d6, 2d4): points
    plotting.report(path, lang)


def _grid_outputs(out: Output, done: SweepResult, result: SweepGrid, *, csv_: bool, plot: str | None,
                  play: str | None = None) -> None:
    """Two ``--vary``: the grid as JSON, CSV or a table, and as a heat map (``--plot``)."""
    if out.json:
        out.data(done.to_dict())
    elif csv_:
        from sevendag_cli.render.csv_out import write_csv
        from sevendag_cli.render.sweep_data import GRID_CSV_COLUMNS, grid_csv_rows

        write_csv(GRID_CSV_COLUMNS, grid_csv_rows(result))
    else:
        from sevendag_cli.render.rich_sweep import render_grid

        render_grid(out.console(), result, done.changes, out.lang, play)
    if plot is not None:
        draw_grid(plot, result, out.lang, play)


def draw_grid(path: str, result: SweepGrid, lang: str, play: str | None = None) -> None:
    """The grid as a heat map of P(first fighter wins), with the fair curve where 50/50 is crossed."""
    from sevendag_cli.render import plot as plotting
    from sevendag_cli.render.sweep_data import fair_curve, sweep_title
    from sevendag_cli.render.whatif import titled

    name = visible(result.points[0].fighters[0].name)
    values = [[p.fighters[0].win_probability for p in result.row(i)] for i in range(len(result.rows))]
    title = titled(sweep_title(result, lang), play)
    plotting.heat_map(path, [visible(str(v)) for v in result.rows], [visible(str(v)) for v in result.columns],
                      values, title=title, value_label=t("sweep.grid_value", lang, name=name),
                      x_label=visible(result.fields[1]), y_label=visible(result.fields[0]),
                      curve=fair_curve(result))
    plotting.report(path, lang)
