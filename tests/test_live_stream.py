"""A game's live stream (``GET /api/v1/games/{id}/live``, Server-Sent Events): each change
pushed once to every watcher, with what that watcher may see and nothing more; resumed with
``Last-Event-ID`` across a killed web process; ended by a revoked token; a client that stops
reading dropped without delaying the others. Real servers, real games; both modes.
"""

from __future__ import annotations

import asyncio
import random
import re
import socket
import time
from typing import Any

import httpx
import pytest

from accounts.auth import hash_key
from accounts.models import ApiToken
from accounts.services import revoke_token
from games.models import GameEvent
from games.selectors import event_data
from tests.api_client import Client, cards_in, error_of
from tests.conftest import LiveServer, serving_api
from tests.game_helpers import choose_action, play_to_the_end, start_table, three_players
from tests.live_client import LiveReader, Message

pytestmark = pytest.mark.django_db(transaction=True)

QUICK_RULES = {"preset": "classic", "max_hands": 1}
CARD_ATTRIBUTE = re.compile(r'data-card="([0-9TJQKA]{1,2}[CDHS])"')
CLOCK = re.compile(r'data-seconds-left="[^"]*"|\d+ s</span>')


def events_of(game_id: int) -> list[GameEvent]:
    return list(GameEvent.objects.filter(game_id=game_id).order_by("seq"))


def expected_events(
    rows: list[GameEvent], seat: int | None, after: int, upto: int, finished: bool
) -> list[dict[str, Any]]:
    """What ``/events?after=`` gives ``seat`` for ``(after, upto]``, from the stored rows."""
    return [
        event_data(row)
        for row in rows
        if after < row.seq <= upto
        and (finished or row.public or (seat is not None and row.seat_mask & (1 << seat)))
    ]


def check_messages(messages: list[Message], rows: list[GameEvent], seat: int | None) -> None:
    """Each message carries exactly the events its watcher may see since the one before."""
    after = 0
    for message in messages:
        data = message.data
        assert message.event == "change" and message.id == data["last_seq"]
        finished = data["status"] == "finished"
        want = expected_events(rows, seat, after, data["last_seq"], finished)
        assert data["events"] == want, (seat, after, data["last_seq"])
        after = data["last_seq"]


def move(player: Client, game_id: int, rng: random.Random) -> dict[str, Any]:
    view = player.ok("GET", f"/games/{game_id}")
    action = {**choose_action(view, rng), "expected_version": view["version"]}
    return dict(player.ok("POST", f"/games/{game_id}/actions", json=action))


def acting(players: list[Client], game_id: int) -> Client:
    view = players[0].ok("GET", f"/games/{game_id}")
    return players[view["to_act"][0]]


def table_cards(html: str) -> set[str]:
    return set(CARD_ATTRIBUTE.findall(html))


def test_it_pushes_each_change_to_each_watcher_with_only_what_it_may_see(
    api_server: LiveServer,
) -> None:
    players = three_players(api_server.url, "live")
    game_id = start_table(players[0], players[1:], QUICK_RULES)
    spectator = LiveReader(api_server.url, game_id, query="?fragment=table")
    seats = [LiveReader(api_server.url, game_id, token=p.token) for p in players]
    pages = [LiveReader(api_server.url, game_id, token=players[0].token, query="?fragment=table")]
    first = spectator.wait_for(lambda found: len(found) >= 1)[0]
    assert first.data["status"] == "playing" and first.data["events"]  # the whole game so far
    for reader in [*seats, *pages]:
        reader.wait_for(lambda found: len(found) >= 1)

    rng = random.Random(7)
    for _ in range(12):  # through the trump, the exchange and the first tricks
        after = move(acting(players, game_id), game_id, rng)
        for reader in [spectator, *seats, *pages]:
            reader.wait_for(lambda found, v=after["version"]: found[-1].data["version"] >= v)
        hands = {p.username: set(p.ok("GET", f"/games/{game_id}")["your_hand"]) for p in players}
        shown = spectator.messages[-1].data["html"]
        anonymous = httpx.get(f"{api_server.url}/games/{game_id}/table").text
        assert CLOCK.sub("", shown) == CLOCK.sub("", anonymous)  # what the page renders
        assert not table_cards(shown) & set().union(*hands.values())
        own = pages[0].messages[-1].data["html"]
        others = hands[players[1].username] | hands[players[2].username]
        assert hands[players[0].username] <= table_cards(own)
        assert not table_cards(own) & others

    play_to_the_end(players, game_id, rng)
    for reader in [spectator, *seats, *pages]:
        assert reader.wait_for_end(15) is not None, "the stream went on after the game ended"
        assert reader.status == 200
        assert reader.messages[-1].data["status"] == "finished"

    rows = events_of(game_id)
    check_messages(spectator.messages, rows, None)
    for seat, reader in enumerate(seats):
        check_messages(reader.messages, rows, seat)
    during = [m for m in spectator.messages if m.data["status"] != "finished"]
    hidden = {e.seq for e in rows if not e.public}
    assert hidden and not {e["seq"] for m in during for e in m.data["events"]} & hidden
    assert not cards_in([m.data["events"] for m in during]) & {
        card for e in rows if e.type == "deal" for card in cards_in(e.payload)
    } - cards_in([e.payload for e in rows if e.public])

    # A reconnection after the end with nothing new is told to stop (204).
    again = LiveReader(api_server.url, game_id, last_event_id=rows[-1].seq)
    assert again.wait_for_end(10) is not None and again.status == 204


def test_it_resumes_from_last_event_id_after_the_web_process_is_killed(
    django_db_blocker: Any,
) -> None:
    with (
        serving_api(django_db_blocker, "live-a.log") as first,
        serving_api(django_db_blocker, "live-b.log") as second,
    ):
        players = three_players(first.url, "liveres")
        game_id = start_table(players[0], players[1:])
        rng = random.Random(3)
        reader = LiveReader(first.url, game_id, token=players[1].token)
        reader.wait_for(lambda found: len(found) >= 1)
        move(acting(players, game_id), game_id, rng)
        seen = reader.wait_for(lambda found: len(found) >= 2)
        last_id = seen[-1].id

        assert first.process is not None
        first.process.kill()  # mid-game, mid-stream
        assert reader.wait_for_end(10) is not None
        players = [  # the game goes on through the other web process
            Client(second.url, token=p.token, username=p.username) for p in players
        ]
        at_kill = players[0].ok("GET", f"/games/{game_id}")["version"]
        for _ in range(5):
            move(acting(players, game_id), game_id, rng)

        resumed = LiveReader(second.url, game_id, token=players[1].token, last_event_id=last_id)
        last_seq = players[0].ok("GET", f"/games/{game_id}/events")["last_seq"]
        resumed.wait_for_seq(last_seq)
        resumed.stop()

        missed = resumed.messages[0].data
        want = expected_events(events_of(game_id), 1, last_id or 0, missed["last_seq"], False)
        assert missed["events"] == want and len(want) >= 5
        assert missed["version"] > at_kill
        assert [e["seq"] for e in reader.events() + resumed.events()] == sorted(
            {e["seq"] for e in reader.events() + resumed.events()}
        )  # nothing twice, nothing skipped between them
        resumed.wait_for_end(0)


def test_it_ends_a_live_stream_when_its_token_is_revoked(api_server: LiveServer) -> None:
    players = three_players(api_server.url, "liverev")
    game_id = start_table(players[0], players[1:])
    actor = acting(players, game_id)
    watcher = next(p for p in players if p is not actor)
    reader = LiveReader(api_server.url, game_id, token=watcher.token)
    reader.wait_for(lambda found: len(found) >= 1)
    time.sleep(1.5)  # past the token's last check: the revocation must be heard or found

    token = ApiToken.objects.get(key_hash=hash_key(watcher.token or ""))
    revoked_at = time.monotonic()
    revoke_token(token.player, token_id=token.pk)  # in this process, not the server's
    move(actor, game_id, random.Random(1))  # a change the stream must not carry

    ended = reader.wait_for_end(10)
    assert ended is not None, "the live stream stayed open after its token was revoked"
    assert ended - revoked_at < 2.0, ended - revoked_at
    assert all(m.at < revoked_at for m in reader.messages)


def test_it_refuses_what_the_game_refuses(api_server: LiveServer) -> None:
    client = Client(api_server.url)
    error_of(client.get("/games/999999/live"), 404, "not_found")
    players = three_players(api_server.url, "liveref")
    game_id = start_table(players[0], players[1:])
    error_of(client.get(f"/games/{game_id}/live?fragment=page"), 400, "invalid")
    error_of(client.get(f"/games/{game_id}/live?after=x"), 400, "invalid")
    response = httpx.get(
        f"{api_server.url}/api/v1/games/{game_id}/live",
        headers={"Last-Event-ID": "-1"},
    )
    error_of(response, 400, "invalid")


def test_it_delays_no_one_for_a_client_that_stops_reading(django_db_blocker: Any) -> None:
    with serving_api(django_db_blocker, "live-slow.log", LIVE_MAX_BEHIND_BYTES="60000") as server:
        players = three_players(server.url, "liveslow")
        game_id = start_table(players[0], players[1:], {"preset": "classic", "max_hands": 4})
        fast = LiveReader(server.url, game_id, query="?fragment=table")
        fast.wait_for(lambda found: len(found) >= 1)
        slow = socket.socket()
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.connect(("127.0.0.1", int(server.url.rsplit(":", 1)[1])))
        slow.sendall(
            f"GET /api/v1/games/{game_id}/live?fragment=table HTTP/1.1\r\n"
            "Host: 127.0.0.1\r\n\r\n".encode()
        )

        rng = random.Random(5)
        delays = []
        for _ in range(100):
            moved_at = time.monotonic()
            after = move(acting(players, game_id), game_id, rng)
            if after["status"] == "finished":
                break
            messages = fast.wait_for(
                lambda found, v=after["version"]: found[-1].data["version"] >= v
            )
            delays.append(messages[-1].at - moved_at)
        slow.close()
        fast.stop()
        assert max(delays) < 2.0, max(delays)  # nobody waited on the slow reader


def test_it_drops_a_client_that_stops_reading(api_server: LiveServer, settings: Any) -> None:
    """In this process, with the server's send blocked as uvicorn blocks it once a client's
    socket buffers are full: the frames it cannot send pile up to the bound, then it is
    dropped, and the feed's other subscriber gets every change."""
    from config.asgi import application
    from realtime import feeds

    settings.LIVE_MAX_BEHIND_BYTES = 30_000
    players = three_players(api_server.url, "livedrop")
    game_id = start_table(players[0], players[1:], {"preset": "classic", "max_hands": 2})
    rng = random.Random(9)

    async def scenario() -> tuple[list[bytes], list[int]]:
        loop = asyncio.get_running_loop()
        done = asyncio.Event()
        fast_frames: list[bytes] = []
        counts: list[int] = []

        def request(send: Any) -> Any:
            scope = {
                "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                "method": "GET", "scheme": "http", "path": f"/api/v1/games/{game_id}/live",
                "raw_path": f"/api/v1/games/{game_id}/live".encode(),
                "query_string": b"fragment=table", "headers": [(b"host", b"127.0.0.1")],
                "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 80),
            }  # fmt: skip
            asked = []

            async def its_receive() -> dict[str, Any]:
                if not asked:
                    asked.append(True)
                    return {"type": "http.request", "body": b"", "more_body": False}
                await done.wait()
                return {"type": "http.disconnect"}

            return loop.create_task(application(scope, its_receive, send))

        async def fast_send(message: dict[str, Any]) -> None:
            if message.get("body"):
                fast_frames.append(message["body"])

        async def stuck_send(message: dict[str, Any]) -> None:
            if message.get("body"):
                await done.wait()  # the client reads nothing more

        tasks = [request(fast_send), request(stuck_send)]
        while len(fast_frames) < 1:
            await asyncio.sleep(0.05)
        (followed,) = [f for f in feeds.registry().feeds.values() if f.key == game_id]
        for _ in range(60):
            after = await asyncio.to_thread(lambda: move(acting(players, game_id), game_id, rng))
            counts.append(len(followed.subscribers))
            if after["status"] == "finished":
                break
            while b'"version":%d' % after["version"] not in b"".join(fast_frames[-3:]):
                await asyncio.sleep(0.02)
        done.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        return fast_frames, counts

    fast_frames, counts = asyncio.run(scenario())
    assert counts[0] == 2 and counts[-1] == 1, counts  # the stuck one was dropped
    assert sum(b"event: change" in frame for frame in fast_frames) >= len(counts)


def test_it_keeps_an_idle_stream_open_with_comments(django_db_blocker: Any) -> None:
    with serving_api(django_db_blocker, "live-idle.log", LIVE_KEEPALIVE_SECONDS="0.5") as server:
        players = three_players(server.url, "liveidle")
        game_id = start_table(players[0], players[1:])
        reader = LiveReader(server.url, game_id)
        reader.wait_for(lambda found: len(found) >= 1)
        deadline = time.monotonic() + 10
        while reader.comments < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert reader.comments >= 2 and reader.ended_at is None
        assert len(reader.messages) == 1
        reader.stop()


def test_it_answers_the_next_long_poll_at_once_when_a_move_came_between_two(
    api_server: LiveServer,
) -> None:
    """A long poll's client asks again after each answer: a move made while none of its
    requests waits must be in the answer to the next one, not left for the next look."""
    players = three_players(api_server.url, "livegap")
    game_id = start_table(players[0], players[1:])
    watcher = Client(api_server.url)
    last = watcher.ok("GET", f"/games/{game_id}/events")["last_seq"]
    rng = random.Random(2)
    for _ in range(4):
        move(acting(players, game_id), game_id, rng)  # while nobody waits
        started = time.monotonic()
        answer = watcher.ok("GET", f"/games/{game_id}/events?after={last}&wait=10")
        assert answer["events"] and time.monotonic() - started < 1.0
        last = answer["last_seq"]
