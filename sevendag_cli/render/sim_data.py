"""``fight --exact``: the exact result as the JSON document (docs/json.md).

The keys of ``fight --runs`` are kept wherever they mean the same thing
(``fighters[].win_probability``, ``draw_probability``, ``rounds.{mean, sd, p50, p90,
histogram}``, ``first_striker_won``, the ruleset's own figures under its engine's name, the
other engines' null); what is exact
adds its bounds (``bounds``, ``draw_bounds``, ``unresolved``, ``rounds.tail``) and, where
the fight can be solved in fractions, ``*_exact`` (the fight played to the end, no cap).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from sevendag_cli.backend import by_engine
from sevendag_cli.errors import Msg
from sevendag_cli.render.data import header, to_data

if TYPE_CHECKING:
    from sevendag_cli.sim.exact_fight import ExactFight
    from sevendag_cli.sim.exact_records import Exploitability


def _fraction(x: Fraction | None) -> str | None:
    return None if x is None else str(x)


def exact_note(result: ExactFight) -> list[Msg]:
    """What the display and the JSON say about how the odds were computed: the ruleset's
    method first."""
    end = result.solver == "end"  # played to the end, with no round cap
    notes = [result.method,
             Msg(f"exact.note.stop.{result.stop}", unresolved=result.unresolved,
                 tolerance=result.tolerance)]
    if result.unresolved > result.tolerance and result.stop != "work":
        # nothing left in play, yet wider: the rounding floor (and optimal play's ties)
        notes.append(Msg("exact.note.floor", unresolved=result.unresolved,
                         tolerance=result.tolerance))
    if result.fractions is not None:  # with no round cap, the very fight of the odds above
        notes.append(Msg("exact.note.fractions_end" if end else "exact.note.fractions"))
    elif result.no_fractions is not None:
        notes.append(Msg("exact.note.no_fractions", reason=result.no_fractions))
    return notes


def exploitability_data(e: Exploitability) -> dict[str, Any]:
    """``fight --exact --json`` ``exploitability``: per fighter, what its sheet gives away."""
    return {
        "tolerance": e.tolerance,
        "fighters": [
            {"name": e.names[i], "gives_away": e.gives_away[i], "bounds": list(e.bounds[i]),
             "opponent_best_response": e.best_response[i], "sheet_value": e.sheet_value[i]}
            for i in (0, 1)],
    }


def exact_document(ruleset: str, result: ExactFight, lang: str = "en") -> dict[str, Any]:
    fr = result.fractions
    fighters = []
    for i, f in enumerate(result.fighters):
        fighters.append({
            "name": f.name,
            "win_probability": f.win_probability,
            "bounds": list(f.bounds),
            "win_probability_exact": _fraction(fr.win_probability[i] if fr else None),
            "first_strike_probability": f.first_strike_probability,
            "first_strike_win_probability": f.first_strike_win_probability,
        })
    r = result.rounds
    doc: dict[str, Any] = {
        **header("fight", ruleset, None),
        "mode": "exact",
        "engine": result.engine,
        "cap": result.cap,
        "played_to_end": result.solver == "end",
        "tolerance": result.tolerance,
        "stop": result.stop,
        "fighters": fighters,
        "draw_probability": result.draw_probability,
        "draw_bounds": list(result.draw_bounds),
        "draw_probability_exact": _fraction(fr.draw_probability if fr else None),
        "unresolved": result.unresolved,
        "rounds": {
            "mean": r.mean, "mean_bounds": list(r.mean_bounds), "sd": r.sd, "p50": r.p50,
            "p90": r.p90, "histogram": [[t, p] for t, p in r.histogram], "tail": r.tail,
        },
        "rounds_mean": r.mean,
        "rounds_mean_exact": _fraction(fr.rounds_mean if fr else None),
        "first_striker_won": result.first_striker_won,
        **by_engine(result.engine, None if result.extras is None else to_data(result.extras)),
        "note": " ".join(m.render(lang) for m in exact_note(result)),
    }
    return doc
