"""In-person tables' pure rules (tournaments.results): table codes, the scores a game of
the rules could end with, and ranks from scores."""

from __future__ import annotations

import random

from games.engine.rules import PRESETS, Rules
from tournaments.results import (
    CODE_DIGITS,
    CODE_LETTERS,
    new_code,
    ranks_of,
    score_problem,
)


def rules(preset: str, max_hands: int | None) -> Rules:
    return Rules.from_preset(preset, max_hands=max_hands) if max_hands else PRESETS[preset]


def test_it_makes_codes_without_look_alikes_and_never_twice() -> None:
    rng = random.Random(7)
    taken: set[str] = set()

    for _ in range(2000):
        code = new_code(taken, rng)
        assert code not in taken and code[0] in CODE_LETTERS
        assert set(code) <= set(CODE_LETTERS + CODE_DIGITS)
        taken.add(code)

    assert not set(CODE_LETTERS + CODE_DIGITS) & set("0O1IL2Z5S8B6GUV")
    assert {len(c) for c in taken} == {3}


def test_it_makes_longer_codes_once_the_short_ones_run_out() -> None:
    alphabet = CODE_LETTERS + CODE_DIGITS
    every_short = {a + b + c for a in CODE_LETTERS for b in alphabet for c in alphabet}

    assert len(new_code(every_short, random.Random(1))) == 4


def test_it_takes_scores_that_sum_to_zero_within_what_the_hands_allow() -> None:
    one_hand = rules("classic", 1)

    assert score_problem(one_hand, [13, -8, -5]) is None
    assert score_problem(one_hand, [0, 0, 0]) is None
    assert score_problem(rules("classic", 3), [30, -15, -15]) is None
    # With no bound on the hands, any sum-zero scores could happen.
    assert score_problem(rules("classic", None), [60, -30, -30]) is None


def test_it_refuses_scores_no_game_could_end_with() -> None:
    one_hand = rules("classic", 1)

    assert score_problem(one_hand, [3, -1, -1]) is not None  # not summing to zero
    assert score_problem(one_hand, [1, -1]) is not None  # a seat missing
    assert score_problem(one_hand, [14, -7, -7]) is not None  # 13 up at most
    assert score_problem(one_hand, [9, 0, -9]) is not None  # 8 down at most
    assert score_problem(one_hand, [True, False, -1]) is not None
    assert score_problem(rules("classic", 3), [40, -20, -20]) is not None


def test_it_bounds_a_game_of_calls_by_its_eighteen_hands_either_way() -> None:
    calls = rules("calls", None)

    assert score_problem(calls, [-13, 5, 8]) is None  # a misère can cost the most
    assert score_problem(calls, [18 * 13, -18 * 13, 0]) is None
    assert score_problem(calls, [18 * 13 + 1, -18 * 13 - 1, 0]) is not None


def test_it_ranks_by_score_with_ties_sharing() -> None:
    assert ranks_of([4, -1, -3]) == [1, 2, 3]
    assert ranks_of([1, 1, -2]) == [1, 1, 3]
    assert ranks_of([-2, 1, 1]) == [3, 1, 1]
    assert ranks_of([0, 0, 0]) == [1, 1, 1]
