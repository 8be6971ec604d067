"""What-ifs of a Sevendag tactic that change nothing get a note on stderr, as armour on a d20
sheet that states its AC does: a tactic that commits every die as the sheet's did, whatever
is dropped (S-04: a shield only defends, a two-handed weapon's dice go together), and any
tactic or rule of a fighter that plays optimally (it plays none of its sheet's)."""

from __future__ import annotations

import json
import re

import pytest

import sevendag_cli as sd
from tests.helpers import run

INERT = "with its hands {name} commits every die as before"


def _notes(*args: str) -> list[str]:
    result = run("fight", "--seed", "5", *args)
    assert result.exit_code == 0, result.stderr
    return [line for line in result.stderr.splitlines() if "changes nothing" in line
            or "ne change rien" in line]


@pytest.mark.parametrize(("tactic", "name"), [
    ("Brannoc=all-out", "Brannoc"),        # a sword and a shield: the shield only defends
    ("Brannoc=attack,defence", "Brannoc"),  # what weapons-attack commits anyway
    ("Ysolde=all-out", "Ysolde"),           # a greatsword: its two dice go together
])
def test_S04_a_tactic_that_commits_every_die_as_before_is_said_to_change_nothing(
        tactic: str, name: str) -> None:
    notes = _notes("--tactic", tactic)
    assert len(notes) == 1 and INERT.format(name=name) in notes[0], notes
    plain = json.loads(run("fight", "--seed", "5", "--json").stdout)
    changed = json.loads(run("fight", "--seed", "5", "--json", "--tactic", tactic).stdout)
    assert changed.pop("changes")
    # the same fight, die for die: only the name of the tactic each allocation came from differs
    assert _sourceless(changed) == _sourceless(plain)


def _sourceless(doc: object) -> str:
    return re.sub(r'"source": "[^"]*"', '"source": ""', json.dumps(doc))


@pytest.mark.parametrize("tactic", ["Brannoc=full-defence", "Brannoc=defence,defence",
                                    "Brannoc=all-out;yield=always"])
def test_a_tactic_that_changes_the_fight_gets_no_note(tactic: str) -> None:
    assert _notes("--tactic", tactic) == []


def test_a_tactic_of_a_fighter_playing_optimally_is_said_to_change_nothing() -> None:
    m = sd.matchup(tactic=["Brannoc=full-defence", "Brannoc=optimal"])
    assert [n.key for n in m.notes] == ["whatif.tactic_optimal"]
    assert m.notes[0].render("en") == ("Brannoc.tactic: Brannoc plays optimally here, not its "
                                       "sheet's tactic and rules: this change changes nothing")


def test_the_note_is_in_both_languages_and_the_library_has_it() -> None:
    french = _notes("--tactic", "Brannoc=all-out", "--lang", "fr")
    assert french and "Brannoc engage chaque dé comme avant" in french[0]
    assert [n.key for n in sd.matchup(tactic="Brannoc=all-out").notes] == ["whatif.tactic_inert"]
