"""The test suite's own rules: no test module imports another (what tests share lives in helper
modules such as tests/helpers.py, or in tests/conftest.py)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_the_check_finds_every_spelling_of_such_an_import() -> None:
    tree = ast.parse("from tests.test_x import a\nimport tests.test_y\nfrom tests.helpers import b\n"
                     "from .test_z import c\nfrom . import test_w\nfrom tests import test_v\n")
    assert imported_test_modules(tree) == ["tests.test_x", "tests.test_y", "test_z", "test_w",
                                           "tests.test_v"]
    for line in ("from tests.test_x import a", "import tests.test_y", "from .test_z import c",
                 "from . import test_w", "from tests import (\n  test_v,\n)"):
        assert MAY_IMPORT_A_TEST.search(line), line


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


MAY_IMPORT_A_TEST = re.compile(r"^\s*(?:from|import)\s(?:[^\n]|\n[ \t)])*?\btest_", re.MULTILINE)
"""An import statement (its continuation lines indented) that may import a test module: only
the files with one are parsed (parsing them all takes a second)."""


def test_no_test_module_imports_another() -> None:
    sources = {path.name: path.read_text("utf-8") for path in sorted(TESTS.glob("*.py"))}
    offenders = {
        name: imported_test_modules(ast.parse(text))
        for name, text in sources.items() if MAY_IMPORT_A_TEST.search(text)
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
    ci = [line.strip() for line in (root / ".ci" / "run").read_text("utf-8").splitlines()]
    readme_line = next(i for i, line in enumerate(ci) if line.endswith(" python -m pytest"))
    slow_line = next(i for i, line in enumerate(ci) if line.endswith("python -m pytest -m slow -n auto"))
    assert readme_line < slow_line  # the README's command first, then the slow tests
    assert "python3 -m venv .venv && . .venv/bin/activate && pip install '.[test]'" in ci
