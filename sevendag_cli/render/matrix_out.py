"""``matrix`` as a CSV table and as a heat map (``--csv``, ``--plot``), from the :class:`Roster`.

CSV (docs/bench.md, "CSV"), long format: one row per ordered pair, in ranking order (the row's
fighter, then its opponents in ranking order; no row for the diagonal)::

    row_rank,row,column_rank,column,method,win_probability,low,high,draw_probability,unresolved

``win_probability`` is P(row beats column) in the fight where the row's fighter is
named first (exact: the certified lower bound; simulated: the share of fights won),
``low``/``high`` the certified interval or the Wilson 95% interval, ``method`` ``exact``
or ``runs``, ``unresolved`` the interval's width (exact; 0 when simulated).  With
``--exploit``, three more columns: ``gives_away`` (what the row's sheet gives away against
the column's optimal answer) and its certified ``gives_away_low``/``gives_away_high``.  A
table with some figure not computed (a pair beyond the solvers' bounds even to simulate:
``method`` ``not_computed``, its numbers empty; or, ``--exploit``, a game beyond its bounds:
the ``gives_away`` columns empty) has two more, last: ``why_key`` and ``why``, the reason of a
row's empty fields (else of its simulation in an exact table; else empty).

Picture (``--plot``): the N×N heat map of P(row beats column), red (0) through white (0.5)
to blue (1) (``RdBu``, as the display's colours), the diagonal blank, names as labels, a
simulated cell marked ``~``, a cell not computed grey and hatched, with no number.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sevendag_cli.errors import Msg
    from sevendag_cli.sim.roster import Cell, Roster

MATRIX_CSV_COLUMNS = ("row_rank", "row", "column_rank", "column", "method", "win_probability",
                      "low", "high", "draw_probability", "unresolved")
EXPLOIT_CSV_COLUMNS = ("gives_away", "gives_away_low", "gives_away_high")
"""The columns ``--exploit`` adds (after the others)."""
WHY_CSV_COLUMNS = ("why_key", "why")
"""The columns a table with some figure not computed adds (last)."""


def _with_why(roster: Roster) -> bool:
    return bool(roster.holes or roster.exploit_holes)


def matrix_columns(roster: Roster) -> tuple[str, ...]:
    """The CSV's header: the exploitability columns only when asked, the reasons only when
    some figure was not computed."""
    return (MATRIX_CSV_COLUMNS + (EXPLOIT_CSV_COLUMNS if roster.exploit else ())
            + (WHY_CSV_COLUMNS if _with_why(roster) else ()))


def _why(c: Cell) -> Msg | None:
    """The reason of a row's empty fields, else of its simulation in an exact table."""
    from sevendag_cli.render.matrix_data import exploit_why

    return exploit_why(c) or c.why


def matrix_rows(roster: Roster, lang: str = "en") -> list[list[Any]]:
    """One row per ordered pair (``cells[i][j]``, i ≠ j), rows then columns in ranking order;
    a cell not computed has its numbers empty (None)."""
    names = roster.names
    why = _with_why(roster)
    rows: list[list[Any]] = []
    for i, line in enumerate(roster.cells):
        for j, c in enumerate(line):
            if c is None or i == j:
                continue
            low, high = (None, None) if c.bounds is None else c.bounds
            row: list[Any] = [i + 1, names[i], j + 1, names[j], c.method, c.win, low, high,
                              c.draw, c.unresolved]
            if roster.exploit:
                g = c.gives_away
                row += ([None, None, None] if g is None else [g.value, g.bounds[0], g.bounds[1]])
            if why:
                said = _why(c)
                row += [None, None] if said is None else [said.key, said.render(lang)]
            rows.append(row)
    return rows


def _exploit_panel(roster: Roster, lang: str) -> Any:
    """``--exploit``: what each row's sheet gives away, in points, as a second grid (None when
    not asked, or where the rules leave no choice)."""
    from sevendag_cli.backend import backend_named
    from sevendag_cli.i18n import t
    from sevendag_cli.render import plot

    if not roster.exploit or not backend_named(roster.engine).has_choices():
        return None

    def points(g: Any) -> float | None:
        return None if g is None else 100 * g.value

    from sevendag_cli.render.matrix_data import exploit_why

    values = [[None if c is None or i == j else points(c.gives_away) for j, c in enumerate(row)]
              for i, row in enumerate(roster.cells)]
    means = [points(s.gives_away) for s in roster.standings]
    missing = [[c is not None and exploit_why(c) is not None for c in row] for row in roster.cells]
    return plot.HeatPanel(values, t("matrix.exploit_title", lang), t("plot.exploit_points", lang),
                          extra=(t("matrix.mean", lang), means), missing=missing)


def plot_matrix(path: str, roster: Roster, lang: str) -> None:
    """The heat map of the table, its title the display's (what was computed, and how)."""
    from sevendag_cli.i18n import count, t
    from sevendag_cli.render import plot
    from sevendag_cli.render.matrix_data import method_line
    from sevendag_cli.sim.roster import RUNS, RosterHole
    from sevendag_cli.text import visible

    names = [visible(n) for n in roster.names]
    n = len(names)
    lines = [t("matrix.title", lang, n=n, pairs=count(n * (n - 1), lang),
               ruleset=visible(roster.ruleset))]
    lines.append(method_line(roster, lang))
    if roster.some_simulated:
        lines.append(t("plot.matrix_simulated", lang, n=roster.simulated,
                       runs=count(roster.runs or 0, lang)))
    if roster.holes:
        lines.append(t("plot.matrix_holes", lang, n=len(roster.holes)))
    from sevendag_cli.render.matrix_data import policies_text

    said = policies_text(roster, names, lang)  # who plays how
    if said is not None:
        lines.append(said)
    values = [[None if c is None or i == j else c.win for j, c in enumerate(row)]
              for i, row in enumerate(roster.cells)]
    marked = [[roster.some_simulated and c is not None and c.method == RUNS for c in row]
              for row in roster.cells]
    missing = [[isinstance(c, RosterHole) for c in row] for row in roster.cells]
    mean = t("matrix.mean", lang)
    plot.heat_map(path, names, names, values, title="\n".join(lines),
                  value_label=t("plot.p_row", lang), marked=marked, missing=missing,
                  extra=(mean, [s.mean for s in roster.standings]), below=_exploit_panel(roster, lang))
    plot.report(path, lang)
