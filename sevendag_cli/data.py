"""Finding and reading rulesets and fighter sheets (TOML), with exact error messages.

Search order for a name (not a path): the current directory, ``./rulesets``,
the user's config directory (``$SEVENDAG_HOME`` if set, else the platform's
config dir for ``sevendag``), then the rulesets bundled with the package.
Fighter sheets are looked up the same way, in a ``fighters`` folder beside
the rulesets.

:class:`Reader` reads one table of a TOML document with typed accessors.  It
does not stop at the first problem: problems are collected, so ``rulesets
validate`` can list them all, and loading raises the first one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from sevendag_cli.errors import DataError, FormulaError, Msg, NotFoundError
from sevendag_cli.files import Unreadable, is_regular, read_regular, require_regular, stat_or_none
from sevendag_cli.folders import xdg_dir
from sevendag_cli.formula import Formula, parse
from sevendag_cli.limits import INT_LIMIT, MAX_DATA_BYTES, MAX_DATA_DEPTH, MAX_LISTED, MAX_PROBLEMS

T = TypeVar("T")


def bundled_dir() -> Path:
    """The rulesets shipped with the package (inside the wheel, or the repo's ``rulesets/``)."""
    inside = Path(__file__).resolve().parent / "rulesets"
    if inside.is_dir():
        return inside
    return Path(__file__).resolve().parent.parent / "rulesets"


def user_dir() -> Path:
    env = os.environ.get("SEVENDAG_HOME")
    if env:
        return Path(env)
    fast = xdg_dir("XDG_CONFIG_HOME", ".config")
    if fast is not None:
        return fast
    from platformdirs import user_config_dir

    return Path(user_config_dir("sevendag", appauthor=False))


def search_dirs() -> list[Path]:
    cwd = Path.cwd()
    return [cwd, cwd / "rulesets", user_dir(), bundled_dir()]


def fighter_dirs() -> list[Path]:
    cwd = Path.cwd()
    return [cwd, cwd / "fighters", user_dir() / "fighters", bundled_dir() / "fighters"]


def read_toml(path: Path) -> dict[str, Any]:
    """Read a TOML file; any failure becomes one DataError line naming the file.

    Only a regular file of at most ``MAX_DATA_BYTES`` is read, nested at most
    ``MAX_DATA_DEPTH`` levels, with every integer within ``INT_LIMIT``
    (:mod:`sevendag_cli.limits`).
    """
    try:
        raw = read_regular(path, MAX_DATA_BYTES)
    except Unreadable as exc:
        if exc.missing:
            raise DataError(str(path), None, Msg("data.no_such_file")) from None
        if exc.folder:
            raise DataError(str(path), None, Msg("data.is_folder")) from None
        if exc.kind is not None:
            raise DataError(str(path), None, Msg("data.not_a_file", kind=exc.kind)) from None
        raise DataError(str(path), None, Msg("data.unreadable", reason=exc.reason)) from None
    from sevendag_cli import toml_cache

    doc = toml_cache.lookup(path, raw)  # only a document parse_toml accepted, from the same bytes
    if doc is not None:
        _check_bounds(doc, str(path))
        return doc
    doc = parse_toml(raw, str(path))
    toml_cache.store(path, raw, doc)
    return doc


def parse_toml(raw: bytes, source: str) -> dict[str, Any]:
    """The document in ``raw`` (the bytes of ``source``), within the bounds; DataError otherwise."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(source, None, Msg("data.not_utf8", offset=exc.start)) from None
    if toml_depth(text, MAX_DATA_DEPTH) > MAX_DATA_DEPTH:  # before tomllib recurses or slows
        raise DataError(source, None, Msg("data.too_deep", limit=MAX_DATA_DEPTH))
    import tomllib  # here, not at the top: a command that reads no TOML never pays for it

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DataError(source, None, _toml_problem(exc)) from None
    except RecursionError:  # not reached within the bound: a last guard
        raise DataError(source, None, Msg("data.too_deep", limit=MAX_DATA_DEPTH)) from None
    except ValueError:  # an integer of more than 4,300 digits
        raise DataError(source, None, Msg("data.int_limit", limit=INT_LIMIT)) from None
    _check_bounds(doc, source)
    return doc


def _check_bounds(doc: dict[str, Any], source: str) -> None:
    """Depth and integers of a parsed document, walked without recursion."""
    stack: list[tuple[object, str, int]] = [(doc, "", 1)]
    while stack:
        value, key, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > MAX_DATA_DEPTH:  # named by its top-level key (the full path is as deep)
                top = key.split(".", 1)[0].split("[", 1)[0]
                raise DataError(source, top or None, Msg("data.too_deep", limit=MAX_DATA_DEPTH))
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for k, v in items:
                if isinstance(v, dict | list | int):
                    sub = f"{key}[{k}]" if isinstance(k, int) else (f"{key}.{k}" if key else str(k))
                    stack.append((v, sub, depth + 1))
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > INT_LIMIT:
            raise DataError(source, key or None, Msg("data.int_limit", limit=INT_LIMIT))


@cache
def _toml_tokens() -> re.Pattern[str]:
    """Tokens of a TOML text, for its nesting depth: strings and comments are skipped whole
    (compiled when first needed: a command that reads no TOML never pays for it)."""
    return re.compile(
        r"""(?P<line> ^[ \t]*  # a whole line of "key = scalar", or blank: nothing nested (fast path)
             (?: [A-Za-z0-9_-]+ [ \t]*=[ \t]*
                 (?: "(?:[^"\\\n]|\\.)*" | '[^'\n]*' | [A-Za-z0-9_+:.-]+ ) [ \t]* )?
             (?: \#[^\n]* )? \r?\n )
        | [ \t\r]*(?:
            (?P<str> "{3}(?:[^"\\]|\\[\s\S]|"(?!""))*"{3,5}
                   | '{3}[\s\S]*?'{3,5}
                   | "(?:[^"\\\n]|\\.)*"
                   | '[^'\n]*' )
          | \#[^\n]*
          | (?P<op> [\[\]{}.=,\n] )
          | [^\s\[\]{}.=,"'\#]+
          | (?P<bad> [\s\S] )
        )""",
        re.VERBOSE | re.MULTILINE,
    )


def toml_depth(text: str, limit: int) -> int:
    """The nesting depth of a TOML text, counted as ``_check_bounds`` counts the parsed document.

    Read from the tokens, before parsing: tomllib recurses into nested arrays and
    takes quadratic time over long dotted keys.  Stops as soon as ``limit`` is passed.
    Invalid TOML gets an estimate (tomllib then says what is wrong).
    """
    deepest = top = 1  # top: depth of the table of the current [header]
    frames: list[tuple[str, int]] = []  # open inline arrays "[" and tables "{", with their depth
    mode = "key"  # key | value | after (a value ended) | header
    parts = 1  # parts of the dotted key being read
    value_at = 1  # depth of the container the current value goes in
    array_header = at_start = True
    for m in _toml_tokens().finditer(text):
        op = "\n" if m.group("line") is not None else m.group("op")
        if op is None:
            at_start = at_start and m.group("bad") is not None
            continue
        where = frames[-1][1] if frames else top  # the table a key goes in
        if op == "\n" and not frames:
            mode, parts, at_start = "key", 1, True
            continue
        if mode == "header":
            if op == ".":
                parts += 1
            elif op == "[":
                array_header = True
            elif op == "]":
                top = 1 + parts + (1 if array_header else 0)
                mode = "after"
        elif op in "]}" and frames:
            frames.pop()
            mode = "after"
        elif op == "," and frames:
            kind, depth = frames[-1]
            mode, parts, value_at = ("key", 1, value_at) if kind == "{" else ("value", 1, depth)
        elif mode == "key":
            if op == "[" and at_start and not frames:
                mode, parts, array_header = "header", 1, False
            elif op == ".":
                parts += 1
            elif op == "=":
                mode, value_at = "value", where + parts - 1
        elif op in "[{" and mode == "value":
            frames.append((op, value_at + 1))
            mode, parts, value_at = ("key", 1, value_at) if op == "{" else ("value", 1, value_at + 1)
        at_start = False
        deepest = max(deepest, top, value_at, frames[-1][1] if frames else 1)
        if mode in ("key", "header"):
            deepest = max(deepest, where + parts - 1 if mode == "key" else 1 + parts)
        if deepest > limit:
            break
    return deepest


def _toml_problem(exc: ValueError) -> Msg:
    """What tomllib says (in English), with its line and column in the user's language."""
    m = re.fullmatch(r"(.*) \(at line (\d+), column (\d+)\)", str(exc), re.S)
    if m:
        return Msg("data.not_toml_at", error=m.group(1), line=int(m.group(2)), column=int(m.group(3)))
    return Msg("data.not_toml", error=exc)


def listed(names: Iterable[str]) -> object:
    """Names for a message, comma-separated: the first ``MAX_LISTED``, then how many more.

    Keeps one line short however many names a folder or a file holds.
    """
    shown: list[str] = []
    more = 0
    for name in names:
        if len(shown) < MAX_LISTED:
            shown.append(name)
        else:
            more += 1
    text = ", ".join(shown)
    return Msg("data.and_more", names=text, n=more) if more else text


def looks_like_path(ref: str) -> bool:
    return ref.endswith(".toml") or os.sep in ref or "/" in ref


def find_named(ref: str, dirs: list[Path], what: str, known: Callable[[], list[str]]) -> Path:
    """A path as given, or ``NAME.toml`` in the search directories.

    ``what``: ``ruleset`` or ``fighter``.  ``known`` lists the names found, for the
    error message only (it reads every file).  Only a regular file is taken: a
    folder, a named pipe or a device of that name is not a ruleset or a sheet.
    """
    if looks_like_path(ref):
        path = Path(ref)
        try:
            st = stat_or_none(path)
            if st is None:
                raise NotFoundError(ref, None, Msg(f"data.no_such_{what}_file"))
            require_regular(st)
        except Unreadable as exc:
            if exc.kind is not None:
                raise DataError(ref, None, Msg(f"data.not_{what}_file", kind=exc.kind)) from None
            raise DataError(ref, None, Msg("data.unreadable", reason=exc.reason)) from None
        return path
    stem = ref.lower()
    for d in dirs:
        candidate = d / f"{stem}.toml"
        if is_regular(candidate):  # a name too long for a file is simply not found
            return candidate
    found = known()
    detail = Msg(f"data.not_found_{what}", names=listed(found) or Msg("data.none_found"))
    close = _closest_name(stem, found)
    if close is not None:
        detail = Msg("data.suggest_name", message=detail, name=close)
    searched = [d for d in dirs if _is_folder(d)]  # where NAME.toml was looked for, in order
    if searched:
        detail = Msg("data.looked_in", message=detail, folders=", ".join(map(str, searched)))
    raise NotFoundError(Msg(f"data.named_{what}", ref=ref), None, detail)


def _is_folder(path: Path) -> bool:
    """A folder that is there (a name too long, or unreadable, is not: never an error)."""
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _closest_name(name: str, names: list[str]) -> str | None:
    """The name most like ``name`` (a typo: ``ysolde`` for ``ysold``), if one is close enough."""
    import difflib

    close = difflib.get_close_matches(name, names, n=1)
    return close[0] if close else None


def list_names(dirs: list[Path], kind_key: str) -> list[str]:
    """Names of the TOML files in ``dirs`` that look like a ``kind_key`` document.

    Only regular files are read (a named pipe or a device is never opened), each
    within the bounds of :func:`read_toml`; a file that cannot be read is left out.
    """
    names: list[str] = []
    for d in dirs:
        try:
            found = sorted(d.glob("*.toml")) if d.is_dir() else []
        except (OSError, ValueError):
            continue
        for p in found:
            if p.stem in names or not is_regular(p):
                continue
            try:
                doc = read_toml(p)
            except DataError:
                continue
            if kind_key in doc:
                names.append(p.stem)
    return names


# --- typed reading with collected problems -----------------------------------


class Problems:
    """The problems found in one file, in the order found (a mutable collector, not a record).

    ``source``: the file, or a message naming it (e.g. the ruleset embedded in an encounter).
    The first ``MAX_PROBLEMS`` are kept; the others are only counted (``more``),
    so a file of a hundred thousand mistakes costs no more to refuse than one of twenty.
    """

    def __init__(self, source: str | Msg, errors: list[DataError] | None = None, more: int = 0) -> None:
        self.source = source
        self.errors: list[DataError] = errors if errors is not None else []
        self.more = more

    def __repr__(self) -> str:
        return f"Problems(source={self.source!r}, errors={self.errors!r}, more={self.more!r})"

    def add(self, key: str | None, message: str | Msg) -> None:
        if len(self.errors) >= MAX_PROBLEMS:
            self.more += 1
            return
        self.errors.append(DataError(self.source, key, message))

    def render(self, lang: str = "en") -> list[str]:
        """The problems kept, one line each, in ``lang``; then how many more there are."""
        lines = [e.render(lang) for e in self.errors]
        if self.more:
            lines.append(Msg("data.more_problems", n=self.more, shown=len(self.errors)).render(lang))
        return lines

    def raise_first(self) -> None:
        if self.errors:
            first = self.errors[0]
            first.all_errors = list(self.errors)  # type: ignore[attr-defined]
            raise first


_MISSING: Any = object()


_TYPES = {bool: "bool", int: "int", float: "float", str: "str", list: "list", dict: "dict"}


def _type_name(value: object) -> object:
    """``a whole number``, ``a text``... (a message), or the Python type's name."""
    key = _TYPES.get(type(value))
    return Msg(f"data.type.{key}") if key else type(value).__name__


class Reader:
    """Typed access to one TOML table; records problems instead of raising."""

    def __init__(self, data: object, problems: Problems, prefix: str = "") -> None:
        self.problems = problems
        self.prefix = prefix
        if not isinstance(data, dict):
            problems.add(prefix or None, Msg("data.expected_table", found=_type_name(data)))
            data = {}
        self.data: dict[str, Any] = data
        self.seen: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name

    def add(self, name: str | None, message: str | Msg) -> None:
        self.problems.add(self.key(name) if name else (self.prefix or None), message)

    def has(self, name: str) -> bool:
        return name in self.data

    def _get(self, name: str, default: Any) -> Any:
        self.seen.add(name)
        if name in self.data:
            return self.data[name]
        if default is _MISSING:
            self.add(name, Msg("data.missing"))
        return default

    def integer(
        self, name: str, default: Any = _MISSING, lo: int | None = None, hi: int | None = None
    ) -> int:
        value = self._get(name, default)
        if value is default and value is not _MISSING:
            return value  # type: ignore[no-any-return]
        if value is _MISSING:
            return lo if lo is not None else 0
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(name, Msg("data.expected_int", found=_type_name(value), value=value))
            return lo if lo is not None else 0
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            rng = Msg("data.range", lo=lo, hi=hi) if lo is not None and hi is not None else (
                Msg("data.range_lo", lo=lo) if lo is not None else Msg("data.range_hi", hi=hi)
            )
            self.add(name, Msg("data.out_of_range", value=value, range=rng))
            return lo if lo is not None else (hi if hi is not None else 0)
        return value

    def text(self, name: str, default: Any = _MISSING, choices: tuple[str, ...] = ()) -> str:
        value = self._get(name, default)
        if value is default and value is not _MISSING:
            return value  # type: ignore[no-any-return]
        if value is _MISSING:
            return choices[0] if choices else ""
        if not isinstance(value, str):
            self.add(name, Msg("data.expected_text", found=_type_name(value), value=value))
            return choices[0] if choices else ""
        if choices and value not in choices:
            self.add(name, Msg("data.not_allowed", value=value, choices=", ".join(choices)))
            return choices[0]
        return value

    def flag(self, name: str, default: Any = _MISSING) -> bool:
        value = self._get(name, default)
        if value is _MISSING:
            return False
        if not isinstance(value, bool):
            self.add(name, Msg("data.expected_flag", found=_type_name(value), value=value))
            return False
        return value

    def table(self, name: str, default: Any = _MISSING) -> Reader:
        value = self._get(name, default)
        if value is _MISSING:
            value = {}
        elif value is default:
            value = dict(value) if isinstance(value, dict) else {}
        elif not isinstance(value, dict):
            self.add(name, Msg("data.expected_table", found=_type_name(value)))
            value = {}
        return Reader(value, self.problems, self.key(name))

    def tables(self, name: str, default: Any = _MISSING) -> list[Reader]:
        """An array of tables (``[[name]]``)."""
        value = self._get(name, default)
        if value is _MISSING or value is default:
            value = [] if value is _MISSING or value is None else value
        if not isinstance(value, list):
            self.add(name, Msg("data.expected_tables", name=name, found=_type_name(value)))
            return []
        return [Reader(v, self.problems, f"{self.key(name)}[{i}]") for i, v in enumerate(value)]

    def items(self) -> Iterator[tuple[str, Reader]]:
        """Sub-tables of this table, by key (``[metals.iron]`` ...)."""
        for name in list(self.data):
            yield name, self.table(name)

    def formula(
        self, name: str, allowed: frozenset[str] | Mapping[str, tuple[int, int]],
        default: Any = _MISSING, dice: bool = True,
    ) -> Formula:
        """A formula reading only the fields ``allowed``; given as a mapping, their ranges,
        from which the formula's own range is checked against the value bound
        (:meth:`~sevendag_cli.formula.Formula.check_bound`)."""
        text = self.text(name, default)
        if not isinstance(self.data.get(name, text), str):
            return parse("0")  # wrong type: already reported by ``str``
        try:
            f = parse(text if self.has(name) else (text or "0"))
            f.check_names(frozenset(allowed))
            f.check_bound(allowed if isinstance(allowed, Mapping) else {})
            if not dice and f.dice:
                raise FormulaError(text, Msg("data.no_dice_here"))
            return f
        except FormulaError as exc:
            self.add(name, Msg("data.in_formula", message=exc.detail, formula=text))
            return parse("0")

    def label(self, name: str = "label", default: str | None = None) -> dict[str, str]:
        """A bilingual label: a text, or a table ``{en = "...", fr = "..."}``."""
        fallback = default if default is not None else self.prefix.rsplit(".", 1)[-1]
        value = self._get(name, {"en": fallback, "fr": fallback})
        if isinstance(value, str):
            return {"en": value, "fr": value}
        if isinstance(value, dict) and value and all(isinstance(v, str) for v in value.values()):
            out = {str(k): str(v) for k, v in value.items()}
            en = out.get("en") or next(iter(out.values()))
            return {"en": en, "fr": out.get("fr", en), **out}
        self.add(name, Msg("data.expected_label"))
        return {"en": fallback, "fr": fallback}

    def finish(self, allowed_extra: tuple[str, ...] = ()) -> None:
        """Report keys that were never read: probably a typo (the known keys, listed once)."""
        known = sorted(self.seen | set(allowed_extra))
        hint: object = Msg("data.known_keys", known=", ".join(known)) if known else ""
        for name in self.data:
            if name not in self.seen and name not in allowed_extra:
                self.add(name, Msg("data.unknown_key", hint=hint))


def str_list(r: Reader, key: str) -> list[str]:
    """A list of texts (``examples = ["A", "B"]``)."""
    value = r._get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        r.add(key, Msg("data.expected_texts"))
        return []
    return list(value)


def str_table(r: Reader, key: str) -> dict[str, str]:
    """A table of texts (``[house_defaults]``, ``[rules]``)."""
    value = r._get(key, {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        r.add(key, Msg("data.expected_text_table"))
        return {}
    return dict(value)
