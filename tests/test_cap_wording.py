"""No "round cap N" where there is none: the bundled d20 ruleset has no round cap,
so its fights are played to the end (D-12), exact or simulated, as ``fight --exact`` says;
``sweep`` and ``matrix`` word them the same in the display, the picture's title and the JSON
note.  A cap that applies (``--cap N``, a ruleset's ``round_cap``, Sevendag's S-19) is named."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import run, run_json

END_EN = "the fight played to the end"
END_FR = "le combat mené à son terme"


def first_lines(*args: str, n: int = 2) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.stderr
    return "\n".join(result.stdout.splitlines()[:n])


def test_d20_sweep_without_cap_names_no_round_cap_D12() -> None:
    title = first_lines("sweep", "A", "B", "-r", "d20", "--vary", "A.ac=5,6", n=1)
    assert END_EN in title and "round cap" not in title
    fr = first_lines("sweep", "A", "B", "-r", "d20", "--vary", "A.ac=5,6", "--lang", "fr", n=2)
    assert END_FR in fr.replace("\n  ", " ") and "plafond" not in fr
    grid = first_lines("sweep", "A", "B", "-r", "d20", "--vary", "A.ac=5,6", "--vary", "B.ac=5,6",
                       n=1)
    assert END_EN in grid and "round cap" not in grid


def test_d20_sweep_with_cap_and_simulated_sweep_name_the_cap_D12() -> None:
    capped = first_lines("sweep", "A", "B", "-r", "d20", "--vary", "A.ac=5,6", "--cap", "50", n=1)
    assert "round cap 50" in capped and END_EN not in capped
    runs = first_lines("sweep", "A", "B", "-r", "d20", "--vary", "A.ac=5,6", "--runs", "200",
                       "--seed", "1", "--cap", "50", n=1)
    assert "round cap 50" in runs and END_EN not in runs


def test_d20_simulated_sweep_and_matrix_with_no_cap_name_none_D12() -> None:
    """The bundled d20 ruleset has no round cap: simulated fights are played to the end too
    (up to the simulators' safety limit), and say so."""
    runs = first_lines("sweep", "A", "B", "-r", "d20", "--vary", "A.ac=5,6", "--runs", "200",
                       "--seed", "1", n=1)
    assert END_EN in runs and "round cap" not in runs
    matrix = first_lines("matrix", "A", "B", "-r", "d20", "--jobs", "1", "--runs", "200")
    assert END_EN in matrix.splitlines()[1] and "round cap" not in matrix


def test_sevendag_sweep_names_its_round_cap_S19() -> None:
    title = first_lines("sweep", "--vary", "Ysolde.attack=8,10", n=1)
    assert "round cap 200" in title and END_EN not in title


def test_d20_matrix_without_cap_names_no_round_cap_D12(tmp_path: Path) -> None:
    lines = first_lines("matrix", "A", "B", "-r", "d20", "--jobs", "1")
    assert lines.splitlines()[1] == f"Certified odds · {END_EN} · tolerance 1e-9"
    fr = first_lines("matrix", "A", "B", "-r", "d20", "--jobs", "1", "--lang", "fr")
    assert fr.splitlines()[1] == f"Probabilités certifiées · {END_FR} · tolérance 1e-9"
    doc = run_json("matrix", "A", "B", "-r", "d20", "--jobs", "1", "--json")
    assert "a draw at the round cap" not in doc["note"] and END_EN in doc["note"]


def test_d20_matrix_with_cap_and_sevendag_matrix_name_the_cap_D12() -> None:
    capped = first_lines("matrix", "A", "B", "-r", "d20", "--jobs", "1", "--cap", "30")
    assert capped.splitlines()[1] == "Certified odds · round cap 30 · tolerance 1e-9"
    assert "a draw at the round cap" in run_json("matrix", "A", "B", "-r", "d20", "--jobs", "1",
                                                 "--cap", "30", "--json")["note"]
    sevendag = first_lines("matrix", "brannoc", "ysolde", "--jobs", "1")
    assert sevendag.splitlines()[1] == "Certified odds · round cap 200 · tolerance 1e-9"


def test_library_records_say_whether_played_to_the_end_D12() -> None:
    import sevendag_cli.library as sd

    assert sd.matrix(["A", "B"], ruleset="d20", jobs=1).roster.to_end
    assert not sd.matrix(["A", "B"], ruleset="d20", jobs=1, cap=30).roster.to_end
    assert not sd.matrix(["brannoc", "ysolde"], jobs=1).roster.to_end


@pytest.mark.slow
def test_pictures_titles_say_it_too_D12(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    for args in (("matrix", "A", "B", "-r", "d20", "--jobs", "1"),
                 ("sweep", "A", "B", "-r", "d20", "--vary", "A.ac=5,6")):
        target = tmp_path / f"{args[0]}.svg"
        result = run(*args, "--plot", str(target))
        assert result.exit_code == 0, result.stderr
        drawn = " ".join(re.findall(r"<!-- (.*?) -->", target.read_text("utf-8"), flags=re.S))
        assert END_EN in drawn and "round cap" not in drawn, drawn
