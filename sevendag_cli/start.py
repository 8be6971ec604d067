"""The program's start: the console script and ``python -m sevendag_cli`` enter here.

A Ctrl-C is handled from this module's first lines on, during the imports of Typer, Rich
or numpy (the first 100 ms or so of a command) as well as later:

* until the program's modules are imported and the command line is about to be read,
  nothing has been opened, written or saved: a Ctrl-C ends the process at once, with its
  one line and exit 130 (:func:`_early`, installed when this module is imported, before
  anything else is; it imports nothing, writes with ``os.write``);
* after that, Python's own ``KeyboardInterrupt`` applies again, so files are closed, locks
  released and a save left whole; each command's body says whether the encounter was saved
  (:func:`sevendag_cli.failure.handled`), and what no inner layer handles ends here: one
  line, exit 130, no traceback.

Before this module runs, the Python interpreter starts itself (a few milliseconds): a
Ctrl-C then gets Python's own behaviour.

The garbage collector: the imports make a hundred thousand objects or so (Typer,
Click, msgspec, the program's modules) and free almost none, yet the collector would walk
them, during the imports and again when the interpreter exits (its last collections).  So
it is off while the program's modules are imported, and :func:`gc.freeze` sets the objects
made so far aside (after the imports, and again once the command is over): about 12 ms of
every command, a tenth of its start.  Nothing else changes: objects are freed as before
(their counts), as the modules are cleared at exit; ``atexit`` runs and the standard streams
are flushed as before; only garbage in cycles left at the very exit is not collected (Python
does not promise to finalise it anyway; the commands close their files with ``with``).
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # built in and already loaded: instant
import gc
import os
import sys

_EARLY_LINE = {"en": "sevendag: error: interrupted\n", "fr": "sevendag: error: interrompu\n"}
"""The messages ``cli.interrupted`` (en, fr), written without importing the catalogue."""
_EARLY_MEMORY = {
    "en": "sevendag: error: out of memory: the program could not be loaded; give the process more memory\n",
    "fr": "sevendag: error: mémoire insuffisante : le programme n'a pas pu être chargé ; "
          "donner plus de mémoire au processus\n",
}
"""Memory ran out while the program's own modules were imported (before the catalogue can be)."""


def _lang() -> str:
    """``--lang`` on the command line, else the environment's (as :func:`failure.lang_of_args`)."""
    argv = sys.argv[1:]
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        value = argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else (
            arg.partition("=")[2] if arg.startswith("--lang=") else None)
        if value in _EARLY_LINE:
            return value
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "fr" if value.lower().startswith("fr") else "en"
    return "en"


def _write_early(line: str) -> None:
    try:  # noqa: SIM105 (contextlib is one more import)
        os.write(2, line.encode())
    except OSError:
        pass


def _early(signum: int, frame: object) -> None:
    """A Ctrl-C during start-up: one line, exit 130, at once (nothing to undo yet)."""
    _write_early(_EARLY_LINE[_lang()])
    os._exit(130)


def started() -> None:
    """Start-up is over: a Ctrl-C is Python's ``KeyboardInterrupt`` again (handled by the commands)."""
    try:  # noqa: SIM105 (contextlib is one more import)
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
    except (ValueError, OSError):  # pragma: no cover - not the main thread
        pass


def _unraisable(unraisable: sys.UnraisableHookArgs) -> None:
    """A Ctrl-C that lands in a callback Python cannot raise from (a weak reference's, while a
    module is imported) would be printed as "Exception ignored" and lost, the command going on:
    a moment later (a thread of its own, as raising it from here would land in this hook) it
    is delivered again to the main thread, where the command handles it (one line, exit 130);
    should that one be lost too, :func:`main` ends with the interrupt's line once the command
    is over.  Anything else is reported as Python would."""
    global _lost_interrupt
    if unraisable.exc_type is KeyboardInterrupt:
        import _thread  # built in
        import time

        def again() -> None:
            time.sleep(0.001)
            _thread.interrupt_main()

        _lost_interrupt = True
        _thread.start_new_thread(again, ())
        return
    sys.__unraisablehook__(unraisable)


_lost_interrupt = False
"""A Ctrl-C landed where it could not be raised (:func:`_unraisable`)."""


def _install() -> None:
    try:
        if _signal.getsignal(_signal.SIGINT) is _signal.default_int_handler:  # not ignored (nohup)
            _signal.signal(_signal.SIGINT, _early)
    except (ValueError, OSError):  # pragma: no cover - not the main thread
        pass


_install()

_ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""numpy's linear-algebra library starts a thread per core when numpy is imported (some
100 ms of CPU on a 2-core machine, for work the program does not ask of it: its arrays are
worked element-wise, and ``matrix`` runs its solves in processes); the program asks for one,
unless the user's environment says otherwise."""


def main() -> None:
    """Run ``sevendag``: exit 130 on a Ctrl-C at any moment."""
    global _lost_interrupt
    for var in _ONE_THREAD:
        os.environ.setdefault(var, "1")
    _lost_interrupt = False
    hook = sys.unraisablehook
    try:
        gc.disable()  # the imports make objects and free none: no collection need walk them
        try:
            from sevendag_cli.cli import main as run  # Typer, Rich...: a Ctrl-C here is _early's
        except MemoryError:  # the limit leaves too little for the program itself: one line, exit 1
            _write_early(_EARLY_MEMORY[_lang()])
            raise SystemExit(1) from None
        finally:
            gc.freeze()  # ...nor any later one (a few ms)
            gc.enable()

        started()  # from here on a Ctrl-C is a KeyboardInterrupt, handled where it lands
        sys.unraisablehook = _unraisable  # ...even where Python cannot raise it
        try:
            run()
        finally:
            if _lost_interrupt:  # a Ctrl-C the command never saw: it still ends as interrupted
                raise KeyboardInterrupt  # instead of the command's own exit
    except KeyboardInterrupt:
        _interrupted()
    finally:
        sys.unraisablehook = hook  # the command is over (main may run in a caller's process)
        _ignore_interrupts()  # the interpreter's exit is not interrupted either
        gc.freeze()  # the exit's collections need not walk every object of the modules imported


def _ignore_interrupts() -> None:
    try:  # noqa: SIM105 (contextlib is one more import)
        _signal.signal(_signal.SIGINT, _signal.SIG_IGN)
    except (ValueError, OSError):  # pragma: no cover - not the main thread
        pass


def _interrupted() -> None:
    """One line on stderr and exit 130 (a second Ctrl-C is ignored meanwhile); none where the
    command has written its own (a Ctrl-C pressed again while it wound down)."""
    _ignore_interrupts()
    try:
        from sevendag_cli.failure import Interruption, interrupted, lang_of_args, write_error

        if Interruption.written:
            raise SystemExit(130)
        lang = lang_of_args(None)
        write_error(interrupted(lang), lang)
    except Exception:  # a Ctrl-C during the very imports these need
        try:
            sys.stderr.write(_EARLY_LINE["en"])
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):
            pass
    raise SystemExit(130)
