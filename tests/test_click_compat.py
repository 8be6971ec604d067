"""What sevendag's command classes take from Typer (sevendag_cli/click_compat.py) still exists and
still behaves as assumed: these tests fail loudly on an upgrade of Typer that moves or changes it;
and no module imports a private module of Typer."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer

from sevendag_cli import click_compat
from sevendag_cli.commandline import HelpLang, SevendagCommand, SevendagGroupBase
from sevendag_cli.errors import Msg, UsageError
from sevendag_cli.options import Lang
from tests.catalogue import check_every

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


def test_typers_errors_have_one_public_root() -> None:
    """Every usage error of Typer's command line is a ``typer.TyperException``; a refused value is
    a ``typer.BadParameter`` (the one Typer exports), as Click attaches the parameter to it."""
    assert click_compat.TyperError is typer.TyperException
    assert issubclass(typer.BadParameter, typer.TyperException)
    assert issubclass(click_compat.ValueRefused, typer.BadParameter)
    app = typer.Typer()  # Typer's own command class

    @app.command()
    def plain(name: str, count: Annotated[int, typer.Option("--count")] = 1,
              flag: Annotated[bool, typer.Option("--flag")] = False) -> None:
        pass

    for args in (["x", "--cuont", "2"], ["x", "--count"], ["x", "--flag=yes"], [], ["x", "--count", "y"]):
        with pytest.raises(typer.TyperException) as err:
            typer.main.get_command(app).main(args, standalone_mode=False)
        assert err.value.exit_code == 2


def test_typer_still_names_its_int_float_and_enum_types_as_assumed() -> None:
    """The types Typer gives an int, a float and an enum parameter are named ``int``, ``float``
    and ``choice``; sevendag's checks replace their ``convert`` (on a copy: Typer's shared
    integer type is left as it was)."""
    command = tiny_command()
    params = {p.name: p for p in command.params}
    assert {name: params[name].type.name for name in ("count", "ratio", "lang", "name")} == {
        "count": "int", "ratio": "float", "lang": "choice", "name": "str"}
    assert all(getattr(params[name].type, "sevendag_checked", False) for name in ("count", "ratio", "lang"))
    assert not getattr(params["name"].type, "sevendag_checked", False)
    assert params["count"].type("12", params["count"], None) == 12
    assert params["ratio"].type("0.25", params["ratio"], None) == 0.25
    assert params["lang"].type("fr", params["lang"], None) == Lang.fr


def test_typers_shared_types_are_left_alone() -> None:
    """A command built by Typer without sevendag's classes still has Click's own refusals."""
    app = typer.Typer()

    @app.command()
    def plain(count: Annotated[int, typer.Option("--count")] = 1) -> None:
        pass

    command = typer.main.get_command(app)
    tiny_command()  # sevendag's classes built meanwhile
    count = next(p for p in command.params if p.name == "count")
    assert not getattr(count.type, "sevendag_checked", False)
    with pytest.raises(typer.BadParameter) as err:
        count.type("many", count, None)
    assert not isinstance(err.value, click_compat.ValueRefused)


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


def test_the_default_text_is_the_one_typers_english_help_shows() -> None:
    """For every option of every command: sevendag's default text (written in French in the
    French help) is what Typer's own help shows in English."""
    from sevendag_cli.cli import COMMANDS, load_command

    def commands() -> list[Any]:
        found = []
        for name in COMMANDS:
            command = load_command(name)
            found += [command, *getattr(command, "commands", {}).values()]
        return found

    def check(command: Any) -> None:
        ctx = command.make_context(command.name, [], resilient_parsing=True)
        command.rich_markup_mode = None  # the plain help: one line per option
        english = " ".join(command.get_help(ctx).split())
        shown = [click_compat.default_text(p, ctx) for p in command.get_params(ctx)]
        for text in filter(None, shown):
            assert re.search(r"(\[|; )" + re.escape(f"default: {text}") + r"[];]", english), text
        assert len(re.findall(r"(\[|; )default: ", english)) == len([t for t in shown if t])

    check_every(commands(), check)


def test_french_help_uses_the_french_words() -> None:
    """In French the help is Click's plain one, its words in French (Rich's words stay English
    and are not used)."""
    command = tiny_command()
    HelpLang.french = True
    try:
        out = " ".join(command.get_help(command.make_context("tiny", ["x"])).split())
    finally:
        HelpLang.french = False
    assert "Utilisation : tiny" in out
    assert "[par défaut : 1]" in out and "[obligatoire]" in out
    assert "[variable d'environnement : TINY_WHERE; par défaut : here.json]" in out
    assert "Afficher ce message et quitter." in out
    assert command.rich_markup_mode is not None  # put back: English help is Typer's own


def private_typer(source: str) -> list[str]:
    """What ``source`` takes from a private module of Typer (``typer._click``, ``typer._types``...)
    or from its Rich help (``typer.rich_utils``): imports and attributes, read from the syntax
    tree (a docstring naming one does not count)."""
    def private(name: str) -> bool:
        parts = name.split(".")
        return parts[0] == "typer" and any(p.startswith("_") or p == "rich_utils" for p in parts[1:])

    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if private(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [f"{node.module}.{a.name}" for a in node.names
                      if private(f"{node.module}.{a.name}")]
        elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
              and private(f"{node.value.id}.{node.attr}")):
            found.append(f"{node.value.id}.{node.attr}")
    return found


def test_nothing_imports_a_private_module_of_typer() -> None:
    """Neither the package, its tests nor its benchmarks import ``typer._click``, ``typer._types``
    or any other private module of Typer, nor reach one by attribute; nor do they use Typer's
    Rich help (``typer.rich_utils``, not public either)."""
    root = PACKAGE.parent
    files = [p for folder in ("sevendag_cli", "tests", "benchmarks") for p in (root / folder).rglob("*.py")]
    assert len(files) > 100
    sources = {str(p.relative_to(root)): p.read_text("utf-8") for p in files}
    offenders = {name: found for name, text in sources.items()  # (only a file naming typer is parsed)
                 if "typer" in text and (found := private_typer(text))}
    assert offenders == {}
    # the check itself
    assert private_typer("from typer._click import types") == ["typer._click.types"]
    assert private_typer("import typer._types") == ["typer._types"]
    assert private_typer("from typer import _click") == ["typer._click"]
    assert private_typer("import typer\nx = typer._click.Context") == ["typer._click"]
    assert private_typer("import typer.rich_utils as r") == ["typer.rich_utils"]
    assert private_typer('"""typer._click"""\nimport typer\nfrom typer.core import TyperCommand') == []


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
