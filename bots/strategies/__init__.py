"""House bot strategies: pure functions from a seat's engine view to an action.

No Django here. A strategy sees exactly what ``Game.view(seat)`` shows that seat (the same
dict the API sends the player), never the full game state, so a house bot can know no more
than a human in its seat.

- ``random`` (:mod:`.random_bot`): a uniformly random legal action;
- ``heuristic`` (:mod:`.heuristic`): rules of thumb for every phase, no search, so fast;
- ``strong`` (:mod:`.strong`): determinized search over the engine's playout kernel within
  the time budget, for card play; the heuristic elsewhere.

Shared by them: :mod:`.knowledge` (a view as card masks) and :mod:`.inference` (random deals
of the unseen cards within what a view tells, for the searching strategies).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from bots.strategies.heuristic import choose_heuristic
from bots.strategies.random_bot import choose_random
from bots.strategies.strong import choose_strong

#: A strategy: (seated view, random source, time budget in seconds) -> action dict as
#: ``Game.apply_dict`` takes it.
Strategy = Callable[[Mapping[str, Any], random.Random, float], dict[str, Any]]

STRATEGIES: dict[str, Strategy] = {
    "random": choose_random,
    "heuristic": choose_heuristic,
    "strong": choose_strong,
}

#: Default thinking time per decision for strategies that search (API ``house:strong``).
DEFAULT_BUDGET_SECONDS = 0.3


def strategy_for(name: str) -> Strategy:
    """The strategy of a house bot, by its short name (``random``) or username
    (``house:random``); KeyError if there is none."""
    return STRATEGIES[name.removeprefix("house:")]


def choose_action(
    name: str,
    view: Mapping[str, Any],
    rng: random.Random,
    budget_seconds: float = DEFAULT_BUDGET_SECONDS,
) -> dict[str, Any]:
    """The action house bot ``name`` takes in the seated ``view``."""
    return strategy_for(name)(view, rng, budget_seconds)
