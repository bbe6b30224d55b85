"""Rules, one by one, on explicit deals with hand-worked expectations.

Most first hands are "scripted" (see engine_helpers.scripted_hand): every trick is three
cards of one suit and the seat holding the high card wins it, so ``winners_for([a, b, c])``
gives the seats a, b and c tricks.
"""

from __future__ import annotations

from typing import Any

import pytest
from engine_helpers import (
    play_scripted_first_hand,
    scripted_17,
    scripted_hand,
    simple_deal,
    winners_for,
)

from games.engine import Card, Game, IllegalAction, Rules
from games.engine.game import trick_winner

# A second deal used by several exchange tests (listed so returns can be worked by hand):
#   seat 0: all 13 clubs, 2D 3D, 2H
#   seat 1: diamonds 4..A, hearts 3..7
#   seat 2: hearts 8..A, spades 2..T
#   kitty:  JS QS KS AS
DEAL_B = simple_deal(
    [
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 2H",
        "4D 5D 6D 7D 8D 9D TD JD QD KD AD 3H 4H 5H 6H 7H",
        "8H 9H TH JH QH KH AH 2S 3S 4S 5S 6S 7S 8S 9S TS",
    ],
    "JS QS KS AS",
)


def first_hand_game(
    rules: str | dict[str, Any], tricks: list[int], deals: list[dict[str, Any]] | None = None
) -> Game:
    """A game whose first hand (dealer 0) ended with ``tricks``, now at hand 2."""
    deal, plays = scripted_hand(0, winners_for(tricks, 0))
    game = Game.from_deals(rules, [deal, *(deals or [DEAL_B])], first_dealer=0)
    play_scripted_first_hand(game, plays)
    assert game.history[0]["tricks"][:3] == tricks or Rules.from_dict(rules).discard_trick
    return game


def give(game: Game, seat: int, to: int, cards: str) -> None:
    game.apply_dict(seat, {"type": "give", "to": to, "cards": cards.split()})


def code_of(game: Game, seat: object, action: object) -> str:
    before = game.to_json()
    with pytest.raises(IllegalAction) as raised:
        game.apply_dict(seat, action)
    assert game.to_json() == before, "an illegal action changed the state"
    return raised.value.code


def hand_of(game: Game, seat: int) -> set[str]:
    return {str(c) for c in game.hand(seat)}


# ---------------------------------------------------------------- the classic hand
def test_it_scores_a_classic_hand_and_rotates_the_deal() -> None:
    game = first_hand_game("classic", [9, 4, 3])
    assert game.history[0] == {
        "dealer": 0,
        "targets": [8, 5, 3],
        "trump": "S",
        "tricks": [9, 4, 3],
        "diffs": [1, -1, 0],
        "exchange": [],
        "disclosures": [],
    }
    assert game.scores == [1, -1, 0]
    # The previous eldest deals: targets cycle 3 -> 5 -> 8.
    assert game.dealer == 1 and game.targets == [3, 8, 5]
    assert game.hand_number == 2


def test_it_finds_the_trick_winner() -> None:
    c = [Card.parse(x).index for x in ("KC", "AC", "2H")]
    assert trick_winner(c, 0, 3, trump=-1) == 1  # no trump: highest club
    assert trick_winner(c, 0, 3, trump=2) == 2  # hearts trump: the 2H ruffs
    c = [Card.parse(x).index for x in ("5D", "AS", "KD")]
    assert trick_winner(c, 1, 3, trump=-1) == 0  # off-suit ace loses; seat 1+2 wins


def test_it_ends_the_game_after_a_hand_of_twelve_tricks() -> None:
    game = first_hand_game("classic", [2, 12, 2])
    assert game.is_over() and game.phase == "over"
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.reason, outcome.scores) == (1, "tricks", (-6, 7, -1))
    assert outcome.ranks == (3, 1, 2)
    assert game.history[0]["diffs"] == [-6, 7, -1]


def test_it_does_not_end_all_sixteen_before_all_tricks() -> None:
    game = first_hand_game("all-sixteen", [2, 12, 2])
    assert not game.is_over() and game.phase == "exchange"
    game = first_hand_game("all-sixteen", [0, 16, 0])
    assert game.is_over() and game.outcome().winner == 1  # type: ignore[union-attr]


def test_it_discards_before_seeing_the_kitty_by_default() -> None:
    deal, _ = scripted_hand(0, winners_for([8, 5, 3], 0))
    game = Game.from_deals("classic", [deal], 0)
    game.apply_dict(0, {"type": "trump", "suit": "S"})
    kitty_card = deal["kitty"][0]
    assert len(game.hand(0)) == 16
    assert code_of(game, 0, {"type": "discard", "cards": ["2C", "2D", "2H", kitty_card]}) == (
        "card_not_in_hand"
    )
    game.apply_dict(0, {"type": "discard", "cards": ["2C", "2D", "2H", "2S"]})
    assert kitty_card in hand_of(game, 0) and len(game.hand(0)) == 16


def test_it_takes_the_kitty_first_in_kitty_first() -> None:
    deal, _ = scripted_hand(0, winners_for([8, 5, 3], 0))
    game = Game.from_deals("kitty-first", [deal], 0)
    game.apply_dict(0, {"type": "trump", "suit": "S"})
    assert game.phase == "discard" and len(game.hand(0)) == 20
    kitty_card = deal["kitty"][0]
    game.apply_dict(0, {"type": "discard", "cards": ["2C", "2D", "2H", kitty_card]})
    assert kitty_card not in hand_of(game, 0) and len(game.hand(0)) == 16


def test_it_counts_the_discard_as_a_trick_in_3_5_9() -> None:
    game = first_hand_game("3-5-9", [8, 5, 3])
    record = game.history[0]
    assert record["targets"] == [9, 5, 3]
    assert record["tricks"] == [9, 5, 3]  # 8 played + the discard trick
    assert sum(record["tricks"]) == 17 and record["diffs"] == [0, 0, 0]
    # The discard trick counts towards the 12-trick end.
    game = first_hand_game("3-5-9", [11, 3, 2])
    assert game.is_over() and game.outcome().winner == 0  # type: ignore[union-attr]


# ---------------------------------------------------------------- the exchange
def test_it_returns_after_each_batch_in_sequential_one_up_two_down() -> None:
    # Hand 1: 11/4/1 -> +3/-1/-2. Hand 2 (dealer 1): seat 2 (target 5) is served first.
    game = first_hand_game({"preset": "classic", "one_up_two_down": "sequential"}, [11, 4, 1])
    assert game.legal_summary(0) == [{"type": "give", "to": 2, "count": 2}]
    assert code_of(game, 0, {"type": "give", "to": 1, "cards": ["2C"]}) == "wrong_recipient"
    give(game, 0, 2, "2D 2H")
    # Seat 2 had no diamond (the 2D comes back) and hearts 8..A (the AH goes back).
    assert {"2D", "AH"} <= hand_of(game, 0)
    assert game.legal_summary(0) == [{"type": "give", "to": 1, "count": 1}]
    give(game, 0, 1, "AH")  # a card just received may be passed on
    # Seat 1 holds hearts 3..7 and the AH: it returns the AH.
    assert "AH" in hand_of(game, 0)
    assert game.phase == "trump"
    game.apply_dict(1, {"type": "trump", "suit": "D"})
    game.apply_dict(1, {"type": "discard", "cards": ["3H", "4H", "5H", "6H"]})
    assert game.view(0)["exchange"] == [
        {"from": 0, "to": 2, "count": 2, "done": True, "returned_count": 2,
         "given": ["2D", "2H"], "returned": ["2D", "AH"]},
        {"from": 0, "to": 1, "count": 1, "done": True, "returned_count": 1,
         "given": ["AH"], "returned": ["AH"]},
    ]  # fmt: skip


def test_it_makes_no_return_before_both_batches_in_simultaneous_mode() -> None:
    game = first_hand_game("classic", [11, 4, 1])
    assert game.legal_summary(0) == [
        {"type": "give", "to": 2, "count": 2},
        {"type": "give", "to": 1, "count": 1},
    ]
    give(game, 0, 1, "3C")  # either order
    assert "3C" in hand_of(game, 1)  # no return yet
    give(game, 0, 2, "2D 2H")
    assert code_of(game, 0, {"type": "give", "to": 2, "cards": ["4C", "5C"]}) == "not_your_turn"
    # Seat 1 (no clubs) returns the 3C; seat 2 the 2D and the AH.
    assert {"3C", "2D", "AH"} <= hand_of(game, 0)
    assert game.phase == "trump" and game.to_act() == [1]


def test_it_orders_two_up_players_by_target_or_by_overtricks() -> None:
    # Hand 1: 10/2/4 -> +2/-3/+1. Hand 2 targets: seat 1 8, seat 2 5, seat 0 3.
    game = first_hand_game("classic", [10, 2, 4])
    assert game.to_act() == [2]  # higher coming target first
    game = first_hand_game("most-up-first", [10, 2, 4])
    assert game.to_act() == [0]  # most up first
    give(game, 0, 1, "2H 3C")
    # Seat 1: hearts 3..7 + 2H -> 7H back; no clubs -> 3C back.
    assert {"7H", "3C"} <= hand_of(game, 0)
    assert game.to_act() == [2]
    assert game.legal_summary(2) == [{"type": "give", "to": 1, "count": 1}]


def test_it_breaks_a_most_up_tie_by_the_higher_target() -> None:
    # Hand 1: 9/6/1 -> +1/+1/-2. Coming targets: seat 1 8, seat 2 5, seat 0 3.
    game = first_hand_game("most-up-first", [9, 6, 1])
    assert game.to_act() == [1]
    assert game.legal_summary(1) == [{"type": "give", "to": 2, "count": 1}]


def test_it_names_trump_before_the_exchange_when_asked() -> None:
    game = first_hand_game({"preset": "classic", "exchange_before_trump": False}, [9, 4, 3])
    assert game.phase == "trump" and game.to_act() == [1]
    game.apply_dict(1, {"type": "trump", "suit": "C"})
    assert game.phase == "exchange" and game.to_act() == [0]
    give(game, 0, 1, "2H")
    assert game.phase == "discard"


def test_it_shows_the_dealer_s_higher_kitty_cards_to_the_up_player_only() -> None:
    # Hand 1: 9/4/3 -> +1/-1/0. Hand 2: dealer 1 (down 1) receives from seat 0.
    deal = simple_deal(
        [
            "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 2H",
            "4D 5D 6D 7D 8D 9D TD JD QD KD 3H 4H 5H 6H 7H 9H",
            "8H TH JH QH KH 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS",
        ],
        "AD AH KS AS",
    )
    game = first_hand_game("classic", [9, 4, 3], deals=[deal])
    events = []
    give(game, 0, 1, "2H")  # seat 1 returns its 9H
    assert "9H" in hand_of(game, 0)
    events += game.apply_dict(1, {"type": "trump", "suit": "D"})
    events += game.apply_dict(1, {"type": "discard", "cards": ["4D", "5D", "6D", "7D"]})
    disclosure = [e for e in events if e.type == "disclosure"]
    assert [(e.payload, e.visibility) for e in disclosure] == [
        ({"from": 1, "to": 0, "cards": ["AH"]}, frozenset({0}))
    ]
    assert game.view(0)["disclosures"] == [{"from": 1, "cards": ["AH"]}]
    assert game.view(2)["disclosures"] == []
    assert "AH" not in str(game.public_view())


# ---------------------------------------------------------------- woburn
def woburn_game(bids: list[tuple[int, int | None]], deals: list[dict[str, Any]]) -> Game:
    game = Game.from_deals("woburn", deals, first_dealer=0)
    for seat, tricks in bids:
        if tricks is None:
            game.apply_dict(seat, {"type": "pass"})
        else:
            game.apply_dict(seat, {"type": "bid", "tricks": tricks})
    return game


def test_it_runs_the_woburn_auction() -> None:
    deal, plays = scripted_hand(2, winners_for([4, 3, 9], 2))
    game = Game.from_deals("woburn", [deal, DEAL_B], first_dealer=0)
    assert game.phase == "bid" and game.to_act() == [0] and game.targets is None
    assert game.legal_summary(0)[:2] == [{"type": "pass"}, {"type": "bid", "tricks": 8}]
    assert code_of(game, 0, {"type": "bid", "tricks": 7}) == "invalid_bid"
    assert code_of(game, 0, {"type": "bid", "tricks": 17}) == "invalid_bid"
    assert code_of(game, 1, {"type": "bid", "tricks": 8}) == "not_your_turn"
    assert code_of(game, 0, {"type": "trump", "suit": "S"}) == "wrong_phase"
    game.apply_dict(0, {"type": "pass"})
    game.apply_dict(1, {"type": "bid", "tricks": 8})
    assert code_of(game, 2, {"type": "bid", "tricks": 8}) == "invalid_bid"  # not higher
    game.apply_dict(2, {"type": "bid", "tricks": 9})
    assert game.to_act() == [1]  # seat 0 passed and is out
    game.apply_dict(1, {"type": "pass"})
    # Seat 2 deals with 9; eldest (seat 0) 4, middle (seat 1) 3.
    assert (game.dealer, game.targets, game.phase) == (2, [4, 3, 9], "trump")
    assert game.view(None)["auction"]["high"] == {"seat": 2, "tricks": 9}
    play_scripted_first_hand(game, plays)
    assert game.history[0]["dealer"] == 2 and game.history[0]["diffs"] == [0, 0, 0]
    # From the second hand on: classic targets, rotation from the bidder's deal.
    assert (game.dealer, game.targets, game.phase) == (0, [8, 5, 3], "trump")


def test_it_redeals_after_three_passes() -> None:
    deal_a, _ = scripted_hand(0, winners_for([8, 5, 3], 0))
    deal_b, _ = scripted_hand(1, winners_for([3, 8, 5], 1))
    game = woburn_game([(0, None), (1, None), (2, None)], [deal_a, deal_b])
    assert (game.dealer, game.phase, game.to_act()) == (1, "bid", [1])
    assert hand_of(game, 1) == set(deal_b["hands"][1])
    game.apply_dict(1, {"type": "bid", "tricks": 16})
    assert game.to_act() == [2]  # the auction goes on until the others pass
    assert game.legal_summary(2) == [{"type": "pass"}]
    game.apply_dict(2, {"type": "pass"})
    game.apply_dict(0, {"type": "pass"})
    assert (game.dealer, game.targets) == (1, [0, 16, 0])


def test_it_stops_a_replay_when_the_redeal_has_no_deal() -> None:
    deal_a, _ = scripted_hand(0, winners_for([8, 5, 3], 0))
    game = woburn_game([(0, None), (1, None), (2, None)], [deal_a])
    assert game.phase == "over" and not game.is_over() and game.is_stopped()


@pytest.mark.parametrize(
    ("tricks", "plan"),
    [
        # 8-pos +2, 5-pos +2, 3-pos -4: the 8-pos gives 2, the 5-pos 1.
        ([4, 7, 5], [{"from": 1, "to": 0, "count": 2}, {"from": 2, "to": 0, "count": 1}]),
        # 8-pos +4, 5-pos -2, 3-pos -2: 2 to the 3-pos (served first), 1 to the 5-pos.
        ([6, 9, 1], [{"from": 1, "to": 0, "count": 2}, {"from": 1, "to": 2, "count": 1}]),
    ],
)
def test_it_caps_the_woburn_exchange_at_three_cards(
    tricks: list[int], plan: list[dict[str, int]]
) -> None:
    deal, plays = scripted_hand(0, winners_for(tricks, 0))
    game = woburn_game([(0, 8), (1, None), (2, None)], [deal, DEAL_B])
    play_scripted_first_hand(game, plays)
    # Hand 2: dealer 1, so seat 1 is the 8-pos, seat 2 the 5-pos, seat 0 the 3-pos.
    assert game.targets == [3, 8, 5]
    assert [{k: e[k] for k in ("from", "to", "count")} for e in game.view(None)["exchange"]] == plan


# ---------------------------------------------------------------- calls
def test_it_plays_calls_with_nt_and_miz() -> None:
    deal, plays = scripted_hand(0, winners_for([6, 6, 4], 0))
    deal2, plays2 = scripted_hand(1, winners_for([4, 6, 6], 1))
    game = Game.from_deals("calls", [deal, deal2], first_dealer=0)
    assert [a["suit"] for a in game.legal_summary(0)] == ["C", "D", "H", "S", "NT", "MIZ"]
    play_scripted_first_hand(game, plays, trump="MIZ")
    # Misere: diff = target - tricks.
    assert game.history[0]["trump"] == "MIZ"
    assert game.history[0]["diffs"] == [2, -1, -1]
    assert game.phase == "trump"  # no exchange in calls
    play_scripted_first_hand(game, plays2, trump="NT")
    assert game.history[1]["diffs"] == [1, -2, 1]  # targets [3, 8, 5]
    assert game.view(None)["calls_made"] == [["MIZ"], ["NT"], []]


def test_it_refuses_a_call_already_made_and_nt_outside_calls() -> None:
    scripts = [scripted_hand(d % 3, winners_for([6, 5, 5], 0)) for d in range(4)]
    game = Game.from_deals("calls", [deal for deal, _ in scripts], first_dealer=0)
    for (_, plays), call in zip(scripts[:3], ["NT", "H", "MIZ"], strict=True):
        play_scripted_first_hand(game, plays, trump=call)
    assert game.dealer == 0 and game.hand_number == 4
    assert code_of(game, 0, {"type": "trump", "suit": "NT"}) == "invalid_suit"
    assert [a["suit"] for a in game.legal_summary(0)] == ["C", "D", "H", "S", "MIZ"]
    classic = Game.from_deals("classic", [scripts[0][0]], first_dealer=0)
    assert code_of(classic, 0, {"type": "trump", "suit": "NT"}) == "invalid_suit"
    assert code_of(classic, 0, {"type": "trump", "suit": "MIZ"}) == "invalid_suit"


# ---------------------------------------------------------------- 9-5-2-tallyn
def test_it_follows_the_tallyn_order_with_returns_after_trump() -> None:
    # Tallyn targets dealer 9, eldest 2, middle 5. Hand 1: 10/2/4 -> +1/0/-1.
    game = first_hand_game("9-5-2-tallyn", [10, 2, 4])
    assert game.history[0]["targets"] == [9, 2, 5]
    assert game.history[0]["diffs"] == [1, 0, -1]
    # Hand 2, dealer 1: take the kitty and discard first.
    assert (game.phase, game.to_act(), len(game.hand(1))) == ("discard", [1], 20)
    game.apply_dict(1, {"type": "discard", "cards": ["4D", "5D", "6D", "7D"]})
    assert (game.phase, game.to_act()) == ("exchange", [0])
    give(game, 0, 2, "2H")
    assert "2H" in hand_of(game, 2) and "AH" in hand_of(game, 2)  # no return yet
    assert (game.phase, game.to_act()) == ("trump", [1])
    events = game.apply_dict(1, {"type": "trump", "suit": "S"})
    assert "AH" in hand_of(game, 0) and "AH" not in hand_of(game, 2)
    assert not [e for e in events if e.type == "disclosure"]
    assert game.phase == "play"


# ---------------------------------------------------------------- single kitty
SINGLE = simple_deal(
    [
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D 3D 4D 5D",
        "6D 7D 8D 9D TD JD QD KD AD 2H 3H 4H 5H 6H 7H 8H 9H",
        "TH JH QH KH AH 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",
    ],
    "AS",
)


def test_it_lets_the_holder_of_2d_swap_for_the_face_up_card() -> None:
    game = Game.from_deals("9-5-3-single-kitty", [SINGLE], first_dealer=1)
    assert game.view(None)["face_up"] == "AS"
    assert game.phase == "trump" and game.to_act() == [1]
    game.apply_dict(1, {"type": "trump", "suit": "H"})
    assert game.phase == "swap" and game.to_act() == [0]  # seat 0 holds the 2D
    assert game.legal_summary(0)[:2] == [{"type": "no_swap"}, {"type": "swap", "card": "2C"}]
    assert code_of(game, 0, {"type": "swap", "card": "AH"}) == "card_not_in_hand"
    events = game.apply_dict(0, {"type": "swap", "card": "2D"})  # the 2D itself may go
    assert "AS" in hand_of(game, 0) and "2D" not in hand_of(game, 0)
    assert all("2D" not in hand_of(game, s) for s in range(3))  # out of play
    assert [e.visibility for e in events if e.type == "swap_card"] == [frozenset({0})]
    assert "2D" not in str(game.view(1)) and "2D" not in str(game.public_view())
    assert game.view(0)["your_swapped_card"] == "2D"
    assert game.phase == "play" and game.to_act() == [2]  # eldest of dealer 1


def test_it_skips_the_swap_when_the_face_up_card_is_2d() -> None:
    deal = simple_deal(
        [
            "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC AS 3D 4D 5D",
            "6D 7D 8D 9D TD JD QD KD AD 2H 3H 4H 5H 6H 7H 8H 9H",
            "TH JH QH KH AH 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS",
        ],
        "2D",
    )
    game = Game.from_deals("9-5-3-single-kitty", [deal], first_dealer=0)
    game.apply_dict(0, {"type": "trump", "suit": "C"})
    assert game.phase == "play"


# ---------------------------------------------------------------- four-handed plucking
def four_handed_hand_two(seed: int) -> Game:
    """Seeded four-handed games whose first hand, played with fallback actions, gives
    the wanted diffs (asserted by the callers)."""
    game = Game.new("four-handed", seed=seed)
    while game.hand_number == 1:
        seat = game.to_move()
        assert seat is not None
        game.apply(seat, game.fallback_action(seat))
    return game


def test_it_allocates_plucks_for_competition() -> None:
    # docs/rules.md: N -2, E -1, W +1, S +2 (N=0, E=1, S=2, W=3) -> S gives N and E, W gives N.
    game = four_handed_hand_two(529)
    assert game.history[0]["diffs"] == [-2, -1, 2, 1]
    assert game.targets == [2, 5, 4, 2]
    assert [{k: e[k] for k in ("from", "to", "count")} for e in game.view(None)["exchange"]] == [
        {"from": 2, "to": 0, "count": 1},
        {"from": 2, "to": 1, "count": 1},
        {"from": 3, "to": 0, "count": 1},
    ]
    # Allocation order: S -> N first.
    assert code_of(game, 2, {"type": "give", "to": 1, "cards": ["3C"]}) == "wrong_recipient"
    # N holds hearts 6 K. S gives 7H, W gives 9H: N returns its highest two hearts, K and
    # 9, the K to W (giver of the higher heart) and the 9H -- W's own card -- to S.
    assert {"6H", "KH"} <= hand_of(game, 0) and "7H" in hand_of(game, 2)
    give(game, 2, 0, "7H")
    give(game, 2, 1, "3C")  # E holds clubs 2 9 J: returns the JC
    assert "7H" in hand_of(game, 0)  # no return before every give is made
    give(game, 3, 0, "9H")
    assert game.phase == "trump"
    exchange = [e for e in game.view(None)["exchange"]]
    assert [(e["from"], e["to"]) for e in exchange] == [(2, 0), (2, 1), (3, 0)]
    assert {"9H", "JC"} <= hand_of(game, 2) and "KH" in hand_of(game, 3)
    assert hand_of(game, 0) >= {"6H", "7H"}


def test_it_prefers_a_recipient_not_on_the_giver_s_left() -> None:
    # +1/-1/+1/-1: seat 2 (coming target 4) gives first; seats 1 and 3 need one each;
    # seat 3 is on seat 2's left, so seat 2 gives to seat 1 and seat 0 to seat 3.
    game = four_handed_hand_two(178)
    assert game.history[0]["diffs"] == [1, -1, 1, -1]
    assert [{k: e[k] for k in ("from", "to", "count")} for e in game.view(None)["exchange"]] == [
        {"from": 2, "to": 1, "count": 1},
        {"from": 0, "to": 3, "count": 1},
    ]


# ---------------------------------------------------------------- ends and standings
def test_it_ends_after_max_hands_and_ranks_by_score() -> None:
    deal, plays = scripted_hand(0, winners_for([9, 4, 3], 0))
    game = Game.from_deals({"preset": "classic", "max_hands": 1}, [deal], 0)
    play_scripted_first_hand(game, plays)
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.reason, outcome.winner, outcome.ranks) == ("max_hands", 0, (1, 3, 2))
    deal, plays = scripted_hand(0, winners_for([8, 5, 3], 0))
    game = Game.from_deals({"preset": "classic", "max_hands": 1}, [deal], 0)
    play_scripted_first_hand(game, plays)
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.winner, outcome.ranks) == (None, (1, 1, 1))  # equal scores share


def test_it_ends_score_games_at_the_target_score() -> None:
    # 9-5-2 with target_score 2: hand 1 12/2/2 -> +3/-3/0 ends it (no 12-trick end here).
    deal, plays = scripted_hand(0, winners_for([12, 2, 2], 0))
    game = Game.from_deals({"preset": "9-5-2", "target_score": 2}, [deal, DEAL_B], 0)
    play_scripted_first_hand(game, plays)
    outcome = game.outcome()
    assert outcome is not None and (outcome.reason, outcome.winner) == ("score", 0)
    # Without reaching it the game goes on, even after 12 tricks.
    game = Game.from_deals("9-5-2", [deal, DEAL_B], 0)
    play_scripted_first_hand(game, plays)
    assert not game.is_over()
    # Tallyn also ends at minus the target: 4/8/4 -> -5/+6/-1 with target_score 5.
    deal, plays = scripted_hand(0, winners_for([4, 8, 4], 0))
    game = Game.from_deals({"preset": "9-5-2-tallyn", "target_score": 5}, [deal, DEAL_B], 0)
    play_scripted_first_hand(game, plays)
    outcome = game.outcome()
    assert outcome is not None and outcome.reason == "score" and outcome.winner == 1
    assert outcome.ranks == (3, 1, 2)


# ---------------------------------------------------------------- 17-card presets
def play_17(game: Game, plays: list[tuple[int, str]], trump: str) -> None:
    game.apply_dict(game.dealer, {"type": "trump", "suit": trump})
    if game.phase == "swap":
        game.apply_dict(game.to_move(), {"type": "no_swap"})
    for seat, card in plays:
        game.apply_dict(seat, {"type": "play", "card": card})


def test_it_plays_6_3_8_without_2c_to_plus_ten() -> None:
    # Targets dealer 8, eldest 6, middle 3 over 17 tricks (the 2s trick goes to its leader).
    deal, plays = scripted_17(0, winners_for([7, 6, 3], 0), ["2D", "2H", "2S"])
    game = Game.from_deals("6-3-8", [deal, deal], first_dealer=0)
    assert game.view(None)["hand_cards_left"] == [17, 17, 17]
    play_17(game, plays, trump="C")
    assert game.history[0]["tricks"] == [7, 6, 4]  # seat 2 won trick 16, then the 2s
    assert game.history[0]["diffs"] == [-1, 0, 1] and not game.is_over()
    with_2c = scripted_17(0, winners_for([7, 6, 3], 0), ["2C", "2H", "2S"])[0]
    with pytest.raises(ValueError, match="partition"):
        Game.from_deals("6-3-8", [with_2c], first_dealer=0)
    # Eldest wins everything: 17 - 6 = +11 reaches +10, the game ends on the score.
    deal, plays = scripted_17(0, [1] * 16, ["2D", "2H", "2S"])
    game = Game.from_deals("6-3-8", [deal], first_dealer=0)
    play_17(game, plays, trump="C")
    outcome = game.outcome()
    assert outcome is not None
    assert (outcome.reason, outcome.winner, outcome.scores) == ("score", 1, (-8, 11, -3))


def test_it_ends_17_card_2s_removed_only_on_all_17_tricks() -> None:
    deal, plays = scripted_17(0, [1] * 15 + [2], ["2C", "2D", "2H"])
    game = Game.from_deals("17-card-2s-removed", [deal, deal], first_dealer=0)
    play_17(game, plays, trump="S")
    assert game.history[0]["tricks"] == [0, 15, 2] and not game.is_over()
    deal, plays = scripted_17(0, [1] * 16, ["2C", "2D", "2H"])
    game = Game.from_deals("17-card-2s-removed", [deal], first_dealer=0)
    play_17(game, plays, trump="S")
    assert game.history[0]["tricks"] == [0, 17, 0]
    assert game.outcome().reason == "tricks"  # type: ignore[union-attr]


def test_it_ends_single_kitty_on_thirteen_tricks() -> None:
    deal, plays = scripted_17(0, [2] * 12 + [0] * 4, ["2D", "2H", "2S"], face_up="2C")
    game = Game.from_deals("9-5-3-single-kitty", [deal, deal], first_dealer=0)
    play_17(game, plays, trump="C")
    assert game.history[0]["tricks"] == [5, 0, 12] and not game.is_over()
    assert game.history[0]["diffs"] == [-4, -5, 9]  # targets 9 / 5 / 3
    deal, plays = scripted_17(0, [2] * 16, ["2D", "2H", "2S"], face_up="2C")
    game = Game.from_deals("9-5-3-single-kitty", [deal], first_dealer=0)
    play_17(game, plays, trump="C")
    assert game.is_over() and game.outcome().winner == 2  # type: ignore[union-attr]


# ---------------------------------------------------------------- fallback and legal actions
def test_it_falls_back_to_the_lowest_cards_and_first_choices() -> None:
    deal, plays = scripted_hand(0, winners_for([11, 4, 1], 0))
    game = Game.from_deals("classic", [deal, DEAL_B], 0)
    assert game.fallback_action(0).to_dict() == {"type": "trump", "suit": "C"}
    game.apply_dict(0, {"type": "trump", "suit": "S"})
    # The lowest four by rank, ties by suit: the four 2s.
    assert game.fallback_action(0).to_dict() == {
        "type": "discard",
        "cards": ["2C", "2D", "2H", "2S"],
    }
    with pytest.raises(IllegalAction):
        game.fallback_action(1)
    game.apply(0, game.fallback_action(0))
    # Eldest's lowest card by rank (the 3 of the first suit it holds a 3 in).
    assert game.fallback_action(1).to_dict()["card"][0] == "3"
    for seat, card in plays:
        game.apply_dict(seat, {"type": "play", "card": card})
    # Hand 2 exchange: seat 0 owes 2 to seat 2: its lowest two, 2C and 2D.
    assert game.fallback_action(0).to_dict() == {"type": "give", "to": 2, "cards": ["2C", "2D"]}


def test_it_lists_legal_actions_lazily_for_choices_of_cards() -> None:
    deal, _ = scripted_hand(0, winners_for([8, 5, 3], 0))
    game = Game.from_deals("classic", [deal], 0)
    game.apply_dict(0, {"type": "trump", "suit": "S"})
    discards = game.legal_actions(0)
    assert len(discards) == 1820  # C(16, 4)
    assert discards[0].to_dict()["cards"] == [str(c) for c in game.hand(0)[:4]]
    assert discards[-1] in discards and discards[-1] == list(discards)[-1]
    assert game.legal_actions(1) == ()
    assert game.legal_summary(1) == []
