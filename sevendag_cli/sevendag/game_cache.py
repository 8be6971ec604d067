"""Advice solved once per pair and kept between processes: any later state a look-up.

``advise`` used to solve the game (:mod:`sevendag_cli.sevendag.game`) again from the
encounter's state in every process, and each round the state changes.  Here the game is
solved once from the fight's start — both initiative start keys, so the closure holds every
state the fight can reach under any declarations — and value iteration goes on until the
certified interval is within the tolerance at *every* state of the closure, not only at
the start.

**Why one solve answers every state.**  With ``L_t`` (value iteration from ``V = 0``: the
draw at the cap worth 0) and ``U_t`` (from ``V = 1``: worth 1) after ``t`` rounds, both are
monotone in ``t`` (``L`` rises, ``U`` falls), and the game with ``t' >= t`` rounds to go has
its value in ``[L_t, U_t]`` at every state.  So one solve in which state ``s``'s interval
(every row of ``s``: each pair of declarations) is first within the tolerance after
``t_s`` rounds answers ``s`` with certified bounds whenever it has more than ``t_s + 1``
rounds to go: exactly what a fresh solve from ``s`` gives, since a fresh solve from ``s``
iterates the same values on the part of the closure reachable from ``s`` and stops at the
same ``t_s`` (the same floating-point sums in the same order: the numbers are identical,
its rounding allowance ``(t_s + 1) γ(n + 4)`` too, ``n`` the most outcomes of a round
reachable from ``s``).  A state outside the closure (a wound judged by hand may lead
there), one nearer the cap (``t_s + 1`` rounds to go or fewer: the fresh solve counts every
round to the cap and gives the draw exactly), or one never within the tolerance within
:data:`~sevendag_cli.sevendag.game.MAX_STEPS` rounds: solved as before, from the state.

**What is kept**, one file per (pair, policies, tolerance, cap)::

    <cache>/game/<key>.bin   (<cache>: :func:`sevendag_cli.folders.cache_dir`)

``key``: :func:`sevendag_cli.solver_cache.work_key` — the ruleset (techniques included) and
both sheets, canonically serialised, with this format, the policies, the tolerance and the
cap.  The file holds, after the cache's own head, a SHA-256 of the rest, then per state of
the closure answered (its key, ``t_s``, its rounding allowance, where its rows start, how
many), then each such row's low and high value (float64).  A state's options are the game's
own (:meth:`~sevendag_cli.sevendag.game.SevendagGame.options`, cheap); the rows of a state
are its (first declarer's option, answer) pairs in that order.  About 1.5 MB for the house
pair (3,200 states, 90,000 rows).

It is a cache, as the odds cache: atomic writes, a bounded size on read; a missing,
damaged, truncated or foreign entry (another key, a digest or a length that does not
match, a value out of [0, 1]) is ignored and the game solved again, never an error;
``$SEVENDAG_NO_CACHE``: nothing read or written, each ``advise`` solves from its state.
A look-up imports no numpy: the whole ``advise`` stays near a plain command's start-up.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import msgspec

from sevendag_cli.sealed import sealed, unsealed
from sevendag_cli.sevendag.chain import StateKey
from sevendag_cli.sevendag.game import (
    MAX_STEPS,
    OPTIMAL,
    Option,
    OptionValue,
    SevendagGame,
    Solution,
)
from sevendag_cli.sim.odds import gamma

FORMAT = 2
"""Raised when the meaning of the kept bytes changes: old entries are then never read (2: the
entry names its key inside, under its digest)."""
FOLDER = "game"
MAGIC = b"sevendag-game\x00"
MAX_KEPT = 80 * 1024 * 1024
"""Largest entry read back (the most rows a game builds, low and high, and their states)."""


class _Header(msgspec.Struct, array_like=True, frozen=True):
    key: str  # the question's key (the pair, policies, tolerance, cap): checked when read
    rows: int  # rows kept (each: low, high)
    states: list[StateKey]
    steps: list[int]  # t_s: rounds of value iteration after which the state is answered
    errors: list[float]  # its rounding allowance
    offsets: list[int]  # its first row
    sizes: list[int]  # its rows: first declarer's options x answers


class KeptState:
    """One state's answers, read from the kept game: what :class:`Solution` gives from it."""

    complete = False  # never: states nearer the cap are solved afresh

    def __init__(self, first: list[Option], second: list[Option], a_first: bool,
                 low: Sequence[float], high: Sequence[float], error: float) -> None:
        self.first, self.second, self.a_first = first, second, a_first
        self.low, self.high, self.error = low, high, error

    def first_options(self) -> list[OptionValue]:
        """As :meth:`Solution.first_options`, the same numbers."""
        n2 = len(self.second)
        pick = min if self.a_first else max
        e = self.error
        out: list[OptionValue] = []
        for i, o in enumerate(self.first):
            lo = self.low[i * n2:(i + 1) * n2]
            hi = self.high[i * n2:(i + 1) * n2]
            vals = [(x + y) / 2 for x, y in zip(lo, hi, strict=True)]
            j = vals.index(pick(vals))
            out.append(OptionValue(o, vals[j], max(0.0, pick(lo) - e), min(1.0, pick(hi) + e),
                                   self.second[j]))
        return out

    def answers(self, declared: Option) -> list[OptionValue]:
        """As :meth:`Solution.answers`, the same numbers."""
        n2 = len(self.second)
        base = self.first.index(declared) * n2
        e = self.error
        return [OptionValue(o, (self.low[base + j] + self.high[base + j]) / 2,
                            max(0.0, self.low[base + j] - e), min(1.0, self.high[base + j] + e),
                            None)
                for j, o in enumerate(self.second)]


class KeptGame:
    """A pair's game solved over its whole closure (see the module): answers by look-up."""

    def __init__(self, header: _Header, values: Sequence[float]) -> None:
        self.index = {k: i for i, k in enumerate(header.states)}
        self.header = header
        self.values = values  # every row's low, then every row's high

    def state(self, game: SevendagGame, key: StateKey, rounds: int,
              policies: tuple[str, str] = (OPTIMAL, OPTIMAL)) -> KeptState | None:
        """The answers in state ``key`` with ``rounds`` rounds to the cap, or None: not kept,
        too near the cap, or the entry does not fit the game (then it is not used)."""
        i = self.index.get(key)
        h = self.header
        if i is None or not 0 <= h.steps[i] < rounds - 1:
            return None
        assail = key[0]
        first = game.options(key, assail, policies[assail])
        second = game.options(key, 1 - assail, policies[1 - assail])
        off, size = h.offsets[i], h.sizes[i]
        if size != len(first) * len(second) or off < 0 or off + size > h.rows:
            return None
        low = self.values[off:off + size]
        high = self.values[h.rows + off:h.rows + off + size]
        if not all(0.0 <= x <= y <= 1.0 for x, y in zip(low, high, strict=True)):
            return None  # no solver wrote that
        error = h.errors[i]
        if not 0.0 <= error < 1e-6:
            return None
        return KeptState(first, second, assail == 0, low, high, error)


# --- solving the closure -----------------------------------------------------------------


def solve_kept(game: SevendagGame, policies: tuple[str, str], tolerance: float,
               cap: int, question: str = "") -> tuple[KeptGame, bytes] | None:
    """The game from both start keys, each state answered once within ``tolerance`` (see the
    module); and its bytes to keep, naming ``question`` (:func:`read_kept` checks it).  None:
    the closure's solution does not fit (not kept)."""
    import numpy as np

    states: list[StateKey] = []
    steps: list[int] = []
    errors: list[float] = []
    offsets: list[int] = []
    sizes: list[int] = []
    lows: list[Any] = []
    highs: list[Any] = []
    seen: set[StateKey] = set()
    rows = 0
    rounds = max(1, cap)
    for start in (game.start_key(0), game.start_key(1)):
        if start in seen:
            continue
        # the closure and its rows; its own iteration stops at once (tolerance 1: any interval
        # fits), the one below goes on until every state's fits
        sol = Solution(game, start, rounds, policies, 1.0)
        n, n_rows = len(sol.states), sol.n_rows
        rs = sol.row_states
        lens = sol.row_outcomes  # each round's outcomes
        if len(lens) != n_rows or n_rows == 0:
            return None
        starts = np.flatnonzero(np.r_[True, rs[1:] != rs[:-1]])
        if len(starts) != n:
            return None
        # most outcomes of a round reachable from each state (a fixed point over the graph)
        own = np.maximum(np.maximum.reduceat(lens, starts), 1)
        ent_state = sol.entry_states()
        has, first_ent = np.unique(ent_state, return_index=True)
        reach = own
        while len(has):
            succ = np.zeros(n, dtype=np.int64)
            succ[has] = np.maximum.reduceat(reach[sol.targets], first_ent)
            nxt = np.maximum(reach, succ)
            if np.array_equal(nxt, reach):
                break
            reach = nxt
        # value iteration from 0 and 1, each state's rows kept when its interval first fits
        last = min(rounds - 1, MAX_STEPS)
        t_of = np.full(n, -1, dtype=np.int64)
        keep_low, keep_high = np.zeros(n_rows), np.zeros(n_rows)
        # a row's value is its unit's (P(a wins now) + what follows), so are its interval's
        # width and its state's widest: read per unit (a state's units are consecutive)
        unit, pa = sol.row_units, sol.wins_now[0]
        unit_pa = np.zeros(sol.n_units)
        unit_pa[unit] = pa
        unit_state, unit_sign = sol.unit_states, sol.unit_sign[:, None]
        unit_starts = np.flatnonzero(np.r_[True, unit_state[1:] != unit_state[:-1]])
        if len(unit_starts) != n or bool(np.any(np.diff(unit_state) < 0)):
            return None
        # from 0 and from 1 side by side: column 0 the low values, column 1 the high
        acc = sol.unit_values(np.stack([np.zeros(n), np.ones(n)], axis=1))
        t = 0
        while True:
            plain = unit_sign * acc  # the units' values (unit_values are the answer's)
            q_unit = unit_pa[:, None] + plain
            width = np.maximum.reduceat(q_unit[:, 1] - q_unit[:, 0], unit_starts)
            new = (t_of < 0) & (width <= tolerance)
            if new.any():
                t_of[new] = t
                at = new[rs]
                keep_low[at] = pa[at] + plain[unit[at], 0]
                keep_high[at] = pa[at] + plain[unit[at], 1]
            if t >= last or bool((t_of >= 0).all()):
                break
            acc = sol.unit_values(sol.values_after(acc))
            t += 1
        ends = np.r_[starts[1:], n_rows]
        for s, key in enumerate(sol.states):
            if key in seen or t_of[s] < 0:
                continue
            seen.add(key)
            a, b = int(starts[s]), int(ends[s])
            states.append(key)
            steps.append(int(t_of[s]))
            errors.append((int(t_of[s]) + 1) * gamma(int(reach[s]) + 4))
            offsets.append(rows)
            sizes.append(b - a)
            lows.append(keep_low[a:b])
            highs.append(keep_high[a:b])
            rows += b - a
    header = _Header(question, rows, states, steps, errors, offsets, sizes)
    low_all = np.concatenate(lows) if lows else np.zeros(0)
    high_all = np.concatenate(highs) if highs else np.zeros(0)
    blob = np.concatenate([low_all, high_all]).astype("<f8").tobytes()
    values = memoryview(blob).cast("d") if sys.byteorder == "little" else \
        [float(x) for x in np.concatenate([low_all, high_all])]
    return KeptGame(header, values), sealed(header, blob)


def read_kept(raw: bytes | None, key: str) -> KeptGame | None:
    """The kept game in ``raw`` (as :func:`solve_kept` wrote it) for the question ``key``;
    None if it is not one, or another question's (another pair's entry under this name, its
    own digest valid: the key inside says whose it is)."""
    got = unsealed(raw, _Header)
    if got is None:
        return None
    h, blob = got
    n = len(h.states)
    if h.key != key or h.rows < 0 or len(blob) != 16 * h.rows or not (
            len(h.steps) == len(h.errors) == len(h.offsets) == len(h.sizes) == n):
        return None
    return KeptGame(h, memoryview(blob).cast("d"))


# --- one kept game per question ----------------------------------------------------------

_KEPT: dict[str, KeptGame] = {}
_KEPT_SIZE = 4


def kept_game(ruleset: Any, a: Any, b: Any, game: SevendagGame, policies: tuple[str, str],
              tolerance: float, cap: int) -> KeptGame | None:
    """The pair's kept game: from this process, else from the user's cache, else solved now
    and kept there.  None without a cache folder (``$SEVENDAG_NO_CACHE``): solve per state."""
    from sevendag_cli import solver_cache
    from sevendag_cli.folders import cache_dir

    if cache_dir() is None:
        return None
    # the techniques' order names the rows' order (the options in it): a game kept for rules
    # alike but for that order is another question
    key = solver_cache.work_key(FOLDER, FORMAT, ruleset, a, b, list(policies), tolerance, cap,
                                list(ruleset.techniques))
    got = _KEPT.get(key)
    if got is None:
        got = read_kept(solver_cache.load(key, folder=FOLDER, magic=MAGIC, max_size=MAX_KEPT),
                        key)
        if got is None:
            built = solve_kept(game, policies, tolerance, cap, key)
            if built is None:
                return None
            got, data = built
            solver_cache.store(key, data, folder=FOLDER, magic=MAGIC)
        if len(_KEPT) >= _KEPT_SIZE:
            _KEPT.pop(next(iter(_KEPT)))
        _KEPT[key] = got
    return got


__all__ = ["KeptGame", "KeptState", "kept_game", "read_kept", "solve_kept"]
