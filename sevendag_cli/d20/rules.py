"""Le combat (d20 homebrew): ruleset and fighter sheet models (D-xx)."""

from __future__ import annotations

import builtins

from msgspec import Struct

from sevendag_cli.data import Reader, str_list, str_table
from sevendag_cli.errors import Msg
from sevendag_cli.formula import Formula
from sevendag_cli.limits import MAX_PLAYED_ROUNDS, MAX_ROUND_CAP
from sevendag_cli.terms import name_problem

ENGINE = "d20"

# Fields a d20 formula may read (the fighter's sheet, flattened), each with the range a
# sheet may give it: the sheet is read within these, a formula's range is checked from them.
FIELD_RANGES: dict[str, tuple[int, int]] = {
    "level": (1, 1000), "str": (1, 100), "dex": (1, 100), "con": (1, 100), "wis": (1, 100),
    "bba": (-50, 100), "armour": (-50, 100), "size": (-50, 50), "dodge": (-50, 100),
    "hp": (1, 100_000), "weapon_type": (-50, 50), "crit_range": (2, 20), "crit_factor": (1, 10),
}
FIELDS = frozenset(FIELD_RANGES)

FORMULA_KEYS: dict[str, tuple[str, str]] = {
    # key: (default, rule ID)
    "initiative": ("1d20 + mod(dex)", "D-02"),
    "attack": ("1d20 + bba + mod(str) + weapon_type", "D-03/D-04"),
    "ac": ("10 + armour + mod(dex) + size", "D-05"),
    "save": ("1d20 + mod(dex) + dodge", "D-08"),
    "dd": ("1d20 + mod(dex)", "D-08"),
    "damage_bonus": ("mod(str)", "D-07/D-09"),
    "vig": ("1d10 + mod(con)", "D-09"),
    "magic_bonus": ("mod(wis)", "D-09"),
    "vol": ("1d10 + mod(wis)", "D-09"),
    "unarmed_damage": ("1d3", "D-11"),
}
DICE_FORMULAS = {"initiative", "attack", "save", "dd", "vig", "vol", "unarmed_damage"}


class DDBand(Struct, frozen=True):
    low: int
    high: int | None
    dd: int


class D20Ruleset(Struct, frozen=True):
    name: str
    label: dict[str, str]
    path: str
    initiative: Formula
    attack: Formula
    ac: Formula
    save: Formula
    dd: Formula
    damage_bonus: Formula
    vig: Formula
    magic_bonus: Formula
    vol: Formula
    unarmed_damage: Formula
    natural_hit: int  # D-06
    natural_miss: int  # D-06
    save_natural_success: int  # D-08
    save_natural_failure: int  # D-08
    save_success: str  # "half" | "negate"   (D-08)
    dd_mode: str  # "roll" | "level_table"     (D-08)
    dd_level_of: str  # "attacker" | "defender" (house default: attacker)
    dd_table: tuple[DDBand, ...]
    min_damage: int  # D-10
    crit_multiplies_magic: bool  # house default: false
    round_cap: int | None  # a draw after this many rounds; None: no cap (the fight ends, D-12)
    examples: tuple[str, ...]
    house_defaults: dict[str, str]
    rules: dict[str, str]

    engine = ENGINE

    def dd_from_level(self, level: int) -> int:
        for band in self.dd_table:
            if level >= band.low and (band.high is None or level <= band.high):
                return band.dd
        return self.dd_table[-1].dd if self.dd_table else 0


class Weapon(Struct, frozen=True):
    name: str  # in English (the events' ``weapon``)
    damage: Formula
    magic: Formula | None
    type_mod: int
    crit_range: int  # lowest natural that threatens a critical (D-07)
    crit_factor: int
    labels: tuple[tuple[str, str], ...] = ()  # (language, name) when the sheet gives several

    def label_in(self, lang: str) -> str:
        """The weapon's name in ``lang`` (a sheet's ``name = { en = ..., fr = ... }``), else its name."""
        return dict(self.labels).get(lang) or self.name


class D20Fighter(Struct, frozen=True):
    name: str
    path: str
    race: str
    level: int
    str: int
    dex: int
    con: int
    wis: int
    bba: int
    armour: int
    size: int
    dodge: int
    hp: int
    ac_override: int | None
    weapon: Weapon | None

    engine = ENGINE

    def env(self) -> dict[builtins.str, int]:
        w = self.weapon
        return {
            "level": self.level, "str": self.str, "dex": self.dex, "con": self.con,
            "wis": self.wis, "bba": self.bba, "armour": self.armour, "size": self.size,
            "dodge": self.dodge, "hp": self.hp,
            "weapon_type": w.type_mod if w else 0,
            "crit_range": w.crit_range if w else 20,
            "crit_factor": w.crit_factor if w else 2,
        }

    def ac(self, ruleset: D20Ruleset) -> int:
        if self.ac_override is not None:
            return self.ac_override
        return ruleset.ac.value(self.env())


def read_ruleset(r: Reader, name: str, path: str) -> D20Ruleset:
    f = r.table("formulas", {})
    formulas = {
        key: f.formula(key, FIELD_RANGES, default, dice=key in DICE_FORMULAS or key == "unarmed_damage")
        for key, (default, _rule) in FORMULA_KEYS.items()
    }
    for key in ("ac", "damage_bonus", "magic_bonus"):
        if formulas[key].dice:
            f.add(key, Msg("rules.d20.no_dice", formula=formulas[key].text))
    for key in ("attack", "save", "dd"):
        first = formulas[key].dice[:1]
        if not first or first[0].sides != 20:
            f.add(key, Msg("rules.d20.starts_d20"))
    f.finish()
    o = r.table("options", {})
    natural_hit = o.integer("natural_hit", 20, 1, 20)
    natural_miss = o.integer("natural_miss", 1, 0, 20)
    save_ok = o.integer("save_natural_success", 20, 1, 20)
    save_ko = o.integer("save_natural_failure", 1, 0, 20)
    save_success = o.text("save_success", "half", ("half", "negate"))
    dd_mode = o.text("dd", "roll", ("roll", "level_table"))
    dd_level_of = o.text("dd_level_of", "attacker", ("attacker", "defender"))
    min_damage = o.integer("min_damage", 1, 0, 1000)
    crit_magic = o.flag("crit_multiplies_magic", False)
    round_cap = _round_cap(o)
    o.finish()
    bands: list[DDBand] = []
    for b in r.tables("dd_table", []):
        low = b.integer("from", lo=0)
        high = b.integer("to", None, lo=0) if b.has("to") else None
        bands.append(DDBand(low, high, b.integer("dd")))
        b.finish()
    _check_dd_table(r, bands, dd_mode)
    examples = str_list(r, "examples")
    ruleset = D20Ruleset(
        name=name, label=r.label("label", name), path=path,
        **formulas,
        natural_hit=natural_hit, natural_miss=natural_miss,
        save_natural_success=save_ok, save_natural_failure=save_ko,
        save_success=save_success, dd_mode=dd_mode, dd_level_of=dd_level_of,
        dd_table=tuple(bands), min_damage=min_damage, crit_multiplies_magic=crit_magic,
        round_cap=round_cap, examples=tuple(examples),
        house_defaults=str_table(r, "house_defaults"), rules=str_table(r, "rules"),
    )
    return ruleset


NO_CAP = "none"
"""``options.round_cap = "none"`` (or no ``round_cap`` at all, the house default): no round cap."""


def _round_cap(o: Reader) -> int | None:
    """``options.round_cap``: a number of rounds, after which a fight still going is a draw; or
    ``"none"``, or the key left out: no cap — every d20 fight ends (D-12), and the simulators
    stop only at their safety limit (:data:`sevendag_cli.limits.MAX_PLAYED_ROUNDS`), saying so."""
    if not o.has("round_cap"):
        return None
    value = o.data["round_cap"]
    o.seen.add("round_cap")
    if value == NO_CAP:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ROUND_CAP:
        o.add("round_cap", Msg("rules.d20.round_cap", value=value, max=MAX_ROUND_CAP))
        return None
    return value


def play_limit(ruleset: D20Ruleset) -> int:
    """The rounds a fight is played to at most: the ruleset's round cap (then a draw), or with no
    cap the simulators' safety limit (:data:`~sevendag_cli.limits.MAX_PLAYED_ROUNDS`)."""
    return MAX_PLAYED_ROUNDS if ruleset.round_cap is None else ruleset.round_cap


def _check_dd_table(r: Reader, bands: list[DDBand], mode: str) -> None:
    if not bands:
        if mode == "level_table":
            r.add("dd_table", Msg("rules.d20.no_dd_table"))
        return
    expected = bands[0].low
    if expected > 1:
        r.add("dd_table[0].from", Msg("rules.d20.first_band"))
    for i, b in enumerate(bands):
        if b.low != expected:
            what = Msg("rules.gap" if b.low > expected else "rules.overlap")
            r.add(f"dd_table[{i}].from", Msg("rules.d20.band_start", what=what, expected=expected))
        if b.high is None:
            if i != len(bands) - 1:
                r.add(f"dd_table[{i}].to", Msg("rules.open_ended"))
            break
        if b.high < b.low:
            r.add(f"dd_table[{i}].to", Msg("rules.below", high=b.high, low=b.low))
        expected = b.high + 1


def read_fighter(r: Reader, path: str) -> D20Fighter:
    name = r.text("name")
    problem = name_problem(name) if r.has("name") else None
    if problem is not None:  # empty, or a name no NAME=VALUE option could type
        r.add("name", problem)
    r.text("ruleset")
    weapon: Weapon | None = None
    if r.has("weapon"):
        w = r.table("weapon")
        damage = w.formula("damage", frozenset())
        if not damage.dice and r.has("weapon"):
            w.add("damage", Msg("rules.d20.must_roll"))
        magic = w.formula("magic", frozenset()) if w.has("magic") else None
        crit_range = w.integer("crit_range", 20, *FIELD_RANGES["crit_range"])
        names = w.label("name", "weapon")  # a text, or one per language
        weapon = Weapon(
            name=names["en"],
            damage=damage,
            magic=magic,
            type_mod=w.integer("type", 0, *FIELD_RANGES["weapon_type"]),
            crit_range=crit_range,
            crit_factor=w.integer("crit_factor", 2, *FIELD_RANGES["crit_factor"]),
            labels=tuple(sorted(names.items())) if len(set(names.values())) > 1 else (),
        )
        w.finish()
    ac = r.integer("ac", None, -50, 200) if r.has("ac") else None
    fighter = D20Fighter(
        name=name, path=path, race=r.text("race", ""),
        level=r.integer("level", 1, *FIELD_RANGES["level"]),
        str=_field(r, "str"), dex=_field(r, "dex"), con=_field(r, "con"), wis=_field(r, "wis"),
        bba=r.integer("bba", 0, *FIELD_RANGES["bba"]),
        armour=r.integer("armour", 0, *FIELD_RANGES["armour"]),
        size=r.integer("size", 0, *FIELD_RANGES["size"]),
        dodge=r.integer("dodge", 0, *FIELD_RANGES["dodge"]),
        hp=_field(r, "hp"), ac_override=ac, weapon=weapon,
    )
    r.finish(("notes",))
    return fighter


def _field(r: Reader, name: str) -> int:
    """A field every sheet must give, within its range."""
    lo, hi = FIELD_RANGES[name]
    return r.integer(name, lo=lo, hi=hi)


def unarmed(ruleset: D20Ruleset) -> Weapon:
    """D-11: bare hands."""
    return Weapon("bare hands", ruleset.unarmed_damage, None, 0, 20, 2,
                  (("en", "bare hands"), ("fr", "mains nues")))

