"""The botmatch command: duplicate seating over the same deals, and its report."""

from __future__ import annotations

import io
import itertools
import re

import pytest
from django.core.management import CommandError, call_command

from bots.match import Interval, duplicate_match

BOTS = ["house:strong", "house:heuristic", "house:random"]


def test_it_rotates_the_same_deals_through_every_seating() -> None:
    result = duplicate_match(BOTS, deal_sets=2, seed="rotation", budget=0.002, max_hands=1)
    assert len(result.games) == 2
    for deal_set in result.games:
        assert sorted(g.seats for g in deal_set) == sorted(itertools.permutations(BOTS))
        assert len({g.seed for g in deal_set}) == 1
        assert all(g.first_deal == deal_set[0].first_deal for g in deal_set)
        assert len({g.first_dealer for g in deal_set}) == 1
        for game in deal_set:
            assert game.diffs and all(sum(d) == 0 for d in game.diffs)
            # A classic game's score is the sum of its hands' diffs (docs/rules.md).
            assert game.scores == tuple(sum(seat) for seat in zip(*game.diffs, strict=True))
            # The ranks follow the one hand's diffs when no seat can have won 12 tricks (a
            # diff of 4 or more for every target; some such hands are skipped needlessly).
            (diffs,) = game.diffs
            if max(diffs) < 4:
                assert game.ranks == tuple(1 + sum(o > d for o in diffs) for d in diffs)
    assert result.games[0][0].first_deal != result.games[1][0].first_deal


def test_it_prints_each_bot_with_a_confidence_interval() -> None:
    out = io.StringIO()
    call_command(
        "botmatch", *BOTS, "--games", "2", "--hands", "1", "--budget", "0.002",
        "--seed", "report", stdout=out,
    )  # fmt: skip
    text = out.getvalue()
    assert re.search(r"2 deal sets x 6 seatings = 12 games", text)
    number = r"[+-]\d+\.\d{3}"
    means = {}
    for bot in BOTS:
        match = re.search(rf"^{bot}\s+({number})\s+\[({number}), ({number})\]$", text, re.M)
        assert match, f"no line for {bot} in:\n{text}"
        mean, low, high = (float(g) for g in match.groups())
        assert low <= mean <= high
        means[bot] = mean
    assert abs(sum(means.values())) < 0.002  # every hand's diffs sum to zero (3 decimals shown)
    assert re.search(rf"^house:strong - house:heuristic: {number}\s+\[", text, re.M)
    assert "t(0.975, sets-1)" in text


def test_it_refuses_an_unknown_bot_or_a_wrong_number_of_bots() -> None:
    with pytest.raises(CommandError, match="nonesuch"):
        call_command("botmatch", "house:random", "house:random", "house:nonesuch", "--games", "1")
    with pytest.raises(CommandError, match="needs 4 bots"):
        call_command(
            "botmatch", *BOTS, "--games", "1", "--preset", "four-handed", stdout=io.StringIO()
        )


def test_it_computes_a_student_t_interval() -> None:
    interval = Interval.of([1.0, 2.0, 3.0])
    assert interval.mean == 2.0
    assert interval.high - interval.mean == pytest.approx(4.303 * 1.0 / 3**0.5)
