"""Rich display of simulated and exact odds: a summary table and a histogram of rounds."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from sevendag_cli.i18n import label, t


def w(lang: str, key: str, **kw: Any) -> str:
    return t(f"sim.{key}", lang, **kw)


def render_simulation(console: Console, result: Any, lang: str, ruleset: Any) -> None:
    console.print(Text(w(lang, "runs", runs=result.runs, seed=result.seed), "bold"))
    table = Table()
    for col in ("fighter", "wins", "p", "ci"):
        table.add_column(w(lang, col), justify="left" if col == "fighter" else "right")
    extra_cols: list[str] = []
    if result.d20 is not None:
        extra_cols = ["hp", "dealt"]
    elif result.sevendag is not None:
        extra_cols = ["wounds"]
    for col in extra_cols:
        table.add_column(w(lang, col), justify="right")
    for i, f in enumerate(result.fighters):
        row: list[Text | str] = [Text(f.name, "bold"), f"{f.wins:,}", f"{f.win_probability:.2%}",
               f"{100 * f.ci95[0]:.2f}–{100 * f.ci95[1]:.2f}%"]
        if result.d20 is not None:
            ex = result.d20.fighters[i]
            row += [f"{ex.hp_left_when_winning.mean:.1f} ± {ex.hp_left_when_winning.sd:.1f}",
                    f"{ex.damage_dealt:.1f}"]
        elif result.sevendag is not None:
            ex = result.sevendag.fighters[i]
            parts = []
            for b in ex.wounds:
                band = ruleset.band_named(b.band) if hasattr(ruleset, "band_named") else None
                name = label(band.label, lang) if band else b.band
                parts.append(f"{name} {b.mean:.2f}")
            row.append("\n".join(parts))
        table.add_row(*row)
    console.print(table)
    console.print(f"{w(lang, 'draws', cap=result.cap)}: {result.draws:,} ({result.draw_probability:.2%})")
    r = result.rounds
    console.print(w(lang, "rounds", mean=r.mean, sd=r.sd, p50=r.p50, p90=r.p90, max=r.max))
    if result.first_striker_won is not None:
        console.print(w(lang, "firstwon", p=result.first_striker_won))
    histogram(console, r.histogram, w(lang, "hist"))


def histogram(console: Console, bins: Any, title: str, width: int = 40, max_rows: int = 24) -> None:
    """Bars of fights (or probabilities) per number of rounds, grouped into ranges when there are many."""
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
    console.print(Text(title, "bold underline"))
    for name, v in rows:
        bar = "█" * max(1 if v else 0, round(width * v / peak))
        console.print(Text.assemble(f"{name:>{pad}} ", (bar, "cyan"), f" {v / total:.1%}"))


def _interval(low: float, high: float) -> str:
    """A certified interval as percentages: the fewest decimals (2 to 8) that tell its ends
    apart, or one value when they agree to 8 decimals (the JSON has every digit)."""
    if low == 0.0 and 0.0 < high < 1e-6:
        return f"0–{high:.1e}"
    for digits in range(2, 9):
        a, b = f"{100 * low:.{digits}f}", f"{100 * high:.{digits}f}"
        if a != b:
            return f"{a}–{b}%"
    return f"{a}%"


def render_exact(console: Console, result: Any, lang: str, ruleset: Any = None) -> None:
    """``fight --exact``: the ``--runs`` table, with the exact interval where the 95% interval was."""
    from sevendag_cli.render.sim_data import exact_note

    console.print(Text(w(lang, "exact_title", cap=result.cap, tol=result.tolerance), "bold"))
    table = Table()
    for col in ("fighter", "p", "p_exact"):
        table.add_column(w(lang, col), justify="left" if col == "fighter" else "right")
    extra_cols: list[str] = []
    if result.d20 is not None:
        extra_cols = ["hp", "dealt"]
    elif result.sevendag is not None:
        extra_cols = ["wounds"]
    for col in extra_cols:
        table.add_column(w(lang, col), justify="right")
    for i, f in enumerate(result.fighters):
        row: list[Text | str] = [Text(f.name, "bold"), f"{f.win_probability:.4%}",
                                 _interval(*f.bounds)]
        if result.d20 is not None:
            ex = result.d20[i]
            row += [f"{ex.hp_left_when_winning.mean:.1f} ± {ex.hp_left_when_winning.sd:.1f}",
                    f"{ex.damage_dealt:.1f}"]
        elif result.sevendag is not None:
            ex = result.sevendag[i]
            parts = []
            for b in ex.wounds:
                band = ruleset.band_named(b.band) if hasattr(ruleset, "band_named") else None
                name = label(band.label, lang) if band else b.band
                parts.append(f"{name} {b.mean:.2f}")
            row.append("\n".join(parts))
        table.add_row(*row)
    console.print(table)
    console.print(f"{w(lang, 'draws', cap=result.cap)}: {_interval(*result.draw_bounds)}")
    r = result.rounds
    console.print(w(lang, "rounds_exact", mean=r.mean, sd=r.sd, p50=r.p50, p90=r.p90))
    if result.first_striker_won is not None:
        console.print(w(lang, "firstwon_exact", p=result.first_striker_won))
    # The display stops where the rest would show as 0.0%; the JSON has every round.
    shown = list(r.histogram)
    rest = r.tail
    while len(shown) > 1 and rest + shown[-1][1] < 5e-5:
        rest += shown.pop()[1]
    histogram(console, shown, w(lang, "hist"))
    if rest > 0:
        console.print(w(lang, "after", p=rest, n=shown[-1][0] if shown else 0))
    if r.tail > 0:
        console.print(w(lang, "tail", p=r.tail, n=r.histogram[-1][0] if r.histogram else 0))
    fr = result.fractions
    if fr is not None:
        for f, p in zip(result.fighters, fr.win_probability, strict=True):
            text = str(p)
            brief = text if len(text) <= 60 else w(lang, "fraction", n=len(text.partition("/")[2]))
            console.print(w(lang, "fraction_line", name=f.name, p=brief))
    for note in exact_note(result):
        console.print(Text(note.render(lang), "dim"))
