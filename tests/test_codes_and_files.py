"""Consistent codes, messages and files.

* a name typed on the command line that names no fighter or ruleset is a usage mistake (exit 2)
  in every command; a sheet naming a ruleset that is not found is a data problem (exit 1);
* ``new`` prints a seed only where it rolled dice;
* ``rulesets validate`` reports every file, ``rulesets`` lists broken files with their problem;
* ``[rules]`` of the Sevendag ruleset names every S rule.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from sevendag_cli.commands.schema import bundled_schema
from tests.helpers import assert_one_line_error, run, run_json, snapshot

BUNDLED = Path(__file__).resolve().parent.parent / "rulesets"
SEVENDAG_INIT = ["init", "--dice", "5,19"]
D20_INIT = ["init", "--ruleset", "d20", "--dice", "19,5"]

# (setup, command): an unknown fighter, then an unknown ruleset, in every command that takes one
UNKNOWN_NAMES = [
    (None, ["fight", "Nobody", "B", "--ruleset", "d20"], "fighter 'Nobody': not found"),
    (None, ["fight", "nobody.toml", "B"], "nobody.toml: no such fighter file"),
    (None, ["init", "Brannoc", "Zed"], "fighter 'Zed': not found"),
    (SEVENDAG_INIT, ["wound", "Zed", "5"], "no fighter 'Zed' in this encounter"),
    (SEVENDAG_INIT, ["wound", "Zed", "--heal", "light"], "no fighter 'Zed' in this encounter"),
    (D20_INIT, ["wound", "Zed", "5"], "no fighter 'Zed' in this encounter"),
    (SEVENDAG_INIT, ["round", "-a", "Zed=attack", "--seed", "1"], "no fighter 'Zed' in this encounter"),
    (SEVENDAG_INIT, ["round", "-t", "Zed=feint", "--seed", "1"], "no fighter 'Zed' in this encounter"),
    (None, ["fight", "--ruleset", "chess"], "ruleset 'chess': not found"),
    (None, ["init", "--ruleset", "chess"], "ruleset 'chess': not found"),
    (None, ["rulesets", "show", "chess"], "ruleset 'chess': not found"),
    (None, ["new", "Korr", "--ruleset", "chess"], "ruleset 'chess': not found"),
    (None, ["wound", "--classify", "5", "--ruleset", "chess"], "ruleset 'chess': not found"),
    (None, ["fight", "--ruleset", "chess.toml"], "chess.toml: no such ruleset file"),
]


@pytest.mark.parametrize(("setup", "args", "fragment"), UNKNOWN_NAMES, ids=lambda x: " ".join(x or []))
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_an_unknown_name_typed_is_a_usage_mistake_everywhere(
    tmp_path: Path, setup: list[str] | None, args: list[str], fragment: str, lang: str
) -> None:
    if setup:
        assert run(*setup).exit_code == 0
    before = snapshot(tmp_path)
    result = run(*args, "--lang", lang)
    assert_one_line_error(result, 2, fragment if lang == "en" else "")
    assert snapshot(tmp_path) == before


def test_a_sheet_naming_an_unknown_ruleset_is_a_data_problem() -> None:
    text = (BUNDLED / "fighters" / "brannoc.toml").read_text("utf-8")
    Path("korr.toml").write_text(text.replace('ruleset = "sevendag"', 'ruleset = "chess"'), "utf-8")
    result = run("fight", "korr.toml", "ysolde")
    assert_one_line_error(result, 1, "korr.toml: ruleset: ruleset 'chess': not found")


# --- new ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("extra", [[], ["--seed", "3"]])
def test_new_for_sevendag_rolls_nothing_and_prints_no_seed(extra: list[str]) -> None:
    result = run("new", "Korr", *extra)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "" and result.stderr == "wrote korr.toml\n"
    doc = run_json("new", "Aela", *extra)
    jsonschema.validate(doc, bundled_schema("new"))
    assert doc["seed"] is None and doc["abilities"] == {}


def test_new_for_d20_still_reports_its_seed() -> None:
    result = run("new", "Aela", "--ruleset", "d20", "--seed", "3")
    assert result.exit_code == 0 and "seed 3 (--seed 3)" in result.stderr
    assert run_json("new", "Bob", "--ruleset", "d20", "--seed", "3")["seed"] == 3


# --- rulesets validate: every file -------------------------------------------------------------------


def write_files() -> None:
    Path("a.toml").write_text((BUNDLED / "fighters" / "brannoc.toml").read_text("utf-8"), "utf-8")
    text = (BUNDLED / "fighters" / "ysolde.toml").read_text("utf-8")
    Path("b.toml").write_text(text.replace("skill = ", "skill = 40 #"), "utf-8")
    Path("syntax.toml").write_text("name = [\n", "utf-8")
    Path("neither.toml").write_text("a = 1\n", "utf-8")


def test_rulesets_validate_reports_every_file_a_syntax_error_hides_nothing() -> None:
    write_files()
    files = ["a.toml", "syntax.toml", "b.toml", "missing.toml", "neither.toml"]
    result = run("rulesets", "validate", *files)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "a.toml: valid fighter"
    assert lines[1].startswith("syntax.toml: is not valid TOML")
    assert any(line.startswith("b.toml: items.greatsword.skill: 40 is out of range") for line in lines)
    assert "missing.toml: no such file" in lines and "neither.toml: is neither a ruleset" in result.stdout
    doc = json.loads(run("rulesets", "validate", *files, "--json").stdout)
    jsonschema.validate(doc, bundled_schema("rulesets-validate"))
    assert [(f["path"], f["kind"], f["valid"]) for f in doc["files"]] == [
        ("a.toml", "fighter", True), ("syntax.toml", None, False), ("b.toml", "fighter", False),
        ("missing.toml", None, False), ("neither.toml", None, False)]
    assert doc["valid"] is False


def test_rulesets_validate_in_french() -> None:
    write_files()
    result = run("rulesets", "validate", "neither.toml", "syntax.toml", "--lang", "fr")
    assert result.exit_code == 1
    assert "neither.toml : n'est ni un fichier de règles" in result.stdout
    assert "syntax.toml : n'est pas un TOML valide" in result.stdout


# --- rulesets: broken files listed ----------------------------------------------------------------------


@pytest.mark.slow
def test_rulesets_lists_a_broken_file_with_its_first_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")  # the folders are long: no wrapping in the table
    write_files()
    doc = run_json("rulesets")
    jsonschema.validate(doc, bundled_schema("rulesets"))
    broken = {Path(b["path"]).name: b["problem"] for b in doc["broken"]}
    assert set(broken) == {"syntax.toml"} and "is not valid TOML" in broken["syntax.toml"]
    sheets = {f["file"]: f for f in doc["fighters"]}
    assert sheets["a"]["valid"] is True and sheets["a"]["problem"] is None
    assert sheets["b"]["valid"] is False
    expected = "b.toml: items.greatsword.skill: 40 is out of range: expected from 1 to 20"
    assert sheets["b"]["problem"].endswith(expected)
    assert sheets["brannoc"]["valid"] is True  # the bundled ones too
    out = run("rulesets").stdout
    assert "syntax.toml" in out and "invalid" in out
    french = run("rulesets", "--lang", "fr").stdout
    assert "Fichiers illisibles" in french and "n'est pas un TOML valide" in french


def test_a_sheet_naming_a_missing_ruleset_is_listed_with_that_problem() -> None:
    text = (BUNDLED / "fighters" / "brannoc.toml").read_text("utf-8")
    Path("korr.toml").write_text(text.replace('ruleset = "sevendag"', 'ruleset = "chess"'), "utf-8")
    sheets = {f["file"]: f for f in run_json("rulesets")["fighters"]}
    assert sheets["korr"]["valid"] is False and "ruleset 'chess': not found" in sheets["korr"]["problem"]


# --- [rules] ------------------------------------------------------------------------------------------


def test_the_sevendag_ruleset_names_every_s_rule() -> None:
    """S-09, S-20 and S-21 were missing from ``[rules]``: every S-01..S-21 is there, in order."""
    rules = run_json("rulesets", "show", "sevendag")["rules"]
    assert list(rules) == [f"S-{n:02d}" for n in range(1, 22)]
    shown = run("rulesets", "show", "sevendag").stdout
    assert all(f"S-{n}" in shown for n in ("09", "20", "21"))
