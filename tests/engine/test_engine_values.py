"""Value types: cards, suits, actions, rules and the seeded shuffle."""

from __future__ import annotations

import copy
import pickle
import struct
from dataclasses import FrozenInstanceError
from hashlib import sha256

import pytest

from games.engine import (
    OPTIONS,
    PRESETS,
    Action,
    Bid,
    Card,
    Discard,
    Give,
    IllegalAction,
    NoSwap,
    Pass,
    Play,
    Rules,
    RulesError,
    Suit,
    Swap,
    Trump,
    action_from_dict,
)
from games.engine.actions import action_from_code
from games.engine.cards import FULL_DECK, cards_to_str, indices, mask_of, parse_cards
from games.engine.deal import first_dealer, seeded_deal, shuffled_deck


# ---------------------------------------------------------------- cards and suits
def test_it_parses_and_prints_cards() -> None:
    ten = Card.parse("TD")
    assert (str(ten), ten.suit, ten.rank, ten.index) == ("TD", Suit.DIAMONDS, 8, 21)
    assert Card.parse("2C").index == 0 and Card.parse("AS").index == 51
    assert repr(Card.parse("AS")) == "Card('AS')"
    assert Card.of("Q", "H") is Card.parse("QH") is Card(Card.parse("QH").index)


def test_it_sorts_cards_by_suit_then_rank() -> None:
    cards = parse_cards(["AS", "2D", "KC", "2C", "TH"])
    assert [str(c) for c in sorted(cards)] == ["2C", "KC", "2D", "TH", "AS"]
    assert cards_to_str(mask_of(cards)) == ["2C", "KC", "2D", "TH", "AS"]
    assert indices(FULL_DECK) == list(range(52))


@pytest.mark.parametrize("text", ["ZZ", "10D", "td", "T", "", None, 21, "AS "])
def test_it_rejects_bad_cards_with_the_domain_error(text: object) -> None:
    with pytest.raises(IllegalAction) as raised:
        Card.parse(text)
    assert raised.value.code == "card_not_in_hand"
    assert isinstance(raised.value, ValueError)


def test_it_keeps_cards_immutable_and_unique() -> None:
    card = Card.parse("7S")
    with pytest.raises(AttributeError):
        card._index = 3  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(card)) is card
    assert copy.deepcopy(card) is card
    assert {card, Card.parse("7S")} == {card}


def test_it_parses_suits() -> None:
    assert Suit.parse("H") is Suit.HEARTS and str(Suit.SPADES) == "S"
    with pytest.raises(IllegalAction) as raised:
        Suit.parse("NT")
    assert raised.value.code == "invalid_suit"


# ---------------------------------------------------------------- actions
@pytest.mark.parametrize(
    ("data", "action"),
    [
        ({"type": "play", "card": "TD"}, Play(Card.parse("TD"))),
        ({"type": "trump", "suit": "H"}, Trump("H")),
        ({"type": "trump", "suit": "MIZ"}, Trump("MIZ")),
        (
            {"type": "discard", "cards": ["2C", "3D", "4H", "5S"]},
            Discard(tuple(parse_cards(["2C", "3D", "4H", "5S"]))),
        ),
        (
            {"type": "give", "to": 1, "cards": ["4H", "6H"]},
            Give(1, tuple(parse_cards(["4H", "6H"]))),
        ),
        ({"type": "bid", "tricks": 9}, Bid(9)),
        ({"type": "pass"}, Pass()),
        ({"type": "swap", "card": "2D"}, Swap(Card.parse("2D"))),
        ({"type": "no_swap"}, NoSwap()),
    ],
)
def test_it_round_trips_every_action_type(data: dict[str, object], action: object) -> None:
    parsed = action_from_dict(data)
    assert parsed == action
    assert parsed.to_dict() == data
    assert action_from_dict(parsed.to_dict()) == parsed
    assert action_from_code(parsed.code()) == parsed


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (Play(Card.parse("TD")), "pTD"),
        (Trump("NT"), "tNT"),
        (Discard(tuple(parse_cards(["KS", "2C", "AH", "3C"]))), "d2C3CAHKS"),
        (Give(3, tuple(parse_cards(["7D", "2C"]))), "g32C7D"),
        (Bid(16), "b16"),
        (Pass(), "x"),
        (Swap(Card.parse("7C")), "s7C"),
        (NoSwap(), "n"),
    ],
)
def test_it_gives_each_action_the_compact_code_of_stored_logs(action: Action, code: str) -> None:
    # These codes are in stored games (state "log"): they must never change.
    assert action.code() == code
    decoded = action_from_code(code)
    assert decoded.code() == code and type(decoded) is type(action)
    assert sorted(decoded.to_dict().get("cards", [])) == sorted(action.to_dict().get("cards", []))


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ("play TD", "unknown_action"),
        ({"card": "TD"}, "unknown_action"),
        ({"type": "lead", "card": "TD"}, "unknown_action"),
        ({"type": "play"}, "card_not_in_hand"),
        ({"type": "play", "card": "1D"}, "card_not_in_hand"),
        ({"type": "discard", "cards": "2C 3C"}, "wrong_card_count"),
        ({"type": "trump", "suit": "X"}, "invalid_suit"),
        ({"type": "bid", "tricks": "9"}, "invalid_bid"),
        ({"type": "bid", "tricks": 9.0}, "invalid_bid"),
        ({"type": "give", "to": "1", "cards": []}, "wrong_recipient"),
        ({"type": "give", "to": True, "cards": []}, "wrong_recipient"),
    ],
)
def test_it_raises_spec_codes_for_unparsable_actions(data: object, code: str) -> None:
    with pytest.raises(IllegalAction) as raised:
        action_from_dict(data)
    assert raised.value.code == code


# ---------------------------------------------------------------- rules
def test_it_has_every_preset_of_the_rules() -> None:
    assert set(PRESETS) == {
        "classic",
        "kitty-first",
        "most-up-first",
        "3-5-9",
        "9-5-2",
        "9-5-2-tallyn",
        "9-5-3-single-kitty",
        "6-3-8",
        "17-card-2s-removed",
        "all-sixteen",
        "woburn",
        "calls",
        "four-handed",
    }


@pytest.mark.parametrize(
    ("name", "players", "hand", "kitty", "targets", "win", "score_end", "target_score"),
    [
        ("classic", 3, 16, 4, (8, 5, 3), 12, "none", None),
        ("kitty-first", 3, 16, 4, (8, 5, 3), 12, "none", None),
        ("3-5-9", 3, 16, 4, (9, 5, 3), 12, "none", None),
        ("9-5-2", 3, 16, 4, (9, 5, 2), None, "up", 10),
        ("9-5-2-tallyn", 3, 16, 4, (9, 2, 5), None, "up_or_down", 15),
        ("9-5-3-single-kitty", 3, 17, 1, (9, 5, 3), 13, "none", None),
        ("6-3-8", 3, 17, 0, (8, 6, 3), None, "up", 10),
        ("17-card-2s-removed", 3, 17, 0, (9, 5, 3), 17, "none", None),
        ("all-sixteen", 3, 16, 4, (8, 5, 3), 16, "none", None),
        ("woburn", 3, 16, 4, (8, 5, 3), 12, "none", None),
        ("calls", 3, 16, 4, (8, 5, 3), None, "none", None),
        ("four-handed", 4, 13, 0, (5, 4, 2, 2), 10, "none", None),
    ],
)
def test_it_describes_each_preset_as_data(
    name: str,
    players: int,
    hand: int,
    kitty: int,
    targets: tuple[int, ...],
    win: int | None,
    score_end: str,
    target_score: int | None,
) -> None:
    rules = Rules.from_preset(name)
    assert (rules.players, rules.hand_size, rules.kitty_size, rules.targets) == (
        players,
        hand,
        kitty,
        targets,
    )
    assert (rules.win_tricks, rules.score_end, rules.target_score) == (win, score_end, target_score)
    assert rules.to_dict() == {"preset": name}
    assert Rules.from_dict(rules.to_dict()) == rules == Rules.from_dict(name)


def test_it_sets_the_preset_specific_options() -> None:
    assert Rules.from_preset("kitty-first").kitty_order == "take_then_discard"
    assert Rules.from_preset("most-up-first").two_up_order == "most_up_first"
    assert Rules.from_preset("3-5-9").discard_trick is True
    assert Rules.from_preset("3-5-9").tricks_per_hand == 17
    assert Rules.from_preset("woburn").exchange_cap == 3
    assert Rules.from_preset("woburn").bidding is True
    assert Rules.from_preset("calls").exchange is False
    assert "2C" in Rules.from_preset("6-3-8").removed
    assert Rules.from_preset("6-3-8").deck.bit_count() == 51
    assert Rules.from_preset("17-card-2s-removed").removed == ("2S",)


def test_it_accepts_every_option_on_every_preset() -> None:
    values = {
        "kitty_order": "take_then_discard",
        "one_up_two_down": "sequential",
        "two_up_order": "most_up_first",
        "exchange_cap": 2,
        "exchange_before_trump": False,
        "max_hands": 7,
        "target_score": 20,
        "deal_packet": 4,
    }
    assert set(values) == set(OPTIONS)
    for name in PRESETS:
        rules = Rules.from_preset(name, **values)
        assert rules.options() == values
        assert Rules.from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("bridge", "unknown rules preset 'bridge'"),
        ({"preset": "classic", "colour": "red"}, "unknown option 'colour'"),
        ({"preset": "classic", "deal_packet": 2}, "deal_packet"),
        ({"preset": "classic", "max_hands": 0}, "max_hands"),
        ({"preset": "classic", "max_hands": 2.0}, "max_hands"),
        ({"preset": "classic", "exchange_before_trump": 1}, "exchange_before_trump"),
        ({"preset": "classic", "kitty_order": "whenever"}, "kitty_order"),
        ({"preset": "classic", "exchange_cap": -1}, "exchange_cap"),
        ({"preset": "classic", "target_score": True}, "target_score"),
        ({"options": {}}, "no 'preset'"),
        (7, "preset name"),
    ],
)
def test_it_rejects_unknown_presets_options_and_bad_values(data: object, message: str) -> None:
    with pytest.raises(RulesError, match=message) as raised:
        Rules.from_dict(data)
    assert isinstance(raised.value, ValueError)


def test_it_makes_one_frozen_rules_object_for_the_same_rules() -> None:
    rules = Rules.from_dict({"preset": "classic", "max_hands": 2})

    assert Rules.from_preset("classic", max_hands=2) is rules
    assert Rules.from_preset("classic") is not rules
    with pytest.raises(FrozenInstanceError):
        rules.max_hands = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    ("option", "valid", "equal_but_bad"),
    [
        ("max_hands", 1, True),
        ("max_hands", 2, 2.0),
        ("exchange_before_trump", False, 0),
        ("one_up_two_down", "sequential", ["sequential"]),
    ],
)
def test_it_refuses_a_bad_value_equal_to_a_valid_one_made_before(
    option: str, valid: object, equal_but_bad: object
) -> None:
    Rules.from_preset("classic", **{option: valid})

    with pytest.raises(RulesError, match=option):
        Rules.from_preset("classic", **{option: equal_but_bad})


def test_it_keeps_only_overridden_options_in_to_dict() -> None:
    rules = Rules.from_preset("9-5-2", target_score=20, max_hands=30)
    assert rules.to_dict() == {"preset": "9-5-2", "max_hands": 30, "target_score": 20}
    assert Rules.from_preset("9-5-2", target_score=None).target_score == 10


# ---------------------------------------------------------------- the seeded shuffle
def _reference_words(seed: str, label: str) -> list[int]:
    words: list[int] = []
    for k in range(40):
        digest = sha256(f"sergeant-major|{seed}|{label}|{k}".encode()).digest()
        words.extend(struct.unpack(">4Q", digest))
    return words


def _reference_uniform(words: list[int], m: int) -> int:
    while True:
        w = words.pop(0)
        if w < 2**64 - (2**64 % m):
            return w % m


def test_it_shuffles_exactly_as_documented() -> None:
    words = _reference_words("club-night", "deal-3")
    order = list(range(52))
    for i in range(51, 0, -1):
        j = _reference_uniform(words, i + 1)
        order[i], order[j] = order[j], order[i]
    assert shuffled_deck("club-night", 3, FULL_DECK) == order
    assert first_dealer("club-night", 3) == _reference_uniform(
        _reference_words("club-night", "first-dealer"), 3
    )


def test_it_deals_one_or_four_at_a_time_from_the_left_of_the_dealer() -> None:
    order = shuffled_deck(42, 0, FULL_DECK)
    single = seeded_deal(42, 0, rules=Rules.from_preset("classic"), dealer=2)
    # Dealer 2: seat 0 is eldest and gets the 1st, 4th, 7th ... card.
    assert single.hands[0] == mask_of(Card(i) for i in order[0:48:3])
    assert single.hands[2] == mask_of(Card(i) for i in order[2:48:3])
    assert single.kitty == mask_of(Card(i) for i in order[48:])
    packets = seeded_deal(42, 0, rules=Rules.from_preset("classic", deal_packet=4), dealer=2)
    expected = [order[k : k + 4] for k in range(0, 48, 12)]
    assert packets.hands[0] == mask_of(Card(i) for chunk in expected for i in chunk)
    assert packets.kitty == single.kitty


def test_it_is_reproducible_from_the_seed() -> None:
    rules = Rules.from_preset("classic")
    assert seeded_deal("s", 1, rules=rules, dealer=0) == seeded_deal("s", 1, rules=rules, dealer=0)
    assert seeded_deal("s", 1, rules=rules, dealer=0) != seeded_deal("s", 2, rules=rules, dealer=0)
    assert seeded_deal("s", 1, rules=rules, dealer=0) != seeded_deal("t", 1, rules=rules, dealer=0)
    four = Rules.from_preset("17-card-2s-removed", deal_packet=4)
    deal = seeded_deal("s", 0, rules=four, dealer=1)
    assert [h.bit_count() for h in deal.hands] == [17, 17, 17] and deal.kitty == 0
    assert not any(h >> Card.parse("2S").index & 1 for h in deal.hands)
