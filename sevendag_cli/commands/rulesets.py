"""``rulesets`` (list what is found), ``rulesets show NAME`` and ``rulesets validate FILE...``.

The listing and the description are plain documents (the JSON output), which
the Rich display draws; ``validate`` lists every problem of each file, not only
the first.  The commands are at the end of the module, after the documents.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Annotated, Any

import typer
from msgspec import structs

from sevendag_cli.backend import backend_for
from sevendag_cli.commandline import SevendagCommand, SevendagGroupBase
from sevendag_cli.data import Problems, bundled_dir, fighter_dirs, read_toml, search_dirs
from sevendag_cli.errors import DataError, Msg, SevendagError
from sevendag_cli.failure import handled
from sevendag_cli.formula import Formula
from sevendag_cli.options import JsonOpt, LangOpt
from sevendag_cli.output import make_output
from sevendag_cli.render.data import header
from sevendag_cli.rules import (
    Ruleset,
    fighter_from_data,
    known_fighters,
    known_rulesets,
    load_ruleset,
    read_ruleset_doc,
    ruleset_from_data,
)


def where(path: Path) -> str:
    bundled = bundled_dir().resolve()
    try:
        path.resolve().relative_to(bundled)
        return "bundled"
    except ValueError:
        return "user"


def list_rulesets(lang: str = "en") -> dict[str, Any]:
    """Every ruleset and fighter sheet found; an invalid ruleset's problem is given in ``lang``."""
    rulesets = []
    for name in known_rulesets():
        try:
            source, _ = read_ruleset_doc(name)
            rs = load_ruleset(name)
            rulesets.append({"name": name, "engine": rs.engine, "label": rs.label,
                             "path": source, "origin": where(Path(source)),
                             "examples": list(rs.examples), "valid": True, "problem": None})
        except SevendagError as exc:
            rulesets.append({"name": name, "engine": None, "label": None, "path": None,
                             "origin": None, "examples": [], "valid": False,
                             "problem": exc.render(lang)})
    fighters = []
    broken: list[dict[str, Any]] = []
    seen: set[Path] = set()
    checked: dict[str, Ruleset | SevendagError] = {}
    known = set(known_fighters())
    sheet_dirs = fighter_dirs()
    for d in [*search_dirs(), *sheet_dirs]:
        try:
            found = sorted(d.glob("*.toml")) if d.is_dir() else []
        except (OSError, ValueError):  # a folder that cannot be listed (a name too long): left out
            continue
        for p in found:
            try:
                real = p.resolve()
            except (OSError, RuntimeError, ValueError):
                continue
            if real in seen:
                continue
            seen.add(real)
            try:
                doc = read_toml(p)
            except DataError as exc:  # neither a ruleset nor a sheet can be told: listed as broken
                broken.append({"path": str(p), "origin": where(p), "problem": exc.render(lang)})
                continue
            if d in sheet_dirs and "ruleset" in doc and p.stem in known:
                sheet_rs = doc.get("ruleset")
                problem = _sheet_problem(p, doc, checked, lang)
                fighters.append({"name": str(doc.get("name", p.stem)), "file": p.stem,
                                 "ruleset": sheet_rs if isinstance(sheet_rs, str) else None, "path": str(p),
                                 "origin": where(p), "valid": problem is None, "problem": problem})
    unique: dict[str, dict[str, Any]] = {}
    for f in fighters:  # the first found wins, as in the lookup
        unique.setdefault(str(f["file"]), f)
    return {**header("rulesets", None, None), "rulesets": rulesets, "fighters": list(unique.values()),
            "broken": broken, "search_path": [str(d) for d in search_dirs()]}


def _sheet_problem(
    path: Path, doc: dict[str, Any], checked: dict[str, Ruleset | SevendagError], lang: str
) -> str | None:
    """The first problem of a fighter sheet (in ``lang``), or None; each ruleset loaded once."""
    ref = doc.get("ruleset")
    if not isinstance(ref, str):
        return DataError(str(path), "ruleset", Msg("cli.ruleset_name")).render(lang)
    if ref not in checked:
        try:
            checked[ref] = load_ruleset(ref)
        except SevendagError as exc:
            checked[ref] = exc
    rs = checked[ref]
    if isinstance(rs, SevendagError):
        return DataError(str(path), "ruleset", rs.msg).render(lang)
    try:
        fighter_from_data(doc, str(path), rs)
    except SevendagError as exc:
        return exc.render(lang)
    return None


def describe_ruleset(rs: Ruleset) -> dict[str, Any]:
    """Everything a game master may want to edit, as plain data."""
    out: dict[str, Any] = {**header("rulesets show", rs.name, None), "name": rs.name,
                           "engine": rs.engine,
                           "label": rs.label, "path": rs.path, "rules": rs.rules,
                           "house_defaults": rs.house_defaults, "examples": list(rs.examples)}
    formulas: dict[str, str] = {}
    options: dict[str, Any] = {}
    for f in structs.fields(rs):
        value = getattr(rs, f.name)
        if isinstance(value, Formula):
            formulas[f.name] = value.text
        elif isinstance(value, bool | int | str) and f.name not in ("name", "path", "engine"):
            options[f.name] = value
        elif value is None and f.name == "round_cap":  # no round cap (d20's house default)
            options[f.name] = None
    out["formulas"] = formulas
    out["options"] = options

    out.update(backend_for(rs).sheets.describe(rs))
    return out


def validate_file(path_text: str, lang: str = "en") -> dict[str, Any]:
    """Check a ruleset or a fighter sheet; report every problem (in ``lang``), not just the first."""
    path = Path(path_text)
    data = read_toml(path)
    problems = Problems(str(path))
    kind: str
    if "engine" in data:
        kind = "ruleset"
        with contextlib.suppress(DataError):  # the problems are collected
            ruleset_from_data(data, str(path), problems)
    elif "ruleset" in data:
        kind = "fighter"
        ref = data["ruleset"]
        if not isinstance(ref, str):
            problems.add("ruleset", Msg("cli.ruleset_name"))
        else:
            try:
                rs = load_ruleset(ref)
            except SevendagError as exc:
                problems.add("ruleset", exc.msg)
            else:
                with contextlib.suppress(DataError):
                    fighter_from_data(data, str(path), rs, problems)
    else:
        raise DataError(str(path), None, Msg("cli.neither_kind"))
    return {"path": str(path), "kind": kind,
            "valid": not problems.errors, "problems": problems.render(lang)}


def validate_or_report(path_text: str, lang: str = "en") -> dict[str, Any]:
    """:func:`validate_file`, and a file that cannot be read (missing, not TOML, neither kind) as
    a report of its own with that one problem: one bad file hides nothing of the others."""
    try:
        return validate_file(path_text, lang)
    except DataError as exc:
        return {"path": path_text, "kind": None, "valid": False, "problems": [exc.render(lang)]}


# --- the commands ----------------------------------------------------------------------------

app = typer.Typer(name="rulesets", cls=SevendagGroupBase, invoke_without_command=True,
                  add_completion=False)


@app.callback()
def rulesets_cmd(
    ctx: typer.Context,
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """List the rulesets and fighters found; show or check them with the subcommands.

    Looks in the current folder, the user folder and the bundled rulesets.

    Example: sevendag rulesets
    """
    if ctx.invoked_subcommand is not None:
        return
    with handled(lang):
        out = make_output(json_, False, lang, jsonl_allowed=False)
        doc = list_rulesets(out.lang)
        if out.json:
            out.data(doc)
            return
        from sevendag_cli.render.rich_info import render_rulesets

        render_rulesets(out.console(), doc, out.lang)


@app.command("show", cls=SevendagCommand)
def rulesets_show_cmd(
    name: Annotated[str, typer.Argument(help="Ruleset name or file.")],
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Show a ruleset: its rules with their IDs, formulas, options and house defaults.

    Example: sevendag rulesets show sevendag
    """
    with handled(lang):

        out = make_output(json_, False, lang, jsonl_allowed=False)
        doc = describe_ruleset(load_ruleset(name))
        if out.json:
            out.data(doc)
            return
        from sevendag_cli.render.rich_info import render_ruleset

        render_ruleset(out.console(), doc, out.lang)


@app.command("validate", cls=SevendagCommand)
def rulesets_validate_cmd(
    files: Annotated[list[str], typer.Argument(help="Ruleset or fighter sheet files.")],
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Check rulesets or fighter sheets and list every problem found.

    Example: sevendag rulesets validate my-house.toml brannoc.toml
    """
    with handled(lang):
        out = make_output(json_, False, lang, jsonl_allowed=False)
        reports = [validate_or_report(f, out.lang) for f in files]
        if out.json:
            out.data({**header("rulesets validate", None, None), "files": reports,
                      "valid": all(r["valid"] for r in reports)})
        else:
            for r in reports:
                if r["valid"]:
                    print(Msg(f"out.valid_{r['kind']}", path=r["path"]).render(out.lang))
                for p in r["problems"]:
                    print(p)
        if not all(r["valid"] for r in reports):
            raise typer.Exit(1)
