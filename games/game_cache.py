"""The game rows this web process wrote last, so that the next move of a game skips its read.

A move reads the game's row, applies the action and writes the row back if its ``version``
is still the one read (``games.changes.write``). When this process wrote the game's
last change, the row it wrote is what a read would return: keeping it saves the read (a
database round trip and the row's decoding).

The cache is only a guess, never trusted for an answer:

* a move made on a cached row that is stale fails its version-checked write, and one that
  the cached row refuses (not your turn, a stale ``expected_version``, an illegal card) is
  not answered from it: either way the move is tried again from a fresh read
  (``play.submit_action``);
* a change made by another process drops the entry when its wake-up arrives (every change
  publishes on the game's channel, and every web process hears every change: realtime/hub.py);
* entries are kept only while this process's Redis subscription is up, and all are dropped
  when it (re)subscribes, since wake-ups may have been missed in between. Without Redis (the
  embedded default) nothing is kept: the worker's changes would go unheard.

So a stale entry costs a wasted try, never a wrong answer.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from functools import partial

from django.db import transaction

from games.models import Game
from realtime import delivery

#: Games kept at most (the least recently written go first): a row is about 3 KB.
MAX_GAMES = 4096


class GameCache:
    def __init__(self, is_current: Callable[[], bool]) -> None:
        self._is_current = is_current  # whether changes made elsewhere reach this process
        self._lock = threading.Lock()
        self._rows: OrderedDict[int, Game] = OrderedDict()

    def get(self, game_id: int) -> Game | None:
        """A copy of the game's row as this process last wrote it, or None."""
        if not self._is_current():
            return None
        with self._lock:
            row = self._rows.get(game_id)
        if row is None:
            return None
        # A copy, as the move changes its row. Of the JSON fields, only the seats are ever
        # edited in place (Game.hand_over_seat); the others are assigned anew.
        row = _copy(row)
        row.seats = [dict(seat) for seat in row.seats]
        return row

    def keep_when_committed(self, game: Game) -> None:
        """Keep ``game`` as just written, once its change commits: a version then names this
        row for good (a row kept before a rollback could match the version of another
        change's row, and pass its check). Nothing to copy where nothing is kept (the
        workers, the embedded default)."""
        if self._is_current():
            transaction.on_commit(partial(self.put, _copy(game)))

    def put(self, row: Game) -> None:
        """Keep ``row`` as this process wrote it, once committed (not over a newer version of
        it); the caller hands over a copy it no longer changes."""
        if not self._is_current():
            return
        with self._lock:
            kept = self._rows.get(row.pk)
            if kept is not None and kept.version >= row.version:
                return
            self._rows[row.pk] = row
            self._rows.move_to_end(row.pk)
            while len(self._rows) > MAX_GAMES:
                self._rows.popitem(last=False)

    def drop(self, game_ids: Iterable[int]) -> None:
        with self._lock:
            for game_id in game_ids:
                self._rows.pop(game_id, None)

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()

    def __len__(self) -> int:
        return len(self._rows)


def _copy(row: Game) -> Game:
    """A shallow copy of ``row``, as ``copy.copy`` makes it (Django's ``__getstate__``: the
    instance's attributes, its ``_state`` and its cache of related objects copied) without
    the pickling protocol's detour through the app registry (``model_unpickle``), which cost
    more than the copy itself: two copies a move."""
    copied = Game.__new__(Game)
    copied.__dict__.update(row.__getstate__())  # type: ignore[call-overload]  # a dict: django-stubs type it object
    return copied


def _forget(channels: Iterable[str] | None) -> None:
    """A change made elsewhere (delivery.on_changes_elsewhere): drop its game's row."""
    if channels is None:
        written_here.clear()
    else:
        written_here.drop(
            game_id for game_id in map(delivery.game_of_channel, channels) if game_id is not None
        )


#: The rows of the games this process wrote last (used by ``play``).
written_here = GameCache(delivery.hears_changes_elsewhere)
delivery.on_changes_elsewhere(_forget)
