"""What waits on a person, computed in one place: the notification bell's list, the API's
``GET /notifications`` and the live feed's marks (``notifications.live``) all read it here.

Four kinds of item, each a :class:`Notice`:

* ``turn``: a game in play whose turn is theirs (a seat of theirs, not handed to a bot), at
  its version;
* ``round``: a tournament round that seated them at a table and is not finished;
* ``challenge``: a pending challenge that waits on their answer;
* ``invitation``: a pending tournament invitation they answer (theirs, or one of a bot
  account they own).

:func:`waiting_on` reads them for many people at once, one query a kind, so the live
feeds' look compares every followed person's list in four queries. A person's list holds
only items about that person (the keys of the result): nothing of anyone else's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.utils import timezone

from accounts.models import Player
from challenges.models import Challenge, ChallengeSeat
from games.models import Game, GamePlayer
from games.selectors import iso
from tournaments.models import Invitation, Round, Tournament, TournamentTable
from tournaments.selectors import answerer_id

#: The kinds, in the order the list shows them: what needs a move first.
KINDS = ("turn", "round", "challenge", "invitation")


@dataclass(frozen=True)
class Notice:
    """One thing waiting on a person. ``id`` is the game's (a turn), the round's, the
    challenge's or the invitation's; the other fields are those of its kind, else None."""

    kind: str
    id: int
    game: int | None = None
    seat: int | None = None
    #: A turn: the game's version (what a move sends as ``expected_version``); it moves on
    #: each time the turn comes back.
    version: int | None = None
    tournament: int | None = None
    tournament_name: str | None = None
    round: int | None = None
    table: int | None = None
    #: Who challenged or invited them.
    by: str | None = None
    #: The account an invitation enters: the person, or a bot account of theirs.
    player: str | None = None
    rules: str | None = None
    #: When a challenge expires, or a round's deadline.
    deadline: datetime | None = None

    def data(self) -> dict[str, Any]:
        """The API's (and the pages') object."""
        found = asdict(self)
        found["deadline"] = iso(self.deadline)
        return found


def waiting_on(player_ids: Iterable[int]) -> dict[int, list[Notice]]:
    """For each of these people, what waits on them, in :data:`KINDS` order (then by id)."""
    keys = set(player_ids)
    found: dict[int, list[Notice]] = defaultdict(list)
    if keys:
        for key, notice in (
            *_turns(keys),
            *_rounds(keys),
            *_challenges(keys),
            *_invitations(keys),
        ):
            found[key].append(notice)
    order = {kind: number for number, kind in enumerate(KINDS)}
    return {key: sorted(found.get(key, []), key=lambda n: (order[n.kind], n.id)) for key in keys}


def notifications(player: Player) -> dict[str, Any]:
    """``player``'s notifications as the API gives them: ``count`` and ``items``."""
    items = waiting_on([player.pk])[player.pk]
    return {"count": len(items), "items": [n.data() for n in items]}


def _turns(keys: set[int]) -> list[tuple[int, Notice]]:
    rows = (
        GamePlayer.objects.filter(game__status=Game.Status.PLAYING)
        .filter(Q(player_id__in=keys, replaced_by__isnull=True) | Q(replaced_by_id__in=keys))
        .values_list(
            "game_id", "seat", "player_id", "replaced_by_id", "game__to_act", "game__version"
        )
    )
    return [
        (replaced_by or player, Notice("turn", game, game=game, seat=seat, version=version))
        for game, seat, player, replaced_by, to_act, version in rows
        if seat in (to_act or ())
    ]


def _rounds(keys: set[int]) -> list[tuple[int, Notice]]:
    rows = TournamentTable.objects.filter(
        round__status=Round.Status.PLAYING,
        round__tournament__status=Tournament.Status.RUNNING,
        game__players__player_id__in=keys,
    ).values_list(
        "game__players__player_id",
        "round_id",
        "round__number",
        "round__deadline",
        "round__tournament_id",
        "round__tournament__name",
        "number",
        "game_id",
    )
    return [
        (
            player,
            Notice(
                "round",
                round_id,
                game=game,
                tournament=tournament,
                tournament_name=name,
                round=number,
                table=table,
                deadline=deadline,
            ),
        )
        for player, round_id, number, deadline, tournament, name, table, game in rows
    ]


def _challenges(keys: set[int]) -> list[tuple[int, Notice]]:
    rows = ChallengeSeat.objects.filter(
        player_id__in=keys,
        answer=ChallengeSeat.Answer.PENDING,
        challenge__status=Challenge.Status.PENDING,
        challenge__expires_at__gt=timezone.now(),
    ).values_list(
        "player_id",
        "challenge_id",
        "challenge__challenger__username",
        "challenge__rules",
        "challenge__expires_at",
    )
    return [
        (
            player,
            Notice(
                "challenge",
                challenge,
                by=challenger,
                rules=(rules or {}).get("preset"),
                deadline=expires_at,
            ),
        )
        for player, challenge, challenger, rules, expires_at in rows
    ]


def _invitations(keys: set[int]) -> list[tuple[int, Notice]]:
    rows = (
        Invitation.objects.filter(status=Invitation.Status.PENDING)
        .filter(Q(player_id__in=keys) | Q(player__is_bot=True, player__owner_id__in=keys))
        .values_list(
            "pk",
            "player_id",
            "player__is_bot",
            "player__owner_id",
            "player__username",
            "tournament_id",
            "tournament__name",
            "invited_by__username",
        )
    )
    found = []
    for pk, player, is_bot, owner, username, tournament, name, by in rows:
        key = answerer_id(player_id=player, is_bot=is_bot, owner_id=owner)
        if key in keys:
            notice = Notice(
                "invitation",
                pk,
                tournament=tournament,
                tournament_name=name,
                by=by,
                player=username,
            )
            found.append((key, notice))
    return found
