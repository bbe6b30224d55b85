"""Writes: rate a finished game (live), and rebuild a pool's ratings from the stored games.

Both go through :func:`ratings.skill.rate_game`, so a rebuild ends with the numbers the live
updates produced (given the games were rated live in completion order).

Locking (PostgreSQL; on SQLite every write transaction already runs alone):

* a live update takes the pool's row ``FOR SHARE``, then inserts the game's
  :class:`RatedGame` (its unique game makes a second delivery a no-op), then locks the
  players' :class:`Rating` rows ``FOR UPDATE`` in ascending player id, so two games sharing a
  player run one after the other and lose no update, and never deadlock;
* a rebuild takes the pool's row ``FOR UPDATE``: it waits for the live updates under way, and
  the ones that come meanwhile wait for it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from time import perf_counter

from django.db import IntegrityError, connection, transaction
from django.db.models import Model
from django.utils import timezone
from psycopg.postgres import types as postgres_types

from games.models import Game, GamePlayer
from ratings import skill
from ratings.models import RatedGame, Rating, RatingChange, RatingPool
from ratings.pools import pool_of
from ratings.replay import Replay, seat_outcomes, stored_games

log = logging.getLogger(__name__)

WRITE_BATCH = 5_000


def _pool_row(pool: str) -> None:
    RatingPool.objects.get_or_create(name=pool)


def _share_pool(pool: str) -> None:
    """Hold the pool's row in share mode until commit (a rebuild takes it exclusively)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT id FROM {RatingPool._meta.db_table} WHERE name = %s FOR SHARE", [pool]
            )


def _state(row: Rating) -> skill.PlayerState | None:
    if row.games == 0:
        return None
    return skill.PlayerState(skill.Skill(row.mu, row.sigma), row.last_played_at, row.games)


def rate_game(game_id: int) -> bool:
    """Rate a finished rated game once. False (and nothing changes) if it is not one, or if
    it was rated already."""
    game = Game.objects.filter(pk=game_id).only("status", "rated", "rules", "finished_at").first()
    if game is None or game.status != Game.Status.FINISHED or not game.rated:
        return False
    if GamePlayer.objects.filter(game_id=game_id, player__is_guest=True).exists():
        return False  # a guest's game is never rated
    if RatedGame.objects.filter(game_id=game_id).exists():
        return False
    assert game.finished_at is not None
    pool = pool_of(game.rules)
    seats = seat_outcomes(game_id)
    player_ids = sorted({s.player_id for s in seats})
    _pool_row(pool)
    with transaction.atomic():
        _share_pool(pool)
        try:
            with transaction.atomic():
                RatedGame.objects.create(game_id=game_id, pool=pool)
        except IntegrityError:
            return False  # rated meanwhile by another delivery of the same notification
        Rating.objects.bulk_create(
            [Rating(player_id=p, pool=pool, mu=skill.MU, sigma=skill.SIGMA) for p in player_ids],
            ignore_conflicts=True,
        )
        rows = {
            row.player_id: row
            for row in Rating.objects.select_for_update()
            .filter(pool=pool, player_id__in=player_ids)
            .order_by("player_id")
        }
        changes = skill.rate_game(
            seats, {p: _state(row) for p, row in rows.items()}, game.finished_at
        )
        for change in changes:
            row = rows[change.player_id]
            state = skill.next_state(_state(row), change, game.finished_at)
            row.mu, row.sigma = state.skill.mu, state.skill.sigma
            row.games, row.last_played_at = state.games, state.last_played_at
        Rating.objects.bulk_update(list(rows.values()), ["mu", "sigma", "games", "last_played_at"])
        _bulk_insert(
            RatingChange,
            CHANGE_FIELDS,
            [_change_values(game_id, pool, game.finished_at, c) for c in changes],
        )
    return True


@dataclass(frozen=True)
class RebuildReport:
    pool: str
    games: int
    players: int
    seconds: float


CHANGE_FIELDS = [
    "game_id",
    "player_id",
    "pool",
    "at",
    "seat",
    "rank",
    "mu_before",
    "sigma_before",
    "ordinal_before",
    "mu_after",
    "sigma_after",
    "ordinal_after",
]


def _change_values(
    game_id: int, pool: str, at: datetime, change: skill.Change
) -> tuple[object, ...]:
    return (
        game_id,
        change.player_id,
        pool,
        at,
        change.seat,
        change.rank,
        change.before.mu,
        change.before.sigma,
        change.before.ordinal,
        change.after.mu,
        change.after.sigma,
        change.after.ordinal,
    )


def _bulk_insert(model: type[Model], fields: list[str], rows: list[tuple[object, ...]]) -> None:
    """Insert many rows: PostgreSQL's binary COPY (at rebuild volumes the ORM's INSERT costs
    more than the rating itself), else the ORM's bulk_create."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        model.objects.bulk_create(
            (model(**dict(zip(fields, row, strict=True))) for row in rows), batch_size=WRITE_BATCH
        )
        return
    columns = [model._meta.get_field(f) for f in fields]
    types = [
        postgres_types[(f.rel_db_type if f.is_relation else f.db_type)(connection).split("(")[0]]
        for f in columns
    ]
    names = ", ".join(f.column for f in columns)
    with connection.cursor() as cursor:
        statement = f"COPY {model._meta.db_table} ({names}) FROM STDIN (FORMAT BINARY)"
        with cursor.cursor.copy(statement) as copy:
            copy.set_types([t.name for t in types])
            for row in rows:
                copy.write_row(row)


def rebuild(pool: str) -> RebuildReport:
    """Recompute every rating of ``pool`` from its stored games, in completion order.

    One transaction: the pool's ratings, rated-game records and changes are replaced; games
    that were never rated live (a worker was down) are rated too.
    """
    started = perf_counter()
    _pool_row(pool)
    replay = Replay()
    games = 0
    now = timezone.now()
    with transaction.atomic():
        RatingPool.objects.select_for_update().get(name=pool)
        RatingChange.objects.filter(pool=pool).delete()
        RatedGame.objects.filter(pool=pool).delete()
        Rating.objects.filter(pool=pool).delete()
        rated: list[tuple[object, ...]] = []
        changes: list[tuple[object, ...]] = []
        for game in stored_games(pool):
            games += 1
            rated.append((game.game_id, pool, now))
            changes.extend(
                _change_values(game.game_id, pool, game.finished_at, c) for c in replay.apply(game)
            )
            if len(changes) >= WRITE_BATCH:
                _bulk_insert(RatedGame, ["game_id", "pool", "rated_at"], rated)
                _bulk_insert(RatingChange, CHANGE_FIELDS, changes)
                rated, changes = [], []
        _bulk_insert(RatedGame, ["game_id", "pool", "rated_at"], rated)
        _bulk_insert(RatingChange, CHANGE_FIELDS, changes)
        _bulk_insert(
            Rating,
            ["player_id", "pool", "mu", "sigma", "games", "last_played_at"],
            [
                (player_id, pool, s.skill.mu, s.skill.sigma, s.games, s.last_played_at)
                for player_id, s in replay.states.items()
            ],
        )
    report = RebuildReport(pool, games, len(replay.states), perf_counter() - started)
    log.info(
        "rebuilt %s: %d games, %d players in %.1f s", pool, games, report.players, report.seconds
    )
    return report


def rate_missed_games(limit: int = 500) -> int:
    """Rate finished rated games that have no rating record yet (their task was lost), oldest
    first. Returns how many were rated."""
    missed = (
        Game.objects.filter(status=Game.Status.FINISHED, rated=True)
        .exclude(pk__in=RatedGame.objects.values("game_id"))
        .exclude(pk__in=GamePlayer.objects.filter(player__is_guest=True).values("game_id"))
        .order_by("finished_at", "pk")
        .values_list("pk", flat=True)[:limit]
    )
    return sum(rate_game(game_id) for game_id in list(missed))
