"""``matrix``: a roster's round-robin, every ordered pair, exact where possible, ranked.

The sheets are gathered by :mod:`sevendag_cli.rules.roster` (names, paths,
folders), the table computed by :mod:`sevendag_cli.sim.roster` (worker
processes, ``--jobs``), shown by :mod:`sevendag_cli.render.rich_matrix` or
written by :mod:`sevendag_cli.render.matrix_data`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Annotated

import typer

from sevendag_cli.commandline import SevendagCommand
from sevendag_cli.errors import Msg
from sevendag_cli.failure import fail, handled
from sevendag_cli.library import Lineup, check_matrix
from sevendag_cli.options import (
    CapOpt,
    CsvOpt,
    JsonOpt,
    LangOpt,
    PlotOpt,
    RulesetOpt,
    SeedOpt,
    SetOpt,
    TacticOpt,
    complete_fighters,
)
from sevendag_cli.output import (
    Output,
    check_table_options,
    make_output,
    note,
    note_seed,
    what_if_notes,
)
from sevendag_cli.render.whatif import print_changes
from sevendag_cli.text import visible

if TYPE_CHECKING:
    from sevendag_cli.library import Matrix
    from sevendag_cli.rules.roster import Skipped
    from sevendag_cli.rules.whatif import Change

app = typer.Typer()


@app.command("matrix", cls=SevendagCommand)
def matrix_cmd(
    sheets: Annotated[
        list[str],
        typer.Argument(help="Fighter sheets: names as listed by 'rulesets', .toml paths, or folders "
                            "of sheets (2 to 40 fighters in all).",
                       autocompletion=complete_fighters),
    ],
    ruleset: RulesetOpt = None,
    runs: Annotated[
        int | None,
        typer.Option("--runs", "-n", help="Simulate every matchup with this many fights instead of "
                                          "exact odds."),
    ] = None,
    tolerance: Annotated[
        float | None,
        typer.Option("--tolerance", help="Exact odds: most probability left unresolved in a "
                                         "matchup (default 1e-9)."),
    ] = None,
    cap: CapOpt = None,
    jobs: Annotated[
        int | None,
        typer.Option("--jobs", "-j", help="Worker processes (default: one per CPU)."),
    ] = None,
    seed: SeedOpt = None,
    set_: SetOpt = None,
    tactic: TacticOpt = None,
    exploit: Annotated[
        bool,
        typer.Option("--exploit", help="Also what each sheet gives away against optimal play "
                                       "(the opponent's best answer), per matchup and per "
                                       "fighter; from the exact game, also with --runs."),
    ] = False,
    json_: JsonOpt = False,
    csv_: CsvOpt = False,
    plot: PlotOpt = None,
    lang: LangOpt = None,
) -> None:
    """Play every ordered pair of a roster and rank it: P(row beats column), exact where possible.

    Each cell is the fight that fight plays with the row's fighter named first,
    exact (certified within --tolerance) unless --runs N simulates; a pair too
    large for exact odds is simulated (100,000 fights), one too large even for
    that (optimal play's game) is shown n/a, said on stderr. The last column is
    each fighter's mean over its opponents; the rows are sorted by it. --tactic
    optimal (or NAME=optimal) ranks the roster under optimal play.

    Examples: sevendag matrix fighters/  ·  sevendag matrix a b ogre.toml -r d20
    ·  sevendag matrix roster/ --json  ·  sevendag matrix roster/ --runs 20000
    ·  sevendag matrix a b ogre.toml -r d20 --set Ogre.ac=12 --csv --plot heat.png
    ·  sevendag matrix roster/ --tactic optimal  ·  sevendag matrix roster/ --exploit
    """
    with handled(lang):
        out = make_output(json_, False, lang, jsonl_allowed=False)
        check_table_options(out, csv_, plot)  # before any work: the file's kind, and matplotlib

        asked = check_matrix(runs=runs, tolerance=tolerance, cap=cap, jobs=jobs, seed=seed)  # before any work
        lineup = Lineup.load(sheets, ruleset, set=set_, tactic=tactic)
        _notes(lineup, out, exploit, asked.jobs if jobs is not None else None)
        table = _play(lineup, out, runs=runs, tolerance=tolerance, cap=cap, jobs=jobs, seed=seed,
                      exploit=exploit)
        _show(table, lineup.changes, out, csv_=csv_, plot=plot)


def _notes(lineup: Lineup, out: Output, exploit: bool, jobs: int | None) -> None:
    """What is said on stderr before the table is played: the sheets skipped, the what-ifs
    that change nothing, optimal play asked where there is no choice, ``--exploit`` where
    nothing can be given away, ``--jobs`` beyond what the table uses."""
    from sevendag_cli.backend import backend_for

    if lineup.skipped:
        _note_skipped(list(lineup.skipped), lineup.ruleset.name, out.lang)
    what_if_notes(lineup.ruleset, lineup.fighters, lineup.changes, out, lineup.policies)
    for message in lineup.policy_notes:  # optimal asked where there is no choice: once
        note(f"sevendag: {message.render(out.lang)}")
    if exploit and not backend_for(lineup.ruleset).has_choices():
        note("sevendag: " + Msg("roster.exploit_no_choices",
                                ruleset=lineup.ruleset.name).render(out.lang))
    if jobs is not None and jobs > lineup.most_jobs:  # --jobs 256: said, then capped
        from sevendag_cli.sim.roster import default_jobs

        note("sevendag: " + Msg("roster.jobs_capped", jobs=jobs, used=lineup.most_jobs,
                                cpus=default_jobs(),
                                pairs=len(lineup.fighters) * (len(lineup.fighters) - 1) // 2
                                ).render(out.lang))


def _play(lineup: Lineup, out: Output, *, runs: int | None, tolerance: float | None,
          cap: int | None, jobs: int | None, seed: int | None, exploit: bool) -> Matrix:
    """The table played, a progress bar at a terminal from its first report; Ctrl-C: one line
    saying how far it got."""
    done = [0, len(lineup.fighters) * (len(lineup.fighters) - 1)]
    try:
        shown: AbstractContextManager[Callable[[int, int], None] | None] = nullcontext()
        if _animated():
            from sevendag_cli.render.progress import bar_at_first_report

            shown = bar_at_first_report(Msg("roster.progress").render(out.lang))
        with shown as bar:
            def report(k: int, total: int) -> None:
                done[0] = k
                if bar is not None:
                    bar(k, total)

            return lineup.play(runs=runs, tolerance=tolerance, cap=cap, jobs=jobs, seed=seed,
                               progress=report, exploit=exploit)
    except KeyboardInterrupt:
        fail(Msg("roster.interrupted", done=done[0], total=done[1]), 130, out.lang)


def _show(table: Matrix, changes: Sequence[Change], out: Output, *, csv_: bool,
          plot: str | None) -> None:
    """The table as JSON, CSV or the display; and its picture."""
    roster = table.roster
    if out.json:
        out.data(table.to_dict(out.lang))
    elif csv_:
        from sevendag_cli.render.csv_out import write_csv
        from sevendag_cli.render.matrix_out import matrix_columns, matrix_rows

        write_csv(matrix_columns(roster), matrix_rows(roster, out.lang))
        if roster.seed is not None:  # some cells simulated: the seed that replays them
            note_seed(roster.seed, out.lang)
    else:
        from sevendag_cli.render.rich_matrix import render_matrix

        console = out.console()
        print_changes(console, changes, out.lang)
        render_matrix(console, roster, out.lang)
    if plot is not None:
        from sevendag_cli.render.matrix_out import plot_matrix

        plot_matrix(plot, roster, out.lang)
    from sevendag_cli.render.matrix_data import hole_notes

    for message in hole_notes(roster):  # the pairs not computed, and why: once each
        note("sevendag: " + message.render(out.lang))


def _animated() -> bool:
    """A progress bar only for a person watching: both streams at a terminal, no NO_COLOR."""
    return sys.stderr.isatty() and sys.stdout.isatty() and "NO_COLOR" not in os.environ


def _note_skipped(skipped: list[Skipped], ruleset: str, lang: str) -> None:
    from sevendag_cli.data import listed

    files = [visible(Msg("roster.skipped_other", path=s.path, ruleset=s.ruleset).render(lang)
                   if s.ruleset is not None else
                   Msg("roster.skipped_not_sheet", path=s.path).render(lang))
             for s in skipped]
    listing = listed(files)
    text = listing.render(lang) if isinstance(listing, Msg) else str(listing)
    note("sevendag: " + Msg("roster.skipped", ruleset=ruleset, files=text).render(lang))
