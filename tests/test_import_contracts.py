"""The import contracts CI checks with import-linter (pyproject's [tool.importlinter]) stay complete,
and no two modules of sevendag_cli import each other, directly or through others.

import-linter checks the contracts themselves (`lint-imports`, run by .ci/run); these tests check
that their module lists name every module they speak for, so that a module added later is not
silently left out of a contract, and they do the one check import-linter has no contract for:
circles between single modules.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "sevendag_cli"

# What belongs to the command layer: the commands, the Typer app, the entry point and its
# `python -m`, the French help for Typer, how a failed command is reported, the commands' options,
# the command classes and what they take from Typer's internals.
COMMAND_LAYER = {"commands", "cli", "start", "__main__", "help_fr", "failure", "options",
                 "commandline", "click_compat"}
RULESET_PACKAGES = ("d20", "sevendag")


def contract(name: str) -> dict[str, Any]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found: list[dict[str, Any]] = [
        c for c in config["tool"]["importlinter"]["contracts"] if c["name"] == name
    ]
    assert len(found) == 1, name
    return found[0]


def children(package: Path) -> set[str]:
    """The modules and subpackages directly in a package, by short name."""
    names = {p.stem for p in package.glob("*.py") if p.name != "__init__.py"}
    names |= {p.name for p in package.iterdir() if (p / "__init__.py").is_file()}
    return names


def test_the_engine_contract_names_every_module_of_the_ruleset_packages_but_display() -> None:
    sources = set(contract("The engines import neither Typer, Click, Rich nor JSON")["source_modules"])
    expected = {"sevendag_cli.engine", "sevendag_cli.sim"}
    for package in RULESET_PACKAGES:
        # the display draws with Rich, and the backend hands the display out (a lazy import)
        expected |= {f"sevendag_cli.{package}.{m}"
                     for m in children(PKG / package) - {"display", "backend"}}
    assert sorted(expected - sources) == [], "add these modules to the contract"
    assert sorted(sources - expected) == [], "these modules are gone"


def test_the_renderer_contract_names_every_display() -> None:
    sources = set(contract("Renderers import no command")["source_modules"])
    expected = {"sevendag_cli.render"} | {f"sevendag_cli.{p}.display" for p in RULESET_PACKAGES}
    assert sources == expected


def test_the_library_contract_names_every_module_outside_the_command_layer() -> None:
    rule = contract("The library imports no command")
    sources = set(rule["source_modules"])
    expected = {f"sevendag_cli.{m}" for m in children(PKG) - COMMAND_LAYER}
    assert sorted(expected - sources) == [], "add these modules to the contract (or to COMMAND_LAYER)"
    assert sorted(sources - expected) == [], "these modules are gone"
    assert {"sevendag_cli.commands", "sevendag_cli.cli"} <= set(rule["forbidden_modules"])
    assert children(PKG) >= COMMAND_LAYER, "a command-layer module is gone"


def module_names() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for path in PKG.rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        mods[name.removesuffix(".__init__")] = path
    return mods


def imported(mods: dict[str, Path], current: str, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The modules of sevendag_cli an import statement reaches (the nearest known enclosing module)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = current.split(".")
            if mods[current].name != "__init__.py":
                parts = parts[:-1]
            parts = parts[: len(parts) - (node.level - 1)]
            base = ".".join([*parts, *([base] if base else [])])
        names = [base] + [f"{base}.{alias.name}" for alias in node.names]
    found: set[str] = set()
    for name in names:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        if name and name != current:
            found.add(name)
    return found


def import_edges() -> dict[str, set[str]]:
    """Who imports whom: every import counts, lazy ones in functions and TYPE_CHECKING ones too."""
    mods = module_names()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                edges[name] |= imported(mods, name, node)
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), a package importing its own
    submodules (a facade) not counting as a circle with them."""

    def related(a: str, b: str) -> bool:
        return b.startswith(a + ".") or a.startswith(b + ".")

    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if related(v, w):
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_circles_are_found() -> None:
    """The check itself: a circle through three modules is found, a facade importing its parts is not."""
    edges = {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}, "p": {"p.a"}, "p.d": {"p"}, "q": set()}
    assert circles(edges) == [["p.a", "p.b", "p.c"]]
    assert circles({"p": {"p.x"}, "p.x": {"p"}}) == []


@pytest.mark.slow
def test_no_import_circles() -> None:
    edges = import_edges()
    assert len(edges) > 80 and "sevendag_cli.cli" in edges
    assert "sevendag_cli.failure" in edges["sevendag_cli.cli"]  # the edges are read (lazy ones too)
    assert "sevendag_cli.help_fr" in edges["sevendag_cli.cli"]
    assert circles(edges) == [], "import circles"
