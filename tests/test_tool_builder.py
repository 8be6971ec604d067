"""For the tool builder: JSON errors, self-contained schemas, round-start lines.

* under ``--json`` a failure writes ``{schema_version, command, error: {key, message, exit_code}}``
  on stdout (schema ``error``), the key a stable key of ``messages.py``, Click's usage errors too;
  stderr keeps its one line;
* ``sevendag schema NAME`` prints a self-contained schema: a plain ``jsonschema.validate`` works,
  and it accepts and refuses what the shipped files (resolved with a registry) do;
* ``--jsonl`` has a ``round-start`` line before each round's events.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from sevendag_cli.commands.schema import schema_names, validator
from sevendag_cli.messages import MESSAGES
from tests.catalogue import check_every
from tests.helpers import assert_one_line_error, run, run_json

ERROR_CASES: list[tuple[list[str] | None, list[str], str, str | None, int]] = [
    # (setup, command, key, command named in the document, exit code)
    (None, ["fight", "Nobody", "B", "--ruleset", "d20"], "data.not_found_fighter", "fight", 2),
    (None, ["fight", "--ruleset", "chess"], "data.not_found_ruleset", "fight", 2),
    (None, ["round"], "store.no_encounter", "round", 1),
    (["init", "--dice", "5,19"], ["wound", "Zed", "5"], "engine.no_fighter", "wound", 2),
    (["init", "--dice", "5,19"], ["wound", "Brannoc", "--heal", "light"], "engine.sev.nothing_to_heal",
     "wound", 1),
    (["init", "--dice", "5,19"], ["round", "--technique", "Brannoc=dance", "--seed", "1"],
     "cli.unknown_technique", "round", 2),
    (["init", "--ruleset", "d20", "--dice", "19,5"], ["round", "--dice", "99"], "dice.off_die", "round", 2),
    (None, ["rulesets", "show", "chess"], "data.not_found_ruleset", "rulesets show", 2),
    (None, ["roll", "2d20kh1x"], "formula.unexpected", "roll", 2),
    (None, ["fight", "--runs", "0"], "cli.runs", "fight", 2),
    (None, ["fight", "--json", "--jsonl"], "cli.json_and_jsonl", "fight", 2),
    # Click's usage errors, before the command runs
    (None, ["fight", "--seed", "abc"], "usage.not_integer", "fight", 2),
    (None, ["fight", "--bogus"], "usage.no_such_option", "fight", 2),
    (None, ["wound", "--classify", "many"], "usage.not_integer", "wound", 2),
    (None, ["rulesets", "show"], "usage.missing_argument", "rulesets show", 2),
    (None, ["nonsense"], "usage.no_such_command", None, 2),
]


@pytest.mark.parametrize(("setup", "args", "key", "command", "code"), ERROR_CASES,
                         ids=[" ".join(c[1]) for c in ERROR_CASES])
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_an_error_under_json_is_also_a_json_document(
    setup: list[str] | None, args: list[str], key: str, command: str | None, code: int, lang: str
) -> None:
    if setup:
        assert run(*setup).exit_code == 0
    result = run(*args, "--json", "--lang", lang)
    assert_one_line_error(result, code)
    doc = json.loads(result.stdout)
    jsonschema.validate(doc, json.loads(run("schema", "error").stdout))
    assert doc == {"schema_version": 1, "command": command,
                   "error": {"key": key, "message": result.stderr.strip().removeprefix("sevendag: error: "),
                             "exit_code": code}}
    assert key in MESSAGES
    assert len(result.stdout.splitlines()) == 1  # compact in a pipe
    if "--json" not in args:
        without = run(*args, "--lang", lang)
        assert without.stdout == "" and without.stderr == result.stderr and without.exit_code == code


@pytest.mark.parametrize(("args", "key", "fragment"), [
    (["fight", "--json", "--lang", "de"], "usage.not_choice", "'de' is not one of"),
    (["fight", "--json", "--seed"], "usage.requires_argument", "requires an argument"),
])
def test_more_of_click_s_usage_errors_under_json(args: list[str], key: str, fragment: str) -> None:
    result = run(*args)
    assert_one_line_error(result, 2, fragment)
    doc = json.loads(result.stdout)
    assert doc["error"]["key"] == key and doc["command"] == "fight"


def test_the_key_does_not_change_with_the_language_but_the_message_does() -> None:
    en = json.loads(run("fight", "Nobody", "B", "--json").stdout)["error"]
    fr = json.loads(run("fight", "Nobody", "B", "--json", "--lang", "fr").stdout)["error"]
    assert en["key"] == fr["key"] == "data.not_found_fighter"
    assert en["message"] != fr["message"] and "introuvable" in fr["message"]


def test_json_after_double_dash_is_not_an_option() -> None:
    result = run("roll", "--", "--json")
    assert_one_line_error(result, 2, "expression '--json'")
    assert result.stdout == ""


def test_ctrl_c_under_json(monkeypatch: pytest.MonkeyPatch) -> None:
    assert run("init", "--ruleset", "d20", "--seed", "1").exit_code == 0
    from sevendag_cli.d20 import engine as d20

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(d20, "play_round", interrupted)
    result = run("round", "--seed", "2", "--json")
    assert result.exit_code == 130
    assert json.loads(result.stdout)["error"] == {
        "key": "cli.interrupted_unchanged", "message": "interrupted: nothing was changed", "exit_code": 130}


def test_a_successful_command_under_json_writes_its_document_only() -> None:
    doc = run_json("fight", "--ruleset", "d20", "--seed", "7")
    assert "error" not in doc and doc["command"] == "fight"


# --- self-contained schemas ---------------------------------------------------------------------------


def printed(name: str) -> dict[str, Any]:
    result = run("schema", name)
    assert result.exit_code == 0
    schema: dict[str, Any] = json.loads(result.stdout)
    return schema


def refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [v for k, v in node.items() if k == "$ref"] + [r for v in node.values() for r in refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in refs(v)]
    return []


@pytest.mark.slow
def test_every_printed_schema_is_self_contained() -> None:
    def check(name: str) -> None:
        schema = printed(name)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$id"] == f"https://sevendag.invalid/schemas/{name}.json"
        found = refs(schema)
        assert all(r.startswith("#/$defs/") for r in found), [r for r in found if not r.startswith("#/")]
        for ref in found:  # every reference points at something in the schema itself
            node: Any = schema
            for part in ref[2:].split("/"):
                node = node[part]
        unused = set(schema.get("$defs", {})) - {r.split("/")[2] for r in found}
        own = set(json.loads((Path(__file__).parent.parent / "sevendag_cli" / "schemas" / f"{name}.json")
                             .read_text("utf-8")).get("$defs", {}))
        assert unused <= own  # only what is used is copied in

    check_every(schema_names(), check)


def session_documents() -> dict[str, list[Any]]:
    """Real documents of many outputs, by schema name."""
    docs: dict[str, list[Any]] = {
        "fight": [run_json("fight", "--seed", "3"), run_json("fight", "--ruleset", "d20", "--seed", "3")],
        "roll": [run_json("roll", "4d6kh3", "adv: 2d20kh1 + 5", "--seed", "1")],
        "rulesets-show": [run_json("rulesets", "show", "sevendag"), run_json("rulesets", "show", "d20")],
        "init": [run_json("init", "--seed", "11")],
        "round": [run_json("round", "--seed", "12", "--no-input")],
        "wound": [run_json("wound", "Brannoc", "17"), run_json("wound", "Brannoc", "--heal", "17")],
        "status": [run_json("status")],
        "log": [run_json("log")],
        "undo": [run_json("undo")],
        "error": [json.loads(run("wound", "Zed", "1", "--json").stdout)],
        "encounter": [json.loads(Path("encounter.sevendag.json").read_text("utf-8"))],
    }
    docs["fight-event"] = [json.loads(x) for x in run("fight", "--seed", "3", "--jsonl").stdout.splitlines()]
    docs["round-event"] = [json.loads(x) for x in run("round", "--seed", "13", "--no-input", "--jsonl")
                           .stdout.splitlines()]
    docs["log-event"] = [json.loads(x) for x in run("log", "--jsonl").stdout.splitlines()]
    return docs


@pytest.mark.slow
def test_real_documents_pass_a_plain_validation_against_the_printed_schema() -> None:
    """The plain validation docs/json.md shows: ``jsonschema.validate(doc, schema)``, nothing else."""
    for name, docs in session_documents().items():
        schema = printed(name)
        jsonschema.validate(docs[0], schema)  # as docs/json.md shows
        plain = jsonschema.Draft202012Validator(schema)
        shipped = validator(name)
        for doc in docs:
            assert plain.is_valid(doc) and shipped.is_valid(doc), name


@pytest.mark.slow
def test_the_printed_schema_refuses_what_the_shipped_one_refuses() -> None:
    docs = session_documents()
    cases = [
        ("fight", docs["fight"][0], lambda d: d["rounds"][0]["events"][0].update(type="hit")),
        ("fight", docs["fight"][1], lambda d: d["fighters"][0].pop("hp")),
        ("status", docs["status"][0], lambda d: d.update(draw=True)),
        ("log", docs["log"][0], lambda d: d["steps"][0].update(step="round")),
        ("wound", docs["wound"][1], lambda d: d["events"][0].update(reopened="no")),
        ("error", docs["error"][0], lambda d: d["error"].update(exit_code=3)),
        ("encounter", docs["encounter"][0], lambda d: d["log"][1].update(dice=[0])),
        ("round-event", docs["round-event"][1], lambda d: d.update(extra=1)),
    ]
    for name, doc, breaks in cases:
        broken = json.loads(json.dumps(doc))
        breaks(broken)
        assert not validator(name).is_valid(broken), name
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, printed(name))


# --- round-start lines -----------------------------------------------------------------------------


def test_round_jsonl_has_a_round_start_line_before_the_events() -> None:
    assert run("init", "--ruleset", "d20", "--dice", "19,5").exit_code == 0
    lines = [json.loads(x) for x in run("round", "--dice", "8,18,17,3,3", "--jsonl").stdout.splitlines()]
    kinds = ["start", "round-start", "attack", "save", "damage", "hp", "round-end"]
    assert [x["type"] for x in lines] == kinds
    assert lines[1] == {"type": "round-start", "round": 1}
    for line in lines:
        assert validator("round-event").is_valid(line)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_fight_jsonl_has_one_round_start_line_per_round(ruleset: str) -> None:
    lines = [json.loads(x) for x in run("fight", "--ruleset", ruleset, "--seed", "9", "--jsonl")
             .stdout.splitlines()]
    starts = [i for i, x in enumerate(lines) if x["type"] == "round-start"]
    ends = [i for i, x in enumerate(lines) if x["type"] == "round-end"]
    assert len(starts) == len(ends) == lines[-1]["round"] > 0
    for n, (start, end) in enumerate(zip(starts, ends, strict=True), start=1):
        assert lines[start] == {"type": "round-start", "round": n} and start < end
        assert all(x["round"] == n for x in lines[start:end + 1])
    for line in lines:
        assert validator("fight-event").is_valid(line)
    refused = {"type": "round-start", "round": 1, "fighters": []}
    assert not validator("fight-event").is_valid(refused)
