"""``new NAME``: write a fighter sheet to fill in (d20: the abilities rolled 3d6 each, D-13)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sevendag_cli.commandline import SevendagCommand
from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.failure import handled
from sevendag_cli.options import JsonOpt, LangOpt, SeedOpt
from sevendag_cli.output import make_dice, make_output, note, report_seed

if TYPE_CHECKING:
    from sevendag_cli.rules import Ruleset

app = typer.Typer()


@app.command("new", cls=SevendagCommand)
def new_cmd(
    name: Annotated[str, typer.Argument(help="The fighter's name.")],
    ruleset: Annotated[str, typer.Option("--ruleset", "-r", help="Ruleset of the sheet.")] = "sevendag",
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="File to write (default: NAME.toml).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
    seed: SeedOpt = None,
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Write a fighter sheet to fill in (d20: abilities rolled 3d6 each, D-13).

    Example: sevendag new Aela --ruleset d20
    """
    with handled(lang):
        from sevendag_cli import store
        from sevendag_cli.formula import parse
        from sevendag_cli.rules import D20Ruleset, load_ruleset

        out = make_output(json_, False, lang, jsonl_allowed=False)
        if not name.strip():
            raise UsageError(Msg("cli.need_name"))
        rs = load_ruleset(ruleset)
        path = sheet_path(name, output)
        if store.exists(path) and not force:
            raise UsageError(Msg("cli.exists", path=path))
        choice = make_dice(seed, None, False, out, continue_after=True)
        rolled: dict[str, list[int]] | None = None
        if isinstance(rs, D20Ruleset):
            three = parse("3d6")
            rolled = {}
            for ability in ("str", "dex", "con", "wis"):
                ev = three.evaluate({}, choice.source, "ability", ability)
                rolled[ability] = [r.face for r in ev.rolls]
        seed = choice.seed if rolled is not None else None  # Sevendag: nothing rolled, no seed
        text = sheet_text(name, rs, rolled)
        store.write_text_atomic(path, text)
        if out.json:
            from sevendag_cli.render.data import header

            out.data({**header("new", rs.name, seed), "path": str(path),
                      "abilities": {k: {"rolls": v, "total": sum(v)} for k, v in (rolled or {}).items()}})
            return
        for ability, faces in (rolled or {}).items():
            print(Msg("out.ability", ability=ability.upper(), faces=" + ".join(map(str, faces)),
                      total=sum(faces)).render(out.lang))
        note(Msg("out.wrote", path=path).render(out.lang))
        if rolled is not None:  # a seed only where dice were rolled (d20 abilities, D-13)
            report_seed(out, choice)


# --- the sheet -----------------------------------------------------------------------------


D20_TEMPLATE = """\
# A d20 (Le combat) fighter sheet.  Abilities rolled 3d6 each (D-13):
{rolls}
ruleset = "{ruleset}"
name = "{name}"
race = ""
level = 1
str = {str}
dex = {dex}
con = {con}
wis = {wis}
bba = 1        # base attack bonus (D-03)
armour = 0     # armour bonus (D-05)
size = 0       # size modifier (D-05)
dodge = 0      # dodge bonus to saves (D-08)
hp = 10
# ac = 12      # state AC directly instead of the formula (D-05)

[weapon]       # remove this table to fight bare-handed (D-11)
name = "short sword"
damage = "1d6"
# magic = "1d4"   # magic damage dice (D-09)
type = 0       # weapon type modifier (D-03)
crit_range = 20   # lowest natural that threatens a critical (D-07)
crit_factor = 2
"""

SEVENDAG_TEMPLATE = """\
# A Sevendag fighter sheet.
ruleset = "{ruleset}"
name = "{name}"
speed = 2      # speed roll = formulas.speed_roll of the ruleset (S-02)
attack = 6     # attack constant (S-06)
defence = 5    # defence constant (S-06)
tactic = "weapons-attack"   # weapons-attack | all-out | full-defence | custom (+ allocation)

[[hands]]
die = 10
holds = "weapon"
[[hands]]
die = 8
holds = "shield"   # or "" for an empty hand

[items.weapon]
kind = "weapon"
label = "sword"
hands = 1          # 2 for a two-handed weapon held by both hands
metal = "{metal}"  # one of: {metals}
skill = 12         # drop check: d20 above this drops the weapon (S-10)

[items.shield]
kind = "shield"
label = "shield"
"""


def sheet_text(name: str, rs: Ruleset, rolled: dict[str, list[int]] | None) -> str:
    """The sheet's TOML: the template of the ruleset's engine, with the name (and d20 rolls) filled in."""
    from sevendag_cli.rules import D20Ruleset

    if isinstance(rs, D20Ruleset):
        assert rolled is not None
        rolls = "\n".join(
            f"#   {k.upper()}: {' + '.join(map(str, v))} = {sum(v)}" for k, v in rolled.items()
        )
        return D20_TEMPLATE.format(ruleset=rs.name, name=toml_escape(name), rolls=rolls,
                                   **{k: sum(v) for k, v in rolled.items()})
    metals = list(rs.metals)
    return SEVENDAG_TEMPLATE.format(ruleset=rs.name, name=toml_escape(name), metal=metals[0],
                                    metals=", ".join(metals))


def toml_escape(text: str) -> str:
    """``text`` inside a TOML basic string: backslashes, quotes and control characters
    escaped (a name typed with a newline still makes a sheet that reads back)."""
    out = text.replace("\\", "\\\\").replace('"', '\\"')
    return "".join(f"\\u{ord(c):04x}" if ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0 else c for c in out)


def sheet_path(name: str, output: str | None) -> Path:
    """``--output``, else the name as a file stem (``Sir Bob`` → ``sir-bob.toml``)."""
    if output:
        return Path(output)
    stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in name.lower()).strip("-")
    if not stem:
        raise UsageError(Msg("cli.file_name", name=name))
    return Path(f"{stem}.toml")

