"""The simulated figures the golden displays are drawn from, pinned by seed (C-01: same seed, same
fight): each command, simulating for real, gives exactly the results kept beside the goldens.

The goldens themselves (tests/test_golden.py) replay these results, so they pin the layout only;
regenerate the figures with ``SEVENDAG_UPDATE_GOLDEN=1 python -m pytest tests/test_seeded_figures.py``
after a deliberate change of the simulator, and review the diff.
"""

from __future__ import annotations

import pytest

from tests.fixed_sim import compare_figures, record
from tests.helpers import GOLDEN, ok

SEEDED: dict[str, list[list[str]]] = {
    "sevendag-runs": [["fight", "--runs", "2000", "--seed", "5"]],
    "d20-runs": [["fight", "--ruleset", "d20", "--runs", "2000", "--seed", "5"]],
    "sevendag-sweep": [["sweep", "--vary", "Ysolde.hands[0].die=6,8,10", "--runs", "2000", "--seed", "5"]],
}


@pytest.mark.parametrize("name", sorted(SEEDED))
def test_C01_seeded_figures_are_the_kept_ones(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = record(monkeypatch)
    for step in SEEDED[name]:
        ok(*step)
    assert seen, "nothing was simulated"
    compare_figures(seen, name)


def test_every_kept_figure_file_is_checked() -> None:
    assert {p.name.removesuffix(".sim.json") for p in GOLDEN.glob("*.sim.json")} == set(SEEDED)
