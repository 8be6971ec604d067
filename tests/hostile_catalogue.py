"""The hostile catalogue: files, paths, sizes and states an adversary would try.

Every row runs the real CLI (in-process through CliRunner, or as a process with a timeout
where a pipe, a device or anything that could hang is involved) and asserts:

* the exit code;
* for a refused command, exactly ONE line on stderr, starting ``sevendag: error: `` and
  holding the row's fragment; never a traceback;
* every file of the working folder byte-, mode- and kind-identical (lock and temporary
  files included) unless the command succeeded;
* for a command that succeeds, the row's own check.

The rows are in ``tests/test_hostile.py`` (``CASES``) and ``tests/test_hostile_rows.py``;
this module holds what runs them.  Adding a case is adding a row:
``Hostile(kind, name, args, code, fragment, setup=...)``.
``kind`` is the issue's class (``files``, ``depth``, ``paths``, ``encounter``, ``numbers``,
``streams``, ``interrupt``, ``injection``, ``endless``).

Streams and Ctrl-C need real file descriptors and signals: those rows run as processes
with stdout closed, on ``/dev/full`` or read by a reader that closes at once, stderr
closed or full, or a SIGINT sent a chosen delay after sevendag's first line ran (the
child signals it through a pipe).  A row whose output was lost after a save
(``saved=True``) checks the encounter holds one more step, whole, with no lock or
temporary file left; a Ctrl-C row accepts exit 130 (one line) or 0 (done first), and the
encounter is then the old one or the new one, whole.
"""


from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from sevendag_cli.data import bundled_dir
from sevendag_cli.limits import (
    MAX_PROBLEMS,
)
from sevendag_cli.text import is_visible
from tests.helpers import run

ENC = "encounter.sevendag.json"
TIMEOUT = 60  # seconds; a process still running then has hung
D20 = (bundled_dir() / "d20.toml").read_text("utf-8")
SEVENDAG = (bundled_dir() / "sevendag.toml").read_text("utf-8")
A = (bundled_dir() / "fighters" / "a.toml").read_text("utf-8")
B = (bundled_dir() / "fighters" / "b.toml").read_text("utf-8")
BRANNOC = (bundled_dir() / "fighters" / "brannoc.toml").read_text("utf-8")
YSOLDE = (bundled_dir() / "fighters" / "ysolde.toml").read_text("utf-8")
LONG = "a" * 300  # one name longer than any file system allows (255)
SETPRIV = shutil.which("setpriv")


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str


Setup = Callable[[], object]
Check = Callable[[Path, Outcome], None]


@dataclass(frozen=True)
class Hostile:
    """One row of the catalogue."""

    kind: str  # the class
    name: str
    args: tuple[str, ...]
    code: int = 1
    fragment: str = ""  # in the one error line (case-insensitive)
    setup: Setup | None = None  # run in the (empty) working folder before the command
    process: bool = False  # a real process with a timeout (pipes, devices, anything that may hang)
    unprivileged: bool = False  # a process without root's power to read anything
    stdin: bytes = b""
    env: dict[str, str] = field(default_factory=dict)
    error_line: bool = True  # False: a report on stdout, not one line on stderr
    check: Check | None = None  # extra checks (the only ones when the command succeeds)
    xfail: str = ""  # a gap known to need a change elsewhere (says where)
    redirect: str = ""  # shell redirections of a process: ">&-", ">/dev/full", "2>&-", "<&-"...
    early: bool = False  # stdout is a pipe whose reader closes before anything is written
    sigint_after: float | None = None  # Ctrl-C this long after sevendag's first line ran
    saved: bool = False  # the encounter was saved before the output was lost: changed, whole
    quiet: bool = False  # the documented quiet exit: no error line on stderr

    @property
    def in_process(self) -> bool:
        return not (self.process or self.unprivileged or self.redirect or self.early
                    or self.sigint_after is not None)

    @property
    def stderr_readable(self) -> bool:
        return "2>" not in self.redirect


# --- building the working folder ---------------------------------------------------------


def write(**files: str | bytes) -> Setup:
    """Files by name: ``a_toml`` is ``a.toml`` (a name with a dot is kept as it is)."""
    def setup() -> None:
        for key, content in files.items():
            name = key if "." in key else ".".join(key.rsplit("_", 1))
            path = Path(name)
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, "utf-8")
    return setup


def both(*setups: Setup) -> Setup:
    def setup() -> None:
        for s in setups:
            s()
    return setup


def fifo(name: str) -> Setup:
    return lambda: os.mkfifo(name)


def folder(name: str) -> Setup:
    return lambda: Path(name).mkdir(parents=True)


def link(name: str, target: str) -> Setup:
    return lambda: os.symlink(target, name)


def unix_socket(name: str) -> Setup:
    def setup() -> None:
        s = socket.socket(socket.AF_UNIX)
        s.bind(name)  # relative: the working folder's path may be too long for a socket address
        s.close()
    return setup


def sparse(name: str, size: int) -> Setup:
    def setup() -> None:
        with open(name, "wb") as fh:
            fh.truncate(size)
    return setup


def chmod(name: str, mode: int) -> Setup:
    return lambda: os.chmod(name, mode)


def init_d20(path: str = ENC) -> Setup:
    def setup() -> None:
        result = run("init", "--ruleset", "d20", "--dice", "19,5", "-e", path)
        assert result.exit_code == 0, result.stderr
    return setup


def init_sevendag() -> None:
    result = run("init", "--seed", "1")
    assert result.exit_code == 0, result.stderr


def finished_d20() -> None:
    init_d20()()
    assert run("wound", "B", "60").exit_code == 0


def encounter_json(mutate: Callable[[dict[str, object]], object]) -> Setup:
    """An encounter, then its JSON document changed by ``mutate`` (a dict; a str replaces the text)."""
    def setup() -> None:
        init_d20()()
        doc = json.loads(Path(ENC).read_text("utf-8"))
        out = mutate(doc)
        Path(ENC).write_text(out if isinstance(out, str) else json.dumps(doc), "utf-8")
    return setup


def nested_json(depth: int) -> Callable[[dict[str, object]], str]:
    """The encounter with ``extra`` holding lists ``depth`` levels below the document."""
    def mutate(doc: dict[str, object]) -> str:
        doc["extra"] = {"x": "@"}
        text = json.dumps(doc)
        return text.replace('"@"', "[" * (depth - 2) + "]" * (depth - 2))
    return mutate


def raw_number(text: str) -> Callable[[dict[str, object]], str]:
    def mutate(doc: dict[str, object]) -> str:
        doc["extra"] = {"n": "@"}
        return json.dumps(doc).replace('"@"', text)
    return mutate


def stale_lock() -> None:
    init_d20()()
    Path(ENC + ".lock").write_bytes(b"")


# --- checks for the commands that succeed --------------------------------------------------


def rounds_in(path: str | Path) -> int:
    return len(json.loads(Path(path).read_text("utf-8"))["history"])


def no_litter(*folders: str) -> None:
    """No lock file and no temporary file left."""
    for f in folders:
        left = [p.name for p in Path(f).iterdir() if p.name.endswith((".lock", ".tmp"))]
        assert left == [], left


def through_link(top: Path, out: Outcome) -> None:
    assert os.path.islink(top / "link.json") and os.readlink(top / "link.json") == "real/enc.json"
    assert rounds_in(top / "real" / "enc.json") == 1  # the target got the round
    no_litter(str(top), str(top / "real"))


def through_chain(top: Path, out: Outcome) -> None:
    assert os.path.islink(top / "l1.json") and os.path.islink(top / "l2.json")
    assert rounds_in(top / "real" / "enc.json") == 1
    no_litter(str(top), str(top / "real"))


def created_through_dangling_link(top: Path, out: Outcome) -> None:
    assert os.path.islink(top / "link.json")
    assert (top / "real" / "enc.json").is_file() and rounds_in(top / "real" / "enc.json") == 0
    no_litter(str(top), str(top / "real"))


def mode_kept(mode: int) -> Check:
    def check(top: Path, out: Outcome) -> None:
        assert stat.S_IMODE(os.stat(top / ENC).st_mode) == mode
        assert rounds_in(top / ENC) == 1
    return check


def new_file_mode(top: Path, out: Outcome) -> None:
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE(os.stat(top / ENC).st_mode) == 0o666 & ~mask
    no_litter(str(top))


STALE = (".encounter.sevendag.json.abc12_xy.tmp", ".encounter.sevendag.json.zzzzzzzz.tmp")
KEPT = (".other.json.abc12_xy.tmp", ".encounter.sevendag.json.notatemp", "notes.tmp.txt")


def stale_temporaries() -> None:
    init_d20()()
    for name in (*STALE, *KEPT):
        Path(name).write_text("half a document", "utf-8")


def stale_removed(top: Path, out: Outcome) -> None:
    names = {p.name for p in top.iterdir()}
    assert not names & set(STALE), names
    assert set(KEPT) <= names
    assert rounds_in(top / ENC) == 1


def lock_removed(top: Path, out: Outcome) -> None:
    assert not (top / (ENC + ".lock")).exists()
    assert rounds_in(top / ENC) == 1


def fight_played(top: Path, out: Outcome) -> None:
    assert json.loads(out.stdout)["command"] == "fight"


def listing_works(top: Path, out: Outcome) -> None:
    doc = json.loads(out.stdout)
    assert {r["name"] for r in doc["rulesets"]} >= {"d20", "sevendag"}


def matrix_of_a_and_b(top: Path, out: Outcome) -> None:
    assert sorted(json.loads(out.stdout)["fighters"]) == ["A", "B"]


def a_thousand_and_one_files() -> None:
    Path("many").mkdir()
    for k in range(1001):
        Path(f"many/s{k}.toml").write_text("", "utf-8")


def problems_bounded(top: Path, out: Outcome) -> None:
    lines = out.stdout.splitlines()
    assert len(lines) == MAX_PROBLEMS + 1, len(lines)
    assert "more problem" in lines[-1] and "99,9" in lines[-1], lines[-1]


def short_line(limit: int) -> Check:
    def check(top: Path, out: Outcome) -> None:
        assert len(out.stderr) < limit, len(out.stderr)
    return check


# --- hostile files ----------------------------------------------------------------------------


def nested(depth: int, open_: str = "[", close: str = "]") -> str:
    """``a = [[...]]`` nested ``depth`` levels (the document counts as one)."""
    return "a = " + open_ * (depth - 1) + close * (depth - 1) + "\n"


def big_int_sheet(value: str) -> str:
    return A.replace("hp = 45", f"hp = {value}")


def many_keys(n: int) -> str:
    i = A.index("[weapon]")
    return A[:i] + "".join(f"k{j}=1\n" for j in range(n)) + A[i:]


def many_bands(n: int) -> str:
    i = SEVENDAG.index("[[wounds]]")
    return SEVENDAG[:i] + '[[wounds]]\nname = "x"\nfrom = 1\nto = 1\n' * n + SEVENDAG[i:]


def many_items(n: int) -> str:
    hands = '[[hands]]\ndie = 6\nholds = "nothing"\n' * n
    items = "".join(f'[items.i{j}]\nmetal = "iron"\n' for j in range(n))
    return 'ruleset = "sevendag"\nname = "Q"\nspeed = 1\nattack = 1\ndefence = 1\n' + hands + items


def many_metals(n: int) -> str:
    metals = "".join(f"[metals.m{j}]\nlabel = \"m\"\n" for j in range(n))
    return SEVENDAG + metals


def many_sheets(n: int) -> Setup:
    def setup() -> None:
        for j in range(n):
            Path(f"f{j}.toml").write_text(A.replace('name = "A"', f'name = "F{j}"'), "utf-8")
    return setup


DEEP = "nested deeper"


# --- numbers, streams, Ctrl-C, terminal injection, endless fights (classes 4-7, 9) ----------

BIG = "999999999 * 999999999"  # about 10**18: within the bound, but not twice or ten times
EVIL = "\\u001b[2J\\u001b[31m\\nsevendag: error: forged"  # TOML escapes: clear, red, a new line
EVIL_SHOWN = "\\x1b[2J\\x1b[31m\\nsevendag: error: forged"  # as the tool must show it


def sheet_a(**fields: str) -> str:
    """Fighter A's sheet with some lines replaced (the first of that key: ``name`` is the
    fighter's), or added at the end, in its ``[weapon]`` table: ``damage='"1d6 * 9"'``."""
    text = A
    for key, value in fields.items():
        lines = text.splitlines()
        hits = [i for i, line in enumerate(lines) if line.split("=")[0].strip() == key]
        if hits:
            lines[hits[0]] = f"{key} = {value}"
        else:
            lines.append(f"{key} = {value}")
        text = "\n".join(lines) + "\n"
    return text


def d20_with(**options: str) -> str:
    """The d20 ruleset with some ``key = value`` lines replaced (options or formulas)."""
    text = D20
    for key, value in options.items():
        lines = text.splitlines()
        hits = [i for i, line in enumerate(lines) if line.split("=")[0].strip() == key]
        assert hits, key
        lines[hits[0]] = f"{key} = {value}"
        text = "\n".join(lines) + "\n"
    return text


def defender(name: str) -> str:
    """Brannoc, renamed, who only defends."""
    return (BRANNOC.replace('name = "Brannoc"', f'name = "{name}"')
            .replace('tactic = "weapons-attack"', 'tactic = "full-defence"'))


def hopeless(name: str) -> str:
    """Brannoc, renamed, who attacks but almost never wounds (attack -100, defence 100)."""
    return (BRANNOC.replace('name = "Brannoc"', f'name = "{name}"')
            .replace("attack = 8", "attack = -100").replace("defence = 6", "defence = 100"))


def no_controls(top: Path, out: Outcome) -> None:
    """Nothing raw reaches the terminal: every line of stdout and stderr is free of controls."""
    for text in (out.stdout, out.stderr):
        for line in text.split("\n"):
            assert is_visible(line), repr(line[:300])
            assert not line.startswith("sevendag: error: forged"), line


def shown_escaped(top: Path, out: Outcome) -> None:
    no_controls(top, out)
    assert "\\x1b[2J" in out.stdout, out.stdout[:2000]


def json_keeps_raw(top: Path, out: Outcome) -> None:
    doc = json.loads(out.stdout)
    assert doc["fighters"][0]["name"] == "A\x1b[2J\x1b[31m\nsevendag: error: forged"


def batch_shrunk(top: Path, out: Outcome) -> None:
    doc = json.loads(out.stdout)
    assert doc["runs"] == 20_000 and doc["batch_size"] < 100_000, doc["batch_size"]


def jsonl_rounds(n: int) -> Check:
    def check(top: Path, out: Outcome) -> None:
        lines = [json.loads(line) for line in out.stdout.splitlines()]
        assert lines[-1]["type"] == "end" and lines[-1]["round"] == n and lines[-1]["capped"]
    return check


def json_rounds(n: int) -> Check:
    def check(top: Path, out: Outcome) -> None:
        doc = json.loads(out.stdout)
        assert doc["rounds_played"] == n == len(doc["rounds"]) and doc["capped"]
    return check


def lines_are(n: int) -> Check:
    def check(top: Path, out: Outcome) -> None:
        no_controls(top, out)
        assert len(out.stdout.splitlines()) == n, out.stdout
    return check


def shown(text: str) -> Check:
    def check(top: Path, out: Outcome) -> None:
        no_controls(top, out)
        assert text in out.stdout, out.stdout[:2000]
    return check


def fighter_in(path: str, name: str) -> Check:
    """The sheet was written, reads back, and keeps the name as typed."""
    def check(top: Path, out: Outcome) -> None:
        no_controls(top, out)
        assert run("rulesets", "validate", path).exit_code == 0
        assert run("fight", path, "B", "--json").exit_code == 0
        import tomllib

        assert tomllib.loads((top / path).read_text("utf-8"))["name"] == name
    return check


# --- running a row ----------------------------------------------------------------------------


def snapshot(top: Path) -> dict[str, tuple[int, int, object]]:
    """Every entry under ``top``: its kind, its mode, and its content (never opening a pipe)."""
    out: dict[str, tuple[int, int, object]] = {}
    for root, dirs, files in os.walk(top):
        for name in (*dirs, *files):
            path = Path(root) / name
            st = os.lstat(path)
            content: object = None
            if stat.S_ISREG(st.st_mode):
                digest = hashlib.sha256()
                with open(path, "rb") as fh:
                    for chunk in iter(lambda fh=fh: fh.read(1 << 20), b""):  # type: ignore[misc]
                        digest.update(chunk)
                content = (st.st_size, digest.hexdigest())
            elif stat.S_ISLNK(st.st_mode):
                content = os.readlink(path)
            out[str(path.relative_to(top))] = (stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode),
                                               content)
    return out


def invoke(case: Hostile, top: Path) -> Outcome:
    if case.in_process:
        result = run(*case.args)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            pytest.fail(f"uncaught {type(result.exception).__name__}: {result.exception}")
        return Outcome(result.exit_code, result.stdout, result.stderr)
    if case.sigint_after is not None:
        return interrupt(case, top)
    command = [sys.executable, "-m", "sevendag_cli", *case.args]
    if case.unprivileged and os.geteuid() == 0:
        if SETPRIV is None:
            pytest.skip("root reads any file, and setpriv is not there to drop that power")
        command = [SETPRIV, "--inh-caps=-all", "--bounding-set=-all", "--", *command]
    if case.redirect:  # a real shell redirection: closed and full descriptors as a user makes them
        command = ["sh", "-c", f'exec "$@" {case.redirect}', "sh", *command]
    env = {**os.environ, **case.env}
    if case.early:
        return early_reader(command, top, env)
    try:
        done = subprocess.run(command, cwd=top, input=case.stdin, capture_output=True,
                              timeout=TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung: still running after {TIMEOUT} s")
    return Outcome(done.returncode, done.stdout.decode("utf-8", "replace"),
                   done.stderr.decode("utf-8", "replace"))


def early_reader(command: list[str], top: Path, env: dict[str, str]) -> Outcome:
    """Stdout is a pipe whose reader closes before the command writes (``| (exec 0<&-; ...)``)."""
    p = subprocess.Popen(command, cwd=top, env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout is not None and p.stderr is not None
    p.stdout.close()
    try:
        err = p.stderr.read()
        code = p.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail(f"hung: still running after {TIMEOUT} s")
    return Outcome(code, "", err.decode("utf-8", "replace"))


def interrupt(case: Hostile, top: Path) -> Outcome:
    """Ctrl-C (SIGINT) ``case.sigint_after`` seconds after sevendag's first line ran.

    The child imports :mod:`sevendag_cli.start` (nothing else), says so through a pipe,
    then runs :func:`sevendag_cli.start.main` as the console script does: the delay
    counts from there, the imports of Typer, Rich and the rest included.
    """
    assert case.sigint_after is not None
    r, w = os.pipe()
    code = (f"import os, sys; from sevendag_cli.start import main; os.write({w}, b'.'); "
            f"os.close({w}); sys.argv = ['sevendag', *{list(case.args)!r}]; main()")
    p = subprocess.Popen([sys.executable, "-c", code], cwd=top, pass_fds=(w,),
                         env={**os.environ, **case.env}, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(w)
    try:
        assert os.read(r, 1) == b".", "the child did not start"
    finally:
        os.close(r)
    time.sleep(case.sigint_after)
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        pytest.fail(f"hung after Ctrl-C: still running after {TIMEOUT} s")
    return Outcome(p.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


def encounter_whole(top: Path, before: dict[str, tuple[int, int, object]], old: str | None,
                    changed: bool) -> None:
    """The encounter is whole: the old one or one step further (``changed``: it must have been
    saved); nothing left behind (lock, temporary file); every other file as it was."""
    now = snapshot(top)
    litter = [name for name in now if name.endswith((".lock", ".tmp"))]
    assert not litter, litter
    assert {k: v for k, v in now.items() if k != ENC} == {k: v for k, v in before.items() if k != ENC}
    if changed:
        assert now.get(ENC) != before.get(ENC), "the encounter was not saved"
    if ENC not in now:
        return
    doc = json.loads((top / ENC).read_text("utf-8"))  # whole: it parses
    if old is not None and now[ENC] != before[ENC]:
        steps = len(json.loads(old)["history"])
        assert abs(len(doc["history"]) - steps) == 1, (steps, len(doc["history"]))


def case_params(cases: list[Hostile]) -> list[object]:
    """The rows as pytest parameters: named ``kind: name``, an expected failure marked, and a
    row that runs a real process, feeds a huge input or draws a picture (matplotlib) marked
    ``slow`` (half a second to seconds each)."""
    out: list[object] = []
    for c in cases:
        marks = [pytest.mark.xfail(strict=True, reason=c.xfail)] if c.xfail else []
        if not c.in_process or c.kind == "depth" or ("--plot" in c.args and c.code == 0):
            marks.append(pytest.mark.slow)
        out.append(pytest.param(c, id=f"{c.kind}: {c.name}", marks=marks))
    return out


def check_case(case: Hostile, tmp_path: Path) -> None:
    """Run one row and assert what the catalogue promises (see the module's docstring)."""
    if case.setup is not None:
        case.setup()
    before = snapshot(tmp_path)
    old = (tmp_path / ENC).read_text("utf-8", "replace") if (tmp_path / ENC).is_file() else None
    out = invoke(case, tmp_path)
    for text in (out.stderr, out.stdout):
        assert "Traceback" not in text and "Exception ignored" not in text, out.stderr[-2000:]
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    if case.sigint_after is not None:  # Ctrl-C: exit 130 with one line, or done before it
        assert out.code in (case.code, 0), (out.code, out.stderr[-2000:])
        assert len(lines) <= 2 and all(not x.startswith("sevendag: error:") or i == len(lines) - 1
                                        for i, x in enumerate(lines)), out.stderr[-2000:]
        if out.code == case.code:
            assert lines and lines[-1].startswith("sevendag: "), out.stderr[-2000:]
            assert case.fragment.lower() in lines[-1].lower(), (case.fragment, lines[-1])
        encounter_whole(tmp_path, before, old, changed=False)
        return
    assert out.code == case.code, (out.code, out.stderr[-2000:])
    if case.code != 0:
        if case.quiet:  # no error line (a note the command makes before writing may be there)
            assert not [x for x in lines if x.startswith("sevendag:")], out.stderr[-2000:]
        elif case.error_line and case.stderr_readable:
            assert len(lines) == 1, out.stderr[-2000:]
            assert lines[0].startswith("sevendag: error: "), lines[0][:500]
            assert case.fragment.lower() in lines[0].lower(), (case.fragment, lines[0][:2000])
        elif not case.error_line:  # a report on stdout (``rulesets validate``), nothing on stderr
            assert "sevendag: error" not in out.stderr, out.stderr[-2000:]
            assert case.fragment.lower() in out.stdout.lower(), (case.fragment, out.stdout[-2000:])
        if case.saved:  # saved before the output was lost: a new encounter, whole
            encounter_whole(tmp_path, before, old, changed=True)
        else:
            assert snapshot(tmp_path) == before  # nothing changed, lock and temporary files included
    else:
        assert "sevendag: error" not in out.stderr, out.stderr[-2000:]
    if case.check is not None:
        case.check(tmp_path, out)
