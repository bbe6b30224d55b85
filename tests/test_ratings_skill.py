"""The rating rules around openskill (no database): ranks, provisional, inactivity, pools,
the display rating."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from itertools import pairwise, permutations

import pytest

from games.engine import PRESETS
from ratings import display, skill
from ratings.pools import POOL_PRESETS, pool_of, table_size
from ratings.skill import PlayerState, SeatOutcome, Skill

START = datetime(2026, 1, 1, tzinfo=UTC)


def test_it_moves_a_seat_handed_to_a_house_bot_to_last_place() -> None:
    seats = [
        SeatOutcome(0, 10, 1, replaced=True),
        SeatOutcome(1, 11, 2),
        SeatOutcome(2, 12, 2),
    ]
    assert skill.rating_ranks(seats) == [3, 1, 1]
    assert skill.rating_ranks([s._replace(replaced=False) for s in seats]) == [1, 2, 2]


def test_it_keeps_a_rating_provisional_for_the_first_games_or_while_sigma_is_high() -> None:
    # ratings.skill: fewer than PROVISIONAL_GAMES rated games, or sigma above PROVISIONAL_SIGMA.
    players = [1, 2, 3]
    states: dict[int, PlayerState | None] = dict.fromkeys(players)
    games = 0

    def provisional() -> bool:
        state = states[1]
        shown = skill.with_inactivity(state, START)
        return skill.is_provisional(shown, state.games if state else 0)

    while provisional():
        ranks = [1 + (games + i) % 3 for i in range(3)]  # each finishes 1st, 2nd, 3rd in turn
        seats = [SeatOutcome(i, p, r) for i, (p, r) in enumerate(zip(players, ranks, strict=True))]
        for change in skill.rate_game(seats, states, START):
            states[change.player_id] = skill.next_state(states[change.player_id], change, START)
        games += 1
    # Among newcomers only, sigma is under the bar by then: the count ends it.
    assert games == skill.PROVISIONAL_GAMES == 10
    assert skill.is_provisional(Skill(25.0, 2.0), 9)
    assert not skill.is_provisional(Skill(25.0, 7.0), 10)
    assert skill.is_provisional(Skill(25.0, 7.01), 500)


def test_it_ends_provisional_for_a_player_of_a_game_a_week_among_newcomers() -> None:
    # Six newcomers at two tables, one game each a week, seated and ranked at random; each
    # rating as of the day before the next game (inactivity applied). The rule ends it for
    # every one of them within 30 games; sigma under the count's bar alone did not.
    players = list(range(6))
    states: dict[int, PlayerState | None] = dict.fromkeys(players)
    week = timedelta(days=7)
    left: dict[int, int] = {}
    sigma_only_left: set[int] = set()
    for game in range(30):
        at = START + game * week
        draw = random.Random(game)
        order = draw.sample(players, 6)
        for table in (order[:3], order[3:]):
            ranks = draw.sample([1, 2, 3], 3)
            seats = [SeatOutcome(i, *seat) for i, seat in enumerate(zip(table, ranks, strict=True))]
            for change in skill.rate_game(seats, states, at):
                states[change.player_id] = skill.next_state(states[change.player_id], change, at)
        for p in players:
            state = states[p]
            assert state is not None
            shown = skill.with_inactivity(state, at + week - timedelta(days=1))
            if p not in left and not skill.is_provisional(shown, state.games):
                left[p] = state.games
            if shown.sigma <= 6.0:
                sigma_only_left.add(p)
    assert sorted(left) == players and max(left.values()) <= 20
    assert sigma_only_left != set(players)


def test_it_grows_sigma_per_whole_idle_day_up_to_a_newcomers() -> None:
    settled = PlayerState(Skill(30.0, 2.0), START, 50)

    assert skill.with_inactivity(settled, START + timedelta(hours=23)) == settled.skill
    one_day = skill.with_inactivity(settled, START + timedelta(days=1, hours=5))
    assert one_day.mu == 30.0
    assert one_day.sigma == math.sqrt(4.0 + skill.SIGMA_GROWTH_PER_DAY**2)
    half_year = skill.with_inactivity(settled, START + timedelta(days=182))
    assert not skill.is_provisional(half_year, settled.games)
    eight_months = skill.with_inactivity(settled, START + timedelta(days=252))
    assert skill.is_provisional(eight_months, settled.games)
    assert eight_months.sigma < skill.SIGMA
    assert skill.with_inactivity(settled, START + timedelta(days=3650)).sigma == skill.SIGMA
    assert not skill.is_inactive(settled, START + timedelta(days=89))
    assert skill.is_inactive(settled, START + timedelta(days=90))


def test_it_puts_every_preset_in_one_pool_of_one_table_size() -> None:
    assert sorted(p for presets in POOL_PRESETS.values() for p in presets) == sorted(PRESETS)
    assert pool_of({"preset": "classic", "max_hands": 1}) == "classic"
    assert pool_of("9-5-2-tallyn") == "race"
    assert table_size("four-handed") == 4
    assert table_size("classic") == 3


def chance_of_order(win: Sequence[float], order: Sequence[int]) -> float:
    """A whole ranking's probability, place by place: each place goes to one of the players
    left in proportion to their win probabilities."""
    chance, left = 1.0, list(range(len(win)))
    for player in order:
        chance *= win[player] / sum(win[p] for p in left)
        left.remove(player)
    return chance


def test_it_gives_the_chance_of_finishing_at_the_predicted_rank() -> None:
    strong, middle, weak = Skill(30.0, 3.0), Skill(25.0, 3.0), Skill(20.0, 3.0)

    predicted = skill.predict([weak, strong, middle])

    orders = list(permutations(range(3)))
    assert [rank for rank, _ in predicted.ranks] == [3, 1, 2]
    for seat, (rank, chance) in enumerate(predicted.ranks):
        finishing_there = [order for order in orders if order[rank - 1] == seat]
        assert chance == pytest.approx(
            sum(chance_of_order(predicted.win, order) for order in finishing_there)
        )
    # First place is the win; the other places are not.
    assert predicted.ranks[1][1] == pytest.approx(predicted.win[1])
    assert predicted.ranks[0][1] != pytest.approx(predicted.win[0])
    assert predicted.ranks[2][1] != pytest.approx(predicted.win[2])
    # The weakest player is far likelier to be last than to win.
    assert predicted.ranks[0][1] > 0.6 and predicted.win[0] < 0.15


def test_it_gives_each_player_every_place_with_a_total_of_one() -> None:
    win = [0.5, 0.3, 0.15, 0.05]

    places = skill.place_probabilities(win)

    assert [row[0] for row in places] == pytest.approx(win)
    for row in places:  # each player finishes somewhere
        assert math.fsum(row) == pytest.approx(1.0)
    for place in range(4):  # each place goes to someone
        assert math.fsum(row[place] for row in places) == pytest.approx(1.0)
    assert skill.place_probabilities([0.0, 0.0, 1.0])[0] == pytest.approx([0.0, 0.5, 0.5])


# --- The display rating ---------------------------------------------------------------------


def test_it_shows_a_newcomer_at_1500_on_the_documented_scale() -> None:
    # docs/ratings.md "The display rating": 1500 + 25 * ordinal, to the nearest integer.
    assert skill.NEWCOMER.ordinal == 0.0
    assert display.display_rating(skill.NEWCOMER.ordinal) == 1500
    assert (display.NEWCOMER_DISPLAY, display.SCALE) == (1500, 25)
    assert display.display_rating(1.0) == 1525
    assert display.display_rating(-2.8) == 1430
    assert display.display_rating(20.5) == 2012
    assert isinstance(display.display_rating(3.14159), int)


def test_it_keeps_the_order_of_ordinals_in_display_ratings() -> None:
    # Ordinals a few display points apart, from far below a newcomer's to far above.
    ordinals = [x / 7 for x in range(-300, 400)]
    shown = [display.display_rating(o) for o in ordinals]
    assert all(b > a for a, b in pairwise(shown))


def test_it_writes_a_question_mark_after_a_provisional_rating() -> None:
    assert display.display_text(1532, provisional=True) == "1532?"
    assert display.display_text(1532, provisional=False) == "1532"
