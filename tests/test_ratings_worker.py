"""From the games app's notification to stored ratings, through a real Celery worker."""

from __future__ import annotations

from typing import Any

import pytest
from openskill.models import PlackettLuce

from games import signals
from games.models import Game, GamePlayer
from ratings.models import RatedGame, Rating
from tests.conftest import WorkerInfo
from tests.rating_helpers import finished_game, new_players
from tests.support import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

OPENSKILL = PlackettLuce(mu=25.0, sigma=25.0 / 3.0, beta=25.0 / 6.0, tau=25.0 / 300.0)


def rated(game: Game) -> bool:
    return RatedGame.objects.filter(game=game).exists()


def test_it_rates_a_finished_game_on_the_worker_once(
    celery_worker: WorkerInfo, settings: Any
) -> None:
    settings.RATINGS_RATE_FINISHED_GAMES = True  # off for the rest of the suite (test.py)
    players = new_players("worker", 3)

    game = finished_game(players, 1)
    wait_until(lambda: rated(game), timeout=30, what="the worker to rate the game")

    ranks = list(GamePlayer.objects.filter(game=game).values_list("rank", flat=True))
    result = OPENSKILL.rate([[OPENSKILL.rating()] for _ in players], ranks=ranks)
    for p, (expected,) in zip(players, result, strict=True):
        row = Rating.objects.get(player=p, pool="classic")
        assert (row.mu, row.sigma, row.games) == (expected.mu, expected.sigma, 1)

    # The same notification again, then an unrated game, then a marker game: the one worker
    # consumes in order, so once the marker is rated the others have been handled.
    standings = tuple(
        signals.SeatResult(gp.seat, gp.player_id, gp.rank, gp.score)
        for gp in GamePlayer.objects.filter(game=game)
    )
    event = signals.GameFinished(game_id=game.pk, rated=True, standings=standings)
    signals.game_finished.send(sender=Game, event=event)
    unrated = finished_game(players, 2, rated=False)
    marker = finished_game(new_players("marker", 3), 3)
    wait_until(lambda: rated(marker), timeout=30, what="the worker to rate the marker game")

    assert [Rating.objects.get(player=p).games for p in players] == [1, 1, 1]
    assert not rated(unrated)
