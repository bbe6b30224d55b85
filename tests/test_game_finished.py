"""Game completion is announced once, after commit, with the final standings."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from typing import Any

import pytest

from accounts.models import Player
from accounts.services import register_player
from games import play, selectors, signals, tables
from games.models import Game
from realtime import hub
from tests.game_helpers import choose_action

pytestmark = pytest.mark.django_db(transaction=True)


def play_out(game_id: int, players: list[Player], rng: random.Random) -> None:
    while True:
        game = Game.objects.get(pk=game_id)
        if game.status == Game.Status.FINISHED:
            return
        (seat,) = game.to_act
        view = selectors.game_view_for(game_id, players[seat])
        play.submit_action(
            players[seat], game_id=game_id, action=choose_action(view, rng), expected_version=None
        )


def test_it_announces_a_finished_game_once_after_commit_with_standings() -> None:
    players = [register_player(f"fin{i}", password="correct horse battery")[0] for i in range(3)]
    table = tables.create_table(
        players[0], rules={"preset": "classic", "max_hands": 2}, rated=True, move_seconds=60, seat=0
    )
    tables.join_table(players[1], table_id=table.pk, seat=None)
    tables.join_table(players[2], table_id=table.pk, seat=None)
    game_id = Game.objects.get(table=table).pk
    received: list[signals.GameFinished] = []

    def receiver(sender: Any, *, event: signals.GameFinished, **_: Any) -> None:
        # Sent on commit: the finished state is visible to whoever consumes it.
        assert Game.objects.get(pk=event.game_id).status == Game.Status.FINISHED
        received.append(event)

    signals.game_finished.connect(receiver)
    try:
        play_out(game_id, players, random.Random(5))
    finally:
        signals.game_finished.disconnect(receiver)

    game = Game.objects.get(pk=game_id)
    assert len(received) == 1
    (announced,) = received
    assert announced.game_id == game_id
    assert announced.rated is True
    assert announced.standings == tuple(
        signals.SeatResult(
            seat=seat,
            player_id=players[seat].pk,
            rank=game.result["ranks"][seat],
            score=game.result["scores"][seat],
        )
        for seat in range(3)
    )
    assert sorted(s.rank for s in announced.standings)[0] == 1


def test_it_announces_each_turn_after_commit() -> None:
    players = [register_player(f"turn{i}", password="correct horse battery")[0] for i in range(3)]
    turns: list[signals.TurnStarted] = []

    def receiver(sender: Any, *, event: signals.TurnStarted, **_: Any) -> None:
        turns.append(event)

    signals.turn_started.connect(receiver)
    try:
        table = tables.create_table(
            players[0], rules="classic", rated=False, move_seconds=60, seat=0
        )
        tables.join_table(players[1], table_id=table.pk, seat=None)
        tables.join_table(players[2], table_id=table.pk, seat=None)
    finally:
        signals.turn_started.disconnect(receiver)

    game = Game.objects.get(table=table)
    (seat,) = game.to_act
    assert turns == [
        signals.TurnStarted(
            game_id=game.pk,
            seat=seat,
            player_id=players[seat].pk,
            username=players[seat].username,
            is_bot=False,
            version=0,
        )
    ]


def test_it_ends_the_game_when_a_receiver_of_the_announcement_fails() -> None:
    """The end is committed before the announcement: a consumer that raises (its broker
    down, say) is logged, and neither the finishing move, the other consumers nor the
    seats' ``game_finish`` wake-ups suffer for it."""
    players = [register_player(f"bad{i}", password="correct horse battery")[0] for i in range(3)]
    table = tables.create_table(
        players[0], rules={"preset": "classic", "max_hands": 1}, rated=True, move_seconds=60, seat=0
    )
    tables.join_table(players[1], table_id=table.pk, seat=None)
    tables.join_table(players[2], table_id=table.pk, seat=None)
    game_id = Game.objects.get(table=table).pk
    received: list[int] = []

    def failing(sender: Any, **kwargs: Any) -> None:
        raise RuntimeError("the broker is down")

    def later(sender: Any, *, event: signals.GameFinished, **_: Any) -> None:
        received.append(event.game_id)

    loop = asyncio.new_event_loop()

    async def listen() -> tuple[contextlib.AbstractContextManager[Any], hub.Waiter]:
        listening = hub.listening(hub.player_channel(players[0].pk))
        return listening, listening.__enter__()

    listening, waiter = loop.run_until_complete(listen())

    signals.game_finished.connect(failing)
    signals.game_finished.connect(later)
    try:
        play_out(game_id, players, random.Random(3))  # its wake-ups wait in the loop's queue
        assert loop.run_until_complete(waiter.wait(1.0))
    finally:
        signals.game_finished.disconnect(failing)
        signals.game_finished.disconnect(later)
        listening.__exit__(None, None, None)
        loop.close()
    lines = [line for _, line in waiter.take()[0]]

    assert Game.objects.get(pk=game_id).status == Game.Status.FINISHED
    assert received == [game_id]
    assert json.loads(lines[-1])["type"] == "game_finish"
