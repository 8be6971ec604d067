"""Game terms as a user types them: in English or French, in any case, with or without accents.

The engines and the files speak in keys (``attack``, ``serious``, ``feint``);
people type ``a``, ``Défense``, ``grave``, ``feinte``.  These functions find the key a
typed word means, on the command line and at the prompts alike, and leave a
word they do not know as it is, so the refusal that follows names it.
No dependency: the rules records and the command line both use it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sevendag_cli.errors import Msg

COMMITMENT_WORDS: dict[str, tuple[str, ...]] = {
    "attack": ("a", "att", "atk", "attack", "attaque", "attaquer"),
    "defence": ("d", "def", "defence", "defense", "défense", "defendre", "défendre"),
    "none": ("n", "-", "none", "aucun", "aucune", "rien"),
}
"""Each commitment of a hand's die (S-04) and the words that mean it (``a``/``d``/``n`` as at the prompt)."""

WHEN_WORDS: dict[str, tuple[str, ...]] = {
    "attacking": ("attacking", "attack", "assaillant", "attaque", "en attaque", "attaquant"),
    "defending": ("defending", "defence", "defense", "défenseur", "défense", "en défense"),
    "always": ("always", "toujours"),
}
"""When a sheet's technique rule starts its technique (S-05): holding the initiative, not
holding it, or whenever none is in effect."""

YIELD_WORDS: dict[str, tuple[str, ...]] = {
    "never": ("never", "no", "jamais", "non"),
    "always": ("always", "yes", "toujours", "oui"),
    "behind": ("behind", "derrière", "mené", "en retard"),
}
"""A sheet's yield rule (S-03): never, always, or when behind on wounds."""

YES = ("y", "yes", "o", "oui")
NO = ("n", "no", "non")
NONE_WORDS = ("none", "aucune", "aucun", "rien", "n", "no", "non", "-")
"""What means "no technique" at the prompt."""


def fold(text: str) -> str:
    """``Défense`` → ``defense``: lower case, accents dropped, spaces collapsed (for comparing only)."""
    if text.isascii():  # the same, without unicodedata (a fight's two names)
        return " ".join(text.lower().split())
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", text.casefold())
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(bare.split())


def squash(text: str) -> str:
    """``Star-Metal`` → ``starmetal``: folded, then only letters and digits (for comparing only)."""
    return "".join(c for c in fold(text) if c.isalnum())


def candidates(text: str, names: Mapping[str, Iterable[str]], *, prefixes: bool = True) -> list[str]:
    """The keys ``text`` may mean, from the closest match down, the key itself counting as a name:

    the key as typed; else the keys with a name equal to it, folded (any case, accents
    or not); else equal but for spaces and punctuation (``star metal``, ``starmetal``);
    else the keys with a name, or a word of a name, that it begins (``garde`` → ``garde de
    fer``, ``cha`` → ``charge``), unless ``prefixes`` is False (a file's spelling).
    One key: that is the one meant; more: ``text`` is ambiguous.
    """
    if text in names:
        return [text]
    wanted = fold(text)
    if not wanted:
        return []
    every = {key: [key, *words] for key, words in names.items()}
    found = [key for key, words in every.items() if any(wanted == fold(w) for w in words)]
    if not found:
        bare = squash(text)
        found = [key for key, words in every.items() if bare and any(bare == squash(w) for w in words)]
    if not found and prefixes:
        found = [key for key, words in every.items()
                 if any(fold(w).startswith(wanted) or any(part.startswith(wanted)
                                                         for part in fold(w).split()[1:])
                        for w in words)]
    return found


def find_key(text: str, names: Mapping[str, Iterable[str]], *, prefixes: bool = True) -> str | None:
    """The one key ``text`` means (see :func:`candidates`); None when no key, or more than one, matches."""
    found = candidates(text, names, prefixes=prefixes)
    return found[0] if len(found) == 1 else None


def commitment(text: str) -> str:
    """``a`` / ``Attaque`` → ``attack``; a word that is no commitment is returned as typed."""
    return find_key(text.strip(), COMMITMENT_WORDS) or text.strip()


def commitments(text: str) -> tuple[str, ...]:
    """``a,d`` / ``attaque, défense`` → ``("attack", "defence")``: one per hand, in order."""
    return tuple(commitment(part) for part in text.split(",") if part.strip())


def yes_no(text: str) -> bool | None:
    """``y``/``oui`` → True, ``n``/``non`` → False, anything else (``maybe``) → None."""
    word = fold(text)
    if word in YES:
        return True
    if word in NO:
        return False
    return None


def find_name(text: str, names: Iterable[str]) -> str | None:
    """A fighter's name as typed (``brannoc``): the one name equal to it, else ignoring case."""
    names = tuple(names)
    if text in names:
        return text
    wanted = fold(text)
    found = [n for n in names if fold(n) == wanted]
    return found[0] if len(found) == 1 else None


def short_labels(labels: Iterable[str]) -> list[str]:
    """Labels without the words they all share: ``light wound``, ``serious wound`` → ``light``,
    ``serious`` (so ``wound Ysolde grave`` finds ``blessure grave``)."""
    split = [fold(label).split() for label in labels]
    common = set.intersection(*(set(words) for words in split)) if len(split) > 1 else set()
    return [" ".join(w for w in words if w not in common) for words in split]


NAME_SEPARATOR = "="
"""What separates a fighter's name from its value on the command line (``--tactic NAME=...``,
``--allocate NAME=...``, ``--technique NAME=...``): a name holding it could never be typed."""


def name_problem(name: str) -> Msg | None:
    """What is wrong with a fighter's name as a sheet gives it (a ``Msg``), or None: empty, or
    holding ``=``, which no ``NAME=VALUE`` option could name."""
    from sevendag_cli.errors import Msg

    if not name.strip():
        return Msg("rules.must_not_be_empty")
    if NAME_SEPARATOR in name:
        return Msg("rules.name_separator", name=name, separator=NAME_SEPARATOR)
    return None


ASSIGNMENT_EXAMPLES = {"--allocate": "Brannoc=attack,defence", "--technique": "Brannoc=feint"}
"""What a mistyped ``NAME=VALUE`` option is shown as an example of (an allocation for
``--allocate``, a technique for ``--technique``)."""


def assignment_example(text: str, option: str) -> str:
    """The example a refused ``NAME=VALUE`` points to: what was typed with ``:`` (or a space)
    made ``=`` (``Brannoc:a,d`` → ``Brannoc=a,d``), else one of the option's own kind."""
    for sep in (":", " "):
        name, found, rest = text.strip().partition(sep)
        if found and name.strip() and rest.strip() and "=" not in text:
            return f"{name.strip()}={rest.strip()}"
    return ASSIGNMENT_EXAMPLES.get(option, "NAME=VALUE")


def parse_assignments(values: Iterable[str] | None, option: str) -> list[tuple[str, str]]:
    """``NAME=VALUE`` options (``--allocate``, ``--technique``): (name, value) as typed, in order."""
    from sevendag_cli.errors import Msg, UsageError

    out: list[tuple[str, str]] = []
    for v in values or []:
        name, sep, rest = v.partition("=")
        if not sep or not name.strip() or not rest.strip():
            raise UsageError(Msg("cli.assignment", option=option, value=v,
                                 example=assignment_example(v, option)))
        out.append((name.strip(), rest.strip()))
    return out


def per_fighter(pairs: Iterable[tuple[str, str]], option: str,
                who: Callable[[str], str]) -> dict[str, str]:
    """One choice per fighter per round (S-04, S-05), by the name ``who`` finds: a fighter
    named twice (in any case) is refused, naming both values."""
    from sevendag_cli.errors import Msg, UsageError

    out: dict[str, str] = {}
    for given, value in pairs:
        name = who(given)
        if name in out:
            raise UsageError(Msg("cli.assignment_twice", option=option, name=name,
                                 first=out[name], second=value))
        out[name] = value
    return out


def distinct_words(labels: Iterable[str]) -> list[str]:
    """:func:`short_labels` as written (case and accents kept): ``blessure légère``,
    ``blessure grave`` → ``légère``, ``grave``; a label with no word of its own stays whole."""
    split = [label.split() for label in labels]
    common = (set.intersection(*({fold(w) for w in words} for words in split))
              if len(split) > 1 else set())
    out = []
    for words in split:
        own = [w for w in words if fold(w) not in common]
        out.append(" ".join(own) if own else " ".join(words))
    return out
