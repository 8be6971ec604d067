"""``sweep``: the JSON document, the CSV table and the picture's data (docs/json.md; docs/bench.md, "CSV").

JSON: the header, then ``engine``, ``field``, ``method`` (``exact`` | ``runs``), ``cap``,
``tolerance`` (exact) / ``runs`` (simulated), ``fighters`` (names), ``changes`` (the
``--set`` / ``--tactic`` applied to every point), ``points`` (each ``value``,
``fighters`` [{``name``, ``win_probability``, ``bounds`` or ``ci95``}], ``draw_probability``,
``rounds_mean``, ``values`` {FIELD: VALUE}), ``fair`` (null without ``--fair``; ``beyond``:
``above``/``below`` when 50/50 lies outside the range) and ``unchanged``.

A grid (two ``--vary``) keeps those keys where they mean the same and adds ``fields``,
``rows`` and ``columns`` (the two fields' values); ``field`` is ``F1 × F2``, each point has
``values`` {F1: V1, F2: V2} (and ``value``: V2), ``fair`` is null and ``fair_curve`` lists, per
value of F1, the fairest value of F2 (``--fair``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sevendag_cli.policies import PLAIN, policies_data
from sevendag_cli.render.data import header
from sevendag_cli.render.whatif import changes_data

if TYPE_CHECKING:
    from sevendag_cli.rules.whatif import Change
    from sevendag_cli.sim.sweep import Fair, Sweep, SweepGrid, SweepPoint

CSV_COLUMNS = ("field", "value", "fighter_1", "win_probability_1", "low_1", "high_1",
               "fighter_2", "win_probability_2", "low_2", "high_2", "draw_probability",
               "rounds_mean", "method")
"""``sweep --csv``: one row per value; ``low``/``high``: the certified bounds (exact) or
the Wilson 95% interval (``--runs``); ``method``: ``exact`` or ``runs``, as ``matrix``'s."""
GRID_CSV_COLUMNS = ("field_1", "value_1", "field_2", "value_2", *CSV_COLUMNS[2:])
"""``sweep --csv`` with two ``--vary``: one row per pair of values, the rows of the grid in order."""


def sweep_title(result: Sweep | SweepGrid, lang: str) -> str:
    """The display's and the picture's title: what was varied, and how the odds were obtained
    (the fights played to the end, a ruleset with no round cap, name none)."""
    from sevendag_cli.i18n import count, t
    from sevendag_cli.text import visible

    field = visible(result.field)
    if result.method == "exact":
        return t("sweep.title_exact_end" if result.to_end else "sweep.title_exact", lang,
                 field=field, cap=result.cap, tol=result.tolerance or 0.0)
    return t("sweep.title_runs_end" if result.to_end else "sweep.title_runs", lang, field=field,
             runs=count(result.runs or 0, lang), seed=result.seed, cap=result.cap)


def _fighter(f: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": f.name, "win_probability": f.win_probability}
    if f.bounds is not None:
        out["bounds"] = list(f.bounds)
    else:
        out["ci95"] = list(f.ci95)
    return out


def _point(p: SweepPoint, fields: Sequence[str]) -> dict[str, Any]:
    values = p.values or (p.value,)
    return {"value": p.value, "fighters": [_fighter(f) for f in p.fighters],
            "draw_probability": p.draw_probability, "rounds_mean": p.rounds_mean,
            "values": dict(zip(fields, values, strict=True))}


def _fair(fair: Fair | None) -> dict[str, Any] | None:
    return None if fair is None else {
        "value": fair.value, "win_probability": list(fair.win_probability), "gap": fair.gap,
        "between": None if fair.between is None else list(fair.between), "beyond": fair.beyond}


def sweep_document(result: Sweep | SweepGrid, names: Sequence[str],
                   changes: Sequence[Change], policies: Sequence[str] = PLAIN) -> dict[str, Any]:
    from sevendag_cli.sim.sweep import SweepGrid

    if isinstance(result, SweepGrid):
        return grid_document(result, names, changes, policies)
    return _document(result, names, changes, policies, (result.field,), _fair(result.fair))


def _document(result: Sweep | SweepGrid, names: Sequence[str], changes: Sequence[Change],
              policies: Sequence[str], fields: tuple[str, ...],
              fair: dict[str, Any] | None) -> dict[str, Any]:
    """The keys every sweep document has, in their order (``fields``: what each point's
    ``values`` name)."""
    return {
        **header("sweep", result.ruleset, result.seed),
        "engine": result.engine,
        "field": result.field,
        "method": result.method,
        "cap": result.cap,
        "played_to_end": result.to_end,
        "tolerance": result.tolerance,
        "runs": result.runs,
        "fighters": list(names),
        "policies": policies_data(names, policies),
        "changes": changes_data(changes),
        "points": [_point(p, fields) for p in result.points],
        "fair": fair,
        "unchanged": result.unchanged,
    }


def grid_document(result: SweepGrid, names: Sequence[str], changes: Sequence[Change],
                  policies: Sequence[str] = PLAIN) -> dict[str, Any]:
    """Two ``--vary``: the one-field document's keys, and the grid's (see the module)."""
    return {
        **_document(result, names, changes, policies, result.fields, None),
        "fields": list(result.fields),
        "rows": list(result.rows),
        "columns": list(result.columns),
        "fair_curve": [{"values": {result.fields[0]: row}, "fair": _fair(f)}
                       for row, f in zip(result.rows if result.fair else (), result.fair,
                                         strict=True)],  # without --fair: empty, as the schema says
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
        rows.append([*row, p.draw_probability, p.rounds_mean, result.method])
    return rows


def grid_csv_rows(result: SweepGrid) -> list[list[Any]]:
    rows = []
    for p in result.points:
        row: list[Any] = [result.fields[0], p.values[0], result.fields[1], p.values[1]]
        for f in p.fighters:
            row += [f.name, f.win_probability, *interval(f)]
        rows.append([*row, p.draw_probability, p.rounds_mean, result.method])
    return rows


def fair_curve(result: SweepGrid) -> list[tuple[float, float]]:
    """Where 50/50 lies in each row of the grid, as (column position, row position): between the
    two columns where the lead changes sides, by linear interpolation; rows without one are left out."""
    out = []
    for i in range(len(result.rows)):
        lead = [p.fighters[0].win_probability - p.fighters[1].win_probability for p in result.row(i)]
        for j in range(len(lead)):
            if lead[j] == 0:
                out.append((float(j), float(i)))
                break
            if j + 1 < len(lead) and lead[j] * lead[j + 1] < 0:
                out.append((j + lead[j] / (lead[j] - lead[j + 1]), float(i)))
                break
    return out
