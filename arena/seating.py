"""Who plays whom in the arena: a pure function of the idle bots (no Django, no database).

The idle bots are sorted by rating (the ordinal, mu - 3 sigma, in the arena's pool), each
key moved by a small random jitter so that neighbours swap places now and then and the same
bots do not always meet. Tables are then cut from that order, consecutive bots together,
choosing the cut (by dynamic programming over the order) that

1. seats as many bots as possible,
2. then makes the rating spreads of the tables (highest minus lowest ordinal) smallest,
3. then leaves out those that waited the least;

where a table of exactly the bots of their last arena game together -- a table that just
ended is idle again all at once -- is not allowed until one of them has waited
``wait_seconds``: meanwhile other games end and bring other bots to mix with.

The bots left out wait for others. Once one of them has waited ``wait_seconds``, those of
them that waited that long are seated anyway, consecutive in the order, house bots in the
seats left empty (:attr:`Plan.tables` holds those tables short of bots). Seats are shuffled
within each table.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

#: What leaving a bot out costs against the spreads of tables: more than any spread.
LEAVE_OUT = 1e6


@dataclass(frozen=True)
class Candidate:
    """An idle bot of the arena."""

    player_id: int
    ordinal: float
    idle_since: datetime
    #: The bots of its last arena game (player ids, sorted; empty before its first).
    last_table: tuple[int, ...] = ()


@dataclass(frozen=True)
class Plan:
    #: The tables to start, bots in seat order; one with fewer bots than seats gets house
    #: bots in the others.
    tables: list[list[Candidate]]


def waited(group: Sequence[Candidate], now: datetime) -> float:
    """Seconds the longest-waiting bot of ``group`` has waited."""
    return max((now - c.idle_since).total_seconds() for c in group)


def is_rematch(group: Sequence[Candidate]) -> bool:
    ids = tuple(sorted(c.player_id for c in group))
    return all(c.last_table == ids for c in group)


def plan(
    idle: Sequence[Candidate],
    *,
    size: int,
    now: datetime,
    wait_seconds: float,
    jitter: float,
    rng: random.Random,
) -> Plan:
    order = sorted(idle, key=lambda c: (c.ordinal + rng.uniform(-jitter, jitter), c.player_id))
    n = len(order)
    # best[i]: the least cost of the first i bots of the order; how[i]: the step that ends
    # there (1: bot i-1 left out, size: a table of bots i-size..i-1).
    best = [0.0] + [math.inf] * n
    how = [0] * (n + 1)
    for i in range(1, n + 1):
        bot = order[i - 1]
        patience = min(waited([bot], now), wait_seconds) / (wait_seconds or 1.0)
        best[i], how[i] = best[i - 1] + LEAVE_OUT + patience, 1
        if i >= size:
            group = order[i - size : i]
            if not is_rematch(group) or waited(group, now) >= wait_seconds:
                spread = group[-1].ordinal - group[0].ordinal
                cost = best[i - size] + abs(spread)
                if cost < best[i]:
                    best[i], how[i] = cost, size
    tables: list[list[Candidate]] = []
    left_out: list[Candidate] = []
    i = n
    while i > 0:
        if how[i] == size:
            tables.append(order[i - size : i])
        else:
            left_out.append(order[i - 1])
        i -= how[i]
    left_out.reverse()
    patient = [c for c in left_out if waited([c], now) >= wait_seconds]
    tables.extend(patient[k : k + size] for k in range(0, len(patient), size))
    for table in tables:
        rng.shuffle(table)
    return Plan(tables=tables)
