"""What the wheel ships: the py.typed marker (PEP 561) beside the code, and the bundled rulesets."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_package_is_marked_typed() -> None:
    assert (ROOT / "sevendag_cli" / "py.typed").is_file()


def installed_files() -> list[str] | None:
    """The files the installed distribution holds, None when it is an editable install."""
    dist = metadata.distribution("sevendag")
    direct = dist.read_text("direct_url.json")
    if direct and json.loads(direct).get("dir_info", {}).get("editable"):
        return None
    return [str(f) for f in dist.files or ()]


def test_the_installed_wheel_ships_py_typed() -> None:
    files = installed_files()
    if files is None:
        pytest.skip("an editable install holds no copy of the package (CI installs the wheel)")
    assert "sevendag_cli/py.typed" in files
    assert {"sevendag_cli/rulesets/sevendag.toml", "sevendag_cli/rulesets/d20.toml"} <= set(files)
