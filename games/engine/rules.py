"""Rules: every preset of docs/rules.md as data, plus its options.

A :class:`Rules` object is frozen. Its *structural* fields (number of players, deck, targets,
kitty handling, how the game ends, ...) come from the preset and cannot be overridden; its
*options* (:data:`OPTIONS`) can, and a known option with a valid value is accepted by every
preset (and ignored where it does not apply).

>>> rules = Rules.from_preset("classic", max_hands=5)
>>> rules.targets, rules.win_tricks, rules.max_hands
((8, 5, 3), 12, 5)
>>> rules.to_dict()
{'preset': 'classic', 'max_hands': 5}
>>> Rules.from_dict({"preset": "woburn"}).exchange_cap
3
>>> Rules.from_preset("classic", colour="red")
Traceback (most recent call last):
...
games.engine.errors.RulesError: unknown option 'colour' (known: kitty_order, ...)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Final

from .cards import FULL_DECK, Card
from .errors import RulesError

__all__ = ["OPTIONS", "OPTION_CHOICES", "OPTION_INT_MAX", "PRESETS", "WOBURN_TARGETS", "Rules"]

OPTIONS: Final = (
    "kitty_order",
    "one_up_two_down",
    "two_up_order",
    "exchange_cap",
    "exchange_before_trump",
    "max_hands",
    "target_score",
    "deal_packet",
)
"""The option names every preset accepts."""

OPTION_INT_MAX: Final = 2**31 - 1
"""The largest integer option: a 32-bit integer, as every store of rules keeps it."""

OPTION_CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "kitty_order": ("discard_then_take", "take_then_discard"),
    "one_up_two_down": ("simultaneous", "sequential"),
    "two_up_order": ("higher_target_first", "most_up_first"),
}
"""The values of the options that take one of a few names."""

WOBURN_TARGETS: Final[dict[int, tuple[int, int]]] = {
    8: (5, 3),
    9: (4, 3),
    10: (4, 2),
    11: (3, 2),
    12: (2, 2),
    13: (2, 1),
    14: (1, 1),
    15: (1, 0),
    16: (0, 0),
}
"""Woburn: the winning bid -> (eldest, middle) targets."""


@dataclass(frozen=True)
class Rules:
    """One way of playing: a preset's structure plus option values.

    Structural fields (set by the preset):

    * ``players`` -- 3, or 4 for ``four-handed``;
    * ``removed`` -- cards taken out of the deck (``("2C",)`` in ``6-3-8``);
    * ``hand_size``, ``kitty_size`` -- cards per player and in the kitty;
    * ``kitty`` -- ``"dealer"`` (the dealer takes it and discards), ``"swap_2d"`` (one face-up
      card the holder of 2D may swap for) or ``"none"``;
    * ``targets`` -- by position from the dealer: ``targets[0]`` dealer, ``[1]`` eldest
      (left of the dealer), ``[2]`` the next seat clockwise, ...;
    * ``discard_trick`` -- the dealer's discard counts as a trick won (``3-5-9``);
    * ``sequence`` -- ``"classic"`` or ``"tallyn"`` (the order of steps in a hand);
    * ``exchange`` -- whether hands after the first open with the exchange;
    * ``bidding`` -- Woburn first-hand auction;
    * ``calls`` -- the "Sergeant Major alternate" calls (NT, MIZ; each dealer makes each once);
    * ``win_tricks`` -- winning this many tricks in a hand wins the game (``None``: never);
    * ``score_end`` -- ``"none"``, ``"up"`` (ends when a score reaches ``target_score``) or
      ``"up_or_down"`` (also at ``-target_score``).

    Options: see :data:`OPTIONS` and docs/rules.md.
    """

    preset: str = "classic"
    players: int = 3
    removed: tuple[str, ...] = ()
    hand_size: int = 16
    kitty_size: int = 4
    kitty: str = "dealer"
    targets: tuple[int, ...] = (8, 5, 3)
    discard_trick: bool = False
    sequence: str = "classic"
    exchange: bool = True
    bidding: bool = False
    calls: bool = False
    win_tricks: int | None = 12
    score_end: str = "none"
    # options
    kitty_order: str = "discard_then_take"
    one_up_two_down: str = "simultaneous"
    two_up_order: str = "higher_target_first"
    exchange_cap: int | None = None
    exchange_before_trump: bool = True
    max_hands: int | None = None
    target_score: int | None = None
    deal_packet: int = 1
    _deck: int = field(default=0, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        deck = FULL_DECK
        for text in self.removed:
            deck &= ~(1 << Card.parse(text).index)
        object.__setattr__(self, "_deck", deck)

    # -- construction -------------------------------------------------------------------
    @classmethod
    def from_preset(cls, name: str = "classic", **options: Any) -> Rules:
        """The rules of preset ``name`` with some options overridden.

        Raises :class:`RulesError` on an unknown preset, unknown option or bad value.
        """
        # Each value's type is in the key: 1, 1.0 and True are equal, but not equally valid.
        key = (name, tuple(sorted((k, type(v), v) for k, v in options.items())))
        try:
            hash(key)
        except TypeError:  # an unhashable value, which no option takes: refused below
            return cls._build(name, options)
        return cls._cached(key)

    @classmethod
    @lru_cache(maxsize=256)
    def _cached(cls, key: tuple[str, tuple[tuple[str, type, Any], ...]]) -> Rules:
        # Rules are frozen, so one object serves every game with the same rules: making
        # one (dataclasses.replace) was a fifth of the time it takes to load a game's state.
        name, options = key
        return cls._build(name, {k: v for k, _, v in options})

    @classmethod
    def _build(cls, name: str, options: dict[str, Any]) -> Rules:
        if not isinstance(name, str) or name not in PRESETS:
            raise RulesError(f"unknown rules preset {name!r} (known: {', '.join(PRESETS)})")
        base = PRESETS[name]
        for key, value in options.items():
            if key not in OPTIONS:
                raise RulesError(f"unknown option {key!r} (known: {', '.join(OPTIONS)})")
            _check_option(key, value)
        if options.get("target_score", 0) is None:
            options = {k: v for k, v in options.items() if k != "target_score"}
        return replace(base, **options)

    @classmethod
    def from_dict(cls, data: object) -> Rules:
        """Rules from a preset name or ``{"preset": NAME, ...option overrides}``
        (docs/replay.md)."""
        if isinstance(data, str):
            return cls.from_preset(data)
        if isinstance(data, Rules):
            return data
        if not isinstance(data, Mapping):
            raise RulesError("rules must be a preset name or an object with a 'preset'")
        if "preset" not in data:
            raise RulesError("rules object has no 'preset'")
        options = {k: v for k, v in data.items() if k != "preset"}
        for key in options:
            if not isinstance(key, str):
                raise RulesError(f"unknown option {key!r}")
        return cls.from_preset(data["preset"], **options)

    def to_dict(self) -> dict[str, Any]:
        """``{"preset": NAME}`` plus the options that differ from the preset's defaults."""
        base = PRESETS[self.preset]
        out: dict[str, Any] = {"preset": self.preset}
        for key in OPTIONS:
            value = getattr(self, key)
            if value != getattr(base, key):
                out[key] = value
        return out

    def options(self) -> dict[str, Any]:
        """Every option with its value in force."""
        return {key: getattr(self, key) for key in OPTIONS}

    # -- derived ------------------------------------------------------------------------
    @property
    def deck(self) -> int:
        """The deck as a card mask."""
        return self._deck

    @property
    def tricks_per_hand(self) -> int:
        """Tricks counted in a hand (16, 17 with ``3-5-9``'s discard trick, 13 four-handed)."""
        return self.hand_size + (1 if self.discard_trick else 0)

    @property
    def ends_on_score(self) -> bool:
        return self.score_end != "none"

    def seat_targets(self, dealer: int) -> list[int]:
        """The targets by seat for a hand dealt by ``dealer``."""
        n = self.players
        out = [0] * n
        for offset, target in enumerate(self.targets):
            out[(dealer + offset) % n] = target
        return out


def _check_option(key: str, value: object) -> None:
    if key in OPTION_CHOICES:
        if not isinstance(value, str) or value not in OPTION_CHOICES[key]:
            raise RulesError(
                f"bad value {value!r} for option {key!r} (one of: {', '.join(OPTION_CHOICES[key])})"
            )
    elif key == "exchange_before_trump":
        if type(value) is not bool:
            raise RulesError(f"bad value {value!r} for option {key!r} (true or false)")
    elif key == "deal_packet":
        if type(value) is not int or value not in (1, 4):
            raise RulesError(f"bad value {value!r} for option {key!r} (1 or 4)")
    elif key == "exchange_cap":
        if value is not None and (type(value) is not int or not 0 <= value <= OPTION_INT_MAX):
            raise RulesError(
                f"bad value {value!r} for option {key!r} (null or an integer 0..{OPTION_INT_MAX})"
            )
    elif key in ("max_hands", "target_score") and (
        value is not None and (type(value) is not int or not 1 <= value <= OPTION_INT_MAX)
    ):
        raise RulesError(
            f"bad value {value!r} for option {key!r} (null or an integer 1..{OPTION_INT_MAX})"
        )


_CLASSIC: Final = Rules()

PRESETS: Final[dict[str, Rules]] = {
    "classic": _CLASSIC,
    "kitty-first": replace(_CLASSIC, preset="kitty-first", kitty_order="take_then_discard"),
    "most-up-first": replace(_CLASSIC, preset="most-up-first", two_up_order="most_up_first"),
    "3-5-9": replace(
        _CLASSIC,
        preset="3-5-9",
        targets=(9, 5, 3),
        kitty_order="take_then_discard",
        discard_trick=True,
    ),
    "9-5-2": replace(
        _CLASSIC,
        preset="9-5-2",
        targets=(9, 5, 2),
        kitty_order="take_then_discard",
        win_tricks=None,
        score_end="up",
        target_score=10,
    ),
    "9-5-2-tallyn": replace(
        _CLASSIC,
        preset="9-5-2-tallyn",
        targets=(9, 2, 5),
        sequence="tallyn",
        kitty_order="take_then_discard",
        win_tricks=None,
        score_end="up_or_down",
        target_score=15,
    ),
    "9-5-3-single-kitty": replace(
        _CLASSIC,
        preset="9-5-3-single-kitty",
        hand_size=17,
        kitty_size=1,
        kitty="swap_2d",
        targets=(9, 5, 3),
        win_tricks=13,
    ),
    "6-3-8": replace(
        _CLASSIC,
        preset="6-3-8",
        removed=("2C",),
        hand_size=17,
        kitty_size=0,
        kitty="none",
        targets=(8, 6, 3),
        win_tricks=None,
        score_end="up",
        target_score=10,
    ),
    "17-card-2s-removed": replace(
        _CLASSIC,
        preset="17-card-2s-removed",
        removed=("2S",),
        hand_size=17,
        kitty_size=0,
        kitty="none",
        targets=(9, 5, 3),
        win_tricks=17,
    ),
    "all-sixteen": replace(_CLASSIC, preset="all-sixteen", win_tricks=16),
    "woburn": replace(_CLASSIC, preset="woburn", bidding=True, exchange_cap=3),
    "calls": replace(_CLASSIC, preset="calls", calls=True, exchange=False, win_tricks=None),
    "four-handed": replace(
        _CLASSIC,
        preset="four-handed",
        players=4,
        hand_size=13,
        kitty_size=0,
        kitty="none",
        targets=(5, 4, 2, 2),
        win_tricks=10,
    ),
}
"""Every preset of docs/rules.md by name."""

# Sanity: the structure of every preset adds up.
for _name, _rules in PRESETS.items():
    assert _rules.players * _rules.hand_size + _rules.kitty_size == _rules.deck.bit_count(), _name
    assert sum(_rules.targets) == _rules.tricks_per_hand, _name
    assert len(_rules.targets) == _rules.players, _name
