"""The stored state and the journal: :class:`Serialisation`, a part of
:class:`~games.engine.Game`.

:meth:`~Serialisation.to_state` is the whole game as a compact JSON-able dict, loaded by
:meth:`~Serialisation.from_state` without replaying anything: the game's own fields, then
the hand's (:meth:`~games.engine.hand.HandState.to_state`). Version 2 keeps the action log
as one string (each action its seat's digit and its code, :meth:`~games.engine.Play.code`;
version 1 states, whose log was a list, still load). Version 3 is a state whose journal was
partly handed out by :meth:`~Serialisation.detach_journal`.

>>> from games.engine import Game
>>> game = Game.new("classic", seed="state")
>>> _ = game.apply(game.dealer, game.fallback_action(game.dealer))
>>> state = game.to_state()
>>> state["v"], state["log"] == f"{game.dealer}tC", state["step"]
(2, True, 'discard')
>>> Game.from_state(state) == game
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final, Self

from .core import HAND_SUMMARY, PHASE_OF_STEP, GameCore
from .deal import Deal
from .errors import StateError
from .hand import HandState
from .rules import Rules

__all__ = ["Serialisation"]

_STATE_VERSION: Final = 2
#: The version of a state whose journal was partly detached (:meth:`Game.detach_journal`):
#: a reader that does not know it must not take it for a whole game.
_DETACHED_STATE_VERSION: Final = 3


class Serialisation(GameCore):
    """:meth:`to_state`, :meth:`from_state` (and their JSON forms), :meth:`copy`, equality
    and :meth:`detach_journal` (a part of :class:`~games.engine.Game`)."""

    # ------------------------------------------------------------------ journal
    def detach_journal(self) -> dict[str, Any]:
        """Hand out the journal written since the last call (or the start): the deals, the
        actions and the finished hands' full results, as a JSON-able dict. From then on
        :meth:`to_state` leaves them out (it keeps each finished hand's summary, which views
        show), so that a state saved after every move stays about one hand long however
        long the game. Play and views go on as before; :meth:`record` and :attr:`history`
        need the detached parts back: ``from_state(state, journal=[part, ...])``, every
        part in the order they were detached."""
        deals, actions, hands = self._detached
        absent_deals, absent_actions, _ = self._absent
        part = {
            "dlog": [list(d) for d in self._deal_log[deals - absent_deals :]],
            "log": " ".join(self._log[actions - absent_actions :]),
            "hist": json.loads(json.dumps(self._history[hands:])),
        }
        self._detached = (
            absent_deals + len(self._deal_log),
            absent_actions + len(self._log),
            len(self._history),
        )
        return part

    # ------------------------------------------------------------------ saving
    def to_state(self) -> dict[str, Any]:
        """The whole state as a JSON-able dict (see :meth:`to_json`), without the parts of
        the journal that :meth:`detach_journal` handed out."""
        deals, actions, hands = self._detached
        absent_deals, absent_actions, _ = self._absent
        state = self._state(
            self._deal_log[deals - absent_deals :],
            self._log[actions - absent_actions :],
            [{k: h[k] for k in HAND_SUMMARY} for h in self._history[:hands]]
            + self._history[hands:],
        )
        if self._detached != (0, 0, 0):
            state["v"] = _DETACHED_STATE_VERSION
            state["detached"] = list(self._detached)
        return state

    def _state(
        self, deal_log: list[list[int]], log: list[str], history: list[dict[str, Any]]
    ) -> dict[str, Any]:
        dealt = self._absent[0] + len(self._deal_log)
        return {
            "v": _STATE_VERSION,
            "rules": self._rules.to_dict(),
            "seed": self._seed,
            "deals": None
            if self._deals is None
            else [[*d.hands, d.kitty] for d in self._deals[dealt:] if d is not None],
            "fd": self._first_dealer,
            "dn": self._deal_number,
            "dealer": self._dealer,
            "scores": self._scores,
            "hist": history,
            "dlog": deal_log,
            # One string, not a list of strings: the log grows with the game, and one
            # string is several times cheaper to encode and decode.
            "log": " ".join(log),
            "calls": self._calls_used,
            "prev": self._prev_diffs,
            "end": [self._over, self._stopped, self._win_seat, self._end_reason],
            **self._hand.to_state(),
        }

    def to_json(self) -> str:
        """A compact JSON document of the whole state; :meth:`from_json` loads it without
        replaying anything. (Explicit-deal games carry their remaining deals.)"""
        return json.dumps(self.to_state(), separators=(",", ":"))

    # ------------------------------------------------------------------ loading
    @classmethod
    def from_state(
        cls,
        state: Mapping[str, Any],
        *,
        owned: bool = False,
        journal: Sequence[Mapping[str, Any]] | None = None,
    ) -> Self:
        """Load :meth:`to_state`'s dict (also a version 1 state, whose log was a list).
        Raises :class:`StateError` if it is not one. ``owned``: the dict (and ``journal``)
        is the caller's to give away (freshly decoded), so its parts are used as they are,
        not copied. ``journal``: the parts :meth:`detach_journal` handed out before this
        state was saved, in order; without them the game plays on and gives its views, but
        not its record."""
        try:
            version = state.get("v")
            if version not in (1, _STATE_VERSION, _DETACHED_STATE_VERSION):
                raise StateError(f"unsupported state version {version!r}")
            rules = Rules.from_dict(state["rules"])
            detached = (0, 0, 0)
            if version == _DETACHED_STATE_VERSION:
                deal_count, action_count, hand_count = (int(n) for n in state["detached"])
                detached = (deal_count, action_count, hand_count)
            log = state["log"]
            actions = (log.split() if log else []) if isinstance(log, str) else list(log)
            deal_log, history = state["dlog"], state["hist"]
            absent = detached
            if journal is not None:
                old_deals = [d for part in journal for d in part["dlog"]]
                old_actions = [a for part in journal for a in part["log"].split()]
                old_hands = [h for part in journal for h in part["hist"]]
                if (len(old_deals), len(old_actions), len(old_hands)) != detached:
                    raise StateError("the journal's parts do not make up the detached journal")
                deal_log, actions = old_deals + deal_log, old_actions + actions
                history = old_hands + history[detached[2] :]
                absent = (0, 0, 0)
            deals = state["deals"]
            dn = int(state["dn"])
            dealt: list[Deal | None] = [None] * absent[0]
            dealt += [Deal(tuple(d[:-1]), d[-1]) for d in deal_log]
            seed = state["seed"]
            if deals is not None:
                dealt += [Deal(tuple(d[:-1]), d[-1]) for d in deals]
            first = state["fd"]
            dealer = state["dealer"]
            scores = list(state["scores"])
            history = history if owned else json.loads(json.dumps(history))
            deal_log = [list(d) for d in deal_log]
            calls = [list(c) for c in state["calls"]]
            prev = None if state["prev"] is None else list(state["prev"])
            over, stopped, win_seat, end_reason = state["end"]
            hand = HandState.from_state(state)
            game = cls(rules, seed=seed, deals=None if deals is None else dealt, hand=hand)
            game._absent, game._detached = absent, detached
            game._first_dealer = first
            game._deal_number = dn
            game._dealer = dealer
            game._scores = scores
            game._history = history
            game._deal_log = deal_log
            game._log = actions
            game._calls_used = calls
            game._prev_diffs = prev
            game._over = over
            game._stopped = stopped
            game._win_seat = win_seat
            game._end_reason = end_reason
            if hand.step not in PHASE_OF_STEP or len(hand.cards) != game._n:
                raise StateError("inconsistent state")
        except StateError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise StateError(f"not a game state: {error}") from None
        return game

    @classmethod
    def from_json(
        cls, text: str | bytes, journal: Sequence[Mapping[str, Any]] | None = None
    ) -> Self:
        """Load a state saved by :meth:`to_json` (``journal``: see :meth:`from_state`)."""
        try:
            state = json.loads(text)
        except ValueError as error:
            raise StateError(f"not JSON: {error}") from None
        if not isinstance(state, dict):
            raise StateError("a game state is a JSON object")
        return cls.from_state(state, owned=True, journal=journal)

    def copy(self) -> Self:
        """An independent copy (with as much of the journal as this game holds)."""
        state = self._state(self._deal_log, self._log, self._history)
        if self._absent != (0, 0, 0):
            state["v"], state["detached"] = _DETACHED_STATE_VERSION, list(self._absent)
        copy = self.from_state(json.loads(json.dumps(state)), owned=True)
        copy._detached = self._detached
        return copy

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Serialisation) and self.to_state() == other.to_state()

    __hash__ = None  # type: ignore[assignment]
