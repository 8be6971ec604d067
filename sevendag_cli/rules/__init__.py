"""Rulesets and fighter sheets: load, validate, look up by name."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sevendag_cli.backend import DEFAULT_RULESET, FALLBACK_ENGINE, backend_for, backend_named, engines
from sevendag_cli.data import (
    Problems,
    Reader,
    bundled_dir,
    fighter_dirs,
    find_named,
    list_names,
    looks_like_path,
    read_toml,
    search_dirs,
)
from sevendag_cli.errors import DataError, Msg, NotFoundError, UsageError
from sevendag_cli.files import is_regular

if TYPE_CHECKING:
    from sevendag_cli.backend import Fighter, Ruleset


def __getattr__(name: str) -> Any:
    """Each ruleset's record classes (``D20Ruleset``, ``SevendagFighter``...) and the unions
    ``Ruleset`` and ``Fighter``, from the backends, imported when first needed."""
    if not name[:1].isupper():  # a submodule or a probe: nothing to import for it
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import operator
    from functools import reduce

    kinds = [backend_named(e).sheets.record_types() for e in engines()]
    if name in ("Ruleset", "Fighter"):
        return reduce(operator.or_, [k[0 if name == "Ruleset" else 1] for k in kinds])
    for kind in kinds:
        for cls in kind:
            if cls.__name__ == name:
                return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def known_rulesets() -> list[str]:
    return list_names(search_dirs(), "engine")


def known_fighters() -> list[str]:
    return list_names(fighter_dirs(), "ruleset")


def ruleset_from_data(data: dict[str, Any], source: str, problems: Problems | None = None) -> Ruleset:
    problems = problems if problems is not None else Problems(source)
    r = Reader(data, problems)
    known = engines()
    engine = r.text("engine", None, known)
    name = r.text("name", Path(source).stem)
    # a file without a known engine is still read, to report all its problems at once
    backend = backend_named(engine if engine in known else FALLBACK_ENGINE)
    ruleset = backend.sheets.read_ruleset(r, name, source)
    r.finish()
    problems.raise_first()
    return ruleset


def read_ruleset_doc(ref: str) -> tuple[str, dict[str, Any]]:
    """The file and raw data of a ruleset, by name or path."""
    path = find_named(ref, search_dirs(), "ruleset", known_rulesets)
    data = read_toml(path)
    if "engine" not in data and "ruleset" in data:
        raise DataError(str(path), None, Msg("rules.is_fighter_sheet"))
    return str(path), data


def load_ruleset(ref: str) -> Ruleset:
    """A ruleset by name (``sevendag``, ``d20``, a user's own) or by path."""
    source, data = read_ruleset_doc(ref)
    return ruleset_from_data(data, source)


def fighter_from_data(
    data: dict[str, Any], source: str, ruleset: Ruleset, problems: Problems | None = None
) -> Fighter:
    problems = problems if problems is not None else Problems(source)
    r = Reader(data, problems)
    sheet_ruleset = data.get("ruleset")
    if isinstance(sheet_ruleset, str) and sheet_ruleset not in (ruleset.name, ruleset.engine):
        problems.add("ruleset", Msg("rules.sheet_for_other", sheet=sheet_ruleset, ruleset=ruleset.name))
    fighter = backend_for(ruleset).sheets.read_fighter(r, source, ruleset)
    problems.raise_first()
    return fighter


def fighter_path(ref: str) -> Path:
    """A fighter's sheet: a path as given, or by name, ignoring case — its file's stem
    (``brannoc``, ``sir-bob``) or the name it shows (``Sir Bob``, as ``rulesets`` lists it).

    ``NAME.toml`` in the search folders comes first (no file is read); then the
    sheets found whose stem or ``name`` is the name typed, whatever its case.  Two
    different sheets that both match are one line listing them.
    """
    if looks_like_path(ref):
        return find_named(ref, fighter_dirs(), "fighter", known_fighters)
    for d in fighter_dirs():
        candidate = d / f"{ref.lower()}.toml"
        if is_regular(candidate):  # a name too long for a file is simply not found
            return candidate
    from sevendag_cli.terms import fold

    wanted = fold(ref)
    sheets = _sheet_files()
    found = [p for p in sheets if fold(p.stem) == wanted]
    if not found:
        for p in sheets:
            try:
                name = read_toml(p).get("name")
            except DataError:
                continue  # a broken sheet is reported when named by its file
            if isinstance(name, str) and fold(name) == wanted:
                found.append(p)
    if len(found) == 1:
        return found[0]
    if found:
        listed = ", ".join(str(p) for p in found)
        raise DataError(Msg("data.named_fighter", ref=ref), None,
                        Msg("rules.ambiguous_fighter", n=len(found), sheets=listed))
    return find_named(ref, fighter_dirs(), "fighter", known_fighters)  # not found: one line


def _sheet_files() -> list[Path]:
    """The ``.toml`` files of the fighter folders, the first of each stem in search order
    (as ``rulesets`` lists them); regular files only, none opened here."""
    first: dict[str, Path] = {}
    for d in fighter_dirs():
        try:
            found = sorted(d.glob("*.toml")) if d.is_dir() else []
        except (OSError, ValueError):
            continue
        for p in found:
            if is_regular(p):
                first.setdefault(p.stem, p)
    return list(first.values())


def sheet_ruleset(ref: str) -> str | None:
    """The ruleset a fighter sheet names, to pick ``--ruleset`` when none is given."""
    data = read_toml(fighter_path(ref))
    value = data.get("ruleset")
    return value if isinstance(value, str) else None


def read_fighter_doc(ref: str) -> tuple[str, dict[str, Any]]:
    path = fighter_path(ref)
    return str(path), read_toml(path)


def load_fighter(ref: str, ruleset: Ruleset) -> Fighter:
    source, data = read_fighter_doc(ref)
    return fighter_from_data(data, source, ruleset)


def example_pair(ruleset: Ruleset) -> tuple[str, str]:
    if len(ruleset.examples) < 2:
        raise DataError(ruleset.path, "examples", Msg("rules.no_examples"))
    return ruleset.examples[0], ruleset.examples[1]


def pair_docs(ruleset: Ruleset, refs: list[str] | None) -> list[tuple[str, dict[str, Any]]]:
    """The raw sheets of two fighters: the ones named, or the ruleset's example pair.

    Two fighters of the same name (the same sheet twice, ``fight aela aela``) are told
    apart: the second is ``Aela (2)``, in the fight and in the encounter it starts.
    """
    named = bool(refs)
    if not refs:
        base = bundled_dir() / "fighters"
        refs = []
        for ref in example_pair(ruleset):
            bundled = base / f"{ref.lower()}.toml"
            refs.append(str(bundled) if is_regular(bundled) else ref)
    if len(refs) != 2:
        raise UsageError(Msg("rules.two_fighters", n=len(refs)))
    try:
        docs = [read_fighter_doc(r) for r in refs]
    except NotFoundError as exc:
        if named:
            raise
        # the ruleset's own example pair names a sheet that is not there: a data problem (exit 1)
        raise DataError(ruleset.path, "examples", exc.msg) from None
    kinds = [doc.get("ruleset") for _, doc in docs]
    if all(isinstance(k, str) for k in kinds) and kinds[0] != kinds[1]:  # blame neither alone
        raise UsageError(Msg("rules.mixed_pair", a=refs[0], ruleset_a=kinds[0], b=refs[1],
                             ruleset_b=kinds[1]))
    first, second = docs[0][1].get("name"), docs[1][1].get("name")
    if isinstance(first, str) and isinstance(second, str):
        from sevendag_cli.terms import fold

        if fold(first) == fold(second):  # a mirror match (``fight aela aela``): told apart
            docs[1] = (docs[1][0], {**docs[1][1], "name": f"{second} (2)"})
    return docs


def pair_from_docs(
    ruleset: Ruleset, docs: list[tuple[str, dict[str, Any]]]
) -> tuple[Fighter, Fighter]:
    a = fighter_from_data(docs[0][1], docs[0][0], ruleset)
    b = fighter_from_data(docs[1][1], docs[1][0], ruleset)
    if a.name == b.name:
        raise DataError(b.path, "name", Msg("rules.same_name", name=a.name))
    from sevendag_cli.rules.bounds import check_values

    check_values(ruleset, a, b)  # every number of their fight within the value bound
    return a, b


def load_pair(ruleset: Ruleset, refs: list[str] | None) -> tuple[Fighter, Fighter]:
    """Two fighters: the ones named, or the ruleset's example pair."""
    return pair_from_docs(ruleset, pair_docs(ruleset, refs))


__all__ = [
    "DEFAULT_RULESET", "Fighter", "Ruleset", "example_pair", "fighter_from_data",
    "known_fighters", "known_rulesets",
    "load_fighter", "load_pair", "load_ruleset", "pair_docs", "pair_from_docs",
    "read_ruleset_doc", "ruleset_from_data", "sheet_ruleset",
]
