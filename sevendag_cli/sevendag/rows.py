"""The game's declared rounds, built for solving (numpy): every state reachable from its seeds
under the policies, each (state, first declarer's option, answer) a *row*, its outcomes that
lead to a state its *entries* (:class:`Rows`, read by :class:`~sevendag_cli.sevendag.game.Solution`).

The rounds are the exact round form's (:mod:`sevendag_cli.sevendag.rounds`), each computed
once per key (:class:`Kernels`: flattened into compact arrays, with the pieces of a state
interned to small ints and what a round does to each), so a batch of states' rows and their
targets is computed at once, a state being one int in mixed radix.  Rows of a state that roll
the same round and keep the same techniques share their entries (a *unit*), and so do rows
whose rounds differ only where it changes nothing (the same places, the same chances:
:func:`same_units`).  The build is
bounded: its size estimated before it starts (:meth:`SevendagGame.check_size`) and counted as
it goes (:func:`check_bytes`), at most :data:`MAX_BATCH_ROWS` rows at a time.
"""

from __future__ import annotations

import math
from array import array
from itertools import chain
from typing import TYPE_CHECKING, Protocol

from msgspec import Struct

from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.policies import SHEET
from sevendag_cli.sevendag.rounds import (
    KEEP,
    SWAPPED,
    TURNED,
    Counted,
    Option,
    Pieces,
    RoundForm,
    RoundOutcome,
    Tech,
)
from sevendag_cli.sevendag.rules import SevendagRuleset

if TYPE_CHECKING:
    import numpy as np

    from sevendag_cli.sevendag.chain import StateKey


class Game(Protocol):
    """What the build reads of the game (:class:`~sevendag_cli.sevendag.game.SevendagGame`)."""

    ruleset: SevendagRuleset
    names: tuple[str, str]
    form: RoundForm
    pieces: Pieces
    allocs: list[list[tuple[str, ...]]]
    alloc_index: list[dict[tuple[str, ...], int]]
    lo: int
    hi: int

    def kernels(self) -> Kernels: ...

    def options(self, key: StateKey, fighter: int, policy: str) -> list[Option]: ...

MAX_GAME_BYTES = 380 << 20
"""Most memory one solved game may take: its states, declared rounds and their outcomes,
estimated before it is built (:meth:`~sevendag_cli.sevendag.game.SevendagGame.size`) and
counted as it is built (with numpy loaded and the declarations played kept, the process stays
under 500 MB)."""
ROW_BYTES = 128
"""Memory per declared round of a solved game (measured at 124; 4 more for its round's id,
kept per row since rows that roll different rounds may share a unit): its state, option,
chances to win now, outcome count, its unit (as numpy's index type), its round, and its
values through value iteration and the declarations."""
ENTRY_BYTES = 60
"""Memory per outcome of a declared round that leads to a state (measured): its round, its
target and probability, their copies by column for the values, and the build's own."""
KERNEL_BYTES = 160
"""Memory per outcome of a distinct round kept for the build (compact arrays, and their
arrays for numpy)."""
STATE_BYTES = 600
"""Memory per state of a solved game: its key, its index, its options and values."""
MAX_BATCH_ROWS = 200_000
"""Most declared rounds built at once (the memory a build holds at a time)."""

EXACT_FLOATS = 1 << 53
"""Integers below this are exact as floats."""

WIDE = 1 << 62
"""Codes (a state, a kernel, as one int in mixed radix) this large or larger are Python ints
in object arrays instead of int64."""


class GameSize(Struct, frozen=True, gc=False):
    """A game's size at most (:meth:`~sevendag_cli.sevendag.game.SevendagGame.size`): its
    states and declared rounds."""

    states: int
    rows: int

    def bytes(self, entries: int, kernel_outcomes: int = 0) -> int:
        """Memory of a solved game of this size with ``entries`` outcomes leading to a state,
        built from rounds of ``kernel_outcomes`` outcomes in all."""
        return (self.states * STATE_BYTES + self.rows * ROW_BYTES + entries * ENTRY_BYTES
                + kernel_outcomes * KERNEL_BYTES)


def check_bytes(game: Game, states: int, rows: int, entries: int) -> None:
    """Refuse, in one line, a game whose build has grown past :data:`MAX_GAME_BYTES`."""
    size = GameSize(states, rows)
    used = size.bytes(entries, game.kernels().outcomes)
    if used > MAX_GAME_BYTES:
        raise UsageError(Msg("game.grown", a=game.names[0], b=game.names[1], states=states,
                             rows=rows, mb=used >> 20, max=MAX_GAME_BYTES >> 20))


class Kernels:
    """The game's rounds flattened for :class:`Rows` (built once per game, grown as builds
    need more): each kernel (a round, :meth:`RoundForm.count`) as a slice of flat arrays of its
    outcomes that lead to a state (the kernel's order, winners left out), and the pieces of a
    state interned to small ints, with what a round does to each (a wound counted, weapons
    picked up, a technique's rounds), so that a round's targets are computed for many rows at
    once and a state is looked up by one int instead of its nested tuple.  The weights are the
    kernel's own, divided in Python (the same floats)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        # (first, offsets clamped, near, allocations, granted) -> kernel
        self.ids: dict[tuple[int, ...], int] = {}
        self.near_ids: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        self.nears: list[tuple[tuple[bool, ...], tuple[bool, ...]]] = []
        self._near_ids: dict[tuple[tuple[bool, ...], tuple[bool, ...]], int] = {}
        # per kernel: where its outcomes to a state start, how many, all outcomes, P(a wins),
        # P(b wins)
        self.off: list[int] = []
        self.length: list[int] = []
        self.n_all: list[int] = []
        self.pa: list[float] = []
        self.pb: list[float] = []
        # per kernel: the chance of each wound, a's bands then b's (the one that takes a
        # fighter out included)
        self.wounds: list[tuple[float, ...]] = []
        # per outcome to a state: the keep-or-give initiative, D's change, the tracked slot of
        # a's wound and of b's (-1: none), the masks dropped, the granted criticals (2a + b)
        self.cols: tuple[array[int], ...] = tuple(array("i") for _ in range(7))
        self.p: array[float] = array("d")
        self._count = 0  # kernels, flattened or not
        self._wound_table: np.ndarray | None = None
        self._pending: list[tuple[int, int, Counted]] = []  # to flatten (flush)
        self._arrays: tuple[np.ndarray, ...] | None = None  # None: kernels added since
        self._kept: tuple[np.ndarray, ...] | None = None
        self._done = (0, 0)  # kernels, outcomes in _kept
        # interned pieces: counted wounds (both fighters), weapons picked up (per fighter),
        # techniques in effect
        self.count_ids: dict[tuple[int, ...], int] = {}
        self.counts: list[tuple[int, ...]] = []
        self.bump: list[list[int]] = []  # per counts: after no wound (0), a wound in slot s (s+1)
        self.rec_ids: tuple[dict[tuple[int, ...], int], dict[tuple[int, ...], int]] = ({}, {})
        self.recs: tuple[list[tuple[int, ...]], list[tuple[int, ...]]] = ([], [])
        self.recover: tuple[list[list[int]], list[list[int]]] = ([], [])  # per rec, per mask
        self.tech_ids: dict[Tech, int] = {}
        self.techs: list[Tech] = []
        self.tech_next: list[int] = []  # the technique in effect the next round
        self.started: dict[str, Tech] = {}
        for name, t in game.ruleset.techniques.items():
            self.started[name] = (t.attack, t.defence, t.duration)
            self.tech(self.started[name])
        self.tech(None)

    # --- interned pieces (each closed under what a round does to it)

    def tech(self, t: Tech) -> int:
        got = self.tech_ids.get(t)
        if got is None:
            got = self.tech_ids[t] = len(self.techs)
            self.techs.append(t)
            self.tech_next.append(-1)
            self.tech_next[got] = self.tech(self.game.pieces.tech_next(t))
        return got

    def count(self, c: tuple[int, ...]) -> int:
        got = self.count_ids.get(c)
        if got is None:
            got = self.count_ids[c] = len(self.counts)
            self.counts.append(c)
            row = [got]
            self.bump.append(row)
            form = self.game.form
            for band, s in form.slot.items():  # a wound that does not take the fighter out (S-19)
                ok = c[s] + 1 < form.limit[s]
                row.append(self.count(self.game.pieces.bump(c, band)) if ok else -1)
        return got

    def rec(self, f: int, r: tuple[int, ...]) -> int:
        ids = self.rec_ids[f]
        got = ids.get(r)
        if got is None:
            got = ids[r] = len(self.recs[f])
            self.recs[f].append(r)
            row: list[int] = []
            self.recover[f].append(row)
            for m in range(1 << len(r)):  # S-18
                row.append(self.rec(f, self.game.pieces.recover(r, m)))
        return got

    def near(self, ca: tuple[int, ...], cb: tuple[int, ...]) -> int:
        """The id of what a round reads of the wounds counted (one id per distinct reading,
        so that a kernel's key is one-to-one with :meth:`RoundForm.kernel_key`)."""
        got = self.near_ids.get((ca, cb))
        if got is None:
            near = self.game.pieces.near(ca, cb)
            got = self._near_ids.get(near)
            if got is None:
                got = self._near_ids[near] = len(self.nears)
                self.nears.append(near)
            self.near_ids[(ca, cb)] = got
        return got

    @property
    def outcomes(self) -> int:
        """The outcomes leading to a state of every kernel built."""
        self.flush()
        return len(self.p)

    # --- kernels

    def kernel(self, first: int, w: int, z: int, near: int, ida: int, idb: int,
               granted: int) -> int:
        """The id of the kernel where ``first`` attacks first at offset ``w`` and the other at
        ``z``, both clamped as :meth:`RoundForm.kernel_key` clamps them (so that rounds that
        roll the same exchanges are one kernel)."""
        key = (first, w, z, near, ida, idb, granted)
        got = self.ids.get(key)
        if got is not None:
            return got
        # counted afresh, not kept by the form: the key is its kernel key already
        den, counted = self.game.form.count(first, w, z, self.nears[near], (ida, idb),
                                            (granted >> 1 == 1, granted & 1 == 1))
        got = self.ids[key] = self._count
        self._count += 1
        self._pending.append((den, first, counted))
        return got

    def flush(self) -> None:
        """Flatten the kernels added since the last flush, in their order: their outcomes that
        lead to a state appended to the columns, their chances to win now and their wounds."""
        pending, self._pending = self._pending, []
        if not pending:
            return
        self._arrays = None
        codes = self.game.form.codes
        if len(pending) > 1 and codes.bits < 63 and all(den < EXACT_FLOATS
                                                        for den, _, _ in pending):
            self._bulk(pending)
            return
        for den, first, counted in pending:
            self._one(den, codes.oriented(first, counted))

    def _one(self, den: int, outcomes: list[RoundOutcome]) -> None:
        """One kernel flattened (see :meth:`flush`), an outcome at a time."""
        form = self.game.form
        slot, delta, bands = form.slot, self.game.pieces.delta, len(form.penalty)
        self.off.append(len(self.p))
        self.n_all.append(len(outcomes))
        win = loss = 0
        cols = self.cols
        hit = [0] * (2 * bands)
        for winner, ha, hb, assail2, da, db, ga2, gb2, w in outcomes:
            if ha >= 0:
                hit[ha] += w
            if hb >= 0:
                hit[bands + hb] += w
            if winner >= 0:
                if winner == 0:
                    win += w
                else:
                    loss += w
                continue
            cols[0].append(assail2)
            cols[1].append(delta(ha, hb))
            cols[2].append(slot.get(ha, -1) + 1)
            cols[3].append(slot.get(hb, -1) + 1)
            cols[4].append(da)
            cols[5].append(db)
            cols[6].append(2 * (ga2 > 0) + (gb2 > 0))
            self.p.append(w / den)
        self.length.append(len(self.p) - self.off[-1])
        self.pa.append(win / den)
        self.pb.append(loss / den)
        self.wounds.append(tuple(x / den for x in hit))

    def _bulk(self, pending: list[tuple[int, int, Counted]]) -> None:
        """Kernels flattened at once (see :meth:`flush`), as :meth:`_one` does one by one, to
        the same numbers: every weight and denominator is below 2**53, so exact as a float,
        their sums too (a kernel's weights sum to its denominator), and the quotient of two
        exact floats is rounded once, as Python's of two ints is.  The outcomes counted first
        attacker first are read from their codes and turned as
        :meth:`~sevendag_cli.sevendag.rounds.OutcomeCodes.oriented` does, a column at a
        time."""
        import numpy as np

        form = self.game.form
        bands = len(form.penalty)
        pen = np.array((0, *form.penalty), dtype=np.int64)  # per band + 1 (0: no wound)
        slot1 = np.array([0] + [form.slot.get(j, -1) + 1 for j in range(bands)], dtype=np.int64)
        k = len(pending)
        den = np.array([d for d, _, _ in pending], dtype=np.float64)
        sizes = np.array([len(o) for _, _, o in pending], dtype=np.int64)
        total = int(sizes.sum())
        code = np.fromiter(chain.from_iterable(o for _, _, o in pending), dtype=np.int64,
                           count=total)
        table = np.empty((total, 8), dtype=np.int64)  # the codes' fields (OutcomeCodes)
        for field, (offset, width, bias) in enumerate(form.codes.fields):
            table[:, field] = (code >> offset & ((1 << width) - 1)) - bias
        w = np.fromiter(chain.from_iterable(o.values() for _, _, o in pending),
                        dtype=np.int64, count=total).astype(np.float64)
        which = np.repeat(np.arange(k), sizes)
        b_first = np.repeat(np.array([f for _, f, _ in pending], dtype=bool), sizes)
        if b_first.any():  # the pairs swapped, the winner and the initiative turned
            turned = table[b_first][:, SWAPPED]
            won = turned[:, 0] >= 0
            turned[:, 0] = np.where(won, 1 - turned[:, 0], -1)
            turned[:, 3] = np.where(won, 0, np.array(TURNED, dtype=np.int64)[turned[:, 3]])
            table[b_first] = turned
        winner, ha, hb = table[:, 0], table[:, 1], table[:, 2]
        win = np.bincount(which, weights=np.where(winner == 0, w, 0.0), minlength=k)
        loss = np.bincount(which, weights=np.where(winner == 1, w, 0.0), minlength=k)
        hit = np.zeros((k, 2 * bands))
        for band in range(bands):
            hit[:, band] = np.bincount(which, weights=np.where(ha == band, w, 0.0), minlength=k)
            hit[:, bands + band] = np.bincount(which, weights=np.where(hb == band, w, 0.0),
                                               minlength=k)
        go = winner < 0
        kept = np.bincount(which[go], minlength=k)
        g = table[go]
        ha1, hb1 = g[:, 1] + 1, g[:, 2] + 1
        cols = (g[:, 3], pen[ha1] - pen[hb1], slot1[ha1], slot1[hb1], g[:, 4], g[:, 5],
                2 * (g[:, 6] > 0) + (g[:, 7] > 0))
        start = len(self.p)
        self.off.extend((start + np.cumsum(kept) - kept).tolist())
        self.length.extend(kept.tolist())
        self.n_all.extend(sizes.tolist())
        for into, col in zip(self.cols, cols, strict=True):
            into.frombytes(col.astype(np.int32).tobytes())
        self.p.frombytes((w[go] / den[which[go]]).tobytes())
        self.pa.extend((win / den).tolist())
        self.pb.extend((loss / den).tolist())
        self.wounds.extend(map(tuple, (hit / den[:, None]).tolist()))

    def wound_table(self) -> np.ndarray:
        """Each kernel's wounds (see ``wounds``), a row each (kept until kernels are added)."""
        import numpy as np

        self.flush()
        got = self._wound_table
        if got is None or len(got) != len(self.wounds):
            got = self._wound_table = np.array(self.wounds, dtype=np.float64).reshape(
                len(self.wounds), -1)
        return got

    def arrays(self) -> tuple[np.ndarray, ...]:
        """(off, length, n_all, pa, pb, p, *cols) as arrays (the kernels added since the last
        call appended)."""
        self.flush()
        got = self._arrays
        if got is None:
            import numpy as np

            i64 = np.int64
            k0, e0 = self._done
            new = (np.array(self.off[k0:], dtype=i64), np.array(self.length[k0:], dtype=i64),
                   np.array(self.n_all[k0:], dtype=i64), np.array(self.pa[k0:]),
                   np.array(self.pb[k0:]), np.frombuffer(self.p, dtype=np.float64)[e0:].copy(),
                   *(np.frombuffer(c, dtype=np.int32)[e0:].copy() for c in self.cols))
            old = self._kept
            got = self._arrays = new if old is None else tuple(
                np.concatenate((a, b)) for a, b in zip(old, new, strict=True))
            self._kept = got
            self._done = (len(self.off), len(self.p))
        return got


class _Batch(Struct):
    """A batch of states being expanded: per row its state (in the batch), first option and
    options' positions; per state its pieces; per option its parts."""

    size: int  # states
    rows: int
    state: np.ndarray  # (10, states): assaillant, D, counts a, b, recs a, b, near, granted, n1, n2
    row_state: np.ndarray
    row_i: np.ndarray
    a_opt: np.ndarray
    b_opt: np.ndarray
    att: np.ndarray  # who attacks first (S-03: a yield swaps)
    opt: tuple[np.ndarray, ...]  # per option: yield, allocation, attack mod, defence mod, next


class Rows:
    """Every state reachable from ``seeds`` under ``policies`` and the rows of each (see the
    module); the arrays of the rows and entries once :meth:`build` has run."""

    def __init__(self, game: Game, seeds: list[StateKey],
                 policies: tuple[str, str]) -> None:
        import numpy as np

        self.game, self.policies = game, policies
        self.states = seeds
        self.index: dict[StateKey, int] = {k: i for i, k in enumerate(seeds)}
        # per state: the assaillant's options, the défenseur's
        self.opts: list[tuple[list[Option], list[Option]]] = []
        kern = self.kern = game.kernels()
        for key in seeds:  # the seeds' pieces (closed under a round: no new piece below)
            kern.count(key[2])
            kern.count(key[3])
            kern.rec(0, key[4])
            kern.rec(1, key[5])
            kern.tech(key[8])
            kern.tech(key[9])
        # A state as one int: its pieces in mixed radix
        self.d_lo = min(game.lo, *(k[1] for k in seeds))
        n_d = max(game.hi, *(k[1] for k in seeds)) - self.d_lo + 1
        self.n_t = n_t = len(kern.techs)
        self.radix = (2, n_d, len(kern.counts), len(kern.counts), len(kern.recs[0]),
                      len(kern.recs[1]), 4, n_t * n_t)
        self.wide = math.prod(self.radix) >= WIDE  # beyond int64: Python ints in object arrays
        self.bump = np.array(kern.bump, dtype=np.int64)
        self.recover = (np.array(kern.recover[0], dtype=np.int64),
                        np.array(kern.recover[1], dtype=np.int64))
        # the states' codes, sorted, and each one's state (seeds: distinct, so codes too)
        codes = np.array([self._encode(key) for key in seeds],
                         dtype=object if self.wide else np.int64)
        by_code = np.argsort(codes, kind="stable")
        self._known, self._known_at = codes[by_code], by_code.astype(np.int64)
        self.parts: list[tuple[np.ndarray, ...]] = []  # per batch: rows, then entries
        # an option list's parts (see _batch), by fighter, list and technique held
        self._parts: dict[tuple[int, int, Tech], tuple[list[int], ...]] = {}
        # under optimal play: a state's option lists and their parts, by what they depend on
        self._shapes: dict[object, tuple[list[Option], list[Option], tuple[list[int], ...]]] = {}
        self.n_rows = self.n_units = self.n_entries = 0
        self.longest = 1

    def _encode(self, key: StateKey) -> int:
        kern, n_t = self.kern, self.n_t
        assail, d, ca, cb, ra, rb, ga, gb, ta, tb = key
        code = 0
        for part, r in zip((assail, d - self.d_lo, kern.count_ids[ca], kern.count_ids[cb],
                            kern.rec_ids[0][ra], kern.rec_ids[1][rb], 2 * bool(ga) + bool(gb),
                            kern.tech_ids[ta] * n_t + kern.tech_ids[tb]), self.radix,
                           strict=True):
            code = code * r + part
        return code

    def build(self) -> Rows:
        """Breadth first, a batch at a time: every state known and not yet expanded, in order
        (the order in which they are found, as when expanded one by one)."""
        k = 0
        while k < len(self.states):
            batch = self._batch(k)
            self._expand(batch, k)
            k += batch.size
        return self

    def _batch(self, k: int) -> _Batch:
        """The states from ``k`` on, up to :data:`MAX_BATCH_ROWS` rows: their options, and
        each row's state, options and who attacks first."""
        import numpy as np

        kern = self.kern
        # per option, first declarer's then answer's (S-05): yield, allocation id, attack
        # and defence modifiers, the technique in effect next round
        opt: tuple[list[int], ...] = ([], [], [], [], [])
        # per state: assaillant, D, counted, picking up (a, b), near, granted, options
        pieces: list[int] = []
        size = rows = 0
        sheet_free = SHEET not in self.policies
        for key in self.states[k:]:
            if rows >= MAX_BATCH_ROWS:
                break
            size += 1
            assail, d, ca, cb, ra, rb, ga, gb, ta, tb = key
            # optimal play's lists depend on the state only through these (the game's
            # options): both lists and their parts once
            shape = (assail, ra, rb, ta, tb) if sheet_free else None
            known = self._shapes.get(shape) if shape is not None else None
            if known is None:
                known = self._lists(key)
                if shape is not None:
                    self._shapes[shape] = known
            first, second, both = known
            self.opts.append((first, second))
            rows += len(first) * len(second)
            pieces += (assail, d, kern.count_ids[ca], kern.count_ids[cb], kern.rec_ids[0][ra],
                       kern.rec_ids[1][rb], kern.near(ca, cb), 2 * bool(ga) + bool(gb),
                       len(first), len(second))
            for into, part in zip(opt, both, strict=True):
                into.extend(part)
        state = np.array(pieces, dtype=np.int64).reshape(-1, 10).T
        n1, n2 = state[8], state[9]
        parts = tuple(np.array(x, dtype=np.int64) for x in opt)
        # each row: its state, first option i and answer j (rows: i, then j)
        per_state = n1 * n2
        row_state = np.repeat(np.arange(size, dtype=np.int64), per_state)
        r = np.arange(rows, dtype=np.int64) - np.repeat(np.cumsum(per_state) - per_state,
                                                        per_state)
        row_i = r // n2[row_state]
        f_opt = np.repeat(np.cumsum(n1 + n2) - n1 - n2, per_state) + row_i
        s_opt = f_opt - row_i + n1[row_state] + r % n2[row_state]
        assail_r = state[0][row_state]
        a_first = assail_r == 0
        att = np.where(parts[0][f_opt] == 1, 1 - assail_r, assail_r)  # S-03: a yield
        return _Batch(size, rows, state, row_state, row_i, np.where(a_first, f_opt, s_opt),
                      np.where(a_first, s_opt, f_opt), att, parts)

    def _lists(self, key: StateKey) -> tuple[list[Option], list[Option], tuple[list[int], ...]]:
        """State ``key``'s option lists (the first declarer's, the answer's) and their parts
        (:meth:`_batch`), the first's then the answer's."""
        game, kern, policies = self.game, self.kern, self.policies
        alloc_index, tech_ids, started = game.alloc_index, kern.tech_ids, kern.started
        assail, ta, tb = key[0], key[8], key[9]
        first = game.options(key, assail, policies[assail])
        second = game.options(key, 1 - assail, policies[1 - assail])
        both: tuple[list[int], ...] = ([], [], [], [], [])
        for f, opts in ((assail, first), (1 - assail, second)):
            held = ta if f == 0 else tb
            # optimal play's lists are the game's own, shared and kept: their parts once
            shared = (f, id(opts), held) if policies[f] != SHEET else None
            got = self._parts.get(shared) if shared is not None else None
            if got is None:
                ids = alloc_index[f]
                got = ([], [], [], [], [])
                for o in opts:
                    tech = started[o.technique] if o.technique is not None else held
                    got[0].append(o.yield_initiative)
                    got[1].append(ids[o.allocation])
                    got[2].append(tech[0] if tech else 0)
                    got[3].append(tech[1] if tech else 0)
                    got[4].append(kern.tech_next[tech_ids[tech]])
                if shared is not None:
                    self._parts[shared] = got
            for into, part in zip(both, got, strict=True):
                into.extend(part)
        return first, second, both

    def _kernels(self, b: _Batch) -> np.ndarray:
        """Each row's kernel id: the rows keyed by what their round depends on (the offsets
        clamped, :meth:`RoundForm.kernel_key`), each key's kernel built once."""
        import numpy as np

        game, kern = self.game, self.kern
        (aa, ad), (ba, bd) = game.form.constants
        n_alloc_a, n_alloc_b = len(game.allocs[0]), len(game.allocs[1])
        o_alloc, o_att, o_def = b.opt[1], b.opt[2], b.opt[3]
        ida, idb = o_alloc[b.a_opt], o_alloc[b.b_opt]
        d_r = b.state[1][b.row_state]
        x = (aa - bd) - d_r + o_att[b.a_opt] - o_def[b.b_opt]  # a's attack offset
        y = (ba - ad) + d_r + o_att[b.b_opt] - o_def[b.a_opt]  # b's
        pair = (b.att * n_alloc_a + ida) * n_alloc_b + idb
        pairs, pair_at = np.unique(pair, return_inverse=True)
        bounds = np.array([game.form.bounds(int(p) // (n_alloc_a * n_alloc_b), (
            int(p) // n_alloc_b % n_alloc_a, int(p) % n_alloc_b))
            for p in pairs.tolist()], dtype=np.int64).reshape(-1, 4)[pair_at].T
        w = np.clip(np.where(b.att == 0, x, y), bounds[0], bounds[1])
        z = np.clip(np.where(b.att == 0, y, x), bounds[2], bounds[3])
        near, granted = b.state[6][b.row_state], b.state[7][b.row_state]
        parts = (w - int(w.min()), z - int(z.min()), near, granted)
        sizes = [int(part.max()) + 1 for part in parts]
        code: np.ndarray = pair.astype(object) if math.prod(
            sizes, start=int(pair.max()) + 1) >= WIDE else pair
        for part, size in zip(parts, sizes, strict=True):
            code = code * size + part
        _, same_at, same_inverse = np.unique(code, return_index=True, return_inverse=True)
        kid_same = np.array([kern.kernel(*args) for args in zip(*(
            v[same_at].tolist() for v in (b.att, w, z, near, ida, idb, granted)),
            strict=True)], dtype=np.int64)
        kern.flush()
        kid: np.ndarray = kid_same[same_inverse]
        return kid

    def _expand(self, b: _Batch, k: int) -> None:
        """The batch's rows, units and entries (their targets, new states appended)."""
        import numpy as np

        kern, n_t = self.kern, self.n_t
        kid_arr = self._kernels(b)
        row_tech = b.opt[4][b.a_opt] * n_t + b.opt[4][b.b_opt]  # a's technique next round, b's
        k_off, k_len, k_all, k_pa, k_pb, k_p = kern.arrays()[:6]
        # Rows of a state with the same round and the same techniques next round lead to the
        # same places with the same chances: one *unit* each, in the order first found
        unit_code = b.row_state.astype(object) if b.size * (len(k_off) + 1) * (
            n_t * n_t) >= WIDE else b.row_state
        unit_code = (unit_code * (len(k_off) + 1) + kid_arr) * (n_t * n_t) + row_tech
        _, u_first, u_inverse = np.unique(unit_code, return_index=True, return_inverse=True)
        u_order = np.argsort(u_first, kind="stable")
        u_rank = np.empty_like(u_order)
        u_rank[u_order] = np.arange(u_order.size)
        u_rows = u_first[u_order]  # each unit's first row
        row_unit = u_rank[u_inverse.reshape(-1)]
        u_kid, u_state = kid_arr[u_rows], b.row_state[u_rows]
        lens = k_len[u_kid]
        # the batch's entries before the units that lead to the same places are merged
        check_bytes(self.game, len(self.states), self.n_rows + b.rows,
                    self.n_entries + int(lens.sum()))
        ent = np.repeat(k_off[u_kid] - np.cumsum(lens) + lens, lens) + np.arange(
            int(lens.sum()), dtype=np.int64)
        col = self._targets(b, ent, np.repeat(u_state, lens), np.repeat(row_tech[u_rows], lens))
        p = k_p[ent]
        same = same_units(u_state, k_pa[u_kid], k_pb[u_kid], lens, col, p)
        kept = same == np.arange(same.size)
        new_id = np.cumsum(kept) - 1  # the units kept, renumbered in their order
        row_unit = new_id[same][row_unit]
        at = np.repeat(kept, lens)
        col, p, lens, u_state = col[at], p[at], lens[kept], u_state[kept]
        self.n_entries += col.size
        if b.rows:
            self.longest = max(self.longest, int(k_all[kid_arr].max()))
        i32 = np.int32  # states, rows, units and outcomes counted well within 2**31
        n_units = self.n_units
        self.parts.append(((b.row_state + k).astype(i32), b.row_i.astype(i32), k_pa[kid_arr],
                           k_pb[kid_arr], (row_unit + n_units).astype(i32),
                           k_all[kid_arr].astype(i32), (u_state + k).astype(i32),
                           np.repeat(np.arange(n_units, n_units + lens.size, dtype=i32), lens),
                           col.astype(i32), p, kid_arr.astype(i32)))
        self.n_rows += b.rows
        self.n_units += lens.size

    def _targets(self, b: _Batch, ent: np.ndarray, ent_state: np.ndarray,
                 to_t: np.ndarray) -> np.ndarray:
        """Each entry's target state (the pieces after the round), the states found for the
        first time appended in the order found."""
        import numpy as np

        kern, game = self.kern, self.game
        c_assail, c_delta, c_sa, c_sb, c_da, c_db, c_g = kern.arrays()[6:]
        def piece(i: int) -> np.ndarray:  # a piece of each entry's state (one row taken)
            got: np.ndarray = b.state[i].take(ent_state)
            return got

        def after(table: np.ndarray, i: int, change: np.ndarray) -> np.ndarray:
            """``table[piece, change]``, read flat (a 2-d look-up by two index arrays is
            some twice as slow)."""
            got: np.ndarray = table.ravel().take(piece(i) * table.shape[1] + change.take(ent))
            return got

        to_assail = c_assail.take(ent)
        to_assail = np.where(to_assail == KEEP, piece(0), to_assail)
        to_d = np.clip(piece(1) + c_delta.take(ent), game.lo, game.hi) - self.d_lo
        to_ca, to_cb = after(self.bump, 2, c_sa), after(self.bump, 3, c_sb)
        to_ra, to_rb = after(self.recover[0], 4, c_da), after(self.recover[1], 5, c_db)
        to_g = c_g.take(ent)
        if ent.size and min(int(to_ca.min()), int(to_cb.min())) < 0:
            raise RuntimeError("a wound counted past the fighter's last")  # never: S-19
        code = to_assail.astype(object) if self.wide else to_assail
        for part, r in zip((to_d, to_ca, to_cb, to_ra, to_rb, to_g, to_t), self.radix[1:],
                           strict=True):
            code = code * r + part
        # the states known: their codes sorted (a look-up by binary search), new ones merged in
        known, known_at, states = self._known, self._known_at, self.states
        pos = np.minimum(np.searchsorted(known, code), len(known) - 1)
        found = known[pos] == code
        col: np.ndarray = np.where(found, known_at[pos], -1)
        miss = np.flatnonzero(~found)
        if miss.size:
            uniq, first_at, inverse = np.unique(code[miss], return_index=True,
                                                return_inverse=True)
            order = np.argsort(first_at, kind="stable")  # the new states in the order found
            check_bytes(game, len(states) + order.size, self.n_rows + b.rows, self.n_entries)
            new_at = np.empty(order.size, dtype=np.int64)
            new_at[order] = np.arange(len(states), len(states) + order.size)
            col[miss] = new_at[inverse.reshape(-1)]
            at = miss[first_at[order]]
            n_t = self.n_t
            for a2, d2, ca2, cb2, ra2, rb2, g2, t2 in zip(*(arr[at].tolist() for arr in (
                    to_assail, to_d, to_ca, to_cb, to_ra, to_rb, to_g, to_t)), strict=True):
                t_a, t_b = divmod(t2, n_t)
                key = (a2, d2 + self.d_lo, kern.counts[ca2], kern.counts[cb2], kern.recs[0][ra2],
                       kern.recs[1][rb2], g2 >> 1 == 1, g2 & 1 == 1, kern.techs[t_a],
                       kern.techs[t_b])
                self.index[key] = len(states)
                states.append(key)
            known = np.concatenate((known, uniq))
            merged = np.argsort(known, kind="stable")
            self._known, self._known_at = known[merged], np.concatenate((known_at, new_at))[merged]
        return col

    def arrays(self) -> tuple[np.ndarray, ...]:
        """Per row: state, first option, P(a wins now), P(b wins now), unit, outcomes; per
        unit: state; per entry: unit, target, probability; per row: its kernel."""
        import numpy as np

        return tuple(np.concatenate([p[i] for p in self.parts]) for i in range(11))


def _digest(col: np.ndarray, p: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each unit's entries (targets, probabilities' bits and positions)."""
    import numpy as np

    u64 = np.uint64
    pos = np.arange(col.size, dtype=np.int64) - np.repeat(starts, lens)
    with np.errstate(over="ignore"):
        mixed = ((col.astype(u64) + u64(1)) * u64(0x9E3779B97F4A7C15)
                 ^ p.view(u64) * u64(0xC2B2AE3D27D4EB4F)
                 ^ (pos.astype(u64) + u64(1)) * u64(0x165667B19E3779F9))
        mixed ^= mixed >> u64(29)
    digest = np.zeros(lens.size, dtype=u64)
    has = lens > 0
    if col.size:
        digest[has] = np.add.reduceat(mixed, starts[has])
    return digest


def same_units(state: np.ndarray, pa: np.ndarray, pb: np.ndarray, lens: np.ndarray,
                col: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Per unit (its entries ``lens`` long, in order in ``col`` and ``p``), the first unit of
    its state with the same chances to win now and the same entries in the same order —
    itself if none: rounds that differ only where it changes nothing (a yield when the other
    does not attack: the same exchange, whoever would have gone first) lead to the same
    places with the same chances, so their values are the same in every round, bit for bit.
    Units are matched by one 64-bit key (a hash of their entries, with their state, length
    and chances), then checked field by field and entry by entry: a collision keeps two units
    apart, it never merges them."""
    import numpy as np

    n = lens.size
    same = np.arange(n)
    if n < 2:
        return same
    u64 = np.uint64
    starts = np.cumsum(lens) - lens
    with np.errstate(over="ignore"):
        key = (_digest(col, p, starts, lens)
               ^ (state.astype(u64) + u64(1)) * u64(0xD6E8FEB86659FD93)
               ^ (lens.astype(u64) + u64(1)) * u64(0xA0761D6478BD642F)
               ^ pa.view(u64) * u64(0xE7037ED1A0B428DB) ^ pb.view(u64) * u64(0x8EBC6AF09C88C6E3))
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    cand = first[inverse.reshape(-1)]  # the first unit with the same key (units in order)
    other = np.flatnonzero(cand != same)
    # the same state, length and chances to win now, then the same entries
    c = cand[other]
    other = other[(state[other] == state[c]) & (lens[other] == lens[c])
                  & (pa[other].view(np.int64) == pa[c].view(np.int64))
                  & (pb[other].view(np.int64) == pb[c].view(np.int64))]
    if other.size == 0:
        return same
    # entry by entry: each candidate's entries against its first's
    o_len = lens[other]
    offs = np.arange(int(o_len.sum()), dtype=np.int64) - np.repeat(np.cumsum(o_len) - o_len,
                                                                   o_len)
    mine = np.repeat(starts[other], o_len) + offs
    theirs = np.repeat(starts[cand[other]], o_len) + offs
    differ = (col[mine] != col[theirs]) | (p[mine].view(np.int64) != p[theirs].view(np.int64))
    bad = np.bincount(np.repeat(np.arange(other.size), o_len), weights=differ,
                      minlength=other.size) > 0
    ok = other[~bad]
    same[ok] = cand[ok]
    return same


__all__ = ["MAX_GAME_BYTES", "GameSize", "Kernels", "Rows", "check_bytes", "same_units"]
