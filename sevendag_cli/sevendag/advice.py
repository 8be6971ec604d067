"""Advice at the table: every declaration open to the fighter who declares now.

From a state between rounds: the assailant (``assaillant``) declares first (yield or not,
allocation, technique if none is in effect); with ``after`` (what the assailant declared) the
defender (``défenseur``) answers.  Each option comes with the chance to win of the fighter declaring
(a draw counting half) if taken — both playing optimally afterwards, the opponent
answering optimally within the round — its certified bounds and the opponent's best
answer (:mod:`sevendag_cli.sevendag.game`).  The game is solved once per pair over the whole
fight and kept in the user's cache; a later state is a look-up with the same numbers
(:mod:`sevendag_cli.sevendag.game_cache`).
"""

from __future__ import annotations

from sevendag_cli.errors import EncounterError, Msg, UsageError
from sevendag_cli.sevendag.advised import Advice, AdvisedOption
from sevendag_cli.sevendag.engine import SevendagState, check_choices
from sevendag_cli.sevendag.game import OPTIMAL, Option, game_for, value_for
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset

ADVICE_TOLERANCE = 1e-6
"""Default width of the certified interval of each option (the display shows tenths of a %)."""


_AFTER_KEYS = {"yield": "yield", "ceder": "yield", "cede": "yield", "allocation": "allocation",
               "allocate": "allocation", "repartition": "allocation", "technique": "technique",
               "tech": "technique"}
"""The keys of ``--after`` (either language, folded), each to the one it spells."""


def parse_after(text: str, ruleset: SevendagRuleset, fighter: SevendagFighter,
                state: SevendagState | None = None) -> Option:
    """``yield=no;allocation=attack,attack;technique=feint``: what the assaillant declared.

    Words in either language (``oui``, ``attaque,défense``, ``feinte``); ``technique=none``
    or leaving it out: no technique; ``allocation`` left out: the sheet's (in ``state``).
    """
    from sevendag_cli.sevendag.engine import allocation_for
    from sevendag_cli.terms import commitments, fold, yes_no

    yielded = False
    allocation: tuple[str, ...] | None = None
    technique: str | None = None
    given: dict[str, str] = {}  # each key once: a repeated one is refused, not the last taken
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        key, sep, value = part.partition("=")
        key, value = fold(key.strip()), value.strip()
        if not sep or not value:
            raise UsageError(Msg("advise.after_syntax", part=part))
        same = _AFTER_KEYS.get(key)
        if same is not None:
            if same in given:
                raise UsageError(Msg("advise.after_twice", key=same, first=given[same], second=value))
            given[same] = value
        if key in ("yield", "ceder", "cede"):
            answer = yes_no(value)
            if answer is None:
                raise UsageError(Msg("advise.after_yield", value=value))
            yielded = answer
        elif key in ("allocation", "allocate", "repartition"):
            allocation = commitments(value)
        elif key in ("technique", "tech"):
            if fold(value) in ("none", "aucune", "no", "non"):
                technique = None
            else:
                technique = ruleset.technique_named(value) or value
        else:
            raise UsageError(Msg("advise.after_key", key=key.strip()))
    if allocation is None:
        allocation = allocation_for(fighter, None, state)
    return Option(yielded, allocation, technique)


def advise(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
           state: SevendagState, *, after: Option | None = None, cap: int | None = None,
           tolerance: float = ADVICE_TOLERANCE) -> Advice:
    """Every option of the fighter who declares now, with its value (see the module)."""
    if state.over:
        raise EncounterError(Msg("advise.over"))
    game = game_for(ruleset, a, b)
    key = game.key_of(state)
    if isinstance(key, int):  # out, though the state does not say so
        raise EncounterError(Msg("advise.over"))
    cap = ruleset.round_cap if cap is None else cap
    rounds = max(1, cap - state.round)
    policies = (OPTIMAL, OPTIMAL)
    # solved once per pair over the whole fight and kept in the user's cache: a look-up
    from sevendag_cli.sevendag.game_cache import kept_game

    kept = kept_game(ruleset, a, b, game, policies, tolerance, cap)
    looked = None if kept is None else kept.state(game, key, rounds, policies)
    sol = looked if looked is not None else game.solve(key, rounds, policies, tolerance)
    first = key[0]
    names = game.names
    if after is None:
        fighter = first
        values = sol.first_options()
    else:
        f = game.fighters[first]
        # the engine's own refusals first (a technique in effect, a shield attacking...)
        choices = after.choices(f.name)
        check_choices(ruleset, a, b, state, choices)
        offered = game.options(key, first)
        if after not in offered:
            raise UsageError(Msg("advise.after_not_offered", name=f.name,
                                 allocation=",".join(after.allocation)))
        fighter = 1 - first
        values = sol.answers(after)
    advised = []
    for v in values:
        win, low, high = value_for(fighter, v)
        advised.append(AdvisedOption(v.option, win, low, high, v.answer))
    best = max(range(len(advised)), key=lambda i: advised[i].win_probability)
    role = "assaillant" if after is None else "defenseur"
    return Advice(names[fighter], role, after, tuple(advised), best, rounds, sol.complete)
