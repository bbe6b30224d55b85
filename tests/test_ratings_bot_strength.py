"""A pool of house bots of known strength order (random < heuristic < strong) ends up in
that order on the leaderboard as far as a suite-sized run can tell, after games played by
the bots' own turn service and rated by the ratings service, as on the platform."""

from __future__ import annotations

import itertools

import pytest
from django.test import override_settings

from bots.services import play_house_turn
from games import services
from games.models import Game
from ratings import selectors as ratings
from ratings import services as rating
from tests.rating_helpers import new_players

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

BOTS = ("house:random", "house:heuristic", "house:strong")
GAMES = 24
RULES = {"preset": "classic", "max_hands": 2}


def play_bots_out(game_id: int) -> Game:
    """Every turn through the same service the bots' Celery task calls."""
    while True:
        game = Game.objects.get(pk=game_id)
        if game.status == Game.Status.FINISHED:
            return game
        seat = game.to_act[0]
        play_house_turn(game.pk, seat, game.version, game.acting_identity(seat)[1])


@override_settings(HOUSE_BOT_BUDGET_SECONDS=0.02)
def test_it_ranks_the_bots_by_strength() -> None:
    (host,) = new_players("strengthhost", 1)
    arrangements = itertools.cycle(itertools.permutations(BOTS))
    for _ in range(GAMES):
        table = services.create_table(host, RULES, True, 600, None)
        for seat, bot in enumerate(next(arrangements)):
            services.seat_bot(host, table.pk, bot, seat)
        game_id = Game.objects.get(table=table).pk
        play_bots_out(game_id)
        assert rating.rate_game(game_id)

    board = ratings.leaderboard("classic", "ranked") + ratings.leaderboard("classic", "provisional")
    by_ordinal = sorted(board, key=lambda e: -e["ordinal"])
    # random is clearly last (the heuristic beats it by ~4 tricks a hand). strong beats the
    # heuristic by ~1.4 tricks a hand at 0.3 s (botmatch, README), but finishes above it in
    # only about 2 of 3 two-hand games (156 of 240 at 0.1 s, below in 72): tried on two
    # workers, ordering them took 30 to 175 rated games and once came out wrong (README,
    # Ratings, Limitations), so not asserted.
    assert by_ordinal[-1]["username"] == "house:random"
    assert {e["username"] for e in by_ordinal[:2]} == {"house:strong", "house:heuristic"}
    assert by_ordinal[1]["ordinal"] - by_ordinal[2]["ordinal"] > 5
    assert {e["games"] for e in board} == {GAMES}
