"""What both rulesets' odds share: no terminal or JSON code, and no ruleset's rules.

Each ruleset's own round forms, simulator, chain, pushes and exact solver live in its
package (``sevendag_cli.d20``, ``sevendag_cli.sevendag``: ``rounds``, ``vector``,
``sampled``, ``chain``, ``push``, ``exact``, ``exact_fight``...), reached through its backend
(:mod:`sevendag_cli.backend`).  Here:

* :mod:`.runner` — ``simulate(ruleset, a, b, runs, seed)``: batches of fights, statistics.
* :mod:`.moment` — the odds from any moment (``odds_at``, ``OddsSolver``).
* :mod:`.push` / :mod:`.exact_fight` / :mod:`.exact_records` — ``fight --exact``: the
  machinery of a round-by-round push that both rulesets' pushes share (numpy), the rounds
  distribution and the records; :mod:`.odds` — the certified records.
* :mod:`.sample` — whole fights drawn from a chain's per-state tables (``--runs``).
* :mod:`.formula_dice` — formulas as exact laws (integer weights), for both solvers and ``roll --odds``;
  :mod:`.weights` — distributions as integer weights.
* :mod:`.stats` — Wilson intervals, histogram summaries.
* :mod:`.sweep` — one field's values; :mod:`.swing` — a fight's odds moment by moment.
* :mod:`.roster` — ``matrix``: a roster's round-robin over worker processes (exact cells
  from the solvers, or simulated), ranked.
"""
