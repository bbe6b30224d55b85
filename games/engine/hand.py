"""The state of the hand in progress: one value, replaced at each deal.

A :class:`HandState` holds everything that lives only as long as a hand (the cards, the
kitty, the exchange, the auction, the trick play) and reads and writes its own part of the
stored state (:meth:`HandState.to_state`, :meth:`HandState.from_state`); the game around it
keeps what outlives a hand (scores, dealer, the journal). Card sets are bit masks
(:mod:`.cards`), seats ints.

>>> hand = HandState.new(3)
>>> hand.step, hand.cards, hand.tricks
('over', [0, 0, 0], [0, 0, 0])
>>> HandState.from_state(hand.to_state()) == hand
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["HandState"]


@dataclass(slots=True)
class HandState:
    """The hand in progress. Mutable: the game's transitions change it in place."""

    #: The interactive step waiting for an action (``bid give trump discard swap play``),
    #: or ``over`` between hands and after the last one.
    step: str = "over"
    #: The steps still to come in this hand, automatic ones (``take``, ``returns``) included.
    steps: list[str] = field(default_factory=list)
    #: Target tricks by seat (None during the Woburn auction).
    targets: list[int] | None = None
    #: Each seat's cards now.
    cards: list[int] = field(default_factory=list)
    #: The cards still in the kitty, the kitty as dealt, and whether the dealer took it.
    kitty: int = 0
    kitty_cards: int = 0
    kitty_taken: bool = False
    #: The dealer's discards.
    discards: int = 0
    #: ``9-5-3-single-kitty``: the face-up card, the card swapped for it and its swapper
    #: (-1: none).
    faceup: int = -1
    swapped: int = -1
    swapper: int = -1
    #: The call (``C D H S NT MIZ``) and its suit index (-1: none, NT, MIZ).
    trump: str | None = None
    trump_suit: int = -1
    #: The exchange: batches still to give ``[giver, receiver, count]``; whether all open
    #: batches may be given in any order; when returns are made (``immediate``,
    #: ``after_gives``, ``after_trump``); batches given ``[giver, receiver, given, returned]``.
    plan: list[list[int]] = field(default_factory=list)
    give_any: bool = False
    return_mode: str = "immediate"
    batches: list[list[int]] = field(default_factory=list)
    #: The dealer's disclosures ``[up player, cards shown]``.
    disclosures: list[list[int]] = field(default_factory=list)
    #: The Woburn auction: ``[seat, tricks]`` in order (0: a pass), who passed, the high
    #: bid ``[seat, tricks]`` and the seat to bid.
    bids: list[list[int]] = field(default_factory=list)
    passed: list[bool] = field(default_factory=list)
    high: list[int] | None = None
    bid_turn: int = 0
    #: Trick play: the leader of the current trick, its cards, tricks won by seat, every
    #: card played in order and each trick's leader.
    leader: int = 0
    trick: list[int] = field(default_factory=list)
    tricks: list[int] = field(default_factory=list)
    played: list[int] = field(default_factory=list)
    leaders: list[int] = field(default_factory=list)

    @classmethod
    def new(cls, players: int) -> HandState:
        """The state before a deal (and of a game that has none)."""
        hand = cls()
        hand.cards = [0] * players
        hand.passed = [False] * players
        hand.tricks = [0] * players
        return hand

    def to_state(self) -> dict[str, Any]:
        """This hand's part of :meth:`games.engine.Game.to_state` (its lists are shared,
        not copied: the caller encodes them at once)."""
        return {
            "step": self.step,
            "steps": self.steps,
            "targets": self.targets,
            "hands": self.cards,
            "kitty": [self.kitty, self.kitty_cards, self.kitty_taken],
            "disc": self.discards,
            "swap": [self.faceup, self.swapped, self.swapper],
            "trump": self.trump,
            "ex": [self.plan, self.give_any, self.return_mode, self.batches],
            "discl": self.disclosures,
            "bid": [self.bids, self.passed, self.high, self.bid_turn],
            "play": [self.leader, self.trick, self.tricks, self.played, self.leaders],
        }

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> HandState:
        """The hand of a stored state (its lists copied). Raises what reading a malformed
        one raises (KeyError, TypeError, ValueError); the caller makes it a StateError."""
        # Set one by one, not passed to the constructor: its many keyword arguments cost
        # more, and the platform loads a state for every move. Read in the order of the
        # stored state, so a malformed one fails as it always did.
        hand = cls.__new__(cls)
        hand.step = state["step"]
        hand.steps = list(state["steps"])
        hand.targets = None if state["targets"] is None else list(state["targets"])
        hand.cards = list(state["hands"])
        hand.kitty, hand.kitty_cards, hand.kitty_taken = state["kitty"]
        hand.discards = state["disc"]
        hand.faceup, hand.swapped, hand.swapper = state["swap"]
        trump = hand.trump = state["trump"]
        hand.trump_suit = "CDHS".index(trump) if trump and len(trump) == 1 else -1
        plan, hand.give_any, hand.return_mode, batches = state["ex"]
        hand.plan = [list(b) for b in plan]
        hand.batches = [list(b) for b in batches]
        hand.disclosures = [list(d) for d in state["discl"]]
        bids, passed, high, hand.bid_turn = state["bid"]
        hand.bids = [list(b) for b in bids]
        hand.passed = list(passed)
        hand.high = None if high is None else list(high)
        hand.leader, trick, tricks, played, leaders = state["play"]
        hand.trick = list(trick)
        hand.tricks = list(tricks)
        hand.played = list(played)
        hand.leaders = list(leaders)
        return hand
