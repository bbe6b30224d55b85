"""Reads: tables, game views, events, records and match histories, as a caller may see them.

Hidden information is a security property. Every game view a caller gets is built by
:func:`game_view` from the engine's ``view(seat)`` (a seated player), ``public_view()`` (anyone
else) or, after the end, the full record; every event list by :func:`visible_events`; the
seat they are for, by :func:`viewer_seat`, which applies the caller's token's scopes.

A game dealt from deals other games still play (a duplicate tournament's round) is under
embargo (:func:`deals_embargoed`): nobody but its seated players sees it, and they see only
their seat's view, even after its end, until the last game playing its deals has ended.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol

from django.conf import settings
from django.db.models import F, Prefetch, Q, QuerySet
from django.shortcuts import get_object_or_404

from accounts.models import Player
from accounts.selectors import active_player
from core.errors import Conflict, NotFound
from games.engine import Game as Engine
from games.engine.deal import seed_commitment
from games.models import Game, GameEvent, GameJournalPart, GamePlayer, Table, TableSeat
from games.record_check import check_record
from games.records import public_key, sign_record

#: Extra fields for match-history entries contributed by other apps (ratings adds the
#: rating change): each takes the page's GamePlayer rows and returns {game_id: {field: value}}.
HISTORY_EXTRAS: list[Callable[[list[GamePlayer]], dict[int, dict[str, Any]]]] = []
#: Extra profile fields from other apps (ratings adds ``ratings``): player → {field: value}.
PROFILE_EXTRAS: list[Callable[[Player], dict[str, Any]]] = []

#: Embargoes on games' deals contributed by other apps (tournaments: a duplicate round still
#: in play): each takes a game with ``deals_shared`` and says whether other games still play
#: its deals. See :func:`deals_embargoed`.
EMBARGOES: list[Callable[[Game], bool]] = []

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
        "duplicate_of": table.duplicate_of_id,
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


class Seated(Protocol):
    """Whatever knows a game's seats: its row, or what a live feed keeps of it."""

    def seat_of(self, player_id: int) -> int | None: ...


def viewer_seat(game: Seated, viewer: Player | None) -> int | None:
    """The seat whose private view ``viewer`` gets: its own, if it may play (an API token
    needs the ``play`` scope: an organise-only token sees what a spectator sees); else None.
    Every game view and event list a caller gets is decided here."""
    if viewer is None or not viewer.may_play:
        return None
    return game.seat_of(viewer.pk)


def deals_embargoed(game: Game) -> bool:
    """Whether ``game``'s deals are still being played at other tables (an organiser's
    duplicate round, ``EMBARGOES``): then it is shown to its own seats only, each its own
    view, and its record is withheld, even after its end."""
    return game.deals_shared and any(embargo(game) for embargo in EMBARGOES)


def game_view(
    game: Game, engine: Engine, seat: int | None, *, embargoed: bool = False
) -> dict[str, Any]:
    """The one function that builds a game as a caller may see it.

    ``seat`` is the caller's seat, or None for anyone else. After the game, everyone sees the
    full record (every card is public then), unless its deals are ``embargoed``
    (:func:`deals_embargoed`; callers that show a game to others than its seats check it):
    then a seat sees its own view as during play.
    """
    finished = game.status == Game.Status.FINISHED
    open_record = finished and not embargoed
    base = engine.view(None if open_record else seat)
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
        # The commitment to the shuffle, from the first view on (docs/rules.md, "Fair and
        # verifiable deals"); the seed itself only in the record, after the end.
        "seed_commitment": seed_commitment(game.seed),
        "duplicate_of": game.duplicate_of_id,
    }
    if seat is not None and game.played_by(seat):  # a bot plays the seat now, not its viewer
        view["legal_actions"] = []
    if finished:
        view["result"] = game.result
    if open_record:
        view["record"] = whole_engine(game, engine).record()
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


def embargo_refusal() -> Conflict:
    return Conflict(
        "deals_embargoed",
        "Other tables are still playing these deals; this game is shown to its own players "
        "until they have finished.",
    )


def game_view_for(game_id: int, viewer: Player | None) -> dict[str, Any]:
    game = get_object_or_404(Game, pk=game_id)
    seat = viewer_seat(game, viewer)
    embargoed = deals_embargoed(game)
    if embargoed and seat is None:
        raise embargo_refusal()
    return game_view(game, game.engine(), seat, embargoed=embargoed)


def visible_events(game: Game, seat: int | None, *, embargoed: bool = False) -> QuerySet[GameEvent]:
    """The events of ``game`` that ``seat`` (None: a spectator) may see; all after the end
    unless its deals are ``embargoed`` (:func:`deals_embargoed`)."""
    events = GameEvent.objects.filter(game=game)
    if game.status == Game.Status.FINISHED and not embargoed:
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
    embargoed = deals_embargoed(game)
    if embargoed and seat is None:
        raise embargo_refusal()
    rows = (
        visible_events(game, seat, embargoed=embargoed)
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
    if deals_embargoed(game):
        raise embargo_refusal()
    record = whole_engine(game).record()
    return {
        "game": game.pk,
        "seats": game.public_seats(),
        "duplicate_of": game.duplicate_of_id,
        **record,
    }


def signed_game_record(game_id: int) -> dict[str, Any]:
    """:func:`game_record` with the server's signature (games.records), as
    ``GET /games/{id}/record`` serves it."""
    return sign_record(game_record(game_id))


def game_verification(game_id: int) -> dict[str, Any]:
    """The check of a finished game's signed record against its seed, its plays and the
    published key (games.record_check: the engine's check and the signature's, with
    cryptography): ``{ok, commitment_matches, deals_match, outcomes_match, signature_valid,
    reason, problems}``; 409 before the end."""
    return check_record(signed_game_record(game_id), public_key()).to_dict()


def game_summary(game: Game) -> dict[str, Any]:
    """A game in a list (no cards): who plays, the rules, where it stands."""
    return {
        "id": game.pk,
        "status": game.status,
        "rules": game.rules,
        "rated": game.rated,
        "seats": game.public_seats(),
        "hand_number": game.hand_number,
        "phase": game.phase,
        "to_act": game.to_act,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
    }


def _in_play() -> QuerySet[Game]:
    return Game.objects.filter(status=Game.Status.PLAYING).order_by("-started_at", "-pk")


def games_in_play(limit: int) -> list[dict[str, Any]]:
    """The games being played now, newest first."""
    return [game_summary(game) for game in _in_play().defer("state")[:limit]]


def in_play_marks(limit: int) -> list[tuple[int, int]]:
    """(id, hand number) of each of :func:`games_in_play`, in one small query: what its
    list shows that changes (a game started or ended, a new hand)."""
    return list(_in_play().values_list("pk", "hand_number")[:limit])


def games_waiting_on(player: Player) -> list[dict[str, Any]]:
    """The games in play where ``player`` is to act now (no cards: the game page shows them)."""
    rows = (
        GamePlayer.objects.filter(game__status=Game.Status.PLAYING)
        .filter(Q(player=player, replaced_by__isnull=True) | Q(replaced_by=player))
        .select_related("game")
        .defer("game__state")
    )
    return [game_summary(gp.game) for gp in rows if gp.seat in gp.game.to_act]


def games_of(player: Player, limit: int) -> list[dict[str, Any]]:
    """The games ``player`` sits in that are still being played, newest first."""
    rows = GamePlayer.objects.filter(player=player, game__status=Game.Status.PLAYING)
    games = rows.select_related("game").defer("game__state").order_by("-game__started_at")
    return [game_summary(gp.game) for gp in games[:limit]]


def pending_turns_lines(player: Player) -> list[dict[str, Any]]:
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


def wants_hints(player: Player | None) -> bool | None:
    """Whether the table shows ``player`` hints: None once past their first
    ``HINT_GAMES`` finished games (or for a bot, or nobody), else their choice."""
    if player is None or player.is_bot:
        return None
    finished = GamePlayer.objects.filter(player=player, game__status=Game.Status.FINISHED)
    if finished[: settings.HINT_GAMES].count() >= settings.HINT_GAMES:
        return None
    return player.hints


def player_profile(username: str) -> dict[str, Any]:
    found = active_player(username)
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


def player_history(
    username: str, *, preset: str | None, result: str | None
) -> QuerySet[GamePlayer]:
    found = active_player(username)
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
