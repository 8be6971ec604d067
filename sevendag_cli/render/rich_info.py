"""Rich display of the ruleset listing and of one ruleset (``rulesets``, ``rulesets show``).

Both fit the console: the listing is aligned columns when they fit, else each
entry on two lines (its file below); a ruleset's sections are ``key  value``
rows, each value wrapped under its column.  Names, labels, keys and paths read
from files are shown with control characters made visible.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from sevendag_cli.i18n import label, t
from sevendag_cli.render.layout import glued, print_columns, print_path, print_rows, print_wrapped
from sevendag_cli.text import visible, visible_data


def h(lang: str, key: str, **kw: Any) -> str:
    return t(f"info.{key}", lang, **kw)


def _origin(lang: str, origin: str | None) -> str:
    return h(lang, f"origin.{origin}") if origin in ("bundled", "user") else str(origin or "")


def render_rulesets(console: Console, doc: dict[str, Any], lang: str) -> None:
    doc = visible_data(doc)
    print_wrapped(console, Text(h(lang, "rulesets"), "bold underline"))
    rows: list[list[Text]] = []
    for r in doc["rulesets"]:
        if r["valid"]:
            rows.append([Text(visible(r["name"]), "bold"), Text(r["engine"]),
                         Text(_origin(lang, r["origin"])), Text(visible(r["path"]))])
        else:
            rows.append([Text(visible(r["name"]), "bold"), Text(h(lang, "invalid"), "red"), Text(""),
                         Text(visible(r["problem"]))])
    print_columns(console, [h(lang, c) for c in ("name", "engine", "origin", "path")], rows)
    console.print()
    print_wrapped(console, Text(h(lang, "fighters"), "bold underline"))
    rows = []
    for f in doc["fighters"]:
        if f.get("valid", True):
            rows.append([Text(visible(f["name"]), "bold"), Text(visible(str(f["ruleset"]))),
                         Text(_origin(lang, f["origin"])), Text(visible(f["path"]))])
        else:
            rows.append([Text(visible(f["name"]), "bold"), Text(visible(str(f["ruleset"]))),
                         Text(h(lang, "invalid"), "red"), Text(visible(f["problem"]))])
    print_columns(console, [h(lang, c) for c in ("name", "ruleset", "origin", "path")], rows)
    if doc.get("broken"):
        console.print()
        print_wrapped(console, Text(h(lang, "broken"), "bold underline"))
        rows = [[Text(visible(b["path"])), Text(visible(_without_path(b["problem"], b["path"])), "red")]
                for b in doc["broken"]]
        print_columns(console, [h(lang, c) for c in ("path", "problem")], rows)
    console.print()
    line = Text(h(lang, "search_line", dirs=" · ".join(visible(d) for d in doc["search_path"])), "dim")
    if line.cell_len <= console.width:
        print_wrapped(console, line)
    else:  # one folder a line, each broken only after a "/"
        print_wrapped(console, Text(h(lang, "search_line", dirs="").rstrip(), "dim"))
        for d in doc["search_path"]:
            print_path(console, Text(visible(d), "dim"), 4)


def _without_path(problem: str, path: str) -> str:
    """A file's problem without the file's path it starts with (shown in its own column)."""
    for sep in (": ", " : "):
        if problem.startswith(path + sep):
            return problem[len(path) + len(sep):]
    return problem


def _range(low: int, high: int | None) -> str:
    return f"{low}–{high if high is not None else '∞'}"


def _keyed(key: str, labels: dict[str, str], lang: str) -> str:
    """``starmetal (star-metal)``: the key a sheet or an option writes, and its label when it differs."""
    shown = label(labels, lang)
    return key if shown == key else f"{key} ({shown})"


def render_ruleset(console: Console, doc: dict[str, Any], lang: str) -> None:
    doc = visible_data(doc)
    print_wrapped(console, Text(visible(f"{label(doc['label'], lang)} ({doc['name']}, {doc['engine']})"),
                                "bold"))
    print_wrapped(console, Text(visible(doc["path"]), "dim"))

    def section(title: str, rows: list[tuple[str, str]], style: str = "cyan") -> None:
        console.print()
        print_wrapped(console, Text(title, "bold underline"))
        print_rows(console, [(Text(glued(visible(k)), style), Text(visible(v))) for k, v in rows])

    section(h(lang, "rules"), sorted(doc["rules"].items()))
    section(h(lang, "formulas"), list(doc["formulas"].items()))
    section(h(lang, "options"), [(k, str(v).lower() if isinstance(v, bool | None) else str(v))
                                 for k, v in doc["options"].items()])
    if "wounds" in doc:
        section(h(lang, "wounds"), [
            (label(w["label"], lang),
             f"{_range(w['low'], w['high'])}  {h(lang, 'penalty', p=w['penalty'])}"
             + (f"  {h(lang, 'out_after', n=w['out_after'])}" if w["out_after"] else ""))
            for w in doc["wounds"]
        ])
        section(h(lang, "metals"), [  # the key a sheet writes, then the label shown
            (_keyed(k, m["label"], lang),
             f"{h(lang, 'metal', dmg=m['extra_damage'], shift=m['band_shift'])} — {label(m['text'], lang)}")
            for k, m in doc["metals"].items()
        ])
        section(h(lang, "techniques"), [
            (_keyed(k, tq["label"], lang),
             h(lang, "technique", a=tq["attack"], d=tq["defence"], n=tq["duration"]))
            for k, tq in doc["techniques"].items()
        ])
    if "dd_table" in doc:
        section(h(lang, "dd_table"), [(_range(b["low"], b["high"]), str(b["dd"])) for b in doc["dd_table"]])
    section(h(lang, "house"), list(doc["house_defaults"].items()), "yellow")
