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

from games.models import Game
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


def _change_row(game_id: int, pool: str, at: datetime, change: skill.Change) -> RatingChange:
    return RatingChange(
        game_id=game_id,
        player_id=change.player_id,
        pool=pool,
        at=at,
        seat=change.seat,
        rank=change.rank,
        mu_before=change.before.mu,
        sigma_before=change.before.sigma,
        ordinal_before=change.before.ordinal,
        mu_after=change.after.mu,
        sigma_after=change.after.sigma,
        ordinal_after=change.after.ordinal,
    )


def rate_game(game_id: int) -> bool:
    """Rate a finished rated game once. False (and nothing changes) if it is not one, or if
    it was rated already."""
    game = Game.objects.filter(pk=game_id).only("status", "rated", "rules", "finished_at").first()
    if game is None or game.status != Game.Status.FINISHED or not game.rated:
        return False
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
        RatingChange.objects.bulk_create(
            _change_row(game_id, pool, game.finished_at, c) for c in changes
        )
    return True


@dataclass(frozen=True)
class RebuildReport:
    pool: str
    games: int
    players: int
    seconds: float


def rebuild(pool: str) -> RebuildReport:
    """Recompute every rating of ``pool`` from its stored games, in completion order.

    One transaction: the pool's ratings, rated-game records and changes are replaced; games
    that were never rated live (a worker was down) are rated too.
    """
    started = perf_counter()
    _pool_row(pool)
    replay = Replay()
    games = 0
    with transaction.atomic():
        RatingPool.objects.select_for_update().get(name=pool)
        RatingChange.objects.filter(pool=pool).delete()
        RatedGame.objects.filter(pool=pool).delete()
        Rating.objects.filter(pool=pool).delete()
        rated: list[RatedGame] = []
        changes: list[RatingChange] = []
        for game in stored_games(pool):
            games += 1
            rated.append(RatedGame(game_id=game.game_id, pool=pool))
            changes.extend(
                _change_row(game.game_id, pool, game.finished_at, c) for c in replay.apply(game)
            )
            if len(changes) >= WRITE_BATCH:
                RatedGame.objects.bulk_create(rated)
                RatingChange.objects.bulk_create(changes)
                rated, changes = [], []
        RatedGame.objects.bulk_create(rated)
        RatingChange.objects.bulk_create(changes)
        Rating.objects.bulk_create(
            (
                Rating(
                    player_id=player_id,
                    pool=pool,
                    mu=state.skill.mu,
                    sigma=state.skill.sigma,
                    games=state.games,
                    last_played_at=state.last_played_at,
                )
                for player_id, state in replay.states.items()
            ),
            batch_size=WRITE_BATCH,
        )
    report = RebuildReport(pool, games, len(replay.states), perf_counter() - started)
    log.info(
        "rebuilt %s: %d games, %d players in %.1f s", pool, games, report.players, report.seconds
    )
    return report
