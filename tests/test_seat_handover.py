"""Three timeouts in one game hand the seat to house:heuristic for the rest of the game."""

from __future__ import annotations

import pytest

from accounts.models import Player
from accounts.services import house_bot
from games import play, selectors
from games.errors import TurnGone
from games.models import Game, GameEvent, GamePlayer
from games.play import HANDOVER_BOT
from tests.conftest import WorkerInfo
from tests.support import wait_until
from tests.test_move_timeouts import game_of, humans, timeout_events

pytestmark = pytest.mark.django_db(transaction=True)


def test_it_hands_the_seat_to_a_house_bot_after_three_timeouts(
    celery_worker: WorkerInfo,
) -> None:
    (absent,) = humans("absent", 1)
    rules = {"preset": "classic", "max_hands": 2}
    game = game_of([absent, "house:random", "house:random"], move_seconds=1, rules=rules)

    finished = wait_until(
        lambda: Game.objects.filter(pk=game.pk, status=Game.Status.FINISHED).first(),
        timeout=120,
        interval=0.2,
        what="the game to end",
    )
    seat = GamePlayer.objects.get(game=game, player=absent)
    heuristic = Player.objects.get(username="house:heuristic")
    assert seat.timeouts == 3
    assert seat.replaced_by == heuristic
    assert [e["seat"] for e in timeout_events(game.pk)] == [0, 0, 0]
    handover = GameEvent.objects.get(game=game, type="seat_handover")
    assert handover.payload == {"seat": 0, "to": "house:heuristic"}
    assert finished.seats[0]["played_by"] == "house:heuristic"
    assert finished.seats[0]["acting_player_id"] == heuristic.pk
    # It counts as a loss for the absent player, ranked after both bots.
    assert (seat.rank, seat.result) == (3, "loss")
    public = selectors.game_view_for(game.pk, None)
    assert public["seats"][0] == {
        "seat": 0,
        "username": absent.username,
        "is_bot": False,
        "played_by": "house:heuristic",
    }


def test_it_lets_no_one_but_the_house_bot_act_for_a_seat_handed_over() -> None:
    players = humans("gone", 3)
    game = game_of(players, move_seconds=600)
    (seat,) = game.to_act
    absent = players[seat]
    game.hand_over_seat(seat, house_bot(HANDOVER_BOT))
    game.version += 1  # as every change of a game does (a row this process kept is stale)
    game.save(update_fields=["seats", "version"])
    view = selectors.game_view_for(game.pk, absent)
    assert view["your_seat"] == seat and view["legal_actions"] == []
    action = {"type": "trump", "suit": "S"} if game.phase == "trump" else {"type": "pass"}

    with pytest.raises(TurnGone) as refused:
        play.submit_action(absent, game_id=game.pk, action=action, expected_version=game.version)

    assert refused.value.code == "not_your_turn"
    assert refused.value.details["played_by"] == HANDOVER_BOT
    assert Game.objects.get(pk=game.pk).version == game.version
