"""Rich display of a sweep: the table of the odds per value, and the same data as bars.

At 80 columns in both languages: the table has the value, each fighter's win % (with
the 95% interval when simulated), the draw % when a draw can happen, and the mean
rounds; below it, one bar per value split between the two fighters (``█`` the first,
``░`` the second, ``·`` a draw) with ``│`` at 50%, so the fair value is where the
split crosses the mark, without colour too.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from sevendag_cli.i18n import count, t
from sevendag_cli.render.layout import print_wrapped, shown
from sevendag_cli.render.rich_sim import _table
from sevendag_cli.render.whatif import print_changes


def _line(console: Console, text: str | Text) -> None:
    print_wrapped(console, text if isinstance(text, Text) else Text(text), hang=2)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return shown(value)


def _cell(f: Any) -> str:
    if f.ci95 is not None:
        return f"{f.win_probability:.1%} ({100 * f.ci95[0]:.1f}–{100 * f.ci95[1]:.1f})"
    return f"{f.win_probability:.2%}"


def render_sweep(console: Console, result: Any, changes: Any, lang: str) -> None:
    field = shown(result.field)
    if result.method == "exact":
        title = t("sweep.title_exact", lang, field=field, cap=result.cap, tol=result.tolerance)
    else:
        title = t("sweep.title_runs", lang, field=field, runs=count(result.runs, lang),
                  seed=result.seed, cap=result.cap)
    _line(console, Text(title, "bold"))
    print_changes(console, changes, lang)
    points = result.points
    names = [shown(f.name) for f in points[0].fighters]
    draws = any(p.draw_probability >= 5e-5 for p in points)
    headers = [field, *(t("sweep.win", lang, name=n) for n in names)]
    if draws:
        headers.append(t("sweep.draw", lang))
    headers.append(t("sweep.rounds", lang))
    rows: list[list[Text | str]] = []
    for p in points:
        row: list[Text | str] = [Text(_value(p.value), "bold"), *(_cell(f) for f in p.fighters)]
        if draws:
            row.append(f"{p.draw_probability:.2%}")
        row.append(f"{p.rounds_mean:.1f}")
        rows.append(row)
    console.print(_table(headers, rows))
    bars(console, result, names, lang)
    fair = result.fair
    if fair is not None:
        _line(console, Text(t("sweep.fair", lang, field=field, value=_value(fair.value), a=names[0],
                              pa=fair.win_probability[0], b=names[1], pb=fair.win_probability[1],
                              gap=100 * fair.gap), "bold"))
        if fair.between is not None:
            _line(console, t("sweep.fair_between", lang, field=field, lo=fair.between[0],
                             hi=fair.between[1]))
    if result.unchanged:
        _line(console, Text(t("sweep.flat", lang, field=field), "dim"))


def bars(console: Console, result: Any, names: list[str], lang: str, width: int = 40) -> None:
    """One bar per value: the first fighter's share (``█``) from the left, the second's (``░``)
    from the right, a draw (``·``) between; ``│`` at 50%."""
    points = result.points
    labels = [_value(p.value) for p in points]
    pad = max(len(label) for label in labels)
    fair_value = result.fair.value if result.fair is not None else None
    mark = t("sweep.fair_mark", lang)
    room = console.width - pad - 1 - 7 - (len(mark) + 1 if result.fair is not None else 0)
    width = max(10, min(width, room))
    _line(console, Text(t("sweep.bars", lang, a=names[0], b=names[1]), "bold underline"))
    middle = width // 2
    for label, p in zip(labels, points, strict=True):
        pa, pb = (f.win_probability for f in p.fighters)
        left = round(width * pa)
        right = min(width - left, round(width * pb))
        cells = ["█"] * left + ["·"] * (width - left - right) + ["░"] * right
        cells[middle] = "│"
        line = Text.assemble(f"{label:>{pad}} ", ("".join(cells[:left]), "cyan"),
                             "".join(cells[left:width - right]),
                             ("".join(cells[width - right:]), "magenta"), f" {pa:6.1%}")
        if fair_value is not None and p.value == fair_value and p is _first_with(points, fair_value):
            line.append(f" {mark}", "bold")
        console.print(line, soft_wrap=True)


def _first_with(points: Any, value: Any) -> Any:
    return next(p for p in points if p.value == value)
