"""The manual (README.md and docs/) against the code, so it cannot drift.

Tables that repeat the code are either generated from it (between
``<!-- generated: NAME -->`` and ``<!-- /generated -->``: each command's options from
the Typer/Click command objects, the message catalogue from ``messages.py``, the
bounds from ``limits.py``) or checked against it (the commands table against
``cli.COMMANDS``).  Links between the pages resolve, file and ``#anchor``; the README
stays a front page; every rule ID the tool can print has its heading in docs/rules.md.

After changing an option, a message or a limit, write the generated tables again::

    python tests/test_docs.py --write
"""

from __future__ import annotations

import ast
import re
import shlex
import sys
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = ["index", "table", "commands", "odds", "bench", "json", "failures", "messages", "rulesets",
         "rules", "development", "library"]
MAX_README_LINES = 300
QUICK_START = (
    "python3 -m venv .venv && . .venv/bin/activate && pip install . && sevendag fight",
    "python3 -m venv .venv && . .venv/bin/activate && pip install '.[test]' && python -m pytest",
)
LIBRARY_MARKER = "<!-- library: filled in at merge -->"
RULE_ID = re.compile(r"\b([SDC]-\d\d)\b")


def pages() -> list[Path]:
    """README.md and every page of docs/."""
    return [README, *sorted(DOCS.glob("*.md"))]


# --- the generated tables -------------------------------------------------------------------


def _cell(text: str) -> str:
    """Text for a Markdown table cell: one line; reST's ``x`` and :mod:`x` as code spans; outside them,
    the pipe and what Markdown would read as markup escaped."""
    text = " ".join(text.split())
    text = re.sub(r":\w+:`([^`]+)`", r"``\1``", text)
    parts = re.split(r"``(.+?)``", text)
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(_code(part))
            continue
        for char in ("\\", "|", "*", "<", ">", "`", "_", "["):
            part = part.replace(char, "\\" + char)
        out.append(part)
    return "".join(out)


def _code(text: str) -> str:
    """A code span in a table cell (GitHub reads ``\\|`` inside it as a pipe)."""
    return "`" + text.replace("|", "\\|") + "`"


def _command_objects() -> Iterator[tuple[str, object]]:
    """The root group, then every command and subcommand in ``--help``'s order, as Click builds them."""
    import typer

    from sevendag_cli.cli import COMMANDS, app, load_command

    yield "", typer.main.get_command(app)
    for name in COMMANDS:
        command = load_command(name)
        yield name, command
        for sub, subcommand in getattr(command, "commands", {}).items():
            yield f"{name} {sub}", subcommand


def command_paths() -> list[str]:
    """Every command path (``init``, ``rulesets show``…), from the Click objects."""
    return [path for path, _ in _command_objects() if path]


def _params_of(path: str) -> dict[str, object]:
    """Every option string (long and short) of a command, and its arguments' names."""
    for name, command in _command_objects():
        if name == path:
            found: dict[str, object] = {}
            for param in command.params:  # type: ignore[attr-defined]
                for opt in (*param.opts, *param.secondary_opts):
                    found[opt] = param
            return found
    raise KeyError(path)


def generate_options() -> str:
    """Each command's arguments and options as ``--help`` states them (English)."""
    from typer import Context  # Typer's public context class, as its commands are run with

    out: list[str] = []
    root_ctx = None
    for path, command in _command_objects():
        if not path:
            root_ctx = Context(command, info_name="sevendag")  # type: ignore[arg-type]
            ctx = root_ctx
            out.append("### `sevendag` (before the command's name)")
        else:
            ctx = Context(command, info_name=path.split()[-1], parent=root_ctx)  # type: ignore[arg-type]
            out.append(f"### `sevendag {path}`")
        out.append("")
        summary = (command.short_help or command.help or "").strip().split("\n\n")[0]  # type: ignore[attr-defined]
        if summary:
            out += [_cell(summary), ""]
        params = [p for p in command.params if not getattr(p, "hidden", False)]  # type: ignore[attr-defined]
        rows: list[str] = []
        for param in sorted(params, key=lambda p: p.param_type_name != "argument"):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            name = record[0].upper() if param.param_type_name == "argument" else record[0]
            rows.append(f"| {_code(name)} | {_cell(record[1])} |")
        out += ["| argument or option | meaning |", "|---|---|", *rows, ""]
    return "\n".join(out).rstrip("\n") + "\n"


def generate_messages() -> str:
    """The catalogue of messages, by key, with the English text (French: ``messages.py``)."""
    from sevendag_cli.messages import MESSAGES

    out = ["| key | English text |", "|---|---|"]
    for key, entry in sorted(MESSAGES.items()):
        out.append(f"| {_code(key)} | {_cell(entry['en'])} |")
    return "\n".join(out) + "\n"


def _limits(module: str = "sevendag_cli.limits") -> list[tuple[str, int, str]]:
    """A limits module's constants in order (``limits.py``, or a ruleset package's own):
    name, value, the docstring under it."""
    import importlib

    limits = importlib.import_module(module)
    tree = ast.parse(Path(str(limits.__file__)).read_text("utf-8"))
    found: list[tuple[str, int, str]] = []
    body = tree.body
    for node, after in zip(body, [*body[1:], None], strict=True):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            doc = ""
            if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
                doc = str(after.value.value)
            found.append((name, getattr(limits, name), doc))
    return found


def _ruleset_limits() -> list[tuple[str, str, int, str]]:
    """Each ruleset package's own limits (its ``limits.py``, where it has one), in the
    registry's order: the package, then as :func:`_limits`."""
    from sevendag_cli.backend import engines

    found = []
    for engine in engines():
        if (ROOT / "sevendag_cli" / engine / "limits.py").is_file():
            found += [(engine, *limit) for limit in _limits(f"sevendag_cli.{engine}.limits")]
    return found


def _amount(value: int) -> str:
    if value >= 1 << 20 and value % (1 << 20) == 0:
        return f"{value:,} ({value >> 20} MiB)"
    return f"{value:,}"


def generate_limits() -> str:
    """Every bound of ``sevendag_cli/limits.py``, its value and what it bounds."""
    out = ["| `limits.py` | value | what it bounds |", "|---|---|---|"]
    for name, value, doc in _limits():
        out.append(f"| {_code(name)} | {_amount(value)} | {_cell(doc)} |")
    return "\n".join(out) + "\n"


def generate_ruleset_limits() -> str:
    """Every ruleset package's own bounds (``sevendag_cli/<engine>/limits.py``)."""
    out = ["| ruleset | limit | value | what it bounds |", "|---|---|---|---|"]
    for engine, name, value, doc in _ruleset_limits():
        out.append(f"| {_code(engine)} | {_code(name)} | {_amount(value)} | {_cell(doc)} |")
    return "\n".join(out) + "\n"


def generate_schemas() -> str:
    """The JSON Schemas that ship with the package (``sevendag schema NAME``), with their titles."""
    import json

    out = ["| `sevendag schema NAME` | what it describes |", "|---|---|"]
    for path in sorted((ROOT / "sevendag_cli" / "schemas").glob("*.json")):
        schema = json.loads(path.read_text("utf-8"))
        out.append(f"| {_code(path.stem)} | {_cell(schema.get('title', ''))} |")
    return "\n".join(out) + "\n"


GENERATED: dict[str, tuple[str, Callable[[], str]]] = {
    "options": ("commands.md", generate_options),
    "messages": ("messages.md", generate_messages),
    "limits": ("failures.md", generate_limits),
    "ruleset-limits": ("failures.md", generate_ruleset_limits),
    "schemas": ("json.md", generate_schemas),
}
_BLOCK = re.compile(r"(<!-- generated: ([\w-]+) -->\n)(.*?)(<!-- /generated -->)", re.S)


def write_generated() -> None:
    """Write every generated table into its page (``python tests/test_docs.py --write``)."""
    for name, (page, make) in GENERATED.items():
        path = DOCS / page
        text = path.read_text("utf-8")
        new = _BLOCK.sub(
            lambda m, name=name, make=make: m.group(1) + "\n" + make() + "\n" + m.group(4)
            if m.group(2) == name else m.group(0),
            text,
        )
        assert f"<!-- generated: {name} -->" in new, f"{page} has no block for {name}"
        path.write_text(new, "utf-8")


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_tables_are_what_the_code_says(name: str) -> None:
    page, make = GENERATED[name]
    text = (DOCS / page).read_text("utf-8")
    blocks = {m.group(2): m.group(3) for m in _BLOCK.finditer(text)}
    assert name in blocks, f"docs/{page} lost its generated block {name!r}"
    assert blocks[name] == "\n" + make() + "\n", (
        f"docs/{page}: the {name} table is not what the code says; run python tests/test_docs.py --write")


def test_every_limit_of_limits_py_is_in_the_table() -> None:
    """The limits table is the module's: every constant, with its value."""
    text = (DOCS / "failures.md").read_text("utf-8")
    for name, value, _doc in _limits():
        assert f"| `{name}` | {_amount(value)} |" in text, name
    ruleset_limits = _ruleset_limits()
    assert ruleset_limits, "no ruleset package has its own limits.py"
    for engine, name, value, _doc in ruleset_limits:
        assert f"| `{engine}` | `{name}` | {_amount(value)} |" in text, (engine, name)


def test_every_message_key_is_in_the_catalogue_page() -> None:
    from sevendag_cli.messages import MESSAGES

    text = (DOCS / "messages.md").read_text("utf-8")
    for key in MESSAGES:
        assert f"| `{key}` |" in text, key


# --- the commands table -----------------------------------------------------------------------


def _table_rows(text: str, header: str) -> list[list[str]]:
    """The rows of the Markdown table whose header line starts with ``header``."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
        rows.append([c.strip() for c in cells])
    return rows


def _command_of(cell: str, paths: list[str]) -> str | None:
    """The command path a table cell such as ```wound FIGHTER --heal X``` names."""
    words = cell.strip("`").split()
    best = None
    for path in paths:
        if words[: len(path.split())] == path.split() and (best is None or len(path) > len(best)):
            best = path
    return best


def commands_table() -> list[list[str]]:
    return _table_rows((DOCS / "commands.md").read_text("utf-8"), "| command |")


def test_every_command_has_a_row_and_every_row_a_command() -> None:
    paths = command_paths()
    rows = commands_table()
    named = [_command_of(row[0], paths) for row in rows]
    for row, path in zip(rows, named, strict=True):
        assert path is not None, f"docs/commands.md: {row[0]} is no command of sevendag"
    for path in paths:
        assert path in named, f"{path} has no row in docs/commands.md's table"


def test_every_example_of_the_commands_table_uses_options_its_command_has() -> None:
    paths = command_paths()
    for row in commands_table():
        path = _command_of(row[0], paths)
        assert path is not None
        example = shlex.split(row[2].strip("`"))
        assert example[0] == "sevendag", row
        used = _command_of(" ".join(example[1:]), paths)
        assert used == path or (used is not None and path.startswith(used)), (row[0], row[2])
        params = _params_of(used)
        for token in example[1 + len(used.split()):]:
            if token == "--":
                break
            if token.startswith("-") and not re.fullmatch(r"-\d.*", token):
                option = token.split("=")[0]
                assert option in params, f"{row[2]}: {option} is no option of sevendag {used}"


def test_every_option_in_a_row_s_first_cell_exists() -> None:
    """A row such as ``fight … --set F.FIELD=V`` names options its command has."""
    paths = command_paths()
    for row in commands_table():
        path = _command_of(row[0], paths)
        assert path is not None
        params = _params_of(path)
        for option in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", row[0] + " " + row[1]):
            if option.startswith("--") or len(option) == 2:
                assert option in params, f"docs/commands.md: {row[0]}: {option} is no option of {path}"


# --- links, anchors, the front page -----------------------------------------------------------


def _prose(text: str) -> str:
    """Text without fenced code blocks and code spans (links there are not links)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation gone, spaces as hyphens."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor of a page: its headings (numbered as GitHub numbers repeats) and ``id=``s."""
    text = re.sub(r"^```.*?^```", "", path.read_text("utf-8"), flags=re.S | re.M)
    seen: dict[str, int] = {}
    found: set[str] = set()
    for line in text.split("\n"):
        m = re.match(r"#{1,6} (.+)", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            found.add(base if n == 0 else f"{base}-{n}")
            seen[base] = n + 1
    found.update(re.findall(r'<a id="([^"]+)"', text))
    return found


def links(path: Path) -> list[str]:
    return re.findall(r"\[[^\]]*\]\(([^)\s]+)\)", _prose(path.read_text("utf-8")))


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.name)
def test_every_link_resolves_to_a_file_and_its_anchor(page: Path) -> None:
    for target in links(page):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        dest = (page.parent / file).resolve() if file else page
        assert dest.is_file(), f"{page.name}: {target}: no such file"
        assert ROOT in dest.parents, f"{page.name}: {target} leaves the repository"
        if anchor and dest.suffix == ".md":
            assert anchor in anchors(dest), f"{page.name}: {target}: no heading #{anchor} in {dest.name}"


def test_every_docs_page_is_linked_from_the_readme_and_the_index() -> None:
    assert sorted(p.stem for p in DOCS.glob("*.md")) == sorted(PAGES)
    for source in (README, DOCS / "index.md"):
        targets = {t.partition("#")[0] for t in links(source)}
        for page in PAGES:
            wanted = f"docs/{page}.md" if source == README else f"{page}.md"
            assert wanted in targets or source.stem == page, f"{source.name} has no link to {wanted}"


def test_the_readme_is_a_front_page() -> None:
    text = README.read_text("utf-8")
    assert len(text.split("\n")) - (text.endswith("\n")) <= MAX_README_LINES
    for line in QUICK_START:  # CI (.ci/run) runs the second one as it is written
        assert f"\n{line}\n" in text, line
    assert "## The library" in text
    assert "docs/library.md" in text and LIBRARY_MARKER not in text


def test_the_manual_stands_on_its_own() -> None:
    """No page sends the reader outside the repository for a rule."""
    for page in pages():
        text = page.read_text("utf-8")
        for word in ("RULES.md", "shared/", "seeds/"):
            assert word not in text, f"{page.name} mentions {word}"


# --- the rules ---------------------------------------------------------------------------------


def printable_rule_ids() -> set[str]:
    """Every rule ID the tool can print: the ruleset files, the package's string literals, the messages."""
    found: set[str] = set()
    for toml in sorted((ROOT / "rulesets").rglob("*.toml")):
        found.update(RULE_ID.findall(toml.read_text("utf-8")))
        found.update(RULE_ID.findall(repr(tomllib.loads(toml.read_text("utf-8")))))
    for source in sorted((ROOT / "sevendag_cli").rglob("*.py")):
        for node in ast.walk(ast.parse(source.read_text("utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.update(RULE_ID.findall(node.value))
    from sevendag_cli.messages import MESSAGES

    for entry in MESSAGES.values():
        for template in entry.values():
            found.update(RULE_ID.findall(template))
    return found


def rule_headings() -> dict[str, str]:
    text = (DOCS / "rules.md").read_text("utf-8")
    return {m.group(1): m.group(0) for m in re.finditer(r"^#{2,4} ([SDC]-\d\d) — .+$", text, re.M)}


@pytest.mark.slow
def test_every_rule_id_the_tool_can_print_has_its_heading_in_rules_md() -> None:
    ids = printable_rule_ids()
    assert {"S-01", "S-21", "D-01", "D-15", "C-01", "C-03"} <= ids  # the collection works
    missing = sorted(ids - set(rule_headings()))
    assert not missing, f"docs/rules.md has no heading for {missing}"


def test_each_rule_heading_appears_once_and_in_order() -> None:
    text = (DOCS / "rules.md").read_text("utf-8")
    ids = re.findall(r"^#{2,4} ([SDC]-\d\d) — ", text, re.M)
    assert len(ids) == len(set(ids))
    for prefix in "CSD":
        mine = [i for i in ids if i[0] == prefix]
        assert mine == sorted(mine), prefix


def test_every_ruleset_rule_links_to_its_heading() -> None:
    """``rulesets show`` prints each rule's ID: a reader finds it at docs/rules.md#s-10--…"""
    headings = rule_headings()
    for toml in sorted((ROOT / "rulesets").glob("*.toml")):
        for rule in tomllib.loads(toml.read_text("utf-8")).get("rules", {}):
            assert rule in headings, (toml.name, rule)
            assert slug(headings[rule].lstrip("#")) in anchors(DOCS / "rules.md")


# --- the fields of rulesets and sheets -------------------------------------------------------


def test_every_field_of_the_bundled_rulesets_and_sheets_is_described() -> None:
    """docs/rulesets.md names every formula and option the loaders read, and every sheet field."""
    from sevendag_cli.d20.rules import FIELD_RANGES as D20_FIELDS
    from sevendag_cli.d20.rules import FORMULA_KEYS
    from sevendag_cli.sevendag.rules import FIELD_RANGES as SEVENDAG_FIELDS

    text = (DOCS / "rulesets.md").read_text("utf-8")
    wanted = {f"formulas.{key}" for key in FORMULA_KEYS} | set(D20_FIELDS) | set(SEVENDAG_FIELDS)
    for toml in sorted((ROOT / "rulesets").glob("*.toml")):
        data = tomllib.loads(toml.read_text("utf-8"))
        wanted |= {f"{table}.{key}" for table in ("formulas", "options") for key in data.get(table, {})}
        wanted |= {key for key, value in data.items() if not isinstance(value, dict | list)}
    for toml in sorted((ROOT / "rulesets" / "fighters").glob("*.toml")):
        wanted |= set(tomllib.loads(toml.read_text("utf-8")))
    forms = ("{}`", "[{}", "[[{}")  # a key, a table, an array of tables
    missing = sorted(key for key in wanted if not any("`" + f.format(key) in text for f in forms))
    assert not missing, f"docs/rulesets.md does not describe {missing}"


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_generated()
    else:
        sys.exit("usage: python tests/test_docs.py --write")
