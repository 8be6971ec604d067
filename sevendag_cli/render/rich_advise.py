"""Rich display of ``advise`` (and ``round --advise``): every option of the fighter declaring
now, one line each at 80 columns — its chance, the declaration, the opponent's best answer —
best first and marked ``*`` (readable without colour).

What the table leaves out and why:

* declarations that differ only by what cannot matter (the same best answer, chances the
  certified intervals cannot tell apart: :class:`sevendag_cli.sevendag.advised.FoldedOption`)
  are one line, their alternatives named: ``either`` (yield or not), ``feint / charge``,
  and one line says so;
* the certified interval is shown only where it matters: where two lines cannot be told
  apart (marked ``=``, or ``*`` beside the best), one line below gives the interval that
  holds them; elsewhere every chance is shown with just enough decimals (1 to 3) that lines
  of different chances never show the same figure (``--json`` has every bound);
* ``--top N``: the N best lines, and one line saying how many more there are.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from rich.console import Console
from rich.text import Text

from sevendag_cli.i18n import label, number, t
from sevendag_cli.render.layout import print_columns, print_line
from sevendag_cli.text import visible


def _technique(key: str | None, ruleset: Any, lang: str) -> str:
    if key is None:
        return t("advise.no_technique", lang)
    tech = ruleset.techniques.get(key)
    return visible(label(tech.label, lang)) if tech is not None else visible(key)


def _allocation(allocation: tuple[str, ...], lang: str) -> str:
    return ", ".join(t(c, lang) if c != "none" else "-" for c in allocation)


def option_text(option: Any, ruleset: Any, lang: str) -> str:
    """``yield · attack, defence · feint`` in the display language (``attack, defence`` without
    a technique: the answer column and ``--after``'s line)."""
    parts = []
    if option.yield_initiative:
        parts.append(t("advise.yield", lang))
    parts.append(_allocation(option.allocation, lang))
    if option.technique is not None:
        parts.append(_technique(option.technique, ruleset, lang))
    return " · ".join(parts)


def _yield_cell(yields: tuple[bool, ...], lang: str) -> str:
    if len(yields) > 1:
        return t("advise.yield_either", lang)
    return t("advise.yes" if yields[0] else "advise.no", lang)


def _clusters(rows: list[Any]) -> list[int]:
    """Each row's cluster: rows (best first) whose certified intervals overlap the next's
    cannot be told apart."""
    out = [0]
    for above, row in pairwise(rows):
        out.append(out[-1] if row.high >= above.low else out[-1] + 1)
    return out


def _digits(rows: list[Any], cluster: list[int], lang: str) -> int:
    """The fewest decimals (1 to 3) at which rows of different clusters never show the same
    figure."""
    for digits in (1, 2):
        shown = [number(r.win_probability, f".{digits}%", lang) for r in rows]
        if all(shown[i] != shown[i + 1] for i in range(len(rows) - 1)
               if cluster[i] != cluster[i + 1]):
            return digits
    return 3


def advise_lines(console: Console, lang: str, at: Any, title: bool = True,
                 top: int | None = None) -> None:
    """The advice: who declares and what the columns mean, then one line per option (folded),
    the ties' intervals, and the rounds to the cap."""
    from sevendag_cli.render.rich_sim import _interval as interval

    advice = at.advice
    rs = at.ruleset
    if title:
        print_line(console, Text(t("advise.title", lang, path=at.encounter, n=at.state.round + 1),
                                 "bold underline"))
    role = t(f"advise.role.{advice.role}", lang)
    name = visible(advice.fighter)
    other = next((visible(f.name) for f in at.state.fighters if f.name != advice.fighter), "")
    answering = advice.after is not None
    key = "advise.declares_answer" if answering else "advise.declares"
    print_line(console, Text("  " + t(key, lang, name=name, role=role, other=other)), hang=0)
    if answering:
        print_line(console, Text("  " + t("advise.after", lang,
                                          option=option_text(advice.after, rs, lang))), hang=4)
    groups = list(advice.folded())
    cluster = _clusters(groups)
    digits = _digits(groups, cluster, lang)
    shown = groups if top is None or top <= 0 else groups[:top]
    with_yield = any(True in g.yields for g in groups)
    with_answer = any(g.answer is not None for g in groups)
    headers = [t("advise.col.chance", lang)]
    if with_yield:
        headers.append(t("advise.col.yield", lang))
    headers += [t("advise.col.allocation", lang), t("advise.col.technique", lang)]
    if with_answer:
        headers.append(t("advise.col.answer", lang))
    chances = [number(g.win_probability, f".{digits}%", lang) for g in shown]
    wide = max(len(c) for c in chances)
    rows = []
    for i, g in enumerate(shown):
        best = cluster[i] == 0
        tied = (i > 0 and cluster[i - 1] == cluster[i]) or (
            i + 1 < len(groups) and cluster[i + 1] == cluster[i])
        mark = "*" if best else "=" if tied else " "
        cells = [Text(f"{mark} {chances[i]:>{wide}}", "bold" if best else "")]
        if with_yield:
            cells.append(Text(_yield_cell(g.yields, lang)))
        cells.append(Text(" / ".join(_allocation(a, lang) for a in g.allocations)))
        cells.append(Text(" / ".join(_technique(k, rs, lang) for k in g.techniques)))
        if with_answer:
            cells.append(Text(option_text(g.answer, rs, lang) if g.answer is not None else "",
                              "dim"))
        rows.append(cells)
    print_columns(console, headers, rows, indent=0)
    if len(shown) < len(groups):
        rest = groups[len(shown):]
        print_line(console, Text("  " + t("advise.more", lang, n=len(rest),
                                          low=rest[-1].win_probability), "dim"))
    if any(len(g.yields) > 1 for g in shown):
        print_line(console, Text("  " + t("advise.folded_yield", lang), "dim"), hang=4)
    if any(len(g.allocations) > 1 or len(g.techniques) > 1 for g in shown):
        print_line(console, Text("  " + t("advise.folded_other", lang), "dim"), hang=4)
    for c in sorted(set(cluster[:len(shown)])):
        members = [g for g, k in zip(groups, cluster, strict=True) if k == c]
        if len(members) < 2:
            continue
        low, high = min(g.low for g in members), max(g.high for g in members)
        print_line(console, Text("  " + t("advise.tie", lang, mark="*" if c == 0 else "=",
                                          n=len(members), interval=interval(low, high, lang)),
                                 "dim"), hang=4)
    print_line(console, Text("  " + t("advise.open", lang, tol=at.tolerance, n=advice.rounds_left),
                             "dim"))
