"""``schema``: the JSON Schemas of every JSON output and of the input files.

The schemas ship inside the package (``sevendag_cli/schemas/*.json``, draft
2020-12).  They share definitions through relative ``$ref`` to ``common.json``
(and a few to ``round-event.json`` or ``encounter.json``); :func:`validator`
resolves them with a registry of every schema.  ``sevendag schema NAME``
prints the schema *bundled* (:func:`bundled_schema`): every definition it
uses from another file is copied into its own ``$defs`` and every ``$ref``
points inside it, so a plain ``jsonschema.validate(doc, schema)`` (or any
validator without our files) works.  Printing a schema needs no third-party
library; validating needs ``jsonschema`` (a test dependency), imported only
by :func:`validator`.
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

from sevendag_cli.commandline import SevendagCommand
from sevendag_cli.errors import Msg, UsageError, install_command
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


def bundled_schema(name: str) -> dict[str, Any]:
    """The schema ``name`` with nothing outside it: self-contained.

    A ``$ref`` to another file's definition (``common.json#/$defs/roll``) becomes a
    ``$ref`` to a copy of it in this schema's ``$defs``, named after its file
    (``#/$defs/common.roll``); the copies' own references are rewritten the same
    way, and only the definitions reached are copied.  The schema's own
    definitions and references are kept as they are.
    """
    root = load_schema(name)
    own = f"{name}.json"
    copied: dict[str, Any] = {}
    pending: list[tuple[str, str]] = []

    def rewrite(node: Any, file: str) -> Any:
        if isinstance(node, dict):
            out: dict[str, Any] = {}
            for key, value in node.items():
                is_ref = key == "$ref" and isinstance(value, str)
                out[key] = _ref(value, file) if is_ref else rewrite(value, file)
            return out
        if isinstance(node, list):
            return [rewrite(v, file) for v in node]
        return node

    def _ref(ref: str, file: str) -> str:
        target, _, pointer = ref.partition("#")
        target = target or file
        if target == own:
            return f"#{pointer}"
        parts = pointer.split("/")
        if len(parts) < 3 or parts[:2] != ["", "$defs"]:  # every shipped $ref is file#/$defs/NAME...
            raise ValueError(f"{file}: cannot bundle the reference {ref!r}")
        key = f"{target.removesuffix('.json')}.{parts[2]}"
        if key not in copied and (target, parts[2]) not in pending:
            pending.append((target, parts[2]))
        return "/".join(["#", "$defs", key, *parts[3:]])

    out: dict[str, Any] = rewrite(root, own)
    while pending:
        target, def_name = pending.pop(0)
        key = f"{target.removesuffix('.json')}.{def_name}"
        copied[key] = None  # reserved: a definition that refers to itself is copied once
        copied[key] = rewrite(load_schema(target.removesuffix(".json"))["$defs"][def_name], target)
    if copied:
        out["$defs"] = {**out.get("$defs", {}), **dict(sorted(copied.items()))}
    return out


def _optional(module: str) -> Any:
    """A test-only dependency, imported when asked (untyped here: no stubs are required)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UsageError(Msg("cli.needs_package", module=module,
                             install=install_command("test"))) from None


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


@app.command("schema", cls=SevendagCommand)
def schema_cmd(
    name: Annotated[
        str | None,
        typer.Argument(help="A schema's name (e.g. fight, round-event, fighter-d20); none: list them."),
    ] = None,
    lang: LangOpt = None,
) -> None:
    """Print the JSON Schema of a JSON output or of an input file; without a name, list them.

    The schema printed is self-contained (what it uses of other files is copied in), so a plain
    validator needs nothing else.

    Example: sevendag schema fight > fight.schema.json
    """
    with handled(lang):
        if name is None:
            for n in schema_names():
                print(n)
            return
        sys.stdout.write(json.dumps(bundled_schema(name), ensure_ascii=False, indent=2) + "\n")
