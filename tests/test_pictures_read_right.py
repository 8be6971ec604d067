"""Pictures that read right: whole numbers ticked at whole numbers, values that are not a scale
(dice formulas) drawn as points with their intervals rather than a line through them, a
matrix's diagonal grey (never the white of 50%) with a mean column set apart, and
``matrix --exploit`` drawn under the odds.

matplotlib's SVG writes each line of a text as a comment before its glyphs: what is drawn can
be read back from there."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ok

pytest.importorskip("matplotlib")


def drawn(svg: Path) -> list[str]:
    return re.findall(r"<!-- (.*?) -->", svg.read_text("utf-8"), flags=re.S)


@pytest.mark.slow
def test_an_integer_sweep_of_two_values_is_ticked_at_those_values() -> None:
    ok("sweep", "A", "B", "-r", "d20", "--vary", "A.ac=8,9", "--plot", "s.svg")
    texts = drawn(Path("s.svg"))
    assert "8" in texts and "9" in texts
    assert not any(re.fullmatch(r"8\.\d", x) for x in texts)  # no 8.2, 8.4…


def test_integer_ticks_of_a_long_range_are_whole_numbers(tmp_path: Path) -> None:
    from sevendag_cli.render import plot

    x = list(range(1, 61))
    plot.curves(tmp_path / "c.svg", x, [plot.Curve("A", [0.5] * 60)], title="t", x_label="x",
                y_label="y")
    ticks = [t for t in drawn(tmp_path / "c.svg") if re.fullmatch(r"-?[\d.]+", t)]
    assert ticks and all("." not in t for t in ticks if not t.endswith("%"))


@pytest.mark.slow
def test_a_list_sweep_is_points_with_intervals_not_a_line(monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib.axes

    calls: dict[str, int] = {"plot": 0, "errorbar": 0}
    for name in calls:
        real = getattr(matplotlib.axes.Axes, name)

        def spy(self: Any, *args: Any, _real: Any = real, _name: str = name, **kw: Any) -> Any:
            calls[_name] += 1
            return _real(self, *args, **kw)

        monkeypatch.setattr(matplotlib.axes.Axes, name, spy)
    ok("sweep", "A", "B", "-r", "d20", "--vary", "A.weapon.damage=1d6,1d8,2d4", "--plot", "l.svg")
    assert calls == {"plot": 0, "errorbar": 2}  # one set of points per fighter, nothing joined
    assert {"1d6", "1d8", "2d4"} <= set(drawn(Path("l.svg")))
    calls.update(plot=0, errorbar=0)
    ok("sweep", "A", "B", "-r", "d20", "--vary", "A.ac=8,9", "--plot", "n.svg")
    assert calls == {"plot": 2, "errorbar": 0}  # numbers are a scale: lines


@pytest.mark.slow
def test_a_matrix_picture_has_a_grey_diagonal_and_a_mean_column() -> None:
    ok("matrix", "a", "b", "a", "--ruleset", "d20", "--plot", "m.svg")
    texts = drawn(Path("m.svg"))
    assert texts.count("–") == 3  # the diagonal, marked (and grey: never 50%'s white)
    assert "mean" in texts and "54" in texts  # B's row: 54 against each A, its mean 54


def test_the_empty_cell_is_no_colour_of_the_scale() -> None:
    from matplotlib import colormaps
    from matplotlib.colors import to_rgba

    from sevendag_cli.render.plot import EMPTY_CELL

    grey = to_rgba(EMPTY_CELL)
    scale = [colormaps["RdBu"](i / 50) for i in range(51)]
    assert min(sum(abs(a - b) for a, b in zip(grey[:3], c[:3], strict=True)) for c in scale) > 0.3


@pytest.mark.slow
def test_matrix_exploit_is_drawn_under_the_odds() -> None:
    ok("matrix", "Brannoc", "Ysolde", "--exploit", "--plot", "x.svg")
    texts = drawn(Path("x.svg"))
    assert "What each sheet gives away against optimal play" in texts
    assert "22.6" in texts and "18.2" in texts  # points, as the display's table
    assert "points the row's sheet gives away" in texts
    ok("matrix", "Brannoc", "Ysolde", "--plot", "plain.svg")
    assert "What each sheet gives away against optimal play" not in drawn(Path("plain.svg"))
