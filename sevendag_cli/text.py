"""Text from outside shown safely: control characters made visible.

A name, label, key, path or formula comes from a file or the command line; it
may hold an escape sequence (``\\x1b[2J`` clears the screen), a newline (a
second, forged ``sevendag: error:`` line) or a bidirectional override (text
that reads backwards).  Everything the tool shows to a person goes through
:func:`visible`, which writes such characters as Python-style escapes:
``\\x1b``, ``\\n``, ``\\r``, ``\\t``, ``\\u202e``.  What is escaped:

* every control character (Unicode category Cc: C0, DEL, C1);
* the line and paragraph separators (U+2028, U+2029: line breaks to many tools);
* every format character (category Cf: the bidirectional controls U+061C, U+200E,
  U+200F, U+202A-U+202E, U+2066-U+2069, the zero-width space U+200B and non-joiner
  U+200C, the word joiner U+2060, the soft hyphen U+00AD, the byte-order mark U+FEFF,
  the tag characters U+E0000-U+E007F...) but the zero-width joiner U+200D, which joins
  emoji; and other characters drawn as nothing (the combining grapheme joiner U+034F,
  the Hangul fillers, the Mongolian variation selectors);
* lone surrogates (a file name that is not valid UTF-8, as Python decodes it).

A character beyond U+FFFF is written ``\\U`` and eight digits (``\\U000e0041``).
Other characters stay as they are: accents, no-break spaces (French uses them),
emoji and their joiners (a subdivision flag, whose tag characters are escaped, excepted).
Backslashes are kept, so a Windows-like path reads as typed.  :func:`visible` is
idempotent: what it returns holds nothing it would change again, so escaping twice is
harmless.

Where it is applied (so that it cannot be forgotten):

* :class:`~sevendag_cli.errors.Msg` renders through it, and so does
  :func:`sevendag_cli.i18n.t` (the display's words with their parameters);
* :func:`sevendag_cli.failure.fail` passes the whole error line through it:
  an error is one line whatever its parts hold;
* each Rich renderer passes the records it is given through
  :func:`visible_data` before drawing them (names, labels, weapons, paths...).

JSON output keeps the raw strings: JSON escapes control characters itself.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, TypeVar

_FORMAT_CHARS = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200c\u200e\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
"""The Unicode format characters (category Cf, Unicode 15) but the zero-width joiner (U+200D,
which joins emoji): invisible, they can make two names look alike, hide text, or turn it
around (``tests/test_bounds.py`` checks the list against ``unicodedata``)."""
_BLANK_CHARS = "\u034f\u115f\u1160\u180b-\u180d\u180f\u3164\uffa0"
"""Other characters drawn as nothing: the combining grapheme joiner, the Hangul fillers, the
Mongolian variation selectors."""
_UNSAFE_CHARS = ("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff" + _FORMAT_CHARS + _BLANK_CHARS
                 + "]")


@cache
def _unsafe() -> re.Pattern[str]:
    """The characters :func:`visible` escapes, compiled when first used (half a millisecond, that a
    command writing JSON never needs)."""
    return re.compile(_UNSAFE_CHARS)

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

T = TypeVar("T")


def _escape(match: re.Match[str]) -> str:
    c = match.group()
    named = _NAMED.get(c)
    if named is not None:
        return named
    code = ord(c)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: object) -> str:
    """``text`` with its control characters written as escapes (see the module's docstring);
    anything else (a number, a value of a what-if) as its text."""
    if not isinstance(text, str):
        text = str(text)
    if _unsafe().search(text) is None:  # the common case: nothing to do, nothing copied
        return text
    return _unsafe().sub(_escape, text)


def is_visible(text: str) -> bool:
    """True if :func:`visible` would leave ``text`` as it is."""
    return _unsafe().search(text) is None


def visible_data(obj: T) -> T:
    """A copy of ``obj`` with every text in it made :func:`visible` (the same object if none changes).

    Walks texts, lists, tuples (named tuples too), dicts (keys too), msgspec
    Structs and dataclasses; anything else (numbers, fractions...) is kept.
    For the renderers: they draw what they are given, and they are given this.
    Most records hold nothing to escape: msgspec's JSON of the whole record (a
    fraction of a millisecond) tells, and only a record that may is walked.
    """
    try:
        import msgspec

        encoded = msgspec.json.encode(obj)
        # JSON escapes every C0 control with a backslash; what else visible() escapes is
        # written as it is (DEL, C1, the format and blank characters...)
        if b"\\" not in encoded and b"\x7f" not in encoded and (
                encoded.isascii() or _unsafe().search(encoded.decode("utf-8")) is None):
            return obj
    except (TypeError, ValueError, UnicodeError, msgspec.EncodeError):  # not JSON-able: walk it
        pass
    out: Any = _walk(obj)
    return out  # type: ignore[no-any-return]


def _walk(obj: Any) -> Any:
    if isinstance(obj, str):
        return visible(obj)
    if obj is None or isinstance(obj, (int, float)):
        return obj
    if isinstance(obj, (list, tuple)):
        items = [_walk(x) for x in obj]
        if all(a is b for a, b in zip(items, obj, strict=True)):
            return obj
        if isinstance(obj, list):
            return items
        if hasattr(obj, "_fields"):  # a named tuple
            return type(obj)(*items)
        return tuple(items)
    if isinstance(obj, dict):
        pairs = [(_walk(k), _walk(v)) for k, v in obj.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(pairs, obj.items(), strict=True)):
            return obj
        return type(obj)(pairs) if type(obj) is not dict else dict(pairs)
    fields = getattr(type(obj), "__struct_fields__", None)
    if fields is not None:  # a msgspec Struct
        changed = {}
        for name in fields:
            value = getattr(obj, name)
            new = _walk(value)
            if new is not value:
                changed[name] = new
        if not changed:
            return obj
        from msgspec.structs import replace

        return replace(obj, **changed)
    dataclass_fields = getattr(type(obj), "__dataclass_fields__", None)
    if dataclass_fields is not None:
        changed = {}
        for name, f in dataclass_fields.items():
            if not f.init:
                continue
            value = getattr(obj, name)
            new = _walk(value)
            if new is not value:
                changed[name] = new
        if not changed:
            return obj
        import dataclasses

        return dataclasses.replace(obj, **changed)
    return obj


_ASCII_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)


def ascii_int(text: str) -> int:
    """A whole number typed by the user: ASCII digits only, an optional sign, spaces around.

    ``int`` (and ``str.isdigit``, and ``\\d`` in a pattern) also take ``²``, ``①`` or ``١``;
    a number, an index or a face typed with them is refused (``ValueError``), never read
    as another number nor crashed on."""
    stripped = text.strip()
    if not _ASCII_INT.fullmatch(stripped):
        raise ValueError(f"not a whole number in ASCII digits: {text[:40]!r}")
    return int(stripped)


def is_ascii_int(text: str) -> bool:
    """``text`` is a whole number in ASCII digits (see :func:`ascii_int`), of any length."""
    return _ASCII_INT.fullmatch(text.strip()) is not None


def toml_basic(text: str) -> str:
    """``text`` inside a TOML basic string (``"..."``): backslashes, quotes and control
    characters escaped, so that what is written reads back as ``text``."""
    out = text.replace("\\", "\\\\").replace('"', '\\"')
    return "".join(f"\\u{ord(c):04x}" if ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0 else c for c in out)
