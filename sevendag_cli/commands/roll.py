"""``roll EXPR…``: a dice roller — each expression's structure with every die in place."""

from __future__ import annotations

from typing import Annotated

import typer

from sevendag_cli.failure import handled
from sevendag_cli.options import DiceOpt, JsonOpt, LangOpt, ManualOpt, SeedOpt
from sevendag_cli.output import make_dice, make_output, report_seed

app = typer.Typer()


@app.command("roll")
def roll_cmd(
    expressions: Annotated[
        list[str],
        typer.Argument(help="Dice expressions, each maybe labelled: '1d20 + 5' 'damage: 2d6 + 3'.",
                       show_default=False),
    ],
    seed: SeedOpt = None,
    dice: DiceOpt = None,
    manual: ManualOpt = False,
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Roll dice for what a fight doesn't cover: each die in place, highest and lowest marked, total.

    Dice: 3d6, d% (d100), 4d6kh3 / 2d20kl1 (keep highest / lowest), 4d6dl1 (drop), 3d6! (exploding).

    Example: sevendag roll "3d6 + 2" "attack: 2d20kh1 + 5" --seed 4
    """
    with handled(lang):
        from sevendag_cli.roller import parse_expressions, roll_expressions

        out = make_output(json_, False, lang, jsonl_allowed=False)
        exprs = parse_expressions(expressions)
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
