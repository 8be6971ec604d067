"""Rich display of the odds: ``odds`` (from the saved encounter), the line ``round --odds``
and ``init --odds`` add, and the chart of ``fight --odds``.

Readable without colour: the chart's bars are drawn with a different character per
fighter (``█`` the first named, on the left; ``░`` the second, on the right; ``·`` a
draw), colour only doubles them.  Every line fits the console (80 columns in a pipe) and
wraps under itself (:mod:`sevendag_cli.render.layout`); names are shown with their control
characters visible (:func:`~sevendag_cli.text.visible`).  Reads records only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.text import Text

from sevendag_cli.i18n import label, number, t
from sevendag_cli.policies import PLAIN, SHEET
from sevendag_cli.render.layout import MIN_WIDTH, print_line, print_rows
from sevendag_cli.render.odds_data import odds_notes
from sevendag_cli.render.rich_sim import _interval as interval
from sevendag_cli.sim.odds import Odds
from sevendag_cli.sim.swing import START, OddsPoint, OddsSwing, rounds_left
from sevendag_cli.text import visible

A_BAR, B_BAR, DRAW_BAR = "█", "░", "·"


def percent(p: float, lang: str = "en") -> str:
    return number(p, ".1%", lang)


def _notes(console: Console, engine: str, cap: int | None, odds: Odds | None, tolerance: float,
           lang: str, indent: str = "  ", policies: Sequence[str] = PLAIN,
           names: Sequence[str] = (), fighters: Sequence[Any] = ()) -> None:
    for note in odds_notes(engine, cap, odds, tolerance, policies, names, fighters):
        print_line(console, Text(indent + note.render(lang), "dim"))


# --- odds: the saved encounter ------------------------------------------------------------------


def odds_display(console: Console, lang: str, ruleset: Any, state: Any, encounter: str,
                 odds: Odds, point: OddsPoint, cap: int | None, tolerance: float,
                 policies: Sequence[str] = PLAIN, fighters: Sequence[Any] = ()) -> None:
    """``odds``: where the fight stands, each fighter's chance to win from here, and what it assumes."""

    def tr(key: str, **kw: object) -> str:
        return t(key, lang, **kw)  # t() shows the texts it is given with controls visible

    print_line(console, Text(tr("odds.title", path=encounter, ruleset=label(ruleset.label, lang)),
                        "bold underline"))
    if state.over:
        who = (tr("winner", name=state.winner) if state.winner is not None
               else tr("draw", n=cap if cap is not None else state.round))
        print_line(console, Text("  " + tr("status.over", who=who), "bold"), hang=4)
    else:
        played = tr("status.no_round") if state.round == 0 else tr("status.rounds", n=state.round)
        from sevendag_cli.backend import backend_for

        key, names, _, _ = backend_for(ruleset).display().who_attacks(state)
        who = tr(key, **names)
        print_line(console, Text(f"  {played} · {who}"), hang=4)
    rows: list[tuple[Text, Text]] = []
    cell = len(percent(1.0, lang))  # ``100.0%``, ``100,0 %`` in French
    for f in point.fighters:
        value = Text(f"{percent(f.win_probability, lang):>{cell}}", "bold")
        if not state.over:
            value.append(f"  {tr('odds.exact', interval=interval(*f.bounds, lang))}")
        rows.append((Text(visible(f.name), "bold"), value))
    draw = Text(f"{percent(point.draw_probability, lang):>{cell}}")
    if not state.over:
        draw.append(f"  {tr('odds.exact', interval=interval(*point.draw_bounds, lang))}")
    rows.append((Text(tr("odds.draw")), draw))
    print_rows(console, rows)
    if not state.over and cap is not None:
        print_line(console, Text("  " + tr("odds.cap", cap=cap, left=rounds_left(state, cap))), hang=4)
    _notes(console, ruleset.engine, cap, odds, tolerance, lang, policies=policies,
           names=[f.name for f in point.fighters], fighters=fighters)


# --- round --odds, init --odds: one line ----------------------------------------------------------


def odds_line(console: Console, lang: str, after: OddsPoint, before: OddsPoint | None = None,
              policies: Sequence[str] | None = None) -> None:
    """``odds: Brannoc 52.3% → 38.1%, Ysolde 47.7% → 61.9%`` (before → after), or the odds alone;
    the draw too when it shows at one decimal. When a fighter plays optimally (``policies``),
    the line says who plays how: ``odds (Brannoc optimal, Ysolde on its sheet): …``."""
    parts: list[str] = []
    names = [visible(f.name) for f in after.fighters]
    pairs: list[tuple[str, float | None, float]] = [
        (names[i], before.fighters[i].win_probability if before else None,
         after.fighters[i].win_probability) for i in (0, 1)]
    draw_before = before.draw_probability if before else None
    if max(after.draw_probability, draw_before or 0.0) >= 0.0005:
        pairs.append((t("odds.draw", lang), draw_before, after.draw_probability))
    for name, x, y in pairs:
        shown_odds = percent(y, lang) if x is None else f"{percent(x, lang)} → {percent(y, lang)}"
        parts.append(f"{name} {shown_odds}")
    text = Text("  ")
    if policies is not None and any(p != SHEET for p in policies):
        who = ", ".join(t(f"sim.policy.{p}", lang, name=n)
                        for n, p in zip(names, policies, strict=True))
        text.append(t("odds.line_play", lang, odds=", ".join(parts), who=who), "bold")
    else:
        text.append(t("odds.line", lang, odds=", ".join(parts)), "bold")
    print_line(console, text, hang=4)


# --- fight --odds: the swing ------------------------------------------------------------------------


def _row_label(p: OddsPoint, lang: str) -> str:
    if p.moment == START:
        return t("odds.start", lang)
    if p.round == 0:
        return t("odds.init", lang)
    return str(p.round)


def _bar(p: OddsPoint, width: int) -> Text:
    """Fighter a's share from the left, b's from the right, the draw between (each rounded to a
    cell; a share that is not nil shows at least one cell)."""
    pa, pb = p.fighters[0].win_probability, p.fighters[1].win_probability

    def cells(x: float) -> int:
        return max(1 if x >= 0.005 else 0, round(width * x))

    na, nb = min(width, cells(pa)), cells(pb)
    nb = min(nb, width - na)
    nd = width - na - nb
    if nd and p.draw_probability < 0.005:  # rounding: give the gap to the larger share
        if pa >= pb:
            na += nd
        else:
            nb += nd
        nd = 0
    bar = Text()
    bar.append(A_BAR * na, "cyan")
    bar.append(DRAW_BAR * nd, "yellow")
    bar.append(B_BAR * nb, "magenta")
    return bar


def swing_chart(console: Console, swing: OddsSwing, lang: str, engine: str,
                policies: Sequence[str] = PLAIN, fighters: Sequence[Any] = ()) -> None:
    """How the odds swung, one row per moment: the first fighter's chance, a bar, the second's."""
    points = swing.points
    if not points:
        return
    names = [visible(f.name) for f in points[0].fighters]
    title = "odds.swing_title" if swing.cap is not None else "odds.swing_title_end"
    print_line(console, Text(t(title, lang, cap=swing.cap, tol=swing.tolerance),
                        "bold underline"))
    print_line(console, t("odds.legend", lang, a=names[0], b=names[1]))
    labels = [_row_label(p, lang) for p in points]
    pad = max(len(x) for x in labels)
    width = max(console.width, MIN_WIDTH)
    cell = len(percent(1.0, lang))  # ``100.0%``, ``100,0 %`` in French
    bar_width = max(10, min(50, width - pad - 2 - 2 * (cell + 1)))
    for p, row in zip(points, labels, strict=True):
        line = Text(f"{row:>{pad}}  {percent(p.fighters[0].win_probability, lang):>{cell}} ")
        line.append_text(_bar(p, bar_width))
        line.append(f" {percent(p.fighters[1].win_probability, lang):>{cell}}")
        console.print(line, soft_wrap=True)
    swing_at = _biggest_swing(points)
    if swing_at is not None:
        x, y = points[swing_at - 1], points[swing_at]
        at = t("odds.at_init", lang) if y.round == 0 else t("odds.at_round", lang, n=y.round)
        print_line(console, t("odds.swing", lang, at=at, a=names[0],
                         a0=percent(x.fighters[0].win_probability, lang),
                         a1=percent(y.fighters[0].win_probability, lang), b=names[1],
                         b0=percent(x.fighters[1].win_probability, lang),
                         b1=percent(y.fighters[1].win_probability, lang)))
    from sevendag_cli.errors import Msg

    print_line(console, Text(Msg("exact.swing.moments").render(lang), "dim"))
    _notes(console, engine, swing.cap, None, swing.tolerance, lang, indent="", policies=policies,
           names=[f.name for f in points[0].fighters], fighters=fighters)


def _biggest_swing(points: tuple[OddsPoint, ...]) -> int | None:
    """The point after the largest change of a fighter's chance (the first of equals); None when
    no change shows at one decimal."""
    best, at = 0.0005, None
    for i in range(1, len(points)):
        change = max(abs(points[i].fighters[k].win_probability - points[i - 1].fighters[k].win_probability)
                     for k in (0, 1))
        if change > best + 1e-12:
            best, at = change, i
    return at
