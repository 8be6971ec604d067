"""One root error type for everything a user can get wrong.

Every message is one line that names the file, key or value at fault and what
would be right.  The CLI prints ``str(error)`` to stderr and exits with
``error.exit_code``: 1 for a problem with game data or state, 2 for a usage
mistake (bad option value, bad entered die).
"""

from __future__ import annotations


class SevendagError(Exception):
    """Root of every error the tool reports to the user (never a traceback)."""

    exit_code = 1


class DataError(SevendagError):
    """A ruleset or fighter sheet that cannot be read or is invalid."""

    def __init__(self, source: str, key: str | None, message: str) -> None:
        self.source = source
        self.key = key
        self.message = message
        where = f"{source}: {key}: " if key else f"{source}: "
        super().__init__(where + message)


class FormulaError(SevendagError):
    """A formula that does not parse or cannot be evaluated."""

    def __init__(self, formula: str, message: str) -> None:
        self.formula = formula
        self.message = message
        super().__init__(f"formula {formula!r}: {message}")


class RollBudgetError(FormulaError):
    """A formula would roll more dice than the budget allows."""


class DiceError(SevendagError):
    """An entered die face that is refused, or too few / too many faces."""

    exit_code = 2


class UsageError(SevendagError):
    """A bad option value or a combination of options that cannot work."""

    exit_code = 2


class EncounterError(SevendagError):
    """A missing, corrupted, locked or finished encounter."""


class RuleError(SevendagError):
    """A game action the rules refuse (technique still active, bad dice allocation, ...)."""


class LimitError(SevendagError):
    """A bound was reached (round cap, runs cap)."""
