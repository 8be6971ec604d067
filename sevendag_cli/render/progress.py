"""Progress bars on stderr: Rich, transient (gone once the work is done), for a person watching.

The commands decide whether anyone is watching (a terminal); these only draw::

    result = with_progress(lambda progress: work(progress=progress), total, description)

:func:`with_progress` starts its bar at once; :func:`bar_at_first_report` only at the first
report (``matrix``: its worker processes are forked before the bar's refresh thread exists).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from rich.progress import Progress

T = TypeVar("T")


def _progress() -> Progress:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from sevendag_cli.columns import display_columns

    return Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                    TimeRemainingColumn(), console=Console(stderr=True, width=display_columns()),
                    transient=True)


def with_progress(work: Callable[[Callable[[int], None]], T], total: int, description: str) -> T:
    """``work(progress)`` under a bar of ``total`` steps; ``progress(done)`` moves the bar."""
    with _progress() as bar:
        task = bar.add_task(description, total=total)
        return work(lambda done: bar.update(task, completed=done))


@contextmanager
def bar_at_first_report(description: str) -> Iterator[Callable[[int, int], None]]:
    """A bar started at the first report; yields ``report(done, total)``."""
    state: dict[str, Any] = {}

    def report(done: int, total: int) -> None:
        progress = state.get("progress")
        if progress is None:
            progress = state["progress"] = _progress()
            progress.start()
            state["task"] = progress.add_task(description, total=total)
        progress.update(state["task"], completed=done)

    try:
        yield report
    finally:
        if "progress" in state:
            state["progress"].stop()
