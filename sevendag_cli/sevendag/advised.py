"""``advise``'s answer as records (computed by :mod:`sevendag_cli.sevendag.advice`): every
option of the fighter declaring now with its chance to win, and the options folded as the
display shows them.  A leaf of the package (the declaration's record and nothing that solves),
so that the backend's types can name it without importing the solver."""

from __future__ import annotations

from msgspec import Struct

from sevendag_cli.sevendag.planning import Option


class AdvisedOption(Struct, frozen=True, gc=False):
    """One declaration: the declaring fighter's chance to win (draw: half) if taken."""

    option: Option
    win_probability: float
    low: float
    high: float
    answer: Option | None  # the opponent's best answer (None when answering)


class Advice(Struct, frozen=True):
    """Every option of ``fighter`` (``role``: assaillant or défenseur), the best first found."""

    fighter: str
    role: str  # "assaillant" | "defenseur"
    after: Option | None
    options: tuple[AdvisedOption, ...]
    best: int
    rounds_left: int
    complete: bool

    def folded(self) -> tuple[FoldedOption, ...]:
        """The options as ``advise`` shows them (:func:`folded`)."""
        return folded(self)


class FoldedOption(Struct, frozen=True, gc=False):
    """Declarations that differ only by what cannot matter, as one line of ``advise``.

    "Cannot matter": the opponent's best answer is the same and the chances cannot be told
    apart (every two certified intervals overlap), so choosing among them changes neither
    the chance to win nor what the opponent does.  The members form a product (every
    combination of its ``yields``, ``allocations`` and ``techniques`` is one of them), so
    the line can name each part's alternatives: ``yield or not · defence, defence``."""

    members: tuple[int, ...]  # indices into Advice.options, in their order
    yields: tuple[bool, ...]
    allocations: tuple[tuple[str, ...], ...]
    techniques: tuple[str | None, ...]
    win_probability: float  # the highest of the members'
    low: float  # the lowest bound of the members'
    high: float  # the highest bound
    answer: Option | None


def _parts(values: list[AdvisedOption]) -> tuple[tuple[bool, ...], tuple[tuple[str, ...], ...],
                                                 tuple[str | None, ...]]:
    """Each part's alternatives, in the order they first appear."""
    yields = tuple(dict.fromkeys(v.option.yield_initiative for v in values))
    allocations = tuple(dict.fromkeys(v.option.allocation for v in values))
    techniques = tuple(dict.fromkeys(v.option.technique for v in values))
    return yields, allocations, techniques


def _foldable(values: list[AdvisedOption]) -> bool:
    """One answer, intervals that all overlap, and a product of the parts' alternatives."""
    if len({v.answer for v in values}) != 1:
        return False
    if max(v.low for v in values) > min(v.high for v in values):
        return False
    yields, allocations, techniques = _parts(values)
    return len(yields) * len(allocations) * len(techniques) == len(values)


def _mergeable(groups: list[list[int]], opts: tuple[AdvisedOption, ...]
               ) -> tuple[int, int, list[int]] | None:
    """The first two groups whose union is foldable, and the union."""
    for x in range(len(groups)):
        for y in range(x + 1, len(groups)):
            union = sorted(groups[x] + groups[y])
            if _foldable([opts[i] for i in union]):
                return x, y, union
    return None


def folded(advice: Advice) -> tuple[FoldedOption, ...]:
    """The options as ``advise`` shows them: those that differ only by what cannot matter
    (:class:`FoldedOption`) folded into one, best first (a tie: in the options' order).

    Two groups of the same answer are merged while their union is still foldable, until
    none is (the options are a few dozen: a plain search is enough)."""
    opts = advice.options
    by_answer: dict[Option | None, list[list[int]]] = {}
    for i, o in enumerate(opts):
        by_answer.setdefault(o.answer, []).append([i])
    groups: list[list[int]] = []
    for bucket in by_answer.values():
        while (pair := _mergeable(bucket, opts)) is not None:
            x, y, union = pair
            bucket[x] = union
            del bucket[y]
        groups.extend(bucket)
    out = []
    for members in groups:
        values = [opts[i] for i in members]
        yields, allocations, techniques = _parts(values)
        out.append(FoldedOption(tuple(members), yields, allocations, techniques,
                                max(v.win_probability for v in values),
                                min(v.low for v in values), max(v.high for v in values),
                                values[0].answer))
    out.sort(key=lambda g: (-g.win_probability, g.members[0]))
    return tuple(out)
