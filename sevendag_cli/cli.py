"""The ``sevendag`` command: thin commands over the engine.

Each command parses its options, builds the dice source, calls the engine and
hands the result to a renderer (Rich for people, JSON for tools).  Rich and
numpy are imported only where a command needs them, so ``--json`` starts fast.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer.core import TyperGroup

from sevendag_cli import __version__
from sevendag_cli.dice import (
    DiceSource,
    EnteredDice,
    ManualDice,
    SeededDice,
    check_seed,
    fresh_seed,
    parse_faces,
)
from sevendag_cli.errors import EncounterError, Msg, SevendagError, UsageError, joined
from sevendag_cli.i18n import LANGS, detect_lang, t

if TYPE_CHECKING:
    from rich.console import Console

    from sevendag_cli.render.rich_render import RichRenderer
    from sevendag_cli.rules import Fighter, Ruleset
    from sevendag_cli.store import Encounter


# --- one-line errors ----------------------------------------------------------


def fail(message: str | Msg, code: int, lang: str = "en") -> NoReturn:
    """One line on stderr, ``sevendag: error: `` then the message in ``lang``; exit ``code``.

    The prefix is the same in every language, so scripts can look for it.
    """
    text = message.render(lang) if isinstance(message, Msg) else message
    sys.stderr.write(f"sevendag: error: {text}\n")
    sys.stderr.flush()
    raise SystemExit(code)


def lang_of_args(args: Any) -> str:
    """The language asked with ``--lang`` on the command line, else from the environment.

    For errors found before the options are parsed (an unknown option, a bad value).
    """
    argv = [str(a) for a in (sys.argv[1:] if args is None else args)]
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        value = argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else (
            arg.partition("=")[2] if arg.startswith("--lang=") else None)
        if value in LANGS:
            return value
    return detect_lang()


def usage_message(exc: Any, lang: str) -> str:
    """A Typer/Click usage error as one line in ``lang`` (English: Click's own text)."""
    text: str | Msg = exc.format_message()
    if lang != "en":
        translated = _translate_usage(exc)
        if translated is not None:
            text = translated
    ctx = getattr(exc, "ctx", None)
    if ctx is None:
        return text.render(lang) if isinstance(text, Msg) else text
    command = " ".join(["sevendag", *ctx.command_path.split()[1:]])
    return Msg("cli.see_help", message=text, command=command).render(lang)


def _hint(exc: Any) -> str:
    hint: Any = exc.param_hint
    if hint is None and exc.param is not None:
        try:
            hint = exc.param.get_error_hint(exc.ctx)  # Click's signature
        except TypeError:
            hint = exc.param.get_error_hint()  # Typer 0.29's vendored Click
    if hint is None:
        return ""
    return hint if isinstance(hint, str) else " / ".join(repr(h) for h in hint)


def _translate_usage(exc: Any) -> Msg | None:
    """The message of a usage error, from its class and parameters; None: keep Click's.

    Classes are recognised by name (Typer vendors Click's exceptions privately).
    """
    import re

    kinds = {c.__name__ for c in type(exc).__mro__}
    if "NoSuchOption" in kinds:
        if exc.message != f"No such option: {exc.option_name}":
            return None  # a custom message: shown as it is
        msg = Msg("usage.no_such_option", option=exc.option_name)
        if exc.possibilities:
            return Msg("usage.possible", message=msg, options=", ".join(sorted(exc.possibilities)))
        return msg
    if "MissingParameter" in kinds:
        if exc.message:
            return None
        kind = exc.param_type or (exc.param.param_type_name if exc.param is not None else "parameter")
        key = kind if kind in ("argument", "option") else "parameter"
        return Msg(f"usage.missing_{key}", hint=_hint(exc))
    if "BadParameter" in kinds:
        detail = _translate_value_error(exc)
        if detail is None:
            return None
        return Msg("usage.invalid_value", hint=_hint(exc), message=detail)
    if "BadOptionUsage" in kinds:
        if exc.message == f"Option {exc.option_name!r} requires an argument.":
            return Msg("usage.requires_argument", option=exc.option_name)
        if exc.message == f"Option {exc.option_name!r} does not take a value.":
            return Msg("usage.takes_no_value", option=exc.option_name)
        return None
    if type(exc).__name__ == "UsageError":  # raised by Click with a text only
        m = re.fullmatch(r"Got unexpected extra argument\(s\) \((.*)\)", exc.message, re.S)
        if m:
            return Msg("usage.extra_args", args=m.group(1))
        m = re.fullmatch(r"No such command '(.*)'\.", exc.message, re.S)
        if m:
            return Msg("usage.no_such_command", name=m.group(1))
    return None


def _translate_value_error(exc: Any) -> Msg | None:
    """Why a value was refused, from the validation error behind it (pydantic), if known."""
    cause = exc.__cause__
    errors_of = getattr(cause, "errors", None)
    if errors_of is None:
        return _translate_click_value_error(exc)
    try:
        first = errors_of()[0]
    except (IndexError, TypeError):
        return None
    kind, value = first.get("type"), first.get("input")
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return Msg("usage.not_integer", value=value)
    descriptor = getattr(exc.param, "type_descriptor", None)
    choices = getattr(descriptor, "choices", None) if descriptor is not None else None
    if kind == "value_error" and choices:
        names = ", ".join(repr(getattr(c, "value", c)) for c in choices)
        return Msg("usage.not_choice", value=value, choices=names)
    return None


def _translate_click_value_error(exc: Any) -> Msg | None:
    """Click's own conversion errors (Typer before 0.29): integer and choice parameters."""
    import re

    m = re.fullmatch(r"(.*) is not a valid (?:int|integer)(?: range)?\.", exc.message, re.S)
    if m:
        return Msg("usage.not_integer", value=_unrepr(m.group(1)))
    m = re.fullmatch(r"(.*) is not (?:one of )?(.*)\.", exc.message, re.S)
    choices = getattr(getattr(exc.param, "type", None), "choices", None)
    if m and choices:
        names = ", ".join(repr(getattr(c, "value", c)) for c in choices)
        return Msg("usage.not_choice", value=_unrepr(m.group(1)), choices=names)
    return None


def _unrepr(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" else text


class SevendagGroup(TyperGroup):
    """Usage mistakes (unknown option, bad value) as one line on stderr, exit 2.

    The line is in the language of ``--lang`` if the command line has a valid
    one, else in the environment's (``LANG``...).  In French, ``--help`` is
    French too (:mod:`sevendag_cli.help_fr`).
    """

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        lang = lang_of_args(kwargs.get("args", args[0] if args else None))
        if lang == "fr":
            from sevendag_cli.help_fr import translate

            translate(self)
        try:
            rv = super().main(*args, **kwargs)
        except SevendagError as exc:  # raised outside a command body
            fail(exc.msg, exc.exit_code, lang)
        except KeyboardInterrupt:
            fail(Msg("cli.interrupted"), 130, lang)
        except Exception as exc:
            if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
                fail(usage_message(exc, lang), int(exc.exit_code))
            if type(exc).__name__ == "Abort":
                fail(Msg("cli.aborted"), 1, lang)
            raise
        raise SystemExit(rv if isinstance(rv, int) else 0)


app = typer.Typer(
    cls=SevendagGroup,
    help="Combat resolver for Sevendag and Le combat (d20): initiative, rounds, wounds, "
    "whole fights and their odds.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        print(f"sevendag {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """Combat resolver for Sevendag and Le combat (d20)."""


# --- shared options -------------------------------------------------------------


class Lang(StrEnum):
    en = "en"
    fr = "fr"


SeedOpt = Annotated[
    int | None,
    typer.Option("--seed", help="Seed for the dice (reported in the output); same seed, same fight."),
]
DiceOpt = Annotated[
    str | None,
    typer.Option("--dice", help="Faces rolled by hand, in roll order, e.g. 19,5,8."),
]
ManualOpt = Annotated[
    bool, typer.Option("--manual", help="Ask for each physical die at the terminal.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="One JSON document on stdout.")]
JsonlOpt = Annotated[bool, typer.Option("--jsonl", help="One JSON event per line on stdout.")]
LangOpt = Annotated[
    Lang | None, typer.Option("--lang", help="Language of the display (default: from LANG).")
]
EncounterOpt = Annotated[
    Path,
    typer.Option("--encounter", "-e", help="The encounter file.", envvar="SEVENDAG_ENCOUNTER"),
]
def complete_rulesets(incomplete: str) -> list[str]:
    """Shell completion: ruleset names found on the search path."""
    from sevendag_cli.rules import known_rulesets

    return [n for n in known_rulesets() if n.startswith(incomplete)]


def complete_fighters(incomplete: str) -> list[str]:
    """Shell completion: fighter sheet names found on the search path."""
    from sevendag_cli.rules import known_fighters

    return [n for n in known_fighters() if n.startswith(incomplete.lower())]


RulesetOpt = Annotated[
    str | None,
    typer.Option("--ruleset", "-r", help="Ruleset name or file (default: the sheets' own, else sevendag).",
                 autocompletion=complete_rulesets),
]
FightersArg = Annotated[
    list[str] | None,
    typer.Argument(help="Two fighter sheets (names or .toml paths); none: the ruleset's examples.",
                   autocompletion=complete_fighters),
]

DEFAULT_ENCOUNTER = Path("encounter.sevendag.json")


@dataclass
class Output:
    """How a command prints: JSON, JSON lines, or the Rich display (and in which language)."""

    json: bool
    jsonl: bool
    lang: str

    @property
    def rich(self) -> bool:
        return not (self.json or self.jsonl)

    def data(self, doc: Any) -> None:
        """One JSON document: indented for a person at a terminal, compact (and fast) in a pipe."""
        if sys.stdout.isatty():
            sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
        else:
            sys.stdout.write(json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n")

    def lines(self, docs: list[dict[str, Any]]) -> None:
        for d in docs:
            sys.stdout.write(json.dumps(d, ensure_ascii=False, separators=(",", ":")) + "\n")

    def console(self) -> Console:
        from rich.console import Console

        return Console(highlight=False)


def make_output(json_: bool, jsonl: bool, lang: Lang | None, jsonl_allowed: bool = True) -> Output:
    if json_ and jsonl:
        raise UsageError(Msg("cli.json_and_jsonl"))
    if jsonl and not jsonl_allowed:
        raise UsageError(Msg("cli.jsonl_only"))
    return Output(json_, jsonl, detect_lang(lang.value if lang else None))


def note(message: str) -> None:
    """A message for the user, on stderr (never mixed with data on stdout)."""
    sys.stderr.write(message + "\n")


@dataclass
class DiceChoice:
    source: DiceSource
    seed: int | None
    entered: EnteredDice | None


def make_dice(
    seed: int | None, dice: str | None, manual: bool, out: Output, *, continue_after: bool
) -> DiceChoice:
    """The dice for a command: entered faces, the terminal, or the seeded generator.

    ``continue_after``: in ``fight`` the generator continues after entered faces;
    in ``init`` and ``round`` entered faces must be exactly what is needed.
    """
    if manual and dice is not None:
        raise UsageError(Msg("cli.manual_and_dice"))
    if manual:
        if seed is not None:
            raise UsageError(Msg("cli.manual_and_seed"))
        if not sys.stdin.isatty():
            raise UsageError(Msg("cli.manual_needs_tty"))
        lang = out.lang
        manual_dice = ManualDice(lambda label: _ask_die(label, lang), lambda m: note(f"  {m}"), lang)
        return DiceChoice(manual_dice, None, None)
    if dice is not None and not continue_after:
        if seed is not None:
            raise UsageError(Msg("cli.dice_and_seed"))
        entered = EnteredDice(parse_faces(dice))
        return DiceChoice(entered, None, entered)
    if seed is None:
        seed = fresh_seed()
    generator = SeededDice(check_seed(seed))
    if dice is not None:
        entered = EnteredDice(parse_faces(dice), fallback=generator)
        return DiceChoice(entered, seed, entered)
    return DiceChoice(generator, seed, None)


def _ask_die(label: str, lang: str = "en") -> str:
    sys.stderr.write(Msg("dice.ask", label=label).render(lang))
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise UsageError(Msg("dice.input_ended"))
    return line


def report_seed(out: Output, choice: DiceChoice) -> None:
    """After a command succeeds: the seed that replays it (the JSON carries it too)."""
    if out.rich and choice.seed is not None:
        note(t("seed", out.lang, seed=choice.seed) + f" (--seed {choice.seed})")


@contextmanager
def handled(lang: Lang | str | None = None) -> Iterator[None]:
    """Turn a project error into one line on stderr and its exit code; Ctrl-C into 130.

    The line is in the command's ``--lang``, or the environment's language.
    """
    code = detect_lang(lang.value if isinstance(lang, Lang) else lang)
    try:
        yield
    except SevendagError as exc:
        fail(exc.msg, exc.exit_code, code)
    except KeyboardInterrupt:
        fail(Msg("cli.interrupted_unchanged"), 130, code)


def pick_ruleset_doc(
    ruleset: str | None, fighters: list[str] | None
) -> tuple[Ruleset, str, dict[str, Any]]:
    """The ruleset named, else the first sheet's own, else the default; with its file and data."""
    from sevendag_cli.rules import DEFAULT_RULESET, read_ruleset_doc, ruleset_from_data, sheet_ruleset

    if ruleset is None and fighters:
        ruleset = sheet_ruleset(fighters[0])
    source, data = read_ruleset_doc(ruleset or DEFAULT_RULESET)
    return ruleset_from_data(data, source), source, data


def pick_ruleset(ruleset: str | None, fighters: list[str] | None) -> Ruleset:
    return pick_ruleset_doc(ruleset, fighters)[0]


def check_fighter_count(fighters: list[str] | None) -> list[str] | None:
    if fighters and len(fighters) != 2:
        raise UsageError(Msg("cli.two_fighters", n=len(fighters)))
    return fighters or None


def renderer(out: Output, ruleset: Ruleset) -> RichRenderer:
    from sevendag_cli.render.rich_render import RichRenderer

    return RichRenderer(out.console(), out.lang, ruleset)


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
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Start an encounter: roll initiative and save the encounter file.

    Example: sevendag init --ruleset d20 --dice 19,5
    """
    with handled(lang):
        from sevendag_cli import store
        from sevendag_cli.engine import engine_for
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
            log=({"step": "init", "seed": choice.seed, "leader": init.leader},),
        )
        with store.locked(encounter):
            if encounter.exists() and not force:
                _refuse_overwrite(encounter)
            store.save(encounter, enc)
        states = engine.fighter_states(state)
        if out.json:
            out.data(init_document(init, tuple(rec.rolls), states, rs.name, choice.seed,
                                   str(encounter)))
            return
        r = renderer(out, rs)
        r.initiative(init)
        r.states(states)
        report_seed(out, choice)
        note(t("saved", out.lang, path=encounter))


def _refuse_overwrite(path: Path) -> None:
    from sevendag_cli import store

    try:
        current = store.load(path)
    except EncounterError:
        raise EncounterError(Msg("cli.overwrite_unreadable", path=path)) from None
    if not current.state.get("over", False):
        raise EncounterError(Msg("cli.in_progress", path=path))


# --- round ----------------------------------------------------------------------------


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


def require_encounter(path: Path) -> None:
    if not path.exists():
        from sevendag_cli.store import no_encounter

        raise EncounterError(no_encounter(path))


@app.command("round")
def round_cmd(
    encounter: EncounterOpt = DEFAULT_ENCOUNTER,
    seed: SeedOpt = None,
    dice: DiceOpt = None,
    manual: ManualOpt = False,
    yield_: Annotated[
        bool | None,
        typer.Option("--yield/--no-yield",
                     help="Sevendag: the assaillant lets the opponent act first (S-03)."),
    ] = None,
    allocate: Annotated[
        list[str] | None,
        typer.Option("--allocate", "-a",
                     help="Sevendag: NAME=attack,defence (one commitment per hand)."),
    ] = None,
    technique: Annotated[
        list[str] | None,
        typer.Option("--technique", "-t",
                     help="Sevendag: NAME=TECHNIQUE (a key of the ruleset's techniques)."),
    ] = None,
    no_input: Annotated[
        bool, typer.Option("--no-input", help="Never ask: use the sheets' tactics.")
    ] = False,
    json_: JsonOpt = False,
    jsonl: JsonlOpt = False,
    lang: LangOpt = None,
) -> None:
    """Resolve the next round of the encounter, step by step, and save it.

    Example: sevendag round --dice 8,18,17,3,3 --json
    """
    with handled(lang):
        from sevendag_cli import store
        from sevendag_cli.engine import engine_for
        from sevendag_cli.render.data import round_document, round_events

        out = make_output(json_, jsonl, lang)
        require_encounter(encounter)
        with store.locked(encounter):
            enc, rs, a, b, state = open_encounter(encounter)
            if state.over:
                from sevendag_cli.engine.common import over_message

                raise EncounterError(Msg("common.at_path", path=encounter,
                                         message=over_message(state.winner)))
            engine = engine_for(rs)
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
            entry = {"step": "round", "round": result.number, "seed": choice.seed}
            store.save(encounter, enc.step(engine.state_to_data(new_state), entry))
        if out.json:
            out.data(round_document(result, rs.name, choice.seed, str(encounter)))
        elif out.jsonl:
            out.lines(round_events(result, rs.name, choice.seed))
        else:
            r = renderer(out, rs)
            r.round(result)
            report_seed(out, choice)
            if result.over:
                note(t("fight_over", out.lang))


def parse_assignments(values: list[str] | None, option: str) -> dict[str, str]:
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
    from sevendag_cli.engine import sevendag as engine

    names = {a.name: a, b.name: b}
    alloc_text = parse_assignments(allocate, "--allocate")
    tech = parse_assignments(technique, "--technique")
    for name in (*alloc_text, *tech):
        if name not in names:
            raise UsageError(Msg("engine.no_fighter", name=name, names=joined((a.name, b.name))))
    allocation: dict[str, tuple[str, ...]] = {}
    for name, text in alloc_text.items():
        allocation[name] = tuple(p.strip() for p in text.split(",") if p.strip())
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
    ruleset: RulesetOpt = None,
    encounter: EncounterOpt = DEFAULT_ENCOUNTER,
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Apply a game master's judgement by hand (S-16), or name a wound band.

    Examples: sevendag wound B 5  ·  sevendag wound Brannoc serious  ·  sevendag wound --classify 17
    """
    with handled(lang):
        out = make_output(json_, False, lang, jsonl_allowed=False)
        if classify is not None:
            if fighter is not None or amount is not None:
                raise UsageError(Msg("cli.classify_alone"))
            _classify(classify, ruleset, out)
            return
        if fighter is None or amount is None:
            raise UsageError(Msg("cli.wound_args"))
        from sevendag_cli import store
        from sevendag_cli.engine import engine_for
        from sevendag_cli.render.data import wound_document

        number: int | None
        band: str | None
        try:
            number, band = int(amount), None
        except ValueError:
            number, band = None, amount
        require_encounter(encounter)
        with store.locked(encounter):
            enc, rs, a, b, state = open_encounter(encounter)
            if ruleset is not None and ruleset not in (rs.name, rs.engine):
                raise UsageError(Msg("cli.other_ruleset", ruleset=ruleset, used=rs.name))
            engine = engine_for(rs)
            result, new_state = engine.apply_wound(rs, a, b, state, fighter, number, band)
            entry = {"step": "wound", "fighter": fighter, "amount": number, "band": band}
            store.save(encounter, enc.step(engine.state_to_data(new_state), entry))
        if out.json:
            out.data(wound_document(result, rs.name, str(encounter)))
            return
        renderer(out, rs).wound(result)


def _classify(amount: int, ruleset: str | None, out: Output) -> None:
    from sevendag_cli.i18n import label
    from sevendag_cli.rules import SevendagRuleset, load_ruleset

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
    """Take back the last round or wound of the encounter.

    Example: sevendag undo
    """
    with handled(lang):
        from sevendag_cli import store
        from sevendag_cli.engine import engine_for
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
                      "undone": undone, "fighters": [state_data(s) for s in states]})
            return
        what = undone.get("step", "?")
        if what == "round":
            what = t("round", out.lang, n=undone.get("round"))
        elif what == "wound":
            what = t("step_wound", out.lang, name=undone.get("fighter"))
        note(t("undone", out.lang, what=what))
        renderer(out, rs).states(states)


# --- fight ------------------------------------------------------------------------------


@app.command("fight")
def fight_cmd(
    fighters: FightersArg = None,
    ruleset: RulesetOpt = None,
    seed: SeedOpt = None,
    dice: DiceOpt = None,
    runs: Annotated[
        int | None, typer.Option("--runs", "-n", help="Simulate this many fights and report the odds.")
    ] = None,
    exact: Annotated[bool, typer.Option("--exact", help="Exact odds, within --tolerance.")] = False,
    cap: Annotated[
        int | None,
        typer.Option("--cap", help="Round cap: a fight still going is a draw (default: the ruleset's)."),
    ] = None,
    tolerance: Annotated[
        float | None,
        typer.Option("--tolerance", help="With --exact: most probability left unresolved (default 1e-12)."),
    ] = None,
    json_: JsonOpt = False,
    jsonl: JsonlOpt = False,
    lang: LangOpt = None,
) -> None:
    """Play a whole fight step by step, simulate many (--runs), or compute exact odds (--exact).

    Examples: sevendag fight  ·  sevendag fight A B --ruleset d20 --seed 7 --json
    ·  sevendag fight --runs 100000  ·  sevendag fight --exact --tolerance 1e-9
    """
    with handled(lang):
        out = make_output(json_, jsonl, lang, jsonl_allowed=runs is None and not exact)
        if runs is not None and exact:
            raise UsageError(Msg("cli.runs_and_exact"))
        if (runs is not None or exact) and dice is not None:
            raise UsageError(Msg("cli.dice_one_fight"))
        if cap is not None and cap < 1:
            raise UsageError(Msg("cli.cap", cap=cap))
        if tolerance is not None and not exact:
            raise UsageError(Msg("cli.tolerance_exact"))
        refs = check_fighter_count(fighters)
        rs = pick_ruleset(ruleset, refs)
        from sevendag_cli.rules import load_pair

        a, b = load_pair(rs, refs)
        if runs is not None:
            from sevendag_cli.commands.simulate import run_simulation

            run_simulation(rs, a, b, runs, seed, cap, out)
            return
        if exact:
            from sevendag_cli.commands.simulate import run_exact

            run_exact(rs, a, b, out, cap, tolerance)
            return
        play_fight(rs, a, b, seed, dice, cap, out)


def play_fight(
    rs: Ruleset, a: Fighter, b: Fighter, seed: int | None, dice: str | None, cap: int | None,
    out: Output,
) -> None:
    from sevendag_cli.engine import engine_for
    from sevendag_cli.render.data import fight_document, fight_events

    choice = make_dice(seed, dice, False, out, continue_after=True)
    result = engine_for(rs).fight(rs, a, b, choice.source, cap)
    if out.json:
        out.data(fight_document(result, choice.seed))
    elif out.jsonl:
        out.lines(fight_events(result, choice.seed))
    else:
        renderer(out, rs).fight(result)
        report_seed(out, choice)


def main() -> None:
    """Console-script entry point."""
    for stream in (sys.stdout, sys.stderr):
        # A terminal that is not UTF-8 gets '?' for what it cannot show, not a crash.
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
    try:
        app()
    except BrokenPipeError:  # e.g. `sevendag fight --jsonl | head`
        sys.stderr.close()
        raise SystemExit(1) from None


# --- rulesets, new, roll -------------------------------------------------------------------

rulesets_app = typer.Typer(cls=SevendagGroup, invoke_without_command=True)
app.add_typer(rulesets_app, name="rulesets")


@rulesets_app.callback()
def rulesets_cmd(
    ctx: typer.Context,
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """List the rulesets and fighters found; show or check them with the subcommands.

    Looks in the current folder, the user folder and the bundled rulesets.

    Example: sevendag rulesets
    """
    if ctx.invoked_subcommand is not None:
        return
    with handled(lang):
        from sevendag_cli.commands.rulesets import list_rulesets

        out = make_output(json_, False, lang, jsonl_allowed=False)
        doc = list_rulesets(out.lang)
        if out.json:
            out.data(doc)
            return
        from sevendag_cli.render.rich_info import render_rulesets

        render_rulesets(out.console(), doc, out.lang)


@rulesets_app.command("show")
def rulesets_show_cmd(
    name: Annotated[str, typer.Argument(help="Ruleset name or file.")],
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Show a ruleset: its rules with their IDs, formulas, options and house defaults.

    Example: sevendag rulesets show sevendag
    """
    with handled(lang):
        from sevendag_cli.commands.rulesets import describe_ruleset
        from sevendag_cli.rules import load_ruleset

        out = make_output(json_, False, lang, jsonl_allowed=False)
        doc = describe_ruleset(load_ruleset(name))
        if out.json:
            out.data(doc)
            return
        from sevendag_cli.render.rich_info import render_ruleset

        render_ruleset(out.console(), doc, out.lang)


@rulesets_app.command("validate")
def rulesets_validate_cmd(
    files: Annotated[list[str], typer.Argument(help="Ruleset or fighter sheet files.")],
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Check rulesets or fighter sheets and list every problem found.

    Example: sevendag rulesets validate my-house.toml brannoc.toml
    """
    with handled(lang):
        from sevendag_cli.commands.rulesets import validate_file

        out = make_output(json_, False, lang, jsonl_allowed=False)
        reports = [validate_file(f, out.lang) for f in files]
        if out.json:
            from sevendag_cli.render.data import header

            out.data({**header("rulesets validate", None, None), "files": reports,
                      "valid": all(r["valid"] for r in reports)})
        else:
            for r in reports:
                if r["valid"]:
                    print(Msg(f"out.valid_{r['kind']}", path=r["path"]).render(out.lang))
                for p in r["problems"]:
                    print(p)
        if not all(r["valid"] for r in reports):
            raise typer.Exit(1)


@app.command("new")
def new_cmd(
    name: Annotated[str, typer.Argument(help="The fighter's name.")],
    ruleset: Annotated[str, typer.Option("--ruleset", "-r", help="Ruleset of the sheet.")] = "sevendag",
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="File to write (default: NAME.toml).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing file.")] = False,
    seed: SeedOpt = None,
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Write a fighter sheet to fill in (d20: abilities rolled 3d6 each, D-13).

    Example: sevendag new Aela --ruleset d20
    """
    with handled(lang):
        from sevendag_cli.commands.rulesets import sheet_path, sheet_text
        from sevendag_cli.formula import parse
        from sevendag_cli.rules import D20Ruleset, load_ruleset

        out = make_output(json_, False, lang, jsonl_allowed=False)
        if not name.strip():
            raise UsageError(Msg("cli.need_name"))
        rs = load_ruleset(ruleset)
        path = sheet_path(name, output)
        if path.exists() and not force:
            raise UsageError(Msg("cli.exists", path=path))
        choice = make_dice(seed, None, False, out, continue_after=True)
        rolled: dict[str, list[int]] | None = None
        if isinstance(rs, D20Ruleset):
            three = parse("3d6")
            rolled = {}
            for ability in ("str", "dex", "con", "wis"):
                ev = three.evaluate({}, choice.source, "ability", ability)
                rolled[ability] = [r.face for r in ev.rolls]
        text = sheet_text(name, rs, rolled)
        from sevendag_cli import store

        store.write_text_atomic(path, text)
        if out.json:
            from sevendag_cli.render.data import header

            out.data({**header("new", rs.name, choice.seed), "path": str(path),
                      "abilities": {k: {"rolls": v, "total": sum(v)} for k, v in (rolled or {}).items()}})
            return
        for ability, faces in (rolled or {}).items():
            print(Msg("out.ability", ability=ability.upper(), faces=" + ".join(map(str, faces)),
                      total=sum(faces)).render(out.lang))
        note(Msg("out.wrote", path=path).render(out.lang))
        report_seed(out, choice)


@app.command("roll")
def roll_cmd(
    expression: Annotated[str, typer.Argument(help="Dice expression, e.g. '2d6 + 3' or '1d20'.")],
    seed: SeedOpt = None,
    dice: DiceOpt = None,
    json_: JsonOpt = False,
    lang: LangOpt = None,
) -> None:
    """Roll dice for what a fight doesn't cover: faces, highest and lowest shown, total.

    Example: sevendag roll "3d6 + 2" --seed 4
    """
    with handled(lang):
        from sevendag_cli.formula import parse

        out = make_output(json_, False, lang, jsonl_allowed=False)
        formula = parse(expression)
        formula.check_names(set())
        choice = make_dice(seed, dice, False, out, continue_after=False)
        ev = formula.evaluate({}, choice.source, "roll", None)
        if choice.entered is not None:
            choice.entered.check_all_used()
        if out.json:
            from sevendag_cli.render.data import header, roll_data

            out.data({**header("roll", None, choice.seed), "expression": formula.text,
                      "rolls": [roll_data(r) for r in ev.rolls], "total": ev.value})
            return
        from sevendag_cli.engine.common import Check
        from sevendag_cli.render.rich_render import check_text

        console = out.console()
        console.print(check_text(Check("roll", "", formula.text, ev.rolls, ev.value)))
        report_seed(out, choice)


# --- schema -------------------------------------------------------------------------------------


@app.command("schema")
def schema_cmd(
    name: Annotated[
        str | None,
        typer.Argument(help="A schema's name (e.g. fight, round-event, fighter-d20); none: list them."),
    ] = None,
    lang: LangOpt = None,
) -> None:
    """Print the JSON Schema of a JSON output or of an input file; without a name, list them.

    Example: sevendag schema fight
    """
    with handled(lang):
        from sevendag_cli.commands.schema import load_schema, schema_names

        if name is None:
            for n in schema_names():
                print(n)
            return
        sys.stdout.write(json.dumps(load_schema(name), ensure_ascii=False, indent=2) + "\n")
