"""Rich display of a sweep: the table of the odds per value, and the same data as bars.

At 80 columns in both languages (and 60): the table has the value (headed by the field's
last key; the title names the whole field), each fighter's win % (``95% CI ±`` half the 95% interval
when simulated), the draw % when a draw can happen, and the mean
rounds; below it, one bar per value split between the two fighters (``█`` the first,
``░`` the second, ``·`` a draw) with ``│`` at 50%, so the fair value is where the
split crosses the mark, without colour too.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from sevendag_cli.i18n import number, t
from sevendag_cli.render.layout import print_line
from sevendag_cli.render.whatif import print_changes
from sevendag_cli.text import visible


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return visible(value)


def _cell(f: Any, lang: str = "en") -> str:
    if f.ci95 is not None:  # half the 95% interval (the JSON and the CSV have both ends)
        # "±" is half the 95% interval, as the column's header says
        return (f"{number(f.win_probability, '.1%', lang)} "
                f"±{number(50 * (f.ci95[1] - f.ci95[0]), '.1f', lang)}")
    return number(f.win_probability, ".2%", lang)


def render_sweep(console: Console, result: Any, changes: Any, lang: str,
                 play: str | None = None) -> None:
    """The sweep's table and bars; ``play``: who plays how, under the title."""
    from sevendag_cli.render.sweep_data import sweep_title

    field = visible(result.field)
    print_line(console, Text(sweep_title(result, lang), "bold"))
    if play is not None:
        print_line(console, play)
    print_changes(console, changes, lang)
    points = result.points
    names = [visible(f.name) for f in points[0].fighters]
    draws = any(p.draw_probability >= 5e-5 for p in points)
    win = "sweep.win" if result.method == "exact" else "sweep.win_ci"  # ± in the cells: said
    headers = [field.rsplit(".", 1)[-1], *(t(win, lang, name=n) for n in names)]
    if draws:
        headers.append(t("sweep.draw", lang))
    headers.append(t("sweep.rounds", lang))
    rows: list[list[Text | str]] = []
    for p in points:
        row: list[Text | str] = [Text(_value(p.value), "bold"), *(_cell(f, lang) for f in p.fighters)]
        if draws:
            row.append(number(p.draw_probability, ".2%", lang))
        row.append(number(p.rounds_mean, ".1f", lang))
        rows.append(row)
    console.print(fitted_table(headers, rows, console.width))
    bars(console, result, names, lang)
    fair = None if result.unchanged else result.fair  # every value is as fair: the note says it
    if fair is not None and fair.beyond is not None:  # 50/50 outside the range: no "fairest" end
        print_line(console, Text(t(f"sweep.fair_{fair.beyond}", lang, field=field, value=_value(fair.value),
                                   a=names[0], pa=fair.win_probability[0], b=names[1],
                                   pb=fair.win_probability[1]), "bold"))
    elif fair is not None:
        print_line(console, Text(t("sweep.fair", lang, field=field, value=_value(fair.value), a=names[0],
                              pa=fair.win_probability[0], b=names[1], pb=fair.win_probability[1],
                              gap=100 * fair.gap), "bold"))
        if fair.between is not None:
            print_line(console, t("sweep.fair_between", lang, field=field, lo=fair.between[0],
                             hi=fair.between[1]))
    if result.unchanged:
        print_line(console, Text(t("sweep.flat", lang, field=field), "dim"))


def fitted_table(headers: list[str], rows: list[list[Text | str]], width: int) -> Table:
    """Names left, numbers right; each column as wide as its header when the table fits, else
    the headers with the most room to spare wrap first (a cell is never cut)."""
    cells = [[c if isinstance(c, Text) else Text(c) for c in row] for row in rows]
    n = len(headers)
    least = [max([r[i].cell_len for r in cells] + [len(w) for w in headers[i].split()]) for i in range(n)]
    widths = [max(least[i], len(headers[i])) for i in range(n)]
    overhead = 3 * n + 1  # a border and a space either side of each column
    while sum(widths) + overhead > width:
        spare = [i for i in range(n) if widths[i] > least[i]]
        if not spare:
            break
        widths[max(spare, key=lambda i: widths[i] - least[i])] -= 1
    table = Table()
    for i, header in enumerate(headers):
        table.add_column(header, justify="left" if i == 0 else "right", min_width=widths[i],
                         max_width=widths[i])
    for row in cells:
        table.add_row(*row)
    return table


def bars(console: Console, result: Any, names: list[str], lang: str, width: int = 40) -> None:
    """One bar per value: the first fighter's share (``█``) from the left, the second's (``░``)
    from the right, a draw (``·``) between; ``│`` at 50%."""
    points = result.points
    labels = [_value(p.value) for p in points]
    pad = max(len(label) for label in labels)
    fair_value = result.fair.value if result.fair is not None and not result.unchanged \
        and result.fair.beyond is None else None
    mark = t("sweep.fair_mark", lang)
    share = 1 + len(number(1.0, "6.1%", lang))  # `` 100.0%``, `` 100,0 %`` in French
    room = console.width - pad - 1 - share - (len(mark) + 1 if fair_value is not None else 0)
    width = max(10, min(width, room))
    print_line(console, Text(t("sweep.bars", lang, a=names[0], b=names[1]), "bold underline"))
    middle = width // 2
    for label, p in zip(labels, points, strict=True):
        pa, pb = (f.win_probability for f in p.fighters)
        left = round(width * pa)
        right = min(width - left, round(width * pb))
        cells = ["█"] * left + ["·"] * (width - left - right) + ["░"] * right
        cells[middle] = "│"
        line = Text.assemble(f"{label:>{pad}} ", ("".join(cells[:left]), "cyan"),
                             "".join(cells[left:width - right]),
                             ("".join(cells[width - right:]), "magenta"), f" {number(pa, '6.1%', lang)}")
        if fair_value is not None and p.value == fair_value and p is _first_with(points, fair_value):
            line.append(f" {mark}", "bold")
        console.print(line, soft_wrap=True)


def _first_with(points: Any, value: Any) -> Any:
    return next(p for p in points if p.value == value)


# --- a grid (two --vary) --------------------------------------------------------------------------


def render_grid(console: Console, result: Any, changes: Any, lang: str,
                play: str | None = None) -> None:
    """Two fields varied together: P(first fighter wins) in each cell, the first field's values
    down the side, the second's across (in blocks that fit the width, each repeating the side);
    ``*`` after the fairest cell of each row with ``--fair``; then, per row, where 50/50 lies."""
    f1, f2 = (visible(f) for f in result.fields)
    from sevendag_cli.render.sweep_data import sweep_title

    print_line(console, Text(sweep_title(result, lang), "bold"))
    if play is not None:
        print_line(console, play)
    print_changes(console, changes, lang)
    names = [visible(f.name) for f in result.points[0].fighters]
    print_line(console, Text(t("sweep.grid_heading", lang, name=names[0], rows=f1, columns=f2), "bold"))
    side = max(len(f1.rsplit(".", 1)[-1]), *(len(_value(v)) for v in result.rows))
    labels = [_value(v) for v in result.columns]
    cell = max(4, *(len(label) for label in labels)) + 1
    fairest = {}
    if result.fair and not result.unchanged:
        for i, f in enumerate(result.fair):
            if f is not None and f.beyond is None:
                fairest[i] = next(j for j, v in enumerate(result.columns) if v == f.value)
    per_block = max(1, (console.width - side - 2) // (cell + 1))
    for start in range(0, len(labels), per_block):
        block = range(start, min(len(labels), start + per_block))
        corner = f1.rsplit(".", 1)[-1] if start == 0 else ""
        head = Text(f"{corner:>{side}} │", "dim")
        for j in block:
            head.append(f"{labels[j]:>{cell}} ", "bold")
        head.rstrip()
        console.print(head, soft_wrap=True)
        console.print(Text("─" * (side + 1) + "┼" + "─" * ((cell + 1) * len(block)), "dim"), soft_wrap=True)
        for i, row_value in enumerate(result.rows):
            line = Text.assemble((f"{_value(row_value):>{side}}", "bold"), " │")
            points = result.row(i)
            for j in block:
                p = points[j].fighters[0].win_probability
                mark = "*" if fairest.get(i) == j else " "
                line.append(f"{100 * p:>{cell}.0f}{mark}", "bold" if mark == "*" else "")
            line.rstrip()
            console.print(line, soft_wrap=True)
    if result.fair and not result.unchanged:
        print_line(console, Text(t("sweep.grid_fair_heading", lang, rows=f1, columns=f2), "bold"))
        for row_value, f in zip(result.rows, result.fair, strict=True):
            if f is None:
                continue
            if f.beyond is not None:
                text = t(f"sweep.grid_fair_{f.beyond}", lang, value=_value(f.value))
            elif f.between is not None:
                text = t("sweep.grid_fair_between", lang, lo=f.between[0], hi=f.between[1])
            else:
                text = t("sweep.grid_fair_at", lang, value=_value(f.value), gap=100 * f.gap)
            print_line(console, f"  {f1} = {_value(row_value)}: {f2} {text}")
    if result.unchanged:
        print_line(console, Text(t("sweep.flat", lang, field=visible(result.field)), "dim"))
