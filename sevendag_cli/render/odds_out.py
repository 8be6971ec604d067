"""The odds from a moment as CSV tables (``odds --csv``, ``fight --odds --csv``) and the swing of
a fight as a picture (``fight --odds --plot``), from the records of :mod:`sevendag_cli.sim.swing`.

CSV (docs/bench.md, "CSV"), the columns of ``fight --exact --csv`` for one moment, after the
moment's place in the fight:

* ``odds``: ``round,outcome,fighter,probability,low,high`` — ``round`` the rounds
  played; one row per fighter (``outcome`` ``win``), then the draw (``draw``, no
  fighter);
* ``fight --odds``: ``round,moment,outcome,fighter,probability,low,high`` — the same
  rows for each moment in order, ``moment`` ``start`` (round 0, before the
  initiative), ``initiative`` (round 0, after it), then ``round``.

``probability`` is the mass resolved to the outcome (the certified lower bound),
``low``/``high`` its certified interval.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sevendag_cli.render.fight_out import outcome_rows

if TYPE_CHECKING:
    from sevendag_cli.sim.swing import OddsPoint, OddsSwing

ODDS_CSV_COLUMNS = ("round", "outcome", "fighter", "probability", "low", "high")
SWING_CSV_COLUMNS = ("round", "moment", "outcome", "fighter", "probability", "low", "high")


def odds_rows(p: OddsPoint) -> list[list[Any]]:
    """``odds --csv``: each fighter's odds from the saved encounter, then the draw's."""
    return [[p.round, *row] for row in outcome_rows(p)]


def swing_rows(swing: OddsSwing) -> list[list[Any]]:
    """``fight --odds --csv``: each moment's rows, in the order of the fight."""
    return [[p.round, p.moment, *row] for p in swing.points for row in outcome_rows(p)]


def plot_swing(path: str, swing: OddsSwing, lang: str, play: str | None = None) -> None:
    """Each fighter's P(win) at each moment, with its certified interval as a band; ``play``:
    who plays how, the title's second line."""
    from sevendag_cli.i18n import t
    from sevendag_cli.render import plot
    from sevendag_cli.sim.swing import START
    from sevendag_cli.text import visible

    points = swing.points
    x = [t("odds.start", lang) if p.moment == START else t("odds.init", lang) if p.round == 0
         else str(p.round) for p in points]
    curves = [plot.Curve(visible(points[0].fighters[k].name),
                         [p.fighters[k].win_probability for p in points],
                         [p.fighters[k].bounds[0] for p in points],
                         [p.fighters[k].bounds[1] for p in points]) for k in (0, 1)]
    from sevendag_cli.render.whatif import titled

    title = "odds.swing_title" if swing.cap is not None else "odds.swing_title_end"
    plot.curves(path, x, curves, title=titled(t(title, lang, cap=swing.cap,
                                                tol=swing.tolerance), play),
                x_label=t("plot.moment", lang), y_label=t("plot.p_win", lang),
                keep_ticks=[i for i, p in enumerate(points) if p.round == 0])  # start, initiative
    plot.report(path, lang)
