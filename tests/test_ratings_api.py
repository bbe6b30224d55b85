"""The ratings over HTTP (docs/api.md "Players, histories, ratings"), and the leaderboard lists."""

from __future__ import annotations

import io
import math
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from openskill.models import PlackettLuce

from ratings import selectors, services, skill
from ratings.display import display_rating
from ratings.models import Rating, RatingChange
from tests.api_client import Client, error_of
from tests.conftest import LiveServer
from tests.rating_helpers import finished_game, new_players

pytestmark = pytest.mark.django_db(transaction=True)


OPENSKILL = PlackettLuce(mu=25.0, sigma=25.0 / 3.0, beta=25.0 / 6.0, tau=25.0 / 300.0)


def test_it_shows_ratings_in_the_profile_histories_and_provisional_list(
    api_server: LiveServer,
) -> None:
    players = new_players("shown", 3)
    games = [finished_game(players, seed) for seed in (1, 2)]
    for game in games:
        services.rate_game(game.pk)
    unrated = finished_game(players, 3, rated=False)
    anyone = Client(api_server.url)
    ann = Rating.objects.get(player=players[0], pool="classic")

    profile = anyone.ok("GET", f"/players/{players[0].username}")
    assert list(profile["ratings"]) == ["classic"]
    shown = profile["ratings"]["classic"]
    assert (shown["mu"], shown["sigma"], shown["games"]) == (ann.mu, ann.sigma, 2)
    assert shown["ordinal"] == pytest.approx(ann.mu - 3 * ann.sigma)
    assert shown["provisional"] is True and shown["inactive"] is False
    assert shown["display_rating"] == display_rating(shown["ordinal"])

    history = anyone.ok("GET", f"/players/{players[0].username}/games")
    by_game = {entry["game"]: entry["rating_change"] for entry in history["results"]}
    assert by_game[unrated.pk] is None
    last = RatingChange.objects.get(game=games[1], player=players[0])
    assert by_game[games[1].pk]["ordinal"] == last.ordinal_after
    assert by_game[games[1].pk]["ordinal_change"] == pytest.approx(
        last.ordinal_after - last.ordinal_before
    )
    change = by_game[games[1].pk]
    assert change["display_rating_before"] == display_rating(last.ordinal_before)
    assert change["display_rating"] == display_rating(last.ordinal_after)
    assert change["display_rating_change"] == (
        change["display_rating"] - change["display_rating_before"]
    )
    # What a game's result box reads: the same change.
    assert selectors.game_rating_change(games[1].pk, players[0].pk) == change | {
        "ordinal_change": pytest.approx(change["ordinal_change"])
    }
    assert selectors.game_rating_change(unrated.pk, players[0].pk) is None

    points = anyone.ok("GET", f"/players/{players[0].username}/ratings?pool=classic")
    assert points["count"] == 2
    assert [p["game"] for p in points["results"]] == [g.pk for g in games]
    assert points["results"][-1]["mu"] == ann.mu
    assert points["results"][-1]["sigma"] == ann.sigma
    for point in points["results"]:
        assert point["display_rating"] == display_rating(point["ordinal"])
    first, second = points["results"]
    assert first["display_rating_change"] == first["display_rating"] - 1500  # from a newcomer's
    assert second["display_rating_change"] == second["display_rating"] - first["display_rating"]
    assert anyone.ok("GET", f"/players/{players[0].username}/ratings?pool=race")["count"] == 0

    assert anyone.ok("GET", "/ratings")["count"] == 0  # nobody is established yet
    provisional = anyone.ok("GET", "/ratings?pool=classic&list=provisional")
    assert provisional["count"] == 3
    ordinals = [e["ordinal"] for e in provisional["results"]]
    assert ordinals == sorted(ordinals, reverse=True)
    assert [e["rank"] for e in provisional["results"]] == [1, 2, 3]
    assert set(provisional["results"][0]) >= {
        "rank", "username", "mu", "sigma", "ordinal", "display_rating", "games", "provisional",
    }  # fmt: skip
    for entry in provisional["results"]:
        assert entry["display_rating"] == display_rating(entry["ordinal"])


def test_it_predicts_a_table_as_openskill_does(api_server: LiveServer) -> None:
    players = new_players("predict", 3)
    services.rate_game(finished_game(players, 4).pk)
    anyone = Client(api_server.url)
    names = ",".join(p.username for p in reversed(players))

    body = anyone.ok("GET", f"/ratings/predict?pool=classic&players={names}")

    ratings = [Rating.objects.get(player=p, pool="classic") for p in reversed(players)]
    teams = [[OPENSKILL.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    assert [p["win_probability"] for p in body["players"]] == pytest.approx(
        OPENSKILL.predict_win(teams)
    )
    assert [p["predicted_rank"] for p in body["players"]] == [
        rank for rank, _ in OPENSKILL.predict_rank(teams)
    ]
    places = skill.place_probabilities(OPENSKILL.predict_win(teams))
    assert [p["rank_probability"] for p in body["players"]] == pytest.approx(
        [places[i][p["predicted_rank"] - 1] for i, p in enumerate(body["players"])]
    )
    # The weakest is likelier last than first (predicted ranks may tie after one game).
    weakest = min(range(3), key=lambda i: body["players"][i]["win_probability"])
    assert places[weakest][2] > body["players"][weakest]["win_probability"]
    assert [p["username"] for p in body["players"]] == [p.username for p in reversed(players)]
    assert math.isclose(sum(p["win_probability"] for p in body["players"]), 1.0)
    for shown, rating in zip(body["players"], ratings, strict=True):
        assert shown["display_rating"] == display_rating(rating.mu - 3 * rating.sigma)


def test_it_answers_bad_rating_requests_with_the_error_shape(api_server: LiveServer) -> None:
    (ann, bob, cy) = new_players("badreq", 3)
    anyone = Client(api_server.url)

    error_of(anyone.get("/ratings?pool=nope"), 400, "unknown_pool")
    error_of(anyone.get("/ratings?list=everyone"), 400, "invalid")
    error_of(anyone.get(f"/players/{ann.username}/ratings?pool=nope"), 400, "unknown_pool")
    error_of(anyone.get("/players/nobody-here/ratings"), 404, "not_found")
    error_of(anyone.get(f"/ratings/predict?players={ann.username},{bob.username}"), 400, "invalid")
    error_of(
        anyone.get(f"/ratings/predict?players={ann.username},{bob.username},nobody-here"),
        404,
        "not_found",
    )
    fresh = anyone.ok(
        "GET", f"/ratings/predict?players={ann.username},{bob.username},{cy.username}"
    )
    assert [p["win_probability"] for p in fresh["players"]] == pytest.approx([1 / 3] * 3)


def test_it_refuses_an_empty_pool_as_any_pool_not_in_the_schema(api_server: LiveServer) -> None:
    (ann, bob, cy) = new_players("emptypool", 3)
    anyone = Client(api_server.url)
    table = f"players={ann.username},{bob.username},{cy.username}"

    for path in (
        "/ratings?pool=",
        f"/players/{ann.username}/ratings?pool=",
        f"/ratings/predict?pool=&{table}",
        "/arena?pool=",
    ):
        error = error_of(anyone.get(path), 400, "unknown_pool")
        online = ["classic", "race", "seventeen", "calls", "four-handed"]
        # Ratings are kept in the in-person pool too; the arena plays online only.
        assert error["known"] == (online if path.startswith("/arena") else [*online, "in_person"])
        assert list(error["fields"]) == ["pool"]
    # Left out, it is the default pool.
    assert anyone.ok("GET", f"/ratings/predict?{table}")["pool"] == "classic"


def test_it_lists_established_provisional_and_inactive_players_apart() -> None:
    players = new_players("lists", 4)
    now = timezone.now()
    rows = [
        (players[0], 30.0, 2.0, now - timedelta(days=1)),  # established
        (players[1], 28.0, 1.5, now - timedelta(days=2)),  # established, higher ordinal
        (players[2], 40.0, 7.5, now),  # provisional: sigma over the bar
        (players[3], 35.0, 1.0, now - timedelta(days=200)),  # long inactive
    ]
    Rating.objects.bulk_create(
        Rating(player=p, pool="classic", mu=mu, sigma=s, games=20, last_played_at=at)
        for p, mu, s, at in rows
    )

    ranked = selectors.leaderboard("classic", "ranked", now)
    provisional = selectors.leaderboard("classic", "provisional", now)
    inactive = selectors.leaderboard("classic", "inactive", now)

    assert [(e["rank"], e["username"]) for e in ranked] == [
        (1, players[0].username),
        (2, players[1].username),
    ]
    # Shown with the idle days' growth of sigma.
    assert ranked[1]["sigma"] > 1.5
    assert [e["username"] for e in provisional] == [players[2].username]
    # Fewer rated games than the count: provisional whatever its sigma.
    Rating.objects.filter(player=players[0]).update(games=skill.PROVISIONAL_GAMES - 1)
    provisional = selectors.leaderboard("classic", "provisional", now)
    assert [e["username"] for e in provisional] == [players[0].username, players[2].username]
    assert [e["username"] for e in inactive] == [players[3].username]
    assert inactive[0]["inactive"] is True and inactive[0]["sigma"] > 5


def test_it_reports_prediction_quality_against_a_uniform_guess() -> None:
    players = new_players("quality", 3)
    for seed in range(4):
        services.rate_game(finished_game(players, seed).pk)
    out = io.StringIO()

    call_command("ratings_quality", "--pool", "classic", stdout=out)

    report = selectors.quality("classic")
    assert report.games == 4
    assert report.baseline_log_loss == pytest.approx(math.log(3))
    assert report.baseline_brier == pytest.approx(2 / 3)
    assert "log-loss" in out.getvalue() and "classic: 4 games" in out.getvalue()
