"""The version-checked write of a game's change (core/batch.py, games/changes.py):
a change read from a version that another change has since moved on writes nothing, and a
player's action overtaken so is applied again on the new state."""

from __future__ import annotations

import random
import threading
import time

import pytest
from django.db import connection
from django.db.models import F
from django.utils import timezone

from accounts.models import Player
from core.batch import write_change
from games import play, selectors
from games.models import Game, GameEvent
from realtime.models import PlayerMessage
from tests.game_helpers import choose_action
from tests.support import wait_until
from tests.test_move_timeouts import game_of, humans, row_held_by_another_change


def event_and_message(game: Game) -> tuple[GameEvent, PlayerMessage]:
    seat = game.seats[0]
    return (
        GameEvent(game=game, seq=game.last_seq + 1, type="note", at=timezone.now(), payload={}),
        PlayerMessage(player_id=seat["player_id"], type="note", payload={"game": game.pk}),
    )


@pytest.mark.django_db
def test_it_writes_the_change_while_the_version_is_the_one_read() -> None:
    game = game_of(humans("kept"), move_seconds=60)
    read_version = game.version
    event, message = event_and_message(game)
    game.version, game.last_seq = read_version + 1, game.last_seq + 1

    written = write_change(
        game, ["version", "last_seq"], [event, message], {"version": read_version}
    )

    assert written is True
    assert Game.objects.get(pk=game.pk).version == read_version + 1
    assert GameEvent.objects.get(pk=event.pk).type == "note"
    assert PlayerMessage.objects.get(pk=message.pk).payload == {"game": game.pk}


@pytest.mark.django_db
def test_it_writes_nothing_once_another_change_moved_the_version_on() -> None:
    game = game_of(humans("overtaken"), move_seconds=60)
    read_version, stored_seq = game.version, game.last_seq
    Game.objects.filter(pk=game.pk).update(version=F("version") + 1)  # another change
    event, message = event_and_message(game)
    game.version, game.last_seq, game.phase = read_version + 1, stored_seq + 1, "changed"

    written = write_change(
        game, ["version", "last_seq", "phase"], [event, message], {"version": read_version}
    )

    assert written is False
    stored = Game.objects.get(pk=game.pk)
    assert (stored.version, stored.last_seq) == (read_version + 1, stored_seq)
    assert stored.phase != "changed"
    assert not GameEvent.objects.filter(game=game, type="note").exists()
    assert not PlayerMessage.objects.filter(type="note").exists()
    assert event.pk is None and message.pk is None


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs a row lock held by another connection"
)
@pytest.mark.django_db(transaction=True)
def test_it_applies_an_overtaken_action_again_on_the_new_state() -> None:
    """An action reads the game, and while it is being written another change commits: its
    write waits for that change's row lock, finds the version moved on and writes nothing;
    the action is then read and applied again, once."""
    game = game_of(humans("retried"), move_seconds=3600)
    seat = game.to_act[0]
    player = Player.objects.get(pk=game.seats[seat]["player_id"])
    action = choose_action(selectors.game_view_for(game.pk, player), random.Random(5))
    read_version = game.version
    outcome: dict[str, object] = {}

    def submit() -> None:
        try:
            outcome["result"] = play.submit_action(
                player, game_id=game.pk, action=action, expected_version=None
            )
        finally:
            connection.close()

    submitter = threading.Thread(target=submit)
    with row_held_by_another_change(game.pk, version=F("version") + 1):
        submitter.start()
        # The submitter's write waits for the holder's row lock.
        wait_until(lambda: lock_waiters() > 0, timeout=20, what="the write to wait")
    submitter.join(timeout=30)

    acted = outcome["result"]
    assert isinstance(acted, play.Acted) and not acted.replayed
    view = acted.view
    # Applied on the holder's version, not on the one first read.
    assert view["version"] == read_version + 2
    assert Game.objects.get(pk=game.pk).version == read_version + 2
    moves = GameEvent.objects.filter(game_id=game.pk, seq__gt=game.last_seq)
    assert moves.filter(type=action["type"]).count() == 1


def lock_waiters() -> int:
    """Sessions waiting for a lock while updating ``games_game``."""
    time.sleep(0.05)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            " AND query LIKE %s",
            ['%UPDATE "games_game"%'],
        )
        return int(cursor.fetchone()[0])
