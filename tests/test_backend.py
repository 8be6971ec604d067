"""One backend per ruleset behind one interface.

* Outside the two ruleset packages (``sevendag_cli/d20/``, ``sevendag_cli/sevendag/``)
  and the registry (``sevendag_cli/backend.py``), no code chooses the ruleset: no
  comparison with an engine name, no ``isinstance`` with a ruleset's own class, no
  import of a ruleset's module; and no code names a ruleset: no function, class,
  constant (a limit), field or parameter named after one (``d20_push``,
  ``MAX_D20_PUSH_CELLS``, a record's ``sevendag`` field), no ruleset's message key
  (``advise.d20``, ``exact.sev.states``: the catalogues' keys with a ruleset's word), no
  key built from the engine name.  Scanned from the source (AST).
* A third ruleset is its package and one registry line: "coin" (``tests/fake_ruleset.py``)
  registered here is read from its files and played through every path of the tool, which
  together ask its backend for every method of the protocol.
"""

from __future__ import annotations

import ast
import itertools
import re
import sys
import types
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import sevendag_cli
from sevendag_cli import backend as registry
from sevendag_cli.backend import BACKENDS, backend_for, backend_named, engines
from tests.fake_ruleset import CoinFighter, CoinRuleset, Recorder, _Logged

ROOT = Path(sevendag_cli.__file__).parent
PACKAGES = ("d20", "sevendag")
"""The rulesets' own packages: inside them, code may know which ruleset it is."""

REGISTRY = ROOT / "backend.py"

CATALOGUES = (ROOT / "messages.py", ROOT / "i18n.py")
"""The message and display-word catalogues: they hold every key, the rulesets' too."""

TOOL = "the tool's own name (sevendag), not the ruleset's"
ALLOWED: dict[tuple[str, str], str] = {
    ("cli.py", "defines SevendagGroup"): TOOL,
    ("commandline.py", "defines SevendagCommandBase"): TOOL,
    ("commandline.py", "defines SevendagCommand"): TOOL,
    ("commandline.py", "defines SevendagGroupBase"): TOOL,
    ("errors.py", "defines SevendagError"): TOOL,
    ("click_compat.py", "defines sevendag_checked"): TOOL,
}
"""Offenders that are not a choice of ruleset, with the reason.  Data that merely names a
ruleset — the default ruleset, the user-config folder ``sevendag``, the command name, an
output key (``{"d20": ..., "sevendag": ...}``) — is neither a comparison, a definition nor a
message key, so the scan does not see it."""

RULESET_WORDS = frozenset({"d20", "sev", "sevendag"})
"""The words that name a ruleset in an identifier or a message key."""


def words(name: str) -> set[str]:
    """The words of an identifier or a key, in lower case: split at dots, underscores, a
    change to upper case and a letter after a digit (``D20Ruleset``: ``d20``, ``ruleset``)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[0-9])(?=[a-zA-Z])",
                    "_", name)
    return {w.lower() for w in re.split(r"[\W_]+", spaced) if w}


def ruleset_named(name: str) -> bool:
    return bool(words(name) & RULESET_WORDS)


def ruleset_keys() -> frozenset[str]:
    """The catalogues' keys named after a ruleset (``advise.d20``, ``engine.sev.hand``,
    ``cli.d20_no_choices``, the display word ``sev.attack``...)."""
    from sevendag_cli import i18n, messages

    return frozenset(k for k in (*messages.MESSAGES, *i18n.MESSAGES) if ruleset_named(k))


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


def _defined(node: ast.AST) -> list[str]:
    """The names ``node`` defines: a function, a class, a constant or a field (an assignment's
    targets, an attribute's too), a parameter, an import's new name."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.alias):
        return [node.asname] if node.asname else []
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    names: list[str] = []
    while targets:
        t = targets.pop(0)
        if isinstance(t, ast.Name):
            names.append(t.id)
        elif isinstance(t, ast.Attribute):
            names.append(t.attr)
        elif isinstance(t, (ast.Tuple, ast.List)):
            targets.extend(t.elts)
        elif isinstance(t, ast.Starred):
            targets.append(t.value)
    return names


def _engine_name_expr(node: ast.expr) -> bool:
    """``engine``, ``rs.engine``, ``doc["engine"]``: where a value is an engine name."""
    if isinstance(node, ast.Name):
        return node.id == "engine"
    if isinstance(node, ast.Attribute):
        return node.attr == "engine"
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "engine"
    return False


def _key_from_engine(node: ast.JoinedStr) -> bool:
    """An f-string that makes a key (its text has a dot and no space) of an engine name
    (``f"exact.assume.{engine}"``): a ruleset's key, named outside its package."""
    text = "".join(v.value for v in node.values
                   if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return "." in text and not any(c.isspace() for c in text) and any(
        isinstance(v, ast.FormattedValue) and _engine_name_expr(v.value) for v in node.values)


def offenders_in(source: str, module: str, classes: set[str], engines_: set[str],
                 keys: frozenset[str] = frozenset(), catalogue: bool = False) -> list[str]:
    """Each place in ``source`` (the module ``module``, for relative imports) that chooses or
    names a ruleset, as ``line: what``: ``keys`` are the rulesets' message keys (a
    ``catalogue`` holds them: not an offence there)."""
    found: list[str] = []
    package = module.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(source)):
        line = getattr(node, "lineno", 0)
        for name in _defined(node):
            if ruleset_named(name):
                found.append(f"{line}: defines {name}")
        if isinstance(node, ast.keyword) and node.arg is not None and ruleset_named(node.arg):
            found.append(f"{line}: passes {node.arg}=")
        if not catalogue and isinstance(node, ast.Constant) and node.value in keys:
            found.append(f"{line}: names the message key {node.value}")
        if isinstance(node, ast.JoinedStr) and _key_from_engine(node):
            found.append(f"{line}: builds a key from the engine name")
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
def test_no_code_outside_the_ruleset_packages_chooses_or_names_the_ruleset() -> None:
    classes = _per_ruleset_classes()
    assert {"D20Ruleset", "D20Fighter", "SevendagRuleset", "SevendagFighter"} <= classes
    engines_ = _engine_names()
    keys = ruleset_keys()
    assert {"advise.d20", "exact.sev.states", "cli.d20_no_choices", "sev.attack"} <= keys
    offenders: list[str] = []
    used: set[tuple[str, str]] = set()
    for path in _scanned():
        rel = path.relative_to(ROOT).as_posix()
        module = "sevendag_cli." + rel[:-3].replace("/", ".")
        for hit in offenders_in(path.read_text(encoding="utf-8"), module, classes, engines_,
                                keys, catalogue=path in CATALOGUES):
            what = hit.split(": ", 1)[1]
            if (rel, what) in ALLOWED:
                used.add((rel, what))
                continue
            offenders.append(f"sevendag_cli/{rel}:{hit}")
    assert not offenders, "code outside the ruleset packages chooses or names the ruleset " \
        "(ask sevendag_cli.backend instead; a ruleset's own names live in its package):\n" \
        + "\n".join(offenders)
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
    ("def d20_push(x):\n    pass\n", "defines d20_push"),
    ("MAX_D20_PUSH_CELLS = 10\n", "defines MAX_D20_PUSH_CELLS"),
    ("SEV_LIMIT: int = 3\n", "defines SEV_LIMIT"),
    ("class D20Extra:\n    pass\n", "defines D20Extra"),
    ("class Result:\n    sevendag: object = None\n", "defines sevendag"),
    ("self.sev_table = {}\n", "defines sev_table"),
    ("a, (b, d20tables) = f()\n", "defines d20tables"),
    ("def f(*, sevendag_rules):\n    pass\n", "defines sevendag_rules"),
    ("from sevendag_cli.sim import push as d20_push\n", "defines d20_push"),
    ("r = Result(d20=None)\n", "passes d20="),
    ('raise UsageError(Msg("advise.d20"))\n', "names the message key advise.d20"),
    ('LIMITS = frozenset({"exact.sev.states"})\n', "names the message key exact.sev.states"),
    ('raise UsageError(Msg("cli.d20_no_choices"))\n', "names the message key cli.d20_no_choices"),
    ('line = r.tr("sev.attack")\n', "names the message key sev.attack"),
    ('m = Msg(f"exact.assume.{engine}")\n', "builds a key from the engine name"),
    ('m = Msg(f"exact.note.{rs.engine}_end")\n', "builds a key from the engine name"),
])
def test_the_scan_sees_each_way_of_choosing(source: str, what: str) -> None:
    hits = offenders_in(source, "sevendag_cli.sim.example", {"D20Ruleset", "SevendagFighter"},
                        {"d20", "sevendag"}, ruleset_keys())
    assert [h.split(": ", 1)[1] for h in hits] == [what]


@pytest.mark.parametrize("source", [
    'DEFAULT = "sevendag"\n',  # data, not a choice
    'path = user_config_dir("sevendag")\n',
    "ok = isinstance(exc, SevendagError)\n",  # a shared class, not a ruleset's
    'doc = {"d20": None}\n',
    '"""See :mod:`sevendag_cli.d20.vector` for the batch."""\n',
    "from sevendag_cli.backend import backend_for\n",
    'doc = {"d20": None, "sevendag": None}  # the JSON keys kept for the contract\n',
    'raise UsageError(Msg("advise.no_choices"))\n',  # a key of no ruleset
    'note = "a d20 and a sevendag fighter: several severe wounds"\n',  # prose, not a key
    "def severity(level):\n    pass\n",  # "sev" is a word, not a part of one
    "def d2_face(dice):\n    return dice.face(2)\n",
    "text = Text(f\"{doc['label']} ({doc['name']}, {doc['engine']})\")\n",  # shown, not a key
    'key = f"exact.note.stop.{odds.stop}"\n',  # built, but not from an engine
])
def test_the_scan_lets_data_be(source: str) -> None:
    assert offenders_in(source, "sevendag_cli.sim.example", {"D20Ruleset"}, {"d20", "sevendag"},
                        ruleset_keys()) == []


def test_a_catalogue_holds_the_rulesets_keys() -> None:
    source = 'MESSAGES = {"advise.d20": {"en": "...", "fr": "..."}}\n'
    assert offenders_in(source, "sevendag_cli.messages", set(), set(), ruleset_keys(),
                        catalogue=True) == []
    assert offenders_in(source, "sevendag_cli.sim.example", set(), set(), ruleset_keys()) \
        == ["1: names the message key advise.d20"]


@pytest.mark.parametrize(("name", "found"), [
    ("D20Ruleset", {"d20", "ruleset"}), ("MAX_D20_PUSH_CELLS", {"max", "d20", "push", "cells"}),
    ("SevendagState", {"sevendag", "state"}), ("exact.sev.states", {"exact", "sev", "states"}),
    ("d20push", {"d20", "push"}), ("HTTPServer", {"http", "server"}),
])
def test_words_split_identifiers_and_keys(name: str, found: set[str]) -> None:
    assert words(name) == found


# --- the registry --------------------------------------------------------------------------------


def test_each_registered_backend_is_its_modules_and_reads_its_engines_rulesets() -> None:
    import importlib

    from sevendag_cli.rules import load_ruleset

    assert engines() == tuple(BACKENDS) == ("sevendag", "d20")
    for engine in engines():
        assert backend_named(engine) is importlib.import_module(BACKENDS[engine]).BACKEND
        assert load_ruleset(engine).engine == engine


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


# --- a third ruleset, played through every path of the tool ----------------------------------------

COIN_RULESET = """engine = "coin"
name = "coin"
label = { en = "Coin", fr = "Pile ou face" }
examples = ["ana", "bo"]
round_cap = 8
"""


def _sheet(name: str, hp: int) -> str:
    return f'ruleset = "coin"\nname = "{name}"\nhp = {hp}\n'


@pytest.fixture
def coin(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    """The coin ruleset registered (its package: a module, and one registry line), behind a
    recorder of what is asked of it; its ruleset file and sheets in the test's folder."""
    recorder = Recorder()
    module = types.ModuleType("coin_ruleset_backend")
    module.BACKEND = recorder  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "coin_ruleset_backend", module)
    monkeypatch.setitem(registry.BACKENDS, "coin", "coin_ruleset_backend")  # the one line
    Path("coin.toml").write_text(COIN_RULESET, encoding="utf-8")
    for name, hp in (("Ana", 3), ("Bo", 2), ("Cy", 2), ("Big", 4), ("Huge", 5)):
        Path(f"{name.lower()}.toml").write_text(_sheet(name, hp), encoding="utf-8")
    return recorder


def test_a_third_ruleset_is_a_package_and_one_registry_line(coin: Recorder) -> None:
    from sevendag_cli.engine import engine_for
    from sevendag_cli.rules import load_fighter, load_ruleset

    assert backend_named("coin") is coin
    assert engines()[-1] == "coin"
    rs = load_ruleset("coin.toml")
    assert rs == CoinRuleset("coin", {"en": "Coin", "fr": "Pile ou face"}, "coin.toml", 8,  # type: ignore[comparison-overlap]
                             ("ana", "bo"), {}, {})
    assert backend_for(rs) is coin
    assert isinstance(engine_for(rs), _Logged)  # its own step engine, through the recorder
    assert load_fighter("ana.toml", rs) == CoinFighter("Ana", "ana.toml", 3)  # type: ignore[comparison-overlap]


def _refused(result: Any, key_text: str) -> None:
    assert result.exit_code != 0, result.stdout
    assert key_text in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def play_every_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command and library call a ruleset's backend serves, played with coin."""
    import json

    import typer.testing

    import sevendag_cli as sd
    from sevendag_cli.engine import engine_for
    from sevendag_cli.errors import UsageError
    from sevendag_cli.rules import load_fighter, load_ruleset
    from tests.helpers import ok, run

    # the library: a fight, its odds round by round, runs, exact odds, a sweep, a table
    m = sd.matchup("ana.toml", "bo.toml", ruleset="coin.toml")
    assert m.fight(seed=3).to_dict()["winner"] in ("Ana", "Bo")
    assert m.odds_swing(seed=3).to_dict()["odds"]
    assert m.simulate(200, seed=1).to_dict()["coin"] is not None
    assert m.exact().to_dict()["fighters"][0]["win_probability_exact"] == "11/16"
    assert len(m.sweep("Ana.hp", "1..3").to_dict()["points"]) == 3
    assert sd.matrix(["ana.toml", "bo.toml", "cy.toml"], "coin.toml", jobs=1, exploit=True)
    assert sd.matrix(["big.toml", "huge.toml"], "coin.toml", jobs=1)  # beyond the exact solver
    assert sd.matrix(["ana.toml", "bo.toml", "cy.toml"], "coin.toml", jobs=2)  # workers, warmed
    rs = load_ruleset("coin.toml")
    a, b = load_fighter("ana.toml", rs), load_fighter("bo.toml", rs)
    from sevendag_cli.dice import SeededDice

    whole = engine_for(rs).fight(rs, a, b, SeededDice(5))  # the step engine's whole fight
    assert whole.winner in ("Ana", "Bo")

    # the table, through the library: init (with the odds), rounds, wounds, undo, status, log
    enc = sd.Encounter.start("ana.toml", "bo.toml", "coin.toml", path="duel.json", dice=[2, 1],
                             odds=True)
    assert enc.round(seed=1).to_dict()["round"]["number"] == 1  # Ana won the initiative: she hits
    assert enc.round(dice=[2]).to_dict()["round"]["number"] == 2  # the coin says Bo
    assert enc.wound("Ana", 1).to_dict()["fighters"][0]["hp"] == 1
    assert enc.wound("Ana", 1, heal=True).to_dict()["fighters"][0]["hp"] == 2
    assert enc.undo().to_dict()["undone"]["step"] == "heal"
    assert enc.status().to_dict()["elapsed_seconds"] == 12  # two rounds of six seconds
    assert [s["step"] for s in enc.log().to_dict()["steps"]] == ["init", "round", "round", "wound"]
    at = enc.odds(set=["Ana.hp=4"])  # the saved state keeps her hit points: said so
    assert at.to_dict()["fighters"][0]["win_probability"] == 0.5  # 1 hp each, a coin
    assert [n.key for n in at.notes] == ["whatif.saved_hp"]
    with pytest.raises(UsageError):
        enc.advise()  # nothing to advise

    # the commands: rulesets show, new, fight as the table shows it, runs, status, the refusals
    assert json.loads(ok("rulesets", "show", "coin.toml", "--json"))["coin"] == {"sides": 2, "damage": 1}
    new = json.loads(ok("new", "Dan", "--ruleset", "coin.toml", "--seed", "4", "--json"))
    assert sum(new["abilities"]["hp"]["rolls"]) == load_fighter(new["path"], rs).hp  # type: ignore[union-attr]
    shown = ok("fight", "ana.toml", "bo.toml", "--ruleset", "coin.toml", "--dice", "2,1,1")
    assert shown.count("Ana hits Bo") == 2, shown  # round 1 by the initiative, round 2 the coin
    assert "Ana" in ok("fight", "ana.toml", "bo.toml", "--ruleset", "coin.toml", "--runs", "100",
                       "--seed", "1")
    ok("init", "ana.toml", "bo.toml", "--ruleset", "coin.toml", "--dice", "2,1")
    assert "Ana" in ok("status")
    _refused(run("round", "--yield"), "Sevendag choices")
    _refused(run("wound", "--classify", "3", "--ruleset", "coin.toml"), "wound bands")
    _refused(run("odds", "--tactic", "Ana=defend"), "tactics")
    _refused(run("odds", "--set", "techniques.feint.attack=1"), "techniques")
    monkeypatch.setattr(typer.testing._NamedTextIOWrapper, "isatty", lambda self: True,
                        raising=False)
    _refused(run("round", "--ask", "Ana"), "no choices")
    assert "Round 1" in ok("round")  # at a terminal: asked, nothing to ask


def _protocol_members(protocol: type) -> set[str]:
    """A Protocol's own public methods and properties."""
    return {name for name, value in vars(protocol).items()
            if not name.startswith("_") and (callable(value) or isinstance(value, property))}


@pytest.mark.slow
def test_the_third_ruleset_serves_every_method_of_the_protocol(
        coin: Recorder, monkeypatch: pytest.MonkeyPatch) -> None:
    from sevendag_cli.backend import GROUPS, Aggregator, Backend, MomentOdds, StepEngine

    protocols = [Backend, StepEngine, *GROUPS.values(), MomentOdds, Aggregator]
    wanted = {(p.__name__, name) for p in protocols for name in _protocol_members(p)}
    assert ("Table", "advise") in wanted and ("StepEngine", "check_state") in wanted
    play_every_path(monkeypatch)
    missed = sorted(f"{p}.{name}" for p, name in wanted - coin.calls)
    assert not missed, f"no path of the tool asked the backend for: {', '.join(missed)}"


def brute_force(hp_a: int, hp_b: int, cap: int | None) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """P(a wins), P(b wins), P(draw) and the mean rounds of a coin fight, from every sequence
    of coins (the first: who won the initiative, K-01; then one a round, K-02), each as likely."""
    n = hp_a + hp_b - 1  # a fight lasts this long at most
    win_a = win_b = draw = rounds = Fraction(0)
    for coins in itertools.product((0, 1), repeat=n):
        ha, hb, p = hp_a, hp_b, Fraction(1, 2 ** n)
        for r, who in enumerate(coins, 1):
            ha, hb = (ha, hb - 1) if who == 0 else (ha - 1, hb)
            if ha == 0 or hb == 0 or r == cap:
                break
        win_a += p if hb == 0 else 0
        win_b += p if ha == 0 else 0
        draw += p if ha and hb else 0
        rounds += p * r
    return win_a, win_b, draw, rounds


@pytest.mark.parametrize(("hp_a", "hp_b", "cap"), [(3, 2, 8), (3, 3, 4), (4, 2, None), (1, 1, 1)])
def test_the_third_rulesets_exact_odds_are_the_brute_forces(coin: Recorder, hp_a: int, hp_b: int,
                                                            cap: int | None) -> None:
    import sevendag_cli as sd

    Path("ana.toml").write_text(_sheet("Ana", hp_a), encoding="utf-8")
    Path("bo.toml").write_text(_sheet("Bo", hp_b), encoding="utf-8")
    text = COIN_RULESET.replace("round_cap = 8\n", "" if cap is None else f"round_cap = {cap}\n")
    Path("coin.toml").write_text(text, encoding="utf-8")
    win_a, win_b, draw, rounds = brute_force(hp_a, hp_b, cap)
    doc = sd.matchup("ana.toml", "bo.toml", ruleset="coin.toml").exact().to_dict()
    assert [f["win_probability"] for f in doc["fighters"]] == pytest.approx([win_a, win_b], abs=1e-15)
    assert doc["draw_probability"] == pytest.approx(draw, abs=1e-15)
    assert doc["rounds"]["mean"] == pytest.approx(rounds, rel=1e-15)
    assert doc["coin"]["fighters"][0]["name"] == "Ana" and doc["d20"] is None  # its own figures
    end_a, end_b, _, end_rounds = brute_force(hp_a, hp_b, None)  # the fractions: to the end
    assert [f["win_probability_exact"] for f in doc["fighters"]] == [str(end_a), str(end_b)]
    assert doc["rounds_mean_exact"] == str(end_rounds)


def test_the_third_rulesets_runs_fall_within_reach_of_its_exact_odds(coin: Recorder) -> None:
    import sevendag_cli as sd

    m = sd.matchup("ana.toml", "bo.toml", ruleset="coin.toml")
    runs = m.simulate(4000, seed=11).to_dict()
    win_a, _, _, rounds = brute_force(3, 2, 8)
    low, high = runs["fighters"][0]["ci95"]
    assert low <= win_a <= high  # 11/16: the seed's 95% interval holds it
    assert abs(runs["rounds"]["mean"] - float(rounds)) < 0.05
    assert runs["first_striker_won"] == pytest.approx(11 / 16, abs=0.03)  # (7/16 + 4/16), none drawn


def test_the_third_rulesets_odds_from_a_moment_are_the_brute_forces(coin: Recorder) -> None:
    """After round 1 (Ana, who won the initiative, hits: Bo at 1 hp), the odds are those of
    a fight of 3 hp against 1 with one round fewer to the cap."""
    import sevendag_cli as sd

    enc = sd.Encounter.start("ana.toml", "bo.toml", "coin.toml", path="duel.json", dice=[2, 1])
    enc.round(seed=1)
    win_a, win_b, draw, _ = brute_force(3, 1, 7)
    doc = enc.odds().to_dict()
    assert [f["win_probability"] for f in doc["fighters"]] == pytest.approx([win_a, win_b], abs=1e-15)
    assert doc["draw_probability"] == draw == 0
    assert "d20 has no choices" in doc["note"]  # the backend's own words for what odds assume


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
