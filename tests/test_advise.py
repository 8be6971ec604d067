"""``sevendag advise``: every option of the fighter who declares now.

Read only like ``odds`` (the file unchanged); the JSON validates against ``schema advise``
and equals the library's ``Encounter.advise().to_dict()``; ``--after`` gives the defender's
answers; d20 and mistakes are one line; the display is one line per option at 80 columns in
both languages (the house pair in 21 lines), folds what cannot matter, shows the interval
only where two lines cannot be told apart, and ``--top N`` keeps the N best.
"""

from __future__ import annotations

import io
import json
import os
import re

import pytest

from sevendag_cli.commands.schema import validator
from sevendag_cli.encounter import Encounter
from sevendag_cli.sevendag.advice import Advice, AdvisedOption
from sevendag_cli.sevendag.game import Option
from tests.helpers import ENCOUNTER, assert_one_line_error, check_width, ok, run, run_json


def _init(*args: str) -> None:
    ok("init", "--seed", "3", *args)


@pytest.mark.slow
def test_S03_S04_S05_advise_json_lists_every_option_and_matches_its_schema_and_the_library() -> None:
    _init()
    before = ENCOUNTER.read_bytes()
    mtime = os.stat(ENCOUNTER).st_mtime_ns
    doc = run_json("advise")
    validator("advise").validate(doc)
    assert ENCOUNTER.read_bytes() == before and os.stat(ENCOUNTER).st_mtime_ns == mtime
    state = json.loads(before)["state"]
    assert doc["fighter"] == state["assaillant"] and doc["role"] == "assaillant"
    opts = doc["options"]
    # yield x (attack/defence with the greatsword, or Brannoc's sword) x (none + 3 techniques)
    assert len(opts) == 2 * 2 * 4
    assert {o["yield"] for o in opts} == {False, True}
    assert {o["technique"] for o in opts} == {None, "feint", "guard", "charge"}
    for o in opts:
        low, high = o["bounds"]
        assert low - 1e-12 <= o["win_probability"] <= high + 1e-12
        assert high - low <= 1e-6 + 1e-9
        assert o["answer"] is not None and o["answer"]["yield"] is False
    best = opts[doc["best"]]["win_probability"]
    assert best == max(o["win_probability"] for o in opts)
    assert Encounter(ENCOUNTER).advise().to_dict() == doc


@pytest.mark.slow
def test_S03_advise_after_gives_the_defenseurs_answers() -> None:
    _init()
    first = run_json("advise")
    best = first["options"][first["best"]]
    after = (f"yield={'yes' if best['yield'] else 'no'};"
             f"allocation={','.join(best['allocation'])};technique={best['technique'] or 'none'}")
    doc = run_json("advise", "--after", after)
    validator("advise").validate(doc)
    assert doc["role"] == "defenseur" and doc["fighter"] != first["fighter"]
    assert doc["after"] == {k: best[k] for k in ("yield", "allocation", "technique")}
    assert all(o["answer"] is None and o["yield"] is False for o in doc["options"])
    # the défenseur's best answer is the one the assaillant's advice expected, its value 1 - v
    answer = doc["options"][doc["best"]]
    assert abs(answer["win_probability"] - (1 - best["win_probability"])) < 1e-9
    assert {k: answer[k] for k in ("yield", "allocation", "technique")} == best["answer"]


@pytest.mark.slow
def test_advise_mistakes_are_one_line() -> None:
    _init()
    assert_one_line_error(run("advise", "--after", "yield=maybe"), fragment="yield")
    assert_one_line_error(run("advise", "--after", "colour=red"), fragment="colour")
    assert_one_line_error(run("advise", "--after", "allocation"), fragment="KEY=VALUE")
    assert_one_line_error(run("advise", "--after", "allocation=attack,defence,attack"))


def test_advise_on_d20_says_there_is_nothing_to_choose_in_one_line() -> None:
    ok("init", "--ruleset", "d20", "--seed", "3")
    assert_one_line_error(run("advise"), fragment="d20")


OPTION_LINE = re.compile(r"^[*= ] +\d+[.,]\d+(\u00a0| )?% ")


@pytest.mark.slow
def test_advise_display_fits_80_columns_in_both_languages(monkeypatch: pytest.MonkeyPatch) -> None:
    _init()
    monkeypatch.setenv("COLUMNS", "80")
    for lang in ("en", "fr"):
        out = ok("advise", "--lang", lang)
        check_width(out, 80)
        assert sum(line.startswith("*") for line in out.splitlines()) >= 1
    assert "déclare" in ok("advise", "--lang", "fr")


def test_advise_house_pair_one_line_per_option_in_21_lines_in_both_languages(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``init --seed 1`` then ``advise``: 16 options in at most 21 lines at 80 columns, each
    on one line with its chance and the answer; English words in English, French numbers
    in French."""
    ok("init", "--seed", "1")
    monkeypatch.setenv("COLUMNS", "80")
    doc = run_json("advise")
    for lang in ("en", "fr"):
        out = ok("advise", "--lang", lang)
        check_width(out, 80)
        lines = out.splitlines()
        assert len(lines) <= 21, out
        rows = [x for x in lines if OPTION_LINE.match(x)]
        # the yield pairs of "defence, defence" fold (same chance, same answer): 16 → 12 lines
        assert len(rows) == 12 < len(doc["options"]) == 16
        assert all(("défense ·" if lang == "fr" else "defence ·") in r for r in rows)  # the answer
        assert "[" not in out  # no interval column: the one tie has its own line
    english, french = ok("advise"), ok("advise", "--lang", "fr")
    assert "(assailant)" in english and "assaillant" not in english
    assert "answer: Brannoc's best answer" in " ".join(english.split())
    assert "60.74%" in english and "60,74\u00a0%" in french and "60.7" not in french
    assert "either" in english and "égal" in french


def test_advise_top_keeps_the_best_lines_and_options() -> None:
    ok("init", "--seed", "1")
    out = ok("advise", "--top", "3")
    assert len([x for x in out.splitlines() if OPTION_LINE.match(x)]) == 3
    assert "… and 9 more, down to 36.6%" in out
    doc, every = run_json("advise", "--top", "2"), run_json("advise")
    assert len(doc["options"]) == 2
    ranked = sorted((o["win_probability"] for o in every["options"]), reverse=True)
    assert sorted((o["win_probability"] for o in doc["options"]), reverse=True) == ranked[:2]
    assert doc["options"][doc["best"]]["win_probability"] == ranked[0]
    assert_one_line_error(run("advise", "--top", "0"), 2, "--top 0")


def test_round_advise_shows_the_assaillants_options_before_playing_the_round(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _init()
    monkeypatch.setenv("COLUMNS", "80")
    out = ok("round", "--advise", "--seed", "4", "--no-input")
    head = out.split("Round 1")[0]
    assert "declares now" in head and sum(x.startswith("*") for x in head.splitlines()) == 1
    check_width(out, 80)
    assert json.loads(ENCOUNTER.read_bytes())["state"]["round"] == 1
    assert_one_line_error(run("round", "--advise", "--json", "--seed", "4"), fragment="advise --json")
    assert json.loads(ENCOUNTER.read_bytes())["state"]["round"] == 1


def test_round_advise_on_d20_says_so_in_one_line_and_plays_the_round() -> None:
    ok("init", "--ruleset", "d20", "--seed", "3")
    result = run("round", "--advise", "--seed", "4")
    assert result.exit_code == 0, result.stderr
    lines = [x for x in result.stderr.splitlines() if "advise" in x]
    assert lines == ["sevendag: advise: Le combat (d20) has no choices to make: nothing to advise"]
    assert "Traceback" not in result.stderr
    assert json.loads(ENCOUNTER.read_bytes())["state"]["round"] == 1


# --- folding and ties, on advice made by hand (no game solved) ----------------------------


def _advice(*options: AdvisedOption) -> Advice:
    best = max(range(len(options)), key=lambda i: options[i].win_probability)
    return Advice("Ysolde", "assaillant", None, options, best, 200, True)


def _opt(yielded: bool, allocation: str, technique: str | None, p: float,
         answer: Option | None = None, half: float = 1e-7) -> AdvisedOption:
    return AdvisedOption(Option(yielded, tuple(allocation.split(",")), technique), p,
                         p - half, p + half, ANSWER if answer is None else answer)


ANSWER = Option(False, ("attack", "defence"), "charge")
OTHER = Option(False, ("attack", "defence"), "feint")


def test_options_fold_only_with_the_same_answer_and_chances_that_cannot_be_told_apart() -> None:
    same = _advice(_opt(False, "defence,defence", None, 0.4), _opt(True, "defence,defence", None, 0.4))
    assert [g.yields for g in same.folded()] == [(False, True)]
    answered = _advice(_opt(False, "defence,defence", None, 0.4),
                       _opt(True, "defence,defence", None, 0.4, OTHER))
    assert len(answered.folded()) == 2
    apart = _advice(_opt(False, "defence,defence", None, 0.4),
                    _opt(True, "defence,defence", None, 0.4 + 1e-6))
    assert len(apart.folded()) == 2
    within = _advice(_opt(False, "defence,defence", None, 0.4),
                     _opt(True, "defence,defence", None, 0.4 + 1e-7))
    assert len(within.folded()) == 1


def test_folded_options_are_a_product_of_their_parts() -> None:
    """Three declarations of one answer and one chance that are not every combination of
    their parts stay two lines; the fourth completes the product: one line."""
    three = [_opt(False, "attack,attack", None, 0.5), _opt(True, "attack,attack", None, 0.5),
             _opt(False, "attack,attack", "feint", 0.5)]
    groups = _advice(*three).folded()
    assert sorted(len(g.members) for g in groups) == [1, 2]
    four = _advice(*three, _opt(True, "attack,attack", "feint", 0.5)).folded()
    assert len(four) == 1 and four[0].yields == (False, True) and four[0].techniques == (None, "feint")
    assert four[0].members == (0, 1, 2, 3)


def _shown(advice: Advice, lang: str = "en", top: int | None = None) -> str:
    from types import SimpleNamespace

    from rich.console import Console

    from sevendag_cli.render.rich_advise import advise_lines
    from sevendag_cli.rules import load_ruleset

    state = SimpleNamespace(round=0, fighters=[SimpleNamespace(name="Brannoc"),
                                               SimpleNamespace(name="Ysolde")])
    at = SimpleNamespace(advice=advice, ruleset=load_ruleset("sevendag"), state=state,
                         encounter="e.json", tolerance=1e-6)
    console = Console(width=80, no_color=True, record=True, file=io.StringIO())
    advise_lines(console, lang, at, top=top)
    return console.export_text()


def test_the_interval_shows_only_where_two_lines_cannot_be_told_apart() -> None:
    plain = _shown(_advice(_opt(False, "attack,attack", None, 0.61),
                           _opt(False, "attack,attack", "feint", 0.52)))
    assert "61.0%" in plain and "within" not in plain.split("(certified")[0]
    tied = _shown(_advice(_opt(False, "attack,attack", None, 0.61),
                          _opt(False, "attack,attack", "feint", 0.52, OTHER),
                          _opt(False, "attack,attack", "charge", 0.52 + 1e-8)))
    rows = [x for x in tied.splitlines() if OPTION_LINE.match(x)]
    assert [r[0] for r in rows] == ["*", "=", "="]
    assert "= 2 lines the odds cannot tell apart: all within 51.99999–52.00001%" in tied
    # two different chances that round alike get a second decimal; a tie does not need one
    close = _shown(_advice(_opt(False, "attack,attack", None, 0.5821),
                           _opt(False, "attack,attack", "feint", 0.5818)))
    assert "58.21%" in close and "58.18%" in close


def test_folded_lines_say_so_in_both_languages() -> None:
    advice = _advice(_opt(False, "defence,defence", None, 0.4), _opt(True, "defence,defence", None, 0.4),
                     _opt(False, "attack,attack", "guard", 0.45), _opt(False, "attack,attack", "feint", 0.45))
    english, french = _shown(advice), _shown(advice, "fr")
    assert "either  defence, defence  —" in english
    assert "iron guard / feint" in english and "garde de fer / feinte" in french
    assert "either: yielding or not gives the same chance and the same answer" in english
    assert "a / b: either gives the same chance and the same answer" in english
    assert "égal : céder ou non" in french and "40,0\u00a0%" in french


@pytest.mark.slow
def test_S05_advice_lists_the_options_in_the_encounters_order_whatever_was_solved_before() -> None:
    """The encounter keeps its ruleset with its keys sorted (techniques: charge, feint, guard),
    the bundled file lists them feint, guard, charge: a game solved from the file first (a
    ``fight --exact --tactic optimal`` in the same process) is not the encounter's game, whose
    options (and so the order of options of equal chance) follow the encounter's ruleset."""
    from sevendag_cli.rules import load_pair, load_ruleset
    from sevendag_cli.sevendag.game import game_for

    ok("init", "--seed", "1")
    fresh = run_json("advise")
    rs = load_ruleset("sevendag")
    a, b = load_pair(rs, None)
    assert list(rs.techniques) == ["feint", "guard", "charge"]
    game = game_for(rs, a, b)  # type: ignore[arg-type]
    assert [o.technique for o in game.options(game.start_key(0), 0)][:4] == \
        [None, "feint", "guard", "charge"]
    ok("fight", "--exact", "--tactic", "optimal")
    assert run_json("advise") == fresh
