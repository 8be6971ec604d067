"""``matrix`` as a CSV table and as a heat map (``--csv``, ``--plot``), from the :class:`Roster`.

CSV (docs/bench.md, "CSV"), long format: one row per ordered pair, in ranking order (the row's
fighter, then its opponents in ranking order; no row for the diagonal)::

    row_rank,row,column_rank,column,method,win_probability,low,high,draw_probability,unresolved

``win_probability`` is P(row beats column) in the fight where the row's fighter is
named first (exact: the certified lower bound; simulated: the share of fights won),
``low``/``high`` the certified interval or the Wilson 95% interval, ``method`` ``exact``
or ``runs``, ``unresolved`` the interval's width (exact; 0 when simulated).  With
``--exploit``, three more columns: ``gives_away`` (what the row's sheet gives away against
the column's optimal answer) and its certified ``gives_away_low``/``gives_away_high``.

Picture (``--plot``): the N×N heat map of P(row beats column), red (0) through white (0.5)
to blue (1) (``RdBu``, as the display's colours), the diagonal blank, names as labels, a
simulated cell marked ``~``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sevendag_cli.sim.roster import Roster

MATRIX_CSV_COLUMNS = ("row_rank", "row", "column_rank", "column", "method", "win_probability",
                      "low", "high", "draw_probability", "unresolved")
EXPLOIT_CSV_COLUMNS = ("gives_away", "gives_away_low", "gives_away_high")
"""The columns ``--exploit`` adds (after the others)."""


def matrix_columns(roster: Roster) -> tuple[str, ...]:
    """The CSV's header: the exploitability columns only when asked."""
    return MATRIX_CSV_COLUMNS + (EXPLOIT_CSV_COLUMNS if roster.exploit else ())


def matrix_rows(roster: Roster) -> list[list[Any]]:
    """One row per ordered pair (``cells[i][j]``, i ≠ j), rows then columns in ranking order."""
    names = roster.names
    rows: list[list[Any]] = []
    for i, line in enumerate(roster.cells):
        for j, c in enumerate(line):
            if c is None or i == j:
                continue
            row: list[Any] = [i + 1, names[i], j + 1, names[j], c.method, c.win, c.bounds[0],
                              c.bounds[1], c.draw, c.unresolved]
            if roster.exploit:
                g = c.gives_away
                row += ([None, None, None] if g is None else [g.value, g.bounds[0], g.bounds[1]])
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

    values = [[None if c is None or i == j else points(c.gives_away) for j, c in enumerate(row)]
              for i, row in enumerate(roster.cells)]
    means = [points(s.gives_away) for s in roster.standings]
    return plot.HeatPanel(values, t("matrix.exploit_title", lang), t("plot.exploit_points", lang),
                          extra=(t("matrix.mean", lang), means))


def plot_matrix(path: str, roster: Roster, lang: str) -> None:
    """The heat map of the table, its title the display's (what was computed, and how)."""
    from sevendag_cli.i18n import count, t
    from sevendag_cli.render import plot
    from sevendag_cli.render.matrix_data import method_line
    from sevendag_cli.sim.roster import MIXED, RUNS
    from sevendag_cli.text import visible

    names = [visible(n) for n in roster.names]
    n = len(names)
    lines = [t("matrix.title", lang, n=n, pairs=count(n * (n - 1), lang),
               ruleset=visible(roster.ruleset))]
    lines.append(method_line(roster, lang))
    if roster.method == MIXED:
        lines.append(t("plot.matrix_simulated", lang, n=roster.simulated,
                       runs=count(roster.runs or 0, lang)))
    from sevendag_cli.render.matrix_data import policies_text

    said = policies_text(roster, names, lang)  # who plays how
    if said is not None:
        lines.append(said)
    values = [[None if c is None or i == j else c.win for j, c in enumerate(row)]
              for i, row in enumerate(roster.cells)]
    marked = [[roster.method == MIXED and c is not None and c.method == RUNS for c in row]
              for row in roster.cells]
    mean = t("matrix.mean", lang)
    plot.heat_map(path, names, names, values, title="\n".join(lines),
                  value_label=t("plot.p_row", lang), marked=marked,
                  extra=(mean, [s.mean for s in roster.standings]), below=_exploit_panel(roster, lang))
    plot.report(path, lang)
