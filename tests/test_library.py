"""The library: ``import sevendag_cli as sd`` gives what the commands give.

Each result's ``to_dict()`` is checked against the command's ``--json`` document for the same
call (the same seed, the same dice), run through Typer's ``CliRunner``: fight, ``--runs``,
``--exact``, ``--odds``, sweep, matrix, and the encounter's init, round, wound, undo, status,
odds and log — the encounter files the two write are the same bytes too.  Then: the library's
errors are the CLI's, a failed call changes nothing, a locked encounter is refused, importing
the library stays light, its public signatures are typed without ``Any``, and the examples of
its docstrings (the ones ``docs/library.md`` shows) run.
"""

from __future__ import annotations

import doctest
import inspect
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import sevendag_cli as sd
from sevendag_cli import encounter as encounter_module
from sevendag_cli import library as library_module
from sevendag_cli import store
from sevendag_cli.errors import EncounterError, SevendagError
from sevendag_cli.failure import error_key
from sevendag_cli.jsontext import json_text
from tests.helpers import run, run_json


def plain(doc: object) -> Any:
    """A document as the CLI writes it, read back (tuples become lists...)."""
    return json.loads(json_text(doc))


def same(cli_args: list[str], doc: object) -> None:
    assert run_json(*cli_args) == plain(doc)


# --- matchups ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("cli", "call"), [
    (["A", "B", "--ruleset", "d20"], lambda: sd.matchup("A", "B", ruleset="d20")),
    ([], lambda: sd.matchup()),  # the ruleset's example pair (Sevendag)
    (["A", "B", "-r", "d20", "--set", "B.ac=15", "--set", "A.weapon.damage=1d8"],
     lambda: sd.matchup("A", "B", "d20", set={"B.ac": 15, "A.weapon.damage": "1d8"})),
    (["--tactic", "Brannoc=all-out"], lambda: sd.matchup(tactic="Brannoc=all-out")),
])
def test_a_fight_is_the_cli_fight_for_the_same_seed(cli: list[str], call: Any) -> None:
    """S-01..S-08, D-01..D-06 as the engines play them: the library plays the CLI's fight."""
    m = call()
    fight = m.fight(seed=7)
    same(["fight", *cli, "--seed", "7"], fight.to_dict())
    assert fight.to_dict() == m.fight(seed=7).to_dict()  # same seed, same fight
    assert fight.winner == fight.to_dict()["winner"]
    assert repr(m) == f"Matchup({m.a.name!r}, {m.b.name!r}, ruleset={m.ruleset.name!r})"


def test_a_fight_with_entered_dice_and_a_cap() -> None:
    m = sd.matchup("A", "B", "d20")
    same(["fight", "A", "B", "-r", "d20", "--dice", "19,5,8", "--seed", "3", "--cap", "2"],
         m.fight(dice=[19, 5, 8], seed=3, cap=2).to_dict())


def test_simulate_is_fight_runs() -> None:
    m = sd.matchup("A", "B", "d20")
    same(["fight", "A", "B", "-r", "d20", "--runs", "2000", "--seed", "11"],
         m.simulate(2000, seed=11).to_dict())
    sev = sd.matchup(set=["Ysolde.attack=9"])
    same(["fight", "--runs", "500", "--seed", "5", "--set", "Ysolde.attack=9"],
         sev.simulate(500, seed=5).to_dict())


@pytest.mark.slow
def test_exact_is_fight_exact() -> None:
    same(["fight", "A", "B", "-r", "d20", "--exact", "--tolerance", "1e-9", "--cap", "30"],
         sd.matchup("A", "B", "d20").exact(tolerance=1e-9, cap=30).to_dict())
    same(["fight", "--exact", "--lang", "fr"], sd.matchup().exact().to_dict("fr"))


@pytest.mark.slow
def test_odds_swing_is_fight_odds() -> None:
    same(["fight", "A", "B", "-r", "d20", "--odds", "--seed", "5"],
         sd.matchup("A", "B", "d20").odds_swing(seed=5).to_dict())
    same(["fight", "--odds", "--seed", "2", "--tactic", "Brannoc=all-out"],
         sd.matchup(tactic={"Brannoc": "all-out"}).odds_swing(seed=2).to_dict())


def test_sweep_is_the_sweep_command() -> None:
    m = sd.matchup("A", "B", "d20")
    same(["sweep", "A", "B", "-r", "d20", "--vary", "A.ac=10..13", "--fair"],
         m.sweep("A.ac", "10..13", fair=True).to_dict())
    same(["sweep", "A", "B", "-r", "d20", "--vary", "A.weapon.damage=1d6,1d8", "--runs", "300",
          "--seed", "4"],
         m.sweep("A.weapon.damage", ["1d6", "1d8"], runs=300, seed=4).to_dict())


def test_matrix_is_the_matrix_command() -> None:
    same(["matrix", "A", "B", "-r", "d20", "--jobs", "1", "--seed", "1", "--set", "B.ac=12"],
         sd.matrix(["A", "B"], "d20", jobs=1, seed=1, set={"B.ac": 12}).to_dict())
    same(["matrix", "A", "B", "-r", "d20", "--jobs", "1", "--runs", "200", "--seed", "9"],
         sd.matrix(["A", "B"], "d20", jobs=1, runs=200, seed=9).to_dict())


def test_ruleset_is_the_one_the_cli_names() -> None:
    rs = sd.ruleset("d20")
    assert rs.engine == "d20" and rs.name == run_json("fight", "A", "B", "-r", "d20", "--seed", "1")[
        "ruleset"]


@pytest.mark.parametrize(("call", "cli"), [
    (lambda: sd.matchup("Nobody", "B", "d20"), ["fight", "Nobody", "B", "--ruleset", "d20"]),
    (lambda: sd.matchup(ruleset="chess"), ["fight", "--ruleset", "chess"]),
    (lambda: sd.matchup("A", "B", "d20").simulate(0), ["fight", "A", "B", "-r", "d20", "--runs", "0"]),
    (lambda: sd.matchup("A", "B", "d20", set="A.nonsense=3"),
     ["fight", "A", "B", "-r", "d20", "--set", "A.nonsense=3"]),
    (lambda: sd.ruleset("chess"), ["fight", "--ruleset", "chess"]),
])
def test_errors_are_the_cli_errors(call: Any, cli: list[str]) -> None:
    with pytest.raises(SevendagError) as caught:
        call()
    result = run(*cli, "--json")
    error = json.loads(result.stdout)["error"]
    assert (error_key(caught.value.msg), caught.value.exit_code) == (error["key"], error["exit_code"])
    assert caught.value.msg.render("en") in error["message"]


# --- the encounter ------------------------------------------------------------------------------


def _without_path(doc: object) -> Any:
    data = plain(doc)
    if isinstance(data, dict) and "encounter" in data:
        data["encounter"] = "*"
    return data


def table(cli_args: list[str], doc: object) -> None:
    """The command on cli.json and the library on lib.json: the same document and the same file."""
    cli = run_json(*cli_args, "--encounter", "cli.json")
    assert _without_path(cli) == _without_path(doc)
    assert Path("cli.json").read_bytes() == Path("lib.json").read_bytes()


def test_a_d20_encounter_played_by_the_library_is_the_cli_one() -> None:
    enc = sd.Encounter.start("A", "B", "d20", path="lib.json", dice=[19, 5])
    assert enc.started is not None
    table(["init", "A", "B", "--ruleset", "d20", "--dice", "19,5"], enc.started.to_dict())
    table(["round", "--dice", "8,18,17,3,3"], enc.round(dice="8,18,17,3,3").to_dict())
    table(["round", "--seed", "4", "--odds"], enc.round(seed=4, odds=True).to_dict())
    table(["wound", "b", "5"], enc.wound("b", 5).to_dict())
    table(["wound", "B", "--heal", "2"], enc.wound("B", 2, heal=True).to_dict())
    table(["undo"], enc.undo().to_dict())
    table(["status"], enc.status().to_dict())
    table(["odds", "--tolerance", "1e-9"], enc.odds(tolerance=1e-9).to_dict())
    table(["odds", "--set", "A.ac=15"], enc.odds(set={"A.ac": 15}).to_dict())
    table(["odds", "--lang", "fr", "--cap", "20"], enc.odds(cap=20).to_dict("fr"))
    table(["log"], enc.log().to_dict())
    opened = sd.Encounter.open("lib.json")
    assert opened.status().to_dict() == enc.status().to_dict() and opened.started is None


def test_a_sevendag_encounter_with_choices_odds_and_lines() -> None:
    """S-03 (yield), S-04 (hands), S-05 (techniques) given as arguments, as the CLI's options."""
    enc = sd.Encounter.start(path="lib.json", seed=11, odds=True)
    assert enc.started is not None
    table(["init", "--seed", "11", "--odds"], enc.started.to_dict())
    played = enc.round(seed=12, allocate={"brannoc": "attack,defence"},
                       technique=["Ysolde=feint"], odds=True)
    table(["round", "--seed", "12", "-a", "brannoc=attack,defence", "-t", "Ysolde=feint", "--odds"],
          played.to_dict())
    lines = run("round", "--seed", "13", "--yield", "--jsonl", "-e", "cli.json").stdout.splitlines()
    assert [json.loads(line) for line in lines] == plain(enc.round(seed=13, yield_initiative=True).events())
    assert run("log", "--jsonl", "-e", "lib.json").stdout.splitlines() == [
        json_text(line) for line in plain(enc.log().events())]
    table(["wound", "Brannoc", "light"], enc.wound("Brannoc", "light").to_dict())
    table(["odds", "--tactic", "Brannoc=all-out"], enc.odds(tactic={"Brannoc": "all-out"}).to_dict())
    table(["log"], enc.log().to_dict())


def snapshot() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(Path().iterdir()) if p.is_file()}


@pytest.mark.parametrize("call", [
    lambda enc: enc.wound("Nobody", 5),
    lambda enc: enc.round(dice="8,18"),  # too few faces: checked after the round is played
    lambda enc: enc.round(seed=1, allocate={"A": "attack"}),  # d20 has no choices
    lambda enc: enc.wound("A", "light"),  # a band name in d20
])
def test_a_failed_call_changes_nothing(call: Any) -> None:
    enc = sd.Encounter.start("A", "B", "d20", path="lib.json", dice="19,5")
    enc.round(seed=2)
    before = snapshot()
    with pytest.raises(SevendagError):
        call(enc)
    assert snapshot() == before


def test_an_encounter_in_use_is_refused_and_left_as_it_was() -> None:
    enc = sd.Encounter.start("A", "B", "d20", path="lib.json", dice="19,5")
    before = snapshot()
    with store.locked(Path("lib.json")):
        with pytest.raises(EncounterError, match="in use"):
            enc.round(seed=3)
        with pytest.raises(EncounterError, match="in use"):
            sd.Encounter.start("A", "B", "d20", path="lib.json", dice="19,5", force=True)
        assert enc.status().busy  # readers read it as last saved, and say so
    assert snapshot() == before


def test_init_does_not_replace_an_encounter_in_progress() -> None:
    sd.Encounter.start(path="lib.json", seed=1)
    before = snapshot()
    with pytest.raises(EncounterError) as caught:
        sd.Encounter.start(path="lib.json", seed=2)
    assert caught.value.msg.key == "cli.in_progress" and snapshot() == before
    assert sd.Encounter.start(path="lib.json", seed=2, force=True).started is not None


def test_round_asks_what_the_arguments_leave_out() -> None:
    """The CLI's terminal prompt is a function given to the library (S-03, S-04)."""
    from sevendag_cli.sevendag.engine import Choices

    enc = sd.Encounter.start(path="lib.json", seed=5)
    asked: list[object] = []

    def ask(rs: object, a: Any, b: Any, state: object, yield_: bool | None,
            allocation: dict[str, tuple[str, ...]], technique: dict[str, str]) -> Choices:
        asked.append((yield_, dict(allocation)))
        return Choices(yield_initiative=False, allocation=allocation, technique=technique)

    enc.round(seed=6, allocate={"brannoc": "a,d"}, ask=ask)
    assert asked == [(None, {"Brannoc": ("attack", "defence")})]


# --- the package ----------------------------------------------------------------------------------


def test_importing_the_library_stays_light() -> None:
    code = ("import sys, sevendag_cli as sd\n"
            "sd.Encounter, sd.matchup, sd.matrix, sd.ruleset, sd.Matchup\n"
            "print(sorted(m for m in ('numpy', 'icepool', 'rich', 'typer', 'matplotlib') "
            "if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_exports_are_the_modules_names() -> None:
    assert sd.Encounter is encounter_module.Encounter and sd.matchup is library_module.matchup
    assert set(sd.__all__) <= set(dir(sd))
    with pytest.raises(AttributeError):
        sd.nothing_here  # noqa: B018
    assert (Path(sd.__file__).parent / "py.typed").is_file()


def _public(module: Any) -> list[tuple[str, Any]]:
    found = []
    for name in module.__all__:
        obj = getattr(module, name)
        if inspect.isclass(obj):
            found += [(f"{name}.{k}", v) for k, v in vars(obj).items()
                      if (not k.startswith("_") or k == "__init__") and callable(v)]
            found += [(f"{name}.{k}", v.__func__) for k, v in vars(obj).items()
                      if isinstance(v, classmethod)]
            found += [(f"{name}.{k}", v.fget) for k, v in vars(obj).items() if isinstance(v, property)]
        elif callable(obj):
            found.append((name, obj))
    return found


@pytest.mark.parametrize("module", [library_module, encounter_module], ids=["library", "encounter"])
def test_public_signatures_are_typed_without_any(module: Any) -> None:
    for name, fn in _public(module):
        annotations = dict(getattr(fn, "__annotations__", {}))
        params = [p for p in inspect.signature(fn).parameters if p not in ("self", "cls")]
        assert "return" in annotations, name
        assert all(p in annotations for p in params), name
        for text in map(str, annotations.values()):
            assert not re.search(r"\bAny\b", text), (name, text)


@pytest.mark.parametrize("module", [library_module, encounter_module], ids=["library", "encounter"])
def test_the_docstring_examples_run(module: Any) -> None:
    """The examples of ``docs/library.md`` are these (run here in an empty folder)."""
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.slow
def test_the_examples_of_the_docs_page_run() -> None:
    page = Path(__file__).resolve().parent.parent / "docs" / "library.md"
    if not page.is_file():  # an sdist has no docs/
        pytest.skip("no docs/library.md here")
    result = doctest.testfile(str(page), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 20 and result.failed == 0
