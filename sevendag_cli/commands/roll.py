"""``roll EXPR…``: a dice roller — each expression's structure with every die in place; with
``--odds``, each expression's exact distribution instead (nothing rolled)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from sevendag_cli.commandline import SevendagCommand
from sevendag_cli.failure import handled
from sevendag_cli.options import DiceOpt, JsonOpt, LangOpt, ManualOpt, PlotOpt, RollSeedOpt
from sevendag_cli.output import make_dice, make_output, report_seed

if TYPE_CHECKING:
    from sevendag_cli.output import Output
    from sevendag_cli.roller import Expression

app = typer.Typer()


@app.command("roll", cls=SevendagCommand)
def roll_cmd(
    expressions: Annotated[
        list[str],
        typer.Argument(help="Dice expressions, each maybe labelled: '1d20 + 5' 'damage: 2d6 + 3'.",
                       show_default=False),
    ],
    odds: Annotated[bool, typer.Option(
        "--odds",
        help="Roll nothing: each expression's exact odds, P(= n) and P(≥ n), mean and sd.")] = False,
    seed: RollSeedOpt = None,
    dice: DiceOpt = None,
    manual: ManualOpt = False,
    json_: JsonOpt = False,
    plot: PlotOpt = None,
    lang: LangOpt = None,
) -> None:
    """Roll dice for what a fight doesn't cover: each die in place, highest and lowest marked, total.

    Dice: 3d6, d% (d100), 4d6kh3 / 2d20kl1 (keep highest / lowest), 4d6dl1 (drop), 3d6! (exploding).

    Modifiers: 4d6ro1 (reroll 1s once), 4d6rr<3 (reroll while below 3), 2d20mi10 / 1d20ma15 (min 10 / max 15).

    Successes: 6d10>=7 counts the dice showing 7 or more (also >, <=, <, =; no space before the sign).

    Comparison: '1d20 + 5 >= 15' is 1 if true, else 0; with --odds, its probability.

    Example: sevendag roll "3d6 + 2" "attack: 2d20kh1 + 5" --seed 4

    Example: sevendag roll "6d10>=7" "1d20 + 5 >= 15" --odds
    """
    with handled(lang):
        from sevendag_cli.errors import Msg, UsageError
        from sevendag_cli.roller import parse_expressions, roll_expressions

        out = make_output(json_, False, lang, jsonl_allowed=False)
        if odds and (seed is not None or dice is not None or manual):
            option = "--seed" if seed is not None else "--dice" if dice is not None else "--manual"
            raise UsageError(Msg("roll.odds_rolls_nothing", option=option))
        if plot is not None and not odds:
            raise UsageError(Msg("roll.plot_needs_odds"))
        if plot is not None:
            from sevendag_cli.render import plot as plotting

            plotting.plot_format(plot)
            plotting.require()
        exprs = parse_expressions(expressions)
        if odds:
            _odds(out, exprs, plot)
            return
        choice = make_dice(seed, dice, manual, out, continue_after=False)
        call = roll_expressions(exprs, choice.source)
        if choice.entered is not None:
            choice.entered.check_all_used()
        if out.json:
            from sevendag_cli.render.data import roll_document

            out.data(roll_document(call, choice.seed))
            return
        from sevendag_cli.render.rich_roll import render_roll

        render_roll(out.console(), call, out.lang)
        report_seed(out, choice)


def _odds(out: Output, exprs: Sequence[Expression], plot: str | None) -> None:
    """``--odds``: the exact distributions, shown or as JSON; ``--plot``: the first one drawn."""
    from sevendag_cli.roll_odds import odds_expressions

    call = odds_expressions(exprs)
    if out.json:
        from sevendag_cli.render.data import roll_odds_document

        out.data(roll_odds_document(call))
    else:
        from sevendag_cli.render.rich_roll import render_odds

        render_odds(out.console(), call, out.lang)
    if plot is not None:
        from sevendag_cli.i18n import t
        from sevendag_cli.render import plot as plotting
        from sevendag_cli.render.rich_roll import _shown
        from sevendag_cli.text import visible

        d, lang = call.results[0], out.lang
        name = (t("roll_label", lang, label=d.label) if d.label is not None else "") + _shown(d.expression)
        plotting.distribution(plot, d.values, d.floats, d.at_least_floats,
                              title=visible(name) + " — " + t("odds_exact", lang), x_label="n",
                              equal_label=t("odds_eq", lang), at_least_label=t("odds_ge", lang),
                              mean=float(d.mean))
        plotting.report(plot, out.lang)
