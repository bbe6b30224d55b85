"""The rating model: openskill's Plackett-Luce, configured once, and the rules around it.

Everything here is pure (no database), so that the live update after a game, the rebuild
from stored games and the quality replay compute the very same numbers.

Parameters (openskill's defaults, which are TrueSkill's scale):

* ``mu`` 25, ``sigma`` 25/3 for a newcomer; ``beta`` 25/6, the spread of one game's
  performance around a player's skill.
* ``tau`` 25/300 (sigma/100): each game first adds tau² to sigma², so sigma cannot collapse
  and the rating keeps following a player whose skill changes. With three-player tables it
  settles near 1.5 after some hundreds of games, well below ``beta``: the rating is then a
  confident estimate that still moves by a noticeable amount after a surprising result.

Provisional: a rating is provisional while its player has fewer than
:data:`PROVISIONAL_GAMES` rated games in the pool, or while its sigma (inactivity applied) is
above :data:`PROVISIONAL_SIGMA`. The count ends it for players of a game a week or more,
even when all play newcomers only, who narrow each other's sigma slowly; the sigma bar keeps
it while a rating is still nearly a newcomer's, and brings it back after a long absence. A
sigma bar alone, low enough to mean "settled", kept players of a game a week among newcomers
provisional for most of a year (docs/ratings.md).

Inactivity (as Lichess raises a Glicko RD): each whole day without a rated game in the pool
adds :data:`SIGMA_GROWTH_PER_DAY`² to sigma², capped at the newcomer's sigma. It is applied
lazily: when the player's next game is rated (from the previous game's end to this game's
end), and when a rating is shown (up to now). The growth is chosen so that a settled rating
(sigma 2) is provisional again after about eight months away and back to a newcomer's
uncertainty after a year. A player with no rated game in the pool for :data:`INACTIVE_DAYS`
is listed apart from the leaderboard.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, NamedTuple

from openskill.models import PlackettLuce

MU: Final = 25.0
SIGMA: Final = 25.0 / 3.0
BETA: Final = 25.0 / 6.0
TAU: Final = 25.0 / 300.0
ORDINAL_Z: Final = 3.0

#: The one model instance. Never pass per-call options to ``rate`` (``tau``, ``limit_sigma``):
#: openskill stores some of them on the model.
MODEL: Final = PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA, tau=TAU)

PROVISIONAL_GAMES: Final = 10
PROVISIONAL_SIGMA: Final = 7.0
SETTLED_SIGMA: Final = 2.0
SIGMA_GROWTH_PER_DAY: Final = math.sqrt((SIGMA**2 - SETTLED_SIGMA**2) / 365)
INACTIVE_DAYS: Final = 90


class Skill(NamedTuple):
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """mu - 3 sigma: the leaderboard's number (a conservative estimate of skill)."""
        return self.mu - ORDINAL_Z * self.sigma


NEWCOMER: Final = Skill(MU, SIGMA)


class PlayerState(NamedTuple):
    """A player's stored rating in one pool."""

    skill: Skill
    last_played_at: datetime | None
    games: int


class SeatOutcome(NamedTuple):
    """One seat of a finished game, as ratings need it."""

    seat: int
    player_id: int
    rank: int
    # The seat was handed to a house bot (three timeouts): a loss for its player (docs/api.md).
    replaced: bool = False


class Change(NamedTuple):
    """What one game did to one player's rating (``before`` includes inactivity)."""

    player_id: int
    seat: int
    rank: int
    before: Skill
    after: Skill


def is_provisional(shown: Skill, games: int) -> bool:
    """Whether a rating is provisional: ``shown`` with inactivity applied, ``games`` the
    player's rated games in the pool (see the module's docstring)."""
    return games < PROVISIONAL_GAMES or shown.sigma > PROVISIONAL_SIGMA


def idle_days(last_played_at: datetime | None, at: datetime) -> int:
    if last_played_at is None:
        return 0
    return max(0, (at - last_played_at).days)


def with_inactivity(state: PlayerState | None, at: datetime) -> Skill:
    """The rating of ``state`` at ``at``: sigma grown for each whole idle day, capped."""
    if state is None:
        return NEWCOMER
    days = idle_days(state.last_played_at, at)
    if days == 0:
        return state.skill
    grown = math.sqrt(state.skill.sigma**2 + days * SIGMA_GROWTH_PER_DAY**2)
    return Skill(state.skill.mu, max(state.skill.sigma, min(SIGMA, grown)))


def is_inactive(state: PlayerState, at: datetime) -> bool:
    return idle_days(state.last_played_at, at) >= INACTIVE_DAYS


def rating_ranks(seats: Sequence[SeatOutcome]) -> list[int]:
    """The ranks to rate with: the game's (docs/rules.md), with replaced seats moved to last.

    Ties keep sharing a rank. Without replaced seats these are the game's ranks unchanged.
    """
    if not any(s.replaced for s in seats):
        return [s.rank for s in seats]
    keys = [(s.replaced, s.rank) for s in seats]
    return [1 + sum(other < key for other in keys) for key in keys]


def rate_game(
    seats: Sequence[SeatOutcome], states: Mapping[int, PlayerState | None], at: datetime
) -> list[Change]:
    """Rate one finished game: one :class:`Change` per player, in order of first seat.

    ``states`` holds every seated player's stored rating (None: never rated in the pool);
    ``at`` is when the game ended (inactivity is counted up to it). Each seat is one team of
    one. A player in several seats (a house bot can be) is rated in each against the others,
    and gets the mean of its seats' results.
    """
    priors = {s.player_id: with_inactivity(states.get(s.player_id), at) for s in seats}
    teams = [
        [MODEL.rating(mu=priors[s.player_id].mu, sigma=priors[s.player_id].sigma)] for s in seats
    ]
    ranks = rating_ranks(seats)
    results = MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    if len(priors) == len(seats):
        return [
            Change(seat.player_id, seat.seat, rank, priors[seat.player_id], Skill(r.mu, r.sigma))
            for seat, rank, (r,) in zip(seats, ranks, results, strict=True)
        ]
    by_player: dict[int, list[tuple[SeatOutcome, int, Skill]]] = {}
    for seat, rank, (rated,) in zip(seats, ranks, results, strict=True):
        by_player.setdefault(seat.player_id, []).append((seat, rank, Skill(rated.mu, rated.sigma)))
    return [
        Change(
            player_id=player_id,
            seat=entries[0][0].seat,
            rank=min(e[1] for e in entries),
            before=priors[player_id],
            after=Skill(
                math.fsum(e[2].mu for e in entries) / len(entries),
                math.fsum(e[2].sigma for e in entries) / len(entries),
            ),
        )
        for player_id, entries in by_player.items()
    ]


def next_state(state: PlayerState | None, change: Change, at: datetime) -> PlayerState:
    last = state.last_played_at if state else None
    return PlayerState(
        skill=change.after,
        last_played_at=at if last is None else max(last, at),
        games=(state.games if state else 0) + 1,
    )


@dataclass(frozen=True)
class Prediction:
    win: list[float]
    #: Each player's predicted rank, and the probability that the player finishes there.
    ranks: list[tuple[int, float]]
    draw: float


def predict(skills: Sequence[Skill]) -> Prediction:
    """openskill's predictions for a table of these players (one team each).

    The predicted ranks are openskill's (``predict_rank``: by win probability, equal ones
    sharing a rank). Its probabilities are not used: they are the normalised win shares,
    ``predict_win``'s numbers again. Each rank's probability is :func:`place_probabilities`'
    instead: how likely the player is to finish in that place.
    """
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    win = MODEL.predict_win(teams)
    places = place_probabilities(win)
    return Prediction(
        win=win,
        ranks=[
            (int(rank), places[player][int(rank) - 1])
            for player, (rank, _) in enumerate(MODEL.predict_rank(teams))
        ],
        draw=MODEL.predict_draw(teams),
    )


def place_probabilities(win: Sequence[float]) -> list[list[float]]:
    """``[player][place - 1]``: how likely each player is to finish in each place, when
    ``win`` are the players' probabilities of finishing first.

    The Plackett-Luce ranking (the model's namesake): the first place goes to a player with
    its win probability, each next place to one of the players not yet placed in proportion
    to their win probabilities. So a ranking's probability is the product, place by place,
    of the placed player's share among those left, and the first place's probabilities are
    ``win`` itself. Summed over the sets of players placed before (2^n of them, n the
    players at the table).
    """
    n = len(win)
    places = [[0.0] * n for _ in range(n)]
    # The probability that the first len(placed) places went to the players of ``placed``
    # (a bit set), in any order.
    before = {0: 1.0}
    for place in range(n):
        after: dict[int, float] = {}
        for placed, chance in before.items():
            left = [player for player in range(n) if not placed >> player & 1]
            total = math.fsum(win[player] for player in left)
            for player in left:
                share = win[player] / total if total > 0 else 1 / len(left)
                places[player][place] += chance * share
                now_placed = placed | 1 << player
                after[now_placed] = after.get(now_placed, 0.0) + chance * share
        before = after
    return places
