"""Pictures' titles: a title of several lines is drawn as lines, each shortened on its
own and wrapped to the picture's width; names in it stay text (no mathtext, control characters
shown as escapes), in every kind of picture.

matplotlib's SVG writes each line of a text as a comment (``<!-- line -->``) before its glyphs:
what is drawn can be read back from there."""

from __future__ import annotations

import re
from importlib.util import find_spec
from pathlib import Path

import pytest

from tests.helpers import run

pytestmark = pytest.mark.skipif(find_spec("matplotlib") is None, reason="matplotlib is not installed")
# (find_spec: whether it is installed, without importing it while the tests are collected)


def drawn(svg: Path) -> list[str]:
    """Every text line the SVG draws, as its comments give them."""
    return re.findall(r"<!-- (.*?) -->", svg.read_text("utf-8"), flags=re.S)


@pytest.mark.slow
def test_heat_map_title_lines_are_lines_each_shortened_and_wrapped(tmp_path: Path) -> None:
    from sevendag_cli.render import plot

    target = tmp_path / "heat.svg"
    long = "word " * 40
    plot.heat_map(target, ["a", "b"], ["a", "b"], [[None, 0.4], [0.6, None]],
                  title="first line $x^{2}$ \x1b[2J\nsecond line " + long, value_label="P")
    lines = drawn(target)
    assert "first line $x^{2}$ \\x1b[2J" in lines  # its own line: text, the escape visible
    assert not any("\\n" in line for line in lines)  # no newline drawn as text
    assert any(line.startswith("second line word") for line in lines)
    room = int(5 * plot.TITLE_CHARS_PER_INCH)  # two fighters: a picture 5 inches wide
    wrapped = [line for line in lines if line.startswith(("second", "word"))]
    assert len(wrapped) >= 3 and all(len(line) <= room for line in wrapped)


def test_title_helper_shortens_each_line_on_its_own() -> None:
    from sevendag_cli.render.plot import MAX_TITLE, _title

    text = _title("a" * 300 + "\nshort", width=100)
    first, second = text.split("\n")
    assert len(first) == MAX_TITLE and first.endswith("…") and second == "short"


@pytest.mark.slow
def test_names_in_fight_and_roll_pictures_are_drawn_as_typed(tmp_path: Path) -> None:
    """Every text is text (mathtext is off): a ``$`` is not escaped to ``\\$``."""
    from sevendag_cli.render import plot

    target = tmp_path / "rounds.svg"
    plot.rounds_and_winners(target, [1, 2], [0.5, 0.5], [("$a$", 0.5, 0.4, 0.6), ("b", 0.5, 0.4, 0.6)],
                            title="costs $5\nsecond", x_label="x $", y_label="y", win_label="w")
    lines = drawn(target)
    assert "$a$" in lines and "costs $5" in lines and "second" in lines and "x $" in lines
    assert not any("\\$" in line for line in lines)
    target = tmp_path / "roll.svg"
    plot.distribution(target, [1, 2], [0.5, 0.5], [1.0, 0.5], title="$d6 \x07", x_label="n",
                      equal_label="P(= n)", at_least_label="P(>= n)", mean=1.5)
    lines = drawn(target)
    assert "$d6 \\x07" in lines and not any("\\$" in line for line in lines)


@pytest.mark.slow
def test_matrix_plot_title_is_two_lines(tmp_path: Path) -> None:
    target = tmp_path / "m.svg"
    result = run("matrix", "A", "B", "-r", "d20", "--plot", str(target))
    assert result.exit_code == 0, result.stderr
    lines = drawn(target)
    assert "Round-robin · 2 fighters, 2 matchups · d20" in lines
    assert any(line.startswith("Certified odds") for line in lines)


def test_a_long_title_line_breaks_after_a_separator() -> None:
    from sevendag_cli.render.plot import _title

    title = ("Balayage de A.ac × B.ac · probabilités certifiées · le combat mené à son terme"
             " · tolérance 1e-12")
    assert _title(title, width=6).split("\n") == [
        "Balayage de A.ac × B.ac · probabilités certifiées ·",
        "le combat mené à son terme · tolérance 1e-12"]
    assert _title(title, width=5).split("\n") == [  # no room for the " ·"
        "Balayage de A.ac × B.ac · probabilités certifiées",
        "le combat mené à son terme · tolérance 1e-12"]
