"""Sevendag's command and group classes: usage mistakes as catalogue messages, help in French.

Every command is a :class:`SevendagCommand` and every group a :class:`SevendagGroupBase`
(``cls=`` of Typer's ``@app.command`` and ``typer.Typer``; the root group,
:class:`sevendag_cli.cli.SevendagGroup`, too).  Through Click's documented hooks
only (``parse_args``, ``resolve_command``, ``format_usage``, ``format_help``,
``format_options``, ``get_help_option``, a parameter's ``type``):

* a usage mistake (an unknown option or command, a value that is not a number, a
  missing argument, an extra one) is raised as sevendag's own
  :class:`~sevendag_cli.errors.UsageError`, its message a key of the catalogue
  built from what Click's exception holds (the option's name, the parameter), never
  from Click's English text; an unknown option or command suggests the closest
  name (:func:`difflib.get_close_matches`);
* in French (:data:`HelpLang`), ``--help`` is Click's plain help (Typer's Rich help
  offers no public way to change its words), with Click's and Typer's own words
  ("Usage:", "Show this message and exit.", ``[default: …]``...) in French
  (:mod:`sevendag_cli.help_fr` translates the commands' own texts).

What these classes take from Typer beyond its documented names is listed, and checked,
in :mod:`sevendag_cli.click_compat`.
"""

from __future__ import annotations

import copy
import difflib
import sys
from typing import Any

from typer.core import TyperCommand, TyperGroup

from sevendag_cli import click_compat
from sevendag_cli.errors import Msg, UsageError


class HelpLang:
    """Whether this run's help is in French; set by the root group for each run."""

    french = False


USAGE_FR = "Utilisation : "
HELP_OPTION_FR = "Afficher ce message et quitter."
WORDS_FR = {"Arguments": "Arguments", "Options": "Options", "Commands": "Commandes",
            "default": "par défaut : {}", "env var": "variable d'environnement : {}",
            "required": "obligatoire"}


def command_line(ctx: Any) -> str:
    """How the user calls the command of ``ctx``: ``sevendag rulesets show`` (whatever the program's name)."""
    names: list[str] = []
    while ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(["sevendag", *reversed(names)])


def see_help(ctx: Any, message: Msg) -> Msg:
    """``message`` and where the help is: ``(see 'sevendag fight --help')``."""
    return Msg("cli.see_help", message=message, command=command_line(ctx))


FRENCH_WORDS = {
    # commands
    "combat": "fight", "combattre": "fight", "tour": "round", "blessure": "wound",
    "blesser": "wound", "annuler": "undo", "etat": "status", "journal": "log",
    "chances": "odds", "cotes": "odds", "probabilites": "odds", "conseil": "advise",
    "conseiller": "advise", "lancer": "roll", "jet": "roll", "des": "roll",
    "balayage": "sweep", "balayer": "sweep", "tournoi": "matrix", "matrice": "matrix",
    "regles": "rulesets", "nouveau": "new", "nouvelle": "new", "schema": "schema",
    "debut": "init", "commencer": "init",
    # options (without their dashes)
    "graine": "seed", "plafond": "cap", "langue": "lang", "manuel": "manual",
    "manuel-pour": "manual-for", "ceder": "yield", "cede": "yield",
    "repartition": "allocate", "repartir": "allocate", "tactique": "tactic",
    "rencontre": "encounter", "fichier": "encounter", "forcer": "force",
    "equitable": "fair", "varier": "vary", "combats": "runs", "dessin": "plot",
    "image": "plot", "graphique": "plot", "exploiter": "exploit",
    "sans-saisie": "no-input", "fixer": "set", "exacte": "exact",
}
"""French words typed for a command or an option (``sevendag combat --graine 3``): the
command or option they mean, offered as "Did you mean …?" (accents and case ignored)."""


def _french(name: str, names: list[str], strip: bool) -> list[str]:
    """The command or option a French word means, if it is one of ``names``."""
    from sevendag_cli.terms import fold

    bare = name.lstrip("-") if strip else name
    meant = FRENCH_WORDS.get(fold(bare).replace("_", "-"))
    if meant is None:
        return []
    found = [n for n in names if (n.lstrip("-") if strip else n) == meant]
    return found[:1]


def _closest(name: str, names: list[str], strip: bool = False) -> list[str]:
    """The names most like ``name``, best first (``strip``: compare options without their
    dashes); a French word for one of them (:data:`FRENCH_WORDS`) first."""

    french = _french(name, names, strip)
    if french:
        return french
    if not strip:
        return difflib.get_close_matches(name, names)
    bare = {n.lstrip("-").lower(): n for n in names}
    found = difflib.get_close_matches(name.lstrip("-").lower(), list(bare), n=1)
    return [bare[f] for f in found]


def _option_names(ctx: Any) -> list[str]:
    return [name for param in ctx.command.get_params(ctx) if param.param_type_name == "option"
            for name in (*param.opts, *param.secondary_opts)]


def _option(ctx: Any, name: str) -> Any:
    for param in ctx.command.get_params(ctx):
        if name in param.opts or name in param.secondary_opts:
            return param
    return None


_NEGATIVE_START = frozenset("0123456789(")


def _negative_argument(option: str, args: list[str], ctx: Any) -> str | None:
    """The argument Click took for the unknown ``option`` when it reads as a negative number or
    dice expression (``-1d4``, ``-5``, ``-d6``, ``-(1d4)``) and the command takes positional
    arguments; else None."""
    if not option or not any(p.param_type_name == "argument" for p in ctx.command.get_params(ctx)):
        return None
    for arg in args:
        if arg == "--":
            break
        if arg.startswith(option) and len(arg) > 1:
            rest = arg[1:]
            if rest[0] in _NEGATIVE_START or (rest[0] in "dD" and rest[1:2] in (*"0123456789", "%")):
                return arg
    return None


def usage_error(exc: Exception, ctx: Any, args: list[str] | None = None) -> UsageError | None:
    """Sevendag's error for a usage error Typer raised while ``ctx``'s command line was parsed,
    from the exception's attributes (:func:`click_compat.usage_kind`); None: not one sevendag knows.

    ``args``: the command's arguments as typed, for an unknown option that is a negative
    argument (``roll -1d4``): the hint to put it after ``--``.
    """
    kind = click_compat.usage_kind(exc, lambda name: _option(ctx, name) is not None)
    if kind == "no_such_option":
        option = getattr(exc, "option_name", "")
        msg = Msg("usage.no_such_option", option=option)
        negative = _negative_argument(option, args or [], ctx)
        if negative is not None:
            import shlex

            example = f"{command_line(ctx)} -- {shlex.quote(negative)}"
            return UsageError(Msg("usage.hint_dash_dash", message=msg, example=example))
        close = _closest(option, _option_names(ctx), strip=True)
        if close:
            msg = Msg("usage.suggest_option", message=msg, names=", ".join(close))
        return UsageError(see_help(ctx, msg))
    if kind == "option_usage":  # raised without a context: no "see --help"
        option = getattr(exc, "option_name", "")
        if getattr(_option(ctx, option), "is_flag", False):
            return UsageError(Msg("usage.takes_no_value", option=option))
        return UsageError(Msg("usage.requires_argument", option=option))
    param = getattr(exc, "param", None)
    if kind == "missing" and param is not None:
        param_kind = param.param_type_name
        key = param_kind if param_kind in ("argument", "option") else "parameter"
        hint = param.get_error_hint(getattr(exc, "ctx", None) or ctx)
        return UsageError(see_help(ctx, Msg(f"usage.missing_{key}", hint=hint)))
    if kind == "refused" and param is not None:
        assert isinstance(exc, click_compat.ValueRefused)
        hint = param.get_error_hint(exc.ctx or ctx)
        return UsageError(see_help(ctx, Msg("usage.invalid_value", hint=hint, message=exc.msg)))
    return None


class SevendagCommandBase:
    """What sevendag's commands and groups share (a mixin for Typer's two classes)."""

    def _check_types(self) -> None:
        for param in self.params:  # type: ignore[attr-defined]
            param.type = click_compat.checked_type(param.type)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if (isinstance(self, TyperGroup) and not args and self.no_args_is_help
                and not ctx.resilient_parsing):
            text = ctx.get_help()  # the Rich help prints itself and gives ""
            if text:
                sys.stdout.write(text + "\n")
            raise UsageError(see_help(ctx, Msg("usage.missing_command")))
        args = self._manual_names(args)
        typed = list(args)  # Click's parser consumes the list it is given
        extra_allowed = ctx.allow_extra_args
        ctx.allow_extra_args = True  # extra arguments: refused below, in the catalogue's words
        try:
            rest: list[str] = super().parse_args(ctx, args)  # type: ignore[misc]
        except click_compat.TyperError as exc:
            error = usage_error(exc, ctx, typed)
            if error is None:
                raise
            raise error from None
        finally:
            ctx.allow_extra_args = extra_allowed
        if rest and not extra_allowed and not ctx.resilient_parsing:
            raise UsageError(see_help(ctx, Msg("usage.extra_args", args=" ".join(rest))))
        return rest

    def _manual_names(self, args: list[str]) -> list[str]:
        """``--manual NAME``: only that player's dice (``--manual-for NAME``), where the command
        takes no positional argument the name could be (``round``; ``init --manual a b`` would
        be ambiguous, so ``init`` takes ``--manual-for``).  ``--manual`` alone asks every die."""
        params = self.params  # type: ignore[attr-defined]
        if (not any(p.name == "manual_for" for p in params)
                or any(p.param_type_name == "argument" for p in params)):
            return args
        out: list[str] = []
        i = 0
        while i < len(args):
            arg = args[i]
            if arg == "--":
                return out + args[i:]
            if arg == "--manual" and i + 1 < len(args) and not args[i + 1].startswith("-"):
                out += ["--manual-for", args[i + 1]]
                i += 2
                continue
            if arg.startswith("--manual="):
                arg = "--manual-for=" + arg.partition("=")[2]
            out.append(arg)
            i += 1
        return out

    # --- help ---------------------------------------------------------------------------

    def format_usage(self, ctx: Any, formatter: Any) -> None:
        pieces = self.collect_usage_pieces(ctx)  # type: ignore[attr-defined]
        formatter.write_usage(ctx.command_path, " ".join(pieces),
                              USAGE_FR if HelpLang.french else None)

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None and HelpLang.french:
            option.help = HELP_OPTION_FR
        return option

    def format_help(self, ctx: Any, formatter: Any) -> None:
        """The help; in French, the plain one (Click's, drawn by the hooks below, which write
        Click's and Typer's words in French): Typer's Rich help has no public way to change
        its words (``[default: …]``, ``[required]``...)."""
        if not HelpLang.french:
            super().format_help(ctx, formatter)  # type: ignore[misc]
            return
        command: Any = self
        mode = command.rich_markup_mode
        command.rich_markup_mode = None  # Typer's documented switch to Click's plain help
        try:
            super().format_help(ctx, formatter)  # type: ignore[misc]
        finally:
            command.rich_markup_mode = mode

    def format_options(self, ctx: Any, formatter: Any) -> None:
        """The plain help's parameters (without Rich); in French, Click's words too."""
        if not HelpLang.french:
            super().format_options(ctx, formatter)  # type: ignore[misc]
            return
        args: list[tuple[str, str]] = []
        opts: list[tuple[str, str]] = []
        for param in self.get_params(ctx):  # type: ignore[attr-defined]
            record = _record_fr(param, ctx)
            if record is not None:
                (args if param.param_type_name == "argument" else opts).append(record)
        _section(formatter, WORDS_FR["Arguments"], args)
        _section(formatter, WORDS_FR["Options"], opts)
        if isinstance(self, TyperGroup):
            self.format_commands(ctx, formatter)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """The plain help's list of subcommands (groups only); in French, its heading too."""
        if not HelpLang.french:
            super().format_commands(ctx, formatter)  # type: ignore[misc]
            return
        commands = [(name, cmd) for name in self.list_commands(ctx)  # type: ignore[attr-defined]
                    if (cmd := self.get_command(ctx, name)) is not None  # type: ignore[attr-defined]
                    and not cmd.hidden]
        if commands:
            limit = formatter.width - 6 - max(len(name) for name, _ in commands)
            _section(formatter, WORDS_FR["Commands"],
                     [(name, cmd.get_short_help_str(limit)) for name, cmd in commands])


def _section(formatter: Any, heading: str, rows: list[tuple[str, str]]) -> None:
    """A section of the plain help, its heading in French typography (``Options :``)."""
    if not rows:
        return
    formatter.write_paragraph()
    formatter.write(f"{'':>{formatter.current_indent}}{heading} :\n")
    formatter.indent()
    try:
        formatter.write_dl(rows)
    finally:
        formatter.dedent()


def _record_fr(param: Any, ctx: Any) -> tuple[str, str] | None:
    """A parameter's line of the plain help, what Click adds in brackets in French."""
    bare = copy.copy(param)
    bare.show_default, bare.show_envvar, bare.required = False, False, False
    record = bare.get_help_record(ctx)
    if record is None:
        return None
    name, text = record
    extra = []
    if getattr(param, "show_envvar", False) and param.envvar is not None:
        var = param.envvar if isinstance(param.envvar, str) else ", ".join(map(str, param.envvar))
        extra.append(WORDS_FR["env var"].format(var))
    default = click_compat.default_text(param, ctx)
    if default:
        extra.append(WORDS_FR["default"].format(default))
    if param.required:
        extra.append(WORDS_FR["required"])
    if extra:
        brackets = "[" + "; ".join(extra) + "]"
        text = f"{text}  {brackets}" if text else brackets
    return name, text


class SevendagCommand(SevendagCommandBase, TyperCommand):
    """A sevendag command (``@app.command("NAME", cls=SevendagCommand)``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._check_types()


class SevendagGroupBase(SevendagCommandBase, TyperGroup):
    """A sevendag group (``typer.Typer(cls=SevendagGroupBase)``): an unknown subcommand too
    is a catalogue message, with the closest names."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._check_types()

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name = args[0]
        if self.get_command(ctx, name) is None and not ctx.resilient_parsing:
            if name[:1] and not name[:1].isalnum():  # an option after all: Click says which
                self.parse_args(ctx, args)
            msg = Msg("usage.no_such_command", name=name)
            close = _closest(name, self.list_commands(ctx))
            if close:
                msg = Msg("usage.suggest_command", message=msg, names=", ".join(map(repr, close)))
            raise UsageError(see_help(ctx, msg))
        return super().resolve_command(ctx, args)
