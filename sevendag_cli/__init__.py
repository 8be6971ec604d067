"""sevendag: a command-line combat resolver for Sevendag and Le combat (d20), and its library.

``import sevendag_cli as sd`` stays light: the library's names are imported when first used
(:mod:`sevendag_cli.library`, :mod:`sevendag_cli.encounter`; see ``docs/library.md``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:
    from sevendag_cli.arguments import ArgumentTypeError
    from sevendag_cli.encounter import Encounter
    from sevendag_cli.library import Lineup, Matchup, Matrix, matchup, matrix, ruleset

_EXPORTS = {
    "ruleset": "library",
    "matchup": "library",
    "Matchup": "library",
    "matrix": "library",
    "Matrix": "library",
    "Lineup": "library",
    "Encounter": "encounter",
    "ArgumentTypeError": "arguments",
}

__all__ = ["ArgumentTypeError", "Encounter", "Lineup", "Matchup", "Matrix", "__version__", "matchup",
           "matrix", "ruleset"]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"sevendag_cli.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
