"""What an encounter file can cost before it is refused: counted before it is parsed.

A file of ``{}`` (each 72 bytes of Python for 3 bytes of file) took 33 times its size in
memory before the parser's error; now what a file holds is counted in a copy of its
characters (:func:`sevendag_cli.store.json_shape`) and a file whose objects would take more
than ``ENCOUNTER_MEMORY_PER_BYTE`` per byte (or ``MAX_ENCOUNTER_MEMORY``) is refused, in one
line, before a single object is made of it; every encounter sevendag writes stays readable
(the limits are checked against what it writes, extrapolated to the largest file).
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from sevendag_cli import store
from sevendag_cli.errors import EncounterError
from sevendag_cli.limits import ENCOUNTER_MEMORY_PER_BYTE, MAX_ENCOUNTER_BYTES, MAX_ENCOUNTER_MEMORY
from tests.helpers import ENCOUNTER, assert_one_line_error, ok, run


def _encounter_with_history(items: str, n: int) -> bytes:
    """A real encounter whose history is ``n`` copies of ``items`` (as JSON text)."""
    ok("init", "-r", "d20", "--dice", "19,5")
    doc = json.loads(ENCOUNTER.read_text("utf-8"))
    doc["history"] = "@@"
    head, tail = json.dumps(doc).split('"@@"')
    return (head + "[" + ",".join([items] * n) + "]" + tail).encode()


FLOODS = {
    "empty objects": "{}",
    "empty lists": "[]",
    "lists of one": "[1]",
    "objects of one key": '{"a":1}',
    "fractions": "1.5",
}


@pytest.mark.parametrize("flood", sorted(FLOODS))
def test_a_flood_of_small_values_is_refused_before_it_is_parsed(flood: str) -> None:
    """``status`` on 2 MB of ``{}`` (or of other small values): one line, exit 1, and at most
    a few times the file's size in memory (before: 33 times, in objects made to be thrown)."""
    data = _encounter_with_history(FLOODS[flood], 2_000_000 // (len(FLOODS[flood]) + 1))
    ENCOUNTER.write_bytes(data)
    tracemalloc.start()
    try:
        result = run("status")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert_one_line_error(result, 1, "not read: its values")
    assert peak < 4 * len(data), (peak, len(data))


def test_the_json_error_document_names_the_key() -> None:
    ENCOUNTER.write_bytes(_encounter_with_history("{}", 700_000))
    result = run("status", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"]["key"] == "store.too_many_items"


def test_every_command_that_reads_the_encounter_refuses_it() -> None:
    ENCOUNTER.write_bytes(_encounter_with_history("{}", 700_000))
    before = ENCOUNTER.read_bytes()
    for args in (("status",), ("log",), ("odds",), ("round", "--seed", "1"), ("wound", "A", "1"),
                 ("undo",)):
        assert_one_line_error(run(*args), 1, "not read")
    assert ENCOUNTER.read_bytes() == before


def _measured(text: str) -> int:
    tracemalloc.start()
    try:
        value: Any = json.loads(text)
        size = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del value
    return size


@pytest.mark.parametrize("item", [
    "{}", "[]", "1", "1000", "1.5", "-123456789", '"ab"', '"' + "x" * 40 + '"', '"\\u4e00é"',
    '{"a":1}', '{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6}', "[1,2,3,4,5,6,7,8,9]", "null", "true",
    '{"name":"A","hp":45,"max_hp":45}', '[{"x":[1,[2,{}]]}]',
])
def test_the_estimate_is_at_least_what_the_parser_takes(item: str) -> None:
    """:meth:`JsonShape.memory` against ``tracemalloc`` for a list of 5,000 of each item."""
    text = "[" + ",".join([item] * 5_000) + "]"
    assert store.json_shape(text.encode()).memory() >= _measured(text)


def test_the_estimate_of_a_real_encounter_is_at_least_what_it_takes() -> None:
    ok("init", "-r", "sevendag", "--seed", "3")
    for seed in range(4, 9):
        run("round", "--seed", str(seed))
    text = ENCOUNTER.read_text("utf-8")
    assert store.json_shape(text.encode()).memory() >= _measured(text)


def _written(ruleset: str, rounds: int) -> dict[str, Any]:
    ENCOUNTER.unlink(missing_ok=True)
    ok("init", "-r", ruleset, "--seed", "3")
    for seed in range(rounds):
        if run("round", "--seed", str(seed + 10)).exit_code != 0:
            break  # the fight is over
    doc: dict[str, Any] = json.loads(ENCOUNTER.read_text("utf-8"))
    return doc


def _forms(doc: dict[str, Any]) -> dict[str, bytes]:
    """The document as sevendag writes it, and written without indentation (another tool's)."""
    return {"written": (json.dumps(doc, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode(),
            "compact": json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode()}


@pytest.mark.slow
def test_small_texts_are_within_the_allowance() -> None:
    """Short texts cost some 12 bytes a byte (each a Python object of 57 bytes for 5 of file):
    within the allowance, so read (and refused after, not being an encounter's steps); what
    the parser took is within the estimate, itself within the allowance."""
    data = _encounter_with_history('"ab"', 400_000)
    shape = store.json_shape(data)
    assert _measured(data.decode()) <= shape.memory() <= store.memory_allowed(len(data))
    ENCOUNTER.write_bytes(data)
    assert_one_line_error(run("status"), 1, "damaged")


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_every_encounter_sevendag_writes_stays_readable(ruleset: str) -> None:
    """The steps of a real fight, repeated up to the largest file sevendag writes
    (``MAX_ENCOUNTER_BYTES`` as it writes it): the estimate within both limits, also written
    without indentation (another tool's copy of the same steps, a smaller file)."""
    doc = _written(ruleset, 6)
    steps = len(doc["history"])
    assert steps >= 3
    start = _forms({**doc, "history": [], "log": doc["log"][:1]})
    full = _forms(doc)
    written_step = (len(full["written"]) - len(start["written"])) / steps
    most = (MAX_ENCOUNTER_BYTES - len(start["written"])) // written_step  # steps in the largest
    for form, data in full.items():
        base, shape = store.json_shape(start[form]), store.json_shape(data)
        step_memory = (shape.memory() - base.memory()) / steps
        step_bytes = (shape.size - base.size) / steps
        assert shape.memory() <= store.memory_allowed(shape.size), form
        largest = base.memory() + most * step_memory
        assert largest <= MAX_ENCOUNTER_MEMORY * 0.95, (form, largest / 2**20)
        assert step_memory / step_bytes <= ENCOUNTER_MEMORY_PER_BYTE * 0.9, form


@pytest.mark.slow
def test_a_real_encounter_of_many_rounds_is_read() -> None:
    """A real encounter's steps repeated to some 8 MB: read, in one piece."""
    doc = _written("d20", 6)
    doc["history"] = doc["history"] * 3600
    doc["log"] = doc["log"][:1] + doc["log"][1:] * 3600
    data = _forms(doc)["written"]
    Path("big.json").write_bytes(data)
    assert len(data) > 8 << 20
    loaded = store.load(Path("big.json"))
    assert len(loaded.history) == len(doc["history"])


def test_a_refusal_names_the_file_the_estimate_and_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "e.json"
    path.write_bytes(b"[" + b",".join([b"{}"] * 400_000) + b"]")
    with pytest.raises(EncounterError) as caught:
        store.load(path)
    text = str(caught.value)
    assert str(path) in text and "MiB of memory" in text and "allowed for an encounter file of" in text
