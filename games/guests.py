"""Guests who never signed up: removed after ``GUEST_KEEP_DAYS`` (beat's task, games.tasks).

A guest's games are unrated (``games.tables`` keeps guests from rated tables). A game the
guest played with house bots alone concerns nobody else and goes with the guest; a game
that seated another person stays in that person's history, so a guest with one keeps its
account, switched off (it can no longer log in, and its name stays on those games).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import HOUSE_BOT_PREFIX, Player
from games.models import Game, GamePlayer, Table, TableSeat

#: Guests looked at by one run at most (the next run takes the rest).
BATCH = 200


def remove_stale_guests(*, now: datetime | None = None) -> tuple[int, int]:
    """Remove the guests whose last log-in (or making) is older than ``GUEST_KEEP_DAYS`` and
    who sit in no game still being played; returns (guests deleted, guests switched off)."""
    moment = timezone.now() if now is None else now
    oldest = moment - timedelta(days=settings.GUEST_KEEP_DAYS)
    stale = (
        Player.objects.filter(is_guest=True, is_active=True)
        .filter(Q(last_login__lt=oldest) | Q(last_login__isnull=True, date_joined__lt=oldest))
        .exclude(game_seats__game__status=Game.Status.PLAYING)
        .order_by("pk")[:BATCH]
    )
    deleted = switched_off = 0
    for guest_id in list(stale.values_list("pk", flat=True)):
        if _remove(guest_id):
            deleted += 1
        else:
            switched_off += 1
    return deleted, switched_off


def _remove(guest_id: int) -> bool:
    """Delete the guest and its games with house bots alone (True), or, if a game of theirs
    seated another person, delete those it may and switch the account off (False)."""
    with transaction.atomic():
        guest = Player.objects.select_for_update().get(pk=guest_id)
        tables = Table.objects.filter(
            Q(seats__player=guest) | Q(game__players__player=guest) | Q(created_by=guest)
        ).distinct()
        shared = (
            TableSeat.objects.filter(table__in=tables)
            .exclude(player=guest)
            .exclude(Q(player__isnull=True) | Q(player__username__startswith=HOUSE_BOT_PREFIX))
        )
        shared_tables = set(shared.values_list("table_id", flat=True))
        shared_tables |= set(
            GamePlayer.objects.filter(game__table__in=tables)
            .exclude(player=guest)
            .exclude(player__username__startswith=HOUSE_BOT_PREFIX)
            .values_list("game__table_id", flat=True)
        )
        # An open table of the guest's (nobody else seated) goes too; a table's game goes
        # with it, and with the game its events, seats and messages.
        Table.objects.filter(pk__in=tables.values("pk")).exclude(pk__in=shared_tables).delete()
        if shared_tables:
            TableSeat.objects.filter(player=guest, table__status=Table.Status.OPEN).update(
                player=None
            )
            guest.is_active = False
            guest.set_unusable_password()
            guest.save(update_fields=["is_active", "password"])
            return False
        guest.delete()
        return True
