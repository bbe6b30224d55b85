"""The display rating: the one number pages show for a rating, on a scale where a newcomer
starts at 1500.

A fixed affine map of the ordinal (mu - 3 sigma, :mod:`ratings.skill`), openskill's own
``ordinal(alpha, target)`` scaling: ``display = NEWCOMER_DISPLAY + SCALE * ordinal``, rounded
to an integer. A newcomer's ordinal is 0 (mu 25, sigma 25/3), hence 1500. ``SCALE`` makes a
difference of display points worth about as much as the same difference of Elo points in
head-to-head odds (docs/ratings.md, "The display rating").
"""

from __future__ import annotations

from typing import Final

#: A newcomer's display rating (ordinal 0).
NEWCOMER_DISPLAY: Final = 1500
#: Display points per ordinal point.
SCALE: Final = 25


def display_rating(ordinal: float) -> int:
    """The display rating of ``ordinal``: ``1500 + 25 * ordinal``, to the nearest integer."""
    return NEWCOMER_DISPLAY + round(SCALE * ordinal)


def ordinal_of(display: float) -> float:
    """The ordinal that :func:`display_rating` shows as ``display`` (before rounding): for
    limits people give on the pages' scale."""
    return (display - NEWCOMER_DISPLAY) / SCALE


def display_text(display: int, provisional: bool) -> str:
    """A display rating as pages write it: ``?`` after it while provisional."""
    return f"{display}?" if provisional else str(display)
