"""Every output in French or English (issue "Languages"): the message catalogue, one-line errors
from the CLI in both languages (``--lang fr`` and ``LANG=fr_FR.UTF-8``), ``rulesets validate``
listing every problem in French, and the ``--manual`` prompts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from sevendag_cli import i18n, messages
from sevendag_cli.dice import ManualDice, describe
from sevendag_cli.errors import DataError, Msg, RuleError
from sevendag_cli.formula import parse
from sevendag_cli.messages import MESSAGES, placeholders
from sevendag_cli.rules import load_ruleset
from tests.bad_input_helpers import (
    BRANNOC,
    D20,
    FIGHTER_A,
    SEVENDAG,
    YSOLDE,
    corrupt,
    finished_d20,
    init_d20,
    init_sevendag,
    prepare,
    sub,
    truncate,
    write_bytes,
)
from tests.catalogue import check_every
from tests.helpers import assert_one_line_error, run, snapshot

PACKAGE = Path(__file__).resolve().parent.parent / "sevendag_cli"
KEY = re.compile(r'"((?:common|data|formula|dice|rules|engine|store|cli|out|usage|exact)\.[a-z0-9_.]+)"')


# --- the catalogue ---------------------------------------------------------------------------


def test_every_message_has_both_languages_with_the_same_placeholders() -> None:
    def check(key: str) -> None:
        entry = MESSAGES[key]
        assert set(entry) == {"en", "fr"}, key
        assert entry["en"].strip() and entry["fr"].strip(), key
        assert placeholders(entry["en"]) == placeholders(entry["fr"]), key

    check_every(sorted(MESSAGES), check)


def test_display_words_have_both_languages_with_the_same_placeholders() -> None:
    def check(key: str) -> None:
        entry = i18n.MESSAGES[key]
        assert entry["en"].strip() and entry["fr"].strip(), key
        assert placeholders(entry["en"]) == placeholders(entry["fr"]), key

    check_every(sorted(i18n.MESSAGES), check)


def test_every_key_named_in_the_code_is_in_the_catalogue() -> None:
    used: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        if path.name != "messages.py":
            used |= set(KEY.findall(path.read_text("utf-8")))
    assert len(used) > 100
    assert sorted(used - set(MESSAGES)) == []


def test_keys_built_at_run_time_are_in_the_catalogue() -> None:
    from sevendag_cli.dice import PURPOSES

    built = [f"dice.purpose.{p}" for p in PURPOSES]
    built += [f"data.type.{t}" for t in ("bool", "int", "float", "str", "list", "dict")]
    built += [f"{k}_{w}" for k in ("data.named", "data.not_found") for w in ("ruleset", "fighter")]
    built += [f"data.no_such_{w}_file" for w in ("ruleset", "fighter")]
    built += [f"formula.expected.{e}" for e in ("operator", "close", "comma_or_close", "atom")]
    built += [f"formula.what.{w}" for w in ("number", "count", "sides")]
    built += [f"usage.missing_{k}" for k in ("argument", "option", "parameter")]
    built += [f"out.valid_{k}" for k in ("ruleset", "fighter")]
    built += ["common.or", "common.and"]
    built += [f"exact.note.stop.{s}" for s in ("complete", "tolerance", "work", "over")]
    assert sorted(set(built) - set(MESSAGES)) == []


def test_english_text_is_unchanged_and_french_composes() -> None:
    err = DataError("house.toml", "formulas.speed_roll",
                    Msg("data.in_formula", message=Msg("formula.division_by_zero"), formula="1 // 0"))
    assert str(err) == "house.toml: formulas.speed_roll: division by zero in formula '1 // 0'"
    assert err.render("fr") == (
        "house.toml : formulas.speed_roll : division par zéro (formule '1 // 0')")
    assert (err.source, err.key, err.message) == (
        "house.toml", "formulas.speed_roll", "division by zero in formula '1 // 0'")
    plain = RuleError("as it is")  # a plain text still works, in every language
    assert str(plain) == plain.render("fr") == "as it is"


def test_french_helpers_elision_and_thousands() -> None:
    assert describe(6, "damage", "Brannoc", "fr") == "d6 pour les dégâts de Brannoc"
    assert describe(20, "attack", "Ysolde", "fr") == "d20 pour l'attaque d'Ysolde"
    assert describe(6, "damage", "A") == "d6 for A's damage"
    assert Msg("cli.runs", runs=0, max=10_000_000).render("en").endswith("1 to 10,000,000")
    assert Msg("cli.runs", runs=0, max=10_000_000).render("fr").endswith("1 à 10\u00a0000\u00a0000")
    assert messages.render("common.or", "de", {"a": 1, "b": 2}) == "1 or 2"  # unknown language


# --- user mistakes through the CLI, in French ------------------------------------------------


@dataclass
class Case:
    name: str
    args: list[str]
    fr: str  # a French fragment of the one line
    en: str  # a characteristic English fragment: in the English line, not in the French one
    code: int = 1
    files: dict[str, str | bytes] = field(default_factory=dict)
    setup: Callable[[], None] | None = None
    at: int = 1  # where --lang fr goes (after the command's name)


def ruleset_case(name: str, text: str | bytes, fr: str, en: str) -> Case:
    return Case(name, ["fight", "--ruleset", "house.toml", "--seed", "1"], fr, en,
                files={"house.toml": text})


def sheet_case(name: str, text: str | bytes, fr: str, en: str, other: str = YSOLDE) -> Case:
    return Case(name, ["fight", "bad.toml", "other.toml", "--ruleset", "sevendag", "--seed", "1"],
                fr, en, files={"bad.toml": text, "other.toml": other})


def guard_active() -> None:
    init_sevendag()
    assert run("round", "--technique", "Ysolde=guard", "--seed", "1").exit_code == 0


def write_file(name: str, text: str) -> Callable[[], None]:
    def setup() -> None:
        Path(name).write_text(text, "utf-8")
    return setup


CASES: list[Case] = [
    # --- ruleset files ---------------------------------------------------------------------
    ruleset_case("ruleset not TOML", "engine = sevendag\n[[[", "n'est pas un TOML valide", "not valid TOML"),
    ruleset_case("ruleset unknown key", "colour = 'red'\n" + SEVENDAG, "colour : clé inconnue",
                 "unknown key"),
    ruleset_case("ruleset wrong type", sub(SEVENDAG, "round_cap = 200", 'round_cap = "ten"'),
                 "options.round_cap : on attend un nombre entier, pas un texte 'ten'",
                 "expected a whole number"),
    ruleset_case("ruleset missing wounds", re.sub(r"\[\[wounds\]\][^\[]*", "", SEVENDAG),
                 "wounds : clé obligatoire absente", "missing"),
    ruleset_case("ruleset zero-sided die", sub(SEVENDAG, '"1d20 + speed"', '"1d0 + speed"'),
                 "1d0 : un dé a au moins une face (formule '1d0 + speed')", "a die needs at least one side"),
    ruleset_case("ruleset formula syntax", sub(SEVENDAG, '"1d20 + speed"', '"1d20 +"'),
                 "on attendait un nombre, un dé comme 1d20, un champ ou '(', mais le texte s'arrête",
                 "expected"),
    ruleset_case("ruleset unknown field", sub(SEVENDAG, '"1d20 + speed"', '"1d20 + agility"'),
                 "champ inconnu 'agility' : choisir parmi", "unknown field"),
    ruleset_case("ruleset dice bomb", sub(SEVENDAG, '"1d20 + speed"', '"1000000d1000000"'),
                 "au-delà de la limite de 1000", "budget"),
    ruleset_case("wound bands gap", sub(SEVENDAG, "from = 11", "from = 12"),
                 "trou : cette tranche doit commencer à 11", "gap"),
    ruleset_case("d20 bad option", sub(D20, 'save_success = "half"', 'save_success = "maybe"'),
                 "'maybe' n'est pas une valeur permise : choisir parmi half, negate", "not allowed"),
    ruleset_case("ruleset not UTF-8", SEVENDAG.encode("latin-1", "replace").replace(b"e", b"\xe9", 3),
                 "n'est pas un texte UTF-8", "is not UTF-8 text"),
    Case("ruleset is a fighter sheet", ["fight", "--ruleset", "a2.toml", "--seed", "1"],
         "est une fiche de combattant, pas un fichier de règles", "not a ruleset",
         files={"a2.toml": FIGHTER_A}),
    # --- fighter sheets ----------------------------------------------------------------------
    sheet_case("sheet missing field", sub(BRANNOC, "attack = 8\n", ""), "attack : clé obligatoire absente",
               "missing"),
    sheet_case("sheet for another ruleset", FIGHTER_A, "cette fiche est pour les règles 'd20'",
               "this sheet is for", other=sub(YSOLDE, 'ruleset = "sevendag"\n', "")),
    Case("sheets of two rulesets", ["fight", "bad.toml", "other.toml", "--ruleset", "sevendag",
                                    "--seed", "1"],
         "bad.toml est une fiche d20 et other.toml une fiche sevendag",
         "bad.toml is a d20 sheet and other.toml a sevendag sheet", code=2,
         files={"bad.toml": FIGHTER_A, "other.toml": YSOLDE}),
    sheet_case("two-handed weapon in one hand",
               sub(YSOLDE, '[[hands]]\ndie = 8\nholds = "greatsword"\n', ""),
               "est tenu par 1 main(s) mais en demande deux", "needs two hands", other=BRANNOC),
    sheet_case("skill 0", sub(BRANNOC, "skill = 14", "skill = 0"),
               "skill : 0 est hors limites : valeur attendue de 1 à 20", "out of range"),
    sheet_case("unknown metal", sub(BRANNOC, 'metal = "iron"', 'metal = "mithril"'),
               "métal inconnu 'mithril' : choisir parmi", "unknown metal"),
    sheet_case("hand holds nothing known", sub(BRANNOC, 'holds = "sword"', 'holds = "axe"'),
               "aucun objet 'axe' dans [items]", "no item"),
    Case("unknown fighter", ["fight", "Gandalf", "B", "--ruleset", "d20"],
         "combattant 'Gandalf' : introuvable : choisir parmi", "not found", 2),
    Case("unknown ruleset", ["fight", "--ruleset", "chess"], "règles 'chess' : introuvables",
         "not found", 2),
    # --- options ----------------------------------------------------------------------------
    Case("runs 0", ["fight", "--runs", "0"], "--runs 0 : donner un nombre entier de 1 à",
         "give a whole number", 2),
    Case("seed too large", ["fight", "--seed", str(2**70)],
         "une graine est un nombre entier de 0 à", "a seed is", 2),
    Case("json and jsonl", ["fight", "--json", "--jsonl"], "--json et --jsonl : choisir l'un des deux",
         "choose one", 2),
    Case("cap negative", ["fight", "--cap", "-1"], "le plafond de rounds vaut au moins 1",
         "the round cap is at least", 2),
    Case("three fighters", ["fight", "A", "B", "A", "--ruleset", "d20"], "nommer deux combattants",
         "name two fighters", 2),
    Case("runs with dice", ["fight", "--runs", "5", "--dice", "1,2"], "--dice joue un seul combat",
         "plays one fight", 2),
    # --- usage errors found by the option parser -----------------------------------------------
    Case("unknown option", ["fight", "--bogus"], "option inconnue : --bogus", "No such option", 2),
    Case("seed not a number", ["fight", "--seed", "twelve"],
         "valeur invalide pour '--seed' : 'twelve' n'est pas un nombre entier (voir 'sevendag fight --help')",
         "Invalid value", 2),
    Case("option without its value", ["fight", "--seed"], "l'option '--seed' demande une valeur",
         "requires an argument", 2),
    Case("missing argument", ["rulesets", "show"], "argument 'nom' manquant", "Missing argument", 2,
         at=2),
    Case("extra argument", ["rulesets", "show", "d20", "extra"], "argument(s) en trop : extra",
         "unexpected extra argument", 2, at=2),
    Case("unknown command", ["bogus"], "commande inconnue : 'bogus'", "No such command", 2),
    Case("flag given a value", ["fight", "--json=yes"], "l'option '--json' ne prend pas de valeur",
         "does not take a value", 2),
    # --- entered dice ---------------------------------------------------------------------------
    Case("die out of range", ["init", "--ruleset", "d20", "--dice", "19,25"],
         "la face n° 2 vaut 25, impossible sur le d20 pour l'initiative de B : saisir de 1 à 20",
         "not on the", 2),
    Case("die not a number", ["init", "--ruleset", "d20", "--dice", "19,five"],
         "la face n° 2 vaut 'five', pas un nombre entier", "not a whole number", 2),
    Case("too few dice", ["init", "--ruleset", "d20", "--dice", "19"], "il en faut davantage",
         "more are needed", 2),
    Case("too many dice", ["init", "--ruleset", "d20", "--dice", "19,5,4"], "1 face(s) inutilisée(s)",
         "unused", 2),
    Case("dice and seed", ["init", "--ruleset", "d20", "--dice", "19,5", "--seed", "3"],
         "des dés saisis n'ont pas besoin de graine", "need no seed", 2),
    Case("bad roll expression", ["roll", "1d20 +"], "expression '1d20 +' : position 7 : on attendait",
         "expected", 2),
    Case("roll: keep more dice than rolled", ["roll", "2d20kh3"],
         "2d20kh3 garde 3 dés sur 2 : en garder de 1 à 2", "keeps 3 of 2", 2),
    Case("roll: a field in an expression", ["roll", "hit: 1d20 + str"],
         "nom inconnu 'str' en position 13", "unknown name", 2),
    # --- encounters -------------------------------------------------------------------------------
    Case("encounter missing", ["round", "--seed", "1"], "aucune rencontre ici : en commencer une",
         "no encounter here"),
    Case("encounter empty", ["round", "--seed", "1"], "le fichier de rencontre est vide", "is empty",
         setup=write_bytes(b"")),
    Case("encounter truncated", ["round", "--seed", "1"],
         "le fichier de rencontre est endommagé (JSON invalide à la ligne", "damaged", setup=truncate),
    Case("encounter newer version", ["round", "--seed", "1"], "ce sevendag lit la version 1",
         "this sevendag reads", setup=corrupt(lambda d: d.update(version=7))),
    Case("encounter state damaged", ["round", "--seed", "1"],
         "l'état d20 de la rencontre est endommagé (deux combattants attendus)", "damaged",
         setup=corrupt(lambda d: d["state"].update(fighters="none"))),
    Case("encounter embedded ruleset invalid", ["round", "--seed", "1"],
         "les données enregistrées dans la rencontre sont invalides : encounter.sevendag.json (règles d20) : "
         "engine : 'chess' n'est pas une valeur permise", "embedded data",
         setup=corrupt(lambda d: d["ruleset"]["data"].update(engine="chess"))),
    Case("encounter in progress", ["init", "--ruleset", "d20", "--dice", "19,5"],
         "une rencontre est en cours : la terminer", "in progress", setup=init_d20),
    Case("nothing to undo", ["undo"], "rien à annuler", "nothing to undo", setup=init_d20),
    Case("encounter of another ruleset", ["wound", "B", "5", "--ruleset", "sevendag"],
         "cette rencontre utilise d20", "this encounter uses", 2, setup=init_d20),
    Case("fight already over", ["round", "--seed", "1"], "le combat est terminé (A l'a emporté)",
         "the fight is over", setup=finished_d20),
    # --- rules that refuse -------------------------------------------------------------------------
    Case("technique while another is active", ["round", "--technique", "Ysolde=feint", "--seed", "2"],
         "Ysolde est encore sous l'effet de 'garde de fer' (1 round(s) restant(s), celui-ci compris) : "
         "pas de nouvelle technique", "still under", setup=guard_active),
    Case("unknown technique", ["round", "--technique", "Ysolde=fireball", "--seed", "1"],
         "--technique Ysolde=fireball : pas de technique 'fireball' : utiliser ", "no technique", 2,
         setup=init_sevendag),
    Case("sevendag choice on d20", ["round", "--technique", "A=feint"], "sont des choix de Sevendag",
         "Sevendag choices", 2, setup=init_d20),
    Case("unknown fighter in choice", ["round", "--allocate", "Bob=attack", "--seed", "1"],
         "aucun combattant 'Bob' dans cette rencontre : choisir Brannoc ou Ysolde", "no fighter", 2,
         setup=init_sevendag),
    Case("bad allocation word", ["round", "--allocate", "Brannoc=stab,defence", "--seed", "1"],
         "Brannoc, main 1 (épée longue de fer) : 'stab' n'est pas un engagement : choisir attack",
         "is not a commitment",
         setup=init_sevendag),
    Case("shield attacks", ["round", "--allocate", "Brannoc=attack,attack", "--seed", "1"],
         "le dé d'un bouclier sert seulement à défendre", "only defends", setup=init_sevendag),
    Case("wound unknown band", ["wound", "Brannoc", "scratch"],
         "pas de blessure 'scratch' : choisir parmi légère, grave", "no wound band",
         setup=init_sevendag),
    Case("d20 wound by band", ["wound", "B", "serious"], "ont des points de vie", "hit points",
         setup=init_d20),
    Case("classify on d20", ["wound", "--classify", "5", "--ruleset", "d20"],
         "--classify nomme les blessures de Sevendag", "names Sevendag wound bands", 2),
    # --- other commands --------------------------------------------------------------------------
    Case("new over an existing file", ["new", "Aela"], "aela.toml existe déjà : utiliser --force",
         "already exists", 2, setup=write_file("aela.toml", "x")),
    Case("unknown schema", ["schema", "nope"], "aucun schéma 'nope' : choisir parmi", "no schema", 2),
    # (a file that is neither a ruleset nor a sheet is now a problem of its report, on stdout:
    # tests/test_table_status_log.py checks it in French)
]


def test_the_french_catalogue_of_mistakes_is_large_enough() -> None:
    assert len(CASES) >= 20





def french_line(case: Case, result_stderr: str) -> str:
    line = result_stderr.strip()
    assert case.fr in line, (case.fr, line)
    assert case.en.lower() not in line.lower(), (case.en, line)
    return line


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_mistake_in_french_with_lang_option(case: Case, tmp_path: Path) -> None:
    before = prepare(case, tmp_path)
    args = [*case.args[:case.at], "--lang", "fr", *case.args[case.at:]]
    result = run(*args)
    assert_one_line_error(result, case.code)
    french_line(case, result.stderr)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_mistake_in_french_from_the_environment(
    case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prepare(case, tmp_path)
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    result = run(*case.args)
    assert_one_line_error(result, case.code)
    french_line(case, result.stderr)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_mistake_in_english_is_unchanged(case: Case, tmp_path: Path) -> None:
    prepare(case, tmp_path)
    result = run(*case.args)
    assert_one_line_error(result, case.code, case.en)
    args = [*case.args[:case.at], "--lang", "en", *case.args[case.at:]]
    assert run(*args).stderr == result.stderr


def test_lang_option_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    result = run("fight", "--lang", "en", "--runs", "0")
    assert_one_line_error(result, 2, "--runs 0: give a whole number from 1 to 10,000,000")
    monkeypatch.setenv("LC_ALL", "en_GB.UTF-8")  # LC_ALL comes before LANG
    assert_one_line_error(run("fight", "--runs", "0"), 2, "give a whole number")


def test_a_bad_language_is_reported_in_the_environments_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    result = run("fight", "--lang", "de")
    assert_one_line_error(result, 2, "valeur invalide pour '--lang' : 'de' ne fait pas partie de 'en', 'fr'")


# --- rulesets validate: every problem, in French -----------------------------------------------

SEVERAL = ('engine = "d20"\nname = "house"\ncolour = 1\n[formulas]\nattack = "1d20 +"\nvig = "luck"\n'
           '[options]\nround_cap = 0\n')


def test_validate_lists_every_problem_in_french(tmp_path: Path) -> None:
    (tmp_path / "house.toml").write_text(SEVERAL, "utf-8")
    (tmp_path / "brannoc.toml").write_text(BRANNOC, "utf-8")
    result = run("rulesets", "validate", "brannoc.toml", "house.toml", "--lang", "fr")
    assert result.exit_code == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "brannoc.toml : fiche de combattant valide"
    problems = lines[1:]
    assert len(problems) >= 4, lines
    assert all(p.startswith("house.toml : ") for p in problems), problems
    text = "\n".join(problems)
    for fragment in ("formulas.attack : position 7 : on attendait", "formulas.vig : champ inconnu 'luck'",
                     "options.round_cap : 0 : donner un nombre de rounds de 1 à",
                     "colour : clé inconnue"):
        assert fragment in text, (fragment, text)
    for english in ("expected", "unknown", "out of range", "valid"):
        assert english not in text, (english, text)


def test_validate_in_english_is_unchanged(tmp_path: Path) -> None:
    (tmp_path / "house.toml").write_text(SEVERAL, "utf-8")
    (tmp_path / "ok.toml").write_text(SEVENDAG, "utf-8")
    result = run("rulesets", "validate", "ok.toml", "house.toml")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == "ok.toml: valid ruleset"
    assert "house.toml: colour: unknown key: known keys are" in result.stdout


def test_validate_json_keys_stay_english(tmp_path: Path) -> None:
    (tmp_path / "house.toml").write_text(SEVERAL, "utf-8")
    result = run("rulesets", "validate", "house.toml", "--lang", "fr", "--json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    report = doc["files"][0]
    assert set(report) == {"path", "kind", "valid", "problems"} and report["kind"] == "ruleset"
    assert any("clé inconnue" in p for p in report["problems"])
    english = json.loads(run("rulesets", "validate", "house.toml", "--json").stdout)
    assert set(english) == set(doc) and len(english["files"][0]["problems"]) == len(report["problems"])


def test_a_fighter_for_a_missing_ruleset_nests_both_messages_in_french(tmp_path: Path) -> None:
    (tmp_path / "x.toml").write_text(sub(BRANNOC, 'ruleset = "sevendag"', 'ruleset = "chess"'), "utf-8")
    result = run("rulesets", "validate", "x.toml", "--lang", "fr")
    assert result.exit_code == 1
    assert result.stdout.strip().startswith(
        "x.toml : ruleset : règles 'chess' : introuvables : choisir parmi"), result.stdout


# --- other plain outputs ------------------------------------------------------------------------


def test_new_speaks_french(tmp_path: Path) -> None:
    result = run("new", "Aela", "--ruleset", "d20", "--seed", "4", "--lang", "fr")
    assert result.exit_code == 0, result.stderr
    assert re.search(r"^STR : 3d6 \d+ \+ \d+ \+ \d+ = \d+$", result.stdout, re.M), result.stdout
    assert "fiche écrite : aela.toml" in result.stderr
    assert "graine 4 (--seed 4)" in result.stderr
    assert "wrote" not in result.stderr
    english = run("new", "Bela", "--ruleset", "d20", "--seed", "4")
    assert "wrote bela.toml" in english.stderr and "STR: 3d6 " in english.stdout


def test_rulesets_listing_names_an_invalid_ruleset_in_french(tmp_path: Path) -> None:
    (tmp_path / "house.toml").write_text(SEVERAL, "utf-8")
    result = run("rulesets", "--lang", "fr", "--json")
    assert result.exit_code == 0, result.stderr
    house = next(r for r in json.loads(result.stdout)["rulesets"] if r["name"] == "house")
    assert house["valid"] is False and "house.toml : " in house["problem"]
    assert "clé inconnue" in house["problem"] or "on attendait" in house["problem"]


# --- --manual: the prompts ------------------------------------------------------------------------


def test_manual_dice_ask_and_refuse_in_french() -> None:
    answers = iter(["x", "7", "", "0", " 4 "])
    prompts: list[str] = []
    warnings: list[str] = []

    def ask(label: str) -> str:
        prompts.append(label)
        return next(answers)

    dice = ManualDice(ask, warnings.append, "fr")
    assert dice.face(6, "damage", "Ysolde") == 4
    assert prompts == ["d6 pour les dégâts d'Ysolde"] * 5
    assert warnings[0] == "'x' n'est pas un nombre : saisir une face de 1 à 6"
    assert warnings[1] == "7 n'existe pas sur un d6 : saisir une face de 1 à 6"
    assert len(warnings) == 4 and all("de 1 à 6" in w for w in warnings)
    assert ManualDice(lambda label: prompts.append(label) or "3", warnings.append, "fr").face(
        20, "attack", None) == 3
    assert prompts[-1] == "d20 pour l'attaque"


@pytest.mark.parametrize(("purpose", "en", "fr"), [
    ("initiative", "initiative", "d20 pour l'initiative de Brannoc"),
    ("defence", "defence", "d20 pour la défense de Brannoc"),
    ("drop", "drop check", "d20 pour le test de maîtrise de Brannoc"),
    ("save", "save", "d20 pour le jet de sauvegarde de Brannoc"),
    ("dd", "difficulty (DD) roll", "d20 pour le jet de difficulté (DD) de Brannoc"),
    ("vig", "vigour (VIG)", "d20 pour la vigueur (VIG) de Brannoc"),
    ("vol", "will (VOL)", "d20 pour la volonté (VOL) de Brannoc"),
    ("magic", "magic damage", "d20 pour les dégâts magiques de Brannoc"),
])
def test_every_purpose_has_a_french_label(purpose: str, en: str, fr: str) -> None:
    """Prompts and dice errors name what a die is for in words, not by the formula's key."""
    assert describe(20, purpose, "Brannoc", "fr") == fr
    assert describe(20, purpose, "Brannoc") == f"d20 for Brannoc's {en}"


def test_the_terminal_prompt_is_french() -> None:
    assert Msg("dice.ask", label="d6 pour les dégâts de A").render("fr") == "  d6 pour les dégâts de A ? "
    assert Msg("dice.ask", label="d6 for A's damage").render("en") == "  d6 for A's damage? "


def test_entered_dice_refusal_renders_in_french() -> None:
    from sevendag_cli.dice import EnteredDice
    from sevendag_cli.errors import DiceError

    with pytest.raises(DiceError) as err:
        parse("1d6").evaluate({}, EnteredDice([9]), "damage", "Ysolde")
    assert str(err.value) == "--dice: face 1 is 9, not on the d6 for Ysolde's damage: enter 1 to 6"
    assert err.value.render("fr") == (
        "--dice : la face n° 1 vaut 9, impossible sur le d6 pour les dégâts d'Ysolde : saisir de 1 à 6")


def test_formula_error_inside_a_ruleset_is_french_in_both_parts(tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text(sub(SEVENDAG, '"1d20 + speed"', '"1d20 + agility"'), "utf-8")
    with pytest.raises(DataError) as err:
        load_ruleset(str(path))
    assert str(err.value) == (f"{path}: formulas.speed_roll: unknown field 'agility': use one of "
                              "attack, defence, speed in formula '1d20 + agility'")
    assert err.value.render("fr") == (
        f"{path} : formulas.speed_roll : champ inconnu 'agility' : choisir parmi attack, defence, "
        "speed (formule '1d20 + agility')")


# --- --help in French --------------------------------------------------------------------------


@pytest.mark.slow
def test_help_is_french_with_lang_or_a_french_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    result = run("fight", "--help", "--lang", "fr")
    assert result.exit_code == 0, result.stderr
    assert "Jouer un combat entier" in result.stdout and "Graine des dés" in result.stdout
    assert "Exemples : sevendag fight" in result.stdout
    english = run("fight", "--help")
    assert "Play a whole fight" in english.stdout and "Jouer" not in english.stdout
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    listing = run("--help")
    assert "Commencer une rencontre" in listing.stdout and "Afficher la version" in listing.stdout


def test_every_help_text_has_a_french_translation() -> None:
    import typer

    from sevendag_cli.cli import app
    from sevendag_cli.help_fr import untranslated

    assert untranslated(typer.main.get_command(app)) == []


def test_the_terminal_asks_and_gives_up_in_french(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    from sevendag_cli.errors import UsageError
    from sevendag_cli.output import _ask_die

    monkeypatch.setattr("sys.stdin", io.StringIO("4\n"))
    assert _ask_die("d6 pour les dégâts d'Ysolde", "fr") == "4\n"
    assert capsys.readouterr().err == "  d6 pour les dégâts d'Ysolde ? "
    with pytest.raises(UsageError) as err:
        _ask_die("d6 pour les dégâts d'Ysolde", "fr")
    assert err.value.render("fr") == (
        "--manual : la saisie s'est arrêtée avant que tous les dés soient entrés")


@pytest.mark.parametrize(("lang", "line"), [
    ("fr", "sevendag: error: interrompu : rien n'a été modifié\n"),
    ("en", "sevendag: error: interrupted: nothing was changed\n"),
])
def test_interrupted_in_the_commands_language(
    lang: str, line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from sevendag_cli.failure import handled

    with pytest.raises(SystemExit) as exit_, handled(lang):
        raise KeyboardInterrupt
    assert exit_.value.code == 130
    assert capsys.readouterr().err == line


def test_interrupted_simulation_reports_in_french() -> None:
    assert Msg("cli.interrupted_runs", done=1500, requested=100000).render("fr") == (
        "interrompu après 1\u00a0500 combats sur 100\u00a0000 "
        "(les chiffres ci-dessus portent sur les combats terminés)")
    assert Msg("cli.interrupted_runs", done=1500, requested=100000).render("en") == (
        "interrupted after 1,500 of 100,000 runs (the figures above cover the completed runs)")
