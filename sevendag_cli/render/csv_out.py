"""Tables as CSV (``--csv``): RFC 4180 text on stdout, the same in every language.

A table is its header (the stable column names, documented in docs/bench.md) and its
rows, each a sequence of plain values in the header's order::

    from sevendag_cli.render.csv_out import write_csv
    write_csv(["fighter", "win_probability"], [["A", 0.4562], ["B", 0.5437]])

RFC 4180: a header row, fields separated by commas, lines ending in CRLF, a field
quoted (``"``, doubled inside) only when it holds a comma, a quote or a line break.
Values are written plainly, never as the display shows them: a whole number as
digits (no thousands separator), a decimal number as Python's shortest exact
repr (``.`` decimal, ``1e-05`` for very small ones, no ``%``), true/false, a
fraction as ``n/d``, a list as its items joined by ``;``, None as an empty field.

Text (a fighter's name, a value of a sweep) comes from files, which can be hostile:
its control characters are written as escapes, as the display writes them
(:func:`sevendag_cli.text.visible`: a CSV shown at a terminal cannot move the
cursor), and a text a spreadsheet would read as a formula (starting with ``=``,
``+``, ``-`` or ``@``) gets a leading ``'``, the usual guard (OWASP, "CSV
injection"): ``=HYPERLINK(...)`` is written ``'=HYPERLINK(...)``.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from sevendag_cli.text import visible


def plain(value: Any) -> str:
    """One value as a CSV field's text (see the module's docstring)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return ""
        return repr(value)
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, list | tuple):
        return ";".join(plain(v) for v in value)
    if isinstance(value, str):
        text = visible(value)
        return "'" + text if text.startswith(_FORMULA_START) else text
    return str(value)


# What makes a spreadsheet read a field as a formula (tab and carriage return are escaped already).
_FORMULA_START = ("=", "+", "-", "@")


def csv_text(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """The table as RFC 4180 text: the header row, then one line per row."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    width = len(header)
    for row in rows:
        if len(row) != width:
            raise ValueError(f"a CSV row has {len(row)} fields, the header {width}")
        writer.writerow([plain(v) for v in row])
    return buffer.getvalue()


def write_csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """The table on stdout (bytes as they are: no newline translation), through the guard of
    every output (:func:`sevendag_cli.streams.write_bytes`: a full disk is one line, a reader
    gone exit 141)."""
    from sevendag_cli.streams import write_bytes

    write_bytes(csv_text(header, rows).encode("utf-8"))
