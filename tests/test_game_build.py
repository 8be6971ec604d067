"""The solved game built faster, the same game (optimal play in under 2 s).

:class:`~sevendag_cli.sevendag.game.Solution` builds its rows a batch of states at a time
from flattened kernels, keys a round's kernel by the offsets its exchanges are rolled at
(clamped), sums a row by column, reduces with signed maxima and picks the declarations in a
per-group order fixed once.  Each is checked here against the plain algorithm it replaced,
written out below: the same states in the same order, the same rows, the same entries and
floats bit for bit, the same value iteration and the same decisions (S-03 yield, S-04
allocations, S-05 techniques, S-08 the round's exchanges, S-19 the cap).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sevendag_cli.sevendag import game as game_module
from sevendag_cli.sevendag import rows as rows_module
from sevendag_cli.sevendag.chain import StateKey
from sevendag_cli.sevendag.game import OPTIMAL, SHEET, TIE, SevendagGame, Solution
from sevendag_cli.sevendag.rounds import Kernel
from sevendag_cli.sevendag.rules import SevendagRuleset
from tests.records import replace
from tests.sevendag_helpers import RS, TINY_RS, TINY_X, TINY_Y, bundled

POLICIES = ((OPTIMAL, OPTIMAL), (OPTIMAL, SHEET), (SHEET, OPTIMAL), (SHEET, SHEET))


def tiny_game(cap: int = 40) -> tuple[SevendagGame, SevendagRuleset]:
    """Light wounds counted (two take a fighter out), a dropped weapon picked up in two
    rounds, a fumble granting a critical, two techniques."""
    rs = replace(TINY_RS, round_cap=cap, techniques={k: RS.techniques[k]
                                                     for k in ("feint", "guard")})
    return SevendagGame(rs, TINY_X, TINY_Y), rs


def uncached(game: SevendagGame) -> SevendagGame:
    """The game with every kernel computed afresh from its own D and modifiers (no key
    shared between two rounds: what the kernel depends on is not assumed)."""
    count = iter(range(1 << 62))
    game.form.kernel_key = lambda *_args: (next(count),)  # type: ignore[method-assign]
    return game


def reference_rows(game: SevendagGame, start: StateKey, policies: tuple[str, str],
                   also: tuple[StateKey, ...] = ()) -> dict[str, Any]:
    """The rows as they were built before: one state, one pair of declarations, one target
    at a time through :meth:`SevendagGame.round_targets`."""
    states: list[StateKey] = list(dict.fromkeys((start, *also)))
    index = {k: i for i, k in enumerate(states)}
    got: dict[str, list[Any]] = {k: [] for k in ("row_state", "row_i", "pa", "pb", "row", "col",
                                                 "p", "outcomes")}
    k = 0
    while k < len(states):
        key = states[k]
        assail = key[0]
        first = game.options(key, assail, policies[assail])
        second = game.options(key, 1 - assail, policies[1 - assail])
        for i, o1 in enumerate(first):
            for o2 in second:
                oa, ob = (o1, o2) if assail == 0 else (o2, o1)
                den, targets, _ = game.round_targets(key, oa, ob)
                row = len(got["pa"])
                got["row_state"].append(k)
                got["row_i"].append(i)
                got["outcomes"].append(len(targets))
                win = loss = 0
                for t, w in targets:
                    if isinstance(t, int):
                        if t == 0:
                            win += w
                        else:
                            loss += w
                        continue
                    j = index.get(t)
                    if j is None:
                        j = index[t] = len(states)
                        states.append(t)
                    got["row"].append(row)
                    got["col"].append(j)
                    got["p"].append(w / den)
                got["pa"].append(win / den)
                got["pb"].append(loss / den)
        k += 1
    return {"states": states, **got}


def same_bits(a: Any, b: Any) -> bool:
    x, y = np.asarray(a), np.asarray(b)
    return x.shape == y.shape and x.tobytes() == y.astype(x.dtype).tobytes()


def check_rows(sol: Solution, ref: dict[str, Any]) -> None:
    assert sol.states == ref["states"]
    assert list(sol.index) == ref["states"]
    assert same_bits(sol._row_state, ref["row_state"])
    assert same_bits(sol._row_i, ref["row_i"])
    assert same_bits(sol.row_outcomes, ref["outcomes"])
    row, col, p = row_entries(sol)
    for name, have in (("pa", sol._pa), ("pb", sol._pb), ("row", row), ("col", col), ("p", p)):
        assert same_bits(have, ref[name]), name


def row_entries(sol: Solution) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The entries row by row (each row its unit's): the row, the target, the probability."""
    ent, row = sol.entries_of(np.arange(sol.n_rows))
    return row, sol.targets[ent], sol.probs[ent]


def reference_q(sol: Solution, v: np.ndarray) -> np.ndarray:
    row, col, p = row_entries(sol)
    out: np.ndarray = sol._pa + np.bincount(row, weights=p * v[col], minlength=sol.n_rows)
    return out


def reference_reduce(sol: Solution, q: np.ndarray) -> np.ndarray:
    inner = np.where(sol._si_a_first, np.minimum.reduceat(q, sol._si_starts),
                     np.maximum.reduceat(q, sol._si_starts))
    out: np.ndarray = np.where(sol._a_first, np.maximum.reduceat(inner, sol._s_starts),
                               np.minimum.reduceat(inner, sol._s_starts))
    return out


def _first_best(tied: np.ndarray, progress: np.ndarray, pos: np.ndarray, starts: np.ndarray,
                big: int) -> np.ndarray:
    score = np.where(tied, progress, -1.0)
    seg_len = np.diff(np.append(starts, len(score)))
    most = np.repeat(np.maximum.reduceat(score, starts), seg_len)
    found: np.ndarray = np.minimum.reduceat(np.where(tied & (score >= most), pos, big), starts)
    return found


def plain_choice(q: np.ndarray, si_starts: np.ndarray, s_starts: np.ndarray,
                 si_a_first: np.ndarray, a_first: np.ndarray, row_state: np.ndarray,
                 pa: np.ndarray, pb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each state's row and value from the rows' values ``q``, segment by segment: the best
    answer to each first option (among those within TIE of it, the most likely to win this
    round, then the first), then the first declarer's option likewise."""
    big = len(q)
    pos = np.arange(big, dtype=np.int64)
    group_len = np.diff(np.append(si_starts, big))
    n_groups = len(si_starts)
    a_answers = np.repeat(~si_a_first, group_len)
    sign_answer = np.where(a_answers, 1.0, -1.0)
    sign_first = np.where(a_first, 1.0, -1.0)
    progress_answer = np.where(a_answers, pa, pb)
    x = sign_answer * q
    best = np.repeat(np.maximum.reduceat(x, si_starts), group_len)
    answer = _first_best(x >= best - TIE, progress_answer, pos, si_starts, big)
    y = sign_first[row_state[answer]] * q[answer]
    state_len = np.diff(np.append(s_starts, n_groups))
    top = np.repeat(np.maximum.reduceat(y, s_starts), state_len)
    first_progress = np.where(a_first[row_state[answer]], pa[answer], pb[answer])
    group = _first_best(y >= top - TIE, first_progress, np.arange(n_groups), s_starts, n_groups)
    rows = answer[group]
    return rows, q[rows]


class PlainChoice:
    """The choice segment by segment (:func:`plain_choice`), from the states' values."""

    def __init__(self, sol: Solution) -> None:
        self.sol, self.n_states = sol, len(sol.states)

    def choose(self, v: np.ndarray, tie: float) -> tuple[np.ndarray, np.ndarray]:
        sol = self.sol
        return plain_choice(reference_q(sol, v), sol._si_starts, sol._s_starts,
                            sol._si_a_first, sol._a_first, sol._row_state, sol._pa, sol._pb)


def reference_decisions(sol: Solution) -> np.ndarray:
    """The declarations as they were picked before (every tie broken anew each round, segment
    by segment, the values summed row by row), settling as the solver does."""
    from sevendag_cli.sevendag.declare import settle

    def too_many(most: int) -> Exception:
        return AssertionError(f"more than {most} rounds")

    return settle(PlainChoice(sol), lambda v: v, sol.rounds, sol.rounds, TIE,
                  game_module.SETTLED, too_many)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_S03_S04_the_laid_out_choice_is_the_segment_by_segment_one(data: st.DataObject) -> None:
    """Random states (each its first declarer, its options and answers), rows sharing units
    and values tied exactly or within TIE: the laid-out choice (rows grouped by length and
    side, a unit's later rows dropped) picks the same row and value as the segments."""
    from sevendag_cli.sevendag.declare import Chooser

    n_states = data.draw(st.integers(1, 6))
    shapes = [(data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4)), data.draw(st.booleans()))
              for _ in range(n_states)]
    row_state = np.concatenate([np.full(f * g, s) for s, (f, g, _) in enumerate(shapes)])
    n_rows = len(row_state)
    si_starts = np.flatnonzero(np.concatenate(
        [np.tile(np.eye(1, g, dtype=bool)[0], f) for f, g, _ in shapes]))
    s_starts = np.cumsum([0] + [f for f, _, _ in shapes[:-1]])
    a_first = np.array([af for _, _, af in shapes])
    si_a_first = np.repeat(a_first, [f for f, _, _ in shapes])
    n_units = data.draw(st.integers(1, 8))
    # a unit's rows answer for one side (a unit belongs to one state): its id's parity
    # says whether its state's first declarer is a; any state's rows may share it
    unit = 2 * np.array(data.draw(st.lists(st.integers(0, n_units - 1), min_size=n_rows,
                                           max_size=n_rows))) + a_first[row_state]
    n_units *= 2
    near = st.sampled_from([0.0, 0.25, 0.5, 0.5 + TIE / 4, 0.5 + TIE, 0.5 + 2 * TIE, 0.75])
    unit_value = np.array(data.draw(st.lists(near, min_size=n_units, max_size=n_units)))
    pa_u = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.1, 0.2]), min_size=n_units,
                                       max_size=n_units)))
    pb_u = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.1, 0.2]), min_size=n_units,
                                       max_size=n_units)))
    pa, pb = pa_u[unit], pb_u[unit]  # a unit plays one round: its chances to win now too
    q = pa + unit_value[unit]
    want = plain_choice(q, si_starts, s_starts, si_a_first, a_first, row_state, pa, pb)
    answer_high = ~si_a_first
    a_answers = np.repeat(answer_high, np.diff(np.append(si_starts, n_rows)))
    chooser = Chooser(si_starts, s_starts, answer_high, a_first, unit,
                      np.where(a_answers, pa, pb), np.where(a_first[row_state], pa, pb), pa)
    # the units' values as the answer reads them: negated where it minimises (a first)
    answer_value = np.where(np.arange(n_units) % 2 == 1, -unit_value, unit_value)
    rows, values = chooser.choose(answer_value, TIE)
    assert rows.tolist() == want[0].tolist()
    assert same_bits(values, want[1])
    # the states' values alone, no tie broken: the segments' plain minima and maxima
    inner = np.where(si_a_first, np.minimum.reduceat(q, si_starts),
                     np.maximum.reduceat(q, si_starts))
    plain = np.where(a_first, np.maximum.reduceat(inner, s_starts),
                     np.minimum.reduceat(inner, s_starts))
    assert same_bits(chooser.values(answer_value), plain)


def check_solution(sol: Solution, seed: int = 0) -> None:
    """Its row values, state values and decisions are the plain algorithm's, bit for bit."""
    rng = np.random.default_rng(seed)
    for v in (np.zeros(len(sol.states)), np.ones(len(sol.states)), *sol._iterated().v,
              rng.random(len(sol.states))):
        q = sol._q(v)
        assert same_bits(q, reference_q(sol, v))
        assert same_bits(sol._reduce(q), reference_reduce(sol, q))
        assert same_bits(sol._step(v), reference_reduce(sol, q))  # over the laid-out rows
    assert same_bits(sol.decisions(), reference_decisions(sol))


@pytest.mark.slow
@pytest.mark.parametrize("assaillant", [0, 1])
@pytest.mark.parametrize("policies", POLICIES)
def test_S03_S04_S05_S08_batched_rows_are_the_plain_builds_bit_for_bit(
        assaillant: int, policies: tuple[str, str]) -> None:
    """A tiny game (light wounds counted, a dropped weapon picked up, two techniques):
    the rows built a batch at a time equal the plain build's with every kernel computed
    afresh; values and decisions equal the plain algorithm's."""
    game, _ = tiny_game(cap=30)
    key = game.start_key(assaillant)
    sol = game.solve(key, 30, policies, 1e-12)
    fresh, _ = tiny_game(cap=30)
    check_rows(sol, reference_rows(uncached(fresh), key, policies))
    check_solution(sol)


@pytest.mark.slow
def test_S03_S04_S05_S08_S19_house_pair_rows_values_and_decisions_are_the_plain_ones() -> None:
    """The house pair (grants, three techniques), both initiatives at once, both optimal and
    a best response: the same rows, values and decisions as the plain algorithm."""
    a, b = bundled()
    game = SevendagGame(RS, a, b)
    k0, k1 = game.start_key(0), game.start_key(1)
    sol = game.solve(k0, 60, (OPTIMAL, OPTIMAL), 1e-9, (k1,))
    check_rows(sol, reference_rows(uncached(SevendagGame(RS, a, b)), k0, (OPTIMAL, OPTIMAL),
                                   (k1,)))
    check_solution(sol)
    best = game.solve(k1, 200, (SHEET, OPTIMAL), 1e-6, (k0,))
    check_rows(best, reference_rows(game, k1, (SHEET, OPTIMAL), (k0,)))
    check_solution(best, seed=1)


@pytest.mark.slow
def test_S08_kernels_sharing_a_key_roll_the_same_round() -> None:
    """Rounds whose kernels share a key (the offsets clamped) give the same kernel computed
    afresh from each one's own D and modifiers."""
    game, _ = tiny_game()
    sol = game.solve(game.start_key(0), 40, (OPTIMAL, OPTIMAL), 1e-9)
    fresh, _ = tiny_game()
    fresh = uncached(fresh)
    seen: dict[tuple[object, ...], Kernel] = {}
    shared = 0
    for key, (first, second) in zip(sol.states, sol.opts, strict=True):
        for o1 in first:
            for o2 in second:
                oa, ob = (o1, o2) if key[0] == 0 else (o2, o1)
                got = fresh.round_outcomes(key, oa, ob)
                assert got == game.round_outcomes(key, oa, ob)
                mods = game._techs(key[8], key[9], oa, ob)[2]
                ids = (game.alloc_index[0][oa.allocation], game.alloc_index[1][ob.allocation])
                first_att = (1 - key[0]) if (oa if key[0] == 0 else ob).yield_initiative \
                    else key[0]
                k = game.form.kernel_key(first_att, *game.form.offsets(key[1], mods),
                                         game.pieces.near(key[2], key[3]), ids, (key[6], key[7]))
                if k in seen:
                    shared += 1
                    assert seen[k] == got
                seen[k] = got
    assert shared > 0


def test_wide_codes_as_python_ints_give_the_same_solution(monkeypatch: pytest.MonkeyPatch,
                                                          ) -> None:
    """States and kernels coded beyond int64 (object arrays of Python ints): the same."""
    game, _ = tiny_game(cap=30)
    key = game.start_key(1)
    sol = game.solve(key, 30, (OPTIMAL, OPTIMAL), 1e-12)
    monkeypatch.setattr(rows_module, "WIDE", 0)
    wide, _ = tiny_game(cap=30)
    other = wide.solve(key, 30, (OPTIMAL, OPTIMAL), 1e-12)
    assert other.states == sol.states
    for name in ("_row_state", "_row_i", "_pa", "_pb", "_row", "_col", "_p", "row_outcomes"):
        assert same_bits(getattr(other, name), getattr(sol, name)), name
    assert (other.value, other.low, other.high) == (sol.value, sol.low, sol.high)


def brute_same_units(state: list[int], pa: list[float], pb: list[float], lens: list[int],
                     col: list[int], p: list[float]) -> list[int]:
    """Per unit, the first unit with the same state, chances to win now and entries."""
    seen: dict[tuple[object, ...], int] = {}
    out = []
    at = 0
    for u, n in enumerate(lens):
        key = (state[u], pa[u], pb[u], tuple(col[at:at + n]), tuple(p[at:at + n]))
        out.append(seen.setdefault(key, u))
        at += n
    return out


@settings(max_examples=150, deadline=None)
@given(st.data(), st.booleans())
def test_S05_rounds_leading_to_the_same_places_share_a_unit(data: st.DataObject,
                                                            collide: bool) -> None:
    """Units of a state with the same chances to win now and the same entries in the same
    order are one, and no others; when every hash collides, no two units that differ are one
    (each unit is checked entry by entry against the first with its hash, so some that are
    alike may stay apart: harmless, and a 64-bit collision is not to be met)."""
    n = data.draw(st.integers(1, 12))
    small = st.integers(0, 2)
    state = sorted(data.draw(st.lists(small, min_size=n, max_size=n)))
    pa = data.draw(st.lists(st.sampled_from([0.0, 0.25]), min_size=n, max_size=n))
    pb = data.draw(st.lists(st.sampled_from([0.0, 0.5]), min_size=n, max_size=n))
    lens = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    total = sum(lens)
    col = data.draw(st.lists(small, min_size=total, max_size=total))
    p = data.draw(st.lists(st.sampled_from([0.125, 0.25, 0.5]), min_size=total, max_size=total))
    arrays = (np.array(state, dtype=np.int64), np.array(pa), np.array(pb),
              np.array(lens, dtype=np.int64), np.array(col, dtype=np.int64),
              np.array(p, dtype=np.float64))
    want = brute_same_units(state, pa, pb, lens, col, p)
    if not collide:
        assert rows_module.same_units(*arrays).tolist() == want
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(rows_module, "_digest", lambda _c, _p, _s, lens: np.zeros(lens.size,
                                                                              np.uint64))
        got = rows_module.same_units(*arrays).tolist()
    for u, same in enumerate(got):  # merged only with an earlier unit alike, kept itself
        assert same == u or (same < u and got[same] == same and want[same] == want[u])


def test_S05_S19_merged_units_give_the_same_values_decisions_and_wounds(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A game whose rounds leading to the same places share a unit against the same game
    with one unit per round and techniques: fewer units and outcomes, the same values,
    decisions and each row's wounds, bit for bit."""
    game, _ = tiny_game(cap=30)
    key = game.start_key(0)
    sol = game.solve(key, 30, (OPTIMAL, OPTIMAL), 1e-12)
    monkeypatch.setattr(rows_module, "same_units", lambda state, *_rest: np.arange(state.size))
    apart, _ = tiny_game(cap=30)
    other = apart.solve(key, 30, (OPTIMAL, OPTIMAL), 1e-12)
    assert sol.n_units < other.n_units and sol.probs.size < other.probs.size
    assert other.states == sol.states
    rows = np.arange(sol.n_rows)
    assert same_bits(sol.row_wounds(rows), other.row_wounds(rows))
    assert same_bits(sol.decisions(), other.decisions())
    assert (sol.value, sol.low, sol.high) == (other.value, other.low, other.high)


class Scripted:
    """A choice that plays a script: round ``t``'s rows and values, whatever it is given."""

    def __init__(self, rows: np.ndarray, values: np.ndarray) -> None:
        self.rows, self.values, self.t = rows, values, 0
        self.n_states = rows.shape[1]

    def choose(self, unit_values: np.ndarray, tie: float) -> tuple[np.ndarray, np.ndarray]:
        got = self.rows[self.t], self.values[self.t]
        self.t += 1
        return got


def settled(script: Scripted, rounds: int, settled: int = 4) -> np.ndarray:
    from sevendag_cli.sevendag.declare import settle

    def too_many(most: int) -> Exception:
        return AssertionError(f"more than {most} rounds")

    return settle(script, lambda v: v, rounds, rounds, TIE, settled, too_many)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 3), st.integers(0, 12), st.sampled_from([1, 2]), st.data())
def test_S19_declarations_that_settle_or_alternate_are_played_as_iterated(
        n: int, prefix: int, period: int, data: st.DataObject) -> None:
    """Rows and values that change for a while, then repeat with a period of one or two
    rounds (the values within TIE): the rows kept, read beyond their end (the last two
    alternating), are the script's for every round to go."""
    from sevendag_cli.sevendag.declare import row_index

    rounds = prefix + 40
    ints = st.lists(st.integers(0, 5), min_size=n, max_size=n)
    head = [data.draw(ints) for _ in range(prefix)]
    cycle = [data.draw(ints) for _ in range(period)]
    rows = np.array(head + [cycle[k % period] for k in range(rounds - prefix)], dtype=np.int32)
    swing = data.draw(st.sampled_from([0.0, TIE / 4, 0.25]))  # the values' two-round cycle
    values = np.array([[0.5 + k / 97] * n for k in range(prefix)]
                      + [[0.3 + swing * (k % 2) + TIE * 2.0 ** -k] * n
                         for k in range(rounds - prefix)]).reshape(rounds, n)
    got = settled(Scripted(rows, values), rounds)
    assert len(got) <= rounds
    for togo in range(1, rounds + 1):
        assert got[row_index(len(got), togo)].tolist() == rows[togo - 1].tolist()
    if period == 1 and swing <= TIE:
        assert len(got) <= prefix + 8  # settled: 4 rounds alike after the first of the cycle


def test_S19_values_still_moving_are_not_settled() -> None:
    """Rows that alternate while the values still move by more than TIE over two rounds:
    every round to go is kept."""
    rows = np.array([[k % 2] for k in range(60)], dtype=np.int32)
    values = np.array([[0.5 + 1e-6 * 0.9 ** k] for k in range(60)])
    assert len(settled(Scripted(rows, values), 60)) == 60


def test_S03_S19_a_pair_whose_declarations_alternate_settles_on_the_cycle(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Lancer (two-handed spear) against Reaver (greatsword): 22 states' declarations swap
    every round to go, far from the cap, for ever.  The cycle is found early, and every
    round to go plays what the game iterated to the cap plays."""
    from tests.sevendag_helpers import make

    lancer = make("Lancer", [{"die": 10, "holds": "spear"}, {"die": 10, "holds": "spear"}],
                  {"spear": {"hands": 2, "metal": "bronze", "skill": 11}},
                  attack=10, defence=4, speed=1)
    reaver = make("Reaver", [{"die": 8, "holds": "gs"}, {"die": 8, "holds": "gs"}],
                  {"gs": {"hands": 2, "metal": "steel", "skill": 12}},
                  attack=9, defence=5, speed=2)
    cap = RS.round_cap
    game = SevendagGame(RS, lancer, reaver)
    starts = [game.start_key(0), game.start_key(1)]
    sol = game.solve(starts[0], cap, also=starts[1:])
    kept = sol.decisions()
    assert len(kept) < cap - 40
    assert not np.array_equal(kept[-1], kept[-2])  # the cycle, not a single settled row
    monkeypatch.setattr(game_module, "SETTLED", cap)  # never settled: every round iterated
    full = SevendagGame(RS, lancer, reaver).solve(starts[0], cap, also=starts[1:])
    assert len(full.decisions()) == cap
    for togo in range(1, cap + 1):
        assert np.array_equal(sol.rows_for(togo), full.rows_for(togo))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 300), st.integers(1, 5), st.data())
def test_S04_the_first_pick_of_a_block_is_argmax(size: int, n: int,
                                                 data: st.DataObject) -> None:
    """The first true item of each column (a block's pick: the first listed among those
    tied with the best), weights down the rows, is ``argmax``'s."""
    from sevendag_cli.sevendag.declare import _first

    ok = np.array(data.draw(st.lists(st.lists(st.booleans(), min_size=n, max_size=n),
                                     min_size=size, max_size=size)), dtype=bool)
    ok[data.draw(st.integers(0, size - 1))] = True  # each column holds its maximum
    assert _first(ok).tolist() == ok.argmax(axis=0).tolist()


def test_S08_S14_kernels_flattened_at_once_are_the_ones_flattened_one_by_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A round counted first attacker first is turned into (a, b) a column at a time when
    kernels are flattened at once (``_bulk``), as ``OutcomeCodes.oriented`` turns it outcome by outcome
    (``_one``): the same columns, chances and wounds, bit for bit, with either fighter
    attacking first, granted criticals held or not, near a band's limit or not."""
    game, _ = tiny_game()
    fresh = game.start_key(0)[2]
    hurt = (1, *fresh[1:])  # one light wound counted: one more takes the fighter out
    counted = ((fresh, fresh), (hurt, fresh), (hurt, hurt))
    n_a, n_b = len(game.allocs[0]), len(game.allocs[1])
    args = [(first, w, z, near, ida, idb, granted)
            for first in (0, 1) for w in range(-6, 7, 3) for z in (-4, 0, 5)
            for near in range(len(counted)) for ida in range(n_a) for idb in range(n_b)
            for granted in range(4)]

    def flattened(one_by_one: bool) -> tuple[np.ndarray, ...]:
        kern = tiny_game()[0].kernels()
        assert [kern.near(ca, cb) for ca, cb in counted] == [0, 1, 2]
        if one_by_one:
            monkeypatch.setattr(rows_module, "EXACT_FLOATS", 0)
        for a in args:
            kern.kernel(*a)
        got = (*kern.arrays(), kern.wound_table())
        monkeypatch.undo()
        return got

    bulk, one = flattened(False), flattened(True)
    assert len(bulk[0]) == len(args) and len(bulk[5]) > len(args)
    for x, y in zip(bulk, one, strict=True):
        assert x.dtype == y.dtype and same_bits(x, y)
