"""Words the tool shows, in English and French.

``--lang fr|en``; by default from ``LC_ALL`` / ``LC_MESSAGES`` / ``LANG``
(``fr_FR.UTF-8`` → French), else English.  JSON keys never change.
Game terms (wound bands, metals, techniques) come from the ruleset files.
This table holds the words of the Rich display; errors, notes, prompts and
plain outputs are in :mod:`sevendag_cli.messages`, ``--help`` in
:mod:`sevendag_cli.help_fr`.
"""

from __future__ import annotations

import os
from functools import cache
from typing import TYPE_CHECKING

from sevendag_cli.text import visible

if TYPE_CHECKING:
    import string

LANGS = ("en", "fr")

MESSAGES: dict[str, dict[str, str]] = {
    "initiative": {"en": "Initiative", "fr": "Initiative"},
    "tie": {"en": "tie: both roll again", "fr": "égalité : on relance"},
    "leads": {"en": "{name} wins the initiative", "fr": "{name} remporte l'initiative"},
    "assaillant": {"en": "{name} is the assailant for the fight", "fr": "{name} est l'assaillant pour le combat"},
    "round": {"en": "Round {n}", "fr": "Round {n}"},
    "elapsed": {"en": "{s} s of game time ({per} s a round)", "fr": "{s} s de temps de jeu ({per} s par round)"},
    "attacks": {"en": "{a} attacks {d}", "fr": "{a} attaque {d}"},
    "attack": {"en": "attack", "fr": "attaque"},
    "defence": {"en": "defence", "fr": "défense"},
    "vs_ac": {"en": "against AC {ac}", "fr": "contre CA {ac}"},
    "hit": {"en": "hit", "fr": "touché"},
    "miss": {"en": "miss", "fr": "raté"},
    "natural_hit": {"en": "natural {n}: automatic hit", "fr": "{n} naturel : touche automatique"},
    "natural_miss": {"en": "natural {n}: automatic miss", "fr": "{n} naturel : échec automatique"},
    "critical_hit": {"en": "critical hit", "fr": "coup critique"},
    "save": {"en": "save", "fr": "sauvegarde"},
    "dd": {"en": "DD", "fr": "DD"},
    "dd_table": {"en": "DD {dd} (level table)", "fr": "DD {dd} (table de niveau)"},
    "dodged": {"en": "dodged entirely", "fr": "esquive totale"},
    "halved": {"en": "damage halved", "fr": "dégâts réduits de moitié"},
    "failed": {"en": "save failed", "fr": "sauvegarde ratée"},
    "natural_save": {"en": "natural {n}: dodged entirely", "fr": "{n} naturel : esquive totale"},
    "natural_save_fail": {"en": "natural {n}: save failed", "fr": "{n} naturel : sauvegarde ratée"},
    "damage": {"en": "damage", "fr": "dégâts"},
    "physical": {"en": "physical", "fr": "physiques"},
    "magic": {"en": "magic", "fr": "magiques"},
    "minimum": {"en": "minimum damage", "fr": "dégâts minimaux"},
    "hp": {"en": "HP", "fr": "PV"},
    "defeated": {"en": "{name} is defeated", "fr": "{name} est vaincu"},
    "winner": {"en": "{name} wins", "fr": "{name} l'emporte"},
    "draw": {"en": "draw: the round cap ({n}) was reached (change it with --cap or options.round_cap)",
             "fr": "match nul : plafond de {n} rounds atteint (à changer avec --cap ou options.round_cap)"},
    "fight_over": {"en": "The fight is over", "fr": "Le combat est terminé"},
    "summary": {"en": "Summary", "fr": "Bilan"},
    "safety_stop": {"en": "stopped, not over: the safety limit of {n:,} rounds was reached (no round cap in this ruleset, so no draw; --cap N or options.round_cap makes one)",
                    "fr": "arrêté, non terminé : la limite de sécurité de {n:,} rounds est atteinte (aucun plafond dans ces règles, donc pas de nul ; --cap N ou options.round_cap en fixe un)"},
    "rounds_played": {"en": "{n} round(s), {s} s of game time", "fr": "{n} round(s), {s} s de temps de jeu"},
    "rounds_only": {"en": "{n} round(s)", "fr": "{n} round(s)"},
    "seed": {"en": "seed {seed}", "fr": "graine {seed}"},
    "roll_label": {"en": "{label}: ", "fr": "{label} : "},
    "odds_exact": {"en": "exact odds", "fr": "probabilités exactes"},
    "odds_eq": {"en": "P(= n)", "fr": "P(= n)"},
    "odds_ge": {"en": "P(≥ n)", "fr": "P(≥ n)"},
    "odds_grouped": {"en": "values grouped by {width}: P(= n) is the chance of the whole range",
                     "fr": "valeurs groupées par {width} : P(= n) est la probabilité de toute la plage"},
    "odds_left_out": {"en": "{n} rare values at the ends ({p} together) not shown: --json has them all",
                      "fr": "{n} valeurs rares aux extrémités ({p} en tout) non affichées : --json les donne toutes"},
    "odds_mean_sd": {"en": "mean {mean}, sd {sd}", "fr": "moyenne {mean}, écart-type {sd}"},
    "colon": {"en": ": ", "fr": " : "},
    "saved": {"en": "encounter saved to {path}", "fr": "rencontre enregistrée dans {path}"},
    "no_attack": {"en": "{a} has no attack dice: no attack", "fr": "{a} n'a aucun dé d'attaque : pas d'attaque"},
    "foiled": {"en": "attack foiled", "fr": "attaque déjouée"},
    "wound": {"en": "{name} takes a {band}", "fr": "{name} subit une {band}"},
    "penalty": {"en": "penalty {p}", "fr": "malus {p}"},
    "out": {"en": "{name} is out of the fight", "fr": "{name} est hors de combat"},
    "critical_failure": {"en": "critical failure", "fr": "échec critique"},
    "failure": {"en": "lowest face: the attack fails", "fr": "score minimum : l'attaque échoue"},
    "devastating": {"en": "devastating critical hit", "fr": "coup critique dévastateur"},
    "critical_defence": {"en": "critical defence: initiative passes to {name}", "fr": "défense critique : l'initiative passe à {name}"},
    "critical_defence_kept": {"en": "critical defence: {name} keeps the initiative", "fr": "défense critique : {name} garde l'initiative"},
    "shield_foiled": {"en": "shield: highest face, the attack is foiled", "fr": "bouclier : score maximum, l'attaque est déjouée"},
    "drop_check": {"en": "drop check", "fr": "test de maîtrise"},
    "dropped": {"en": "{name} drops the {item}", "fr": "{name} lâche {item}"},
    "kept": {"en": "{name} keeps hold of the {item}", "fr": "{name} garde {item} en main"},
    "on_ground": {"en": "{item} on the ground", "fr": "{item} à terre"},
    "recovered": {"en": "{name} picks up the {item}", "fr": "{name} ramasse {item}"},
    "yields": {"en": "{name} yields: roles swap this round", "fr": "{name} cède l'initiative : les rôles s'inversent ce round"},
    "sheet_yield.always": {"en": "by its sheet, {name} always yields",
                           "fr": "selon sa fiche, {name} cède toujours l'initiative"},
    "sheet_yield.behind": {"en": "by its sheet, {name} yields when behind on wounds (penalty {p} against {q})",
                           "fr": "selon sa fiche, {name} cède l'initiative quand il est mené aux blessures (malus {p} contre {q})"},
    "sheet_tech.attacking": {"en": "by its sheet, {name} starts {technique} when it holds the initiative",
                             "fr": "selon sa fiche, {name} lance {technique} quand il a l'initiative"},
    "sheet_tech.defending": {"en": "by its sheet, {name} starts {technique} when the opponent holds the initiative",
                             "fr": "selon sa fiche, {name} lance {technique} quand l'adversaire a l'initiative"},
    "sheet_tech.always": {"en": "by its sheet, {name} starts {technique} whenever none is in effect",
                          "fr": "selon sa fiche, {name} lance {technique} dès qu'aucune n'est en cours"},
    "technique": {"en": "technique", "fr": "technique"},
    "commits": {"en": "{name} commits", "fr": "{name} engage"},
    "none": {"en": "none", "fr": "aucun"},
    "total": {"en": "total", "fr": "total"},
    "wounds": {"en": "wounds", "fr": "blessures"},
    "healthy": {"en": "unhurt", "fr": "indemne"},
    "state_after": {"en": "State", "fr": "État"},
    "fighter": {"en": "Fighter", "fr": "Combattant"},
    "granted_crit": {"en": "granted critical", "fr": "critique accordé"},
    "metal_effect": {"en": "{metal}: {text}", "fr": "{metal} : {text}"},
    "undone": {"en": "undone: {what}", "fr": "annulé : {what}"},
    "step_wound": {"en": "the wound given to {name}", "fr": "la blessure infligée à {name}"},
    "band_is": {"en": "{n} damage: {band}", "fr": "{n} dégâts : {band}"},
    "no_wound": {"en": "{n} damage: no wound", "fr": "{n} dégâts : aucune blessure"},
    # rich_sim.py
    "sim.fighter": {"en": "fighter", "fr": "combattant"},
    "sim.wins": {"en": "wins", "fr": "victoires"},
    "sim.p": {"en": "win %", "fr": "% victoire"},
    "sim.ci": {"en": "95% interval", "fr": "intervalle à 95 %"},
    "sim.draws": {"en": "draws (round cap {cap})", "fr": "nuls (plafond de {cap} rounds)"},
    "sim.unfinished": {"en": "unfinished (stopped at the safety limit of {n:,} rounds; no round cap)", "fr": "non terminés (arrêtés à la limite de sécurité de {n:,} rounds ; aucun plafond)"},
    "sim.rounds": {"en": "rounds: mean {mean:.2f}, sd {sd:.2f}, median {p50}, 90th pct {p90}, max {max}", "fr": "rounds : moyenne {mean:.2f}, écart-type {sd:.2f}, médiane {p50}, 90e centile {p90}, max {max}"},
    "sim.hist": {"en": "Rounds to the end", "fr": "Rounds jusqu'à la fin"},
    "sim.runs": {"en": "{runs} simulated fights · seed {seed}", "fr": "{runs} combats simulés · graine {seed}"},
    "sim.hp": {"en": "HP left when winning", "fr": "PV restants du vainqueur"},
    "sim.mean_sd": {"en": "{mean:.1f}, sd {sd:.1f}", "fr": "{mean:.1f}, écart-type {sd:.1f}"},
    "sim.hist_trimmed": {"en": "the rarest rounds, too rare to show, are left out: --json has every round", "fr": "les rounds les plus rares, trop rares pour s'afficher, sont omis : --json les donne tous"},
    "sim.dealt": {"en": "damage dealt / fight", "fr": "dégâts infligés / combat"},
    "sim.wounds": {"en": "wounds per fight", "fr": "blessures par combat"},
    "sim.firstwon": {"en": "the winner of the first initiative won {p:.1%} of decided fights", "fr": "le vainqueur de la première initiative a gagné {p:.1%} des combats décidés"},
    "sim.p_exact": {"en": "certified", "fr": "certifié"},
    "sim.exact_title": {"en": "Exact odds · round cap {cap} · tolerance {tol:g}", "fr": "Probabilités exactes · plafond de {cap} rounds · tolérance {tol:g}"},
    "sim.exact_title_end": {"en": "Exact odds · the fight played to the end · tolerance {tol:g}", "fr": "Probabilités exactes · le combat mené à son terme · tolérance {tol:g}"},
    "sim.rounds_exact": {"en": "rounds: mean {mean:.2f}, sd {sd:.2f}, median {p50}, 90th pct {p90}", "fr": "rounds : moyenne {mean:.2f}, écart-type {sd:.2f}, médiane {p50}, 90e centile {p90}"},
    "sim.firstwon_exact": {"en": "the winner of the first initiative wins {p:.1%} of decided fights", "fr": "le vainqueur de la première initiative gagne {p:.1%} des combats décidés"},
    "sim.policies": {"en": "play: {who}", "fr": "jeu : {who}"},
    "sim.policy.sheet": {"en": "{name} on its sheet", "fr": "{name} selon sa fiche"},
    "sim.policy.sheets": {"en": "both on their sheets", "fr": "les deux selon leur fiche"},
    "sim.policy.optimal": {"en": "{name} optimal", "fr": "{name} au mieux"},
    "sim.near_cap": {"en": "fights ending from round {start} to the round cap ({cap}), draws included: {p:.1%}",
                     "fr": "combats finis entre le round {start} et le plafond ({cap}), nuls compris : {p:.1%}"},
    "sim.holding_out": {"en": "why so late: optimal play values a win whenever it comes, and a draw at the cap half; while many rounds remain a side may hold out on defence in safety, waiting for a better moment, and must strike as the cap nears (a side that is losing may hold out for the draw)",
                        "fr": "pourquoi si tard : le jeu optimal compte une victoire quel que soit son moment, et un nul au plafond pour moitié ; tant qu'il reste beaucoup de rounds, un camp peut tenir en défense sans risque, attendre un meilleur moment, et doit frapper à l'approche du plafond (un camp qui perd peut tenir pour le nul)"},
    "sim.exploit_title": {"en": "what each sheet gives away against optimal play (the opponent's best answer):", "fr": "ce que chaque fiche concède face au jeu optimal (la meilleure réponse de l'adversaire) :"},
    "sim.exploit_line": {"en": "  {name}: {pts:.1f} points · {other} wins {br:.1%} instead of {sv:.1%}", "fr": "  {name} : {pts:.1f} points · {other} gagne {br:.1%} au lieu de {sv:.1%}"},
    "sim.exploit_value": {"en": "  (a win counting 1, a draw ½; within {tol:g})", "fr": "  (une victoire comptant 1, un nul ½ ; à {tol:g} près)"},
    "sim.after": {"en": "after round {n}: {p:.1e}", "fr": "après le round {n} : {p:.1e}"},
    "sim.tail": {"en": "fights still going after round {n} (unresolved): {p:.1e}", "fr": "combats encore en cours après le round {n} (non résolus) : {p:.1e}"},
    "sim.tail_rounds": {"en": "fights still going after round {n}, where the rounds distribution stops (the odds above include how they end): {p:.1e}", "fr": "combats encore en cours après le round {n}, où la loi des rounds s'arrête (les probabilités ci-dessus comptent leur issue) : {p:.1e}"},
    "sim.fraction_line": {"en": "{name}, fight played to the end (no round cap): {p}", "fr": "{name}, combat mené à son terme (sans plafond) : {p}"},
    "sim.fraction": {"en": "a fraction with a {n}-digit denominator (see --json)", "fr": "une fraction au dénominateur de {n} chiffres (voir --json)"},
    # rich_matrix.py
    "matrix.title": {"en": "Round-robin · {n} fighters, {pairs} matchups · {ruleset}", "fr": "Tournoi · {n} combattants, {pairs} affrontements · {ruleset}"},
    "matrix.exact": {"en": "Certified odds · round cap {cap} · tolerance {tol}", "fr": "Probabilités certifiées · plafond de {cap} rounds · tolérance {tol}"},
    "matrix.exact_end": {"en": "Certified odds · the fight played to the end · tolerance {tol}", "fr": "Probabilités certifiées · le combat mené à son terme · tolérance {tol}"},
    "matrix.runs_end": {"en": "{runs} simulated fights per matchup · the fight played to the end · seed {seed}", "fr": "{runs} combats simulés par affrontement · le combat mené à son terme · graine {seed}"},
    "matrix.runs": {"en": "{runs} simulated fights per matchup · round cap {cap} · seed {seed}", "fr": "{runs} combats simulés par affrontement · plafond de {cap} rounds · graine {seed}"},
    "matrix.caption": {"en": "% chance that the row's fighter (named first) beats the column's; rows ranked by their mean over their opponents", "fr": "% de chances que le combattant de la ligne (nommé en premier) batte celui de la colonne ; lignes classées par leur moyenne sur leurs adversaires"},
    "matrix.mean": {"en": "mean", "fr": "moyenne"},
    "matrix.legend": {"en": "{rank}: {name}", "fr": "{rank} : {name}"},
    "matrix.exact_width": {"en": "certified: every cell within {w:.1e} (the intervals are in --json)", "fr": "certifié : chaque case à {w:.1e} près (les intervalles sont dans --json)"},
    "matrix.ci": {"en": "simulated: 95% intervals at most ±{w:.1%} (they are in --json)", "fr": "simulé : intervalles à 95 % d'au plus ±{w:.1%} (ils sont dans --json)"},
    "matrix.simulated": {"en": "~ {n} matchup(s) simulated ({runs} fights each, seed {seed}; 95% intervals at most ±{w:.1%}): {why}", "fr": "~ {n} affrontement(s) simulé(s) ({runs} combats chacun, graine {seed} ; intervalles à 95 % d'au plus ±{w:.1%}) : {why}"},
    "matrix.sheets_all": {"en": "every fighter plays its sheet", "fr": "chaque combattant suit sa fiche"},
    "matrix.optimal_all": {"en": "every fighter plays optimally: its best declaration each round, not its sheet's", "fr": "chaque combattant joue au mieux : sa meilleure déclaration à chaque round"},
    "matrix.optimal_some": {"en": "playing optimally (the best declaration each round): {who}; the others play their sheets", "fr": "jouent au mieux (la meilleure déclaration à chaque round) : {who} ; les autres suivent leur fiche"},
    "matrix.exploit_title": {"en": "What each sheet gives away against optimal play", "fr": "Ce que chaque fiche concède face au jeu optimal"},
    "matrix.exploit_caption": {"en": "points of % the row's sheet gives away when the column answers it optimally (a win 1, a draw ½); mean over the opponents", "fr": "points de % que la fiche de la ligne concède quand la colonne lui répond au mieux (une victoire 1, un nul ½) ; moyenne sur les adversaires"},
    "matrix.exploit_tolerance": {"en": "from the exact game, within {tol} (the bounds are in --json)", "fr": "tiré du jeu exact, à {tol} près (les bornes sont dans --json)"},
    "matrix.not_computed": {"en": "n/a", "fr": "n.c."},
    "matrix.holes": {"en": "{mark}: not computed, too large even to simulate ({n:plural|pair|pairs}; which and why: on stderr); {star}: a mean over the matchups computed only", "fr": "{mark} : non calculé, trop grand même pour être simulé ({n:plural|paire|paires} ; lesquelles et pourquoi : sur stderr) ; {star} : une moyenne sur les seuls affrontements calculés"},
    "matrix.exploit_holes": {"en": "{mark}: not computed, the game too large ({n:plural|pair|pairs}; which and why: on stderr)", "fr": "{mark} : non calculé, le jeu trop grand ({n:plural|paire|paires} ; lesquelles et pourquoi : sur stderr)"},
    "matrix.draws": {"en": "draws at the round cap ({cap}): at most {p:.2%} in one matchup", "fr": "matchs nuls au plafond de rounds ({cap}) : au plus {p:.2%} dans un affrontement"},
    # rich_info.py
    "info.rulesets": {"en": "Rulesets", "fr": "Règles"},
    "info.fighters": {"en": "Fighters", "fr": "Combattants"},
    "info.name": {"en": "name", "fr": "nom"},
    "info.engine": {"en": "engine", "fr": "moteur"},
    "info.origin": {"en": "from", "fr": "origine"},
    "info.path": {"en": "file", "fr": "fichier"},
    "info.ruleset": {"en": "ruleset", "fr": "règles"},
    "info.rules": {"en": "Rules", "fr": "Règles"},
    "info.formulas": {"en": "Formulas", "fr": "Formules"},
    "info.options": {"en": "Options", "fr": "Options"},
    "info.house": {"en": "House defaults (ours, not the source's)", "fr": "Choix maison (les nôtres, pas ceux de la source)"},
    "info.wounds": {"en": "Wound bands", "fr": "Blessures"},
    "info.metals": {"en": "Metals", "fr": "Métaux"},
    "info.techniques": {"en": "Techniques", "fr": "Techniques"},
    "info.dd_table": {"en": "DD level table", "fr": "Table de DD par niveau"},
    "info.search": {"en": "Search path", "fr": "Chemin de recherche"},
    "info.invalid": {"en": "invalid", "fr": "invalide"},
    "info.origin.bundled": {"en": "bundled", "fr": "fourni"},
    "info.origin.user": {"en": "user", "fr": "utilisateur"},
    "info.search_line": {"en": "Search path: {dirs}", "fr": "Chemin de recherche : {dirs}"},
    "info.penalty": {"en": "penalty {p}", "fr": "malus {p}"},
    "info.out_after": {"en": "out after {n}", "fr": "hors de combat après {n}"},
    "info.metal": {"en": "+{dmg} damage, band +{shift}", "fr": "+{dmg} dégâts, blessure +{shift}"},
    "info.technique": {"en": "attack {a:+d}, defence {d:+d}, {n} round(s)",
                       "fr": "attaque {a:+d}, défense {d:+d}, {n} round(s)"},
    # rich_sevendag.py
    "sev.attack": {"en": "attack", "fr": "attaque"},
    "sev.defence": {"en": "defence", "fr": "défense"},
    "sev.none": {"en": "—", "fr": "—"},
    "sev.recovering": {"en": "recovering", "fr": "ramasse son arme"},
    "sev.empty": {"en": "empty hand", "fr": "main nue"},
    "sev.assaillant": {"en": "assailant", "fr": "assaillant"},
    "sev.défenseur": {"en": "defender", "fr": "défenseur"},
    "sev.constant": {"en": "constant", "fr": "constante"},
    "sev.wounds": {"en": "wounds", "fr": "blessures"},
    "sev.exchange": {"en": "exchange", "fr": "échange"},
    "sev.margin": {"en": "margin", "fr": "écart"},
    "sev.metal": {"en": "metal", "fr": "métal"},
    "sev.skill": {"en": "skill", "fr": "maîtrise"},
    "band_shift": {"en": "+{n} bands", "fr": "+{n} crans"},
    "band_shift_one": {"en": "+1 band", "fr": "+1 cran"},
    "sev.granted": {"en": "granted critical (fumble)", "fr": "critique accordé (échec adverse)"},
    "sev.shield": {"en": "shield", "fr": "bouclier"},
    # prompts.py
    "prompt.yield": {"en": "{name} is the assailant: yield this round (the opponent acts first)? [y/N] ", "fr": "{name} est l'assaillant : céder l'initiative ce round ? [o/N] "},
    "prompt.yield_yes": {"en": "{name} is the assailant: yield this round (the opponent acts first)? [Y/n] ", "fr": "{name} est l'assaillant : céder l'initiative ce round ? [O/n] "},
    "prompt.tech_sheet": {"en": "{name}: technique ({choices}, none) [{default}] ", "fr": "{name} : technique ({choices}, aucune) [{default}] "},
    "prompt.hands": {"en": "{name} — hands: {hands}", "fr": "{name} — mains : {hands}"},
    "prompt.alloc": {"en": "{name}: each hand in order, a = attack, d = defence, n = none [{default}] ",
                     "fr": "{name} : chaque main dans l'ordre, a = attaque, d = défense, n = aucun [{default}] "},
    "prompt.per_hand": {"en": "{name} has {n} hands and {given} answer(s) were given: answer once per hand, in order, separated by commas (e.g. {example})",
                        "fr": "{name} a {n} mains et {given} réponse(s) ont été données : répondre une fois par main, dans l'ordre, séparées par des virgules (par exemple {example})"},
    "prompt.yes_no": {"en": "{value!r} is neither yes nor no: answer y or n (Enter: no)",
                      "fr": "{value!r} n'est ni oui ni non : répondre o ou n (Entrée : non)"},
    "prompt.yes_no_yes": {"en": "{value!r} is neither yes nor no: answer y or n (Enter: yes)",
                          "fr": "{value!r} n'est ni oui ni non : répondre o ou n (Entrée : oui)"},
    "prompt.tech": {"en": "{name}: technique ({choices}) [none] ", "fr": "{name} : technique ({choices}) [aucune] "},
    "prompt.unknown": {"en": "unknown technique {value!r}: choose one of {choices}", "fr": "technique inconnue {value!r} : choisir parmi {choices}"},
    # field labels in checks (rich_base.check_text): how a game master reads a formula's parts
    "field.bba": {"en": "BBA", "fr": "BBA"},
    "field.str": {"en": "STR", "fr": "FOR"},
    "field.dex": {"en": "DEX", "fr": "DEX"},
    "field.con": {"en": "CON", "fr": "CON"},
    "field.wis": {"en": "WIS", "fr": "SAG"},
    "field.level": {"en": "level", "fr": "niveau"},
    "field.armour": {"en": "armour", "fr": "armure"},
    "field.size": {"en": "size", "fr": "taille"},
    "field.dodge": {"en": "dodge", "fr": "esquive"},
    "field.hp": {"en": "HP", "fr": "PV"},
    "field.weapon_type": {"en": "type", "fr": "type"},
    "field.crit_range": {"en": "crit range", "fr": "zone de critique"},
    "field.crit_factor": {"en": "crit factor", "fr": "multiplicateur de critique"},
    "field.speed": {"en": "speed", "fr": "vitesse"},
    "field.attack": {"en": "attack", "fr": "attaque"},
    "field.defence": {"en": "defence", "fr": "défense"},
    # healing by hand, status, log
    "healed": {"en": "{name} → healed: ", "fr": "{name} → soin : "},
    "back_in": {"en": "{name} is back in the fight: the fight goes on", "fr": "{name} revient au combat : le combat reprend"},
    "step_heal": {"en": "the heal given to {name}", "fr": "les soins apportés à {name}"},
    "info.broken": {"en": "Unreadable files (neither a ruleset nor a sheet can be told)",
                    "fr": "Fichiers illisibles (ni règles ni fiche reconnaissables)"},
    "info.problem": {"en": "problem", "fr": "problème"},
    "status.title": {"en": "Encounter {path} · {ruleset}", "fr": "Rencontre {path} · {ruleset}"},
    "status.no_round": {"en": "no round played yet", "fr": "aucun round joué"},
    "status.rounds": {"en": "{n} round(s) played", "fr": "{n} round(s) joué(s)"},
    "status.assaillant": {"en": "{name} is the assailant, {other} the defender",
                          "fr": "{name} est l'assaillant, {other} le défenseur"},
    "status.next": {"en": "{name} attacks in the next round (initiative rolled by init)",
                    "fr": "{name} attaque au prochain round (initiative jetée par init)"},
    "status.initiative_each": {"en": "initiative is rolled at the start of each round",
                               "fr": "l'initiative se jette au début de chaque round"},
    "status.hp": {"en": "{hp}/{max} HP", "fr": "{hp}/{max} PV"},
    "status.technique": {"en": "{technique}: {n} more round(s)", "fr": "{technique} : encore {n} round(s)"},
    "status.dropped": {"en": "{item} on the ground: {n} round(s) to pick it up",
                       "fr": "{item} à terre : {n} round(s) pour le ramasser"},
    "status.granted": {"en": "holds a granted critical (the next attack that lands)",
                       "fr": "détient un critique accordé (la prochaine attaque qui porte)"},
    "status.over": {"en": "The fight is over: {who}", "fr": "Le combat est terminé : {who}"},
    "status.in_progress": {"en": "In progress: round {n} is next", "fr": "En cours : le round {n} est le prochain"},
    "log.wound": {"en": "Wound by hand: {name}", "fr": "Blessure infligée par le MJ : {name}"},
    "log.heal": {"en": "Heal by hand: {name}", "fr": "Soins apportés par le MJ : {name}"},
    # what-ifs and sweeps (render/whatif.py, render/rich_sweep.py)
    "whatif.line": {"en": "What-if: {changes}", "fr": "Hypothèse : {changes}"},
    "whatif.changed": {"en": "{field} {value} (was {previous})", "fr": "{field} {value} (au lieu de {previous})"},
    "whatif.new": {"en": "{field} {value} (not in the sheet)", "fr": "{field} {value} (absent de la fiche)"},
    "whatif.removed": {"en": "{field} removed (was {previous}): the default applies", "fr": "{field} retiré (au lieu de {previous}) : la valeur par défaut s'applique"},
    "sweep.title_exact": {"en": "Sweep of {field} · certified odds · round cap {cap} · tolerance {tol:g}", "fr": "Balayage de {field} · probabilités certifiées · plafond de {cap} rounds · tolérance {tol:g}"},
    "sweep.title_exact_end": {"en": "Sweep of {field} · certified odds · the fight played to the end · tolerance {tol:g}", "fr": "Balayage de {field} · probabilités certifiées · le combat mené à son terme · tolérance {tol:g}"},
    "new.sev.technique": {"en": "Optional (S-05): start a technique ({techniques}) when none is in effect; when: attacking | defending | always", "fr": "Facultatif (S-05) : lancer une technique ({techniques}) quand aucune n'est en cours ; when : attacking | defending | always"},
    "new.sev.yield": {"en": "Optional (S-03): with the initiative, yield the first attack: never (the default) | always | behind (more wounded)", "fr": "Facultatif (S-03) : avec l'initiative, céder la première attaque : never (par défaut) | always | behind (plus blessé)"},
    "sweep.title_runs_end": {"en": "Sweep of {field} · {runs} simulated fights per value · seed {seed} · the fight played to the end", "fr": "Balayage de {field} · {runs} combats simulés par valeur · graine {seed} · le combat mené à son terme"},
    "sweep.title_runs": {"en": "Sweep of {field} · {runs} simulated fights per value · seed {seed} · round cap {cap}", "fr": "Balayage de {field} · {runs} combats simulés par valeur · graine {seed} · plafond de {cap} rounds"},
    "sweep.win": {"en": "{name} win %", "fr": "% victoire {name}"},
    "sweep.win_ci": {"en": "{name} win % ± 95% CI", "fr": "% victoire {name} ± IC à 95\u00a0%"},
    "sweep.ci": {"en": "{name} 95% interval", "fr": "intervalle à 95 % {name}"},
    "sweep.draw": {"en": "draw %", "fr": "% nul"},
    "sweep.rounds": {"en": "mean rounds", "fr": "rounds en moyenne"},
    "sweep.bars": {"en": "{a} (█) against {b} (░): who wins, per value; │ marks 50%", "fr": "{a} (█) contre {b} (░) : qui l'emporte, par valeur ; │ marque 50 %"},
    "sweep.fair": {"en": "Fairest: {field} = {value}: {a} {pa:.2%}, {b} {pb:.2%} ({gap:.2f} points apart)", "fr": "Le plus équilibré : {field} = {value} : {a} {pa:.2%}, {b} {pb:.2%} ({gap:.2f} points d'écart)"},
    "sweep.fair_between": {"en": "50/50 lies between {field} = {lo} and {hi}", "fr": "le 50/50 se trouve entre {field} = {lo} et {hi}"},
    "sweep.fair_mark": {"en": "◀ fairest", "fr": "◀ le plus équilibré"},
    "sweep.fair_above": {"en": "No 50/50 in the range: the fair value lies above {field} = {value} ({a} {pa:.2%}, {b} {pb:.2%} there): extend the range", "fr": "Pas de 50/50 dans la plage : la valeur équilibrée est au-dessus de {field} = {value} ({a} {pa:.2%}, {b} {pb:.2%} là) : étendre la plage"},
    "sweep.fair_below": {"en": "No 50/50 in the range: the fair value lies below {field} = {value} ({a} {pa:.2%}, {b} {pb:.2%} there): extend the range", "fr": "Pas de 50/50 dans la plage : la valeur équilibrée est en dessous de {field} = {value} ({a} {pa:.2%}, {b} {pb:.2%} là) : étendre la plage"},
    "sweep.fair_plot": {"en": "fairest: {value}", "fr": "le plus équilibré : {value}"},
    "sweep.grid_value": {"en": "P({name} wins)", "fr": "P({name} l'emporte)"},
    "sweep.grid_heading": {"en": "{name} win %: {rows} down, {columns} across", "fr": "% victoire {name} : {rows} en lignes, {columns} en colonnes"},
    "sweep.grid_fair_heading": {"en": "Where 50/50 lies ({columns} for each {rows}; * the fairest cell):", "fr": "Où se trouve le 50/50 ({columns} pour chaque {rows} ; * la case la plus équilibrée) :"},
    "sweep.grid_fair_between": {"en": "between {lo} and {hi}", "fr": "entre {lo} et {hi}"},
    "sweep.grid_fair_at": {"en": "fairest at {value} ({gap:.2f} points apart)", "fr": "le plus équilibré à {value} ({gap:.2f} points d'écart)"},
    "sweep.grid_fair_above": {"en": "above {value}: extend the range", "fr": "au-dessus de {value} : étendre la plage"},
    "sweep.grid_fair_below": {"en": "below {value}: extend the range", "fr": "en dessous de {value} : étendre la plage"},
    "plot.p_win": {"en": "P(win)", "fr": "P(victoire)"},
    "plot.p_rounds": {"en": "probability", "fr": "probabilité"},
    "plot.rounds": {"en": "rounds", "fr": "rounds"},
    "plot.exploit_points": {"en": "points the row's sheet gives away", "fr": "points que la fiche de la ligne concède"},
    "plot.p_row": {"en": "P(row beats column)", "fr": "P(la ligne bat la colonne)"},
    "plot.matrix_holes": {"en": "hatched: not computed, too large even to simulate ({n:plural|pair|pairs})", "fr": "hachuré : non calculé, trop grand même pour être simulé ({n:plural|paire|paires})"},
    "plot.matrix_simulated": {"en": "~ {n} matchup(s) simulated ({runs} fights each)", "fr": "~ {n} affrontement(s) simulé(s) ({runs} combats chacun)"},
    "plot.moment": {"en": "round (start: before the initiative; init: after it)", "fr": "round (début : avant l'initiative ; init : après)"},
    "sweep.flat": {"en": "No value changes the odds: {field} plays no part in this fight as set.", "fr": "Aucune valeur ne change les probabilités : {field} ne joue aucun rôle dans ce combat tel quel."},
    "log.not_replayed": {"en": "(an older sevendag kept no dice for it: the states after it)",
                         "fr": "(une version antérieure n'en a pas gardé les dés : l'état qui a suivi)"},
    # odds from any moment (render/rich_odds.py)
    "advise.title": {"en": "Advice · {path} · round {n}", "fr": "Conseil · {path} · round {n}"},
    "advise.declares": {"en": "{name} ({role}) declares now. chance: {name}'s chance to win with that declaration, both playing optimally after (a draw counts half); answer: {other}'s best answer to it.",
                        "fr": "{name} ({role}) déclare maintenant. chance : sa chance de gagner avec cette déclaration, jeu optimal ensuite (un nul compte pour moitié) ; réponse : la meilleure réponse de {other}."},
    "advise.declares_answer": {"en": "{name} ({role}) answers now. chance: {name}'s chance to win with that answer, both playing optimally after (a draw counts half).",
                               "fr": "{name} ({role}) répond maintenant. chance : sa chance de gagner avec cette réponse, jeu optimal ensuite (un nul compte pour moitié)."},
    "advise.after": {"en": "the assailant declared: {option}", "fr": "l'assaillant a déclaré : {option}"},
    "advise.role.assaillant": {"en": "assailant", "fr": "assaillant"},
    "advise.role.defenseur": {"en": "defender", "fr": "défenseur"},
    "advise.yield": {"en": "yield", "fr": "cède"},
    "advise.no_technique": {"en": "—", "fr": "—"},
    "advise.yes": {"en": "yes", "fr": "oui"},
    "advise.no": {"en": "no", "fr": "non"},
    "advise.yield_either": {"en": "either", "fr": "égal"},
    "advise.col.chance": {"en": "  chance", "fr": "  chance"},
    "advise.col.yield": {"en": "yield", "fr": "cède"},
    "advise.col.allocation": {"en": "allocation", "fr": "répartition"},
    "advise.col.technique": {"en": "technique", "fr": "technique"},
    "advise.col.answer": {"en": "answer", "fr": "réponse"},
    "advise.folded_yield": {"en": "either: yielding or not gives the same chance and the same answer",
                            "fr": "égal : céder ou non donne la même chance et la même réponse"},
    "advise.folded_other": {"en": "a / b: either gives the same chance and the same answer",
                            "fr": "a / b : l'un ou l'autre donne la même chance et la même réponse"},
    "advise.tie": {"en": "{mark} {n} lines the odds cannot tell apart: all within {interval}",
                   "fr": "{mark} {n} lignes indiscernables : toutes dans {interval}"},
    "advise.more": {"en": "… and {n} more, down to {low:.1%} (without --top: every line)",
                    "fr": "… et {n} de plus, jusqu'à {low:.1%} (sans --top : toutes les lignes)"},
    "advise.open": {"en": "(certified within {tol:g}; {n:plural|round|rounds} to the cap)",
                    "fr": "(certifié à {tol:g} près ; {n:plural|round|rounds} jusqu'au plafond)"},
    "odds.title": {"en": "Odds from here · {path} · {ruleset}", "fr": "Chances à partir d'ici · {path} · {ruleset}"},
    "odds.draw": {"en": "draw", "fr": "nul"},
    "odds.exact": {"en": "certified {interval}", "fr": "certifié {interval}"},
    "odds.cap": {"en": "round cap {cap}: {left} round(s) to go", "fr": "plafond de {cap} rounds : encore {left} round(s)"},
    "odds.line": {"en": "odds: {odds}", "fr": "chances : {odds}"},
    "odds.line_play": {"en": "odds ({who}): {odds}", "fr": "chances ({who}) : {odds}"},
    "odds.swing_title_end": {"en": "Odds round by round · the fight played to the end · tolerance {tol:g}",
                             "fr": "Chances round par round · le combat mené à son terme · tolérance {tol:g}"},
    "odds.swing_title": {"en": "Odds round by round · round cap {cap} · tolerance {tol:g}",
                         "fr": "Chances round par round · plafond de {cap} rounds · tolérance {tol:g}"},
    "odds.legend": {"en": "{a} █ on the left, {b} ░ on the right, a draw · between",
                    "fr": "{a} █ à gauche, {b} ░ à droite, nul · entre les deux"},
    "odds.start": {"en": "start", "fr": "début"},
    "odds.init": {"en": "init", "fr": "init"},
    "odds.swing": {"en": "biggest swing, {at}: {a} {a0} → {a1}, {b} {b0} → {b1}",
                   "fr": "plus grand basculement, {at} : {a} {a0} → {a1}, {b} {b0} → {b1}"},
    "odds.at_round": {"en": "round {n}", "fr": "round {n}"},
    "odds.at_init": {"en": "the initiative", "fr": "l'initiative"},
}


_FIELD_LABELS: dict[str, dict[str, str]] = {}


def field_labels(lang: str) -> dict[str, str]:
    """A fighter's fields as a game master reads them in a check (``bba`` → ``BBA``, ``str`` → ``STR``)."""
    found = _FIELD_LABELS.get(lang)
    if found is None:
        found = _FIELD_LABELS[lang] = {key[6:]: entry.get(lang) or entry["en"]
                                       for key, entry in MESSAGES.items() if key.startswith("field.")}
    return found


NBSP = "\u00a0"


def french_digits(text: str) -> str:
    """``1,234.5`` → ``1 234,5``, ``52.1%`` → ``52,1 %``: a number written in English, written
    the French way (no-break spaces: the number never splits from its ``%``)."""
    return text.replace(",", NBSP).replace(".", ",").replace("%", NBSP + "%")


def number(value: float, spec: str, lang: str) -> str:
    """A number for the display, in the language: ``format(value, spec)`` in English
    (``52.1%``), the French way in French (``52,1 %``).  Every number the display formats
    goes through here (the templates of :func:`t` and of the message catalogue too); CSV
    and JSON never do (dot decimals, machine-readable)."""
    text = format(value, spec)
    return french_digits(text) if lang == "fr" else text


def plural(n: float, spec: str, lang: str) -> str:
    """A count and its noun from ``plural|ONE|MANY`` (``{n:plural|entry|entries}`` in a
    template): ``1 entry``, ``3 entries``; in French 0 and 1 take the singular (``0 entrée``,
    ``1 entrée``, ``2 entrées``)."""
    _, one, many = spec.split("|", 2)
    singular = abs(n) < 2 if lang == "fr" else n == 1
    return f"{number(n, 'g', lang)} {one if singular else many}"


def percent_sign(lang: str) -> str:
    """``%`` after a number written by hand (``12.50–13.10%``): `` %`` in French."""
    return NBSP + "%" if lang == "fr" else "%"


def count(n: int, lang: str) -> str:
    """A whole number with thousands separated: ``2,000`` in English, ``2 000`` in French."""
    return number(n, ",", lang)


@cache
def formatter(lang: str) -> string.Formatter:
    """``str.format`` with each formatted number written the ``lang`` way (:func:`number`), made
    when a display word is first filled (:mod:`string` is not imported before)."""
    import string

    class Numbers(string.Formatter):
        def format_field(self, value: object, format_spec: str) -> str:
            if format_spec and isinstance(value, int | float) and not isinstance(value, bool):
                if format_spec.startswith("plural|"):  # ``{n:plural|round|rounds}``
                    return plural(value, format_spec, lang)
                return number(value, format_spec, lang)
            return str(super().format_field(value, format_spec))

    return Numbers()


_chosen: list[str | None] = [None]  # the root's --lang (``sevendag --lang fr fight``)


def choose_lang(lang: str | None) -> None:
    """The language asked before the command name, for every command that names none."""
    _chosen[0] = lang


def detect_lang(explicit: str | None = None) -> str:
    """The command's ``--lang``, else the root's, else ``LC_ALL`` / ``LC_MESSAGES`` / ``LANG``."""
    if explicit:
        return explicit
    if _chosen[0]:
        return _chosen[0]
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "fr" if value.lower().startswith("fr") else "en"
    return "en"


def t(key: str, lang: str = "en", **kw: object) -> str:
    """A display word in ``lang``, filled with ``kw``; names in it have their control characters visible."""
    entry = MESSAGES[key]
    text = entry.get(lang) or entry["en"]
    return visible(formatter(lang if lang in LANGS else "en").vformat(text, (), kw)) if kw else text


def label(labels: dict[str, str], lang: str) -> str:
    return labels.get(lang) or labels.get("en") or next(iter(labels.values()), "")
