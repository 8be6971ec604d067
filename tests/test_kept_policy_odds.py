"""The odds under optimal play kept between runs (``<cache>/policy``): the next ``odds`` looks the
state up with the same numbers; an entry of another pair, policies or cap, damaged or holding
values no solver writes, is never used."""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path

import pytest

from sevendag_cli import solver_cache
from sevendag_cli.policies import OPTIMAL
from sevendag_cli.sevendag.policy import KeptOdds, PolicyChain, PolicyMomentOdds
from tests.helpers import ok, run_json
from tests.records import replace
from tests.sevendag_helpers import RS, bundled

pytestmark = pytest.mark.slow  # each solves the house pair's game


def _entries() -> list[Path]:
    return sorted((Path("cache") / solver_cache.POLICY_FOLDER).glob("*.bin"))


@pytest.fixture(autouse=True)
def _cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEVENDAG_CACHE", str(Path("cache").absolute()))
    monkeypatch.delenv("SEVENDAG_NO_CACHE", raising=False)


def test_the_second_call_reads_the_kept_table_with_the_same_numbers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    ok("init", "--seed", "1")
    first = run_json("odds", "--tactic", "optimal")
    (entry,) = _entries()
    written = entry.stat().st_mtime_ns
    second = run_json("odds", "--tactic", "optimal")
    assert second == first
    assert entry.stat().st_mtime_ns >= written  # read (touched), not solved and written again
    ok("round", "--seed", "4", "--no-input")
    after = run_json("odds", "--tactic", "optimal")
    assert len(_entries()) == 1 and after["round"] == 1
    monkeypatch.setenv("SEVENDAG_NO_CACHE", "1")
    fresh = run_json("odds", "--tactic", "optimal")
    for f, g in zip(after["fighters"], fresh["fighters"], strict=True):
        assert max(f["bounds"][0], g["bounds"][0]) <= min(f["bounds"][1], g["bounds"][1])


def test_another_pair_policies_or_cap_damaged_or_forged_is_not_read() -> None:
    brannoc, ysolde = bundled()
    chain = PolicyChain(RS, brannoc, ysolde, (OPTIMAL, OPTIMAL), cap=12)
    moment = PolicyMomentOdds(RS, brannoc, ysolde, (OPTIMAL, OPTIMAL), cap=12)
    good = moment.keep(1e-12)
    assert KeptOdds.read(good, chain, 12) is not None
    assert KeptOdds.read(good, chain, 13) is None  # another cap
    other = PolicyChain(replace(RS, drop_check_die=12), brannoc, ysolde, (OPTIMAL, OPTIMAL),
                        cap=12)
    assert KeptOdds.read(good, other, 12) is None  # another pair's rules: its digest still valid
    mirror = PolicyChain(RS, ysolde, brannoc, (OPTIMAL, OPTIMAL), cap=12)
    assert KeptOdds.read(good, mirror, 12) is None
    for damaged in (good[:len(good) // 2], good[:40], b"", good + b"x",
                    good[:50] + bytes([good[50] ^ 1]) + good[51:]):
        assert KeptOdds.read(damaged, chain, 12) is None
    # a value no solver writes, the digest made again: that state's odds are not answered
    body = good[32:]
    (size,) = struct.unpack_from("<Q", body)
    kept = KeptOdds.read(good, chain, 12)
    assert kept is not None
    start = chain.game.start_key(0)
    assert kept.odds(start, 12) is not None
    n = len(kept.header.states)
    at = 8 + size + 8 * (12 * n + kept.index[start])
    forged = body[:at] + struct.pack("<d", 1.5) + body[at + 8:]
    bad = KeptOdds.read(hashlib.sha256(forged).digest() + forged, chain, 12)
    assert bad is not None and bad.odds(start, 12) is None
