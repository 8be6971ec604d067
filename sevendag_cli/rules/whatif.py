"""What-ifs: a sheet's fields changed for one run, without editing the file.

``--set FIGHTER.FIELD=VALUE`` changes any field of a fighter's sheet, nested keys
included (``A.weapon.damage=1d8``, ``Brannoc.items.sword.metal=steel``,
``Brannoc.hands[0].die=12``); ``--tactic FIGHTER=TACTIC`` chooses a Sevendag tactic
(``all-out``, or one commitment per hand, ``attack,defence``, which is ``custom``),
and the sheet's rules after ``;``: ``Brannoc=all-out;technique=feint@attacking;yield=behind``.

A change is applied to the sheet's *data* (the parsed TOML), and the sheet is then
read again by the same reader as the file (:func:`sevendag_cli.rules.fighter_from_data`),
so every check and every message of a sheet applies to it.  A change the reader
refuses is a usage mistake (exit 2): one line naming the option as typed, the key
and what would be right.  Nothing here imports Typer or Rich.

Reuse (``fight``, ``sweep``; ``odds`` and ``matrix`` the same way)::

    what = WhatIf.parse(set_, tactic)            # the options' texts, syntax checked
    a, b, changes = what.load_pair(ruleset, docs)  # docs: rules.pair_docs(ruleset, refs)

``changes`` lists what was applied (:class:`Change`), for the display and the JSON
(:func:`sevendag_cli.render.whatif.changes_data`).  :meth:`WhatIf.plus` adds one more
assignment (a sweep's value) to the same what-if.

**The ruleset's what-ifs**: a target whose first part is a table of
:data:`RULESET_TABLES` written as in the ruleset file (``techniques.feint.attack``,
``techniques.guard.duration``) changes the ruleset, not a sheet.  The entry is its key, or
a label as elsewhere (``garde``); the fields are those the backend lists
(:meth:`~sevendag_cli.backend.Backend.ruleset_entries`).  The change is applied to the
ruleset file's data and the ruleset read again by its own reader, so its bounds and
messages are the file's; then the sheets are read against it.  :meth:`WhatIf.load` gives
the ruleset changed and the fighters::

    rs, a, b, changes = what.load(ruleset, docs, (source, data))  # the ruleset file as read

A ruleset change is a :class:`Change` with ``ruleset`` set to the ruleset's name and an
empty ``fighter``.  A fighter literally named ``techniques`` loses to the ruleset: its
fields are set with its name in another case (``Techniques.attack=5``): a fighter's name
matches in any case, a ruleset's table only as written.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from sevendag_cli.errors import DataError, Msg, UsageError
from sevendag_cli.limits import INT_LIMIT, MAX_DATA_DEPTH, MAX_WHAT_IF_TEXT, MAX_WHAT_IFS
from sevendag_cli.policies import OPTIMAL, SHEET

if TYPE_CHECKING:
    from sevendag_cli.backend import State
    from sevendag_cli.rules import Fighter, Ruleset

Docs = list[tuple[str, dict[str, Any]]]
"""Sheets as read: (source file, parsed data), in the order of the fight."""

SET = "--set"
TACTIC = "--tactic"
VARY = "--vary"

# Patterns as texts, compiled (and kept) by ``re`` when a what-if is first read: a command with
# none never compiles them.
_SEGMENT = r"([^.\[\]]+)((?:\[[0-9]+\])*)"
_INT = r"[+-]?[0-9]{1,20}"  # ASCII digits only: not ², ①, ١
_MISSING: Any = object()


class Assignment(Struct, frozen=True):
    """One change as typed: ``option`` (``--set``, ``--tactic``, ``--vary``) and its text."""

    option: str
    target: str  # FIGHTER.FIELD (--set, --vary) or FIGHTER (--tactic)
    value: str
    as_typed: str = ""  # a --vary's whole text (``--vary A.ac=5..9``) for one of its values

    @property
    def typed(self) -> str:
        """The option as the user typed it, for a message."""
        return self.as_typed or f"{self.option} {self.target}={self.value}"


class Change(Struct, frozen=True):
    """A change applied to a fighter's sheet: the field (a key as the sheet's messages name
    it: ``weapon.damage``, ``hands[0].die``), the value set (None: the key removed, so the
    sheet's default applies) and the value before (None: not in the sheet).

    A change of the ruleset (``techniques.feint.attack``): ``ruleset`` is the ruleset's
    name, ``fighter`` is empty, ``field`` the whole key (``techniques.feint.attack``, the
    entry by its key) and ``previous`` the value in effect before (the file's default
    included)."""

    fighter: str
    field: str
    value: Any
    previous: Any
    ruleset: str | None = None


RULESET_TABLES = ("techniques",)
"""The tables of a ruleset that ``--set`` and ``--vary`` may change: a target whose first
part is one of these, written exactly so, is the ruleset's (see the module's text)."""


def is_ruleset_target(target: str) -> bool:
    """``techniques.feint.attack``: the ruleset's; ``Techniques.attack``: a fighter's."""
    return "." in target and target.split(".", 1)[0] in RULESET_TABLES


def _split(text: str, option: str) -> Assignment:
    if len(text) > MAX_WHAT_IF_TEXT:
        raise UsageError(Msg("whatif.too_long", option=option, n=len(text), max=MAX_WHAT_IF_TEXT))
    target, sep, value = text.partition("=")
    target = target.strip()
    if option == TACTIC and sep and not target and value.strip():  # ``=optimal``: no name
        key = "whatif.tactic_no_name_policy" if policy_word(value) else "whatif.tactic_no_name"
        raise UsageError(Msg(key, text=text, value=value.strip()))
    if option == TACTIC and (not sep or not target):
        raise UsageError(Msg("whatif.tactic_syntax", text=text))
    if not sep or not target:
        raise UsageError(Msg("whatif.syntax", option=option, text=text, example="B.armour=7"))
    return Assignment(option, target, value.strip())


EVERY_FIGHTER = "*"
"""The target of ``--tactic optimal`` (no fighter named): every fighter."""


def policy_word(value: str) -> str | None:
    """``optimal`` / ``sheet`` (or ``optimale`` / ``fiche``) as a policy; None: a tactic."""
    from sevendag_cli.terms import fold

    word = fold(value)
    if word in ("optimal", "optimale"):
        return OPTIMAL
    if word in ("sheet", "fiche"):
        return SHEET
    return None


POLICY_WORDS = ("optimal", "sheet", "optimale", "fiche")
"""The policies as typed, in either language (for "Did you mean …?")."""


def with_policy_suggestion(message: Msg, value: str) -> Msg:
    """``message`` with the policy ``value`` was a typo of (``optimall``: optimal), if any."""
    from sevendag_cli.terms import fold

    return _suggest(message, fold(value.strip()), list(POLICY_WORDS))


def _split_tactic(text: str) -> Assignment:
    """``FIGHTER=TACTIC``, or ``optimal`` / ``sheet`` alone: every fighter's policy (a typo of
    one of them alone is refused saying which)."""
    if "=" not in text and policy_word(text.strip()) is not None:
        if len(text) > MAX_WHAT_IF_TEXT:
            raise UsageError(Msg("whatif.too_long", option=TACTIC, n=len(text), max=MAX_WHAT_IF_TEXT))
        return Assignment(TACTIC, EVERY_FIGHTER, text.strip())
    try:
        return _split(text, TACTIC)
    except UsageError as exc:
        if "=" in text or len(text) > MAX_WHAT_IF_TEXT:
            raise
        raise UsageError(with_policy_suggestion(exc.msg, text)) from None


class WhatIf(Struct, frozen=True):
    """The what-ifs of one command: assignments in the order typed (the last one wins: a
    ``--set`` of a field set before, a ``--tactic`` of a fighter named before)."""

    assignments: tuple[Assignment, ...] = ()

    @classmethod
    def parse(cls, sets: list[str] | None, tactics: list[str] | None = None) -> WhatIf:
        """``--set`` and ``--tactic`` texts, checked for their syntax (NAME.FIELD=VALUE)."""
        texts = [(SET, s) for s in sets or ()] + [(TACTIC, t) for t in tactics or ()]
        if len(texts) > MAX_WHAT_IFS:
            raise UsageError(Msg("whatif.too_many", n=len(texts), max=MAX_WHAT_IFS))
        return cls(tuple(_split_tactic(text) if option == TACTIC else _split(text, option)
                         for option, text in texts))

    def policies(self, names: Sequence[str]) -> tuple[str, ...]:
        """Each fighter's policy (``sheet`` unless ``--tactic NAME=optimal`` or ``--tactic
        optimal`` says otherwise), in the order of ``names``: the last ``--tactic`` naming a
        fighter decides how it plays (:meth:`last_tactics`) — a policy, or a tactic (then its
        sheet plays, with that tactic)."""
        out = [SHEET] * len(names)
        for i, n in self.last_tactics(names).items():
            out[i] = policy_word(self.assignments[n].value) or SHEET
        return tuple(out)

    def last_tactics(self, names: Sequence[str], *, policies: bool = True) -> dict[int, int]:
        """For each fighter named by a ``--tactic`` (by its index in ``names``), the index of the
        last one naming it (``optimal`` alone names every fighter); ``policies=False``: of the
        last one giving it a tactic (not a policy).

        One reading, in what is shown and in what is played alike: the last ``--tactic`` of a
        fighter decides how it plays; of several tactics, the last one is its sheet's (an
        earlier one is dropped, as a repeated ``--set`` is); a tactic followed by a policy stays
        a change of the sheet, shown, with the note that it changes nothing when the fighter
        plays optimally (:meth:`~sevendag_cli.backend.Backend.inert_notes`)."""
        last: dict[int, int] = {}
        for n, asg in enumerate(self.assignments):
            if asg.option != TACTIC or (not policies and policy_word(asg.value) is not None):
                continue
            if asg.target == EVERY_FIGHTER:
                last.update((i, n) for i in range(len(names)))
            else:
                last[_fighter(asg, asg.target, list(names))] = n
        return last

    def __bool__(self) -> bool:
        return bool(self.assignments)

    def plus(self, target: str, value: str, option: str = VARY, typed: str = "") -> WhatIf:
        """This what-if and one more assignment (applied last); ``typed``: the option as the
        user typed it, when it was not ``OPTION TARGET=VALUE`` (a sweep's range)."""
        return WhatIf((*self.assignments, Assignment(option, target, value, typed)))

    def _apply(self, docs: Docs, engine: str) -> tuple[Docs, list[tuple[int, list[Change]]]]:
        """The sheets' data with the changes applied (copies), and each assignment's changes with
        its index among the assignments (the sheets' only: the ruleset's are :meth:`load`'s)."""
        names = [_name(data) for _, data in docs]
        out = [(source, copy.deepcopy(data)) for source, data in docs]
        indexed: list[tuple[int, list[Change]]] = []
        counting = set(self.last_tactics(names, policies=False).values())
        for n, asg in enumerate(self.assignments):
            if asg.option == TACTIC and policy_word(asg.value) is None and n not in counting:
                continue  # a later --tactic gives this fighter another tactic: that one counts
            if asg.option == TACTIC and policy_word(asg.value) is not None:
                if asg.target != EVERY_FIGHTER:
                    _fighter(asg, asg.target, names)  # the fighter named is there
                continue  # a policy, not a change to the sheet (see :meth:`policies`)
            if asg.option == TACTIC:
                i = _fighter(asg, asg.target, names)
                from sevendag_cli.backend import backend_named

                tactics = backend_named(engine).whatif.tactics(asg.typed)  # none: refused
                indexed.append((n, _tactic(asg, out[i][1], names[i], tactics)))
                continue
            if is_ruleset_target(asg.target):
                continue  # the ruleset's: load() applies it
            i, path = _field(asg, names)
            indexed.append((n, [_set(asg, out[i][1], path, names[i])]))
        return out, indexed

    def load(self, ruleset: Ruleset, docs: Docs, ruleset_doc: tuple[str, dict[str, Any]] | None = None,
             ) -> tuple[Ruleset, Fighter, Fighter, tuple[Change, ...]]:
        """The ruleset and the two fighters with the changes applied, read as the files are;
        and the changes, in the order typed.

        ``ruleset_doc``: the ruleset's file and data as read (needed only for a change of the
        ruleset; else its file is read again).  The sheets as they are must be valid (a
        problem there is the sheet's, exit 1); a problem that the changes bring is a usage
        mistake (exit 2) naming the change.
        """
        from sevendag_cli.rules import pair_from_docs

        if not self.assignments:
            a, b = pair_from_docs(ruleset, docs)
            return ruleset, a, b, ()
        names = [_name(data) for _, data in docs]
        rs, ruleset_changes = self._ruleset(ruleset, ruleset_doc, names)
        changed, indexed = self._apply(docs, ruleset.engine)
        try:
            a, b = pair_from_docs(rs, changed)
        except DataError as exc:
            pair_from_docs(ruleset, docs)  # the sheet itself is wrong: say so (exit 1)
            raise UsageError(self._blame(exc, docs)) from None
        return rs, a, b, _in_order(indexed + ruleset_changes)

    def load_pair(self, ruleset: Ruleset, docs: Docs) -> tuple[Fighter, Fighter, tuple[Change, ...]]:
        """:meth:`load` without the ruleset: the two fighters (read against the ruleset
        changed, if a change is the ruleset's) and the changes."""
        _, a, b, changes = self.load(ruleset, docs)
        return a, b, changes

    def load_lineup(self, ruleset: Ruleset, docs: Docs,
                    ruleset_doc: tuple[str, dict[str, Any]] | None = None,
                    ) -> tuple[Ruleset, list[Fighter], tuple[Change, ...]]:
        """The ruleset and every fighter of a roster (``matrix``) with the changes applied, read
        as the files are; and the changes.  ``docs`` name the fighters as the roster does
        (``Aela (2)`` for the second ``Aela``), and a change names a fighter the same way.  As
        :meth:`load`: a sheet wrong as it is is the sheet's problem (exit 1), one the changes
        make wrong is a usage mistake (exit 2) naming the change."""
        from sevendag_cli.rules import fighter_from_data

        if not self.assignments:
            return ruleset, [fighter_from_data(data, source, ruleset) for source, data in docs], ()
        rs, ruleset_changes = self._ruleset(ruleset, ruleset_doc, [_name(data) for _, data in docs])
        try:
            changed, indexed = self._apply(docs, ruleset.engine)
        except UsageError as exc:
            if exc.msg.key == "whatif.no_fighter":  # a roster, not a fight
                raise UsageError(Msg("whatif.no_fighter_roster", **exc.msg.params)) from None
            raise
        fighters = []
        for i, (source, data) in enumerate(changed):
            try:
                fighters.append(fighter_from_data(data, source, rs))
            except DataError as exc:
                fighter_from_data(docs[i][1], docs[i][0], ruleset)  # the sheet itself is wrong
                raise UsageError(self._blame(exc, docs, i)) from None
        return rs, fighters, _in_order(indexed + ruleset_changes)

    def _ruleset(self, ruleset: Ruleset, doc: tuple[str, dict[str, Any]] | None,
                 names: list[str]) -> tuple[Ruleset, list[tuple[int, list[Change]]]]:
        """The ruleset with the ruleset's changes applied (itself when none), read again by its
        own reader; and each change with its assignment's index."""
        mine = [(n, a) for n, a in enumerate(self.assignments)
                if a.option != TACTIC and is_ruleset_target(a.target)]
        if not mine:
            return ruleset, []
        from sevendag_cli.rules import ruleset_from_data

        if doc is None:
            from pathlib import Path

            from sevendag_cli.data import read_toml

            doc = (ruleset.path, read_toml(Path(ruleset.path)))
        source, data = doc[0], copy.deepcopy(doc[1])
        indexed = [(n, [_ruleset_set(asg, data, ruleset, names)]) for n, asg in mine]
        try:
            return ruleset_from_data(data, source), indexed
        except DataError as exc:
            key = exc.key or ""
            at_fault = [a for _, a in mine if _related(a.target, key)] or [a for _, a in mine]
            typed = "; ".join(a.typed for a in at_fault)
            if exc.key:
                raise UsageError(Msg("whatif.refused_key", changes=typed, key=exc.key,
                                     message=exc.detail)) from None
            raise UsageError(Msg("whatif.refused", changes=typed, message=exc.detail)) from None

    def _blame(self, exc: DataError, docs: Docs, index: int | None = None) -> Msg:
        """The refusal of a changed sheet, as the changes' mistake: the one(s) at fault first.
        ``index``: the sheet refused (else found by its file)."""
        names = [_name(data) for _, data in docs]
        source = str(exc.source)
        if index is None:
            index = next((i for i, (s, _) in enumerate(docs) if s == source), None)
        mine = [a for a in self.assignments if not (a.option != TACTIC and is_ruleset_target(a.target))
                and (index is None or _target_index(a, names) in (index, None))]
        key = exc.key or ""
        at_fault = [a for a in mine if _related(_field_text(a, names), key)] or mine or list(self.assignments)
        typed = "; ".join(a.typed for a in at_fault)
        if exc.key:
            return Msg("whatif.refused_key", changes=typed, key=exc.key, message=exc.detail)
        return Msg("whatif.refused", changes=typed, message=exc.detail)


# --- finding the fighter and the field -------------------------------------------------------


def _name(data: dict[str, Any]) -> str:
    name = data.get("name")
    return name if isinstance(name, str) else ""


def _fighter(asg: Assignment, typed: str, names: list[str]) -> int:
    from sevendag_cli.terms import fold

    found = [i for i, n in enumerate(names) if n == typed] or \
        [i for i, n in enumerate(names) if fold(n) == fold(typed)]
    if len(found) != 1:
        raise UsageError(Msg("whatif.no_fighter", typed=asg.typed, name=typed,
                             names=", ".join(names)))
    return found[0]


def _field(asg: Assignment, names: list[str]) -> tuple[int, list[str | int]]:
    """Which fighter (the longest name that starts the target, then a dot) and the field path."""
    from sevendag_cli.terms import fold

    target = asg.target
    best: tuple[int, int] | None = None
    for i, n in enumerate(names):
        if n and len(target) > len(n) + 1 and target[len(n)] == "." and fold(target[:len(n)]) == fold(n) \
                and (best is None or len(n) > best[1]):
            best = (i, len(n))
    if best is None:
        fighter = target.split(".", 1)[0]
        for n in names:  # "A." or "A. ": the fighter is there, the field is missing
            if n and fold(target.rstrip()) == fold(n + "."):
                raise UsageError(Msg("whatif.no_field_given", typed=asg.typed, name=n))
        if "." not in target:
            raise UsageError(Msg("whatif.syntax", option=asg.option, text=f"{target}={asg.value}",
                                 example="B.armour=7"))
        raise UsageError(Msg("whatif.no_fighter", typed=asg.typed, name=fighter, names=", ".join(names)))
    return best[0], _path(asg, target[best[1] + 1:])


def _path(asg: Assignment, text: str) -> list[str | int]:
    """``weapon.damage`` → [weapon, damage]; ``hands[0].die`` and ``hands.0.die`` → [hands, 0, die]."""
    path: list[str | int] = []
    for part in text.split("."):
        m = re.fullmatch(_SEGMENT, part.strip())
        if m is None:
            raise UsageError(Msg("whatif.bad_field", typed=asg.typed, field=text))
        key = m.group(1)
        # ASCII digits only: str.isdigit takes ², ①... which int() then refuses
        path.append(int(key) if key.isascii() and key.isdigit() and path else key)
        path.extend(int(n) for n in re.findall(r"\[([0-9]+)\]", m.group(2)))
    if len(path) > MAX_DATA_DEPTH:
        raise UsageError(Msg("whatif.bad_field", typed=asg.typed, field=text))
    return path


def _key_text(path: list[str | int]) -> str:
    """A path as the sheet's messages name a key: ``hands[0].die``, ``weapon.damage``."""
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


def _target_index(asg: Assignment, names: list[str]) -> int | None:
    try:
        return _fighter(asg, asg.target, names) if asg.option == TACTIC else _field(asg, names)[0]
    except UsageError:
        return None


def _field_text(asg: Assignment, names: list[str]) -> str:
    if asg.option == TACTIC:
        return "tactic"
    try:
        return _key_text(_field(asg, names)[1])
    except UsageError:
        return ""


def _related(field: str, key: str) -> bool:
    """The field set and the key refused are one inside the other (``weapon`` / ``weapon.damage``)."""
    if not field or not key:
        return False
    return any(x == y or x.startswith(y + ".") or x.startswith(y + "[")
               for x, y in ((field, key), (key, field)))


def _in_order(indexed: list[tuple[int, list[Change]]]) -> tuple[Change, ...]:
    """The changes in the order their assignments were typed."""
    return tuple(c for _, changes in sorted(indexed, key=lambda x: x[0]) for c in changes)


# --- the ruleset's what-ifs ------------------------------------------------------------------


def _ruleset_set(asg: Assignment, data: dict[str, Any], ruleset: Ruleset, names: list[str]) -> Change:
    """``TABLE.ENTRY.FIELD=VALUE`` put in the ruleset file's ``data`` (an empty value removes
    the key: the file's default applies); the entry by its key or a label, the field one the
    backend lists."""
    from sevendag_cli.backend import backend_for
    from sevendag_cli.terms import candidates, fold

    table, _, rest = asg.target.partition(".")
    entries = backend_for(ruleset).whatif.ruleset_entries(ruleset, table)
    fighter = next((n for n in names if n and fold(n) == fold(table)), None)

    def refuse(message: Msg) -> UsageError:
        if fighter is not None:  # a fighter of that name: say how to reach it
            other = fighter.upper() if fighter != fighter.upper() else fighter.lower()
            message = Msg("whatif.ruleset_first", message=message, table=table, name=fighter,
                          other=other)
        return UsageError(message)

    if not entries:
        raise refuse(Msg("whatif.ruleset_no_table", typed=asg.typed, ruleset=ruleset.name, table=table))
    parts = [p.strip() for p in rest.split(".")]
    entry_text = ".".join(parts[:-1]) if len(parts) > 1 else parts[0]
    found = candidates(entry_text, {k: list(labels) for k, (labels, _) in entries.items()})
    if len(found) != 1:
        known = ", ".join(entries)
        if found:
            raise refuse(Msg("whatif.ruleset_ambiguous", typed=asg.typed, name=entry_text,
                             table=table, candidates=", ".join(found)))
        raise refuse(_suggest(Msg("whatif.ruleset_no_entry", typed=asg.typed, name=entry_text,
                                  table=table, ruleset=ruleset.name, known=known), entry_text, list(entries)))
    key = found[0]
    fields = entries[key][1]
    if len(parts) == 1 or not parts[-1]:
        raise UsageError(Msg("whatif.ruleset_no_field_given", typed=asg.typed, entry=f"{table}.{key}",
                             fields=", ".join(fields)))
    field = next((f for f in fields if fold(f) == fold(parts[-1])), None)
    if field is None:
        raise refuse(_suggest(Msg("whatif.ruleset_no_field", typed=asg.typed, field=parts[-1],
                                  entry=f"{table}.{key}", fields=", ".join(fields)),
                              parts[-1], list(fields)))
    node = data.get(table)
    node = node.get(key) if isinstance(node, dict) else None
    if not isinstance(node, dict):  # the reader gave the entry: its data is a table
        raise UsageError(Msg("whatif.not_table", typed=asg.typed, field=f"{table}.{key}"))
    previous = node.get(field, fields[field])
    value = None if asg.value == "" else typed_value(asg, asg.value, previous)
    if value is None:
        node.pop(field, None)
    else:
        node[field] = value
    return Change("", f"{table}.{key}.{field}", value, previous, ruleset.name)


def _suggest(message: Msg, typed: str, names: list[str]) -> Msg:
    """``message`` with the closest of ``names`` to ``typed`` (a typo), if one is close enough."""
    import difflib

    close = difflib.get_close_matches(typed, names, n=1)
    return Msg("data.suggest_name", message=message, name=close[0]) if close else message


# --- applying -------------------------------------------------------------------------------


def _set(asg: Assignment, data: dict[str, Any], path: list[str | int], fighter: str) -> Change:
    """Put the value at ``path`` (tables on the way made if missing); an empty value removes
    the key.  The value is typed as the value it replaces: a whole number, true/false, a list
    (comma-separated), else a text; a new key takes a whole number, true/false or a text."""
    field = _key_text(path)
    node: Any = data
    for depth, step in enumerate(path[:-1]):
        nxt = _child(node, step)
        if nxt is _MISSING:
            if isinstance(step, int):
                raise UsageError(Msg("whatif.no_index", typed=asg.typed, field=_key_text(path[:depth + 1]),
                                     n=len(node) if isinstance(node, list) else 0))
            if isinstance(node, list):  # hands.².die, hands.x.die: a list takes a number
                raise UsageError(Msg("whatif.list_index", typed=asg.typed,
                                     field=_key_text(path[:depth]) or field, n=len(node)))
            if not isinstance(node, dict):
                raise UsageError(Msg("whatif.not_table", typed=asg.typed,
                                     field=_key_text(path[:depth]) or field))
            node[step] = nxt = {}
        if not isinstance(nxt, dict | list):
            raise UsageError(Msg("whatif.not_table", typed=asg.typed, field=_key_text(path[:depth + 1])))
        node = nxt
    last = path[-1]
    previous = _child(node, last)
    if isinstance(previous, dict) or (isinstance(previous, list) and previous
                                      and isinstance(previous[0], dict)):
        raise UsageError(Msg("whatif.is_table", typed=asg.typed, field=field))
    if isinstance(node, list):
        if not isinstance(last, int) or last > len(node):
            raise UsageError(Msg("whatif.no_index", typed=asg.typed, field=field, n=len(node)))
    elif not isinstance(node, dict) or isinstance(last, int):
        raise UsageError(Msg("whatif.not_table", typed=asg.typed, field=_key_text(path[:-1]) or field))
    value = None if asg.value == "" else typed_value(asg, asg.value, previous)
    if value is None:
        if isinstance(node, dict):
            node.pop(last, None)
        elif isinstance(last, int) and last < len(node):
            node.pop(last)
    elif isinstance(node, list):
        assert isinstance(last, int)
        if last == len(node):
            node.append(value)
        else:
            node[last] = value
    else:
        node[last] = value
    return Change(fighter, field, value, None if previous is _MISSING else previous)


def _child(node: Any, step: str | int) -> Any:
    if isinstance(node, dict) and isinstance(step, str):
        return node.get(step, _MISSING)
    if isinstance(node, list) and isinstance(step, int):
        return node[step] if step < len(node) else _MISSING
    return _MISSING


def typed_value(asg: Assignment, text: str, previous: Any = _MISSING) -> Any:
    """``text`` as the field needs it (see :func:`_set`); a whole number beyond the bound is refused."""
    from sevendag_cli.terms import yes_no

    if isinstance(previous, bool):
        flag = yes_no(text) if text.lower() not in ("true", "false") else text.lower() == "true"
        return text if flag is None else flag
    if isinstance(previous, list):
        return [part.strip() for part in text.split(",") if part.strip()]
    if isinstance(previous, str):
        return text
    if re.fullmatch(_INT, text):
        number = int(text)
        if abs(number) > INT_LIMIT:
            raise UsageError(Msg("whatif.int_limit", typed=asg.typed, limit=INT_LIMIT))
        return number
    if isinstance(previous, int):
        return text  # the reader says a whole number is expected, naming the text
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


_TECHNIQUE_KEYS = ("technique", "tech")
_YIELD_KEYS = ("yield", "ceder", "cede")


def _tactic(asg: Assignment, data: dict[str, Any], fighter: str,
            tactics: tuple[str, ...]) -> list[Change]:
    """``all-out`` (a tactic's key) or one commitment per hand (``attack,defence``, ``a,d``:
    the ``custom`` tactic with that allocation); then, after ``;``, the sheet's rules:
    ``technique=feint@attacking`` (``@WHEN`` optional; ``technique=none`` removes the rule)
    and ``yield=behind`` (S-03, S-05).  The tactic may be left out: ``Brannoc=yield=always``."""
    from sevendag_cli.terms import fold

    parts = [p.strip() for p in asg.value.split(";") if p.strip()]
    rules = [p for p in parts if "=" in p]
    plain = [p for p in parts if "=" not in p]
    if len(plain) > 1 or not parts:
        raise UsageError(_unknown_tactic(asg, asg.value, tactics))
    changes = _plain_tactic(asg, plain[0], data, fighter, tactics) if plain else []
    for part in rules:
        key, _, value = part.partition("=")
        key, value = fold(key.strip()), value.strip()
        if not value:
            raise UsageError(Msg("whatif.rule_syntax", typed=asg.typed, part=part))
        if key in _TECHNIQUE_KEYS:
            changes += _technique_rule(asg, data, fighter, value)
        elif key in _YIELD_KEYS:
            changes += _yield_rule(asg, data, fighter, value)
        else:
            raise UsageError(Msg("whatif.rule_syntax", typed=asg.typed, part=part))
    return changes


def _technique_rule(asg: Assignment, data: dict[str, Any], fighter: str,
                    value: str) -> list[Change]:
    """``feint@attacking``, ``feinte@en attaque``, ``guard`` (whenever none is in effect), or
    ``none`` (no technique rule)."""
    from sevendag_cli.terms import NONE_WORDS, WHEN_WORDS, find_key, fold

    old = data.get("technique")
    old_name = old.get("name") if isinstance(old, dict) else None
    old_when = old.get("when") if isinstance(old, dict) else None
    if fold(value) in NONE_WORDS:
        data.pop("technique", None)
        if old is None:
            return []
        shown = f"{old_name}@{old_when}" if old_when else old_name
        return [Change(fighter, "technique", None, shown if isinstance(old, dict) else old)]
    name, at, when_text = value.partition("@")
    name = name.strip()
    when: str | None = None
    if at:
        when = find_key(when_text.strip(), WHEN_WORDS, prefixes=False)
        if when is None:
            raise UsageError(Msg("whatif.rule_word", typed=asg.typed, value=when_text.strip(),
                                 allowed=", ".join(WHEN_WORDS)))
    rule: dict[str, Any] = {"name": name}
    if when is not None:
        rule["when"] = when
    data["technique"] = rule
    changes = [Change(fighter, "technique.name", name, old_name)]
    if when is not None or old_when is not None:
        changes.append(Change(fighter, "technique.when", when, old_when))
    return changes


def _yield_rule(asg: Assignment, data: dict[str, Any], fighter: str, value: str) -> list[Change]:
    """``never``, ``always``, ``behind`` (in either language: ``jamais``, ``toujours``, ``mené``)."""
    from sevendag_cli.terms import YIELD_WORDS, find_key

    found = find_key(value, YIELD_WORDS, prefixes=False)
    if found is None:
        raise UsageError(Msg("whatif.rule_word", typed=asg.typed, value=value,
                             allowed=", ".join(YIELD_WORDS)))
    previous = data.get("yield")
    data["yield"] = found
    return [Change(fighter, "yield", found, previous)]


def _unknown_tactic(asg: Assignment, value: str, tactics: tuple[str, ...]) -> Msg:
    """A tactic that is none, with the tactic or policy it was a typo of (``all-outt``)."""
    from sevendag_cli.terms import fold

    message = Msg("whatif.unknown_tactic", typed=asg.typed, tactics=", ".join(tactics))
    return _suggest(message, fold(value.strip()), [*tactics, *POLICY_WORDS])


def _plain_tactic(asg: Assignment, value: str, data: dict[str, Any], fighter: str,
                  tactics: tuple[str, ...]) -> list[Change]:
    """The tactic part of ``--tactic``: a tactic's key or one commitment per hand."""
    from sevendag_cli.terms import COMMITMENT_WORDS, commitments, fold

    tactic = next((t for t in tactics if fold(t) == fold(value)), None)
    allocation: list[str] | None = None
    if tactic is None:
        body = value.split(":", 1)[1] if fold(value).startswith("custom:") else value
        parts = list(commitments(body))
        if not parts or any(p not in COMMITMENT_WORDS for p in parts):
            raise UsageError(_unknown_tactic(asg, value, tactics))
        tactic, allocation = "custom", parts
    changes = [Change(fighter, "tactic", tactic, data.get("tactic"))]
    previous = data.get("allocation")
    if allocation is not None:
        data["allocation"] = allocation
        changes.append(Change(fighter, "allocation", allocation, previous))
    elif previous is not None:
        del data["allocation"]  # an allocation in the sheet makes its tactic custom
        changes.append(Change(fighter, "allocation", None, previous))
    data["tactic"] = tactic
    return changes


# --- sweeps: the values of a field ----------------------------------------------------------

_RANGE = r"\s*([+-]?[0-9]{1,19})\s*\.\.\s*([+-]?[0-9]{1,19})\s*(?:/\s*([0-9]{1,19})\s*)?"


def vary_values(text: str, limit: int) -> tuple[str, list[str]]:
    """``--vary FIGHTER.FIELD=RANGE``: the target and the values, as texts.

    RANGE is ``LO..HI``, ``LO..HI/STEP`` (whole numbers, both ends included) or a list
    ``1d6,1d8,2d4``; at most ``limit`` values.
    """
    asg = _split(text, VARY)
    if asg.value == "":
        raise UsageError(Msg("whatif.vary_empty", typed=asg.typed))
    m = re.fullmatch(_RANGE, asg.value)
    if m is not None:
        lo, hi = int(m.group(1)), int(m.group(2))
        step = int(m.group(3)) if m.group(3) is not None else 1
        if step < 1 or lo > hi:
            raise UsageError(Msg("whatif.vary_range", typed=asg.typed))
        n = (hi - lo) // step + 1
        if n > limit:
            raise UsageError(Msg("whatif.vary_too_many", typed=asg.typed, n=n, max=limit))
        return asg.target, [str(v) for v in range(lo, hi + 1, step)]
    values = [v.strip() for v in asg.value.split(",")]
    if any(not v for v in values):
        raise UsageError(Msg("whatif.vary_empty", typed=asg.typed))
    if len(values) > limit:
        raise UsageError(Msg("whatif.vary_too_many", typed=asg.typed, n=len(values), max=limit))
    return asg.target, values


def range_note(text: str) -> Msg | None:
    """``LO..HI/STEP`` whose steps do not land on HI (``1..20/5`` takes 1, 6, 11, 16): where the
    values stop, to say on stderr; None when they end at HI (or the range is a list)."""
    asg = _split(text, VARY)
    m = re.fullmatch(_RANGE, asg.value)
    if m is None or m.group(3) is None:
        return None
    lo, hi, step = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if step < 1 or lo > hi or (hi - lo) % step == 0:
        return None
    return Msg("whatif.vary_stops", typed=asg.typed, last=hi - (hi - lo) % step, hi=hi, step=step, lo=lo)


def inert_notes(ruleset: Ruleset, fighters: Sequence[Fighter], changes: tuple[Change, ...],
                policies: Sequence[str] = ("sheet", "sheet"), state: State | None = None) -> list[Msg]:
    """Changes that cannot change the fight, and why: a d20 field that only the AC formula
    reads (``armour``, ``size``), on a sheet that states its AC (D-05: the stated AC wins); a
    change of a Sevendag technique when every fighter plays its sheet (no technique).

    ``policies``: how each fighter plays (``sheet``, or ``optimal``: the game's optimal play,
    which uses techniques); ``state``: where the fight stands (``odds``: an encounter's state,
    in which a technique may be in effect), None for a fight from its start."""
    from sevendag_cli.backend import backend_for

    return backend_for(ruleset).whatif.inert_notes(ruleset, fighters, changes, policies, state)


def saved_state_notes(ruleset: Ruleset, changes: tuple[Change, ...]) -> list[Msg]:
    """``odds``: changes that the saved encounter has already settled, so they change nothing
    from where it stands: d20 ``hp`` (the encounter keeps each fighter's hit points), and a
    Sevendag field only the speed roll reads (the initiative, S-02, rolled once at ``init``)."""
    from sevendag_cli.backend import backend_for

    return backend_for(ruleset).whatif.saved_state_notes(ruleset, changes)
