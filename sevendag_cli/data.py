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
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from sevendag_cli.errors import DataError, FormulaError
from sevendag_cli.formula import Formula, parse

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
    from platformdirs import user_config_dir

    return Path(user_config_dir("sevendag", appauthor=False))


def search_dirs() -> list[Path]:
    cwd = Path.cwd()
    return [cwd, cwd / "rulesets", user_dir(), bundled_dir()]


def fighter_dirs() -> list[Path]:
    cwd = Path.cwd()
    return [cwd, cwd / "fighters", user_dir() / "fighters", bundled_dir() / "fighters"]


def read_toml(path: Path) -> dict[str, Any]:
    """Read a TOML file; any failure becomes one DataError line naming the file."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise DataError(str(path), None, "no such file") from None
    except IsADirectoryError:
        raise DataError(str(path), None, "is a folder, not a TOML file") from None
    except OSError as exc:
        raise DataError(str(path), None, f"cannot be read ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(
            str(path), None, f"is not UTF-8 text (bad byte at offset {exc.start}): save it as UTF-8"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DataError(str(path), None, f"is not valid TOML ({exc})") from None


def looks_like_path(ref: str) -> bool:
    return ref.endswith(".toml") or os.sep in ref or "/" in ref


def find_named(ref: str, dirs: list[Path], what: str, known: Callable[[], list[str]]) -> Path:
    """A path as given, or ``NAME.toml`` in the search directories.

    ``known`` lists the names found, for the error message only (it reads every file).
    """
    if looks_like_path(ref):
        path = Path(ref)
        if not path.is_file():
            raise DataError(ref, None, f"no such {what} file")
        return path
    stem = ref.lower()
    for d in dirs:
        candidate = d / f"{stem}.toml"
        if candidate.is_file():
            return candidate
    names = ", ".join(known()) or "none found"
    raise DataError(
        f"{what} {ref!r}", None, f"not found: use one of {names}, or a path to a .toml file"
    )


def list_names(dirs: list[Path], kind_key: str) -> list[str]:
    """Names of the TOML files in ``dirs`` that look like a ``kind_key`` document."""
    names: list[str] = []
    for d in dirs:
        if not d.is_dir():
            continue
        for p in sorted(d.glob("*.toml")):
            try:
                doc = tomllib.loads(p.read_text("utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
                continue
            if kind_key in doc and p.stem not in names:
                names.append(p.stem)
    return names


# --- typed reading with collected problems -----------------------------------


@dataclass
class Problems:
    """Every problem found in one file, in the order found."""

    source: str
    errors: list[DataError] = field(default_factory=list)

    def add(self, key: str | None, message: str) -> None:
        self.errors.append(DataError(self.source, key, message))

    def raise_first(self) -> None:
        if self.errors:
            first = self.errors[0]
            first.all_errors = list(self.errors)  # type: ignore[attr-defined]
            raise first


_MISSING: Any = object()


def _type_name(value: object) -> str:
    return {
        bool: "true/false",
        int: "a whole number",
        float: "a decimal number",
        str: "a text",
        list: "a list",
        dict: "a table",
    }.get(type(value), type(value).__name__)


class Reader:
    """Typed access to one TOML table; records problems instead of raising."""

    def __init__(self, data: object, problems: Problems, prefix: str = "") -> None:
        self.problems = problems
        self.prefix = prefix
        if not isinstance(data, dict):
            problems.add(prefix or None, f"expected a table, found {_type_name(data)}")
            data = {}
        self.data: dict[str, Any] = data
        self.seen: set[str] = set()

    def key(self, name: str) -> str:
        return f"{self.prefix}.{name}" if self.prefix else name

    def add(self, name: str | None, message: str) -> None:
        self.problems.add(self.key(name) if name else (self.prefix or None), message)

    def has(self, name: str) -> bool:
        return name in self.data

    def _get(self, name: str, default: Any) -> Any:
        self.seen.add(name)
        if name in self.data:
            return self.data[name]
        if default is _MISSING:
            self.add(name, "missing: this key is required")
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
            self.add(name, f"expected a whole number, found {_type_name(value)} {value!r}")
            return lo if lo is not None else 0
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            rng = f"from {lo} to {hi}" if lo is not None and hi is not None else (
                f"at least {lo}" if lo is not None else f"at most {hi}"
            )
            self.add(name, f"{value} is out of range: expected {rng}")
            return lo if lo is not None else (hi if hi is not None else 0)
        return value

    def text(self, name: str, default: Any = _MISSING, choices: tuple[str, ...] = ()) -> str:
        value = self._get(name, default)
        if value is default and value is not _MISSING:
            return value  # type: ignore[no-any-return]
        if value is _MISSING:
            return choices[0] if choices else ""
        if not isinstance(value, str):
            self.add(name, f"expected a text, found {_type_name(value)} {value!r}")
            return choices[0] if choices else ""
        if choices and value not in choices:
            self.add(name, f"{value!r} is not allowed: use one of {', '.join(choices)}")
            return choices[0]
        return value

    def flag(self, name: str, default: Any = _MISSING) -> bool:
        value = self._get(name, default)
        if value is _MISSING:
            return False
        if not isinstance(value, bool):
            self.add(name, f"expected true or false, found {_type_name(value)} {value!r}")
            return False
        return value

    def table(self, name: str, default: Any = _MISSING) -> Reader:
        value = self._get(name, default)
        if value is _MISSING:
            value = {}
        elif value is default:
            value = dict(value) if isinstance(value, dict) else {}
        elif not isinstance(value, dict):
            self.add(name, f"expected a table, found {_type_name(value)}")
            value = {}
        return Reader(value, self.problems, self.key(name))

    def tables(self, name: str, default: Any = _MISSING) -> list[Reader]:
        """An array of tables (``[[name]]``)."""
        value = self._get(name, default)
        if value is _MISSING or value is default:
            value = [] if value is _MISSING or value is None else value
        if not isinstance(value, list):
            self.add(name, f"expected a list of tables ([[{name}]]), found {_type_name(value)}")
            return []
        return [Reader(v, self.problems, f"{self.key(name)}[{i}]") for i, v in enumerate(value)]

    def items(self) -> Iterator[tuple[str, Reader]]:
        """Sub-tables of this table, by key (``[metals.iron]`` ...)."""
        for name in list(self.data):
            yield name, self.table(name)

    def formula(
        self, name: str, allowed: frozenset[str], default: Any = _MISSING, dice: bool = True
    ) -> Formula:
        text = self.text(name, default)
        if not isinstance(self.data.get(name, text), str):
            return parse("0")  # wrong type: already reported by ``str``
        try:
            f = parse(text if self.has(name) else (text or "0"))
            f.check_names(allowed)
            if not dice and f.dice:
                raise FormulaError(text, "must not roll dice here")
            return f
        except FormulaError as exc:
            self.add(name, f"{exc.message} in formula {text!r}")
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
        self.add(name, 'expected a text or a table like {en = "...", fr = "..."}')
        return {"en": fallback, "fr": fallback}

    def finish(self, allowed_extra: tuple[str, ...] = ()) -> None:
        """Report keys that were never read: probably a typo."""
        for name in self.data:
            if name not in self.seen and name not in allowed_extra:
                known = sorted(self.seen | set(allowed_extra))
                hint = f": known keys are {', '.join(known)}" if known else ""
                self.add(name, f"unknown key{hint}")


def str_list(r: Reader, key: str) -> list[str]:
    """A list of texts (``examples = ["A", "B"]``)."""
    value = r._get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        r.add(key, "expected a list of texts")
        return []
    return list(value)


def str_table(r: Reader, key: str) -> dict[str, str]:
    """A table of texts (``[house_defaults]``, ``[rules]``)."""
    value = r._get(key, {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        r.add(key, "expected a table of texts")
        return {}
    return dict(value)
