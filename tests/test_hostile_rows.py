"""The second set of hostile rows (:mod:`tests.hostile_rows`), run as the catalogue's own, and the
function tests of the classes a row cannot show (the solver cache, hash seeds, a warm cache)."""


from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ENCOUNTER, ok, run, run_json
from tests.hostile_catalogue import Hostile, case_params
from tests.hostile_catalogue import check_case as run_case
from tests.hostile_rows import (
    _KEYS,
    _NO_ICEPOOL,
    CASES,
    ENDLESS,
    FORGERIES,
    _cache,
    _encounter,
    _forge,
    _walls,
)


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_forged_kept_work_in_an_encounter_is_never_read(forgery: str) -> None:
    """D-02, D-04: ``odds`` and ``round --odds`` give the solver's own numbers, whatever an
    encounter file carries as kept work (a right fingerprint included)."""
    ok("init", "--ruleset", "d20", "--dice", "19,5")
    honest = run_json("odds")
    _forge(FORGERIES[forgery])
    assert run_json("odds") == honest
    assert run("odds").exit_code == 0
    doc = run_json("round", "--seed", "3", "--odds")
    assert doc["odds"]["before"] == honest["fighters"]
    assert "odds" not in _encounter()["extra"]  # dropped when round --odds saves


def test_forged_sevendag_kept_table_in_an_encounter_is_never_read() -> None:
    """S-19: a Sevendag table claiming an even fight, with the right fingerprint, is not read."""
    import msgspec

    from sevendag_cli.commands.table import open_encounter
    from sevendag_cli.sim.moment import OddsSolver

    ok("init", "--seed", "22")
    _, rs, a, b, _ = open_encounter(ENCOUNTER)
    raw = msgspec.to_builtins(msgspec.msgpack.decode(OddsSolver(rs, a, b).keep()))
    honest = run_json("odds")  # after the table above: the process's chain as the next odds finds it
    n = len(raw["states"])
    raw.update(win_a=[1 / 3] * n, win_b=[1 / 3] * n, draw=[1 / 3] * n, unresolved=[0.0] * n)
    doc = _encounter()
    doc["extra"]["odds"] = {"engine": "sevendag",
                            "data": base64.b64encode(msgspec.msgpack.encode(raw)).decode("ascii")}
    ENCOUNTER.write_text(json.dumps(doc), "utf-8")
    assert run_json("odds") == honest


@pytest.mark.slow
def test_fingerprints_are_the_same_under_any_hash_seed() -> None:
    """The kept work's key and the d20 tables' fingerprint, in processes with different
    ``PYTHONHASHSEED`` (sets of names inside the sheets iterate differently)."""
    seen = set()
    for seed in ("0", "1", "2", "12345", "random"):
        done = subprocess.run([sys.executable, "-c", _KEYS], capture_output=True, text=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}, timeout=60, check=True)
        seen.add(done.stdout)
    assert len(seen) == 1, seen


@pytest.mark.slow
def test_D02_a_warm_cache_answers_round_odds_without_icepool() -> None:
    """D-02: the first ``round --odds`` of a d20 pair builds its tables (the formulas' exact
    laws) and keeps them; the next ones, in new processes, read them: no formula's law is
    computed again, the same odds as ``odds``."""
    ok("init", "--ruleset", "d20", "--dice", "19,5")
    loaded = []
    for seed in ("1", "2", "3"):
        done = subprocess.run([sys.executable, "-c", _NO_ICEPOOL, seed], capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        loaded.append(done.stderr.strip().splitlines()[-1])
        assert json.loads(done.stdout)["odds"]["after"] == run_json("odds")["fighters"]
    assert loaded == ["BUILT=True", "BUILT=False", "BUILT=False"]
    assert len(list((_cache() / "odds").glob("*.bin"))) == 1


def test_kept_work_of_another_pair_under_this_pairs_name_is_ignored() -> None:
    """An entry copied under another pair's key is not read (the key is inside), and a table
    with the wrong fingerprint is not used: the odds are the solver's own."""
    ok("init", "--ruleset", "d20", "--dice", "19,5", "--odds")
    honest = run_json("odds")
    (mine,) = (_cache() / "odds").glob("*.bin")
    ok("init", "B", "A", "--ruleset", "d20", "--dice", "19,5", "-e",
       "other.json", "--odds")
    other = next(p for p in (_cache() / "odds").glob("*.bin") if p != mine)
    my_head = mine.read_bytes().partition(b"\n")[0]
    mine.write_bytes(other.read_bytes())  # another pair's work under this pair's key
    assert run_json("odds") == honest
    body = other.read_bytes().partition(b"\n")[2]
    mine.write_bytes(my_head + b"\n" + body)  # the right key, another pair's tables
    assert run_json("odds") == honest


@pytest.mark.parametrize("where", ["a file", "a folder without rights", "a dangling link"])
def test_a_cache_that_cannot_be_used_changes_nothing(where: str, tmp_path: Path) -> None:
    """A cache folder that cannot be written or read: ``round --odds`` works, silently."""
    ok("init", "--ruleset", "d20", "--dice", "19,5")
    honest = run_json("odds")
    cache = tmp_path / "cache"
    if where == "a file":
        cache.write_text("x", "utf-8")
    elif where == "a dangling link":
        cache.symlink_to(tmp_path / "nowhere" / "deeper")
    else:
        cache.mkdir()
        cache.chmod(0o500)
    os.environ["SEVENDAG_CACHE"] = str(cache / "sub") if where == "a file" else str(cache)
    try:
        result = run("round", "--seed", "3", "--odds", "--json")
        assert result.exit_code == 0, result.stderr
        assert result.stderr == ""
        assert json.loads(result.stdout)["odds"]["before"] == honest["fighters"]
    finally:
        if where == "a folder without rights":
            cache.chmod(0o700)


@pytest.mark.slow
def test_D12_huge_d20_odds_answer_with_a_cap_or_without(tmp_path: Path) -> None:
    """D-12: two fighters of 2,000 hit points (a fight of some 2,000 rounds). With no round cap
    (the bundled ruleset) the odds are one pass over the hit points; with a cap of 1,000 that
    matters, the capped fight from the law of the hits (once refused beyond a million pairs of
    hit points): both answer, certified, in one process each (nothing hangs: a minute at most)."""
    from tests.helpers import capped_ruleset
    from tests.hostile_catalogue import A, B

    Path("g1.toml").write_text(A.replace("hp = 45", "hp = 2000"), "utf-8")
    Path("g2.toml").write_text(B.replace("hp = 50", "hp = 2000"), "utf-8")
    capped = capped_ruleset(tmp_path, 1000)
    for ruleset, cap in (("d20", None), (str(capped), 1000)):
        ok("init", "g1.toml", "g2.toml", "-r", ruleset, "--seed", "1")
        for args in (["odds", "--json"], ["round", "--odds", "--seed", "1", "--json"]):
            done = subprocess.run([sys.executable, "-m", "sevendag_cli", *args],
                                  capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stderr
            doc = json.loads(done.stdout)
            odds = doc if args[0] == "odds" else doc["odds"]
            assert odds["cap"] == cap
            if args[0] == "odds":
                assert odds["unresolved"] <= 1e-12 and (odds["draw_probability"] > 0.1) is (cap is not None)
        Path("encounter.sevendag.json").unlink()


def test_sweep_and_matrix_refuse_with_fights_own_line() -> None:
    """The same line as ``fight`` for a pair that can never end (S-03: no tactic attacks)."""
    _walls()
    line = run("fight", "w1.toml", "w2.toml").stderr
    assert ENDLESS in line
    for args in (["sweep", "w1.toml", "w2.toml", "--vary", "Wall.attack=1..2"],
                 ["matrix", "w1.toml", "w2.toml"]):
        assert run(*args).stderr == line


@pytest.mark.parametrize("case", case_params(CASES))
def test_hostile_rows(case: Hostile, tmp_path: Path) -> None:
    run_case(case, tmp_path)


def test_a_writer_killed_mid_write_leaves_nothing_that_stays() -> None:
    """kill -9 between the temporary file and the rename leaves a ``.tmp`` in the cache: the
    next write removes it once it is old (never a fresh one, which may be another writer's);
    the entry itself is whole or absent, never half."""
    from sevendag_cli import solver_cache

    folder = _cache() / "odds"
    folder.mkdir(parents=True)
    old, fresh = folder / ".deadbeef.1.aa.tmp", folder / ".deadbeef.2.bb.tmp"
    for p in (old, fresh):
        p.write_bytes(b"half")
    os.utime(old, (1, 1))
    assert solver_cache.store("k" * 64, b"data")
    assert not old.exists() and fresh.exists()
    assert solver_cache.load("k" * 64) == b"data"
    (folder / ("k" * 64 + ".bin")).write_bytes(solver_cache.MAGIC + b"k" * 64)  # cut short
    assert solver_cache.load("k" * 64) is None


@pytest.mark.slow
def test_a_matplotlibrc_in_the_folder_is_neither_read_nor_complained_about(tmp_path: Path) -> None:
    """matplotlib reads a ``matplotlibrc`` in the current folder at import, whatever
    MPLCONFIGDIR says: its settings are dropped and its complaints never reach stderr (a fresh
    process: matplotlib is imported once per process)."""
    (tmp_path / "matplotlibrc").write_text(
        "lines.linewidth : banana\nfont.size : 3\ntext.usetex : True\nfoo.bar : 1\n", "utf-8")
    env = {**os.environ, "SEVENDAG_CACHE": str(tmp_path / "cache"), "NO_COLOR": "1"}
    out = subprocess.run([sys.executable, "-m", "sevendag_cli", "fight", "-r", "d20", "--runs",
                          "200", "--seed", "1", "--plot", "p.png"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert [line for line in out.stderr.splitlines() if line.strip()] == ["plot written to p.png"]
    assert (tmp_path / "p.png").stat().st_size > 1000
