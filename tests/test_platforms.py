"""What differs per platform, checked here on any: the standard streams' encoding (Windows:
UTF-8 into a file or a pipe), paths broken only at the system's separators, files opened with
the flags the system has.  CI runs on Linux; ``mypy --platform win32`` and ``--platform darwin``
(in ``.ci/run``) check the rest of the code names nothing those systems lack."""

from __future__ import annotations

import io
import os

from sevendag_cli import files, oslock, streams
from sevendag_cli.render.layout import SEPARATORS, path_lines


class Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_windows_writes_utf8_into_a_file_or_a_pipe_and_leaves_its_console_alone() -> None:
    assert streams.output_encoding(Stream(tty=False), windows=True) == {"encoding": "utf-8",
                                                                        "errors": "replace"}
    assert streams.output_encoding(Stream(tty=True), windows=True) == {"errors": "replace"}
    for tty in (False, True):  # elsewhere the locale's encoding (UTF-8 nearly everywhere)
        assert streams.output_encoding(Stream(tty=tty), windows=False) == {"errors": "replace"}


def test_a_path_is_broken_at_the_systems_separators_only() -> None:
    assert path_lines(r"C:\Users\Jean\sevendag\brannoc.toml", 14, separators="/\\") == [
        "C:\\Users\\Jean\\", "sevendag\\", "brannoc.toml"]
    assert path_lines("/home/jean/a b/brannoc.toml", 12, separators="/") == [
        "/home/jean/", "a b/", "brannoc.toml"]
    # on Unix a backslash is a letter of a name: never a break
    assert path_lines("/x/a\\b\\c\\d.toml", 8, separators="/") == ["/x/", "a\\b\\c\\d.", "toml"]
    assert set(SEPARATORS) == {"/", os.sep, os.altsep or "/"}


def test_files_are_opened_with_the_flags_this_system_has() -> None:
    for flags in (files._READ_FLAGS, oslock.open_flags(write=True), oslock.open_flags(write=False)):
        assert isinstance(flags, int)
    for name in ("O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC", "O_BINARY"):
        if hasattr(os, name):
            assert files._READ_FLAGS & getattr(os, name)
