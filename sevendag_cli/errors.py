"""One root error type for everything a user can get wrong.

Every message is one line that names the file, key or value at fault and what
would be right.  The CLI prints ``error.render(lang)`` to stderr and exits with
``error.exit_code``: 1 for a problem with game data or state, 2 for a usage
mistake (bad option value, bad entered die).

A message is a :class:`Msg`: a key of the catalogue in
:mod:`sevendag_cli.messages` (English and French templates) and its
parameters.  ``str(error)`` is always the English text; ``error.render("fr")``
the French.  Parameters that are game data (names, formulas, paths, keys,
values) are inserted as they are; a parameter that is itself a :class:`Msg` is
rendered in the same language (here, before the catalogue fills the template:
this module imports the catalogue, never the other way round), so messages compose.  A plain ``str`` is still
accepted everywhere a message is (it is shown as is, in every language).

Every rendered message goes through :func:`sevendag_cli.text.visible`: a name,
key or path holding ``\\n`` or ``\\x1b`` is shown with them as escapes, so it can
neither break a message into two lines nor reach the terminal raw.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from sevendag_cli.text import visible

RAW = "raw"
"""The key of a message given as plain text: shown as is, whatever the language."""
LABEL = "label"
"""The key of a message that is a label by language (:meth:`Msg.label`)."""


MAX_VALUE = 40
"""Longest value shown in a message (a formula, a name, a typed text): longer ones are cut,
with an ellipsis, so that a 200,000-character formula is never a 200 KB error line."""
MAX_COMPOSED = 400
"""Longest value of the parameters that hold a path or a list the tool composed (a path,
the names to choose from, a message within the message): cut too, but later."""
_COMPOSED = frozenset({
    "path", "folder", "source", "where", "message", "reason", "hint", "detail", "error", "a",
    "b", "known", "names", "choices", "bands", "options", "allowed", "tactics", "sheets",
    "files", "changes", "args", "command", "expected", "note", "example", "valid", "used",
    "holders", "steps", "module", "keys", "fields", "folders", "signature",
})


def cut(text: str, limit: int = MAX_VALUE) -> str:
    """``text`` as a message quotes it: at most ``limit`` characters, the last an ``…`` when it
    is cut.  The one helper for every value a user gave that a message shows (through
    :class:`Msg`'s parameters, :func:`shown_value`, the prompts' refusals)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def int_text(value: int, limit: int = MAX_VALUE) -> str:
    """A whole number as a message shows it: its digits, cut as :func:`cut` cuts a text (a
    4,000-digit face typed is shown by its first 39 digits; one beyond the 4,300 digits
    Python writes out, too)."""
    if value.bit_length() <= 13_000:  # within the 4,300 digits ``str`` writes
        return cut(str(value), limit)
    digits = int(value.bit_length() * 0.30103)  # at most one too few
    lead = abs(value) // 10 ** max(0, digits - limit - 2)
    return cut(("-" if value < 0 else "") + str(lead) + "0" * limit, limit)


def _cut(key: str, value: object) -> object:
    """A parameter's value as a message shows it: a long text (or path) cut with ``…``, and so
    is a whole number of more than 40 digits (then shown as text)."""
    if isinstance(value, str | os.PathLike):
        return cut(str(value), MAX_COMPOSED if key in _COMPOSED else MAX_VALUE)
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 3 * MAX_VALUE:
        return int_text(value)
    return value


def shown_value(value: object) -> str:
    """A value as a message quotes it, whatever it is: its ``repr`` cut at ``MAX_VALUE``
    characters with ``…`` (never the whole ``repr`` of a huge list or number made first)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return int_text(value)
    try:
        import reprlib

        shown = reprlib.Repr()
        shown.maxstring = shown.maxother = 10_000  # then cut below, at its end
        shown.maxlong = 200
        text = shown.repr(value)
    except Exception:  # a repr that fails: the type says enough
        text = f"<{type(value).__name__}>"
    return cut(text)


class Msg:
    """A message of the catalogue: its key and its parameters, rendered on demand."""

    __slots__ = ("key", "params")

    def __init__(self, key: str, /, **params: object) -> None:
        self.key = key
        self.params: dict[str, object] = params

    @classmethod
    def text(cls, text: str) -> Msg:
        """A message that is already text (not translated)."""
        return cls(RAW, text=text)

    @classmethod
    def label(cls, labels: dict[str, str] | tuple[tuple[str, str], ...], fallback: str = "") -> Msg:
        """A game datum's label, shown in the message's language (``feint`` / ``feinte``)."""
        return cls(LABEL, labels=dict(labels), text=fallback)

    def render(self, lang: str = "en") -> str:
        if self.key == RAW:
            return visible(str(self.params.get("text", "")))
        if self.key == LABEL:
            labels = self.params.get("labels")
            shown = labels.get(lang) or labels.get("en") if isinstance(labels, dict) else None
            return visible(str(shown or self.params.get("text", "")))
        from sevendag_cli.messages import render  # the catalogue loads only when needed

        values = {k: v.render(lang) if isinstance(v, Msg) else _cut(k, v)
                  for k, v in self.params.items()}
        return visible(render(self.key, lang, values))

    def __str__(self) -> str:
        return self.render("en")

    def __repr__(self) -> str:
        return f"Msg({self.key!r}, {self.params!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Msg) and (self.key, self.params) == (other.key, other.params)

    __hash__ = None  # type: ignore[assignment]


def as_msg(message: str | Msg) -> Msg:
    return message if isinstance(message, Msg) else Msg.text(message)


def joined(items: Iterable[object], word: str = "or") -> object:
    """``a or b`` / ``a ou b`` (``word``: ``or`` or ``and``), nested so each language joins its way."""
    values = list(items)
    if not values:
        return ""
    out: object = values[0]
    for v in values[1:]:
        out = Msg(f"common.{word}", a=out, b=v)
    return out


def install_command(extra: str) -> Msg:
    """How to install one of sevendag's extras (``plot``, ``test``), as this copy was installed:
    ``pip install 'sevendag[plot]'`` from a package index; from a local folder (PEP 610's
    ``direct_url.json`` names it), ``pip install '.[plot]'`` in that folder (``-e`` when it
    was installed editable); both forms when it cannot be told (not installed: run from its
    sources)."""
    from importlib.metadata import PackageNotFoundError, distribution

    import msgspec

    try:
        text = distribution("sevendag").read_text("direct_url.json")
    except (PackageNotFoundError, OSError, ValueError):
        return Msg("install.either", extra=extra)
    if text is None:
        return Msg("install.index", extra=extra)
    try:
        url = msgspec.json.decode(text)
        where, local = url.get("url", ""), url.get("dir_info")
    except (msgspec.DecodeError, AttributeError):
        return Msg("install.either", extra=extra)
    if not (isinstance(where, str) and where.startswith("file://") and isinstance(local, dict)):
        return Msg("install.either", extra=extra)  # a VCS or archive URL
    from urllib.parse import urlsplit
    from urllib.request import url2pathname

    path = url2pathname(urlsplit(where).path)
    key = "install.editable" if local.get("editable") else "install.folder"
    return Msg(key, extra=extra, path=path)


class SevendagError(Exception):
    """Root of every error the tool reports to the user (never a traceback)."""

    exit_code = 1

    def __init__(self, message: str | Msg = "") -> None:
        self.msg = as_msg(message)
        super().__init__(self.msg.render("en"))

    def render(self, lang: str = "en") -> str:
        """The one-line message in ``lang`` (``en`` or ``fr``)."""
        return self.msg.render(lang)


class DataError(SevendagError):
    """A ruleset or fighter sheet that cannot be read or is invalid.

    ``source``: the file (or ``ruleset 'name'``); ``key``: the key at fault, or
    None; ``message``: what is wrong.  ``.source`` and ``.message`` are the
    English texts; ``.detail`` the message as a :class:`Msg`.
    """

    def __init__(self, source: str | Msg, key: str | None, message: str | Msg) -> None:
        where = as_msg(source)
        self.detail = as_msg(message)
        self.source = str(where)
        self.key = key
        self.message = str(self.detail)
        if key:
            super().__init__(Msg("data.at_key", source=where, key=key, message=self.detail))
        else:
            super().__init__(Msg("data.at_file", source=where, message=self.detail))


class NotFoundError(DataError):
    """A ruleset or fighter named on the command line (a name or a path) that is not found.

    A usage mistake (exit 2), like an unknown fighter of the encounter: the
    name was typed.  A name read from a file (a sheet's ``ruleset``) that is
    not found is a data problem (exit 1): the caller says which file.
    """

    exit_code = 2


class FormulaError(SevendagError):
    """A formula that does not parse or cannot be evaluated.

    ``.message`` is the English text of what is wrong, ``.detail`` the :class:`Msg`.
    """

    def __init__(self, formula: str, message: str | Msg) -> None:
        self.formula = formula
        self.detail = as_msg(message)
        self.message = str(self.detail)
        super().__init__(Msg("formula.error", formula=formula, message=self.detail))


class RollBudgetError(FormulaError):
    """A formula would roll more dice than the budget allows."""


class ExpressionError(FormulaError):
    """A dice expression typed on the command line (``roll``) that is not valid: a usage mistake."""

    exit_code = 2

    def __init__(self, formula: str, message: str | Msg) -> None:
        super().__init__(formula, message)
        self.msg = Msg("formula.expression_error", formula=formula, message=self.detail)
        self.args = (self.msg.render("en"),)


class DiceError(SevendagError):
    """An entered die face that is refused, or too few / too many faces."""

    exit_code = 2


class UsageError(SevendagError):
    """A bad option value or a combination of options that cannot work."""

    exit_code = 2


class EncounterError(SevendagError):
    """A missing, corrupted, locked or finished encounter."""


class RuleError(SevendagError):
    """A game action the rules refuse (technique still active, bad dice allocation, ...)."""
