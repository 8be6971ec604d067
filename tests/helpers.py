"""Helpers for CLI tests: run the app, snapshot the folder, validate a document, write the
files a test needs (a house ruleset, an edited sheet), parse CSV, compare golden files."""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from sevendag_cli.cli import app
from sevendag_cli.commands.schema import bundled_schema
from sevendag_cli.data import bundled_dir

runner = CliRunner()

BUNDLED = Path(__file__).resolve().parent.parent / "rulesets"
"""The bundled rulesets (and ``fighters/``)."""
ENCOUNTER = Path("encounter.sevendag.json")
"""The encounter file of a test (in its own folder)."""
GOLDEN = Path(__file__).parent / "golden"


def run(*args: str, input: str | None = None) -> Result:
    return runner.invoke(app, list(args), input=input)


def run_json(*args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def ok(*args: str, input: str | None = None) -> str:
    """A command that succeeds: its stdout."""
    result = run(*args, input=input)
    assert result.exit_code == 0, (args, result.stderr)
    return result.stdout


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


def folder_state(folder: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file of the folder: bytes, mode, modification time (lock files included)."""
    out = {}
    for p in sorted(folder.iterdir()):
        st = p.stat()
        out[p.name] = (p.read_bytes() if p.is_file() else b"", st.st_mode, st.st_mtime_ns)
    return out


def assert_one_line_error(result: Result, code: int | None = None, fragment: str = "") -> None:
    assert result.exit_code != 0, result.stdout
    if code is not None:
        assert result.exit_code == code, (result.exit_code, result.stderr)
    err = result.stderr
    assert "Traceback" not in err and "Traceback" not in result.stdout
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("sevendag: error: "), err
    assert fragment.lower() in lines[0].lower(), (fragment, err)


# --- JSON against the schema ``sevendag schema NAME`` prints ------------------------------------


@cache
def _validator(name: str) -> Any:  # a jsonschema Draft202012Validator
    """The schema as ``sevendag schema NAME`` prints it (self-contained: no registry)."""
    import jsonschema  # imported by the first test that validates, not while the tests are collected

    schema = bundled_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def validate(name: str, doc: Any) -> None:
    _validator(name).validate(doc)


# --- files a test writes in its folder ----------------------------------------------------------


def house_ruleset(**options: str) -> None:
    """The Sevendag ruleset with fumble_grants_crit on (S-10) and ``options`` changed, as house.toml."""
    text = (BUNDLED / "sevendag.toml").read_text("utf-8")
    text = text.replace("fumble_grants_crit = false", "fumble_grants_crit = true")
    for key, value in options.items():
        lines = text.splitlines()
        lines = [f"{key} = {value}" if line.startswith(f"{key} =") else line for line in lines]
        text = "\n".join(lines) + "\n"
    Path("house.toml").write_text(text.replace('name = "sevendag"', 'name = "house"', 1), "utf-8")


# Two d20 sheets of a longer fight than D-14 (some 65 rounds): matrix, exact rounds.
KESTREL = """ruleset = "d20"
name = "Kestrel"
level = 4
str = 10
dex = 17
con = 12
wis = 12
bba = 3
armour = 2
dodge = 1
hp = 40

[weapon]
name = "rapier"
damage = "1d6"
crit_range = 18
"""
BRUTE = """ruleset = "d20"
name = "Brute"
level = 4
str = 16
dex = 9
con = 14
wis = 8
bba = 4
armour = 1
hp = 55

[weapon]
name = "great axe"
damage = "1d12"
crit_factor = 3
"""


def capped_ruleset(folder: Path, cap: int | str, name: str = "capped") -> Path:
    """The bundled d20 ruleset with ``options.round_cap`` set (a number, or ``"none"``), written
    to ``folder`` as NAME.toml."""
    text = (BUNDLED / "d20.toml").read_text("utf-8")
    value = f'"{cap}"' if isinstance(cap, str) else str(cap)
    lines = [f"round_cap = {value}" if line.startswith("round_cap =") else line
             for line in text.splitlines()]
    text = "\n".join(lines) + "\n"
    path = folder / f"{name}.toml"
    path.write_text(text.replace('name = "d20"', f'name = "{name}"', 1), "utf-8")
    return path


def edited_sheet(stem: str, *swaps: tuple[str, str]) -> str:
    """A copy of a bundled sheet with some lines changed, in the test's folder."""
    text = (bundled_dir() / "fighters" / f"{stem}.toml").read_text("utf-8")
    for old, new in swaps:
        assert old in text
        text = text.replace(old, new, 1)
    path = Path(f"{stem}-edited.toml")
    path.write_text(text, "utf-8")
    return str(path)


def parse_csv(data: bytes) -> list[list[str]]:
    """RFC 4180 bytes (CRLF line ends, nothing else) read back by the csv module."""
    text = data.decode("utf-8")
    assert text.endswith("\r\n") and "\n" not in text.replace("\r\n", "")
    return list(csv.reader(io.StringIO(text, newline="")))


# --- golden displays ------------------------------------------------------------------------------

TAG_AT_START = re.compile(r"^\s*\[[SDC]-[0-9]{2}")

Step = list[str] | Callable[[], None]
"""A command's arguments (run with ``--lang``, its stdout kept), or something to do first."""


def render(steps: list[Step], lang: str) -> str:
    """The commands' outputs, each after its ``$ sevendag …`` line."""
    out = []
    for step in steps:
        if callable(step):
            step()
            continue
        out.append(f"$ sevendag {' '.join(step)}\n{ok(*step, '--lang', lang)}")
    return "\n".join(out)


def check_width(text: str, width: int) -> None:
    """What reads badly at ``width`` columns: too wide, a tag starting a line, trailing spaces."""
    assert "\x1b[" not in text
    assert "\x1f" not in text and "\x1e" not in text  # the layout's glue never reaches the terminal
    for line in text.splitlines():
        if line.startswith("$ sevendag "):
            continue
        assert len(line) <= width, (width, line)
        assert not TAG_AT_START.match(line), line
        assert line == line.rstrip(), repr(line)


def compare(text: str, path: Path) -> None:
    """``text`` is the golden file's (``SEVENDAG_UPDATE_GOLDEN=1``: written instead)."""
    if os.environ.get("SEVENDAG_UPDATE_GOLDEN") or not path.exists():
        path.write_text(text, "utf-8")
        if not os.environ.get("SEVENDAG_UPDATE_GOLDEN"):
            pytest.fail(f"{path.name} did not exist: written, review it and run again")
    golden = path.read_text("utf-8")
    if text != golden:
        import difflib

        diff = difflib.unified_diff(golden.splitlines(), text.splitlines(), path.name, "output",
                                    lineterm="")
        pytest.fail(f"{path.name} differs:\n" + "\n".join(diff), pytrace=False)


# Dual wield, two weapons of different metals (S-12): a third Sevendag fighter, for rosters.
TWINBLADE = """ruleset = "sevendag"
name = "Twinblade"
speed = 4
attack = 8
defence = 5
[[hands]]
die = 8
holds = "sword"
[[hands]]
die = 6
holds = "dagger"
[items.sword]
kind = "weapon"
metal = "iron"
skill = 13
[items.dagger]
kind = "weapon"
metal = "bronze"
skill = 15
"""


PNG = b"\x89PNG\r\n\x1a\n"


def assert_picture(path: Path, suffix: str) -> None:
    """A picture of some size: a PNG file, or an SVG document."""
    import xml.etree.ElementTree as ET

    data = path.read_bytes()
    assert len(data) > 10_000
    if suffix == "png":
        assert data.startswith(PNG)
    else:
        assert ET.fromstring(data).tag == "{http://www.w3.org/2000/svg}svg"
