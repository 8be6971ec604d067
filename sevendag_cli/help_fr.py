"""``--help`` in French: the commands' descriptions and the options' help, by their English text.

Typer builds the help from the docstrings and ``help=`` texts when the
command line is parsed; in French (``--lang fr`` on the command line or a
French ``LANG``), :func:`translate` replaces them on the Click objects just
before.  Imported only in French, so English start-up does not pay for it.
A text missing here stays English (a test checks that none is missing).
Typer's own words (Usage, Options, Arguments, Commands) stay as Typer writes them.
"""

from __future__ import annotations

import inspect
from typing import Any

HELP_FR: dict[str, str] = {
    # the program
    "Combat resolver for Sevendag and Le combat (d20): initiative, rounds, wounds, whole fights and their odds.":
        "Résolution des combats de Sevendag et du Combat (d20) : initiative, rounds, blessures, combats entiers et leurs probabilités.",
    "Combat resolver for Sevendag and Le combat (d20).": "Résolution des combats de Sevendag et du Combat (d20).",
    "Show the version.": "Afficher la version.",
    "Install completion for the current shell.": "Installer la complétion pour le shell courant.",
    "Show completion for the current shell, to copy it or customize the installation.":
        "Afficher la complétion pour le shell courant, pour la copier ou adapter l'installation.",
    # shared options
    "Seed for the dice (reported in the output); same seed, same fight.":
        "Graine des dés (rappelée dans la sortie) ; même graine, même combat.",
    "Faces rolled by hand, in roll order, e.g. 19,5,8.": "Faces obtenues à la main, dans l'ordre des jets, par exemple 19,5,8.",
    "Ask for each physical die at the terminal.": "Demander chaque dé réel au terminal.",
    "One JSON document on stdout.": "Un document JSON sur la sortie standard.",
    "One JSON event per line on stdout.": "Un événement JSON par ligne sur la sortie standard.",
    "Language of the display (default: from LANG).": "Langue de l'affichage (par défaut : celle de LANG).",
    "The encounter file.": "Le fichier de la rencontre.",
    "Ruleset name or file (default: the sheets' own, else sevendag).":
        "Nom ou fichier des règles (par défaut : celles des fiches, sinon sevendag).",
    "Two fighter sheets (names or .toml paths); none: the ruleset's examples.":
        "Deux fiches de combattant (noms ou chemins .toml) ; aucune : les exemples des règles.",
    # init
    "Start an encounter: roll initiative and save the encounter file.":
        "Commencer une rencontre : jeter l'initiative et enregistrer le fichier de la rencontre.",
    "Replace an encounter that is still in progress.": "Remplacer une rencontre encore en cours.",
    # round
    "Resolve the next round of the encounter, step by step, and save it.":
        "Résoudre le round suivant de la rencontre, étape par étape, et l'enregistrer.",
    "Sevendag: the assaillant lets the opponent act first (S-03).":
        "Sevendag : l'assaillant cède l'initiative, l'adversaire agit en premier (S-03).",
    "Sevendag: NAME=attack,defence (one commitment per hand).":
        "Sevendag : NOM=attack,defence (un engagement par main).",
    "Sevendag: NAME=TECHNIQUE (a key of the ruleset's techniques).":
        "Sevendag : NOM=TECHNIQUE (une clé des techniques martiales des règles).",
    "Never ask: use the sheets' tactics.": "Ne rien demander : appliquer les tactiques des fiches.",
    # wound
    "Apply a game master's judgement by hand (S-16), or name a wound band.":
        "Appliquer à la main une décision du meneur de jeu (S-16), ou nommer une blessure.",
    "The fighter to wound (or heal).": "Le combattant à blesser (ou à soigner).",
    "d20: damage off HP (negative heals). Sevendag: damage, or a band name.":
        "d20 : dégâts retirés des PV (négatif : soins). Sevendag : dégâts, ou nom d'une blessure.",
    "Only name the wound band of this much damage.": "Seulement nommer la blessure que causent ces dégâts.",
    # undo
    "Take back the last round or wound of the encounter.": "Annuler le dernier round ou la dernière blessure de la rencontre.",
    # fight
    "Play a whole fight step by step, simulate many (--runs), or compute exact odds (--exact).":
        "Jouer un combat entier étape par étape, en simuler beaucoup (--runs), ou calculer les probabilités exactes (--exact).",
    "Simulate this many fights and report the odds.": "Simuler autant de combats et donner les probabilités.",
    "Exact odds, within --tolerance.": "Probabilités exactes, à --tolerance près.",
    "Round cap: a fight still going is a draw (default: the ruleset's).":
        "Plafond de rounds : un combat encore en cours est un match nul (par défaut : celui des règles).",
    "With --exact: most probability left unresolved (default 1e-12).":
        "Avec --exact : probabilité laissée non résolue, au plus (par défaut 1e-12).",
    # rulesets
    "List the rulesets and fighters found; show or check them with the subcommands.":
        "Lister les règles et les combattants trouvés ; les afficher ou les vérifier avec les sous-commandes.",
    "Looks in the current folder, the user folder and the bundled rulesets.":
        "Cherche dans le dossier courant, le dossier de l'utilisateur et les règles fournies.",
    "Show a ruleset: its rules with their IDs, formulas, options and house defaults.":
        "Afficher des règles : leurs articles avec leurs identifiants, formules, options et choix maison.",
    "Ruleset name or file.": "Nom ou fichier des règles.",
    "Check rulesets or fighter sheets and list every problem found.":
        "Vérifier des règles ou des fiches de combattant et lister chaque problème trouvé.",
    "Ruleset or fighter sheet files.": "Fichiers de règles ou fiches de combattant.",
    # new
    "Write a fighter sheet to fill in (d20: abilities rolled 3d6 each, D-13).":
        "Écrire une fiche de combattant à remplir (d20 : caractéristiques tirées à 3d6 chacune, D-13).",
    "The fighter's name.": "Le nom du combattant.",
    "Ruleset of the sheet.": "Les règles de la fiche.",
    "File to write (default: NAME.toml).": "Fichier à écrire (par défaut : NOM.toml).",
    "Overwrite an existing file.": "Écraser un fichier existant.",
    # roll
    "Roll dice for what a fight doesn't cover: faces, highest and lowest shown, total.":
        "Lancer des dés pour ce qu'un combat ne couvre pas : faces, plus haute et plus basse signalées, total.",
    "Dice expression, e.g. '2d6 + 3' or '1d20'.": "Expression de dés, par exemple '2d6 + 3' ou '1d20'.",
    # schema
    "Print the JSON Schema of a JSON output or of an input file; without a name, list them.":
        "Afficher le schéma JSON d'une sortie JSON ou d'un fichier d'entrée ; sans nom, les lister.",
    "A schema's name (e.g. fight, round-event, fighter-d20); none: list them.":
        "Le nom d'un schéma (par exemple fight, round-event, fighter-d20) ; aucun : les lister.",
}

_EXAMPLES = (("Examples: ", "Exemples : "), ("Example: ", "Exemple : "))


def _key(text: str) -> str:
    return " ".join(text.split())


def _paragraph(text: str) -> str:
    found = HELP_FR.get(_key(text))
    if found is not None:
        return found
    for en, fr in _EXAMPLES:
        if text.startswith(en):
            return fr + text[len(en):]
    return text


def describe(text: str) -> str:
    """A command's help (a docstring): each known paragraph in French, examples kept."""
    return "\n\n".join(_paragraph(p) for p in inspect.cleandoc(text).split("\n\n"))


def translate(command: Any) -> None:
    """Put the French help on a Click command or group, its parameters and its subcommands."""
    for attr in ("help", "short_help"):
        value = getattr(command, attr, None)
        if isinstance(value, str) and value:
            setattr(command, attr, describe(value))
    for param in getattr(command, "params", ()):
        value = getattr(param, "help", None)
        if isinstance(value, str) and value:
            param.help = HELP_FR.get(_key(value), value)
    for sub in (getattr(command, "commands", None) or {}).values():
        translate(sub)


def untranslated(command: Any) -> list[str]:
    """English help texts with no French (for the tests)."""
    missing: list[str] = []
    for attr in ("help",):
        value = getattr(command, attr, None)
        if isinstance(value, str) and value:
            for p in inspect.cleandoc(value).split("\n\n"):
                if _paragraph(p) == p:
                    missing.append(_key(p))
    for param in getattr(command, "params", ()):
        value = getattr(param, "help", None)
        if isinstance(value, str) and value and _key(value) not in HELP_FR:
            missing.append(_key(value))
    for sub in (getattr(command, "commands", None) or {}).values():
        missing += untranslated(sub)
    return missing
