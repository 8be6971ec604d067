"""``advise --json`` (schema ``advise``): every option of the fighter declaring now.

An option is the ruleset's own record (Sevendag: ``sevendag.game.Option``), read by its
fields: ``yield_initiative``, ``allocation``, ``technique``."""

from __future__ import annotations

from typing import Any

from sevendag_cli.render.data import header


def option_data(option: Any) -> dict[str, Any] | None:
    if option is None:
        return None
    return {"yield": option.yield_initiative, "allocation": list(option.allocation),
            "technique": option.technique}


def advise_document(at: Any, lang: str = "en", top: int | None = None) -> dict[str, Any]:
    """The advice as a document: the header, the state, each option with its value (``top``:
    the ``top`` best only, in their order; ``best`` indexes what is kept)."""
    advice = at.advice
    options = list(advice.options)
    if top is not None and top < len(options):
        ranked = sorted(range(len(options)), key=lambda i: (-options[i].win_probability, i))
        options = [options[i] for i in sorted(ranked[:top])]
    best = max(range(len(options)), key=lambda i: options[i].win_probability)
    return {
        **header("advise", at.ruleset.name, None), "encounter": at.encounter,
        "round": at.state.round, "cap": at.cap, "tolerance": at.tolerance,
        "rounds_left": advice.rounds_left, "fighter": advice.fighter, "role": advice.role,
        "after": option_data(advice.after),
        "policies": {name: "optimal" for name in (f.name for f in at.state.fighters)},
        "options": [{**(option_data(o.option) or {}), "win_probability": o.win_probability,
                     "bounds": [o.low, o.high], "answer": option_data(o.answer)}
                    for o in options],
        "best": best,
    }
