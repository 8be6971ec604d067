"""``status`` and ``log``: the saved encounter seen without acting.

* the displays, golden at 80 columns in both languages (regenerate with
  ``SEVENDAG_UPDATE_GOLDEN=1 python -m pytest tests/test_status_log.py`` and review the diff);
* ``log`` shows each step exactly as it was shown when played (its stdout, its JSON, its JSON
  lines), because the encounter records each step's dice and choices and the engine replays them;
* both are read only: the encounter's bytes and mode, and the folder, are unchanged; they share
  the lock, do not wait for a writer (the encounter as last saved, and a note), and a writer is
  refused while they read;
* a replay that does not give the saved state is a damaged file (one line, exit 1);
* encounters written before format 2 (no dice recorded) are read, shown as far as they can be.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from sevendag_cli import store
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
    render,
    run,
    run_json,
    validate,
)


def make_version_1() -> None:
    """The encounter as sevendag 1 saved it: format version 1, no dice nor choices in the log."""
    doc = json.loads(ENCOUNTER.read_text("utf-8"))
    doc["version"] = 1
    doc["log"] = [{k: v for k, v in e.items() if k not in ("dice", "choices")} for e in doc["log"]]
    ENCOUNTER.write_text(json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n", "utf-8")


SCENARIOS: dict[str, list[Step]] = {
    # a drop, a technique with a round left, a granted critical (house ruleset), then wounds and a heal
    "sevendag-status-log": [
        house_ruleset,
        ["init", "--ruleset", "house.toml", "--dice", "5,19", "brannoc", "ysolde"],
        ["status"],
        # Ysolde 16 against the iron guard's 16: foiled; Brannoc fumbles (1), drops his sword (15 > 14)
        ["round", "--dice", "4,3,6,1,15", "--technique", "Brannoc=guard"],
        ["status"],
        ["wound", "Ysolde", "12"],
        ["wound", "Ysolde", "--heal", "serious"],
        ["wound", "Brannoc", "fatal"],
        ["status"],
        ["log"],
    ],
    # the worked example (D-14), a wound and a heal by hand, then a wound that ends the fight
    "d20-status-log": [
        ["init", "--ruleset", "d20", "--dice", "19,5"],
        ["status"],
        ["round", "--dice", "8,18,17,3,3"],
        ["status"],
        ["wound", "A", "7"],
        ["wound", "A", "--heal", "2"],
        ["wound", "B", "60"],
        ["status"],
        ["log"],
    ],
    # an encounter saved by sevendag 1: the Sevendag rounds cannot be shown again, the rest can
    "sevendag-version-1-log": [
        ["init", "--seed", "11"],
        ["round", "--seed", "12", "--no-input"],
        ["wound", "Brannoc", "light"],
        make_version_1,
        ["log"],
        ["round", "--seed", "13", "--no-input"],
        ["log"],
    ],
}


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_golden_status_and_log_at_80_columns(name: str, lang: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text = render(SCENARIOS[name], lang)
    check_width(text, 80)
    compare(text, GOLDEN / f"{name}.{lang}.txt")


# --- status --------------------------------------------------------------------------------------


def test_status_sevendag_json_tells_who_attacks_drops_techniques_and_criticals() -> None:
    house_ruleset()
    run("init", "--ruleset", "house.toml", "--dice", "5,19", "brannoc", "ysolde")
    run("round", "--dice", "4,3,6,1,15", "--technique", "Brannoc=guard")
    doc = run_json("status")
    validate("status", doc)
    head = ("command", "ruleset", "seed", "engine", "round", "elapsed_seconds", "assaillant", "next_attacker")
    assert [doc[k] for k in head] == ["status", "house", None, "sevendag", 1, 3, "Ysolde", None]
    brannoc, ysolde = doc["fighters"]
    assert brannoc["technique"] == {"name": "guard", "rounds_left": 1}
    assert brannoc["dropped"] == [{"item": "sword", "hands": [1], "rounds_left": 1}]
    assert ysolde["granted_crit"] is True
    assert (doc["over"], doc["winner"], doc["draw"], doc["capped"]) == (False, None, False, False)
    assert doc["steps"] == 2 and doc["last_step"] == {"round": 1, "seed": None, "step": "round"}
    assert "iron longsword on the ground: 1 round(s) to pick it up" in run("status").stdout


def test_status_d20_says_who_attacks_next_only_when_init_rolled_it() -> None:
    run("init", "--ruleset", "d20", "--dice", "19,5")
    doc = run_json("status")
    validate("status", doc)
    head = ("next_attacker", "assaillant", "elapsed_seconds", "round")
    assert [doc[k] for k in head] == ["A", None, None, 0]
    assert "A attacks in the next round (initiative rolled by init)  [D-02]" in run("status").stdout
    run("round", "--dice", "8,18,17,3,3")
    doc = run_json("status")
    assert doc["next_attacker"] is None and doc["fighters"][1]["hp"] == 49
    out = run("status", "--lang", "fr").stdout
    assert "l'initiative se jette au début de chaque round" in out and "49/50 PV" in out


@pytest.mark.parametrize(("steps", "over", "winner", "said"), [
    ([["wound", "Brannoc", "fatal"]], True, "Ysolde", "The fight is over: Ysolde wins"),
    ([], False, None, "In progress: round 1 is next"),
])
def test_status_says_whether_the_fight_is_over_and_who_won(
    steps: list[list[str]], over: bool, winner: str | None, said: str
) -> None:
    run("init", "--dice", "5,19")
    for args in steps:
        assert run(*args).exit_code == 0
    doc = run_json("status")
    validate("status", doc)
    assert (doc["over"], doc["winner"], doc["draw"]) == (over, winner, False)
    assert said in run("status").stdout


def test_status_of_a_draw() -> None:
    run("init", "--dice", "5,19")
    doc = json.loads(ENCOUNTER.read_text("utf-8"))
    doc["state"] |= {"over": True, "winner": None, "capped": True, "round": 200}  # the cap reached
    ENCOUNTER.write_text(json.dumps(doc), "utf-8")
    status = run_json("status")
    validate("status", status)
    assert (status["over"], status["winner"], status["draw"], status["capped"]) == (True, None, True, True)
    assert "The fight is over: draw: the round cap (200) was reached" in run("status").stdout


def test_status_and_log_without_an_encounter_say_how_to_start_one() -> None:
    for command in ("status", "log"):
        result = run(command)
        assert_one_line_error(result, 1, "start one with `sevendag init`")
        doc = json.loads(run(command, "--json").stdout)
        validate("error", doc)
        assert doc["error"]["key"] == "store.no_encounter"


def test_names_from_a_file_are_shown_with_control_characters_visible() -> None:
    text = (BUNDLED / "fighters" / "brannoc.toml").read_text("utf-8")
    Path("evil.toml").write_text(text.replace('name = "Brannoc"', 'name = "Bran\\u001b[2Jnoc"'), "utf-8")
    assert run("init", "evil.toml", "ysolde", "--dice", "19,5").exit_code == 0
    assert run("wound", "Bran\x1b[2Jnoc", "light").exit_code == 0
    out = run("status").stdout
    assert "\x1b" not in out and "Bran\\x1b[2Jnoc is the assailant" in out
    log = run("log").stdout  # its own lines (the steps' titles); the steps are the shared display
    assert "Wound by hand: Bran\\x1b[2Jnoc\n" in log


# --- log: the same display, the same JSON ------------------------------------------------------------


def play(steps: list[list[str]], *extra: str) -> list[str]:
    outs = []
    for args in steps:
        result = run(*args, *extra)
        assert result.exit_code == 0, (args, result.stderr)
        outs.append(result.stdout)
    return outs


TABLE = {
    "sevendag": [["init", "--seed", "22"], ["round", "--seed", "23", "--technique", "Ysolde=feint"],
                 ["round", "--seed", "24", "--yield", "--no-input"],
                 ["round", "--dice", "7,7,8,7", "--allocate", "Brannoc=attack,defence", "--no-input"],
                 ["wound", "Brannoc", "9"], ["wound", "Brannoc", "--heal", "light"],
                 ["round", "--seed", "26", "--no-input"]],
    "d20": [["init", "--ruleset", "d20", "--seed", "5"], ["round", "--seed", "6"], ["wound", "B", "5"],
            ["round", "--dice", "19,5,8,18,17,3,3"], ["wound", "B", "--heal", "3"], ["round", "--seed", "7"]],
}


@pytest.mark.parametrize("ruleset", sorted(TABLE))
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_log_shows_each_step_as_it_was_shown_when_played(ruleset: str, lang: str) -> None:
    steps = TABLE[ruleset]
    outs = play(steps, "--lang", lang)
    titles = {"en": ("Wound by hand: {}\n", "Heal by hand: {}\n"),
              "fr": ("Blessure infligée par le MJ : {}\n", "Soins apportés par le MJ : {}\n")}[lang]
    blocks = []
    for args, out in zip(steps, outs, strict=True):
        if args[0] == "wound":
            blocks.append(titles["--heal" in args].format(args[1]) + out)
        else:
            blocks.append(out)
    result = run("log", "--lang", lang)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "\n".join(blocks)
    assert result.stderr == ""


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", sorted(TABLE))
def test_log_json_and_jsonl_give_the_documents_and_lines_of_each_step(ruleset: str) -> None:
    steps = TABLE[ruleset]
    flags: list[str] = []
    played_json = []
    played_lines = []
    for args in steps:
        if args[0] == "round":
            played_lines.append(run(*args, *flags, "--jsonl").stdout.splitlines())
            run("undo")
        played_json.append(run_json(*args, *flags))
    doc = run_json("log")
    validate("log", doc)
    assert [s["step"] for s in doc["steps"]] == [("heal" if "--heal" in a else a[0]) for a in steps]
    assert all(s["replayed"] for s in doc["steps"])
    assert [s["index"] for s in doc["steps"]] == list(range(len(steps)))
    for args, played, step in zip(steps, played_json, doc["steps"], strict=True):
        assert step["seed"] == played["seed"]
        if args[0] == "init":
            assert (step["initiative"], step["rolls"], step["leader"], step["fighters"]) == (
                played["initiative"], played["rolls"], played["leader"], played["fighters"])
        elif args[0] == "round":
            assert step["round"] == played["round"] and step["number"] == played["round"]["number"]
        else:
            keys = ("fighter", "amount", "band", "events", "fighters", "over", "winner")
            assert {k: step[k] for k in keys} == {k: played[k] for k in keys}
    assert doc["fighters"] == played_json[-1]["fighters"]
    lines = [json.loads(line) for line in run("log", "--jsonl").stdout.splitlines()]
    for line in lines:
        validate("log-event", line)
    assert lines[0]["type"] == "start" and lines[-1]["type"] == "end"
    assert lines[-1]["fighters"] == doc["fighters"]
    rounds = iter(played_lines)
    for i, line in enumerate(lines):
        if line["type"] == "step" and line["step"] == "round":
            expected = [json.loads(x) for x in next(rounds)][1:]  # round --jsonl without its start line
            assert lines[i + 1: i + 1 + len(expected)] == expected


def test_a_sevendag_round_s_choices_are_recorded_and_replayed() -> None:
    run("init", "--seed", "21")
    run("round", "--seed", "22", "--technique", "Ysolde=feint", "--allocate", "Brannoc=defence,defence",
        "--yield")
    entry = json.loads(ENCOUNTER.read_text("utf-8"))["log"][1]
    assert entry["choices"] == {"yield": True, "allocation": {"Brannoc": ["defence", "defence"]},
                                "technique": {"Ysolde": "feint"}}
    assert entry["dice"] and all(isinstance(face, int) for face in entry["dice"])
    step = run_json("log")["steps"][1]
    assert step["choices"] == entry["choices"]
    allocation = [e for e in step["round"]["events"] if e["type"] == "allocation"]
    sources = {e["fighter"]: e["source"] for e in allocation}
    assert sources == {"Brannoc": "choice", "Ysolde": "weapons-attack"}
    assert {e["fighter"]: e["technique"] for e in allocation} == {"Brannoc": None, "Ysolde": "feint"}


# --- read only -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["status"], ["status", "--json"], ["log"], ["log", "--json"],
                                  ["log", "--jsonl"], ["status", "--lang", "fr"]])
def test_status_and_log_change_nothing(tmp_path: Path, args: list[str]) -> None:
    play(TABLE["d20"])
    os.chmod(ENCOUNTER, 0o640)
    for lock in tmp_path.glob("*.lock"):
        lock.unlink()  # no lock file: a reader makes none
    before = folder_state(tmp_path)
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    assert folder_state(tmp_path) == before
    assert stat.S_IMODE(ENCOUNTER.stat().st_mode) == 0o640


def test_a_reader_does_not_wait_for_a_writer_it_shows_the_encounter_as_last_saved() -> None:
    """A writer holds the lock (a round waiting for the players' choices): status and log read the
    encounter as last saved, say so on stderr, and exit 0."""
    play(TABLE["sevendag"][:3])
    expected = run("status").stdout
    with store.locked(ENCOUNTER):
        result = run("status")
        assert result.exit_code == 0 and result.stdout == expected
        assert "another sevendag command is changing the encounter: this is the encounter as last saved" in (
            result.stderr)
        french = run("log", "--json", "--lang", "fr")
        assert french.exit_code == 0 and json.loads(french.stdout)["command"] == "log"
        assert "une autre commande sevendag modifie la rencontre" in french.stderr


def test_a_writer_is_told_the_encounter_is_in_use_while_a_reader_reads(tmp_path: Path) -> None:
    play(TABLE["d20"][:2])
    before = ENCOUNTER.read_bytes()
    Path(str(ENCOUNTER) + ".lock").touch()  # the writers' lock file, as a command leaves or makes it
    with store.read_locked(ENCOUNTER) as free:
        assert free
        assert_one_line_error(run("round", "--seed", "3"), 1, "in use")
        with store.read_locked(ENCOUNTER) as also:  # readers share the lock
            assert also
    assert ENCOUNTER.read_bytes() == before
    assert run("round", "--seed", "3").exit_code == 0


# --- damaged histories ------------------------------------------------------------------------------


def edit(change: Callable[[dict[str, Any]], None]) -> None:
    doc = json.loads(ENCOUNTER.read_text("utf-8"))
    change(doc)
    ENCOUNTER.write_text(json.dumps(doc), "utf-8")


def set_face(doc: dict[str, Any]) -> None:
    doc["log"][1]["dice"][0] = 1 if doc["log"][1]["dice"][0] != 1 else 2


@pytest.mark.parametrize(("change", "fragment"), [
    (set_face, "step 2 (round 1) does not replay"),
    (lambda d: d["log"][1]["dice"].pop(), "step 2 (round 1) does not replay: dice: "),
    (lambda d: d["log"][1]["dice"].append(3), "left unused"),
    (lambda d: d["log"][1].update(dice="8,18"), "step 2 (round 1): a log entry's dice is not what was"),
    (lambda d: d["history"][1]["fighters"][1].update(hp=12), "gives another state than the one saved"),
    (lambda d: d["log"][2].update(step="party"), "step 3 (party): not a step sevendag records"),
    (lambda d: d["log"][0].update(step="wound"), "step 1 (wound): not a step sevendag records, or not in"),
    (lambda d: d["log"][2].update(step="init"), "step 3 (init): not a step sevendag records, or not in"),
    (lambda d: d["log"].pop(), "3 state(s) saved for 2 step(s) in the log"),
    (lambda d: d["log"][2].update(fighter="Zed"), "step 3 (wound) does not replay: no fighter 'Zed'"),
])
def test_a_replay_that_does_not_give_the_saved_state_is_a_damaged_file(
    change: Callable[[dict[str, Any]], None], fragment: str
) -> None:
    play([["init", "--ruleset", "d20", "--dice", "19,5"], ["round", "--dice", "8,18,17,3,3"],
          ["wound", "B", "5"]])
    edit(change)
    before = ENCOUNTER.read_bytes()
    result = run("log")
    assert_one_line_error(result, 1, "encounter.sevendag.json: the encounter file is damaged (")
    assert fragment in result.stderr
    assert ENCOUNTER.read_bytes() == before
    doc = json.loads(run("log", "--json").stdout)
    validate("error", doc)
    assert doc["error"]["key"] == "store.damaged" and doc["error"]["exit_code"] == 1


# --- older encounter files -----------------------------------------------------------------------------


@pytest.mark.slow
def test_a_version_1_file_is_read_and_its_steps_shown_as_far_as_they_can_be() -> None:
    play([["init", "--seed", "11"], ["round", "--seed", "12", "--no-input"],
          ["round", "--dice", "5,7,3,10", "--no-input"], ["wound", "Brannoc", "light"]])
    make_version_1()
    assert run("status").exit_code == 0
    doc = run_json("log")
    validate("log", doc)
    assert [(s["step"], s["replayed"]) for s in doc["steps"]] == [
        ("init", True), ("round", False), ("round", False), ("wound", True)]
    unreplayed = doc["steps"][1]
    assert unreplayed["round"] is None and unreplayed["number"] == 1 and unreplayed["seed"] == 12
    saved_then = json.loads(ENCOUNTER.read_text("utf-8"))["history"][2]  # the state after step 3
    assert doc["steps"][2]["seed"] is None and doc["steps"][2]["fighters"] == saved_then["fighters"]
    for line in run("log", "--jsonl").stdout.splitlines():
        validate("log-event", json.loads(line))
    assert "(an older sevendag kept no dice for it: the states after it)" in (
        run("log").stdout)
    # the next command that changes it saves it as version 2; the old steps stay as they were
    assert run("round", "--seed", "13", "--no-input").exit_code == 0
    saved = json.loads(ENCOUNTER.read_text("utf-8"))
    validate("encounter", saved)
    assert saved["version"] == 2 and "dice" not in saved["log"][1] and "dice" in saved["log"][4]
    assert [s["replayed"] for s in run_json("log")["steps"]] == [True, False, False, True, True]


def test_version_1_d20_rounds_replay_from_their_seed() -> None:
    play([["init", "--ruleset", "d20", "--seed", "5"], ["round", "--seed", "6"],
          ["round", "--dice", "19,5,8,18,17,3,3"], ["wound", "B", "-2"]])
    shown_then = run("log").stdout
    make_version_1()
    doc = run_json("log")
    assert [s["replayed"] for s in doc["steps"]] == [True, True, False, True]
    assert doc["steps"][1]["round"]["rolls"]  # from the seed: every die again
    assert run("log").stdout.split("\n\n")[:2] == shown_then.split("\n\n")[:2]


@pytest.mark.slow
def test_the_encounter_file_matches_its_schema() -> None:
    """``sevendag schema encounter``: real files of both rulesets, and a version 1 file."""
    schema = json.loads(run("schema", "encounter").stdout)
    for steps in TABLE.values():
        play(steps)
        doc = json.loads(ENCOUNTER.read_text("utf-8"))
        jsonschema.validate(doc, schema)
        assert doc["version"] == 2 and all("dice" in e for e in doc["log"] if e["step"] in ("init", "round"))
        make_version_1()
        jsonschema.validate(json.loads(ENCOUNTER.read_text("utf-8")), schema)
        ENCOUNTER.unlink()
    broken = json.loads(json.dumps(doc))
    broken["log"][1]["dice"] = [0]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)
    broken["version"] = 3
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)
