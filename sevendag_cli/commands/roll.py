"""``roll EXPR``: a dice roller with the fight's display (faces, highest and lowest, total)."""

from __future__ import annotations

from typing import Annotated

import typer

from sevendag_cli.failure import handled
from sevendag_cli.options import DiceOpt, JsonOpt, LangOpt, SeedOpt
from sevendag_cli.output import make_dice, make_output, report_seed

app = typer.Typer()


@app.command("roll")
def roll_cmd(
    expression: Annotated[str, typer.Argument(help="Dice expression, e.g. '2d6 + 3' or '1d20'.")],
    seed: SeedOpt = None,
    dice: DiceOpt = None,
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Roll dice for what a fight doesn't cover: faces, highest and lowest shown, total.

    Example: sevendag roll "3d6 + 2" --seed 4
    """
    with handled(lang):
        from sevendag_cli.formula import parse

        out = make_output(json_, False, lang, jsonl_allowed=False)
        formula = parse(expression)
        formula.check_names(set())
        choice = make_dice(seed, dice, False, out, continue_after=False)
        ev = formula.evaluate({}, choice.source, "roll", None)
        if choice.entered is not None:
            choice.entered.check_all_used()
        if out.json:
            from sevendag_cli.render.data import header, roll_data

            out.data({**header("roll", None, choice.seed), "expression": formula.text,
                      "rolls": [roll_data(r) for r in ev.rolls], "total": ev.value})
            return
        from sevendag_cli.engine.common import Check
        from sevendag_cli.render.rich_render import check_text

        console = out.console()
        console.print(check_text(Check("roll", "", formula.text, ev.rolls, ev.value)))
        report_seed(out, choice)
