"""Simulation and exact solvers: many fights at once, no terminal or JSON code.

* :mod:`.runner` — ``simulate(ruleset, a, b, runs, seed)``: batches of fights, statistics.
* :mod:`.vector_d20` / :mod:`.vector_sevendag` — vectorised fights (numpy).
* :mod:`.exact_d20` / :mod:`.exact_sevendag` — exact win probabilities.
* :mod:`.stats` — Wilson intervals, histogram summaries.
"""
