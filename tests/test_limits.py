"""The bounds on what is read, below the CLI: depth found before parsing, integers,
problem counts, safe reads, and the reasons of system errors in both languages."""

from __future__ import annotations

import errno
import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sevendag_cli import files
from sevendag_cli.data import Problems, listed, parse_toml, read_toml, toml_depth
from sevendag_cli.errors import DataError, Msg
from sevendag_cli.limits import INT_LIMIT, MAX_DATA_DEPTH, MAX_LISTED, MAX_PROBLEMS
from sevendag_cli.messages import MESSAGES
from sevendag_cli.store import json_too_deep


def depth(value: object) -> int:
    """Containers on the deepest path (the document is 1), as the bounds count it."""
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


# --- TOML: the depth read from the tokens is the depth of the parsed document ----------------

KEYS = st.sampled_from(["a", "b", "c", "x-y", "k_1", '"q.u[o]te"', "'li{t}'"])
TRICKY = st.sampled_from(['"a.b.c"', '"[[["', "'{{'", '"""x\n[[ ]] {\n"""', "'''y\n. . [\n'''",
                          '"esc \\" [ "', "1.5", "-2", "1979-05-27T07:32:00.999", "true", "0x1f"])


@st.composite
def toml_value(draw: st.DrawFn, level: int = 0) -> str:
    kind = draw(st.integers(0, 3 if level < 6 else 0))
    if kind == 0:
        return draw(TRICKY)
    if kind == 1:  # an array, maybe over several lines with comments
        items = [draw(toml_value(level + 1)) for _ in range(draw(st.integers(0, 3)))]
        sep = draw(st.sampled_from([", ", ",\n  # a [comment] {\n  ", ",\n\n"]))
        return "[" + sep.join(items) + "]"
    pairs = [f"{draw(dotted())} = {draw(toml_value(level + 1))}" for _ in range(draw(st.integers(0, 2)))]
    return "{" + ", ".join(_unique(pairs)) + "}"


@st.composite
def dotted(draw: st.DrawFn) -> str:
    parts = draw(st.lists(KEYS, min_size=1, max_size=3, unique=True))
    return draw(st.sampled_from([".", " . "])).join(parts)


def _unique(pairs: list[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for p in pairs:
        head = p.split(" = ", 1)[0].replace(" ", "").split(".")[0]
        if head not in seen:
            seen.add(head)
            out.append(p)
    return out


@st.composite
def toml_document(draw: st.DrawFn) -> str:
    lines = []
    for i in range(draw(st.integers(1, 3))):
        header = draw(st.sampled_from(["", "[t{i}]", "[t{i}.sub . deeper]", "[[arr{i}]]", "[[arr{i}.x]]"]))
        if header:
            lines.append(header.format(i=i))
        lines += _unique([f"{draw(dotted())} = {draw(toml_value())}  # [not] {{counted}}"
                          for _ in range(draw(st.integers(1, 3)))])
    return "\n".join(lines) + "\n"


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(toml_document())
def test_toml_depth_before_parsing_is_the_depth_after(text: str) -> None:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return  # a drawn key clashed with another: not a document
    assert toml_depth(text, 10**6) == depth(doc), text


@pytest.mark.parametrize(("text", "expected"), [
    ("a = 1\n", 1), ("a.b.c = 1\n", 3), ("[x.y]\nz = 1\n", 3), ("[[t]]\nk = 1\n", 3),
    ("[[a.b]]\nk = [[1]]\n", 6), ("a = {b = {c = 1}}\n", 3), ('s = """\\"""[[[ """\n', 1),
    ("a = '''x\n[[[[\n'''\n", 1), ('"a.b" = [1.5, 2.5]\n', 2), ("a = [\n 1,\n\n # c\n [2, [3]],\n]\n", 4),
])
def test_toml_depth_examples(text: str, expected: int) -> None:
    assert toml_depth(text, 100) == expected == depth(tomllib.loads(text))


def test_toml_depth_stops_at_the_limit_of_a_huge_key() -> None:
    text = "a" + ".a" * 1_000_000 + " = 1\n"
    assert MAX_DATA_DEPTH < toml_depth(text, MAX_DATA_DEPTH) <= MAX_DATA_DEPTH + 2


@pytest.mark.parametrize("text", [
    "a = " + "[" * 40 + "]" * 40, "a" + ".b" * 40 + " = 1", "[" + ".".join("x" * 40) + "]",
    "a = " + "{b = " * 40 + "1" + "}" * 40,
])
def test_too_deep_toml_names_the_bound(text: str) -> None:
    with pytest.raises(DataError, match=f"nested deeper than {MAX_DATA_DEPTH} levels"):
        parse_toml(text.encode(), "f.toml")


def test_depth_is_also_checked_after_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk of the parsed document holds the bound even if the token count missed it."""
    from sevendag_cli import data

    monkeypatch.setattr(data, "toml_depth", lambda text, limit: 1)
    with pytest.raises(DataError, match=r"f\.toml: x: nested deeper"):
        parse_toml(("x.a = " + "[" * 40 + "]" * 40).encode(), "f.toml")


@pytest.mark.parametrize(("value", "ok"), [
    (str(INT_LIMIT), True), (str(-INT_LIMIT), True), (str(INT_LIMIT + 1), False),
    (str(-INT_LIMIT - 1), False), ("0x" + "f" * 16, False), ("9" * 5000, False),
])
def test_integers_in_toml_are_bounded(value: str, ok: bool) -> None:
    text = f"[t]\nlist = [1, {value}]\n".encode()
    if ok:
        assert parse_toml(text, "f.toml")["t"]["list"][1] == int(value, 0)
    else:
        with pytest.raises(DataError, match="beyond"):
            parse_toml(text, "f.toml")


# --- JSON: the depth found before parsing ---------------------------------------------------


JSON = st.recursive(
    st.one_of(st.integers(-5, 5), st.sampled_from(["[", "]]", "{", '\\"[', "a\\\\"]), st.none()),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("ab[{"), inner, max_size=3),
    max_leaves=30,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(JSON, st.integers(1, 8))
def test_json_depth_before_parsing(value: Any, limit: int) -> None:
    text = json.dumps(value)
    assert json_too_deep(text, limit) == (depth(value) > limit)


def test_unbalanced_json_is_left_to_the_parser() -> None:
    assert not json_too_deep("[" * 100_000, 64)
    assert json_too_deep("[" * 65 + "]" * 65, 64)
    assert not json_too_deep("[" * 64 + "]" * 64, 64)


# --- problems and lists of names --------------------------------------------------------------


def test_problems_keep_the_first_ones_and_count_the_rest() -> None:
    problems = Problems("f.toml")
    for i in range(MAX_PROBLEMS + 80):
        problems.add(f"k{i}", Msg("data.missing"))
    assert len(problems.errors) == MAX_PROBLEMS and problems.more == 80
    en, fr = problems.render("en"), problems.render("fr")
    assert len(en) == len(fr) == MAX_PROBLEMS + 1
    assert en[0] == "f.toml: k0: missing: this key is required"
    assert en[-1] == f"… and 80 more problem(s) (the first {MAX_PROBLEMS} are listed)"
    assert fr[-1] == f"… et 80 autre(s) problème(s) (les {MAX_PROBLEMS} premiers sont listés)"


def test_listed_names_are_bounded() -> None:
    assert listed(["a", "b"]) == "a, b"
    many = listed(f"n{i}" for i in range(MAX_LISTED + 1000))
    assert isinstance(many, Msg)
    assert many.render("en").endswith("… (1,000 more)")
    assert many.render("fr").endswith("… (1\u00a0000 de plus)")


# --- reading files -----------------------------------------------------------------------------


def test_a_pipe_or_device_is_never_opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    os.mkfifo(tmp_path / "p.toml")
    opened: list[object] = []
    real_open = os.open
    monkeypatch.setattr(os, "open", lambda *a, **k: opened.append(a) or real_open(*a, **k))
    for path in (tmp_path / "p.toml", Path("/dev/zero"), tmp_path):
        with pytest.raises(files.Unreadable) as info:
            files.read_regular(path, 100)
        assert info.value.kind is not None
    assert opened == []


def test_a_file_swapped_for_a_pipe_after_the_look_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check is made again on what was opened (non-blocking): no gap between look and open."""
    path = tmp_path / "a.toml"
    path.write_text("a = 1\n", "utf-8")
    real_open = os.open

    def swap(p: Any, flags: int, *args: Any) -> int:
        os.unlink(path)
        os.mkfifo(path)
        assert flags & os.O_NONBLOCK
        return real_open(p, flags, *args)

    monkeypatch.setattr(os, "open", swap)
    with pytest.raises(files.Unreadable, match="named pipe"):
        files.read_regular(path, 100)


def test_a_file_that_grows_while_read_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.toml"
    path.write_bytes(b"x" * 50)
    real_read = os.read

    def grow(fd: int, n: int) -> bytes:
        with open(path, "ab") as fh:
            fh.write(b"y" * 100)
        return real_read(fd, n)

    monkeypatch.setattr(os, "read", grow)
    with pytest.raises(files.Unreadable, match="too large"):
        files.read_regular(path, 100)


def test_read_toml_names_the_file_and_the_reason(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "p.toml")
    with pytest.raises(DataError) as info:
        read_toml(tmp_path / "p.toml")
    assert info.value.render("fr").endswith("p.toml : est un tube nommé (FIFO), pas un fichier TOML")


def test_every_system_reason_is_in_the_catalogue() -> None:
    keys = set(files._REASONS.values()) | {"common.os.nul", "common.os.other"}
    assert sorted(keys - set(MESSAGES)) == []
    for kind in ("folder", "fifo", "device", "socket", "link", "other"):
        assert f"common.kind.{kind}" in MESSAGES
    for what in ("ruleset", "fighter"):
        assert f"data.not_{what}_file" in MESSAGES
    reason = files.os_reason(OSError(errno.ENAMETOOLONG, "File name too long"))
    assert reason.render("fr") == "nom plus long que ce que le système permet"
    other = files.os_reason(OSError(errno.ECHILD, "No child processes"))
    assert other.render("en") == f"system error {errno.ECHILD}: No child processes"
    assert files.os_reason(ValueError("embedded null byte")).render("en") == "the name holds a NUL character"
