"""The start-up guards: what a plain command imports, and what start-up changed
(the garbage collector, the seeded generator) changes nothing else.  No timing here
(``benchmarks/bench_startup.py`` measures); each check runs in a fresh process."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from sevendag_cli.dice import MAX_SEED, SeededDice

HEAVY = ("numpy", "icepool", "rich", "matplotlib", "scipy")

# Runs a command as the console script does (sevendag_cli.start.main) and, at the very exit
# (atexit: after the command, as the interpreter ends), writes on stderr the heavy modules it
# imported and the garbage collector's state.
PROBE = """\
import atexit, gc, sys
def report():
    heavy = sorted(m for m in {heavy!r} if m in sys.modules)
    sys.stderr.write(f"\\nPROBE {{heavy}} enabled={{gc.isenabled()}} frozen={{gc.get_freeze_count() > 0}}\\n")
atexit.register(report)
sys.argv = ["sevendag", *{args!r}]
from sevendag_cli.start import main
main()
"""


def probe(*args: str) -> tuple[int, str, list[str], str]:
    """Run ``sevendag ARGS`` in a fresh process: exit code, stdout, heavy modules, gc state."""
    code = PROBE.format(heavy=HEAVY, args=list(args))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)
    line = done.stderr.rsplit("PROBE ", 1)[1].strip()
    heavy, _, state = line.partition("] ")
    return done.returncode, done.stdout, [m.strip("' ") for m in heavy[1:].split(",") if m], state


@pytest.mark.parametrize("ruleset", ["d20", "sevendag"])
def test_a_fight_in_json_imports_nothing_heavy(ruleset: str) -> None:
    """``fight --json`` (one fight, step by step): no numpy, icepool nor Rich on its path."""
    code, out, heavy, _ = probe("fight", "--ruleset", ruleset, "--seed", "1", "--json")
    assert code == 0 and out.startswith("{")
    assert heavy == []


def test_a_round_with_the_display_imports_rich_only(tmp_path: Path) -> None:
    """``round`` of a saved encounter, plain display: Rich, and no numpy, icepool, matplotlib."""
    subprocess.run([sys.executable, "-m", "sevendag_cli", "init", "--ruleset", "d20",
                    "--dice", "19,5"], check=True, capture_output=True)
    assert (tmp_path / "encounter.sevendag.json").is_file()
    code, out, heavy, _ = probe("round", "--seed", "4")
    assert code == 0 and "Round 1" in out
    assert heavy == ["rich"]


@pytest.mark.parametrize("args", [("fight", "--ruleset", "d20", "--seed", "1", "--json"),
                                  ("fight", "--ruleset", "d20", "--seed", "-1"),  # a usage mistake
                                  ("--version",)])
def test_the_collector_is_back_on_once_started(args: tuple[str, ...]) -> None:
    """Off while the modules are imported, then on again, whatever the command's end; the
    objects of the imports set aside (``gc.freeze``) for the exit's collections."""
    code, _, _, state = probe(*args)
    assert code in (0, 2)
    assert state == "enabled=True frozen=True"


@pytest.mark.parametrize("seed", [0, 1, 4, 7, 2**31 - 1, 2**32 + 5, 123456789, MAX_SEED])
def test_the_seeded_dice_are_random_random(seed: int) -> None:
    """C-01, C-02: the generator (``_random.Random``) is ``random.Random`` seeded alike: the
    same faces, the seeds of every saved encounter and golden file replay the same."""
    ours, python = SeededDice(seed), random.Random(seed)

    def face(sides: int) -> int:  # the rejection sampling of SeededDice.face, on random.Random
        bits = (sides - 1).bit_length()
        while True:
            r = python.getrandbits(bits)
            if r < sides:
                return r + 1

    for sides in (20, 6, 10, 8, 12, 4, 100, 3, 2, 1000) * 40:
        assert ours.face(sides, "attack", "A") == face(sides)


def test_folding_an_ascii_text_needs_no_unicodedata() -> None:
    """``terms.fold``'s ASCII short cut (no unicodedata at start-up) folds as the full path:
    every ASCII character alone, between letters, and mixed texts."""
    import unicodedata

    from sevendag_cli.terms import fold

    def full(text: str) -> str:  # fold's path for any text
        decomposed = unicodedata.normalize("NFKD", text.casefold())
        return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).split())

    texts = [chr(i) for i in range(128)] + [f"Ab{chr(i)}Cd" for i in range(128)]
    texts += ["Sir Bob", "  sir   BOB ", "A\tB\x1fc", "", "Brannoc (2)", "x-Y_z.9"]
    for text in texts:
        assert text.isascii() and fold(text) == full(text), repr(text)
    assert fold("Défense") == "defense" and fold("ÉLA") == fold("ela")
