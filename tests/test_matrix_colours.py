"""``matrix``'s terminal colours: the picture's diverging map (``RdBu``: red below
50 %, near white at 50 %, blue above), not red–green (the classic colour-blind trap); the
number black or white, whichever reads better; nothing when colour is off."""

from __future__ import annotations

import io
import re

import pytest

from tests.helpers import run


def coloured_matrix() -> str:
    from rich.console import Console

    import sevendag_cli.library as sd
    from sevendag_cli.render.rich_matrix import render_matrix

    roster = sd.matrix(["A", "B"], ruleset="d20", jobs=1).roster
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, color_system="truecolor", width=80,
                      highlight=False, markup=False, emoji=False)
    render_matrix(console, roster, "en")
    return buffer.getvalue()


def test_cells_are_red_below_even_and_blue_above(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    text = coloured_matrix()
    backgrounds = {tuple(int(x) for x in m) for m in re.findall(r"48;2;(\d+);(\d+);(\d+)", text)}
    assert backgrounds, text  # colour on: every cell has a background
    for red, green, blue in backgrounds:
        assert not (green > red + 30 and green > blue + 30), (red, green, blue)  # no green
    # A (45.6 %) against B: reddish; B (54.4 %) against A: bluish
    assert any(r > b for r, _, b in backgrounds) and any(b > r for r, _, b in backgrounds)


def test_heat_is_the_pictures_map() -> None:
    from sevendag_cli.render.rich_matrix import _heat, heat_rgb

    low, even, high = heat_rgb(0.0), heat_rgb(0.5), heat_rgb(1.0)
    assert low[0] > low[2] and high[2] > high[0]  # red, blue
    assert max(even) - min(even) < 10 and min(even) > 230  # near white
    assert _heat(0.5).color is not None and _heat(0.5).color.name == "black"
    assert _heat(0.0).color is not None and _heat(0.0).color.name == "white"
    assert _heat(1.0).color is not None and _heat(1.0).color.name == "white"
    matplotlib = pytest.importorskip("matplotlib")
    cmap = matplotlib.colormaps["RdBu"]
    from sevendag_cli.render.plot import label_colour

    for i in range(21):
        p = i / 20
        drawn = [round(255 * v) for v in cmap(p)[:3]]
        assert all(abs(x - y) <= 3 for x, y in zip(drawn, heat_rgb(p), strict=True)), p
        style = _heat(p)
        assert style.color is not None and style.color.name == label_colour(cmap(p)), p


def test_no_colour_in_a_pipe_or_with_no_color() -> None:
    result = run("matrix", "A", "B", "-r", "d20", "--jobs", "1")  # NO_COLOR set, and a pipe
    assert result.exit_code == 0 and "\x1b[" not in result.stdout
