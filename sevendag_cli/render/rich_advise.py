"""Rich display of ``advise`` (and ``round --advise``): every option of the fighter declaring
now, one line each, the best marked with ``*`` (readable without colour, 80 columns)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from sevendag_cli.i18n import label, t
from sevendag_cli.render.layout import print_line


def option_text(option: Any, ruleset: Any, lang: str) -> str:
    """``yield · attack, defence · feint`` in the display language."""
    parts = []
    if option.yield_initiative:
        parts.append(t("advise.yield", lang))
    parts.append(", ".join(t(c, lang) if c != "none" else "-" for c in option.allocation))
    if option.technique is not None:
        tech = ruleset.techniques.get(option.technique)
        parts.append(label(tech.label, lang) if tech is not None else option.technique)
    else:
        parts.append(t("advise.no_technique", lang))
    return " · ".join(parts)


def advise_lines(console: Console, lang: str, at: Any, title: bool = True) -> None:
    """The advice: who declares, then each option (best first marked), its interval, the answer."""
    advice = at.advice
    rs = at.ruleset
    if title:
        print_line(console, Text(t("advise.title", lang, path=at.encounter, n=at.state.round + 1),
                                 "bold underline"))
    role = t(f"advise.role.{advice.role}", lang)
    print_line(console, Text("  " + t("advise.declares", lang, name=advice.fighter, role=role)),
               hang=4)
    if advice.after is not None:
        print_line(console, Text("  " + t("advise.after", lang,
                                          option=option_text(advice.after, rs, lang))), hang=4)
    order = sorted(range(len(advice.options)), key=lambda i: -advice.options[i].win_probability)
    for i in order:
        o = advice.options[i]
        mark = "*" if i == advice.best else " "
        head = f"{mark} {o.win_probability:6.1%}  [{o.low:.1%}, {o.high:.1%}]  "
        line = Text(head, "bold" if i == advice.best else "")
        line.append(option_text(o.option, rs, lang))
        if o.answer is not None:
            line.append("  → " + t("advise.answer", lang, option=option_text(o.answer, rs, lang)),
                        "dim")
        print_line(console, line, hang=len(head))
    print_line(console, Text("  " + t("advise.open", lang, tol=at.tolerance,
                                      n=advice.rounds_left), "dim"))
