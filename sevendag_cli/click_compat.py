"""Everything sevendag takes from Typer's and Click's internals, in one place.

Typer 0.28 carries its own copy of Click (``typer._click``), private: of it, Typer's
public API exports only ``BadParameter``.  The command line's own classes
(:mod:`sevendag_cli.commandline`) need a few more things, listed here and nowhere
else, each checked by ``tests/test_click_compat.py`` (which fails loudly when an
upgrade of Typer moves or changes one of them):

* the classes of Click's usage errors, to turn them into sevendag's own errors by
  their structured attributes (``option_name``, ``param``, ``ctx``), never by their text;
* the base types of integer, float and choice values, which sevendag's value types
  (:class:`WholeNumber`, :class:`Number`, :class:`OneOf`) subclass to refuse a value
  with a catalogue message (:class:`ValueRefused`);
* the default shown by the help (Typer's ``_extract_default_help_str`` and
  ``_get_default_string``), to write it in French in the plain help;
* three words of Typer's Rich help (``[default: …]``, ``[env var: …]``, ``[required]``),
  module constants of ``typer.rich_utils`` that Typer offers no other way to change:
  :func:`rich_help_words` sets them for the time of one help page.

Nothing else of sevendag imports ``typer._click`` or patches Typer.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from typer._click import Command as Command
from typer._click import exceptions as _exceptions
from typer._click import types as _types
from typer._types import TyperChoice

from sevendag_cli.errors import Msg

if TYPE_CHECKING:
    from typer._click import Context, Parameter

ClickException = _exceptions.ClickException
ClickUsageError = _exceptions.UsageError
BadParameter = _exceptions.BadParameter
MissingParameter = _exceptions.MissingParameter
NoSuchOption = _exceptions.NoSuchOption
BadOptionUsage = _exceptions.BadOptionUsage


class ValueRefused(BadParameter):
    """A value that sevendag's value types refuse, with the catalogue message that says why.

    A ``BadParameter``, so Click attaches the parameter and the context to it as it
    does to its own; :mod:`sevendag_cli.commandline` reads :attr:`msg`.
    """

    def __init__(self, msg: Msg, param: Parameter | None, ctx: Context | None) -> None:
        super().__init__(msg.render("en"), ctx=ctx, param=param)
        self.msg = msg


class WholeNumber(_types.IntParamType):
    """An integer option's value, in ASCII digits (``int()`` would also read ``١٢`` as 12)."""

    def convert(self, value: Any, param: Parameter | None, ctx: Context | None) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        from sevendag_cli.text import ascii_int

        try:
            return ascii_int(str(value))
        except ValueError:
            raise ValueRefused(Msg("usage.not_integer", value=value), param, ctx) from None


class Number(_types.FloatParamType):
    """A float option's value (``float()`` decides, as for Click's own floats)."""

    def convert(self, value: Any, param: Parameter | None, ctx: Context | None) -> Any:
        try:
            return float(value)
        except ValueError:
            raise ValueRefused(Msg("usage.not_number", value=value), param, ctx) from None


class OneOf(TyperChoice[Any]):
    """A choice's value (an enum's), refused with the choices in the catalogue's words."""

    def convert(self, value: Any, param: Parameter | None, ctx: Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except BadParameter:
            names = ", ".join(repr(str(getattr(c, "value", c))) for c in self.choices)
            raise ValueRefused(Msg("usage.not_choice", value=value, choices=names),
                               param, ctx) from None


def checked_type(kind: Any) -> Any:
    """Sevendag's own type for a parameter's Click type (integer, float, choice), else the same.

    Exact types only: a range, a path or a file keeps Click's.
    """
    if type(kind) is _types.IntParamType:
        return WholeNumber()
    if type(kind) is _types.FloatParamType:
        return Number()
    if type(kind) is TyperChoice:
        return OneOf(kind.choices, case_sensitive=kind.case_sensitive)
    return kind


def default_text(param: Any, ctx: Context) -> str:
    """The default the help shows for ``param`` (``""``: none), as Typer writes it."""
    if not hasattr(param, "_extract_default_help_str"):
        return ""
    value = param._extract_default_help_str(ctx=ctx)
    shown_as_text = isinstance(param.show_default, str)
    if not shown_as_text and (value is None or not (param.show_default or ctx.show_default)):
        return ""
    text: str = param._get_default_string(ctx=ctx, show_default_is_str=shown_as_text,
                                          default_value=value)
    return text


RICH_WORDS: dict[str, str] = {
    "DEFAULT_STRING": "[par défaut : {}]",
    "ENVVAR_STRING": "[variable d'environnement : {}]",
    "REQUIRED_LONG_STRING": "[obligatoire]",
}
"""Typer's Rich help words sevendag puts in French (``typer.rich_utils`` constants)."""


@contextmanager
def rich_help_words(words: dict[str, str]) -> Iterator[None]:
    """Typer's Rich help words replaced by ``words`` while one help page is drawn, then as before."""
    import typer.rich_utils as rich_utils

    saved = {name: getattr(rich_utils, name) for name in words}
    for name, text in words.items():
        setattr(rich_utils, name, text)
    try:
        yield
    finally:
        for name, text in saved.items():
            setattr(rich_utils, name, text)
