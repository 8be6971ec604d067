"""The installed command, run as a user would, from a folder that is not the repo."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

_beside = Path(sys.executable).parent / "sevendag"
EXE = str(_beside) if _beside.is_file() else shutil.which("sevendag")


@pytest.mark.slow
@pytest.mark.skipif(EXE is None, reason="the sevendag command is not installed")
def test_installed_command_finds_the_bundled_rulesets_from_any_folder(tmp_path: Path) -> None:
    # No SEVENDAG_HOME: the user folder comes from platformdirs, as for a real user.
    env = {k: v for k, v in os.environ.items() if k != "SEVENDAG_HOME"}
    env["NO_COLOR"] = "1"
    env["HOME"] = str(tmp_path)
    for ruleset in ("sevendag", "d20"):
        proc = subprocess.run(
            [str(EXE), "fight", "--ruleset", ruleset, "--seed", "1", "--json"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=False,
        )
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        assert doc["ruleset"] == ruleset and len(doc["fighters"]) == 2


@pytest.mark.skipif(EXE is None, reason="the sevendag command is not installed")
def test_python_dash_m_works(tmp_path: Path) -> None:
    python = Path(str(EXE)).parent / "python"
    proc = subprocess.run(
        [str(python), "-m", "sevendag_cli", "--version"], cwd=tmp_path, capture_output=True,
        text=True, timeout=60, check=False,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("sevendag"), proc.stderr
