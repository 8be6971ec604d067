"""What sevendag takes from Typer's internals (sevendag_cli/click_compat.py) still exists and still
behaves as assumed: these tests fail loudly on an upgrade of Typer that moves or changes it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer

from sevendag_cli import click_compat
from sevendag_cli.commandline import HelpLang, SevendagCommand, SevendagGroupBase
from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.options import Lang

PACKAGE = Path(__file__).resolve().parent.parent / "sevendag_cli"


def tiny_command() -> Any:
    """A command built by Typer as sevendag builds its own, with an int, a float, an enum, a flag,
    an option with a default and an environment variable, and a required argument."""
    app = typer.Typer()

    @app.command("tiny", cls=SevendagCommand)
    def tiny(
        name: Annotated[str, typer.Argument(help="A name.")],
        count: Annotated[int, typer.Option("--count", "-c")] = 1,
        ratio: Annotated[float, typer.Option("--ratio")] = 0.5,
        lang: Annotated[Lang | None, typer.Option("--lang")] = None,
        flag: Annotated[bool, typer.Option("--flag")] = False,
        where: Annotated[str, typer.Option("--where", envvar="TINY_WHERE")] = "here.json",
    ) -> None:
        pass

    return typer.main.get_command(app)


def refusal(args: list[str]) -> Msg:
    command = tiny_command()
    with pytest.raises(UsageError) as err:
        command.make_context("tiny", args)
    return err.value.msg


def inner(msg: Msg) -> Msg:
    """The message inside ``cli.see_help``."""
    assert msg.key == "cli.see_help"
    found = msg.params["message"]
    assert isinstance(found, Msg)
    return found


def test_typer_still_vendors_click_and_its_usage_errors() -> None:
    for cls in (click_compat.ClickUsageError, click_compat.BadParameter, click_compat.MissingParameter,
                click_compat.NoSuchOption, click_compat.BadOptionUsage):
        assert issubclass(cls, click_compat.ClickException), cls
    assert issubclass(click_compat.BadParameter, click_compat.ClickUsageError)
    assert typer.BadParameter is click_compat.BadParameter  # the one Typer exports
    assert issubclass(click_compat.ValueRefused, typer.BadParameter)


def test_typer_still_gives_int_float_and_enum_parameters_clicks_own_types() -> None:
    types = {p.name: type(p.type) for p in tiny_command().params}
    # replaced by sevendag's: so Typer still made them IntParamType, FloatParamType, TyperChoice
    assert types["count"] is click_compat.WholeNumber
    assert types["ratio"] is click_compat.Number
    assert types["lang"] is click_compat.OneOf
    assert types["name"] is not click_compat.WholeNumber


def test_a_value_refused_reaches_sevendag_with_its_parameter() -> None:
    msg = inner(refusal(["x", "--count", "many"]))
    assert msg.key == "usage.invalid_value" and msg.params["hint"] == "'--count' / '-c'"
    assert msg.params["message"] == Msg("usage.not_integer", value="many")
    msg = inner(refusal(["x", "--ratio", "half"]))
    assert msg.params["message"] == Msg("usage.not_number", value="half")
    msg = inner(refusal(["x", "--lang", "de"]))
    assert msg.params["message"] == Msg("usage.not_choice", value="de", choices="'en', 'fr'")


def test_clicks_own_usage_errors_reach_sevendag_by_their_attributes() -> None:
    assert inner(refusal(["x", "--cuont", "2"])) == Msg(
        "usage.suggest_option", message=Msg("usage.no_such_option", option="--cuont"), names="--count")
    assert inner(refusal(["x", "--zzz"])) == Msg("usage.no_such_option", option="--zzz")
    assert refusal(["x", "--count"]) == Msg("usage.requires_argument", option="--count")
    assert refusal(["x", "--flag=yes"]) == Msg("usage.takes_no_value", option="--flag")
    assert inner(refusal([])) == Msg("usage.missing_argument", hint="'name'")
    assert inner(refusal(["x", "y"])) == Msg("usage.extra_args", args="y")


def test_typers_default_text_for_the_help() -> None:
    command = tiny_command()
    ctx = command.make_context("tiny", ["x"])
    params = {p.name: p for p in command.params}
    assert click_compat.default_text(params["where"], ctx) == "here.json"
    assert click_compat.default_text(params["count"], ctx) == "1"
    assert click_compat.default_text(params["lang"], ctx) == ""
    assert click_compat.default_text(params["flag"], ctx) == ""


def test_typers_rich_help_words_are_still_module_constants_it_reads() -> None:
    import typer.rich_utils as rich_utils

    english = {"DEFAULT_STRING": "[default: {}]", "ENVVAR_STRING": "[env var: {}]",
               "REQUIRED_LONG_STRING": "[required]"}
    assert {name: getattr(rich_utils, name) for name in english} == english
    command = tiny_command()
    ctx = command.make_context("tiny", ["x"])
    HelpLang.french = True
    try:
        command.get_help(ctx)  # (the Rich help prints itself)
    finally:
        HelpLang.french = False
    assert {name: getattr(rich_utils, name) for name in english} == english  # put back


def test_french_rich_help_uses_the_french_words(capsys: pytest.CaptureFixture[str]) -> None:
    command = tiny_command()
    ctx = command.make_context("tiny", ["x"])
    if command.rich_markup_mode is None:
        pytest.skip("Typer's Rich help is off")
    HelpLang.french = True
    try:
        command.get_help(ctx)
    finally:
        HelpLang.french = False
    out = " ".join(capsys.readouterr().out.split())
    assert "Utilisation : tiny" in out
    assert "[par défaut : here.json]" in out and "[obligatoire]" in out
    assert "[variable d'environnement : TINY_WHERE]" in out
    assert "Afficher ce message et quitter." in out
    command.get_help(command.make_context("tiny", ["x"]))
    out = " ".join(capsys.readouterr().out.split())
    assert "Usage: tiny" in out and "[default: here.json]" in out and "[required]" in out


def test_only_click_compat_touches_typers_internals() -> None:
    internal = re.compile(r"typer\._click|typer\._types|typer\.core\._\b|rich_utils\.[A-Z_]+ *=")
    offenders = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
                 if p.name != "click_compat.py" and internal.search(p.read_text("utf-8"))]
    assert offenders == []


def test_no_english_text_of_click_is_parsed() -> None:
    clicks_words = ("No such command", "No such option", "is not a valid", "unexpected extra argument",
                    "Missing command", "requires an argument", "does not take a value")
    offenders = [(str(p.relative_to(PACKAGE)), w) for p in PACKAGE.rglob("*.py")
                 if p.name not in ("messages.py",)
                 for w in clicks_words if w in p.read_text("utf-8")]
    assert offenders == []


def test_every_command_is_built_with_sevendags_classes() -> None:
    from sevendag_cli.cli import COMMANDS, load_command

    for name in COMMANDS:
        command = load_command(name)
        assert isinstance(command, SevendagCommand | SevendagGroupBase), name
        for sub in getattr(command, "commands", {}).values():
            assert isinstance(sub, SevendagCommand | SevendagGroupBase), (name, sub.name)
