"""Rich display of a round-robin (``matrix``): the N×N table as a heat map.

The table is laid out by hand so that it fits the console (80 columns in a pipe):

* rows in ranking order, each labelled with its rank and name; the columns in
  the same order, so the diagonal (a fighter against itself: not played) is
  the diagonal;
* the columns are headed by the fighters' names when they all fit, else by
  their ranks (the row labels say who is who; a name cut short there is given
  in full in a legend below);
* a roster too wide even so (beyond some 8–10 fighters at 80 columns) is shown
  in blocks of columns, the mean in the last one;
* each cell is P(row beats column) in % (one decimal); with colour, its
  background is the picture's diverging map (``RdBu``): red (the row loses), near
  white (even), blue (the row wins), the number black or white for contrast —
  without colour (``NO_COLOR``, a pipe) the number alone says it.  A simulated cell in an exact table is marked ``~``;
* a cell not computed (its pair beyond the solvers' bounds even to simulate) shows ``n/a``
  (``n.c.`` in French), dim, and a line under the table says so (which pair and why: on
  stderr); a mean over part of its row only is marked ``*``, a fighter with no cell
  computed has ``n/a`` for its mean;
* a fighter playing optimally (``--tactic NAME=optimal``) is said in a line under
  the title;
* with ``--exploit``, a second table in the same layout: what the row's sheet gives
  away against the column's optimal answer (in points of %, a win counting 1 and a
  draw ½), its last column the mean over the opponents.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.color import Color
from rich.console import Console
from rich.style import Style
from rich.text import Text

from sevendag_cli.i18n import count, number, t
from sevendag_cli.render.layout import MIN_WIDTH, print_line
from sevendag_cli.text import visible

if TYPE_CHECKING:
    from sevendag_cli.sim.roster import Roster

GAP = 1
"""Spaces between two columns of numbers (two when headed by names)."""
MEAN_GAP = 2
LABEL_MAX = 24
"""Widest row label (rank and name) before names are cut short (and given in a legend)."""
LABEL_MIN = 10
DIAGONAL = "·"
PARTIAL_MEAN = "*"
"""After a mean over part of a row (some cells not computed)."""

RDBU = ((103, 0, 31), (178, 24, 43), (214, 96, 77), (244, 165, 130), (253, 219, 199),
        (247, 247, 247), (209, 229, 240), (146, 197, 222), (67, 147, 195), (33, 102, 172),
        (5, 48, 97))
"""The picture's colour map (matplotlib's ``RdBu``, ColorBrewer's 11 colours at 0, 0.1 … 1):
red below 50 %, near white at 50 %, blue above; colour-blind safe, unlike red–green."""


def heat_rgb(p: float) -> tuple[int, int, int]:
    """The colour of ``p`` (0 to 1) on :data:`RDBU`, as the picture draws it (linear between
    the stops)."""
    x = min(1.0, max(0.0, p)) * (len(RDBU) - 1)
    k = min(int(x), len(RDBU) - 2)
    a, b, f = RDBU[k], RDBU[k + 1], x - k
    return (round(a[0] + (b[0] - a[0]) * f), round(a[1] + (b[1] - a[1]) * f),
            round(a[2] + (b[2] - a[2]) * f))


def _heat(p: float) -> Style:
    """The cell's background from :func:`heat_rgb`, its text black or white, whichever reads
    better on it (its luminance, as the picture's labels)."""
    red, green, blue = heat_rgb(p)
    light = 0.2126 * red + 0.7152 * green + 0.0722 * blue > 0.5 * 255
    return Style(color="black" if light else "white", bgcolor=Color.from_rgb(red, green, blue))


def _short(x: float) -> str:
    """``1e-9`` rather than ``1e-09``."""
    from sevendag_cli.render.matrix_data import short_float

    return short_float(x)


def _pct(p: float, lang: str = "en") -> str:
    return number(100 * p, ".1f", lang)


def _cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, ending with ``…`` when cut."""
    if cell_len(text) <= width:
        return text
    out = ""
    for ch in text:
        if cell_len(out + ch) > width - 1:
            break
        out += ch
    return out + "…"


def _given(g: Any, lang: str, missing: bool = False) -> tuple[str, Style | str]:
    """An exploitability figure in points of %: dim when nothing is given away; ``missing``:
    not computed (the game beyond its bounds)."""
    if g is None:
        return (t("matrix.not_computed", lang) if missing else "?", "dim")
    value = max(0.0, g.value)
    return (_pct(value, lang), "dim" if value < 5e-4 else "")


class _Grid:
    """The cells as texts and styles, and the widths they need."""

    def __init__(self, roster: Roster, lang: str, given: bool = False) -> None:
        """``given``: the exploitability figures (``--exploit``) instead of the odds."""
        from sevendag_cli.render.matrix_data import exploit_why
        from sevendag_cli.sim.roster import RUNS, RosterCell

        self.n = len(roster.standings)
        self.names = [visible(s.name) for s in roster.standings]
        mark = roster.some_simulated and not given
        none = t("matrix.not_computed", lang)
        self.cells: list[list[tuple[str, Style | str]]] = []
        partial: list[bool] = []  # a row with some cell (or figure) not computed
        for i, row in enumerate(roster.cells):
            line: list[tuple[str, Style | str]] = []
            for j, c in enumerate(row):
                if c is None or i == j:
                    line.append((DIAGONAL, "dim"))
                elif given:
                    line.append(_given(c.gives_away, lang, exploit_why(c) is not None))
                elif not isinstance(c, RosterCell):
                    line.append((none, "dim"))
                else:
                    text = ("~" if mark and c.method == RUNS else "") + _pct(c.win, lang)
                    line.append((text, _heat(c.win)))
            self.cells.append(line)
            partial.append(any(x == none for x, _ in line))
        self.means: list[tuple[str, Style | str]] = (
            [_given(s.gives_away, lang, p) for s, p in zip(roster.standings, partial, strict=True)]
            if given else
            [(none, "dim") if s.mean is None else
             (_pct(s.mean, lang) + (PARTIAL_MEAN if p else ""), _heat(s.mean))
             for s, p in zip(roster.standings, partial, strict=True)])
        self.mean_header = t("matrix.mean", lang)
        self.cell_w = max(cell_len(x) for row in self.cells for x, _ in row)
        self.mean_w = max([cell_len(self.mean_header)] + [cell_len(x) for x, _ in self.means])
        self.rank_w = len(str(self.n))

    def label(self, i: int, width: int) -> Text:
        rank = f"{i + 1:>{self.rank_w}} "
        name = _cut(self.names[i], width - len(rank))
        out = Text(rank, "dim")
        out.append(name, "bold")
        out.append(" " * (width - cell_len(rank) - cell_len(name)))
        return out

    def natural_label(self) -> int:
        return max(self.rank_w + 1 + cell_len(x) for x in self.names)


def _print_block(console: Console, grid: _Grid, columns: list[int], headers: list[str],
                 widths: list[int], gap: int, label_w: int, with_mean: bool) -> None:
    """One block of columns: a header line, then one line per row (numbers right-aligned)."""
    head = Text(" " * label_w)
    for h, w in zip(headers, widths, strict=True):
        head.append(" " * (gap + w - cell_len(h)))
        head.append(h, "bold")
    if with_mean:
        head.append(" " * (MEAN_GAP + grid.mean_w - cell_len(grid.mean_header)))
        head.append(grid.mean_header, "bold")
    console.print(head, soft_wrap=True)
    for i in range(grid.n):
        line = grid.label(i, label_w)
        for j, w in zip(columns, widths, strict=True):
            text, style = grid.cells[i][j]
            line.append(" " * (gap + w - cell_len(text)))
            line.append(text, style)
        if with_mean:
            text, heat = grid.means[i]
            line.append(" " * (MEAN_GAP + grid.mean_w - cell_len(text)))
            line.append(text, Style.parse(heat) + Style(bold=True) if isinstance(heat, str)
                        else heat + Style(bold=True))
        console.print(line, soft_wrap=True)


def _table(console: Console, grid: _Grid) -> list[int]:
    """Print the table to fit the console; returns the rows whose names were cut short."""
    width = max(console.width, MIN_WIDTH)
    n = grid.n
    natural = grid.natural_label()
    mean_part = MEAN_GAP + grid.mean_w
    # Headed by the names, if everything fits.
    named_w = [max(grid.cell_w, cell_len(name)) for name in grid.names]
    if natural + sum(2 + w for w in named_w) + mean_part <= width:
        _print_block(console, grid, list(range(n)), grid.names, named_w, 2, natural, True)
        return []
    # Headed by the ranks: the labels shrink to fit, down to LABEL_MIN; then in blocks.
    cols = max(grid.cell_w, grid.rank_w)
    per_col = GAP + cols
    label_w = min(natural, LABEL_MAX, width - mean_part - n * per_col)
    if label_w >= min(natural, LABEL_MIN):
        blocks = [list(range(n))]
    else:
        label_w = min(natural, LABEL_MAX)
        k = max(1, (width - label_w - mean_part) // per_col)
        blocks = [list(range(s, min(n, s + k))) for s in range(0, n, k)]
    for b, block in enumerate(blocks):
        if b:
            console.print()
        _print_block(console, grid, block, [str(j + 1) for j in block], [cols] * len(block), GAP,
                     label_w, b == len(blocks) - 1)
    return [i for i in range(n) if grid.rank_w + 1 + cell_len(grid.names[i]) > label_w]


def render_matrix(console: Console, roster: Roster, lang: str) -> None:
    """The table (stdout); which pairs were not computed, and why, is said on stderr
    (:func:`sevendag_cli.render.matrix_data.hole_notes`)."""
    from sevendag_cli.sim.roster import EXACT, RUNS, RosterCell

    n = len(roster.standings)
    print_line(console, Text(t("matrix.title", lang, n=n, pairs=count(n * (n - 1), lang),
                          ruleset=visible(roster.ruleset)), "bold"))
    from sevendag_cli.render.matrix_data import method_line

    print_line(console, method_line(roster, lang))
    _policies_line(console, roster, lang)
    print_line(console, t("matrix.caption", lang))
    grid = _Grid(roster, lang)
    cut = _table(console, grid)
    for i in cut:
        print_line(console, t("matrix.legend", lang, rank=i + 1, name=grid.names[i]))
    cells = [c for row in roster.cells for c in row if isinstance(c, RosterCell)]
    exact = [c for c in cells if c.method == EXACT]
    simulated = [c for c in cells if c.method == RUNS]
    if exact:
        print_line(console, t("matrix.exact_width", lang, w=max(c.bounds[1] - c.bounds[0] for c in exact)))
    if simulated:
        half = max((c.bounds[1] - c.bounds[0]) / 2 for c in simulated)
        if roster.all_runs:
            print_line(console, t("matrix.ci", lang, w=half))
        else:
            why: Any = next((c.why for c in simulated if c.why is not None), None)
            print_line(console, t("matrix.simulated", lang, n=len(simulated),
                             runs=count(roster.runs or 0, lang), seed=roster.seed, w=half,
                             why=visible(why.render(lang)) if why is not None else ""))
    top = max(c.draw for c in cells)
    if top >= 5e-5:
        print_line(console, t("matrix.draws", lang, cap=roster.cap, p=top))
    if roster.holes:
        print_line(console, t("matrix.holes", lang, mark=t("matrix.not_computed", lang),
                              n=len(roster.holes), star=PARTIAL_MEAN))
    _exploit_table(console, roster, lang)


def _policies_line(console: Console, roster: Roster, lang: str) -> None:
    """Who plays optimally, or that every fighter plays its sheet (nothing where the rules
    leave no choice)."""
    from sevendag_cli.render.matrix_data import policies_text

    said = policies_text(roster, [visible(s.name) for s in roster.standings], lang)
    if said is not None:
        print_line(console, said)


def _exploit_table(console: Console, roster: Roster, lang: str) -> None:
    """``--exploit``: what each row's sheet gives away against the column's optimal answer
    (nothing where the rules leave no choice: said once, on stderr)."""
    from sevendag_cli.backend import backend_named
    from sevendag_cli.render.matrix_data import exploit_tolerance

    if not roster.exploit or not backend_named(roster.engine).has_choices():
        return
    console.print()
    print_line(console, Text(t("matrix.exploit_title", lang), "bold"))
    print_line(console, t("matrix.exploit_caption", lang))
    grid = _Grid(roster, lang, given=True)
    for i in _table(console, grid):
        print_line(console, t("matrix.legend", lang, rank=i + 1, name=grid.names[i]))
    print_line(console, t("matrix.exploit_tolerance", lang, tol=_short(exploit_tolerance(roster))))
    missing = len(roster.holes) + len(roster.exploit_holes)
    if missing:
        print_line(console, t("matrix.exploit_holes", lang, mark=t("matrix.not_computed", lang),
                              n=missing))
