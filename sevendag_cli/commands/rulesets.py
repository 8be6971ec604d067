"""``rulesets`` (list), ``rulesets show``, ``rulesets validate``, ``new``, ``roll``."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from msgspec import structs

from sevendag_cli.data import Problems, bundled_dir, fighter_dirs, read_toml, search_dirs
from sevendag_cli.errors import DataError, Msg, SevendagError, UsageError
from sevendag_cli.formula import Formula
from sevendag_cli.render.data import header
from sevendag_cli.rules import (
    D20Ruleset,
    Ruleset,
    SevendagRuleset,
    fighter_from_data,
    known_fighters,
    known_rulesets,
    load_ruleset,
    read_ruleset_doc,
    ruleset_from_data,
)


def where(path: Path) -> str:
    bundled = bundled_dir().resolve()
    try:
        path.resolve().relative_to(bundled)
        return "bundled"
    except ValueError:
        return "user"


def list_rulesets(lang: str = "en") -> dict[str, Any]:
    """Every ruleset and fighter sheet found; an invalid ruleset's problem is given in ``lang``."""
    rulesets = []
    for name in known_rulesets():
        try:
            source, _ = read_ruleset_doc(name)
            rs = load_ruleset(name)
            rulesets.append({"name": name, "engine": rs.engine, "label": rs.label,
                             "path": source, "origin": where(Path(source)),
                             "examples": list(rs.examples), "valid": True, "problem": None})
        except SevendagError as exc:
            rulesets.append({"name": name, "engine": None, "label": None, "path": None,
                             "origin": None, "examples": [], "valid": False,
                             "problem": exc.render(lang)})
    fighters = []
    for d in fighter_dirs():
        for p in sorted(d.glob("*.toml")) if d.is_dir() else []:
            try:
                doc = read_toml(p)
            except DataError:
                continue
            if "ruleset" in doc and p.stem in known_fighters():
                sheet_rs = doc.get("ruleset")
                fighters.append({"name": str(doc.get("name", p.stem)), "file": p.stem,
                                 "ruleset": sheet_rs if isinstance(sheet_rs, str) else None, "path": str(p),
                                 "origin": where(p)})
    unique: dict[str, dict[str, Any]] = {}
    for f in fighters:  # the first found wins, as in the lookup
        unique.setdefault(str(f["file"]), f)
    return {**header("rulesets", None, None), "rulesets": rulesets, "fighters": list(unique.values()),
            "search_path": [str(d) for d in search_dirs()]}


def describe_ruleset(rs: Ruleset) -> dict[str, Any]:
    """Everything a game master may want to edit, as plain data."""
    out: dict[str, Any] = {**header("rulesets show", rs.name, None), "name": rs.name,
                           "engine": rs.engine,
                           "label": rs.label, "path": rs.path, "rules": rs.rules,
                           "house_defaults": rs.house_defaults, "examples": list(rs.examples)}
    formulas: dict[str, str] = {}
    options: dict[str, Any] = {}
    for f in structs.fields(rs):
        value = getattr(rs, f.name)
        if isinstance(value, Formula):
            formulas[f.name] = value.text
        elif isinstance(value, bool | int | str) and f.name not in ("name", "path", "engine"):
            options[f.name] = value
    out["formulas"] = formulas
    out["options"] = options
    if isinstance(rs, SevendagRuleset):
        out["wounds"] = [structs.asdict(w) for w in rs.wounds]
        out["metals"] = {k: structs.asdict(m) for k, m in rs.metals.items()}
        out["techniques"] = {k: structs.asdict(t) for k, t in rs.techniques.items()}
    elif isinstance(rs, D20Ruleset):
        out["dd_table"] = [structs.asdict(b) for b in rs.dd_table]
    return out


def validate_file(path_text: str, lang: str = "en") -> dict[str, Any]:
    """Check a ruleset or a fighter sheet; report every problem (in ``lang``), not just the first."""
    path = Path(path_text)
    data = read_toml(path)
    problems = Problems(str(path))
    kind: str
    if "engine" in data:
        kind = "ruleset"
        with contextlib.suppress(DataError):  # the problems are collected
            ruleset_from_data(data, str(path), problems)
    elif "ruleset" in data:
        kind = "fighter"
        ref = data["ruleset"]
        if not isinstance(ref, str):
            problems.add("ruleset", Msg("cli.ruleset_name"))
        else:
            try:
                rs = load_ruleset(ref)
            except SevendagError as exc:
                problems.add("ruleset", exc.msg)
            else:
                with contextlib.suppress(DataError):
                    fighter_from_data(data, str(path), rs, problems)
    else:
        raise DataError(str(path), None, Msg("cli.neither_kind"))
    return {"path": str(path), "kind": kind,
            "valid": not problems.errors, "problems": problems.render(lang)}


# --- new ----------------------------------------------------------------------------------


D20_TEMPLATE = """\
# A d20 (Le combat) fighter sheet.  Abilities rolled 3d6 each (D-13):
{rolls}
ruleset = "{ruleset}"
name = "{name}"
race = ""
level = 1
str = {str}
dex = {dex}
con = {con}
wis = {wis}
bba = 1        # base attack bonus (D-03)
armour = 0     # armour bonus (D-05)
size = 0       # size modifier (D-05)
dodge = 0      # dodge bonus to saves (D-08)
hp = 10
# ac = 12      # state AC directly instead of the formula (D-05)

[weapon]       # remove this table to fight bare-handed (D-11)
name = "short sword"
damage = "1d6"
# magic = "1d4"   # magic damage dice (D-09)
type = 0       # weapon type modifier (D-03)
crit_range = 20   # lowest natural that threatens a critical (D-07)
crit_factor = 2
"""

SEVENDAG_TEMPLATE = """\
# A Sevendag fighter sheet.
ruleset = "{ruleset}"
name = "{name}"
speed = 2      # speed roll = formulas.speed_roll of the ruleset (S-02)
attack = 6     # attack constant (S-06)
defence = 5    # defence constant (S-06)
tactic = "weapons-attack"   # weapons-attack | all-out | full-defence | custom (+ allocation)

[[hands]]
die = 10
holds = "weapon"
[[hands]]
die = 8
holds = "shield"   # or "" for an empty hand

[items.weapon]
kind = "weapon"
label = "sword"
hands = 1          # 2 for a two-handed weapon held by both hands
metal = "{metal}"  # one of: {metals}
skill = 12         # drop check: d20 above this drops the weapon (S-10)

[items.shield]
kind = "shield"
label = "shield"
"""


def sheet_text(name: str, rs: Ruleset, rolled: dict[str, list[int]] | None) -> str:
    if isinstance(rs, D20Ruleset):
        assert rolled is not None
        rolls = "\n".join(
            f"#   {k.upper()}: {' + '.join(map(str, v))} = {sum(v)}" for k, v in rolled.items()
        )
        return D20_TEMPLATE.format(ruleset=rs.name, name=toml_escape(name), rolls=rolls,
                                   **{k: sum(v) for k, v in rolled.items()})
    metals = list(rs.metals)
    return SEVENDAG_TEMPLATE.format(ruleset=rs.name, name=toml_escape(name), metal=metals[0],
                                    metals=", ".join(metals))


def toml_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def sheet_path(name: str, output: str | None) -> Path:
    if output:
        return Path(output)
    stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in name.lower()).strip("-")
    if not stem:
        raise UsageError(Msg("cli.file_name", name=name))
    return Path(f"{stem}.toml")

