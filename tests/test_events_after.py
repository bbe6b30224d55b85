"""``GET /games/{id}/events`` answers from one reading of the game: no event newer than the
version, status and visibility it reports."""

from __future__ import annotations

import pytest
from django.utils import timezone

from games import selectors
from games.models import Game, GameEvent
from tests.rating_helpers import new_players, start_game


@pytest.mark.django_db
def test_it_leaves_out_events_the_game_row_it_read_did_not_have_yet() -> None:
    players = new_players("evt", 3)
    game = Game.objects.get(pk=start_game(players))
    before = selectors.events_after(game.pk, players[0], 0)
    # What a move committed between the row's reading and the events' would look like:
    # an event past the row's last_seq.
    GameEvent.objects.create(
        game=game, seq=game.last_seq + 1, type="play", at=timezone.now(), payload={},
        public=True, seat_mask=0,
    )  # fmt: skip

    data = selectors.events_after(game.pk, players[0], 0)

    assert data["events"] == before["events"] and data["events"]
    assert (data["version"], data["last_seq"]) == (game.version, game.last_seq)
