"""How a failure reaches the user: one line on stderr, ``sevendag: error: ...``, and its exit code.

:func:`handled` wraps each command's body: a :class:`~sevendag_cli.errors.SevendagError`
becomes its one line and exit code, Ctrl-C exit 130 (the line says if the encounter was
saved before it).  An error line is always one line, control characters made visible.  Click's usage errors
(an unknown option, a bad value), raised before a command runs, are put in the
user's language as sevendag's own errors by :mod:`sevendag_cli.commandline`; the root
group (:class:`sevendag_cli.cli.SevendagGroup`) prints them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

from sevendag_cli.errors import Msg, SevendagError
from sevendag_cli.i18n import LANGS, detect_lang
from sevendag_cli.text import visible


class JsonErrors:
    """Whether this run writes its errors as a JSON document too (``--json`` on the command line),
    and for which command.  Set by the root group for each run (:func:`json_errors_for`)."""

    wanted = False
    command: str | None = None


def json_errors_for(args: Any, commands: Any) -> None:
    """Look for ``--json`` on the command line (before ``--``), and the command it is for."""
    argv = [str(a) for a in (sys.argv[1:] if args is None else args)]
    if "--" in argv:
        argv = argv[: argv.index("--")]
    JsonErrors.wanted = "--json" in argv
    JsonErrors.command = None
    for i, arg in enumerate(argv):
        if arg in commands:
            sub = argv[i + 1] if i + 1 < len(argv) else ""
            JsonErrors.command = f"{arg} {sub}" if arg == "rulesets" and sub in ("show", "validate") else arg
            break


# Messages that only place another one (a file, a key, a formula, a hint): the key of an error
# is the key of the message they wrap, the one that says what is wrong.
_WRAPPERS = {"common.at_path": "message", "data.at_key": "message", "data.at_file": "message",
             "formula.error": "message", "formula.expression_error": "message",
             "cli.see_help": "message", "usage.suggest_option": "message",
             "usage.suggest_command": "message", "usage.invalid_value": "message",
             "data.suggest_name": "message", "data.looked_in": "message",
             "whatif.ruleset_first": "message"}


def error_key(message: Msg) -> str:
    """The stable key of an error: the key of :mod:`sevendag_cli.messages` that says what is wrong."""
    while message.key in _WRAPPERS:
        inner = message.params.get(_WRAPPERS[message.key])
        if not isinstance(inner, Msg) or inner.key == "raw":
            break
        message = inner
    return "common.text" if message.key == "raw" else message.key  # a text not (yet) in the catalogue


def error_document(key: str, text: str, code: int) -> dict[str, Any]:
    """The JSON document of an error (schema ``error``)."""
    return {"schema_version": 1, "command": JsonErrors.command,
            "error": {"key": key, "message": text, "exit_code": code}}


class Interruption:
    """Whether this run has written the line that ends it as interrupted (exit 130): a
    second Ctrl-C landing while the program winds down (workers stopped, files closed) ends
    it the same, with no second line.  Reset by the root group for each run."""

    written = False


def fail(message: str | Msg, code: int, lang: str = "en", key: str | None = None) -> NoReturn:
    """One line on stderr, ``sevendag: error: `` then the message in ``lang``; exit ``code``.

    The prefix is the same in every language, so scripts can look for it.  Under
    ``--json`` a JSON document on stdout says the same (:func:`error_document`),
    with the message's stable ``key``.
    """
    if code == 130:
        Interruption.written = True
    if JsonErrors.wanted:
        from sevendag_cli.jsontext import json_text

        text = message.render(lang) if isinstance(message, Msg) else message
        if key is None:
            key = error_key(message) if isinstance(message, Msg) else "common.text"
        doc = error_document(key, text, code)  # JSON keeps the raw text: its escaping is safe
        try:
            sys.stdout.write(json_text(doc, indent=sys.stdout.isatty()) + "\n")
            sys.stdout.flush()
        except (OSError, ValueError):
            pass  # stdout gone: the line on stderr still says it
    write_error(message, lang)
    raise SystemExit(code)


def write_error(message: str | Msg, lang: str = "en") -> None:
    """The error line of :func:`fail`, without exiting.

    Always exactly one line: whatever the message's parts hold (a name with a
    newline or an escape sequence), control characters are shown as escapes
    (:func:`sevendag_cli.text.visible`).  A stderr that cannot be written is
    not an error of its own (there is nowhere to report it).
    """
    text = visible(message.render(lang) if isinstance(message, Msg) else message)
    try:
        sys.stderr.write(f"sevendag: error: {text}\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def interrupted(lang: str, unchanged: bool = False) -> Msg:
    """The line of a Ctrl-C: what was saved before it, if anything (else, maybe, that nothing changed)."""
    from sevendag_cli.streams import saved

    path = saved()
    if path is not None:
        return Msg("cli.interrupted_saved", path=path)
    return Msg("cli.interrupted_unchanged" if unchanged else "cli.interrupted")


def lang_of_args(args: Any) -> str:
    """The language asked with ``--lang`` on the command line, else from the environment.

    For errors found before the options are parsed (an unknown option, a bad value).
    """
    argv = [str(a) for a in (sys.argv[1:] if args is None else args)]
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        value = argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else (
            arg.partition("=")[2] if arg.startswith("--lang=") else None)
        if value in LANGS:
            return value
    return detect_lang()


@contextmanager
def handled(lang: str | None = None) -> Iterator[None]:
    """Turn a project error into one line on stderr and its exit code; Ctrl-C into 130.

    The line is in the command's ``--lang`` (a ``Lang``, which is a ``str``), or the
    environment's language.
    """
    code = detect_lang(None if lang is None else str(lang))
    try:
        yield
    except SevendagError as exc:
        fail(exc.msg, exc.exit_code, code)
    except KeyboardInterrupt:
        fail(interrupted(code, unchanged=True), 130, code)
    except Exception as exc:  # memory ran out (also inside a lazy import): one line, exit 1
        message = memory_failure(exc)
        if message is None:
            raise
        fail_memory(message, code)


def fail_memory(message: Msg, lang: str) -> NoReturn:
    """:func:`fail` with a memory failure's line, exit 1; when even that line cannot be made
    (the catalogue cannot be loaded), a fixed one (:data:`sevendag_cli.memory.FALLBACK`)."""
    try:
        fail(message, 1, lang)
    except MemoryError:
        from sevendag_cli.memory import FALLBACK

        try:
            sys.stderr.write(FALLBACK.get(lang, FALLBACK["en"]))
            sys.stderr.flush()
        except (OSError, ValueError, MemoryError):
            pass
        raise SystemExit(1) from None


def memory_failure(exc: BaseException) -> Msg | None:
    """The line of an error that means memory ran out (:mod:`sevendag_cli.memory`), saying
    whether the encounter was saved first; None for any other error."""
    from sevendag_cli.memory import memory_message
    from sevendag_cli.streams import saved

    try:
        message = memory_message(exc)
    except MemoryError:  # too little left even to look: it is memory
        from sevendag_cli.memory import out_of_memory

        message = out_of_memory(MemoryError())
    if message is None:
        return None
    path = saved()
    return message if path is None else Msg("memory.after_save", path=path, message=message)
