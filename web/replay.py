"""A finished game step by step (docs/web.md, "Replay").

Step ``N`` is the game after its first ``N`` actions (step 0: the first deal). The record
(``games.selectors.game_record``) is played through the rules engine with the replay
command's own loader (``games.engine.replay.load_case``), one action at a time: the engine
does the rules; this module only reads what it holds at the step asked for (every seat's
cards, the trick, the kitty, the exchange, scores) and words what each step did from the
events the engine reported. Every card is public once the game is over, so all hands show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine import Game as Engine
from games.engine.events import Event
from games.engine.replay import load_case
from web.table import POSITIONS, seat_role, told_apart
from web.templatetags.cards import CALL_NAMES, SUIT_ORDER, sort_hand

#: What the seat to act is doing, by the engine's phase.
DOING = {
    "bid": "bid",
    "exchange": "give cards",
    "trump": "name trump",
    "discard": "discard",
    "swap": "swap or keep",
    "play": "play",
}


@dataclass
class Part:
    """A piece of a sentence: words, or one face-up card."""

    text: str = ""
    card: str = ""


@dataclass
class Line:
    parts: list[Part]


@dataclass
class SuitRow:
    suit: str
    cards: list[str]


@dataclass
class SeatState:
    seat: int
    name: str
    is_bot: bool
    position: str
    role: str
    target: int | None
    tricks: int
    score: int
    cards: list[str]  # sorted as hands are (``sorted_hand``)
    suits: list[SuitRow]
    to_act: bool
    trick_card: str | None
    just_played: bool


@dataclass
class StepLink:
    """One step in the list of a hand's steps: a link to the state after it."""

    step: int
    parts: list[Part]
    seat: int | None = None
    ends_trick: bool = False


@dataclass
class HandLink:
    """A deal in the hand index: where it starts and how it ended."""

    number: int
    deal: int
    step: int
    dealer: int
    dealer_name: str
    redeal: bool = False
    passed_out: bool = False
    trump: str | None = None
    tricks: list[int] | None = None
    diffs: list[int] | None = None
    scores: list[int] | None = None
    ended: int | None = None  # the step that ended it


@dataclass
class Batch:
    giver: str
    receiver: str
    count: int
    done: bool
    given: list[str]
    returned: list[str]


@dataclass
class Kitty:
    """The kitty of the hand shown (every card is public in a replay)."""

    face_down: list[str] = field(default_factory=list)
    taken_by: str = ""
    taken: list[str] = field(default_factory=list)
    discards: list[str] = field(default_factory=list)
    shown: list[tuple[str, list[str]]] = field(default_factory=list)
    face_up: str | None = None
    swapper: str = ""
    swapped: str | None = None  # the card the swapper gave up


@dataclass
class Standing:
    seat: int
    name: str
    rank: int
    score: int


@dataclass
class ReplayStep:
    game_id: int
    rules: Any
    players: int
    step: int
    last: int
    names: dict[int, str]
    hand_number: int
    deal: int
    dealer: int
    trump: str | None
    phase: str
    next_up: str  # "ann to play", "" when nobody acts
    seats: list[SeatState]
    trick: list[tuple[str, str, str]]  # (position, card, who played it) on the table
    trick_done: bool
    trick_winner: str
    happened: list[Line]
    kitty: Kitty | None
    exchange: list[Batch]
    auction: list[tuple[str, int | None]]
    calls_made: list[tuple[str, list[str]]]
    hands: list[HandLink]
    hand_steps: list[StepLink]
    scores_table: list[HandLink]
    result: list[Standing]
    over: bool

    @property
    def previous(self) -> int | None:
        return self.step - 1 if self.step > 0 else None

    @property
    def next(self) -> int | None:
        return self.step + 1 if self.step < self.last else None


def step_number(raw: str | None, last: int) -> int:
    """``?step=`` as a step from 0 to ``last`` (a missing or bad value is 0)."""
    try:
        number = int(raw or 0)
    except ValueError:
        return 0
    return min(max(number, 0), last)


def _cards(text: str, cards: Sequence[str], after: str = "") -> list[Part]:
    parts = [Part(text=text)] + [Part(card=c) for c in sort_hand(cards)]
    return parts + ([Part(text=after)] if after else [])


def _call(suit: str) -> str:
    return CALL_NAMES.get(suit, suit)


def describe(events: Sequence[Event], names: Mapping[int, str]) -> list[Line]:
    """What the engine reported, in words: one line per thing that happened (a card given
    is told once, with its cards, not also as a count)."""
    lines: list[Line] = []

    def name(seat: int) -> str:
        return names.get(seat, f"seat {seat}")

    def say(*parts: Part) -> None:
        lines.append(Line(list(parts)))

    for event in events:
        p = event.payload
        kind = event.type
        if kind == "hand_start":
            text = f"Hand {p['hand_number']} is dealt; {name(p['dealer'])} deals"
            if p["targets"]:
                targets = ", ".join(f"{name(s)} {t}" for s, t in enumerate(p["targets"]))
                text += f" (targets: {targets})"
            say(Part(text=text + "."))
            batches = [b for b in p.get("exchange") or [] if b["count"]]
            if batches:
                gives = "; ".join(
                    f"{name(b['from'])} gives {b['count']} to {name(b['to'])}" for b in batches
                )
                say(Part(text=f"The exchange to come: {gives}."))
            if p.get("face_up"):
                say(Part(text="The face-up card is"), Part(card=p["face_up"]), Part(text="."))
        elif kind == "bid":
            say(Part(text=f"{name(p['seat'])} bids {p['tricks']}."))
        elif kind == "pass":
            say(Part(text=f"{name(p['seat'])} passes."))
        elif kind == "redeal":
            say(Part(text=f"Everyone passed: {name(p['dealer'])} deals again."))
        elif kind == "auction":
            say(Part(text=f"{name(p['dealer'])} wins the auction with {p['bid']} and deals."))
        elif kind == "give_cards":
            text = f"{name(p['from'])} gives"
            lines.append(Line(_cards(text, p["cards"], f"to {name(p['to'])}.")))
        elif kind == "return_cards":
            text = f"{name(p['from'])} returns"
            lines.append(Line(_cards(text, p["cards"], f"to {name(p['to'])}.")))
        elif kind == "trump":
            suit = p["suit"]
            verb = "calls" if suit in ("NT", "MIZ") else "names trump:"
            say(Part(text=f"{name(p['seat'])} {verb} {_call(suit)}."))
        elif kind == "discard_cards":
            lines.append(Line(_cards(f"{name(p['seat'])} discards", p["cards"], ".")))
        elif kind == "kitty_cards":
            lines.append(Line(_cards(f"{name(p['seat'])} takes the kitty:", p["cards"], ".")))
        elif kind == "disclosure":
            text = f"{name(p['from'])} shows {name(p['to'])}"
            lines.append(Line(_cards(text, p["cards"], "from the kitty.")))
        elif kind == "swap":
            say(Part(text=f"{name(p['seat'])} takes the face-up"), Part(card=p["taken"]))
        elif kind == "swap_card":
            lines[-1].parts += [Part(text="and gives up"), Part(card=p["card"]), Part(text=".")]
        elif kind == "no_swap":
            say(Part(text=f"{name(p['seat'])} keeps their hand."))
        elif kind == "play":
            say(Part(text=f"{name(p['seat'])} plays"), Part(card=p["card"]))
        elif kind == "trick":
            tricks = "-".join(str(t) for t in p["tricks"])
            say(Part(text=f"{name(p['winner'])} wins the trick (tricks {tricks})."))
        elif kind == "hand_end":
            diffs = ", ".join(f"{name(s)} {d:+d}" for s, d in enumerate(p["diffs"]))
            say(Part(text=f"Hand {p['hand_number']} is over: {diffs}."))
        elif kind == "game_over":
            winner = p["winner"]
            text = "Game over: " + (f"{name(winner)} wins." if winner is not None else "a tie.")
            say(Part(text=text))
        elif kind == "stopped":
            say(Part(text="The game stops here."))
    return lines


def _action_parts(action: Mapping[str, Any], names: Mapping[int, str]) -> list[Part]:
    """An action as a short label in the list of a hand's steps."""
    who = names.get(action["seat"], f"seat {action['seat']}")
    kind = action["type"]
    if kind == "play":
        return [Part(text=who), Part(card=action["card"])]
    if kind == "give":
        return _cards(f"{who} gives", action["cards"], f"to {names.get(action['to'], '')}")
    if kind == "discard":
        return _cards(f"{who} discards", action["cards"])
    if kind == "swap":
        return [Part(text=f"{who} swaps"), Part(card=action["card"])]
    if kind == "trump":
        return [Part(text=f"{who}: {_call(action['suit'])}")]
    if kind == "bid":
        return [Part(text=f"{who} bids {action['tricks']}")]
    if kind == "pass":
        return [Part(text=f"{who} passes")]
    if kind == "no_swap":
        return [Part(text=f"{who} keeps")]
    return [Part(text=f"{who}: {kind}")]


@dataclass
class _Walk:
    """What the replay collects on its way through every action."""

    names: Mapping[int, str]
    hands: list[HandLink] = field(default_factory=list)
    steps_of_deal: list[list[StepLink]] = field(default_factory=list)

    def saw(self, events: Sequence[Event], step: int) -> None:
        for event in events:
            p = event.payload
            if event.type == "hand_start":
                previous = self.hands[-1] if self.hands else None
                deal = len(self.hands)
                self.hands.append(
                    HandLink(
                        number=p["hand_number"],
                        deal=deal,
                        step=step,
                        dealer=p["dealer"],
                        dealer_name=self.names.get(p["dealer"], ""),
                        redeal=previous is not None and previous.number == p["hand_number"],
                    )
                )
                self.steps_of_deal.append([StepLink(step=step, parts=[Part(text="Deal")])])
            elif event.type == "redeal":
                self.hands[-1].passed_out = True
            elif event.type == "hand_end":
                hand = self.hands[-1]
                hand.trump, hand.tricks = p["trump"], p["tricks"]
                hand.diffs, hand.scores, hand.ended = p["diffs"], p["scores"], step


def replay_step(record: Mapping[str, Any], step: int) -> ReplayStep:
    """The game of ``record`` (``games.selectors.game_record``) after ``step`` actions (clamped
    to the game's length), with the hand index and the steps of the hand shown."""
    names = told_apart({int(s["seat"]): str(s["username"]) for s in record["seats"]})
    engine, actions = load_case(record)
    last = len(actions)
    step = min(max(step, 0), last)
    walk = _Walk(names)
    opening = engine.opening_events()
    walk.saw(opening, 0)
    shown: ReplayStep | None = None
    if step == 0:
        shown = _state(record, engine, opening, walk, step, last)
    for number, action in enumerate(actions, 1):
        events = engine.apply_dict(action["seat"], action)
        walk.steps_of_deal[-1].append(
            StepLink(
                step=number,
                parts=_action_parts(action, names),
                seat=action["seat"],
                ends_trick=any(e.type == "trick" for e in events),
            )
        )
        walk.saw(events, number)
        if number == step:
            shown = _state(record, engine, events, walk, step, last)
    assert shown is not None
    shown.hands = walk.hands
    shown.hand_steps = walk.steps_of_deal[shown.deal]
    shown.scores_table = [h for h in walk.hands if h.ended is not None and h.ended <= step]
    return shown


def _suits(cards: list[str]) -> list[SuitRow]:
    return [SuitRow(suit, [c for c in cards if c[1] == suit]) for suit in SUIT_ORDER]


def _kitty(
    engine: Engine,
    kitty_dealt: list[str],
    public: dict[str, Any],
    views: list[dict[str, Any]],
    names: Mapping[int, str],
) -> Kitty | None:
    """The kitty as the dealer (and, for the single kitty, the swapper) knows it."""
    rules = engine.rules
    dealer = engine.dealer
    if rules.kitty == "dealer":
        dealer_view = views[dealer]
        kitty = Kitty()
        taken = dealer_view.get("your_kitty")
        if taken:
            kitty.taken_by, kitty.taken = names.get(dealer, ""), sort_hand(taken)
        elif public["kitty_cards_left"]:
            kitty.face_down = sort_hand(kitty_dealt)
        kitty.discards = sort_hand(dealer_view.get("your_discards") or [])
        kitty.shown = [
            (names.get(seat, ""), sort_hand(d["cards"]))
            for seat, view in enumerate(views)
            for d in view.get("disclosures") or []
        ]
        return kitty
    if rules.kitty == "swap_2d":
        kitty = Kitty(face_up=public["face_up"])
        if public["swap"]:
            swapper = public["swap"]["seat"]
            kitty.swapper = names.get(swapper, "")
            kitty.face_up = public["swap"]["taken"]
            kitty.swapped = views[swapper].get("your_swapped_card")
        return kitty if kitty.face_up else None
    return None


def _state(
    record: Mapping[str, Any],
    engine: Engine,
    events: Sequence[Event],
    walk: _Walk,
    step: int,
    last: int,
) -> ReplayStep:
    """The page's state of ``engine`` as it is now (after ``step`` actions)."""
    names = walk.names
    players = engine.players
    views = [engine.view(seat) for seat in range(players)]
    public = engine.view(None)
    dealer = engine.dealer
    over = engine.is_over() or engine.is_stopped()
    played = next((e.payload for e in reversed(events) if e.type == "play"), None)
    finished_trick = next((e.payload for e in reversed(events) if e.type == "trick"), None)
    positions = POSITIONS[players]
    in_trick = {t["seat"]: t["card"] for t in public["current_trick"]}
    trick_done = False
    winner = ""
    if not in_trick and finished_trick is not None:
        leader = finished_trick["leader"]
        in_trick = {(leader + i) % players: c for i, c in enumerate(finished_trick["cards"])}
        trick_done, winner = True, names.get(finished_trick["winner"], "")
    bots = {int(s["seat"]) for s in record["seats"] if s.get("is_bot")}
    targets = public["targets"] or [None] * players
    to_act = [] if over else public["to_act"]
    seats = []
    for seat in range(players):
        cards = sort_hand(views[seat]["your_hand"])
        seats.append(
            SeatState(
                seat=seat,
                name=names.get(seat, f"seat {seat}"),
                is_bot=seat in bots,
                position=positions[seat],
                role=seat_role(seat, dealer, players),
                target=targets[seat],
                tricks=public["tricks"][seat],
                score=public["scores"][seat],
                cards=cards,
                suits=_suits(cards),
                to_act=seat in to_act,
                trick_card=in_trick.get(seat),
                just_played=played is not None and played["seat"] == seat,
            )
        )
    deal = len(walk.hands) - 1
    doing = DOING.get(public["phase"], public["phase"])
    next_up = ", ".join(names.get(s, "") for s in to_act)
    exchange = []
    for index, batch in enumerate(public["exchange"]):
        giver_view = views[batch["from"]]["exchange"][index]
        exchange.append(
            Batch(
                giver=names.get(batch["from"], ""),
                receiver=names.get(batch["to"], ""),
                count=batch["count"],
                done=batch["done"],
                given=sort_hand(giver_view.get("given") or []),
                returned=sort_hand(giver_view.get("returned") or []),
            )
        )
    auction = public["auction"] or {"bids": []}
    result = []
    outcome = engine.outcome()
    if outcome is not None:
        result = sorted(
            (
                Standing(s, names.get(s, ""), outcome.ranks[s], outcome.scores[s])
                for s in range(players)
            ),
            key=lambda line: (line.rank, line.seat),
        )
    return ReplayStep(
        game_id=int(record["game"]),
        rules=record["rules"],
        players=players,
        step=step,
        last=last,
        names=dict(names),
        hand_number=public["hand_number"],
        deal=deal,
        dealer=dealer,
        trump=public["trump"],
        phase=public["phase"],
        next_up=f"{next_up} to {doing}" if next_up else "",
        seats=seats,
        trick=[(positions[s], c, names.get(s, "")) for s, c in sorted(in_trick.items())],
        trick_done=trick_done,
        trick_winner=winner,
        happened=describe(events, names),
        kitty=_kitty(engine, record["deals"][deal]["kitty"], public, views, names),
        exchange=exchange,
        auction=[(names.get(b["seat"], ""), b["tricks"]) for b in auction["bids"]],
        calls_made=[
            (names.get(s, ""), list(calls)) for s, calls in enumerate(public["calls_made"] or [])
        ],
        hands=[],
        hand_steps=[],
        scores_table=[],
        result=result,
        over=engine.is_over(),
    )
