"""A fight's documents are the library's, written once: ``fight --json`` streams the rounds of
:class:`sevendag_cli.library.FightInPlay` (a long fight never held whole) and is
``Fight.to_dict()``; ``--jsonl`` is its lines; ``fight --odds --jsonl`` is
``OddsSwingResult.lines()``; and the sweep's and matrix's checks are the library's own."""

from __future__ import annotations

import json

import pytest

import sevendag_cli as sd
from sevendag_cli.errors import UsageError
from sevendag_cli.library import check_matrix, check_sweep
from tests.helpers import run


@pytest.mark.parametrize(("ruleset", "what_ifs"), [("d20", {"set": {"A.ac": 9}}),
                                                   ("sevendag", {"tactic": {"Brannoc": "all-out"}})])
def test_a_fight_played_as_it_streams_is_the_fight_held_whole(ruleset: str, what_ifs: dict) -> None:
    m = sd.matchup(None, None, ruleset=ruleset, **what_ifs)
    whole = m.fight(seed=7).to_dict()
    playing = m.playing(seed=7)
    rounds = list(playing.rounds())
    assert {**playing.document(), "rounds": rounds} == whole
    assert [line for line in m.playing(seed=7).lines()] == [
        json.loads(line) for line in run(*cli(ruleset, what_ifs), "--jsonl").stdout.splitlines()]
    assert json.loads(run(*cli(ruleset, what_ifs), "--json").stdout) == whole


def cli(ruleset: str, what_ifs: dict) -> list[str]:
    args = ["fight", "--ruleset", ruleset, "--seed", "7"]
    for option, given in what_ifs.items():
        args += [f"--{option}", ",".join(f"{k}={v}" for k, v in given.items())]
    return args


@pytest.mark.slow  # (a fight's odds solved twice: about a second)
def test_the_odds_swing_lines_are_the_libraries() -> None:
    done = sd.matchup("A", "B", ruleset="d20").odds_swing(seed=5)
    out = run("fight", "A", "B", "-r", "d20", "--seed", "5", "--odds", "--jsonl").stdout
    assert done.lines() == [json.loads(line) for line in out.splitlines()]


def test_the_sweep_and_matrix_checks_are_the_libraries() -> None:
    asked = check_sweep(["A.ac=5..7", "B.ac=1,2"], runs=10)
    assert asked.target == "A.ac" and asked.texts == ["5", "6", "7"] and asked.by == ("B.ac", ["1", "2"])
    for vary, kw in ((["A.ac=5..7", "A.ac=1..2"], {}), (["A.ac=5..7"], {"runs": 10, "tolerance": 1e-9}),
                     ([], {}), (["A.ac=1..3"] * 3, {}), (["A.ac=5..7"], {"runs": 0})):
        with pytest.raises(UsageError):
            check_sweep(vary, **kw)
    with pytest.raises(UsageError):  # the same, through the library's sweep
        sd.matchup("A", "B", ruleset="d20").sweep("A.ac", "5..7", runs=10, tolerance=1e-9)
    assert check_matrix(jobs=3).jobs == 3
    for kw in ({"jobs": 0}, {"runs": 5, "tolerance": 1e-3}, {"tolerance": 2.0}, {"cap": 0}):
        with pytest.raises(UsageError):
            check_matrix(**kw)
