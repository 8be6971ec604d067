"""Interactive Sevendag choices for ``round`` at a terminal (S-03, S-04, S-05).

Asked on stderr, answered on stdin; Enter keeps the default (the sheet's
tactic, no yield, no technique).  A refused answer is explained and asked
again, so the engine only ever sees valid choices.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from sevendag_cli.engine import sevendag as engine
from sevendag_cli.errors import Msg, RuleError, UsageError
from sevendag_cli.i18n import label, t

ABBREVIATIONS = {"a": "attack", "att": "attack", "d": "defence", "def": "defence",
                 "defense": "defence", "n": "none", "-": "none",
                 "attaque": "attack", "défense": "defence", "defence": "defence", "attack": "attack",
                 "none": "none", "aucun": "none"}



def _read(prompt: str) -> str:
    sys.stderr.write(prompt)
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise UsageError(Msg("cli.choices_ended"))
    return line.strip()


def ask_sevendag_choices(
    rs: Any, a: Any, b: Any, state: Any, yield_: bool | None,
    allocation: dict[str, tuple[str, ...]], technique: dict[str, str], lang: str,
    read: Callable[[str], str] = _read, warn: Callable[[str], None] | None = None,
) -> engine.Choices:
    def stderr_warn(message: str) -> None:
        sys.stderr.write(f"  {message}\n")

    say = warn or stderr_warn
    fighters = {a.name: a, b.name: b}
    if yield_ is None:
        answer = read(t("prompt.yield", lang, name=state.assaillant)).lower()
        yield_ = answer[:1] in ("y", "o")
    order = [state.assaillant, state.other(state.assaillant)]
    for name in order:
        f = fighters[name]
        if name not in allocation:
            default = engine.allocation_for(f, None, state.fighter(name))
            hands = ", ".join(
                f"d{h.die} {f.items[h.holds].label if h.holds else '—'}" for h in f.hands
            )
            while True:
                text = read(t("prompt.alloc", lang, name=name, hands=hands, default=",".join(default)))
                if not text:
                    allocation[name] = default
                    break
                parts = [ABBREVIATIONS.get(x.strip().lower(), x.strip()) for x in text.split(",")]
                try:
                    engine.check_choices(rs, a, b, state,
                                         engine.Choices(allocation={name: tuple(parts)}))
                except RuleError as exc:
                    say(exc.render(lang))
                    continue
                allocation[name] = tuple(parts)
                break
        if name not in technique and rs.techniques and state.fighter(name).technique is None:
            choices = ", ".join(
                k if label(t.label, lang) == k else f"{k} = {label(t.label, lang)}"
                for k, t in rs.techniques.items()
            )
            while True:
                text = read(t("prompt.tech", lang, name=name, choices=choices))
                if not text or text.lower() in ("none", "aucune", "-"):
                    break
                if text in rs.techniques:
                    technique[name] = text
                    break
                say(t("prompt.unknown", lang, value=text, choices=", ".join(rs.techniques)))
    return engine.Choices(yield_initiative=bool(yield_), allocation=allocation, technique=technique)
