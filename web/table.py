"""The live table as a page shows it: seats around the table, the viewer's hand, and what
the player to act can do as buttons (docs/web.md, "Test hooks").

Everything here is made from one game view, built for the viewer by
``games.selectors.game_view`` (the one function that decides what a seat may see): a card
that is not in that view cannot reach the page.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import timezone

from ratings.display import display_text
from web.templatetags.cards import sort_hand

CALL_ORDER = ("C", "D", "H", "S", "NT", "MIZ")
#: Where each seat sits on the screen, counted clockwise from the viewer (at the bottom);
#: play moves to the left.
POSITIONS = {3: ("bottom", "left", "right"), 4: ("bottom", "left", "top", "right")}
BIDS = range(8, 17)


@dataclass
class SeatPanel:
    seat: int
    username: str
    is_bot: bool
    played_by: str | None
    position: str
    role: str
    target: int | None
    tricks: int
    score: int
    cards_left: int
    to_act: bool
    trick_card: str | None
    is_you: bool


@dataclass
class HandCard:
    code: str
    enabled: bool
    send: str = ""  # the action a click sends, as JSON ("" for a card picked for a choice)
    pick: bool = False  # clicking it chooses it for a discard or a give


@dataclass
class Choice:
    """A choice of several cards: a discard, or a give (to one of ``targets``)."""

    type: str
    count: int
    targets: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Controls:
    calls: list[dict[str, Any]] = field(default_factory=list)
    bids: list[dict[str, Any]] = field(default_factory=list)
    can_pass: bool = False
    can_skip_swap: bool = False
    choice: Choice | None = None


def seat_role(seat: int, dealer: int, players: int) -> str:
    """A seat's role in a hand: dealer, eldest (left of the dealer), middle (3 seats)."""
    offset = (seat - dealer) % players
    if offset == 0:
        return "dealer"
    if offset == 1:
        return "eldest"
    return "middle" if players == 3 else ""


def seat_panels(view: dict[str, Any], names: dict[int, str]) -> list[SeatPanel]:
    players = view["players"]
    me = view.get("your_seat")
    bottom = me if isinstance(me, int) else 0
    seated = {s["seat"]: s for s in view["seats"]}
    in_trick = {t["seat"]: t["card"] for t in view["current_trick"]}
    targets = view.get("targets") or [None] * players
    panels = []
    for offset, position in enumerate(POSITIONS[players]):
        seat = (bottom + offset) % players
        who = seated.get(seat, {})
        panels.append(
            SeatPanel(
                seat=seat,
                username=names[seat],
                is_bot=bool(who.get("is_bot")),
                played_by=who.get("played_by"),
                position=position,
                role=seat_role(seat, view["dealer"], players),
                target=targets[seat],
                tricks=view["tricks"][seat],
                score=view["scores"][seat],
                cards_left=view["hand_cards_left"][seat],
                to_act=seat in view["to_act"] and view["status"] == "playing",
                trick_card=in_trick.get(seat),
                is_you=seat == me,
            )
        )
    return panels


def _send(action: dict[str, Any]) -> str:
    return json.dumps(action, separators=(",", ":"))


def hand_and_controls(view: dict[str, Any]) -> tuple[list[HandCard], Controls]:
    """The viewer's hand as buttons (enabled when a click on it is a legal action) and the
    other controls of the legal actions."""
    legal = view.get("legal_actions") or []
    by_type: dict[str, list[dict[str, Any]]] = {}
    for action in legal:
        by_type.setdefault(action["type"], []).append(action)
    controls = Controls()
    card_actions = {a["card"]: a for t in ("play", "swap") for a in by_type.get(t, [])}
    choice_type = next((t for t in ("discard", "give") if t in by_type), None)
    hand = []
    for code in sort_hand(view.get("your_hand") or []):
        if choice_type:
            hand.append(HandCard(code=code, enabled=True, pick=True))
        elif code in card_actions:
            hand.append(HandCard(code=code, enabled=True, send=_send(card_actions[code])))
        else:
            hand.append(HandCard(code=code, enabled=False))
    if choice_type:
        entries = by_type[choice_type]
        controls.choice = Choice(
            type=choice_type,
            count=entries[0]["count"],
            targets=[{"to": e["to"], "count": e["count"]} for e in entries if "to" in e],
        )
    if "trump" in by_type:
        legal_calls = {a["suit"] for a in by_type["trump"]}
        shown = CALL_ORDER if view["rules"].get("preset") == "calls" else CALL_ORDER[:4]
        controls.calls = [
            {"suit": s, "enabled": s in legal_calls, "send": _send({"type": "trump", "suit": s})}
            for s in shown
        ]
    if "bid" in by_type or "pass" in by_type:
        legal_bids = {a["tricks"] for a in by_type.get("bid", [])}
        controls.bids = [
            {"tricks": n, "enabled": n in legal_bids, "send": _send({"type": "bid", "tricks": n})}
            for n in BIDS
        ]
        controls.can_pass = "pass" in by_type
    controls.can_skip_swap = "no_swap" in by_type
    return hand, controls


def names_by_seat(view: dict[str, Any], tournament: dict[str, Any] | None) -> dict[int, str]:
    """Each seat's name as shown: the account's, or in a tournament the entrant's (two
    entrants may be one house bot's account: ``house:random #1``, ``house:random #2``)."""
    entrants = tournament["seat_names"] if tournament else {}
    return told_apart(
        {
            s["seat"]: str(entrants.get(s["seat"]) or s.get("username") or f"seat {s['seat']}")
            for s in view["seats"]
        }
    )


def told_apart(names: Mapping[int, str]) -> dict[int, str]:
    """Seat names a person can tell apart: a name that sits more than once (two house bots
    of one kind) is numbered in seat order, ``house:random #1`` and ``house:random #2``, as
    a tournament numbers its entrants."""
    counts = Counter(names.values())
    seen: Counter[str] = Counter()
    distinct = {}
    for seat in sorted(names):
        name = names[seat]
        if counts[name] > 1:
            seen[name] += 1
            name = f"{name} #{seen[name]}"
        distinct[seat] = name
    return distinct


def table_context(
    view: dict[str, Any],
    tournament: dict[str, Any] | None = None,
    rating: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """What the table's template needs, from the viewer's game view (and, for a game of a
    tournament, where it stands in it: ``tournaments.selectors.game_place``; after the end
    of a rated game, what it did to the viewer's rating once known:
    ``ratings.selectors.game_result_rating``)."""
    hand, controls = hand_and_controls(view)
    names = names_by_seat(view, tournament)
    accounts = {s["seat"]: s.get("username") for s in view["seats"]}
    exchange = _batches_with_names(view.get("exchange"), names)
    for target in controls.choice.targets if controls.choice else []:
        target["name"] = names.get(target["to"])
    result = view.get("result")
    standings = []
    if result:
        standings = sorted(
            (
                {
                    "seat": s,
                    "name": names.get(s),
                    "username": accounts.get(s),
                    "rank": result["ranks"][s],
                    "score": result["scores"][s],
                }
                for s in range(view["players"])
            ),
            key=lambda line: (line["rank"], line["seat"]),
        )
    to_act = [names.get(s) for s in view["to_act"]] if view["status"] == "playing" else []
    last_trick = (view.get("trick_history") or [None])[-1]
    me = view.get("your_seat")
    seated = {s["seat"]: s for s in view["seats"]}
    # Who plays the viewer's seat after a resignation (or three timeouts).
    stand_in = seated.get(me, {}).get("played_by") if isinstance(me, int) else None
    return {
        "view": view,
        "seconds_left": _seconds_left(view.get("deadline")),
        "seats": seat_panels(view, names),
        "tournament": tournament,
        "hand": hand,
        "controls": controls,
        "exchange": exchange,
        "last_trick": _trick_with_players(last_trick, names, view["players"]),
        "doing": DOING.get(view["phase"], view["phase"]),
        "from_kitty": set(view.get("your_kitty") or []),
        "to_act_names": to_act,
        "your_turn": me in view["to_act"] and bool(view.get("legal_actions")),
        "stand_in": stand_in,
        "can_resign": isinstance(me, int) and view["status"] == "playing" and not stand_in,
        "standings": standings,
        "names": names,
        "record_hands": _record_hands(view, names),
        "summary": hand_summary(view, names),
        "you": result_of_viewer(view, rating),
        "tricks_done": len(view.get("trick_history") or []),
    }


def hand_summary(view: dict[str, Any], names: dict[int, str]) -> dict[str, Any] | None:
    """From the second hand on: each seat's tricks in the hand before against its target,
    and the exchange this hand starts with (who gives how many cards to whom). Shown
    between the hands (``between``: no card of this hand down yet); the page shows it a
    while too when the hand changed faster than it could show. Made from the public part
    of the view: the hands' results and the exchange's counts, never a card."""
    previous = view.get("previous_hands") or []
    if not previous or view["status"] != "playing":
        return None
    last = previous[-1]
    seats = [
        {
            "seat": s,
            "name": names.get(s),
            "tricks": last["tricks"][s],
            "target": last["targets"][s],
            "diff": last["diffs"][s],
            "diff_text": _diff_text(last["diffs"][s]),
        }
        for s in range(view["players"])
    ]
    exchange = [
        {
            "from": b["from"],
            "to": b["to"],
            "count": b["count"],
            "from_name": names.get(b["from"]),
            "to_name": names.get(b["to"]),
            "done": b["done"],
        }
        for b in view.get("exchange") or []
    ]
    between = not view.get("trick_history") and not view.get("current_trick")
    return {
        "hand": len(previous),
        "trump": last["trump"],
        "seats": seats,
        "exchange": exchange,
        "between": between,
    }


def _diff_text(diff: int) -> str:
    """Tricks against target in words: ``2 up``, ``1 down``, ``made it``."""
    if diff > 0:
        return f"{diff} up"
    if diff < 0:
        return f"{-diff} down"
    return "made it"


def result_of_viewer(view: dict[str, Any], rating: dict[str, Any] | None) -> dict[str, Any] | None:
    """A seated viewer's line of a finished game's result: place and score, and for a
    rated game the rating before and after (None until the game has been rated)."""
    me = view.get("your_seat")
    result = view.get("result")
    if not isinstance(me, int) or not result or view["status"] != "finished":
        return None
    place = result["ranks"][me]
    seat: dict[str, Any] = next((s for s in view["seats"] if s["seat"] == me), {})
    shared = list(result["ranks"]).count(place) > 1
    shown = None
    if rating is not None and view.get("rated"):
        shown = {
            **rating,
            "change": rating["after"] - rating["before"],
            "before_text": display_text(rating["before"], rating["provisional_before"]),
            "after_text": display_text(rating["after"], rating["provisional_after"]),
        }
    return {
        "place": place,
        "place_text": ("shared " if shared else "") + PLACES.get(place, f"{place}th"),
        "won": place == 1 and not shared,
        # A resigned seat's rating counts it last, whatever its seat went on to score.
        "resigned": bool(seat.get("played_by")),
        "score": result["scores"][me],
        "of": view["players"],
        "rated": bool(view.get("rated")),
        "rating": shown,
    }


PLACES = {1: "1st", 2: "2nd", 3: "3rd"}


#: What the seat to act is doing, by phase ("ann to name trump").
DOING = {
    "bid": "to bid",
    "exchange": "to give cards",
    "trump": "to name trump",
    "discard": "to discard",
    "swap": "to swap a card for the face-up one, or not",
    "play": "to play",
}


def _batches_with_names(
    batches: list[dict[str, Any]] | None, names: dict[int, str]
) -> list[dict[str, Any]]:
    """Exchange batches with the giver's and the receiver's names."""
    return [
        {**batch, "from_name": names.get(batch["from"]), "to_name": names.get(batch["to"])}
        for batch in batches or []
    ]


def _trick_with_players(
    trick: dict[str, Any] | None, names: dict[int, str], players: int
) -> dict[str, Any] | None:
    """A finished trick with who played each card (the leader first, then clockwise)."""
    if trick is None:
        return None
    cards = [
        {"card": card, "name": names.get((trick["leader"] + i) % players)}
        for i, card in enumerate(trick["cards"])
    ]
    return {**trick, "cards": cards, "winner_name": names.get(trick["winner"])}


def _seconds_left(deadline: str | None) -> float | None:
    """The move time left now, by the server's clock (the page counts down from it, so a
    browser's wrong clock does not matter)."""
    if not deadline:
        return None
    left = datetime.fromisoformat(deadline) - timezone.now()
    return max(0.0, round(left.total_seconds(), 1))


def _record_hands(view: dict[str, Any], names: dict[int, str]) -> list[dict[str, Any]]:
    """After the end: each hand's deal (every seat's cards) and its outcome, from the record."""
    record = view.get("record")
    if not record:
        return []
    hands = []
    for number, (deal, outcome) in enumerate(
        zip(record["deals"], record["hands"], strict=False), 1
    ):
        hands.append(
            {
                "number": number,
                "outcome": outcome,
                "seats": [
                    {"seat": s, "name": names.get(s), "cards": sort_hand(cards)}
                    for s, cards in enumerate(deal["hands"])
                ],
                "kitty": sort_hand(deal.get("kitty") or []),
                "exchange": _batches_with_names(outcome.get("exchange"), names),
            }
        )
    return hands
