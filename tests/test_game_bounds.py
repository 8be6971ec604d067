"""The game bounded before it is built (S-03 .. S-05), and plain exact odds that never wait on
it: the size estimated from the sheets and the ruleset is an upper bound of what is built
(tight for the house pair), a game beyond the bound is refused in one line before anything
is built, a build that grows past it is stopped, and what plain ``fight --exact`` adds
(what each sheet gives away, the exact fractions) is skipped with a note when it would cost
more than the odds."""

from __future__ import annotations

from pathlib import Path

import pytest

from sevendag_cli.errors import UsageError
from sevendag_cli.policies import OPTIMAL, SHEET
from sevendag_cli.sevendag import rows as rows_module
from sevendag_cli.sevendag.game import ENTRY_SHARE, SevendagGame
from sevendag_cli.sevendag.rules import SevendagRuleset, Technique, WoundBand
from tests.helpers import run, run_json
from tests.records import replace
from tests.sevendag_helpers import RS, TINY_RS, TINY_X, TINY_Y, TINY_Z, bundled

POLICIES = ((OPTIMAL, OPTIMAL), (OPTIMAL, SHEET), (SHEET, OPTIMAL), (SHEET, SHEET))


def techniques(rs: SevendagRuleset, n: int) -> SevendagRuleset:
    """The ruleset with ``n`` techniques more (modifiers and durations of one or two rounds)."""
    extra = {f"t{i}": Technique(f"t{i}", {"en": f"t{i}"}, {}, i % 7 - 2, i * 3 % 7 - 3, 1 + i % 2)
             for i in range(n)}
    return replace(rs, techniques={**rs.techniques, **extra})


@pytest.mark.parametrize("policies", POLICIES)
@pytest.mark.parametrize("pair", ["house", "tiny", "tiny-dual-counted"])
def test_S03_S05_the_estimated_size_bounds_what_is_built(pair: str,
                                                          policies: tuple[str, str]) -> None:
    brannoc, ysolde = bundled()
    rs, a, b = {"house": (RS, brannoc, ysolde), "tiny": (TINY_RS, TINY_X, TINY_Y),
                "tiny-dual-counted": (TINY_RS, TINY_Z, TINY_Y)}[pair]
    game = SevendagGame(rs, a, b)
    seeds = [game.start_key(0), game.start_key(1)]
    size = game.size(policies, seeds)
    sol = game.solve(seeds[0], 30, policies, 1e-6, seeds[1:])
    assert len(sol.states) <= size.states and sol.n_rows <= size.rows
    # the outcomes as estimated before the build: no more than are built (what the estimate
    # refuses would not have fitted)
    assert int(sol.n_rows * game.sampled_outcomes() * ENTRY_SHARE) <= sol.probs.size
    if pair == "house" and policies == (OPTIMAL, OPTIMAL):  # tight for the house pair
        assert size.states - len(sol.states) <= 2 and size.rows - sol.n_rows <= 2


def test_S05_a_game_beyond_the_bound_is_refused_before_anything_is_built(
        monkeypatch: pytest.MonkeyPatch) -> None:
    brannoc, ysolde = bundled()
    game = SevendagGame(techniques(RS, 40), brannoc, ysolde)

    def built(*_args: object) -> None:
        raise AssertionError("built before the size was checked")

    monkeypatch.setattr(rows_module.Rows, "build", built)
    with pytest.raises(UsageError) as refused:
        game.solve(game.start_key(0), 200, (OPTIMAL, OPTIMAL), 1e-6)
    assert refused.value.msg.key == "game.size"
    text = refused.value.msg.render("en")
    assert "Brannoc against Ysolde" in text and "MB, over the limit of 380 MB" in text
    assert "\n" not in text


def test_S05_a_build_that_grows_past_the_bound_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    brannoc, ysolde = bundled()
    game = SevendagGame(RS, brannoc, ysolde)
    monkeypatch.setattr(rows_module, "MAX_GAME_BYTES", 2 << 20)  # the estimate passes, not the build
    monkeypatch.setattr(game, "check_size", lambda *_args: None)
    with pytest.raises(UsageError) as stopped:
        game.solve(game.start_key(0), 200, (OPTIMAL, OPTIMAL), 1e-6)
    assert stopped.value.msg.key == "game.grown"


def _ruleset_file(folder: Path, extra_techniques: int = 0, counted: bool = False) -> str:
    """The bundled Sevendag ruleset with techniques added, or with every penalised band taking a
    fighter out (the chain then finite, with exact fractions)."""
    from sevendag_cli.rules import load_ruleset

    text = Path(load_ruleset("sevendag").path).read_text("utf-8")
    text = text.replace('name = "sevendag"', 'name = "edited"', 1)
    if counted:
        for low, limit in (("to = 10\npenalty = 1\n", 4), ("to = 20\npenalty = 3\n", 3),
                           ("to = 30\npenalty = 6\n", 2)):
            text = text.replace(low, f"{low}out_after = {limit}\n")
    block = "".join(
        f'\n[techniques.t{i}]\nlabel = {{ en = "t{i}", fr = "t{i}" }}\ntext = {{ en = "x", fr = "x" }}\n'
        f"attack = {i % 7 - 2}\ndefence = {i * 3 % 7 - 3}\nduration = {1 + i % 2}\n"
        for i in range(extra_techniques))
    text = text.replace("\n[house_defaults]\n", block + "\n[house_defaults]\n")
    path = folder / "edited.toml"
    path.write_text(text, "utf-8")
    return str(path)


def test_S05_plain_exact_odds_skip_what_each_sheet_gives_away_when_its_game_is_large(
        tmp_path: Path) -> None:
    """Not asked for, what each sheet gives away is estimated first and skipped (a note, the
    JSON's reason); the odds are the sheets' chain's, as ever."""
    rs = _ruleset_file(tmp_path, extra_techniques=40)
    doc = run_json("fight", "--exact", "--ruleset", rs, "--tolerance", "1e-9")
    assert doc["exploitability"] is None
    assert "--exploit computes it" in doc["exploitability_skipped"]
    plain = run_json("fight", "--exact", "--tolerance", "1e-9")  # the techniques change nothing
    assert [f["win_probability"] for f in doc["fighters"]] == \
        [f["win_probability"] for f in plain["fighters"]]
    assert plain["exploitability"] is not None and plain["exploitability_skipped"] is None
    shown = run("fight", "--exact", "--ruleset", rs, "--tolerance", "1e-9")
    assert shown.exit_code == 0 and "not computed" in shown.stdout
    assert run_json("fight", "--exact", "--no-exploit")["exploitability_skipped"] is None
    refused = run("fight", "--exploit")
    assert refused.exit_code == 2 and "--exploit and --no-exploit go with --exact" in refused.stderr


@pytest.mark.slow
def test_S19_exact_fractions_only_when_they_pay_else_asked(tmp_path: Path) -> None:
    """A finite chain (every penalised band counted) larger than the unasked bound: no
    fractions, a note saying how to ask; ``--fractions`` computes them, within the certified
    odds of the fight to the cap plus its draw."""
    rs = _ruleset_file(tmp_path, counted=True)
    doc = run_json("fight", "--exact", "--ruleset", rs, "--no-exploit")
    assert doc["fighters"][0]["win_probability_exact"] is None
    assert "--fractions computes them" in doc["note"]
    asked = run_json("fight", "--exact", "--ruleset", rs, "--no-exploit", "--fractions")
    from fractions import Fraction

    exact = Fraction(asked["fighters"][0]["win_probability_exact"])
    low, high = asked["fighters"][0]["bounds"]
    assert low - 1e-12 <= float(exact) <= high + asked["draw_bounds"][1] + 1e-12


def test_the_bands_of_a_counted_ruleset_are_those_of_the_file(tmp_path: Path) -> None:
    """The edited ruleset the tests above read: every penalised band has an out_after."""
    from sevendag_cli.rules import load_ruleset

    rs = load_ruleset(_ruleset_file(tmp_path, counted=True))
    assert isinstance(rs, SevendagRuleset)
    assert all(isinstance(w, WoundBand) and (w.out_after or not w.penalty) for w in rs.wounds)


def test_S05_solving_a_game_releases_the_other_games_rounds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A roster's worker solves pair after pair: the rounds built for the previous game (its
    kernels and its round form's) are let go when the next is solved, so that two games'
    worth never add up in one process (each may take most of the bound).  (The process's
    games as a fresh process has them: none.)"""
    from sevendag_cli.sevendag import game as game_module
    from sevendag_cli.sevendag.game import game_for

    monkeypatch.setattr(game_module, "_GAMES", {})
    brannoc, ysolde = bundled()
    first = game_for(RS, brannoc, ysolde)
    first.solve(first.start_key(0), 20, (OPTIMAL, OPTIMAL), 1e-6)
    assert first._kernels is not None and first.form._kernels
    second = game_for(TINY_RS, TINY_X, TINY_Y)
    second.solve(second.start_key(0), 20, (OPTIMAL, OPTIMAL), 1e-6)
    assert first._kernels is None and not first.form._kernels and not first._solved
    assert second._kernels is not None and second._solved
