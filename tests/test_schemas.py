"""The JSON Schemas (sevendag_cli/schemas): valid themselves, and real outputs and files match them.

Every JSON output is produced through the CLI, for both rulesets, and validated against its
schema; the bundled TOML files validate against the input schemas, and broken sheets are
refused by both the schema and the loader (``rulesets validate``).
"""

from __future__ import annotations

import copy
import json
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from jsonschema.protocols import Validator

from sevendag_cli.commands.schema import load_schema, schema_names, validator
from tests.catalogue import check_every
from tests.helpers import assert_one_line_error, run, run_json

BUNDLED = Path(__file__).resolve().parent.parent / "rulesets"
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "sevendag_cli" / "schemas"

OUTPUTS = ["init", "round", "round-event", "fight", "fight-event", "fight-runs", "fight-exact", "odds",
           "advise", "wound", "classify", "undo", "roll", "rulesets", "rulesets-show", "rulesets-validate",
           "new", "status", "log", "log-event", "error", "sweep", "matrix"]
INPUTS = ["fighter-d20", "fighter-sevendag", "ruleset-d20", "ruleset-sevendag", "encounter"]


@cache
def _validator(name: str) -> Validator:
    return validator(name)


def errors(name: str, data: Any) -> list[Any]:
    return list(_validator(name).iter_errors(data))


def assert_valid(name: str, data: Any) -> None:
    errs = errors(name, data)
    if errs:
        err = best_match(errs)
        raise AssertionError(f"{name}: at {list(err.absolute_path)}: {err.message[:500]}")


def assert_invalid(name: str, data: Any) -> None:
    assert not _validator(name).is_valid(data), f"{name}: expected this to be refused"


def assert_lines_valid(name: str, stdout: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in stdout.splitlines()]
    assert lines
    for line in lines:
        assert_valid(name, line)
    return lines


def jsonl(*args: str) -> str:
    result = run(*args, "--jsonl")
    assert result.exit_code == 0, result.stderr
    return result.stdout


# --- the schemas themselves ---------------------------------------------------------------


def test_the_schema_names_cover_every_output_and_input_file() -> None:
    assert set(schema_names()) == {"common", *OUTPUTS, *INPUTS}
    assert sorted(p.stem for p in SCHEMA_DIR.glob("*.json")) == schema_names()


@pytest.mark.slow
def test_every_schema_is_a_valid_draft_2020_12_schema() -> None:
    def check(name: str) -> None:
        schema = load_schema(name)
        Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["$id"] == f"https://sevendag.invalid/schemas/{name}.json"
        assert schema["title"] and schema["description"]

    check_every(["common", *OUTPUTS, *INPUTS], check)


def test_input_schemas_refuse_unknown_keys_like_the_loaders() -> None:
    def check(name: str) -> None:
        assert load_schema(name)["additionalProperties"] is False

    check_every(INPUTS, check)


# --- d20 at the table -------------------------------------------------------------------------


@pytest.mark.slow
def test_d20_session_outputs_match_their_schemas() -> None:
    init = run_json("init", "--ruleset", "d20", "--dice", "19,5")
    assert_valid("init", init)
    doc = run_json("round", "--dice", "8,18,17,3,3")  # D-14: the worked example
    assert_valid("round", doc)
    assert [e["type"] for e in doc["events"]] == ["attack", "save", "damage", "hp"]
    undone = run_json("undo")
    assert_valid("undo", undone)
    lines = assert_lines_valid("round-event", jsonl("round", "--dice", "8,18,17,3,3"))
    assert lines[-1]["type"] == "round-end"
    for seed in ("1", "2", "3"):  # rounds that roll initiative again (D-02)
        doc = run_json("round", "--seed", seed)
        assert_valid("round", doc)
        assert doc["events"][0]["type"] == "initiative"
    assert_lines_valid("round-event", jsonl("round", "--seed", "4"))
    for amount in ("5", "-3"):
        assert_valid("wound", run_json("wound", "B", amount))
    assert_valid("undo", run_json("undo"))


def test_d20_round_that_ends_the_fight_matches_its_schema() -> None:
    run_json("init", "--ruleset", "d20", "--dice", "19,5")
    assert_valid("wound", run_json("wound", "B", "49"))
    doc = run_json("round", "--dice", "20,1,6,6,1")  # natural 20, critical: two damage sets
    assert_valid("round", doc)
    assert doc["over"] is True and doc["round"]["draw"] is False
    assert doc["events"][-1] == {"type": "fight-over", "winner": "A", "loser": "B",
                                 "reason": "defeated", "rules": ["D-12"]}
    run("undo")
    lines = assert_lines_valid("round-event", jsonl("round", "--dice", "20,1,6,6,1"))
    assert [line["type"] for line in lines][-2:] == ["fight-over", "round-end"]


def test_d20_wound_that_ends_the_fight_matches_its_schema() -> None:
    run_json("init", "--ruleset", "d20", "--dice", "19,5")
    doc = run_json("wound", "A", "45")
    assert_valid("wound", doc)
    assert doc["over"] is True and doc["winner"] == "B"


# --- Sevendag at the table ------------------------------------------------------------------


@pytest.mark.slow
def test_sevendag_session_outputs_match_their_schemas() -> None:
    assert_valid("init", run_json("init", "--dice", "5,19"))  # Ysolde is the assaillant
    doc = run_json("round", "--technique", "Ysolde=feint", "--yield", "--seed", "3")
    assert_valid("round", doc)
    allocations = [e for e in doc["events"] if e["type"] == "allocation"]
    assert any(a["yielded"] for a in allocations)
    assert any(a["technique"] == "feint" and a["technique_started"] for a in allocations)
    assert_lines_valid("round-event", jsonl("round", "--technique", "Brannoc=guard", "--seed", "5"))
    doc = run_json("round", "--allocate", "Brannoc=defence,defence", "--seed", "6")
    assert_valid("round", doc)
    # guard lasts two rounds: still in effect, not started again
    assert any(e["type"] == "allocation" and e["technique"] == "guard" and not e["technique_started"]
               for e in doc["events"])
    assert_valid("wound", run_json("wound", "Brannoc", "17"))
    assert_valid("wound", run_json("wound", "Ysolde", "critical"))
    assert_valid("undo", run_json("undo"))
    assert_valid("undo", run_json("undo"))
    for seed in range(10, 40):  # play on until the fight ends
        doc = run_json("round", "--seed", str(seed))
        assert_valid("round", doc)
        if doc["over"]:
            break
    assert doc["over"] and doc["events"][-1]["type"] == "fight-over"


def test_sevendag_wound_that_ends_the_fight_matches_its_schema() -> None:
    run_json("init", "--dice", "5,19")
    doc = run_json("wound", "Ysolde", "fatal")
    assert_valid("wound", doc)
    assert doc["amount"] is None and doc["winner"] == "Brannoc"
    assert [e["type"] for e in doc["events"]] == ["wound", "fight-over"]


# --- whole fights ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_fight_json_and_jsonl_match_their_schemas(ruleset: str) -> None:
    doc = run_json("fight", "--ruleset", ruleset, "--seed", "3")
    assert_valid("fight", doc)
    lines = assert_lines_valid("fight-event", jsonl("fight", "--ruleset", ruleset, "--seed", "3"))
    assert lines[0]["type"] == "start" and lines[-1]["type"] == "end"
    assert lines[-1]["fighters"] == doc["fighters"]


@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_fight_ended_by_the_round_cap_matches_its_schema(ruleset: str) -> None:
    doc = run_json("fight", "--ruleset", ruleset, "--seed", "3", "--cap", "1")
    assert_valid("fight", doc)
    assert doc["capped"] and doc["draw"] and doc["winner"] is None
    assert doc["rounds"][-1]["events"][-1]["reason"] == "round-cap"
    assert_lines_valid("fight-event", jsonl("fight", "--ruleset", ruleset, "--seed", "3", "--cap", "1"))


def test_rare_sevendag_events_match_their_schemas() -> None:
    """A house ruleset granting criticals on fumbles: drops, grants, recoveries, reversals."""
    text = (BUNDLED / "sevendag.toml").read_text("utf-8")
    Path("house.toml").write_text(
        text.replace("fumble_grants_crit = false", "fumble_grants_crit = true"), "utf-8")
    doc = run_json("fight", "--ruleset", "house", "--seed", "1")
    assert_valid("fight", doc)
    types = {e["type"] for r in doc["rounds"] for e in r["events"]}
    assert {"drop", "critical-granted", "recovered", "initiative-reversed"} <= types
    assert_lines_valid("fight-event", jsonl("fight", "--ruleset", "house", "--seed", "1"))


MAGE = """\
ruleset = "d20"
name = "Mage"
str = 10
dex = 12
con = 10
wis = 16
hp = 30
notes = "magic damage, a wide crit range"

[weapon]
name = "staff"
damage = "1d4"
magic = "1d6"
crit_range = 19
crit_factor = 3
"""


@pytest.mark.slow
def test_d20_magic_damage_and_triple_criticals_match_their_schemas() -> None:
    Path("mage.toml").write_text(MAGE, "utf-8")
    assert_valid("fighter-d20", tomllib.loads(MAGE))
    doc = run_json("fight", "Mage", "B", "--seed", "0")
    assert_valid("fight", doc)
    damage = [e for r in doc["rounds"] for e in r["events"] if e["type"] == "damage"]
    assert any(e["magic"] is not None and e["vol"] is not None for e in damage if e["attacker"] == "Mage")
    assert any(len(e["sets"]) == 3 for e in damage)


@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_fight_runs_matches_its_schema(ruleset: str) -> None:
    doc = run_json("fight", "--ruleset", ruleset, "--runs", "500", "--seed", "1")
    assert_valid("fight-runs", doc)
    assert doc["mode"] == "runs" and doc[ruleset] is not None


@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_fight_exact_matches_its_schema(ruleset: str) -> None:
    doc = run_json("fight", "--ruleset", ruleset, "--exact")
    assert_valid("fight-exact", doc)
    assert doc["mode"] == "exact" and doc["seed"] is None and doc["engine"] == ruleset


SEEDS = settings(max_examples=25, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.mark.slow
@SEEDS
@given(seed=st.integers(0, 2**63 - 1), ruleset=st.sampled_from(["d20", "sevendag"]))
def test_any_seeded_fight_matches_the_fight_schema(seed: int, ruleset: str) -> None:
    assert_valid("fight", run_json("fight", "--ruleset", ruleset, "--seed", str(seed)))


# --- the other commands ---------------------------------------------------------------------


def test_roll_and_classify_match_their_schemas() -> None:
    assert_valid("roll", run_json("roll", "3d6 + 2", "--seed", "4"))
    assert_valid("roll", run_json("roll", "2d6+1", "--dice", "6,1"))
    assert_valid("roll", run_json("roll", "5"))  # no die at all
    for amount in ("17", "31", "0", "-4"):
        assert_valid("classify", run_json("wound", "--classify", amount))
    assert_valid("classify", run_json("wound", "--classify", "12", "--lang", "fr"))


def test_rulesets_list_matches_its_schema() -> None:
    assert_valid("rulesets", run_json("rulesets"))
    # a user ruleset that fails to load, and a user fighter
    text = (BUNDLED / "d20.toml").read_text("utf-8")
    Path("broken.toml").write_text(text.replace('dd = "roll"', 'dd = "table"'), "utf-8")
    Path("mage.toml").write_text(MAGE, "utf-8")
    doc = run_json("rulesets")
    assert_valid("rulesets", doc)
    broken = next(r for r in doc["rulesets"] if r["name"] == "broken")
    assert broken["valid"] is False and broken["problem"]
    assert any(f["file"] == "mage" and f["origin"] == "user" for f in doc["fighters"])


@pytest.mark.parametrize("name", ["d20", "sevendag"])
def test_rulesets_show_matches_its_schema(name: str) -> None:
    doc = run_json("rulesets", "show", name)
    assert_valid("rulesets-show", doc)
    assert doc["engine"] == name


def test_rulesets_validate_matches_its_schema() -> None:
    files = [str(BUNDLED / "d20.toml"), str(BUNDLED / "sevendag.toml"),
             str(BUNDLED / "fighters" / "a.toml"), str(BUNDLED / "fighters" / "brannoc.toml")]
    doc = run_json("rulesets", "validate", *files)
    assert_valid("rulesets-validate", doc)
    assert doc["valid"] is True
    Path("bad.toml").write_text((BUNDLED / "fighters" / "a.toml").read_text("utf-8")
                                .replace("hp = 45", 'hp = "many"\nstrength = 3'), "utf-8")
    result = run("rulesets", "validate", "bad.toml", files[0], "--json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert_valid("rulesets-validate", doc)
    assert doc["valid"] is False and len(doc["files"][0]["problems"]) == 2


@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_new_matches_its_schema_and_writes_a_valid_sheet(ruleset: str) -> None:
    doc = run_json("new", "Aela", "--ruleset", ruleset, "--seed", "2")
    assert_valid("new", doc)
    sheet = tomllib.loads(Path(doc["path"]).read_text("utf-8"))
    assert_valid(f"fighter-{ruleset}", sheet)


# --- input files ------------------------------------------------------------------------------


BUNDLED_FILES = [
    ("ruleset-d20", "d20.toml"), ("ruleset-sevendag", "sevendag.toml"),
    ("fighter-d20", "fighters/a.toml"), ("fighter-d20", "fighters/b.toml"),
    ("fighter-sevendag", "fighters/brannoc.toml"), ("fighter-sevendag", "fighters/ysolde.toml"),
]


def test_bundled_files_match_the_input_schemas() -> None:
    def check(case: tuple[str, str]) -> None:
        schema, file = case
        with (BUNDLED / file).open("rb") as f:
            assert_valid(schema, tomllib.load(f))

    check_every(BUNDLED_FILES, check, name=lambda case: case[1])


def test_every_bundled_file_is_covered() -> None:
    found = {str(p.relative_to(BUNDLED)) for p in BUNDLED.rglob("*.toml")}
    assert found == {file for _schema, file in BUNDLED_FILES}


# (schema, bundled file, text to replace ("" = prepend), replacement)
CHANGES = {
    "d20 sheet: unknown key": ("fighter-d20", "fighters/a.toml", "", "strength = 12\n"),
    "d20 sheet: wrong type": ("fighter-d20", "fighters/a.toml", "hp = 45", 'hp = "45"'),
    "d20 sheet: out of range": ("fighter-d20", "fighters/a.toml", "level = 5", "level = 0"),
    "d20 sheet: missing hp": ("fighter-d20", "fighters/a.toml", "hp = 45\n", ""),
    "d20 sheet: empty name": ("fighter-d20", "fighters/a.toml", 'name = "A"', 'name = "  "'),
    "d20 sheet: unknown weapon key": ("fighter-d20", "fighters/a.toml", 'damage = "1d6"',
                                      'damage = "1d6"\ndmg = 2'),
    "d20 sheet: weapon without damage": ("fighter-d20", "fighters/a.toml", 'damage = "1d6"\n', ""),
    "sevendag sheet: unknown key": ("fighter-sevendag", "fighters/brannoc.toml", "", "armor = 3\n"),
    "sevendag sheet: wrong type": ("fighter-sevendag", "fighters/brannoc.toml", "speed = 3",
                                   'speed = "3"'),
    "sevendag sheet: a d1": ("fighter-sevendag", "fighters/brannoc.toml", "die = 10", "die = 1"),
    "sevendag sheet: weapon without metal": ("fighter-sevendag", "fighters/brannoc.toml",
                                             'metal = "iron"\n', ""),
    "sevendag sheet: custom without allocation": ("fighter-sevendag", "fighters/brannoc.toml",
                                                  'tactic = "weapons-attack"', 'tactic = "custom"'),
    "sevendag sheet: unknown tactic": ("fighter-sevendag", "fighters/brannoc.toml",
                                       'tactic = "weapons-attack"', 'tactic = "berserk"'),
    "sevendag sheet: two-handed shield": ("fighter-sevendag", "fighters/brannoc.toml",
                                          'label = { en = "round shield", fr = "bouclier rond" }',
                                          'label = "round shield"\nhands = 2'),
    "sevendag sheet: unknown item key": ("fighter-sevendag", "fighters/brannoc.toml",
                                         "skill = 14", "skill = 14\nweight = 3"),
    "d20 ruleset: unknown option": ("ruleset-d20", "d20.toml", 'round_cap = "none"',
                                    'round_cap = "none"\nbogus = 1'),
    "d20 ruleset: a round cap neither a number nor none": (
        "ruleset-d20", "d20.toml", 'round_cap = "none"', 'round_cap = "never"'),
    "d20 ruleset: a round cap of 0": ("ruleset-d20", "d20.toml", 'round_cap = "none"',
                                      "round_cap = 0"),
    "d20 ruleset: bad enum": ("ruleset-d20", "d20.toml", 'dd = "roll"', 'dd = "table"'),
    "d20 ruleset: unknown formula": ("ruleset-d20", "d20.toml", 'unarmed_damage = "1d3"',
                                     'unarmed_damage = "1d3"\nparry = "1d20"'),
    "sevendag ruleset: wrong type": ("ruleset-sevendag", "sevendag.toml", "extra_damage = 4",
                                     'extra_damage = "4"'),
    "sevendag ruleset: unknown top-level key": ("ruleset-sevendag", "sevendag.toml", "",
                                                'notes = "x"\n'),
    "sevendag ruleset: band without name": ("ruleset-sevendag", "sevendag.toml",
                                            'name = "serious"\n', ""),
}


def changed(file: str, old: str, new: str) -> str:
    text = (BUNDLED / file).read_text("utf-8")
    if not old:
        return new + text
    assert text.count(old) == 1, (file, old)
    return text.replace(old, new)


@pytest.mark.parametrize("case", sorted(CHANGES))
def test_broken_files_are_refused_by_the_schema_and_the_loader(case: str) -> None:
    schema, file, old, new = CHANGES[case]
    text = changed(file, old, new)
    assert_invalid(schema, tomllib.loads(text))
    Path("broken.toml").write_text(text, "utf-8")
    result = run("rulesets", "validate", "broken.toml", "--json")
    assert result.exit_code == 1, result.stdout
    assert json.loads(result.stdout)["valid"] is False


GOOD_CHANGES = {
    "sevendag sheet: custom allocation": (
        "fighter-sevendag", "fighters/brannoc.toml", 'tactic = "weapons-attack"',
        'tactic = "custom"\nallocation = ["defence", "defence"]'),
    "sevendag sheet: empty hand": (
        "fighter-sevendag", "fighters/brannoc.toml", 'holds = "shield"', 'holds = ""'),
    "d20 sheet: stated AC and notes": (
        "fighter-d20", "fighters/b.toml", "", 'notes = "anything"\n'),
    "d20 ruleset: level table": ("ruleset-d20", "d20.toml", 'dd = "roll"', 'dd = "level_table"'),
    "d20 ruleset: a round cap (D-12)": ("ruleset-d20", "d20.toml", 'round_cap = "none"',
                                        "round_cap = 1000"),
    "d20 ruleset: no round_cap key": ("ruleset-d20", "d20.toml", 'round_cap = "none"', ""),
    "sevendag ruleset: plain-text label": (
        "ruleset-sevendag", "sevendag.toml", 'label = { en = "Sevendag", fr = "Sevendag" }',
        'label = "My house"'),
}


@pytest.mark.parametrize("case", sorted(GOOD_CHANGES))
def test_valid_variants_pass_the_schema_and_the_loader(case: str) -> None:
    schema, file, old, new = GOOD_CHANGES[case]
    text = changed(file, old, new)
    assert_valid(schema, tomllib.loads(text))
    Path("variant.toml").write_text(text, "utf-8")
    doc = run_json("rulesets", "validate", "variant.toml")
    assert doc["valid"] is True, doc


# --- the schemas catch wrong outputs (they are not vacuous) ---------------------------------------


@pytest.mark.slow
def test_broken_outputs_are_refused() -> None:
    d20 = run_json("fight", "--ruleset", "d20", "--seed", "3", "--cap", "5")
    sevendag = run_json("fight", "--ruleset", "sevendag", "--seed", "3", "--cap", "5")
    assert_valid("fight", d20)
    assert_valid("fight", sevendag)

    def broken(doc: dict[str, Any], change: Any) -> dict[str, Any]:
        doc = copy.deepcopy(doc)
        change(doc)
        return doc

    first_d20 = d20["rounds"][0]
    exchange = next(i for i, e in enumerate(sevendag["rounds"][0]["events"]) if e["type"] == "exchange")
    cases = [
        broken(d20, lambda d: d.pop("capped")),
        broken(d20, lambda d: d.update(schema_version=2)),
        broken(d20, lambda d: d.update(draw=False)),  # capped: a draw
        broken(d20, lambda d: d["fighters"][0].pop("hp")),
        broken(d20, lambda d: d["rounds"][0]["events"][0].update(type="bogus")),
        broken(d20, lambda d: d["rounds"][0]["events"][0].pop("rules")),
        broken(d20, lambda d: d["rounds"][0]["rolls"][0].update(purpose="defence")),  # a Sevendag purpose
        broken(d20, lambda d: d["rounds"][0]["rolls"][0].update(die="20")),
        broken(d20, lambda d: d["rounds"][0].update(elapsed_seconds=3)),
        broken(sevendag, lambda d: d["rounds"][0]["events"][exchange].update(outcome="hit")),
        broken(sevendag, lambda d: d["rounds"][0]["events"][exchange].update(critical="yes")),
        broken(sevendag, lambda d: d["rounds"][0]["events"][exchange].pop("margin")),
        broken(sevendag, lambda d: d["rounds"][0]["events"].append(first_d20["events"][0])),
        broken(sevendag, lambda d: d["fighters"][0].update(technique="feint")),
        broken(sevendag, lambda d: d["initiative"]["attempts"][0].pop()),
    ]
    for doc in cases:
        assert_invalid("fight", doc)


# --- the schema command ---------------------------------------------------------------------------


def test_schema_lists_the_names() -> None:
    result = run("schema")
    assert result.exit_code == 0
    assert result.stdout.splitlines() == schema_names()


def test_schema_prints_the_file_bundled() -> None:
    """the schema printed is self-contained (it was the file as shipped, with
    references to common.json that a plain validator cannot follow)."""
    result = run("schema", "fight")
    assert result.exit_code == 0
    printed = json.loads(result.stdout)
    shipped = json.loads((SCHEMA_DIR / "fight.json").read_text("utf-8"))
    assert "common.json#" in json.dumps(shipped) and ".json#" not in result.stdout
    assert {k: v for k, v in printed.items() if k not in ("properties", "allOf", "$defs")} == {
        k: v for k, v in shipped.items() if k not in ("properties", "allOf", "$defs")}
    assert set(printed["properties"]) == set(shipped["properties"])
    assert printed["properties"]["seed"] == {"$ref": "#/$defs/common.seed"}
    assert printed["$defs"]["common.seed"] == load_schema("common")["$defs"]["seed"]


def test_schema_help_has_an_example() -> None:
    result = run("schema", "--help")
    assert result.exit_code == 0 and "Example: sevendag schema fight" in result.stdout


def test_unknown_schema_is_a_usage_error() -> None:
    result = run("schema", "fights")
    assert_one_line_error(result, 2, "no schema 'fights'")
    assert "fight-runs" in result.stderr
    assert result.stdout == ""
