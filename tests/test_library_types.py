"""The library given wrong types: the project's own error, never a bare ``TypeError`` from deep
inside, never a wrong value played or saved.

Every public function and method of ``import sevendag_cli as sd`` (its exports, their
methods, the records they return) is walked; each of its arguments is given values of every
kind its annotation does not allow, and must raise
:class:`~sevendag_cli.arguments.ArgumentTypeError` (a ``UsageError``, exit 2) naming the
function, the argument, the value and the type wanted, before anything is done.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sevendag_cli as sd
from sevendag_cli import advice, arguments, encounter, library
from sevendag_cli.arguments import ArgumentTypeError
from sevendag_cli.errors import DiceError, SevendagError, UsageError

# --- what is public ------------------------------------------------------------------------------

RECORDS = (library.Fight, library.OddsSwingResult, library.Simulation, library.Exact,
           library.SweepResult, library.Matrix, encounter.Started, encounter.RoundPlayed,
           encounter.Wounded, encounter.Undone, encounter.Status, encounter.Log,
           encounter.OddsAt, advice.AdviceAt)
"""The records the entry points return (their methods with arguments are entry points too)."""


def _public_methods(cls: type) -> Iterator[tuple[str, Callable[..., Any]]]:
    for name, member in vars(cls).items():
        if name.startswith("_") and name != "__init__":
            continue
        func = member.__func__ if isinstance(member, classmethod | staticmethod) else member
        if inspect.isfunction(func):
            yield f"{cls.__name__}.{name}", func


def entry_points() -> dict[str, Callable[..., Any]]:
    """Every public function of ``sd`` and method of its classes and records, by name."""
    found: dict[str, Callable[..., Any]] = {}
    for name in sd.__all__:
        value = getattr(sd, name)
        if inspect.isfunction(value):
            found[name] = value
        elif isinstance(value, type):
            found.update(_public_methods(value))
    for record in RECORDS:
        found.update(_public_methods(record))
    return found


def _arguments(func: Callable[..., Any]) -> list[str]:
    target = inspect.unwrap(func)
    return [p for p in inspect.signature(target).parameters if p not in ("self", "cls")]


def test_every_entry_point_with_arguments_is_checked() -> None:
    """Each public callable that takes arguments is wrapped by :func:`arguments.checked`, and its
    annotations are all understood (the first call would say otherwise)."""
    unchecked = []
    for name, func in entry_points().items():
        if not _arguments(func):
            continue
        if not hasattr(func, "__wrapped__"):
            unchecked.append(name)
            continue
        arguments._described(inspect.unwrap(func))  # raises TypeError on a name it does not know
    assert not unchecked, unchecked


# --- wrong values for every argument -------------------------------------------------------------


class NoFace:
    """Not a dice source: no ``face`` method."""


POOL: tuple[object, ...] = (
    0, 7, -1, 10**30, 1.5, float("nan"), True, False, None, "", "x", "A=B", b"bytes",
    [], [1, 2], ["A", 3], ("A", "B", "C"), {}, {"A": 5}, {5: "x"}, {"A": ["x", 2]},
    object(), NoFace(), lambda: None, Path("nowhere.json"), {"A", "B"},
)
"""Values of every kind; for each argument, those its annotation does not allow are given."""


def _misfits(func: Callable[..., Any], arg: str) -> list[object]:
    kind = arguments._described(inspect.unwrap(func))[2].get(arg)
    if kind is None:
        return []
    return [v for v in POOL if kind.test(v) is not None]


@pytest.fixture
def objects(tmp_path: Path) -> dict[str, object]:
    """An instance to call each class's methods on (``self``), made once per test."""
    m = sd.matchup("A", "B", "d20")
    enc = sd.Encounter.start("A", "B", "d20", path=tmp_path / "t.json", dice=[19, 5])
    sev = sd.Encounter.start(path=tmp_path / "s.json", seed=11)
    return {
        "Matchup": m, "Lineup": library.Lineup.load(["A", "B"], "d20"), "Encounter": enc,
        "Exact": m.exact(tolerance=1e-6), "Matrix": sd.matrix(["A", "B"], "d20", jobs=1),
        "OddsAt": enc.odds(), "AdviceAt": sev.advise(), "Fight": m.fight(seed=1),
        "RoundPlayed": enc.round(seed=3), "Log": enc.log(), "Status": enc.status(),
    }


def _call(name: str, func: Callable[..., Any], owner: object | None, arg: str,
          value: object) -> None:
    """The entry point with ``arg`` given ``value``, every other argument by keyword: a right
    value where it has no default (:data:`_FILL`)."""
    target = inspect.unwrap(func)
    kwargs: dict[str, object] = {}
    for param, p in inspect.signature(target).parameters.items():
        if param in ("self", "cls"):
            continue
        if param == arg:
            kwargs[param] = value
        elif p.default is inspect.Parameter.empty:
            kwargs[param] = _FILL[param]
    call = func if owner is None else getattr(owner, name.split(".")[1])
    call(**kwargs)


_FILL: dict[str, object] = {"fighters": None, "sheets": ["A", "B"], "runs": 10, "field": "A.ac",
                            "values": "10..11", "value": "12", "fighter": "A", "amount": 1}
"""Arguments without a default, given a right value when another argument is the one tried."""


def _owner(name: str, objects: dict[str, object]) -> object | None:
    cls = name.split(".")[0] if "." in name else None
    if cls is None:
        return None
    return objects.get(cls)


@pytest.mark.slow
def test_every_argument_of_every_entry_point_refuses_what_its_type_does_not_allow(
        objects: dict[str, object]) -> None:
    tried = 0
    failures: list[str] = []
    for name, func in entry_points().items():
        owner = _owner(name, objects)
        if "." in name and owner is None and _arguments(func):
            failures.append(f"{name}: no instance to call it on")
            continue
        for arg in _arguments(func):
            for value in _misfits(func, arg):
                tried += 1
                try:
                    _call(name, func, owner, arg, value)
                except ArgumentTypeError as exc:
                    text = str(exc)
                    if f"{arg}" not in text or "is not" not in text:
                        failures.append(f"{name}({arg}={value!r}): {text}")
                except Exception as exc:  # a bare error, or another project error: not the check
                    failures.append(f"{name}({arg}={value!r}): {type(exc).__name__}: {exc}")
                else:
                    failures.append(f"{name}({arg}={value!r}): accepted")
    assert tried > 300
    assert not failures, "\n".join(failures[:40])


# --- the cases of the hostile set, by name -------------------------------------------------------


@pytest.mark.parametrize(("call", "fragment"), [
    (lambda: sd.matchup(1, 2), "matchup(): a=1 (int) is not str | None"),
    (lambda: sd.matchup("A", "B", "d20").fight(seed="7"), "seed='7' (str) is not int | None"),
    (lambda: sd.matchup("A", "B", "d20").fight(seed=1.5), "seed=1.5 (float)"),
    (lambda: sd.matchup("A", "B", "d20").fight(seed=True), "seed=True (bool)"),
    (lambda: sd.matchup("A", "B", "d20").simulate("100"), "runs='100' (str) is not int"),
    (lambda: sd.matchup(set=5), "set=5 (int)"),
    (lambda: sd.matchup(tactic=["Brannoc=optimal", 5]), "tactic[1]=5 (int)"),
    (lambda: sd.Encounter.open(None), "path=None (NoneType) is not str | os.PathLike[str]"),
    (lambda: sd.Encounter(5), "path=5"),
    (lambda: sd.matrix("AB", "d20"), "sheets='AB' (str) is not Sequence[str]"),
    (lambda: sd.matrix(["A", 2], "d20"), "sheets[1]=2 (int) is not Sequence[str]"),
    (lambda: sd.ruleset(None), "name_or_path=None"),
    (lambda: sd.matchup("A", "B", "d20").sweep("A.ac", [1.5]), "values[0]=1.5 (float)"),
    (lambda: sd.matchup("A", "B", "d20").sweep("A.ac", "1..2", by=("B.ac",)), "by=('B.ac',)"),
    (lambda: sd.matchup("A", "B", "d20").exact(tolerance="tiny"), "tolerance='tiny'"),
    (lambda: sd.matchup("A", "B", "d20").fight(dice=NoFace()), "dice=<"),
    (lambda: sd.matchup("A", "B", "d20").simulate(10, progress=5), "progress=5 (int) is not Callable | None"),
    (lambda: sd.matchup("A", "B", "d20").fight(seed="x" * 100), "seed='" + "x" * 38 + "…"),
    (lambda: sd.matchup("A", "B", "d20").fight(7), "too many arguments without a name"),
    (lambda: sd.matchup("A", "B", "d20").fight(sed=7), "no argument named sed"),
    (lambda: sd.matchup("A", "B", "d20").simulate(), "runs is missing"),
])
def test_the_library_names_what_is_wrong(call: Callable[[], object], fragment: str) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        call()
    assert isinstance(caught.value, UsageError) and caught.value.exit_code == 2
    assert fragment in str(caught.value), str(caught.value)


def test_the_table_refuses_wrong_types_and_saves_nothing(tmp_path: Path) -> None:
    path = tmp_path / "e.json"
    enc = sd.Encounter.start(path=path, seed=11)
    before = path.read_bytes()
    for call, fragment in [
        (lambda: enc.round(allocate=5), "allocate=5 (int)"),
        (lambda: enc.round(allocate={"Brannoc": 5}), "allocate['Brannoc']=5 (int)"),
        (lambda: enc.round(technique=["Ysolde=feint", 3]), "technique[1]=3"),
        (lambda: enc.round(yield_initiative="maybe"), "yield_initiative='maybe' (str) is not bool | None"),
        (lambda: enc.round(seed=1.5), "seed=1.5 (float) is not int | None"),
        (lambda: enc.round(odds="yes"), "odds='yes' (str) is not bool"),
        (lambda: enc.wound(None, 5), "fighter=None (NoneType) is not str"),
        (lambda: enc.wound("Brannoc", 1.5), "amount=1.5 (float) is not int | str"),
        (lambda: enc.wound("Brannoc", 1, heal="no"), "heal='no'"),
        (lambda: enc.advise(after=5), "after=5 (int) is not str | None"),
        (lambda: enc.odds(cap="3"), "cap='3'"),
        (lambda: enc.odds(set={"Brannoc.attack": object()}), None),
    ]:
        try:
            call()
        except ArgumentTypeError as exc:
            assert fragment is not None and fragment in str(exc), str(exc)
        except SevendagError as exc:  # a value the type allows, refused by the rules
            assert fragment is None, (fragment, exc)
        assert path.read_bytes() == before


def test_a_bad_seed_is_never_saved_nor_reported(tmp_path: Path) -> None:
    """``round(seed=1.5)`` saved that seed in the file; ``fight(seed=True).to_dict()`` carried a
    seed the schema forbids."""
    path = tmp_path / "e.json"
    enc = sd.Encounter.start("A", "B", "d20", path=path, dice=[19, 5])
    with pytest.raises(ArgumentTypeError):
        enc.round(seed=1.5)
    assert all(isinstance(e.get("seed"), int | None) and not isinstance(e.get("seed"), bool)
               for e in json.loads(path.read_text("utf-8"))["log"])
    with pytest.raises(ArgumentTypeError):
        sd.matchup("A", "B", "d20").fight(seed=True)


def test_a_callers_dice_source_is_checked_face_by_face() -> None:
    """A dice source of the caller's is played only with faces on the die (a 100 on a d20 was)."""

    class Fixed:
        def __init__(self, face: object) -> None:
            self.value = face

        def face(self, sides: int, purpose: str, fighter: str | None) -> object:
            return self.value

    m = sd.matchup("A", "B", "d20")
    for bad in (0, 100, -3, "x", 2.5, True, None):
        with pytest.raises(DiceError, match="the dice source gave"):
            m.fight(dice=Fixed(bad), cap=3)
    assert m.fight(dice=Fixed(3), cap=3).result.fighters == ("A", "B")


@settings(max_examples=30, deadline=None)
@given(st.one_of(st.text(max_size=50), st.floats(), st.booleans(), st.none(),
                 st.lists(st.integers(), max_size=3),
                 st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)))
def test_any_seed_that_is_not_a_whole_number_is_refused(seed: object) -> None:
    m = sd.matchup("A", "B", "d20")
    try:
        m.fight(seed=seed, cap=1)  # type: ignore[arg-type]
    except ArgumentTypeError:
        assert seed is not None
    else:
        assert seed is None


def test_the_french_message_names_the_same_things() -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        sd.matchup("A", "B", "d20").fight(seed="7")
    assert caught.value.msg.key == "library.argument_type"
    assert caught.value.render("fr") == "Matchup.fight() : seed='7' (str) n'est pas int | None"
