"""House bots play their turns as Celery tasks: a table of three runs to the end alone."""

from __future__ import annotations

import pytest

from accounts.models import Player
from accounts.services import register_player
from games import tables
from games.models import Game, GameEvent, GamePlayer
from tests.conftest import WorkerInfo
from tests.support import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    "bots",
    [
        ("house:random", "house:heuristic", "house:strong"),
        ("house:heuristic", "house:heuristic", "house:random"),
    ],
)
def test_it_plays_a_game_of_house_bots_to_the_end(
    celery_worker: WorkerInfo, bots: tuple[str, str, str]
) -> None:
    owner, _ = register_player(f"host{len(set(bots))}", password="correct horse battery")
    table = tables.create_table(
        owner, rules={"preset": "classic", "max_hands": 3}, rated=True, move_seconds=30, seat=None
    )
    for seat, bot in enumerate(bots):
        tables.seat_bot(owner, table_id=table.pk, bot=bot, seat=seat)
    game = Game.objects.get(table=table)

    finished = wait_until(
        lambda: Game.objects.filter(pk=game.pk, status=Game.Status.FINISHED).first(),
        timeout=120,
        interval=0.2,
        what="the house bots to finish their game",
    )
    # Three hands, unless a hand of 12 tricks or more ended the game first (docs/rules.md).
    result = finished.result
    assert result["reason"] in ("max_hands", "tricks")
    assert (
        result["hands_played"] == 3
        if result["reason"] == "max_hands"
        else result["hands_played"] <= 3
    )
    # Every move was the bots' own: none was left to the move timer.
    assert not GameEvent.objects.filter(game=game, type="timeout").exists()
    assert [gp.player.username for gp in GamePlayer.objects.filter(game=game)] == list(bots)
    assert sorted(gp.rank for gp in GamePlayer.objects.filter(game=game))[0] == 1
    assert not Player.objects.get(username=bots[0]).messages.filter(type="your_turn").exists()
