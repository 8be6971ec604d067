"""The reader's language, both ways: input in either language and any case, the
prompts, ``--lang`` before the command name, French ``--help`` throughout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sevendag_cli.rules import SevendagFighter, SevendagRuleset, load_pair, load_ruleset
from sevendag_cli.sevendag import engine
from sevendag_cli.sevendag.prompts import ask_sevendag_choices
from sevendag_cli.terms import commitments, fold, yes_no
from tests.helpers import assert_one_line_error, run, run_json


def start() -> None:
    assert run("init", "--dice", "5,19").exit_code == 0  # Ysolde is the assaillant


# --- words typed in either language, in any case ----------------------------------------------


def test_terms_fold_case_and_accents() -> None:
    assert fold("  Défense ") == "defense" and fold("LÉGÈRE") == "legere"
    assert commitments("a,d") == ("attack", "defence")
    assert commitments("Attaque, DÉFENSE, n") == ("attack", "defence", "none")
    assert commitments("a,bogus") == ("attack", "bogus")  # refused later, named as typed
    assert [yes_no(w) for w in ("y", "Oui", "NO", "non", "maybe", "")] == [True, True, False, False,
                                                                        None, None]


@pytest.mark.parametrize(("band", "key"), [
    ("grave", "serious"), ("Critical", "critical"), ("LÉGÈRE", "light"), ("legere", "light"),
    ("blessure fatale", "fatal"), ("Serious Wound", "serious"), ("light", "light"),
])
def test_S16_wound_by_band_name_in_either_language_and_any_case(band: str, key: str,
                                                                tmp_path: Path) -> None:
    start()
    doc = run_json("wound", "Ysolde", band)
    assert doc["band"] == key
    assert {f["name"]: f["wounds"] for f in doc["fighters"]}["Ysolde"] == [key]
    saved = json.loads((tmp_path / "encounter.sevendag.json").read_text("utf-8"))
    assert saved["log"][-1]["band"] == key  # the history keeps the band's key


def test_S16_an_unknown_band_is_still_one_line() -> None:
    start()
    assert_one_line_error(run("wound", "Ysolde", "scratch"), 1, "scratch")


@pytest.mark.parametrize("technique", ["feinte", "FEINT", "Feint", "feint"])
def test_S05_technique_by_key_or_label_in_either_language(technique: str) -> None:
    start()
    doc = run_json("round", "-t", f"Ysolde={technique}", "--dice", "5,3,6,6")
    alloc = next(e for e in doc["events"] if e["type"] == "allocation" and e["fighter"] == "Ysolde")
    assert alloc["technique"] == "feint"


def test_S05_a_technique_label_of_several_words() -> None:
    start()
    doc = run_json("round", "-t", "ysolde=Garde de fer", "--dice", "5,3,6,6")
    alloc = next(e for e in doc["events"] if e["type"] == "allocation" and e["fighter"] == "Ysolde")
    assert alloc["technique"] == "guard"


@pytest.mark.parametrize("value", ["attaque,défense", "a,d", "A,D", "Attack, Defence", "att,def"])
def test_S04_commitments_in_either_language_and_the_shortcuts(value: str) -> None:
    start()
    doc = run_json("round", "-a", f"Brannoc={value}", "-a", "ysolde=a,a", "--dice", "5,3,6,6")
    alloc = next(e for e in doc["events"] if e["type"] == "allocation" and e["fighter"] == "Brannoc")
    assert [h["commitment"] for h in alloc["hands"]] == ["attack", "defence"]


def test_S04_shortcuts_for_a_refused_choice_are_refused_as_before(tmp_path: Path) -> None:
    start()
    assert_one_line_error(run("round", "-a", "brannoc=a,a", "--dice", "1,1,1,1"), 1, "shield")
    assert_one_line_error(run("round", "-a", "Gandalf=a,d"), 2, "Gandalf")


def test_S16_wound_names_the_fighter_in_any_case() -> None:
    start()
    assert run_json("wound", "ysolde", "5")["fighter"] == "Ysolde"


# --- the prompts, with scripted answers ----------------------------------------------------------


def sevendag_pair() -> tuple[SevendagRuleset, SevendagFighter, SevendagFighter, engine.SevendagState]:
    rs = load_ruleset("sevendag")
    a, b = load_pair(rs, None)
    assert isinstance(rs, SevendagRuleset)
    assert isinstance(a, SevendagFighter) and isinstance(b, SevendagFighter)
    state = engine.initial_state(a, b, "Ysolde")
    return rs, a, b, state


def ask(answers: list[str], lang: str = "en", yield_: bool | None = None
        ) -> tuple[engine.Choices, list[str], list[str]]:
    rs, a, b, state = sevendag_pair()
    questions: list[str] = []
    said: list[str] = []
    pending = iter(answers)

    def read(question: str) -> str:
        questions.append(question)
        return next(pending)

    choices = ask_sevendag_choices(rs, a, b, state, yield_, {}, {}, lang, read, said.append)
    assert next(pending, None) is None, "every scripted answer was asked for"
    return choices, questions, said


def test_S03_a_yes_no_question_asks_again_what_is_neither() -> None:
    choices, questions, said = ask(["maybe", "Oui", "", "", "", ""])
    assert choices.yield_initiative is True
    assert questions[0] == questions[1] and "[y/N]" in questions[0]
    assert said[0] == "'maybe' is neither yes nor no: answer y or n (Enter: no)"


def test_S03_enter_is_no() -> None:
    choices, _, _ = ask(["", "", "", "", ""])
    assert choices.yield_initiative is False
    assert choices.allocation == {"Ysolde": ("attack", "attack"), "Brannoc": ("attack", "defence")}


def test_S04_one_answer_for_two_hands_is_explained_and_asked_again() -> None:
    choices, questions, said = ask(["a", "Attaque, attaque", "", "d,d", ""], yield_=False)
    assert choices.allocation["Ysolde"] == ("attack", "attack")
    assert choices.allocation["Brannoc"] == ("defence", "defence")
    assert said[0] == "Ysolde — hands: (1) d8 steel greatsword, (2) d8 steel greatsword"
    assert said[1] == ("Ysolde has 2 hands and 1 answer(s) were given: answer once per hand, in "
                       "order, separated by commas (e.g. a,a)")
    assert questions[0] == questions[1]


def test_S04_S05_refusals_are_explained_in_french_and_techniques_by_label() -> None:
    choices, questions, said = ask(["", "a,d", "Feinte", "a,a", "D, Défense", "aucune"], lang="fr",
                                   yield_=False)
    assert choices.allocation == {"Ysolde": ("attack", "attack"), "Brannoc": ("defence", "defence")}
    assert choices.technique == {"Ysolde": "feint"}
    assert said[0] == "Ysolde — mains : (1) d8 grande épée d'acier, (2) d8 grande épée d'acier"
    assert said[1].startswith("technique inconnue 'a,d' : choisir parmi feint")
    assert any("bouclier" in s or "shield" in s for s in said[2:])  # S-04: a shield only defends
    assert "[o/N]" not in " ".join(questions)  # the yield was given on the command line


def test_the_prompt_questions_fit_80_columns() -> None:
    _, questions, said = ask(["", "", "", "", ""])
    assert all(len(q) <= 80 for q in questions), questions
    assert all(len(s) <= 80 for s in said), said


# --- --lang before the command name, and French --help ------------------------------------------


def test_lang_before_the_command_name() -> None:
    out = run("--lang", "fr", "fight", "--seed", "3", "--cap", "1").stdout
    assert "est l'assaillant pour le combat" in out
    out = run("fight", "--seed", "3", "--cap", "1").stdout  # nothing left over
    assert "is the assailant for the fight" in out
    out = run("--lang", "fr", "fight", "--seed", "3", "--cap", "1", "--lang", "en").stdout
    assert "is the assailant for the fight" in out  # the command's own --lang wins


def test_a_root_lang_of_a_failed_command_is_not_the_next_runs() -> None:
    """``--lang fr`` before the command name lasts one run, a failed one too: the next run in the
    same process (a library user's, a test's) is in the environment's language."""
    assert run("--lang", "fr", "fight", "Nobody", "Ysolde").exit_code == 2
    out = run("init", "--help").stdout
    assert "Usage: " in out and "Utilisation" not in out


def test_lang_before_the_command_for_errors_and_help() -> None:
    assert_one_line_error(run("--lang", "fr", "fight", "--runs", "0"), 2, "donner un nombre entier")
    assert_one_line_error(run("--lang", "fr", "fight", "--bogus"), 2, "option inconnue")
    result = run("--lang", "fr", "--help")
    assert result.exit_code == 0 and "Utilisation : " in result.stdout
    assert_one_line_error(run("--lang", "fr"), 2, "commande manquante")


ENGLISH_WORDS = ("Usage:", "Show this message and exit", "[default:", "[required]", "[env var:",
                 "Commands", "COMMAND [ARGS]")


@pytest.mark.parametrize("args", [["--help"], ["round", "--help"], ["fight", "--help"],
                                  ["rulesets", "show", "--help"], ["rulesets", "--help"],
                                  ["wound", "--help"]])
def test_french_help_is_french_throughout(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    for french in (["--lang", "fr", *args], [*args, "--lang", "fr"]):
        out = run(*french).stdout
        assert "Utilisation : " in out and "Afficher ce message et quitter." in out
        assert not [w for w in ENGLISH_WORDS if w in out], out
    english = run(*args).stdout
    assert "Usage: " in english and "Show this message and exit." in english


def test_french_help_shows_defaults_required_and_the_environment_in_french(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    out = " ".join(run("round", "--help", "--lang", "fr").stdout.split())
    assert "[variable d'environnement : SEVENDAG_ENCOUNTER; par défaut : encounter.sevendag.json]" in out
    out = run("rulesets", "show", "--help", "--lang", "fr").stdout
    assert "[obligatoire]" in out and "nom" in out
    assert "Commandes" in run("--help", "--lang", "fr").stdout


@pytest.mark.slow
def test_french_plain_help_too() -> None:
    """Without Rich's help (``TYPER_USE_RICH=0``), Click's own words are French as well."""
    env = {**os.environ, "TYPER_USE_RICH": "0", "COLUMNS": "100", "LANG": "C.UTF-8"}
    out = subprocess.run([sys.executable, "-m", "sevendag_cli", "--lang", "fr", "round", "--help"],
                         capture_output=True, text=True, env=env, check=True).stdout
    out = " ".join(out.split())
    assert "Options :" in out
    assert "Utilisation : " in out and "round [OPTIONS]" in out
    assert "par défaut : encounter.sevendag.json" in out
    assert "Afficher ce message et quitter." in out
    assert "default:" not in out and "Show this message" not in out
