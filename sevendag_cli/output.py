"""How a command prints, and where its dice come from.

:class:`Output` is what ``--json``, ``--jsonl`` and ``--lang`` chose: one JSON
document, JSON lines, or the Rich display in a language.  Data go to stdout;
notes (the seed, "saved to ...") go to stderr, never mixed with the data.
:func:`make_dice` reads ``--seed``, ``--dice`` and ``--manual`` and builds the
dice source the engine is given; :func:`report_seed` tells the seed that
replays the command.  Rich and the dice module are imported only when used.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from sevendag_cli.errors import Msg, UsageError, joined
from sevendag_cli.i18n import detect_lang, t
from sevendag_cli.library import (
    DiceChoice,  # the dice of a call: the library's
    choose_dice,
)
from sevendag_cli.text import visible

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console

    from sevendag_cli.options import Lang
    from sevendag_cli.render.rich_render import RichRenderer
    from sevendag_cli.rules import Fighter, Ruleset
    from sevendag_cli.rules.whatif import Change


class Output:
    """How a command prints: JSON, JSON lines, or the Rich display (and in which language)."""

    __slots__ = ("json", "jsonl", "lang")

    def __init__(self, json: bool, jsonl: bool, lang: str) -> None:
        self.json = json
        self.jsonl = jsonl
        self.lang = lang

    def __repr__(self) -> str:
        return f"Output(json={self.json!r}, jsonl={self.jsonl!r}, lang={self.lang!r})"

    @property
    def rich(self) -> bool:
        return not (self.json or self.jsonl)

    def data(self, doc: Any) -> None:
        """One JSON document: indented for a person at a terminal, compact in a pipe."""
        from sevendag_cli.jsontext import json_text

        sys.stdout.write(json_text(doc, indent=sys.stdout.isatty()) + "\n")

    def lines(self, docs: Iterable[dict[str, Any]]) -> None:
        """One compact JSON document per line, each written as soon as it is made."""
        from sevendag_cli.jsontext import json_text

        for d in docs:
            sys.stdout.write(json_text(d) + "\n")

    def data_with_list(self, key: str, items: Iterable[Any], rest: Callable[[], dict[str, Any]]) -> None:
        """One JSON document (as :meth:`data`, byte for byte) whose list ``key`` is ``items``.

        Each item is encoded as soon as it is made and only its text is kept (a
        fight's rounds: the objects of a long fight are never all held); ``rest()``,
        called once the items are all made, gives the rest of the document, with
        ``key`` in its place.
        """
        from sevendag_cli.jsontext import json_text

        indented = sys.stdout.isatty()
        indent = 2 if indented else None
        encoded = [json_text(item, indented) for item in items]
        doc = rest()
        marker = f"@{key}-{os.urandom(16).hex()}@"  # no text of the items can forge it
        doc[key] = marker
        text = json_text(doc, indented)
        at = text.index(json_text(marker))
        head, tail = text[:at], text[at + len(marker) + 2:]
        write = sys.stdout.write
        write(head)
        if not encoded:
            write("[]")
        elif indent is None:
            write("[")
            for i, item in enumerate(encoded):
                write("," + item if i else item)
            write("]")
        else:  # as the encoder nests it: the items one level deeper than the key's line
            line = head.rsplit("\n", 1)[-1]
            outer = line[:len(line) - len(line.lstrip(" "))]
            inner = outer + " " * indent
            for i, item in enumerate(encoded):
                write((",\n" if i else "[\n") + inner + item.replace("\n", "\n" + inner))
            write("\n" + outer + "]")
        write(tail + "\n")

    def console(self) -> Console:
        """The Rich console of the display: no markup, no emoji codes, no highlighting.

        Names from files are drawn as they are (``[red]`` or ``:smile:`` in a name is
        text, never a style), with their control characters visible (the renderers
        pass what they draw through :func:`sevendag_cli.text.visible_data`).
        """
        from rich.console import Console

        from sevendag_cli.columns import display_columns

        return Console(highlight=False, markup=False, emoji=False, width=display_columns())


def make_output(json_: bool, jsonl: bool, lang: Lang | None, jsonl_allowed: bool = True) -> Output:
    """The output of ``--json``, ``--jsonl`` (where the command has it) and ``--lang``."""
    if json_ and jsonl:
        raise UsageError(Msg("cli.json_and_jsonl"))
    if jsonl and not jsonl_allowed:
        raise UsageError(Msg("cli.jsonl_only"))
    return Output(json_, jsonl, detect_lang(lang.value if lang else None))


def note(message: str) -> None:
    """A message for the user, on stderr (never mixed with data on stdout); one line per line."""
    sys.stderr.write(visible(message) + "\n")


def check_table_options(out: Output, csv_: bool, plot: str | None, odds: bool = True) -> None:
    """``--csv`` and ``--plot`` (only where there are odds: ``odds`` tells; ``--csv`` not with
    ``--json``/``--jsonl``); matplotlib is looked for before any work."""
    if csv_ and (out.json or out.jsonl):
        raise UsageError(Msg("cli.csv_and_json", other="--json" if out.json else "--jsonl"))
    for option, given in (("--csv", csv_), ("--plot", plot is not None)):
        if given and not odds:
            raise UsageError(Msg("cli.table_only", option=option))
    if plot is not None:
        from sevendag_cli.render import plot as plotting

        plotting.plot_format(plot)
        plotting.require()


def what_if_notes(rs: Ruleset, fighters: Sequence[Fighter], changes: tuple[Change, ...],
                  out: Output, policies: Sequence[str] = ("sheet", "sheet"),
                  varied: Sequence[str] = ()) -> None:
    """On stderr: a change that cannot change the fight, and why (a d20 sheet that states its
    AC; a Sevendag technique changed while each fighter plays its sheet: ``policies``, one per
    fighter, ``sheet`` or ``optimal``).  ``varied``: a sweep's ``FIGHTER.FIELD`` targets, whose
    first value is among the changes: a tactic that is the sheet's at that value is no news (the
    sweep says whether any value changes the odds)."""
    from sevendag_cli.rules.whatif import inert_notes

    for message in inert_notes(rs, fighters, changes, policies):
        if message.key == "whatif.tactic_inert" and any(
                v.rsplit(".", 1)[-1] in ("tactic", "allocation") for v in varied):
            continue
        note(f"sevendag: {message.render(out.lang)}")


def renderer(out: Output, ruleset: Ruleset, sheets: Sequence[Fighter] = ()) -> RichRenderer:
    """The Rich display of ``ruleset``'s results, in the output's language (``sheets``: the
    fighters', so that what they hold is shown by its label)."""
    from sevendag_cli.render.rich_render import RichRenderer

    return RichRenderer(out.console(), out.lang, ruleset, sheets)


# --- dice ---------------------------------------------------------------------------------


def make_dice(
    seed: int | None, dice: str | None, manual: bool, out: Output, *, continue_after: bool,
    manual_for: Sequence[str] = (),
) -> DiceChoice:
    """The dice for a command: entered faces, the terminal, or the seeded generator.

    ``continue_after``: in ``fight`` the generator continues after entered faces;
    in ``init`` and ``round`` entered faces must be exactly what is needed.
    ``manual_for``: the fighters (names as in their sheets) whose dice are asked at the
    terminal; the others' come from the seeded generator, whose seed is reported.
    """
    from sevendag_cli.dice import ManualDice, SeededDice, check_seed, fresh_seed

    if manual_for and manual:
        raise UsageError(Msg("cli.manual_for_and_manual"))
    if (manual or manual_for) and dice is not None:
        raise UsageError(Msg("cli.manual_and_dice"))
    if manual and seed is not None:
        raise UsageError(Msg("cli.manual_and_seed"))
    if manual or manual_for:
        if not sys.stdin.isatty():
            raise UsageError(Msg("cli.manual_needs_tty"))
        lang = out.lang
        if not manual_for:
            manual_dice = ManualDice(lambda label: _ask_die(label, lang), lambda m: note(f"  {m}"),
                                     lang)
            return DiceChoice(manual_dice, None, None)
        seed = check_seed(seed) if seed is not None else fresh_seed()
        players = ManualDice(lambda label: _ask_die(label, lang), lambda m: note(f"  {m}"), lang,
                             only=manual_for, others=SeededDice(seed))
        return DiceChoice(players, seed, None)
    return choose_dice(seed, dice, continue_after=continue_after)


def players(given: Sequence[str] | None, names: Sequence[str]) -> tuple[str, ...]:
    """``--manual-for NAME``: each a fighter of the fight (any case), each once."""
    from sevendag_cli.terms import find_name

    out: list[str] = []
    for text in given or ():
        name = find_name(text, names)
        if name is None:
            raise UsageError(Msg("engine.no_fighter", name=text, names=joined(names)))
        if name not in out:
            out.append(name)
    return tuple(out)


def _ask_die(label: str, lang: str = "en") -> str:
    """``--manual``: ask for one die on stderr, read the answer on stdin."""
    sys.stderr.write(Msg("dice.ask", label=label).render(lang))
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:  # the end of the input: the error line goes below the prompt, not after it
        sys.stderr.write("\n")
        raise UsageError(Msg("dice.input_ended"))
    return line


def report_seed(out: Output, choice: DiceChoice) -> None:
    """After a command succeeds: the seed that replays it (the JSON carries it too)."""
    if out.rich and choice.seed is not None:
        note_seed(choice.seed, out.lang)


def note_seed(seed: int, lang: str) -> None:
    """The seed that replays a command, on stderr: ``seed 5 (--seed 5)``."""
    note(t("seed", lang, seed=seed) + f" (--seed {seed})")
