"""C-01 / C-02: dice sources — the seeded generator, entered faces, faces asked at the terminal."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sevendag_cli.dice import (
    MAX_SEED,
    EnteredDice,
    ManualDice,
    Roll,
    SeededDice,
    check_seed,
    parse_faces,
)
from sevendag_cli.errors import DiceError, UsageError

PROPS = settings(max_examples=200, deadline=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture])


def faces(source, sides: int, n: int) -> list[int]:
    return [source.face(sides, "test", "A") for _ in range(n)]


# --- SeededDice ---------------------------------------------------------------


def test_C01_same_seed_same_faces() -> None:
    a, b = SeededDice(1234), SeededDice(1234)
    for sides in (20, 6, 10, 3, 100, 20, 8):
        assert faces(a, sides, 50) == faces(b, sides, 50)
    assert faces(SeededDice(1), 20, 50) != faces(SeededDice(2), 20, 50)


def test_C01_pinned_faces_for_seed_42() -> None:
    """A change of generator (or of the face algorithm) breaks every replayed --seed."""
    assert faces(SeededDice(42), 20, 10) == [4, 1, 9, 8, 8, 5, 4, 18, 3, 19]


@pytest.mark.slow
@PROPS
@given(seed=st.integers(0, MAX_SEED), sides=st.integers(1, 1000))
def test_C01_faces_are_on_the_die(seed: int, sides: int) -> None:
    got = faces(SeededDice(seed), sides, 30)
    assert all(1 <= f <= sides for f in got)


def test_C01_a_d1_always_shows_1_and_a_d0_is_refused() -> None:
    assert faces(SeededDice(3), 1, 5) == [1] * 5
    with pytest.raises(DiceError, match="d0"):
        SeededDice(3).face(0, "test", None)


@pytest.mark.slow
def test_C01_roughly_uniform_chi_square() -> None:
    n = 60_000
    counts = np.bincount(faces(SeededDice(2024), 6, n), minlength=7)[1:]
    expected = n / 6
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    # Critical value of chi-square with 5 degrees of freedom at p = 0.001.
    assert chi2 < 20.515, counts


@pytest.mark.parametrize("seed", [-1, MAX_SEED + 1])
def test_C01_seed_out_of_range_is_a_usage_error(seed: int) -> None:
    with pytest.raises(UsageError, match="--seed"):
        check_seed(seed)
    with pytest.raises(UsageError):
        SeededDice(seed)


def test_C01_roll_record() -> None:
    r = Roll("attack", 20, 20, "A")
    assert r.die == "d20" and r.is_max and not r.is_min
    assert Roll("attack", 20, 1).is_min and Roll("attack", 20, 1).fighter is None


# --- EnteredDice --------------------------------------------------------------


def test_C01_entered_faces_are_consumed_in_order() -> None:
    d = EnteredDice([19, 5, 8])
    assert d.remaining == 3 and d.consumed == 0
    assert d.face(20, "initiative", "A") == 19
    assert d.face(20, "initiative", "B") == 5
    assert d.consumed == 2 and d.remaining == 1
    assert d.face(8, "damage", "B") == 8
    d.check_all_used()


@pytest.mark.parametrize(("value", "sides"), [(7, 6), (0, 20), (-3, 10), (21, 20)])
def test_C01_out_of_range_face_is_refused_and_not_consumed(value: int, sides: int) -> None:
    d = EnteredDice([4, value, 2])
    d.face(20, "attack", "A")
    with pytest.raises(DiceError) as err:
        d.face(sides, "damage", "Brannoc")
    msg = str(err.value)
    assert "face 2" in msg  # position
    assert f"is {value}" in msg  # value
    assert f"d{sides} for Brannoc's damage" in msg  # die, purpose, fighter
    assert f"1 to {sides}" in msg
    assert d.consumed == 1 and d.remaining == 2  # nothing consumed
    assert err.value.exit_code == 2


def test_C01_too_few_faces_names_the_next_roll() -> None:
    d = EnteredDice([12])
    d.face(20, "attack", "A")
    with pytest.raises(DiceError) as err:
        d.face(10, "vig", "B")
    msg = str(err.value)
    assert "1 face(s) entered" in msg
    assert "d10 for B's vig" in msg
    assert "\n" not in msg


def test_C01_fallback_continues_from_the_generator() -> None:
    d = EnteredDice([3, 4], fallback=SeededDice(42))
    got = faces(d, 20, 6)
    assert got[:2] == [3, 4]
    assert got[2:] == faces(SeededDice(42), 20, 4)
    assert d.consumed == 2


def test_C01_check_all_used_refuses_leftovers() -> None:
    d = EnteredDice([3, 4, 5], option="--dice")
    d.face(6, "damage", "A")
    with pytest.raises(DiceError) as err:
        d.check_all_used()
    assert "2 face(s) left unused" in str(err.value)
    assert str(err.value).startswith("--dice:")


def test_C01_option_name_appears_in_messages() -> None:
    d = EnteredDice([9], option="--faces")
    with pytest.raises(DiceError, match=r"^--faces: "):
        d.face(6, "damage", None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("19,5,8", (19, 5, 8)), ("19 5 8", (19, 5, 8)), ("19, 5 ,8", (19, 5, 8)), ("", ()),
     (" 7 ", (7,)), ("19,,5", (19, 5))],
)
def test_C01_parse_faces(text: str, expected: tuple[int, ...]) -> None:
    assert parse_faces(text) == expected


@pytest.mark.parametrize(("text", "position", "bad"), [("19,x", 2, "x"), ("a", 1, "a"),
                                                       ("1 2 3.5", 3, "3.5")])
def test_C01_parse_faces_refuses_non_numbers(text: str, position: int, bad: str) -> None:
    with pytest.raises(DiceError) as err:
        parse_faces(text, "--dice")
    msg = str(err.value)
    assert f"face {position} is {bad!r}" in msg
    assert msg.startswith("--dice:")


# --- ManualDice ---------------------------------------------------------------


def test_C01_manual_dice_reasks_until_valid() -> None:
    answers = iter(["x", "7", "", "0", " 4 "])
    prompts: list[str] = []
    warnings: list[str] = []

    def ask(label: str) -> str:
        prompts.append(label)
        return next(answers)

    d = ManualDice(ask, warnings.append)
    assert d.face(6, "damage", "A") == 4
    assert prompts == ["d6 for A's damage"] * 5
    assert len(warnings) == 4
    assert "'x' is not a number" in warnings[0]
    assert "7 is not on a d6" in warnings[1]
    assert all("1 to 6" in w for w in warnings)


def test_C01_manual_dice_accepts_first_good_answer() -> None:
    d = ManualDice(lambda label: "20", lambda msg: pytest.fail(msg))
    assert d.face(20, "attack", None) == 20
