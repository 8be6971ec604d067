"""``sweep``: the JSON document, the CSV table and the picture's data (docs/json.md; docs/bench.md, "CSV").

JSON: the header, then ``engine``, ``field``, ``method`` (``exact`` | ``runs``), ``cap``,
``tolerance`` (exact) / ``runs`` (simulated), ``fighters`` (names), ``changes`` (the
``--set`` / ``--tactic`` applied to every point), ``points`` (each ``value``,
``fighters`` [{``name``, ``win_probability``, ``bounds`` or ``ci95``}], ``draw_probability``,
``rounds_mean``), ``fair`` (null without ``--fair``) and ``unchanged``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sevendag_cli.render.data import header
from sevendag_cli.render.whatif import changes_data

if TYPE_CHECKING:
    from sevendag_cli.rules.whatif import Change
    from sevendag_cli.sim.sweep import Sweep, SweepPoint

CSV_COLUMNS = ("field", "value", "fighter_1", "win_probability_1", "low_1", "high_1",
               "fighter_2", "win_probability_2", "low_2", "high_2", "draw_probability",
               "rounds_mean")
"""``sweep --csv``: one row per value; ``low``/``high``: the certified bounds (exact) or
the Wilson 95% interval (``--runs``)."""


def _fighter(f: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": f.name, "win_probability": f.win_probability}
    if f.bounds is not None:
        out["bounds"] = list(f.bounds)
    else:
        out["ci95"] = list(f.ci95)
    return out


def _point(p: SweepPoint) -> dict[str, Any]:
    return {"value": p.value, "fighters": [_fighter(f) for f in p.fighters],
            "draw_probability": p.draw_probability, "rounds_mean": p.rounds_mean}


def sweep_document(result: Sweep, names: Sequence[str], changes: Sequence[Change]) -> dict[str, Any]:
    fair = result.fair
    return {
        **header("sweep", result.ruleset, result.seed),
        "engine": result.engine,
        "field": result.field,
        "method": result.method,
        "cap": result.cap,
        "tolerance": result.tolerance,
        "runs": result.runs,
        "fighters": list(names),
        "changes": changes_data(changes),
        "points": [_point(p) for p in result.points],
        "fair": None if fair is None else {
            "value": fair.value, "win_probability": list(fair.win_probability), "gap": fair.gap,
            "between": None if fair.between is None else list(fair.between)},
        "unchanged": result.unchanged,
    }


def interval(f: Any) -> tuple[float, float]:
    """A point's interval: the certified bounds (exact) or the 95% interval (simulated)."""
    low, high = f.bounds if f.bounds is not None else f.ci95
    return float(low), float(high)


def csv_rows(result: Sweep) -> list[list[Any]]:
    rows = []
    for p in result.points:
        row: list[Any] = [result.field, p.value]
        for f in p.fighters:
            row += [f.name, f.win_probability, *interval(f)]
        rows.append([*row, p.draw_probability, p.rounds_mean])
    return rows
