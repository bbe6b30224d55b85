"""What a seat knows in its view, as card masks: the shared input of the house strategies.

Cards are indices ``suit * 13 + rank`` (clubs, diamonds, hearts, spades = 0..3; ranks 2..A =
0..12) and card sets are int masks with bit ``index`` set, as in :mod:`games.engine.cards`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from bots.strategies.inference import known_voids
from games.engine import Rules
from games.engine.cards import Card, indices

SUIT_OF_CALL = {"C": 0, "D": 1, "H": 2, "S": 3}


def card_index(text: str) -> int:
    return Card.parse(text).index


def mask_of(cards: Iterable[str]) -> int:
    mask = 0
    for text in cards:
        mask |= 1 << Card.parse(text).index
    return mask


def names(mask: int) -> list[str]:
    return [str(Card(i)) for i in indices(mask)]


def part(mask: int, suit: int) -> int:
    """The 13-bit rank mask of ``suit`` in a card mask."""
    return (mask >> (13 * suit)) & 0x1FFF


def top_bit(ranks: int) -> int:
    """The highest rank of a non-empty rank mask."""
    return ranks.bit_length() - 1


def low_bit(ranks: int) -> int:
    """The lowest rank of a non-empty rank mask."""
    return (ranks & -ranks).bit_length() - 1


@dataclass
class TrickView:
    """The play phase of a seated view: hands, trick and what has been seen.

    ``unseen`` holds the cards the seat has not seen (in other hands, or out of play where
    the seat cannot tell); ``voids[seat]`` is a mask of suits that seat has shown void in.
    ``trump`` is -1 in no-trump calls (``NT``, ``MIZ``); ``misere`` is the ``MIZ`` call.
    """

    players: int
    me: int
    hand: int
    trump: int
    misere: bool
    trick: list[int]
    leader: int
    unseen: int
    voids: list[int]
    sizes: list[int]
    tricks: list[int]
    targets: list[int]

    @classmethod
    def from_view(cls, view: Mapping[str, Any]) -> TrickView:
        rules = Rules.from_dict(view["rules"])
        me = view["your_seat"]
        hand = mask_of(view["your_hand"])
        played = 0
        for trick in view["trick_history"]:
            played |= mask_of(trick["cards"])
        current = [card_index(t["card"]) for t in view["current_trick"]]
        for c in current:
            played |= 1 << c
        known_out = mask_of(view.get("your_discards") or [])
        if view.get("face_up"):
            known_out |= 1 << card_index(view["face_up"])
        if view.get("your_swapped_card"):
            known_out |= 1 << card_index(view["your_swapped_card"])
        call = view.get("trump") or ""
        leader = view["current_trick"][0]["seat"] if current else view["to_act"][0]
        return cls(
            players=rules.players,
            me=me,
            hand=hand,
            trump=SUIT_OF_CALL.get(call, -1),
            misere=call == "MIZ",
            trick=current,
            leader=leader,
            unseen=rules.deck & ~(hand | played | known_out),
            voids=known_voids(view),
            sizes=list(view["hand_cards_left"]),
            tricks=list(view["tricks"]),
            targets=list(view["targets"]),
        )
