"""Sevendag planning: what each fighter commits for a round (S-03, S-04, S-05, S-18).

The players' :class:`Choices` (yield, allocations, techniques) or each
sheet's tactic become one plan per fighter, every choice checked before any
die is rolled: a refused round changes nothing and consumes no die.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from msgspec import Struct, field

from sevendag_cli.errors import EncounterError, Msg, RuleError, UsageError, joined
from sevendag_cli.sevendag.events import SheetRuleEvent
from sevendag_cli.sevendag.rules import (
    COMMITMENTS,
    TACTICS,
    Item,
    SevendagFighter,
    SevendagRuleset,
    yields,
)
from sevendag_cli.sevendag.state import FighterState, SevendagState, _require

ATTACK = "attack"
DEFENCE = "defence"
NONE = "none"


class Choices(Struct, frozen=True):
    """What the players decide for one round (S-03, S-04, S-05).

    ``yield_initiative``: the assaillant yields or not; None leaves it to the
    assaillant's sheet (its ``yield`` rule; no rule: no yield).
    ``allocation``: fighter name → one of attack/defence/none per hand (a
    fighter left out uses its sheet's tactic); ``technique``: fighter name →
    technique key of ``ruleset.techniques``, or None for no technique; a
    fighter left out uses its sheet's ``technique`` rule (no rule: none).
    """

    yield_initiative: bool | None = None
    allocation: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    technique: Mapping[str, str | None] = field(default_factory=dict)


# --- allocation (S-04, S-18) ---------------------------------------------------


def item_name(item: Item) -> Msg:
    """An item's label, in the language of the message that shows it."""
    return Msg.label(item.labels or (("en", item.label),), item.label)


def technique_names(ruleset: SevendagRuleset) -> object:
    """The ruleset's techniques by their labels, in the language of the message (``feinte or
    garde de fer or charge`` in French)."""
    if not ruleset.techniques:
        return Msg("engine.sev.no_techniques")
    return joined(Msg.label(t.label, k) for k, t in ruleset.techniques.items())


def _hand_label(fighter: SevendagFighter, i: int) -> Msg:
    item = fighter.item_in(i)
    what: object = item_name(item) if item is not None else Msg("engine.sev.empty")
    return Msg("engine.sev.hand", name=fighter.name, n=i + 1, what=what)


def _tactic_commitment(tactic: str, item: Item | None) -> str:
    if tactic == "full-defence":
        return DEFENCE
    if item is not None and item.kind == "shield":
        return DEFENCE
    if tactic == "all-out":
        return ATTACK
    # weapons-attack
    return ATTACK if item is not None else DEFENCE


def allocation_for(
    fighter: SevendagFighter,
    tactic_or_none: str | None,
    state: SevendagState | FighterState | None = None,
) -> tuple[str, ...]:
    """A fighter's commitments from a tactic (default: its sheet's), per hand.

    ``weapons-attack``: weapon hands attack, shields and empty hands defend;
    ``all-out``: everything but shields attacks; ``full-defence``: all defend;
    ``custom``: the sheet's ``allocation``.  Hands picking up a dropped weapon
    (S-18) are silently turned to ``none``.
    """
    tactic = tactic_or_none or fighter.tactic
    n = len(fighter.hands)
    if tactic == "custom":
        if fighter.allocation is None:
            raise RuleError(Msg("engine.sev.custom_needs_allocation", name=fighter.name))
        base = list(fighter.allocation)
    elif tactic in TACTICS:
        base = [_tactic_commitment(tactic, fighter.item_in(i)) for i in range(n)]
    else:
        raise RuleError(Msg("engine.sev.unknown_tactic", name=fighter.name, tactic=tactic,
                            known=", ".join(TACTICS)))
    fs = state.fighter(fighter.name) if isinstance(state, SevendagState) else state
    if fs is not None:
        for hand in fs.recovering():
            if 1 <= hand <= len(base):
                base[hand - 1] = NONE
    return tuple(base)


def _validate_allocation(
    fighter: SevendagFighter, alloc: Sequence[object], fs: FighterState, what: Msg
) -> tuple[str, ...]:
    """S-04/S-18: refuse an allocation the rules do not allow (one line)."""
    n = len(fighter.hands)
    allowed = ", ".join(COMMITMENTS)
    if isinstance(alloc, str) or not isinstance(alloc, Sequence):
        raise RuleError(Msg("engine.sev.alloc_list", name=fighter.name, what=what, allowed=allowed, n=n))
    if len(alloc) != n:
        raise RuleError(Msg("engine.sev.alloc_count", name=fighter.name, what=what, count=len(alloc),
                            n=n, allowed=allowed))
    out: list[str] = []
    for i, c in enumerate(alloc):
        if not isinstance(c, str) or c not in COMMITMENTS:
            raise RuleError(Msg("engine.sev.not_commitment", hand=_hand_label(fighter, i), value=c,
                                allowed=allowed))
        out.append(c)
    recovering = fs.recovering()
    for i, c in enumerate(out):
        item = fighter.item_in(i)
        if item is not None and item.kind == "shield" and c == ATTACK:
            raise RuleError(Msg("engine.sev.shield_attacks", hand=_hand_label(fighter, i)))
        if i + 1 in recovering and c != NONE:
            raise RuleError(Msg("engine.sev.recovering", hand=_hand_label(fighter, i)))
    for key, item in fighter.items.items():
        if item.hands != 2:
            continue
        held = [i for i, h in enumerate(fighter.hands) if h.holds == key]
        if len({out[i] for i in held}) > 1:
            nums = joined((str(i + 1) for i in held), "and")
            raise RuleError(Msg("engine.sev.two_handed", name=fighter.name, hands=nums,
                                item=item_name(item)))
    return tuple(out)


class Plan(Struct, frozen=True, gc=False):
    allocation: tuple[str, ...]
    source: str
    technique: str | None
    started: bool
    rounds_left: int  # this round included
    attack_mod: int
    defence_mod: int


def plan_for(
    ruleset: SevendagRuleset, fighter: SevendagFighter, fs: FighterState, choices: Choices
) -> Plan:
    if fighter.name in choices.allocation:
        alloc = _validate_allocation(
            fighter, choices.allocation[fighter.name], fs, Msg("engine.sev.what.allocation")
        )
        source = "choice"
    else:
        default = allocation_for(fighter, None, fs)
        what = Msg("engine.sev.what.sheet_allocation" if fighter.tactic == "custom"
                   else "engine.sev.what.sheet_tactic")
        alloc = _validate_allocation(fighter, default, fs, what)
        source = fighter.tactic
    wanted = choices.technique.get(fighter.name)
    technique: str | None = None
    started = False
    rounds_left = 0
    if wanted is not None:
        if not isinstance(wanted, str) or wanted not in ruleset.techniques:
            raise RuleError(Msg("engine.sev.no_technique", name=fighter.name, wanted=wanted,
                                known=technique_names(ruleset)))
        if fs.technique is not None:
            left = fs.technique.rounds_left
            under = ruleset.techniques.get(fs.technique.name)
            shown: object = (Msg.label(under.label, under.name) if under is not None
                             else fs.technique.name)
            raise RuleError(Msg("engine.sev.still_under", name=fighter.name,
                                technique=shown, left=left))
        technique, started, rounds_left = wanted, True, ruleset.techniques[wanted].duration
    elif fs.technique is not None:
        technique, rounds_left = fs.technique.name, fs.technique.rounds_left
    attack_mod = defence_mod = 0
    if technique is not None:
        t = ruleset.techniques.get(technique)
        if t is None:
            known_now: object = technique_names(ruleset) if ruleset.techniques else Msg("engine.sev.none")
            raise EncounterError(Msg("engine.sev.undefined_technique", name=fighter.name,
                                     technique=technique, known=known_now))
        attack_mod, defence_mod = t.attack, t.defence
    return Plan(alloc, source, technique, started, rounds_left, attack_mod, defence_mod)


# --- the sheets' rules (S-03, S-05) -----------------------------------------------


def sheet_yield(fighters: Mapping[str, SevendagFighter], state: SevendagState) -> bool:
    """S-03: whether the assaillant's sheet yields this round (its ``yield`` rule)."""
    holder = state.assaillant
    other = state.other(holder)
    return yields(fighters[holder].yield_rule, state.fighter(holder).penalty,
                  state.fighter(other).penalty)


def sheet_technique(fighter: SevendagFighter, fs: FighterState, holds_initiative: bool,
                    ) -> str | None:
    """S-05: the technique the sheet's rule starts this round (none in effect), or None."""
    rule = fighter.technique_rule
    if rule is None or fs.technique is not None or not rule.applies(holds_initiative):
        return None
    return rule.technique


def with_sheet_rules(
    fighters: Mapping[str, SevendagFighter], state: SevendagState, choices: Choices,
) -> tuple[Choices, list[SheetRuleEvent]]:
    """The choices with what the players left open decided by the sheets' rules (the yield
    by the assaillant's, each technique by its fighter's), and a ``sheet-rule`` event for
    each choice a rule made: the assaillant's yield first (S-03, S-04)."""
    events: list[SheetRuleEvent] = []
    yielded = choices.yield_initiative
    holder = state.assaillant
    other = state.other(holder)
    pen = {holder: state.fighter(holder).penalty, other: state.fighter(other).penalty}
    if yielded is None:
        yielded = sheet_yield(fighters, state)
        if yielded:
            events.append(SheetRuleEvent(holder, "yield", fighters[holder].yield_rule, None,
                                         pen[holder], pen[other], ("S-03",)))
    technique = dict(choices.technique)
    first = other if yielded else holder
    for name in (first, state.other(first)):
        if name in technique:
            continue
        f = fighters[name]
        started = sheet_technique(f, state.fighter(name), name == holder)
        if started is not None:
            technique[name] = started
            assert f.technique_rule is not None
            events.append(SheetRuleEvent(name, "technique", f.technique_rule.when, started,
                                         pen[name], pen[state.other(name)], ("S-05",)))
    return Choices(bool(yielded), choices.allocation, technique), events


# --- checking choices without playing ----------------------------------------


def _check_choices(choices: Choices, names: tuple[str, str]) -> None:
    valid = joined(repr(n) for n in names)
    for what, mapping in (("allocation", choices.allocation), ("technique", choices.technique)):
        if not isinstance(mapping, Mapping):
            raise RuleError(Msg("engine.sev.choices_mapping", what=what))
        for name in mapping:
            if name not in names:
                raise UsageError(Msg("engine.sev.choice_no_fighter", what=what, name=name, valid=valid))


def check_choices(
    ruleset: SevendagRuleset,
    a: SevendagFighter,
    b: SevendagFighter,
    state: SevendagState,
    choices: Choices,
) -> None:
    """Refuse choices exactly as ``play_round`` would, without rolling a die."""
    _require(ruleset, a, b, state)
    _check_choices(choices, (a.name, b.name))
    for f in (a, b):
        plan_for(ruleset, f, state.fighter(f.name), choices)


class Option(Struct, frozen=True, gc=False):
    """One fighter's declaration for a round (S-03, S-04, S-05)."""

    yield_initiative: bool
    allocation: tuple[str, ...]  # per hand: attack / defence / none
    technique: str | None  # started this round

    def choices(self, name: str) -> Choices:
        """This declaration as the step engine's choices for fighter ``name``."""
        return Choices(self.yield_initiative, {name: self.allocation}, {name: self.technique})


def merge(a_name: str, a: Option, b_name: str, b: Option, assaillant: str) -> Choices:
    """Both fighters' declarations as the engine's :class:`Choices` (the assaillant's yield)."""
    yielded = a.yield_initiative if assaillant == a_name else b.yield_initiative
    tech = {a_name: a.technique, b_name: b.technique}  # None: no technique, whatever the sheet
    return Choices(yielded, {a_name: a.allocation, b_name: b.allocation}, tech)
