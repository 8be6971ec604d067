"""JSON text of the documents the tool writes: one encoder for every output.

msgspec's encoder (a dependency already: the record types) writes the same
text as ``json.dumps(doc, ensure_ascii=False)`` — keys in order, text as it
is, control characters escaped — about ten times faster, with one difference:
a float is written in the shortest form that reads back exactly, ``1e-6``
rather than ``1e-06``.  Indented (two spaces) for a person at a terminal,
compact in a pipe.
"""

from __future__ import annotations

from typing import Any

import msgspec


def json_text(doc: Any, indent: bool = False) -> str:
    """``doc`` (dicts, lists, texts, numbers, booleans, None) as JSON text, one line unless ``indent``."""
    raw = msgspec.json.encode(doc)
    if indent:
        raw = msgspec.json.format(raw, indent=2)
    return raw.decode()
