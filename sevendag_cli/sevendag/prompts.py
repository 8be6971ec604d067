"""Interactive Sevendag choices for ``round`` at a terminal (S-03, S-04, S-05).

Asked on stderr, answered on stdin; Enter keeps the default: the sheet's
tactic, and its rules (its yield, its technique: without them no yield, no
technique).  Answers are read in either language and in
any case (``o``/``oui``/``y``; ``a,d`` or ``attaque, défense``; ``feinte``).
An answer that is neither yes nor no is asked again (``maybe`` is not a no);
a refused answer is explained and asked again, so the engine only ever sees
valid choices.  What the question is about (each hand and its die, the
techniques) is written on its own lines before the short question, wrapped to
the terminal's width.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Callable, Collection
from typing import Any

from sevendag_cli.errors import Msg, RuleError, UsageError
from sevendag_cli.i18n import label, t
from sevendag_cli.sevendag import engine, planning
from sevendag_cli.terms import NONE_WORDS, commitments, fold, yes_no
from sevendag_cli.text import visible


def _read(prompt: str) -> str:
    sys.stderr.write(prompt)
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:  # the end of the input: the error line goes below the prompt, not after it
        sys.stderr.write("\n")
        raise UsageError(Msg("cli.choices_ended"))
    return line.strip()


def _stderr_say(message: str) -> None:
    width = max(40, shutil.get_terminal_size((80, 24)).columns)
    for line in textwrap.wrap(message, width - 2, subsequent_indent="      ",
                              break_long_words=False, break_on_hyphens=False) or [""]:
        sys.stderr.write(f"  {line}\n")


def ask_yes_no(question: str, lang: str, read: Callable[[str], str], say: Callable[[str], None],
               default: bool = False) -> bool:
    """A ``[y/N]`` question (``[Y/n]`` when ``default``): Enter is the default; an answer that
    is neither yes nor no is asked again."""
    while True:
        answer = read(question)
        if not answer:
            return default
        found = yes_no(answer)
        if found is not None:
            return found
        say(t("prompt.yes_no_yes" if default else "prompt.yes_no", lang, value=answer))


def ask_sevendag_choices(
    rs: Any, a: Any, b: Any, state: Any, yield_: bool | None,
    allocation: dict[str, tuple[str, ...]], technique: dict[str, str | None], lang: str,
    read: Callable[[str], str] = _read, warn: Callable[[str], None] | None = None,
    only: Collection[str] | None = None,
) -> engine.Choices:
    """Ask what the options did not say: the yield, each fighter's hands, each technique.

    ``read`` shows a question and returns the answer; ``warn`` shows a line (the
    hands, the techniques, why an answer was refused).  ``only``: ask only these
    fighters (``round --ask NAME``: a player's own choices); what the others did not
    get from the options is their sheet's (its tactic, its yield and technique rules),
    as without a terminal.
    """
    say = warn or _stderr_say
    fighters = {a.name: a, b.name: b}
    ruled = fighters[state.assaillant].yield_rule != "never"
    chosen_yield: bool | None = yield_
    if yield_ is None and only is not None and state.assaillant not in only:
        chosen_yield = None if ruled else False  # the sheet's, as without a terminal
    elif yield_ is None:  # Enter keeps the sheet's choice (its yield rule, S-03)
        sheet_yields = planning.sheet_yield(fighters, state)
        key = "prompt.yield_yes" if sheet_yields else "prompt.yield"
        answer = ask_yes_no(t(key, lang, name=visible(state.assaillant)), lang, read, say,
                            sheet_yields)
        chosen_yield = None if ruled and answer == sheet_yields else answer
    order = [state.assaillant, state.other(state.assaillant)]
    for name in order:
        if only is not None and name not in only:
            continue  # its sheet's tactic and rules
        f = fighters[name]
        if name not in allocation:
            allocation[name] = _ask_hands(rs, a, b, state, f, lang, read, say)
        fs = state.fighter(name)
        if name not in technique and rs.techniques and fs.technique is None:
            # Enter keeps the sheet's choice (its technique rule, S-05): left to the engine
            by_sheet = planning.sheet_technique(f, fs, name == state.assaillant)
            chosen = _ask_technique(rs, name, lang, read, say, by_sheet)
            if chosen:
                technique[name] = chosen
            elif chosen is None and f.technique_rule is not None:
                technique[name] = None  # "none" said: no technique, whatever the sheet
    return engine.Choices(yield_initiative=chosen_yield, allocation=allocation,
                          technique=technique)


def _ask_hands(rs: Any, a: Any, b: Any, state: Any, f: Any, lang: str,
               read: Callable[[str], str], say: Callable[[str], None]) -> tuple[str, ...]:
    """One commitment per hand (S-04), in order: ``a,d``; Enter keeps the sheet's tactic."""
    default = engine.allocation_for(f, None, state.fighter(f.name))
    hands = ", ".join(
        f"({i}) d{h.die} {visible(f.items[h.holds].label_in(lang)) if h.holds else t('sev.empty', lang)}"
        for i, h in enumerate(f.hands, start=1))
    say(t("prompt.hands", lang, name=visible(f.name), hands=hands))
    shortcuts = ",".join(c[0] for c in default)
    while True:
        text = read(t("prompt.alloc", lang, name=visible(f.name), default=shortcuts))
        if not text:
            return default
        parts = commitments(text)
        if len(parts) != len(f.hands):
            say(t("prompt.per_hand", lang, name=visible(f.name), n=len(f.hands), given=len(parts),
                  example=shortcuts))  # a valid answer (the sheet's tactic), never "a,a" for a shield
            continue
        try:
            engine.check_choices(rs, a, b, state, engine.Choices(allocation={f.name: parts}))
        except RuleError as exc:
            say(exc.render(lang))
            continue
        return parts


def _ask_technique(rs: Any, name: str, lang: str, read: Callable[[str], str],
                   say: Callable[[str], None], by_sheet: str | None = None) -> str | None:
    """A technique by its key or its label (S-05); None for ``none``; ``""`` for Enter, which
    keeps the sheet's choice (``by_sheet``, from its technique rule: the engine applies it)."""
    choices = ", ".join(
        k if label(tq.label, lang) == k else f"{k} = {visible(label(tq.label, lang))}"
        for k, tq in rs.techniques.items()
    )
    if by_sheet is not None:
        shown = visible(label(rs.techniques[by_sheet].label, lang))
        question = t("prompt.tech_sheet", lang, name=visible(name), choices=choices, default=shown)
    else:
        question = t("prompt.tech", lang, name=visible(name), choices=choices)
    while True:
        text = read(question)
        if not text:
            return ""
        if fold(text) in NONE_WORDS:
            return None
        found: list[str] = rs.technique_candidates(text)
        if len(found) == 1:
            return found[0]
        named = [visible(label(rs.techniques[k].label, lang)) for k in (found or rs.techniques)]
        say(t("prompt.unknown", lang, value=visible(text), choices=", ".join(named)))
