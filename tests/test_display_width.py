"""Every display reads cleanly at 80 columns and stays usable at 60, in both languages.

The layout (``render/layout.py``) is checked on its own — every line fits, a rule tag
never starts a line, the words come out in order — and then every display of the
command line is run at 80 and 60 columns: the step-by-step table (init, round,
wound, undo), whole fights, ``--runs`` and ``--exact`` tables, ``rulesets``,
``rulesets show`` and ``roll``.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from sevendag_cli.render.layout import GLUE, TIGHT, glued, print_rows, wrap
from sevendag_cli.text import visible
from tests.helpers import run

TAG = re.compile(r"^\s*\[[SDC]-[0-9]{2}")


def bad_lines(text: str, width: int) -> list[str]:
    """Lines wider than ``width``, starting with a rule tag, or ending with spaces."""
    return [line for line in text.splitlines()
            if len(line) > width or TAG.match(line) or line != line.rstrip()]


# --- the layout ---------------------------------------------------------------------------------

words = st.text(alphabet="abcdefghé▲→−", min_size=1, max_size=12)
phrases = st.lists(words, min_size=1, max_size=4).map(GLUE.join)
tags = st.lists(st.sampled_from(["S-04", "D-08", "S-19", "C-02"]), min_size=1, max_size=6)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(phrases, min_size=1, max_size=25), tags, st.integers(0, 6), st.integers(30, 120))
def test_wrapped_lines_fit_keep_the_words_and_never_start_with_a_tag(
    parts: list[str], ids: list[str], indent: int, width: int,
) -> None:
    tag = f"{TIGHT}{TIGHT}[{f',{TIGHT}'.join(ids)}]"
    text = Text(" " * indent + " ".join(parts) + tag)
    lines = [line.plain for line in wrap(text, width)]
    assert all(len(line) <= width for line in lines)
    assert all(line == line.rstrip() for line in lines)
    assert not any(TAG.match(line) for line in lines)
    expected = (" ".join(parts) + tag).replace(GLUE, " ").replace(TIGHT, " ")
    assert "".join("".join(lines).split()) == "".join(expected.split())  # every character, in order
    # continuation lines are indented under the first (by its indent and 4 more)
    assert all(line.startswith(" " * min(indent + 4, width // 2)) for line in lines[1:])


def test_a_glued_group_moves_whole_and_breaks_only_when_wider_than_a_line() -> None:
    text = Text("  Ysolde (assailant): " + glued("d8 steel greatsword → attack") + ", "
                + glued("d8 steel greatsword → attack") + f"{TIGHT}{TIGHT}[S-04]")
    assert [line.plain for line in wrap(text, 80)] == [
        "  Ysolde (assailant): d8 steel greatsword → attack,",
        "      d8 steel greatsword → attack  [S-04]",
    ]
    narrow = [line.plain for line in wrap(text, 30)]
    assert all(len(line) <= 30 for line in narrow)
    assert narrow[-1].endswith("attack  [S-04]")


def test_a_word_wider_than_the_line_is_cut_not_lost() -> None:
    lines = [line.plain for line in wrap(Text("x" * 100), 40)]
    assert all(len(line) <= 40 for line in lines) and "".join(lines).replace(" ", "") == "x" * 100


def test_styles_stay_on_their_words_across_a_break() -> None:
    text = Text("  ") + Text("alpha " * 10, "red") + Text("omega", "bold")
    lines = wrap(text, 40)
    last = lines[-1]
    assert last.plain.endswith("omega")
    styled = {str(span.style) for span in last.spans if last.plain[span.start:span.end] == "omega"}
    assert "bold" in styled


def test_rows_wrap_values_under_their_column_and_long_keys_get_their_own_line() -> None:
    console = Console(width=40, record=True, color_system=None)
    print_rows(console, [(Text("Brannoc"), Text("light wound, fatal wound  penalty -1  out of the fight")),
                         (Text("options.drop_recovery_rounds"), Text("1"))])
    out = console.export_text().splitlines()
    assert out[0].startswith(" Brannoc  light wound")
    assert out[1].startswith(" " * 10) and out[1].strip()
    assert out[2].strip() == "options.drop_recovery_rounds" and out[3].strip() == "1"
    assert all(len(line) <= 40 for line in out)


def test_text_from_files_has_its_control_characters_shown() -> None:
    assert visible("Brannoc\x1b[2J\nB") == "Brannoc\\x1b[2J\\nB"
    assert visible(f"a{GLUE}b") == "a\\x1fb"  # a file cannot glue words of the display
    assert visible("blessure légère\u00a0!") == "blessure légère\u00a0!"


# --- every display, at 80 and 60 columns, in both languages ------------------------------------

TABLE = [
    ["init", "--ruleset", "d20", "--dice", "19,5"],
    ["round", "--dice", "8,18,17,3,3"],
    ["round", "--seed", "4"],
    ["wound", "B", "5"],
    ["undo"],
]
SEVENDAG_TABLE = [
    ["init", "--dice", "5,19"],
    ["round", "--dice", "5,3,6,6", "--technique", "Ysolde=feint"],
    ["round", "--dice", "1,15,8,8,3", "--yield"],
    ["undo"],
    ["wound", "Brannoc", "17"],
    ["wound", "--classify", "23"],
]
SINGLE = [
    ["fight", "--seed", "3"],
    ["fight", "--ruleset", "d20", "--seed", "3"],
    ["fight", "--runs", "500", "--seed", "5"],
    ["fight", "--ruleset", "d20", "--runs", "500", "--seed", "5"],
    ["fight", "--ruleset", "d20", "--exact"],
    ["rulesets"],
    ["rulesets", "show", "sevendag"],
    ["rulesets", "show", "d20"],
    ["roll", "stats: 4d6kh3", "max(1d20,1d20) + 2d6*2 + 3d6! + 10d6 + 10d8", "--seed", "3"],
]


@pytest.mark.parametrize("width", [80, 60])
@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("steps", [TABLE, SEVENDAG_TABLE, *([s] for s in SINGLE)],
                         ids=["d20-table", "sevendag-table", *(" ".join(s[:3]) for s in SINGLE)])
def test_every_display_fits(steps: list[list[str]], lang: str, width: int,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(width))
    for args in steps:
        result = run(*args, "--lang", lang)
        assert result.exit_code == 0, (args, result.stderr)
        assert result.stdout.strip(), args
        assert not bad_lines(result.stdout, width), (args, bad_lines(result.stdout, width))


def test_the_hook_count_of_tags_at_column_0_is_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    """``NO_COLOR=1 COLUMNS=80 sevendag fight --seed 3 | grep -c -E '^\\[[SDC]-[0-9]{2}'`` is 0."""
    monkeypatch.setenv("COLUMNS", "80")
    for lang in ("en", "fr"):
        out = run("fight", "--seed", "3", "--lang", lang).stdout
        assert not [line for line in out.splitlines() if re.match(r"^\[[SDC]-[0-9]{2}", line)]
        assert "[S-04]" in out  # the tags are there, beside their words


def test_the_french_runs_table_keeps_every_band_name_on_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    out = run("fight", "--runs", "500", "--seed", "5", "--lang", "fr").stdout
    for band in ("blessure légère", "blessure grave", "blessure critique", "blessure fatale"):
        assert band in out, band
