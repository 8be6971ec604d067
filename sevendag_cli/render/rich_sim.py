"""Rich display of simulated and exact odds: summary tables and a histogram of rounds.

The tables are shaped to fit 80 columns in both languages (and stay readable at
60): the win rates in one table, what each ruleset adds in a second one —
the d20 hit points and damage per fighter, the Sevendag wounds per band with
one column per fighter — so no cell has to hold a list, and no band name is
split over two lines.  Texts wrap under themselves (:mod:`sevendag_cli.render.layout`).
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from sevendag_cli.i18n import count, label, number, percent_sign, t
from sevendag_cli.render.layout import print_line
from sevendag_cli.text import visible, visible_data


def w(lang: str, key: str, **kw: Any) -> str:
    return t(f"sim.{key}", lang, **kw)


def _table(headers: list[str], rows: list[list[Text | str]]) -> Table:
    """Names left-aligned, numbers right-aligned; a narrow console wraps the headers at their
    spaces, never a cell (each column is as wide as its widest cell and its longest word)."""
    table = Table()
    for i, header in enumerate(headers):
        cells = [cell if isinstance(cell, Text) else Text(cell) for cell in (r[i] for r in rows)]
        widest = max([c.cell_len for c in cells] + [len(word) for word in header.split()])
        table.add_column(header, justify="left" if i == 0 else "right", min_width=widest)
    for row in rows:
        table.add_row(*row)
    return table


def render_simulation(console: Console, result: Any, lang: str, ruleset: Any) -> None:
    result, ruleset = visible_data(result), visible_data(ruleset)
    print_line(console, Text(w(lang, "runs", runs=count(result.runs, lang), seed=result.seed), "bold"))
    rows: list[list[Text | str]] = [
        [Text(visible(f.name), "bold"), count(f.wins, lang), number(f.win_probability, ".2%", lang),
         f"{number(100 * f.ci95[0], '.2f', lang)}–{number(100 * f.ci95[1], '.2f', lang)}"
         + percent_sign(lang)] for f in result.fighters]
    console.print(_table([w(lang, col) for col in ("fighter", "wins", "p", "ci")], rows))
    _ruleset_tables(console, result.fighters, result.d20.fighters if result.d20 is not None else None,
                    result.sevendag.fighters if result.sevendag is not None else None, lang, ruleset)
    print_line(console, f"{w(lang, 'draws', cap=result.cap)}{t('colon', lang)}{count(result.draws, lang)} "
                   f"({number(result.draw_probability, '.2%', lang)})")
    r = result.rounds
    print_line(console, w(lang, "rounds", mean=r.mean, sd=r.sd, p50=r.p50, p90=r.p90, max=r.max))
    if result.first_striker_won is not None:
        print_line(console, w(lang, "firstwon", p=result.first_striker_won))
    histogram(console, r.histogram, w(lang, "hist"), lang=lang)


def _ruleset_tables(console: Console, fighters: Any, d20: Any, sevendag: Any, lang: str,
                    ruleset: Any) -> None:
    """What each ruleset adds to the win rates (``--runs`` and ``--exact`` alike): the d20 hit
    points left and damage dealt per fighter, or the Sevendag wounds per band, one column per
    fighter (so no band name is split)."""
    if d20 is not None:
        rows: list[list[Text | str]] = [
            [Text(visible(f.name), "bold"),
             f"{number(ex.hp_left_when_winning.mean, '.1f', lang)} ± "
             f"{number(ex.hp_left_when_winning.sd, '.1f', lang)}",
             number(ex.damage_dealt, ".1f", lang)] for f, ex in zip(fighters, d20, strict=True)]
        console.print(_table([w(lang, "fighter"), w(lang, "hp"), w(lang, "dealt")], rows))
    elif sevendag is not None:
        per_fighter = [{b.band: b.mean for b in ex.wounds} for ex in sevendag]
        rows = []
        for name in (list(per_fighter[0]) if per_fighter else []):
            band = ruleset.band_named(name) if hasattr(ruleset, "band_named") else None
            rows.append([visible(label(band.label, lang) if band else name),
                         *(number(means.get(name, 0.0), ".2f", lang) for means in per_fighter)])
        headers = [w(lang, "wounds"), *(visible(f.name) for f in fighters)]
        console.print(_table(headers, rows))


def histogram(console: Console, bins: Any, title: str, width: int = 40, max_rows: int = 24,
              lang: str = "en") -> None:
    """Bars of fights (or probabilities) per number of rounds, grouped into ranges when there
    are many values.

    The bars are at most ``width`` cells, less on a narrow console.
    """
    counts = {int(k): float(v) for k, v in bins}
    if not counts:
        return
    lo, hi = min(counts), max(counts)
    step = max(1, -(-(hi - lo + 1) // max_rows))  # ceiling division
    rows: list[tuple[str, float]] = []
    for start in range(lo, hi + 1, step):
        end = min(hi, start + step - 1)
        total_bin = sum(counts.get(k, 0) for k in range(start, end + 1))
        rows.append((str(start) if start == end else f"{start}–{end}", total_bin))
    peak = max(v for _, v in rows) or 1
    total = sum(v for _, v in rows) or 1
    pad = max(len(name) for name, _ in rows)
    width = max(10, min(width, console.width - pad - 8))
    print_line(console, Text(title, "bold underline"))
    for name, v in rows:
        bar = "█" * max(1 if v else 0, round(width * v / peak))
        console.print(Text.assemble(f"{name:>{pad}} ", (bar, "cyan"), f" {number(v / total, '.1%', lang)}"),
                      soft_wrap=True)


MAX_FRACTION = 30
"""Longest exact fraction shown in the table; longer ones are in the JSON."""


def _interval(low: float, high: float, lang: str = "en") -> str:
    """A certified interval as percentages: the fewest decimals (2 to 8) that tell its ends
    apart, or one value when they agree to 8 decimals (the JSON has every digit)."""
    if low == 0.0 and 0.0 < high < 1e-6:
        return f"0–{number(high, '.1e', lang)}"
    percent = percent_sign(lang)
    for digits in range(2, 9):
        a, b = number(100 * low, f".{digits}f", lang), number(100 * high, f".{digits}f", lang)
        if a != b:
            return f"{a}–{b}{percent}"
    return f"{a}{percent}"


def render_exact(console: Console, result: Any, lang: str, ruleset: Any = None) -> None:
    """``fight --exact``: the ``--runs`` tables, with the exact interval where the 95% interval was."""
    from sevendag_cli.render.sim_data import exact_note

    result, ruleset = visible_data(result), visible_data(ruleset)
    print_line(console, Text(w(lang, "exact_title", cap=result.cap, tol=result.tolerance), "bold"))
    rows: list[list[Text | str]] = [
        [Text(visible(f.name), "bold"), number(f.win_probability, ".4%", lang),
         _interval(f.bounds[0], f.bounds[1], lang)]
        for f in result.fighters]
    console.print(_table([w(lang, col) for col in ("fighter", "p", "p_exact")], rows))
    _ruleset_tables(console, result.fighters, result.d20, result.sevendag, lang, ruleset)
    print_line(console, f"{w(lang, 'draws', cap=result.cap)}{t('colon', lang)}"
                   f"{_interval(result.draw_bounds[0], result.draw_bounds[1], lang)}")
    r = result.rounds
    print_line(console, w(lang, "rounds_exact", mean=r.mean, sd=r.sd, p50=r.p50, p90=r.p90))
    if result.first_striker_won is not None:
        print_line(console, w(lang, "firstwon_exact", p=result.first_striker_won))
    # The display stops where the rest would show as 0.0%; the JSON has every round.
    bars = list(r.histogram)
    rest = r.tail
    while len(bars) > 1 and rest + bars[-1][1] < 5e-5:
        rest += bars.pop()[1]
    histogram(console, bars, w(lang, "hist"), lang=lang)
    if rest > 0:
        print_line(console, w(lang, "after", p=rest, n=bars[-1][0] if bars else 0))
    if r.tail > 0:
        print_line(console, w(lang, "tail", p=r.tail, n=r.histogram[-1][0] if r.histogram else 0))
    fr = result.fractions
    if fr is not None:
        for f, p in zip(result.fighters, fr.win_probability, strict=True):
            text = str(p)
            brief = text if len(text) <= MAX_FRACTION else w(lang, "fraction", n=len(text.partition("/")[2]))
            print_line(console, w(lang, "fraction_line", name=visible(f.name), p=brief))
    for note in exact_note(result):
        print_line(console, Text(note.render(lang), "dim"))
