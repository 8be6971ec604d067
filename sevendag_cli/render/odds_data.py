"""The odds as JSON (docs/json.md): ``odds``, and what ``--odds`` adds to ``init``,
``round`` and ``fight`` (schemas ``odds``, ``init``, ``round``, ``round-event``, ``fight``,
``fight-event``).

Every fighter's odds have one shape, :class:`~sevendag_cli.sim.swing.FighterOdds`:
``{"name", "win_probability", "bounds": [low, high]}`` (``win_probability`` is the low
end: the mass resolved to that fighter); every moment says what the odds assume
(``assumes``), the round cap (``cap``) and the tolerance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sevendag_cli.errors import Msg
from sevendag_cli.policies import OPTIMAL, PLAIN, policies_data
from sevendag_cli.render.data import header, to_data
from sevendag_cli.sim.swing import rounds_left

if TYPE_CHECKING:
    from sevendag_cli.sim.odds import Odds
    from sevendag_cli.sim.swing import OddsPoint, OddsSwing


def odds_notes(engine: str, cap: int | None, odds: Odds | None, tolerance: float,
               policies: Sequence[str] = PLAIN, names: Sequence[str] = (),
               fighters: Sequence[Any] = ()) -> list[Msg]:
    """What the display and the JSON ``note`` say of the odds: the assumptions, the cap, the stop
    (of a finished fight, only that it is over)."""
    if odds is not None and odds.finished:
        return [Msg("exact.note.stop.over")]
    notes = [assumption_note(engine, policies, names, fighters),
             Msg("exact.assume.cap", cap=cap) if cap is not None else Msg("exact.assume.no_cap")]
    if odds is not None:
        notes.append(Msg(f"exact.note.stop.{odds.stop}", unresolved=odds.unresolved,
                         tolerance=tolerance))
    return notes


def assumption_note(engine: str, policies: Sequence[str] = PLAIN,
                    names: Sequence[str] = (), fighters: Sequence[Any] = ()) -> Msg:
    """What the odds assume of the fighters' play, in words."""
    from sevendag_cli.sim.swing import SHEET_RULES, assumptions

    optimal = [n for n, p in zip(names, policies, strict=False) if p == OPTIMAL]
    if SHEET_RULES in assumptions(engine, (policies[0], policies[1]), fighters) and \
            len(optimal) < len(policies):
        return Msg("exact.assume.sheet_rules")
    if not optimal:  # each on its sheet: what the ruleset's rounds assume, in its words
        from sevendag_cli.backend import backend_named

        return backend_named(engine).exact.sheets_note()
    if len(optimal) == len(policies):
        return Msg("exact.assume.optimal_both")
    return Msg("exact.assume.optimal", who=optimal[0])


def basis(engine: str, cap: int | None, tolerance: float, names: Sequence[str],
          policies: Sequence[str] = PLAIN, fighters: Sequence[Any] = ()) -> dict[str, Any]:
    from sevendag_cli.sim.swing import assumptions

    return {"cap": cap, "tolerance": tolerance,
            "assumes": list(assumptions(engine, (policies[0], policies[1]), fighters,
                                        cap is not None)),
            "policies": policies_data(names, policies)}


def _names(point: OddsPoint) -> tuple[str, str]:
    return point.fighters[0].name, point.fighters[1].name


def odds_document(state: Any, ruleset: Any, encounter: str, odds: Odds, point: OddsPoint,
                  cap: int | None, tolerance: float, lang: str, policies: Sequence[str] = PLAIN,
                  fighters: Sequence[Any] = ()) -> dict[str, Any]:
    """``odds --json``: each fighter's chance to win from the saved encounter (schema ``odds``)."""
    data: dict[str, Any] = to_data(point)
    return {
        **header("odds", ruleset.name, None), "encounter": encounter, "engine": ruleset.engine,
        "round": state.round,
        **basis(ruleset.engine, cap, tolerance, _names(point), policies, fighters),
        "rounds_left": rounds_left(state, cap), "stop": odds.stop, "over": state.over,
        "winner": state.winner, "fighters": data["fighters"],
        "draw_probability": point.draw_probability, "draw_bounds": list(point.draw_bounds),
        "unresolved": point.unresolved,
        "note": " ".join(m.render(lang) for m in odds_notes(ruleset.engine, cap, odds, tolerance,
                                                              policies, _names(point), fighters)),
    }


def moment_odds(point: OddsPoint, engine: str, cap: int | None, tolerance: float,
                fighters: Sequence[Any] = ()) -> dict[str, Any]:
    """``init --odds``: the odds from the state ``init`` saved (before round 1)."""
    data: dict[str, Any] = to_data(point)
    return {**basis(engine, cap, tolerance, _names(point), PLAIN, fighters),
            "fighters": data["fighters"],
            "draw_probability": point.draw_probability, "unresolved": point.unresolved}


def round_odds(before: OddsPoint, after: OddsPoint, engine: str, cap: int | None,
               tolerance: float, policies: Sequence[str] = PLAIN,
               fighters: Sequence[Any] = ()) -> dict[str, Any]:
    """``round --odds``: the odds before and after the round, per fighter (schema ``round``)."""
    return {**basis(engine, cap, tolerance, _names(before), policies, fighters),
            "before": to_data(before.fighters), "after": to_data(after.fighters),
            "draw_probability": {"before": before.draw_probability, "after": after.draw_probability},
            "unresolved": {"before": before.unresolved, "after": after.unresolved}}


def swing_data(swing: OddsSwing) -> dict[str, Any]:
    """``fight --odds --json``: what the fight document gets (schema ``fight``, ``$defs/odds``)."""
    return {"cap": swing.cap, "tolerance": swing.tolerance, "assumes": list(swing.assumes),
            "odds": [to_data(p) for p in swing.points]}


def swing_line(point: OddsPoint, swing: OddsSwing) -> dict[str, Any]:
    """One ``odds`` line of ``fight --odds --jsonl`` (schema ``fight-event``, ``$defs/odds``)."""
    data: dict[str, Any] = to_data(point)
    return {"type": "odds", **data, "cap": swing.cap, "tolerance": swing.tolerance,
            "assumes": list(swing.assumes)}


def with_swing_lines(lines: list[dict[str, Any]], swing: OddsSwing) -> list[dict[str, Any]]:
    """``fight --jsonl`` lines with the odds: round 0's (start, then after the initiative) after
    the initiative line, each round's after its ``round-end`` line."""
    by_round: dict[int, list[OddsPoint]] = {}
    for p in swing.points:
        by_round.setdefault(p.round, []).append(p)
    out: list[dict[str, Any]] = []
    for line in lines:
        out.append(line)
        kind = line.get("type")
        if (kind == "initiative" and line["round"] == 0) or kind == "round-end":
            out += [swing_line(p, swing) for p in by_round.pop(line["round"], [])]
    return out
