"""``schema``: the JSON Schemas of every JSON output and of the input files.

The schemas ship inside the package (``sevendag_cli/schemas/*.json``, draft
2020-12).  They share definitions through relative ``$ref`` to ``common.json``
(and ``fight-event.json`` refers to ``round-event.json``); :func:`validator`
resolves them with a registry of every schema.  Printing a schema needs no
third-party library; validating needs ``jsonschema`` (a test dependency),
imported only by :func:`validator`.
"""

from __future__ import annotations

import importlib
import json
import sys
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Annotated, Any

import typer

from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.failure import handled
from sevendag_cli.options import LangOpt


def _folder() -> Traversable:
    return resources.files("sevendag_cli") / "schemas"


def schema_names() -> list[str]:
    """Every schema's name (its file stem), sorted."""
    return sorted(
        entry.name[: -len(".json")]
        for entry in _folder().iterdir()
        if entry.is_file() and entry.name.endswith(".json")
    )


def schema_text(name: str) -> str:
    """The schema file's text, as shipped."""
    names = schema_names()
    if name not in names:
        raise UsageError(Msg("cli.no_schema", name=name, names=", ".join(names)))
    return (_folder() / f"{name}.json").read_text("utf-8")


def load_schema(name: str) -> dict[str, Any]:
    """A schema by name (``fight``, ``fighter-d20``, ...); an unknown name is a usage error."""
    data: dict[str, Any] = json.loads(schema_text(name))
    return data


def _optional(module: str) -> Any:
    """A test-only dependency, imported when asked (untyped here: no stubs are required)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UsageError(Msg("cli.needs_package", module=module)) from None


@cache
def _registry() -> Any:
    """Every shipped schema, by its ``$id``: the relative ``$ref`` between files resolve here."""
    referencing = _optional("referencing")
    found = [referencing.Resource.from_contents(load_schema(n)) for n in schema_names()]
    return referencing.Registry().with_resources((r.id(), r) for r in found)


def validator(name: str) -> Any:
    """A ``jsonschema.Draft202012Validator`` for the named schema, ``$ref`` between files resolved.

    Needs ``jsonschema`` (and ``referencing``): a test dependency, not a runtime one.
    """
    jsonschema = _optional("jsonschema")
    return jsonschema.Draft202012Validator(load_schema(name), registry=_registry())


# --- the command ------------------------------------------------------------------------------

app = typer.Typer()


@app.command("schema")
def schema_cmd(
    name: Annotated[
        str | None,
        typer.Argument(help="A schema's name (e.g. fight, round-event, fighter-d20); none: list them."),
    ] = None,
    lang: LangOpt = None,
) -> None:
    """Print the JSON Schema of a JSON output or of an input file; without a name, list them.

    Example: sevendag schema fight
    """
    with handled(lang):
        if name is None:
            for n in schema_names():
                print(n)
            return
        sys.stdout.write(json.dumps(load_schema(name), ensure_ascii=False, indent=2) + "\n")
