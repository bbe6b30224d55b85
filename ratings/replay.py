"""Stored finished games of a pool, oldest first, and their replay through the rating model.

The rebuild (:func:`ratings.services.rebuild`) and the quality report
(:func:`ratings.selectors.quality`) both walk the games with :class:`Replay`, which applies
:func:`ratings.skill.rate_game` exactly as the live update does.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

from games.models import Game, GamePlayer
from ratings import skill
from ratings.pools import POOL_PRESETS

READ_CHUNK = 20_000


@dataclass(frozen=True)
class StoredGame:
    game_id: int
    finished_at: datetime
    seats: list[skill.SeatOutcome]


def seat_outcomes(game_id: int) -> list[skill.SeatOutcome]:
    rows = GamePlayer.objects.filter(game_id=game_id).order_by("seat")
    return [
        skill.SeatOutcome(
            seat=seat, player_id=player_id, rank=rank, replaced=replaced_by_id is not None
        )
        for seat, player_id, rank, replaced_by_id in rows.values_list(
            "seat", "player_id", "rank", "replaced_by_id"
        )
    ]


def stored_games(pool: str) -> Iterator[StoredGame]:
    """Every finished rated game of ``pool`` in completion order (end time, then id)."""
    rows = (
        GamePlayer.objects.filter(
            game__status=Game.Status.FINISHED,
            game__rated=True,
            game__rules__preset__in=POOL_PRESETS[pool],
        )
        .order_by("game__finished_at", "game_id", "seat")
        .values_list("game_id", "game__finished_at", "seat", "player_id", "rank", "replaced_by_id")
    )
    current: StoredGame | None = None
    for game_id, finished_at, seat, player_id, rank, replaced_by_id in rows.iterator(
        chunk_size=READ_CHUNK
    ):
        if current is None or current.game_id != game_id:
            if current is not None:
                yield current
            current = StoredGame(game_id, finished_at, [])
        current.seats.append(
            skill.SeatOutcome(seat, player_id, rank, replaced=replaced_by_id is not None)
        )
    if current is not None:
        yield current


@dataclass
class Replay:
    """Ratings of one pool held in memory, updated game after game."""

    states: dict[int, skill.PlayerState] = field(default_factory=dict)

    def apply(self, game: StoredGame) -> list[skill.Change]:
        changes = skill.rate_game(game.seats, self.states, game.finished_at)
        for change in changes:
            self.states[change.player_id] = skill.next_state(
                self.states.get(change.player_id), change, game.finished_at
            )
        return changes
