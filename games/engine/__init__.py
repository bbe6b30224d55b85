"""Sergeant Major (3-5-8): the rules engine.

Pure Python (standard library only), typed, no Django. The binding rules are
``docs/rules.md``; the replay format is ``docs/replay.md``. Modelled on
python-chess: small immutable values (:class:`Card`, :class:`Suit`, the actions) that
round-trip to the spec's strings and JSON, and a :class:`Game` state machine.

>>> import random
>>> from games.engine import Card, Game, Play, Rules, IllegalAction
>>> rules = Rules.from_preset("classic", max_hands=2)
>>> game = Game.new(rules, seed="table-17")          # deals and first dealer from the seed
>>> game.phase, game.to_act() == [game.dealer]
('trump', True)
>>> game.legal_summary(game.dealer)[0]
{'type': 'trump', 'suit': 'C'}
>>> events = game.apply_dict(game.dealer, {"type": "trump", "suit": "H"})
>>> [e.type for e in events]
['trump']
>>> try:
...     game.apply(game.dealer, Play(Card.parse("AS")))
... except IllegalAction as error:
...     error.code
'wrong_phase'
>>> rng = random.Random(0)
>>> while not game.is_over():                       # random legal play to the end
...     seat = game.to_move()
...     _ = game.apply(seat, rng.choice(game.legal_actions(seat)))
>>> outcome = game.outcome()
>>> outcome.hands_played, sum(outcome.scores)
(2, 0)
>>> Game.from_json(game.to_json()) == game           # compact state, no replay
True

Modules:

* :mod:`.cards` -- :class:`Suit`, :class:`Card`, card masks;
* :mod:`.actions` -- the action values, :func:`action_from_dict` and their compact codes;
* :mod:`.rules` -- :class:`Rules`, :data:`PRESETS`, :data:`OPTIONS`;
* :mod:`.deal` -- the documented SHA-256 shuffle and :class:`Deal`;
* :mod:`.game` -- :class:`Game`, :class:`Outcome`; ``Game`` is put together from
  :mod:`.core` (its state and plain queries), :mod:`.hand` (the hand in progress),
  :mod:`.legal` (legal actions), :mod:`.transitions` and :mod:`.steps` (applying actions,
  a hand's automatic steps), :mod:`.views` (views, the record) and :mod:`.serialisation`
  (the stored state, the journal);
* :mod:`.events` -- :class:`Event` (type, payload, visibility);
* :mod:`.kernel` -- :class:`~games.engine.kernel.PlayoutState`, fast playouts for bots;
* :mod:`.replay` -- ``python -m games.engine.replay`` (docs/replay.md).

Information: :meth:`Game.view` (a seat) and :meth:`Game.public_view` (a spectator) are the
security boundary -- everything sent to clients is built from them or from events filtered
with :meth:`Event.visible_to`. :meth:`Game.record` reveals every card and is for finished
games only.
"""

from .actions import (
    ACTION_TYPES,
    CALLS,
    Action,
    Bid,
    Discard,
    Give,
    NoSwap,
    Pass,
    Play,
    Swap,
    Trump,
    action_from_dict,
)
from .cards import CARDS, RANKS, SUITS, Card, Suit
from .deal import Deal
from .errors import ERROR_CODES, DealError, EngineError, IllegalAction, RulesError, StateError
from .events import Event
from .game import PHASES, Game, Outcome
from .kernel import PlayoutState
from .rules import OPTIONS, PRESETS, Rules

__all__ = [
    "ACTION_TYPES",
    "CALLS",
    "CARDS",
    "ERROR_CODES",
    "OPTIONS",
    "PHASES",
    "PRESETS",
    "RANKS",
    "SUITS",
    "Action",
    "Bid",
    "Card",
    "Deal",
    "DealError",
    "Discard",
    "EngineError",
    "Event",
    "Game",
    "Give",
    "IllegalAction",
    "NoSwap",
    "Outcome",
    "Pass",
    "Play",
    "PlayoutState",
    "Rules",
    "RulesError",
    "StateError",
    "Suit",
    "Swap",
    "Trump",
    "action_from_dict",
]
