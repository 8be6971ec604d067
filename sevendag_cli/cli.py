"""The ``sevendag`` program: the root group, its table of commands, the error handling and ``main``.

Each command lives in its own module under :mod:`sevendag_cli.commands`
(see :data:`COMMANDS`).  The root group builds only the command that is run:
``sevendag fight`` imports ``commands/fight.py`` and nothing of the others,
so start-up pays for one command.  ``--help`` (which lists them all), shell
completion and French help work on the same table.

Adding a command: write ``sevendag_cli/commands/NAME.py`` with a Typer ``app``
holding the command (``@app.command("NAME", cls=SevendagCommand)``), or a group (an
``app`` with a callback and ``cls=SevendagGroupBase``, like ``rulesets``; the classes of
:mod:`sevendag_cli.commandline`, a test checks), and add one line to :data:`COMMANDS` (then its
help in French to :mod:`sevendag_cli.help_fr` and a row to the table of
``docs/commands.md``: tests check both).
"""

from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import Callable, Iterator, MutableMapping
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup

from sevendag_cli import __version__, click_compat
from sevendag_cli.columns import columns_held
from sevendag_cli.commandline import HelpLang, SevendagGroupBase, see_help
from sevendag_cli.errors import Msg, SevendagError, UsageError
from sevendag_cli.failure import (
    Interruption,
    fail,
    fail_memory,
    interrupted,
    json_errors_for,
    lang_of_args,
    memory_failure,
    write_error,
)
from sevendag_cli.i18n import choose_lang
from sevendag_cli.memory import numpy_guard
from sevendag_cli.options import LangOpt

Command = TyperCommand | TyperGroup
"""What the root group holds: a command, or a group of them (``rulesets``)."""

COMMANDS: dict[str, str] = {
    # command name: its module under sevendag_cli/commands/, in the order --help lists them
    "init": "table",
    "round": "table",
    "wound": "table",
    "undo": "table",
    "status": "status",
    "log": "log",
    "odds": "odds",
    "advise": "advise",
    "fight": "fight",
    "sweep": "sweep",
    "matrix": "matrix",
    "new": "new",
    "roll": "roll",
    "schema": "schema",
    "rulesets": "rulesets",
}


def load_command(name: str) -> TyperCommand | TyperGroup:
    """Import the module of command ``name`` and build that command (only that one) for Click."""
    module = importlib.import_module(f"sevendag_cli.commands.{COMMANDS[name]}")
    family: typer.Typer = module.app
    if family.registered_callback is not None:  # a group with its own subcommands
        for func in (family.registered_callback.callback,
                     *(info.callback for info in family.registered_commands)):
            if func is not None:
                resolve_annotations(func)
        group = typer.main.get_command(family)
        assert isinstance(group, TyperGroup)
        return group
    for info in family.registered_commands:
        if info.name == name:
            if info.callback is not None:
                resolve_annotations(info.callback)
            command = typer.main.get_command_from_info(
                info, pretty_exceptions_short=family.pretty_exceptions_short,
                rich_markup_mode=family.rich_markup_mode)
            assert isinstance(command, TyperCommand)
            return command
    raise LookupError(f"sevendag_cli.commands.{COMMANDS[name]} has no command {name!r}")


def resolve_annotations(func: Callable[..., Any]) -> None:
    """Evaluate the annotations of a command's function once, before Typer builds the command.

    The modules say ``from __future__ import annotations``, so the annotations are text, and
    Typer evaluates that text four times per command (``inspect.signature`` and
    ``typing.get_type_hints``, each twice): about a millisecond of every command's start.
    The values are what ``inspect.signature(func, eval_str=True)`` gives, so
    Typer builds the same command.
    """

    func.__annotations__ = inspect.get_annotations(func, eval_str=True)


class LazyCommands(MutableMapping[str, Any]):  # Any: what Typer's groups hold, its private Click's class
    """The root group's commands: every name known at once, each command built when first used.

    In French (``french``), a command's help is translated as it is built.
    """

    def __init__(self) -> None:
        self.names = list(COMMANDS)
        self.built: dict[str, Command] = {}
        self.french = False

    def __getitem__(self, name: str) -> Command:
        if name not in self.names:
            raise KeyError(name)
        command = self.built.get(name)
        if command is None:
            command = self.built[name] = load_command(name)
            if self.french:
                from sevendag_cli.help_fr import translate

                translate(command)
        return command

    def __setitem__(self, name: str, command: Command) -> None:
        if name not in self.names:
            self.names.append(name)
        self.built[name] = command

    def __delitem__(self, name: str) -> None:
        self.names.remove(name)
        self.built.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


class _Interrupted(Exception):
    """A Ctrl-C seen by the root group, carried past Typer (which would swallow it)."""


class SevendagGroup(SevendagGroupBase):
    """The root group: commands built on demand, and every failure as one line on stderr.

    Usage mistakes (unknown option, bad value) are one line, exit 2, in the
    language of ``--lang`` if the command line has a valid one, else in the
    environment's (``LANG``...): :mod:`sevendag_cli.commandline` raises them as
    sevendag's own errors.  In French, ``--help`` is French too
    (:mod:`sevendag_cli.help_fr`, :mod:`sevendag_cli.commandline`).
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lazy = LazyCommands()
        self.commands = self.lazy

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.lazy)  # the names only: nothing is built

    # Ctrl-C while the command line is parsed or a command is built (before its body's own
    # handling): Typer would exit 130 in silence; here it gets its line too (see main()).
    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:
            raise _Interrupted() from None

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted() from None

    def main(self, *args: Any, **kwargs: Any) -> Any:
        from sevendag_cli.streams import forget_saved

        forget_saved()
        Interruption.written = False
        kwargs["standalone_mode"] = False
        argv = kwargs.get("args", args[0] if args else None)
        choose_lang(None)  # until the root's --lang (if any) is read: nothing left from a previous run
        lang = lang_of_args(argv)  # (after the line above: a previous run's root --lang is no default)
        json_errors_for(argv, COMMANDS)
        HelpLang.french = lang == "fr"
        if lang == "fr":
            from sevendag_cli.help_fr import translate

            translate(self, subcommands=False)
            for command in self.lazy.built.values():
                translate(command)
            self.lazy.french = True
        try:
            # one display width for the whole run (COLUMNS=0, a tiny terminal...); numpy refused
            # in one line when too little memory is left for it to load
            with columns_held(), numpy_guard():
                rv = super().main(*args, **kwargs)
        except SevendagError as exc:  # raised outside a command body (usage mistakes too)
            fail(exc.msg, exc.exit_code, lang)
        except (KeyboardInterrupt, _Interrupted):
            if Interruption.written:  # pressed again after the command's own line: no other
                raise SystemExit(130) from None
            fail(interrupted(lang), 130, lang)
        except typer.Abort:
            fail(Msg("cli.aborted"), 1, lang)
        except click_compat.TyperError as exc:  # one sevendag does not know: Click's own text
            msg = Msg("usage.other", message=Msg.text(exc.format_message()))
            ctx = getattr(exc, "ctx", None)
            fail(msg if ctx is None else see_help(ctx, msg), int(exc.exit_code), lang)
        except Exception as exc:  # memory ran out outside a command's body: one line, exit 1
            message = memory_failure(exc)
            if message is None:
                raise
            fail_memory(message, lang)
        finally:
            HelpLang.french = False
        raise SystemExit(rv if isinstance(rv, int) else 0)


app = typer.Typer(
    cls=SevendagGroup,
    help="Combat resolver for Sevendag and Le combat (d20): initiative, rounds, wounds, "
    "whole fights and their odds.",
    no_args_is_help=True,
    invoke_without_command=True,  # a command line with no command: _root says so
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        print(f"sevendag {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
    lang: LangOpt = None,
) -> None:
    """Combat resolver for Sevendag and Le combat (d20)."""
    if ctx.invoked_subcommand is None:  # ``sevendag --lang fr`` and nothing else
        raise UsageError(see_help(ctx, Msg("usage.missing_command")))
    # ``sevendag --lang fr fight``: the language of every command that does not name its own
    choose_lang(lang.value if lang else None)


resolve_annotations(_root)


def main() -> None:
    """Run the program with its standard streams guarded (:mod:`sevendag_cli.streams`).

    The console script and ``python -m sevendag_cli`` come here through
    :func:`sevendag_cli.start.main`, which handles a Ctrl-C from the first line of
    sevendag's own code.  Stdout closed from the start is one line, exit 1,
    before anything is done.  Output that cannot be written: quiet exit 141 when
    the reader stopped reading (a pipe closed), else one line and exit 1 (saying
    whether the encounter was saved first).  Stdout is flushed here, never left
    to the interpreter's exit.
    """
    from sevendag_cli import streams

    lang = lang_of_args(None)
    if streams.install():
        fail(Msg("cli.stdout_closed", devnull=os.devnull), streams.EXIT_WRITE_ERROR, lang)  # NUL on Windows
    code = 0
    lost: streams.OutputLost | None = None
    try:
        app()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except streams.OutputLost as exc:  # while the command was writing
        lost, code = exc, 0
    if lost is None:
        try:
            streams.flush_output()
        except streams.OutputLost as exc:
            lost = exc
    if lost is not None and code == 0:  # a command that failed has said so already
        code, message = streams.lost_output(lost)
        if message is not None:
            write_error(message, lang)
    raise SystemExit(code)
