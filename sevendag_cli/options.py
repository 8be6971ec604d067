"""The options shared by several commands, and how the ruleset and fighters they name are chosen.

Each option is an ``Annotated`` type that Typer reads: a command lists the ones
it takes (``seed: SeedOpt = None``).  A command module must import the types it
uses at module level, since Typer resolves the annotations in its namespace.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from sevendag_cli.rules import Ruleset


class Lang(StrEnum):
    en = "en"
    fr = "fr"


SeedOpt = Annotated[
    int | None,
    typer.Option("--seed", help="Seed for the dice (reported in the output); same seed, same fight."),
]
RollSeedOpt = Annotated[
    int | None,
    typer.Option("--seed", help="Seed for the dice (reported in the output); same seed, same rolls."),
]
DiceOpt = Annotated[
    str | None,
    typer.Option("--dice", help="Faces rolled by hand, in roll order, e.g. 19,5,8."),
]
ManualOpt = Annotated[
    bool, typer.Option("--manual", help="Ask for each physical die at the terminal.")
]
RoundManualOpt = Annotated[
    bool, typer.Option("--manual", help="Ask for each physical die at the terminal; --manual NAME "
                                        "(repeatable): only that player's dice, as --manual-for.")
]
ManualForOpt = Annotated[
    list[str] | None,
    typer.Option("--manual-for", metavar="NAME",
                 help="Ask only this fighter's dice at the terminal (repeat for each player who "
                      "rolls their own); the tool rolls the others' (seeded, the seed reported)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="One JSON document on stdout.")]
JsonlOpt = Annotated[bool, typer.Option("--jsonl", help="One JSON event per line on stdout.")]
LangOpt = Annotated[
    Lang | None, typer.Option("--lang", help="Language of the display (default: from LANG).")
]
EncounterOpt = Annotated[
    Path,
    typer.Option("--encounter", "-e", help="The encounter file.", envvar="SEVENDAG_ENCOUNTER",
                 readable=False),
]

DEFAULT_ENCOUNTER = Path("encounter.sevendag.json")


def complete_rulesets(incomplete: str) -> list[str]:
    """Shell completion: ruleset names found on the search path."""
    from sevendag_cli.rules import known_rulesets

    return [n for n in known_rulesets() if n.startswith(incomplete)]


def complete_fighters(incomplete: str) -> list[str]:
    """Shell completion: fighter sheet names found on the search path."""
    from sevendag_cli.rules import known_fighters

    return [n for n in known_fighters() if n.startswith(incomplete.lower())]


RulesetOpt = Annotated[
    str | None,
    typer.Option("--ruleset", "-r", help="Ruleset name or file (default: the sheets' own, else sevendag).",
                 autocompletion=complete_rulesets),
]
CapOpt = Annotated[
    int | None,
    typer.Option("--cap", help="Round cap: a fight still going is a draw (default: the ruleset's)."),
]
EncounterCapOpt = Annotated[
    int | None,
    typer.Option("--cap", help="Round cap: a fight still going after it is a draw "
                 "(default: the encounter ruleset's)."),
]
"""``--cap`` of the commands that read an encounter (``odds``, ``advise``)."""
FightersArg = Annotated[
    list[str] | None,
    typer.Argument(help="Two fighters: names as listed by 'rulesets', file names or .toml paths; "
                        "none: the ruleset's examples.",
                   autocompletion=complete_fighters),
]


def check_fighter_count(fighters: list[str] | None) -> list[str] | None:
    """The FIGHTERS argument: two sheets, or none (the ruleset's example pair)."""
    from sevendag_cli.library import check_fighter_count as check

    return check(fighters)


def pick_ruleset_doc(
    ruleset: str | None, fighters: list[str] | None
) -> tuple[Ruleset, str, dict[str, Any]]:
    """The ruleset named, else the first sheet's own, else the default; with its file and data
    (:func:`sevendag_cli.library.pick_ruleset_doc`)."""
    from sevendag_cli.library import pick_ruleset_doc as pick

    return pick(ruleset, fighters)


def pick_ruleset(ruleset: str | None, fighters: list[str] | None) -> Ruleset:
    """The ruleset of ``--ruleset`` and FIGHTERS (see :func:`pick_ruleset_doc`)."""
    return pick_ruleset_doc(ruleset, fighters)[0]


# --- what-ifs, CSV and plots: shared by fight, sweep, odds and matrix ----------------

SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", help="Change a sheet field for this run only: FIGHTER.FIELD=VALUE, e.g. "
                               "B.armour=7, A.weapon.damage=1d8 (empty VALUE: the sheet's default); "
                               "or a Sevendag technique: techniques.feint.attack=4. Repeat for several."),
]
TacticOpt = Annotated[
    list[str] | None,
    typer.Option("--tactic", help="Sevendag: a fighter's tactic for this run: FIGHTER=TACTIC, e.g. "
                                  "Brannoc=full-defence, or one commitment per hand: Brannoc=attack,defence; "
                                  "then its rules after ';': "
                                  "Brannoc=all-out;technique=feint@attacking;yield=behind; "
                                  "FIGHTER=optimal: the best declaration every round (yield, allocation, "
                                  "technique), or --tactic optimal for every fighter."),
]
CsvOpt = Annotated[
    bool,
    typer.Option("--csv", help="The table as CSV on stdout (RFC 4180, columns in docs/bench.md#csv---csv)."),
]
PlotOpt = Annotated[
    str | None,
    typer.Option("--plot", help="Draw the odds in FILE.png or FILE.svg (needs matplotlib: the plot "
                              "extra of sevendag).",
                 metavar="FILE"),
]


def check_numbers(cap: int | None, runs: int | None, seed: int | None) -> None:
    """The numeric options within their bounds (a usage mistake, exit 2), before anything is read."""
    from sevendag_cli.library import check_numbers as check

    check(cap, runs, seed)
