"""``new NAME``: write a fighter sheet to fill in (d20: the abilities rolled 3d6 each, D-13)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sevendag_cli.backend import DEFAULT_RULESET, backend_for
from sevendag_cli.commandline import SevendagCommand
from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.failure import handled
from sevendag_cli.options import JsonOpt, LangOpt, SeedOpt
from sevendag_cli.output import make_dice, make_output, note, report_seed
from sevendag_cli.text import toml_basic

if TYPE_CHECKING:
    from sevendag_cli.rules import Ruleset

app = typer.Typer()


@app.command("new", cls=SevendagCommand)
def new_cmd(
    name: Annotated[str, typer.Argument(help="The fighter's name.")],
    ruleset: Annotated[str, typer.Option("--ruleset", "-r", help="Ruleset of the sheet.")] = DEFAULT_RULESET,
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
        from sevendag_cli.rules import load_ruleset

        out = make_output(json_, False, lang, jsonl_allowed=False)
        if not name.strip():
            raise UsageError(Msg("cli.need_name"))
        rs = load_ruleset(ruleset)
        path = sheet_path(name, output)
        if store.exists(path) and not force:
            raise UsageError(Msg("cli.exists", path=path))
        choice = make_dice(seed, None, False, out, continue_after=True)
        rolled = backend_for(rs).sheets.roll_sheet(choice.source)
        seed = choice.seed if rolled is not None else None  # Sevendag: nothing rolled, no seed
        text = sheet_text(name, rs, rolled, out.lang)
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


def sheet_text(name: str, rs: Ruleset, rolled: dict[str, list[int]] | None,
               lang: str = "en") -> str:
    """The sheet's TOML: the template of the ruleset's engine, with the name (and d20 rolls)
    filled in, its optional fields explained in ``lang``."""

    return backend_for(rs).sheets.sheet_template(rs, toml_escape(name), rolled, lang)


def toml_escape(text: str) -> str:
    """``text`` inside a TOML basic string: backslashes, quotes and control characters
    escaped (a name typed with a newline still makes a sheet that reads back)."""

    return toml_basic(text)


def sheet_path(name: str, output: str | None) -> Path:
    """``--output``, else the name as a file stem (``Sir Bob`` → ``sir-bob.toml``)."""
    if output:
        return Path(output)
    stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in name.lower()).strip("-")
    if not stem:
        raise UsageError(Msg("cli.file_name", name=name))
    return Path(f"{stem}.toml")

