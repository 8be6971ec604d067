"""The declarations both fighters play, round by round to go: the choosing step of
:meth:`sevendag_cli.sevendag.game.Solution.decisions`, laid out once so that each round is a
few flat array operations.

A round's choice, per state: the first declarer's best option, given the answer's best
reply to each of its options; among options within ``tie`` of the best, the one most
likely to win this very round, then the first listed.  Laid out as:

* **groups** (a state's first option, with every answer): their rows sorted in the
  order an answer is preferred (most likely to win this round first, then as listed), a
  row dropped where an earlier row of its group plays the same round (the same unit: its
  value is the same in every round, so it could never be picked first).  Groups whose
  length pads to the same power of two side by side as a (length x groups) block, padding
  worth -inf, the values of a side that minimises negated: the best answer is a column's
  maximum, the pick its first row within ``tie`` of it.  A group that repeats an earlier
  group of its state (the same units in the same order: a yield or a technique that changes
  nothing there — 40-55 % of the groups in the bench roster's games) is dropped: its pick,
  value and chance to win now are the earlier one's in every round, and the first listed
  wins a tie;
* **states** (their groups): blocks by number of options likewise; among the options within
  ``tie`` of the best, the most likely to win this round, then the first.

The picks are exactly those of the segment-by-segment form (negation is exact, and
``-x >= max(-x) - tie`` is ``x <= min(x) + tie`` bit for bit):
the rows are bit for bit the same; ``tests/test_game_build.py`` checks it against the
plain algorithm.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np


class _Block:
    """``n`` segments of ``size`` items each (padded), side by side: item ``j`` of segment ``k``
    at ``start + j * n + k`` of the flat arrays; ``out`` where the segments' picks go."""

    __slots__ = ("cols", "n", "out", "size", "start")

    def __init__(self, size: int, start: int, n: int, out: int, cols: np.ndarray) -> None:
        self.size, self.start, self.n, self.out = size, start, n, out
        self.cols = cols  # 0..n-1 plus ``start``: the flat index of row 0 of each segment


def _blocks(lengths: np.ndarray, firsts: np.ndarray,
            ) -> tuple[list[_Block], np.ndarray, np.ndarray]:
    """Segments (``lengths`` items each, starting at ``firsts``) grouped by their length padded
    to a power of two (fewer blocks, each a few array operations): the blocks, each laid-out
    item's index (-1: padding), and the segments in pick order."""
    import numpy as np

    padded = np.where(lengths > 1, 1 << np.ceil(np.log2(np.maximum(lengths, 1))).astype(
        np.int64), 1)
    blocks: list[_Block] = []
    flat: list[np.ndarray] = []
    order: list[np.ndarray] = []
    start = out = 0
    for size in np.unique(padded).tolist():
        segs = np.flatnonzero(padded == size)
        n = len(segs)
        j = np.arange(size)[:, None]
        flat.append(np.where(j < lengths[segs][None, :], firsts[segs][None, :] + j, -1).ravel())
        order.append(segs)
        blocks.append(_Block(size, start, n, out, np.arange(n) + start))
        start += size * n
        out += n
    return blocks, np.concatenate(flat), np.concatenate(order)


class Chooser:
    """The declarations' choice laid out for a solution's rows (see the module).

    ``group_starts``: each group's first row (rows in order: state, first option, answer);
    ``state_starts``: each state's first group; ``answer_high``: per group, whether the
    answer maximises a's value; ``first_high``: per state, whether the first declarer does;
    ``unit``: each row's unit (the rows of a unit answer for one side: a unit belongs to
    one state); ``progress_answer`` / ``progress_first``: each row's chance that the
    answering / first-declaring side wins this very round; ``wins_now``: each row's chance
    that a wins this very round.

    Both sides in one block: a minimising side's values negated (exactly), so that every
    pick is a maximum — ``-x >= max(-x) - tie`` is ``x <= min(x) + tie``, bit for bit — and
    padding never picked (-inf).  The units' values come negated already where their answer
    minimises (``unit_values`` of :meth:`choose`, as the solution's product gives them).
    """

    def __init__(self, group_starts: np.ndarray, state_starts: np.ndarray,
                 answer_high: np.ndarray, first_high: np.ndarray, unit: np.ndarray,
                 progress_answer: np.ndarray, progress_first: np.ndarray,
                 wins_now: np.ndarray) -> None:
        import numpy as np

        n_rows = len(unit)
        n_groups = len(group_starts)
        group_len = np.diff(np.append(group_starts, n_rows))
        group = np.repeat(np.arange(n_groups), group_len)
        order = np.lexsort((np.arange(n_rows), -progress_answer, group))
        # the first row of each (group, unit) in that order: the only one that can be picked
        key = group[order].astype(np.int64) * (int(unit.max(initial=0)) + 1) + unit[order]
        _, first = np.unique(key, return_index=True)
        kept = np.zeros(n_rows, dtype=bool)
        kept[first] = True
        rows = order[kept]  # grouped, each group's in its order of preference
        lengths = np.bincount(group[rows], minlength=n_groups)
        # A group that repeats an earlier one of its state (the same units in the same order:
        # every answer plays the same round, as a yield or a technique that changes nothing
        # here) has the same pick, value and chance to win now in every round: never picked
        # (the first listed wins a tie), dropped.
        from sevendag_cli.sevendag.rows import same_units

        n_states = len(state_starts)
        group_state = np.repeat(np.arange(n_states), np.diff(np.append(state_starts, n_groups)))
        zeros = np.zeros(n_groups)
        same = same_units(group_state, zeros, zeros, lengths, unit[rows], np.zeros(rows.size))
        alone = same == np.arange(n_groups)
        if not alone.all():
            rows = rows[alone[group[rows]]]
            renumber = np.cumsum(alone) - 1
            group = renumber[group]  # the dropped groups' rows are gone
            lengths, answer_high = lengths[alone], answer_high[alone]
            n_groups = int(alone.sum())
            state_starts = np.searchsorted(group_state[alone], np.arange(n_states))
        firsts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        self.answer_blocks, at_row, group_order = _blocks(lengths, firsts)
        pad = at_row < 0
        laid = rows[np.where(pad, 0, at_row)]
        sign = np.where(answer_high, 1.0, -1.0)[group[laid]]
        self.signed_wins = np.where(pad, -np.inf, sign * wins_now[laid])
        self.units = np.where(pad, 0, unit[laid]).astype(np.intp)  # int32 would be converted
        self.rows = np.where(pad, -1, laid)
        self.progress = np.where(pad, -1.0, progress_first[laid])  # the first declarer's
        self.group_sign = np.where(answer_high, 1.0, -1.0)[group_order]  # in pick order
        # each state's groups: their picks' positions (n_groups: padding)
        where = np.empty(n_groups, dtype=np.int64)
        where[group_order] = np.arange(n_groups)
        state_len = np.diff(np.append(state_starts, n_groups))
        self.state_blocks, at_group, self.state_order = _blocks(state_len, state_starts)
        self.state_groups = np.where(at_group < 0, n_groups, where[np.maximum(at_group, 0)])
        item_state = np.concatenate([np.tile(self.state_order[b.out:b.out + b.n], b.size)
                                     for b in self.state_blocks])
        self.state_sign = np.where(at_group < 0, 1.0,
                                   np.where(first_high, 1.0, -1.0)[item_state])
        self.n_groups, self.n_states = n_groups, len(state_starts)
        self._first_sign = np.where(first_high, 1.0, -1.0)
        # scratch, one round's: the groups' picks (and, last, what padding reads)
        self._q = np.empty(n_groups + 1)
        self._q[n_groups] = -np.inf
        self._at = np.zeros(n_groups + 1, dtype=np.intp)
        self._progress = np.empty(n_groups + 1)
        self._progress[n_groups] = -1.0

    def choose(self, unit_values: np.ndarray, tie: float) -> tuple[np.ndarray, np.ndarray]:
        """Each state's row and its value, the units' values being ``unit_values`` (P(a wins
        now) excluded: added here per row), negated where their answer minimises."""
        import numpy as np

        # each row's value, negated where its side minimises: -(p + u) is (-p) + (-u) exactly
        x = self.signed_wins + unit_values.take(self.units)
        n = self.n_groups
        # per group: its pick's value, its laid position (its row read once picked) and its
        # first declarer's chance to win now
        picked_q, picked_at, picked_progress = self._q, self._at, self._progress
        for b in self.answer_blocks:
            end, out = b.start + b.size * b.n, slice(b.out, b.out + b.n)
            if b.size == 1:
                picked_q[out] = x[b.start:end]
                picked_at[out] = b.cols
                picked_progress[out] = self.progress[b.start:end]
                continue
            block = x[b.start:end].reshape(b.size, b.n)
            at = _first(block >= block.max(axis=0) - tie) * b.n + b.cols
            picked_q[out] = x.take(at)
            picked_at[out] = at
            picked_progress[out] = self.progress.take(at)
        picked_q[:n] *= self.group_sign  # the values themselves again
        picked_q[:n] += 0.0  # a zero sum negated is -0.0: a value is +0.0, as the plain one
        y = picked_q.take(self.state_groups)
        signed = self.state_sign * y
        progress = picked_progress.take(self.state_groups)
        value = np.empty(self.n_states)
        item = np.empty(self.n_states, dtype=np.intp)  # each state's pick among its groups
        for b in self.state_blocks:
            end, where = b.start + b.size * b.n, self.state_order[b.out:b.out + b.n]
            if b.size == 1:
                value[where] = y[b.start:end]
                item[where] = b.cols
                continue
            block = signed[b.start:end].reshape(b.size, b.n)
            # the options within tie of the best score their chance to win now (at least 0),
            # the others and padding -1: the best score is a tied option's
            score = np.where(block >= block.max(axis=0) - tie,
                             progress[b.start:end].reshape(b.size, b.n), -1.0)
            at = _first(score >= score.max(axis=0)) * b.n + b.cols
            value[where] = y.take(at)
            item[where] = at
        row: np.ndarray = self.rows.take(picked_at.take(self.state_groups.take(item)))
        return row, value

    def values(self, unit_values: np.ndarray) -> np.ndarray:
        """Each state's value, the units' values being ``unit_values`` (as :meth:`choose`): its
        first declarer's best over its options of the answer's best, no tie broken — bit for
        bit the segments' plain minima and maxima (a maximum is the same whatever the order
        its items are read in; a row dropped has the value of one kept)."""
        import numpy as np

        x = self.signed_wins + unit_values.take(self.units)
        n = self.n_groups
        best = self._q
        for b in self.answer_blocks:
            end, out = b.start + b.size * b.n, slice(b.out, b.out + b.n)
            if b.size == 1:
                best[out] = x[b.start:end]
            else:
                best[out] = x[b.start:end].reshape(b.size, b.n).max(axis=0)
        best[:n] *= self.group_sign  # the values themselves again
        best[:n] += 0.0  # a zero sum negated is -0.0: a value is +0.0, as the plain one
        signed = self.state_sign * best.take(self.state_groups)
        value = np.empty(self.n_states)
        for b in self.state_blocks:
            end, where = b.start + b.size * b.n, self.state_order[b.out:b.out + b.n]
            if b.size == 1:
                value[where] = signed[b.start:end]
            else:
                value[where] = signed[b.start:end].reshape(b.size, b.n).max(axis=0)
        value *= self._first_sign
        return value


def _first(ok: np.ndarray) -> np.ndarray:
    """Per column of ``ok`` (each with a true item), the row of its first true item: the
    largest of the items weighted ``size, size - 1, ... 1`` down the rows (two passes along
    the rows; ``argmax`` down the columns copies them out first, some 10-30 times slower)."""
    import numpy as np

    size = ok.shape[0]
    ranks = _RANKS.get(size)
    if ranks is None:
        kind = np.uint8 if size < 1 << 8 else np.uint16 if size < 1 << 16 else np.int64
        ranks = _RANKS[size] = np.arange(size, 0, -1, dtype=kind)[:, None]
    best = (ok * ranks).max(axis=0)  # at least 1: each column holds its maximum
    found: np.ndarray = (size - best).astype(np.intp)  # in the weights' type: size fits it
    return found


_RANKS: dict[int, np.ndarray] = {}


class Choosing(Protocol):
    """What :func:`settle` reads of a :class:`Chooser`."""

    n_states: int

    def choose(self, unit_values: np.ndarray, tie: float) -> tuple[np.ndarray, np.ndarray]: ...


def settle(chooser: Choosing, units: Callable[[np.ndarray], np.ndarray], rounds: int,
           most: int, tie: float, settled: int, too_many: Callable[[int], Exception],
           ) -> np.ndarray:
    """The rows played with 1, 2, ... ``rounds`` rounds to go (from ``V = ½``, the draw at the
    cap), stopping once ``settled`` rounds in a row changed no row and no value by more than
    ``tie`` — or, for a cycle of two, once ``settled`` rounds in a row had the rows and (within
    ``tie``) the values of the round before last; ``units(v)``: the units' values with ``v``
    after their round; more than ``most`` rounds kept raises ``too_many(most)``.  Beyond the
    rounds returned, the last two alternate (:func:`row_index`).

    A cycle of two is the parity of the cap showing: a fighter ahead who may wait plays one
    declaration with an even number of rounds to go and another with an odd one, the values
    swinging by a constant amount (seen in 3 of the bench roster's 15 pairs, which never
    settled otherwise and iterated to the cap)."""
    import numpy as np

    n = chooser.n_states
    out = np.empty((min(rounds, most), n), dtype=np.int32)
    v = np.full(n, 0.5)
    before = v  # the values of the round before last
    same = same2 = 0
    for t in range(rounds):
        rows, new_v = chooser.choose(units(v), tie)
        if t > 0 and np.array_equal(rows, out[t - 1]) and \
                float(np.max(np.abs(new_v - v))) <= tie:
            same += 1
        else:
            same = 0
        if t > 1 and np.array_equal(rows, out[t - 2]) and \
                float(np.max(np.abs(new_v - before))) <= tie:
            same2 += 1
        else:
            same2 = 0
        before, v = v, new_v
        if t >= len(out):
            raise too_many(len(out))
        out[t] = rows
        if same >= settled or same2 >= settled:
            return out[:t + 1]
    return out[:rounds]


def row_index(kept: int, togo: int) -> int:
    """The index of :func:`settle`'s rows played with ``togo`` rounds to go, ``kept`` rows
    returned: beyond them the last two alternate (settled, both are the same)."""
    if togo <= kept:
        return togo - 1
    return kept - 1 - (togo - kept) % 2 if kept > 1 else 0
