"""The declarations both fighters play, round by round to go: the choosing step of
:meth:`sevendag_cli.sevendag.game.Solution.decisions`, laid out once so that each round is a
few flat array operations.

A round's choice, per state: the first declarer's best option, given the answer's best
reply to each of its options; among options within ``tie`` of the best, the one most
likely to win this very round, then the first listed.  Laid out as:

* **groups** (a state's first option, with every answer): their rows sorted in the
  order an answer is preferred (most likely to win this round first, then as listed), a
  row dropped where an earlier row of its group plays the same round (the same unit: its
  value is the same in every round, so it could never be picked first).  Groups of one
  length and one side (the answer maximising a's value, or minimising it) side by side as
  a (length x groups) block: the best answer is a column's extreme, the pick its first
  row within ``tie`` of it;
* **states** (their groups): blocks by number of options and side likewise; among the
  options within ``tie`` of the best, the most likely to win this round, then the first.

The picks are exactly those of the segment-by-segment form (maximum and minimum taken
on the values as they are, a minimum within ``tie`` being the negated maximum's, exactly):
the rows are bit for bit the same; ``tests/test_game_build.py`` checks it against the
plain algorithm.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


class _Block:
    """``n`` segments of ``size`` items each, side by side: item ``j`` of segment ``k`` at
    ``start + j * n + k`` of the flat arrays; ``out`` where the segments' picks go."""

    __slots__ = ("cols", "high", "n", "out", "size", "start")

    def __init__(self, size: int, high: bool, start: int, n: int, out: int,
                 cols: np.ndarray) -> None:
        self.size, self.high, self.start, self.n, self.out = size, high, start, n, out
        self.cols = cols  # 0..n-1 plus ``start``: the flat index of row 0 of each segment


def _blocks(lengths: np.ndarray, high: np.ndarray, firsts: np.ndarray,
            items: np.ndarray) -> tuple[list[_Block], np.ndarray, np.ndarray]:
    """Segments (``lengths``, each starting at ``firsts`` in ``items``) grouped by length and
    side: the blocks, the items in block order, and the segments in pick order."""
    import numpy as np

    blocks: list[_Block] = []
    flat: list[np.ndarray] = []
    order: list[np.ndarray] = []
    start = out = 0
    for size in np.unique(lengths).tolist():
        for side in (True, False):
            segs = np.flatnonzero((lengths == size) & (high == side))
            n = len(segs)
            if not n:
                continue
            flat.append(items[firsts[segs][None, :] + np.arange(size)[:, None]].ravel())
            order.append(segs)
            blocks.append(_Block(size, side, start, n, out, np.arange(n) + start))
            start += size * n
            out += n
    return blocks, np.concatenate(flat), np.concatenate(order)


class Chooser:
    """The declarations' choice laid out for a solution's rows (see the module).

    ``group_starts``: each group's first row (rows in order: state, first option, answer);
    ``state_starts``: each state's first group; ``answer_high``: per group, whether the
    answer maximises a's value; ``first_high``: per state, whether the first declarer does;
    ``unit``: each row's unit; ``progress_answer`` / ``progress_first``: each row's chance
    that the answering / first-declaring side wins this very round; ``wins_now``: each row's
    chance that a wins this very round.
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
        firsts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        self.answer_blocks, self.rows, group_order = _blocks(lengths, answer_high, firsts, rows)
        self.units = unit[self.rows].astype(np.intp)  # int32 indices: converted at every take
        self.wins_now = wins_now[self.rows]
        # the groups' picks are written in group_order; each state's groups, from there
        at = np.empty(n_groups, dtype=np.int64)
        at[group_order] = np.arange(n_groups)
        n_states = len(state_starts)
        state_len = np.diff(np.append(state_starts, n_groups))
        self.state_blocks, self.state_groups, self.state_order = _blocks(
            state_len, first_high, state_starts, at[np.arange(n_groups)])
        self.progress = progress_first[self.rows]  # the first declarer's, per row laid out
        self.n_groups, self.n_states = n_groups, n_states
        # scratch, one round's: the groups' picks
        self._q = np.empty(n_groups)
        self._row = np.empty(n_groups, dtype=np.int64)
        self._progress = np.empty(n_groups)

    def choose(self, unit_values: np.ndarray, tie: float) -> tuple[np.ndarray, np.ndarray]:
        """Each state's row and its value, the units' values being ``unit_values`` (P(a wins
        now) excluded: added here per row)."""
        import numpy as np

        x = self.wins_now + unit_values.take(self.units)
        picked_q, picked_row, picked_progress = self._q, self._row, self._progress
        for b in self.answer_blocks:
            end, out = b.start + b.size * b.n, slice(b.out, b.out + b.n)
            if b.size == 1:
                picked_q[out] = x[b.start:end]
                picked_row[out] = self.rows[b.start:end]
                picked_progress[out] = self.progress[b.start:end]
                continue
            block = x[b.start:end].reshape(b.size, b.n)
            ok = block >= block.max(axis=0) - tie if b.high else block <= block.min(axis=0) + tie
            at = _first(ok) * b.n + b.cols
            picked_q[out] = x.take(at)
            picked_row[out] = self.rows.take(at)
            picked_progress[out] = self.progress.take(at)
        y = picked_q.take(self.state_groups)
        rows = picked_row.take(self.state_groups)
        progress = picked_progress.take(self.state_groups)
        value = np.empty(self.n_states)
        row = np.empty(self.n_states, dtype=np.int64)
        for b in self.state_blocks:
            end, where = b.start + b.size * b.n, self.state_order[b.out:b.out + b.n]
            if b.size == 1:
                value[where] = y[b.start:end]
                row[where] = rows[b.start:end]
                continue
            block = y[b.start:end].reshape(b.size, b.n)
            tied = block >= block.max(axis=0) - tie if b.high else block <= block.min(axis=0) + tie
            score = np.where(tied, progress[b.start:end].reshape(b.size, b.n), -1.0)
            at = _first(tied & (score >= score.max(axis=0))) * b.n + b.cols
            value[where] = y.take(at)
            row[where] = rows.take(at)
        return row, value


def _first(ok: np.ndarray) -> np.ndarray:
    """Per column of ``ok`` (each with a true item), the row of its first true item."""
    import numpy as np

    size = ok.shape[0]
    if size > 4:  # argmax copies the columns out, which pays once they are long
        found: np.ndarray = ok.argmax(axis=0)
        return found
    pos = np.full(ok.shape[1], size - 1, dtype=np.intp)
    for j in range(size - 2, -1, -1):
        np.copyto(pos, j, where=ok[j])
    return pos


def settle(chooser: Chooser, units: Callable[[np.ndarray], np.ndarray], rounds: int,
           most: int, tie: float, settled: int, too_many: Callable[[int], Exception],
           ) -> np.ndarray:
    """The rows played with 1, 2, ... ``rounds`` rounds to go (from ``V = ½``, the draw at the
    cap), stopping once ``settled`` rounds in a row changed no row and no value by more than
    ``tie``; ``units(v)``: the units' values with ``v`` after their round; more than ``most``
    rounds kept raises ``too_many(most)``."""
    import numpy as np

    n = chooser.n_states
    out = np.empty((min(rounds, most), n), dtype=np.int32)
    v = np.full(n, 0.5)
    same = 0
    for t in range(rounds):
        rows, new_v = chooser.choose(units(v), tie)
        if t > 0 and np.array_equal(rows, out[t - 1]) and \
                float(np.max(np.abs(new_v - v))) <= tie:
            same += 1
        else:
            same = 0
        v = new_v
        if t >= len(out):
            raise too_many(len(out))
        out[t] = rows
        if same >= settled:
            return out[:t + 1]
    return out[:rounds]
