"""sevendag as a library: rulesets, matchups and rosters, without a subprocess.

``import sevendag_cli as sd`` gives :func:`ruleset`, :func:`matchup`, :class:`Matchup`,
:func:`matrix` and :class:`~sevendag_cli.encounter.Encounter`.  Fighters and rulesets are
named exactly as on the command line (a name listed by ``sevendag rulesets``, a file name, a
``.toml`` path; no fighters: the ruleset's example pair), with the same defaults and the same
errors (a :class:`~sevendag_cli.errors.SevendagError` carrying the message the command prints).
Randomness is injected: ``seed=`` or ``dice=`` (faces as the CLI's ``--dice``, or any
:class:`~sevendag_cli.dice.DiceSource`).

Every result is an immutable record whose ``to_dict()`` is the command's ``--json`` document
for the same call (the seed included)::

    >>> import sevendag_cli as sd
    >>> m = sd.matchup("A", "B", ruleset="d20")
    >>> m.names
    ('A', 'B')
    >>> fight = m.fight(seed=7)
    >>> fight.to_dict() == fight.to_dict() and fight.to_dict()["seed"]
    7
    >>> fight.winner in ("A", "B", None)
    True

The commands are this module plus parsing and rendering: ``sevendag fight A B -r d20 --seed 7
--json`` prints ``sd.matchup("A", "B", ruleset="d20").fight(seed=7).to_dict()``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

from msgspec import Struct

from sevendag_cli.arguments import checked
from sevendag_cli.errors import DataError, Msg, NotFoundError, RuleError, UsageError
from sevendag_cli.policies import OPTIMAL, PLAIN, SHEET, Policies, pair, policies_data

if TYPE_CHECKING:
    from sevendag_cli.dice import DiceSource, EnteredDice
    from sevendag_cli.engine.common import FightPlay, FightResult
    from sevendag_cli.rules import Fighter, Ruleset
    from sevendag_cli.rules.roster import Skipped
    from sevendag_cli.rules.whatif import Change, WhatIf
    from sevendag_cli.sim.exact_fight import ExactFight
    from sevendag_cli.sim.exact_records import Exploitability
    from sevendag_cli.sim.roster import Roster
    from sevendag_cli.sim.runner import SimulationResult
    from sevendag_cli.sim.sweep import Sweep, SweepGrid
    from sevendag_cli.sim.swing import OddsSwing

__all__ = [
    "DiceChoice",
    "Exact",
    "Fight",
    "FightInPlay",
    "Lineup",
    "Matchup",
    "Matrix",
    "OddsSwingResult",
    "Simulation",
    "SweepResult",
    "choose_dice",
    "matchup",
    "matrix",
    "played_policies",
    "ruleset",
    "with_policies",
]

Document: TypeAlias = "dict[str, object]"
"""A JSON document (what ``--json`` prints)."""
WhatIfs: TypeAlias = "str | Sequence[str] | Mapping[str, object] | None"
"""What-ifs: the CLI's ``--set``/``--tactic`` texts (one, or several), or a mapping
``{"FIGHTER.FIELD": value}`` / ``{"FIGHTER": tactic}``; ``{"techniques.NAME.FIELD": value}``
changes the ruleset's technique (S-05)."""
DiceArg: TypeAlias = "str | Sequence[int] | DiceSource | None"
"""Dice given to a fight: faces as the CLI's ``--dice`` (``"19,5"`` or ``[19, 5]``), or a dice source."""


# --- arguments as the CLI takes them -----------------------------------------------------------


def _value_text(value: object) -> str:
    if value is None:
        return ""  # the sheet's default, as ``--set A.ac=``
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(_value_text(v) for v in value)
    return str(value)


def what_if_texts(given: WhatIfs) -> list[str] | None:
    """``--set``/``--tactic`` texts from what a caller gives (None: none).

    >>> what_if_texts({"A.ac": 12, "B.weapon.damage": "1d8"})
    ['A.ac=12', 'B.weapon.damage=1d8']
    >>> what_if_texts("Brannoc=all-out")
    ['Brannoc=all-out']
    """
    if given is None:
        return None
    if isinstance(given, str):
        return [given]
    if isinstance(given, Mapping):
        return [f"{key}={_value_text(value)}" for key, value in given.items()]
    return list(given)


def check_numbers(cap: int | None, runs: int | None, seed: int | None) -> None:
    """The numeric options within their bounds (a usage mistake), before anything is read."""
    from sevendag_cli.dice import check_seed
    from sevendag_cli.limits import MAX_ROUND_CAP, MAX_RUNS

    if cap is not None and not 1 <= cap <= MAX_ROUND_CAP:
        raise UsageError(Msg("cli.cap", cap=cap, max=MAX_ROUND_CAP))
    if runs is not None and not 1 <= runs <= MAX_RUNS:
        raise UsageError(Msg("cli.runs", runs=runs, max=MAX_RUNS))
    if seed is not None:
        check_seed(seed)


def check_fighter_count(fighters: Sequence[str] | None) -> list[str] | None:
    """FIGHTERS: two sheets, or none (the ruleset's example pair)."""
    if fighters and len(fighters) != 2:
        raise UsageError(Msg("cli.two_fighters", n=len(fighters)))
    return list(fighters) if fighters else None


def pick_ruleset_doc(ruleset: str | None,
                     fighters: Sequence[str] | None) -> tuple[Ruleset, str, dict[str, object]]:
    """The ruleset named, else the first sheet's own, else the default; with its file and data."""
    from sevendag_cli.rules import (
        DEFAULT_RULESET,
        fighter_path,
        read_ruleset_doc,
        ruleset_from_data,
        sheet_ruleset,
    )

    if ruleset is None and fighters:
        named = sheet_ruleset(fighters[0])
        if named is not None:
            try:
                source, data = read_ruleset_doc(named)
            except NotFoundError as exc:  # named in a file, not typed: a data problem (exit 1)
                raise DataError(str(fighter_path(fighters[0])), "ruleset", exc.msg) from None
            return ruleset_from_data(data, source), source, data
    source, data = read_ruleset_doc(ruleset or DEFAULT_RULESET)
    return ruleset_from_data(data, source), source, data


class DiceChoice:
    """The dice of a call: the source the engine is given, the seed to report (None: no
    generator) and the entered faces (to check they were all used)."""

    __slots__ = ("entered", "seed", "source")

    def __init__(self, source: DiceSource, seed: int | None, entered: EnteredDice | None) -> None:
        self.source = source
        self.seed = seed
        self.entered = entered


def choose_dice(seed: int | None, dice: DiceArg, *, continue_after: bool) -> DiceChoice:
    """Entered faces, a dice source, or the seeded generator (a fresh seed when none is given).

    ``continue_after``: in a fight the generator continues after entered faces; in ``init``
    and ``round`` entered faces must be exactly what is needed (and no seed goes with them).
    """
    from sevendag_cli.dice import (
        CallerDice,
        EnteredDice,
        SeededDice,
        check_seed,
        fresh_seed,
        parse_faces,
    )

    if dice is not None and not isinstance(dice, str | Sequence):  # a dice source of the caller's
        if seed is not None:
            raise UsageError(Msg("cli.dice_and_seed"))
        return DiceChoice(CallerDice(dice), None, None)  # each face it gives checked
    text = dice if dice is None or isinstance(dice, str) else ",".join(str(f) for f in dice)
    if text is not None and not continue_after:
        if seed is not None:
            raise UsageError(Msg("cli.dice_and_seed"))
        entered = EnteredDice(parse_faces(text))
        return DiceChoice(entered, None, entered)
    if seed is None:
        seed = fresh_seed()
    generator = SeededDice(check_seed(seed))
    if text is not None:
        entered = EnteredDice(parse_faces(text), fallback=generator)
        return DiceChoice(entered, seed, entered)
    return DiceChoice(generator, seed, None)


def played_policies(ruleset: Ruleset,
                    asked: Sequence[str]) -> tuple[tuple[str, ...], tuple[Msg, ...]]:
    """The policies as the ruleset plays them — those asked, or every sheet where the rules
    leave no choice (d20) — and the note to say once when optimal play was asked there.

    >>> played_policies(ruleset("d20"), ("optimal", "sheet"))[0]
    ('sheet', 'sheet')
    """
    from sevendag_cli.backend import backend_for

    if OPTIMAL not in asked or backend_for(ruleset).has_choices():
        return tuple(asked), ()
    return (SHEET,) * len(asked), (Msg("policy.no_choices", ruleset=ruleset.name),)


def with_policies(doc: dict[str, object], names: Sequence[str], policies: Policies) -> Document:
    """The document with ``policies``: how each fighter played (after the fighters' data)."""

    return {**doc, "policies": policies_data(names, policies)}


def _with_changes(doc: dict[str, object], changes: tuple[Change, ...]) -> Document:
    from sevendag_cli.render.whatif import with_changes

    return with_changes(doc, changes)


# --- rulesets and matchups ---------------------------------------------------------------------


@checked
def ruleset(name_or_path: str) -> Ruleset:
    """A ruleset, by name (``sevendag``, ``d20``, one listed by ``sevendag rulesets``) or path.

    >>> ruleset("d20").engine
    'd20'
    """
    from sevendag_cli.rules import ruleset_from_data

    source, data = pick_ruleset_doc(name_or_path, None)[1:]
    return ruleset_from_data(data, source)


@checked
def matchup(a: str | None = None, b: str | None = None, ruleset: str | None = None, *,
            set: WhatIfs = None, tactic: WhatIfs = None) -> Matchup:
    """Two fighters, as ``sevendag fight A B --ruleset R --set ... --tactic ...`` reads them.

    No fighters: the ruleset's example pair; no ruleset: the first sheet's own, else
    ``sevendag``.  ``set``/``tactic``: what-ifs for this matchup only (the sheets are not
    changed).

    >>> matchup().names
    ('Brannoc', 'Ysolde')
    >>> m = matchup("A", "B", "d20", set={"B.ac": 15})
    >>> [(c.fighter, c.field, c.value) for c in m.changes]
    [('B', 'ac', 15)]

    A key starting ``techniques.`` changes the ruleset's technique (S-05), not a sheet:

    >>> m = matchup(set={"techniques.feint.attack": 5})
    >>> m.ruleset.techniques["feint"].attack, m.changes[0].ruleset, m.changes[0].previous
    (5, 'sevendag', 3)
    """
    refs = [r for r in (a, b) if r is not None]
    return Matchup.load(refs or None, ruleset, set=set, tactic=tactic)


class Matchup(Struct, frozen=True):
    """Two fighters of one ruleset, what-ifs applied: fight them, simulate, solve, sweep."""

    ruleset: Ruleset
    a: Fighter
    b: Fighter
    changes: tuple[Change, ...]
    docs: tuple[tuple[str, dict[str, object]], ...]
    what: WhatIf
    asked: Policies = PLAIN
    """The policies asked (``--tactic NAME=optimal``); :attr:`policies`: those played."""
    ruleset_doc: tuple[str, dict[str, object]] | None = None
    """The ruleset's file and data as read (before any what-if): a change of the ruleset
    (``techniques.feint.attack``) is applied to it; ``ruleset`` is the ruleset changed."""

    @classmethod
    @checked
    def load(cls, fighters: Sequence[str] | None, ruleset: str | None = None, *,
             set: WhatIfs = None, tactic: WhatIfs = None) -> Matchup:
        """FIGHTERS (two, or none), ``--ruleset``, ``--set`` and ``--tactic`` as the CLI reads
        them (``--tactic NAME=optimal``, or ``--tactic optimal`` for both: optimal play)."""
        from sevendag_cli.rules import pair_docs
        from sevendag_cli.rules.whatif import WhatIf

        refs = check_fighter_count(fighters)
        rs, source, data = pick_ruleset_doc(ruleset, refs)
        what = WhatIf.parse(what_if_texts(set), what_if_texts(tactic))
        docs = pair_docs(rs, refs)
        changed, a, b, changes = what.load(rs, docs, (source, data))
        asked = pair(what.policies((a.name, b.name)))
        return cls(changed, a, b, changes, tuple(docs), what, asked, (source, data))

    @property
    def policies(self) -> Policies:
        """How each fighter plays: ``sheet`` or ``optimal`` (a ruleset with no choices plays
        its sheets whatever was asked).

        >>> matchup(tactic="Brannoc=optimal").policies
        ('optimal', 'sheet')
        >>> matchup("A", "B", "d20", tactic="optimal").policies
        ('sheet', 'sheet')
        """
        return pair(played_policies(self.ruleset, self.asked)[0])

    def __repr__(self) -> str:
        return f"Matchup({self.a.name!r}, {self.b.name!r}, ruleset={self.ruleset.name!r})"

    @property
    def names(self) -> tuple[str, str]:
        return (self.a.name, self.b.name)

    @property
    def notes(self) -> tuple[Msg, ...]:
        """What-ifs that cannot change this fight, and why (the CLI says them on stderr)."""
        from sevendag_cli.rules.whatif import inert_notes

        played, said = played_policies(self.ruleset, self.asked)
        return (*inert_notes(self.ruleset, (self.a, self.b), self.changes, played), *said)

    @checked
    def vary(self, field: str, value: str, typed: str = "") -> Matchup:
        """This matchup with one more change, ``FIGHTER.FIELD`` (or the ruleset's
        ``techniques.NAME.FIELD``) set to ``value`` (as a sweep's point); ``typed``: what
        a message quotes (the whole ``--vary A.ac=5..9``; by default ``--vary A.ac=VALUE``).

        >>> matchup("A", "B", "d20").vary("A.ac", "14").a.ac_override
        14
        """
        from sevendag_cli.rules.whatif import VARY

        what = self.what.plus(field, value, VARY, typed)
        # a change of the ruleset is applied to the file's data again, all of them in order
        rs, a, b, changes = what.load(self.ruleset, list(self.docs), self.ruleset_doc)
        return Matchup(rs, a, b, changes, self.docs, what, self.asked, self.ruleset_doc)

    def check_ends(self) -> None:
        """Refuse (one message) a fight that could never end."""
        from sevendag_cli.rules.bounds import endless

        never = endless(self.ruleset, self.a, self.b)
        if never is not None:
            raise RuleError(never)

    # --- one fight -----------------------------------------------------------------------------

    @checked
    def play(self, *, seed: int | None = None, dice: DiceArg = None,
             cap: int | None = None) -> tuple[FightPlay, DiceChoice]:
        """The fight of :meth:`fight`, played round by round as it is iterated (a long fight is
        never held whole); and its dice (``.seed``: the seed to report)."""
        from sevendag_cli.engine import engine_for

        check_numbers(cap, None, seed)
        self.check_ends()
        choice = choose_dice(seed, dice, continue_after=True)
        return engine_for(self.ruleset).fight_play(self.ruleset, self.a, self.b, choice.source,
                                                   cap, self.policies), choice

    @checked
    def playing(self, *, seed: int | None = None, dice: DiceArg = None,
                cap: int | None = None) -> FightInPlay:
        """The fight of :meth:`fight` as it is played, with its documents written as the rounds
        come (``sevendag fight --json`` and ``--jsonl``: a long fight is never held whole)."""
        play, choice = self.play(seed=seed, dice=dice, cap=cap)
        return FightInPlay(play, choice, self.changes, self.policies)

    @checked
    def fight(self, *, seed: int | None = None, dice: DiceArg = None, cap: int | None = None) -> Fight:
        """One whole fight, step by step (``sevendag fight --seed N``).

        >>> f = matchup("A", "B", "d20").fight(seed=7, cap=3)
        >>> f.to_dict()["rounds_played"] == len(f.result.rounds) <= 3
        True
        """
        play, choice = self.play(seed=seed, dice=dice, cap=cap)
        return Fight(play.collect(), choice.seed, self.changes, self.policies)

    @checked
    def odds_swing(self, *, seed: int | None = None, dice: DiceArg = None, cap: int | None = None,
                   tolerance: float | None = None) -> OddsSwingResult:
        """The fight :meth:`fight` plays, then how each fighter's odds swung round by round
        (``sevendag fight --odds``)."""
        from sevendag_cli.engine import engine_for
        from sevendag_cli.sim.odds import DEFAULT_TOLERANCE, check_tolerance
        from sevendag_cli.sim.swing import fight_swing

        check_numbers(cap, None, seed)
        self.check_ends()
        tol = check_tolerance(DEFAULT_TOLERANCE if tolerance is None else tolerance)
        choice = choose_dice(seed, dice, continue_after=True)
        result = engine_for(self.ruleset).fight_play(self.ruleset, self.a, self.b, choice.source,
                                                     cap, self.policies).collect()
        swing = fight_swing(self.ruleset, self.a, self.b, result, cap=cap, tolerance=tol,
                            policies=self.policies)
        return OddsSwingResult(result, swing, choice.seed, self.changes, self.policies)

    # --- odds --------------------------------------------------------------------------------

    @checked
    def simulate(self, runs: int, *, seed: int | None = None, cap: int | None = None,
                 progress: Callable[[int], None] | None = None) -> Simulation:
        """``runs`` fights simulated (``sevendag fight --runs N``); ``progress(done)`` after each batch.

        >>> s = matchup("A", "B", "d20").simulate(1000, seed=3)
        >>> s.result.runs, s.to_dict()["mode"]
        (1000, 'runs')
        """
        from sevendag_cli.dice import fresh_seed
        from sevendag_cli.sim.runner import simulate

        check_numbers(cap, runs, seed)
        self.check_ends()
        seed = seed if seed is not None else fresh_seed()
        result = simulate(self.ruleset, self.a, self.b, runs, seed, cap=cap, progress=progress,
                          policies=self.policies)
        return Simulation(result, self.ruleset.name, seed, self.changes, self.policies)

    @checked
    def exact(self, *, tolerance: float | None = None, cap: int | None = None,
              exploit: bool | None = None, fractions: bool | None = None,
              progress: Callable[[int, int], None] | None = None) -> Exact:
        """The exact odds, certified within ``tolerance`` (``sevendag fight --exact``).

        ``fractions``: the exact fractions of the fight played to the end, where the rules
        allow them — None (the default) where they cost little beside the odds (a size rule
        from the sheets, else a note saying how to ask), True asked (``--fractions``;
        ``progress(done, total)`` along the way), False none.

        ``exploit``: what each sheet gives away against optimal play (both on their sheets
        only): None computes it when it is cheap and says why not otherwise
        (:attr:`Exact.exploitability_skipped`), True asks for it (refused in one line beyond
        the game's bounds), False leaves it out.

        >>> e = matchup("A", "B", "d20").exact(tolerance=1e-9)
        >>> round(sum(f.win_probability for f in e.result.fighters) + e.result.draw_probability, 6)
        1.0
        """
        from sevendag_cli.sim.exact_fight import exact_fight
        from sevendag_cli.sim.odds import DEFAULT_TOLERANCE

        check_numbers(cap, None, None)
        if exploit and self.policies != PLAIN:
            raise UsageError(Msg("exact.exploit_policies"))
        self.check_ends()
        tol = DEFAULT_TOLERANCE if tolerance is None else tolerance
        result = exact_fight(self.ruleset, self.a, self.b, cap=cap, tolerance=tol,
                             fractions=fractions, policies=self.policies, progress=progress)
        given: Exploitability | None = None
        skipped: Msg | None = None
        if self.policies == PLAIN and exploit is not False:
            from sevendag_cli.backend import backend_for

            got = backend_for(self.ruleset).exact.exploitability(
                self.ruleset, self.a, self.b, cap=cap, tolerance=tol, sheet=result.odds,
                asked=bool(exploit))
            if isinstance(got, Msg):
                skipped = got
            else:
                given = got
        return Exact(result, self.ruleset.name, self.changes, self.policies, given, skipped)

    @checked
    def sweep(self, field: str, values: str | Sequence[str | int], *, fair: bool = False,
              runs: int | None = None, seed: int | None = None, cap: int | None = None,
              tolerance: float | None = None,
              progress: Callable[[int], None] | None = None,
              by: tuple[str, str | Sequence[str | int]] | None = None) -> SweepResult:
        """The odds for each value of one sheet field (``sevendag sweep --vary FIELD=VALUES``).

        ``values``: a range as the CLI takes it (``"5..12"``, ``"6..12/2"``, ``"1d6,1d8"``) or a
        list; exact odds, or ``runs`` simulated fights per value; ``fair``: find the value
        closest to 50/50.  ``by=(FIELD2, VALUES2)``: a grid, every pair of values (two
        ``--vary``); ``fair`` then finds the fair value of FIELD2 for each value of ``field``.

        >>> s = matchup("A", "B", "d20").sweep("A.ac", "10..12", fair=True)
        >>> [p.value for p in s.result.points]
        [10, 11, 12]
        >>> g = matchup("A", "B", "d20").sweep("A.ac", "10..11", by=("B.ac", [9, 10]))
        >>> [p.values for p in g.result.points]
        [(10, 9), (10, 10), (11, 9), (11, 10)]
        """
        from sevendag_cli.sim.odds import DEFAULT_TOLERANCE
        from sevendag_cli.sim.sweep import EXACT, RUNS, sweep

        check_numbers(cap, None, seed)
        listed = _listed(values)
        vary = [f"{field}={listed}"] + ([] if by is None else [f"{by[0]}={_listed(by[1])}"])
        target, texts, grid = check_sweep(vary, runs=runs, tolerance=tolerance)
        typed = f"--vary {vary[0]}"
        typed2 = f"--vary {vary[-1]}"
        if grid is not None:
            both = self.vary(target, texts[0], typed).vary(grid[0], grid[1][0], typed2).changes[-2:]
            if (both[0].fighter, both[0].field, both[0].ruleset) == \
                    (both[1].fighter, both[1].field, both[1].ruleset):  # one field spelt two ways
                raise UsageError(Msg("sweep.grid_same_field", field=target))
        if runs is not None:
            from sevendag_cli.dice import check_seed, fresh_seed

            seed = check_seed(seed) if seed is not None else fresh_seed()
        if grid is not None:
            from sevendag_cli.sim.sweep import sweep_grid

            target2 = grid[0]

            def load2(x: str, y: str) -> tuple[Fighter, Fighter, object, object, Ruleset]:
                point = self.vary(target, x, typed).vary(target2, y, typed2)
                return point.a, point.b, point.changes[-2].value, point.changes[-1].value, point.ruleset

            result2 = sweep_grid(self.ruleset, (target, target2), (texts, grid[1]), load2,
                                 method=RUNS if runs is not None else EXACT, cap=cap,
                                 tolerance=DEFAULT_TOLERANCE if tolerance is None else tolerance,
                                 runs=runs, seed=seed, fair=fair, progress=progress,
                                 policies=self.policies)
            return SweepResult(result2, self.names, self.changes, self.policies)

        def load(text: str) -> tuple[Fighter, Fighter, object, Ruleset]:
            point = self.vary(target, text, typed)
            return point.a, point.b, point.changes[-1].value, point.ruleset

        result = sweep(self.ruleset, target, texts, load, method=RUNS if runs is not None else EXACT,
                       cap=cap, tolerance=DEFAULT_TOLERANCE if tolerance is None else tolerance,
                       runs=runs, seed=seed, fair=fair, progress=progress, policies=self.policies)
        return SweepResult(result, self.names, self.changes, self.policies)


MAX_RUNS_PER_VALUE = 1_000_000
"""Most simulated fights per value of a sweep (``--runs``)."""


class SweepAsked(NamedTuple):
    """A sweep's values, checked: the field varied and its values (as texts), and for a grid the
    second field and its values."""

    target: str
    texts: list[str]
    by: tuple[str, list[str]] | None


def _listed(values: str | Sequence[str | int]) -> str:
    """A sweep's values as ``--vary`` writes them (a list joined by commas)."""
    return values if isinstance(values, str) else ",".join(str(v) for v in values)


def check_sweep(vary: Sequence[str], *, runs: int | None = None,
                tolerance: float | None = None) -> SweepAsked:
    """What a sweep asks, checked before any sheet is read (a usage mistake, one line): one or
    two ``FIELD=VALUES`` (``--vary``), each of at most ``MAX_SWEEP_POINTS`` values, two
    different fields of at most ``MAX_GRID_POINTS`` points together; ``runs`` per value (not
    with ``tolerance``) within ``MAX_RUNS_PER_VALUE``.  :meth:`Matchup.sweep` checks with it;
    ``sevendag sweep`` calls it before it reads the sheets, so a wrong ``--vary`` is said first.
    """
    from sevendag_cli.limits import MAX_GRID_POINTS, MAX_SWEEP_POINTS
    from sevendag_cli.rules.whatif import vary_values

    if runs is not None:
        if tolerance is not None:
            raise UsageError(Msg("sweep.tolerance_runs"))
        if not 1 <= runs <= MAX_RUNS_PER_VALUE:
            raise UsageError(Msg("sweep.runs", runs=runs, max=MAX_RUNS_PER_VALUE))
    if not 1 <= len(vary) <= 2:
        raise UsageError(Msg("sweep.vary_count", n=len(vary)))
    varied = [vary_values(v, MAX_SWEEP_POINTS) for v in vary]
    if len(varied) == 1:
        return SweepAsked(varied[0][0], varied[0][1], None)
    (target, texts), (target2, texts2) = varied
    if target == target2:
        raise UsageError(Msg("sweep.grid_same_field", field=target))
    if len(texts) * len(texts2) > MAX_GRID_POINTS:
        raise UsageError(Msg("sweep.grid_too_big", n=len(texts) * len(texts2), max=MAX_GRID_POINTS))
    return SweepAsked(target, texts, (target2, texts2))


# --- results -----------------------------------------------------------------------------------


def stopped_notes(result: FightResult, played: int) -> tuple[Msg, ...]:
    """A fight with no round cap stopped at the safety limit, not over: said so (one note)."""
    if result.winner is None and not result.capped and played:
        return (Msg("sim.note.safety_stop", limit=played),)
    return ()


class Fight(Struct, frozen=True):
    """One fight played (``sevendag fight``): ``to_dict()`` is its ``--json`` document."""

    result: FightResult
    seed: int | None
    changes: tuple[Change, ...] = ()
    policies: Policies = PLAIN

    @property
    def winner(self) -> str | None:
        return self.result.winner

    @property
    def notes(self) -> tuple[Msg, ...]:
        """What the fight says on stderr: stopped at the safety limit, with no round cap."""
        return stopped_notes(self.result, len(self.result.rounds))

    def to_dict(self) -> Document:
        from sevendag_cli.render.data import fight_document

        doc = with_policies(fight_document(self.result, self.seed), self.result.fighters,
                             self.policies)
        return _with_changes(doc, self.changes)


class FightInPlay:
    """One fight as it is played (:meth:`Matchup.playing`): its rounds, then the rest of its
    ``--json`` document (:meth:`rounds`, :meth:`document`), or its ``--jsonl`` lines
    (:meth:`lines`), each round made as it is read; the same documents as :class:`Fight`'s
    (``to_dict()``, the fight held whole).  Iterate one of them, once."""

    def __init__(self, play: FightPlay, choice: DiceChoice, changes: tuple[Change, ...],
                 policies: Policies) -> None:
        self.play, self.choice, self.changes, self.policies = play, choice, changes, policies

    @property
    def seed(self) -> int | None:
        return self.choice.seed

    def rounds(self) -> Iterator[Document]:
        """Each round's data (the ``rounds`` of the ``--json`` document), as it is played."""
        from sevendag_cli.render.data import round_data

        return (round_data(r) for r in self.play)

    def document(self) -> Document:
        """The ``--json`` document once :meth:`rounds` is read, its ``rounds`` left empty (the
        caller writes them in their place: ``Output.data_with_list``)."""
        doc = Fight(self.play.result(), self.seed, self.changes, self.policies).to_dict()
        return {**doc, "rounds_played": self.play.played}

    def lines(self) -> Iterator[Document]:
        """The ``--jsonl`` lines (``fight --jsonl``), the fight played as they are read."""
        from sevendag_cli.render.data import fight_event_stream

        lines = fight_event_stream(self.play, self.seed)
        first = with_policies(next(lines), self.play.fighters, self.policies)
        return itertools.chain([_with_changes(first, self.changes)], lines)


class OddsSwingResult(Struct, frozen=True):
    """One fight and how the odds swung (``sevendag fight --odds``)."""

    result: FightResult
    swing: OddsSwing
    seed: int | None
    changes: tuple[Change, ...] = ()
    policies: Policies = PLAIN

    def to_dict(self) -> Document:
        from sevendag_cli.render.data import fight_document
        from sevendag_cli.render.odds_data import swing_data

        doc = {**fight_document(self.result, self.seed), **swing_data(self.swing)}
        return _with_changes(with_policies(doc, self.result.fighters, self.policies),
                             self.changes)

    def lines(self) -> list[Document]:
        """The ``--jsonl`` lines (``fight --odds --jsonl``): the fight's, each round's end with
        the odds after it."""
        from sevendag_cli.render.data import fight_events
        from sevendag_cli.render.odds_data import with_swing_lines

        lines = with_swing_lines(fight_events(self.result, self.seed), self.swing)
        first = with_policies(lines[0], self.result.fighters, self.policies)
        return [_with_changes(first, self.changes), *lines[1:]]


class Simulation(Struct, frozen=True):
    """Simulated fights (``sevendag fight --runs N``)."""

    result: SimulationResult
    ruleset: str
    seed: int
    changes: tuple[Change, ...] = ()
    policies: Policies = PLAIN

    @property
    def notes(self) -> tuple[Msg, ...]:
        """What the simulation says on stderr: fights stopped at the safety limit (no round cap),
        or most fights reaching the round cap (draws)."""
        r = self.result
        notes = []
        if r.unfinished:
            notes.append(Msg("sim.note.unfinished", n=r.unfinished, runs=r.runs,
                             limit=r.safety_limit))
        if r.cap is not None and r.runs and r.draws * 2 > r.runs:
            notes.append(Msg("sim.note.mostly_capped", p=r.draw_probability, cap=r.cap))
        return tuple(notes)

    def to_dict(self) -> Document:
        from sevendag_cli.backend import with_extras
        from sevendag_cli.render.data import header, to_data

        doc = {**header("fight", self.ruleset, self.seed), "mode": "runs",
               **with_extras(to_data(self.result), self.result.engine)}
        names = (self.result.fighters[0].name, self.result.fighters[1].name)
        return _with_changes(with_policies(doc, names, self.policies), self.changes)


class Exact(Struct, frozen=True):
    """Exact odds (``sevendag fight --exact``); ``to_dict(lang)``: the notes in that language."""

    result: ExactFight
    ruleset: str
    changes: tuple[Change, ...] = ()
    policies: Policies = PLAIN
    exploitability: Exploitability | None = None
    """What each sheet gives away against optimal play (both on their sheets only)."""
    exploitability_skipped: Msg | None = None
    """Why :attr:`exploitability` was not computed when it was not asked for (too large a
    game for an addition to plain exact odds), and how to ask for it."""

    @checked
    def to_dict(self, lang: str = "en") -> Document:
        from sevendag_cli.render.sim_data import exact_document, exploitability_data

        names = (self.result.fighters[0].name, self.result.fighters[1].name)
        doc = with_policies(exact_document(self.ruleset, self.result, lang), names,
                             self.policies)
        doc["exploitability"] = (exploitability_data(self.exploitability)
                                 if self.exploitability is not None else None)
        doc["exploitability_skipped"] = (self.exploitability_skipped.render(lang)
                                         if self.exploitability_skipped is not None else None)
        return _with_changes(doc, self.changes)


class SweepResult(Struct, frozen=True):
    """The odds over one field's values (``sevendag sweep``), or over a grid of two fields'."""

    result: Sweep | SweepGrid
    names: tuple[str, str]
    changes: tuple[Change, ...] = ()
    policies: Policies = PLAIN

    def to_dict(self) -> Document:
        from sevendag_cli.render.sweep_data import sweep_document

        return sweep_document(self.result, self.names, self.changes, self.policies)


# --- rosters -----------------------------------------------------------------------------------


class Lineup(Struct, frozen=True):
    """A roster read (``sevendag matrix SHEETS``), what-ifs applied, before anything is played."""

    ruleset: Ruleset
    fighters: tuple[Fighter, ...]
    sources: tuple[str, ...]
    skipped: tuple[Skipped, ...]
    changes: tuple[Change, ...]
    asked: tuple[str, ...] = ()
    """Each fighter's policy asked (``--tactic NAME=optimal``; empty: every sheet);
    :attr:`policies`: those played."""

    @classmethod
    @checked
    def load(cls, sheets: Sequence[str], ruleset: str | None = None, *, set: WhatIfs = None,
             tactic: WhatIfs = None) -> Lineup:
        from sevendag_cli.rules.roster import first_sheet, read_sheets, roster_docs
        from sevendag_cli.rules.whatif import WhatIf

        what = WhatIf.parse(what_if_texts(set), what_if_texts(tactic))
        read = read_sheets(list(sheets))
        first = first_sheet(read)
        rs, source, data = pick_ruleset_doc(ruleset, [first] if first is not None else None)
        docs, skipped = roster_docs(rs, read)
        changed, fighters, changes = what.load_lineup(rs, docs, (source, data))
        asked = what.policies([f.name for f in fighters])
        return cls(changed, tuple(fighters), tuple(path for path, _ in docs), tuple(skipped),
                   changes, asked)

    @property
    def policies(self) -> tuple[str, ...]:
        """Each fighter's policy played, in the roster's order: those asked, or every sheet
        where the rules leave no choices (d20 plays its sheets whatever was asked).

        >>> Lineup.load(["Brannoc", "Ysolde"], tactic="Ysolde=optimal").policies
        ('sheet', 'optimal')
        >>> Lineup.load(["A", "B"], "d20", tactic="optimal").policies
        ('sheet', 'sheet')
        """

        return played_policies(self.ruleset, self.asked or (SHEET,) * len(self.fighters))[0]

    @property
    def policy_notes(self) -> tuple[Msg, ...]:
        """Optimal play asked of a ruleset with no choices: said once."""
        return played_policies(self.ruleset, self.asked)[1]

    @property
    def notes(self) -> tuple[Msg, ...]:
        """What-ifs that cannot change the fights, and why; optimal play where there is no
        choice to make."""
        from sevendag_cli.rules.whatif import inert_notes

        return (*inert_notes(self.ruleset, self.fighters, self.changes, self.policies),
                *self.policy_notes)

    @property
    def most_jobs(self) -> int:
        """The most worker processes worth forking: one per CPU and per matchup."""
        from sevendag_cli.sim.roster import default_jobs

        pairs = len(self.fighters) * (len(self.fighters) - 1) // 2
        return max(1, min(default_jobs(), pairs))

    @checked
    def play(self, *, runs: int | None = None, tolerance: float | None = None,
             cap: int | None = None, jobs: int | None = None, seed: int | None = None,
             progress: Callable[[int, int], None] | None = None,
             exploit: bool = False) -> Matrix:
        """Every ordered pair, exact where possible (or ``runs`` simulated fights), ranked;
        each fighter plays its policy (:attr:`policies`); ``exploit``: what each sheet gives
        away against optimal play, per cell and per fighter (from the exact game, also with
        ``runs``)."""
        from sevendag_cli.dice import fresh_seed
        from sevendag_cli.sim.roster import play_roster

        asked = check_matrix(runs=runs, tolerance=tolerance, cap=cap, jobs=jobs, seed=seed)
        n_jobs = min(asked.jobs, self.most_jobs)  # more workers than CPUs or matchups only cost memory
        seed = seed if seed is not None else fresh_seed()
        roster = play_roster(self.ruleset, self.fighters, cap=cap, tolerance=asked.tolerance, runs=runs,
                             seed=seed, jobs=n_jobs, progress=progress, sources=self.sources,
                             policies=self.policies, exploit=exploit)
        return Matrix(roster, self.skipped, self.changes)


class MatrixAsked(NamedTuple):
    """A matrix's options, checked: the tolerance of its exact cells, and the worker processes
    asked (or one per CPU, at most ``MAX_JOBS``), before :meth:`Lineup.play` caps them at the
    matchups."""

    tolerance: float
    jobs: int


def check_matrix(*, runs: int | None = None, tolerance: float | None = None, cap: int | None = None,
                 jobs: int | None = None, seed: int | None = None) -> MatrixAsked:
    """What a matrix asks, checked before any sheet is read (a usage mistake, one line): the
    numbers within their bounds, ``runs`` or ``tolerance`` (not both), the worker processes.
    :meth:`Lineup.play` checks with it; ``sevendag matrix`` calls it before it reads the sheets."""
    from sevendag_cli.sim.odds import check_tolerance
    from sevendag_cli.sim.roster import MATRIX_TOLERANCE, MAX_JOBS, check_jobs, default_jobs

    check_numbers(cap, runs, seed)
    if runs is not None and tolerance is not None:
        raise UsageError(Msg("roster.tolerance_runs"))
    tol = check_tolerance(MATRIX_TOLERANCE if tolerance is None else tolerance)
    return MatrixAsked(tol, check_jobs(jobs) if jobs is not None else min(default_jobs(), MAX_JOBS))


@checked
def matrix(sheets: Sequence[str], ruleset: str | None = None, *, runs: int | None = None,
           tolerance: float | None = None, cap: int | None = None, jobs: int | None = None,
           seed: int | None = None, set: WhatIfs = None, tactic: WhatIfs = None,
           progress: Callable[[int, int], None] | None = None, exploit: bool = False) -> Matrix:
    """A roster's round-robin (``sevendag matrix SHEETS``): names, ``.toml`` paths or folders.

    >>> m = matrix(["A", "B"], "d20", jobs=1)
    >>> sorted(m.roster.names), len(m.to_dict()["fighters"])
    (['A', 'B'], 2)
    """
    return Lineup.load(sheets, ruleset, set=set, tactic=tactic).play(
        runs=runs, tolerance=tolerance, cap=cap, jobs=jobs, seed=seed, progress=progress,
        exploit=exploit)


class Matrix(Struct, frozen=True):
    """A roster's table (``sevendag matrix``); ``to_dict(lang)``: its ``--json`` document."""

    roster: Roster
    skipped: tuple[Skipped, ...] = ()
    changes: tuple[Change, ...] = ()

    @checked
    def to_dict(self, lang: str = "en") -> Document:
        from sevendag_cli.render.matrix_data import matrix_document

        return _with_changes(matrix_document(self.roster, list(self.skipped), lang), self.changes)
