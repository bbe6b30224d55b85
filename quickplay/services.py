"""Quick play: joining and leaving the queue, and the matching that seats seekers together.

Matching (:func:`match_seeks`) runs on the Celery worker: a task asked for when a seek is
made, and beat's ``quickplay.match`` every second for the house-bot fills that come due and
any task that was lost. It is fair (the oldest open seek is seated first, with the oldest
compatible others) and never seats a seek twice, nor one account twice at a table (one open
seek per account, enforced by the database) -- whatever number of workers run it at once:
see :func:`_match_group` for the locks.

A seek not seated by its ``expires_at`` (:func:`expiry_of`) leaves the queue: the matcher
never takes one past its time, a seek read past its time shows as expired, and beat's
``quickplay.expire_due`` (:func:`expire_due_seeks`) marks it so and sends its seeker a
``seek_expired`` line.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections.abc import Sequence
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import Player
from accounts.services import house_bot, refuse_guest
from core.errors import Conflict, DomainError, Invalid, NotAllowed, NotFound
from games.tables import parse_rules, start_seated_game
from quickplay import selectors
from quickplay.models import Seek
from ratings.pools import pool_of
from ratings.selectors import current_rating
from realtime import delivery

logger = logging.getLogger(__name__)

#: The house bot that fills the seats still empty after a seek's ``house_bots_after``.
FILL_BOT = "house:heuristic"
#: The task that runs :func:`match_seeks` (quickplay/tasks.py), sent by name: the tasks
#: module imports this one.
MATCH_TASK = "quickplay.match"
#: Beat's sweep of the seeks past their time (quickplay/tasks.py).
EXPIRE_TASK = "quickplay.expire_due"
#: A match task not started within this long is dropped: beat's next one does the same work.
MATCH_TASK_EXPIRES = 10.0
#: Seeks expired by one sweep at most (the next sweep takes the rest).
EXPIRY_BATCH = 500
_shuffle = secrets.SystemRandom().shuffle


def group_of(rules: dict[str, object], rated: bool, move_seconds: int) -> str:
    """What seeks that may share a table have in common, as a digest: the same rules (as
    the engine normalises them), rated or not, and move time."""
    key = json.dumps([rules, rated, move_seconds], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(key.encode()).hexdigest()


def rating_for_matching(player: Player, rules: dict[str, object]) -> float:
    """The rating seekers are matched by: the player's mu in the rules' pool (a newcomer's
    25 when never rated there). Not the ordinal (mu - 3 sigma), which puts every newcomer at
    0 whatever their skill: matching wants the best estimate, not the cautious one."""
    return current_rating(player.pk, pool_of(rules)).skill.mu


def expiry_of(made_at: datetime, house_bots_after: int | None) -> datetime:
    """When a seek made at ``made_at`` leaves the queue if nobody has seated it:
    ``QUICKPLAY_SEEK_SECONDS`` later, counted from its house-bot fill (``house_bots_after``)
    when it asked for one, so that the fill always comes first."""
    seconds = settings.QUICKPLAY_SEEK_SECONDS + (house_bots_after or 0)
    return made_at + timedelta(seconds=seconds)


def create_seek(
    player: Player,
    *,
    rules: object,
    rated: bool,
    move_seconds: int,
    rating_range: Sequence[float] | None = None,
    house_bots_after: int | None = None,
) -> Seek:
    """Join the quick-play queue: 409 ``already_seeking`` if the player has an open seek (one
    past its time does not count: it is marked expired first)."""
    if player.is_house_bot:
        raise NotAllowed("house_bots_do_not_seek", "House bots are seated, they do not seek.")
    if rated:
        refuse_guest(player, doing="play rated games")
    normalised = parse_rules(rules).to_dict()
    low, high = (None, None) if rating_range is None else rating_range
    if low is not None and high is not None and low > high:
        message = "The rating range's minimum is above its maximum."
        raise Invalid("invalid", message, fields={"rating_range": [message]})
    now = timezone.now()
    try:
        with transaction.atomic():
            # A seek of the player's past its time is out of the queue: it makes way.
            ran_out = _open_seeks().filter(player=player, expires_at__lte=now)
            _expire(list(ran_out.select_for_update()))
            seek = Seek.objects.create(
                player=player,
                rules=normalised,
                rated=rated,
                move_seconds=move_seconds,
                group=group_of(normalised, rated, move_seconds),
                rating=rating_for_matching(player, normalised),
                rating_min=low,
                rating_max=high,
                house_bots_after=house_bots_after,
                expires_at=expiry_of(now, house_bots_after),
            )
    except IntegrityError as error:  # the one open seek per player constraint
        raise Conflict(
            "already_seeking", "You already have an open seek; leave it to make another."
        ) from error
    transaction.on_commit(ask_for_matching)
    return seek


def cancel_seek(player: Player, *, seek_id: int) -> Seek:
    """Leave the queue: the seek's player only (another's seek is 404, as it is to read),
    while it is open. One found past its time is marked expired (its ``seek_expired`` line
    sent) and refused with 409 ``seek_expired`` once that has committed."""
    with transaction.atomic():
        # The row lock orders this against a matcher holding the seek (services._match_group).
        seek = Seek.objects.select_for_update().filter(pk=seek_id).first()
        if seek is None or seek.player_id != player.pk:
            raise NotFound("not_found", "No such seek.")
        if seek.status == Seek.Status.SEATED:
            raise Conflict("seek_seated", "This seek is seated already: its game has started.")
        if seek.status == Seek.Status.CANCELED:
            raise Conflict("seek_canceled", "This seek has left the queue already.")
        if seek.status == Seek.Status.OPEN and seek.expires_at <= timezone.now():
            _expire([seek])
        if seek.status == Seek.Status.OPEN:
            seek.status = Seek.Status.CANCELED
            seek.save(update_fields=["status"])
    if seek.status == Seek.Status.EXPIRED:
        raise Conflict("seek_expired", "This seek's time ran out: it has left the queue.")
    return seek


def ask_for_matching() -> None:
    """Send the worker a match task. Best effort: if the broker cannot take it, beat's
    periodic one matches the seek a second later."""
    try:
        current_app.send_task(MATCH_TASK, expires=MATCH_TASK_EXPIRES)
    except Exception:
        logger.exception("could not send %s; beat's next one will match", MATCH_TASK)


# --- Matching ------------------------------------------------------------------------------


def accepts(seek: Seek, rating: float) -> bool:
    """Whether ``rating`` is inside the seek's range."""
    if seek.rating_min is not None and rating < seek.rating_min:
        return False
    return seek.rating_max is None or rating <= seek.rating_max


def compatible(a: Seek, b: Seek) -> bool:
    """Two seeks of one group may share a table: other accounts, each inside the other's range."""
    return a.player_id != b.player_id and accepts(a, b.rating) and accepts(b, a.rating)


def waited_for_bots(seek: Seek, now: datetime) -> bool:
    """Whether the seek asked for house bots and has waited its ``house_bots_after``."""
    if seek.house_bots_after is None:
        return False
    return (now - seek.created_at).total_seconds() >= seek.house_bots_after


def _gather(first: Seek, others: Sequence[Seek], size: int) -> list[Seek]:
    """``first`` and the oldest of ``others`` that are compatible with everyone gathered."""
    table = [first]
    for other in others:
        if len(table) == size:
            break
        if all(compatible(other, seated) for seated in table):
            table.append(other)
    return table


def plan_tables(seeks: Sequence[Seek], *, size: int, now: datetime) -> list[list[Seek]]:
    """The tables to seat from one group's open ``seeks`` (oldest first): each a list of
    seeks, fewer than ``size`` when the rest are house bots.

    Oldest first: the oldest seek takes the oldest compatible others. When they cannot fill
    a table and the oldest has waited its ``house_bots_after``, it is seated with those of
    them that accept house bots (their own wait need not be over: a person in place of a
    bot, sooner, is what they would choose; two friends seeking together so meet), and
    house bots in the other seats; someone who did not ask for bots is never given any.
    Otherwise it keeps waiting, and the younger seeks are matched among themselves.
    """
    waiting = list(seeks)
    tables: list[list[Seek]] = []
    while waiting:
        first, rest = waiting[0], waiting[1:]
        table = _gather(first, rest, size)
        if len(table) < size:
            if not waited_for_bots(first, now):
                waiting.remove(first)
                continue
            table = _gather(first, [s for s in rest if s.house_bots_after is not None], size)
        tables.append(table)
        waiting = [s for s in waiting if s not in table]
    return tables


def _open_seeks() -> QuerySet[Seek]:
    return Seek.objects.filter(status=Seek.Status.OPEN)


def match_seeks(now: datetime | None = None) -> list[int]:
    """Seat every table the open seeks make now; the games started, by id."""
    live = _open_seeks().filter(expires_at__gt=now or timezone.now())
    groups = list(live.values_list("group", flat=True).distinct().order_by())
    started: list[int] = []
    for group in sorted(groups):
        started += _match_group(group, now)
    return started


def _lock_group(group: str) -> None:
    """One matcher of a group at a time (PostgreSQL): a transaction-scoped advisory lock,
    taken before the seeks are read. A second matcher waits for the first to commit and then
    reads the seeks as they are after it, so the two never plan from the same open seeks.

    SQLite (the embedded default) needs none: its transactions here begin IMMEDIATE
    (config/settings/base.py), holding the database's one write lock from the start, so
    matchers run one after another there anyway.
    """
    if connection.vendor != "postgresql":
        return
    key = int.from_bytes(hashlib.sha256(b"quickplay:" + group.encode()).digest()[:8], "big")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key - 2**63])


def _match_group(group: str, now: datetime | None) -> list[int]:
    started: list[int] = []
    with transaction.atomic():
        _lock_group(group)
        when = now or timezone.now()
        # The seeks' row locks order the matcher and a seeker leaving the queue
        # (cancel_seek): whichever comes second sees the other's change. A seek past its
        # time is never taken, whether or not the sweep has marked it expired yet.
        seeks = list(
            _open_seeks()
            .filter(group=group, expires_at__gt=when)
            .select_for_update(of=("self",))
            .select_related("player")
            .order_by("created_at", "pk")
        )
        if not seeks:
            return started
        size = parse_rules(seeks[0].rules).players
        for table in plan_tables(seeks, size=size, now=when):
            try:
                with transaction.atomic():  # one table: all of it or none
                    started.append(_seat(table, size=size, now=when))
            except DomainError:
                # Not expected (the seeks were checked); the others' tables still go ahead,
                # and these seeks stay open for the next look.
                logger.exception("could not seat seeks %s", [s.pk for s in table])
    return started


def _seat(table: list[Seek], *, size: int, now: datetime) -> int:
    """Start the game of ``table`` (seeks, house bots in the seats left), seats in random
    order, the oldest seeker its table's creator; mark the seeks seated."""
    first = table[0]
    players = [seek.player for seek in table]
    players += [house_bot(FILL_BOT)] * (size - len(players))
    _shuffle(players)
    game = start_seated_game(
        first.player,
        rules=first.rules,
        rated=first.rated,
        move_seconds=first.move_seconds,
        players=players,
    )
    ids = [seek.pk for seek in table]
    marked = (
        _open_seeks().filter(pk__in=ids).update(status=Seek.Status.SEATED, game=game, seated_at=now)
    )
    if marked != len(ids):  # the locks above make this impossible; never seat a seek twice
        raise RuntimeError(f"seeks {ids} were not all open")
    return int(game.pk)


# --- Expiry --------------------------------------------------------------------------------


def _expire(seeks: Sequence[Seek]) -> None:
    """Mark these open seeks (locked, or read in the transaction that changes them) expired,
    inside the caller's transaction, and send each seeker a ``seek_expired`` line with its
    seek once it commits."""
    if not seeks:
        return
    _open_seeks().filter(pk__in=[s.pk for s in seeks]).update(status=Seek.Status.EXPIRED)
    for seek in seeks:
        seek.status = Seek.Status.EXPIRED
    messages = delivery.PlayerMessage.objects.bulk_create(
        delivery.message(seek.player_id, type="seek_expired", payload=_line_payload(seek))
        for seek in seeks
    )
    delivery.announce_on_commit(player_ids=[s.player_id for s in seeks], messages=messages)


def _line_payload(seek: Seek) -> dict[str, object]:
    return {"seek": selectors.seek_data(seek)}


def expire_due_seeks(now: datetime | None = None) -> int:
    """Beat's sweep: mark expired the open seeks past their ``expires_at`` (``seek_expired``
    to each seeker); returns how many. A seek whose row is locked (a matcher seating it
    from a read made before its time, or its seeker leaving) is left to that change, or to
    the next sweep."""
    when = now or timezone.now()
    with transaction.atomic():
        due = list(
            _open_seeks()
            .filter(expires_at__lte=when)
            .select_for_update(of=("self",), skip_locked=True)
            .order_by("expires_at", "pk")[:EXPIRY_BATCH]
        )
        _expire(due)
    return len(due)
