"""``fight``: a whole fight step by step, many simulated (``--runs N``), or exact odds (``--exact``).

The step-by-step fight is the engine's ``fight_play`` with the table's display,
each round shown (or written as JSON) as soon as it is played; the simulation
(numpy) and the exact solvers (icepool) are imported only by ``--runs`` and
``--exact``, so a plain fight starts fast.  Every mode refuses, with one line, a
fight that could never end (:func:`sevendag_cli.rules.bounds.endless`) and
numbers beyond the value bound; ``--cap``, ``--runs`` and ``--seed`` are bounded
(a usage mistake, exit 2).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from sevendag_cli.commandline import SevendagCommand
from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.failure import handled
from sevendag_cli.i18n import count, t
from sevendag_cli.library import Matchup
from sevendag_cli.options import (
    CapOpt,
    CsvOpt,
    DiceOpt,
    FightersArg,
    JsonlOpt,
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
from sevendag_cli.output import (
    Output,
    check_table_options,
    make_output,
    note,
    note_seed,
    renderer,
    report_seed,
)
from sevendag_cli.render.whatif import print_changes

if TYPE_CHECKING:
    from sevendag_cli.library import Matchup

app = typer.Typer()


@app.command("fight", cls=SevendagCommand)
def fight_cmd(
    fighters: FightersArg = None,
    ruleset: RulesetOpt = None,
    seed: SeedOpt = None,
    dice: DiceOpt = None,
    runs: Annotated[
        int | None, typer.Option("--runs", "-n", help="Simulate this many fights and report the odds.")
    ] = None,
    exact: Annotated[bool, typer.Option("--exact", help="Exact odds, within --tolerance.")] = False,
    cap: CapOpt = None,
    tolerance: Annotated[
        float | None,
        typer.Option("--tolerance",
                     help="With --exact or --odds: most probability left unresolved (default 1e-12)."),
    ] = None,
    odds: Annotated[
        bool, typer.Option("--odds", help="Show how each fighter's chance to win swung, round by "
                           "round (a chart; a list in the JSON).")
    ] = False,
    exploit: Annotated[
        bool | None, typer.Option("--exploit/--no-exploit",
                                  help="With --exact: what each sheet gives away against optimal "
                                  "play, however long it takes (default: only when quick).",
                                  show_default=False)
    ] = None,
    fractions: Annotated[
        bool | None, typer.Option("--fractions/--no-fractions",
                                  help="With --exact: the exact fractions of the fight played to "
                                  "the end, however long they take (default: only when quick; "
                                  "a progress bar at a terminal).",
                                  show_default=False)
    ] = None,
    json_: JsonOpt = False,
    jsonl: JsonlOpt = False,
    lang: LangOpt = None,
    set_: SetOpt = None,
    tactic: TacticOpt = None,
    csv_: CsvOpt = False,
    plot: PlotOpt = None,
) -> None:
    """Play a whole fight step by step, simulate many (--runs), or compute exact odds (--exact).

    Examples: sevendag fight  ·  sevendag fight A B --ruleset d20 --seed 7 --json
    ·  sevendag fight --runs 100000  ·  sevendag fight --exact --tolerance 1e-9
    ·  sevendag fight --exact --tactic Brannoc=full-defence --csv
    ·  sevendag fight --exact --exploit
    ·  sevendag fight A B --ruleset d20 --set A.hp=200 --exact --fractions
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
        if exact and seed is not None:  # refused as --dice is: nothing to seed
            raise UsageError(Msg("cli.seed_exact", seed=seed))
        check_numbers(cap, runs, seed)
        if tolerance is not None and not (exact or odds):
            raise UsageError(Msg("cli.tolerance_exact"))
        if exploit is not None and not exact:
            raise UsageError(Msg("cli.exploit_exact"))
        if fractions is not None and not exact:
            raise UsageError(Msg("cli.fractions_exact"))
        check_table_options(out, csv_, plot, runs is not None or exact or odds)

        m = Matchup.load(check_fighter_count(fighters), ruleset, set=set_, tactic=tactic)
        for message in m.notes:
            note(f"sevendag: {message.render(out.lang)}")
        if runs is not None:
            run_simulation(m, runs, seed, cap, out, csv_=csv_, plot=plot)
            return
        if exact:
            run_exact(m, out, cap, tolerance, csv_=csv_, plot=plot, exploit=exploit,
                      fractions=fractions)
            return
        if odds:
            play_fight_with_odds(m, seed, dice, cap, tolerance, out, csv_=csv_, plot=plot)
            return
        play_fight(m, seed, dice, cap, out)


def play_fight(m: Matchup, seed: int | None, dice: str | None, cap: int | None,
               out: Output) -> None:
    """One fight step by step: entered faces first, then the seeded generator.

    Each round is shown, or written as JSON, as soon as it is played: ``--jsonl`` and
    the display stream; ``--json`` keeps only each round's text until the document's
    head (the final states come first) can be written.
    """
    playing = m.playing(seed=seed, dice=dice, cap=cap)
    if out.json:
        out.data_with_list("rounds", playing.rounds(), playing.document)
    elif out.jsonl:
        out.lines(playing.lines())
    else:
        from sevendag_cli.render.rich_sim import policies_line

        r = renderer(out, m.ruleset, (m.a, m.b))
        print_changes(r.c, m.changes, out.lang)
        policies_line(r.c, m.names, m.policies, out.lang)
        r.fight_play(playing.play)
        report_seed(out, playing.choice)
    from sevendag_cli.library import stopped_notes

    for message in stopped_notes(playing.play.result(), playing.play.played):
        note(f"sevendag: {message.render(out.lang)}")


def play_fight_with_odds(
    m: Matchup, seed: int | None, dice: str | None, cap: int | None, tolerance: float | None,
    out: Output, *, csv_: bool = False, plot: str | None = None,
) -> None:
    """``--odds``: the fight ``play_fight`` plays (same seed, same fight), then how the odds swung:
    before the initiative, after it and after each round (one solver for the whole fight).
    ``--csv``: the swing as a table instead of the display (the seed on stderr); ``--plot``: the
    swing as a picture, whatever stdout has."""
    done = m.odds_swing(seed=seed, dice=dice, cap=cap, tolerance=tolerance)
    result, swing, changes, rs = done.result, done.swing, m.changes, m.ruleset
    if out.json:
        out.data(done.to_dict())
    elif out.jsonl:
        out.lines(done.lines())
    elif csv_:
        from sevendag_cli.render.csv_out import write_csv
        from sevendag_cli.render.odds_out import SWING_CSV_COLUMNS, swing_rows

        write_csv(SWING_CSV_COLUMNS, swing_rows(swing))
        if done.seed is not None:
            note_seed(done.seed, out.lang)
    else:
        from sevendag_cli.render.rich_odds import swing_chart
        from sevendag_cli.render.rich_sim import policies_line

        r = renderer(out, rs, (m.a, m.b))
        print_changes(r.c, changes, out.lang)
        policies_line(r.c, m.names, m.policies, out.lang)  # the sheets: the chart's notes say so
        r.fight(result)
        r.c.print()
        swing_chart(r.c, swing, out.lang, rs.engine, m.policies, (m.a, m.b))
        if done.seed is not None:
            note_seed(done.seed, out.lang)
    if plot is not None:
        from sevendag_cli.render.odds_out import plot_swing
        from sevendag_cli.render.whatif import play_words

        plot_swing(plot, swing, out.lang, play_words(rs.engine, m.names, m.policies, out.lang))


# --- --runs and --exact -------------------------------------------------------------------


def run_simulation(
    m: Matchup, runs: int, seed: int | None, cap: int | None, out: Output, *, csv_: bool = False,
    plot: str | None = None,
) -> None:
    """``--runs N``: the vectorised simulation, with a progress bar at a terminal."""
    from sevendag_cli.dice import fresh_seed

    seed = seed if seed is not None else fresh_seed()  # checked with the other numbers
    rs, changes = m.ruleset, m.changes
    if sys.stderr.isatty() and out.rich:
        from sevendag_cli.render.progress import with_progress

        done = with_progress(lambda progress: m.simulate(runs, seed=seed, cap=cap, progress=progress),
                             runs, Msg("cli.progress").render(out.lang))
    else:
        done = m.simulate(runs, seed=seed, cap=cap)
    result = done.result
    if out.json:
        out.data(done.to_dict())
    elif csv_:
        from sevendag_cli.render.csv_out import write_csv
        from sevendag_cli.render.fight_out import FIGHT_CSV_COLUMNS, runs_rows

        write_csv(FIGHT_CSV_COLUMNS, runs_rows(result))
        note_seed(seed, out.lang)
    else:
        from sevendag_cli.render.rich_sim import policies_line, render_simulation

        console = out.console()
        print_changes(console, changes, out.lang)
        policies_line(console, m.names, m.policies, out.lang, rs.engine)
        render_simulation(console, result, out.lang, rs, m.policies)
    if plot is not None:
        from sevendag_cli.render.fight_out import plot_rounds
        from sevendag_cli.render.whatif import play_words, titled

        title = titled(t("sim.runs", out.lang, runs=count(result.runs, out.lang), seed=result.seed),
                       play_words(rs.engine, m.names, m.policies, out.lang))
        plot_rounds(plot, result.rounds.histogram, result.runs, title, out.lang, result.fighters)
    for message in done.notes:
        note(f"sevendag: {message.render(out.lang)}")
    if result.interrupted:
        message = Msg("cli.interrupted_runs", done=result.runs, requested=result.requested_runs)
        sys.stderr.write(f"sevendag: {message.render(out.lang)}\n")
        raise typer.Exit(130)


def run_exact(m: Matchup, out: Output, cap: int | None = None, tolerance: float | None = None, *,
              csv_: bool = False, plot: str | None = None, exploit: bool | None = None,
              fractions: bool | None = None) -> None:
    """``--exact``: the fight's exact odds within ``tolerance``; ``exploit``, ``fractions``: what
    each sheet gives away and the exact fractions, asked (True), never (False) or where they
    cost little (None); fractions asked get a bar on stderr at a terminal, from their first
    report (only a long solve reports)."""
    if fractions and sys.stderr.isatty() and out.rich:
        from sevendag_cli.render.progress import bar_at_first_report

        with bar_at_first_report(Msg("cli.progress_fractions").render(out.lang)) as report:
            done = m.exact(tolerance=tolerance, cap=cap, exploit=exploit, fractions=True,
                           progress=report)
    else:
        done = m.exact(tolerance=tolerance, cap=cap, exploit=exploit, fractions=fractions)
    result, rs, changes = done.result, m.ruleset, m.changes
    if out.json:
        out.data(done.to_dict(out.lang))
    elif csv_:
        from sevendag_cli.render.csv_out import write_csv
        from sevendag_cli.render.fight_out import FIGHT_CSV_COLUMNS, exact_rows

        write_csv(FIGHT_CSV_COLUMNS, exact_rows(result))
    else:
        from sevendag_cli.render.rich_sim import render_exact

        console = out.console()
        print_changes(console, changes, out.lang)
        render_exact(console, result, out.lang, rs, m.policies,
                     done.exploitability or done.exploitability_skipped)
    if plot is not None:
        from sevendag_cli.render.fight_out import plot_rounds
        from sevendag_cli.render.whatif import play_words, titled

        key = "sim.exact_title_end" if result.solver == "end" else "sim.exact_title"
        title = titled(t(key, out.lang, cap=result.cap, tol=result.tolerance),
                       play_words(rs.engine, m.names, m.policies, out.lang))
        plot_rounds(plot, result.rounds.histogram, 1.0, title, out.lang, result.fighters)
