"""Messages that name what the user typed, and only that (the unclear messages of the third
hostile set): a key given twice, a name missing, two tactics for one fighter, a name no
option could type, invisible characters, a line glued to a prompt, a value quoted whole."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest
import typer.testing

from sevendag_cli.errors import MAX_VALUE, Msg, cut, int_text, shown_value
from sevendag_cli.text import _BLANK_CHARS, _FORMAT_CHARS, is_visible, visible
from tests.helpers import ENCOUNTER, assert_one_line_error, ok, run, run_json

# --- advise --after: each key once ----------------------------------------------------------------


@pytest.mark.parametrize(("after", "key"), [
    ("yield=no;yield=yes", "yield"),
    ("allocation=attack,attack;technique=feint;allocate=defence,defence", "allocation"),
    ("technique=feint;tech=none", "technique"),
    ("céder=non;yield=oui", "yield"),
])
def test_advise_after_refuses_a_key_given_twice(after: str, key: str) -> None:
    ok("init", "--seed", "3")
    result = run("advise", "--after", after)
    assert_one_line_error(result, 2, f"--after: {key} is given twice")


# --- --tactic: the name missing, two tactics for one fighter -------------------------------------


@pytest.mark.parametrize(("typed", "fragment"), [
    ("=optimal", "the fighter's name is missing before '=': write FIGHTER=optimal"),
    ("=all-out", "the fighter's name is missing before '=': write FIGHTER=all-out"),
    ("=", "write FIGHTER=TACTIC, e.g. --tactic Brannoc=full-defence"),
    ("Brannoc", "write FIGHTER=TACTIC"),
])
def test_a_tactic_without_a_name_says_so(typed: str, fragment: str) -> None:
    result = run("fight", "--tactic", typed, "--seed", "1")
    assert_one_line_error(result, 2, fragment)
    assert "FIGHTER.FIELD" not in result.stderr  # not the --set form


def test_the_set_form_still_says_the_set_form() -> None:
    assert_one_line_error(run("fight", "--set", "=5", "--seed", "1"), 2, "write FIGHTER.FIELD=VALUE")


@pytest.mark.parametrize(("tactics", "policies", "changed"), [
    (["Ysolde=optimal", "Ysolde=all-out"], {"Brannoc": "sheet", "Ysolde": "sheet"}, "all-out"),
    (["Ysolde=full-defence", "ysolde=optimal"], {"Brannoc": "sheet", "Ysolde": "optimal"},
     "full-defence"),
    (["optimal", "Ysolde=all-out"], {"Brannoc": "optimal", "Ysolde": "sheet"}, "all-out"),
    (["Ysolde=full-defence", "optimal"], {"Brannoc": "optimal", "Ysolde": "optimal"},
     "full-defence"),
    (["Ysolde=full-defence", "Ysolde=all-out"], {"Brannoc": "sheet", "Ysolde": "sheet"}, "all-out"),
])
def test_the_last_tactic_of_a_fighter_counts_in_what_is_shown_and_played(
        tactics: list[str], policies: dict[str, str], changed: str) -> None:
    """``--tactic Ysolde=optimal --tactic Ysolde=all-out`` showed all-out and played optimally:
    the last ``--tactic`` naming a fighter decides how it plays; of two tactics the last is
    its sheet's; a tactic followed by ``optimal`` is shown with the note that it changes
    nothing (the fighter plays optimally)."""
    args = [a for t in tactics for a in ("--tactic", t)]
    doc = run_json("fight", "--seed", "1", "--cap", "3", *args)
    assert doc["policies"] == policies
    assert [c["value"] for c in doc.get("changes", []) if c["field"] == "tactic"] == [changed]
    result = run("fight", "--seed", "1", "--cap", "3", *args)
    text = result.stderr + result.stdout
    assert f"What-if: Ysolde.tactic {changed}" in text
    assert ("Ysolde optimal" in text) == (policies["Ysolde"] == "optimal")
    said_inert = "Ysolde plays optimally here, not its sheet's tactic" in result.stderr
    assert said_inert == (policies["Ysolde"] == "optimal")


# --- a name no option could type ----------------------------------------------------------------


def _sheet(name: str) -> str:
    text = (Path(__file__).resolve().parent.parent / "rulesets" / "fighters" / "a.toml").read_text("utf-8")
    text = re.sub(r'(?m)^name = ".*"$', lambda _: f"name = {json.dumps(name)}", text, count=1)
    Path("odd.toml").write_text(text, "utf-8")
    return "odd.toml"


@pytest.mark.parametrize("name", ["X=Y", "=", "Brannoc=all-out"])
def test_a_name_holding_the_separator_is_refused_where_the_sheet_is_read(name: str) -> None:
    sheet = _sheet(name)
    for args in (("fight", sheet, "B", "-r", "d20", "--seed", "1"), ("init", sheet, "B", "-r", "d20")):
        assert_one_line_error(run(*args), 1, "separates a name from its value on the command line")
    result = run("rulesets", "validate", sheet)
    assert result.exit_code == 1 and "rename it" in result.stdout + result.stderr


def test_a_name_with_other_signs_is_still_read() -> None:
    sheet = _sheet("Zed, the [red] one.")
    assert run("fight", sheet, "B", "-r", "d20", "--seed", "1").exit_code == 0


# --- invisible characters made visible ----------------------------------------------------------


def test_every_format_character_but_the_joiner_is_escaped() -> None:
    """The list in ``text.py`` against this Python's ``unicodedata`` (category Cf)."""
    format_chars = [chr(c) for c in range(0x110000)
                    if unicodedata.category(chr(c)) == "Cf" and c != 0x200D]
    missed = [f"U+{ord(c):04X}" for c in format_chars if is_visible(c)]
    assert not missed, missed
    assert is_visible("\u200d")  # joins emoji: 👨‍👩
    assert _FORMAT_CHARS and _BLANK_CHARS


@pytest.mark.parametrize(("raw", "shown"), [
    ("A\u200bB", "A\\u200bB"), ("Ze\u2060d", "Ze\\u2060d"), ("\ufeffA", "\\ufeffA"),
    ("A\u00adB", "A\\xadB"), ("Tag\U000e0041", "Tag\\U000e0041"), ("\u3164", "\\u3164"),
    ("A\u034fB", "A\\u034fB"), ("Forêt, Montagne", "Forêt, Montagne"), ("👨\u200d👩", "👨\u200d👩"),
    ("a\u00a0:", "a\u00a0:"),
])
def test_invisible_characters_are_written_as_escapes(raw: str, shown: str) -> None:
    assert visible(raw) == shown
    assert visible(shown) == shown  # idempotent


def test_a_zero_width_space_in_a_name_is_shown_in_every_display() -> None:
    sheet = _sheet("Ze\u200bd")
    fight = run("fight", sheet, "B", "-r", "d20", "--seed", "1")
    assert fight.exit_code == 0 and "Ze\\u200bd" in fight.stdout and "\u200b" not in fight.stdout
    ok("init", sheet, "B", "-r", "d20", "--dice", "19,5")
    status = run("status")
    assert "Ze\\u200bd" in status.stdout and "\u200b" not in status.stdout
    error = run("wound", "Nobody", "3")
    assert "Ze\\u200bd" in error.stderr and "\u200b" not in error.stderr
    assert json.loads(run("status", "--json").stdout)["fighters"][0]["name"] == "Ze\u200bd"  # raw


# --- the end of the input at a prompt ------------------------------------------------------------


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(typer.testing._NamedTextIOWrapper, "isatty", lambda self: True,
                        raising=False)


@pytest.mark.usefixtures("terminal")
@pytest.mark.parametrize("args", [("--manual-for", "ysolde", "--seed", "7"), ("--manual",)])
def test_the_end_of_the_input_at_a_prompt_is_a_line_of_its_own(args: tuple[str, ...]) -> None:
    """``round --manual-for`` with the input ending after one die: the error line was glued to
    the prompt (``d8 for Ysolde's attack? sevendag: error: …``)."""
    ok("init", "--dice", "5,19")
    result = run("round", *args, "-a", "Ysolde=attack,attack", "-a", "Brannoc=attack,defence",
                 "-t", "Ysolde=none", "-t", "Brannoc=none", "--no-yield", input="5\n")
    assert result.exit_code == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if "sevendag: error:" in line]
    assert len(errors) == 1 and errors[0].startswith("sevendag: error: --manual: input ended"), \
        result.stderr


@pytest.mark.usefixtures("terminal")
def test_the_end_of_the_input_at_a_choice_is_a_line_of_its_own() -> None:
    ok("init", "--dice", "5,19")
    result = run("round", "--seed", "3", input="n\n")
    errors = [line for line in result.stderr.splitlines() if "sevendag: error:" in line]
    assert len(errors) == 1 and errors[0].startswith("sevendag: error: "), result.stderr


# --- quotes cut at 40 characters -----------------------------------------------------------------


def test_a_4000_digit_face_is_quoted_by_its_first_digits() -> None:
    ok("init", "-r", "d20", "--dice", "19,5")
    result = run("round", "--dice", "9" * 4000)
    assert_one_line_error(result, 2, "face 1 is " + "9" * (MAX_VALUE - 1) + "…")
    assert len(result.stderr) < 200


@pytest.mark.usefixtures("terminal")
def test_a_4000_digit_face_typed_at_the_prompt_is_quoted_by_its_first_digits() -> None:
    ok("init", "-r", "d20", "--dice", "19,5")
    result = run("round", "--manual", input="9" * 4000 + "\n8\n18\n17\n3\n3\n")
    assert "9" * MAX_VALUE not in result.stderr
    assert "9" * (MAX_VALUE - 1) + "…" in result.stderr


@pytest.mark.parametrize("typed", ["9" * 4000, "-" + "7" * 5000, "1" * 41])
def test_every_quote_of_a_number_is_cut_the_same_way(typed: str) -> None:
    ok("init", "-r", "d20", "--dice", "19,5")
    for args in (("wound", "A", typed), ("fight", "-r", "d20", "--seed", typed),
                 ("fight", "-r", "d20", "--runs", typed)):
        result = run(*args)
        assert result.exit_code == 2, (args, result.stderr)
        assert len(result.stderr) < 300, (args, result.stderr[:300])
    assert ENCOUNTER.exists()


def test_the_one_helper_cuts_texts_numbers_and_values_alike() -> None:
    assert cut("x" * 41) == "x" * 39 + "…" and cut("x" * 40) == "x" * 40
    assert int_text(10**39) == "1" + "0" * 39 and int_text(10**40) == "1" + "0" * 38 + "…"
    assert int_text(10**5000 - 1) == "9" * 39 + "…"
    assert shown_value("x" * 100) == "'" + "x" * 38 + "…"
    assert Msg("dice.off_die", option="--dice", i=1, value=int("9" * 4000), roll="d6",
               sides=6).render("fr").count("9") == MAX_VALUE - 1
