"""What each seat may know, and the record: :class:`Views`, a part of
:class:`~games.engine.Game`.

:meth:`~Views.view` (a seat) and :meth:`~Views.public_view` (a spectator) are the security
boundary (docs/rules.md "Information"): everything sent to clients is built from them or from
events filtered with :meth:`~games.engine.events.Event.visible_to`. :meth:`~Views.record`
reveals every card and is for finished games only.

>>> from games.engine import Game
>>> game = Game.new("classic", seed="views")
>>> sorted(set(game.view(game.dealer)) - set(game.public_view()))
['disclosures', 'legal_actions', 'your_discards', 'your_hand', 'your_kitty', 'your_seat']
"""

from __future__ import annotations

from typing import Any

from .actions import action_from_code
from .cards import cards_to_str
from .core import HAND_SUMMARY, NAMES, PHASE_OF_STEP, trick_winner
from .deal import Deal, seed_commitment
from .legal import LegalActions

__all__ = ["Views"]


class Views(LegalActions):
    """:meth:`view`, :meth:`public_view` and :meth:`record` (a part of
    :class:`~games.engine.Game`)."""

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know now (docs/rules.md "Information"); ``None``: a spectator.

        Public part: rules, hand_number, dealer, targets, trump, phase, to_act,
        current_trick, trick_history (this hand), tricks, scores, hand_cards_left, kitty
        (cards still face down), face_up, exchange (batches with counts), auction, calls
        made, previous hands' results (no cards), result. A seat adds your_seat, your_hand,
        legal_actions (API form), the cards of the batches it gave or received, its
        discards and the kitty (dealer), kitty cards shown to it (disclosures) and the card
        it swapped away.
        """
        n = self._n
        hand = self._hand
        step = hand.step
        out: dict[str, Any] = {
            "rules": self._rules.to_dict(),
            "players": n,
            "hand_number": len(self._history) + (0 if self._over else 1),
            "dealer": self._dealer,
            "targets": self.targets,
            "trump": hand.trump,
            "phase": PHASE_OF_STEP[step],
            "to_act": self.to_act(),
            "current_trick": [{"seat": s, "card": str(c)} for s, c in self.current_trick()],
            "trick_history": self._trick_history(),
            "tricks": list(hand.tricks),
            "scores": list(self._scores),
            "hand_cards_left": [h.bit_count() for h in hand.cards],
            "kitty_cards_left": 0 if hand.faceup >= 0 else hand.kitty.bit_count(),
            "face_up": NAMES[hand.faceup] if hand.faceup >= 0 and hand.kitty else None,
            "discarded": bool(hand.discards),
            "swap": None,
            "exchange": [{"from": g, "to": r, "count": k, "done": False} for g, r, k in hand.plan],
            "auction": None,
            "calls_made": [list(c) for c in self._calls_used] if self._rules.calls else None,
            "previous_hands": [{k: h[k] for k in HAND_SUMMARY} for h in self._history],
            "game_over": self._over,
            "result": None,
        }
        done = []
        for g, r, given, ret in hand.batches:
            entry: dict[str, Any] = {
                "from": g,
                "to": r,
                "count": given.bit_count(),
                "done": True,
                "returned_count": ret.bit_count(),
            }
            if seat in (g, r):
                entry["given"] = cards_to_str(given)
                entry["returned"] = cards_to_str(ret)
            done.append(entry)
        out["exchange"] = done + out["exchange"]
        if hand.swapped >= 0:
            out["swap"] = {"seat": hand.swapper, "taken": NAMES[hand.faceup]}
        if self._rules.bidding and (hand.bids or step == "bid"):
            out["auction"] = {
                "bids": [{"seat": s, "tricks": (t or None)} for s, t in hand.bids],
                "high": None
                if hand.high is None
                else {"seat": hand.high[0], "tricks": hand.high[1]},
            }
        if self._over:
            outcome = self.outcome()
            assert outcome is not None
            out["result"] = outcome.to_dict()
        if seat is not None:
            if type(seat) is not int or not 0 <= seat < n:
                raise ValueError(f"no seat {seat!r}")
            out["your_seat"] = seat
            out["your_hand"] = cards_to_str(hand.cards[seat])
            out["legal_actions"] = self.legal_summary(seat)
            if seat == self._dealer and self._rules.kitty == "dealer":
                out["your_discards"] = cards_to_str(hand.discards) if hand.discards else None
                out["your_kitty"] = cards_to_str(hand.kitty_cards) if hand.kitty_taken else None
            out["disclosures"] = [
                {"from": self._dealer, "cards": cards_to_str(m)}
                for u, m in hand.disclosures
                if u == seat
            ]
            if hand.swapped >= 0 and hand.swapper == seat:
                out["your_swapped_card"] = NAMES[hand.swapped]
        return out

    def public_view(self) -> dict[str, Any]:
        """What a spectator may know (:meth:`view` with ``seat=None``)."""
        return self.view(None)

    def _trick_history(self) -> list[dict[str, Any]]:
        n = self._n
        hand = self._hand
        out = []
        complete = (len(hand.played) - len(hand.trick)) // n
        for t in range(complete):
            cards = hand.played[t * n : (t + 1) * n]
            leader = hand.leaders[t]
            out.append(
                {
                    "leader": leader,
                    "cards": [NAMES[c] for c in cards],
                    "winner": trick_winner(cards, leader, n, hand.trump_suit),
                }
            )
        return out

    def record(self) -> dict[str, Any]:
        """The full record (every card public): docs/replay.md input (rules, first_dealer, deals,
        actions) plus its output fields (hands, scores, game_over, winner, final_hands) and
        ``ranks``. Feeding it to the replay command reproduces the game. A game loaded
        without the parts of its journal that were detached cannot give it (StateError)."""
        self._require_whole_journal()
        outcome = self.standings()
        return {
            "rules": self._rules.to_dict(),
            "seed": self._seed,
            "seed_commitment": None if self._seed is None else seed_commitment(self._seed),
            "first_dealer": self._first_dealer,
            "deals": [Deal(tuple(d[:-1]), d[-1]).to_dict() for d in self._deal_log],
            # A log entry is the seat's digit and the action's code.
            "actions": [
                {"seat": int(entry[0]), **action_from_code(entry[1:]).to_dict()}
                for entry in self._log
            ],
            "hands": self.history,
            "scores": list(self._scores),
            "game_over": self._over,
            "winner": outcome.winner if self._over else None,
            "ranks": list(outcome.ranks) if self._over else None,
            "final_hands": [cards_to_str(h) for h in self._hand.cards],
        }
