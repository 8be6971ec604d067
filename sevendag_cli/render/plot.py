"""Pictures of the odds (``--plot FILE.png`` or ``FILE.svg``), with matplotlib.

matplotlib is the optional extra ``sevendag[plot]``: it is imported only when a
picture is drawn, with the non-interactive ``Agg`` backend, and a missing
matplotlib is one line saying how to install it.  The figure is drawn in memory and
then written in one go (a temporary file renamed into place), so a failure leaves
no half-written picture; the command reports the file on stderr (data stay on stdout).

Three kinds of picture, each from plain data (the texts are the caller's, in the
user's language)::

    from sevendag_cli.render import plot
    fmt = plot.plot_format(path)   # before any work: .png or .svg, else a usage error
    plot.curves(path, x=[5, 6, 7], curves=[plot.Curve("A", [.4, .5, .6], low, high)],
                title=..., x_label="A.ac", y_label="P(win)")          # a sweep, a swing
    plot.bars(path, x=[1, 2, 3], y=[.2, .5, .3], title=..., x_label=..., y_label=...)
    plot.heat_map(path, rows=names, columns=names, values=[[None, .4], [.6, None]],
                  title=..., value_label="P(row beats column)",
                  marked=[[False, True], [True, False]],
                  extra=("mean", [.4, .6]))                                # a matrix
    plot.report(path, lang)        # "plot written to FILE" on stderr

``x`` may hold numbers (a numeric axis) or any values (one tick each, in order: dice
formulas such as ``1d6``).  Probabilities are drawn as percentages when ``percent``.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sevendag_cli.errors import Msg, UsageError, install_command

FORMATS = ("png", "svg")
MAX_TICKS = 25
"""Most labelled ticks on an axis of values that are not numbers (a long fight's rounds)."""
MAX_LABEL = 40
"""Longest label drawn (a name, a value); longer ones are cut with an ellipsis, as messages are."""
MAX_TITLE = 120
"""Longest line of a title or an axis label drawn (each line of a title on its own)."""
TITLE_CHARS_PER_INCH = 10
"""Characters of a title per inch of the picture's width (the 12-point title font, with room
to spare): a longer line is wrapped at a space, so that no title is cut at the picture's edge."""


def _short(text: object, limit: int = MAX_LABEL) -> str:
    """A text as drawn: control characters visible, cut to ``limit`` characters."""
    from sevendag_cli.text import visible

    shown = visible(str(text))
    return shown if len(shown) <= limit else shown[:limit - 1] + "…"


def _title(text: str, width: float) -> str:
    """A title as drawn on a picture ``width`` inches wide: each of its lines (the caller's
    ``\\n`` separate them) shortened on its own (control characters visible, at most
    :data:`MAX_TITLE` characters), then wrapped at spaces to fit the width.  The newlines
    are the only ones: what the lines hold (a name) is text, its control characters shown
    as escapes."""
    import textwrap

    room = max(20, int(width * TITLE_CHARS_PER_INCH))
    lines: list[str] = []
    for line in text.split("\n"):
        current = ""
        for part in _short(line, MAX_TITLE).split(" · "):  # broken after a " ·" where it can be
            if not current or len(current) + 3 + len(part) <= room:
                current = f"{current} · {part}" if current else part
                continue
            tail = current + " ·"
            lines += [tail] if len(tail) <= room else textwrap.wrap(current, room,
                                                                    break_on_hyphens=False)
            current = part
        lines += textwrap.wrap(current, room, break_on_hyphens=False) or [""]
    return "\n".join(lines)


@dataclass(frozen=True)
class Curve:
    """One line of a :func:`curves` picture; ``low``/``high`` (both or neither) draw its band."""

    label: str
    y: Sequence[float]
    low: Sequence[float] | None = None
    high: Sequence[float] | None = None


def plot_format(path: str | Path) -> str:
    """``png`` or ``svg`` from the file name, and a target that can be written: checked
    before any work is done (a folder that is missing or not writable, a target that is
    not a regular file, or a symbolic link: one line).

    A picture is never written through a symbolic link (unlike the encounter file, which
    is the user's own and documented to be): a link planted where a picture is expected
    would make the command overwrite whatever it points to."""
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        raise UsageError(Msg("plot.suffix", path=str(path)))
    import os
    import stat

    from sevendag_cli.files import Unreadable, kind_of, os_reason, stat_or_none

    try:
        lst = os.lstat(path)
    except (OSError, ValueError):
        lst = None
    if lst is not None and stat.S_ISLNK(lst.st_mode):
        raise UsageError(Msg("plot.symlink", path=str(path)))
    try:
        st = stat_or_none(path)
    except Unreadable:
        st = None  # said when written
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise UsageError(Msg("common.file.not_regular_target", path=str(path), kind=kind_of(st.st_mode)))
    if st is not None and not os.access(path, os.W_OK):
        raise UsageError(Msg("common.file.read_only", path=str(path)))
    folder = Path(path).parent
    try:
        fst = os.stat(folder)
        if not stat.S_ISDIR(fst.st_mode):
            raise NotADirectoryError(20, "not a folder")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise PermissionError(13, "permission denied")
    except (OSError, ValueError) as exc:
        raise UsageError(Msg("plot.folder", path=str(path), folder=str(folder),
                             reason=os_reason(exc))) from None
    return suffix


_TEMP_CONFIG: list[str] = []


def _config_dir() -> str:
    """Where matplotlib keeps its configuration and font cache: the project's cache folder
    (``matplotlib`` in it), else a temporary folder removed at exit; never ``$HOME``."""
    import os

    from sevendag_cli.folders import cache_dir

    top = cache_dir()
    if top is not None:
        folder = top / "matplotlib"
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            if folder.is_dir() and os.access(folder, os.W_OK | os.X_OK):
                return str(folder)
        except (OSError, ValueError):
            pass
    if not _TEMP_CONFIG:
        import atexit
        import shutil
        import tempfile

        _TEMP_CONFIG.append(tempfile.mkdtemp(prefix="sevendag-matplotlib-"))
        atexit.register(shutil.rmtree, _TEMP_CONFIG[0], True)
    return _TEMP_CONFIG[0]


def _pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend; one line saying how to install it if missing.

    matplotlib writes its configuration and font cache in the project's cache folder, not in
    ``$HOME`` (:func:`_config_dir`: a user's ``matplotlibrc`` there is not read either, nor one
    in the current folder), and
    every text is plain text, never TeX (a fighter's name ``$x^{$`` is shown as typed)."""
    import os

    first = "matplotlib" not in sys.modules
    if first:
        import logging

        os.environ["MPLCONFIGDIR"] = _config_dir()
        # a matplotlibrc in the current folder is read at import, whatever MPLCONFIGDIR says:
        # its complaints are not ours to print, and its settings are dropped just below
        logging.getLogger("matplotlib").setLevel(logging.CRITICAL + 1)
    try:
        import matplotlib
    except ImportError:
        raise UsageError(Msg("plot.needs_matplotlib", install=install_command("plot"))) from None
    if first:
        matplotlib.rcdefaults()  # matplotlib's own defaults: nothing from a file in the folder
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    matplotlib.rcParams["text.usetex"] = False
    matplotlib.rcParams["text.parse_math"] = False
    return plt


def require() -> None:
    """Fail now (one line) if matplotlib is missing, before a long computation."""
    _pyplot()


def _numeric(x: Sequence[Any]) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in x)


def _save(fig: Any, path: str | Path) -> None:
    from sevendag_cli.store import write_bytes_atomic

    fmt = plot_format(path)
    buffer = io.BytesIO()
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}  # the same bytes every time
    import warnings

    with warnings.catch_warnings():  # a layout that does not fit (long names) is no error line
        warnings.simplefilter("ignore")
        fig.savefig(buffer, format=fmt, metadata=metadata)
    _pyplot().close(fig)
    write_bytes_atomic(Path(path), buffer.getvalue())


def _percent_axis(axis: Any) -> None:
    from matplotlib.ticker import PercentFormatter

    axis.set_major_formatter(PercentFormatter(1.0))


def _integer_ticks(ax: Any, x: Sequence[Any]) -> None:
    """An axis of whole numbers ticked at whole numbers only: at each value when they are few
    (a sweep of 8 and 9 is ticked 8, 9, not 8.2, 8.4…), else wherever matplotlib likes."""
    from matplotlib.ticker import MaxNLocator

    values = sorted(set(x))
    if len(values) <= MAX_TICKS:
        ax.set_xticks(values, [str(v) for v in values])
    else:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))


def curves(path: str | Path, x: Sequence[Any], curves: Sequence[Curve], *, title: str,
           x_label: str, y_label: str, percent: bool = True, mark: float | None = 0.5,
           x_mark: Any = None, x_mark_label: str = "", keep_ticks: Sequence[int] = (),
           joined: bool = True) -> None:
    """Lines over ``x``, each with its band; ``mark``: a dotted horizontal line (50%);
    ``x_mark``: a value of ``x`` marked by a vertical line labelled ``x_mark_label`` (the fair value);
    ``keep_ticks``: positions of ``x`` labelled however many values there are (the swing's start and
    initiative).  ``joined=False``: values that are not a scale (``1d6``, ``2d4``, ``1d8``): a
    point per value with its interval as an error bar, nothing drawn between them.  Whole
    numbers are ticked at whole numbers."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
    positions = list(x) if _numeric(x) else list(range(len(x)))
    shift = 0.08 if not joined and len(curves) > 1 else 0.0  # side by side, not on each other
    for k, curve in enumerate(curves):
        if not joined:
            at = [p + (k - (len(curves) - 1) / 2) * shift for p in positions]
            errors = None
            if curve.low is not None and curve.high is not None:
                errors = [[max(0.0, y - lo) for y, lo in zip(curve.y, curve.low, strict=True)],
                          [max(0.0, hi - y) for y, hi in zip(curve.y, curve.high, strict=True)]]
            ax.errorbar(at, list(curve.y), yerr=errors, fmt="o", markersize=5, capsize=4,
                        label=_short(curve.label))
            continue
        (line,) = ax.plot(positions, list(curve.y), marker="o", markersize=3,
                          label=_short(curve.label))
        if curve.low is not None and curve.high is not None:
            ax.fill_between(positions, list(curve.low), list(curve.high), alpha=0.25,
                            color=line.get_color(), linewidth=0)
    if _numeric(x) and all(isinstance(v, int) for v in x):
        _integer_ticks(ax, x)
    if not _numeric(x):
        step = -(-len(x) // MAX_TICKS)  # a label every ``step`` values: at most MAX_TICKS
        ticks = sorted({*range(0, len(x), step), *(i for i in keep_ticks if 0 <= i < len(x))})
        if step > 1:  # a kept tick's neighbours in the regular sequence would crowd it, and
            # so would a kept tick closer to another (the swing's start and initiative: the
            # first is labelled)
            kept: list[int] = []
            for k in sorted(i for i in keep_ticks if 0 <= i < len(x)):
                if not kept or k - kept[-1] >= step:
                    kept.append(k)
            ticks = [i for i in ticks if i in kept or all(abs(i - k) >= step for k in kept)]
        ax.set_xticks([positions[i] for i in ticks], [_short(x[i]) for i in ticks],
                      rotation=45 if len(x) > 8 else 0)
    if mark is not None:
        ax.axhline(mark, color="grey", linestyle=":", linewidth=1)
    if x_mark is not None and x_mark in list(x):
        where = x_mark if _numeric(x) else list(x).index(x_mark)
        ax.axvline(where, color="black", linestyle="--", linewidth=1)
        ax.annotate(x_mark_label, (where, 0.02), xycoords=("data", "axes fraction"),
                    xytext=(4, 0), textcoords="offset points", fontsize=8)
    if percent:
        ax.set_ylim(0, 1)
        _percent_axis(ax.yaxis)
    ax.set_title(_title(title, fig.get_figwidth()))
    ax.set_xlabel(_short(x_label, MAX_TITLE))
    ax.set_ylabel(_short(y_label, MAX_TITLE))
    ax.grid(True, alpha=0.3)
    if len(curves) > 1:
        ax.legend()
    _save(fig, path)


def bars(path: str | Path, x: Sequence[Any], y: Sequence[float], *, title: str, x_label: str,
         y_label: str, percent: bool = True) -> None:
    """A bar per ``x`` (a distribution: the rounds a fight lasts)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
    positions = list(x) if _numeric(x) else list(range(len(x)))
    ax.bar(positions, list(y), width=0.9 if _numeric(x) else 0.8, color="tab:blue")
    if not _numeric(x):
        ax.set_xticks(positions, [_short(v) for v in x])
    if percent:
        _percent_axis(ax.yaxis)
    ax.set_title(_title(title, fig.get_figwidth()))
    ax.set_xlabel(_short(x_label, MAX_TITLE))
    ax.set_ylabel(_short(y_label, MAX_TITLE))
    ax.grid(True, axis="y", alpha=0.3)
    _save(fig, path)


def rounds_and_winners(path: str | Path, x: Sequence[int], y: Sequence[float],
                       winners: Sequence[tuple[str, float, float, float]], *, title: str,
                       x_label: str, y_label: str, win_label: str) -> None:
    """A fight's odds at a glance: who wins (a bar per fighter, its interval as an error bar and
    its percentage written) beside the rounds distribution, whose axis ends where the data end
    (the rounds with some weight), not at the round cap.  ``winners``: (name, P(win), low, high)."""
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 4.2), layout="constrained",
                                      gridspec_kw={"width_ratios": [1, 2.6]})
    names = [_short(name) for name, *_ in winners]
    p = [w[1] for w in winners]
    errors = [[max(0.0, w[1] - w[2]) for w in winners], [max(0.0, w[3] - w[1]) for w in winners]]
    positions = list(range(len(winners)))
    left.bar(positions, p, yerr=errors, capsize=4, color=["tab:blue", "tab:orange"][:len(p)] or None)
    for i, w in enumerate(winners):
        left.annotate(f"{100 * w[1]:.1f}%", (i, w[3]), xytext=(0, 4), textcoords="offset points",
                      ha="center", fontsize=9)
    left.set_xticks(positions, names)
    left.set_ylim(0, 1.1)
    _percent_axis(left.yaxis)
    left.set_ylabel(_short(win_label, MAX_TITLE))
    left.grid(True, axis="y", alpha=0.3)
    pairs = [(r, v) for r, v in zip(x, y, strict=True) if v > 0]
    total = sum(v for _, v in pairs)
    tail = 0.0
    while len(pairs) > 1 and tail + pairs[-1][1] < 1e-4 * total:  # too small to see: the axis ends
        tail += pairs.pop()[1]
    if pairs:
        right.bar([r for r, _ in pairs], [v for _, v in pairs], width=0.9, color="tab:blue")
        right.set_xlim(pairs[0][0] - 0.6, pairs[-1][0] + 0.6)
    _percent_axis(right.yaxis)
    right.set_xlabel(_short(x_label, MAX_TITLE))
    right.set_ylabel(_short(y_label, MAX_TITLE))
    right.grid(True, axis="y", alpha=0.3)
    fig.suptitle(_title(title, fig.get_figwidth()))
    _save(fig, path)


def distribution(path: str | Path, x: Sequence[int], equal: Sequence[float],
                 at_least: Sequence[float], *, title: str, x_label: str, equal_label: str,
                 at_least_label: str, mean: float) -> None:
    """An exact distribution (``roll --odds``): a bar for P(= n), a step line for P(≥ n),
    a dashed line at the mean; both percentages, P(≥ n) on its own axis (0 to 100%).
    The texts are text, never mathtext (a ``$`` is drawn as it is)."""
    x_label, equal_label, at_least_label = (
        _short(v, MAX_TITLE) for v in (x_label, equal_label, at_least_label))
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
    ax.bar(list(x), list(equal), width=0.9, color="tab:blue", label=equal_label)
    ax.axvline(mean, color="grey", linestyle="--", linewidth=1)
    _percent_axis(ax.yaxis)
    ax.set_ylabel(equal_label, color="tab:blue")
    ax.set_xlabel(x_label)
    ax.set_title(_title(title, fig.get_figwidth()))
    ax.grid(True, axis="y", alpha=0.3)
    right = ax.twinx()
    right.step(list(x), list(at_least), where="mid", color="tab:orange")
    right.set_ylim(0, 1.02)
    _percent_axis(right.yaxis)
    right.set_ylabel(at_least_label, color="tab:orange")
    if len(x) <= 30:
        ax.set_xticks(list(x), [str(v) for v in x], rotation=45 if len(x) > 15 else 0)
    ax.set_xlim(min(x) - 0.6, max(x) + 0.6)
    _save(fig, path)


def label_colour(rgba: Sequence[float]) -> str:
    """Black or white, whichever reads better on a cell of colour ``rgba`` (its luminance)."""
    red, green, blue = rgba[:3]
    return "black" if 0.2126 * red + 0.7152 * green + 0.0722 * blue > 0.5 else "white"


@dataclass(frozen=True)
class HeatPanel:
    """A second grid under a :func:`heat_map` (``matrix --exploit``: what each sheet gives
    away), on its own sequential scale from 0 (white) to its largest value; ``values`` are
    drawn as they are (points), ``None`` is an empty cell; ``extra`` its own last column;
    ``missing`` as :func:`heat_map`'s."""

    values: Sequence[Sequence[float | None]]
    title: str
    value_label: str
    extra: tuple[str, Sequence[float | None]] | None = None
    missing: Sequence[Sequence[bool]] | None = None


EMPTY_CELL = "#8c8c8c"
"""An empty cell (a matrix's diagonal: no fighter fights itself): a mid grey, never a colour of
the scale (whose middle, 50%, is white)."""


def _grid(values: Sequence[Sequence[float | None]],
          extra: tuple[str, Sequence[float | None]] | None) -> Any:
    import numpy as np

    rows = [[np.nan if v is None else float(v) for v in row] for row in values]
    if extra is not None:
        rows = [[*row, np.nan if e is None else float(e)] for row, e in zip(rows, extra[1], strict=True)]
    return np.array(rows)


def _panel(ax: Any, fig: Any, rows: Sequence[str], columns: Sequence[str],
           values: Sequence[Sequence[float | None]], *, cmap: Any, vmin: float | None,
           vmax: float | None, label: Any, value_label: str, percent: bool,
           marked: Sequence[Sequence[bool]] | None = None, mark: str = "~",
           extra: tuple[str, Sequence[float | None]] | None = None,
           missing: Sequence[Sequence[bool]] | None = None) -> Any:
    """One grid: its cells coloured and labelled, empty cells grey and marked ``–`` (a
    ``missing`` one, not computed, grey and hatched, with no label), and ``extra`` (a matrix's
    mean) as a last column set apart by a white rule."""
    grid = _grid(values, extra)
    image = ax.imshow(grid, cmap=cmap.with_extremes(bad=EMPTY_CELL), vmin=vmin, vmax=vmax)
    shown = [_short(c) for c in columns] + ([_short(extra[0])] if extra is not None else [])
    ax.set_xticks(range(len(shown)), shown, rotation=45, ha="right")
    ax.set_yticks(range(len(rows)), [_short(r) for r in rows])
    for i in range(len(rows)):
        for j in range(grid.shape[1]):
            v = None if grid[i][j] != grid[i][j] else float(grid[i][j])  # NaN: empty
            flagged = marked is not None and j < len(columns) and marked[i][j]
            if missing is not None and j < len(columns) and missing[i][j]:  # not computed
                from matplotlib.patches import Rectangle

                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="xx",
                                       edgecolor="white", linewidth=0))
                continue
            if len(rows) > 20:
                if flagged:  # too small for a label: hatched
                    from matplotlib.patches import Rectangle

                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///",
                                           linewidth=0))
                continue
            if v is None:
                if j < len(columns):
                    ax.text(j, i, "–", ha="center", va="center", fontsize=8, color="white")
                continue
            text = label(v)
            ax.text(j, i, mark + text if flagged else text, ha="center", va="center",
                    fontsize=8, color=label_colour(image.cmap(image.norm(v))))
    if extra is not None:
        ax.axvline(len(columns) - 0.5, color="white", linewidth=4)
    bar = fig.colorbar(image, ax=ax)
    bar.set_label(_short(value_label, MAX_TITLE))
    if percent:
        _percent_axis(bar.ax.yaxis)
    return image


def heat_map(path: str | Path, rows: Sequence[str], columns: Sequence[str],
             values: Sequence[Sequence[float | None]], *, title: str, value_label: str,
             percent: bool = True, marked: Sequence[Sequence[bool]] | None = None,
             mark: str = "~", x_label: str | None = None, y_label: str | None = None,
             curve: Sequence[tuple[float, float]] | None = None, curve_label: str = "50/50",
             extra: tuple[str, Sequence[float | None]] | None = None,
             below: HeatPanel | None = None,
             missing: Sequence[Sequence[bool]] | None = None) -> None:
    """A grid of values (None: an empty cell, the diagonal of a matrix: grey, marked ``–``),
    each cell labelled; a cell ``marked[i][j]`` has ``mark`` before its label (a simulated cell
    of a matrix); a cell ``missing[i][j]`` (its value None: a matrix's cell not computed) grey
    and hatched, with no label; ``extra``: a last column (label, values) set apart (a matrix's mean);
    ``below``: a second grid of the same rows and columns under it (``matrix --exploit``).

    A colour-blind-safe diverging map (``RdBu``: red for 0%, white at 50%, blue for 100%),
    each label black or white, whichever reads better on its cell.  ``curve``: points
    (column position, row position) joined by a line (a sweep grid's 50/50 curve)."""
    plt = _pyplot()
    n_columns = len(columns) + (1 if extra is not None else 0)
    width = max(4.0, 0.6 * n_columns + 2)
    height = max(4.0, 0.6 * len(rows) + 2 + (0.6 if curve else 0))
    if below is None:
        fig, ax = plt.subplots(figsize=(width + 1, height), layout="constrained")
    else:
        fig, (ax, low) = plt.subplots(2, 1, figsize=(width + 1, 2 * height), layout="constrained")

    def percent_label(v: float) -> str:
        return f"{100 * v:.0f}" if percent else f"{v:.2g}"

    _panel(ax, fig, rows, columns, values, cmap=plt.get_cmap("RdBu"),
           vmin=0.0 if percent else None, vmax=1.0 if percent else None, label=percent_label,
           value_label=value_label, percent=percent, marked=marked, mark=mark, extra=extra,
           missing=missing)
    if curve:
        ax.plot([x for x, _ in curve], [y for _, y in curve], color="black", linewidth=2,
                linestyle="--", marker="o", markersize=3, label=curve_label)
        ax.legend(loc="upper left", bbox_to_anchor=(0, -0.12) if x_label else (0, -0.08))
    if x_label is not None:
        ax.set_xlabel(_short(x_label, MAX_TITLE))
    if y_label is not None:
        ax.set_ylabel(_short(y_label, MAX_TITLE))
    if below is not None:
        drawn = [v for row in below.values for v in row if v is not None]
        if below.extra is not None:
            drawn += [v for v in below.extra[1] if v is not None]
        _panel(low, fig, rows, columns, below.values, cmap=plt.get_cmap("Purples"), vmin=0.0,
               vmax=max([*drawn, 1e-9]), label=lambda v: f"{v:.1f}",
               value_label=below.value_label, percent=False, extra=below.extra,
               missing=below.missing)
        low.set_title(_title(below.title, fig.get_figwidth()), fontsize=10)
    fig.suptitle(_title(title, fig.get_figwidth()))  # centred on the picture, colour bar included
    _save(fig, path)


def report(path: str | Path, lang: str) -> None:
    """The picture written, on stderr."""
    sys.stderr.write(Msg("plot.written", path=str(path)).render(lang) + "\n")
