"""The swing picture's x axis (``fight --odds --plot``): the start and the initiative are
labelled in a short fight; in a long one, where the labels are thinned, they are two ticks a
value apart and would be drawn over each other, so only the start is labelled there."""

from __future__ import annotations

import re
from importlib.util import find_spec
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(find_spec("matplotlib") is None, reason="matplotlib is not installed")
# (find_spec: whether it is installed, without importing it while the tests are collected)


def tick_labels(svg: Path) -> list[str]:
    """The tick labels drawn on the x axis (matplotlib's SVG: each text as a comment, in the
    group of its tick)."""
    text = svg.read_text("utf-8")
    axis = text[text.index('id="matplotlib.axis_1"'):text.index('id="matplotlib.axis_2"')]
    return re.findall(r"<!-- (.*?) -->", axis)


def swing(path: Path, rounds: int) -> list[str]:
    from sevendag_cli.render import plot

    x = ["start", "init", *(str(r) for r in range(1, rounds + 1))]
    y = [0.5] * len(x)
    plot.curves(path, x, [plot.Curve("A", y, y, y)], title="t", x_label="round",
                y_label="P(win)", keep_ticks=[0, 1])
    return tick_labels(path)


def test_a_short_fight_labels_the_start_and_the_initiative(tmp_path: Path) -> None:
    labels = swing(tmp_path / "short.svg", 11)
    assert labels[:3] == ["start", "init", "1"]


def test_a_long_fight_labels_the_start_not_the_initiative_beside_it(tmp_path: Path) -> None:
    labels = swing(tmp_path / "long.svg", 47)
    assert labels[0] == "start" and "init" not in labels
    assert "47" in labels or "46" in labels  # the regular labels run to the end
