"""``fight --runs`` and ``fight --exact`` as a CSV table and as a picture of the rounds.

CSV (``--csv``), the same columns for both, so that a simulation and the exact odds
line up (docs/bench.md, "CSV")::

    outcome,fighter,probability,low,high,fights,method

one row per fighter (``outcome`` ``win``) then the draw (``draw``, no fighter):
``probability`` is the share of fights won (``--runs``) or the certified lower bound
(``--exact``); ``low``/``high`` the Wilson 95% interval (``--runs``) or the certified
bounds (``--exact``); ``fights`` the count (``--runs``; empty for ``--exact``); ``method``
how the numbers were obtained, ``runs`` or ``exact``, as in ``matrix`` and ``sweep``.

Picture (``--plot``): the rounds distribution, P(the fight lasts t rounds) per t.
"""

from __future__ import annotations

from typing import Any

FIGHT_CSV_COLUMNS = ("outcome", "fighter", "probability", "low", "high", "fights", "method")


def runs_rows(result: Any) -> list[list[Any]]:
    """``--runs``: each fighter's wins, then the draws, with Wilson 95% intervals."""
    from sevendag_cli.sim.stats import wilson

    rows: list[list[Any]] = [["win", f.name, f.win_probability, f.ci95[0], f.ci95[1], f.wins, "runs"]
                             for f in result.fighters]
    low, high = wilson(result.draws, result.runs)
    rows.append(["draw", None, result.draw_probability, low, high, result.draws, "runs"])
    return rows


def outcome_rows(odds: Any) -> list[list[Any]]:
    """``outcome,fighter,probability,low,high`` of certified odds (``fight --exact``, or the odds
    from one moment): each fighter's win, then the draw."""
    rows: list[list[Any]] = [["win", f.name, f.win_probability, f.bounds[0], f.bounds[1]]
                             for f in odds.fighters]
    low, high = odds.draw_bounds
    rows.append(["draw", None, odds.draw_probability, low, high])
    return rows


def exact_rows(result: Any) -> list[list[Any]]:
    """``--exact``: each fighter's certified interval, then the draw's (no count of fights)."""
    return [[*row, None, "exact"] for row in outcome_rows(result)]


def plot_rounds(path: str, histogram: Any, total: float, title: str, lang: str,
                fighters: Any = None) -> None:
    """The rounds distribution: ``histogram`` as (rounds, weight) pairs, ``total`` the weight of all;
    with ``fighters`` (their ``win_probability`` and ``ci95`` or ``bounds``), who wins beside it."""
    from sevendag_cli.i18n import t
    from sevendag_cli.render import plot
    from sevendag_cli.text import visible

    pairs = [(int(r), float(w) / total) for r, w in histogram] if total else []
    if fighters is None:
        plot.bars(path, [r for r, _ in pairs], [p for _, p in pairs], title=title,
                  x_label=t("plot.rounds", lang), y_label=t("plot.p_rounds", lang))
    else:
        winners = []
        for f in fighters:
            low, high = f.ci95 if getattr(f, "ci95", None) is not None else f.bounds
            winners.append((visible(f.name), float(f.win_probability), float(low), float(high)))
        plot.rounds_and_winners(path, [r for r, _ in pairs], [p for _, p in pairs], winners, title=title,
                                x_label=t("plot.rounds", lang), y_label=t("plot.p_rounds", lang),
                                win_label=t("plot.p_win", lang))
    plot.report(path, lang)
