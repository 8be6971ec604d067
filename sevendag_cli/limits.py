"""The bounds on everything the tool reads: one place, stated in docs/failures.md.

A file beyond a bound is refused with one line naming it and the bound; nothing
read can make the tool hang, recurse without end or run out of memory.
"""

from __future__ import annotations

MAX_DATA_BYTES = 1 << 20
"""A ruleset or fighter sheet (TOML): at most 1 MiB."""

MAX_ENCOUNTER_BYTES = 64 << 20
"""An encounter file (JSON): at most 64 MiB (about 90,000 rounds of history)."""

MAX_DATA_DEPTH = 32
"""Nesting of a TOML document: the document is level 1, each table, array, inline
table or part of a dotted key one more (``[metals.iron]`` with ``label = {en = "iron"}``
is 4 levels deep)."""

MAX_ENCOUNTER_DEPTH = 64
"""Nesting of an encounter (JSON), which embeds the ruleset and sheets 3 levels down."""

MAX_ENCOUNTER_MEMORY = 640 << 20
"""The most memory an encounter file may take once read, estimated from what it holds before
it is parsed (its objects, lists, texts and numbers counted, each at what Python's objects
cost: :meth:`sevendag_cli.store.JsonShape.memory`): the largest encounter sevendag writes
(64 MiB of d20 rounds) is estimated at some 475 MiB (its objects take 175 MiB; ``status``
on it peaks at 290 MB)."""

ENCOUNTER_MEMORY_PER_BYTE = 16
"""The most memory an encounter file may take once read per byte of the file (plus 1 MiB),
estimated as above: the encounters sevendag writes are estimated at 6 to 8 bytes per byte,
11 to 13 when written without indentation; a file of ``{}`` at 32 (it took 33 times its size
before it was refused, 3 now: 20 MB of ``{}`` took 668 MB, now 61 MB)."""

INT_LIMIT = 2**63 - 1
"""The one bound on whole numbers: every integer read from a file lies in
``[-INT_LIMIT, INT_LIMIT]`` (a signed 64-bit integer, numpy's ``int64``, the seed
range).  Formula values and counts are held to the same bound."""

MAX_ROUND_CAP = 10_000
"""The longest fight: a ruleset's ``options.round_cap`` and ``fight --cap`` are at most this
many rounds (a 10,000-round ``fight --json`` is some 30 MB and 15 seconds; a fight that
cannot end at all is refused before it starts, see :mod:`sevendag_cli.rules.bounds`)."""

MAX_PLAYED_ROUNDS = 10_000
"""The simulators' safety limit: a ruleset with no round cap (d20's house default: every fight
ends, D-12) has ``fight`` and ``fight --runs`` play each fight to its end, but stop one still
going after this many rounds (a fight's output stays within :data:`MAX_ROUND_CAP`'s bound).
Such a fight is not a draw: it is reported (a note on stderr; ``unfinished`` in the JSON of
``--runs``; a ``fight-over`` event of reason ``safety-limit`` in a fight's), and exact odds
play it to the end."""

MAX_RUNS = 10_000_000
"""Most fights one ``fight --runs`` may simulate."""

MAX_PROBLEMS = 20
"""Problems listed per file (``rulesets validate``); the rest are counted ("and K more")."""

MAX_LISTED = 12
"""Names listed in one message ("use one of a, b, c…"); the rest are counted."""

MAX_WHAT_IFS = 64
"""``--set`` and ``--tactic`` options on one command line, together."""

MAX_WHAT_IF_TEXT = 1000
"""Characters of one ``--set``, ``--tactic`` or ``--vary`` text."""

MAX_SWEEP_POINTS = 200
"""Values one ``sweep --vary`` may take."""
MAX_GRID_POINTS = 400
"""Pairs of values one ``sweep`` with two ``--vary`` (a grid) may solve (20 × 20)."""
MAX_ROSTER = 40
"""Fighters in one ``matrix`` (40 fighters: 1,560 ordered matchups)."""

MAX_FOLDER_SHEETS = 1000
"""``.toml`` files looked at in one folder named to ``matrix``."""

MAX_CACHE_ENTRIES = 64
"""Entries kept in each folder of the solver cache (``<cache>/odds``, ``<cache>/game``): after a
write, the least recently used beyond it are removed (:mod:`sevendag_cli.solver_cache`)."""

MAX_CACHE_BYTES = 256 << 20
"""Bytes kept in each folder of the solver cache (256 MiB), likewise: the least recently used
entries are removed until the folder is within it (never the entry just written)."""

MIN_COLUMNS = 40
"""The narrowest display: a width (``COLUMNS``, or the terminal's) below it — zero and
negative ones included — is drawn at this many columns (:func:`sevendag_cli.output.display_columns`);
a ``COLUMNS`` that is not a number is ignored (the terminal's width, else 80)."""

MAX_COLUMNS = 1000
"""The widest display: a wider ``COLUMNS`` or terminal is drawn at this many columns."""

MAX_EXACT_VALUES = 200_000
"""Most values one exact distribution may hold: each part of a formula whose law is computed
exactly (``roll --odds``, the exact odds of a fight), estimated from the formula before any
work (``1000d100`` has 99,001 values; ``10d% * 10d%`` could have 982,081: refused)."""

MAX_EXACT_DIGITS = 10_000_000
"""Most decimal digits one exact distribution may hold: its values times the digits of its
weights (probabilities are exact: ``1000d6``'s are 5,001 whole numbers of up to 779 digits
over 6^1000, 3.9 million digits), estimated likewise; ``1000d10`` is 9 million, about a
second of CPU, and ``1000d20``, 24.7 million, is refused."""

MAX_EXACT_PAIRS = 1_000_000
"""Most pairs of values one operation on two exact distributions may combine one by one
(``*``, ``//``; ``100d20 * 100d20`` is 3.6 million: refused, ``3d6 * 1d20`` is 320), estimated
likewise.  Sums and differences of large laws are one multiplication, not pairs
(:mod:`sevendag_cli.sim.weights`)."""
