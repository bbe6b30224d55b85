"""Applying actions: :class:`Transitions`, a part of :class:`~games.engine.Game`.

The typed action is the one way in: :meth:`~Transitions.apply` checks the seat and the
phase, then dispatches on the action's class to its checks and its change;
:meth:`~Transitions.apply_dict` parses a JSON action into a typed one, raising docs/replay.md's
errors in their order of precedence -- ``unknown_action``, then ``not_your_turn``, then
``wrong_phase``, then the type's own checks -- and makes it by the same dispatch. Either raises
:class:`~games.engine.errors.IllegalAction` (with ``.code``) and changes nothing, or returns
the events of the action and of every automatic step after it (:mod:`.steps`).

>>> from games.engine import Game
>>> game = Game.new("classic", seed="doc")
>>> game.apply_dict(game.dealer, {"type": "bid", "tricks": 9})
Traceback (most recent call last):
...
games.engine.errors.IllegalAction: a bid action is not possible in the trump
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from .actions import (
    ACTION_CLASSES,
    PLAY_CODES,
    PLAYS,
    TRUMPS,
    Action,
    Bid,
    Discard,
    Give,
    NoSwap,
    Pass,
    Play,
    Swap,
    Trump,
    action_type,
)
from .cards import SUIT_MASKS, Card, card_list, cards_to_str
from .core import NAMES, TYPES_OF_STEP, trick_winner
from .errors import IllegalAction
from .events import Event
from .legal import LegalActions
from .rules import WOBURN_TARGETS
from .steps import HandSteps

__all__ = ["Transitions"]


class Transitions(HandSteps, LegalActions):
    """:meth:`apply` and :meth:`apply_dict` (a part of :class:`~games.engine.Game`)."""

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Make ``action`` for ``seat``; return the events it caused (including automatic
        steps and the next deal). Raises :class:`IllegalAction` and changes nothing if the
        action is not legal."""
        if type(action) is Play:  # the hot path, first (_play checks the turn itself)
            return self._play(seat, action.card._index)
        if not isinstance(action, ACTION_CLASSES):
            raise IllegalAction("unknown_action", f"not an action: {action!r}")
        return self._apply_in_turn(self._check_turn(seat, action.type), action)

    def apply_dict(self, seat: object, data: object) -> list[Event]:
        """Apply a JSON action (docs/replay.md / docs/api.md form) for ``seat``.

        Errors follow docs/replay.md's precedence: ``unknown_action``, ``not_your_turn`` (also a
        ``seat`` that is not an int), ``wrong_phase``, then the type's own checks.
        """
        kind = action_type(data)  # a Mapping from here on
        actor = self._check_turn(seat, kind)
        return self._apply_in_turn(actor, self._parse(actor, kind, cast(Mapping[str, Any], data)))

    def _apply_in_turn(self, seat: int, action: Action) -> list[Event]:
        """Make the action of ``seat``, which is to act in a step that takes actions of
        this type: the type's own checks, then its change."""
        match action:
            case Play():
                return self._play(seat, action.card._index)
            case Trump():
                return self._call(seat, action)
            case Discard():
                return self._discard(seat, action)
            case Give():
                return self._give(seat, action)
            case Bid():
                return self._bid(seat, action)
            case Pass():
                return self._pass(seat)
            case Swap():
                return self._swap(seat, action)
            case NoSwap():
                return self._no_swap(seat)

    def _check_turn(self, seat: object, kind: str) -> int:
        """``seat``, if it is to act and the step takes actions of type ``kind``; else
        ``not_your_turn``, then ``wrong_phase``."""
        if type(seat) is not int or seat != self._actor():
            raise IllegalAction("not_your_turn", f"seat {seat!r} is not to act")
        if kind not in TYPES_OF_STEP[self._hand.step]:
            raise IllegalAction(
                "wrong_phase", f"a {kind} action is not possible in the {self.phase}"
            )
        return seat

    def _parse(self, seat: int, kind: str, data: Mapping[str, Any]) -> Action:
        """The typed action of a JSON one whose seat and phase are right. Raises what only
        the JSON form can be refused for (a card that is no card, an argument of the wrong
        type) in the order of the type's own checks: a list of cards is checked whole here
        (count, duplicates, then each card: no card, or not held), so that its first fault
        is the one reported, as for the typed action."""
        if kind == "play":
            return PLAYS[Card.parse(data.get("card")).index]
        if kind == "trump":
            suit = data.get("suit")
            if not isinstance(suit, str) or suit not in TRUMPS:
                raise self._call_refused(suit)
            return TRUMPS[suit]
        if kind == "discard":
            mask = self._held_cards(seat, data.get("cards"), self._rules.kitty_size)
            return Discard(tuple(card_list(mask)))
        if kind == "give":
            _, to, count = self._batch_to(seat, data.get("to"))
            mask = self._held_cards(seat, data.get("cards"), count)
            return Give(to, tuple(card_list(mask)))
        if kind == "bid":
            tricks = data.get("tricks")
            if type(tricks) is not int:
                raise self._bid_refused(tricks)
            return Bid(tricks)
        if kind == "swap":
            return Swap(Card.parse(data.get("card")))
        return Pass() if kind == "pass" else NoSwap()

    # ------------------------------------------------------------------ play
    def _play(self, seat: int, idx: int) -> list[Event]:
        hand = self._hand
        if hand.step != "play":
            if seat != self._actor():
                raise IllegalAction("not_your_turn", f"seat {seat} is not to act")
            raise IllegalAction("wrong_phase", f"a play is not possible in the {self.phase}")
        n = self._n
        trick = hand.trick
        if seat != (hand.leader + len(trick)) % n:
            raise IllegalAction("not_your_turn", f"seat {seat} is not to act")
        held = hand.cards[seat]
        if not held >> idx & 1:
            raise IllegalAction("card_not_in_hand", f"{NAMES[idx]} is not in seat {seat}'s hand")
        if trick:
            led = trick[0] // 13
            if idx // 13 != led and held & SUIT_MASKS[led]:
                raise IllegalAction("must_follow_suit", f"seat {seat} must follow {'CDHS'[led]}")
        # -- legal: change the state
        hand.cards[seat] = held ^ (1 << idx)
        trick.append(idx)
        hand.played.append(idx)
        card = NAMES[idx]
        self._log.append(f"{seat}{PLAY_CODES[idx]}")
        events = [Event("play", {"seat": seat, "card": card})]
        if len(trick) == n:
            leader = hand.leader
            winner = trick_winner(trick, leader, n, hand.trump_suit)
            hand.tricks[winner] += 1
            events.append(
                Event(
                    "trick",
                    {
                        "leader": leader,
                        "cards": [NAMES[c] for c in trick],
                        "winner": winner,
                        "tricks": list(hand.tricks),
                    },
                )
            )
            hand.leader = winner
            hand.trick = []
            if len(hand.played) == n * self._rules.hand_size:
                self._end_hand(events)
            else:
                hand.leaders.append(winner)
        return events

    # ------------------------------------------------------------------ the other actions
    # (seat and phase already checked)
    def _log_action(self, seat: int, action: Action) -> None:
        self._log.append(f"{seat}{action.code()}")

    def _held_cards(self, seat: int, raw: object, count: int) -> int:
        """The mask of a list of ``count`` cards held by ``seat``, checked in this order:
        the count, duplicates, then each card (a card, held)."""
        if not isinstance(raw, list) or len(raw) != count:
            got = len(raw) if isinstance(raw, list) else "no list"
            raise IllegalAction("wrong_card_count", f"expected {count} cards, got {got}")
        for i in range(len(raw)):
            for j in range(i):
                if raw[i] == raw[j]:
                    raise IllegalAction("duplicate_card", f"card {raw[i]!r} given twice")
        mask = 0
        held = self._hand.cards[seat]
        for text in raw:
            idx = Card.parse(text).index
            if not held >> idx & 1:
                raise IllegalAction("card_not_in_hand", f"{text} is not in seat {seat}'s hand")
            mask |= 1 << idx
        return mask

    def _held_mask(self, seat: int, cards: tuple[Card, ...], count: int) -> int:
        """The mask of a typed action's cards: :meth:`_held_cards`'s checks on the card
        names they stand for (and its errors, which name the cards so)."""
        mask = 0
        for card in cards:
            if type(card) is not Card:
                break
            mask |= 1 << card._index
        else:
            # The usual case (and always after apply_dict's parse), told at once.
            if len(cards) == count == mask.bit_count() and not mask & ~self._hand.cards[seat]:
                return mask
        return self._held_cards(seat, [str(c) for c in cards], count)

    def _batch_to(self, seat: int, to: object) -> list[int]:
        """The open exchange batch ``[giver, receiver, count]`` from ``seat`` to ``to``."""
        batch = None
        if type(to) is int:
            for b in self._open_batches():
                if b[1] == to:
                    batch = b
        if batch is None:
            raise IllegalAction("wrong_recipient", f"seat {seat} owes no cards to {to!r} now")
        return batch

    def _bid_refused(self, tricks: object) -> IllegalAction:
        low = self._min_bid()
        return IllegalAction("invalid_bid", f"a bid must be an integer {low}..16, not {tricks!r}")

    def _call_refused(self, suit: object) -> IllegalAction:
        allowed = self._allowed_calls()
        return IllegalAction("invalid_suit", f"{suit!r} is not a call allowed now ({allowed})")

    def _give(self, seat: int, action: Give) -> list[Event]:
        to = action.to
        batch = self._batch_to(seat, to)
        mask = self._held_mask(seat, action.cards, batch[2])
        # -- legal
        hand = self._hand
        hand.cards[seat] &= ~mask
        hand.cards[to] |= mask
        hand.plan.remove(batch)
        record = [seat, to, mask, 0]
        hand.batches.append(record)
        self._log_action(seat, action)
        events = [
            Event("give", {"from": seat, "to": to, "count": batch[2]}),
            Event(
                "give_cards",
                {"from": seat, "to": to, "cards": cards_to_str(mask)},
                frozenset((seat, to)),
            ),
        ]
        if hand.return_mode == "immediate":
            self._return_batch(record, events)
        if not hand.plan:
            if hand.return_mode == "after_gives":
                self._returns_by_rank(events)
            self._next_step(events)
        return events

    def _call(self, seat: int, action: Trump) -> list[Event]:
        suit = action.suit
        if suit not in self._allowed_calls():
            raise self._call_refused(suit)
        hand = self._hand
        hand.trump = suit
        hand.trump_suit = "CDHS".index(suit) if len(suit) == 1 else -1
        if self._rules.calls:
            self._calls_used[seat].append(suit)
        self._log_action(seat, action)
        events = [Event("trump", {"seat": seat, "suit": suit})]
        self._next_step(events)
        return events

    def _discard(self, seat: int, action: Discard) -> list[Event]:
        mask = self._held_mask(seat, action.cards, self._rules.kitty_size)
        hand = self._hand
        hand.cards[seat] &= ~mask
        hand.discards = mask
        if self._rules.discard_trick:
            hand.tricks[seat] += 1
        self._log_action(seat, action)
        events = [
            Event("discard", {"seat": seat, "count": mask.bit_count()}),
            Event("discard_cards", {"seat": seat, "cards": cards_to_str(mask)}, frozenset((seat,))),
        ]
        self._next_step(events)
        return events

    def _swap(self, seat: int, action: Swap) -> list[Event]:
        hand = self._hand
        idx = action.card.index
        if not hand.cards[seat] >> idx & 1:
            raise IllegalAction("card_not_in_hand", f"{NAMES[idx]} is not in seat {seat}'s hand")
        taken = hand.faceup
        hand.cards[seat] = (hand.cards[seat] & ~(1 << idx)) | (1 << taken)
        hand.swapped = idx
        hand.swapper = seat
        hand.kitty = 0
        self._log_action(seat, action)
        events = [
            Event("swap", {"seat": seat, "taken": NAMES[taken]}),
            Event("swap_card", {"seat": seat, "card": NAMES[idx]}, frozenset((seat,))),
        ]
        self._next_step(events)
        return events

    def _no_swap(self, seat: int) -> list[Event]:
        self._log_action(seat, NoSwap())
        events = [Event("no_swap", {"seat": seat})]
        self._next_step(events)
        return events

    # ------------------------------------------------------------------ the Woburn auction
    def _bid(self, seat: int, action: Bid) -> list[Event]:
        tricks = action.tricks
        if type(tricks) is not int or not self._min_bid() <= tricks <= 16:
            raise self._bid_refused(tricks)
        hand = self._hand
        hand.bids.append([seat, tricks])
        hand.high = [seat, tricks]
        self._log_action(seat, action)
        events = [Event("bid", {"seat": seat, "tricks": tricks})]
        self._after_bid(seat, events)
        return events

    def _pass(self, seat: int) -> list[Event]:
        hand = self._hand
        hand.bids.append([seat, 0])
        hand.passed[seat] = True
        self._log_action(seat, Pass())
        events = [Event("pass", {"seat": seat})]
        self._after_bid(seat, events)
        return events

    def _after_bid(self, seat: int, events: list[Event]) -> None:
        n = self._n
        hand = self._hand
        high = hand.high
        if high is None:
            if all(hand.passed):
                self._dealer = (self._dealer + 1) % n
                events.append(Event("redeal", {"dealer": self._dealer}))
                self._start_hand(events)
                return
        elif all(hand.passed[s] for s in range(n) if s != high[0]):
            dealer, bid = high
            self._dealer = dealer
            eldest, middle = WOBURN_TARGETS[bid]
            targets = [0] * n
            targets[dealer] = bid
            targets[(dealer + 1) % n] = eldest
            targets[(dealer + 2) % n] = middle
            hand.targets = targets
            events.append(
                Event("auction", {"dealer": dealer, "bid": bid, "targets": list(targets)})
            )
            hand.steps = self._hand_steps(exchange=False)
            self._next_step(events)
            return
        nxt = (seat + 1) % n
        while hand.passed[nxt]:
            nxt = (nxt + 1) % n
        hand.bid_turn = nxt
