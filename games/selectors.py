"""Reads: tables, game views, events, records and match histories, as a caller may see them.

Hidden information is a security property. Every game view a caller gets is built by
:func:`game_view` from the engine's ``view(seat)`` (a seated player), ``public_view()`` (anyone
else) or, after the end, the full record; every event list by :func:`visible_events`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import connection
from django.db.models import F, Prefetch, Q, QuerySet
from django.shortcuts import get_object_or_404
from django.utils import timezone

from core import json_codec
from core.errors import Conflict, NotFound
from games.engine import Game as Engine
from games.models import (
    Game,
    GameEvent,
    GameJournalPart,
    GamePlayer,
    Player,
    PlayerMessage,
    Table,
    TableSeat,
)

#: Extra fields for match-history entries contributed by other apps (ratings adds the
#: rating change): each takes the page's GamePlayer rows and returns {game_id: {field: value}}.
HISTORY_EXTRAS: list[Callable[[list[GamePlayer]], dict[int, dict[str, Any]]]] = []
#: Extra profile fields from other apps (ratings adds ``ratings``): player → {field: value}.
PROFILE_EXTRAS: list[Callable[[Player], dict[str, Any]]] = []

EVENTS_PAGE = 500


def table_seats(table: Table) -> list[dict[str, Any]]:
    return [
        {
            "seat": s.seat,
            "username": s.player.username if s.player else None,
            "is_bot": bool(s.player and s.player.is_bot),
        }
        for s in table.seat_rows
    ]


def table_data(table: Table) -> dict[str, Any]:
    """A table as the API shows it; ``table`` comes from :func:`tables` or from a seating
    service (``seat_rows``: its seats with their players, by seat; ``game_pk``: its game's
    id; its creator loaded with it)."""
    return {
        "id": table.pk,
        "status": table.status,
        "rules": table.rules,
        "rated": table.rated,
        "move_seconds": table.move_seconds,
        "created_by": table.created_by.username if table.created_by else None,
        "created_at": table.created_at,
        "seats": table_seats(table),
        "game": table.game_pk,
    }


def seats_with_players() -> QuerySet[TableSeat]:
    """Table seats with their players, by seat: a table's ``seat_rows`` (see :func:`tables`
    and the seating services)."""
    return TableSeat.objects.select_related("player")


def tables(status: str | None) -> QuerySet[Table]:
    """Tables with what :func:`table_data` shows, in two queries however many tables: the
    tables with their creators and games' ids, then their seats with their players."""
    queryset = (
        Table.objects.select_related("created_by")
        .annotate(game_pk=F("game__pk"))
        .prefetch_related(Prefetch("seats", queryset=seats_with_players(), to_attr="seat_rows"))
    )
    if status:
        queryset = queryset.filter(status=status)
    return queryset.order_by("-created_at", "-pk")


def table(table_id: int) -> Table:
    return get_object_or_404(tables(None), pk=table_id)


def viewer_seat(game: Game, viewer: Player | None) -> int | None:
    return None if viewer is None else game.seat_of(viewer.pk)


def game_view(game: Game, engine: Engine, seat: int | None) -> dict[str, Any]:
    """The one function that builds a game as a caller may see it.

    ``seat`` is the caller's seat, or None for anyone else. After the game, everyone sees the
    full record (every card is public then).
    """
    finished = game.status == Game.Status.FINISHED
    base = engine.view(None if finished else seat)
    view: dict[str, Any] = {
        **base,
        "id": game.pk,
        "status": game.status,
        "rules": game.rules,
        "rated": game.rated,
        "version": game.version,
        "seats": game.public_seats(),
        "deadline": iso(game.deadline),
        "move_seconds": game.move_seconds,
        "your_seat": seat,
    }
    if finished:
        view["record"] = whole_engine(game, engine).record()
        view["result"] = game.result
    return view


def whole_engine(game: Game, engine: Engine | None = None) -> Engine:
    """The game's engine with its whole journal, which the record needs: ``engine`` (loaded
    from ``game.state``) if it holds it all, else the state loaded with the parts detached
    from it at the hands' ends (games.models.GameJournalPart)."""
    if engine is not None and engine.has_whole_journal:
        return engine
    parts = GameJournalPart.objects.filter(game=game).order_by("number")
    journal = [json.loads(data) for data in parts.values_list("data", flat=True)]
    return game.engine(journal)


def iso(moment: datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment else None


def your_turn_line(game: Game, engine: Engine, seat: int) -> dict[str, Any]:
    """The stream's ``your_turn`` line: the game, the seat, and the seat's view to act on."""
    return {
        "type": "your_turn",
        "game": game.pk,
        "seat": seat,
        "version": game.version,
        "phase": engine.phase,
        "deadline": iso(game.deadline),
        "view": game_view(game, engine, seat),
    }


def game_view_for(game_id: int, viewer: Player | None) -> dict[str, Any]:
    game = get_object_or_404(Game, pk=game_id)
    return game_view(game, game.engine(), viewer_seat(game, viewer))


def visible_events(game: Game, seat: int | None) -> QuerySet[GameEvent]:
    """The events of ``game`` that ``seat`` (None: a spectator) may see; all after the end."""
    events = GameEvent.objects.filter(game=game)
    if game.status == Game.Status.FINISHED:
        return events
    if seat is None:
        return events.filter(public=True)
    return events.annotate(mine=F("seat_mask").bitand(1 << seat)).filter(
        Q(public=True) | Q(mine__gt=0)
    )


def event_data(event: GameEvent) -> dict[str, Any]:
    return {
        "seq": event.seq,
        "type": event.type,
        "at": iso(event.at),
        **event.payload,
    }


def events_after(game_id: int, viewer: Player | None, after: int) -> dict[str, Any]:
    """``{"events": [...], "version"}``: what the caller may see with ``seq > after``.

    Only the events up to the game row's ``last_seq``: a move committed between reading
    the row and reading the events would otherwise come with the version, status and
    visibility of the game before it (the next look brings it, woken by its move)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        raise NotFound("not_found", "No such game.")
    seat = viewer_seat(game, viewer)
    rows = (
        visible_events(game, seat)
        .filter(seq__gt=after, seq__lte=game.last_seq)
        .order_by("seq")[:EVENTS_PAGE]
    )
    return {
        "events": [event_data(e) for e in rows],
        "version": game.version,
        "last_seq": game.last_seq,
        "status": game.status,
    }


def game_record(game_id: int) -> dict[str, Any]:
    game = get_object_or_404(Game, pk=game_id)
    if game.status != Game.Status.FINISHED:
        raise Conflict("game_in_progress", "The record is published when the game ends.")
    record = whole_engine(game).record()
    return {"game": game.pk, "seats": game.public_seats(), **record}


# --- Streams --------------------------------------------------------------------------------


#: A stream's cursor moves past a message id once a look began this long after the id was
#: delivered. It assumes that no transaction writing stream messages takes longer than this
#: to commit (a move takes milliseconds; the longest, opening a tournament round, about
#: 19 ms a table: 1.9 s for 100 tables); the stream logs every line it finds out of id
#: order, with how late it was, to check this. SQLite runs one writer at a time, so its
#: ids show in order: no wait.
STREAM_SETTLE_SECONDS = 20.0
#: At most this many ids are remembered above the settled one: each look reads the rows
#: of its player back to the settled id (measured on PostgreSQL: 0.16 ms of its CPU a look
#: with 20 ids left out, 3.3 ms with 1,000), so a stream getting more than about a dozen
#: lines a second moves on sooner than the settle time.
STREAM_RECENT_MAX = 256
STREAM_PAGE = 100


@dataclass
class StreamCursor:
    """Where a stream is in its player's messages.

    Message ids come from one sequence, but transactions commit in their own order: on
    PostgreSQL a message can become visible after one with a higher id (a bot account's
    moves in two games committing out of order). A cursor moved to the highest id delivered
    would skip the lower one for good, and the bot would miss its turn. So the cursor moves
    only past ids delivered at least ``settle_seconds`` before a look began, when every
    transaction that took a lower id has ended and been looked at, and remembers the ids
    delivered above it (``recent``), which the next looks leave out.
    """

    settled: int
    recent: dict[int, float] = field(default_factory=dict)  # id -> when delivered
    settle_seconds: float = STREAM_SETTLE_SECONDS

    def delivered(self, message_id: int, now: float) -> None:
        self.recent[message_id] = now

    def has_sent(self, message_id: int) -> bool:
        """Whether the stream sent this message already (or moved past it)."""
        return message_id <= self.settled or message_id in self.recent

    def settle(self, looked: float) -> None:
        """Move past what was delivered long enough before the look that began at
        ``looked`` (call it only after a look that returned every line there was)."""
        old = [i for i, at in self.recent.items() if looked - at >= self.settle_seconds]
        if len(self.recent) > STREAM_RECENT_MAX:
            old.append(sorted(self.recent)[-STREAM_RECENT_MAX - 1])
        if old:
            self.settled = max(self.settled, *old)
            self.recent = {i: at for i, at in self.recent.items() if i > self.settled}


def stream_cursor(player: Player, now: float) -> StreamCursor:
    """A new stream's cursor: past every message there is (a stream sends what comes after
    it connects; pending turns are sent apart). Messages younger than the settle time count
    as delivered rather than settled, so one committing later with a lower id still goes
    out."""
    if connection.vendor != "postgresql":
        ids = PlayerMessage.objects.filter(player=player).order_by("-id")
        return StreamCursor(ids.values_list("id", flat=True).first() or 0, settle_seconds=0.0)
    table = PlayerMessage._meta.db_table
    cutoff = timezone.now() - timedelta(seconds=STREAM_SETTLE_SECONDS)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM {table} WHERE player_id = %s AND created_at < %s"
            " ORDER BY id DESC LIMIT 1",
            [player.pk, cutoff],
        )
        row = cursor.fetchone()
        settled = row[0] if row else 0
        cursor.execute(
            f"SELECT id FROM {table} WHERE player_id = %s AND id > %s", [player.pk, settled]
        )
        recent = {message_id: now for (message_id,) in cursor.fetchall()}
    return StreamCursor(settled, recent)


def stream_lines_after(
    player: Player, after_id: int, exclude_ids: Collection[int] = ()
) -> list[tuple[int, bytes, datetime]]:
    """The caller's next stream messages as (id, NDJSON line, created at), oldest first, at
    most ``STREAM_PAGE``: those above ``after_id`` but not in ``exclude_ids`` (the ids a
    :class:`StreamCursor` delivered above it).

    Raw SQL, and the line is spliced from the stored JSON text: every stream runs this after
    each wake-up, and compiling the ORM's query, then decoding the payload (a seat's whole
    view, growing with the game) only to encode it again, cost more than the query itself.
    A payload key ``type`` would come after ours and win, as ``{"type": t, **payload}`` did.
    """
    exclude = list(exclude_ids)
    params: list[Any] = [player.pk, after_id]
    not_delivered = ""
    if connection.vendor == "postgresql":
        # One array parameter: the statement's text stays the same whatever the count.
        not_delivered = " AND NOT (id = ANY(%s))"
        params.append(exclude)
    elif exclude:
        not_delivered = f" AND id NOT IN ({', '.join(['%s'] * len(exclude))})"
        params.extend(exclude)
    sql = (
        f"SELECT id, type, payload, created_at FROM {PlayerMessage._meta.db_table}"
        f" WHERE player_id = %s AND id > %s{not_delivered} ORDER BY id LIMIT {STREAM_PAGE}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [
        (message_id, stream_line(message_type, payload), created_at)
        for message_id, message_type, payload, created_at in rows
    ]


def stream_line(message_type: str, payload: str | dict[str, Any]) -> bytes:
    """A stream message's NDJSON line, ``{"type": ..., **payload}``; a payload given as JSON
    text is spliced in, not decoded and encoded again."""
    text = payload.encode() if isinstance(payload, str) else json_codec.dumps(payload)
    body = text.strip()[1:].lstrip()
    head = b'{"type":' + json_codec.dumps(message_type)
    return head + (b"," if body != b"}" else b"") + body + b"\n"


def pending_turns(player: Player) -> list[dict[str, Any]]:
    """A ``your_turn`` line for every game waiting on ``player`` now."""
    rows = (
        GamePlayer.objects.filter(game__status=Game.Status.PLAYING)
        .filter(Q(player=player, replaced_by__isnull=True) | Q(replaced_by=player))
        .select_related("game")
    )
    turns = []
    for gp in rows:
        if gp.seat in gp.game.to_act:
            game = gp.game
            turns.append(your_turn_line(game, game.engine(), gp.seat))
    return turns


# --- Players and histories ------------------------------------------------------------------


def player(username: str) -> Player:
    found = Player.objects.filter(username=username, is_active=True).first()
    if found is None:
        raise NotFound("not_found", f"No player '{username}'.")
    return found


def player_profile(username: str) -> dict[str, Any]:
    found = player(username)
    finished = GamePlayer.objects.filter(player=found, game__status=Game.Status.FINISHED)
    profile = {
        "username": found.username,
        "is_bot": found.is_bot,
        "owner": found.owner.username if found.owner else None,
        "joined": found.date_joined,
        "games_played": finished.count(),
        "games_won": finished.filter(rank=1).count(),
        "games_in_progress": GamePlayer.objects.filter(
            player=found, game__status=Game.Status.PLAYING
        ).count(),
    }
    for contribute in PROFILE_EXTRAS:
        profile.update(contribute(found))
    return profile


def player_history(username: str, preset: str | None, result: str | None) -> QuerySet[GamePlayer]:
    found = player(username)
    rows = GamePlayer.objects.filter(player=found, game__status=Game.Status.FINISHED)
    if preset:
        rows = rows.filter(game__rules__preset=preset)
    if result:
        rows = rows.filter(result=result)
    return rows.select_related("game").order_by("-game__finished_at", "-game_id")


def history_entries(rows: list[GamePlayer]) -> list[dict[str, Any]]:
    games = {gp.game_id for gp in rows}
    seats: dict[int, list[GamePlayer]] = {}
    for gp in GamePlayer.objects.filter(game_id__in=games).select_related("player"):
        seats.setdefault(gp.game_id, []).append(gp)
    extras: dict[int, dict[str, Any]] = {}
    for contribute in HISTORY_EXTRAS:
        for game_id, fields in contribute(rows).items():
            extras.setdefault(game_id, {}).update(fields)
    entries = []
    for gp in rows:
        table = sorted(seats.get(gp.game_id, []), key=lambda x: x.seat)
        entries.append(
            {
                "game": gp.game_id,
                "finished_at": gp.game.finished_at,
                "rules": gp.game.rules,
                "rated": gp.game.rated,
                "seat": gp.seat,
                "seats": [
                    {
                        "seat": x.seat,
                        "username": x.player.username,
                        "is_bot": x.player.is_bot,
                        "rank": x.rank,
                        "score": x.score,
                    }
                    for x in table
                ],
                "rank": gp.rank,
                "score": gp.score,
                "result": gp.result,
                "rating_change": None,
                **extras.get(gp.game_id, {}),
            }
        )
    return entries
