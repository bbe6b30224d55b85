"""What a game holds, and the plain questions every part of it asks.

:class:`GameCore` is the base of :class:`~games.engine.Game`: the game's own state (rules,
dealer, scores, the journal, the end) around the hand in progress
(:class:`~games.engine.hand.HandState`), its simple queries and its standings. The other
parts are mixins over it: :mod:`.legal` (who acts and what is legal), :mod:`.steps` (a
hand's automatic steps), :mod:`.transitions` (applying actions), :mod:`.views` (views and
the record) and :mod:`.serialisation` (the stored state and the journal).

>>> trick_winner([Card.parse(c).index for c in ("TD", "AD", "2S")], 1, 3, -1)
2
>>> trick_winner([Card.parse(c).index for c in ("TD", "AD", "2S")], 1, 3, 3)
0
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from .cards import CARDS, Card, card_list, name
from .deal import Deal
from .errors import StateError
from .events import Event
from .hand import HandState
from .rules import Rules

__all__ = ["PHASES", "GameCore", "Outcome", "trick_winner"]

PHASES: Final = ("bid", "exchange", "trump", "discard", "swap", "play", "over")
"""Every value of :attr:`Game.phase` (docs/replay.md step phases)."""

#: The phase of each interactive step (and ``over``).
PHASE_OF_STEP: Final = {
    "bid": "bid",
    "give": "exchange",
    "trump": "trump",
    "discard": "discard",
    "swap": "swap",
    "play": "play",
    "over": "over",
}
#: The action types each step takes.
TYPES_OF_STEP: Final[dict[str, tuple[str, ...]]] = {
    "bid": ("bid", "pass"),
    "give": ("give",),
    "trump": ("trump",),
    "discard": ("discard",),
    "swap": ("swap", "no_swap"),
    "play": ("play",),
    "over": (),
}
#: What a view shows of each finished hand (``previous_hands``), and all a state keeps of
#: a hand whose journal was detached.
HAND_SUMMARY: Final = ("dealer", "targets", "trump", "tricks", "diffs")
TWO_D: Final = 13  # index of 2D
NAMES: Final = tuple(name(i) for i in range(52))


def trick_winner(cards: Sequence[int], leader: int, players: int, trump: int) -> int:
    """The seat winning a trick of card indices led by ``leader`` (``trump`` = -1: none)."""
    best = 0
    top = cards[0]
    for i in range(1, len(cards)):
        c = cards[i]
        if c // 13 == top // 13:
            if c > top:
                best, top = i, c
        elif c // 13 == trump:
            best, top = i, c
    return (leader + best) % players


@dataclass(frozen=True)
class Outcome:
    """The result of a finished game (docs/rules.md "Standings for a game").

    ``ranks[seat]`` are competition ranks (1 is best; equal scores share a rank; the seat
    that met the winning condition ranks first alone). ``reason`` is ``"tricks"`` (a trick
    target, or all tricks), ``"score"``, ``"calls"`` (the 18 hands of ``calls``) or
    ``"max_hands"``.
    """

    winner: int | None
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    hands_played: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "ranks": list(self.ranks),
            "scores": list(self.scores),
            "hands_played": self.hands_played,
            "reason": self.reason,
        }


def _ranks(scores: Sequence[int], first: int | None) -> tuple[int, ...]:
    out = []
    for seat, score in enumerate(scores):
        if seat == first:
            out.append(1)
            continue
        others = [s for i, s in enumerate(scores) if i != first]
        out.append(1 + (first is not None) + sum(1 for s in others if s > score))
    return tuple(out)


class GameCore:
    """The state of a game and its plain queries (see the module doc)."""

    def __init__(
        self,
        rules: Rules,
        *,
        seed: int | str | None,
        deals: Sequence[Deal | None] | None,
        hand: HandState | None = None,
    ) -> None:
        """Use :meth:`Game.new`, :meth:`Game.from_deals` or :meth:`Game.from_json` instead.
        (``hand``: the hand in progress of a loaded game; else none is dealt yet.)"""
        self._rules = rules
        self._n = rules.players
        self._seed = seed
        # Explicit deals by deal number (None: one dealt in a detached part of the journal).
        self._deals = None if deals is None else list(deals)
        self._first_dealer = 0
        self._deal_number = -1
        self._dealer = 0
        self._scores = [0] * self._n
        # The journal: what only grows, and what only the record reads in full (every
        # hand's results, every deal, every action). ``_history`` holds every finished
        # hand; the first ``_absent[2]`` of them only as their summary. ``_deal_log`` and
        # ``_log`` hold the deals and actions after the first ``_absent[0:2]``. Those absent
        # parts were detached from the state it was loaded from (see detach_journal).
        self._history: list[dict[str, Any]] = []
        self._deal_log: list[list[int]] = []
        # Each action as its seat's digit and the action's code (Action.code()).
        self._log: list[str] = []
        self._absent: tuple[int, int, int] = (0, 0, 0)
        # How much of the journal (deals, actions, hands) the state leaves out: what
        # detach_journal handed out. Never less than ``_absent``.
        self._detached: tuple[int, int, int] = (0, 0, 0)
        self._calls_used: list[list[str]] = [[] for _ in range(self._n)]
        self._prev_diffs: list[int] | None = None
        self._over = False
        self._stopped = False
        self._win_seat: int | None = None
        self._end_reason: str | None = None
        # Events of the start (first deal), kept for opening_events(); not serialised.
        self._opening: list[Event] = []
        self._hand = HandState.new(self._n) if hand is None else hand

    # ------------------------------------------------------------------ simple queries
    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def players(self) -> int:
        return self._n

    @property
    def seed(self) -> int | str | None:
        return self._seed

    @property
    def phase(self) -> str:
        """One of :data:`PHASES`."""
        return PHASE_OF_STEP[self._hand.step]

    @property
    def hand_number(self) -> int:
        """1 for the first hand (Woburn redeals do not count)."""
        return len(self._history) + 1

    @property
    def dealer(self) -> int:
        return self._dealer

    @property
    def targets(self) -> list[int] | None:
        """Targets by seat for this hand (``None`` during the Woburn auction)."""
        targets = self._hand.targets
        return None if targets is None else list(targets)

    @property
    def trump(self) -> str | None:
        """``"C" "D" "H" "S"``, ``"NT"``/``"MIZ"`` (calls), or ``None`` before it is named."""
        return self._hand.trump

    @property
    def scores(self) -> list[int]:
        return list(self._scores)

    @property
    def tricks(self) -> list[int]:
        """Tricks won so far in this hand, by seat."""
        return list(self._hand.tricks)

    @property
    def history(self) -> list[dict[str, Any]]:
        """The completed hands in docs/replay.md output form."""
        self._require_whole_journal()
        return json.loads(json.dumps(self._history))  # type: ignore[no-any-return]

    def hand(self, seat: int) -> list[Card]:
        """The cards ``seat`` holds now (sorted). Hidden information: see :meth:`view`."""
        return card_list(self._hand.cards[seat])

    def hand_mask(self, seat: int) -> int:
        return self._hand.cards[seat]

    def current_trick(self) -> list[tuple[int, Card]]:
        """``(seat, card)`` pairs of the trick in progress."""
        hand = self._hand
        return [((hand.leader + i) % self._n, CARDS[c]) for i, c in enumerate(hand.trick)]

    @property
    def leader(self) -> int:
        """The seat leading the current trick (play phase)."""
        return self._hand.leader

    def is_over(self) -> bool:
        """Has the game ended by its rules (not just run out of explicit deals)?"""
        return self._over

    def is_stopped(self) -> bool:
        """No action can be made: the game is over, or an explicit-deal game ran out of deals."""
        return self._hand.step == "over"

    @property
    def has_whole_journal(self) -> bool:
        """Whether this game holds its whole journal, so can give its :meth:`record` (False
        only when loaded without parts that :meth:`detach_journal` handed out)."""
        return self._absent == (0, 0, 0)

    def _require_whole_journal(self) -> None:
        if not self.has_whole_journal:
            raise StateError(
                "this game was loaded without the detached parts of its journal; "
                "load it with from_state(..., journal=...)"
            )

    # ------------------------------------------------------------------ results
    def standings(self) -> Outcome:
        """Ranks and winner as if the game ended now (final once :meth:`is_over`)."""
        first = self._win_seat
        scores = tuple(self._scores)
        winner = first
        if winner is None:
            top = max(scores)
            leaders = [s for s, sc in enumerate(scores) if sc == top]
            winner = leaders[0] if len(leaders) == 1 else None
        return Outcome(
            winner=winner,
            ranks=_ranks(scores, first),
            scores=scores,
            hands_played=len(self._history),
            reason=self._end_reason or "in_progress",
        )

    def outcome(self) -> Outcome | None:
        """The :class:`Outcome` of a finished game, ``None`` while it goes on."""
        return self.standings() if self._over else None
