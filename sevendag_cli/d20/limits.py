"""Le combat's own bounds: the sizes of the d20 exact solvers' work, stated in docs/failures.md
with the bounds every ruleset shares (:mod:`sevendag_cli.limits`).

A pair beyond one is refused in one line naming it and the bound, before the work starts.
"""

from __future__ import annotations

MAX_EXACT_HP = 5_000
"""Most hit points a d20 fighter may have for exact odds: the odds of the fight played to the
end are one pass over both fighters' hit points (:mod:`sevendag_cli.d20.solve`): the whole
``fight --exact`` at 5,000 each takes some 11 s of CPU (under 100 MB); a round cap that
matters, and the rounds distribution, come from the law of the number of hits that end the
fight (:mod:`sevendag_cli.d20.rounds`), whose work the hit points and the cap bound."""

MAX_PUSH_CELLS = 1_000_000
"""Most pairs of hit points the d20 push round by round over the grid of both fighters' hit
points holds (:func:`sevendag_cli.d20.push.grid_push`: the draw of a pair that can never deal
damage, with a round cap; the exact odds of any other pair, capped or not, come from
:mod:`sevendag_cli.d20.solve` and :mod:`sevendag_cli.d20.rounds`, bounded by
:data:`MAX_EXACT_HP`)."""

MAX_DAG_CELLS = 25_000_000
"""Most pairs of hit points of a d20 pair a ``matrix`` solves exactly (5,000 each: the pass over
the DAG of :mod:`sevendag_cli.d20.solve` holds a few diagonals beyond 4 million states); a pair
beyond it is simulated."""
