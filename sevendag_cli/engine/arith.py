"""Arithmetic that reads the same on one value and on a numpy array of them.

The rule functions (:mod:`sevendag_cli.d20.attack`, :mod:`sevendag_cli.sevendag.attack`,
:func:`sevendag_cli.sevendag.rules.band_index`) are written once and called both by the step
engines, with Python ints and bools, and by the vectorised simulators, with numpy arrays.
Operators (``& | ^ + - * >>``, comparisons) already work on both; these few helpers add
the choices and bounds that do not, using builtins for a plain value and numpy's ufuncs (or
``numpy.where``; numpy imported only when an array is given) otherwise, so that the step
engines never import numpy.
"""

from __future__ import annotations

from typing import Any


def at_least(x: Any, low: int) -> Any:
    """``max(x, low)``, element by element."""
    if isinstance(x, int):
        return x if x >= low else low
    import numpy as np

    return np.maximum(x, low)  # a ufunc: several times faster than ndarray.clip


def between(x: Any, low: int, high: int) -> Any:
    """``x`` bounded to ``low .. high``, element by element."""
    if isinstance(x, int):
        return low if x < low else high if x > high else x
    import numpy as np

    return np.minimum(np.maximum(x, low), high)


def pick(condition: Any, yes: Any, no: Any) -> Any:
    """``yes`` where ``condition`` holds, else ``no`` (``numpy.where`` on arrays)."""
    if isinstance(condition, bool):
        return yes if condition else no
    import numpy as np

    return np.where(condition, yes, no)


def reached(starts: tuple[int, ...], x: Any) -> Any:
    """How many of ``starts`` (ascending) are at most ``x``, element by element."""
    if isinstance(x, int):
        return sum(x >= s for s in starts)
    import numpy as np

    return np.searchsorted(starts, x, side="right")
