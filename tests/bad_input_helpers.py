"""What the bad-input catalogues share (tests/test_bad_inputs.py and the French one in
tests/test_i18n.py): the bundled files' text, text surgery, and the setups a case runs before its
command, in the test's temporary folder (the current folder)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from sevendag_cli.data import bundled_dir
from tests.helpers import run, snapshot

SEVENDAG = (bundled_dir() / "sevendag.toml").read_text("utf-8")
D20 = (bundled_dir() / "d20.toml").read_text("utf-8")
BRANNOC = (bundled_dir() / "fighters" / "brannoc.toml").read_text("utf-8")
YSOLDE = (bundled_dir() / "fighters" / "ysolde.toml").read_text("utf-8")
FIGHTER_A = (bundled_dir() / "fighters" / "a.toml").read_text("utf-8")


def sub(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def init_d20() -> None:
    assert run("init", "--ruleset", "d20", "--dice", "19,5").exit_code == 0


def init_sevendag() -> None:
    assert run("init", "--dice", "5,19").exit_code == 0


def finished_d20() -> None:
    init_d20()
    assert run("wound", "B", "60").exit_code == 0


def corrupt(mutate: Callable[[dict], None]) -> Callable[[], None]:
    def setup() -> None:
        init_d20()
        path = Path("encounter.sevendag.json")
        doc = json.loads(path.read_text("utf-8"))
        mutate(doc)
        path.write_text(json.dumps(doc), "utf-8")
    return setup


def truncate() -> None:
    init_d20()
    path = Path("encounter.sevendag.json")
    path.write_bytes(path.read_bytes()[:200])


def write_bytes(content: bytes) -> Callable[[], None]:
    def setup() -> None:
        Path("encounter.sevendag.json").write_bytes(content)
    return setup


class Prepared(Protocol):
    files: dict[str, str | bytes]
    setup: Callable[[], None] | None


def prepare(case: Prepared, tmp_path: Path) -> dict[str, bytes]:
    """Write the case's files, run its setup; the folder's snapshot before the command."""
    for name, content in case.files.items():
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, "utf-8")
    if case.setup is not None:
        case.setup()
    return snapshot(tmp_path)
