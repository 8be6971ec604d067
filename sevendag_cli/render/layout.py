"""Lines that fit the terminal: word wrapping with hanging indents, glued words, rows and columns.

Rich wraps a long line at the console's width and starts the rest at column 0,
so a rule tag (``[S-04]``) or half a band name can end up alone on a line.
Every line of the step-by-step display goes through :func:`wrap` instead:

* a line breaks only at spaces; the rest of a line is indented under it (its
  own indent plus ``hang``), never at column 0;
* words joined by :data:`GLUE` (a control character, shown as a space) stay on one
  line: a die and its face (``d20 8``), a label and its value (``STR +1``), a
  short phrase.  Only a glued group wider than a whole line is broken, at its
  glue;
* a rule tag is joined to the word before it by :data:`TIGHT` (``attack  [S-04]``),
  which never breaks: only a single word (or tag) wider than a line is cut, after a ``/``
  when it has one (a path breaks between its folders, never inside a name);
* no line ends with spaces, and none is wider than the console.

:func:`print_rows` lays out ``key  value`` rows (the fighters' states,
``rulesets show``) with values wrapped under their column; :func:`print_columns`
prints a small table whose columns are aligned when they fit, else each row
on two lines.  Text from a file goes through :func:`sevendag_cli.text.visible` first: its control
characters are made visible (``\\x1b``), so it can neither move the cursor nor
carry a :data:`GLUE` of its own.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

GLUE = "\x1f"
"""A space that does not break (the unit separator, never in text shown from a file)."""
TIGHT = "\x1e"
"""A space that breaks even less than :data:`GLUE`: between a word and its rule tag."""

MIN_WIDTH = 30
"""Narrower consoles are laid out as if this wide (lines then fold, as the terminal wraps)."""

def glued(text: str) -> str:
    """``text`` whose spaces never break (for a short phrase: ``penalty -1``)."""
    return text.replace(" ", GLUE)


def _width(plain: str) -> int:
    return cell_len(plain.replace(GLUE, " ").replace(TIGHT, " "))


_SPACES = (" ", GLUE, TIGHT)
_NEXT = {" ": GLUE, GLUE: TIGHT}
"""Where a group too wide for a line breaks next: spaces, then glue, then tight glue, then anywhere."""


def _runs(plain: str, start: int, end: int, sep: str) -> list[tuple[int, int, int]]:
    """The words of ``plain[start:end]`` split at ``sep``: (separator start, word start, word end).

    Split at :data:`TIGHT`, a rule tag's first ID stays with the word before it.
    """
    out: list[tuple[int, int, int]] = []
    i = start
    while i < end:
        j = i
        while j < end and plain[j] == sep:
            j += 1
        if j >= end:
            break
        k = j
        while k < end and plain[k] != sep:
            k += 1
        if sep == TIGHT and out and plain[j] == "[":
            out[-1] = (out[-1][0], out[-1][1], k)
        else:
            out.append((i, j, k))
        i = k
    return out


class _Filler:
    """Greedy filling of lines with the words of one text."""

    def __init__(self, plain: str, width: int, first: int, cont: int) -> None:
        self.plain = plain
        self.width = width
        self.cont = cont
        self.lines: list[tuple[int, list[tuple[int, int]]]] = []
        self.indent = first
        self.used = first
        self.segments: list[tuple[int, int]] = []

    def newline(self) -> None:
        self.lines.append((self.indent, self.segments))
        self.indent = self.used = self.cont
        self.segments = []

    def place(self, start: int, end: int, sep: str) -> None:
        """Place ``plain[start:end]``, breaking at ``sep`` (then at glue, then anywhere)."""
        for s, a, b in _runs(self.plain, start, end, sep):
            word = _width(self.plain[a:b])
            gap = _width(self.plain[s:a]) if self.segments else 0
            if self.used + gap + word <= self.width:
                self.segments.append((s if self.segments else a, b))
                self.used += gap + word
                continue
            if self.segments:
                self.newline()
            if self.used + word <= self.width:
                self.segments.append((a, b))
                self.used += word
            elif sep in _NEXT:
                self.place(a, b, _NEXT[sep])
            else:
                self.cut(a, b)

    def cut(self, start: int, end: int) -> None:
        """A word wider than a line: as many characters as fit on each line, broken after
        the last ``/`` that fits when there is one (a path breaks between its folders, never
        inside a name), else anywhere (no space at a line's end or start)."""
        a = start
        while a < end:
            if a > start:
                while a < end and self.plain[a] in _SPACES:
                    a += 1
                if a >= end:
                    return
            i = a
            while i < end and self.used + _width(self.plain[a:i + 1]) <= self.width:
                i += 1
            if i >= end:
                self.segments.append((a, end))
                self.used += _width(self.plain[a:end])
                return
            i = max(i, a + 1)  # not a cell left: one character all the same
            slash = self.plain.rfind("/", a, i)
            b = slash + 1 if slash >= a else i
            trimmed = b
            while trimmed > a and self.plain[trimmed - 1] in _SPACES:
                trimmed -= 1
            self.segments.append((a, trimmed))
            self.newline()
            a = b


def wrap(text: Text, width: int, hang: int = 4, cont: int | None = None) -> list[Text]:
    """``text`` as lines of at most ``width`` cells (see the module's docstring).

    The first line keeps the text's leading spaces; the others are indented by
    ``cont`` cells, by default those leading spaces plus ``hang``.
    """
    width = max(width, MIN_WIDTH)
    plain = text.plain
    lead = len(plain) - len(plain.lstrip(" "))
    if cont is None:
        cont = lead + hang
    cont = min(cont, width // 2)
    filler = _Filler(plain, width, min(lead, width // 2), cont)
    filler.place(lead, len(plain), " ")
    if filler.segments or not filler.lines:
        filler.lines.append((filler.indent, filler.segments))
    out: list[Text] = []
    for indent, segments in filler.lines:
        line = Text(" " * indent)
        merged: list[tuple[int, int]] = []
        for a, b in segments:  # one slice per run of adjacent segments: fewer style changes
            if merged and merged[-1][1] == a:
                merged[-1] = (merged[-1][0], b)
            else:
                merged.append((a, b))
        for a, b in merged:
            line.append_text(text[a:b])
        line.plain = line.plain.replace(GLUE, " ").replace(TIGHT, " ")  # same length: styles kept
        out.append(line)
    return out


def print_wrapped(console: Console, text: Text, hang: int = 4, cont: int | None = None) -> None:
    """Print ``text`` wrapped to the console's width (:func:`wrap`)."""
    for line in wrap(text, console.width, hang, cont):
        console.print(line, soft_wrap=True)


def print_line(console: Console, text: str | Text, hang: int = 2) -> None:
    """One line of a display (a plain string as it is), wrapped under itself."""
    print_wrapped(console, text if isinstance(text, Text) else Text(text), hang=hang)


def print_rows(
    console: Console, rows: Sequence[tuple[Text, Text]], indent: int = 1, gap: int = 2,
) -> None:
    """``key  value`` rows, keys padded to one column, each value wrapped under its column.

    A key wider than a third of the line gets a line of its own, its value below.
    """
    if not rows:
        return
    width = max(console.width, MIN_WIDTH)
    limit = width // 3
    widths = [_width(k.plain) for k, _ in rows]
    key_width = max((kw for kw in widths if kw <= limit), default=0)
    column = indent + key_width + gap
    for (key, value), kw in zip(rows, widths, strict=True):
        if kw > limit:
            print_wrapped(console, Text(" " * indent) + key, hang=2)
            print_wrapped(console, Text(" " * column) + value, cont=column)
            continue
        line = Text(" " * indent) + key + Text(" " * (key_width - kw + gap))
        line.append_text(value)
        print_wrapped(console, line, cont=column)


def print_columns(
    console: Console, headers: Sequence[str], rows: Sequence[Sequence[Text]], indent: int = 1,
) -> None:
    """A small table: aligned columns with a header line when they fit the width;
    else each row on two lines, its last cell (a path) on the second."""
    width = max(console.width, MIN_WIDTH)
    cells = [[Text(h, "bold") for h in headers], *[list(r) for r in rows]]
    widths = [max(_width(row[i].plain) for row in cells) for i in range(len(headers))]
    if indent + sum(widths) + 2 * (len(widths) - 1) <= width:
        for row in cells:
            line = Text(" " * indent)
            for i, cell in enumerate(row):
                line.append_text(cell)
                if i < len(row) - 1:
                    line.append(" " * (widths[i] - _width(cell.plain) + 2))
            line.plain = line.plain.replace(GLUE, " ").replace(TIGHT, " ")
            console.print(line, soft_wrap=True)
        return
    for line_of_headers in (" " * indent + "  ".join(headers[:-1]), " " * (indent + 4) + headers[-1]):
        print_wrapped(console, Text(line_of_headers, "bold"))
    for cells_of_row in rows:
        head = Text(" " * indent)
        for i, cell in enumerate(cells_of_row[:-1]):
            if i:
                head.append("  ")
            head.append_text(cell)
        print_wrapped(console, head)
        last = cells_of_row[-1]
        if " " in last.plain:  # a message (an invalid file's problem), not a path: words wrap
            print_wrapped(console, Text(" " * (indent + 4)) + last)
        else:
            print_path(console, last, indent + 4)


SEPARATORS = "".join(sorted({"/", os.sep, os.altsep or "/"}))
"""What separates a path's folders here: ``/``, and ``\\`` on Windows."""


def path_lines(path: str, width: int, separators: str = SEPARATORS) -> list[str]:
    """A path in lines of at most ``width`` cells, broken only after a separator (``/``; ``\\``
    too on Windows; a part longer than a line is cut, as a last resort): a path is never broken
    inside a name."""
    parts = re.findall(f"[^{re.escape(separators)}]*(?:[{re.escape(separators)}]|$)", path)
    lines = [""]
    for part in (p for p in parts if p):
        if lines[-1] and _width(lines[-1] + part) > width:
            lines.append("")
        lines[-1] += part
        while _width(lines[-1]) > width:  # one name wider than a line
            head = lines[-1]
            lines[-1:] = [head[:width], head[width:]]
    return lines


def print_path(console: Console, path: Text | str, indent: int) -> None:
    """A path on lines of its own under ``indent``, broken only after a ``/`` (:func:`path_lines`);
    the lines after the first indented two more."""
    plain = path.plain if isinstance(path, Text) else path
    style = path.style if isinstance(path, Text) else ""
    width = max(console.width, MIN_WIDTH)
    lines = path_lines(plain, max(10, width - indent - 2))
    for i, line in enumerate(lines):
        console.print(Text(" " * (indent + (2 if i else 0)) + line, style), soft_wrap=True)
