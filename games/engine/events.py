"""Events: what :meth:`games.engine.Game.apply` reports, with who may see it.

An :class:`Event` has a ``type``, a JSON-able ``payload`` and a ``visibility``: ``None`` for
everyone (players and spectators), else the frozenset of seats that may see it. The platform
sends a seat only the events with :meth:`Event.visible_to` true, and spectators only the
public ones; hidden cards only ever appear in events with a restricted visibility.

Event types (payload keys):

============== ========== ===========================================================
type           visible to payload
============== ========== ===========================================================
hand_start     everyone   hand_number, deal_number, dealer, targets (null while bidding),
                          face_up (single-kitty card or null)
deal           the seat   seat, cards (its hand as dealt)
bid / pass     everyone   seat, tricks (bid only)
redeal         everyone   dealer (the next dealer, after three passes)
auction        everyone   dealer (the highest bidder), bid, targets
give           everyone   from, to, count
give_cards     from, to   from, to, cards
return         everyone   from (the down player), to, count
return_cards   from, to   from, to, cards
trump          everyone   seat, suit (C D H S, or NT / MIZ in ``calls``)
discard        everyone   seat, count
discard_cards  dealer     seat, cards
kitty_taken    everyone   seat, count
kitty_cards    dealer     seat, cards
disclosure     up player  from (the dealer), to, cards (kitty cards shown; nothing moves)
swap           everyone   seat, taken (the face-up card)
swap_card      the seat   seat, card (the card given up, out of play face down)
no_swap        everyone   seat
play           everyone   seat, card
trick          everyone   leader, cards, winner, tricks (counts after the trick)
hand_end       everyone   hand_number, dealer, targets, trump, tricks, diffs, scores
game_over      everyone   winner, ranks, scores, reason
stopped        everyone   reason ("no_more_deals": an explicit-deal game ran out of deals)
============== ========== ===========================================================

>>> event = Event("play", {"seat": 1, "card": "AH"})
>>> event.visible_to(2), event.to_dict()
(True, {'type': 'play', 'seat': 1, 'card': 'AH'})
>>> Event("deal", {"seat": 0, "cards": []}, frozenset({0})).visible_to(None)
False
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["Event"]


class Event(NamedTuple):
    """One thing that happened, with its visibility (``None`` = public)."""

    type: str
    payload: dict[str, Any]
    visibility: frozenset[int] | None = None

    def visible_to(self, seat: int | None) -> bool:
        """May ``seat`` (``None`` = a spectator) see this event?"""
        return self.visibility is None or (seat is not None and seat in self.visibility)

    @property
    def public(self) -> bool:
        return self.visibility is None

    def to_dict(self) -> dict[str, Any]:
        """``{"type": ..., **payload}``, the API's event body (the platform adds seq, at)."""
        return {"type": self.type, **self.payload}
