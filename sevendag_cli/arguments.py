"""The library's arguments checked against their annotations, at its public entry points.

``import sevendag_cli as sd`` is used from notebooks and scripts, where nothing has parsed the
arguments: ``sd.matchup(1, 2)``, ``fight(seed="7")`` or ``round(yield_initiative="maybe")``
would otherwise fail deep inside (a bare ``TypeError``) or, worse, be played (a seed of
``1.5`` saved in the encounter, ``"maybe"`` taken for a yield).  :func:`checked` wraps an
entry point: each argument is checked against the function's own annotation before the body
runs, and a wrong one raises :class:`ArgumentTypeError` (a
:class:`~sevendag_cli.errors.UsageError`, key ``library.argument_type``) naming the function,
the argument, its value (quoted, cut at 40 characters) and the type wanted.

The annotations are the checks (one declaration, the signature mypy reads too), read when
the function is first called; what they may use:

* ``int`` (a ``bool`` is not one), ``float`` (an ``int`` or a ``float``, not a ``bool``),
  ``str``, ``bool`` (``True`` or ``False`` only), ``None``, ``object``;
* ``os.PathLike[str]``; ``Sequence[X]`` (not a ``str``, whose items would be its letters),
  ``Mapping[K, V]``, ``tuple[X, Y]`` (a sequence of that length; ``tuple[X, ...]`` of any
  length), ``Callable[...]`` (called
  later: only callable is checked); ``DiceSource`` (an object with a ``face`` method);
* unions (``X | Y``), the module's type aliases written as text (``WhatIfs``, ``Dice``...),
  expanded, and the module's own classes.

A name it does not know is a mistake of this module's caller: ``TypeError`` at the first call
(``tests/test_library_types.py`` calls every entry point).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

from sevendag_cli.errors import Msg, UsageError, shown_value

P = ParamSpec("P")
R = TypeVar("R")


class ArgumentTypeError(UsageError):
    """A library call given an argument of a type its annotation does not allow."""


# --- the annotations, parsed ---------------------------------------------------------------------


Misfit = tuple[str, object]
"""Where a value does not fit its type: the path to the part (``""``: the value itself,
``[1]``: its second item, ``['A']``: its item of key ``'A'``) and that part."""


class _Type:
    """A type an argument may have: ``test(value)`` is None when it fits, else the
    :data:`Misfit`."""

    text: str

    def test(self, value: object) -> Misfit | None:
        raise NotImplementedError


class _Plain(_Type):
    def __init__(self, text: str, fits: Callable[[object], bool]) -> None:
        self.text = text
        self.fits = fits

    def test(self, value: object) -> Misfit | None:
        return None if self.fits(value) else ("", value)


class _Union(_Type):
    def __init__(self, options: list[_Type]) -> None:
        self.options = options
        self.text = " | ".join(o.text for o in options)

    def test(self, value: object) -> Misfit | None:
        misfits = [o.test(value) for o in self.options]
        inner = []
        for misfit in misfits:
            if misfit is None:
                return None
            if misfit[0]:
                inner.append(misfit)
        return inner[0] if len(inner) == 1 else ("", value)  # an item of a container: say which


class _Items(_Type):
    """``Sequence[X]`` (or ``list[X]``): a sequence, not a text, each item an ``X``."""

    def __init__(self, name: str, item: _Type) -> None:
        self.item = item
        self.text = f"{name}[{item.text}]"

    def test(self, value: object) -> Misfit | None:
        if not isinstance(value, Sequence) or isinstance(value, str | bytes):
            return ("", value)
        for i, x in enumerate(value):
            inner = self.item.test(x)
            if inner is not None:
                return (f"[{i}]{inner[0]}", inner[1])
        return None


class _Fixed(_Type):
    """``tuple[X, Y]``: a sequence of that many items, each of its type."""

    def __init__(self, items: list[_Type]) -> None:
        self.items = items
        self.text = "tuple[" + ", ".join(i.text for i in items) + "]"

    def test(self, value: object) -> Misfit | None:
        if not isinstance(value, Sequence) or isinstance(value, str | bytes) \
                or len(value) != len(self.items):
            return ("", value)
        for i, (kind, x) in enumerate(zip(self.items, value, strict=True)):
            inner = kind.test(x)
            if inner is not None:
                return (f"[{i}]{inner[0]}", inner[1])
        return None


class _Map(_Type):
    def __init__(self, key: _Type, item: _Type) -> None:
        self.key, self.item = key, item
        self.text = f"Mapping[{key.text}, {item.text}]"

    def test(self, value: object) -> Misfit | None:
        if not isinstance(value, Mapping):
            return ("", value)
        for k, v in value.items():
            if self.key.test(k) is not None:
                return (f" (a key of {self.text})", k)
            inner = self.item.test(v)
            if inner is not None:
                return (f"[{shown_value(k)}]{inner[0]}", inner[1])
        return None


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: object) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _is_dice_source(v: object) -> bool:
    return callable(getattr(v, "face", None))


_PLAIN: dict[str, Callable[[object], bool]] = {
    "int": _is_int,
    "float": _is_number,
    "str": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, bool),
    "None": lambda v: v is None,
    "object": lambda v: True,
    "os.PathLike[str]": lambda v: isinstance(v, os.PathLike),
    "DiceSource": _is_dice_source,
}

_TOKEN = r"\s*(os\.PathLike\[str\]|\.\.\.|[A-Za-z_][A-Za-z_0-9.]*|\[|\]|,|\|)"
"""A token of an annotation's text (compiled when an annotation is first read: start-up)."""


class _Parser:
    """``X | Name[args, ...]`` read from an annotation's text; ``aliases``: the module's names."""

    def __init__(self, text: str, aliases: Mapping[str, object]) -> None:
        self.tokens = [m.group(1) for m in re.finditer(_TOKEN, text)]
        if "".join(self.tokens) != re.sub(r"\s+", "", text):
            raise TypeError(f"annotation not understood: {text!r}")
        self.at = 0
        self.aliases = aliases

    def _next(self) -> str:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def _peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def union(self) -> _Type:
        options = [self.one()]
        while self._peek() == "|":
            self._next()
            options.append(self.one())
        return options[0] if len(options) == 1 else _Union(options)

    def _args(self) -> list[_Type]:
        args: list[_Type] = []
        if self._next() != "[":
            raise TypeError("expected [")
        while True:
            args.append(self.union())
            token = self._next()
            if token == "]":
                return args
            if token != ",":
                raise TypeError(f"expected , or ] not {token!r}")

    def one(self) -> _Type:
        name = self._next()
        if name in _PLAIN:
            return _Plain(name, _PLAIN[name])
        if name in ("Sequence", "list"):
            (item,) = self._args()
            return _Items(name, item)
        if name == "tuple":
            items = self._args()
            if len(items) == 2 and items[1].text == "...":  # ``tuple[X, ...]``: any length
                return _Items("tuple", items[0])
            return _Fixed(items)
        if name == "...":
            return _Plain("...", lambda v: True)
        if name in ("Mapping", "dict"):
            key, item = self._args()
            return _Map(key, item)
        if name == "Callable":  # called later: its arguments and result are not checked here
            depth = 0
            while True:
                token = self._next()
                depth += token == "["
                depth -= token == "]"
                if depth == 0:
                    return _Plain("Callable", callable)
        alias = self.aliases.get(name)
        if isinstance(alias, str):  # a type alias written as text: ``WhatIfs: TypeAlias = "..."``
            return _parse(alias, self.aliases)
        if isinstance(alias, type):  # a class of the module (``Started``)
            return _Plain(name, lambda v: isinstance(v, alias))
        raise TypeError(f"annotation name not known to sevendag_cli.arguments: {name!r}")


def _parse(text: str, aliases: Mapping[str, object]) -> _Type:
    parser = _Parser(text, aliases)
    kind = parser.union()
    if parser._peek() is not None:
        raise TypeError(f"annotation not understood: {text!r}")
    return kind


# --- the wrapper ---------------------------------------------------------------------------------


def _described(func: Callable[..., Any]) -> tuple[str, Any, dict[str, _Type]]:
    """The name a message gives the function, its signature and each argument's type."""
    import inspect

    signature = inspect.signature(func)
    hints = {k: v for k, v in func.__annotations__.items() if k != "return"}
    kinds = {name: _parse(text if isinstance(text, str) else text.__name__, func.__globals__)
             for name, text in hints.items()}
    return func.__qualname__, signature, kinds


def _shown(signature: Any) -> str:
    """A signature as a message shows it: the names and defaults, no annotations, no ``self``."""
    empty = signature.empty
    params = [p.replace(annotation=empty) for p in signature.parameters.values()
              if p.name not in ("self", "cls")]
    return str(signature.replace(parameters=params, return_annotation=empty))


def checked(func: Callable[P, R]) -> Callable[P, R]:
    """Check each argument of ``func`` against its annotation before calling it (see the
    module's docstring); ``self`` and ``cls`` are not checked."""
    described: list[tuple[str, Any, dict[str, _Type]]] = []

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        if not described:
            described.append(_described(func))
        name, signature, kinds = described[0]
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise ArgumentTypeError(_unbound(name, _shown(signature), str(exc))) from None
        for arg, value in bound.arguments.items():
            kind = kinds.get(arg)
            if kind is None:
                continue
            misfit = kind.test(value)
            if misfit is not None:
                where, part = misfit
                raise ArgumentTypeError(Msg(
                    "library.argument_type", function=name, argument=arg + where,
                    value=shown_value(part), given=type(part).__name__, expected=kind.text))
        return func(*args, **kwargs)

    return wrapper


_BIND_ERRORS = (
    (r"missing a required argument: '(\w+)'", "library.missing"),
    (r"got an unexpected keyword argument '(\w+)'", "library.unknown_keyword"),
    (r"multiple values for argument '(\w+)'", "library.twice"),
    (r"too many positional arguments", "library.too_many"),
)


def _unbound(function: str, signature: str, error: str) -> Msg:
    """Arguments that do not fit the signature at all (Python's ``bind`` says how, in English:
    each known case has its own message)."""
    for pattern, key in _BIND_ERRORS:
        found = re.search(pattern, error)
        if found is not None:
            argument = found.group(1) if found.groups() else ""
            return Msg(key, function=function, signature=signature, argument=argument)
    return Msg("library.call", function=function, signature=signature, error=error)
