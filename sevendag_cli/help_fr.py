"""``--help`` in French: the commands' descriptions and the options' help, by their English text.

Typer builds the help from the docstrings and ``help=`` texts when the
command line is parsed; in French (``--lang fr`` anywhere on the command line,
before the command name too, or a French ``LANG``), :func:`translate` replaces
them on the Click objects just before (on each command as the root group
builds it).  Imported only in French, so English start-up does not pay for it.
A text missing here stays English (a test checks that none is missing).
The arguments' names and the title of the list of commands are put in French
by :func:`translate` too; Typer's and Click's own words (Usage, Options, "Show this
message and exit.", ``[default: …]``, ``[required]``, ``[env var: …]``), in the
Rich help and the plain one alike, by sevendag's command classes
(:mod:`sevendag_cli.commandline`).
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
    "Seed for the dice (reported in the output); same seed, same rolls.":
        "Graine des dés (rappelée dans la sortie) ; même graine, mêmes jets.",
    "Faces rolled by hand, in roll order, e.g. 19,5,8.": "Faces obtenues à la main, dans l'ordre des jets, par exemple 19,5,8.",
    "Ask for each physical die at the terminal.": "Demander chaque dé réel au terminal.",
    "Ask for each physical die at the terminal; --manual NAME (repeatable): only that player's dice, as --manual-for.":
        "Demander chaque dé réel au terminal ; --manual NOM (répétable) : seulement les dés de ce joueur, comme --manual-for.",
    "Ask only this fighter's dice at the terminal (repeat for each player who rolls their own); the tool rolls the others' (seeded, the seed reported).":
        "Ne demander au terminal que les dés de ce combattant (à répéter pour chaque joueur qui lance ses dés) ; l'outil lance ceux des autres (avec une graine, rappelée).",
    "One JSON document on stdout.": "Un document JSON sur la sortie standard.",
    "One JSON event per line on stdout.": "Un événement JSON par ligne sur la sortie standard.",
    "Language of the display (default: from LANG).": "Langue de l'affichage (par défaut : celle de LANG).",
    "The encounter file.": "Le fichier de la rencontre.",
    "Ruleset name or file (default: the sheets' own, else sevendag).":
        "Nom ou fichier des règles (par défaut : celles des fiches, sinon sevendag).",
    "Two fighters: names as listed by 'rulesets', file names or .toml paths; none: the ruleset's examples.":
        "Deux combattants : noms listés par 'rulesets', noms de fichier ou chemins .toml ; aucun : les exemples des règles.",
    # init
    "Start an encounter: roll initiative and save the encounter file.":
        "Commencer une rencontre : jeter l'initiative et enregistrer le fichier de la rencontre.",
    "Replace an encounter that is still in progress.": "Remplacer une rencontre encore en cours.",
    # round
    "Resolve the next round of the encounter, step by step, and save it.":
        "Résoudre le round suivant de la rencontre, étape par étape, et l'enregistrer.",
    "Sevendag: the assailant lets the opponent act first (S-03).":
        "Sevendag : l'assaillant cède l'initiative, l'adversaire agit en premier (S-03).",
    "Sevendag: NAME=attack,defence or NAME=a,d (one per hand, in order; English or French).":
        "Sevendag : NOM=attaque,défense ou NOM=a,d (un par main, dans l'ordre ; en français ou en anglais).",
    "Sevendag: NAME=TECHNIQUE (a technique's key or name, e.g. feint or feinte), or NAME=none (no technique, whatever the sheet's rule).":
        "Sevendag : NOM=TECHNIQUE (la clé ou le nom d'une technique martiale, par exemple feinte ou feint), "
        "ou NOM=aucune (pas de technique, quelle que soit la règle de la fiche).",
    "Sevendag, at a terminal: ask only this fighter's choices (its yield when it is the assailant, its hands, its technique; repeat for each player); the others play their sheets' tactics and rules.":
        "Sevendag, au terminal : ne demander que les choix de ce combattant (sa cession quand il est "
        "l'assaillant, ses mains, sa technique ; à répéter pour chaque joueur) ; les autres suivent la "
        "tactique et les règles de leur fiche.",
    "Never ask: use the sheets' tactics and rules.": "Ne rien demander : appliquer les tactiques et les règles des fiches.",
    # wound
    "Apply a game master's judgement by hand (S-16), or name a wound band.":
        "Appliquer à la main une décision du meneur de jeu (S-16), ou nommer une blessure.",
    "The fighter to wound (or heal).": "Le combattant à blesser (ou à soigner).",
    "d20: damage off HP (negative heals). Sevendag: damage, or a band name.":
        "d20 : dégâts retirés des PV (négatif : soins). Sevendag : dégâts, ou nom d'une blessure.",
    "Only name the wound band of this much damage.": "Seulement nommer la blessure que causent ces dégâts.",
    "Heal instead (S-16). d20: hit points back. Sevendag: the last wound of a band (its name, or the damage that gave it); its penalty goes too.":
        "Soigner plutôt (S-16). d20 : des points de vie rendus. Sevendag : la dernière blessure d'un palier "
        "(son nom, ou les dégâts qui l'ont causée) ; son malus disparaît avec elle.",
    # undo
    "Take back the last round, wound or heal of the encounter.":
        "Annuler le dernier round, la dernière blessure ou les derniers soins de la rencontre.",
    # status, log
    "Show where the encounter stands, without changing it: round, who attacks, each fighter.":
        "Montrer où en est la rencontre, sans la modifier : round, qui attaque, chaque combattant.",
    "Replay the encounter's history round by round, as it was shown, without changing it.":
        "Rejouer l'historique de la rencontre round par round, tel qu'il a été affiché, sans la modifier.",
    # odds (and --odds of init, round, fight)
    "Show each fighter's chance to win from where the encounter stands, without changing it.":
        "Montrer les chances de victoire de chacun à partir d'où en est la rencontre, sans la modifier.",
    "The odds assume each fighter keeps the sheet's tactic from now on (no yield, no new technique) and that a fight still going at the round cap is a draw; --tactic FIGHTER=optimal has that fighter declare its best each round instead.":
        "Ces chances supposent que chacun s'en tient désormais à la tactique de sa fiche (pas de cession "
        "de l'initiative, pas de nouvelle technique) et qu'un combat encore en cours au plafond de rounds "
        "est nul ; --tactic COMBATTANT=optimal fait déclarer à ce combattant son meilleur choix à chaque "
        "round.",
    "With --odds: how the odds assume a fighter plays from now on: FIGHTER=optimal (the best declaration every round) or FIGHTER=sheet; --tactic optimal for both. The round itself is played as declared.":
        "Avec --odds : comment les chances supposent qu'un combattant joue désormais : COMBATTANT=optimal "
        "(la meilleure déclaration à chaque round) ou COMBATTANT=fiche ; --tactic optimal pour les deux. "
        "Le round lui-même se joue tel que déclaré.",
    "Round cap: a fight still going after it is a draw (default: the encounter ruleset's).":
        "Plafond de rounds : un combat encore en cours au-delà est nul (par défaut : celui des règles de la rencontre).",
    "Most probability left unresolved (default 1e-12).":
        "Probabilité laissée non résolue, au plus (par défaut 1e-12).",
    "Show each fighter's chance to win from the start, and keep the solver's tables in the encounter (round --odds is then fast).":
        "Montrer les chances de victoire de chacun dès le départ, et garder les tables du calcul dans la "
        "rencontre (round --odds est alors rapide).",
    "Show each fighter's chance to win before and after the round (off by default: the game master decides what the players see).":
        "Montrer les chances de victoire de chacun avant et après le round (désactivé par défaut : le "
        "meneur de jeu décide de ce que voient les joueurs).",
    "Show how each fighter's chance to win swung, round by round (a chart; a list in the JSON).":
        "Montrer comment les chances de victoire ont évolué, round par round (un graphique ; une liste "
        "dans le JSON).",
    # advise
    "Show every option of the Sevendag fighter who declares now, with its chance to win.":
        "Montrer chaque option du combattant Sevendag qui déclare maintenant, avec sa chance de victoire.",
    "Each option (yield or not, allocation, technique if one is free) comes with the chance to win if taken, both fighters playing optimally afterwards and the opponent answering optimally, and the opponent's best answer. Options that change neither the chance nor the answer share a line. Reads the encounter, changes nothing.":
        "Chaque option (céder ou non, répartition, technique si aucune n'est en cours) vient avec la "
        "chance de victoire si elle est prise, les deux jouant ensuite au mieux et l'adversaire répondant "
        "au mieux, et la meilleure réponse de l'adversaire. Les options qui ne changent ni la chance "
        "ni la réponse partagent une ligne. Lit la rencontre, ne change rien.",
    "Show only the N best lines (with --json: the N best options).":
        "Ne montrer que les N meilleures lignes (avec --json : les N meilleures options).",
    "What the assailant declared, for the defender's advice: 'yield=no;allocation=attack,attack;technique=feint'.":
        "Ce que l'assaillant a déclaré, pour conseiller le défenseur : "
        "'yield=non;allocation=attaque,attaque;technique=feinte'.",
    "Widest interval of each option's chance (default 1e-6).":
        "Intervalle le plus large de la chance de chaque option (par défaut 1e-6).",
    "Sevendag: before the round, show every option of the assailant with its chance to win (as the advise command).":
        "Sevendag : avant le round, montrer chaque option de l'assaillant avec sa chance de victoire "
        "(comme la commande advise).",
    # fight
    "Play a whole fight step by step, simulate many (--runs), or compute exact odds (--exact).":
        "Jouer un combat entier étape par étape, en simuler beaucoup (--runs), ou calculer les probabilités exactes (--exact).",
    "Simulate this many fights and report the odds.": "Simuler autant de combats et donner les probabilités.",
    "Exact odds, within --tolerance.": "Probabilités exactes, à --tolerance près.",
    "With --exact: what each sheet gives away against optimal play, however long it takes (default: only when quick).":
        "Avec --exact : ce que chaque fiche concède face au jeu optimal, quel qu'en soit le temps (par défaut : seulement quand c'est rapide).",
    "With --exact: the exact fractions of the fight played to the end, however long they take (default: only when quick; a progress bar at a terminal).":
        "Avec --exact : les fractions exactes du combat mené à son terme, quel qu'en soit le temps (par défaut : seulement quand c'est rapide ; une barre de progression dans un terminal).",
    "Round cap: a fight still going is a draw (default: the ruleset's).":
        "Plafond de rounds : un combat encore en cours est un match nul (par défaut : celui des règles).",
    "With --exact: most probability left unresolved (default 1e-12).":
        "Avec --exact : probabilité laissée non résolue, au plus (par défaut 1e-12).",
    # what-ifs, CSV, plots (fight, sweep)
    "Change a sheet field for this run only: FIGHTER.FIELD=VALUE, e.g. B.armour=7, A.weapon.damage=1d8 (empty VALUE: the sheet's default); or a Sevendag technique: techniques.feint.attack=4. Repeat for several.":
        "Changer un champ d'une fiche pour cette fois seulement : COMBATTANT.CHAMP=VALEUR, par exemple B.armour=7, "
        "A.weapon.damage=1d8 (VALEUR vide : la valeur par défaut de la fiche) ; ou une technique de Sevendag : "
        "techniques.feint.attack=4. À répéter pour plusieurs.",
    "Sevendag: a fighter's tactic for this run: FIGHTER=TACTIC, e.g. Brannoc=full-defence, or one commitment per hand: Brannoc=attack,defence; then its rules after ';': Brannoc=all-out;technique=feint@attacking;yield=behind; FIGHTER=optimal: the best declaration every round (yield, allocation, technique), or --tactic optimal for every fighter.":
        "Sevendag : la tactique d'un combattant pour cette fois : COMBATTANT=TACTIQUE, par exemple Brannoc=full-defence, "
        "ou un engagement par main : Brannoc=attaque,défense ; puis ses règles après ';' : "
        "Brannoc=all-out;technique=feinte@en attaque;yield=mené ; COMBATTANT=optimal : la meilleure "
        "déclaration à chaque round (cession, répartition, technique), ou --tactic optimal pour chaque "
        "combattant.",
    "The table as CSV on stdout (RFC 4180, columns in docs/bench.md#csv---csv).":
        "Le tableau en CSV sur la sortie standard (RFC 4180, colonnes décrites dans docs/bench.md#csv---csv).",
    "Draw the odds in FILE.png or FILE.svg (needs matplotlib: the plot extra of sevendag).":
        "Dessiner les probabilités dans FICHIER.png ou FICHIER.svg (demande matplotlib : l'extra plot de sevendag).",
    # sweep
    "Odds of a fight for each value of one sheet field, exact where possible: find the fair value.":
        "Probabilités d'un combat pour chaque valeur d'un champ d'une fiche, exactes si possible : trouver la valeur équilibrée.",
    "FIGHTER.FIELD=RANGE (or techniques.NAME.FIELD=RANGE): LO..HI, LO..HI/STEP or a list like "
    "1d6,1d8,2d4 (at most 200 values); twice: a grid of both fields.":
        "COMBATTANT.CHAMP=PLAGE (ou techniques.NOM.CHAMP=PLAGE) : MIN..MAX, MIN..MAX/PAS ou une liste comme "
        "1d6,1d8,2d4 (200 valeurs au plus) ; deux fois : une grille des deux champs.",
    "Report the value closest to 50/50.": "Donner la valeur la plus proche du 50/50.",
    "Simulate this many fights per value instead of exact odds.":
        "Simuler autant de combats par valeur au lieu des probabilités exactes.",
    "Exact odds: most probability left unresolved per value (default 1e-12).":
        "Probabilités exactes : probabilité laissée non résolue par valeur, au plus (par défaut 1e-12).",
    # matrix
    "Play every ordered pair of a roster and rank it: P(row beats column), exact where possible.":
        "Jouer chaque paire ordonnée d'un groupe de combattants et les classer : P(la ligne bat la colonne), "
        "exacte quand c'est possible.",
    "Each cell is the fight that fight plays with the row's fighter named first, exact (certified within --tolerance) unless --runs N simulates; a pair too large for exact odds is simulated (100,000 fights), one too large even for that (optimal play's game) is shown n/a, said on stderr. The last column is each fighter's mean over its opponents; the rows are sorted by it. --tactic optimal (or NAME=optimal) ranks the roster under optimal play.":
        "Chaque case est le combat que joue fight avec le combattant de la ligne nommé en premier, exact "
        "(certifié à --tolerance près) sauf si --runs N le simule ; une paire trop grande pour le calcul exact "
        "est simulée (100 000 combats), une paire trop grande même pour cela (le jeu optimal) est notée n.c. "
        "et signalée sur stderr. La dernière colonne donne la moyenne de chaque combattant sur ses "
        "adversaires ; les lignes sont classées selon elle. --tactic optimal (ou NOM=optimal) classe le "
        "groupe sous le jeu optimal.",
    "Also what each sheet gives away against optimal play (the opponent's best answer), per matchup and per fighter; from the exact game, also with --runs.":
        "Aussi ce que chaque fiche concède face au jeu optimal (la meilleure réponse de l'adversaire), par "
        "affrontement et par combattant ; tiré du jeu exact, même avec --runs.",
    "Fighter sheets: names as listed by 'rulesets', .toml paths, or folders of sheets (2 to 40 fighters in all).":
        "Fiches de combattant : noms listés par 'rulesets', chemins .toml, ou dossiers de fiches (de 2 à 40 "
        "combattants en tout).",
    "Simulate every matchup with this many fights instead of exact odds.":
        "Simuler chaque affrontement avec autant de combats, au lieu des probabilités exactes.",
    "Exact odds: most probability left unresolved in a matchup (default 1e-9).":
        "Probabilités exactes : probabilité laissée non résolue dans un affrontement, au plus (par défaut 1e-9).",
    "Worker processes (default: one per CPU).": "Processus de calcul (par défaut : un par processeur).",
    "With --exact or --odds: most probability left unresolved (default 1e-12).":
        "Avec --exact ou --odds : probabilité laissée non résolue, au plus (par défaut 1e-12).",
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
    "Roll dice for what a fight doesn't cover: each die in place, highest and lowest marked, total.":
        "Lancer des dés pour ce qu'un combat ne couvre pas : chaque dé à sa place, faces extrêmes marquées, total.",
    "Dice: 3d6, d% (d100), 4d6kh3 / 2d20kl1 (keep highest / lowest), 4d6dl1 (drop), 3d6! (exploding).":
        "Dés : 3d6, d% (d100), 4d6kh3 / 2d20kl1 (garder les plus hauts / bas), 4d6dl1 (écarter), "
        "3d6! (qui explosent).",
    "Modifiers: 4d6ro1 (reroll 1s once), 4d6rr<3 (reroll while below 3), 2d20mi10 / 1d20ma15 (min 10 / max 15).":
        "Modificateurs : 4d6ro1 (relancer les 1 une fois), 4d6rr<3 (relancer tant que sous 3), "
        "2d20mi10 / 1d20ma15 (au moins 10 / au plus 15).",
    "Successes: 6d10>=7 counts the dice showing 7 or more (also >, <=, <, =; no space before the sign).":
        "Succès : 6d10>=7 compte les dés qui montrent 7 ou plus (aussi >, <=, <, = ; pas d'espace avant le "
        "signe).",
    "Comparison: '1d20 + 5 >= 15' is 1 if true, else 0; with --odds, its probability.":
        "Comparaison : '1d20 + 5 >= 15' vaut 1 si elle est vraie, sinon 0 ; avec --odds, sa probabilité.",
    "Roll nothing: each expression's exact odds, P(= n) and P(≥ n), mean and sd.":
        "Ne rien lancer : les probabilités exactes de chaque expression, P(= n) et P(≥ n), moyenne et écart-type.",
    "Dice expressions, each maybe labelled: '1d20 + 5' 'damage: 2d6 + 3'.":
        "Expressions de dés, chacune avec une étiquette si on veut : '1d20 + 5' 'dégâts : 2d6 + 3'.",
    # schema
    "The schema printed is self-contained (what it uses of other files is copied in), so a plain validator needs nothing else.":
        "Le schéma affiché est autonome (ce qu'il emprunte à d'autres fichiers y est recopié) : un validateur "
        "ordinaire n'a besoin de rien d'autre.",
    "Print the JSON Schema of a JSON output or of an input file; without a name, list them.":
        "Afficher le schéma JSON d'une sortie JSON ou d'un fichier d'entrée ; sans nom, les lister.",
    "A schema's name (e.g. fight, round-event, fighter-d20); none: list them.":
        "Le nom d'un schéma (par exemple fight, round-event, fighter-d20) ; aucun : les lister.",
}

_EXAMPLES = (("Examples: ", "Exemples : "), ("Example: ", "Exemple : "))

SUBCOMMAND_METAVAR_FR = "COMMANDE [ARGUMENTS]..."
COMMANDS_PANEL_FR = "Commandes"
ARGUMENTS_FR: dict[str, str] = {
    "fighters": "combattants", "fighter": "combattant", "amount": "montant", "name": "nom",
    "files": "fichiers", "expressions": "expressions", "sheets": "fiches",
}
"""The arguments' names as the help shows them (the value still reaches the same parameter)."""


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


def translate(command: Any, subcommands: bool = True) -> None:
    """Put the French help on a Click command or group, its parameters and (``subcommands``) its subcommands.

    The root group builds its commands on demand and translates each as it is built
    (``subcommands=False`` here, so that translating the root builds none).
    """
    for attr in ("help", "short_help"):
        value = getattr(command, attr, None)
        if isinstance(value, str) and value:
            setattr(command, attr, describe(value))
    for param in getattr(command, "params", ()):
        value = getattr(param, "help", None)
        if isinstance(value, str) and value:
            param.help = HELP_FR.get(_key(value), value)
        name = ARGUMENTS_FR.get(getattr(param, "name", None) or "")
        if name is not None and getattr(param, "param_type_name", "") == "argument":
            param.metavar = name if param.nargs == 1 else f"{name}..."
    if getattr(command, "subcommand_metavar", None) == "COMMAND [ARGS]...":
        command.subcommand_metavar = SUBCOMMAND_METAVAR_FR
    if hasattr(command, "rich_help_panel") and not command.rich_help_panel:  # its group's Rich help
        command.rich_help_panel = COMMANDS_PANEL_FR
    if not subcommands:
        return
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
