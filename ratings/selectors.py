"""Reads: current ratings (inactivity applied up to now), leaderboards, histories,
predictions, and the quality report of the model on the stored games."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import Player
from accounts.selectors import active_player
from core.errors import Invalid
from games.models import GamePlayer
from ratings import skill
from ratings.display import display_rating
from ratings.models import Rating, RatingChange
from ratings.pools import DEFAULT_POOL, IN_PERSON_POOL, POOLS, RATED_POOLS, pool_of, table_size
from ratings.replay import Replay, stored_games

LISTS = ("ranked", "provisional", "inactive")


def valid_pool(pool: str | None, *, known: Sequence[str] = POOLS) -> str:
    """``pool`` if it names one of the ``known`` rating pools (the online ones unless told:
    the arena and the pages go by presets), the default pool if it is None (left out); else
    400 ``unknown_pool``, the empty name too (``?pool=``: the schema's enum refuses it)."""
    if pool is None:
        return DEFAULT_POOL
    if pool not in known:
        message = f"No rating pool '{pool}'." if pool else "The pool's name is empty."
        raise Invalid("unknown_pool", message, known=list(known), fields={"pool": [message]})
    return pool


@dataclass(frozen=True)
class Current:
    """A stored rating as shown at ``now``: inactivity applied, status flags."""

    skill: skill.Skill
    games: int
    last_played_at: datetime | None
    provisional: bool
    inactive: bool

    def data(self) -> dict[str, Any]:
        return {
            "mu": self.skill.mu,
            "sigma": self.skill.sigma,
            "ordinal": self.skill.ordinal,
            "display_rating": display_rating(self.skill.ordinal),
            "games": self.games,
            "provisional": self.provisional,
            "inactive": self.inactive,
            "last_played_at": self.last_played_at,
        }


def current(
    mu: float, sigma: float, games: int, last_played_at: datetime | None, now: datetime
) -> Current:
    state = skill.PlayerState(skill.Skill(mu, sigma), last_played_at, games)
    shown = skill.with_inactivity(state, now)
    return Current(
        skill=shown,
        games=games,
        last_played_at=last_played_at,
        provisional=skill.is_provisional(shown, games),
        inactive=skill.is_inactive(state, now),
    )


def current_rating(player_id: int, pool: str, now: datetime | None = None) -> Current:
    """A player's rating in ``pool`` now (a newcomer's when never rated there)."""
    row = Rating.objects.filter(player_id=player_id, pool=pool, games__gt=0).first()
    if row is None:
        return Current(skill.NEWCOMER, 0, None, provisional=True, inactive=False)
    return current(row.mu, row.sigma, row.games, row.last_played_at, now or timezone.now())


def profile_ratings(found: Player) -> dict[str, Any]:
    """The profile's ``ratings``: ``{pool: {mu, sigma, ordinal, display_rating, games,
    provisional, ...}}``."""
    now = timezone.now()
    rows = Rating.objects.filter(player=found, games__gt=0).order_by("pool")
    return {
        "ratings": {
            row.pool: current(row.mu, row.sigma, row.games, row.last_played_at, now).data()
            for row in rows
        }
    }


def change_data(change: RatingChange) -> dict[str, Any]:
    before = display_rating(change.ordinal_before)
    after = display_rating(change.ordinal_after)
    return {
        "pool": change.pool,
        "mu_before": change.mu_before,
        "sigma_before": change.sigma_before,
        "ordinal_before": change.ordinal_before,
        "display_rating_before": before,
        "mu": change.mu_after,
        "sigma": change.sigma_after,
        "ordinal": change.ordinal_after,
        "display_rating": after,
        "ordinal_change": change.ordinal_after - change.ordinal_before,
        "display_rating_change": after - before,
    }


def game_rating_change(game_id: int, player_id: int) -> dict[str, Any] | None:
    """What game ``game_id`` did to the player's rating (:func:`change_data`), None while it
    is not rated: the display ratings before and after are what a game's result box shows."""
    change = RatingChange.objects.filter(game_id=game_id, player_id=player_id).first()
    return None if change is None else change_data(change)


def game_result_rating(game_id: int, player_id: int) -> dict[str, Any] | None:
    """A game's result box's rating line for one player: the display ratings before and
    after the game and whether each was provisional (the rated games the player had in the
    pool before and after it); None while the game is not rated (or not yet)."""
    change = RatingChange.objects.filter(game_id=game_id, player_id=player_id).first()
    if change is None:
        return None
    # Changes are written in the order games are rated: the earlier ones are the games before.
    before = RatingChange.objects.filter(
        player_id=player_id, pool=change.pool, id__lt=change.id
    ).count()
    return {
        "pool": change.pool,
        "before": display_rating(change.ordinal_before),
        "after": display_rating(change.ordinal_after),
        "provisional_before": skill.is_provisional(
            skill.Skill(change.mu_before, change.sigma_before), before
        ),
        "provisional_after": skill.is_provisional(
            skill.Skill(change.mu_after, change.sigma_after), before + 1
        ),
    }


def history_rating_changes(rows: list[GamePlayer]) -> dict[int, dict[str, Any]]:
    """The match history's ``rating_change`` for a page of one player's GamePlayer rows."""
    wanted = {(gp.game_id, gp.player_id) for gp in rows}
    if not wanted:
        return {}
    changes = RatingChange.objects.filter(
        game_id__in={g for g, _ in wanted}, player_id__in={p for _, p in wanted}
    )
    return {
        c.game_id: {"rating_change": change_data(c)}
        for c in changes
        if (c.game_id, c.player_id) in wanted
    }


def leaderboard(
    pool: str, which: str = "ranked", now: datetime | None = None
) -> list[dict[str, Any]]:
    """One of the pool's lists, by ordinal (inactivity applied), best first.

    ``ranked``: established players active in the last INACTIVE_DAYS; ``provisional``: active
    players whose rating is still provisional; ``inactive``: everyone else.
    """
    return leaderboards(pool, now)[which]


def leaderboards(
    pool: str, now: datetime | None = None, *, player_ids: Collection[int] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """The pool's three lists (see :func:`leaderboard`) from one read of its ratings; of
    ``player_ids`` only when given (a club's members), ranked among themselves."""
    now = now or timezone.now()
    found = Rating.objects.filter(pool=pool, games__gt=0, player__is_active=True)
    if player_ids is not None:
        found = found.filter(player_id__in=player_ids)
    rows = found.values_list(
        "player__username", "player__is_bot", "mu", "sigma", "games", "last_played_at"
    )
    lists: dict[str, list[dict[str, Any]]] = {"ranked": [], "provisional": [], "inactive": []}
    for username, is_bot, mu, sigma, games, last_played_at in rows:
        shown = current(mu, sigma, games, last_played_at, now)
        kind = "inactive" if shown.inactive else "provisional" if shown.provisional else "ranked"
        lists[kind].append({"username": username, "is_bot": is_bot, **shown.data()})
    for kind, entries in lists.items():
        entries.sort(key=lambda e: (-e["ordinal"], -e["mu"], e["username"]))
        lists[kind] = [{"rank": i, **entry} for i, entry in enumerate(entries, start=1)]
    return lists


def members_leaderboard(
    pool: str | None, which: str, player_ids: Collection[int]
) -> list[dict[str, Any]]:
    """The list ``which`` of the leaderboard of ``pool`` (the default pool if None; any pool
    the site's leaderboard takes, else 400 ``unknown_pool``) of these players only: a club's
    leaderboard."""
    return leaderboards(valid_pool(pool, known=RATED_POOLS), player_ids=player_ids)[which]


def display_ratings(player_ids: Sequence[int]) -> dict[int, dict[str, int]]:
    """Each player's display rating (inactivity applied) in every pool it is rated in."""
    now = timezone.now()
    rows = Rating.objects.filter(player_id__in=player_ids, games__gt=0).order_by("pool")
    shown: dict[int, dict[str, int]] = {}
    for row in rows:
        rating = current(row.mu, row.sigma, row.games, row.last_played_at, now)
        shown.setdefault(row.player_id, {})[row.pool] = display_rating(rating.skill.ordinal)
    return shown


def rating_history(username: str, *, pool: str) -> QuerySet[RatingChange]:
    """A player's rating after each rated game of ``pool``, oldest first."""
    found = active_player(username)
    return RatingChange.objects.filter(player=found, pool=pool).order_by("at", "game_id")


#: What :func:`history_point` reads of a rating change, in order.
POINT_FIELDS = (
    "game_id",
    "at",
    "mu_after",
    "sigma_after",
    "ordinal_after",
    "ordinal_before",
    "rank",
)


def history_point(change: RatingChange) -> dict[str, Any]:
    return _point(*(getattr(change, name) for name in POINT_FIELDS))


def history_points(username: str, *, pool: str) -> list[dict[str, Any]]:
    """Every point of :func:`rating_history` (as :func:`history_point` makes it) without
    building a model per game: a chart of a thousand games reads them all."""
    rows = rating_history(username, pool=pool).values_list(*POINT_FIELDS)
    return [_point(*row) for row in rows]


def _point(
    game: int, at: datetime, mu: float, sigma: float, ordinal: float, before: float, rank: int
) -> dict[str, Any]:
    shown = display_rating(ordinal)
    return {
        "game": game,
        "at": at,
        "mu": mu,
        "sigma": sigma,
        "ordinal": ordinal,
        "ordinal_change": ordinal - before,
        "display_rating": shown,
        "display_rating_change": shown - display_rating(before),
        "rank": rank,
    }


def prediction(pool: str, usernames: Sequence[str]) -> dict[str, Any]:
    """Win and rank probabilities for a prospective table of ``usernames`` in ``pool``."""
    size = table_size(pool)
    if len(usernames) != size:
        raise Invalid(
            "invalid",
            f"A table of pool '{pool}' seats {size} players; {len(usernames)} given.",
            fields={"players": [f"{size} comma-separated usernames"]},
        )
    now = timezone.now()
    shown = [current_rating(active_player(name).pk, pool, now) for name in usernames]
    predicted = skill.predict([s.skill for s in shown])
    return {
        "pool": pool,
        "draw_probability": predicted.draw,
        "players": [
            {
                "username": name,
                **s.data(),
                "win_probability": win,
                "predicted_rank": rank,
                "rank_probability": rank_probability,
            }
            for name, s, win, (rank, rank_probability) in zip(
                usernames, shown, predicted.win, predicted.ranks, strict=True
            )
        ],
    }


@dataclass(frozen=True)
class Quality:
    """How well the ratings before each game predicted its winner (and a uniform guess)."""

    pool: str
    games: int
    decided: int
    log_loss: float
    brier: float
    accuracy: float
    baseline_log_loss: float
    baseline_brier: float
    baseline_accuracy: float


def quality(pool: str) -> Quality:
    """Replay the pool's games in completion order; score each prediction before rating.

    Only games with a single winner (one seat ranked first) are scored. Log-loss is
    -ln p(winner); Brier is the sum over seats of (p - outcome)²; top-1 accuracy counts 1/k
    when the winner is among k seats tied for the highest probability.
    """
    replay = Replay()
    games = decided = 0
    sums = [0.0] * 6
    for game in stored_games(pool):
        games += 1
        ranks = skill.rating_ranks(game.seats)
        if ranks.count(1) == 1:
            decided += 1
            winner = ranks.index(1)
            priors = [
                skill.with_inactivity(replay.states.get(s.player_id), game.finished_at)
                for s in game.seats
            ]
            p = skill.predict(priors).win
            n = len(p)
            best = max(p)
            favourites = [i for i, q in enumerate(p) if q == best]
            sums[0] += -math.log(max(p[winner], 1e-15))
            sums[1] += sum((q - (i == winner)) ** 2 for i, q in enumerate(p))
            sums[2] += (winner in favourites) / len(favourites)
            sums[3] += math.log(n)
            sums[4] += (n - 1) / n
            sums[5] += 1 / n
        replay.apply(game)
    mean = [s / decided if decided else math.nan for s in sums]
    return Quality(pool, games, decided, *mean)


def seeding_ratings(
    players: Sequence[Player], rules: Mapping[str, Any], *, venue: str = "online"
) -> dict[int, float]:
    """Ordinals (mu - 3 sigma, inactivity applied) in the pool of ``rules`` (of games at
    real tables for an ``in_person`` venue) of the players rated there; for tournament
    seeding and rating-range entry limits."""
    now = timezone.now()
    pool = IN_PERSON_POOL if venue == "in_person" else pool_of(rules)
    rows = Rating.objects.filter(player_id__in=[p.pk for p in players], pool=pool, games__gt=0)
    return {
        row.player_id: current(row.mu, row.sigma, row.games, row.last_played_at, now).skill.ordinal
        for row in rows
    }
