"""How each fighter plays: its ``sheet`` or ``optimal`` play, as every mode takes them.

``sheet``: the sheet's tactic (and the yield and technique rules a sheet may state);
``optimal``: the best declaration at every state, solved over the fight's certified chain
(:mod:`sevendag_cli.sevendag.game`).  ``--tactic NAME=optimal`` (or ``--tactic optimal``:
every fighter) chooses them; a ruleset with no choices (d20) plays its sheets whatever is
asked, and says so once.
"""

from __future__ import annotations

from collections.abc import Sequence

SHEET = "sheet"
OPTIMAL = "optimal"
POLICIES = (SHEET, OPTIMAL)

Policies = tuple[str, str]
"""A pair's policies, in the fight's order."""
PLAIN: Policies = (SHEET, SHEET)
"""Both fighters on their sheets: what every mode played before policies existed."""


def pair(policies: Sequence[str]) -> Policies:
    """The first two policies as a pair."""
    return (policies[0], policies[1])


def policies_data(names: Sequence[str], policies: Sequence[str]) -> dict[str, str]:
    """JSON ``policies``: ``{NAME: "sheet" | "optimal"}``, in the fight's order."""
    return dict(zip(names, policies, strict=True))


__all__ = ["OPTIMAL", "PLAIN", "POLICIES", "SHEET", "Policies", "pair",
           "policies_data"]
