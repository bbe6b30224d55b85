"""In-person tables (pure Python, no Django): their codes, which entered scores are possible
for the game's rules, and a game's ranks from its scores.

Every preset's hand targets add up to the tricks of a hand (games.engine.rules), so each
hand's diffs, and so a game's scores, sum to zero. A hand moves a seat's score by at most
``tricks - lowest target`` up and ``highest target`` down (either way in ``calls``, whose
misère counts a hand's diff the other way round): with a bounded number of hands
(``max_hands``, or the 18 hands of ``calls``) a seat's score is bounded too.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from typing import Any, Final

from games.engine.rules import Rules

#: No 0/O, 1/I/L, 2/Z, 5/S, 8/B, 6/G, U/V: nothing read for something else on a phone.
CODE_LETTERS: Final = "ACDEFHJKMNPRTWXY"
CODE_DIGITS: Final = "3479"
CODE_LENGTH: Final = 3
CALLS_HANDS: Final = 18


def new_code(taken: Collection[str], rng: random.Random) -> str:
    """A table code not in ``taken``: a letter first (never read as a table number), then
    letters or digits."""
    rest = CODE_LETTERS + CODE_DIGITS
    length = CODE_LENGTH
    while True:
        for _ in range(50):
            code = rng.choice(CODE_LETTERS) + "".join(rng.choice(rest) for _ in range(length - 1))
            if code not in taken:
                return code
        length += 1  # a crowded tournament: longer codes


def hands_bound(rules: Rules) -> int | None:
    """The most hands a game of ``rules`` can last, or None when unbounded."""
    if rules.calls:
        return CALLS_HANDS if rules.max_hands is None else min(CALLS_HANDS, rules.max_hands)
    return rules.max_hands


def score_problem(rules: Rules, scores: Sequence[Any]) -> str | None:
    """Why ``scores`` cannot be a finished game's scores under ``rules``, or None."""
    if len(scores) != rules.players:
        return f"A game has {rules.players} scores, one per seat in seat order."
    if any(isinstance(s, bool) or not isinstance(s, int) for s in scores):
        return "Scores are whole numbers."
    if sum(scores) != 0:
        return "A game's scores sum to zero (every hand's do)."
    hands = hands_bound(rules)
    if hands is not None:
        most_up = (rules.tricks_per_hand - min(rules.targets)) * hands
        most_down = max(rules.targets) * hands
        if rules.calls:
            # Misère turns a hand's diff around (target minus tricks): either way, then.
            most_up = most_down = max(most_up, most_down)
        if any(s > most_up or s < -most_down for s in scores):
            return f"In {hands} hand(s) a score lies between {-most_down} and {most_up}."
    return None


def ranks_of(scores: Sequence[int]) -> list[int]:
    """Ranks by score, higher first; equal scores share a rank (as the rules rank a game
    that ends on scores)."""
    return [1 + sum(1 for other in scores if other > score) for score in scores]


def outcome_of(scores: Sequence[int]) -> dict[str, list[int]]:
    """An entered result in the shape of a finished game's ``result`` (ranks, scores)."""
    return {"ranks": ranks_of(scores), "scores": list(scores)}
