"""Stream lines that ride with their wake-up (realtime/hub.py), so a stream sends a move's
``your_turn`` without looking in the database; a plain wake-up still makes it look."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from typing import Any

import pytest
import redis
from django.conf import settings

from accounts.models import ApiToken, Player
from accounts.services import house_bot
from core.batch import write_change
from games import play, tables
from realtime import hub, stream
from realtime.models import PlayerMessage
from tests.api_client import register
from tests.conftest import LiveServer
from tests.game_helpers import choose_action, seat_to_act, start_table, three_players
from tests.test_move_timeouts import game_of, humans
from tests.test_stream_order import read_stream, wait_for_games

service_mode_only = pytest.mark.skipif(
    not settings.REDIS_URL, reason="wake-ups cross processes over Redis in service mode only"
)
LINE = b'{"type":"game_start","game":7}\n'


def wake_ups(channel: str, publish: Any) -> tuple[list[hub.Line], bool]:
    """What a waiter on ``channel`` is handed after ``publish()`` runs."""

    async def scenario() -> tuple[list[hub.Line], bool]:
        with hub.listening(channel) as waiter:
            if settings.REDIS_URL:
                assert await hub.wait_subscribed(10)
            asyncio.get_running_loop().call_soon(publish)
            assert await waiter.wait(10)
            await asyncio.sleep(0.3)  # a second wake-up of the same publish (over Redis)
            return waiter.take()

    return asyncio.run(scenario())


def test_it_hands_a_waiter_the_lines_its_wake_up_carries() -> None:
    channel = hub.player_channel(515151)

    carried = {channel: [(7, LINE)]}

    lines, must_look = wake_ups(channel, lambda: hub.publish([channel], carried))

    assert lines == [(7, LINE)]  # once: a process skips its own change coming back from Redis
    assert not must_look


def test_it_asks_a_waiter_to_look_when_a_wake_up_carries_no_lines() -> None:
    channel = hub.player_channel(515152)

    lines, must_look = wake_ups(channel, lambda: hub.publish([channel]))

    assert lines == []
    assert must_look


@service_mode_only
def test_it_reads_lines_and_plain_wake_ups_published_by_another_process() -> None:
    channel = hub.player_channel(515153)
    other = redis.Redis.from_url(settings.REDIS_URL)

    def publish(lines: dict[str, list[hub.Line]]) -> None:
        other.publish(hub.REDIS_CHANNEL, hub.wire_message([channel], lines, "elsewhere"))

    carried = wake_ups(channel, lambda: publish({channel: [(7, LINE)]}))
    plain = wake_ups(channel, lambda: publish({}))

    assert carried == ([(7, LINE)], False)
    assert plain == ([], True)


@pytest.mark.django_db
def test_it_gives_rows_written_with_a_change_their_ids() -> None:
    player = Player.objects.create(username="writer")
    messages = [
        PlayerMessage(player=player, type="game_start", payload={"game": game}) for game in range(3)
    ]
    tokens = [
        ApiToken(player=player, name=f"t{n}", key_hash=f"hash{n}", key_prefix="p", scopes=[])
        for n in range(2)
    ]
    player.first_name = "Wren"

    write_change(player, ["first_name"], [messages[0], tokens[0], *messages[1:], tokens[1]])

    stored = PlayerMessage.objects.filter(player=player).order_by("id")
    assert [m.pk for m in messages] == [m.pk for m in stored]
    assert [m.payload["game"] for m in stored] == [0, 1, 2]
    assert [t.pk for t in tokens] == [
        ApiToken.objects.get(key_hash=f"hash{n}").pk for n in range(2)
    ]
    assert Player.objects.get(pk=player.pk).first_name == "Wren"


def test_it_has_a_waiter_that_is_not_read_look_instead_of_keeping_every_line() -> None:
    async def scenario() -> tuple[int, bool]:
        waiter = hub.Waiter(asyncio.get_running_loop())
        for n in range(hub.MAX_CARRIED_LINES + 1):
            waiter.receive([(n, LINE)])
        lines, must_look = waiter.take()
        return len(lines), must_look

    assert asyncio.run(scenario()) == (0, True)


def first_carrying_wake_up(pubsub: Any) -> dict[str, list[hub.Line]]:
    """The first change published on ``pubsub`` (subscribed to the changes' channel) that
    carries a line: {channel: its lines}."""
    carried: dict[str, list[hub.Line]] = {}
    deadline = time.monotonic() + 10
    while not any(carried.values()) and time.monotonic() < deadline:
        message = pubsub.get_message(timeout=1.0)
        if message is not None:
            _, carried = hub.read_wire_message(message["data"])
    return carried


@service_mode_only
@pytest.mark.django_db(transaction=True)
def test_it_publishes_the_lines_of_a_games_start_and_end_with_their_messages() -> None:
    players = humans("bookend")
    pubsub = redis.Redis.from_url(settings.REDIS_URL).pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe(hub.REDIS_CHANNEL)
    time.sleep(0.2)

    game = tables.start_seated_game(
        players[0], rules="classic", rated=True, move_seconds=600, players=players
    )
    start = first_carrying_wake_up(pubsub)
    play.adjudicate_game(game.pk)
    end = first_carrying_wake_up(pubsub)

    # Each seat's game_start and the first seat's your_turn; each seat's game_finish.
    assert sum(map(len, start.values())) == 4 and sum(map(len, end.values())) == 3
    for wake_up, kinds in ((start, ["game_start", "your_turn"]), (end, ["game_finish"])):
        stored = {m.pk: m for m in PlayerMessage.objects.filter(type__in=kinds)}
        sent = {
            number: (channel, line) for channel, lines in wake_up.items() for number, line in lines
        }
        assert sent.keys() == stored.keys()
        for number, (channel, line) in sent.items():
            message = stored[number]
            assert channel == hub.player_channel(message.player_id)
            assert json.loads(line) == {"type": message.type, **message.payload}


@service_mode_only
@pytest.mark.django_db(transaction=True)
def test_it_publishes_a_moves_turn_line_with_its_message(api_server: LiveServer) -> None:
    players = three_players(api_server.url, "carrier")
    game = start_table(players[0], players[1:])
    mover, view = seat_to_act(players, game)
    ids = {Player.objects.get(username=p.username).pk: seat for seat, p in enumerate(players)}
    pubsub = redis.Redis.from_url(settings.REDIS_URL).pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe(hub.REDIS_CHANNEL)
    time.sleep(0.2)

    after = mover.ok("POST", f"/games/{game}/actions", json=choose_action(view, random.Random(3)))

    carried = first_carrying_wake_up(pubsub)
    assert carried.pop(hub.game_channel(game)) == []  # its long polls: a plain wake-up
    ((channel, [(message_id, line)]),) = carried.items()
    stored = PlayerMessage.objects.get(pk=message_id)
    assert channel == hub.player_channel(stored.player_id)
    assert stored.type == "your_turn" and after["to_act"] == [ids[stored.player_id]]
    sent = json.loads(line)
    assert sent == {"type": "your_turn", **stored.payload}
    assert sent["view"]["your_seat"] == ids[stored.player_id]


@service_mode_only
@pytest.mark.django_db(transaction=True)
def test_it_streams_a_carried_line_once_and_looks_on_a_plain_wake_up(
    api_server: LiveServer,
) -> None:
    client = register(api_server.url, "carried")
    player = Player.objects.get(username="carried")
    channel = hub.player_channel(player.pk)
    lines: list[dict[str, Any]] = []
    ready = threading.Event()
    threading.Thread(target=read_stream, args=(client, lines, ready), daemon=True).start()
    assert ready.wait(10)

    # Game 0's message is stored, but its wake-up is not sent. Game 1's line is only
    # carried, never stored: the stream sends it without a look (so not game 0's), and
    # once, however many wake-ups carry it.
    first = PlayerMessage.objects.create(player=player, type="game_start", payload={"game": 0})
    only_carried = (first.pk + 1000, stream.stream_line("game_start", {"game": 1}))
    hub.publish([channel], {channel: [only_carried]})
    hub.publish([channel], {channel: [only_carried]})
    assert wait_for_games(lines, 1) == [1]

    # A plain wake-up: the stream looks, and sends games 0 and 2.
    second = PlayerMessage.objects.create(player=player, type="game_start", payload={"game": 2})
    hub.publish([channel])
    assert sorted(wait_for_games(lines, 3)) == [0, 1, 2]

    # A carried line the look already sent is not sent again (the next one, game 3's, is).
    hub.publish([channel], {channel: [(second.pk, stream.stream_line("game_start", {}))]})
    third = (first.pk + 2000, stream.stream_line("game_start", {"game": 3}))
    hub.publish([channel], {channel: [third]})
    assert sorted(wait_for_games(lines, 4)) == [0, 1, 2, 3]
    time.sleep(0.5)
    assert len(lines) == 4


@pytest.mark.django_db
def test_it_wakes_a_player_whose_seat_a_bot_took_over_when_the_game_ends(
    monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    absent, *others = humans("handed", 3)
    game = game_of([absent, *others], move_seconds=600)
    game.hand_over_seat(0, house_bot("house:heuristic"))
    game.save(update_fields=["seats"])
    woken: list[str] = []
    monkeypatch.setattr(hub, "publish_soon", lambda channels, lines=None: woken.extend(channels))

    with django_capture_on_commit_callbacks(execute=True):
        play.adjudicate_game(game.pk)

    # Its game_finish message is written for the player who sat there, not for the bot.
    assert PlayerMessage.objects.filter(player=absent, type="game_finish").exists()
    assert hub.player_channel(absent.pk) in woken
