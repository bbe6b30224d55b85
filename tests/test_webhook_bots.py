"""Webhook bots: the platform POSTs the signed view of the bot's seat to its URL and plays the
answered action; bad answers are logged on the game and left to the deadline."""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.test import override_settings
from django.utils import timezone
from sergeant_sdk import SIGNATURE_HEADER, verify_signature
from sergeant_sdk.example import choose

from accounts.services import register_player
from bots import outbound
from bots.models import BotAccount, WebhookDelivery
from bots.services import create_bot_account
from core.errors import DomainError
from games import tables
from games.engine import Game as Engine
from games.models import Game, GameEvent, GamePlayer
from games.selectors import game_view
from tests.conftest import WorkerInfo
from tests.support import wait_until

pytestmark = pytest.mark.django_db(transaction=True)

# (status, body) to answer, or None to hang up without an answer (a network error).
Answer = Callable[[dict[str, Any], int], tuple[int, bytes] | None]


class BotServer:
    """A webhook bot on loopback: checks each push's signature, answers with ``answer``."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.secret = ""
        self.pushes: list[tuple[dict[str, Any], bool]] = []
        self.bodies: list[bytes] = []
        # The seat's view as the API builds it, read when each push arrives (the game waits
        # on the bot then, so it is the view of the same version).
        self.api_views: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                signed = verify_signature(outer.secret, body, self.headers.get(SIGNATURE_HEADER))
                view = json.loads(body)
                outer.pushes.append((view, signed))
                outer.bodies.append(body)
                try:
                    game = Game.objects.get(pk=view.get("id", 0))
                    api_view = game_view(game, Engine.from_json(game.state), view["your_seat"])
                    outer.api_views.append(json.loads(json.dumps(api_view, cls=DjangoJSONEncoder)))
                except Game.DoesNotExist:
                    pass  # a push that is not a game view (the size and time checks)
                finally:
                    connection.close()
                answered = outer.answer(view, len(outer.pushes))
                if answered is None:
                    self.close_connection = True
                    return
                status, reply = answered
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(reply)  # the size check hangs up before the end

            def log_message(self, *_: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/turn"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def bot_server() -> Iterator[Callable[[Answer], BotServer]]:
    servers: list[BotServer] = []

    def make(answer: Answer) -> BotServer:
        servers.append(BotServer(answer))
        return servers[-1]

    yield make
    for server in servers:
        server.close()


def legal_answer(view: dict[str, Any]) -> bytes:
    return json.dumps({"action": choose(view)}).encode()


def test_it_plays_a_full_game_for_a_webhook_bot_and_logs_bad_answers(
    celery_worker: WorkerInfo, bot_server: Callable[[Answer], BotServer]
) -> None:
    def answer(view: dict[str, Any], nth: int) -> tuple[int, bytes]:
        if nth == 1:
            return 200, b"this is not json"
        if nth == 2:
            return 200, json.dumps({"action": {"type": "play", "card": "XX"}}).encode()
        return 200, legal_answer(view)

    server = bot_server(answer)
    owner, _ = register_player("hookowner", password="correct horse battery")
    account, _ = create_bot_account(
        owner, username="hookbot", mode=BotAccount.Mode.WEBHOOK, webhook_url=server.url
    )
    server.secret = account.webhook_secret
    table = tables.create_table(
        owner, rules={"preset": "classic", "max_hands": 2}, rated=True, move_seconds=1, seat=None
    )
    tables.seat_bot(owner, table_id=table.pk, bot="hookbot", seat=0)
    tables.seat_bot(owner, table_id=table.pk, bot="house:random", seat=1)
    tables.seat_bot(owner, table_id=table.pk, bot="house:random", seat=2)
    game = Game.objects.get(table=table)

    wait_until(
        lambda: Game.objects.filter(pk=game.pk, status=Game.Status.FINISHED).exists(),
        timeout=120,
        interval=0.2,
        what="the webhook bot's game to end",
    )
    # The last answer ends the game; its delivery is recorded just after.
    wait_until(
        lambda: WebhookDelivery.objects.filter(game=game).count() >= len(server.pushes),
        timeout=10,
        interval=0.1,
        what="the last push's delivery to be recorded",
    )
    outcomes = list(
        WebhookDelivery.objects.filter(game=game).order_by("id").values_list("outcome", flat=True)
    )
    assert outcomes[:2] == ["bad_response", "illegal"]
    assert set(outcomes[2:]) == {"applied"}
    assert len(outcomes) == len(server.pushes) > 10
    # Every push was signed with the bot's secret and was exactly the API's view of the
    # bot's seat (the one view builder, leak-tested on its own).
    assert all(signed for _, signed in server.pushes)
    assert [view for view, _ in server.pushes] == server.api_views
    assert all(view["your_seat"] == 0 and view["legal_actions"] for view, _ in server.pushes)
    # Each carried the game's commitment to its shuffle, never the seed (docs/rules.md).
    seed = Game.objects.get(pk=game.pk).seed
    assert {view["seed_commitment"] for view, _ in server.pushes} == {
        hashlib.sha256(seed.encode()).hexdigest()
    }
    assert not any(seed in json.dumps(view) for view, _ in server.pushes)
    # The two bad answers were left to the deadline: the timer played for the bot twice.
    seat = GamePlayer.objects.get(game=game, seat=0)
    assert (seat.timeouts, seat.replaced_by) == (2, None)
    assert GameEvent.objects.filter(game=game, type="timeout").count() == 2


def test_it_refuses_private_addresses_unless_allowed() -> None:
    owner, _ = register_player("privowner", password="correct horse battery")
    with override_settings(BOT_WEBHOOK_ALLOW_PRIVATE=False):
        for url in ("http://127.0.0.1:9/turn", "http://10.1.2.3/turn", "http://[::1]/x"):
            with pytest.raises(DomainError) as refused:
                create_bot_account(
                    owner, username="privbot", mode=BotAccount.Mode.WEBHOOK, webhook_url=url
                )
            assert refused.value.code == "invalid"
    for url in ("ftp://example.com/x", "file:///etc/passwd", "http://user:pw@example.com/"):
        with pytest.raises(outbound.UnsafeUrl):
            outbound.resolve_target(url, allow_private=True)
    with pytest.raises(outbound.UnsafeUrl):
        outbound.resolve_target("http://169.254.169.254/latest", allow_private=False)


def test_it_bounds_the_reply_in_size_and_time(
    bot_server: Callable[[Answer], BotServer],
) -> None:
    big = bot_server(lambda view, nth: (200, b"x" * 100_000))
    target = outbound.resolve_target(big.url, allow_private=True)
    with pytest.raises(outbound.ReplyTooLarge):
        outbound.post(target, b"{}", {}, connect_timeout=1, read_timeout=2, max_bytes=65536)

    def slow(view: dict[str, Any], nth: int) -> tuple[int, bytes]:
        time.sleep(1.5)
        return 200, b"{}"

    late = bot_server(slow)
    started = time.monotonic()
    with pytest.raises(httpx.TimeoutException):
        outbound.post(
            outbound.resolve_target(late.url, allow_private=True),
            b"{}",
            {},
            connect_timeout=1,
            read_timeout=0.5,
            max_bytes=65536,
        )
    assert time.monotonic() - started < 1.4


def webhook_table(
    server: BotServer, prefix: str, *, move_seconds: int, max_hands: int = 1
) -> tuple[Game, BotAccount]:
    """A game of a webhook bot (seat 0, served by ``server``) and two house bots."""
    owner, _ = register_player(f"{prefix}owner", password="correct horse battery")
    account, _ = create_bot_account(
        owner, username=f"{prefix}bot", mode=BotAccount.Mode.WEBHOOK, webhook_url=server.url
    )
    server.secret = account.webhook_secret
    table = tables.create_table(
        owner,
        rules={"preset": "classic", "max_hands": max_hands},
        rated=False,
        move_seconds=move_seconds,
        seat=None,
    )
    tables.seat_bot(owner, table_id=table.pk, bot=account.player.username, seat=0)
    tables.seat_bot(owner, table_id=table.pk, bot="house:random", seat=1)
    tables.seat_bot(owner, table_id=table.pk, bot="house:random", seat=2)
    return Game.objects.get(table=table), account


def deliveries_of(game: Game, version: int) -> list[WebhookDelivery]:
    return list(WebhookDelivery.objects.filter(game=game, version=version).order_by("id"))


def test_it_sends_a_failed_push_again_until_the_bot_answers(
    celery_worker: WorkerInfo, bot_server: Callable[[Answer], BotServer]
) -> None:
    def answer(view: dict[str, Any], nth: int) -> tuple[int, bytes] | None:
        if nth == 1:
            return None  # hangs up without an answer
        if nth == 2:
            return 503, b'{"error": "busy"}'
        return 200, legal_answer(view)

    server = bot_server(answer)
    game, _ = webhook_table(server, "retry", move_seconds=10)
    wait_until(
        lambda: Game.objects.filter(pk=game.pk, status=Game.Status.FINISHED).exists(),
        timeout=120,
        interval=0.2,
        what="the webhook bot's game to end",
    )
    first = server.pushes[0][0]["version"]
    tries = deliveries_of(game, first)
    assert [d.outcome for d in tries] == ["unreachable", "bad_response", "applied"]
    assert tries[1].http_status == 503
    # The same push three times, byte for byte: the bot tells a duplicate by id and version.
    assert server.bodies[0] == server.bodies[1] == server.bodies[2]
    assert all(view["version"] == first for view, _ in server.pushes[:3])
    # Sent again after the backoff's pauses (1 s, then 2 s).
    gaps = [(b.created_at - a.created_at).total_seconds() for a, b in itertools.pairwise(tries)]
    assert gaps[0] >= 0.9 and gaps[1] >= 1.9, gaps
    # Every later turn was answered at once, and the timer never played for the bot.
    later = WebhookDelivery.objects.filter(game=game).exclude(version=first)
    assert later.exists() and set(later.values_list("outcome", flat=True)) == {"applied"}
    assert not GameEvent.objects.filter(game=game, type="timeout").exists()
    assert GamePlayer.objects.get(game=game, seat=0).timeouts == 0


def test_it_gives_up_on_a_push_after_its_retries_and_the_timer_plays(
    celery_worker: WorkerInfo, bot_server: Callable[[Answer], BotServer]
) -> None:
    from bots.tasks import WEBHOOK_RETRIES

    server = bot_server(lambda view, nth: (500, b"down"))
    game, _ = webhook_table(server, "giveup", move_seconds=10)
    wait_until(
        lambda: GameEvent.objects.filter(game=game, type="timeout").exists(),
        timeout=60,
        interval=0.2,
        what="the move timer to play for the bot",
    )
    first = server.pushes[0][0]["version"]
    tries = deliveries_of(game, first)
    assert len(tries) == 1 + WEBHOOK_RETRIES
    assert {(d.outcome, d.http_status) for d in tries} == {("bad_response", 500)}
    assert GamePlayer.objects.get(game=game, seat=0).timeouts >= 1
    # Nothing more for that turn once it has been played.
    time.sleep(1.5)
    assert len(deliveries_of(game, first)) == 1 + WEBHOOK_RETRIES
    assert sum(view["version"] == first for view, _ in server.pushes) == 1 + WEBHOOK_RETRIES


def test_it_sends_nothing_for_a_turn_that_is_no_longer_the_bots(
    bot_server: Callable[[Answer], BotServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bots.services import PushFailed, change_bot_reach
    from bots.services import push_turn_to_webhook as push

    server = bot_server(lambda view, nth: (500, b"down"))
    owner, _ = register_player("lateowner", password="correct horse battery")
    # Three poll bots: nobody is pushed or plays until the test says so.
    names = [f"late{n}" for n in range(3)]
    for name in names:
        create_bot_account(owner, username=name, mode=BotAccount.Mode.POLL, webhook_url="")
    table = tables.create_table(
        owner, rules={"preset": "classic"}, rated=False, move_seconds=60, seat=None
    )
    for seat, name in enumerate(names):
        tables.seat_bot(owner, table_id=table.pk, bot=name, seat=seat)
    game = Game.objects.get(table=table)
    seat = game.to_act[0]
    account, _ = change_bot_reach(
        owner, username=names[seat], mode=BotAccount.Mode.WEBHOOK, webhook_url=server.url
    )
    server.secret = account.webhook_secret
    turn = {"seat": seat, "player_id": account.player_id, "may_retry": True}

    assert push(game.pk, version=game.version - 1, **turn) == "skipped"  # the game moved on
    # Its time is up: the clock is moved past the deadline in this process only, so that a
    # move timer running for the suite does not play the turn meanwhile.
    assert game.deadline is not None
    past_it = game.deadline + timedelta(seconds=1)
    monkeypatch.setattr(timezone, "now", lambda: past_it)
    assert push(game.pk, version=game.version, **turn) == "skipped"
    monkeypatch.undo()
    assert server.pushes == []
    assert not WebhookDelivery.objects.exists()

    # The same turn within its time is sent, and its failure is raised for a retry.
    with pytest.raises(PushFailed):
        push(game.pk, version=game.version, **turn)
    assert len(server.pushes) == 1
    assert [d.outcome for d in deliveries_of(game, game.version)] == ["bad_response"]
    # The last attempt's failure is only recorded.
    assert push(game.pk, version=game.version, **{**turn, "may_retry": False}) == "bad_response"
