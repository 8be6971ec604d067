"""The table: ``init``, ``round``, ``wound`` and ``undo`` on the saved encounter.

Each command locks the encounter file, rebuilds its ruleset, fighters and
state (:func:`open_encounter`), calls the engine, saves the new state
atomically and renders the result.  A command that fails saves nothing.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sevendag_cli.errors import EncounterError, Msg, SevendagError, UsageError, joined
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
    ManualOpt,
    RulesetOpt,
    SeedOpt,
    check_fighter_count,
    pick_ruleset_doc,
)
from sevendag_cli.output import Output, make_dice, make_output, note, renderer, report_seed

if TYPE_CHECKING:
    from sevendag_cli.rules import Fighter, Ruleset
    from sevendag_cli.sim.moment import OddsSolver
    from sevendag_cli.sim.swing import OddsPoint
    from sevendag_cli.store import Encounter

app = typer.Typer()




# --- the saved encounter --------------------------------------------------------------


def open_encounter(path: Path) -> tuple[Encounter, Ruleset, Fighter, Fighter, Any]:
    """Load the encounter, rebuild its ruleset, fighters and state (each check named)."""
    from sevendag_cli import store
    from sevendag_cli.data import Problems
    from sevendag_cli.engine import engine_for
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
    engine = engine_for(rs)
    state = engine.state_from_data(enc.state)
    return enc, rs, a, b, state


def open_read_only(path: Path, lang: str) -> tuple[Encounter, Ruleset, Fighter, Fighter, Any]:
    """``status`` and ``log``: the encounter read under a shared lock, nothing written or made.

    When another command is changing the encounter, it is read as last saved
    (saves are atomic: a whole encounter) and a note says so.
    """
    from sevendag_cli import store

    require_encounter(path)
    with store.read_locked(path) as free:
        loaded = open_encounter(path)
    if not free:
        note(Msg("store.read_while_busy", path=path).render(lang))
    return loaded


def require_encounter(path: Path) -> None:
    """A missing encounter is one line that says how to start one."""
    from sevendag_cli.store import require_encounter as require

    require(path)


def _refuse_overwrite(path: Path) -> None:
    """``init`` without ``--force`` replaces only a finished encounter."""
    from sevendag_cli import store

    try:
        current = store.load(path)
    except EncounterError:
        raise EncounterError(Msg("cli.overwrite_unreadable", path=path)) from None
    if not current.state.get("over", False):
        raise EncounterError(Msg("cli.in_progress", path=path))


# --- init ---------------------------------------------------------------------------


@app.command("init")
def init_cmd(
    fighters: FightersArg = None,
    ruleset: RulesetOpt = None,
    encounter: EncounterOpt = DEFAULT_ENCOUNTER,
    seed: SeedOpt = None,
    dice: DiceOpt = None,
    manual: ManualOpt = False,
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
        from sevendag_cli import store
        from sevendag_cli.engine import engine_for
        from sevendag_cli.history import init_entry
        from sevendag_cli.render.data import init_document
        from sevendag_cli.rules import pair_docs, pair_from_docs

        out = make_output(json_, False, lang, jsonl_allowed=False)
        refs = check_fighter_count(fighters)
        rs, rs_path, rs_data = pick_ruleset_doc(ruleset, refs)
        docs = pair_docs(rs, refs)
        a, b = pair_from_docs(rs, docs)
        choice = make_dice(seed, dice, manual, out, continue_after=False)
        engine = engine_for(rs)
        from sevendag_cli.engine.common import RecordingDice

        rec = RecordingDice(choice.source)
        init, state = engine.start(rs, a, b, rec)
        if choice.entered is not None:
            choice.entered.check_all_used()
        enc = store.Encounter(
            ruleset={"name": rs.name, "path": rs_path, "data": rs_data},
            fighters=({"path": docs[0][0], "data": docs[0][1]},
                      {"path": docs[1][0], "data": docs[1][1]}),
            state=engine.state_to_data(state),
            log=(init_entry(choice.seed, init.leader, tuple(rec.rolls)),),
        )
        start_odds = None
        with store.locked(encounter):
            if encounter.exists() and not force:
                _refuse_overwrite(encounter)
            if odds:  # the tables are built once here and kept: each round --odds is then a look-up
                start_odds, enc = _odds_at_init(enc, rs, a, b, state)
            store.save(encounter, enc)
        states = engine.fighter_states(state)
        if out.json:
            doc = init_document(init, tuple(rec.rolls), states, rs.name, choice.seed,
                                str(encounter))
            if start_odds is not None:
                from sevendag_cli.render.odds_data import moment_odds

                moment, solver = start_odds
                doc["odds"] = moment_odds(moment, rs.engine, solver.cap, solver.tolerance)
            out.data(doc)
            return
        r = renderer(out, rs)
        r.initiative(init)
        r.states(states)
        if start_odds is not None:
            from sevendag_cli.render.rich_odds import odds_line

            odds_line(r.c, out.lang, start_odds[0])
        report_seed(out, choice)
        note(t("saved", out.lang, path=encounter))


def _odds_at_init(enc: Encounter, rs: Ruleset, a: Fighter, b: Fighter,
                  state: Any) -> tuple[tuple[OddsPoint, OddsSolver], Encounter]:
    """``init --odds``: the odds from the state saved (as ``odds_data.moment_odds``), and the
    encounter keeping the solver's tables."""
    from sevendag_cli.sim.swing import point
    from sevendag_cli.table_odds import keep_work, keeping, solver_for

    solver = solver_for(enc, rs, a, b)
    keep_work(solver)
    return (point(solver(state), state.round), solver), keeping(enc)


# --- round ----------------------------------------------------------------------------


@app.command("round")
def round_cmd(
    encounter: EncounterOpt = DEFAULT_ENCOUNTER,
    seed: SeedOpt = None,
    dice: DiceOpt = None,
    manual: ManualOpt = False,
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
                     help="Sevendag: NAME=TECHNIQUE (a technique's key or name, e.g. feint or feinte)."),
    ] = None,
    no_input: Annotated[
        bool, typer.Option("--no-input", help="Never ask: use the sheets' tactics.")
    ] = False,
    odds: Annotated[
        bool, typer.Option("--odds", help="Show each fighter's chance to win before and after "
                           "the round (off by default: the game master decides what the players see).")
    ] = False,
    json_: JsonOpt = False,
    jsonl: JsonlOpt = False,
    lang: LangOpt = None,
) -> None:
    """Resolve the next round of the encounter, step by step, and save it.

    Example: sevendag round --dice 8,18,17,3,3 --json  ·  sevendag round --odds
    """
    with handled(lang):
        from sevendag_cli import store
        from sevendag_cli.engine import engine_for
        from sevendag_cli.history import round_entry

        out = make_output(json_, jsonl, lang)
        require_encounter(encounter)
        with store.locked(encounter):
            enc, rs, a, b, state = open_encounter(encounter)
            if state.over:
                from sevendag_cli.engine.common import over_message

                raise EncounterError(Msg("common.at_path", path=encounter,
                                         message=over_message(state.winner)))
            engine = engine_for(rs)
            solver = None
            if odds:  # before anything is rolled: odds that cannot be computed change nothing
                from sevendag_cli.table_odds import keep_work, solver_for

                solver = solver_for(enc, rs, a, b)
                keep_work(solver)  # built and kept here if the user's cache has none yet
                before = solver(state)
            choices = None
            if rs.engine == "sevendag":
                interactive = sys.stdin.isatty() and out.rich and not no_input
                choices = sevendag_choices(rs, a, b, state, yield_, allocate, technique,
                                           interactive, out.lang)
            elif yield_ is not None or allocate or technique:
                raise UsageError(Msg("cli.d20_no_choices"))
            choice = make_dice(seed, dice, manual, out, continue_after=False)
            result, new_state = engine.play_round(rs, a, b, state, choice.source, choices)
            if choice.entered is not None:
                choice.entered.check_all_used()
            moments = None
            if solver is not None:  # the solver rolls no dice: the entered ones are all the round's
                from sevendag_cli.render.odds_data import round_odds
                from sevendag_cli.sim.swing import point
                from sevendag_cli.table_odds import keeping

                moments = (point(before, state.round), point(solver(new_state), new_state.round))
                odds_doc = round_odds(*moments, rs.engine, solver.cap, solver.tolerance)
                enc = keeping(enc)
            entry = round_entry(result, choice.seed, choices)
            store.save(encounter, enc.step(engine.state_to_data(new_state), entry))
        if out.json:
            from sevendag_cli.render.data import round_document

            doc = round_document(result, rs.name, choice.seed, str(encounter))
            if moments is not None:
                doc["odds"] = odds_doc
            out.data(doc)
        elif out.jsonl:
            from sevendag_cli.render.data import round_events

            lines = round_events(result, rs.name, choice.seed)
            if moments is not None:
                lines.append({"type": "odds", "round": result.number, **odds_doc})
            out.lines(lines)
        else:
            r = renderer(out, rs)
            r.round(result)
            if moments is not None:
                from sevendag_cli.render.rich_odds import odds_line

                odds_line(r.c, out.lang, moments[1], moments[0])
            report_seed(out, choice)
            if result.over:
                note(t("fight_over", out.lang))


def parse_assignments(values: list[str] | None, option: str) -> dict[str, str]:
    """``NAME=VALUE`` options (``--allocate``, ``--technique``) by fighter name."""
    out: dict[str, str] = {}
    for v in values or []:
        name, sep, rest = v.partition("=")
        if not sep or not name.strip() or not rest.strip():
            raise UsageError(Msg("cli.assignment", option=option, value=v))
        out[name.strip()] = rest.strip()
    return out


def sevendag_choices(
    rs: Any, a: Any, b: Any, state: Any, yield_: bool | None, allocate: list[str] | None,
    technique: list[str] | None, interactive: bool, lang: str,
) -> Any:
    """The Sevendag choices of the round: from the options, and asked at a terminal (``interactive``)."""
    from sevendag_cli.sevendag import engine
    from sevendag_cli.terms import commitments, find_name

    names = (a.name, b.name)

    def who(given: str) -> str:
        name = find_name(given, names)  # any case: -a brannoc=...
        if name is None:
            raise UsageError(Msg("engine.no_fighter", name=given, names=joined(names)))
        return name

    # commitments and techniques as typed, in either language and any case (a,d; Défense; feinte)
    # become keys; what matches nothing is refused by the engine, named as typed
    allocation = {who(n): commitments(v)
                  for n, v in parse_assignments(allocate, "--allocate").items()}
    tech = {who(n): rs.technique_named(v) or v
            for n, v in parse_assignments(technique, "--technique").items()}
    if interactive:
        from sevendag_cli.render.prompts import ask_sevendag_choices

        return ask_sevendag_choices(rs, a, b, state, yield_, allocation, tech, lang)
    return engine.Choices(yield_initiative=bool(yield_), allocation=allocation, technique=tech)


# --- wound ------------------------------------------------------------------------------


@app.command("wound", context_settings={"ignore_unknown_options": True})
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
        from sevendag_cli import store
        from sevendag_cli.engine import engine_for
        from sevendag_cli.history import judgement_entry
        from sevendag_cli.render.data import wound_document

        number, band = wound_amount(amount)
        require_encounter(encounter)
        with store.locked(encounter):
            enc, rs, a, b, state = open_encounter(encounter)
            if ruleset is not None and ruleset not in (rs.name, rs.engine):
                raise UsageError(Msg("cli.other_ruleset", ruleset=ruleset, used=rs.name))
            from sevendag_cli.terms import find_name

            fighter = find_name(fighter, (a.name, b.name)) or fighter  # any case: ``wound ysolde 5``
            engine = engine_for(rs)
            apply = engine.apply_wound if heal is None else engine.apply_heal
            result, new_state = apply(rs, a, b, state, fighter, number, band)
            entry = judgement_entry(result, heal is not None)
            store.save(encounter, enc.step(engine.state_to_data(new_state), entry))
        if out.json:
            out.data(wound_document(result, rs.name, str(encounter)))
            return
        renderer(out, rs).wound(result)


def wound_amount(text: str, option: str = "AMOUNT") -> tuple[int | None, str | None]:
    """``wound``'s AMOUNT: a whole number within the value bound (else a usage mistake), or a band name."""
    from sevendag_cli.limits import INT_LIMIT
    from sevendag_cli.text import ascii_int, is_ascii_int

    try:
        number = ascii_int(text)
    except ValueError:
        if not is_ascii_int(text):
            return None, text  # a band name
        number = INT_LIMIT + 1  # more digits than Python reads: beyond the bound anyway
    if not -INT_LIMIT <= number <= INT_LIMIT:
        shown = text if len(text) <= 40 else text[:40] + "…"
        raise UsageError(Msg("cli.amount_range", option=option, amount=shown, limit=INT_LIMIT))
    return number, None


def _classify(amount: int, ruleset: str | None, out: Output) -> None:
    from sevendag_cli.i18n import label
    from sevendag_cli.rules import SevendagRuleset, load_ruleset

    wound_amount(str(amount), "--classify")

    rs = load_ruleset(ruleset or "sevendag")
    if not isinstance(rs, SevendagRuleset):
        raise UsageError(Msg("cli.classify_d20", name=rs.name))
    band = rs.band_for(amount)
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


@app.command("undo")
def undo_cmd(
    encounter: EncounterOpt = DEFAULT_ENCOUNTER,
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Take back the last round, wound or heal of the encounter.

    Example: sevendag undo
    """
    with handled(lang):
        from sevendag_cli import store
        from sevendag_cli.engine import engine_for
        from sevendag_cli.history import is_heal, summary
        from sevendag_cli.render.data import header, state_data

        out = make_output(json_, False, lang, jsonl_allowed=False)
        require_encounter(encounter)
        with store.locked(encounter):
            enc, rs, _a, _b, _state = open_encounter(encounter)
            previous, undone = enc.undo()
            engine = engine_for(rs)
            state = engine.state_from_data(previous.state)
            store.save(encounter, previous)
        states = engine.fighter_states(state)
        if out.json:
            out.data({**header("undo", rs.name, None), "encounter": str(encounter),
                      "undone": summary(undone), "fighters": [state_data(s) for s in states]})
            return
        what = undone.get("step", "?")
        if what == "round":
            what = t("round", out.lang, n=undone.get("round"))
        elif is_heal(undone):
            what = t("step_heal", out.lang, name=str(undone.get("fighter")))
        elif what == "wound":
            what = t("step_wound", out.lang, name=str(undone.get("fighter")))
        note(t("undone", out.lang, what=what))
        renderer(out, rs).states(states)

