"""Who may read and write each chat room, and what a room shows its reader.

The rooms and their rules (docs/api.md "Chat"):

* **A game's players' room**: its seated players (whatever plays their seat now) read and
  write it, during the game and after; staff read it (to moderate), unless a duplicate
  round keeps the game to its own seats. Nobody else sees it.
* **A game's spectators' room**: everyone signed in who is not seated reads and writes it.
  Its players may not read it while the game is being played (nobody feeds a player
  information from the rail); once the game has ended they read and write it too. While a
  duplicate round keeps the game's deals to its own seats, it is closed to everyone else as
  the game is (409 ``deals_embargoed``).
* **A tournament's room**: everyone signed in reads it; its entrants (an entered account, or
  the owner of an entered bot), its organisers and staff write it. While a round of a
  duplicate tournament is being played, its entrants do not (organisers who entered
  included): one who has finished a board could otherwise tell the others its cards.

A person's muted authors are left out of what that person reads (``messages``); the live
stream carries every message of a room, with its author, and the page hides the muted ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db.models import Q, QuerySet
from django.shortcuts import get_object_or_404

from accounts.models import Player
from chat.models import Message, Mute, Room
from core.errors import DomainError, NotAllowed
from games import selectors as games
from games.models import Game
from tournaments import selectors as tournaments
from tournaments.models import Entrant, Round, Tournament

#: An account at least this old when it posts has the links of its message shown as links.
LINKS_AFTER = timedelta(days=1)
#: The messages a live stream's first message (and a page) carries: the newest.
SHOWN = 50

CHANNELS = ("players", "spectators")  # a game's rooms (Room.Kind)


@dataclass(frozen=True)
class Access:
    """A room a reader may read: which it is, and why it may not write there (None: it may)."""

    kind: str
    game_id: int | None = None
    tournament_id: int | None = None
    post_refusal: DomainError | None = None

    def room(self) -> Room | None:
        """The room's row, if anything was ever posted or followed there."""
        return Room.objects.filter(
            kind=self.kind, game_id=self.game_id, tournament_id=self.tournament_id
        ).first()


def not_allowed(message: str) -> NotAllowed:
    return NotAllowed("chat_not_allowed", message)


def game_access(viewer: Player, game_id: int, channel: str) -> Access:
    """The access ``viewer`` has to a game's room ``channel`` (players or spectators);
    raises NotFound (no such game), Conflict (``deals_embargoed``) or NotAllowed
    (``chat_not_allowed``) when it may not read it."""
    game = get_object_or_404(Game, pk=game_id)
    seated = game.seat_of(viewer.pk) is not None
    playing = game.status == Game.Status.PLAYING
    if channel == Room.Kind.PLAYERS:
        if seated:
            return Access(Room.Kind.PLAYERS, game_id=game.pk)
        if viewer.is_staff:  # to moderate; not while other tables play these deals
            if games.deals_embargoed(game):
                raise games.embargo_refusal()
            refusal = not_allowed("Only the game's players write in its players' chat.")
            return Access(Room.Kind.PLAYERS, game_id=game.pk, post_refusal=refusal)
        raise not_allowed("The players' chat is for the game's players.")
    if seated and playing:
        raise not_allowed("A game's players see its spectators' chat once the game is over.")
    if not seated and games.deals_embargoed(game):
        raise games.embargo_refusal()
    return Access(Room.Kind.SPECTATORS, game_id=game.pk)


def _duplicate_round_playing(tournament: Tournament) -> bool:
    return (
        tournament.duplicate
        and Round.objects.filter(tournament=tournament, status=Round.Status.PLAYING).exists()
    )


def tournament_access(viewer: Player, tournament_id: int) -> Access:
    """The access ``viewer`` has to a tournament's room (any signed-in person reads it)."""
    tournament = tournaments.tournament(tournament_id)
    refusal = None
    entered = Entrant.objects.filter(
        Q(player=viewer) | Q(player__owner=viewer), tournament=tournament
    ).exists()
    if entered and _duplicate_round_playing(tournament):
        refusal = not_allowed("While a duplicate round is being played, its players wait to talk.")
    elif not (entered or viewer.is_staff or tournaments.is_organiser(tournament, viewer)):
        refusal = not_allowed("Only the tournament's entrants and organisers write here.")
    return Access(Room.Kind.TOURNAMENT, tournament_id=tournament.pk, post_refusal=refusal)


def muted_ids(viewer: Player) -> set[int]:
    return set(Mute.objects.filter(muter=viewer).values_list("muted_id", flat=True))


def muted_usernames(viewer: Player) -> list[str]:
    return list(
        Mute.objects.filter(muter=viewer)
        .order_by("muted__username")
        .values_list("muted__username", flat=True)
    )


def messages(access: Access, viewer: Player) -> QuerySet[Message]:
    """The room's messages ``viewer`` reads, newest first: not deleted, not by an author it
    muted."""
    room = access.room()
    if room is None:
        return Message.objects.none()
    return (
        Message.objects.filter(room=room, deleted_at__isnull=True)
        .exclude(author_id__in=Mute.objects.filter(muter=viewer).values("muted_id"))
        .select_related("author")
        .order_by("-version")
    )


def message_data(message: Message) -> dict[str, Any]:
    return {
        "id": message.pk,
        "author": message.author.username,
        "text": message.text,
        "links": message.links,
        "created_at": games.iso(message.created_at),
    }


def messages_data(rows: list[Message]) -> list[dict[str, Any]]:
    return [message_data(m) for m in rows]


def recent(room_id: int) -> list[dict[str, Any]]:
    """The room's newest messages (not deleted), oldest first: what a new watcher starts from."""
    rows = (
        Message.objects.filter(room_id=room_id, deleted_at__isnull=True)
        .select_related("author")
        .order_by("-version")[:SHOWN]
    )
    return messages_data(list(rows))[::-1]


def changes_after(room_id: int, version: int) -> tuple[list[dict[str, Any]], list[int]]:
    """What changed in the room after ``version``: the messages posted (and not deleted since),
    oldest first, and the ids of those deleted."""
    rows = (
        Message.objects.filter(room_id=room_id)
        .filter(Q(version__gt=version) | Q(deleted_version__gt=version))
        .select_related("author")
        .order_by("version")
    )
    posted, deleted = [], []
    for row in rows:
        if row.deleted_at is None:
            posted.append(message_data(row))
        elif row.version <= version:
            deleted.append(row.pk)
    return posted, deleted


def room_versions(room_ids: list[int]) -> dict[int, int]:
    return dict(Room.objects.filter(pk__in=room_ids).values_list("pk", "version"))


@dataclass(frozen=True)
class PageRoom:
    """A room a page shows its reader: its name (a game's channel, or ``tournament``), why
    the reader may not write there (None: it may), and whether it opens only once the game
    is over (a player's spectators' room: the page offers it when it sees the end)."""

    name: str
    refusal: str | None
    after_the_game: bool = False


def game_page_rooms(viewer: Player | None, game_id: int) -> list[PageRoom]:
    """The game's rooms ``viewer`` may read, players' first (none for a visitor)."""
    if viewer is None:
        return []
    rooms = []
    for channel in CHANNELS:
        try:
            access = game_access(viewer, game_id, channel)
        except DomainError:
            continue
        refusal = access.post_refusal.message if access.post_refusal is not None else None
        rooms.append(PageRoom(channel, refusal))
    if [room.name for room in rooms] == ["players"]:
        rooms.append(PageRoom("spectators", None, after_the_game=True))
    return rooms


def tournament_page_rooms(viewer: Player | None, tournament_id: int) -> list[PageRoom]:
    """The tournament's room, if ``viewer`` is signed in."""
    if viewer is None:
        return []
    access = tournament_access(viewer, tournament_id)
    refusal = access.post_refusal.message if access.post_refusal is not None else None
    return [PageRoom(Room.Kind.TOURNAMENT, refusal)]
