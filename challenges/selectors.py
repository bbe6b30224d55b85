"""Reads of challenges, as the API and the stream show them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.models import Player
from challenges.models import Challenge, ChallengeSeat
from core.errors import not_found
from games.selectors import iso


def shown_status(challenge: Challenge) -> str:
    """Its status; a pending challenge past its ``expires_at`` is expired, even before the
    sweep (``services.expire_due_challenges``) has marked it so."""
    if challenge.status == Challenge.Status.PENDING and challenge.expires_at <= timezone.now():
        return Challenge.Status.EXPIRED
    return str(challenge.status)


def with_seats(challenges: Iterable[Challenge]) -> list[Challenge]:
    """``challenges`` with their ``seat_rows`` (and the seats' players) loaded, in one read."""
    found = list(challenges)
    seats: dict[int, list[ChallengeSeat]] = {c.pk: [] for c in found}
    rows = ChallengeSeat.objects.filter(challenge__in=found).select_related("player")
    for seat in rows.order_by("challenge_id", "seat"):
        seats[seat.challenge_id].append(seat)
    for challenge in found:
        challenge.seat_rows = seats[challenge.pk]
    return found


def challenge_data(challenge: Challenge) -> dict[str, Any]:
    """The API's (and the stream lines') challenge object; ``challenge`` has its
    ``seat_rows`` (:func:`with_seats`)."""
    seats = challenge.seat_rows
    return {
        "id": challenge.pk,
        "status": shown_status(challenge),
        "from": challenge.challenger.username,
        "to": [s.player.username for s in seats if s.player_id != challenge.challenger_id],
        "rules": challenge.rules,
        "rated": challenge.rated,
        "move_seconds": challenge.move_seconds,
        "game": challenge.game_id,
        "expires_at": iso(challenge.expires_at),
        "created_at": iso(challenge.created_at),
        "rematch_of": challenge.rematch_of_id,
        "duplicate_of": challenge.duplicate_of_id,
        "seats": [
            {
                "seat": s.seat,
                "username": s.player.username,
                "is_bot": s.player.is_bot,
                "answer": s.answer,
            }
            for s in seats
        ],
    }


def challenges_data(challenges: Iterable[Challenge]) -> list[dict[str, Any]]:
    return [challenge_data(c) for c in with_seats(challenges)]


def involving(player: Player) -> Q:
    """The challenges ``player`` sent or is invited to."""
    return Q(challenger=player) | Q(
        pk__in=ChallengeSeat.objects.filter(player=player).values("challenge")
    )


def pending_challenges(player: Player) -> QuerySet[Challenge]:
    """The caller's pending challenges, sent and received, newest first (expired ones are
    left out even before the sweep marks them)."""
    return (
        Challenge.objects.filter(involving(player))
        .filter(status=Challenge.Status.PENDING, expires_at__gt=timezone.now())
        .select_related("challenger")
        .order_by("-created_at", "-pk")
    )


#: A pending challenge as its page shows what may change of it: (id, each seat's answer).
Mark = tuple[int, tuple[str, ...]]


def pending_marks(player_ids: Iterable[int]) -> dict[int, list[Mark]]:
    """For each of these players, a :data:`Mark` of every pending challenge they sent or are
    invited to, by id: what a page that lists them shows, in two small queries for them all
    (``challenges.live`` compares them)."""
    keys = list(player_ids)
    involved = ChallengeSeat.objects.filter(
        player_id__in=keys,
        challenge__status=Challenge.Status.PENDING,
        challenge__expires_at__gt=timezone.now(),
    ).values_list("player_id", "challenge_id")
    of_player: dict[int, set[int]] = {key: set() for key in keys}
    for player_id, challenge_id in involved:
        of_player[player_id].add(challenge_id)
    answers: dict[int, list[str]] = {}
    wanted = set().union(*of_player.values())
    rows = ChallengeSeat.objects.filter(challenge_id__in=wanted).order_by("challenge_id", "seat")
    for challenge_id, answer in rows.values_list("challenge_id", "answer"):
        answers.setdefault(challenge_id, []).append(answer)
    return {
        key: [(c, tuple(answers.get(c, ()))) for c in sorted(ids)] for key, ids in of_player.items()
    }


def challenge_for(player: Player, challenge_id: int) -> dict[str, Any]:
    """One challenge, for those it involves only (404 for anyone else)."""
    found = (
        Challenge.objects.filter(involving(player), pk=challenge_id)
        .select_related("challenger")
        .first()
    )
    if found is None:
        raise not_found("No such challenge.")
    return challenge_data(with_seats([found])[0])


def pending_challenge_lines(player: Player) -> list[dict[str, Any]]:
    """A ``challenge`` line for every pending challenge still waiting on ``player``'s
    answer: what a stream sends first, on connect."""
    waiting = ChallengeSeat.objects.filter(
        player=player, answer=ChallengeSeat.Answer.PENDING
    ).values("challenge")
    rows = (
        Challenge.objects.filter(pk__in=waiting)
        .filter(status=Challenge.Status.PENDING, expires_at__gt=timezone.now())
        .select_related("challenger")
        .order_by("pk")
    )
    return [{"type": "challenge", "challenge": data} for data in challenges_data(rows)]
