"""Sergeant Major (3-5-8) rules engine (placeholder docstring, replaced below)."""

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
from .rules import OPTIONS, PRESETS, Rules
