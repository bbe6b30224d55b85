"""Reads of the arena: who is in, the games being played, and the leaderboard."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import timezone

from arena.models import Arena, ArenaEntry, ArenaGame
from arena.services import default_rules
from games.models import Game
from ratings import skill
from ratings.display import display_rating
from ratings.models import Rating
from ratings.selectors import current


def _ratings(pool: str, player_ids: set[int]) -> dict[int, dict[str, Any]]:
    """``{player_id: {mu, sigma, ordinal, display_rating, provisional, games}}`` now
    (inactivity applied); a newcomer's rating for a bot not rated in the pool yet."""
    now = timezone.now()
    rows = Rating.objects.filter(pool=pool, player_id__in=player_ids, games__gt=0)
    found = {
        row.player_id: current(row.mu, row.sigma, row.games, row.last_played_at, now)
        for row in rows
    }
    newcomer = {
        "mu": skill.NEWCOMER.mu,
        "sigma": skill.NEWCOMER.sigma,
        "ordinal": skill.NEWCOMER.ordinal,
        "display_rating": display_rating(skill.NEWCOMER.ordinal),
        "provisional": True,
        "games": 0,
    }
    out: dict[int, dict[str, Any]] = {}
    for player_id in player_ids:
        shown = found.get(player_id)
        out[player_id] = (
            newcomer
            if shown is None
            else {
                "mu": shown.skill.mu,
                "sigma": shown.skill.sigma,
                "ordinal": shown.skill.ordinal,
                "display_rating": display_rating(shown.skill.ordinal),
                "provisional": shown.provisional,
                "games": shown.games,
            }
        )
    return out


def arena_data(pool: str) -> dict[str, Any]:
    """``GET /arena``: the arena of ``pool`` (empty lists if no bot ever joined it)."""
    arena = Arena.objects.filter(pool=pool).first()
    if arena is None:
        return {
            "pool": pool,
            "rules": default_rules(pool),
            "move_seconds": settings.ARENA_MOVE_SECONDS,
            "bots": [],
            "games": [],
            "leaderboard": [],
        }
    entries = list(arena.entries.select_related("player").order_by("joined_at", "pk"))
    playing = list(
        Game.objects.filter(
            pk__in=ArenaGame.objects.filter(arena=arena, settled=False).values("game_id"),
            status=Game.Status.PLAYING,
        )
        .only("pk", "started_at", "seats")
        .order_by("pk")
    )
    seated = {s["player_id"]: game.pk for game in playing for s in game.seats}
    ratings = _ratings(pool, {e.player_id for e in entries})
    bots = [
        {
            "username": e.player.username,
            "joined_at": e.joined_at,
            "games": e.games,
            "playing": seated.get(e.player_id),
            "rating": ratings[e.player_id],
        }
        for e in entries
        if e.active
    ]
    board = sorted(entries, key=lambda e: (-ratings[e.player_id]["ordinal"], e.player.username))[
        : settings.ARENA_LEADERBOARD_SIZE
    ]
    return {
        "pool": pool,
        "rules": arena.rules,
        "move_seconds": arena.move_seconds,
        "bots": bots,
        "games": [
            {"game": game.pk, "started_at": game.started_at, "seats": game.public_seats()}
            for game in playing
        ],
        "leaderboard": [
            {
                "rank": rank,
                "username": e.player.username,
                "in_arena": e.active,
                "arena_games": e.games,
                "removed_reason": e.removed_reason or None,
                **ratings[e.player_id],
            }
            for rank, e in enumerate(board, start=1)
        ],
    }


def entry_data(entry: ArenaEntry) -> dict[str, Any]:
    """What ``POST /arena/join`` and ``/arena/leave`` answer: the caller's entry."""
    return {
        "pool": entry.arena.pool,
        "username": entry.player.username,
        "in_arena": entry.active,
        "joined_at": entry.joined_at,
        "left_at": entry.left_at,
        "games": entry.games,
        "removed_reason": entry.removed_reason or None,
    }
