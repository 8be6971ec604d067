"""A sheet's technique rule and yield rule (S-03, S-04, S-05).

* the sheet fields (``technique = { name, when }``, ``yield``), read in either language,
  refused in one line naming the file and the key; ``plays_plain``;
* the step engine plays them where the players leave the choice open, and records it
  (``sheet-rule`` events); the players' choices win;
* the game's ``sheet`` policy declares what the rules say: its round equals the engine's
  ``play_round`` with the sheets' rules exactly, and the game's value with both on their
  sheets lands within 4 standard errors of many step-engine fights;
* the plain modes (chain, exact, vectorised) refuse such a sheet in one line;
* ``--tactic`` states them; the prompts offer them as the default.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import sevendag_cli as sd
from sevendag_cli.dice import SeededDice
from sevendag_cli.errors import DataError, UsageError
from sevendag_cli.history import choices_to_data
from sevendag_cli.rules import fighter_from_data
from sevendag_cli.sevendag import engine
from sevendag_cli.sevendag.backend import BACKEND
from sevendag_cli.sevendag.engine import (
    ActiveTechnique,
    Choices,
    FighterState,
    SevendagState,
    SheetRuleEvent,
    initial_state,
)
from sevendag_cli.sevendag.game import OPTIMAL, SHEET, SevendagGame
from sevendag_cli.sevendag.model import check_plain
from sevendag_cli.sevendag.prompts import ask_sevendag_choices
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset, TechniqueRule, WoundBand
from tests.exact_helpers import distribution
from tests.helpers import edited_sheet, run, run_json
from tests.records import replace
from tests.sevendag_helpers import RS, TINY_X, TINY_Y, bundled

BRANNOC, YSOLDE = bundled()


def sheet(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "ruleset": "sevendag", "name": "Rula", "speed": 1, "attack": 8, "defence": 6,
        "hands": [{"die": 10, "holds": "sword"}, {"die": 8, "holds": "shield"}],
        "items": {"sword": {"metal": "iron", "skill": 12}, "shield": {"kind": "shield"}},
    }
    data.update(extra)
    return data


def read(**extra: Any) -> SevendagFighter:
    f = fighter_from_data(sheet(**extra), "rula.toml", RS)
    assert isinstance(f, SevendagFighter)
    return f


def refused(**extra: Any) -> str:
    with pytest.raises(DataError) as err:
        fighter_from_data(sheet(**extra), "rula.toml", RS)
    return str(err.value)


def ruled(f: SevendagFighter, yield_rule: str = "never", technique: str | None = None,
          when: str = "always") -> SevendagFighter:
    return replace(f, yield_rule=yield_rule,
                   technique_rule=TechniqueRule(technique, when) if technique else None)


def of(result: Any, cls: type) -> list[Any]:
    return [e for e in result.events if isinstance(e, cls)]


# --- the sheet fields -----------------------------------------------------------------------


def test_S03_S05_a_sheet_states_a_technique_rule_and_a_yield_rule() -> None:
    f = read(technique={"name": "feint", "when": "attacking"}, **{"yield": "behind"})
    assert f.technique_rule == TechniqueRule("feint", "attacking")
    assert f.yield_rule == "behind"
    assert not f.plays_plain
    plain = read()
    assert plain.technique_rule is None and plain.yield_rule == "never" and plain.plays_plain
    # the technique by its French label, "when" left out (always), the words in French
    g = read(technique={"name": "garde de fer"}, **{"yield": "Toujours"})
    assert g.technique_rule == TechniqueRule("guard", "always") and g.yield_rule == "always"
    h = read(technique={"name": "feinte", "when": "en défense"}, **{"yield": "mené"})
    assert h.technique_rule == TechniqueRule("feint", "defending") and h.yield_rule == "behind"
    assert read(**{"yield": "never"}).plays_plain  # yield = never states nothing to play


@pytest.mark.parametrize(("extra", "key", "words"), [
    ({"technique": {"name": "kick"}}, "technique.name", "unknown technique 'kick'"),
    ({"technique": {"name": "feint", "when": "later"}}, "technique.when", "attacking, defending, always"),
    ({"technique": {"name": "feint", "colour": "red"}}, "technique.colour", "unknown"),
    ({"technique": {"when": "always"}}, "technique.name", "missing"),
    ({"technique": "feint"}, "technique", "table"),
    ({"yield": "sometimes"}, "yield", "never, always, behind"),
    ({"yield": True}, "yield", "text"),
])
def test_S03_S05_a_wrong_rule_is_refused_in_one_line_naming_file_and_key(
        extra: dict[str, Any], key: str, words: str) -> None:
    message = refused(**extra)
    assert "\n" not in message
    assert "rula.toml" in message and f"{key}:" in message and words in message


def test_S05_the_sheet_schema_takes_the_rules() -> None:
    schema = json.loads((Path(__file__).parent.parent / "sevendag_cli" / "schemas"
                         / "fighter-sevendag.json").read_text("utf-8"))
    jsonschema.validate(sheet(technique={"name": "feint", "when": "attacking"},
                              **{"yield": "behind"}), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(sheet(technique={"when": "attacking"}), schema)


# --- the step engine ------------------------------------------------------------------------


def state_of(a: SevendagFighter, b: SevendagFighter, holder: str, pa: int = 0, pb: int = 0,
             ta: ActiveTechnique | None = None) -> SevendagState:
    return SevendagState(2, holder, (FighterState(a.name, penalty=pa, technique=ta),
                                     FighterState(b.name, penalty=pb)))


def test_S03_yield_always_swaps_the_roles_and_says_the_sheet_chose() -> None:
    a = ruled(BRANNOC, "always")
    result, _ = engine.play_round(RS, a, YSOLDE, state_of(a, YSOLDE, a.name), SeededDice(1))
    first = result.events[0]
    assert first == SheetRuleEvent(a.name, "yield", "always", None, 0, 0, ("S-03",))
    allocs = of(result, engine.AllocationEvent)
    assert [(e.fighter, e.role, e.yielded) for e in allocs] == [
        (YSOLDE.name, "assaillant", False), (a.name, "défenseur", True)]
    # the players' choice wins: no yield, no sheet-rule event
    result, _ = engine.play_round(RS, a, YSOLDE, state_of(a, YSOLDE, a.name), SeededDice(1),
                                  Choices(yield_initiative=False))
    assert not of(result, SheetRuleEvent)
    assert not any(e.yielded for e in of(result, engine.AllocationEvent))


def test_S03_the_defenseurs_yield_rule_does_nothing() -> None:
    """S-03: only the assaillant may yield."""
    b = ruled(YSOLDE, "always")
    result, _ = engine.play_round(RS, BRANNOC, b, state_of(BRANNOC, b, BRANNOC.name), SeededDice(1))
    assert not of(result, SheetRuleEvent)
    assert of(result, engine.AllocationEvent)[0].fighter == BRANNOC.name


@pytest.mark.parametrize(("pa", "pb", "yields"), [(3, 1, True), (1, 1, False), (0, 3, False)])
def test_S03_S19_yield_when_behind_is_a_larger_wound_penalty(pa: int, pb: int, yields: bool) -> None:
    a = ruled(BRANNOC, "behind")
    result, _ = engine.play_round(RS, a, YSOLDE, state_of(a, YSOLDE, a.name, pa, pb), SeededDice(2))
    events = of(result, SheetRuleEvent)
    assert (events == [SheetRuleEvent(a.name, "yield", "behind", None, pa, pb, ("S-03",))]) == yields
    assert bool(events) == yields
    assert of(result, engine.AllocationEvent)[0].fighter == (YSOLDE.name if yields else a.name)


@pytest.mark.parametrize(("when", "holder", "starts"), [
    ("attacking", "a", True), ("attacking", "b", False),
    ("defending", "a", False), ("defending", "b", True),
    ("always", "a", True), ("always", "b", True),
])
def test_S05_the_technique_rule_starts_its_technique_when_it_says(when: str, holder: str,
                                                                 starts: bool) -> None:
    a = ruled(BRANNOC, technique="feint", when=when)
    state = state_of(a, YSOLDE, a.name if holder == "a" else YSOLDE.name)
    result, _ = engine.play_round(RS, a, YSOLDE, state, SeededDice(3))
    mine = next(e for e in of(result, engine.AllocationEvent) if e.fighter == a.name)
    assert (mine.technique == "feint" and mine.technique_started) == starts
    expected = [SheetRuleEvent(a.name, "technique", when, "feint", 0, 0, ("S-05",))] if starts else []
    assert of(result, SheetRuleEvent) == expected


def test_S05_no_technique_by_the_sheet_while_one_is_in_effect() -> None:
    a = ruled(BRANNOC, technique="feint")
    state = state_of(a, YSOLDE, a.name, ta=ActiveTechnique("guard", 1))
    result, _ = engine.play_round(RS, a, YSOLDE, state, SeededDice(4))
    mine = next(e for e in of(result, engine.AllocationEvent) if e.fighter == a.name)
    assert mine.technique == "guard" and not mine.technique_started
    assert not of(result, SheetRuleEvent)


def test_S05_the_players_technique_or_none_wins_over_the_sheet() -> None:
    a = ruled(BRANNOC, technique="feint")
    state = state_of(a, YSOLDE, a.name)
    for chosen, shown in ((None, None), ("charge", "charge")):
        result, _ = engine.play_round(RS, a, YSOLDE, state, SeededDice(5),
                                      Choices(technique={a.name: chosen}))
        mine = next(e for e in of(result, engine.AllocationEvent) if e.fighter == a.name)
        assert mine.technique == shown
        assert not of(result, SheetRuleEvent)


def test_S03_S04_S05_the_assaillants_yield_comes_first_then_each_technique_in_declaration_order(
        ) -> None:
    a = ruled(BRANNOC, "always", "feint", "always")
    b = ruled(YSOLDE, technique="charge", when="always")
    result, _ = engine.play_round(RS, a, b, state_of(a, b, a.name), SeededDice(6))
    assert [(e.fighter, e.choice) for e in of(result, SheetRuleEvent)] == [
        (a.name, "yield"), (b.name, "technique"), (a.name, "technique")]
    assert [type(e).__name__ for e in result.events[:5]] == [
        "SheetRuleEvent", "SheetRuleEvent", "SheetRuleEvent", "AllocationEvent", "AllocationEvent"]


def test_S03_S05_a_whole_fight_plays_the_rules_and_plain_sheets_play_as_before() -> None:
    a = ruled(BRANNOC, "behind", "feint", "attacking")
    result = engine.fight(RS, a, YSOLDE, SeededDice(11), cap=60)
    kinds = {(e.fighter, e.choice) for r in result.rounds for e in r.events
             if isinstance(e, SheetRuleEvent)}
    assert (a.name, "technique") in kinds
    # every round the rule applies in, it is played
    for r in result.rounds:
        events = [e for e in r.events if isinstance(e, SheetRuleEvent) and e.choice == "technique"]
        mine = next(e for e in r.events if isinstance(e, engine.AllocationEvent)
                    and e.fighter == a.name)
        assert bool(events) == (mine.technique_started)
    plain = engine.fight(RS, BRANNOC, YSOLDE, SeededDice(11), cap=60)
    assert not any(isinstance(e, SheetRuleEvent) for r in plain.rounds for e in r.events)


# --- the game -------------------------------------------------------------------------------


TINY_RULES = replace(RS, wounds=(WoundBand("light", 1, 3, 1, 0, {}), WoundBand("serious", 4, 6, 2, 0, {}),
                                 WoundBand("fatal", 7, None, 0, 1, {})),
                     drop_check_die=4, drop_recovery_rounds=1, fumble_grants_crit=False,
                     round_cap=10**9, techniques={k: RS.techniques[k] for k in ("feint", "guard")})
RX = ruled(TINY_X, "behind", "feint", "attacking")
RY = ruled(TINY_Y, "always", "guard", "defending")


def engine_keys(game: SevendagGame, rs: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
                state: SevendagState, choices: Choices) -> dict[Any, Fraction]:
    out: dict[Any, Fraction] = {}
    for new, p in distribution(lambda d: engine.play_round(rs, a, b, state, d, choices)[1]).items():
        k = game.key_of(new)
        out[k] = out.get(k, Fraction(0)) + p
    return out


def _fs(name: str, wounds: tuple[str, ...], penalty: int, **kw: Any) -> FighterState:
    return FighterState(name, wounds, penalty, **kw)


STATES = [
    pytest.param(initial_state(RX, RY, "X"), id="X-holds-even"),
    pytest.param(initial_state(RX, RY, "Y"), id="Y-holds-even"),
    pytest.param(SevendagState(2, "X", (_fs("X", ("serious",), 2), _fs("Y", ("light",), 1))),
                 id="X-holds-behind"),
    pytest.param(SevendagState(2, "Y", (_fs("X", ("light",), 1, technique=ActiveTechnique("guard", 1)),
                                        _fs("Y", ("serious",), 2))), id="Y-holds-behind-X-under-guard"),
    pytest.param(SevendagState(5, "X", (_fs("X", ("light",) * 9, 9), _fs("Y", ("light",), 1))),
                 id="X-far-behind-clamped"),
]


@pytest.mark.parametrize("state", STATES)
def test_S03_S05_the_games_sheet_option_is_the_engines_round_with_the_sheets_rules(
        state: SevendagState) -> None:
    """The one declaration ``options(key, fighter, sheet)`` gives each fighter, played by the
    game, equals the engine's ``play_round`` leaving every choice to the sheets, exactly."""
    game = SevendagGame(TINY_RULES, RX, RY)
    key = game.key_of(state)
    assert not isinstance(key, int)
    (oa,), (ob,) = game.options(key, 0, SHEET), game.options(key, 1, SHEET)
    den, targets = game.transitions(key, oa, ob)
    assert {t: Fraction(w, den) for t, w in targets} == engine_keys(
        game, TINY_RULES, RX, RY, state, Choices())


def test_S03_S05_the_sheet_option_per_rule() -> None:
    game = SevendagGame(TINY_RULES, RX, RY)
    start_x = game.key_of(initial_state(RX, RY, "X"))
    start_y = game.key_of(initial_state(RX, RY, "Y"))
    behind = game.key_of(SevendagState(2, "X", (FighterState("X", ("serious",), 2),
                                                FighterState("Y", ("light",), 1))))
    assert not isinstance(start_x, int) and not isinstance(start_y, int)
    assert not isinstance(behind, int)
    (x,) = game.options(start_x, 0, SHEET)
    assert (x.yield_initiative, x.technique) == (False, "feint")  # holds, not behind
    (y,) = game.options(start_x, 1, SHEET)
    assert (y.yield_initiative, y.technique) == (False, "guard")  # always yields, but does not hold
    (x,) = game.options(behind, 0, SHEET)
    assert x.yield_initiative  # S-19: penalty 2 against 1
    (y,) = game.options(start_y, 1, SHEET)
    assert (y.yield_initiative, y.technique) == (True, None)  # holds: yields; guard is for defending
    (x,) = game.options(start_y, 0, SHEET)
    assert x.technique is None
    # plain sheets: the sheet's allocation alone, as before
    plain = SevendagGame(TINY_RULES, TINY_X, TINY_Y)
    k = plain.key_of(initial_state(TINY_X, TINY_Y, "X"))
    assert not isinstance(k, int)
    assert [(o.yield_initiative, o.technique) for o in plain.options(k, 0, SHEET)] == [(False, None)]


@pytest.mark.slow
def test_S03_S05_both_on_their_sheets_the_game_is_many_step_engine_fights() -> None:
    """Both fighters on SHEET, rules included: the game's value (P(X wins) + ½ P(draw)) is
    within 4 standard errors of the mean of many step-engine fights (``engine.fight``)."""
    cap = 30
    rs = replace(TINY_RULES, round_cap=cap)
    game = SevendagGame(rs, RX, RY)
    rng = random.Random(23)

    class Dice:
        def face(self, sides: int, purpose: str, fighter: str | None) -> int:
            return rng.randint(1, sides)

    n = 3000
    total = sq = 0.0
    for _ in range(n):
        result = engine.fight(rs, RX, RY, Dice())
        x = 0.5 if result.winner is None else float(result.winner == RX.name)
        total += x
        sq += x * x
    # the initiative (S-02) as the engine rolls it: X's speed 1 against Y's 0 on 1d20
    p_x = Fraction(sum(1 for i in range(1, 21) for j in range(1, 21) if i + 1 > j + 0),
                   sum(1 for i in range(1, 21) for j in range(1, 21) if i + 1 != j))
    value = (float(p_x) * game.solve(game.start_key(0), cap, (SHEET, SHEET), 1e-9).value
             + float(1 - p_x) * game.solve(game.start_key(1), cap, (SHEET, SHEET), 1e-9).value)
    mean = total / n
    se = max(((sq / n - mean * mean) / n) ** 0.5, 1e-9)
    assert abs(mean - value) <= 4 * se, (mean, value, se)
    # and the rules matter here: the plain sheets' game has another value
    plain = SevendagGame(rs, TINY_X, TINY_Y)
    plain_value = (float(p_x) * plain.solve(plain.start_key(0), cap, (SHEET, SHEET), 1e-9).value
                   + float(1 - p_x) * plain.solve(plain.start_key(1), cap, (SHEET, SHEET), 1e-9).value)
    assert abs(plain_value - value) > 4 * se


def test_S03_S05_optimal_against_a_ruled_sheet_can_only_gain() -> None:
    rs = replace(TINY_RULES, round_cap=20)
    game = SevendagGame(rs, RX, RY)
    both = game.solve(game.start_key(0), 20, (SHEET, SHEET), 1e-9)
    best = game.solve(game.start_key(0), 20, (OPTIMAL, SHEET), 1e-9)
    assert best.value >= both.value - 1e-9


# --- the plain modes refuse -----------------------------------------------------------------


def test_S03_S05_the_plain_solvers_refuse_a_ruled_sheet() -> None:
    from sevendag_cli.sevendag.chain import chain_for
    from sevendag_cli.sevendag.exact import exact_sevendag
    from sevendag_cli.sevendag.vector import simulate_sevendag_batch

    a = ruled(BRANNOC, "behind")
    b = ruled(YSOLDE, technique="feint")
    import numpy as np

    for x, y in ((a, YSOLDE), (BRANNOC, b)):
        calls: list[Callable[[], object]] = [
            partial(check_plain, x, y), partial(chain_for, RS, x, y),
            partial(exact_sevendag, RS, x, y),
            partial(simulate_sevendag_batch, RS, x, y, 10, np.random.default_rng(1))]
        for call in calls:
            with pytest.raises(UsageError) as err:
                call()
            assert err.value.msg.key == "sim.sev.not_plain"
    check_plain(BRANNOC, YSOLDE)  # plain sheets pass


RULED_SHEET = ('tactic = "weapons-attack"', 'tactic = "weapons-attack"\nyield = "behind"')


@pytest.mark.parametrize("args", [
    ("fight", "{sheet}", "ysolde", "--runs", "50", "--seed", "1"),
    ("fight", "{sheet}", "ysolde", "--exact"),
    ("fight", "{sheet}", "ysolde", "--odds", "--seed", "1"),
    ("sweep", "{sheet}", "ysolde", "--vary", "Brannoc.attack=7..8"),
    ("sweep", "{sheet}", "ysolde", "--vary", "Brannoc.attack=7..8", "--runs", "50", "--seed", "1"),
    ("matrix", "{sheet}", "ysolde", "--jobs", "1"),
    ("fight", "brannoc", "ysolde", "--runs", "50", "--seed", "1", "--tactic",
     "Ysolde=technique=feint"),
], ids=["runs", "exact", "odds", "sweep", "sweep-runs", "matrix", "tactic"])
@pytest.mark.slow
def test_S03_S05_every_mode_plays_a_ruled_sheet_through_the_game(args: tuple[str, ...]) -> None:
    """The plain chain cannot play a yield or technique rule: every mode routes such a pair
    through the game instead (the refusal above never reaches a user)."""
    path = edited_sheet("brannoc", RULED_SHEET)
    result = run(*(a.format(sheet=path) for a in args), "--json")
    assert result.exit_code == 0, result.stderr
    assert "yield or technique rule" not in result.stderr


@pytest.mark.slow
def test_S03_a_ruled_sheets_exact_odds_are_the_games_and_differ_from_the_plain_sheets() -> None:
    path = edited_sheet("brannoc", RULED_SHEET)
    ruled_doc = run_json("fight", path, "ysolde", "--exact", "--tolerance", "1e-10")
    plain_doc = run_json("fight", "brannoc", "ysolde", "--exact", "--tolerance", "1e-10")
    assert ruled_doc["policies"] == {"Brannoc": "sheet", "Ysolde": "sheet"}
    assert ruled_doc["fighters"][0]["win_probability"] != plain_doc["fighters"][0]["win_probability"]
    from sevendag_cli.sevendag.exact import initiative_probability
    from sevendag_cli.sevendag.game import game_for

    m = sd.matchup(path, "ysolde")
    game = game_for(m.ruleset, m.a, m.b)
    p_a = float(initiative_probability(m.ruleset, m.a, m.b))
    keys = [game.start_key(0), game.start_key(1)]
    sol = game.solve(keys[0], m.ruleset.round_cap, ("sheet", "sheet"), 1e-10, keys[1:])
    value = p_a * sol.value_at(keys[0])[0] + (1 - p_a) * sol.value_at(keys[1])[0]
    got = ruled_doc["fighters"][0]["win_probability"] + ruled_doc["draw_probability"] / 2
    assert abs(got - value) <= 1e-8


def test_S03_the_table_odds_play_a_ruled_sheet() -> None:
    path = edited_sheet("brannoc", RULED_SHEET)
    assert run("init", path, "ysolde", "--seed", "1").exit_code == 0
    for args in (("odds",), ("round", "--odds", "--seed", "2")):
        result = run(*args)
        assert result.exit_code == 0, result.stderr
    assert run("round", "--seed", "3").exit_code == 0


# --- --tactic, the prompts, the log ----------------------------------------------------------


def test_S03_S05_tactic_states_the_rules_and_the_changes_say_so() -> None:
    result = run("fight", "--seed", "3", "--json", "--tactic",
                 "Brannoc=all-out;technique=feint@attacking;yield=behind")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [(c["field"], c["value"]) for c in doc["changes"]] == [
        ("tactic", "all-out"), ("technique.name", "feint"), ("technique.when", "attacking"),
        ("yield", "behind")]
    # French words, the tactic left out; then "none" takes the technique rule away
    fr = run("fight", "--seed", "3", "--json", "--tactic",
             "Brannoc=technique=feinte@en défense;yield=toujours")
    assert [(c["field"], c["value"]) for c in json.loads(fr.stdout)["changes"]] == [
        ("technique.name", "feinte"), ("technique.when", "defending"), ("yield", "always")]
    played = [e for r in json.loads(fr.stdout)["rounds"] for e in r["events"] if e["type"] == "sheet-rule"]
    assert played  # Brannoc always yields when it holds the initiative, or starts its feint
    # the old forms are unchanged, byte for byte
    old = run("fight", "--seed", "3", "--json", "--tactic", "Brannoc=all-out")
    new = run("fight", "--seed", "3", "--json", "--tactic", "Brannoc=all-out;yield=never")
    assert json.loads(old.stdout)["rounds"] == json.loads(new.stdout)["rounds"]


@pytest.mark.parametrize(("value", "words"), [
    ("Brannoc=all-out;colour=red", "technique=NAME"),
    ("Brannoc=yield=maybe", "never, always, behind"),
    ("Brannoc=technique=feint@later", "attacking, defending, always"),
    ("Brannoc=technique=kick", "unknown technique 'kick'"),
    ("Brannoc=all-out;full-defence", "weapons-attack"),
])
def test_S03_S05_a_wrong_rule_in_tactic_is_one_line(value: str, words: str) -> None:
    result = run("fight", "--seed", "1", "--tactic", value)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "--tactic" in lines[0], result.stderr


class Answers:
    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    def __call__(self, question: str) -> str:
        self.asked.append(question)
        return self.answers.pop(0)


def test_S03_S05_enter_at_the_prompts_keeps_the_sheets_rules() -> None:
    a = ruled(BRANNOC, "always", "feint", "attacking")
    state = state_of(a, YSOLDE, a.name)
    answers = Answers("", "", "", "", "")  # yield, hands and technique of each fighter
    choices = ask_sevendag_choices(RS, a, YSOLDE, state, None, {}, {}, "en", answers, lambda _: None)
    assert "[Y/n]" in answers.asked[0]  # the sheet yields: Enter is yes
    assert "[feint]" in answers.asked[2]
    assert choices.yield_initiative is None and a.name not in choices.technique
    result, _ = engine.play_round(RS, a, YSOLDE, state, SeededDice(1), choices)
    assert [e.choice for e in of(result, SheetRuleEvent)] == ["yield", "technique"]
    # "n" and "none": the players decide against the sheet
    answers = Answers("n", "", "none", "", "")
    choices = ask_sevendag_choices(RS, a, YSOLDE, state, None, {}, {}, "en", answers, lambda _: None)
    assert choices.yield_initiative is False and choices.technique[a.name] is None
    # a plain sheet: as before (no yield, nothing recorded for a technique left out)
    answers = Answers("", "", "", "", "")
    choices = ask_sevendag_choices(RS, BRANNOC, YSOLDE, state_of(BRANNOC, YSOLDE, BRANNOC.name),
                                   None, {}, {}, "en", answers, lambda _: None)
    assert "[y/N]" in answers.asked[0]
    assert choices.yield_initiative is False and choices.technique == {}


def test_S03_S05_the_log_keeps_what_was_left_to_the_sheet() -> None:
    data = choices_to_data(Choices(None, {}, {"Brannoc": None}))
    assert data == {"yield": None, "allocation": {}, "technique": {"Brannoc": None}}
    back = BACKEND.table.choices_from_data(data)
    assert back == Choices(None, {}, {"Brannoc": None})
    assert choices_to_data(Choices(False)) == {"yield": False, "allocation": {}, "technique": {}}
    # in an encounter: the yield is left to the assaillant's sheet when it has a yield rule
    path = edited_sheet("brannoc", RULED_SHEET)
    encounter = Path("encounter.sevendag.json")
    assert run("init", path, "ysolde", "--seed", "1").exit_code == 0
    holders = []
    for args in (("--seed", "2"), ("--seed", "3", "--technique", "Brannoc=none"),
                 ("--seed", "4")):
        holders.append(json.loads(encounter.read_text("utf-8"))["state"]["assaillant"])
        assert run("round", *args).exit_code == 0
    log = json.loads(encounter.read_text("utf-8"))["log"]
    assert "Brannoc" in holders and "Ysolde" in holders
    assert [s["choices"]["yield"] for s in log[1:]] == [
        None if h == "Brannoc" else False for h in holders]
    assert [s["choices"]["technique"] for s in log[1:]] == [{}, {"Brannoc": None}, {}]
    assert run("log").exit_code == 0  # replayed from the log


@pytest.mark.slow
def test_S03_S05_outputs_with_sheet_rules_match_their_schemas() -> None:
    """fight --json / --jsonl, round --json, log --json and the encounter file, with a sheet
    that yields and one that starts a technique by rule (``sheet-rule`` events, null yields)."""
    from tests.helpers import validate

    brannoc = edited_sheet("brannoc", ('tactic = "weapons-attack"',
                                       'tactic = "weapons-attack"\nyield = "always"'))
    ysolde = edited_sheet("ysolde", ('tactic = "weapons-attack"',
                                     'tactic = "weapons-attack"\ntechnique = { name = "feint" }'))
    doc = json.loads(run("fight", brannoc, ysolde, "--seed", "5", "--json").stdout)
    validate("fight", doc)
    kinds = {e["type"] for r in doc["rounds"] for e in r["events"]}
    assert "sheet-rule" in kinds
    for line in run("fight", brannoc, ysolde, "--seed", "5", "--jsonl").stdout.splitlines():
        validate("fight-event", json.loads(line))
    assert run("init", brannoc, ysolde, "--seed", "1").exit_code == 0
    for seed in ("2", "3"):
        validate("round", json.loads(run("round", "--seed", seed, "--json").stdout))
    validate("log", json.loads(run("log", "--json").stdout))
    validate("encounter", json.loads(Path("encounter.sevendag.json").read_text("utf-8")))
