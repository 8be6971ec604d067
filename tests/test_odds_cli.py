"""Odds from any moment at the command line: ``odds``, ``round --odds``,
``init --odds`` and ``fight --odds``.

* ``odds`` reads the encounter and changes nothing (bytes, mode, modification time, no lock
  file), gives the solver's odds of the saved state (wounds, penalties, drops, techniques,
  granted criticals, the assaillant, the round and the cap), 1 and 0 once the fight is over;
* ``round --odds`` adds the odds before and after the round; they agree with ``odds`` run
  before and after it; the odds roll no dice (entered, typed at the terminal or seeded: the
  round is the one played without ``--odds``); the solver's work is kept in the user's cache
  (never in the encounter file), reused, and a damaged one is ignored and built again;
* ``fight --odds`` plays the fight ``fight`` plays (same seed), and its odds start from
  ``fight --exact``'s and end at 1 and 0 for the winner;
* every JSON output validates against the schema ``sevendag schema NAME`` prints;
* the displays, golden at 80 columns (and the chart at 60) in both languages (regenerate with
  ``SEVENDAG_UPDATE_GOLDEN=1 python -m pytest tests/test_odds_cli.py`` and review the diff).
"""

from __future__ import annotations

import base64
import json
import os
import stat
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import typer.testing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sevendag_cli import store
from sevendag_cli.commands.table import open_encounter
from sevendag_cli.sim.moment import odds_at
from tests.helpers import (
    BUNDLED,
    ENCOUNTER,
    GOLDEN,
    Step,
    assert_one_line_error,
    check_width,
    compare,
    folder_state,
    house_ruleset,
    ok,
    render,
    run,
    run_json,
    validate,
)


def fighters(doc_fighters: list[dict[str, Any]]) -> list[tuple[str, float, list[float]]]:
    return [(f["name"], f["win_probability"], f["bounds"]) for f in doc_fighters]


def overlap(x: list[dict[str, Any]], y: list[dict[str, Any]]) -> bool:
    """Two answers for the same state: certified intervals that meet (the true value is in both)."""
    return all(fx["name"] == fy["name"] and fx["bounds"][0] <= fy["bounds"][1]
               and fy["bounds"][0] <= fx["bounds"][1] for fx, fy in zip(x, y, strict=True))


def saved() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(ENCOUNTER.read_text("utf-8"))
    return doc


def kept_entries() -> dict[str, bytes]:
    """The solver work in the user's cache (``$SEVENDAG_CACHE``, one per test): name -> bytes."""
    folder = Path(os.environ["SEVENDAG_CACHE"]) / "odds"
    return {p.name: p.read_bytes() for p in folder.glob("*.bin")} if folder.is_dir() else {}


# --- odds: read only, the solver's answer for the saved state ------------------------------------


@pytest.mark.parametrize("kept", [False, True])
@pytest.mark.parametrize("args", [["odds"], ["odds", "--json"], ["odds", "--lang", "fr"],
                                  ["odds", "--cap", "5", "--tolerance", "1e-6", "--json"]])
def test_odds_changes_nothing(tmp_path: Path, args: list[str], kept: bool) -> None:
    ok("init", "--seed", "22", *(["--odds"] if kept else []))
    ok("round", "--seed", "23", "--no-input")
    os.chmod(ENCOUNTER, 0o640)
    for lock in tmp_path.glob("*.lock"):
        lock.unlink()
    before = folder_state(tmp_path)
    ok(*args)
    assert folder_state(tmp_path) == before  # not even a lock file
    assert stat.S_IMODE(ENCOUNTER.stat().st_mode) == 0o640
    assert bool(kept_entries()) == kept and saved()["extra"] == {}


def test_odds_reads_while_a_writer_holds_the_encounter_as_last_saved() -> None:
    ok("init", "--seed", "22")
    expected = ok("odds", "--json")
    with store.locked(ENCOUNTER):
        result = run("odds", "--json")
        assert result.exit_code == 0 and result.stdout == expected
        assert "this is the encounter as last saved" in result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_odds_json_is_the_solvers_answer_for_the_saved_state(ruleset: str) -> None:
    """Hit points (d20); wounds and penalty, a dropped weapon with its round left, an iron guard
    in effect, a granted critical, the assaillant and the round (Sevendag, house ruleset)."""
    if ruleset == "d20":
        steps = [["init", "--ruleset", "d20", "--dice", "19,5"], ["round", "--dice", "8,18,17,3,3"],
                 ["wound", "A", "7"]]
    else:
        house_ruleset()
        # Ysolde's 16 against the iron guard's 16: foiled; Brannoc fumbles (1), drops his sword
        steps = [["init", "--ruleset", "house.toml", "--dice", "5,19", "brannoc", "ysolde"],
                 ["round", "--dice", "4,3,6,1,15", "--technique", "Brannoc=guard"],
                 ["wound", "Ysolde", "12"]]
    for args in steps:
        ok(*args)
    _enc, rs, a, b, state = open_encounter(ENCOUNTER)
    if ruleset == "sevendag":
        brannoc, ysolde = state.fighters
        assert brannoc.dropped and brannoc.technique is not None and ysolde.granted_crit
        assert ysolde.penalty > 0
    doc = run_json("odds")
    validate("odds", doc)
    expected = odds_at(rs, a, b, state)  # (the rounding bound depends on the chain's history)
    for f, p, bounds in zip(doc["fighters"], expected.win, expected.win_bounds, strict=True):
        assert abs(f["win_probability"] - p) < 1e-14 and f["bounds"][0] <= bounds[1]
    assert abs(doc["draw_probability"] - expected.draw) < 1e-14
    assert doc["round"] == 1 and doc["cap"] == rs.round_cap
    # the bundled d20 ruleset has no round cap: the fight to the end, no rounds left to count
    assert doc["rounds_left"] == (None if rs.round_cap is None else rs.round_cap - 1)
    assert doc["tolerance"] == 1e-12 and doc["unresolved"] <= 1e-12 and doc["stop"] == expected.stop
    assert doc["over"] is False and doc["winner"] is None
    assert doc["engine"] == ruleset and doc["seed"] is None and doc["encounter"] == str(ENCOUNTER)
    sevendag_keys = ["sheet-tactics", "no-yield", "no-new-technique"]
    assert doc["assumes"] == ([*sevendag_keys, "draw-at-cap"] if ruleset == "sevendag" else [])
    total = sum(f["win_probability"] for f in doc["fighters"]) + doc["draw_probability"] + doc["unresolved"]
    assert abs(total - 1.0) < 1e-12


@pytest.mark.slow
def test_odds_follow_the_state_a_wound_by_hand_lowers_them() -> None:
    ok("init", "--seed", "22")
    first = run_json("odds")["fighters"][0]["win_probability"]
    ok("wound", "Brannoc", "serious")
    second = run_json("odds")["fighters"][0]["win_probability"]
    assert second < first
    ok("wound", "Brannoc", "--heal", "serious")
    # the same state again; in this one process the pair's chain has numbered more states since,
    # so the sums run in another order: equal to the last bits of rounding, not bit for bit
    assert run_json("odds")["fighters"][0]["win_probability"] == pytest.approx(first, abs=1e-12)


def test_odds_cap_counts_the_rounds_left_and_a_short_cap_gives_draws() -> None:
    ok("init", "--seed", "22")
    ok("round", "--seed", "23", "--no-input")
    doc = run_json("odds", "--cap", "3")
    validate("odds", doc)
    assert doc["cap"] == 3 and doc["rounds_left"] == 2 and doc["draw_probability"] > 0.01
    assert doc["stop"] == "complete" and "round 3 is a draw" in doc["note"]
    past = run_json("odds", "--cap", "1")  # the cap already passed: one more round, as round plays it
    assert past["rounds_left"] == 1 and past["draw_probability"] > doc["draw_probability"]
    loose = run_json("odds", "--tolerance", "1e-4")
    assert loose["tolerance"] == 1e-4 and loose["unresolved"] <= 1e-4


@pytest.mark.parametrize(("wound", "winner"), [(["Brannoc", "fatal"], "Ysolde"),
                                               (["Ysolde", "fatal"], "Brannoc")])
def test_odds_of_a_finished_fight_are_1_and_0(wound: list[str], winner: str) -> None:
    ok("init", "--seed", "22")
    ok("wound", *wound)
    doc = run_json("odds")
    validate("odds", doc)
    assert {f["name"]: (f["win_probability"], f["bounds"]) for f in doc["fighters"]} == {
        winner: (1.0, [1.0, 1.0]), wound[0]: (0.0, [0.0, 0.0])}
    assert (doc["over"], doc["winner"], doc["stop"], doc["rounds_left"]) == (True, winner, "over", 0)
    assert doc["note"] == "The fight is over: nothing is left to chance."
    assert "100.0%" in ok("odds") and "plus rien n'est laissé au hasard" in ok("odds", "--lang", "fr")


def test_odds_of_a_draw_at_the_round_cap() -> None:
    house_ruleset(round_cap="1")
    ok("init", "--ruleset", "house.toml", "--seed", "22")
    ok("round", "--seed", "23", "--no-input")
    doc = run_json("odds")
    validate("odds", doc)
    assert doc["over"] and doc["winner"] is None and doc["draw_probability"] == 1.0
    assert [f["win_probability"] for f in doc["fighters"]] == [0.0, 0.0]


@pytest.mark.parametrize(("args", "code", "fragment"), [
    (["odds"], 1, "no encounter"),
    (["odds", "--cap", "0"], 2, "--cap 0: the round cap is at least 1"),
    (["odds", "--tolerance", "1"], 2, "--tolerance 1.0: give a number from 0"),
    (["odds", "--tolerance", "-1e-3"], 2, "--tolerance"),
    (["odds", "--jsonl"], 2, "No such option"),
])
def test_odds_mistakes_are_one_line(args: list[str], code: int, fragment: str) -> None:
    if args[1:]:
        ok("init", "--seed", "22")
    result = run(*args)
    assert_one_line_error(result, code, fragment)
    if args[1:] and args[1] != "--jsonl":
        doc = json.loads(run(*args, "--json").stdout)
        validate("error", doc)
        assert doc["error"]["exit_code"] == code


def test_odds_that_cannot_be_computed_are_one_line_and_round_odds_changes_nothing() -> None:
    """Beyond what the exact solver handles (d20: 5,000 hit points): one line, exit 2, before any die
    is rolled; the round itself is still played without --odds."""
    text = (BUNDLED / "fighters" / "a.toml").read_text("utf-8")
    Path("big.toml").write_text("\n".join("hp = 6000" if line.startswith("hp =") else line
                                          for line in text.splitlines()) + "\n", "utf-8")
    ok("init", "big.toml", "b", "--ruleset", "d20", "--seed", "3")
    before = ENCOUNTER.read_bytes()
    for args in (["odds"], ["round", "--seed", "4", "--odds"], ["fight", "big.toml", "b", "--odds"]):
        assert_one_line_error(run(*args), 2, "exact odds handle at most 5,000 hit points a fighter")
    assert ENCOUNTER.read_bytes() == before
    ok("round", "--seed", "4")


def test_odds_help_has_an_example_in_both_languages() -> None:
    assert "Example: sevendag odds" in ok("odds", "--help")
    french = " ".join(ok("--lang", "fr", "odds", "--help").split())  # (Click's plain help wraps it)
    assert "Exemple : sevendag odds" in french and "tactique de sa fiche" in french


# --- round --odds ------------------------------------------------------------------------------------


TABLE = {
    "sevendag": [["init", "--seed", "22"], ["round", "--seed", "23", "--technique", "Ysolde=feint"],
                 ["round", "--seed", "24", "--yield", "--no-input"],
                 ["round", "--dice", "7,7,8,7", "--allocate", "Brannoc=attack,defence", "--no-input"]],
    "d20": [["init", "--ruleset", "d20", "--seed", "5"], ["round", "--seed", "6"],
            ["round", "--dice", "19,5,8,18,17,3,3"], ["round", "--seed", "7"]],
}


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", sorted(TABLE))
def test_round_odds_before_and_after_agree_with_odds_before_and_after(ruleset: str) -> None:
    """The first round --odds builds the kept work: its 'before' is a look-up, odds' a push (both
    certified: their intervals meet); from then on both read the same kept work (equal)."""
    steps = TABLE[ruleset]
    ok(*steps[0])
    for i, args in enumerate(steps[1:]):
        before = run_json("odds")
        doc = run_json(*args, "--odds")
        validate("round", doc)
        after = run_json("odds")
        odds = doc["odds"]
        assert overlap(odds["before"], before["fighters"])
        if i or ruleset == "d20":
            assert odds["before"] == before["fighters"]
            assert odds["draw_probability"]["before"] == before["draw_probability"]
        assert odds["after"] == after["fighters"]
        assert odds["draw_probability"]["after"] == after["draw_probability"]
        assert odds["unresolved"] == {"before": odds["unresolved"]["before"], "after": after["unresolved"]}
        assert (odds["cap"], odds["tolerance"], odds["assumes"]) == (
            after["cap"], after["tolerance"], after["assumes"])
        assert len(kept_entries()) == 1 and saved()["extra"] == {}


@pytest.mark.parametrize(("ruleset", "args"), [
    ("d20", ["round", "--dice", "8,18,17,3,3"]),
    ("d20", ["round", "--seed", "9"]),
    ("sevendag", ["round", "--dice", "4,3,6,1,15", "--technique", "Brannoc=guard"]),
    ("sevendag", ["round", "--seed", "9", "--yield", "--no-input"]),
])
def test_round_odds_roll_no_dice(ruleset: str, args: list[str]) -> None:
    """Entered faces (exactly those the round needs) and a seed give the same round with --odds as
    without: the solver takes no dice, none are consumed and none are left unused."""
    init = ["init", "--ruleset", ruleset, "--dice", "19,5" if ruleset == "d20" else "5,19"]
    ok(*init)
    plain = run_json(*args)
    plain_file = saved()
    ok("undo")
    with_odds = run_json(*args, "--odds")
    odds_file = saved()
    assert {k: v for k, v in with_odds.items() if k != "odds"} == plain
    assert odds_file["state"] == plain_file["state"] and odds_file["log"] == plain_file["log"]
    ok("undo")
    if "--dice" in args:
        faces = args[args.index("--dice") + 1]
        fewer = [faces.rsplit(",", 1)[0] if a == faces else a for a in args]
        more = [f"{faces},3" if a == faces else a for a in args]
        for changed in (fewer, more):
            without, with_ = run(*changed), run(*changed, "--odds")
            assert with_.exit_code == without.exit_code == 2
            assert with_.stderr == without.stderr


def test_round_odds_consume_none_of_the_dice_typed_at_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """--manual: the round asks for exactly its five dice, with or without --odds."""
    ok("init", "--ruleset", "d20", "--dice", "19,5")
    expected = run_json("round", "--dice", "8,18,17,3,3")
    ok("undo")
    monkeypatch.setattr(typer.testing._NamedTextIOWrapper, "isatty", lambda self: True, raising=False)
    result = run("round", "--manual", "--odds", "--json", input="8\n18\n17\n3\n3\n")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.count("d") >= 5  # the five prompts
    doc = json.loads(result.stdout)
    assert {k: v for k, v in doc.items() if k != "odds"} == expected
    short = run("round", "--manual", "--odds", input="8\n18\n17\n3\n")  # one die short: input ends
    assert short.exit_code == 2 and "input ended" in short.stderr


def test_round_odds_display_one_line_after_the_round_in_both_languages() -> None:
    ok("init", "--seed", "22")
    plain = ok("round", "--seed", "23", "--no-input")
    ok("undo")
    shown = ok("round", "--seed", "23", "--no-input", "--odds")
    lines = shown.splitlines()
    assert lines[-1].startswith("  odds: Brannoc ") and " → " in lines[-1] and ", Ysolde " in lines[-1]
    assert "\n".join(lines[:-1]) + "\n" == plain
    ok("undo")
    french = ok("round", "--seed", "23", "--no-input", "--odds", "--lang", "fr").splitlines()[-1]
    assert french.startswith("  chances : Brannoc ")


@pytest.mark.slow
def test_round_odds_jsonl_ends_with_an_odds_line() -> None:
    ok("init", "--ruleset", "d20", "--dice", "19,5")
    plain = ok("round", "--dice", "8,18,17,3,3", "--jsonl").splitlines()
    ok("undo")
    lines = ok("round", "--dice", "8,18,17,3,3", "--jsonl", "--odds").splitlines()
    assert lines[:-1] == plain
    last = json.loads(lines[-1])
    validate("round-event", last)
    assert last["type"] == "odds" and last["round"] == 1
    assert last["after"] == run_json("odds")["fighters"]


def test_the_odds_are_off_by_default() -> None:
    """The game master decides what the players see: nothing about odds without --odds."""
    ok("init", "--seed", "22")
    for args in (["round", "--seed", "23", "--no-input"], ["status"], ["log"]):
        assert "odds" not in ok(*args) and "%" not in ok(*args)
    assert "odds" not in run_json("round", "--seed", "24", "--no-input")
    assert "odds" not in run_json("status") and saved()["extra"] == {}


# --- the kept work, in the user's cache -----------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_the_solvers_work_is_kept_in_the_cache_and_reused(ruleset: str) -> None:
    schema = json.loads(ok("schema", "encounter"))
    ok("init", "--ruleset", ruleset, "--seed", "22")
    assert saved()["extra"] == {} and kept_entries() == {}
    ok("round", "--seed", "23", "--no-input", "--odds")
    kept = kept_entries()
    assert len(kept) == 1 and saved()["extra"] == {}
    jsonschema.validate(saved(), schema)
    (name,) = kept
    inode = (Path(os.environ["SEVENDAG_CACHE"]) / "odds" / name).stat().st_ino  # a rewrite: a new one
    ok("round", "--seed", "24", "--no-input", "--odds")
    assert kept_entries() == kept  # read, not built again
    assert (Path(os.environ["SEVENDAG_CACHE"]) / "odds" / name).stat().st_ino == inode  # (touched)
    ok("round", "--seed", "25", "--no-input")
    ok("wound", "B" if ruleset == "d20" else "Brannoc", "3" if ruleset == "d20" else "light")
    ok("undo")
    ok("undo")
    assert kept_entries() == kept and saved()["extra"] == {}
    assert run("log").exit_code == 0 and run("status").exit_code == 0
    jsonschema.validate(saved(), schema)


def test_status_and_log_are_the_same_whether_the_odds_were_kept_or_not() -> None:
    shown: list[list[str]] = []
    for odds in ([], ["--odds"]):
        ok("init", "--seed", "22", "--force")
        ok("round", "--seed", "23", "--no-input", *odds)
        ok("wound", "Ysolde", "light")
        shown.append([ok("status"), ok("log"), ok("log", "--jsonl")])
        assert bool(kept_entries()) == bool(odds) and saved()["extra"] == {}
    assert shown[0] == shown[1]


@pytest.mark.slow
def test_init_odds_keep_the_work_and_give_the_odds_from_the_start() -> None:
    doc = run_json("init", "--seed", "22", "--odds")
    validate("init", doc)
    odds = run_json("odds")
    assert doc["odds"]["fighters"] == odds["fighters"]
    assert (doc["odds"]["cap"], doc["odds"]["tolerance"], doc["odds"]["assumes"]) == (
        odds["cap"], odds["tolerance"], odds["assumes"])
    kept = kept_entries()
    assert len(kept) == 1 and saved()["extra"] == {}
    ok("round", "--seed", "23", "--no-input", "--odds")
    assert kept_entries() == kept
    shown = ok("init", "--ruleset", "d20", "--dice", "19,5", "--odds", "--force")
    assert shown.splitlines()[-1].startswith("  odds: A ") and ", B " in shown.splitlines()[-1]
    plain = run("init", "--ruleset", "d20", "--dice", "19,5", "--force")
    assert plain.stdout == "\n".join(shown.splitlines()[:-1]) + "\n"


def _set_kept(value: Any) -> None:
    """The one cache entry replaced by ``value`` (bytes as they are, text as base64 was)."""
    (name,) = kept_entries()
    path = Path(os.environ["SEVENDAG_CACHE"]) / "odds" / name
    head = path.read_bytes().split(b"\n", 1)[0] + b"\n"
    if isinstance(value, str):
        try:
            value = base64.b64decode(value, validate=True)
        except ValueError:
            value = value.encode()
    path.write_bytes(value if isinstance(value, bytes) and value[:1] == b"!" else head + value)


def _other_pairs_table() -> str:
    from sevendag_cli.rules import load_pair, load_ruleset
    from sevendag_cli.sim.moment import OddsSolver

    rs = load_ruleset("sevendag")
    a, b = load_pair(rs, None)
    return base64.b64encode(OddsSolver(rs, b, a, tolerance=1e-6).keep()).decode("ascii")


def _bad_probabilities() -> str:
    from sevendag_cli.rules import load_pair, load_ruleset
    from sevendag_cli.sevendag.chain import OddsTable
    from sevendag_cli.sim.moment import OddsSolver

    rs = load_ruleset("sevendag")
    a, b = load_pair(rs, None)
    table = OddsTable.from_bytes(OddsSolver(rs, a, b, tolerance=1e-6).keep())
    import msgspec

    raw = msgspec.to_builtins(table)
    raw["win_a"] = [2.0] * len(raw["win_a"])  # no solver writes this: refused when read
    return base64.b64encode(msgspec.msgpack.encode(raw)).decode("ascii")


@pytest.mark.slow
@pytest.mark.parametrize("damage", [
    pytest.param(lambda: "not base64 at all!", id="not-msgpack"),
    pytest.param(lambda: base64.b64encode(b"\x93\x01\x02").decode(), id="not-a-table"),
    pytest.param(lambda: b"", id="empty"),
    pytest.param(lambda: b"!no header", id="no-header"),
    pytest.param(_other_pairs_table, id="another-pair"),
    pytest.param(_bad_probabilities, id="not-probabilities"),
])
def test_damaged_kept_work_is_ignored_and_built_again(damage: Callable[[], Any]) -> None:
    ok("init", "--seed", "22")
    expected = run_json("odds")
    ok("round", "--seed", "23", "--no-input", "--odds")
    good = kept_entries()
    after = run_json("odds")
    ok("undo")
    _set_kept(damage())
    assert kept_entries() != good
    assert overlap(run_json("odds")["fighters"], expected["fighters"])  # read only: ignored
    doc = run_json("round", "--seed", "23", "--no-input", "--odds")
    assert doc["odds"]["after"] == after["fighters"]
    assert kept_entries() == good  # built again and kept


def test_D02_kept_d20_tables_no_solver_builds_are_refused_when_read_back() -> None:
    """Kept bytes come back from a file: d20 tables whose weights are not a distribution, or with a
    damage so large that the odds would fill the memory, are refused (the solver builds its own)."""
    import msgspec

    from sevendag_cli.d20.chain import D20Tables, d20_tables
    from sevendag_cli.d20.engine import D20FighterState, D20State
    from sevendag_cli.rules import load_pair, load_ruleset

    rs = load_ruleset("d20")
    a, b = load_pair(rs, None)
    good = msgspec.to_builtins(d20_tables(rs, a, b))
    state = D20State(3, (D20FighterState("A", 30, 45), D20FighterState("B", 41, 50)), None)
    expected = odds_at(rs, a, b, state)
    changes: list[Callable[[dict[str, Any]], None]] = [
        lambda t: t.update(den_a=0),
        lambda t: t.update(den_a=t["den_a"] + 1),  # the weights no longer sum to it
        lambda t: t.update(first=t["first_den"] + 1),
        lambda t: t.update(damage_b=[[10**12, t["den_b"]]]),
        lambda t: t.update(damage_a=[[-3, t["den_a"]]]),
    ]
    for change in changes:
        bad = json.loads(json.dumps(good))
        change(bad)
        data = msgspec.msgpack.encode(bad)
        with pytest.raises(msgspec.ValidationError):
            D20Tables.from_bytes(data)
        assert odds_at(rs, a, b, state, kept=data) == expected


# --- fight --odds ------------------------------------------------------------------------------------


def _fight_keys(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in ("cap", "tolerance", "assumes", "odds")}


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset", "args"), [
    ("sevendag", ["--seed", "5"]),
    ("d20", ["--seed", "7", "--cap", "30"]),
    ("sevendag", ["--seed", "2", "--cap", "4", "--tolerance", "1e-9"]),
    ("d20", ["--seed", "3", "--dice", "19,5,8,18,17,3,3"]),
])
def test_fight_odds_play_the_same_fight_from_fight_exact_to_1_and_0(ruleset: str, args: list[str]) -> None:
    doc = run_json("fight", "--ruleset", ruleset, *args, "--odds")
    validate("fight", doc)
    plain = [a for i, a in enumerate(args) if "--tolerance" not in (a, args[i - 1])]
    assert _fight_keys(doc) == run_json("fight", "--ruleset", ruleset, *plain)  # same seed, same fight
    odds = doc["odds"]
    assert [p["moment"] for p in odds[:2]] == ["start", "initiative"]
    assert [p["round"] for p in odds] == [0, 0, *range(1, doc["rounds_played"] + 1)]
    exact_args = [a for i, a in enumerate(args) if a not in ("--seed", "--dice")
                  and args[i - 1] not in ("--seed", "--dice")]
    exact = run_json("fight", "--ruleset", ruleset, "--exact", *exact_args)
    assert odds[0]["fighters"] == [{k: f[k] for k in ("name", "win_probability", "bounds")}
                                   for f in exact["fighters"]]
    assert (odds[0]["draw_probability"], odds[0]["unresolved"]) == (
        exact["draw_probability"], exact["unresolved"])
    assert (doc["cap"], doc["tolerance"]) == (exact["cap"], exact["tolerance"])
    last = odds[-1]
    if doc["winner"] is not None:
        assert {f["name"]: f["win_probability"] for f in last["fighters"]} == {
            f["name"]: 1.0 if f["name"] == doc["winner"] else 0.0 for f in last["fighters"]}
    else:
        assert last["draw_probability"] == 1.0
    assert last["unresolved"] == 0.0
    for p in odds:
        total = sum(f["win_probability"] for f in p["fighters"]) + p["draw_probability"] + p["unresolved"]
        assert abs(total - 1.0) < 1e-12 and p["unresolved"] <= doc["tolerance"]


def test_fight_odds_after_the_initiative_are_odds_right_after_init() -> None:
    ok("init", "--seed", "5")
    doc = run_json("fight", "--seed", "5", "--odds")
    assert overlap(doc["odds"][1]["fighters"], run_json("odds")["fighters"])


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_fight_odds_jsonl_has_an_odds_line_per_moment(ruleset: str) -> None:
    lines = [json.loads(x) for x in ok("fight", "--ruleset", ruleset, "--seed", "5", "--odds", "--jsonl",
                                       "--cap", "20").splitlines()]
    for line in lines:
        validate("fight-event", line)
    plain = [json.loads(x) for x in ok("fight", "--ruleset", ruleset, "--seed", "5", "--jsonl", "--cap", "20")
             .splitlines()]
    assert [x for x in lines if x["type"] != "odds"] == plain
    doc = run_json("fight", "--ruleset", ruleset, "--seed", "5", "--odds", "--cap", "20")
    odds_lines = [x for x in lines if x["type"] == "odds"]
    assert [{k: x[k] for k in doc["odds"][0]} for x in odds_lines] == doc["odds"]
    for i, x in enumerate(lines):  # each after the line it follows
        if x["type"] == "odds" and x["moment"] == "round":
            assert lines[i - 1]["type"] == "round-end" and lines[i - 1]["round"] == x["round"]
    first = lines.index(odds_lines[0])
    assert lines[first - 1]["type"] == "initiative"


@pytest.mark.parametrize(("args", "fragment"), [
    (["--odds", "--runs", "10"], "--odds shows how the odds swing through one fight played"),
    (["--odds", "--exact"], "cannot be used with --runs or --exact"),
    (["--tolerance", "1e-6"], "--tolerance goes with --exact or --odds"),
    (["--odds", "--tolerance", "2"], "--tolerance 2.0: give a number"),
    (["--odds", "--cap", "0"], "--cap 0"),
])
def test_fight_odds_mistakes_are_one_line(args: list[str], fragment: str) -> None:
    assert_one_line_error(run("fight", *args), 2, fragment)


def test_fight_odds_display_adds_the_chart_after_the_fight() -> None:
    plain = ok("fight", "--seed", "5")
    shown = ok("fight", "--seed", "5", "--odds")
    assert shown.startswith(plain)
    chart = shown[len(plain):]
    assert chart.startswith("\nOdds round by round · round cap 200 · tolerance 1e-12\n")
    assert "█" in chart and "░" in chart and "start" in chart and "biggest swing" in chart


# --- properties ------------------------------------------------------------------------------------


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), ruleset=st.sampled_from(["d20", "sevendag"]),
       cap=st.sampled_from([None, 2, 6]))
def test_any_fight_odds_are_probabilities_and_end_at_the_result(seed: int, ruleset: str,
                                                                cap: int | None) -> None:
    """Every moment's odds lie in [0, 1] and sum to 1 with the draw and the unresolved mass; the
    first is fight --exact's, the one after the initiative the solver's for the state saved by
    init, and after the last round: 1 for the winner, or the draw."""
    from sevendag_cli.dice import SeededDice
    from sevendag_cli.engine import engine_for
    from sevendag_cli.sim.swing import fight_states, fight_swing

    rs, a, b, solver, start = _fixture(ruleset, cap)
    result = engine_for(rs).fight(rs, a, b, SeededDice(seed), cap)
    swing = fight_swing(rs, a, b, result, cap=cap, solver=solver)
    assert swing.points[0].fighters == start.fighters
    states = fight_states(rs, a, b, result)
    assert len(swing.points) == len(states) + 1
    for p in swing.points:
        for f in p.fighters:
            assert 0.0 <= f.bounds[0] == f.win_probability <= f.bounds[1] <= 1.0
        total = sum(f.win_probability for f in p.fighters) + p.draw_probability + p.unresolved
        assert abs(total - 1.0) < 1e-12
    last = swing.points[-1]
    assert states[-1].over and last.unresolved == 0.0
    wins = [f.win_probability for f in last.fighters]
    assert wins == [1.0 if f.name == result.winner else 0.0 for f in last.fighters]
    assert last.draw_probability == (1.0 if result.winner is None else 0.0)


@cache
def _fixture(ruleset: str, cap: int | None) -> tuple[Any, Any, Any, Any, Any]:
    from sevendag_cli.rules import load_pair, load_ruleset
    from sevendag_cli.sim.exact_fight import exact_fight
    from sevendag_cli.sim.moment import OddsSolver
    from sevendag_cli.sim.swing import point

    rs = load_ruleset(ruleset)
    a, b = load_pair(rs, None)
    solver = OddsSolver(rs, a, b, cap=cap)
    solver.keep()
    return rs, a, b, solver, point(exact_fight(rs, a, b, cap=cap).odds, 0, "start")


# --- what the game master sees, at 80 columns (and the chart at 60) ----------------------------------


SCENARIOS: dict[str, list[Step]] = {
    # a drop, an iron guard with a round left, a granted critical, wounds; then the odds when over
    "sevendag-odds": [
        house_ruleset,
        ["init", "--ruleset", "house.toml", "--dice", "5,19", "brannoc", "ysolde", "--odds"],
        ["round", "--dice", "4,3,6,1,15", "--technique", "Brannoc=guard", "--odds"],
        ["wound", "Ysolde", "12"],
        ["odds"],
        ["odds", "--cap", "4"],
        ["wound", "Brannoc", "fatal"],
        ["odds"],
    ],
    "d20-odds": [
        ["init", "--ruleset", "d20", "--dice", "19,5"],
        ["odds"],
        ["round", "--dice", "8,18,17,3,3", "--odds"],
        ["odds", "--tolerance", "1e-6"],
    ],
    "sevendag-fight-odds": [["fight", "--seed", "5", "--odds"]],
    "d20-fight-odds": [["fight", "--ruleset", "d20", "--seed", "89", "--odds"]],  # 17 rounds
}
NARROW = ("sevendag-fight-odds",)


@pytest.fixture
def fresh_chains(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each command as in a fresh process: no chain kept from an earlier test (a chain already
    explored has a tighter rounding bound: the last digits of ``unresolved`` would differ)."""
    from sevendag_cli.d20 import chain as chain_d20
    from sevendag_cli.sevendag import chain as chain_sevendag

    monkeypatch.setattr(chain_sevendag, "_CACHE", {})
    monkeypatch.setattr(chain_d20, "_CACHE", {})


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_golden_odds_at_80_columns(name: str, lang: str, monkeypatch: pytest.MonkeyPatch,
                                   fresh_chains: None) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text = render(SCENARIOS[name], lang)
    check_width(text, 80)
    compare(text, GOLDEN / f"{name}.{lang}.txt")


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("name", NARROW)
def test_golden_odds_at_60_columns(name: str, lang: str, monkeypatch: pytest.MonkeyPatch,
                                   fresh_chains: None) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    text = render(SCENARIOS[name], lang)
    check_width(text, 60)
    compare(text, GOLDEN / f"{name}.{lang}.60.txt")


def test_names_from_a_file_are_shown_with_control_characters_visible() -> None:
    text = (BUNDLED / "fighters" / "brannoc.toml").read_text("utf-8")
    Path("evil.toml").write_text(text.replace('name = "Brannoc"', 'name = "Bran\\u001b[2Jnoc"'), "utf-8")
    ok("init", "evil.toml", "ysolde", "--dice", "19,5", "--odds")
    for args in (["odds"], ["round", "--seed", "3", "--no-input", "--odds"],
                 ["fight", "evil.toml", "ysolde", "--seed", "3", "--odds"]):
        out = ok(*args)
        assert "\x1b" not in out and "Bran\\x1b[2Jnoc" in out
