"""The game: :class:`Game`, one state machine for every preset.

>>> from games.engine import Game, Rules
>>> game = Game.new(Rules.from_preset("classic"), seed="doc")
>>> game.phase, game.to_act() == [game.dealer]
('trump', True)
>>> events = game.apply(game.dealer, game.fallback_action(game.dealer))   # names clubs
>>> game.legal_summary(game.dealer)
[{'type': 'discard', 'count': 4}]

:class:`Game` is put together from parts over one state (:class:`~.core.GameCore`: the
game's own fields and the hand in progress, :class:`~.hand.HandState`), each in its module:

* :mod:`.legal` -- who acts and what is legal (:meth:`Game.legal_actions`,
  :meth:`Game.fallback_action`, ...);
* :mod:`.transitions` -- :meth:`Game.apply` (typed actions) and :meth:`Game.apply_dict`
  (JSON actions, docs/replay.md's error precedence), with :mod:`.steps`, a hand's automatic
  steps (the deal, the exchange, the kitty, the end of a hand);
* :mod:`.views` -- :meth:`Game.view`, :meth:`Game.public_view`, :meth:`Game.record`;
* :mod:`.serialisation` -- :meth:`Game.to_state` / :meth:`Game.from_state` (and JSON),
  :meth:`Game.detach_journal`, :meth:`Game.copy`, equality.

Errors: :meth:`Game.apply` and :meth:`Game.apply_dict` raise
:class:`~games.engine.errors.IllegalAction` (with ``.code``) and change nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .core import PHASES, Outcome, trick_winner
from .deal import Deal, first_dealer
from .events import Event
from .rules import Rules
from .serialisation import Serialisation
from .transitions import Transitions
from .views import Views

__all__ = ["PHASES", "Game", "Outcome", "trick_winner"]


class Game(Transitions, Views, Serialisation):
    """A game of Sergeant Major: state, legal actions, views, serialisation.

    Create one with :meth:`Game.new` (a seeded, reproducible deal sequence) or
    :meth:`Game.from_deals` (explicit deals, as in replay files); load a stored one with
    :meth:`Game.from_json`. Then loop: :meth:`to_act`, :meth:`legal_actions`,
    :meth:`apply`, until :meth:`is_over`, and read :meth:`outcome`.
    """

    @classmethod
    def new(cls, rules: Rules | str | Mapping[str, Any] = "classic", seed: int | str = 0) -> Game:
        """A new game whose deals and first dealer come from ``seed`` (see :mod:`.deal`)."""
        rules = Rules.from_dict(rules)
        if type(seed) not in (int, str):
            raise TypeError("seed must be an int or a str")
        game = cls(rules, seed=seed, deals=None)
        game._first_dealer = game._dealer = first_dealer(seed, rules.players)
        game._start_hand(game._opening)
        return game

    @classmethod
    def from_deals(
        cls,
        rules: Rules | str | Mapping[str, Any],
        deals: Sequence[Deal | Mapping[str, Any]],
        first_dealer: int = 0,
    ) -> Game:
        """A game played with explicit deals (docs/replay.md); it stops when they run out."""
        rules = Rules.from_dict(rules)
        parsed = [d if isinstance(d, Deal) else Deal.from_dict(d, rules) for d in deals]
        for deal in parsed:
            deal.validate(rules)
        if type(first_dealer) is not int or not 0 <= first_dealer < rules.players:
            raise ValueError(f"first_dealer must be a seat 0..{rules.players - 1}")
        game = cls(rules, seed=None, deals=parsed)
        game._first_dealer = game._dealer = first_dealer
        game._start_hand(game._opening)
        return game

    def opening_events(self) -> list[Event]:
        """The events of the game's start (the first ``hand_start`` and ``deal`` events, and
        anything automatic after them), which :meth:`new` and :meth:`from_deals` make before
        any action. The platform stores them when it creates a game. A game loaded with
        :meth:`from_json` has none."""
        return list(self._opening)

    def __repr__(self) -> str:
        return (
            f"<Game {self._rules.preset} hand {self.hand_number} phase {self.phase} "
            f"to_act {self.to_act()} scores {self._scores}>"
        )
