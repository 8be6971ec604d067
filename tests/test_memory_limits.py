"""Memory running out: one line saying what ran out and what to try, exit 1, never a traceback.

In process, a ``MemoryError`` is injected where the work is done (numpy's own
``_ArrayMemoryError``, a plain one, one behind an ``ImportError`` as a lazy import of numpy
raises it); as processes, real limits (``ulimit -v``) too low for numpy to load and too low
for the work asked.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from sevendag_cli import memory
from sevendag_cli.errors import Msg
from tests.helpers import ENCOUNTER, assert_one_line_error, ok, run


def _array_error(shape: tuple[int, ...]) -> MemoryError:
    """numpy's own out-of-memory error, as ``np.empty`` raises it when it cannot allocate."""
    from numpy._core._exceptions import _ArrayMemoryError

    error: MemoryError = _ArrayMemoryError(shape, np.dtype(np.int64))
    return error


def _raising(error: BaseException) -> Any:
    def fail(*args: object, **kwargs: object) -> object:
        raise error
    return fail


@pytest.mark.parametrize(("error", "fragment"), [
    (_array_error((1_000_000_000,)), "numpy could not allocate 7.45 GiB for an array"),
    (MemoryError(), "an allocation failed"),
])
def test_a_memory_error_in_a_simulation_is_one_line(
        monkeypatch: pytest.MonkeyPatch, error: MemoryError, fragment: str) -> None:
    from sevendag_cli.sim import runner

    monkeypatch.setattr(runner, "simulate", _raising(error))
    result = run("fight", "A", "B", "-r", "d20", "--runs", "1000", "--seed", "1")
    assert_one_line_error(result, 1, fragment)
    assert "try a smaller job" in result.stderr


def test_the_json_error_document_names_the_memory_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from sevendag_cli.sim import runner

    monkeypatch.setattr(runner, "simulate", _raising(_array_error((10**6, 10**4))))
    result = run("fight", "A", "B", "-r", "d20", "--runs", "1000", "--json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["error"]["key"] == "memory.out" and doc["error"]["exit_code"] == 1


def test_a_memory_error_behind_a_lazy_import_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``MemoryError`` while a module is imported comes out as an ``ImportError`` caused by it."""
    from sevendag_cli.sim import runner

    def lazy(*args: object, **kwargs: object) -> object:
        try:
            raise MemoryError()
        except MemoryError as exc:
            raise ImportError("numpy._core.multiarray failed to import") from exc

    monkeypatch.setattr(runner, "simulate", lazy)
    assert_one_line_error(run("fight", "A", "B", "-r", "d20", "--runs", "1000"), 1, "out of memory")


def test_a_library_that_cannot_be_mapped_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loader's own words when a shared library cannot be mapped for lack of memory."""
    from sevendag_cli.sim import runner

    error = ImportError("libscipy_openblas64_.so: failed to map segment from shared object",
                        name="numpy._core._multiarray_umath",
                        path="/venv/lib/python3.11/site-packages/numpy/_core/_multiarray_umath.so")
    monkeypatch.setattr(runner, "simulate", _raising(error))
    result = run("fight", "A", "B", "-r", "d20", "--runs", "1000")
    assert_one_line_error(result, 1, "the module numpy could not be loaded")


def test_other_import_errors_are_not_called_memory() -> None:
    assert memory.memory_message(ImportError("No module named 'foo'", name="foo")) is None
    assert memory.memory_message(ValueError("x")) is None


def test_a_memory_error_after_a_save_says_the_encounter_was_saved(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The round is saved, then its display runs out: the line says the save stands."""
    ok("init", "-r", "d20", "--dice", "19,5")
    before = ENCOUNTER.read_text("utf-8")
    from sevendag_cli.render import rich_render

    monkeypatch.setattr(rich_render.RichRenderer, "round", _raising(MemoryError()))
    result = run("round", "--seed", "3")
    assert_one_line_error(result, 1, "the encounter was saved to")
    assert ENCOUNTER.read_text("utf-8") != before


def test_a_memory_error_in_a_matrix_worker_is_the_matrix_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from sevendag_cli.sim import roster

    monkeypatch.setattr(roster, "play_pair", _raising(_array_error((10**9,))))
    result = run("matrix", "A", "B", "-r", "d20", "--jobs", "1")
    assert_one_line_error(result, 1, "numpy could not allocate 7.45 GiB")


def test_when_even_the_line_cannot_be_made_a_fixed_one_is_written(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The catalogue itself cannot be loaded: the fixed line, still one, still exit 1."""
    from sevendag_cli.sim import runner

    monkeypatch.setattr(runner, "simulate", _raising(MemoryError()))
    monkeypatch.setattr(Msg, "render", _raising(MemoryError()))
    result = run("fight", "A", "B", "-r", "d20", "--runs", "1000")
    assert_one_line_error(result, 1, "out of memory")
    assert result.stderr == memory.FALLBACK["en"]


def test_numpy_is_refused_before_its_import_when_too_little_is_left(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The guard (a finder first on ``sys.meta_path`` for the run) refuses numpy's import."""
    monkeypatch.setattr(memory, "address_space_left", lambda: 10 << 20)
    monkeypatch.delitem(sys.modules, "numpy")  # as if not yet imported (the real one is kept)
    guard = memory._NumpyGuard()
    with pytest.raises(memory.NumpyTooBig) as caught:
        guard.find_spec("numpy")
    message = memory.memory_message(caught.value)
    assert message is not None and message.key == "memory.out_loading"
    assert "numpy needs about 84 MiB" in message.render("en")
    assert "il n'en reste que 10 Mio" in message.render("fr")
    assert guard.find_spec("numpy.random") is None  # only the first, top-level import
    monkeypatch.setattr(memory, "address_space_left", lambda: None)  # no limit: no refusal
    assert guard.find_spec("numpy") is None


def test_the_guard_is_there_for_the_run_only() -> None:
    before = list(sys.meta_path)
    assert run("roll", "1d6", "--seed", "1").exit_code == 0
    assert sys.meta_path == before


def test_sizes_read_as_a_person_reads_them() -> None:
    assert memory.size_text(5).render("en") == "5 bytes"
    assert memory.size_text(624_640).render("en") == "610 KiB"
    assert memory.size_text(8 * 10**9).render("fr") == "7,45 Gio"


# --- real limits, in processes -------------------------------------------------------------------

needs_ulimit = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("bash") is None,
    reason="ulimit -v and /proc/self/statm: Linux")


def _under_limit(kib: int, *args: str) -> subprocess.CompletedProcess[str]:
    command = " ".join([f"ulimit -v {kib};", "exec", sys.executable, "-m", "sevendag_cli", *args])
    env = {**os.environ, "COLUMNS": "80", "LANG": "C.UTF-8"}
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120,
                          env=env, check=False)


def _one_memory_line(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    assert "OpenBLAS" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert len(lines) == 1 and lines[0].startswith("sevendag: error: out of memory"), done.stderr


@pytest.mark.slow
@needs_ulimit
@pytest.mark.parametrize("kib", [60_000, 100_000, 108_000, 111_000])
def test_a_limit_too_low_for_numpy_is_one_line(kib: int) -> None:
    """Below what numpy needs to load: refused before (or caught during) its import; never
    OpenBLAS's own message, never a traceback (numpy's import failed in several ways there:
    an ``ImportError``, a ``MemoryError``, a ``SystemError``, OpenBLAS ending the process)."""
    _one_memory_line(_under_limit(kib, "fight", "A", "B", "-r", "d20", "--runs", "1000"))


@pytest.mark.slow
@needs_ulimit
@pytest.mark.parametrize("args", [
    ("fight", "--exact", "--tactic", "optimal"),
    ("fight", "--runs", "1000000", "--seed", "1"),
])
def test_work_beyond_a_limit_is_one_line_or_done(args: tuple[str, ...]) -> None:
    """Under a limit where numpy loads but the work may not fit: done, or one line, exit 1."""
    for kib in (130_000, 150_000, 400_000):
        done = _under_limit(kib, *args)
        if done.returncode != 0:
            _one_memory_line(done)
