"""The test suite's own rules: no test module imports another (what tests share lives in helper
modules such as tests/helpers.py, or in tests/conftest.py)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_the_check_finds_every_spelling_of_such_an_import() -> None:
    tree = ast.parse("from tests.test_x import a\nimport tests.test_y\nfrom tests.helpers import b\n"
                     "from .test_z import c\nfrom . import test_w\nfrom tests import test_v\n")
    assert imported_test_modules(tree) == ["tests.test_x", "tests.test_y", "test_z", "test_w",
                                           "tests.test_v"]


def imported_test_modules(tree: ast.AST) -> list[str]:
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = [node.module] if node.module else []
            names = base + [".".join([*base, a.name]) for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found += [n for n in names if n.rpartition(".")[2].startswith("test_")][:1]
    return found


def test_no_test_module_imports_another() -> None:
    offenders = {
        path.name: imported_test_modules(ast.parse(path.read_text("utf-8")))
        for path in sorted(TESTS.glob("*.py"))
    }
    assert {name: mods for name, mods in offenders.items() if mods} == {}


def test_ci_output_keeps_pytests_closing_line() -> None:
    """pyproject's addopts has one -q: a second one (-qq) would drop the "N passed in ..." line
    that CI's log ends with; .ci/run runs the README's plain `python -m pytest`."""
    import shlex
    import tomllib

    root = TESTS.parent
    options = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))["tool"]["pytest"]["ini_options"]
    words = shlex.split(options["addopts"])
    quiet = sum(w.count("q") for w in words if w.startswith("-") and not w.startswith("--"))
    assert quiet <= 1 and "--quiet" not in words, words
    assert "slow" in " ".join(options["markers"]) and "--strict-markers" in words
    ci = (root / ".ci" / "run").read_text("utf-8").splitlines()
    assert "python -m pytest" in ci
    assert "python3 -m venv .venv && . .venv/bin/activate && pip install '.[test]'" in ci
