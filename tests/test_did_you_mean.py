"""Usage mistakes through sevendag's command classes: the closest option or command suggested,
in English and French, with stable JSON keys; and the mistakes Click's own text used to leave
English in French (a float, an unknown command), or empty (no command)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import assert_one_line_error, run


def plain_environment() -> dict[str, str]:
    """This environment without a language of its own (``LC_ALL`` would win over ``LANG``)."""
    return {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES")}


@pytest.mark.parametrize(("args", "en", "fr"), [
    (["fight", "--odd"], "No such option: --odd. Did you mean --odds? (see 'sevendag fight --help')",
     "option inconnue : --odd ; vouliez-vous dire --odds ? (voir 'sevendag fight --help')"),
    (["fight", "--rns", "3"], "No such option: --rns. Did you mean --runs?",
     "option inconnue : --rns ; vouliez-vous dire --runs ?"),
    (["fight", "--Exact"], "No such option: --Exact. Did you mean --exact?",
     "option inconnue : --Exact ; vouliez-vous dire --exact ?"),
    (["sweep", "--vray", "B.armour=1..3"], "No such option: --vray. Did you mean --vary?",
     "option inconnue : --vray ; vouliez-vous dire --vary ?"),
])
def test_a_mistyped_option_suggests_the_closest_one(args: list[str], en: str, fr: str) -> None:
    assert_one_line_error(run(*args), 2, en)
    assert_one_line_error(run(*args, "--lang", "fr"), 2, fr)
    document = json.loads(run(*args, "--json").stdout)
    assert document["error"]["key"] == "usage.no_such_option"


def test_one_suggestion_at_most_and_none_when_nothing_is_close() -> None:
    result = run("fight", "--bogus")
    assert_one_line_error(result, 2, "No such option: --bogus (see 'sevendag fight --help')")
    assert "mean" not in result.stderr and "Possible" not in result.stderr
    assert "Possible" not in run("fight", "--ods").stderr


@pytest.mark.parametrize(("args", "en", "fr"), [
    (["fihgt"], "No such command 'fihgt'. Did you mean 'fight'? (see 'sevendag --help')",
     "commande inconnue : 'fihgt' ; vouliez-vous dire 'fight' ? (voir 'sevendag --help')"),
    (["rulesets", "shw"], "No such command 'shw'. Did you mean 'show'? (see 'sevendag rulesets --help')",
     "commande inconnue : 'shw' ; vouliez-vous dire 'show' ? (voir 'sevendag rulesets --help')"),
])
def test_a_mistyped_command_suggests_the_closest_ones_in_both_languages(
        args: list[str], en: str, fr: str) -> None:
    assert_one_line_error(run(*args), 2, en)
    french = run(*args, "--lang", "fr")
    assert_one_line_error(french, 2, fr)
    assert "No such" not in french.stderr
    document = json.loads(run(*args, "--json").stdout)
    assert document["error"]["key"] == "usage.no_such_command"


def test_an_unknown_command_far_from_any() -> None:
    assert_one_line_error(run("table"), 2, "No such command 'table'. (see 'sevendag --help')")
    assert_one_line_error(run("table", "--lang", "fr"), 2, "commande inconnue : 'table' (voir")


def test_a_float_that_is_not_a_number_in_french() -> None:
    assert_one_line_error(run("fight", "--tolerance", "abc"), 2,
                          "Invalid value for '--tolerance': 'abc' is not a valid float.")
    assert_one_line_error(run("fight", "--tolerance", "abc", "--lang", "fr"), 2,
                          "valeur invalide pour '--tolerance' : 'abc' n'est pas un nombre (voir")
    document = json.loads(run("fight", "--tolerance", "abc", "--json").stdout)
    assert document["error"]["key"] == "usage.not_number"


def test_no_command_at_all_shows_the_help_and_says_so() -> None:
    result = run()
    assert "Usage: " in result.stdout  # the help, as before
    assert_one_line_error(result, 2, "sevendag: error: Missing command. (see 'sevendag --help')")


@pytest.mark.slow
def test_no_command_at_all_without_rich() -> None:
    env = {**plain_environment(), "TYPER_USE_RICH": "0", "LANG": "fr_FR.UTF-8"}
    done = subprocess.run([sys.executable, "-m", "sevendag_cli"], capture_output=True, text=True,
                          env=env)
    assert done.returncode == 2
    assert "Utilisation : " in done.stdout and "Commandes :" in done.stdout
    assert done.stderr == "sevendag: error: commande manquante (voir 'sevendag --help')\n"


def test_the_help_named_is_sevendags_under_python_m_too() -> None:
    done = subprocess.run([sys.executable, "-m", "sevendag_cli", "fight", "--bogus"],
                          capture_output=True, text=True, env={**plain_environment(), "LANG": "C.UTF-8"})
    assert done.stderr == "sevendag: error: No such option: --bogus (see 'sevendag fight --help')\n"


@pytest.mark.parametrize(("args", "en", "fr", "key"), [
    (["fight", "Brannoc", "Ysold"], "or a path to a .toml file (did you mean 'ysolde'?)",
     "ou donner le chemin d'un fichier .toml (vouliez-vous dire 'ysolde' ?)", "data.not_found_fighter"),
    (["fight", "--ruleset", "sevendg"], "ruleset 'sevendg': not found: use one of d20, sevendag, or a "
     "path to a .toml file (did you mean 'sevendag'?)", "(vouliez-vous dire 'sevendag' ?)",
     "data.not_found_ruleset"),
])
def test_a_mistyped_fighter_or_ruleset_suggests_the_closest_name(
        args: list[str], en: str, fr: str, key: str) -> None:
    assert_one_line_error(run(*args), 2, en)
    assert_one_line_error(run(*args, "--lang", "fr"), 2, fr)
    assert json.loads(run(*args, "--json").stdout)["error"]["key"] == key
    assert "did you mean" not in run("fight", "Gandalf", "B", "--ruleset", "d20").stderr


@pytest.mark.parametrize(("args", "line"), [
    (["fight", "A", "Brannoc"],
     "A is a d20 sheet and Brannoc a sevendag sheet: a fight needs two sheets of one ruleset"),
    (["init", "brannoc", "b"],
     "brannoc is a sevendag sheet and b a d20 sheet: a fight needs two sheets of one ruleset"),
    (["--lang", "fr", "fight", "Brannoc", "A"],
     "Brannoc est une fiche sevendag et A une fiche d20 : un combat se joue entre deux fiches "
     "des mêmes règles"),
])
def test_sheets_of_two_rulesets_are_named_together(args: list[str], line: str) -> None:
    """Neither sheet is blamed alone, and no --ruleset is suggested that would
    then fail on the other; nothing is written."""
    result = run(*args)
    assert result.exit_code == 2
    assert result.stderr == f"sevendag: error: {line}\n"
    assert not Path("encounter.sevendag.json").exists()


def test_a_name_not_found_says_where_it_was_looked_for() -> None:
    """The folders searched, in order, the bundled one last; same JSON key."""
    from sevendag_cli.data import bundled_dir, fighter_dirs

    result = run("fight", "Nobody", "Ysolde")
    assert result.exit_code == 2
    line = result.stderr.strip()
    folders = ", ".join(str(d) for d in fighter_dirs() if d.is_dir())  # those that are there
    assert line.endswith(f"; looked in {folders}") and str(bundled_dir() / "fighters") in line
    doc = json.loads(run("fight", "Nobody", "Ysolde", "--json").stdout)
    assert doc["error"]["key"] == "data.not_found_fighter"
    french = run("--lang", "fr", "fight", "Nobody", "Ysolde").stderr
    assert f" ; cherché dans {folders}" in french
