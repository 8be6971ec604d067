"""Simulation and exact solvers: many fights at once, no terminal or JSON code.

* :mod:`.runner` — ``simulate(ruleset, a, b, runs, seed)``: batches of fights, statistics.
* :mod:`.vector_d20` / :mod:`.vector_sevendag` — vectorised fights (numpy);
  :mod:`.sevendag_model` — the Sevendag fighter model they share with the exact solvers.
* :mod:`.chain_sevendag` / :mod:`.chain_d20` — the fight as a chain of rounds, odds from
  any moment (pure Python); :mod:`.moment` — their entry point (``odds_at``, ``OddsSolver``).
* :mod:`.push` / :mod:`.exact_fight` — ``fight --exact``: the round-by-round push (numpy)
  and its distributions; :mod:`.odds` — the certified records.
* :mod:`.exact_d20` / :mod:`.exact_sevendag` — exact fractions of the fight played to the end.
* :mod:`.stats` — Wilson intervals, histogram summaries.
* :mod:`.roster` — ``matrix``: a roster's round-robin over worker processes (exact cells
  from the solvers above, or simulated), ranked.
"""
