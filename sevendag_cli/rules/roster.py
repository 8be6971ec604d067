"""A roster of fighter sheets (``matrix``): names, paths and folders of sheets, told apart.

Each reference is a folder (its ``.toml`` files, in name order, regular files
only) or a sheet as ``fight`` takes it (a path, or a name looked up in the
search folders: :func:`sevendag_cli.rules.fighter_path`).  In a folder, a file
that is not a fighter sheet of the ruleset (a sheet of another ruleset, a
ruleset file) is skipped and reported (:class:`Skipped`); a sheet named on its
own must be of the ruleset (else one line, as ``fight``).  Two sheets of the
same name (the same sheet twice, or two files both called ``Aela``) are told
apart as ``fight aela aela`` does: the second is ``Aela (2)``, the third
``Aela (3)``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from sevendag_cli.data import read_toml
from sevendag_cli.errors import DataError, Msg, UsageError
from sevendag_cli.files import Unreadable, is_regular, os_reason, stat_or_none
from sevendag_cli.limits import MAX_FOLDER_SHEETS, MAX_ROSTER

if TYPE_CHECKING:
    from sevendag_cli.rules import Fighter, Ruleset


class Sheet(msgspec.Struct, frozen=True):
    """A sheet read for the roster: its file, its document, whether a folder gave it."""

    path: str
    data: dict[str, Any]
    in_folder: bool


class Skipped(msgspec.Struct, frozen=True):
    """A file of a folder left out: its file, and the ruleset it names (None: not a sheet)."""

    path: str
    ruleset: str | None


def _folder(ref: str) -> bool:
    try:
        st = stat_or_none(ref)
    except Unreadable:
        return False  # not a folder we can use: looked up as a sheet, which says what is wrong
    return st is not None and stat.S_ISDIR(st.st_mode)


def folder_sheets(folder: str) -> list[Path]:
    """The ``.toml`` regular files of ``folder`` (not its subfolders), in name order; at most
    :data:`MAX_FOLDER_SHEETS` looked at."""
    names: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if not entry.name.endswith(".toml"):
                    continue
                names.append(entry.name)
                if len(names) > MAX_FOLDER_SHEETS:
                    raise DataError(folder, None, Msg("roster.folder_too_big", max=MAX_FOLDER_SHEETS))
    except (OSError, ValueError) as exc:
        raise DataError(folder, None, Msg("data.unreadable", reason=os_reason(exc))) from None
    base = Path(folder)
    return [base / name for name in sorted(names) if is_regular(base / name)]


def read_sheets(refs: list[str]) -> list[Sheet]:
    """Every sheet the references name, read (a folder's files too), in order."""
    from sevendag_cli.rules import fighter_path

    sheets: list[Sheet] = []
    for ref in refs:
        if _folder(ref):
            sheets.extend(Sheet(str(p), read_toml(p), True) for p in folder_sheets(ref))
        else:
            path = fighter_path(ref)
            sheets.append(Sheet(str(path), read_toml(path), False))
    return sheets


def first_sheet(sheets: list[Sheet]) -> str | None:
    """The first file that is a fighter sheet (it names a ruleset): it chooses the ruleset."""
    for s in sheets:
        if isinstance(s.data.get("ruleset"), str):
            return s.path
    return None


def roster_docs(ruleset: Ruleset, sheets: list[Sheet]
                ) -> tuple[list[tuple[str, dict[str, Any]]], list[Skipped]]:
    """The sheets of the roster (at most :data:`MAX_ROSTER`) as (file, data), each named as the
    roster names it (the second ``Aela``: ``Aela (2)``), not yet read; and what was skipped."""
    from sevendag_cli.terms import fold

    kept: list[Sheet] = []
    skipped: list[Skipped] = []
    for s in sheets:
        named = s.data.get("ruleset")
        if s.in_folder and not (isinstance(named, str) and named in (ruleset.name, ruleset.engine)):
            skipped.append(Skipped(s.path, named if isinstance(named, str) else None))
            continue
        kept.append(s)
    if not 2 <= len(kept) <= MAX_ROSTER:
        raise UsageError(Msg("roster.size", n=len(kept), max=MAX_ROSTER))
    taken = {fold(n) for s in kept if isinstance(n := s.data.get("name"), str)}
    seen: set[str] = set()
    docs: list[tuple[str, dict[str, Any]]] = []
    for s in kept:
        data = s.data
        name = data.get("name")
        if isinstance(name, str):
            if fold(name) in seen:  # a mirror: the next free "Name (k)"
                k = 2
                while fold(f"{name} ({k})") in taken:
                    k += 1
                data = {**data, "name": f"{name} ({k})"}
                taken.add(fold(data["name"]))
            seen.add(fold(data["name"]))
        docs.append((s.path, data))
    return docs, skipped


def roster_fighters(ruleset: Ruleset, sheets: list[Sheet]
                    ) -> tuple[list[Fighter], list[str], list[Skipped]]:
    """The fighters of the roster (at most :data:`MAX_ROSTER`), their files, and what was skipped."""
    from sevendag_cli.rules import fighter_from_data

    docs, skipped = roster_docs(ruleset, sheets)
    fighters = [fighter_from_data(data, path, ruleset) for path, data in docs]
    return fighters, [path for path, _ in docs], skipped
