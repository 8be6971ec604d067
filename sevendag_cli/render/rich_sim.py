"""Rich display of simulated and exact odds: a summary table and a histogram of rounds."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from sevendag_cli.i18n import label, t
from sevendag_cli.text import visible_data


def w(lang: str, key: str, **kw: Any) -> str:
    return t(f"sim.{key}", lang, **kw)


def render_simulation(console: Console, result: Any, lang: str, ruleset: Any) -> None:
    result, ruleset = visible_data(result), visible_data(ruleset)
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
    """Bars of fights per number of rounds, grouped into ranges when there are many values."""
    counts = {int(k): int(v) for k, v in bins}
    if not counts:
        return
    lo, hi = min(counts), max(counts)
    step = max(1, -(-(hi - lo + 1) // max_rows))  # ceiling division
    rows: list[tuple[str, int]] = []
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


def render_exact(console: Console, doc: dict[str, Any], lang: str) -> None:
    doc = visible_data(doc)
    console.print(Text(w(lang, "exact"), "bold underline"))
    table = Table()
    table.add_column(w(lang, "fighter"))
    table.add_column(w(lang, "p"), justify="right")
    table.add_column(w(lang, "p_exact"), overflow="fold")
    for f in doc["fighters"]:
        exact = f["win_probability_exact"]
        digits = len(exact.partition("/")[2])
        shown = exact if len(exact) <= 40 else w(lang, "fraction", n=digits)
        table.add_row(Text(f["name"], "bold"), f"{f['win_probability']:.6%}", shown)
    console.print(table)
    console.print(w(lang, "draw_p", p=doc["draw_probability_exact"]))
    console.print(w(lang, "mean_rounds", r=doc["rounds_mean"]))
    if doc.get("note"):
        console.print(Text(doc["note"], "dim"))
