"""Rating pools: which rule presets are compared with each other.

A pool is a family of presets whose games reward the same skills, so a rating earned in one
of them says something about the others. The families follow the structure of the deal and
of the game's end (docs/rules.md, "Variants"):

* ``classic`` -- 52 cards, 16 each and a 4-card kitty, the 8-5-3 exchange, the game ends on a
  big hand: ``classic``, ``kitty-first``, ``most-up-first``, ``all-sixteen``, ``woburn``
  (a bidding first hand, then classic) and ``3-5-9`` (the same deal, kitty-first, one trick
  more for the dealer).
* ``race`` -- the 9-5-2 games, which end when a score reaches a threshold: ``9-5-2``,
  ``9-5-2-tallyn``.
* ``seventeen`` -- 17 cards each and (almost) no kitty: ``9-5-3-single-kitty``, ``6-3-8``,
  ``17-card-2s-removed``.
* ``calls`` -- a different game (contracts chosen by the dealer, misère, 18 fixed hands).
* ``four-handed`` -- four players.

A game rates in the pool of its preset whatever its options (``max_hands`` included): the
options change the length of a game, not what is being measured.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from games.engine import PRESETS

DEFAULT_POOL: Final = "classic"

POOL_PRESETS: Final[dict[str, tuple[str, ...]]] = {
    "classic": ("classic", "kitty-first", "most-up-first", "all-sixteen", "woburn", "3-5-9"),
    "race": ("9-5-2", "9-5-2-tallyn"),
    "seventeen": ("9-5-3-single-kitty", "6-3-8", "17-card-2s-removed"),
    "calls": ("calls",),
    "four-handed": ("four-handed",),
}

POOL_OF_PRESET: Final[dict[str, str]] = {
    preset: pool for pool, presets in POOL_PRESETS.items() for preset in presets
}

# Every preset of the engine rates in exactly one pool.
assert sorted(POOL_OF_PRESET) == sorted(PRESETS), set(PRESETS) ^ set(POOL_OF_PRESET)
assert len(POOL_OF_PRESET) == sum(len(p) for p in POOL_PRESETS.values())

POOLS: Final = tuple(POOL_PRESETS)

#: Games played with real cards at real tables (a tournament's in-person night), their
#: results entered: a pool of their own, never mixed with the online pools, whatever the
#: preset. No preset rates in it, so the online pools' listings leave it out.
IN_PERSON_POOL: Final = "in_person"
IN_PERSON_TABLE_SIZE: Final = 3

#: Every pool a rating may be kept in: the online pools, then the in-person one.
RATED_POOLS: Final = (*POOLS, IN_PERSON_POOL)


def pool_of(rules: Mapping[str, Any] | str) -> str:
    """The pool of a game's rules (``{"preset": ..., ...options}`` or a preset name)."""
    preset = rules if isinstance(rules, str) else rules.get("preset", "classic")
    return POOL_OF_PRESET[preset]


def table_size(pool: str) -> int:
    """Players at a table of ``pool`` (every preset of a pool seats the same number)."""
    if pool == IN_PERSON_POOL:
        return IN_PERSON_TABLE_SIZE
    (size,) = {PRESETS[preset].players for preset in POOL_PRESETS[pool]}
    return size
