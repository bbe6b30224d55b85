"""Bot accounts, and the turns of bots: house bots in-process, webhook bots over HTTP."""

from __future__ import annotations

import json
import logging
import random
import secrets
import time
from datetime import timedelta
from typing import Any

import httpx
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone
from sergeant_sdk import SIGNATURE_HEADER, signature

from accounts.models import HOUSE_BOT_PREFIX, Player
from accounts.services import create_bot_player, owned_bot
from bots.models import BotAccount, WebhookDelivery
from bots.outbound import ReplyTooLarge, Unresolvable, UnsafeUrl, post, resolve_target
from bots.strategies import choose_action
from core.errors import DomainError, Invalid
from games.errors import IllegalMove, TurnGone
from games.models import Game
from games.play import act_for_seat, submit_action
from games.selectors import game_view

log = logging.getLogger(__name__)


def create_bot_account(
    owner: Player, *, username: str, mode: str, webhook_url: str
) -> tuple[BotAccount, str]:
    """A bot account owned by ``owner``; returns it and its token key."""
    _check_reach(mode, webhook_url)
    with transaction.atomic():
        player, key = create_bot_player(owner, username=username)
        account = BotAccount.objects.create(
            player=player,
            mode=mode,
            webhook_url=webhook_url if mode == BotAccount.Mode.WEBHOOK else "",
            webhook_secret=secrets.token_urlsafe(32) if mode == BotAccount.Mode.WEBHOOK else "",
        )
    return account, key


def change_bot_reach(
    owner: Player, *, username: str, mode: str | None, webhook_url: str | None
) -> tuple[BotAccount, bool]:
    """How the owner's bot ``username`` is reached: its ``mode`` and ``webhook_url`` (None:
    unchanged), checked as at creation. Returns the account and whether its webhook secret
    is new (switching to webhook mode makes one: the owner is shown it then, as at creation;
    a webhook bot that only moves to another URL keeps its secret)."""
    with transaction.atomic():
        bot = owned_bot(owner, username=username)
        account = BotAccount.objects.select_for_update().get(player=bot)
        new_mode = mode or account.mode
        url = account.webhook_url if webhook_url is None else webhook_url
        if new_mode == BotAccount.Mode.POLL and webhook_url:
            # Kept silently, it would look taken while no call goes to it.
            raise Invalid(
                "invalid",
                "A bot in poll mode has no webhook_url; send mode webhook with it.",
                fields={"webhook_url": ["Only in webhook mode."]},
            )
        _check_reach(new_mode, url)
        new_secret = new_mode == BotAccount.Mode.WEBHOOK and not account.webhook_secret
        account.mode = new_mode
        account.webhook_url = url if new_mode == BotAccount.Mode.WEBHOOK else ""
        if new_secret:
            account.webhook_secret = secrets.token_urlsafe(32)
        elif new_mode == BotAccount.Mode.POLL:
            account.webhook_secret = ""
        account.save(update_fields=["mode", "webhook_url", "webhook_secret"])
    return account, new_secret


def _check_reach(mode: str, webhook_url: str) -> None:
    """A webhook bot needs a URL whose host is not a private address."""
    if mode != BotAccount.Mode.WEBHOOK:
        return
    if not webhook_url:
        raise Invalid(
            "invalid",
            "A webhook bot needs a webhook_url.",
            fields={"webhook_url": ["Required in webhook mode."]},
        )
    try:
        resolve_target(webhook_url, settings.BOT_WEBHOOK_ALLOW_PRIVATE)
    except Unresolvable:
        pass  # DNS may not be set up yet; checked again before every call
    except UnsafeUrl as error:
        raise Invalid("invalid", str(error), fields={"webhook_url": [str(error)]}) from error


# --- Playing turns ------------------------------------------------------------------------


#: A house bot task goes on playing the game's next house-bot turns itself for up to this
#: long (no Celery hop, no re-read between moves), then leaves the next one to a new task,
#: so that one game cannot hold a worker process for long.
HOUSE_CHAIN_SECONDS = 0.2


def play_house_turn(game_id: int, *, seat: int, version: int, bot: str) -> int:
    """House bot ``bot`` acts for ``seat`` of the game as it was at ``version``, then plays
    the house-bot turns that follow (see ``HOUSE_CHAIN_SECONDS``).

    Each bot is given its seat's view only (never the full state). A game that moved on
    meanwhile is left alone. Returns the number of moves made.
    """
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.status != Game.Status.PLAYING or game.version != version:
        return 0
    give_up_at = time.monotonic() + HOUSE_CHAIN_SECONDS
    moves = 0
    while True:
        view = game.engine().view(seat)
        if not view["legal_actions"]:
            return moves
        action = choose_action(bot, view, random.Random(), settings.HOUSE_BOT_BUDGET_SECONDS)
        # Within its time, the chain plays the house-bot turn that follows itself, so the
        # move does not announce it; its last move announces it like any other, and the
        # turn goes to a new task (bots.receivers).
        chaining = time.monotonic() < give_up_at
        try:
            moved = act_for_seat(
                game_id,
                seat=seat,
                action=action,
                expected_version=version,
                announce_house_turns=not chaining,
            )
        except IllegalMove as error:
            # A house bot's illegal action is a bug: log it loudly; the move timer plays for it.
            log.error(
                "house bot %s chose an illegal action %s in game %s: %s",
                bot,
                action,
                game_id,
                error,
            )
            return moves
        if moved is None:
            return moves
        moves += 1
        following = next_house_turn(moved) if chaining else None
        if following is None:
            return moves
        game, (seat, bot), version = moved, following, moved.version


def next_house_turn(game: Game) -> tuple[int, str] | None:
    """The first seat due that a house bot plays, and the bot's name."""
    if game.status != Game.Status.PLAYING:
        return None
    for seat in game.to_act:
        _, username, _ = game.acting_identity(seat)
        if username.startswith(HOUSE_BOT_PREFIX):
            return seat, username
    return None


#: A house bot's turn waiting this long is taken for lost and sent again: its task died with
#: a killed worker, or could not be enqueued while the broker was down. A turn sent twice is
#: played once (the task leaves a game that moved on from its version alone).
STALLED_TURN_SECONDS = 3.0


def stalled_house_turns() -> list[tuple[int, int, int, str]]:
    """(game, seat, version, bot) of the house-bot turns of the games in play that have
    waited longer than ``STALLED_TURN_SECONDS``: beat sends them again every few seconds
    (``bots.tasks.resend_stalled_house_turns``).

    A turn's start is its deadline less the table's move time. Reads the small columns of
    the games in play, not their states.
    """
    stalled_since = timezone.now() - timedelta(seconds=STALLED_TURN_SECONDS)
    waiting = Game.objects.filter(status=Game.Status.PLAYING, deadline__isnull=False).only(
        "id", "version", "to_act", "seats", "deadline", "move_seconds"
    )
    stalled = []
    for game in waiting:
        assert game.deadline is not None
        if game.deadline - timedelta(seconds=game.move_seconds) > stalled_since:
            continue
        turn = next_house_turn(game)
        if turn is not None:
            stalled.append((game.pk, turn[0], game.version, turn[1]))
    return stalled


class PushFailed(Exception):
    """A push that did not reach the bot or that it refused (a network error, a timeout, an
    HTTP error status): worth sending again while the turn is still the bot's."""


def push_turn_to_webhook(
    game_id: int, *, seat: int, version: int, player_id: int, may_retry: bool = False
) -> str:
    """POST the seat's game view to the bot's webhook and apply the action it answers.

    Nothing is sent for a turn that is no longer the bot's: the game moved on from
    ``version``, or its move deadline has passed (the timer plays it). The answer goes
    through the API's own service (``submit_action`` with the bot's account and
    ``expected_version``). A late, failing or illegal answer is recorded as a
    :class:`WebhookDelivery` on the game and left to the move deadline; with ``may_retry``,
    a push that failed on the way (unreachable, or an HTTP error status) raises
    :class:`PushFailed` after being recorded, for the task to send it again. Returns the
    outcome.
    """
    account = BotAccount.objects.select_related("player").filter(player_id=player_id).first()
    game = Game.objects.filter(pk=game_id).first()
    if account is None or account.mode != BotAccount.Mode.WEBHOOK or game is None:
        return "skipped"
    if game.status != Game.Status.PLAYING or game.version != version:
        return "skipped"
    if game.deadline is not None and game.deadline <= timezone.now():
        return "skipped"
    # The same bytes on every attempt: a bot that gets a push twice tells it by the view's
    # ``id`` and ``version``.
    body = json.dumps(game_view(game, game.engine(), seat), cls=DjangoJSONEncoder).encode()
    started = time.monotonic()

    def record(outcome: str, detail: str = "", status: int | None = None) -> str:
        WebhookDelivery.objects.create(
            game=game,
            bot=account,
            seat=seat,
            version=version,
            outcome=outcome,
            http_status=status,
            detail=detail[:2000],
            duration_ms=int((time.monotonic() - started) * 1000),
        )
        return outcome

    def failed(outcome: str, detail: str, status: int | None = None) -> str:
        record(outcome, detail, status)
        if may_retry:
            raise PushFailed(f"{outcome}: {detail}")
        return outcome

    try:
        target = resolve_target(account.webhook_url, settings.BOT_WEBHOOK_ALLOW_PRIVATE)
        reply = post(
            target,
            body,
            headers={
                "Content-Type": "application/json",
                "User-Agent": "sergeant-major-webhook/1",
                SIGNATURE_HEADER: signature(account.webhook_secret, body),
            },
            connect_timeout=settings.BOT_WEBHOOK_CONNECT_TIMEOUT,
            read_timeout=min(float(game.move_seconds), settings.BOT_WEBHOOK_READ_TIMEOUT),
            max_bytes=settings.BOT_WEBHOOK_MAX_REPLY_BYTES,
        )
    except (Unresolvable, httpx.HTTPError) as error:
        return failed(WebhookDelivery.Outcome.UNREACHABLE, f"{type(error).__name__}: {error}")
    except UnsafeUrl as error:  # a refused address stays refused: not sent again
        return record(WebhookDelivery.Outcome.UNREACHABLE, f"{type(error).__name__}: {error}")
    except ReplyTooLarge as error:
        return record(WebhookDelivery.Outcome.BAD_RESPONSE, str(error))
    if not 200 <= reply.status < 300:
        return failed(WebhookDelivery.Outcome.BAD_RESPONSE, "HTTP error", reply.status)
    action = _answered_action(reply.body)
    if action is None:
        if reply.body.strip() in (b"", b"{}"):
            return record(WebhookDelivery.Outcome.DEFERRED, "", reply.status)
        return record(
            WebhookDelivery.Outcome.BAD_RESPONSE,
            'expected {"action": {...}}: ' + reply.body[:200].decode(errors="replace"),
            reply.status,
        )
    try:
        submit_action(account.player, game_id=game_id, action=action, expected_version=version)
    except DomainError as error:
        stale = isinstance(error, TurnGone)
        outcome = WebhookDelivery.Outcome.STALE if stale else WebhookDelivery.Outcome.ILLEGAL
        return record(
            outcome, f"{error.code}: {error.message} {json.dumps(action)[:500]}", reply.status
        )
    return record(WebhookDelivery.Outcome.APPLIED, "", reply.status)


def _answered_action(body: bytes) -> dict[str, Any] | None:
    try:
        answer = json.loads(body)
    except ValueError:
        return None
    if isinstance(answer, dict) and isinstance(answer.get("action"), dict):
        return answer["action"]
    return None
