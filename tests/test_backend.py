"""One backend per ruleset behind one interface.

* Outside the two ruleset packages (``sevendag_cli/d20/``, ``sevendag_cli/sevendag/``)
  and the registry (``sevendag_cli/backend.py``), no code chooses the ruleset: no
  comparison with an engine name, no ``isinstance`` with a ruleset's own class, no
  import of a ruleset's module.  Scanned from the source (AST).
* A third ruleset is its package and one registry line: a fake one registered here is
  found, read from a ruleset file and given its own step engine.
"""

from __future__ import annotations

import ast
import sys
import types
from pathlib import Path
from typing import Any

import msgspec
import pytest

import sevendag_cli
from sevendag_cli import backend as registry
from sevendag_cli.backend import BACKENDS, backend_for, backend_named, engines

ROOT = Path(sevendag_cli.__file__).parent
PACKAGES = ("d20", "sevendag")
"""The rulesets' own packages: inside them, code may know which ruleset it is."""

REGISTRY = ROOT / "backend.py"

ALLOWED: dict[tuple[str, str], str] = {}
"""Offenders that are not a choice of ruleset, with the reason.  Data that merely names a
ruleset — the default ruleset, the user-config folder ``sevendag``, the command name, an
output key — is never in a comparison, so the scan does not see it."""


def _per_ruleset_classes() -> set[str]:
    """Every class defined in the two packages (``D20Ruleset``, ``SevendagState``...)."""
    names: set[str] = set()
    for package in PACKAGES:
        for path in sorted((ROOT / package).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    names.add(node.name)
    return names


def _engine_names() -> set[str]:
    return set(PACKAGES) | set(BACKENDS)


def _ruleset_module(name: str) -> bool:
    parts = name.split(".")
    return len(parts) >= 2 and parts[0] == "sevendag_cli" and parts[1] in PACKAGES


def _names_in(node: ast.expr) -> list[str]:
    """The class names an ``isinstance`` second argument names (a tuple or a union too)."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, (ast.Tuple, ast.List)):
        return [n for e in node.elts for n in _names_in(e)]
    if isinstance(node, ast.BinOp):
        return _names_in(node.left) + _names_in(node.right)
    return []


def _engine_constant(node: ast.expr, engines_: set[str]) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in engines_
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_engine_constant(e, engines_) for e in node.elts)
    return False


def _is_engine_attribute(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "engine"


def offenders_in(source: str, module: str, classes: set[str], engines_: set[str]) -> list[str]:
    """Each place in ``source`` (the module ``module``, for relative imports) that chooses a
    ruleset, as ``line: what``."""
    found: list[str] = []
    package = module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(source)):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_engine_constant(o, engines_) for o in operands):
                found.append(f"{line}: compares with an engine name")
            elif any(_is_engine_attribute(o) for o in operands) and any(
                    isinstance(o, ast.Constant) and isinstance(o.value, str) for o in operands):
                found.append(f"{line}: compares .engine with a name")
        elif isinstance(node, ast.MatchValue) and _engine_constant(node.value, engines_):
            found.append(f"{line}: matches an engine name")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2):
            hit = sorted(set(_names_in(node.args[1])) & classes)
            if hit:
                found.append(f"{line}: {node.func.id} with {', '.join(hit)}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _ruleset_module(alias.name):
                    found.append(f"{line}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            modules = [target] + [f"{target}.{a.name}" for a in node.names]
            hit_module = next((m for m in modules if _ruleset_module(m)), None)
            if hit_module is not None:
                found.append(f"{line}: import {hit_module}")
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and _ruleset_module(node.value) and " " not in node.value):
            found.append(f"{line}: names the module {node.value}")
    return found


def _scanned() -> list[Path]:
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] in PACKAGES or path == REGISTRY:
            continue
        out.append(path)
    return out


@pytest.mark.slow
def test_no_code_outside_the_ruleset_packages_chooses_the_ruleset() -> None:
    classes = _per_ruleset_classes()
    assert {"D20Ruleset", "D20Fighter", "SevendagRuleset", "SevendagFighter"} <= classes
    engines_ = _engine_names()
    offenders: list[str] = []
    used: set[tuple[str, str]] = set()
    for path in _scanned():
        rel = path.relative_to(ROOT).as_posix()
        module = "sevendag_cli." + rel[:-3].replace("/", ".")
        for hit in offenders_in(path.read_text(encoding="utf-8"), module, classes, engines_):
            what = hit.split(": ", 1)[1]
            if (rel, what) in ALLOWED:
                used.add((rel, what))
                continue
            offenders.append(f"sevendag_cli/{rel}:{hit}")
    assert not offenders, "code outside the ruleset packages chooses the ruleset " \
        "(ask sevendag_cli.backend instead):\n" + "\n".join(offenders)
    assert used == set(ALLOWED), f"allowed but no longer there: {set(ALLOWED) - used}"


@pytest.mark.parametrize(("source", "what"), [
    ('if rs.engine == "d20":\n    pass\n', "compares with an engine name"),
    ('ok = engine != "sevendag"\n', "compares with an engine name"),
    ('ok = x in ("d20", "other")\n', "compares with an engine name"),
    ('ok = rs.engine == "fake"\n', "compares .engine with a name"),
    ('match e:\n    case "d20":\n        pass\n', "matches an engine name"),
    ("ok = isinstance(rs, D20Ruleset)\n", "isinstance with D20Ruleset"),
    ("ok = isinstance(f, (int, rules.SevendagFighter))\n", "isinstance with SevendagFighter"),
    ("from sevendag_cli.d20.rules import unarmed\n", "import sevendag_cli.d20.rules"),
    ("from sevendag_cli.sevendag import engine\n", "import sevendag_cli.sevendag"),
    ("from sevendag_cli import d20\n", "import sevendag_cli.d20"),
    ("import sevendag_cli.sevendag.chain\n", "import sevendag_cli.sevendag.chain"),
    ("from ..d20 import rules\n", "import sevendag_cli.d20"),
    ('m = importlib.import_module("sevendag_cli.d20.vector")\n',
     "names the module sevendag_cli.d20.vector"),
])
def test_the_scan_sees_each_way_of_choosing(source: str, what: str) -> None:
    hits = offenders_in(source, "sevendag_cli.sim.example", {"D20Ruleset", "SevendagFighter"},
                        {"d20", "sevendag"})
    assert [h.split(": ", 1)[1] for h in hits] == [what]


@pytest.mark.parametrize("source", [
    'DEFAULT = "sevendag"\n',  # data, not a choice
    'path = user_config_dir("sevendag")\n',
    "ok = isinstance(exc, SevendagError)\n",  # a shared class, not a ruleset's
    'doc = {"d20": None}\n',
    '"""See :mod:`sevendag_cli.d20.vector` for the batch."""\n',
    "from sevendag_cli.backend import backend_for\n",
])
def test_the_scan_lets_data_be(source: str) -> None:
    assert offenders_in(source, "sevendag_cli.sim.example", {"D20Ruleset"}, {"d20", "sevendag"}) == []


# --- the registry --------------------------------------------------------------------------------


def test_each_registered_backend_is_found_and_named_as_its_engine() -> None:
    assert engines() == tuple(BACKENDS) == ("sevendag", "d20")
    for engine in engines():
        assert backend_named(engine).name == engine


def test_backend_for_follows_the_ruleset_engine() -> None:
    from sevendag_cli.rules import load_ruleset

    for name in ("sevendag", "d20"):
        rs = load_ruleset(name)
        assert backend_for(rs) is backend_named(rs.engine)
        assert isinstance(rs, backend_for(rs).sheets.record_types()[0])


def test_getting_a_backend_imports_nothing_heavy() -> None:
    """Start-up: a backend module imports no numpy, icepool, rich (checked in a fresh process)."""
    import subprocess

    code = ("import sys\nfrom sevendag_cli.backend import backend_named, engines\n"
            "[backend_named(e) for e in engines()]\n"
            "print(sorted(m for m in ('numpy', 'icepool', 'rich', 'typer', 'msgspec') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


class FakeRuleset(msgspec.Struct, frozen=True):
    name: str
    path: str
    round_cap: int
    engine: str = "fake"


class FakeFighter(msgspec.Struct, frozen=True):
    name: str
    path: str


class FakeBackend:
    """Just what reading a ruleset and finding its engine need."""

    engine_module = types.ModuleType("fake_engine")

    @property
    def name(self) -> str:
        return "fake"

    def record_types(self) -> tuple[type, type]:
        return FakeRuleset, FakeFighter

    def read_ruleset(self, r: Any, name: str, source: str) -> FakeRuleset:
        return FakeRuleset(name, source, r.integer("round_cap", 10))

    def read_fighter(self, r: Any, source: str, ruleset: Any) -> FakeFighter:
        return FakeFighter(r.text("name"), source)

    def engine(self) -> types.ModuleType:
        return self.engine_module

    def check_state(self, ruleset: object, fighters: tuple[object, object], state: object) -> None:
        """The third ruleset's states hold whatever they say (it has no rules to check them by)."""


def test_a_third_ruleset_is_a_package_and_one_registry_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from sevendag_cli.engine import engine_for
    from sevendag_cli.rules import fighter_from_data, ruleset_from_data

    fake = FakeBackend()
    module = types.ModuleType("fake_ruleset_backend")
    module.BACKEND = fake  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_ruleset_backend", module)
    monkeypatch.setitem(registry.BACKENDS, "fake", "fake_ruleset_backend")  # the one line

    assert backend_named("fake") is fake
    assert "fake" in engines()
    rs = ruleset_from_data({"engine": "fake", "name": "mine", "round_cap": 7}, "mine.toml")
    assert rs == FakeRuleset("mine", "mine.toml", 7)  # type: ignore[comparison-overlap]
    assert backend_for(rs) is fake  # type: ignore[arg-type]
    assert engine_for(rs) is fake.engine_module  # type: ignore[arg-type]
    sheet = fighter_from_data({"ruleset": "mine", "name": "Ana"}, "ana.toml", rs)  # type: ignore[arg-type]
    assert sheet == FakeFighter("Ana", "ana.toml")  # type: ignore[comparison-overlap]
    assert fake.check_state(rs, (sheet, sheet), {}) is None  # its states, checked by itself


def test_an_unregistered_engine_is_refused_as_before() -> None:
    """A ruleset file naming no registered engine: one problem naming the known ones."""
    from sevendag_cli.errors import DataError, UsageError
    from sevendag_cli.rules import ruleset_from_data

    with pytest.raises(DataError) as info:
        ruleset_from_data({"engine": "fake", "name": "mine"}, "mine.toml")
    assert "sevendag, d20" in info.value.render("en")
    with pytest.raises(UsageError) as refused:
        backend_named("fake")
    assert refused.value.msg.key == "sim.engine"
