"""The commands, through Typer's CliRunner: exit codes, parsed JSON, files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import assert_one_line_error, run, run_json, snapshot

COMMANDS = ["init", "round", "wound", "undo", "fight"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(command: str) -> None:
    result = run(command, "--help")
    assert result.exit_code == 0
    assert "Example" in result.stdout, result.stdout


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0 and result.stdout.startswith("sevendag ")


def test_D14_worked_example_replays_through_the_cli() -> None:
    """D-14: init --dice 19,5 then round --dice 8,18,17,3,3 leaves B at 49 HP."""
    init = run_json("init", "--ruleset", "d20", "--dice", "19,5")
    assert init["leader"] == "A"
    assert [r["face"] for r in init["rolls"]] == [19, 5]
    assert [r["purpose"] for r in init["rolls"]] == ["initiative", "initiative"]
    doc = run_json("round", "--dice", "8,18,17,3,3")
    hp = {f["name"]: f["hp"] for f in doc["fighters"]}
    assert hp == {"A": 45, "B": 49}
    assert [(r["purpose"], r["die"], r["face"]) for r in doc["rolls"]] == [
        ("attack", "d20", 8), ("save", "d20", 18), ("dd", "d20", 17),
        ("damage", "d6", 3), ("vig", "d10", 3),
    ]
    assert doc["over"] is False and doc["winner"] is None


def test_init_reports_where_the_encounter_is_saved(tmp_path: Path) -> None:
    result = run("init", "--ruleset", "d20", "--seed", "1", "--encounter", "table.json")
    assert result.exit_code == 0
    assert "table.json" in result.stderr
    assert (tmp_path / "table.json").is_file()


def test_init_refuses_to_replace_an_encounter_in_progress(tmp_path: Path) -> None:
    assert run("init", "--ruleset", "d20", "--seed", "1").exit_code == 0
    before = snapshot(tmp_path)
    assert_one_line_error(run("init", "--ruleset", "d20", "--seed", "2"), 1, "in progress")
    assert snapshot(tmp_path) == before
    assert run("init", "--ruleset", "d20", "--seed", "2", "--force").exit_code == 0


def test_fight_json_contract_d20() -> None:
    doc = run_json("fight", "--ruleset", "d20", "--seed", "7")
    assert doc["ruleset"] == "d20" and doc["seed"] == 7
    assert [f["name"] for f in doc["fighters"]] == ["A", "B"]
    assert all("hp" in f for f in doc["fighters"])
    assert doc["rounds"] and all(r["rolls"] is not None for r in doc["rounds"])
    loser = [f for f in doc["fighters"] if f["name"] != doc["winner"]]
    assert doc["winner"] in {"A", "B"} and loser[0]["hp"] <= 0
    for rnd in doc["rounds"]:
        for roll in rnd["rolls"]:
            assert set(roll) >= {"purpose", "die", "face", "fighter"}


def test_same_seed_same_output() -> None:
    a = run("fight", "--ruleset", "d20", "--seed", "11", "--json")
    b = run("fight", "--ruleset", "d20", "--seed", "11", "--json")
    assert a.exit_code == 0 and a.stdout == b.stdout


def test_fresh_seed_is_reported_and_replays() -> None:
    doc = run_json("fight", "--ruleset", "d20")
    assert isinstance(doc["seed"], int)
    again = run_json("fight", "--ruleset", "d20", "--seed", str(doc["seed"]))
    assert again == doc


def test_fight_jsonl_is_one_event_per_line() -> None:
    result = run("fight", "--ruleset", "d20", "--seed", "3", "--jsonl")
    assert result.exit_code == 0
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["type"] == "start" and events[-1]["type"] == "end"
    assert {"attack", "initiative", "round-end"} <= {e["type"] for e in events}


def test_fight_entered_dice_come_first_then_the_generator() -> None:
    doc = run_json("fight", "--ruleset", "d20", "--seed", "5", "--dice", "1,20")
    first = doc["initiative"]["attempts"][0]
    assert [c["rolls"][0]["face"] for c in first] == [1, 20]
    assert doc["initiative"]["leader"] == "B"


@pytest.mark.slow
def test_rich_output_has_no_colour_when_not_a_terminal() -> None:
    result = run("fight", "--ruleset", "d20", "--seed", "3")
    assert result.exit_code == 0
    assert "\x1b[" not in result.stdout
    assert "wins" in result.stdout


def test_round_after_the_end_is_refused(tmp_path: Path) -> None:
    assert run("init", "--ruleset", "d20", "--dice", "19,5").exit_code == 0
    # B has 50 HP: wound it to 1, then a natural-20 critical (two damage sets) finishes it.
    assert run("wound", "B", "49").exit_code == 0
    doc = run_json("round", "--dice", "20,1,6,6,1")
    assert doc["over"] is True and doc["winner"] == "A"
    before = snapshot(tmp_path)
    assert_one_line_error(run("round", "--seed", "1"), 1, "over")
    assert snapshot(tmp_path) == before


def test_wound_and_heal_d20() -> None:
    run("init", "--ruleset", "d20", "--seed", "1")
    doc = run_json("wound", "B", "10")
    assert {f["name"]: f["hp"] for f in doc["fighters"]}["B"] == 40
    doc = run_json("wound", "B", "-5")
    assert {f["name"]: f["hp"] for f in doc["fighters"]}["B"] == 45


def test_undo_takes_back_the_last_step(tmp_path: Path) -> None:
    run("init", "--ruleset", "d20", "--dice", "19,5")
    after_init = (tmp_path / "encounter.sevendag.json").read_text("utf-8")
    run("round", "--dice", "8,18,17,3,3")
    doc = run_json("undo")
    assert doc["undone"]["step"] == "round"
    assert {f["name"]: f["hp"] for f in doc["fighters"]} == {"A": 45, "B": 50}
    # the same round can be played again, with the same result
    again = run_json("round", "--dice", "8,18,17,3,3")
    assert {f["name"]: f["hp"] for f in again["fighters"]}["B"] == 49
    run("undo")
    assert json.loads((tmp_path / "encounter.sevendag.json").read_text("utf-8"))["state"] == \
        json.loads(after_init)["state"]
    assert_one_line_error(run("undo"), 1, "nothing to undo")


def test_classify_names_the_band() -> None:
    result = run("wound", "--classify", "17")
    assert result.exit_code == 0 and "serious" in result.stdout
    doc = run_json("wound", "--classify", "31")
    assert doc["band"] == "fatal"
    assert run_json("wound", "--classify", "0")["band"] is None


# A table of user mistakes: each gets one line on stderr, the right exit code, no file changed.
BAD = [
    (["fight", "--ruleset", "no-such-ruleset"], 2, "not found"),  # a name typed: usage
    (["fight", "--seed", "abc"], 2, "--seed"),
    (["fight", "--seed", "-1"], 2, "seed"),
    (["fight", "--json", "--jsonl"], 2, "choose one"),
    (["fight", "nobody", "noone"], 2, "not found"),
    (["fight", "A"], 2, "two fighters"),
    (["fight", "--ruleset", "d20", "--cap", "0"], 2, "cap"),
    (["fight", "--ruleset", "d20", "--dice", "7,x"], 2, "not a whole number"),
    (["fight", "--ruleset", "d20", "--dice", "21"], 2, "not on the d20"),
    (["fight", "--ruleset", "d20", "--runs", "10", "--exact"], 2, "choose one"),
    (["init", "--ruleset", "d20", "--dice", "19"], 2, "more are needed"),
    (["init", "--ruleset", "d20", "--dice", "19,5,3"], 2, "unused"),
    (["init", "--ruleset", "d20", "--dice", "0,5"], 2, "not on the d20"),
    (["init", "--ruleset", "d20", "--dice", "19,5", "--seed", "3"], 2, "choose one"),
    (["init", "--ruleset", "d20", "--dice", "19,5", "--manual"], 2, "choose one"),
    (["init", "--ruleset", "d20", "--manual"], 2, "terminal"),
    (["round"], 1, "sevendag init"),
    (["wound", "B", "5"], 1, "sevendag init"),
    (["undo"], 1, "sevendag init"),
    (["wound"], 2, "FIGHTER"),
    (["wound", "--classify", "5", "--ruleset", "d20"], 2, "hit points"),
    (["round", "--encounter", "missing.json"], 1, "no encounter"),
    (["nonsense"], 2, "nonsense"),
    (["fight", "--bogus"], 2, "--bogus"),
]


@pytest.mark.parametrize(("args", "code", "fragment"), BAD, ids=[" ".join(b[0]) for b in BAD])
def test_user_mistakes_get_one_clear_line(
    tmp_path: Path, args: list[str], code: int, fragment: str
) -> None:
    before = snapshot(tmp_path)
    assert_one_line_error(run(*args), code, fragment)
    assert snapshot(tmp_path) == before


ENCOUNTER_BAD = [
    (["round", "--dice", "8,18"], 2, "more are needed"),
    (["round", "--dice", "8,18,17,3,3,9"], 2, "unused"),
    (["round", "--dice", "8,18,17,3,11"], 2, "not on the d10"),
    (["round", "--yield"], 2, "Sevendag"),
    (["wound", "C", "5"], 2, "no fighter"),  # a name typed: a usage mistake, as everywhere
    (["wound", "B", "serious"], 1, "hit points"),
    (["wound", "B", "0"], 1, "non-zero"),
]


@pytest.mark.parametrize(
    ("args", "code", "fragment"), ENCOUNTER_BAD, ids=[" ".join(b[0]) for b in ENCOUNTER_BAD]
)
def test_a_failed_command_changes_no_file(
    tmp_path: Path, args: list[str], code: int, fragment: str
) -> None:
    assert run("init", "--ruleset", "d20", "--dice", "19,5").exit_code == 0
    before = snapshot(tmp_path)
    assert_one_line_error(run(*args), code, fragment)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b"", "empty"),
        (b"{not json", "damaged"),
        (b'{"format": "sevendag-encounter", "version": 3}', "version 3"),
        (b"\xff\xfe\xfa", "UTF-8"),
    ],
)
def test_damaged_encounters_are_refused(tmp_path: Path, content: bytes, fragment: str) -> None:
    (tmp_path / "encounter.sevendag.json").write_bytes(content)
    before = snapshot(tmp_path)
    assert_one_line_error(run("round", "--seed", "1"), 1, fragment)
    assert snapshot(tmp_path) == before


def test_encounter_from_another_format_ruleset_is_refused(tmp_path: Path) -> None:
    run("init", "--ruleset", "d20", "--seed", "1")
    path = tmp_path / "encounter.sevendag.json"
    doc = json.loads(path.read_text("utf-8"))
    doc["ruleset"]["data"]["engine"] = "chess"
    path.write_text(json.dumps(doc), "utf-8")
    assert_one_line_error(run("round", "--seed", "1"), 1, "engine")


def all_commands() -> list[str]:
    """Every command path of the app, from Typer's own registry."""
    from typer.main import get_command

    from sevendag_cli.cli import app

    root = get_command(app)
    names: list[str] = []
    for name, cmd in root.commands.items():  # type: ignore[attr-defined]
        names.append(name)
        for sub in getattr(cmd, "commands", {}):
            names.append(f"{name} {sub}")
    return names


@pytest.mark.slow
def test_every_command_is_in_the_manual_and_has_an_example() -> None:
    manual = (Path(__file__).parent.parent / "docs" / "commands.md").read_text("utf-8")
    for name in all_commands():
        assert f"`{name}" in manual, f"{name} is missing from the command table of docs/commands.md"
        result = run(*name.split(), "--help")
        assert result.exit_code == 0 and "Example" in result.stdout, name


@pytest.mark.slow
def test_force_color_and_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in run("fight", "--ruleset", "d20", "--seed", "3").stdout
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("FORCE_COLOR")
    assert "\x1b[" not in run("fight", "--ruleset", "d20", "--seed", "3").stdout
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" not in run("fight", "--ruleset", "d20", "--seed", "3", "--json").stdout


@pytest.mark.parametrize(("lang", "text"), [("en", "undone: the wound given to B"),
                                            ("fr", "annulé : la blessure infligée à B")])
def test_undo_says_what_it_took_back(lang: str, text: str) -> None:
    run("init", "--ruleset", "d20", "--seed", "1")
    run("wound", "B", "5")
    result = run("undo", "--lang", lang)
    assert result.exit_code == 0 and text in result.stderr
