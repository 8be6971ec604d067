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

from sevendag_cli.i18n import count, label, t
from sevendag_cli.render.layout import print_wrapped, shown


def w(lang: str, key: str, **kw: Any) -> str:
    return t(f"sim.{key}", lang, **kw)


def _line(console: Console, text: str | Text) -> None:
    print_wrapped(console, text if isinstance(text, Text) else Text(text), hang=2)


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
    _line(console, Text(w(lang, "runs", runs=count(result.runs, lang), seed=result.seed), "bold"))
    rows: list[list[Text | str]] = [
        [Text(shown(f.name), "bold"), count(f.wins, lang), f"{f.win_probability:.2%}",
         f"{100 * f.ci95[0]:.2f}–{100 * f.ci95[1]:.2f}%"] for f in result.fighters]
    console.print(_table([w(lang, col) for col in ("fighter", "wins", "p", "ci")], rows))
    if result.d20 is not None:
        rows = [[Text(shown(f.name), "bold"),
                 f"{ex.hp_left_when_winning.mean:.1f} ± {ex.hp_left_when_winning.sd:.1f}",
                 f"{ex.damage_dealt:.1f}"]
                for f, ex in zip(result.fighters, result.d20.fighters, strict=True)]
        console.print(_table([w(lang, "fighter"), w(lang, "hp"), w(lang, "dealt")], rows))
    elif result.sevendag is not None:  # one row per band, one column per fighter
        per_fighter = [{b.band: b.mean for b in ex.wounds} for ex in result.sevendag.fighters]
        rows = []
        for name in (list(per_fighter[0]) if per_fighter else []):
            band = ruleset.band_named(name) if hasattr(ruleset, "band_named") else None
            rows.append([shown(label(band.label, lang) if band else name),
                         *(f"{means.get(name, 0.0):.2f}" for means in per_fighter)])
        headers = [w(lang, "wounds"), *(shown(f.name) for f in result.fighters)]
        console.print(_table(headers, rows))
    _line(console, f"{w(lang, 'draws', cap=result.cap)}{t('colon', lang)}{count(result.draws, lang)} "
                   f"({result.draw_probability:.2%})")
    r = result.rounds
    _line(console, w(lang, "rounds", mean=r.mean, sd=r.sd, p50=r.p50, p90=r.p90, max=r.max))
    if result.first_striker_won is not None:
        _line(console, w(lang, "firstwon", p=result.first_striker_won))
    histogram(console, r.histogram, w(lang, "hist"))


def histogram(console: Console, bins: Any, title: str, width: int = 40, max_rows: int = 24) -> None:
    """Bars of fights per number of rounds, grouped into ranges when there are many values.

    The bars are at most ``width`` cells, less on a narrow console.
    """
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
    width = max(10, min(width, console.width - pad - 8))
    _line(console, Text(title, "bold underline"))
    for name, v in rows:
        bar = "█" * max(1 if v else 0, round(width * v / peak))
        console.print(Text.assemble(f"{name:>{pad}} ", (bar, "cyan"), f" {v / total:.1%}"),
                      soft_wrap=True)


# The exact solvers' notes (English, as in the JSON), in French for the display.
NOTES_FR: dict[str, str] = {
    "Exact (no sampling): per-round outcome from the dice distributions of the ruleset's "
    "formulas (D-02..D-10), then an absorbing Markov chain over both fighters' hit points "
    "(D-12). No round cap in this model, so no draws; a simulation with a round cap can "
    "differ only by its (rare) capped fights.":
        "Exact (sans tirage) : l'issue de chaque round d'après les lois des dés des formules des "
        "règles (D-02..D-10), puis une chaîne de Markov absorbante sur les points de vie des deux "
        "combattants (D-12). Pas de plafond de rounds dans ce modèle, donc pas de match nul ; une "
        "simulation plafonnée ne peut différer que par ses (rares) combats plafonnés.",
    "Exact (no sampling): each round's outcome from exact enumeration of the dice "
    "(S-06..S-18), then an absorbing Markov chain over the assaillant, the wounds that count "
    "towards out_after, dropped weapons and granted criticals (S-02..S-19). No round cap in "
    "this model, so no draws; a simulation with a round cap can differ only by its (rare) "
    "capped fights.":
        "Exact (sans tirage) : l'issue de chaque round par l'énumération exacte des dés "
        "(S-06..S-18), puis une chaîne de Markov absorbante sur l'assaillant, les blessures qui "
        "comptent pour out_after, les armes lâchées et les critiques accordés (S-02..S-19). Pas de "
        "plafond de rounds dans ce modèle, donc pas de match nul ; une simulation plafonnée ne "
        "peut différer que par ses (rares) combats plafonnés.",
}

MAX_FRACTION = 30
"""Longest exact fraction shown in the table; longer ones are in the JSON."""


def render_exact(console: Console, doc: dict[str, Any], lang: str) -> None:
    _line(console, Text(w(lang, "exact"), "bold underline"))
    fractions = [f["win_probability_exact"] for f in doc["fighters"]]
    fits = all(len(x) <= MAX_FRACTION for x in fractions)
    headers = [w(lang, "fighter"), w(lang, "p")] + ([w(lang, "p_exact")] if fits else [])
    rows: list[list[Text | str]] = [
        [Text(shown(f["name"]), "bold"), f"{f['win_probability']:.6%}", *([exact] if fits else [])]
        for f, exact in zip(doc["fighters"], fractions, strict=True)]
    console.print(_table(headers, rows))
    if not fits:
        digits = max(len(x.partition("/")[2]) for x in fractions)
        _line(console, w(lang, "fraction", n=digits))
    _line(console, w(lang, "draw_p", p=doc["draw_probability_exact"]))
    _line(console, w(lang, "mean_rounds", r=doc["rounds_mean"]))
    note = doc.get("note")
    if note:
        _line(console, Text(NOTES_FR.get(note, note) if lang == "fr" else note, "dim"))
