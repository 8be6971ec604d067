"""The program's start: the console script and ``python -m sevendag_cli`` enter here.

This module imports nothing at first, so a Ctrl-C is handled from its first
line on: during the imports of Typer, Rich or numpy (the first 100 ms or so of
a command) as well as later.  A Ctrl-C that no inner layer handled (each
command's body says whether the encounter was saved; see
:func:`sevendag_cli.failure.handled`) ends here: one line, exit 130, no
traceback.  The rest is :func:`sevendag_cli.cli.main`.

Before this line runs, the Python interpreter starts itself (a few
milliseconds): a Ctrl-C then gets Python's own behaviour.
"""

from __future__ import annotations


def main() -> None:
    """Run ``sevendag``: exit 130 on a Ctrl-C at any moment."""
    try:
        from sevendag_cli.cli import main as run

        run()
    except KeyboardInterrupt:
        _interrupted()
    finally:
        _ignore_interrupts()  # the interpreter's exit is not interrupted either


def _ignore_interrupts() -> None:
    import _signal  # type: ignore[import-not-found]  # built in, already loaded: instant

    try:  # noqa: SIM105 (contextlib is one more import)
        _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    except (ValueError, OSError):  # pragma: no cover - not the main thread
        pass


def _interrupted() -> None:
    """One line on stderr and exit 130 (a second Ctrl-C is ignored meanwhile)."""
    _ignore_interrupts()
    try:
        from sevendag_cli.failure import interrupted, lang_of_args, write_error

        lang = lang_of_args(None)
        write_error(interrupted(lang), lang)
    except Exception:  # a Ctrl-C during the very imports these need
        import sys

        try:
            sys.stderr.write("sevendag: error: interrupted\n")
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):
            pass
    raise SystemExit(130)
