"""A third ruleset, "coin", behind :class:`sevendag_cli.backend.Backend`: tiny but real.

Each fighter has hit points (``hp``).  ``init`` rolls the initiative: each fighter a d2, again
on a tie, the higher strikes in round 1 (K-01).  From round 2 on, one d2 says who hits: 1 the
first-named fighter, 2 the other (K-02).  A hit takes 1 hp; a fighter at 0 hp loses (K-03); a
fight still going after the ruleset's ``round_cap`` rounds is a draw (K-04; no ``round_cap``:
played to the end, which always comes, within ``hp_a + hp_b - 1`` rounds).

Every die comes from the injected :class:`~sevendag_cli.dice.DiceSource` (the batch simulator
from numpy's generator, as the real rulesets'); the exact odds are those of the chain over both
fighters' hit points, in fractions (:func:`endings`).  Where coin has nothing to do (no choices
to declare or advise, no wound bands, no tactics, no techniques), it does what d20 does there:
return None, or refuse with the same message.

Nothing here is imported by the tool: ``tests/test_backend.py`` registers :data:`BACKEND` in the
registry (one line, monkeypatched) and plays it through the library and the commands.
:class:`Recorder` wraps a backend and logs every method called on it, per group, so a test can
name the methods of the protocol that no path reached.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec
from msgspec import Struct
from msgspec.structs import replace

from sevendag_cli.backend import own
from sevendag_cli.engine.common import (
    Check,
    Event,
    FightOverEvent,
    FightPlay,
    FightResult,
    InitiativeEvent,
    RecordingDice,
    RoundResult,
    WoundResult,
    over_message,
)
from sevendag_cli.errors import EncounterError, Msg, RuleError, UsageError, joined
from sevendag_cli.policies import PLAIN, Policies
from sevendag_cli.sim.exact_records import (
    ExactFight,
    Exploitability,
    FighterExact,
    Fractions,
    RoundsExact,
)
from sevendag_cli.sim.odds import COMPLETE, Odds, certified, finished
from sevendag_cli.sim.stats import MeanSd

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    from rich.text import Text

    from sevendag_cli.backend import (
        Advice,
        Aggregator,
        Ask,
        Backend,
        Band,
        Batch,
        BatchFn,
        Cell,
        Choices,
        Fighter,
        MomentOdds,
        PairSetup,
        Ruleset,
        RulesetEntries,
        SheetChange,
        State,
        StepEngine,
        Tally,
    )
    from sevendag_cli.data import Reader
    from sevendag_cli.dice import DiceSource
    from sevendag_cli.formula import Formula
    from sevendag_cli.render.rich_base import Display, RulesetDisplay, WhoAttacks

ENGINE = "coin"
MAX_HP = 1000
"""A coin sheet's hit points at most (the exact chain holds ``hp_a * hp_b`` states)."""
MAX_EXACT_CELLS = 16
"""The exact solver's states at most (``hp_a * hp_b``)."""
MAX_INITIATIVE_ATTEMPTS = 100


# --- the records -------------------------------------------------------------------------------


class CoinRuleset(Struct, frozen=True):
    name: str
    label: dict[str, str]
    path: str
    round_cap: int | None
    examples: tuple[str, ...]
    house_defaults: dict[str, str]
    rules: dict[str, str]
    engine: ClassVar[str] = ENGINE


class CoinFighter(Struct, frozen=True):
    name: str
    path: str
    hp: int
    engine: ClassVar[str] = ENGINE

    def env(self) -> dict[str, int]:
        return {"hp": self.hp}


class CoinFighterState(Struct, frozen=True, gc=False):
    json_properties: ClassVar[tuple[str, ...]] = ("defeated",)
    name: str
    hp: int
    max_hp: int

    @property
    def defeated(self) -> bool:
        return self.hp <= 0


class CoinState(Struct, frozen=True, gc=False):
    round: int
    fighters: tuple[CoinFighterState, CoinFighterState]
    next_hitter: str | None  # the initiative's winner, who strikes in round 1
    over: bool = False
    winner: str | None = None
    capped: bool = False

    def fighter(self, name: str) -> CoinFighterState:
        for f in self.fighters:
            if f.name == name:
                return f
        raise UsageError(Msg("engine.no_fighter", name=name,
                             names=joined(f.name for f in self.fighters)))


class HitEvent(Event, frozen=True, gc=False):
    """One round's hit: the coin (None in round 1, the initiative's winner strikes), the
    defender's hit points before and after."""

    kind: ClassVar[str] = "coin-hit"
    attacker: str
    defender: str
    coin: Check | None
    before: int
    after: int
    rules: tuple[str, ...]


class CoinFighterExtra(Struct, frozen=True):
    name: str
    hp_left_when_winning: MeanSd


class CoinExtras(Struct, frozen=True):
    """What coin adds to the odds of a whole fight: each fighter's hit points left when winning."""

    fighters: tuple[CoinFighterExtra, CoinFighterExtra]


# --- reading ------------------------------------------------------------------------------------


def _pair(ruleset: Ruleset, a: Fighter, b: Fighter) -> tuple[CoinRuleset, CoinFighter, CoinFighter]:
    rs, fa, fb = _rules(ruleset), _sheet(a), _sheet(b)
    return rs, fa, fb


def _rules(ruleset: object) -> CoinRuleset:
    return own(ruleset, CoinRuleset)


def _sheet(fighter: object) -> CoinFighter:
    return own(fighter, CoinFighter)


def _state(state: object) -> CoinState:
    return own(state, CoinState)


def initial_state(a: CoinFighter, b: CoinFighter) -> CoinState:
    return CoinState(0, (CoinFighterState(a.name, a.hp, a.hp), CoinFighterState(b.name, b.hp, b.hp)),
                     None)


SHEET = 'ruleset = "{ruleset}"\nname = "{name}"\nhp = {hp}   # rolled 2d4 (K-05)\n'


class _Sheets:
    def record_types(self) -> tuple[type[Ruleset], type[Fighter]]:
        return CoinRuleset, CoinFighter  # type: ignore[return-value]  # not in the unions

    def read_ruleset(self, r: Reader, name: str, source: str) -> Ruleset:
        from sevendag_cli.data import str_list, str_table
        from sevendag_cli.limits import MAX_ROUND_CAP

        cap = r.integer("round_cap", None, 1, MAX_ROUND_CAP) if r.has("round_cap") else None
        return CoinRuleset(name, r.label("label", name), source, cap,  # type: ignore[return-value]
                           tuple(str_list(r, "examples")), str_table(r, "house_defaults"),
                           str_table(r, "rules"))

    def read_fighter(self, r: Reader, source: str, ruleset: Ruleset) -> Fighter:
        name = r.text("name")
        r.text("ruleset")
        fighter = CoinFighter(name, source, r.integer("hp", None, 1, MAX_HP))
        r.finish(("notes",))
        return fighter  # type: ignore[return-value]

    def describe(self, ruleset: Ruleset) -> dict[str, object]:
        return {"coin": {"sides": 2, "damage": 1}}

    def roll_sheet(self, dice: DiceSource) -> dict[str, list[int]] | None:
        return {"hp": [dice.face(4, "hp", None), dice.face(4, "hp", None)]}  # K-05

    def sheet_template(self, ruleset: Ruleset, name: str,
                       rolled: dict[str, list[int]] | None, lang: str = "en") -> str:
        assert rolled is not None
        return SHEET.format(ruleset=ruleset.name, name=name, hp=sum(rolled["hp"]))


class _Bounds:
    def sheet_formulas(self, fighter: Fighter) -> list[Formula]:
        return []  # no formula: one d2 a round

    def check_values(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
        _pair(ruleset, a, b)  # every number is at most MAX_HP

    def endless(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> Msg | None:
        return None  # someone loses 1 hp every round

    def check_exact(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
        _, fa, fb = _pair(ruleset, a, b)
        if fa.hp * fb.hp > MAX_EXACT_CELLS:
            raise UsageError(Msg("roster.d20_cells", max=MAX_EXACT_CELLS, a=fa.name, hp_a=fa.hp,
                                 b=fb.name, hp_b=fb.hp))


class _Table:
    """Nobody chooses anything (K-02): as d20."""

    def round_choices(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State,
                      yield_: bool | None, allocate: Sequence[tuple[str, str]],
                      technique: Sequence[tuple[str, str]], ask: Ask | None) -> Choices | None:
        if yield_ is not None or allocate or technique:
            raise UsageError(Msg("cli.d20_no_choices"))
        if ask is not None:  # what is left to ask: nothing, and the terminal says so
            return ask(ruleset, a, b, state, None, {}, {})
        return None

    def prompt_choices(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State,
                       yield_: bool | None, allocation: dict[str, tuple[str, ...]],
                       technique: dict[str, str | None], lang: str,
                       only: Sequence[str] | None = None) -> Choices | None:
        return None  # nothing to ask

    def seed_replays_round(self) -> bool:
        return True

    def choices_from_data(self, data: object) -> Choices | None:
        if data is None:
            return None
        raise ValueError("a coin round has no choices")

    def classify(self, ruleset: Ruleset, amount: int) -> Band | None:
        raise UsageError(Msg("cli.classify_d20", name=ruleset.name))  # hit points, no bands

    def round_seconds(self, ruleset: Ruleset) -> int | None:
        return 6  # a round lasts six seconds (K-06)

    def advise(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State, after: str | None,
               cap: int | None, tolerance: float | None) -> tuple[Advice, float]:
        raise UsageError(Msg("advise.d20"))  # nothing to advise on


# --- the step engine ---------------------------------------------------------------------------


def _initiative(a: CoinFighter, b: CoinFighter, dice: DiceSource) -> InitiativeEvent:
    """K-01: each a d2, again on a tie."""
    attempts: list[tuple[Check, Check]] = []
    for _ in range(MAX_INITIATIVE_ATTEMPTS):
        ca, cb = (_d2(dice, "initiative", f.name) for f in (a, b))
        attempts.append((ca, cb))
        if ca.total != cb.total:
            leader, other = (a, b) if ca.total > cb.total else (b, a)
            return InitiativeEvent(tuple(attempts), leader.name, other.name, ("K-01",))
    raise RuleError(Msg("engine.d20.initiative_ties", n=MAX_INITIATIVE_ATTEMPTS))


def _d2(dice: DiceSource, purpose: str, fighter: str) -> Check:
    from sevendag_cli.dice import Roll

    face = dice.face(2, purpose, fighter)
    return Check(purpose, fighter, "1d2", (Roll(purpose, 2, face, fighter),), face)


def _round(rs: CoinRuleset, a: CoinFighter, b: CoinFighter, state: CoinState, dice: DiceSource,
           cap: int | None) -> tuple[RoundResult, CoinState]:
    if state.over:
        raise EncounterError(over_message(state.winner))
    rec = RecordingDice(dice)
    number = state.round + 1
    coin: Check | None = None
    if state.next_hitter is not None:
        hitter = state.next_hitter
    else:
        coin = _d2(rec, "coin", a.name)
        hitter = a.name if coin.total == 1 else b.name
    defender = b.name if hitter == a.name else a.name
    before = state.fighter(defender).hp
    fighters = tuple(replace(f, hp=f.hp - 1) if f.name == defender else f for f in state.fighters)
    events: list[Event] = [HitEvent(hitter, defender, coin, before, before - 1,
                                    ("K-02", "K-03") if coin is not None else ("K-01", "K-03"))]
    over, winner, capped = False, None, False
    if before - 1 <= 0:
        over, winner = True, hitter
        events.append(FightOverEvent(hitter, defender, "defeated", ("K-03",)))
    elif cap is not None and number >= cap:
        over, capped = True, True
        events.append(FightOverEvent(None, None, "round-cap", ("K-04",)))
    new = CoinState(number, (fighters[0], fighters[1]), None, over, winner, capped)
    return RoundResult(number, tuple(events), rec.take(), new.fighters, over, winner,
                       None, capped), new


def _by_hand(rs: CoinRuleset, a: CoinFighter, b: CoinFighter, state: CoinState, fighter: str,
             amount: int | None, band: str | None, sign: int) -> tuple[WoundResult, CoinState]:
    if band is not None or amount is None:
        raise UsageError(Msg("cli.classify_d20", name=rs.name))
    if state.over:
        raise EncounterError(over_message(state.winner))
    target = state.fighter(fighter)
    hp = max(0, min(target.max_hp, target.hp - sign * amount))
    fighters = tuple(replace(f, hp=hp) if f.name == fighter else f for f in state.fighters)
    over = hp == 0
    winner = (a.name if fighter == b.name else b.name) if over else None
    new = replace(state, fighters=(fighters[0], fighters[1]), over=over, winner=winner)
    events: tuple[Event, ...] = (FightOverEvent(winner, fighter, "defeated", ("K-03",)),) if over else ()
    return WoundResult(fighter, amount, None, events, new.fighters, over, winner), new


class CoinStepEngine:
    def start(self, ruleset: Ruleset, a: Fighter, b: Fighter,
              dice: DiceSource) -> tuple[InitiativeEvent, State]:
        _, fa, fb = _pair(ruleset, a, b)
        init = _initiative(fa, fb, dice)
        return init, replace(initial_state(fa, fb), next_hitter=init.leader)  # type: ignore[return-value]

    def play_round(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State, dice: DiceSource,
                   choices: Choices | None = None) -> tuple[RoundResult, State]:
        rs, fa, fb = _pair(ruleset, a, b)
        return _round(rs, fa, fb, _state(state), dice, rs.round_cap)  # type: ignore[return-value]

    def apply_wound(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State, fighter: str,
                    amount: int | None = None, band: str | None = None) -> tuple[WoundResult, State]:
        return _by_hand(*_pair(ruleset, a, b), _state(state), fighter, amount, band, 1)  # type: ignore[return-value]

    def apply_heal(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State, fighter: str,
                   amount: int | None = None, band: str | None = None) -> tuple[WoundResult, State]:
        return _by_hand(*_pair(ruleset, a, b), _state(state), fighter, amount, band, -1)  # type: ignore[return-value]

    def fight(self, ruleset: Ruleset, a: Fighter, b: Fighter, dice: DiceSource,
              cap: int | None = None) -> FightResult:
        return self.fight_play(ruleset, a, b, dice, cap).collect()

    def fight_play(self, ruleset: Ruleset, a: Fighter, b: Fighter, dice: DiceSource,
                   cap: int | None = None, policies: Policies = PLAIN) -> FightPlay:
        rs, fa, fb = _pair(ruleset, a, b)
        rec = RecordingDice(dice)
        init = _initiative(fa, fb, rec)
        state = replace(initial_state(fa, fb), next_hitter=init.leader)
        limit = rs.round_cap if cap is None else cap
        return FightPlay(rs.name, (fa.name, fb.name), init, rec.take(), state,
                         lambda s: _round(rs, fa, fb, s, dice, limit))

    def fight_states(self, ruleset: Ruleset, a: Fighter, b: Fighter,
                     result: FightResult) -> list[State]:
        _, fa, fb = _pair(ruleset, a, b)
        states: list[Any] = [replace(initial_state(fa, fb), next_hitter=result.initiative.leader)]
        for r in result.rounds:
            states.append(CoinState(r.number, (r.states[0], r.states[1]), None, r.over, r.winner,
                                    r.capped))
        return states

    def state_to_data(self, state: State) -> dict[str, object]:
        return msgspec.to_builtins(_state(state))  # type: ignore[no-any-return]

    def state_from_data(self, data: object) -> State:
        try:
            return msgspec.convert(data, CoinState)  # type: ignore[return-value]
        except msgspec.ValidationError as exc:
            raise EncounterError(Msg("engine.state.shape", error=exc)) from None

    def fighter_states(self, state: State) -> tuple[Any, ...]:
        return _state(state).fighters

    def check_state(self, ruleset: Ruleset, fighters: tuple[Fighter, Fighter], state: State) -> None:
        from sevendag_cli.engine.common import state_invalid

        s = _state(state)
        for f, sheet in zip(s.fighters, fighters, strict=True):
            if f.name != sheet.name:
                raise state_invalid("name", f.name, Msg("engine.state.want.sheet_name", n=1,
                                                        name=sheet.name))
            if f.max_hp != _sheet(sheet).hp:
                raise state_invalid("max_hp", f.max_hp, Msg("engine.state.want.max_hp", hp=f.max_hp))
            if not 0 <= f.hp <= f.max_hp:
                raise state_invalid("hp", f.hp, Msg("engine.state.want.hp_max", max=f.max_hp))


STEP_ENGINE = CoinStepEngine()


# --- the odds -----------------------------------------------------------------------------------

Ending = tuple[int, int, int]
"""(winner: 0, 1 or -1 for a draw at the cap; the round it ends; the winner's hit points left)."""


def endings(hp_a: int, hp_b: int, played: int, cap: int | None,
            first: int | None) -> dict[Ending, Fraction]:
    """Every way the fight from these hit points ends, with its probability: the mass pushed
    round by round (``first``: who strikes in the next round, None: the coin, K-02)."""
    mass: dict[tuple[int, int], Fraction] = {(hp_a, hp_b): Fraction(1)}
    out: dict[Ending, Fraction] = defaultdict(Fraction)
    r = played
    while mass:
        r += 1
        new: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
        for (x, y), p in mass.items():
            for who, q in ([(first, p)] if first is not None else [(0, p / 2), (1, p / 2)]):
                nx, ny = (x, y - 1) if who == 0 else (x - 1, y)
                if ny == 0:
                    out[(0, r, nx)] += q
                elif nx == 0:
                    out[(1, r, ny)] += q
                elif cap is not None and r >= cap:
                    out[(-1, r, 0)] += q
                else:
                    new[(nx, ny)] += q
        first = None
        mass = new
    return dict(out)


def from_start(hp_a: int, hp_b: int, cap: int | None) -> dict[tuple[int, Ending], Fraction]:
    """The fight's endings by who won the initiative (K-01: each half)."""
    out: dict[tuple[int, Ending], Fraction] = {}
    for first in (0, 1):
        for e, p in endings(hp_a, hp_b, 0, cap, first).items():
            out[(first, e)] = p / 2
    return out


def _odds(names: tuple[str, str], ends: dict[Ending, Fraction]) -> Odds:
    win = [sum((p for (w, _, _), p in ends.items() if w == i), Fraction(0)) for i in (0, 1, -1)]
    rounds = max((r for (_, r, _) in ends), default=0)
    return certified(names, float(win[0]), float(win[1]), float(win[2]), 0.0, rounds, COMPLETE)


def _rounds_mean(ends: dict[Ending, Fraction]) -> Fraction:
    return sum((r * p for (_, r, _), p in ends.items()), Fraction(0))


class _MomentOdds:
    def __init__(self, names: tuple[str, str], used_kept: bool) -> None:
        self.names = names
        self.used_kept = used_kept

    def odds(self, state: State, cap: int | None, tolerance: float) -> Odds:
        s = _state(state)
        if s.over:
            return finished(self.names, None if s.winner is None else self.names.index(s.winner))
        first = None if s.next_hitter is None else self.names.index(s.next_hitter)
        return _odds(self.names, endings(s.fighters[0].hp, s.fighters[1].hp, s.round, cap, first))

    def keep(self, tolerance: float) -> bytes:
        return msgspec.msgpack.encode(self.names)  # nothing to build: the names say it is this pair


class _Exact:
    def exact_fight(self, ruleset: Ruleset, a: Fighter, b: Fighter, *, cap: int | None,
                    tolerance: float, fractions: bool | None, policies: Policies = PLAIN,
                    progress: Callable[[int, int], None] | None = None) -> ExactFight:
        from sevendag_cli.sim.exact_fight import rank

        rs, fa, fb = _pair(ruleset, a, b)
        cap = rs.round_cap if cap is None else cap
        names = (fa.name, fb.name)
        ends = from_start(fa.hp, fb.hp, cap)
        flat: dict[Ending, Fraction] = defaultdict(Fraction)
        for (_, e), p in ends.items():
            flat[e] += p
        odds = _odds(names, flat)
        first_won = [float(sum((p for (f, (w, _, _)), p in ends.items() if f == w == i), Fraction(0)))
                     for i in (0, 1)]
        decided = odds.win[0] + odds.win[1]
        hist: dict[int, Fraction] = defaultdict(Fraction)
        for (_, r, _), p in flat.items():
            hist[r] += p
        pairs = [(r, float(p)) for r, p in sorted(hist.items())]
        mean = _rounds_mean(flat)
        second = sum((r * r * p for r, p in hist.items()), Fraction(0))
        sd = math.sqrt(float(second - mean * mean))
        rounds = RoundsExact(float(mean), (float(mean), float(mean)), sd, rank(pairs, 0.0, 0.5),
                             rank(pairs, 0.0, 0.9), tuple(pairs), 0.0)
        fighters = tuple(FighterExact(names[i], odds.win[i], odds.win_bounds[i], 0.5, first_won[i])
                         for i in (0, 1))
        exact: Fractions | None = None
        if fractions is not False:  # the fight played to the end: a few fractions, always cheap
            end = from_start_flat(fa.hp, fb.hp)
            if progress is not None:
                progress(1, 1)
            exact = Fractions((sum((p for (w, _, _), p in end.items() if w == 0), Fraction(0)),
                               sum((p for (w, _, _), p in end.items() if w == 1), Fraction(0))),
                              Fraction(0), _rounds_mean(end))
        return ExactFight(rs.name, ENGINE, cap, tolerance, COMPLETE, (fighters[0], fighters[1]),
                          odds.draw, odds.draw_bounds, odds.unresolved, rounds,
                          (first_won[0] + first_won[1]) / decided if decided else None, exact,
                          None, Msg("exact.note.d20_end", cap=cap) if cap is None
                          else Msg("exact.note.d20", cap=cap), _extras(names, flat))

    def start_odds(self, ruleset: Ruleset, a: Fighter, b: Fighter, cap: int | None,
                   tolerance: float) -> tuple[tuple[str, str], Odds, float] | None:
        rs, fa, fb = _pair(ruleset, a, b)
        flat = from_start_flat(fa.hp, fb.hp, rs.round_cap if cap is None else cap)
        return (fa.name, fb.name), _odds((fa.name, fb.name), flat), float(_rounds_mean(flat))

    def moment_odds(self, ruleset: Ruleset, a: Fighter, b: Fighter, kept: bytes | None,
                    tolerance: float, policies: Policies = PLAIN,
                    cap: int | None = None) -> MomentOdds:
        _, fa, fb = _pair(ruleset, a, b)
        names = (fa.name, fb.name)
        return _MomentOdds(names, kept == msgspec.msgpack.encode(names))

    def assumptions(self, policies: Policies = PLAIN,
                    fighters: Sequence[Fighter] = ()) -> tuple[str, ...]:
        from sevendag_cli.sim.swing import DRAW_AT_CAP

        return (DRAW_AT_CAP,)  # no choices

    def sheets_note(self) -> Msg:
        return Msg("exact.assume.d20")  # the rounds as round plays them: no choices

    def exploitability(self, ruleset: Ruleset, a: Fighter, b: Fighter, *, cap: int | None,
                       tolerance: float, sheet: Odds | None = None,
                       asked: bool = True) -> Exploitability | Msg:
        value = sheet if sheet is not None else self.exact_fight(
            ruleset, a, b, cap=cap, tolerance=tolerance, fractions=False).odds
        own = (value.win[0] + value.draw / 2, value.win[1] + value.draw / 2)
        return Exploitability((a.name, b.name), (0.0, 0.0), ((0.0, 0.0), (0.0, 0.0)),
                              (own[1], own[0]), own, tolerance)


def from_start_flat(hp_a: int, hp_b: int, cap: int | None = None) -> dict[Ending, Fraction]:
    flat: dict[Ending, Fraction] = defaultdict(Fraction)
    for (_, e), p in from_start(hp_a, hp_b, cap).items():
        flat[e] += p
    return dict(flat)


def _extras(names: tuple[str, str], flat: dict[Ending, Fraction]) -> CoinExtras:
    def one(i: int) -> CoinFighterExtra:
        won = {h: p for (w, _, h), p in flat.items() if w == i}
        total = sum(won.values(), Fraction(0))
        if not total:
            return CoinFighterExtra(names[i], MeanSd(0.0, 0.0))
        mean = sum((h * p for h, p in won.items()), Fraction(0)) / total
        var = sum((h * h * p for h, p in won.items()), Fraction(0)) / total - mean * mean
        return CoinFighterExtra(names[i], MeanSd(float(mean), math.sqrt(float(var))))

    return CoinExtras((one(0), one(1)))


# --- the batch simulator ------------------------------------------------------------------------


@dataclass(frozen=True)
class CoinBatch:
    winner: npt.NDArray[np.int8]
    rounds: npt.NDArray[np.int64]
    first_striker: npt.NDArray[np.int8]
    hp_a: npt.NDArray[np.int64]
    hp_b: npt.NDArray[np.int64]


class _Batches:
    def __init__(self, a: CoinFighter, b: CoinFighter) -> None:
        self.hp = (a.hp, b.hp)

    def __call__(self, n: int, rng: np.random.Generator, cap: int) -> Batch:
        import numpy as np

        ha = np.full(n, self.hp[0], dtype=np.int64)
        hb = np.full(n, self.hp[1], dtype=np.int64)
        first = rng.integers(0, 2, n).astype(np.int8)  # K-01
        winner = np.full(n, -1, dtype=np.int8)
        rounds = np.zeros(n, dtype=np.int64)
        alive = np.ones(n, dtype=bool)
        for r in range(1, cap + 1):
            if not alive.any():
                break
            hitter = first if r == 1 else rng.integers(0, 2, n)  # K-02
            hb -= alive & (hitter == 0)
            ha -= alive & (hitter == 1)
            rounds[alive] = r
            winner[alive & (hb == 0)] = 0
            winner[alive & (ha == 0)] = 1
            alive &= (ha > 0) & (hb > 0)
        return CoinBatch(winner, rounds, first, ha, hb)


class CoinAggregator:
    def __init__(self, names: tuple[str, str]) -> None:
        self.names = names

    def tally(self, batch: Batch) -> Tally:
        import numpy as np

        from sevendag_cli.sim.runner import moments

        assert isinstance(batch, CoinBatch)
        t: Tally = {}
        t.update(moments("hp_left0", batch.hp_a[batch.winner == 0]))
        t.update(moments("hp_left1", batch.hp_b[np.asarray(batch.winner) == 1]))
        return t

    def result(self, totals: Tally, runs: int) -> CoinExtras:
        from sevendag_cli.sim.runner import mean_sd

        return CoinExtras(tuple(CoinFighterExtra(self.names[i], mean_sd(totals, f"hp_left{i}"))  # type: ignore[arg-type]
                                for i in (0, 1)))


class _Sim:
    def check_batch(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
        _pair(ruleset, a, b)

    def batch(self, ruleset: Ruleset, a: Fighter, b: Fighter,
              policies: Policies = PLAIN) -> tuple[BatchFn, Aggregator]:
        _, fa, fb = _pair(ruleset, a, b)
        return _Batches(fa, fb), CoinAggregator((fa.name, fb.name))


# --- a roster, the what-ifs ----------------------------------------------------------------------


class _Roster:
    def matrix_pair(self, setup: PairSetup, i: int, j: int, cache: dict[int, object],
                    solved: Callable[[int, int, Callable[[], Odds]], Cell],
                    fallen: Callable[[int, int, UsageError], Cell]) -> tuple[Cell, Cell]:
        _rules(setup.ruleset)
        a, b = _sheet(setup.fighters[i]), _sheet(setup.fighters[j])
        cap = setup.cap

        def odds(x: CoinFighter, y: CoinFighter) -> Odds:
            return _odds((x.name, y.name), from_start_flat(x.hp, y.hp, cap))

        if a.hp * b.hp > MAX_EXACT_CELLS:
            exc = UsageError(Msg("roster.d20_cells", max=MAX_EXACT_CELLS, a=a.name, hp_a=a.hp,
                                 b=b.name, hp_b=b.hp))
            return fallen(i, j, exc), fallen(j, i, exc)
        return solved(i, j, lambda: odds(a, b)), solved(j, i, lambda: odds(b, a))

    def solver_limits(self) -> frozenset[str]:
        return frozenset({"roster.d20_cells"})

    def refused_alike(self, policies: tuple[str, str]) -> frozenset[str]:
        return frozenset()

    def pair_cost(self, a: Fighter, b: Fighter) -> int:
        return _sheet(a).hp * _sheet(b).hp

    def warm_modules(self) -> tuple[str, ...]:
        return ("fractions",)


class _WhatIf:
    def tactics(self, typed: str) -> tuple[str, ...]:
        raise UsageError(Msg("whatif.tactic_d20", typed=typed))  # a coin sheet has no tactic

    def ruleset_entries(self, ruleset: Ruleset, table: str) -> RulesetEntries:
        return {}

    def inert_notes(self, ruleset: Ruleset, fighters: Sequence[Fighter],
                    changes: Sequence[SheetChange], policies: Sequence[str] = ("sheet", "sheet"),
                    state: State | None = None) -> list[Msg]:
        return []  # every field of a coin sheet counts

    def saved_state_notes(self, ruleset: Ruleset, changes: Sequence[SheetChange]) -> list[Msg]:
        """``hp``: the encounter keeps each fighter's hit points (as d20)."""
        return [Msg("whatif.saved_hp", name=c.fighter) for c in changes if c.field == "hp"]


# --- the display ---------------------------------------------------------------------------------


def _hit(r: Display, ev: HitEvent) -> None:
    from rich.text import Text

    from sevendag_cli.render.rich_base import check_text, rules_text

    parts: list[Text | str] = [Text(f"{ev.attacker} hits {ev.defender}", "bold magenta")]
    if ev.coin is not None:
        parts += [" (coin: ", check_text(ev.coin, r.lang), ")"]
    parts.append(f": {ev.before} → {ev.after} {r.tr('hp')}")
    r.line(*parts, rules_text(ev.rules))


def _state_text(r: Display, s: CoinFighterState) -> Text:
    from rich.text import Text

    return Text(f"{s.hp}/{s.max_hp} {r.tr('hp')}")


def _who_attacks(state: CoinState) -> WhoAttacks:
    if state.next_hitter is not None:
        return "status.next", {"name": state.next_hitter}, "bold magenta", ("K-01",)
    return "status.initiative_each", {}, "magenta", ("K-02",)


def _status_rows(r: Any, name: Text, s: CoinFighterState, sheet: object) -> list[tuple[Text, Text]]:
    from rich.text import Text

    return [(name, Text(r.tr("status.hp", hp=s.hp, max=s.max_hp)))]


def _extras_table(console: Any, fighters: Sequence[Any], extras: CoinExtras, lang: str,
                  ruleset: object) -> None:
    from sevendag_cli.render.rich_sim import sim_table, w

    rows: list[list[Text | str]] = [
        [f.name, w(lang, "mean_sd", mean=ex.hp_left_when_winning.mean, sd=ex.hp_left_when_winning.sd)]
        for f, ex in zip(fighters, extras.fighters, strict=True)]
    console.print(sim_table([w(lang, "fighter"), w(lang, "hp")], rows))


def _display() -> RulesetDisplay:
    from sevendag_cli.render.rich_base import RulesetDisplay

    return RulesetDisplay(lambda r: {"coin-hit": lambda ev: _hit(r, ev)}, _state_text, "leads",
                          _who_attacks, _status_rows, extras_table=_extras_table)


# --- the backend -----------------------------------------------------------------------------------


class CoinBackend:
    sheets = _Sheets()
    bounds = _Bounds()
    table = _Table()
    sim = _Sim()
    exact = _Exact()
    roster = _Roster()
    whatif = _WhatIf()

    def has_choices(self) -> bool:
        return False

    def engine(self) -> StepEngine:
        return STEP_ENGINE

    def display(self) -> RulesetDisplay:
        return _display()


BACKEND: Backend = CoinBackend()


# --- recording what is asked ---------------------------------------------------------------------


Calls = set[tuple[str, str]]
"""(the protocol, the method): ``("Backend", "name")``, ``("Table", "advise")``..."""


class _Logged:
    """Calls every attribute of ``inner`` through, logging ``(protocol, name)``; what a method
    gives that is itself a protocol (``engine()``'s step engine, ``batch()``'s aggregator,
    ``moment_odds()``) is logged too, under its own protocol."""

    def __init__(self, inner: object, protocol: str, calls: Calls,
                 gives: dict[str, str] | None = None) -> None:
        self._inner, self._protocol, self._calls, self._gives = inner, protocol, calls, gives or {}

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        self._calls.add((self._protocol, name))
        if not callable(value):
            return value
        given = self._gives.get(name)

        def call(*args: Any, **kwargs: Any) -> Any:
            out = value(*args, **kwargs)
            if given == "Aggregator":
                return out[0], _Logged(out[1], given, self._calls)
            return _Logged(out, given, self._calls) if given is not None else out

        return call


class Recorder:
    """:data:`BACKEND` behind a log of what is asked of it (:attr:`calls`)."""

    def __init__(self, inner: Any = BACKEND) -> None:
        from sevendag_cli.backend import GROUPS

        self.calls: Calls = set()
        self._inner = inner
        gives = {"exact": {"moment_odds": "MomentOdds"}, "sim": {"batch": "Aggregator"}}
        self._groups = {attr: _Logged(getattr(inner, attr), protocol.__name__, self.calls,
                                      gives.get(attr))
                        for attr, protocol in GROUPS.items()}

    def __getattr__(self, name: str) -> Any:  # the groups: ``sheets``, ``bounds``...
        groups = self.__dict__.get("_groups", {})
        if name not in groups:
            raise AttributeError(name)
        self.calls.add(("Backend", name))
        return groups[name]

    def has_choices(self) -> bool:
        self.calls.add(("Backend", "has_choices"))
        return bool(self._inner.has_choices())

    def engine(self) -> Any:
        self.calls.add(("Backend", "engine"))
        return _Logged(self._inner.engine(), "StepEngine", self.calls)

    def display(self) -> Any:
        self.calls.add(("Backend", "display"))
        return self._inner.display()
