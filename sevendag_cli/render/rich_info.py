"""Rich display of the ruleset listing and of one ruleset (``rulesets``, ``rulesets show``)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from sevendag_cli.i18n import label, t
from sevendag_cli.text import visible_data


def h(lang: str, key: str) -> str:
    return t(f"info.{key}", lang)


def render_rulesets(console: Console, doc: dict[str, Any], lang: str) -> None:
    doc = visible_data(doc)
    table = Table(title=h(lang, "rulesets"), title_justify="left")
    for col in ("name", "engine", "origin", "path"):
        table.add_column(h(lang, col))
    for r in doc["rulesets"]:
        if r["valid"]:
            table.add_row(r["name"], r["engine"], r["origin"], r["path"])
        else:
            table.add_row(r["name"], Text(h(lang, "invalid"), "red"), "", r["problem"])
    console.print(table)
    fighters = Table(title=h(lang, "fighters"), title_justify="left")
    for col in ("name", "ruleset", "origin", "path"):
        fighters.add_column(h(lang, col))
    for f in doc["fighters"]:
        fighters.add_row(f["name"], str(f["ruleset"]), f["origin"], f["path"])
    console.print(fighters)
    console.print(Text(f"{h(lang, 'search')}: " + " · ".join(doc["search_path"]), "dim"))


def render_ruleset(console: Console, doc: dict[str, Any], lang: str) -> None:
    doc = visible_data(doc)
    console.print(Text(f"{label(doc['label'], lang)} ({doc['name']}, {doc['engine']})", "bold"))
    console.print(Text(doc["path"], "dim"))

    def section(title: str, rows: list[tuple[str, str]], styles: tuple[str, str] = ("cyan", "")) -> None:
        table = Table(title=title, title_justify="left", show_header=False, box=None, padding=(0, 1))
        table.add_column(style=styles[0])
        table.add_column(style=styles[1])
        for k, v in rows:
            table.add_row(k, v)
        console.print()
        console.print(table)

    section(h(lang, "rules"), sorted(doc["rules"].items()))
    section(h(lang, "formulas"), list(doc["formulas"].items()))
    section(h(lang, "options"), [(k, str(v)) for k, v in doc["options"].items()])
    if "wounds" in doc:
        section(h(lang, "wounds"), [
            (label(w["label"], lang),
             f"{w['low']}–{w['high'] if w['high'] is not None else '∞'}  penalty {w['penalty']}"
             + (f"  out after {w['out_after']}" if w["out_after"] else ""))
            for w in doc["wounds"]
        ])
        section(h(lang, "metals"), [
            (label(m["label"], lang),
             f"+{m['extra_damage']} dmg, band +{m['band_shift']} — {label(m['text'], lang)}")
            for m in doc["metals"].values()
        ])
        section(h(lang, "techniques"), [
            (f"{k} ({label(t['label'], lang)})",
             f"attack {t['attack']:+d}, defence {t['defence']:+d}, {t['duration']} round(s)")
            for k, t in doc["techniques"].items()
        ])
    if "dd_table" in doc:
        section(h(lang, "dd_table"), [
            (f"{b['low']}–{b['high'] if b['high'] is not None else '∞'}", str(b["dd"]))
            for b in doc["dd_table"]
        ])
    section(h(lang, "house"), list(doc["house_defaults"].items()), ("yellow", ""))
