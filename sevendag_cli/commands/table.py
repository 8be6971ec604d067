"""The table: ``init``, ``round``, ``wound`` and ``undo`` on the saved encounter.

Each command reads its options, calls the library's :class:`sevendag_cli.encounter.Encounter`
(which locks the encounter file, rebuilds its ruleset, fighters and state, calls the engine
and saves the new state atomically: a call that fails saves nothing) and renders the result.
What is asked at a terminal (``--manual`` dice, the Sevendag choices) is asked here, through
the functions the library is given.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sevendag_cli.commandline import SevendagCommand
from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.failure import handled
from sevendag_cli.i18n import t
from sevendag_cli.options import (
    DEFAULT_ENCOUNTER,
    DiceOpt,
    EncounterOpt,
    FightersArg,
    JsonlOpt,
    JsonOpt,
    LangOpt,
    ManualForOpt,
    ManualOpt,
    RoundManualOpt,
    RulesetOpt,
    SeedOpt,
    check_fighter_count,
)
from sevendag_cli.output import (
    Output,
    make_dice,
    make_output,
    note,
    players,
    renderer,
    report_seed,
)

if TYPE_CHECKING:
    from sevendag_cli.backend import Choices, State
    from sevendag_cli.encounter import Ask, RoundPlayed
    from sevendag_cli.library import DiceChoice
    from sevendag_cli.rules import Fighter, Ruleset
    from sevendag_cli.store import SavedEncounter

app = typer.Typer()


# --- the saved encounter: the library's (sevendag_cli.encounter) ---------------------------


def open_encounter(path: Path) -> tuple[SavedEncounter, Ruleset, Fighter, Fighter, Any]:
    """Load the encounter, rebuild its ruleset, fighters and state (each check named)."""
    from sevendag_cli.encounter import load

    loaded = load(path)
    return loaded.saved, loaded.ruleset, loaded.a, loaded.b, loaded.state


def busy_note(busy: bool, path: Path, lang: str) -> None:
    """``status``, ``log`` and ``odds``: the encounter was read as last saved (a writer was at work)."""
    if busy:
        note(Msg("store.read_while_busy", path=path).render(lang))


# --- init ---------------------------------------------------------------------------


@app.command("init", cls=SevendagCommand)
def init_cmd(
    fighters: FightersArg = None,
    ruleset: RulesetOpt = None,
    encounter: EncounterOpt = DEFAULT_ENCOUNTER,
    seed: SeedOpt = None,
    dice: DiceOpt = None,
    manual: ManualOpt = False,
    manual_for: ManualForOpt = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an encounter that is still in progress.")
    ] = False,
    odds: Annotated[
        bool, typer.Option("--odds", help="Show each fighter's chance to win from the start, and "
                           "keep the solver's tables in the encounter (round --odds is then fast).")
    ] = False,
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Start an encounter: roll initiative and save the encounter file.

    Example: sevendag init --ruleset d20 --dice 19,5
    """
    with handled(lang):
        from sevendag_cli.encounter import Encounter as Table

        out = make_output(json_, False, lang, jsonl_allowed=False)
        if manual and fighters and len(fighters) % 2:  # init --manual Brannoc: one player's dice?
            raise UsageError(Msg("cli.init_manual_name", name=fighters[-1]))
        given = check_fighter_count(fighters)
        a, b = (given[0], given[1]) if given else (None, None)
        asked: tuple[str, ...] = ()
        if manual_for:  # the players who roll their own dice: fighters of this encounter
            from sevendag_cli.library import Matchup

            pair = Matchup.load(given, ruleset)
            asked = players(manual_for, (pair.a.name, pair.b.name))
        choice: list[DiceChoice] = []

        def roll() -> DiceChoice:
            choice.append(make_dice(seed, dice, manual, out, continue_after=False, manual_for=asked))
            return choice[0]

        started = Table.start(a, b, ruleset, path=encounter, dice=roll, force=force,
                              odds=odds).started
        assert started is not None
        if out.json:
            out.data(started.to_dict())
            return
        r = renderer(out, started.ruleset)
        r.initiative(started.initiative)
        r.states(started.states)
        if started.odds is not None:
            from sevendag_cli.render.rich_odds import odds_line

            odds_line(r.c, out.lang, started.odds[0])
        report_seed(out, choice[0])
        note(t("saved", out.lang, path=encounter))


# --- round ----------------------------------------------------------------------------


@app.command("round", cls=SevendagCommand)
def round_cmd(
    encounter: EncounterOpt = DEFAULT_ENCOUNTER,
    seed: SeedOpt = None,
    dice: DiceOpt = None,
    manual: RoundManualOpt = False,
    manual_for: ManualForOpt = None,
    yield_: Annotated[
        bool | None,
        typer.Option("--yield/--no-yield",
                     help="Sevendag: the assailant lets the opponent act first (S-03)."),
    ] = None,
    allocate: Annotated[
        list[str] | None,
        typer.Option("--allocate", "-a",
                     help="Sevendag: NAME=attack,defence or NAME=a,d "
                          "(one per hand, in order; English or French)."),
    ] = None,
    technique: Annotated[
        list[str] | None,
        typer.Option("--technique", "-t",
                     help="Sevendag: NAME=TECHNIQUE (a technique's key or name, e.g. feint or "
                          "feinte), or NAME=none (no technique, whatever the sheet's rule)."),
    ] = None,
    no_input: Annotated[
        bool, typer.Option("--no-input", help="Never ask: use the sheets' tactics and rules.")
    ] = False,
    ask_for: Annotated[
        list[str] | None,
        typer.Option("--ask", metavar="NAME",
                     help="Sevendag, at a terminal: ask only this fighter's choices (its yield when "
                          "it is the assailant, its hands, its technique; repeat for each player); "
                          "the others play their sheets' tactics and rules."),
    ] = None,
    odds: Annotated[
        bool, typer.Option("--odds", help="Show each fighter's chance to win before and after "
                           "the round (off by default: the game master decides what the players see).")
    ] = False,
    advise: Annotated[
        bool, typer.Option("--advise", help="Sevendag: before the round, show every option of the "
                           "assailant with its chance to win (as the advise command).")
    ] = False,
    tactic: Annotated[
        list[str] | None,
        typer.Option("--tactic", help="With --odds: how the odds assume a fighter plays from now "
                     "on: FIGHTER=optimal (the best declaration every round) or FIGHTER=sheet; "
                     "--tactic optimal for both. The round itself is played as declared."),
    ] = None,
    json_: JsonOpt = False,
    jsonl: JsonlOpt = False,
    lang: LangOpt = None,
) -> None:
    """Resolve the next round of the encounter, step by step, and save it.

    Example: sevendag round --dice 8,18,17,3,3 --json  ·  sevendag round --odds
    ·  sevendag round --odds --tactic Brannoc=optimal  ·  sevendag round --ask Ysolde
    """
    with handled(lang):
        from sevendag_cli.encounter import Encounter as Table

        out = make_output(json_, jsonl, lang)
        ask = _round_ask(out, ask_for, encounter, no_input)
        if advise:
            _advise_before_round(out, encounter)
        asked: tuple[str, ...] = ()
        if manual_for:  # the players who roll their own dice: fighters of this encounter
            from sevendag_cli.encounter import load

            loaded = load(encounter)
            asked = players(manual_for, (loaded.a.name, loaded.b.name))
        choice: list[DiceChoice] = []

        def roll() -> DiceChoice:
            choice.append(make_dice(seed, dice, manual, out, continue_after=False, manual_for=asked))
            return choice[0]

        played = Table(encounter).round(dice=roll, yield_initiative=yield_, allocate=allocate,
                                        technique=technique, ask=ask, odds=odds, tactic=tactic)
        _show_round(out, played, choice[0])


def _round_ask(out: Output, ask_for: list[str] | None, encounter: Path,
               no_input: bool) -> Ask | None:
    """How ``round`` asks what the options did not say: at a terminal, in the display (or for
    the players named by ``--ask``), unless ``--no-input``; else None (the sheets decide)."""
    only: tuple[str, ...] | None = None
    if ask_for:  # the players asked for their own choices: fighters of this encounter
        only = _asked_players(ask_for, encounter, no_input)
    if not sys.stdin.isatty() or not (out.rich or only is not None) or no_input:
        return None

    def ask(rs: Ruleset, a: Fighter, b: Fighter, state: State, yield_: bool | None,
            allocation: dict[str, tuple[str, ...]],
            technique: dict[str, str | None]) -> Choices | None:
        from sevendag_cli.backend import backend_for

        return backend_for(rs).table.prompt_choices(rs, a, b, state, yield_, allocation,
                                                    technique, out.lang, only=only)

    return ask


def _advise_before_round(out: Output, encounter: Path) -> None:
    """``round --advise``: every option of the assailant with its chance to win; in a ruleset
    that leaves no choice, the one line saying so, and the round goes on."""
    from sevendag_cli.backend import backend_for
    from sevendag_cli.encounter import Encounter as Table
    from sevendag_cli.encounter import load

    if not out.rich:
        raise UsageError(Msg("advise.round_json"))
    from sevendag_cli.render.rich_advise import advise_lines

    try:
        advice = Table(encounter).advise()
    except UsageError as e:
        if backend_for(load(encounter).ruleset).has_choices():
            raise
        note(f"sevendag: {e.render(out.lang)}")  # nothing to choose: the round goes on
    else:
        advise_lines(out.console(), out.lang, advice)


def _show_round(out: Output, played: RoundPlayed, choice: DiceChoice) -> None:
    """The round played: its notes on stderr, then its JSON, its events or its display."""
    for message in played.notes:
        note(f"sevendag: {message.render(out.lang)}")
    if out.json:
        out.data(played.to_dict())
    elif out.jsonl:
        out.lines(played.events())
    else:
        r = renderer(out, played.ruleset, played.fighters)
        r.round(played.result)
        if played.odds is not None:
            from sevendag_cli.render.rich_odds import odds_line

            odds_line(r.c, out.lang, played.odds[1], played.odds[0], played.policies)
        report_seed(out, choice)
        if played.result.over:
            note(t("fight_over", out.lang))


def _asked_players(given: list[str], encounter: Path, no_input: bool) -> tuple[str, ...]:
    """``round --ask NAME``: fighters of this encounter, in a ruleset with choices, asked at a
    terminal (each refused in one line otherwise)."""
    from sevendag_cli.backend import backend_for
    from sevendag_cli.encounter import load

    if no_input:
        raise UsageError(Msg("cli.ask_no_input"))
    loaded = load(encounter)
    asked = players(given, (loaded.a.name, loaded.b.name))
    if not backend_for(loaded.ruleset).has_choices():
        raise UsageError(Msg("cli.ask_no_choices", ruleset=loaded.ruleset.name))
    if not sys.stdin.isatty():
        raise UsageError(Msg("cli.ask_terminal"))
    return asked


# --- wound ------------------------------------------------------------------------------


@app.command("wound", context_settings={"ignore_unknown_options": True}, cls=SevendagCommand)
def wound_cmd(
    fighter: Annotated[str | None, typer.Argument(help="The fighter to wound (or heal).")] = None,
    amount: Annotated[
        str | None,
        typer.Argument(help="d20: damage off HP (negative heals). Sevendag: damage, or a band name."),
    ] = None,
    classify: Annotated[
        int | None, typer.Option("--classify", help="Only name the wound band of this much damage.")
    ] = None,
    heal: Annotated[
        str | None,
        typer.Option("--heal", help="Heal instead (S-16). d20: hit points back. Sevendag: the last "
                     "wound of a band (its name, or the damage that gave it); its penalty goes too."),
    ] = None,
    ruleset: RulesetOpt = None,
    encounter: EncounterOpt = DEFAULT_ENCOUNTER,
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Apply a game master's judgement by hand (S-16), or name a wound band.

    Examples: sevendag wound B 5  ·  sevendag wound Brannoc serious  ·  sevendag wound --classify 17

    Examples: sevendag wound Brannoc --heal light  ·  sevendag wound B --heal 5
    """
    with handled(lang):
        out = make_output(json_, False, lang, jsonl_allowed=False)
        if classify is not None:
            if fighter is not None or amount is not None:
                raise UsageError(Msg("cli.classify_alone"))
            _classify(classify, ruleset, out)
            return
        if heal is not None:
            if fighter is None:
                raise UsageError(Msg("cli.heal_args"))
            if amount is not None:
                raise UsageError(Msg("cli.heal_and_amount"))
            amount = heal
        if fighter is None or amount is None:
            raise UsageError(Msg("cli.wound_args"))
        from sevendag_cli.encounter import Encounter as Table

        done = Table(encounter).wound(fighter, amount, heal=heal is not None, ruleset=ruleset)
        if out.json:
            out.data(done.to_dict())
            return
        renderer(out, done.ruleset, done.fighters).wound(done.result)


def wound_amount(text: str, option: str = "AMOUNT") -> tuple[int | None, str | None]:
    """``wound``'s AMOUNT: a whole number within the value bound (else a usage mistake), or a band name."""
    from sevendag_cli.encounter import wound_amount as amount

    return amount(text, option)


def _classify(amount: int, ruleset: str | None, out: Output) -> None:
    from sevendag_cli.backend import DEFAULT_RULESET, backend_for
    from sevendag_cli.i18n import label
    from sevendag_cli.rules import load_ruleset

    wound_amount(str(amount), "--classify")

    rs = load_ruleset(ruleset or DEFAULT_RULESET)
    band = backend_for(rs).table.classify(rs, amount)
    if out.json:
        from sevendag_cli.render.data import header

        out.data({**header("classify", rs.name, None), "amount": amount,
                  "band": band.name if band else None,
                  "label": label(band.label, out.lang) if band else None})
        return
    text = (t("band_is", out.lang, n=amount, band=label(band.label, out.lang)) if band
            else t("no_wound", out.lang, n=amount))
    print(text)



# --- undo -------------------------------------------------------------------------------


@app.command("undo", cls=SevendagCommand)
def undo_cmd(
    encounter: EncounterOpt = DEFAULT_ENCOUNTER,
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Take back the last round, wound or heal of the encounter.

    Example: sevendag undo
    """
    with handled(lang):
        from sevendag_cli.encounter import Encounter as Table
        from sevendag_cli.history import is_heal

        out = make_output(json_, False, lang, jsonl_allowed=False)
        done = Table(encounter).undo()
        if out.json:
            out.data(done.to_dict())
            return
        undone = done.undone
        what = undone.get("step", "?")
        if what == "round":
            what = t("round", out.lang, n=undone.get("round"))
        elif is_heal(undone):
            what = t("step_heal", out.lang, name=str(undone.get("fighter")))
        elif what == "wound":
            what = t("step_wound", out.lang, name=str(undone.get("fighter")))
        note(t("undone", out.lang, what=what))
        renderer(out, done.ruleset, done.fighters).states(done.states)
