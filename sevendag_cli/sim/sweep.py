"""A sweep: the odds of one fight for each value of one field (``sevendag sweep``), and the
fairest value.  No CLI code here.

Each value is a what-if (:mod:`sevendag_cli.rules.whatif`): the field set on the sheet's
data, the sheet read again (about 0.2 ms a value), the fight solved.  What does not
depend on the value is done once: the files are read once (the values change a copy
of their data), the ruleset is loaded once, the solvers' per-pair tables are kept per
process (:func:`sevendag_cli.d20.chain.chain_for`, :func:`sevendag_cli.sevendag.chain.chain_for`: a value met
again reuses them), numpy and icepool are imported once.  A d20 attack's
table depends on both fighters (the defender's AC, VIG and save), so the other
fighter's tables cannot be kept across values; the time goes to the solve, which is
why d20 uses the start odds below rather than the push.

**Exact** (the default; every bundled ruleset):

* Sevendag: the push of ``fight --exact`` (:func:`.exact_fight.exact_fight`, without the
  fractions of the uncapped fight), so each point is ``fight --exact --set …``'s figures.
* d20: the odds from the fight's start as :mod:`sevendag_cli.d20.chain` computes them from any
  moment — ``P(a wins)`` of the fight played to the end, one pass over both fighters'
  hit points (as ``fight --exact`` with no round cap; with the ruleset's cap or ``--cap``,
  the cap's share bounded) — and the expected rounds by a second pass of the same kind.
  Both are certified, so a point's interval and ``fight --exact --set …``'s overlap, and
  their win probabilities agree within the tolerance.  When a cap matters (its bound is
  above the tolerance), the point is ``fight --exact``'s capped fight; a point that cannot
  be resolved within the limits stops the sweep with one line (no fair value from mass
  left unresolved).

**Simulated** (``runs``): the vectorised simulation of ``fight --runs``, with the same
seed for every value (common random numbers: the differences between values are not
drowned in the noise of different dice), each probability with its Wilson 95% interval.

**Fair**: the value whose two win probabilities are closest (``|P(a) - P(b)|``
smallest; the first such value), and, for whole-number values, the two neighbours
between which the lead changes sides.  When the same fighter leads at every whole-number
value and the closest is the first or the last, 50/50 lies beyond the range: ``beyond``
says on which side (``below`` the first value, ``above`` the last), and the displays say
to extend the range rather than name an end of it the fairest.

**Grid** (:func:`sweep_grid`, two fields): every pair of values, row by row (the first
field's values are the rows); the fair value of the second field is found in each row
(the fair curve: where 50/50 lies for each value of the first field).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from msgspec import Struct

from sevendag_cli.errors import Msg, SevendagError, UsageError
from sevendag_cli.policies import PLAIN, Policies
from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, check_tolerance

EXACT = "exact"
RUNS = "runs"


class PointFighter(Struct, frozen=True):
    name: str
    win_probability: float  # exact: the certified lower bound; runs: the share of fights won
    bounds: tuple[float, float] | None  # exact: [low, high]
    ci95: tuple[float, float] | None  # runs: Wilson 95% interval


class SweepPoint(Struct, frozen=True):
    value: Any  # as set on the sheet: a whole number, a text (a formula), true/false
    fighters: tuple[PointFighter, PointFighter]
    draw_probability: float
    rounds_mean: float
    values: tuple[Any, ...] = ()  # a grid's point: the value of each field, in order


class Fair(Struct, frozen=True):
    value: Any
    win_probability: tuple[float, float]
    gap: float  # |P(first wins) - P(second wins)|
    between: tuple[Any, Any] | None  # whole-number values on either side of where the lead changes
    beyond: str | None = None  # "below" the first value or "above" the last: 50/50 lies outside


class Sweep(Struct, frozen=True):
    ruleset: str
    engine: str
    field: str  # FIGHTER.FIELD as typed
    method: str  # EXACT or RUNS
    cap: int | None  # None: no round cap
    tolerance: float | None
    runs: int | None
    seed: int | None
    points: tuple[SweepPoint, ...]
    fair: Fair | None
    unchanged: bool  # every value gave the same odds: the field plays no part
    to_end: bool = False  # no round cap: the fights played to the end (simulated: to the safety limit)


Loader = Callable[[str], tuple[Any, ...]]
"""A value's text → (fighter a, fighter b, the value as set), and a fourth item, the ruleset of
that value, when the value changes the ruleset (``techniques.feint.attack``); without it the
sweep's ruleset."""


def sweep(ruleset: Any, field: str, values: Sequence[str], load: Loader, *, method: str = EXACT,
          cap: int | None = None, tolerance: float = DEFAULT_TOLERANCE, runs: int | None = None,
          seed: int | None = None, fair: bool = False,
          progress: Callable[[int], None] | None = None, policies: Policies = PLAIN) -> Sweep:
    """The odds of the fight ``load(value)`` gives, for each value in order (each fighter
    playing its policy)."""
    cap = ruleset.round_cap if cap is None else cap  # None: no round cap, played to the end
    if method == EXACT:
        tolerance = check_tolerance(tolerance)
    from sevendag_cli.rules.bounds import check_can_end

    pairs = [(*loaded[:3], loaded[3] if len(loaded) > 3 else ruleset)
             for loaded in (load(text) for text in values)]
    for a, b, _, rs in pairs:  # before any work, as fight: a value whose fight can never end
        check_can_end(rs, a, b)
    points = []
    for done, (a, b, value, rs) in enumerate(pairs, start=1):
        if method == EXACT:
            points.append(_exact_point(rs, a, b, value, cap, tolerance, field, policies))
        else:
            assert runs is not None and seed is not None
            points.append(_simulated_point(rs, a, b, value, cap, runs, seed, policies))
        if progress is not None:
            progress(done)
    unchanged = len(points) > 1 and all(_same(p, points[0]) for p in points[1:])
    to_end = cap is None  # no round cap: the fights played to the end (simulated: to the safety limit)
    return Sweep(ruleset.name, ruleset.engine, field, method, cap,
                 tolerance if method == EXACT else None, runs if method == RUNS else None,
                 seed if method == RUNS else None, tuple(points),
                 fairest(points) if fair else None, unchanged, to_end)


def _same(p: SweepPoint, q: SweepPoint) -> bool:
    return all(abs(x.win_probability - y.win_probability) <= 1e-12
               for x, y in zip(p.fighters, q.fighters, strict=True))


def fairest(points: Sequence[SweepPoint]) -> Fair | None:
    """The value closest to 50/50 (the first of equals), and where the lead changes sides."""
    if not points:
        return None
    gaps = [abs(p.fighters[0].win_probability - p.fighters[1].win_probability) for p in points]
    best = min(range(len(points)), key=lambda i: gaps[i])
    between = None
    lead = [p.fighters[0].win_probability - p.fighters[1].win_probability for p in points]
    for i in range(len(points) - 1):
        u, v = points[i].value, points[i + 1].value
        if isinstance(u, int) and isinstance(v, int) and not isinstance(u, bool) \
                and lead[i] * lead[i + 1] < 0:
            between = (u, v)
            break
    p = points[best]
    return Fair(p.value, (p.fighters[0].win_probability, p.fighters[1].win_probability),
                gaps[best], between, _beyond(points, lead, best))


def _beyond(points: Sequence[SweepPoint], lead: Sequence[float], best: int) -> str | None:
    """Where 50/50 lies when outside whole-number values: one fighter leads at every value
    (no tie, no change of sides) and the closest is the first (``below``) or the last (``above``)."""
    values = [p.value for p in points]
    if len(points) < 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return None
    if any(x == 0 for x in lead) or not (all(x > 0 for x in lead) or all(x < 0 for x in lead)):
        return None
    if best == len(points) - 1 and abs(lead[-1]) < abs(lead[-2]):
        return "above" if values[-1] > values[0] else "below"
    if best == 0 and abs(lead[0]) < abs(lead[1]):
        return "below" if values[0] < values[-1] else "above"
    return None


class SweepGrid(Struct, frozen=True):
    """Two fields varied together: ``points`` row by row (each with ``values``), ``rows`` the
    first field's values, ``columns`` the second's; ``fair``: per row, the fairest value of the
    second field (the fair curve), or empty without ``fair``."""

    ruleset: str
    engine: str
    fields: tuple[str, str]
    method: str
    cap: int | None  # None: no round cap
    tolerance: float | None
    runs: int | None
    seed: int | None
    rows: tuple[Any, ...]
    columns: tuple[Any, ...]
    points: tuple[SweepPoint, ...]
    fair: tuple[Fair | None, ...]
    unchanged: bool
    to_end: bool = False  # as Sweep.to_end

    @property
    def field(self) -> str:
        """Both fields, as a title names them: ``A.ac × B.ac``."""
        return f"{self.fields[0]} × {self.fields[1]}"

    def row(self, i: int) -> tuple[SweepPoint, ...]:
        n = len(self.columns)
        return self.points[i * n:(i + 1) * n]


GridLoader = Callable[[str, str], tuple[Any, ...]]
"""Two values' texts → (fighter a, fighter b, the first value as set, the second as set), and
a fifth item, the ruleset of that pair of values, as :data:`Loader`'s fourth."""


def sweep_grid(ruleset: Any, fields: tuple[str, str], values: tuple[Sequence[str], Sequence[str]],
               load: GridLoader, *, method: str = EXACT, cap: int | None = None,
               tolerance: float = DEFAULT_TOLERANCE, runs: int | None = None, seed: int | None = None,
               fair: bool = False, progress: Callable[[int], None] | None = None,
               policies: Policies = PLAIN) -> SweepGrid:
    """The odds for every pair of values of two fields (the first field's values are the rows)."""
    import msgspec

    pairs = [(x, y) for x in values[0] for y in values[1]]

    def load_pair(text: str) -> tuple[Any, ...]:
        a, b, u, v, *rs = load(*pairs[int(text)])
        return (a, b, (u, v), *rs)

    line = sweep(ruleset, fields[0], [str(i) for i in range(len(pairs))], load_pair, method=method,
                 cap=cap, tolerance=tolerance, runs=runs, seed=seed, progress=progress,
                 policies=policies)
    points = tuple(msgspec.structs.replace(p, value=p.value[1], values=p.value) for p in line.points)
    n = len(values[1])
    rows = tuple(points[i * n].values[0] for i in range(len(values[0])))
    columns = tuple(p.values[1] for p in points[:n])
    fairs = tuple(fairest(points[i * n:(i + 1) * n]) for i in range(len(rows))) if fair else ()
    return SweepGrid(line.ruleset, line.engine, fields, line.method, line.cap, line.tolerance, line.runs,
                     line.seed, rows, columns, points, fairs, line.unchanged, line.to_end)


# --- one point ---------------------------------------------------------------------------------


def _exact_point(ruleset: Any, a: Any, b: Any, value: Any, cap: int | None, tolerance: float,
                 field: str, policies: Policies = PLAIN) -> SweepPoint:
    try:
        from sevendag_cli.backend import backend_for

        start = (backend_for(ruleset).exact.start_odds(ruleset, a, b, cap, tolerance)
                 if policies == PLAIN else None)
        if start is not None:  # d20: the odds from the start (the cap's share bounded)
            names, odds, rounds_mean = start
            bounds = odds.win_bounds
            fighters = tuple(PointFighter(names[i], odds.win[i], bounds[i], None) for i in (0, 1))
            return SweepPoint(value, (fighters[0], fighters[1]), odds.draw, rounds_mean)
        kept = _kept_point(ruleset, a, b, value, cap, tolerance, policies)
        if kept is not None:
            return kept
        from sevendag_cli.sim.exact_fight import exact_fight

        result = exact_fight(ruleset, a, b, cap=cap, tolerance=tolerance, fractions=False,
                             policies=policies)
    except SevendagError as exc:
        raise UsageError(Msg("sweep.exact_refused", field=field, value=value, reason=exc.msg)) from None
    fighters = tuple(PointFighter(f.name, f.win_probability, f.bounds, None) for f in result.fighters)
    got = SweepPoint(value, (fighters[0], fighters[1]), result.draw_probability, result.rounds.mean)
    if policies != PLAIN:
        _keep_point(ruleset, a, b, cap, tolerance, policies, got)
    return got


POINTS_FOLDER = "points"
"""Where a sweep's exact points under policies are kept (``<cache>/points``): each one a
game solved, found again by the next sweep through that value."""


def _point_key(ruleset: Any, a: Any, b: Any, cap: int | None, tolerance: float,
               policies: Policies) -> str | None:
    from sevendag_cli import solver_cache
    from sevendag_cli.folders import cache_dir

    if cache_dir() is None:
        return None
    return solver_cache.work_key(POINTS_FOLDER, 1, ruleset, a, b, list(policies), cap,
                                 tolerance)


def _kept_point(ruleset: Any, a: Any, b: Any, value: Any, cap: int | None, tolerance: float,
                policies: Policies) -> SweepPoint | None:
    """An exact point under policies kept by an earlier sweep (the same sheets as edited, the
    same ruleset, policies, cap and tolerance), checked; None otherwise."""
    if policies == PLAIN:
        return None
    key = _point_key(ruleset, a, b, cap, tolerance, policies)
    if key is None:
        return None
    import msgspec

    from sevendag_cli import solver_cache

    raw = solver_cache.load(key, folder=POINTS_FOLDER, magic=b"sevendag-point\x00",
                            max_size=1 << 12)
    try:
        point = msgspec.msgpack.decode(raw, type=SweepPoint) if raw is not None else None
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if point is None or point.values != () or not all(
            f.bounds is not None and 0.0 <= f.win_probability <= f.bounds[1] <= 1.0
            for f in point.fighters) or not 0.0 <= point.draw_probability <= 1.0:
        return None
    return msgspec.structs.replace(point, value=value)


def _keep_point(ruleset: Any, a: Any, b: Any, cap: int | None, tolerance: float,
                policies: Policies, point: SweepPoint) -> None:
    key = _point_key(ruleset, a, b, cap, tolerance, policies)
    if key is not None:
        import msgspec

        from sevendag_cli import solver_cache

        solver_cache.store(key, msgspec.msgpack.encode(point), folder=POINTS_FOLDER,
                           magic=b"sevendag-point\x00")


def _simulated_point(ruleset: Any, a: Any, b: Any, value: Any, cap: int | None, runs: int,
                     seed: int, policies: Policies = PLAIN) -> SweepPoint:
    from sevendag_cli.sim.runner import simulate

    result = simulate(ruleset, a, b, runs, seed, cap=cap, policies=policies)
    if result.interrupted:
        raise KeyboardInterrupt
    fighters = tuple(PointFighter(f.name, f.win_probability, None, f.ci95) for f in result.fighters)
    return SweepPoint(value, (fighters[0], fighters[1]), result.draw_probability, result.rounds.mean)

