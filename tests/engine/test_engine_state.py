"""Views (the information boundary), events, serialisation and records."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from engine_helpers import cards_in, play_scripted_first_hand, scripted_hand, winners_for

from games.engine import (
    Bid,
    Card,
    Discard,
    Event,
    Game,
    Give,
    IllegalAction,
    Play,
    StateError,
    Trump,
)
from games.engine.cards import parse_cards
from games.engine.rules import PRESETS


def classic_at_hand_two() -> Game:
    deal, plays = scripted_hand(0, winners_for([11, 4, 1], 0))
    deal2, _ = scripted_hand(1, winners_for([5, 6, 5], 1))
    game = Game.from_deals("classic", [deal, deal2], first_dealer=0)
    play_scripted_first_hand(game, plays)
    return game


def test_it_gives_a_seat_an_api_shaped_view() -> None:
    game = Game.new("classic", seed="view")
    dealer = game.dealer
    view = game.view(dealer)
    for key in (
        "hand_number",
        "dealer",
        "targets",
        "trump",
        "phase",
        "to_act",
        "your_seat",
        "your_hand",
        "legal_actions",
        "current_trick",
        "tricks",
        "scores",
        "hand_cards_left",
        "result",
    ):
        assert key in view, key
    assert view["rules"] == {"preset": "classic"}
    assert (view["hand_number"], view["phase"], view["to_act"]) == (1, "trump", [dealer])
    assert view["legal_actions"] == [{"type": "trump", "suit": s} for s in "CDHS"]
    assert view["your_hand"] == [str(c) for c in game.hand(dealer)]
    assert view["hand_cards_left"] == [16, 16, 16]
    other = (dealer + 1) % 3
    assert game.view(other)["legal_actions"] == []
    public = game.public_view()
    assert "your_hand" not in public and "legal_actions" not in public
    assert cards_in(public) == set()
    json.dumps(view)


def test_it_shows_discards_and_kitty_to_the_dealer_only() -> None:
    game = Game.new("classic", seed=5)
    dealer = game.dealer
    game.apply(dealer, Trump("S"))
    game.apply(dealer, game.fallback_action(dealer))
    mine = game.view(dealer)
    assert len(mine["your_discards"]) == 4 and len(mine["your_kitty"]) == 4
    for seat in (None, (dealer + 1) % 3, (dealer + 2) % 3):
        view = game.view(seat)
        assert "your_discards" not in view and "your_kitty" not in view
        assert not set(mine["your_discards"]) & cards_in(view)
        assert view["discarded"] is True and view["kitty_cards_left"] == 0


def test_it_shows_the_legal_plays_and_the_tricks_in_the_view() -> None:
    game = Game.new("classic", seed=9)
    dealer = game.dealer
    game.apply(dealer, Trump("H"))
    game.apply(dealer, game.fallback_action(dealer))
    eldest = (dealer + 1) % 3
    view = game.view(eldest)
    assert view["legal_actions"] == [{"type": "play", "card": c} for c in view["your_hand"]]
    for _ in range(4):
        seat = game.to_move()
        assert seat is not None
        game.apply(seat, game.fallback_action(seat))
    public = game.public_view()
    assert len(public["trick_history"]) == 1 and len(public["current_trick"]) == 1
    trick = public["trick_history"][0]
    assert trick["leader"] == eldest and sum(public["tricks"]) == 1
    assert public["tricks"][trick["winner"]] == 1


def test_it_marks_event_visibility() -> None:
    deal, plays = scripted_hand(0, winners_for([11, 4, 1], 0))
    game = Game.from_deals("classic", [deal, deal], first_dealer=0)
    game.apply_dict(0, {"type": "trump", "suit": "S"})
    events = game.apply_dict(0, {"type": "discard", "cards": ["2C", "2D", "2H", "2S"]})
    assert [(e.type, e.visibility) for e in events] == [
        ("discard", None),
        ("discard_cards", frozenset({0})),
        ("kitty_taken", None),
        ("kitty_cards", frozenset({0})),
    ]
    for seat, card in plays:
        events = game.apply_dict(seat, {"type": "play", "card": card})
    kinds = [e.type for e in events]
    assert kinds[:4] == ["play", "trick", "hand_end", "hand_start"]
    deals = [e for e in events if e.type == "deal"]
    assert [e.visibility for e in deals] == [frozenset({s}) for s in range(3)]
    for event in events:
        if event.visibility is None:
            assert cards_in(event.to_dict()) <= {c for _, c in plays}
        assert event.visible_to(None) == (event.visibility is None)
    events = game.apply_dict(0, {"type": "give", "to": 2, "cards": ["2C", "2D"]})
    assert [(e.type, e.visibility) for e in events][:2] == [
        ("give", None),
        ("give_cards", frozenset({0, 2})),
    ]
    assert events[0].payload == {"from": 0, "to": 2, "count": 2}


def test_it_changes_nothing_on_an_illegal_typed_action() -> None:
    game = Game.new("classic", seed=2)
    before = game.to_json()
    for seat, action in [
        (game.dealer, Play(Card.parse("2C"))),
        ((game.dealer + 1) % 3, Trump("S")),
        (game.dealer, "trump S"),
    ]:
        with pytest.raises(IllegalAction):
            game.apply(seat, action)  # type: ignore[arg-type]
        assert game.to_json() == before


def test_it_refuses_a_typed_action_as_it_refuses_its_json_form() -> None:
    game = classic_at_hand_two()  # seat 0 owes seat 2 two cards and seat 1 one
    assert game.legal_summary(0) == [
        {"type": "give", "to": 2, "count": 2},
        {"type": "give", "to": 1, "count": 1},
    ]
    held, other = ["5C", "8C"], "2C"  # 2C is seat 1's
    before = game.to_json()
    bad = [
        (0, Give(0, tuple(parse_cards(held)))),  # wrong_recipient
        (0, Give(2, tuple(parse_cards(held[:1])))),  # wrong_card_count
        (0, Give(2, tuple(parse_cards([held[0], held[0]])))),  # duplicate_card
        (0, Give(2, tuple(parse_cards([held[0], other])))),  # card_not_in_hand
        (0, Discard(tuple(parse_cards(held)))),  # wrong_phase
        (1, Give(2, tuple(parse_cards(held)))),  # not_your_turn
        (0, Bid(9)),  # wrong_phase
    ]
    for seat, action in bad:
        with pytest.raises(IllegalAction) as typed:
            game.apply(seat, action)
        with pytest.raises(IllegalAction) as parsed:
            game.apply_dict(seat, action.to_dict())
        assert (typed.value.code, str(typed.value)) == (parsed.value.code, str(parsed.value))
        assert game.to_json() == before
    # Only the action classes are actions (an object with a to_dict is not one).
    with pytest.raises(IllegalAction) as raised:
        game.apply(0, Event("give", {"to": 2, "cards": held}))  # type: ignore[arg-type]
    assert raised.value.code == "unknown_action"
    game.apply(0, Give(2, tuple(parse_cards(held[::-1]))))  # in any order
    assert game.record()["actions"][-1] == {"seat": 0, "type": "give", "to": 2, "cards": held}


def test_it_round_trips_the_state_through_compact_json() -> None:
    game = classic_at_hand_two()
    text = game.to_json()
    loaded = Game.from_json(text)
    assert loaded == game and loaded.to_json() == text
    assert loaded.phase == "exchange" and loaded.legal_summary(0) == game.legal_summary(0)
    state = json.loads(text)
    assert state["hands"] == [game.hand_mask(s) for s in range(3)]  # stored, not replayed
    # Both go on identically.
    for g in (game, loaded):
        g.apply(0, g.fallback_action(0))
    assert loaded == game
    assert len(text) < 4000


def test_it_loads_a_version_1_state_whose_log_was_a_list() -> None:
    game = classic_at_hand_two()
    state = json.loads(game.to_json())
    assert state["v"] == 2 and isinstance(state["log"], str)
    state["v"], state["log"] = 1, state["log"].split()
    loaded = Game.from_state(state)
    assert loaded == game and loaded.record() == game.record()


def test_it_does_not_share_a_callers_state_unless_told_it_is_owned() -> None:
    game = classic_at_hand_two()
    state = json.loads(game.to_json())
    loaded = Game.from_state(state)
    state["hist"][0]["tricks"] = [0, 0, 0]
    assert loaded == game


def test_it_rejects_what_is_not_a_state() -> None:
    for text in ["[]", "{}", "nope", json.dumps({"v": 99})]:
        with pytest.raises(StateError):
            Game.from_json(text)
    state = json.loads(Game.new("classic", seed=1).to_json())
    del state["hands"]
    with pytest.raises(StateError):
        Game.from_state(state)


def test_it_copies_independently() -> None:
    game = Game.new("kitty-first", seed=4)
    copy = game.copy()
    copy.apply(copy.dealer, Trump("C"))
    assert game.phase == "trump" and copy.phase == "discard"


def test_it_records_everything_after_the_game() -> None:
    game = Game.new({"preset": "classic", "max_hands": 2}, seed="record")
    while not game.is_over():
        seat = game.to_move()
        assert seat is not None
        game.apply(seat, game.fallback_action(seat))
    record = game.record()
    assert record["rules"] == {"preset": "classic", "max_hands": 2}
    assert record["seed"] == "record" and len(record["deals"]) == 2
    assert len(record["hands"]) == 2 and record["game_over"] is True
    assert record["winner"] == game.outcome().winner  # type: ignore[union-attr]
    first = record["deals"][0]
    dealt = [card for hand in first["hands"] for card in hand] + first["kitty"]
    assert sorted(dealt) == sorted(str(Card(i)) for i in range(52))
    assert record["actions"][0]["type"] == "trump"
    assert game.view(0)["result"] == game.outcome().to_dict()  # type: ignore[union-attr]


def test_it_keeps_the_opening_events_of_a_new_game() -> None:
    game = Game.new("classic", seed="open")
    events = game.opening_events()
    assert [e.type for e in events] == ["hand_start", "deal", "deal", "deal"]
    assert [e.payload["cards"] for e in events[1:]] == [
        [str(c) for c in game.hand(s)] for s in range(3)
    ]
    assert Game.from_json(game.to_json()).opening_events() == []


def play_stored_with_detached_journal(
    game: Game, rng: random.Random
) -> tuple[Game, str, list[dict[str, object]]]:
    """Plays ``game`` to its end by random legal actions while a stored twin is loaded from
    its saved state before each action, detaches its journal at every hand's end and is saved
    again, as the platform does. Checks every seat's view and the seats to act against the
    game's at every step. Returns the game, the twin's last state and the detached parts."""
    stored, parts, hand = game.to_json(), [], game.hand_number
    while not game.is_over():
        twin = Game.from_json(stored)
        assert twin.to_act() == game.to_act()
        assert [twin.view(s) for s in range(game.players)] == [
            game.view(s) for s in range(game.players)
        ]
        seat = game.to_move()
        assert seat is not None
        action = rng.choice(game.legal_actions(seat))
        game.apply(seat, action)
        twin.apply(seat, action)
        if twin.hand_number != hand:
            parts.append(json.loads(json.dumps(twin.detach_journal())))
            hand = twin.hand_number
        stored = twin.to_json()
    return game, stored, parts


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_it_plays_on_and_records_the_same_with_its_journal_detached(preset: str) -> None:
    game, stored, parts = play_stored_with_detached_journal(
        Game.new({"preset": preset, "max_hands": 3}, seed=preset), random.Random(preset)
    )
    assert len(parts) == len(game.history)
    twin = Game.from_json(stored)
    assert not twin.has_whole_journal
    assert twin.view(0) == game.view(0) and twin.outcome() == game.outcome()
    whole = Game.from_json(stored, journal=parts)
    assert whole.has_whole_journal
    assert whole.record() == game.record() and whole.history == game.history


def test_it_keeps_a_detached_state_to_the_hand_in_play() -> None:
    game = Game.new({"preset": "all-sixteen", "max_hands": 50}, seed="long")
    rng = random.Random(2)
    sizes = {}
    while game.hand_number <= 8:
        seat = game.to_move()
        assert seat is not None
        hand = game.hand_number
        game.apply(seat, rng.choice(game.legal_actions(seat)))
        if game.hand_number != hand:
            game.detach_journal()
            state = json.loads(game.to_json())
            # No action and no deal (the next hand's went with the part: it was dealt in
            # the same step), and of each finished hand only what views show of it.
            assert state["log"] == "" and state["dlog"] == []
            assert [set(h) for h in state["hist"]] == [set(game.view(0)["previous_hands"][0])] * (
                game.hand_number - 1
            )
            assert state["detached"][2] == game.hand_number - 1
            sizes[game.hand_number] = len(game.to_json())
    # What a state grows by from hand to hand: one hand's summary, not its journal.
    assert max(b - a for a, b in itertools.pairwise(sizes.values())) < 120


def test_it_refuses_a_record_without_its_whole_journal() -> None:
    _, stored, parts = play_stored_with_detached_journal(
        Game.new({"preset": "classic", "max_hands": 2}, seed=3), random.Random(3)
    )
    with pytest.raises(StateError):
        Game.from_json(stored).record()
    with pytest.raises(StateError):
        _ = Game.from_json(stored).history
    for wrong in ([], parts[:1], [*parts, parts[0]], parts[::-1][:1]):
        with pytest.raises(StateError):
            Game.from_json(stored, journal=wrong)
    assert json.loads(stored)["v"] == 3  # a reader that knows no detached journal refuses it


def test_it_detaches_the_journal_of_explicit_deals() -> None:
    game = classic_at_hand_two()
    hand_one = game.detach_journal()
    assert len(hand_one["hist"]) == 1 and len(hand_one["dlog"]) == 2  # hand two is dealt
    stored = game.to_json()
    twin = Game.from_json(stored)
    for g in (game, twin):
        while not g.is_over():
            seat = g.to_move()
            assert seat is not None
            g.apply(seat, g.fallback_action(seat))
    assert twin.view(1) == game.view(1)
    assert Game.from_json(twin.to_json(), journal=[hand_one]).record() == game.record()


def test_it_copies_as_much_of_the_journal_as_it_holds() -> None:
    game = classic_at_hand_two()
    part = game.detach_journal()
    assert game.copy().record() == game.record()  # it holds the journal it handed out
    partial = Game.from_json(game.to_json()).copy()
    assert not partial.has_whole_journal and partial.to_json() == game.to_json()
    assert Game.from_json(partial.to_json(), journal=[part]).record() == game.record()
