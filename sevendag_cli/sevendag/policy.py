"""Fights under fixed policies: each fighter plays its sheet or optimally.

A *policy* is ``sheet`` (the sheet's tactic, and whatever yield and technique rules the sheet
states) or ``optimal`` (the best declaration at every state, solved by
:mod:`sevendag_cli.sevendag.game`: minimax in the declaration order, a draw counting half).

**Declarations depend on the rounds left.**  With the round cap a draw, a fighter ahead may
lose nothing by waiting while many rounds remain, and must act as the cap nears; one
declaration per state whatever the round can fall well short of the game's value (2.7
points for the house pair).  So the declarations played are those of the solved game with
``t`` rounds to go (:meth:`~sevendag_cli.sevendag.game.Solution.decisions`), and the fight
they play is pushed round by round through the game's own rows (:func:`policy_push`), each
round the rows declared for its rounds to go.  Those rows are the step engine's
``play_round`` with the declarations, over every face (the game's exhaustive test), so the
odds are certified as ``fight --exact``'s are, to the command's tolerance; their value
(P(a wins) + ½ P(draw)) is the solved game's.

The same declarations drive the step engine (:meth:`PolicyChain.choices`): ``fight --seed``
plays them die by die, ``fight --runs`` plays them fight after fight.  A state outside the
fight's solve (odds asked from an encounter's state) is solved from there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from sevendag_cli.errors import Msg
from sevendag_cli.policies import OPTIMAL, PLAIN, SHEET, Policies
from sevendag_cli.sevendag.chain import StateKey
from sevendag_cli.sevendag.engine import Choices, SevendagState
from sevendag_cli.sevendag.game import TIE, Option, SevendagGame, Solution, game_for, merge
from sevendag_cli.sevendag.rules import SevendagFighter, SevendagRuleset, needs_game
from sevendag_cli.sim.odds import DEFAULT_TOLERANCE

if TYPE_CHECKING:
    import numpy as np

    from sevendag_cli.dice import DiceSource
    from sevendag_cli.engine.common import FightPlay
    from sevendag_cli.sevendag.vector import SevendagBatch
    from sevendag_cli.sim.exact_records import ExactFight, Exploitability
    from sevendag_cli.sim.odds import Odds
    from sevendag_cli.sim.push import Push


GAME_TOLERANCE = 1e-6
"""Width of the game's certified interval (its value, and the exploitability figures); the
odds of the fight the declarations play are certified to the command's own tolerance."""


class PolicyChain:
    """One pair's fight with each fighter's declarations fixed by its policy (see the module).

    ``cap``: the fight's round cap (the rounds to go are counted to it).
    """

    def __init__(self, ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
                 policies: Sequence[str], *, cap: int | None = None,
                 tolerance: float = GAME_TOLERANCE) -> None:
        self.game: SevendagGame = game_for(ruleset, a, b)
        self.ruleset = ruleset
        self.fighters = (a, b)
        self.policies: Policies = (policies[0], policies[1])
        self.cap = ruleset.round_cap if cap is None else cap
        self.tolerance = max(tolerance, GAME_TOLERANCE)
        self.names = self.game.names
        self.band_names = self.game.chain.band_names
        self._solutions: list[Solution] = []

    def solution(self, key: StateKey, togo: int, also: Sequence[StateKey] = ()) -> Solution:
        """A solved game holding ``key`` with at least ``togo`` rounds to go (``also``: more
        states to solve it from, as both initiatives of a fight's start)."""
        for sol in self._solutions:
            if key in sol.index and sol.rounds >= togo:
                return sol
        sol = self.game.solve(key, max(1, togo), self.policies, self.tolerance, also)
        self._solutions.append(sol)
        return sol

    def declarations(self, key: StateKey, togo: int) -> tuple[Option, Option]:
        """a's and b's declarations in ``key`` with ``togo`` rounds to go (this one included)."""
        sol = self.solution(key, togo)
        return sol.row_options(int(sol.rows_for(togo)[sol.index[key]]))

    def choices(self, state: SevendagState) -> Choices | None:
        """The step engine's choices for the round to play from ``state`` (None: it is over)."""
        key = self.game.key_of(state)
        if isinstance(key, int):
            return None
        oa, ob = self.declarations(key, max(1, self.cap - state.round))
        return merge(self.names[0], oa, self.names[1], ob, state.assaillant)

    def push(self, starts: Sequence[tuple[StateKey, float]], togo: int,
             tolerance: float) -> tuple[Push, np.ndarray]:
        """The fight from the weighted ``starts`` with ``togo`` rounds to go (:func:`policy_push`)."""
        return policy_push(self, starts, togo, tolerance)


def policy_push(chain: PolicyChain, starts: Sequence[tuple[StateKey, float]], togo: int,
                tolerance: float) -> tuple[Push, np.ndarray]:
    """Each start (its own column) pushed round by round for ``togo`` rounds, each round
    through the rows declared for its rounds to go; the mass still in play after the last
    round is a draw.  As :func:`sevendag_cli.sevendag.push.chain_push`: the ends of each round
    summed in extended precision, the rounding bounded and counted, stopped once what is
    still in play is within the tolerance; with the wounds taken, (2, bands, columns)."""
    import numpy as np

    from sevendag_cli.sim.odds import gamma
    from sevendag_cli.sim.push import Push, end_push, in_play, ld_gamma, push_round

    sols = [chain.solution(key, togo, [k for k, _ in starts]) for key, _ in starts]
    if any(s is not sols[0] for s in sols):  # starts not in one solve: one push each, merged
        parts = [policy_push(chain, [start], togo, tolerance) for start in starts]
        return _merged([p for p, _ in parts], togo), np.concatenate([w for _, w in parts], axis=2)
    sol = sols[0]
    n = len(sol.states)
    nb = len(chain.band_names)
    columns = len(starts)
    push = Push(columns)
    push.draw_round = togo
    m = np.zeros((n, columns))
    for c, (key, w) in enumerate(starts):
        m[sol.index[key], c] = w
    wounds = np.zeros((2 * nb, columns))
    final = ld_gamma(n + 2) + gamma(8)
    work = 0
    t = 0
    # the rounds of the declarations played last, and of those before (the declarations may
    # alternate from one round to the next: see Solution.decisions)
    last: _Played | None = None
    before: _Played | None = None
    while t < togo:
        playing = in_play(push, m, tolerance, work, final)
        if playing is None:
            break
        alive_cols, alive = playing
        rows = sol.rows_for(togo - t)
        if last is None or not np.array_equal(rows, last.rows):  # declarations changed
            if before is not None and np.array_equal(rows, before.rows):
                last, before = before, last
            else:
                last, before = _Played(sol, rows), last
        t += 1
        wounds += last.wounds.T @ m
        m = push_round(push, m, alive_cols, last.pa, last.pb, last.moves,
                       gamma(last.moves.indegree + 2) * alive)
        work += last.moves.size * columns
    end_push(push, m, t == togo, final)
    push.error += tie_allowance(chain.policies, push)
    return push, wounds.reshape(2, nb, columns)


class _Played:
    """What a push reads of the declarations ``rows`` (one a state): each state's wounds,
    its chances to win now (in extended precision) and where its mass goes."""

    def __init__(self, sol: Solution, rows: np.ndarray) -> None:
        import numpy as np

        from sevendag_cli.sim.push import Moves

        self.rows = rows
        self.wounds = sol.row_wounds(rows)
        self.moves = Moves(*_moves(sol, rows), len(sol.states))
        self.pa = sol.wins_now[0][rows].astype(np.longdouble)
        self.pb = sol.wins_now[1][rows].astype(np.longdouble)


def tie_allowance(policies: Policies, push: Push) -> float:
    """How far the value of the fight the declarations play may lie from the game's own:
    among declarations within :data:`~sevendag_cli.sevendag.game.TIE` of the best the
    quicker win is played, so an optimal fighter may give up ``TIE`` a round — ``TIE`` times
    the rounds the fight is expected to last (the mass in play, summed over the rounds).
    Added to the push's error bound, the certified intervals hold the game's value too."""
    if OPTIMAL not in policies:
        return 0.0
    rounds = math.fsum(float(x.sum()) for x in push.alive) + push.rounds_extra + push.tail
    return TIE * rounds


def _moves(sol: Solution, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where the mass of each state goes when it plays ``rows`` (one a state): the source
    state, the target state and the probability of each entry of those rows."""
    ent, src = sol.entries_of(rows)
    import numpy as np

    return src, sol.targets[ent].astype(np.intp), sol.probs[ent]  # bincount takes intp


class TogoOdds:
    """Each state's odds with ``t`` rounds to go, for every ``t`` up to the solve's rounds, the
    declarations played (one backward pass: ``A_t = pa + P A_{t-1}``, likewise for b and for
    the mass still in play, the draw at the cap): ``fight --odds`` and ``odds`` look up a
    state instead of pushing from it.

    Rounding: a round's sum (at most the row's entries and one more term, each at most 1)
    adds at most ``γ = γ(longest + 4)``, and an earlier round's error is carried on with the
    probability that the fight goes on, so after ``t`` rounds from state ``s`` the error is
    at most ``γ · E[min(T, t)]``: γ times the rounds the fight is expected to last within
    ``t`` — the sum of the mass still in play, which the table holds (counted twice, for the
    rounding of that sum itself)."""

    def __init__(self, sol: Solution) -> None:
        import numpy as np

        from sevendag_cli.sim.odds import gamma

        n, rounds = len(sol.states), sol.rounds
        self.a = np.zeros((rounds + 1, n))
        self.b = np.zeros((rounds + 1, n))
        self.going = np.ones((rounds + 1, n))
        longest = 1
        for t in range(1, rounds + 1):
            rows = sol.rows_for(t)
            src, tgt, prob = _moves(sol, rows)
            longest = max(longest, int(np.bincount(src, minlength=n).max()) if src.size else 0)
            for have, start in ((self.a, sol.wins_now[0][rows]), (self.b, sol.wins_now[1][rows])):
                have[t] = start + np.bincount(src, weights=prob * have[t - 1][tgt], minlength=n)
            self.going[t] = np.bincount(src, weights=prob * self.going[t - 1][tgt], minlength=n)
        self.sol = sol
        self.step = gamma(longest + 4)
        self.played = np.cumsum(np.vstack([np.zeros(n), self.going[:-1]]), axis=0)

    def odds(self, names: tuple[str, str], key: StateKey, togo: int) -> Odds:
        from sevendag_cli.sim.odds import COMPLETE, certified

        s = self.sol.index[key]
        # rounding, and the ties (see tie_allowance)
        tie = TIE if OPTIMAL in self.sol.policies else 0.0
        error = (2 * self.step + tie) * float(self.played[togo, s])
        return certified(names, float(self.a[togo, s]), float(self.b[togo, s]),
                         float(self.going[togo, s]), error, togo, COMPLETE)

    def floor(self, key: StateKey, togo: int) -> float:
        """The part of :meth:`odds`' unresolved mass no further work removes: the ties'."""
        tie = TIE if OPTIMAL in self.sol.policies else 0.0
        return 3 * tie * float(self.played[togo, self.sol.index[key]])


MAX_TABLE = 8_000_000
"""Most (state, rounds to go) odds a :class:`TogoOdds` holds (three arrays of doubles,
200 MB); beyond, each state is pushed on its own."""


def _merged(pushes: list[Push], togo: int) -> Push:
    """Pushes of one column each as one push of as many columns (shorter ones padded)."""
    import numpy as np

    from sevendag_cli.sim.odds import COMPLETE
    from sevendag_cli.sim.push import Push

    out = Push(len(pushes))
    out.draw_round = togo
    rounds = max(len(p.alive) for p in pushes)
    for t in range(rounds):
        out.alive.append(np.array([float(p.alive[t][0]) if t < len(p.alive) else 0.0
                                   for p in pushes]))
        for who in (0, 1):
            out.won[who].append(np.array([float(p.won[who][t][0]) if t < len(p.won[who]) else 0.0
                                          for p in pushes]))
    out.draw = np.array([float(p.draw[0]) for p in pushes])
    out.error = math.fsum(p.error for p in pushes)
    out.tail = math.fsum(p.tail for p in pushes)
    out.rounds_extra = math.fsum(p.rounds_extra for p in pushes)
    stops = [p.stop for p in pushes if p.stop != COMPLETE]
    out.stop = stops[0] if stops else COMPLETE
    return out


def _starts(chain: PolicyChain) -> list[tuple[StateKey, float]]:
    from sevendag_cli.sevendag.exact import initiative_probability

    p_a = float(initiative_probability(chain.ruleset, *chain.fighters))
    return [(chain.game.start_key(0), p_a), (chain.game.start_key(1), 1.0 - p_a)]


def policy_exact(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
                 policies: Sequence[str], *, cap: int | None = None,
                 tolerance: float = DEFAULT_TOLERANCE) -> ExactFight:
    """``fight --exact`` under the policies: the fight their declarations play, pushed round
    by round (certified to ``tolerance``); no fractions."""
    from sevendag_cli.sevendag.exact_fight import exact_wounds
    from sevendag_cli.sim.exact_fight import check_resolved, exact_result
    from sevendag_cli.sim.odds import check_cap, check_tolerance

    tolerance = check_tolerance(tolerance)
    cap = ruleset.round_cap if cap is None else check_cap(cap)
    chain = PolicyChain(ruleset, a, b, policies, cap=cap)
    push, wounds = chain.push(_starts(chain), cap, tolerance)
    check_resolved(push, chain.names, tolerance)
    return exact_result(ruleset.name, "sevendag", chain.names, cap, tolerance, push, None,
                        Msg("exact.note.policies"), Msg("exact.note.sevendag", cap=cap),
                        exact_wounds(chain.names, chain.band_names, wounds))


def policy_odds(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
                policies: Sequence[str], cap: int, tolerance: float) -> Odds:
    """The odds of :func:`policy_exact` alone (a roster's cell)."""
    from sevendag_cli.errors import UsageError
    from sevendag_cli.sim.odds import WORK

    chain = PolicyChain(ruleset, a, b, policies, cap=cap)
    push, _ = chain.push(_starts(chain), cap, tolerance)
    odds = push.odds(chain.names, cap, len(push.alive))
    if odds.stop == WORK and odds.unresolved > tolerance:
        raise UsageError(Msg("exact.unresolved", unresolved=odds.unresolved, tolerance=tolerance))
    return odds


class KeptHeader(msgspec.Struct, array_like=True, frozen=True):
    """What a kept odds table of a fight under policies is for, and its shape."""

    fingerprint: str  # the pair's (:attr:`SevendagChain.fingerprint`), the policies, the cap
    names: tuple[str, str]
    rounds: int  # rows: 0 .. rounds rounds to go
    step: float  # the rounding allowance per round of the fight's expected length
    tie: float  # the ties' allowance per round (optimal play)
    states: list[StateKey]


class KeptOdds:
    """A :class:`TogoOdds` read back from the user's cache: each state's odds with ``t``
    rounds to go, looked up without numpy (the raw doubles of the three tables)."""

    def __init__(self, header: KeptHeader, values: Sequence[float]) -> None:
        self.header = header
        self.values = values  # P(a wins), then P(b wins), then P(still going): (rounds + 1) x n
        self.index = {k: i for i, k in enumerate(header.states)}
        self.floor = 0.0  # the last odds' unresolved mass that is the ties' allowance

    @staticmethod
    def fingerprint(chain: PolicyChain, cap: int) -> str:
        return f"{chain.game.chain.fingerprint}:{chain.policies[0]}:{chain.policies[1]}:{cap}"

    def odds(self, key: StateKey, togo: int) -> Odds | None:
        """The certified odds of ``key`` with ``togo`` rounds to go, or None: not kept."""
        from sevendag_cli.sim.odds import COMPLETE, certified

        h = self.header
        s = self.index.get(key)
        if s is None or not 1 <= togo <= h.rounds:
            return None
        n, v = len(h.states), self.values
        block = (h.rounds + 1) * n
        going = [v[2 * block + t * n + s] for t in range(togo + 1)]
        a, b = v[togo * n + s], v[block + togo * n + s]
        # what the kept bytes say is checked where it is used: probabilities (NaN fails), the
        # three outcomes summing to one
        if not (all(0.0 <= x <= 1.0 for x in (a, b, *going))
                and abs(a + b + going[-1] - 1.0) <= 1e-9):
            return None
        played = math.fsum(going[:togo])
        odds = certified(h.names, a, b, going[-1], (2 * h.step + h.tie) * played, togo, COMPLETE)
        self.floor = 3 * h.tie * played  # what no further work removes: the ties'
        return odds

    @classmethod
    def of(cls, table: TogoOdds, chain: PolicyChain, cap: int) -> bytes:
        """A table's bytes to keep (:func:`~sevendag_cli.sealed.sealed`): the header,
        the doubles."""
        import numpy as np

        from sevendag_cli.sealed import sealed

        sol = table.sol
        header = KeptHeader(cls.fingerprint(chain, cap), chain.names, sol.rounds, table.step,
                            TIE if OPTIMAL in sol.policies else 0.0, list(sol.states))
        blob = np.concatenate([table.a.ravel(), table.b.ravel(), table.going.ravel()]).astype(
            "<f8").tobytes()
        return sealed(header, blob)

    @classmethod
    def read(cls, raw: bytes | None, chain: PolicyChain, cap: int) -> KeptOdds | None:
        """The table kept in ``raw`` for exactly this pair, policies and cap; None otherwise
        (another pair's, damaged, or values no solver writes: the work is done again)."""
        from sevendag_cli.sealed import unsealed

        got = unsealed(raw, KeptHeader)
        if got is None:
            return None
        h, blob = got
        if h.fingerprint != cls.fingerprint(chain, cap) or tuple(h.names) != chain.names \
                or h.rounds != cap or len(blob) != 24 * (h.rounds + 1) * len(h.states) \
                or not (0.0 <= h.step < 1e-9 and 0.0 <= h.tie <= TIE):
            return None
        return cls(h, memoryview(blob).cast("d"))


class PolicyMomentOdds:
    """The odds from any state of one pair's fight under the policies (``odds``,
    ``round --odds``, ``fight --odds``): looked up in the table of the whole fight (built
    once, kept in the user's cache, :meth:`keep`), else pushed from that state."""

    def __init__(self, ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
                 policies: Sequence[str], kept: bytes | None = None,
                 cap: int | None = None) -> None:
        self.chain = PolicyChain(ruleset, a, b, policies)
        self._tables: dict[int, TogoOdds] = {}
        self.cap = ruleset.round_cap if cap is None else cap
        self.kept = KeptOdds.read(kept, self.chain, self.cap) if kept is not None else None
        self.used_kept = self.kept is not None

    def odds(self, state: SevendagState, cap: int | None, tolerance: float) -> Odds:
        from sevendag_cli.sim.odds import COMPLETE, certified

        cap = self.cap if cap is None else cap  # None: the ruleset's (S-19: always one)
        chain = self.chain
        chain.cap = cap
        key = chain.game.key_of(state)
        if isinstance(key, int):
            won = (1.0 if key == 0 else 0.0, 1.0 if key == 1 else 0.0)
            return certified(chain.names, won[0], won[1], 1.0 if key == -1 else 0.0, 0.0, 0,
                             COMPLETE)
        togo = max(1, cap - state.round)
        if self.kept is not None and cap == self.cap:
            got = self.kept.odds(key, togo)
            if got is not None and got.unresolved <= tolerance + self.kept.floor:
                return got
        sol = chain.solution(key, togo)
        if len(sol.states) * (sol.rounds + 1) <= MAX_TABLE:
            table = self._tables.get(id(sol))
            if table is None:
                table = self._tables[id(sol)] = TogoOdds(sol)
            odds = table.odds(chain.names, key, togo)
            if odds.unresolved <= tolerance + table.floor(key, togo):
                return odds
        push, _ = chain.push([(key, 1.0)], togo, tolerance)
        return push.odds(chain.names, togo, len(push.alive))

    def keep(self, tolerance: float) -> bytes:
        """The odds of every state of the whole fight (both initiatives' closure, every round
        to go up to the cap), to keep: b"" when the table is too large to keep."""
        chain = self.chain
        chain.cap = self.cap
        starts = _starts(chain)
        sol = chain.solution(starts[0][0], self.cap, [k for k, _ in starts])
        if len(sol.states) * (sol.rounds + 1) > MAX_KEPT_TABLE:
            return b""
        table = self._tables.get(id(sol))
        if table is None:
            table = self._tables[id(sol)] = TogoOdds(sol)
        return KeptOdds.of(table, chain, self.cap)


MAX_KEPT_TABLE = 2_000_000
"""Most (state, rounds to go) odds a kept table holds (48 MB in the cache: the house pair's
3,200 states and 200 rounds are 640,000)."""


class PolicyBatch:
    """``fight --runs`` under the policies: fights sampled round by round from the game's own
    rows, each round the rows declared for its rounds to go — the same tables
    :func:`policy_push` pushes, so the simulation and the exact odds are one fight.  Each
    round of each fight draws one uniform number: the outcome (a wins, b wins, or the next
    state with the wounds each fighter took) is where it falls in the row's cumulative
    weights; the initiative (S-02) is drawn from its exact probability.  The batch's arrays
    are the vectorised simulator's."""

    def __init__(self, ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
                 policies: Sequence[str]) -> None:
        self.ruleset, self.a, self.b = ruleset, a, b
        self.policies = policies
        self._tables: dict[int, _Tables] = {}

    def __call__(self, rs: object, fa: object, fb: object, n: int, rng: np.random.Generator,
                 cap: int) -> SevendagBatch:
        import numpy as np

        from sevendag_cli.sevendag.vector import SevendagBatch

        tables = self._tables.get(cap)
        if tables is None:
            tables = self._tables[cap] = _Tables(
                PolicyChain(self.ruleset, self.a, self.b, self.policies, cap=cap), cap)
        nb = len(self.ruleset.wounds)
        first = (rng.random(n) >= tables.p_a).astype(np.int8)  # 0: a won the initiative
        state = np.where(first == 0, tables.start[0], tables.start[1]).astype(np.int64)
        winner = np.full(n, -1, dtype=np.int8)
        rounds = np.full(n, cap, dtype=np.int64)
        wounds = np.zeros((n, 2, nb), dtype=np.int64)
        alive = np.arange(n)
        for t in range(cap):
            if alive.size == 0:
                break
            rows = tables.sol.rows_for(cap - t)[state[alive]]
            e = np.searchsorted(tables.cum, tables.pos[rows] + rng.random(alive.size),
                                side="right")
            ha, hb = tables.ha[e], tables.hb[e]
            hit_a, hit_b = ha >= 0, hb >= 0
            np.add.at(wounds, (alive[hit_a], 0, ha[hit_a]), 1)
            np.add.at(wounds, (alive[hit_b], 1, hb[hit_b]), 1)
            target = tables.target[e]
            over = target < 0
            done = alive[over]
            winner[done] = np.where(target[over] == -1, 0, 1)
            rounds[done] = t + 1
            state[alive[~over]] = target[~over]
            alive = alive[~over]
        return SevendagBatch(winner, rounds, first, wounds)


class _Tables:
    """The rows a fight may play (every row declared for some rounds to go), flattened for
    sampling: per outcome its cumulative weight (offset by its row's position, so one sorted
    array serves every row), where it leads (-1: a wins, -2: b wins) and the bands taken."""

    def __init__(self, chain: PolicyChain, cap: int) -> None:
        import numpy as np

        starts = _starts(chain)
        sol = chain.solution(starts[0][0], cap, [k for k, _ in starts])
        self.p_a = starts[0][1]
        self.start = (sol.index[starts[0][0]], sol.index[starts[1][0]])
        self.sol = sol
        used = np.unique(sol.decisions())
        self.pos = np.full(sol.n_rows, -1, dtype=np.int64)
        self.pos[used] = np.arange(used.size)
        cum: list[float] = []
        target: list[int] = []
        ha: list[int] = []
        hb: list[int] = []
        for p, row in enumerate(used.tolist()):
            oa, ob = sol.row_options(row)
            key = sol.states[int(sol.row_states[row])]
            den, out, outcomes = chain.game.round_targets(key, oa, ob)
            acc = 0
            for (to, w), oc in zip(out, outcomes, strict=True):
                acc += w
                cum.append(p + acc / den)
                target.append(-1 - to if isinstance(to, int) else sol.index[to])
                ha.append(oc[1])
                hb.append(oc[2])
            cum[-1] = p + 1.0  # the row's weights sum to its denominator: no gap at the end
        self.cum = np.array(cum)
        self.target = np.array(target, dtype=np.int64)
        self.ha = np.array(ha, dtype=np.int64)
        self.hb = np.array(hb, dtype=np.int64)


def _value(game: SevendagGame, starts: list[tuple[StateKey, float]], rounds: int,
           policies: Policies, tolerance: float) -> tuple[float, float, float]:
    """a's value (P(a wins) + ½ P(draw)) from the weighted starts, and its bounds."""
    keys = [k for k, _ in starts]
    solution = game.solve(keys[0], rounds, policies, tolerance, keys[1:])
    value = low = high = 0.0
    for key, w in starts:
        v, lo, hi = solution.value_at(key)
        value += w * v
        low += w * lo
        high += w * hi
    return value, max(0.0, low), min(1.0, high)


UNASKED_ROWS = 150_000
"""Most declared rounds (the three games together, estimated before any is built) for what
each sheet gives away when it was not asked for (plain ``fight --exact``: a few seconds);
beyond, it is skipped with a note saying how to ask for it."""


def exploitability(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter, *,
                   cap: int | None = None, tolerance: float = DEFAULT_TOLERANCE,
                   asked: bool = True) -> Exploitability | Msg:
    """What each sheet gives away against optimal play (see
    :class:`~sevendag_cli.policies.Exploitability`): the game solved three times from the
    fight's start (S-02: both initiatives, weighted) — sheet against sheet, and each
    fighter's best response to the other's sheet — each within ``max(tolerance, 1e-6)``.

    Not ``asked`` (plain ``fight --exact``): computed only when the three games are small
    (:data:`UNASKED_ROWS`), else the note saying why it was skipped.  Asked: the game's own
    bounds refuse it in one line."""
    from sevendag_cli.sevendag.exact import initiative_probability
    from sevendag_cli.sim.exact_records import Exploitability

    game = game_for(ruleset, a, b)
    starts0 = [game.start_key(0), game.start_key(1)]
    asks = (PLAIN, (OPTIMAL, SHEET), (SHEET, OPTIMAL))
    if not asked:
        rows = sum(game.size(pols, starts0).rows for pols in asks)
        if rows > UNASKED_ROWS:
            return Msg("exact.exploit_skipped", rows=rows, max=UNASKED_ROWS)
    rounds = ruleset.round_cap if cap is None else cap
    tol = max(tolerance, GAME_TOLERANCE)
    p_a = float(initiative_probability(ruleset, a, b))
    starts = [(starts0[0], p_a), (starts0[1], 1.0 - p_a)]
    sheet, a_best, b_best = (_value(game, starts, rounds, pols, tol) for pols in asks)
    # b's sheet gives away what a gains by answering it; a's, what b gains (b's side: 1 - a's)
    away_b = (a_best[0] - sheet[0], (a_best[1] - sheet[2], a_best[2] - sheet[1]))
    away_a = (sheet[0] - b_best[0], (sheet[1] - b_best[2], sheet[2] - b_best[1]))
    return Exploitability(
        (a.name, b.name), (away_a[0], away_b[0]), (away_a[1], away_b[1]),
        (1.0 - b_best[0], a_best[0]), (sheet[0], 1.0 - sheet[0]), tol)


def fight_play(ruleset: SevendagRuleset, a: SevendagFighter, b: SevendagFighter,
               dice: DiceSource, cap: int | None, policies: Sequence[str],
               tolerance: float = DEFAULT_TOLERANCE) -> FightPlay:
    """One fight, step by step, each round declared by the policies (``fight --seed``)."""
    from sevendag_cli.sevendag.resolution import fight_play as play

    chain = PolicyChain(ruleset, a, b, policies, cap=cap, tolerance=tolerance)
    return play(ruleset, a, b, dice, cap, choose=chain.choices)


__all__ = [
    "GAME_TOLERANCE",
    "OPTIMAL",
    "PLAIN",
    "SHEET",
    "Policies",
    "PolicyBatch",
    "PolicyChain",
    "PolicyMomentOdds",
    "exploitability",
    "fight_play",
    "needs_game",
    "policy_exact",
    "policy_odds",
    "policy_push",
]
