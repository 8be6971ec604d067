"""The table as a library: a saved encounter, played round by round, safely.

:class:`Encounter` is the encounter file at a path.  :meth:`Encounter.start` is ``sevendag
init``; :meth:`~Encounter.round`, :meth:`~Encounter.wound` and :meth:`~Encounter.undo` are
``round``, ``wound`` and ``undo``; :meth:`~Encounter.status`, :meth:`~Encounter.odds` and
:meth:`~Encounter.log` read it.  The safety is the commands' own, since they call this:

* every change locks the encounter (:func:`sevendag_cli.store.locked`: a second writer is
  told it is in use), reads it again from its file, computes, and saves the new encounter
  atomically (:func:`sevendag_cli.store.save`) — a call that fails changes nothing;
* readers share the lock (:func:`sevendag_cli.store.read_locked`), write nothing, and read
  the encounter as last saved when a writer is at work (``busy`` on their result).

Every result has ``to_dict()``, the command's ``--json`` document::

    >>> import sevendag_cli as sd
    >>> enc = sd.Encounter.start("A", "B", "d20", path="duel.json", dice=[19, 5])
    >>> enc.started.to_dict()["leader"]
    'A'
    >>> enc.wound("B", 3).to_dict()["fighters"][1]["hp"] == enc.status().b_state.hp
    True
    >>> enc.undo().to_dict()["undone"]["step"]
    'wound'
    >>> [s.kind for s in enc.log().steps]
    ['init']
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from msgspec import Struct

from sevendag_cli.arguments import checked
from sevendag_cli.errors import EncounterError, Msg, SevendagError, UsageError
from sevendag_cli.library import (
    DiceArg,
    DiceChoice,
    Document,
    WhatIfs,
    check_fighter_count,
    check_numbers,
    choose_dice,
    pick_ruleset_doc,
    played_policies,
    what_if_texts,
)
from sevendag_cli.policies import PLAIN, Policies, pair
from sevendag_cli.text import ascii_int, is_ascii_int

if TYPE_CHECKING:
    from sevendag_cli.advice import AdviceAt
    from sevendag_cli.backend import Choices, FighterState, State
    from sevendag_cli.dice import Roll
    from sevendag_cli.engine.common import InitiativeEvent, RoundResult, WoundResult
    from sevendag_cli.history import Step
    from sevendag_cli.rules import Fighter, Ruleset
    from sevendag_cli.rules.whatif import Change, WhatIf
    from sevendag_cli.sim.odds import Odds
    from sevendag_cli.sim.swing import OddsPoint
    from sevendag_cli.store import SavedEncounter as Saved

__all__ = ["Encounter", "Loaded", "Log", "OddsAt", "RoundPlayed", "Started", "Status", "Undone", "Wounded"]

DEFAULT_PATH = Path("encounter.sevendag.json")

Assignments: TypeAlias = "Mapping[str, str | Sequence[str]] | Sequence[str] | None"
"""Sevendag choices per fighter: ``{"Brannoc": "attack,defence"}`` or the CLI's
``["Brannoc=attack,defence"]`` (``--allocate``, ``--technique``)."""
Ask: TypeAlias = ("Callable[[Ruleset, Fighter, Fighter, State, bool | None, "
                  "dict[str, tuple[str, ...]], dict[str, str | None]], Choices | None]")
"""Asks what the arguments did not say (the CLI at a terminal): given the ruleset, the two
fighters, the state, the yield and the choices so far (hands and techniques by fighter),
returns the round's choices (the ruleset's own record: Sevendag's ``Choices``)."""
TableDice: TypeAlias = "DiceArg | Callable[[], DiceChoice]"
"""Dice, or a function giving them (called under the lock, once the encounter is read)."""


# --- the saved encounter ------------------------------------------------------------------------


class Loaded(Struct, frozen=True):
    """An encounter as read from its file: the saved record, its ruleset, fighters and state."""

    saved: Saved
    ruleset: Ruleset
    a: Fighter
    b: Fighter
    state: State


def load(path: Path) -> Loaded:
    """Read the encounter, rebuild its ruleset, fighters and state (each check named)."""
    from sevendag_cli import store
    from sevendag_cli.data import Problems
    from sevendag_cli.rules import fighter_from_data, ruleset_from_data

    enc = store.load(path)
    try:  # the embedded data's problems name it in the user's language
        rs_info = enc.ruleset
        rs_label = Msg("cli.embedded_ruleset", path=path, name=rs_info.get("name"))
        rs = ruleset_from_data(rs_info["data"], str(rs_label), Problems(rs_label))
        labels = [Msg("cli.embedded_fighter", path=path, n=n) for n in (1, 2)]
        a = fighter_from_data(enc.fighters[0]["data"], str(labels[0]), rs, Problems(labels[0]))
        b = fighter_from_data(enc.fighters[1]["data"], str(labels[1]), rs, Problems(labels[1]))
    except (KeyError, TypeError) as exc:
        detail = Msg("store.missing", key=str(exc))
        raise EncounterError(Msg("store.damaged", path=path, detail=detail)) from None
    except SevendagError as exc:
        raise EncounterError(Msg("cli.embedded_invalid", path=path, error=exc.msg)) from None
    state = checked_state(path, rs, (a, b), enc.state)
    return Loaded(enc, rs, a, b, state)


def checked_state(path: Path, ruleset: Ruleset, fighters: tuple[Fighter, Fighter],
                  data: object) -> State:
    """A saved state read (its shape checked by the ruleset's codec) and checked against the
    rules and the embedded sheets (:meth:`sevendag_cli.backend.StepEngine.check_state`): the one
    validation of every read, before any die is rolled; one line naming the file and the field."""
    from sevendag_cli.engine import engine_for

    engine = engine_for(ruleset)
    state = engine.state_from_data(data)
    try:
        engine.check_state(ruleset, fighters, state)
    except EncounterError as exc:
        raise EncounterError(Msg("common.at_path", path=path, message=exc.msg)) from None
    return state


def _read(path: Path) -> tuple[Loaded, bool]:
    """The encounter read under a shared lock, nothing written or made; and whether no writer
    was at work (else it is read as last saved: saves are atomic)."""
    from sevendag_cli import store

    store.require_encounter(path)
    with store.read_locked(path) as free:
        loaded = load(path)
    return loaded, free


def _dice(dice: TableDice, seed: int | None) -> DiceChoice:
    if callable(dice) and not hasattr(dice, "face"):
        return dice()
    return choose_dice(seed, dice, continue_after=False)


def _assignments(given: Assignments, option: str) -> list[tuple[str, str]]:
    """``NAME=VALUE`` choices (``--allocate``, ``--technique``) as given: name, value."""
    if given is None:
        return []
    if isinstance(given, Mapping):
        texts = [f"{name}={value if isinstance(value, str) else ','.join(value)}"
                 for name, value in given.items()]
    else:
        texts = [given] if isinstance(given, str) else list(given)
    from sevendag_cli.terms import parse_assignments

    return parse_assignments(texts, option)


def wound_amount(text: str, option: str = "AMOUNT") -> tuple[int | None, str | None]:
    """A wound's amount: a whole number within the value bound (else a usage mistake), or a band name."""
    from sevendag_cli.limits import INT_LIMIT

    try:
        number = ascii_int(text)
    except ValueError:
        if not is_ascii_int(text):
            return None, text  # a band name
        number = INT_LIMIT + 1  # more digits than Python reads: beyond the bound anyway
    if not -INT_LIMIT <= number <= INT_LIMIT:
        raise UsageError(Msg("cli.amount_range", option=option, amount=text, limit=INT_LIMIT))
    return number, None


class Encounter:
    """The encounter saved at ``path``: each call reads it, and each change saves it, under its lock.

    >>> try:
    ...     Encounter.open("nowhere.json")
    ... except EncounterError as exc:
    ...     print(exc.msg.key)
    store.no_encounter
    """

    __slots__ = ("path", "started")

    @checked
    def __init__(self, path: str | os.PathLike[str] = DEFAULT_PATH,
                 started: Started | None = None) -> None:
        self.path = Path(path)
        self.started = started
        """What :meth:`start` rolled (None for an encounter opened)."""

    def __repr__(self) -> str:
        return f"Encounter({str(self.path)!r})"

    @classmethod
    @checked
    def open(cls, path: str | os.PathLike[str] = DEFAULT_PATH) -> Encounter:
        """The encounter saved at ``path`` (one error if there is none)."""
        from sevendag_cli.store import require_encounter

        enc = cls(path)
        require_encounter(enc.path)
        return enc

    @classmethod
    @checked
    def start(cls, a: str | None = None, b: str | None = None, ruleset: str | None = None, *,
              path: str | os.PathLike[str] = DEFAULT_PATH, seed: int | None = None,
              dice: TableDice = None, force: bool = False, odds: bool = False) -> Encounter:
        """``sevendag init``: roll the initiative and save a new encounter at ``path``.

        Fighters and ruleset as :func:`sevendag_cli.library.matchup` reads them.  An encounter
        still in progress is replaced only with ``force``; ``odds``: the odds from the start
        (``started.odds``), the solver's tables kept in the file.
        """
        from sevendag_cli import store
        from sevendag_cli.engine import engine_for
        from sevendag_cli.engine.common import RecordingDice
        from sevendag_cli.history import init_entry
        from sevendag_cli.rules import pair_docs, pair_from_docs

        where = Path(path)
        refs = check_fighter_count([r for r in (a, b) if r is not None] or None)
        rs, rs_path, rs_data = pick_ruleset_doc(ruleset, refs)
        docs = pair_docs(rs, refs)
        fa, fb = pair_from_docs(rs, docs)
        choice = _dice(dice, seed)
        engine = engine_for(rs)
        rec = RecordingDice(choice.source)
        init, state = engine.start(rs, fa, fb, rec)
        if choice.entered is not None:
            choice.entered.check_all_used()
        enc = store.SavedEncounter(
            ruleset={"name": rs.name, "path": rs_path, "data": rs_data},
            fighters=({"path": docs[0][0], "data": docs[0][1]},
                      {"path": docs[1][0], "data": docs[1][1]}),
            state=engine.state_to_data(state),
            log=(init_entry(choice.seed, init.leader, tuple(rec.rolls)),),
        )
        start_odds = None
        with store.locked(where):
            if where.exists() and not force:
                _refuse_overwrite(where)
            if odds:  # the tables are built once here and kept: each round's odds are then a look-up
                from sevendag_cli.sim.swing import point
                from sevendag_cli.table_odds import keep_work, keeping, solver_for

                solver = solver_for(enc, rs, fa, fb)
                keep_work(solver)  # in the user's cache, never in the encounter file
                start_odds = (point(solver(state), state.round), solver.cap, solver.tolerance)
                enc = keeping(enc)
            store.save(where, enc)
        started = Started(init, tuple(rec.rolls), tuple(engine.fighter_states(state)), rs,
                          choice.seed, str(where), start_odds, (fa, fb))
        return cls(where, started)

    # --- changes ---------------------------------------------------------------------------------

    @checked
    def round(self, *, seed: int | None = None, dice: TableDice = None,
              yield_initiative: bool | None = None, allocate: Assignments = None,
              technique: Assignments = None, ask: Ask | None = None,
              odds: bool = False, tactic: WhatIfs = None) -> RoundPlayed:
        """``sevendag round``: resolve the next round and save it.

        Sevendag: ``yield_initiative`` (S-03), ``allocate`` (each hand, S-04) and ``technique``
        per fighter (``none``: no technique); what they leave out is the sheet's tactic and
        rules (its yield, its technique), or what ``ask`` answers.
        ``odds``: each fighter's chance to win before and after the round; ``tactic``: how
        the odds assume each fighter plays from now on (``NAME=optimal``, ``optimal``).
        """
        from sevendag_cli import store
        from sevendag_cli.engine import engine_for
        from sevendag_cli.history import round_entry
        from sevendag_cli.rules.whatif import WhatIf

        store.require_encounter(self.path)
        with store.locked(self.path):
            loaded = load(self.path)
            enc, rs, a, b, state = loaded.saved, loaded.ruleset, loaded.a, loaded.b, loaded.state
            if state.over:
                from sevendag_cli.engine.common import over_message

                raise EncounterError(Msg("common.at_path", path=self.path,
                                         message=over_message(state.winner)))
            engine = engine_for(rs)
            solver = None
            what = WhatIf.parse(None, what_if_texts(tactic))
            policies, said = _round_policies(what, rs, (a.name, b.name), odds)
            if odds:  # before anything is rolled: odds that cannot be computed change nothing
                from sevendag_cli.table_odds import keep_work, solver_for

                solver = solver_for(enc, rs, a, b, policies=policies)
                keep_work(solver)  # built and kept here if the user's cache has none yet
                before = solver(state)
            from sevendag_cli.backend import backend_for

            choices = backend_for(rs).table.round_choices(
                rs, a, b, state, yield_initiative, _assignments(allocate, "--allocate"),
                _assignments(technique, "--technique"), ask)
            choice = _dice(dice, seed)
            result, new_state = engine.play_round(rs, a, b, state, choice.source, choices)
            if choice.entered is not None:
                choice.entered.check_all_used()
            moments = None
            if solver is not None:  # the solver rolls no dice: the entered ones are all the round's
                from sevendag_cli.sim.swing import point
                from sevendag_cli.table_odds import keeping

                moments = (point(before, state.round),
                           point(solver(new_state), new_state.round), solver.cap, solver.tolerance)
                enc = keeping(enc)
            entry = round_entry(result, choice.seed, choices)
            store.save(self.path, enc.step(engine.state_to_data(new_state), entry))
        return RoundPlayed(result, rs, choice.seed, str(self.path), moments, (a, b), policies,
                           tuple(said))

    @checked
    def wound(self, fighter: str, amount: int | str, *, heal: bool = False,
              ruleset: str | None = None) -> Wounded:
        """``sevendag wound FIGHTER AMOUNT`` (S-16): damage, or a Sevendag band's name; ``heal``:
        heal instead (``--heal``).  ``ruleset``: refuse an encounter of another ruleset."""
        from sevendag_cli import store
        from sevendag_cli.engine import engine_for
        from sevendag_cli.history import judgement_entry
        from sevendag_cli.terms import find_name

        number, band = wound_amount(amount if isinstance(amount, str) else str(amount))
        store.require_encounter(self.path)
        with store.locked(self.path):
            loaded = load(self.path)
            rs, a, b = loaded.ruleset, loaded.a, loaded.b
            if ruleset is not None and ruleset not in (rs.name, rs.engine):
                raise UsageError(Msg("cli.other_ruleset", ruleset=ruleset, used=rs.name))
            name = find_name(fighter, (a.name, b.name))  # any case: ``wound ysolde 5``
            if name is None:  # the name first: before what the amount means in this ruleset
                from sevendag_cli.errors import joined

                raise UsageError(Msg("engine.no_fighter", name=fighter,
                                     names=joined((a.name, b.name))))
            engine = engine_for(rs)
            apply = engine.apply_heal if heal else engine.apply_wound
            result, new_state = apply(rs, a, b, loaded.state, name, number, band)
            entry = judgement_entry(result, heal)
            store.save(self.path, loaded.saved.step(engine.state_to_data(new_state), entry))
        return Wounded(result, rs, str(self.path), (a, b))

    @checked
    def undo(self) -> Undone:
        """``sevendag undo``: take back the last round, wound or heal."""
        from sevendag_cli import store
        from sevendag_cli.engine import engine_for

        store.require_encounter(self.path)
        with store.locked(self.path):
            loaded = load(self.path)
            previous, undone = loaded.saved.undo()
            state = checked_state(self.path, loaded.ruleset, (loaded.a, loaded.b), previous.state)
            store.save(self.path, previous)
        engine = engine_for(loaded.ruleset)
        return Undone(undone, tuple(engine.fighter_states(state)), loaded.ruleset, str(self.path),
                      (loaded.a, loaded.b))

    # --- reading -------------------------------------------------------------------------------

    @checked
    def status(self) -> Status:
        """``sevendag status``: where the encounter stands."""
        loaded, free = _read(self.path)
        return Status(loaded, str(self.path), not free)

    @checked
    def log(self) -> Log:
        """``sevendag log``: every step, played again from what the encounter recorded."""
        from sevendag_cli.history import replay

        loaded, free = _read(self.path)
        steps = replay(loaded.saved, loaded.ruleset, loaded.a, loaded.b, self.path)
        return Log(tuple(steps), loaded.ruleset, str(self.path), not free, (loaded.a, loaded.b))

    @checked
    def odds(self, *, cap: int | None = None, tolerance: float | None = None, set: WhatIfs = None,
             tactic: WhatIfs = None) -> OddsAt:
        """``sevendag odds``: each fighter's chance to win from where the encounter stands,
        each keeping the sheet's tactic; ``set``/``tactic``: what-ifs on the embedded sheets
        (the file is not changed)."""
        from sevendag_cli.rules.whatif import WhatIf, inert_notes, saved_state_notes
        from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, check_tolerance
        from sevendag_cli.sim.swing import point
        from sevendag_cli.table_odds import solver_for

        check_numbers(cap, None, None)
        tol = check_tolerance(DEFAULT_TOLERANCE if tolerance is None else tolerance)
        what = WhatIf.parse(what_if_texts(set), what_if_texts(tactic))
        loaded, free = _read(self.path)
        rs, a, b, state = loaded.ruleset, loaded.a, loaded.b, loaded.state
        policies, said = _policies(what, rs, (a.name, b.name))
        notes: list[Msg] = []
        changes: tuple[Change, ...] = ()
        if what:
            docs = [(fighter.path, dict(entry["data"]))
                    for fighter, entry in zip((a, b), loaded.saved.fighters, strict=True)]
            rs, a, b, changes = what.load(rs, docs, (rs.path, loaded.saved.ruleset["data"]))
            for change in changes:
                if change.field == "name" and change.ruleset is None:  # the saved state names them
                    raise UsageError(Msg("whatif.odds_name", name=change.fighter))
            notes += inert_notes(rs, (a, b), changes, policies, state=state)
            notes += saved_state_notes(rs, changes)
        notes += said
        # the kept work is keyed by the pair: a changed pair has its own
        solver = solver_for(loaded.saved, rs, a, b, cap=cap, tolerance=tol, policies=policies)
        if policies != PLAIN:  # the game solved for the whole fight, kept for the next call
            from sevendag_cli.table_odds import keep_work

            keep_work(solver)
        odds = solver(state)
        return OddsAt(state, rs, str(self.path), odds, point(odds, state.round),
                      solver.cap, tol, changes, tuple(notes), not free, policies, (a, b))

    @checked
    def advise(self, *, after: str | None = None, cap: int | None = None,
               tolerance: float | None = None) -> AdviceAt:
        """``sevendag advise``: every option of the Sevendag fighter declaring now, with its
        chance to win if taken (both optimal afterwards); ``after``: what the assaillant
        declared (``yield=no;allocation=attack,attack;technique=feint``), for the défenseur."""
        from sevendag_cli.advice import advice_from

        loaded, free = _read(self.path)
        return advice_from(loaded, str(self.path), not free, after=after, cap=cap,
                           tolerance=tolerance)


def _policies(what: WhatIf, ruleset: Ruleset, names: tuple[str, str]) -> tuple[Policies, list[Msg]]:
    """The policies ``--tactic`` asks (``NAME=optimal``, ``optimal``), as the ruleset plays
    them; and the note to say when it has no choices to make."""

    played, said = played_policies(ruleset, what.policies(names))
    return pair(played), list(said)


def _round_policies(what: WhatIf, ruleset: Ruleset, names: tuple[str, str],
                    odds: bool) -> tuple[Policies, list[Msg]]:
    """``round --tactic``: only policies, and only with ``--odds`` (what the odds assume; the
    round itself is played as declared)."""
    from sevendag_cli.rules.whatif import policy_word, with_policy_suggestion

    for asg in what.assignments:
        if policy_word(asg.value) is None:
            raise UsageError(with_policy_suggestion(Msg("round.tactic_policy", typed=asg.typed),
                                                    asg.value))
    if what and not odds:
        raise UsageError(Msg("round.tactic_odds"))
    return _policies(what, ruleset, names)


def _refuse_overwrite(path: Path) -> None:
    """``init`` without ``force`` replaces only a finished encounter."""
    from sevendag_cli import store

    try:
        current = store.load(path)
    except EncounterError:
        raise EncounterError(Msg("cli.overwrite_unreadable", path=path)) from None
    if not current.state.get("over", False):
        raise EncounterError(Msg("cli.in_progress", path=path))


# --- results ------------------------------------------------------------------------------------


class Started(Struct, frozen=True):
    """``init``: the initiative rolled, the fighters, and the odds from the start if asked."""

    initiative: InitiativeEvent
    rolls: tuple[Roll, ...]
    states: tuple[FighterState, ...]
    ruleset: Ruleset
    seed: int | None
    encounter: str
    odds: tuple[OddsPoint, int | None, float] | None = None  # the odds, the cap, the tolerance
    fighters: tuple[Fighter, ...] = ()  # the sheets

    def to_dict(self) -> Document:
        from sevendag_cli.render.data import init_document

        doc: dict[str, object] = init_document(self.initiative, self.rolls,
                                               self.states, self.ruleset.name, self.seed,
                                               self.encounter)
        if self.odds is not None:
            from sevendag_cli.render.odds_data import moment_odds

            doc["odds"] = moment_odds(self.odds[0], self.ruleset.engine, self.odds[1], self.odds[2],
                                      self.fighters)
        return doc


class RoundPlayed(Struct, frozen=True):
    """``round``: the round played; ``odds``: before, after, the cap and the tolerance."""

    result: RoundResult
    ruleset: Ruleset
    seed: int | None
    encounter: str
    odds: tuple[OddsPoint, OddsPoint, int | None, float] | None = None
    fighters: tuple[Fighter, ...] = ()  # the sheets, so that a display names what they hold
    policies: Policies = PLAIN  # how the odds assume each fighter plays
    notes: tuple[Msg, ...] = ()  # what to say on stderr (a ruleset with no choices)

    def odds_data(self) -> dict[str, object] | None:
        if self.odds is None:
            return None
        from sevendag_cli.render.odds_data import round_odds

        return round_odds(*self.odds[:2], self.ruleset.engine, self.odds[2], self.odds[3],
                          self.policies, self.fighters)

    def to_dict(self) -> Document:
        from sevendag_cli.render.data import round_document

        doc: dict[str, object] = round_document(self.result, self.ruleset.name, self.seed,
                                                self.encounter)
        odds = self.odds_data()
        if odds is not None:
            doc["odds"] = odds
        return doc

    def events(self) -> list[Document]:
        """``round --jsonl``: one document per line."""
        from sevendag_cli.render.data import round_events

        lines: list[Document] = list(round_events(self.result, self.ruleset.name, self.seed))
        odds = self.odds_data()
        if odds is not None:
            lines.append({"type": "odds", "round": self.result.number, **odds})
        return lines


class Wounded(Struct, frozen=True):
    """``wound``: a judgement applied (a wound or a heal)."""

    result: WoundResult
    ruleset: Ruleset
    encounter: str
    fighters: tuple[Fighter, ...] = ()  # the sheets, so that a display names what they hold

    def to_dict(self) -> Document:
        from sevendag_cli.render.data import wound_document

        return wound_document(self.result, self.ruleset.name, self.encounter)


class Undone(Struct, frozen=True):
    """``undo``: the step taken back (its log entry) and the fighters as they are again."""

    undone: Mapping[str, object]
    states: tuple[FighterState, ...]
    ruleset: Ruleset
    encounter: str
    fighters: tuple[Fighter, ...] = ()  # the sheets, so that a display names what they hold

    def to_dict(self) -> Document:
        from sevendag_cli.history import summary
        from sevendag_cli.render.data import header, state_data

        return {**header("undo", self.ruleset.name, None), "encounter": self.encounter,
                "undone": summary(self.undone), "fighters": [state_data(s) for s in self.states]}


class Status(Struct, frozen=True):
    """``status``: the encounter as read; ``busy``: a writer was at work (read as last saved)."""

    loaded: Loaded
    encounter: str
    busy: bool = False

    @property
    def a_state(self) -> object:
        return self.loaded.state.fighters[0]

    @property
    def b_state(self) -> object:
        return self.loaded.state.fighters[1]

    def to_dict(self) -> Document:
        from sevendag_cli.backend import backend_for
        from sevendag_cli.render.data import status_document

        rs = self.loaded.ruleset
        return status_document(self.loaded.state, rs, self.encounter, self.loaded.saved.log,
                               backend_for(rs).table.round_seconds(rs))


class Log(Struct, frozen=True):
    """``log``: every step played again (:class:`sevendag_cli.history.Step`)."""

    steps: tuple[Step, ...]
    ruleset: Ruleset
    encounter: str
    busy: bool = False
    fighters: tuple[Fighter, ...] = ()  # the sheets, so that a display names what they hold

    def to_dict(self) -> Document:
        from sevendag_cli.render.data import log_document

        return log_document(list(self.steps), self.ruleset.name, self.encounter)

    def events(self) -> list[Document]:
        """``log --jsonl``: one document per line."""
        from sevendag_cli.render.data import log_events

        return list(log_events(list(self.steps), self.ruleset.name, self.encounter))


class OddsAt(Struct, frozen=True):
    """``odds``: each fighter's chance to win from the saved state; ``notes``: what-ifs that
    cannot matter from there (the CLI says them on stderr); ``busy``: as :class:`Status`."""

    state: object
    ruleset: Ruleset
    encounter: str
    odds: Odds
    moment: OddsPoint
    cap: int | None  # None: no round cap, the fight played to the end
    tolerance: float
    changes: tuple[Change, ...] = ()
    notes: tuple[Msg, ...] = ()
    busy: bool = False
    policies: Policies = PLAIN  # how the odds assume each fighter plays
    fighters: tuple[Fighter, ...] = ()  # the sheets the odds play

    @checked
    def to_dict(self, lang: str = "en") -> Document:
        from sevendag_cli.render.odds_data import odds_document
        from sevendag_cli.render.whatif import with_changes

        doc = odds_document(self.state, self.ruleset, self.encounter, self.odds, self.moment,
                            self.cap, self.tolerance, lang, self.policies, self.fighters)
        return with_changes(doc, self.changes)
