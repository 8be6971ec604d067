"""What sevendag's command classes take from Typer, through Typer's public names only.

Typer (0.26 and later) carries its own copy of Click, private (``typer._click``: "should not
be used by external applications", say its release notes), and Typer's Rich help
(``typer.rich_utils``) is not part of its documented API either.  What sevendag uses is:

* the classes named by ``cls=`` (``typer.core.TyperCommand`` and ``typer.core.TyperGroup``,
  which Typer documents as the base of any command or group class) and the hooks of Click's
  ``Command`` they keep (``parse_args``, ``resolve_command``, ``format_usage``,
  ``format_help``, ``format_options``, ``get_help_option``) — :mod:`sevendag_cli.commandline`;
* ``typer.TyperException``, the root of every error Typer's command line raises, and
  ``typer.BadParameter``, the one it exports: a usage error is told from the attributes
  Click documents for its errors (``option_name``, ``param``, ``param_type``, ``ctx``) and
  from the command's own parameters, never from its English text nor its class's name
  (:func:`usage_kind`);
* a parameter's ``type``, its ``name`` (``"int"``, ``"float"``, ``"choice"``) and ``convert``
  method — Click's documented way to write a value type: :func:`checked_type` gives integer,
  float and choice parameters sevendag's refusals (:class:`ValueRefused`, a catalogue
  message);
* a parameter's default as Click gives it (``get_default``) and its ``show_default``, to
  write the help's default in French (:func:`default_text`).

``tests/test_click_compat.py`` checks each of these against the installed Typer (it fails
loudly when an upgrade changes one) and that no module imports a private module of Typer.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from enum import Enum
from types import FunctionType
from typing import Any, Literal

import typer

from sevendag_cli.errors import Msg
from sevendag_cli.text import ascii_int

TyperError = typer.TyperException
"""The root of every error Typer's command line raises (Click's usage errors included)."""


class ValueRefused(typer.BadParameter):
    """A value that sevendag's value types refuse, with the catalogue message that says why.

    A ``typer.BadParameter``, so Click attaches the parameter and the context to it as it
    does to its own; :mod:`sevendag_cli.commandline` reads :attr:`msg`.
    """

    def __init__(self, msg: Msg, param: Any, ctx: Any) -> None:
        super().__init__(msg.render("en"), ctx=ctx, param=param)
        self.msg = msg


UsageKind = Literal["no_such_option", "option_usage", "missing", "refused"]


def usage_kind(exc: Exception, option_known: Callable[[str], bool]) -> UsageKind | None:
    """Which usage error ``exc`` is, from its documented attributes; None: not one sevendag knows.

    ``option_known(name)``: whether the command being parsed has the option ``name``.  An
    error naming an option (``option_name``) is an unknown option when the command has none
    of that name, else a misuse of a known one (a value missing, or given to a flag).  A
    refused value carries sevendag's message; a missing parameter is Click's one
    ``BadParameter`` that names the kind of parameter missing (``param_type``).
    """
    if isinstance(exc, ValueRefused):
        return "refused"
    if not isinstance(exc, TyperError):
        return None
    option = getattr(exc, "option_name", None)
    if isinstance(option, str):
        return "option_usage" if option_known(option) else "no_such_option"
    if isinstance(exc, typer.BadParameter) and hasattr(exc, "param_type") and exc.param is not None:
        return "missing"
    return None


def _whole_number(kind: Any, value: Any, param: Any, ctx: Any) -> Any:
    """An integer option's value, in ASCII digits (``int()`` would also read ``١٢`` as 12)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value

    try:
        return ascii_int(str(value))
    except ValueError:
        raise ValueRefused(Msg("usage.not_integer", value=value), param, ctx) from None


def _number(kind: Any, value: Any, param: Any, ctx: Any) -> Any:
    """A float option's value (``float()`` decides, as for Click's own floats)."""
    try:
        return float(value)
    except ValueError:
        raise ValueRefused(Msg("usage.not_number", value=value), param, ctx) from None


def _one_of(kind: Any, value: Any, param: Any, ctx: Any) -> Any:
    """A choice's value (an enum's), refused with the choices in the catalogue's words."""
    try:
        return kind.convert(value, param, ctx)
    except typer.BadParameter:
        names = ", ".join(repr(str(getattr(c, "value", c))) for c in kind.choices)
        raise ValueRefused(Msg("usage.not_choice", value=value, choices=names), param, ctx) from None


CHECKS: dict[str, Callable[[Any, Any, Any, Any], Any]] = {
    "int": _whole_number, "float": _number, "choice": _one_of}
"""Sevendag's check per Click type name: plain integers, floats and choices (a range, a path or
a file keeps Click's own)."""


def checked_type(kind: Any) -> Any:
    """Sevendag's own type for a parameter's Click type (integer, float, choice), else the same.

    A copy of Typer's type object (Typer shares one integer type between every parameter),
    whose ``convert`` — Click's method for a value type's conversion — is sevendag's: the
    copy keeps everything else (its class, name, metavar, choices).
    """
    check = CHECKS.get(getattr(kind, "name", None) or "")
    if check is None or getattr(kind, "sevendag_checked", False):
        return kind
    mine = copy.copy(kind)
    mine.convert = functools.partial(check, kind)
    mine.sevendag_checked = True
    return mine


def _default_word(param: Any, value: Any) -> str:
    """One default value as the help shows it (Typer's writing: an enum by its value, a flag
    with an off switch by its switch's name, an unset one not at all)."""
    if isinstance(value, list | tuple):
        parts = [_default_word(param, v) for v in value]
        return ", ".join(parts) if any(parts) else ""
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, FunctionType):
        return "(dynamic)"
    if getattr(param, "is_bool_flag", False):
        if param.secondary_opts:
            return _bare((param.opts if param.default else param.secondary_opts)[0])
        if not value:
            return ""
    return "" if value is None else str(value)


def _bare(option: str) -> str:
    """An option's name without its prefix (``--dry-run``: ``dry-run``), as Click splits it."""
    first = option[:1]
    if first.isalnum():
        return option
    return option[2:] if option[1:2] == first else option[1:]


def default_text(param: Any, ctx: Any) -> str:
    """The default the help shows for ``param`` (``""``: none), as Typer writes it.

    From Click's ``get_default`` (the value, not called nor converted) and ``show_default``
    (a text shown as it is, in brackets).
    """
    if isinstance(param.show_default, str):
        return f"({param.show_default})"
    if not (param.show_default or ctx.show_default):
        return ""
    resilient = ctx.resilient_parsing
    ctx.resilient_parsing = True  # as Typer does: a default is not checked for the help
    try:
        value = param.get_default(ctx, call=False)
    finally:
        ctx.resilient_parsing = resilient
    return "" if value is None else _default_word(param, value)
