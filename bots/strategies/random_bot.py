"""``house:random``: a uniformly random legal action."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any


def choose_random(view: Mapping[str, Any], rng: random.Random, budget: float) -> dict[str, Any]:
    """One entry of the view's ``legal_actions`` at random; for a choice of several cards
    (any ``count`` of the hand may be discarded or given), a random such set."""
    legal = view["legal_actions"]
    if not legal:
        raise ValueError("the seat has nothing to do in this view")
    action = dict(rng.choice(legal))
    count = action.pop("count", None)
    if count is not None:
        action["cards"] = rng.sample(list(view["your_hand"]), count)
    return action
