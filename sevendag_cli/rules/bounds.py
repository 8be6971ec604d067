"""What two fighters' numbers can reach, and whether their fight can end.

Both are decided from the formulas' ranges (:func:`sevendag_cli.formula.value_range`)
and the rules, before a die is rolled, so the step-by-step, vectorised and exact
engines refuse the same pairs with the same line.

* :func:`check_values`: every number a fight computes stays within the value bound
  (:data:`sevendag_cli.limits.INT_LIMIT`).  A formula alone is checked when its file
  is read; here are the sums the rules make of them: a d20 attack adds the
  damage formula and ``damage_bonus`` once per set (``crit_factor`` sets on a
  critical), takes ``vig`` off, adds the magic part, and the total comes off hit
  points.  Sevendag's numbers are bounded by the sheets' own ranges.
* :func:`endless`: why a fight can never end (no side can ever damage or take
  out the other), or None.  Decided conservatively: a range only ever widens
  the possible, so a fight is called endless only when it is.
* :func:`widest_dice`: the largest dice group either side rolls, for the
  vectorised engine's batch size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sevendag_cli.errors import Msg
from sevendag_cli.formula import Formula

if TYPE_CHECKING:
    from sevendag_cli.rules import Fighter, Ruleset


def check_values(ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
    """Refuse a pair whose fight could compute a number beyond the value bound (one line)."""
    from sevendag_cli.backend import backend_for

    backend_for(ruleset).bounds.check_values(ruleset, a, b)


def endless(ruleset: Ruleset, a: Fighter, b: Fighter) -> Msg | None:
    """Why the fight of a and b can never end (it would only stop at the round cap), or None."""
    from sevendag_cli.backend import backend_for

    return backend_for(ruleset).bounds.endless(ruleset, a, b)


def check_can_end(ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
    """Refuse (one line, :class:`~sevendag_cli.errors.RuleError`) a pair whose fight can never
    end: ``fight`` in every mode, ``sweep`` and ``matrix`` (every value, every pair, before any
    work) and the simulator itself refuse it with the same line, instead of playing every
    fight to the round cap."""
    from sevendag_cli.errors import RuleError

    never = endless(ruleset, a, b)
    if never is not None:
        raise RuleError(never)


def check_exact(ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
    """The exact solvers' entry: the value bound, and what the ruleset's exact chain can hold."""
    check_values(ruleset, a, b)
    from sevendag_cli.backend import backend_for

    backend_for(ruleset).bounds.check_exact(ruleset, a, b)


def widest_dice(ruleset: Ruleset, a: Fighter, b: Fighter) -> int:
    """The most dice in one group of any formula the fight rolls (at least 1)."""
    formulas: list[Formula] = [v for v in (getattr(ruleset, f) for f in ruleset.__struct_fields__)
                               if isinstance(v, Formula)]
    from sevendag_cli.backend import backend_for

    backend = backend_for(ruleset)
    for f in (a, b):
        formulas += backend.bounds.sheet_formulas(f)
    return max([1, *(d.count for x in formulas for d in x.dice)])
