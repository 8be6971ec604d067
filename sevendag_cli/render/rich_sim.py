"""Rich display of simulated and exact odds: summary tables and a histogram of rounds.

The tables are shaped to fit 80 columns in both languages (and stay readable at
60): the win rates in one table, what each ruleset adds in a second one —
the d20 hit points and damage per fighter, the Sevendag wounds per band with
one column per fighter — so no cell has to hold a list, and no band name is
split over two lines.  Texts wrap under themselves (:mod:`sevendag_cli.render.layout`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from sevendag_cli.errors import Msg
from sevendag_cli.i18n import count, number, percent_sign, t
from sevendag_cli.policies import SHEET
from sevendag_cli.render.layout import print_line
from sevendag_cli.text import visible, visible_data


def w(lang: str, key: str, **kw: Any) -> str:
    return t(f"sim.{key}", lang, **kw)


def sim_table(headers: list[str], rows: list[list[Text | str]]) -> Table:
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


def render_simulation(console: Console, result: Any, lang: str, ruleset: Any,
                      policies: Sequence[str] | None = None) -> None:
    """``fight --runs``: the rounds histogram first (at most 12 rows, none of them 0.0%), then
    what each ruleset adds, the draws and rounds (under optimal play, how many fights end near
    the cap, and why), and the verdict — who wins — last, so that at 80×24 it is what stays on
    screen."""
    result, ruleset = visible_data(result), visible_data(ruleset)
    print_line(console, Text(w(lang, "runs", runs=count(result.runs, lang), seed=result.seed), "bold"))
    r = result.rounds
    histogram(console, r.histogram, w(lang, "hist"), max_rows=12, lang=lang)
    _ruleset_tables(console, result.engine, result.fighters, result.extras, lang, ruleset)
    if result.cap is not None:
        print_line(console, f"{w(lang, 'draws', cap=result.cap)}{t('colon', lang)}{count(result.draws, lang)} "
                       f"({number(result.draw_probability, '.2%', lang)})")
    elif result.unfinished:  # no round cap: fights stopped at the safety limit, not draws
        print_line(console, f"{w(lang, 'unfinished', n=result.safety_limit)}{t('colon', lang)}"
                       f"{count(result.unfinished, lang)} ({number(result.unfinished / result.runs, '.2%', lang)})")
    print_line(console, w(lang, "rounds", mean=r.mean, sd=r.sd, p50=r.p50, p90=r.p90, max=r.max))
    holding_out_lines(console, r.histogram, result.runs, result.cap, policies, lang)
    if result.first_striker_won is not None:
        print_line(console, w(lang, "firstwon", p=result.first_striker_won))
    rows: list[list[Text | str]] = [
        [Text(visible(f.name), "bold"), count(f.wins, lang), number(f.win_probability, ".2%", lang),
         f"{number(100 * f.ci95[0], '.2f', lang)}–{number(100 * f.ci95[1], '.2f', lang)}"
         + percent_sign(lang)] for f in result.fighters]
    console.print(sim_table([w(lang, col) for col in ("fighter", "wins", "p", "ci")], rows))


def _ruleset_tables(console: Console, engine: str, fighters: Any, extras: Any, lang: str,
                    ruleset: Any) -> None:
    """What the ruleset adds to the win rates (``--runs`` and ``--exact`` alike), in a second
    table drawn by its display (``extras_table``): ``extras`` is its own record
    (:class:`~sevendag_cli.sim.exact_records.Extras`, one entry per fighter)."""
    if extras is None:
        return
    from sevendag_cli.backend import backend_named

    draw = backend_named(engine).display().extras_table
    if draw is not None:
        draw(console, fighters, extras, lang, ruleset)


def histogram(console: Console, bins: Any, title: str, width: int = 40, max_rows: int = 24,
              lang: str = "en") -> None:
    """Bars of fights (or probabilities) per number of rounds, grouped into ranges when there
    are many values; the rarest rounds at either end (what would show as 0.0%, together under
    0.05%) are left out, and a line says so.

    The bars are at most ``width`` cells, less on a narrow console.
    """
    counts = {int(k): float(v) for k, v in bins}
    if not counts:
        return
    whole = sum(counts.values()) or 1
    trimmed = 0.0
    for pick in (min, max):  # the ends that would show as 0.0%: left out, and said
        while len(counts) > 1 and (counts[pick(counts)] + trimmed) / whole < 5e-4:
            trimmed += counts.pop(pick(counts))
    lo, hi = min(counts), max(counts)
    step = max(1, -(-(hi - lo + 1) // max_rows))  # ceiling division
    rows: list[tuple[str, float]] = []
    for start in range(lo, hi + 1, step):
        end = min(hi, start + step - 1)
        total_bin = sum(counts.get(k, 0) for k in range(start, end + 1))
        rows.append((str(start) if start == end else f"{start}–{end}", total_bin))
    while len(rows) > 1 and rows[-1][1] / whole < 5e-4:  # a last range that would show 0.0%
        trimmed += rows.pop()[1]
    while len(rows) > 1 and rows[0][1] / whole < 5e-4:
        trimmed += rows.pop(0)[1]
    peak = max(v for _, v in rows) or 1
    pad = max(len(name) for name, _ in rows)
    width = max(10, min(width, console.width - pad - 8))
    print_line(console, Text(title, "bold underline"))
    for name, v in rows:
        bar = "█" * max(1 if v else 0, round(width * v / peak))
        console.print(Text.assemble(f"{name:>{pad}} ", (bar, "cyan"), f" {number(v / whole, '.1%', lang)}"),
                      soft_wrap=True)
    if trimmed:
        print_line(console, Text(t("sim.hist_trimmed", lang), "dim"))


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


def policies_line(console: Console, names: Sequence[str], policies: Sequence[str] | None,
                  lang: str, engine: str | None = None) -> None:
    """How each fighter plays: with ``engine``, always where the rules leave choices (``play:
    both on their sheets`` too: the odds' assumption); without, only when one plays optimally
    (the step-by-step fight, whose rounds show every declaration)."""
    if engine is not None:
        from sevendag_cli.render.whatif import play_words

        said = play_words(engine, names, policies, lang)
        if said is not None:
            print_line(console, said)
        return
    if policies is None or all(p == SHEET for p in policies):
        return
    who = ", ".join(w(lang, f"policy.{p}", name=visible(n))
                    for n, p in zip(names, policies, strict=True))
    print_line(console, w(lang, "policies", who=who))


HOLDING_OUT = 0.01
"""Under optimal play, the share of fights ending in the last tenth of the rounds before the
cap (draws included) from which the display says why fights last that long."""


def near_cap_share(histogram: Any, total: float, cap: int) -> tuple[int, float]:
    """The first round of the cap's last tenth, and the share of fights ending there or at
    the cap (the histogram counts a fight still going at the cap, a draw, at the cap)."""
    start = cap - cap // 10 + 1
    return start, sum(float(v) for k, v in histogram if int(k) >= start) / (total or 1)


def holding_out_lines(console: Console, histogram: Any, total: float, cap: int,
                      policies: Sequence[str] | None, lang: str) -> None:
    """Under optimal play, when 1% or more of the fights end near the cap: how many, and why
    (a win counts whenever it comes, a draw half: a side may hold out while many rounds
    remain)."""
    if policies is None or all(p == SHEET for p in policies) or cap < 10:
        return
    start, share = near_cap_share(histogram, total, cap)
    if share < HOLDING_OUT:
        return
    print_line(console, w(lang, "near_cap", start=start, cap=cap, p=share))
    print_line(console, Text(w(lang, "holding_out"), "dim"), hang=2)


def exploitability_lines(console: Console, e: Any, lang: str) -> None:
    """``fight --exact``: what each sheet gives away against optimal play (or why it was not
    computed: a :class:`~sevendag_cli.errors.Msg`)."""
    if isinstance(e, Msg):
        print_line(console, Text(e.render(lang), "dim"))
        return
    if e is None or not any(g > 0 for g in e.gives_away):
        return
    print_line(console, w(lang, "exploit_title"))
    for i in (0, 1):
        print_line(console, w(lang, "exploit_line", name=visible(e.names[i]), pts=100 * e.gives_away[i],
                              other=visible(e.names[1 - i]), br=e.best_response[i],
                              sv=e.sheet_value[1 - i]))
    print_line(console, Text(w(lang, "exploit_value", tol=e.tolerance), "dim"))


def render_exact(console: Console, result: Any, lang: str, ruleset: Any = None,
                 policies: Sequence[str] | None = None, exploitability: Any = None) -> None:
    """``fight --exact``: the ``--runs`` tables, with the exact interval where the 95% interval was."""
    from sevendag_cli.render.sim_data import exact_note

    result, ruleset = visible_data(result), visible_data(ruleset)
    end = result.solver == "end"  # d20 played to the end: no cap in these odds
    title = w(lang, "exact_title_end" if end else "exact_title", cap=result.cap, tol=result.tolerance)
    print_line(console, Text(title, "bold"))
    policies_line(console, [f.name for f in result.fighters], policies, lang, result.engine)
    rows: list[list[Text | str]] = [
        [Text(visible(f.name), "bold"), number(f.win_probability, ".4%", lang),
         _interval(f.bounds[0], f.bounds[1], lang)]
        for f in result.fighters]
    console.print(sim_table([w(lang, col) for col in ("fighter", "p", "p_exact")], rows))
    _ruleset_tables(console, result.engine, result.fighters, result.extras, lang, ruleset)
    if not end:
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
    if bars:
        histogram(console, bars, w(lang, "hist"), lang=lang)
    if rest > 0:
        print_line(console, w(lang, "after", p=rest, n=bars[-1][0] if bars else 0))
    if r.tail > 0:
        key = "tail_rounds" if result.solver == "end" else "tail"
        print_line(console, w(lang, key, p=r.tail, n=r.histogram[-1][0] if r.histogram else 0))
    if not end:
        holding_out_lines(console, r.histogram, 1.0, result.cap, policies, lang)
    fr = result.fractions
    if fr is not None:
        for f, p in zip(result.fighters, fr.win_probability, strict=True):
            text = str(p)
            brief = text if len(text) <= MAX_FRACTION else w(lang, "fraction", n=len(text.partition("/")[2]))
            print_line(console, w(lang, "fraction_line", name=visible(f.name), p=brief))
    exploitability_lines(console, exploitability, lang)
    for note in exact_note(result):
        print_line(console, Text(note.render(lang), "dim"))
