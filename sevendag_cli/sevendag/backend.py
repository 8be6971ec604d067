"""Sevendag behind the :class:`~sevendag_cli.backend.Backend` interface.

Importing this module costs nothing: each method imports what it uses (the rules,
the step engine, numpy for the simulator and the chain, Rich for the display) when
it is called.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

from sevendag_cli.errors import Msg, SevendagError, UsageError
from sevendag_cli.policies import OPTIMAL, PLAIN, SHEET, Policies

if TYPE_CHECKING:
    import numpy as np

    from sevendag_cli.backend import (
        Aggregator,
        Ask,
        Backend,
        Batch,
        BatchFn,
        Cell,
        Fighter,
        MomentOdds,
        PairSetup,
        Ruleset,
        RulesetEntries,
        SheetChange,
        State,
        StepEngine,
    )
    from sevendag_cli.data import Reader
    from sevendag_cli.dice import DiceSource
    from sevendag_cli.formula import Formula
    from sevendag_cli.render.rich_base import RulesetDisplay
    from sevendag_cli.sevendag.advised import Advice
    from sevendag_cli.sevendag.chain import Lookup, SevendagChain
    from sevendag_cli.sevendag.model import FighterModel
    from sevendag_cli.sevendag.planning import Choices
    from sevendag_cli.sevendag.policy import PolicyBatch, PolicyMomentOdds
    from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset, WoundBand
    from sevendag_cli.sevendag.state import SevendagState
    from sevendag_cli.sim.exact_records import ExactFight, Exploitability
    from sevendag_cli.sim.odds import Odds

SHEET_TEMPLATE = """\
# A Sevendag fighter sheet.
ruleset = "{ruleset}"
name = "{name}"
speed = 2      # speed roll = formulas.speed_roll of the ruleset (S-02)
attack = 6     # attack constant (S-06)
defence = 5    # defence constant (S-06)
tactic = "weapons-attack"   # weapons-attack | all-out | full-defence | custom (+ allocation)
{rules}
[[hands]]
die = 10
holds = "weapon"
[[hands]]
die = 8
holds = "shield"   # or "" for an empty hand

[items.weapon]
kind = "weapon"
label = "sword"
hands = 1          # 2 for a two-handed weapon held by both hands
metal = "{metal}"  # one of: {metals}
skill = 12         # drop check: d20 above this drops the weapon (S-10)

[items.shield]
kind = "shield"
label = "shield"
"""


def _optional_rules(rs: SevendagRuleset, lang: str) -> str:
    """``new``'s commented-out ``technique`` (the ruleset's first technique; none when it has
    none) and ``yield`` lines, each under a line saying what it does, in ``lang``."""
    from sevendag_cli.i18n import t
    from sevendag_cli.text import toml_basic

    lines = []
    techniques = list(rs.techniques)
    if techniques:
        lines += ["# " + t("new.sev.technique", lang, techniques=", ".join(techniques)),
                  f'# technique = {{ name = "{toml_basic(techniques[0])}", when = "attacking" }}']
    lines += ["# " + t("new.sev.yield", lang), '# yield = "behind"']
    return "".join(line + "\n" for line in lines)


def _pair(ruleset: Ruleset, a: Fighter,
          b: Fighter) -> tuple[SevendagRuleset, SevendagFighter, SevendagFighter] | None:
    """The three as Sevendag records, or None if a sheet is not a Sevendag one."""
    from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset

    if (isinstance(ruleset, SevendagRuleset) and isinstance(a, SevendagFighter)
            and isinstance(b, SevendagFighter)):
        return ruleset, a, b
    return None


def _sev(ruleset: Ruleset, a: Fighter,
         b: Fighter) -> tuple[SevendagRuleset, SevendagFighter, SevendagFighter]:
    """The three as Sevendag records (a sheet of another ruleset: one line)."""
    return _rules(ruleset), _sheet(a), _sheet(b)


def _rules(ruleset: Ruleset) -> SevendagRuleset:
    from sevendag_cli.backend import own
    from sevendag_cli.sevendag.rules import SevendagRuleset

    return own(ruleset, SevendagRuleset)


def _sheet(fighter: Fighter) -> SevendagFighter:
    from sevendag_cli.backend import own
    from sevendag_cli.sevendag.rules import SevendagFighter

    return own(fighter, SevendagFighter)


def _state(state: State) -> SevendagState:
    from sevendag_cli.backend import own
    from sevendag_cli.sevendag.state import SevendagState

    return own(state, SevendagState)


def technique_key(rs: SevendagRuleset, text: str, name: str = "") -> str:
    """A technique as typed (``--technique NAME=TEXT``): its key, a label in either language,
    or an unambiguous short form of them (``garde``); an ambiguous one is refused naming the
    candidates, one that matches none is refused naming the closest (``fient``: did you mean
    feint?) and every technique, both usage mistakes (exit 2; S-05)."""
    from sevendag_cli.errors import joined
    from sevendag_cli.sevendag.planning import technique_names

    found: list[str] = rs.technique_candidates(text)
    if len(found) > 1:
        raise UsageError(Msg("cli.ambiguous_technique", value=text, candidates=joined(
            (Msg.label(rs.techniques[k].label, k) for k in found), "or")))
    if found:
        return found[0]
    close = closest_technique(rs, text)
    known = technique_names(rs)
    if close is None:
        raise UsageError(Msg("cli.unknown_technique", name=name, value=text, known=known))
    raise UsageError(Msg("cli.unknown_technique_close", name=name, value=text, known=known,
                         close=Msg.label(rs.techniques[close].label, close)))


def closest_technique(rs: SevendagRuleset, text: str) -> str | None:
    """The technique most like ``text`` (a typo of its key or of a label in either language)."""
    import difflib

    from sevendag_cli.terms import fold

    spellings = {fold(word): key for key, tech in rs.techniques.items()
                 for word in (key, *tech.label.values())}
    found = difflib.get_close_matches(fold(text), list(spellings), n=1)
    return spellings[found[0]] if found else None


class _MomentOdds:
    """The odds of any state of one Sevendag pair: its chain, and the kept odds of every state."""

    def __init__(self, chain: SevendagChain, lookup: Lookup | None) -> None:
        self.chain = chain
        self.lookup = lookup  # the kept odds of every state, indexed (or None)
        self.used_kept = lookup is not None

    def odds(self, state: State, cap: int | None, tolerance: float) -> Odds:
        return self.chain.odds(_state(state), cap, tolerance, lookup=self.lookup)  # None: the ruleset's

    def keep(self, tolerance: float) -> bytes:
        chain = self.chain
        if self.lookup is None:
            from sevendag_cli.sevendag.push import chain_table

            starts = [chain.state_id(chain.start_key(0)), chain.state_id(chain.start_key(1))]
            self.lookup = chain.lookup(chain_table(chain, starts, tolerance))
        assert self.lookup is not None  # the chain's own table
        kept: bytes = self.lookup.table.to_bytes()
        return kept


class _PolicyMoment:
    """The odds of any state of one Sevendag pair under policies (:class:`.policy.PolicyMomentOdds`)."""

    def __init__(self, inner: PolicyMomentOdds) -> None:
        self.inner = inner

    @property
    def used_kept(self) -> bool:
        return self.inner.used_kept

    def odds(self, state: State, cap: int | None, tolerance: float) -> Odds:
        return self.inner.odds(_state(state), cap, tolerance)

    def keep(self, tolerance: float) -> bytes:
        return self.inner.keep(tolerance)


class _Batches:
    """The pair's batch function: drawn from the pair's chain where it fits, every die rolled
    otherwise (:mod:`~sevendag_cli.sevendag.sampled`)."""

    def __init__(self, ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter) -> None:
        from sevendag_cli.sevendag.sampled import SevendagBatches

        self.pair = (ruleset, a, b)
        self.fn = SevendagBatches()

    def __call__(self, n: int, rng: np.random.Generator, cap: int) -> Batch:
        return cast("Batch", self.fn(*self.pair, n, rng, cap))  # a SevendagBatch or SevendagSample


class _PolicyBatches:
    """The pair's batch function under policies (or with a sheet's rules): fights sampled from
    the game's played rows (:class:`.policy.PolicyBatch`)."""

    def __init__(self, fn: PolicyBatch) -> None:
        self.fn = fn

    def __call__(self, n: int, rng: np.random.Generator, cap: int) -> Batch:
        return self.fn(self.fn.ruleset, self.fn.a, self.fn.b, n, rng, cap)


def exact_odds(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter, cap: int,
               tolerance: float, models: tuple[FighterModel, FighterModel] | None = None) -> Odds:
    """``fight --exact``'s odds of a pair (the same push from the same starts, S-02)."""
    from sevendag_cli.sevendag.chain import SevendagChain
    from sevendag_cli.sevendag.exact import initiative_probability
    from sevendag_cli.sevendag.model import check_plain
    from sevendag_cli.sevendag.push import chain_push

    check_plain(a, b)  # the chain assumes no yield and no new technique
    chain = SevendagChain(ruleset, a, b, models)
    p_a = initiative_probability(ruleset, a, b)
    starts = [(chain.state_id(chain.start_key(0)), float(p_a)),
              (chain.state_id(chain.start_key(1)), float(1 - p_a))]
    push, _ = chain_push(chain, starts, cap, tolerance)
    odds = push.odds(chain.names, cap, len(push.alive))
    if odds.stop == "work" and odds.unresolved > tolerance:  # simulated instead (no ranking from it)
        raise UsageError(Msg("exact.unresolved", unresolved=odds.unresolved, tolerance=tolerance))
    return odds


class _Sheets:
    """Reading Sevendag rulesets and sheets; ``rulesets show``, ``new``."""

    def record_types(self) -> tuple[type[SevendagRuleset], type[SevendagFighter]]:
        from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset

        return SevendagRuleset, SevendagFighter

    def read_ruleset(self, r: Reader, name: str, source: str) -> Ruleset:
        from sevendag_cli.sevendag import rules

        return rules.read_ruleset(r, name, source)

    def read_fighter(self, r: Reader, source: str, ruleset: Ruleset) -> Fighter:
        from sevendag_cli.sevendag import rules

        return rules.read_fighter(r, source, cast("SevendagRuleset", ruleset))

    def describe(self, ruleset: Ruleset) -> dict[str, object]:
        from msgspec import structs

        from sevendag_cli.sevendag.rules import SevendagRuleset

        if not isinstance(ruleset, SevendagRuleset):
            return {}
        return {"wounds": [structs.asdict(w) for w in ruleset.wounds],
                "metals": {k: structs.asdict(m) for k, m in ruleset.metals.items()},
                "techniques": {k: structs.asdict(t) for k, t in ruleset.techniques.items()}}

    def roll_sheet(self, dice: DiceSource) -> dict[str, list[int]] | None:
        return None  # nothing rolled, no seed

    def sheet_template(self, ruleset: Ruleset, name: str,
                       rolled: dict[str, list[int]] | None, lang: str = "en") -> str:
        """The sheet's optional rules (S-03 ``yield``, S-05 ``technique``) shown commented out,
        each with a line saying what it does in ``lang``: uncommented, the sheet still reads."""
        from sevendag_cli.text import toml_basic, visible

        rs = _rules(ruleset)
        metals = list(rs.metals)
        return SHEET_TEMPLATE.format(ruleset=toml_basic(ruleset.name), name=name,
                                     metal=toml_basic(metals[0]),
                                     metals=visible(", ".join(metals)),
                                     rules=_optional_rules(rs, lang))


class _Bounds:
    """What a Sevendag pair's numbers can reach: sheet values and dice, all bounded."""

    def sheet_formulas(self, fighter: Fighter) -> list[Formula]:
        return []  # a Sevendag sheet holds numbers and dice sizes, no formula

    def check_values(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
        return  # every number comes from bounded sheet values and dice

    def endless(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> Msg | None:
        """Nothing takes a fighter out, or neither ever attacks."""
        pair = _pair(ruleset, a, b)
        if pair is None:
            return None
        rs = pair[0]
        if not any(band.out_after for band in rs.wounds):
            return Msg("rules.endless_no_out", a=a.name, b=b.name)
        from sevendag_cli.sevendag.planning import ATTACK, allocation_for

        if not any(ATTACK in allocation_for(f, None) for f in pair[1:]):
            return Msg("rules.endless_no_attack", a=a.name, b=b.name)
        return None

    def check_exact(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
        return  # the chain's own limits are checked as it is built


class _Table:
    """A Sevendag round at the table: the players' choices (S-03..S-05), wound bands, advice."""

    def round_choices(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State,
                      yield_: bool | None, allocate: Sequence[tuple[str, str]],
                      technique: Sequence[tuple[str, str]], ask: Ask | None) -> Choices | None:
        """The choices of the round: from the arguments, and what ``ask`` answers."""
        from sevendag_cli.errors import joined
        from sevendag_cli.sevendag import engine
        from sevendag_cli.terms import NONE_WORDS, commitments, find_name, fold, per_fighter

        rs = _rules(ruleset)
        names = (a.name, b.name)

        def who(given: str) -> str:
            name = find_name(given, names)  # any case: -a brannoc=...
            if name is None:
                raise UsageError(Msg("engine.no_fighter", name=given, names=joined(names)))
            return name

        # commitments and techniques as typed, in either language and any case (a,d; Défense;
        # feinte) become keys; what matches nothing is refused by the engine, named as typed
        hands = {n: commitments(v) for n, v in per_fighter(allocate, "--allocate", who).items()}
        # ``none`` (in either language): no technique this round, whatever the sheet's rule
        tech: dict[str, str | None] = {
            n: None if fold(v) in NONE_WORDS else technique_key(rs, v, n)
            for n, v in per_fighter(technique, "--technique", who).items()}
        if ask is not None:
            return ask(rs, a, b, state, yield_, hands, tech)
        if yield_ is None:  # left to the assaillant's sheet: no yield rule, no yield (as recorded)
            holder = a if _state(state).assaillant == a.name else b
            yield_ = None if _sheet(holder).yield_rule != "never" else False
        return engine.Choices(yield_initiative=yield_, allocation=hands, technique=tech)

    def prompt_choices(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State,
                       yield_: bool | None, allocation: dict[str, tuple[str, ...]],
                       technique: dict[str, str | None], lang: str,
                       only: Sequence[str] | None = None) -> Choices | None:
        from sevendag_cli.sevendag.prompts import ask_sevendag_choices

        return ask_sevendag_choices(_rules(ruleset), a, b, state, yield_, allocation, technique,
                                    lang, only=only)

    def seed_replays_round(self) -> bool:
        return False  # the choices of a round are not in its seed

    def choices_from_data(self, data: object) -> Choices | None:
        if data is None:
            return None
        from sevendag_cli.sevendag.engine import Choices

        if not isinstance(data, dict):
            raise ValueError("choices")
        yield_ = data.get("yield", False)
        allocation = data.get("allocation", {})
        technique = data.get("technique", {})
        if ((yield_ is not None and not isinstance(yield_, bool)) or not isinstance(allocation, dict)
                or not isinstance(technique, dict)
                or not all(isinstance(v, list) and all(isinstance(x, str) for x in v)
                           for v in allocation.values())
                or not all(v is None or isinstance(v, str) for v in technique.values())):
            raise ValueError("choices")
        return Choices(yield_initiative=yield_,
                       allocation={k: tuple(v) for k, v in allocation.items()},
                       technique=dict(technique))

    def classify(self, ruleset: Ruleset, amount: int) -> WoundBand | None:
        return _rules(ruleset).band_for(amount)

    def round_seconds(self, ruleset: Ruleset) -> int | None:
        return _rules(ruleset).round_seconds  # S-01

    def advise(self, ruleset: Ruleset, a: Fighter, b: Fighter, state: State, after: str | None,
               cap: int | None, tolerance: float | None) -> tuple[Advice, float]:
        from sevendag_cli.sevendag.advice import ADVICE_TOLERANCE, advise, parse_after
        from sevendag_cli.sim.odds import check_tolerance

        rs, fa, fb = _sev(ruleset, a, b)
        now = _state(state)
        tol = check_tolerance(ADVICE_TOLERANCE if tolerance is None else tolerance)
        declared = None
        if after is not None:
            first = fa if now.assaillant == fa.name else fb
            declared = parse_after(after, rs, first, now)
        return advise(rs, fa, fb, now, after=declared, cap=cap, tolerance=tol), tol


class _Sim:
    """``fight --runs`` of a Sevendag pair."""

    def check_batch(self, ruleset: Ruleset, a: Fighter, b: Fighter) -> None:
        return  # a sheet with rules is played through the game (batch)

    def batch(self, ruleset: Ruleset, a: Fighter, b: Fighter,
              policies: Policies = PLAIN) -> tuple[BatchFn, Aggregator]:
        """Under policies (or a sheet with rules): fights sampled from the game's played rows;
        else drawn from the pair's chain where it fits, every die rolled otherwise
        (:mod:`~sevendag_cli.sevendag.sampled`)."""
        from sevendag_cli.sevendag.rules import needs_game
        from sevendag_cli.sevendag.sim_extra import SevendagAggregator

        rs, fa, fb = _sev(ruleset, a, b)
        aggregator = SevendagAggregator((a.name, b.name), tuple(band.name for band in rs.wounds))
        if needs_game(fa, fb, policies):
            from sevendag_cli.sevendag.policy import PolicyBatch

            return _PolicyBatches(PolicyBatch(rs, fa, fb, policies)), aggregator
        return _Batches(rs, fa, fb), aggregator


class _Exact:
    """Exact odds of Sevendag pairs: the sheets' chain, or the game under policies."""

    def exact_fight(self, ruleset: Ruleset, a: Fighter, b: Fighter, *, cap: int | None,
                    tolerance: float, fractions: bool | None, policies: Policies = PLAIN,
                    progress: Callable[[int, int], None] | None = None) -> ExactFight:
        from sevendag_cli.sevendag.rules import needs_game

        pair = _sev(ruleset, a, b)
        if needs_game(pair[1], pair[2], policies):
            from sevendag_cli.sevendag.policy import policy_exact

            return policy_exact(*pair, policies, cap=cap, tolerance=tolerance)
        from sevendag_cli.sevendag.exact_fight import sevendag_fight

        return sevendag_fight(*pair, cap=cap, tolerance=tolerance, fractions=fractions)

    def start_odds(self, ruleset: Ruleset, a: Fighter, b: Fighter, cap: int | None,
                   tolerance: float) -> tuple[tuple[str, str], Odds, float] | None:
        return None  # the whole fight's push

    def moment_odds(self, ruleset: Ruleset, a: Fighter, b: Fighter, kept: bytes | None,
                    tolerance: float, policies: Policies = PLAIN,
                    cap: int | None = None) -> MomentOdds:
        from sevendag_cli.sevendag.chain import OddsTable, chain_for
        from sevendag_cli.sevendag.policy import PolicyMomentOdds
        from sevendag_cli.sevendag.rules import needs_game
        from sevendag_cli.sim.moment import decode

        rs, fa, fb = _sev(ruleset, a, b)
        if needs_game(fa, fb, policies):
            return _PolicyMoment(PolicyMomentOdds(rs, fa, fb, policies, kept, cap))
        chain = chain_for(rs, fa, fb)
        table = decode(OddsTable, kept)
        lookup = chain.lookup(table) if table is not None and table.tolerance <= tolerance else None
        return _MomentOdds(chain, lookup)

    def assumptions(self, policies: Policies = PLAIN,
                    fighters: Sequence[Fighter] = ()) -> tuple[str, ...]:
        """Sheets alone: each fighter commits its hands as its sheet's tactic says, the
        assailant never yields (S-03), nobody starts a technique (one in effect runs its
        course) — unless a sheet states a yield or technique rule (``sheet-rules``).  With a
        fighter playing optimally: the best declaration each round for it (S-03..S-05), the
        sheet's for the other."""
        from sevendag_cli.sim.swing import (
            DRAW_AT_CAP,
            NO_NEW_TECHNIQUE,
            NO_YIELD,
            OPTIMAL_PLAY,
            SHEET_RULES,
            SHEET_TACTICS,
        )

        sheets = [f for f, p in zip(fighters, policies, strict=False) if p == SHEET]
        ruled = any(not getattr(f, "plays_plain", True) for f in sheets)
        if tuple(policies) == PLAIN and not ruled:
            return (SHEET_TACTICS, NO_YIELD, NO_NEW_TECHNIQUE, DRAW_AT_CAP)
        played = ((SHEET_TACTICS,) if SHEET in policies else ()) + \
            ((SHEET_RULES,) if ruled else ()) + ((OPTIMAL_PLAY,) if OPTIMAL in policies else ())
        return (*played, DRAW_AT_CAP)

    def sheets_note(self) -> Msg:
        return Msg("exact.assume.sevendag")  # the sheets' tactics, no yield, no new technique

    def exploitability(self, ruleset: Ruleset, a: Fighter, b: Fighter, *, cap: int | None,
                       tolerance: float, sheet: Odds | None = None,
                       asked: bool = True) -> Exploitability | Msg:
        from sevendag_cli.sevendag.policy import exploitability

        return exploitability(*_sev(ruleset, a, b), cap=cap, tolerance=tolerance, asked=asked)


class _Roster:
    """A ``matrix``'s Sevendag pairs: one solve a pair, each fighter's model built once."""

    def matrix_pair(self, setup: PairSetup, i: int, j: int, cache: dict[int, object],
                    solved: Callable[[int, int, Callable[[], Odds]], Cell],
                    fallen: Callable[[int, int, UsageError], Cell]) -> tuple[Cell, Cell]:
        """Each fighter's model (units, allocations) built once per process (``cache``); a
        fight under policies, or with a sheet declaring more than its tactic, is played
        through the game as ``fight --exact`` plays it (:func:`.policy.policy_odds`)."""
        from sevendag_cli.sevendag.model import FighterModel

        rs, tolerance = _rules(setup.ruleset), setup.tolerance

        def model(k: int) -> FighterModel:
            found = cache.get(k)
            if not isinstance(found, FighterModel):
                from sevendag_cli.sevendag.model import fighter_model

                found = cache[k] = fighter_model(rs, _sheet(setup.fighters[k]))
            return found

        cap = rs.round_cap if setup.cap is None else setup.cap  # a Sevendag ruleset always has one
        assert cap is not None
        from sevendag_cli.sevendag.policy import policy_odds
        from sevendag_cli.sevendag.rules import needs_game
        from sevendag_cli.sim.odds import Odds

        def solve(x: int, y: int) -> Callable[[], Odds]:
            fx, fy = _sheet(setup.fighters[x]), _sheet(setup.fighters[y])
            policies = setup.pair_policies(x, y)
            if needs_game(fx, fy, policies):  # as fight --exact: the game's declarations
                return lambda: policy_odds(rs, fx, fy, policies, cap, tolerance)
            mx, my = model(x), model(y)
            return lambda: exact_odds(rs, fx, fy, cap, tolerance, (mx, my))

        # One solve a pair: the other order is the same fight, each fighter's odds swapped
        # (S-02's initiative, the rounds and the declarations do not depend on who is named
        # first)
        kept: list[Odds] = []

        def first() -> Odds:
            kept.append(solve(i, j)())
            return kept[0]

        def mirrored() -> Odds:
            if not kept:  # the first order fell: solved on its own
                return solve(j, i)()
            o = kept[0]
            return Odds((o.names[1], o.names[0]), (o.win[1], o.win[0]), o.draw, o.unresolved,
                        o.rounds, o.stop)

        return solved(i, j, first), solved(j, i, mirrored)

    def solver_limits(self) -> frozenset[str]:
        return frozenset({"exact.sev.faces", "exact.sev.states", "game.size", "game.grown"})

    def refused_alike(self, policies: tuple[str, str]) -> frozenset[str]:
        # optimal play is simulated through the same game's declarations
        return frozenset({"game.size", "game.grown"}) if OPTIMAL in policies else frozenset()

    def pair_cost(self, a: Fighter, b: Fighter) -> int:
        return int(sum(h.die for h in _sheet(a).hands) * sum(h.die for h in _sheet(b).hands))

    def warm_modules(self) -> tuple[str, ...]:
        return ("sevendag_cli.sevendag.chain", "sevendag_cli.sevendag.exact", "sevendag_cli.sevendag.push")


class _WhatIf:
    """What-ifs on Sevendag sheets and techniques (S-05)."""

    def tactics(self, typed: str) -> tuple[str, ...]:
        from sevendag_cli.sevendag.rules import TACTICS

        return TACTICS

    def ruleset_entries(self, ruleset: Ruleset, table: str) -> RulesetEntries:
        """The techniques (S-05): their labels, and the modifiers and duration a what-if sets."""
        rs = _rules(ruleset)
        if table != "techniques":
            return {}
        return {k: (tuple(t.label.values()),
                    {"attack": t.attack, "defence": t.defence, "duration": t.duration})
                for k, t in rs.techniques.items()}

    def inert_notes(self, ruleset: Ruleset, fighters: Sequence[Fighter],
                    changes: Sequence[SheetChange], policies: Sequence[str] = ("sheet", "sheet"),
                    state: State | None = None) -> list[Msg]:
        """A change of a technique when no fighter uses one: each plays its sheet's tactic
        (:func:`technique_changes_inert`), no sheet's technique rule names it (S-05), and no
        technique is in effect in ``state`` whose modifiers the change sets (the odds from a
        saved encounter run its course)."""
        notes = tactic_notes(_rules(ruleset), fighters, changes, policies)
        techniques = [c for c in changes if c.ruleset is not None and c.field.startswith("techniques.")]
        if not techniques or not technique_changes_inert(policies):
            return notes
        from sevendag_cli.sevendag.state import SevendagState

        in_effect = {f.technique.name for f in state.fighters if f.technique is not None} \
            if isinstance(state, SevendagState) else set()
        ruled = {rule.technique for f in fighters
                 if (rule := getattr(f, "technique_rule", None)) is not None}
        inert = [c.field for c in techniques
                 if c.field.split(".")[1] not in ruled
                 and not (c.field.split(".")[1] in in_effect
                          and c.field.rsplit(".", 1)[-1] in ("attack", "defence"))]
        if not inert:
            return notes
        return [*notes, Msg("whatif.technique_inert", fields=", ".join(dict.fromkeys(inert)))]

    def saved_state_notes(self, ruleset: Ruleset, changes: Sequence[SheetChange]) -> list[Msg]:
        """A field only the speed roll reads (the initiative, S-02, rolled once at ``init``)."""
        rs = _rules(ruleset)
        speed_only = rs.speed_roll.names - {"attack", "defence"}
        return [Msg("whatif.saved_speed", name=c.fighter, field=c.field) for c in changes
                if c.field in speed_only]


class SevendagBackend:
    """The Sevendag ruleset's backend (see :class:`sevendag_cli.backend.Backend`)."""

    sheets = _Sheets()
    bounds = _Bounds()
    table = _Table()
    sim = _Sim()
    exact = _Exact()
    roster = _Roster()
    whatif = _WhatIf()

    def has_choices(self) -> bool:
        return True

    def engine(self) -> StepEngine:
        from sevendag_cli.sevendag.step import STEP_ENGINE

        return STEP_ENGINE

    def display(self) -> RulesetDisplay:
        from sevendag_cli.sevendag.display import DISPLAY

        return DISPLAY


SHEET_PLAY = ("tactic", "allocation", "technique", "technique.name", "technique.when", "yield")
"""A sheet's fields that say how it plays (``--tactic``: its tactic and rules, S-03..S-05)."""


def tactic_notes(ruleset: SevendagRuleset, fighters: Sequence[Fighter],
                 changes: Sequence[SheetChange], policies: Sequence[str]) -> list[Msg]:
    """``--tactic`` changes that change nothing: a fighter that plays optimally does not play
    its sheet's tactic and rules at all; a new tactic that commits every hand as the old one
    did, with every set of dropped weapons (``all-out`` for a sword and a shield: a shield
    only defends, S-04), plays the same fight (the fighter's model, the allocations the
    engines read, is the same)."""
    import msgspec

    from sevendag_cli.sevendag.game import OPTIMAL
    from sevendag_cli.sevendag.model import fighter_model

    notes: list[Msg] = []
    for i, f in enumerate(fighters):
        mine = [c for c in changes if c.ruleset is None and c.fighter == f.name
                and c.field in SHEET_PLAY]
        if not mine:
            continue
        fields = ", ".join(dict.fromkeys(f"{f.name}.{c.field}" for c in mine))
        if i < len(policies) and policies[i] == OPTIMAL:
            notes.append(Msg("whatif.tactic_optimal", fields=fields, name=f.name))
            continue
        if any(c.field not in ("tactic", "allocation") for c in mine):
            continue  # a yield or technique rule: played when its moment comes
        sheet = cast("SevendagFighter", f)
        tactic = next((getattr(c, "previous", None) for c in mine if c.field == "tactic"),
                      sheet.tactic)
        allocation = next((getattr(c, "previous", None) for c in mine if c.field == "allocation"),
                          sheet.allocation)
        before = msgspec.structs.replace(
            sheet, tactic="custom" if allocation else (tactic or ruleset.default_tactic),
            allocation=tuple(allocation) if allocation else None)
        try:
            same = fighter_model(ruleset, before) == fighter_model(ruleset, sheet)
        except SevendagError:  # the sheet's own allocation refused: its fight never ran
            continue
        if same:
            notes.append(Msg("whatif.tactic_inert", fields=fields, name=f.name))
    return notes


def technique_changes_inert(policies: Sequence[str] = ("sheet", "sheet")) -> bool:
    """Whether a change of a technique (S-05) changes nothing in a fight whose fighters play
    ``policies`` (one per fighter: ``sheet``, the sheet's tactic with no technique, or
    ``optimal``, the game's optimal play, :mod:`sevendag_cli.sevendag.game`, which weighs every
    technique): true when none plays optimally."""
    from sevendag_cli.sevendag.game import OPTIMAL

    return OPTIMAL not in policies


BACKEND: Backend = SevendagBackend()
