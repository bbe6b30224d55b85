"""Everything that changes the arena. Views and tasks call one of these each.

Concurrency: the seating of a pool's arena (:func:`seat_arena`) runs in several places at
once -- a worker's task after a join or a game's end, beat's sweep on another worker -- and
two runs that both saw a bot idle would seat it at two tables. So every change of a pool's
arena (seating, join, leave) first takes the row lock of its :class:`Arena` row
(``SELECT ... FOR UPDATE`` on PostgreSQL), and reads the entries and the games in play only
under it: a second run waits for the first to commit, then sees its games. On SQLite (the
embedded default) ``select_for_update`` does nothing, but every transaction there takes the
database's write lock at ``BEGIN`` (``transaction_mode=IMMEDIATE``, config/settings), so
the transactions of seating run one after the other anyway.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import Player
from accounts.services import house_bot
from arena import seating
from arena.models import Arena, ArenaEntry, ArenaGame
from core.errors import Conflict, NotAllowed
from games.models import Game, GamePlayer
from games.play import TIMEOUTS_BEFORE_HANDOVER
from games.tables import parse_rules, start_seated_game
from ratings import skill
from ratings.pools import POOL_PRESETS, table_size
from ratings.selectors import seeding_ratings, valid_pool
from realtime import delivery

#: How a join asks for a seating of its pool on the worker, once committed: config/wiring.py
#: adds ``arena.tasks.enqueue_seating`` (the tasks import this module, not the reverse).
#: Without it, beat's sweep seats the pool within ARENA_SWEEP_SECONDS.
SEATING_REQUESTS: list[Callable[[str], None]] = []


# --- The arena of a pool --------------------------------------------------------------------


def default_rules(pool: str) -> dict[str, Any]:
    """The rules of a new arena: the pool's first preset, ``ARENA_MAX_HANDS`` hands at most."""
    rules: dict[str, Any] = {"preset": POOL_PRESETS[pool][0]}
    if settings.ARENA_MAX_HANDS:
        rules["max_hands"] = settings.ARENA_MAX_HANDS
    return parse_rules(rules).to_dict()


def _locked_arena(pool: str) -> Arena:
    """The pool's arena (made on first use), row-locked until the transaction ends."""
    Arena.objects.get_or_create(
        pool=pool,
        defaults={
            "rules": default_rules(pool),
            "move_seconds": settings.ARENA_MOVE_SECONDS,
            "wait_seconds": settings.ARENA_WAIT_SECONDS,
        },
    )
    return Arena.objects.select_for_update().get(pool=pool)


def _announce(player_ids: Sequence[int], *, type: str, **payload: Any) -> None:
    """A stream line for these players, sent on commit."""
    delivery.send(player_ids, type=type, payload=payload)


def join(player: Player, *, pool: str | None) -> ArenaEntry:
    """The bot ``player`` enters the arena of ``pool`` (again): 200 its entry, also when it
    was in already. Seating follows at once, on the worker."""
    pool = valid_pool(pool)
    if not player.is_bot or player.owner_id is None:
        raise NotAllowed("bots_only", "Only bot accounts play in the arena.")
    with transaction.atomic():
        arena = _locked_arena(pool)
        now = timezone.now()
        entry, created = ArenaEntry.objects.get_or_create(
            arena=arena, player=player, defaults={"joined_at": now, "idle_since": now}
        )
        if created or not entry.active:
            entry.active = True
            entry.joined_at = entry.idle_since = now
            entry.left_at = None
            entry.removed_reason = ArenaEntry.Reason.IN
            entry.timeout_streak = 0
            entry.save()
            _announce([player.pk], type="arena_joined", pool=pool)
            transaction.on_commit(lambda: _request_seating(pool))
    entry.arena = arena
    return entry


def leave(player: Player, *, pool: str | None) -> ArenaEntry:
    """The bot leaves the arena of ``pool``: it is seated no more (a game it plays goes on)."""
    pool = valid_pool(pool)
    if not player.is_bot or player.owner_id is None:
        raise NotAllowed("bots_only", "Only bot accounts play in the arena.")
    with transaction.atomic():
        arena = _locked_arena(pool)
        entry = ArenaEntry.objects.filter(arena=arena, player=player, active=True).first()
        if entry is None:
            raise Conflict("not_in_arena", f"You are not in the arena of pool '{pool}'.")
        _take_out(entry, ArenaEntry.Reason.LEFT)
        _announce([player.pk], type="arena_left", pool=pool)
    entry.arena = arena
    return entry


def _take_out(entry: ArenaEntry, reason: str) -> None:
    entry.active = False
    entry.left_at = timezone.now()
    entry.removed_reason = reason
    entry.idle_since = None
    entry.save(update_fields=["active", "left_at", "removed_reason", "idle_since"])


def _request_seating(pool: str) -> None:
    for request in SEATING_REQUESTS:
        request(pool)


# --- Seating --------------------------------------------------------------------------------


def seat_arena(pool: str, *, rng: random.Random | None = None) -> list[int]:
    """Take the arena games that ended into account, then seat the pool's idle bots
    (arena/seating.py says how). Returns the ids of the games started. Idempotent: run it
    as often as you like (after a join, after an arena game's end, by beat's sweep)."""
    rng = rng or random.Random()
    started: list[int] = []
    with transaction.atomic():
        arena = Arena.objects.select_for_update().filter(pool=pool).first()
        if arena is None:
            return started
        now = timezone.now()
        _settle_finished_games(arena, now)
        busy = set(
            GamePlayer.objects.filter(game_id__in=_unsettled(arena).values("game_id")).values_list(
                "player_id", flat=True
            )
        )
        entries = [
            e
            for e in arena.entries.filter(active=True, player__is_active=True).select_related(
                "player"
            )
            if e.player_id not in busy
        ]
        if not entries:
            return started
        for entry in entries:
            if entry.idle_since is None:
                entry.idle_since = now
                entry.save(update_fields=["idle_since"])
        ordinals = seeding_ratings([e.player for e in entries], arena.rules)
        by_player = {e.player_id: e for e in entries}
        candidates = [
            seating.Candidate(
                player_id=e.player_id,
                ordinal=ordinals.get(e.player_id, skill.NEWCOMER.ordinal),
                idle_since=e.idle_since or now,
                last_table=tuple(e.last_table),
            )
            for e in entries
        ]
        plan = seating.plan(
            candidates,
            size=table_size(pool),
            now=now,
            wait_seconds=arena.wait_seconds,
            jitter=settings.ARENA_PAIRING_JITTER,
            rng=rng,
        )
        size = table_size(pool)
        tables = []
        for table in plan.tables:
            players = [by_player[c.player_id].player for c in table]
            if len(players) < size:
                mean = sum(c.ordinal for c in table) / len(table)
                players.extend(_house_bots(arena, mean, size - len(players)))
                rng.shuffle(players)
            tables.append(players)
        for players in tables:
            started.append(_start(arena, players, by_player))
    return started


def _unsettled(arena: Arena) -> QuerySet[ArenaGame]:
    return ArenaGame.objects.filter(arena=arena, settled=False)


def _start(arena: Arena, players: list[Player], entries: dict[int, ArenaEntry]) -> int:
    game = start_seated_game(
        house_bot(settings.ARENA_HOST_BOT),
        rules=arena.rules,
        rated=True,
        move_seconds=arena.move_seconds,
        players=players,
    )
    ArenaGame.objects.create(arena=arena, game=game)
    bots = sorted(p.pk for p in players if p.pk in entries)
    ArenaEntry.objects.filter(pk__in=[entries[p].pk for p in bots]).update(
        idle_since=None, last_table=bots
    )
    return game.pk


def _house_bots(arena: Arena, ordinal: float, count: int) -> list[Player]:
    """``count`` house bots for the empty seats: the nearest-rated to ``ordinal`` first (a
    house bot takes several seats when there are fewer of them than seats)."""
    fillers = [house_bot(name) for name in settings.ARENA_FILLER_BOTS]
    ordinals = seeding_ratings(fillers, arena.rules)
    fillers.sort(key=lambda p: abs(ordinals.get(p.pk, skill.NEWCOMER.ordinal) - ordinal))
    return [fillers[i % len(fillers)] for i in range(count)]


def _settle_finished_games(arena: Arena, now: datetime) -> None:
    """Count the arena games that ended, and take out the bots that stopped answering: a
    bot whose seat was handed to a house bot after its timeouts, or that timed out in
    ``ARENA_TIMEOUT_GAMES`` arena games in a row."""
    ended = list(
        _unsettled(arena)
        .filter(game__status=Game.Status.FINISHED)
        .values_list("pk", "game_id", "game__finished_at")
    )
    if not ended:
        return
    seats = GamePlayer.objects.filter(game_id__in=[game for _, game, _ in ended])
    entries = {
        e.player_id: e
        for e in arena.entries.filter(player_id__in=seats.values("player_id")).select_related(
            "player"
        )
    }
    by_game: dict[int, list[GamePlayer]] = {}
    for seat in seats:
        by_game.setdefault(seat.game_id, []).append(seat)
    for _, game_id, finished_at in sorted(ended, key=lambda e: e[2] or now):
        for seat in by_game.get(game_id, []):
            entry = entries.get(seat.player_id)
            if entry is None:  # a house bot
                continue
            _settle_seat(arena, entry, seat, finished_at or now)
    ArenaGame.objects.filter(pk__in=[pk for pk, _, _ in ended]).update(settled=True)


def _settle_seat(arena: Arena, entry: ArenaEntry, seat: GamePlayer, finished_at: datetime) -> None:
    entry.games += 1
    entry.timeout_streak = entry.timeout_streak + 1 if seat.timeouts else 0
    handed_over = seat.replaced_by_id is not None and seat.timeouts >= TIMEOUTS_BEFORE_HANDOVER
    if entry.active and (handed_over or entry.timeout_streak >= settings.ARENA_TIMEOUT_GAMES):
        entry.active = False
        entry.left_at = timezone.now()
        entry.removed_reason = ArenaEntry.Reason.TIMEOUTS
        entry.idle_since = None
        # The owner is told too: it did not ask for this.
        _announce(
            [entry.player_id, *([entry.player.owner_id] if entry.player.owner_id else [])],
            type="arena_removed",
            pool=arena.pool,
            reason="timeouts",
            game=seat.game_id,
        )
    elif entry.active:
        entry.idle_since = finished_at
    entry.save()


# --- What other apps ask --------------------------------------------------------------------


def pools_of_game(game_id: int) -> list[str]:
    """The pool of the arena that seated ``game_id`` ([] for any other game)."""
    return list(ArenaGame.objects.filter(game_id=game_id).values_list("arena__pool", flat=True))


def pools_to_sweep() -> list[str]:
    """Pools with a bot in the arena or an arena game not yet taken into account."""
    active = ArenaEntry.objects.filter(active=True).values_list("arena__pool", flat=True)
    playing = ArenaGame.objects.filter(settled=False).values_list("arena__pool", flat=True)
    return sorted(set(active) | set(playing))


def sweep() -> list[int]:
    """Seat every pool's arena (beat's safety net for lost tasks and waiting bots)."""
    started: list[int] = []
    for pool in pools_to_sweep():
        started.extend(seat_arena(pool))
    return started
