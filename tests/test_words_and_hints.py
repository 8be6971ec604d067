"""Units, words and hints: what a sheet gives away in points, examples that are what the
option takes, options quoted as typed, plurals, pointers to the right option, did-you-mean
for techniques, tactics and French command words (usage mistakes: exit 2), the fighter's
name checked before the amount, the plot extra's install line as this copy was installed,
paths never broken inside a name, and a seed refused where nothing is rolled."""

from __future__ import annotations

import io
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text

from sevendag_cli.errors import Msg
from tests.helpers import ENCOUNTER, assert_one_line_error, check_width, ok, run

# --- what a sheet gives away: percentage points -----------------------------------------------


def _exploit_lines(lang: str) -> str:
    from sevendag_cli.render.rich_sim import exploitability_lines

    e = SimpleNamespace(names=("Brannoc", "Ysolde"), gives_away=(0.2262, 0.1823),
                        best_response=(0.705, 0.703), sheet_value=(0.521, 0.479), tolerance=1e-6)
    console = Console(width=80, no_color=True, record=True, file=io.StringIO())
    exploitability_lines(console, e, lang)
    return console.export_text()


def test_what_a_sheet_gives_away_is_in_percentage_points_in_both_languages() -> None:
    assert "  Brannoc: 22.6 points · Ysolde wins 70.5% instead of 47.9%" in _exploit_lines("en")
    assert "  Brannoc : 22,6 points · Ysolde gagne" in _exploit_lines("fr")
    assert "%" not in _exploit_lines("en").splitlines()[1].split("·")[0]


@pytest.mark.slow
def test_fight_exact_prints_what_each_sheet_gives_away_in_points() -> None:
    out = ok("fight", "--exact")
    assert "  Brannoc: 22.6 points · Ysolde wins 70.5% instead of 47.9%" in out
    assert "  Ysolde: 18.2 points · Brannoc wins 70.3% instead of 52.1%" in out


# --- examples that are what the option takes, options quoted as typed ---------------------------


def test_a_mistyped_allocation_is_shown_an_allocation_as_example() -> None:
    ok("init", "--seed", "1")
    assert_one_line_error(run("round", "--allocate", "Brannoc:a,d", "--no-input"), 2,
                          "--allocate 'Brannoc:a,d': write NAME=VALUE, e.g. --allocate Brannoc=a,d")
    assert_one_line_error(run("round", "--allocate", "Brannoc", "--no-input"), 2,
                          "e.g. --allocate Brannoc=attack,defence")
    assert_one_line_error(run("round", "--technique", "Brannoc", "--no-input"), 2,
                          "e.g. --technique Brannoc=feint")


def test_a_sweep_quotes_the_vary_option_as_typed() -> None:
    assert_one_line_error(run("sweep", "--vary", "Brannoc.attak=5..9"), 2,
                          "--vary Brannoc.attak=5..9: attak: unknown key")
    assert_one_line_error(run("sweep", "A", "B", "-r", "d20", "--vary", "A.ac=5,6",
                              "--vary", "B.acc=1..3"), 2, "--vary B.acc=1..3: acc: unknown key")


# --- plurals --------------------------------------------------------------------------------------


def test_counts_take_the_plural_they_need_in_both_languages() -> None:
    ok("init", "--seed", "1")
    assert_one_line_error(run("round", "--allocate", "Brannoc=a", "--no-input"), None,
                          "the allocation has 1 entry but Brannoc has 2 hands")
    assert_one_line_error(run("round", "--allocate", "Brannoc=a,d,a", "--no-input"), None,
                          "has 3 entries but")
    assert_one_line_error(run("round", "--allocate", "Brannoc=a", "--no-input", "--lang", "fr"),
                          None, "compte 1 entrée mais Brannoc a 2 mains")
    assert_one_line_error(run("round", "--allocate", "Brannoc=a,d,a", "--no-input", "--lang", "fr"),
                          None, "compte 3 entrées mais")


def test_plural_is_the_count_and_its_noun() -> None:
    from sevendag_cli.i18n import plural, t

    assert [plural(n, "plural|round|rounds", "en") for n in (0, 1, 2)] == [
        "0 rounds", "1 round", "2 rounds"]
    assert [plural(n, "plural|entrée|entrées", "fr") for n in (0, 1, 2)] == [
        "0 entrée", "1 entrée", "2 entrées"]
    assert Msg("engine.sev.alloc_count", name="B", what="x", count=1, n=1,
               allowed="a").render("en") == "B: x has 1 entry but B has 1 hand: give one of a per hand"
    assert t("advise.open", "fr", tol=1e-6, n=1) == "(certifié à 1e-06 près ; 1 round jusqu'au plafond)"


# --- pointers and did-you-mean --------------------------------------------------------------------


def test_init_manual_with_a_name_points_to_manual_for() -> None:
    assert_one_line_error(run("init", "--manual", "Brannoc"), 2,
                          "init --manual takes no name (it asks every die): for Brannoc's dice "
                          "only, write --manual-for Brannoc")
    assert not ENCOUNTER.exists()


def test_a_mistyped_technique_is_a_usage_mistake_with_the_closest_technique() -> None:
    ok("init", "--seed", "1")
    before = ENCOUNTER.read_bytes()
    assert_one_line_error(run("round", "-t", "Brannoc=fient", "--no-input"), 2,
                          "--technique Brannoc=fient: no technique 'fient'. Did you mean feint? "
                          "Known: charge or feint or iron guard")
    assert_one_line_error(run("round", "-t", "Brannoc=fient", "--no-input", "--lang", "fr"), 2,
                          "vouliez-vous dire feinte ?")
    assert_one_line_error(run("round", "-t", "Brannoc=xyzzy", "--no-input"), 2,
                          "no technique 'xyzzy': use one of charge or feint or iron guard")
    assert ENCOUNTER.read_bytes() == before


@pytest.mark.parametrize(("args", "fragment"), [
    (["fight", "--exact", "--tactic", "Brannoc=all-outt"], "(did you mean 'all-out'?)"),
    (["fight", "--exact", "--tactic", "Brannoc=optimall"], "(did you mean 'optimal'?)"),
    (["fight", "--exact", "--tactic", "optimall"], "(did you mean 'optimal'?)"),
    (["odds", "--tactic", "Brannoc=sheeet"], "(did you mean 'sheet'?)"),
    (["combat"], "No such command 'combat'. Did you mean 'fight'?"),
    (["combat", "--graine", "3"], "Did you mean 'fight'?"),
    (["fight", "--graine", "3"], "No such option: --graine. Did you mean --seed?"),
    (["fight", "--plafond", "3"], "Did you mean --cap?"),
    (["tour"], "Did you mean 'round'?"),
    (["fight", "--seeed", "3"], "Did you mean --seed?"),  # a typo still finds the closest
])
def test_tactics_and_french_words_get_a_did_you_mean_and_exit_2(args: list[str], fragment: str) -> None:
    if args[0] == "odds":
        ok("init", "--seed", "1")
    assert_one_line_error(run(*args), 2, fragment)


def test_round_tactic_typo_suggests_the_policy() -> None:
    ok("init", "--seed", "1")
    assert_one_line_error(run("round", "--tactic", "Brannoc=optimall", "--odds", "--no-input"), 2,
                          "(did you mean 'optimal'?)")


def test_wound_names_the_missing_fighter_before_the_amount() -> None:
    ok("init", "--ruleset", "d20", "--dice", "19,5")
    assert_one_line_error(run("wound", "Ysolde", "serious"), 2,
                          "no fighter 'Ysolde' in this encounter: use A or B")
    assert_one_line_error(run("wound", "A", "serious"), 1, "not wound bands")  # a name that is


# --- the plot extra's install line ----------------------------------------------------------------


class _Dist:
    def __init__(self, direct_url: str | None) -> None:
        self.direct_url = direct_url

    def read_text(self, name: str) -> str | None:
        return self.direct_url if name == "direct_url.json" else None


@pytest.mark.parametrize(("direct_url", "expected"), [
    (None, "pip install 'sevendag[plot]'"),
    (json.dumps({"url": "file:///home/gm/sevendag", "dir_info": {}}),
     "pip install '.[plot]' in /home/gm/sevendag, the folder sevendag was installed from"),
    (json.dumps({"url": "file:///home/gm/sevendag", "dir_info": {"editable": True}}),
     "pip install -e '.[plot]' in /home/gm/sevendag, the folder sevendag was installed from"),
    (json.dumps({"url": "https://example.org/s.tar.gz", "archive_info": {}}),
     "pip install '.[plot]' in sevendag's folder, or pip install 'sevendag[plot]' from a package index"),
    ("{not json", "pip install '.[plot]' in sevendag's folder, or pip install 'sevendag[plot]'"),
])
def test_the_install_line_fits_how_sevendag_was_installed(
        monkeypatch: pytest.MonkeyPatch, direct_url: str | None, expected: str) -> None:
    import importlib.metadata

    from sevendag_cli.errors import install_command

    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: _Dist(direct_url))
    assert install_command("plot").render("en").startswith(expected)


def test_the_install_line_without_an_installed_copy_gives_both_forms(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    from sevendag_cli.errors import install_command

    def missing(name: str) -> Any:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    said = install_command("plot").render("fr")
    assert "pip install '.[plot]' dans le dossier de sevendag" in said
    assert "pip install 'sevendag[plot]' depuis un index" in said


def test_without_matplotlib_the_hint_names_an_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = run("roll", "2d6", "--odds", "--plot", "x.png")
    assert_one_line_error(result, 2, "--plot needs matplotlib, which is not installed: pip install ")
    assert "[plot]'" in result.stderr


# --- paths never broken inside a name ----------------------------------------------------------


def test_a_path_wider_than_a_line_breaks_after_a_slash() -> None:
    from sevendag_cli.render.layout import wrap

    path = "/tmp/very-long-folder-name-for-a-campaign/another-long-subfolder-name/rulesets/house.toml"
    lines = [line.plain for line in wrap(Text(path), 60, hang=4)]
    assert lines == ["/tmp/very-long-folder-name-for-a-campaign/",
                     "    another-long-subfolder-name/rulesets/house.toml"]
    plain = [line.plain for line in wrap(Text("x" * 70), 60)]  # no slash: cut where it must
    assert plain == ["x" * 60, "    " + "x" * 10]


def test_rulesets_never_breaks_a_path_inside_a_name(monkeypatch: pytest.MonkeyPatch) -> None:
    deep = Path("a-rather-long-folder-name-for-a-campaign") / "another-long-subfolder-name"
    (deep / "rulesets").mkdir(parents=True)
    monkeypatch.chdir(deep)
    name = "broken-file-with-a-rather-long-name-indeed.toml"
    Path("rulesets", name).write_text("x = [", "utf-8")
    Path("rulesets", "house.toml").write_text(
        (Path(__file__).parent.parent / "rulesets" / "sevendag.toml").read_text("utf-8"), "utf-8")
    monkeypatch.setenv("COLUMNS", "80")
    out = ok("rulesets")
    check_width(out, 80)
    assert name in out  # whole, on a line of its own
    lines = out.splitlines()
    at = next(i for i, x in enumerate(lines) if name in x)
    assert lines[at - 1].rstrip().endswith("/")  # the folders before it, broken after a "/"
    assert "is not valid TOML" in lines[at + 1] and str(Path.cwd()) not in lines[at + 1]
    shown = ok("rulesets", "show", str(Path.cwd() / "rulesets" / "house.toml")).splitlines()
    check_width("\n".join(shown), 80)
    last = next(i for i, x in enumerate(shown) if x.endswith("house.toml"))
    assert last > 1 and all(x.endswith("/") for x in shown[1:last])
    assert "".join(x.strip() for x in shown[1:last + 1]) == str(Path.cwd() / "rulesets" / "house.toml")


# --- a seed where nothing is rolled ---------------------------------------------------------------


def test_fight_exact_refuses_a_seed_that_would_mean_nothing() -> None:
    assert_one_line_error(run("fight", "--exact", "--seed", "3"), 2,
                          "--seed 3: the exact odds roll no dice, so a seed changes nothing")
    assert_one_line_error(run("fight", "--exact", "--seed", "3", "--lang", "fr"), 2,
                          "--seed 3 : les probabilités exactes ne lancent aucun dé")
    assert_one_line_error(run("fight", "--exact", "--dice", "3,4"), 2, "--dice plays one fight")
