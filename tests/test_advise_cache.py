"""``advise`` solved once per pair and kept in the user's cache.

The game is solved once over the closure of the fight's start (S-02: both initiative start
keys) and every later state (S-03, S-04, S-05 declarations) is answered by a look-up: the
numbers are exactly a fresh solve's (values, bounds, best, answers, with ``--after`` too).
A damaged, truncated or foreign entry is ignored (solved again, never an error);
``SEVENDAG_NO_CACHE`` writes nothing; a state too near the round cap (S-19) is solved afresh
and stays certified.  No timing here: ``benchmarks/bench_advise.py``.
"""

from __future__ import annotations

import hashlib
import os
import struct
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

import pytest
from msgspec.structs import replace

from sevendag_cli import solver_cache
from sevendag_cli.encounter import Encounter, load
from sevendag_cli.sevendag import game_cache
from sevendag_cli.sevendag.advice import ADVICE_TOLERANCE, advise
from sevendag_cli.sevendag.engine import SevendagState
from sevendag_cli.sevendag.game import OPTIMAL, SevendagGame, game_for, value_for
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset
from tests.helpers import ENCOUNTER, ok

ROOT = Path(__file__).resolve().parent.parent
POLICIES = (OPTIMAL, OPTIMAL)


@pytest.fixture(autouse=True)
def _no_kept_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts without a kept game in this process (as a new process would)."""
    monkeypatch.setattr(game_cache, "_KEPT", {})


def _game_dir() -> Path:
    return Path(os.environ["SEVENDAG_CACHE"]) / "game"


def _entries() -> list[Path]:
    folder = _game_dir()
    return sorted(folder.glob("*.bin")) if folder.is_dir() else []


@contextmanager
def _looked_up(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Within: read from the cache file (nothing in memory), and no solve at all."""
    game_cache._KEPT.clear()

    def refuse(*_args: object, **_kw: object) -> None:
        raise AssertionError("solved again instead of a look-up")

    with monkeypatch.context() as m:
        m.setattr(SevendagGame, "solve", refuse)
        m.setattr(game_cache, "solve_kept", refuse)
        yield


def _advice(after: str | None = None) -> dict[str, Any]:
    return Encounter(ENCOUNTER).advise(after=after).to_dict()


def _fresh(monkeypatch: pytest.MonkeyPatch, after: str | None = None) -> dict[str, Any]:
    with monkeypatch.context() as m:
        m.setenv("SEVENDAG_NO_CACHE", "1")
        return _advice(after)


def _after(option: dict[str, Any]) -> str:
    return (f"yield={'yes' if option['yield'] else 'no'};"
            f"allocation={','.join(option['allocation'])};"
            f"technique={option['technique'] or 'none'}")


@pytest.mark.slow
def test_S02_S03_S04_S05_kept_advice_equals_a_fresh_solve_at_every_state_played(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ok("init", "--seed", "3")
    _advice()  # solves the closure once and keeps it
    assert len(_entries()) == 1
    checked = 0
    for seed in (11, 12, 13):
        with _looked_up(monkeypatch):
            kept = _advice()
        assert kept == _fresh(monkeypatch)
        options = kept["options"]
        for pick in sorted({kept["best"], len(options) - 1, 0}):
            after = _after(options[pick])
            with _looked_up(monkeypatch):
                answered = _advice(after)
            assert answered["role"] == "defenseur"
            assert answered == _fresh(monkeypatch, after)
        checked += 1
        Encounter(ENCOUNTER).round(seed=seed)
        if load(ENCOUNTER).state.over:  # type: ignore[attr-defined]
            break
    assert checked >= 2 and len(_entries()) == 1


def _values_offset(body: bytes) -> int:
    (size,) = struct.unpack_from("<Q", body)
    return 8 + int(size)


@pytest.mark.slow
def test_a_damaged_truncated_or_foreign_entry_is_ignored_and_solved_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ok("init", "--seed", "3")
    expected = _advice()
    (entry,) = _entries()
    good = entry.read_bytes()
    key = entry.stem

    def read(raw: bytes) -> game_cache.KeptGame | None:
        entry.write_bytes(raw)
        return game_cache.read_kept(solver_cache.load(key, folder=game_cache.FOLDER,
                                                      magic=game_cache.MAGIC), key)

    assert read(good) is not None
    head = good.index(b"\n") + 1
    body = good[head + 32:]
    at = head + 32 + _values_offset(body) + 100
    flipped = good[:at] + bytes([good[at] ^ 0x40]) + good[at + 1:]
    for damaged in (good[:len(good) // 2], good[:head + 10], flipped, b"", b"\x00" * 64,
                    good[:head] + b"\xff" * 200, good + b"trailing"):
        assert read(damaged) is None
    # foreign: another pair's (or question's) entry copied under this name
    other = hashlib.sha256(b"another pair").hexdigest()
    assert read(good.replace(key.encode(), other.encode(), 1)) is None
    # values no solver writes, digest recomputed: the state is not answered from them
    loaded = load(ENCOUNTER)
    game = game_for(loaded.ruleset, loaded.a, loaded.b)  # type: ignore[arg-type]
    start = game.key_of(loaded.state)  # type: ignore[arg-type]
    assert isinstance(start, tuple)
    kept = game_cache.read_kept(good[head:], key)
    assert kept is not None and kept.state(game, start, 200) is not None
    assert game_cache.read_kept(good[head:], other) is None  # re-keyed: its digest still valid
    off = _values_offset(body) + 8 * kept.header.offsets[kept.index[start]]
    forged = body[:off] + struct.pack("<d", 1.5) + body[off + 8:]
    kept = game_cache.read_kept(hashlib.sha256(forged).digest() + forged, key)
    assert kept is not None
    assert kept.state(game, start, 200) is None
    # end to end: a truncated entry, no error, the same advice, the entry written again
    entry.write_bytes(good[:len(good) // 3])
    game_cache._KEPT.clear()
    assert _advice() == expected
    assert entry.read_bytes() == good


@pytest.mark.slow
def test_no_cache_writes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEVENDAG_NO_CACHE", "1")
    ok("init", "--seed", "3")
    doc = _advice()
    assert doc["options"]
    assert not Path(os.environ["SEVENDAG_CACHE"]).exists()


@pytest.mark.slow
def test_S19_near_the_cap_a_state_is_solved_afresh_and_its_bounds_hold(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ok("init", "--seed", "3")
    loaded = load(ENCOUNTER)
    rs, a, b = cast("tuple[SevendagRuleset, SevendagFighter, SevendagFighter]",
                    (loaded.ruleset, loaded.a, loaded.b))
    state = cast("SevendagState", loaded.state)
    cap = rs.round_cap
    game = game_for(rs, a, b)
    key = game.key_of(state)
    assert isinstance(key, tuple)
    advise(rs, a, b, state)
    kept = game_cache.kept_game(rs, a, b, game, POLICIES, ADVICE_TOLERANCE, cap)
    assert kept is not None
    steps = kept.header.steps[kept.index[key]]
    assert kept.state(game, key, steps + 1) is None  # too near: every round counted afresh
    assert kept.state(game, key, steps + 2) is not None
    for to_go in (steps + 1, steps + 2):
        at = replace(state, round=cap - to_go)
        got = advise(rs, a, b, at)
        with monkeypatch.context() as m:
            m.setenv("SEVENDAG_NO_CACHE", "1")
            assert advise(rs, a, b, at) == got
        assert got.rounds_left == to_go and got.complete == (to_go == steps + 1)
        exact = game.solve(key, to_go, POLICIES, 1e-12)
        fighter = key[0]
        for shown, truth in zip(got.options, exact.first_options(), strict=True):
            assert shown.option == truth.option
            value, low, high = value_for(fighter, truth)
            assert high - low <= 1e-12 + 1e-15
            assert shown.low - 1e-12 <= value <= shown.high + 1e-12
            assert shown.low <= high and low <= shown.high


@pytest.mark.slow
def test_a_looked_up_advise_imports_no_numpy() -> None:
    ok("init", "--seed", "3")
    _advice()
    code = ("import sys\nfrom sevendag_cli.start import main\n"
            "sys.argv = ['sevendag', 'advise', '--json']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('numpy' in sys.modules, 'icepool' in sys.modules, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path.cwd(), env=dict(os.environ, PYTHONPATH=str(ROOT)), check=True)
    assert done.stderr.strip().splitlines()[-1] == "False False"
    assert '"command":"advise"' in done.stdout.replace(" ", "")
