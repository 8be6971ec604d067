"""Sevendag: ruleset and fighter sheet models (S-xx).

S-07 (a damage's band) and S-17's band shift are written once, here, in
:func:`band_index` and :func:`shifted_index`: plain arithmetic that works on an
int (the step engine, through :meth:`SevendagRuleset.band_for` and
:meth:`SevendagRuleset.shifted`) and on numpy arrays (the vectorised engine).
They are the one place to change how bands are read.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

from msgspec import Struct

from sevendag_cli.data import Reader, listed, str_list, str_table
from sevendag_cli.engine.arith import between, reached
from sevendag_cli.errors import Msg
from sevendag_cli.formula import Formula
from sevendag_cli.limits import MAX_ROUND_CAP
from sevendag_cli.policies import PLAIN
from sevendag_cli.terms import WHEN_WORDS, YIELD_WORDS, name_problem

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

ENGINE = "sevendag"
# The fields a formula may read, with the range a sheet may give them (the sheet is read
# within these; a formula's range is checked from them).
FIELD_RANGES: dict[str, tuple[int, int]] = {"speed": (-100, 100), "attack": (-100, 100),
                                            "defence": (-100, 100)}
FIELDS = frozenset(FIELD_RANGES)
TACTICS = ("weapons-attack", "all-out", "full-defence")
COMMITMENTS = ("attack", "defence", "none")
WHEN = ("attacking", "defending", "always")
"""When a sheet's technique rule starts its technique (S-05): ``attacking``, the fighter
holds the initiative at the start of the round (it is the assaillant, S-02/S-14, whether
or not it then yields); ``defending``, it does not; ``always``, either way."""
YIELDS = ("never", "always", "behind")
"""A sheet's yield rule (S-03), used when it holds the initiative: ``never``; ``always``;
``behind``, when its wound penalty (S-19) is larger than its opponent's."""


N = TypeVar("N", int, "npt.NDArray[np.int64]")


def band_index(lows: Sequence[int], amount: N) -> N:
    """S-07: the index of the band of ``amount`` (>= 1) damage; ``lows``: the bands' starts.

    The bands are contiguous from 1, the last open-ended (checked when a ruleset is read),
    so the band is the number of later starts that ``amount`` reaches
    (:func:`~sevendag_cli.engine.arith.reached`): ``amount`` is an int (step engine) or an
    int64 array (vectorised engine).
    """
    index: N = reached(tuple(lows[1:]), amount)
    return index


def shifted_index(index: N, steps: N, n: int) -> N:
    """S-17: band ``index`` moved ``steps`` bands, within the ``n`` bands (int or arrays)."""
    moved: N = between(index + steps, 0, n - 1)
    return moved


class WoundBand(Struct, frozen=True):
    """S-07 / S-19: a band of damage, its lasting penalty and when it takes a fighter out."""

    name: str
    low: int
    high: int | None
    penalty: int  # subtracted from both constants, per wound (S-19 house default)
    out_after: int  # this many wounds of this band take the fighter out; 0 = never
    label: dict[str, str]


class Metal(Struct, frozen=True):
    """S-17: what a critical hit with a weapon of this metal does."""

    name: str
    label: dict[str, str]
    text: dict[str, str]
    extra_damage: int
    band_shift: int


class Technique(Struct, frozen=True):
    """S-05: a martial technique (ruleset data)."""

    name: str
    label: dict[str, str]
    text: dict[str, str]
    attack: int  # modifier to the attack constant while active
    defence: int  # modifier to the defence constant while active
    duration: int  # rounds, the round it is used included


class SevendagRuleset(Struct, frozen=True):
    name: str
    label: dict[str, str]
    path: str
    speed_roll: Formula  # S-02
    round_seconds: int  # S-01
    wounds: tuple[WoundBand, ...]  # S-07, S-19
    metals: dict[str, Metal]  # S-17
    techniques: dict[str, Technique]  # S-05
    fumble_grants_crit: bool  # S-10
    failure_beats_crit: bool  # S-13
    drop_check_die: int  # S-10
    drop_recovery_rounds: int  # S-18
    round_cap: int  # S-19
    default_tactic: str
    examples: tuple[str, ...]
    house_defaults: dict[str, str]
    rules: dict[str, str]

    engine = ENGINE

    def band_for(self, damage: int) -> WoundBand | None:
        """S-07: the band of ``damage`` (:func:`band_index`); None for 0 or less."""
        if damage <= 0:
            return None
        return self.wounds[band_index([b.low for b in self.wounds], damage)]

    def band_named(self, name: str) -> WoundBand | None:
        """A band by its key, or as a user types it: a label in either language, or its
        distinctive word (``grave``, ``Critical``, ``légère``), in any case."""
        for band in self.wounds:
            if band.name == name:
                return band
        from sevendag_cli.terms import find_key, short_labels

        names: dict[str, list[str]] = {b.name: list(b.label.values()) for b in self.wounds}
        for lang in ("en", "fr"):
            shorts = short_labels(b.label.get(lang, b.name) for b in self.wounds)
            for b, short in zip(self.wounds, shorts, strict=True):
                if short:
                    names[b.name].append(short)
        key = find_key(name, names)
        return next((b for b in self.wounds if b.name == key), None)

    def technique_named(self, name: str) -> str | None:
        """A technique's key from its key or its label in either language, in any case, or an
        unambiguous short form of them (``garde``); None when none or several match."""
        from sevendag_cli.terms import find_key

        return find_key(name, {k: list(t.label.values()) for k, t in self.techniques.items()})

    def technique_candidates(self, name: str) -> list[str]:
        """The techniques ``name`` may mean (see :func:`sevendag_cli.terms.candidates`)."""
        from sevendag_cli.terms import candidates

        return candidates(name, {k: list(t.label.values()) for k, t in self.techniques.items()})

    def metal_named(self, name: str) -> str | None:
        """A metal's key from its key or its label in either language, however spelt
        (``starmetal``, ``star-metal``, ``Star metal``, ``métal d'étoile``); None if none matches."""
        from sevendag_cli.terms import find_key

        return find_key(name, {k: list(m.label.values()) for k, m in self.metals.items()},
                        prefixes=False)

    def shifted(self, band: WoundBand, steps: int) -> WoundBand:
        """S-17: ``band`` made ``steps`` bands worse (:func:`shifted_index`)."""
        return self.wounds[shifted_index(self.wounds.index(band), steps, len(self.wounds))]


class Item(Struct, frozen=True):
    name: str
    kind: str  # "weapon" | "shield"
    hands: int  # 1 or 2
    metal: str | None
    skill: int  # S-10: drop check succeeds on d20 <= skill
    label: str  # in English (the events' ``label``)
    labels: tuple[tuple[str, str], ...] = ()  # (language, label) when the sheet gives several

    def label_in(self, lang: str) -> str:
        """The item's label in ``lang`` (a sheet's ``label = { en = ..., fr = ... }``), else its label."""
        return dict(self.labels).get(lang) or self.label


class Hand(Struct, frozen=True):
    die: int
    holds: str | None  # item name, or None for an empty hand


class TechniqueRule(Struct, frozen=True):
    """A sheet's technique rule (S-05): start ``technique`` whenever none is in effect and
    ``when`` holds (one of :data:`WHEN`)."""

    technique: str  # a key of the ruleset's techniques
    when: str

    def applies(self, holds_initiative: bool) -> bool:
        """Whether the rule starts its technique this round (none in effect)."""
        return self.when == "always" or (self.when == "attacking") == holds_initiative


def behind(penalty: int, opponent_penalty: int) -> bool:
    """A fighter is behind on wounds when its wound penalty (S-19) is larger than its
    opponent's (equal penalties: nobody is behind)."""
    return penalty > opponent_penalty


def yields(rule: str, penalty: int, opponent_penalty: int) -> bool:
    """S-03: whether a sheet's yield rule yields, its fighter holding the initiative."""
    return rule == "always" or (rule == "behind" and behind(penalty, opponent_penalty))


class SevendagFighter(Struct, frozen=True):
    name: str
    path: str
    speed: int
    attack: int
    defence: int
    hands: tuple[Hand, ...]
    items: dict[str, Item]
    tactic: str  # one of TACTICS, or "custom" with `allocation`
    allocation: tuple[str, ...] | None  # per hand: attack | defence | none
    technique_rule: TechniqueRule | None = None  # S-05: the sheet's ``technique``
    yield_rule: str = "never"  # S-03: the sheet's ``yield``, one of YIELDS

    engine = ENGINE

    @property
    def plays_plain(self) -> bool:
        """True when the sheet states no yield (``never``) and no technique rule: what the
        chain, the exact solver and the vectorised simulator assume."""
        return self.yield_rule == "never" and self.technique_rule is None

    def env(self) -> dict[str, int]:
        return {"speed": self.speed, "attack": self.attack, "defence": self.defence}

    def item_in(self, hand: int) -> Item | None:
        holds = self.hands[hand].holds
        return self.items[holds] if holds is not None else None


def read_ruleset(r: Reader, name: str, path: str) -> SevendagRuleset:
    f = r.table("formulas", {})
    speed_roll = f.formula("speed_roll", FIELD_RANGES, "1d20 + speed")
    f.finish()
    o = r.table("options", {})
    fumble_grants_crit = o.flag("fumble_grants_crit", False)
    failure_beats_crit = o.flag("failure_beats_crit", True)
    drop_check_die = o.integer("drop_check_die", 20, 2, 1000)
    drop_recovery = o.integer("drop_recovery_rounds", 1, 0, 100)
    round_cap = o.integer("round_cap", 200, 1, MAX_ROUND_CAP)
    round_seconds = o.integer("round_seconds", 3, 1, 3600)
    default_tactic = o.text("default_tactic", "weapons-attack", TACTICS)
    o.finish()

    wounds: list[WoundBand] = []
    for w in r.tables("wounds"):
        low = w.integer("from", lo=1)
        high = w.integer("to", None, lo=1) if w.has("to") else None
        wounds.append(
            WoundBand(
                name=w.text("name"), low=low, high=high,
                penalty=w.integer("penalty", 0, 0, 1000), out_after=w.integer("out_after", 0, 0, 1000),
                label=w.label("label", w.data.get("name", "wound")),
            )
        )
        w.finish()
    _check_bands(r, wounds)

    metals: dict[str, Metal] = {}
    for key, m in r.table("metals").items():
        metals[key] = Metal(
            name=key, label=m.label("label", key), text=m.label("text", ""),
            extra_damage=m.integer("extra_damage", 0, 0, 1000), band_shift=m.integer("band_shift", 0, 0, 10),
        )
        m.finish()
    if not metals:
        r.add("metals", Msg("rules.sev.need_metal"))

    techniques: dict[str, Technique] = {}
    for key, t in r.table("techniques", {}).items():
        techniques[key] = Technique(
            name=key, label=t.label("label", key), text=t.label("text", ""),
            attack=t.integer("attack", 0, -100, 100), defence=t.integer("defence", 0, -100, 100),
            duration=t.integer("duration", 1, 1, 100),
        )
        t.finish()

    return SevendagRuleset(
        name=name, label=r.label("label", name), path=path, speed_roll=speed_roll,
        round_seconds=round_seconds, wounds=tuple(wounds), metals=metals, techniques=techniques,
        fumble_grants_crit=fumble_grants_crit, failure_beats_crit=failure_beats_crit,
        drop_check_die=drop_check_die, drop_recovery_rounds=drop_recovery, round_cap=round_cap,
        default_tactic=default_tactic, examples=tuple(str_list(r, "examples")),
        house_defaults=str_table(r, "house_defaults"), rules=str_table(r, "rules"),
    )


def _check_bands(r: Reader, wounds: list[WoundBand]) -> None:
    if not wounds:
        r.add("wounds", Msg("rules.sev.need_band"))
        return
    seen: set[str] = set()
    for i, w in enumerate(wounds):
        if w.name in seen:
            r.add(f"wounds[{i}].name", Msg("rules.sev.used_twice", name=w.name))
        seen.add(w.name)
    expected = 1
    for i, w in enumerate(wounds):
        if w.low != expected:
            what = Msg("rules.gap" if w.low > expected else "rules.overlap")
            r.add(f"wounds[{i}].from", Msg("rules.sev.band_start", what=what, expected=expected))
        if w.high is None:
            if i != len(wounds) - 1:
                r.add(f"wounds[{i}].to", Msg("rules.open_ended"))
            return
        if w.high < w.low:
            r.add(f"wounds[{i}].to", Msg("rules.below", high=w.high, low=w.low))
        expected = w.high + 1
    r.add(f"wounds[{len(wounds) - 1}].to", Msg("rules.sev.last_open"))


def read_fighter(r: Reader, path: str, ruleset: SevendagRuleset | None) -> SevendagFighter:
    name = r.text("name")
    problem = name_problem(name) if r.has("name") else None
    if problem is not None:  # empty, or a name no NAME=VALUE option could type
        r.add("name", problem)
    r.text("ruleset")
    items: dict[str, Item] = {}
    metals = listed(ruleset.metals) if ruleset is not None else ""
    for key, it in r.table("items", {}).items():
        kind = it.text("kind", "weapon", ("weapon", "shield"))
        held_by = it.integer("hands", 1, 1, 2)
        metal = it.text("metal") if kind == "weapon" else it.text("metal", "")
        if ruleset is not None and metal and metal not in ruleset.metals:
            # one spelling per name: the key (``starmetal``) or the label shown (``star-metal``)
            metal = ruleset.metal_named(metal) or metal
        if kind == "weapon" and ruleset is not None and metal and metal not in ruleset.metals:
            it.add("metal", Msg("rules.sev.unknown_metal", metal=metal, known=metals))
        if kind == "shield" and held_by != 1:
            it.add("hands", Msg("rules.sev.shield_one_hand"))
        skill = it.integer("skill", 10, 1, 20) if kind == "weapon" else it.integer("skill", 0, 0, 20)
        labels = it.label("label", key)  # a text, or one per language
        items[key] = Item(key, kind, held_by, metal or None, skill, labels["en"],
                          tuple(sorted(labels.items())) if len(set(labels.values())) > 1 else ())
        it.finish()

    hands: list[Hand] = []
    hand_readers = r.tables("hands")
    known: object = listed(items) or Msg("rules.sev.none_defined")  # listed once, not per hand
    for h in hand_readers:
        die = h.integer("die", lo=2, hi=1000)
        holds = h.text("holds", "") or None
        if holds is not None and holds not in items:
            h.add("holds", Msg("rules.sev.no_item", holds=holds, known=known))
            holds = None
        hands.append(Hand(die, holds))
        h.finish()
    if isinstance(r.data.get("hands"), list) and not 1 <= len(hands) <= 4:
        r.add("hands", Msg("rules.sev.hand_count", n=len(hands)))
    holding = Counter(h.holds for h in hands)
    for key, item in items.items():
        holders = holding[key]
        if holders and holders != item.hands:
            want = Msg("rules.sev.two_hands" if item.hands == 2 else "rules.sev.one_hand")
            r.add(f"items.{key}.hands",
                  Msg("rules.sev.held_by", item=Msg.label(item.labels or (("en", item.label),),
                                                           item.label),
                      holders=holders, want=want))

    tactic = r.text("tactic", ruleset.default_tactic if ruleset else "weapons-attack",
                   (*TACTICS, "custom"))
    allocation: tuple[str, ...] | None = None
    if r.has("allocation"):
        raw = r._get("allocation", None)
        if (not isinstance(raw, list) or len(raw) != len(hands)
                or not all(isinstance(a, str) and a in COMMITMENTS for a in raw)):
            r.add("allocation", Msg("rules.sev.allocation_list", allowed=", ".join(COMMITMENTS),
                                    n=len(hands)))
        else:
            allocation = tuple(raw)
            tactic = "custom"
    elif tactic == "custom":
        r.add("allocation", Msg("rules.sev.custom_needs_allocation"))

    technique_rule = _technique_rule(r, ruleset)
    yield_rule = _word(r, "yield", YIELD_WORDS, YIELDS, "never")

    fighter = SevendagFighter(
        name=name, path=path,
        speed=r.integer("speed", lo=FIELD_RANGES["speed"][0], hi=FIELD_RANGES["speed"][1]),
        attack=r.integer("attack", lo=FIELD_RANGES["attack"][0], hi=FIELD_RANGES["attack"][1]),
        defence=r.integer("defence", lo=FIELD_RANGES["defence"][0], hi=FIELD_RANGES["defence"][1]),
        hands=tuple(hands), items=items, tactic=tactic, allocation=allocation,
        technique_rule=technique_rule, yield_rule=yield_rule,
    )
    r.finish(("notes",))
    return fighter


def _word(r: Reader, key: str, words: dict[str, tuple[str, ...]], keys: tuple[str, ...],
          default: str) -> str:
    """A rule's word (``behind``, ``en attaque``...) in either language and any case, as its
    key; anything else refused naming the words allowed."""
    from sevendag_cli.terms import find_key

    value = r.text(key, default)
    if not isinstance(r.data.get(key), str):
        return default  # absent, or not a text (said by ``text``)
    found = find_key(value, words, prefixes=False)
    if found is None:
        r.add(key, Msg("data.not_allowed", value=value, choices=", ".join(keys)))
        return default
    return found


def _technique_rule(r: Reader, ruleset: SevendagRuleset | None) -> TechniqueRule | None:
    """The sheet's ``technique = { name = "feint", when = "attacking" }`` (S-05), or None."""
    if not r.has("technique"):
        return None
    t = r.table("technique")
    if not isinstance(r.data.get("technique"), dict):
        return None
    name = t.text("name")
    when = _word(t, "when", WHEN_WORDS, WHEN, "always")
    t.finish()
    if not name.strip():
        if t.has("name") and isinstance(t.data.get("name"), str):
            t.add("name", Msg("rules.must_not_be_empty"))
        return None
    if ruleset is not None:
        key = name if name in ruleset.techniques else ruleset.technique_named(name)
        if key is None:
            known: object = (listed(ruleset.techniques) if ruleset.techniques
                             else Msg("rules.sev.none_defined"))
            t.add("name", Msg("rules.sev.unknown_technique", technique=name, known=known))
            return None
        name = key
    return TechniqueRule(name, when)


def needs_game(a: SevendagFighter, b: SevendagFighter, policies: Sequence[str]) -> bool:
    """Whether this pair under these policies is played through the game: a fighter plays
    optimally, or a sheet states a yield or technique rule (S-03, S-05) — the plain chain
    and the vectorised simulator play the sheets' tactics alone."""
    return tuple(policies) != PLAIN or not (a.plays_plain and b.plays_plain)
