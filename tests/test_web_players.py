"""The leaderboard and the player profiles as a browser gets them (docs/web.md "Leaderboard,
profiles and bots"): the same rows, in the same order, as the API's
``GET /api/v1/ratings?pool=``, ``GET /api/v1/players/{u}/ratings`` and
``GET /api/v1/players/{u}/games``.

Pages are read with Django's test Client; rows are found by their hooks
(``tr[data-username]``, ``tr[data-game-id]``, the chart's ``data-point``), never by wording.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import timedelta
from itertools import pairwise
from typing import Any

import pytest
from django.template.defaultfilters import floatformat
from django.test import Client
from django.utils import timezone

from accounts.models import Player
from ratings import services as ratings
from ratings.models import Rating
from tests.rating_helpers import finished_game, new_players
from web import charts
from web.views import players as player_pages

pytestmark = pytest.mark.django_db

# The pages' letters for mu and sigma, and the dash of a rank not given.
MU, SIGMA, DASH = "\u03bc", "\u03c3", "\u2013"

ROW = re.compile(r'<tr data-(username|game-id)="([^"]*)"([^>]*)>(.*?)</tr>', re.S)


@dataclass(frozen=True)
class Row:
    key: str
    attributes: str
    inner: str


def rows(page: str, hook: str) -> list[Row]:
    """The page's ``<tr data-{hook}="...">`` rows, in page order."""
    return [
        Row(html.unescape(key), attributes, inner)
        for found, key, attributes, inner in ROW.findall(page)
        if found == hook
    ]


def get_page(client: Client, path: str, status: int = 200) -> str:
    response = client.get(path)
    assert response.status_code == status, (path, response.status_code)
    assert response["Content-Type"].startswith("text/html")
    return response.content.decode()


def api(client: Client, path: str) -> dict[str, Any]:
    response = client.get(f"/api/v1{path}")
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    return body


@pytest.fixture
def client() -> Client:
    # An address of its own: anonymous API callers are rate-limited per address.
    return Client(REMOTE_ADDR="198.51.100.31")


@dataclass(frozen=True)
class Played:
    players: list[Player]
    rated: list[int]  # rated games of the classic pool, in the order played
    race: int  # a rated game of the race pool
    casual: int  # an unrated classic game


@pytest.fixture
def played() -> Played:
    """Four people: three rated classic games and one unrated, one rated game of the race
    pool; every one of them is still provisional."""
    players = new_players("webp", 4)
    ann, bob, cy, dee = players
    rated = []
    for seed, seated in enumerate([[ann, bob, cy], [bob, cy, dee], [ann, cy, dee]]):
        game = finished_game(list(seated), seed)
        ratings.rate_game(game.pk)
        rated.append(game.pk)
    casual = finished_game([ann, bob, dee], 7, rated=False).pk
    race = finished_game([ann, bob, cy], 3, rules={"preset": "9-5-2", "max_hands": 1})
    ratings.rate_game(race.pk)
    return Played(players, rated, race.pk, casual)


def establish(names_and_ratings: list[tuple[str, float, float]]) -> list[Player]:
    """Established classic players (sigma under the provisional bar), active yesterday."""
    found = new_players("estab", len(names_and_ratings))
    yesterday = timezone.now() - timedelta(days=1)
    Rating.objects.bulk_create(
        Rating(player=p, pool="classic", mu=mu, sigma=sigma, games=30, last_played_at=yesterday)
        for p, (_, mu, sigma) in zip(found, names_and_ratings, strict=True)
    )
    return found


# --- The leaderboard ------------------------------------------------------------------------


def test_it_lists_the_ranking_in_the_apis_order_then_the_provisional_players_marked(
    client: Client, played: Played
) -> None:
    establish([("low", 24.0, 2.0), ("high", 31.0, 1.5), ("mid", 28.0, 2.5)])
    ranked = [e["username"] for e in api(client, "/ratings?pool=classic")["results"]]
    provisional = [
        e["username"] for e in api(client, "/ratings?pool=classic&list=provisional")["results"]
    ]
    assert len(ranked) == 3 and len(provisional) == 4

    page = get_page(client, "/leaderboard?pool=classic")
    shown = rows(page, "username")

    assert [r.key for r in shown] == ranked + provisional
    for row in shown[:3]:
        assert "provisional" not in row.attributes + row.inner
        assert f'href="/players/{row.key}"' in row.inner
    for row in shown[3:]:
        assert 'data-provisional="true"' in row.attributes
        assert 'class="badge provisional"' in row.inner
        assert f'href="/players/{row.key}"' in row.inner
    # The default pool is classic.
    assert [r.key for r in rows(get_page(client, "/leaderboard"), "username")] == [
        r.key for r in shown
    ]


def test_it_shows_rank_display_rating_and_games_with_a_question_mark_while_provisional(
    client: Client, played: Played
) -> None:
    (top,) = establish([("top", 30.0, 2.0)])
    entries = api(client, "/ratings?pool=classic")["results"]
    entries += api(client, "/ratings?pool=classic&list=provisional")["results"]

    shown = rows(get_page(client, "/leaderboard"), "username")

    assert [r.key for r in shown] == [e["username"] for e in entries]
    assert shown[0].key == top.username
    for row, entry in zip(shown, entries, strict=True):
        assert f'data-rating="{entry["display_rating"]}"' in row.attributes
        cells = re.findall(r"<td([^>]*)>(.*?)</td>", row.inner, re.S)
        text = [re.sub(r"<[^>]+>", "", c).strip() for _, c in cells]
        mark = "?" if entry["provisional"] else ""
        assert text[0] == (DASH if entry["provisional"] else str(entry["rank"]))
        assert text[2:] == [f"{entry['display_rating']}{mark}", str(entry["games"])]
        # mu and sigma on the rating's details (its title).
        title = html.unescape(cells[2][0])
        assert f"{MU} {entry['mu']:.2f}, {SIGMA} {entry['sigma']:.2f}" in title
    for entry in entries:
        assert entry["display_rating"] == 1500 + round(25 * entry["ordinal"])


def test_it_shows_each_pool_apart_and_marks_bots(client: Client, played: Played) -> None:
    race = [e["username"] for e in api(client, "/ratings?pool=race&list=provisional")["results"]]

    shown = rows(get_page(client, "/leaderboard?pool=race"), "username")

    assert [r.key for r in shown] == race
    assert set(race) == {p.username for p in played.players[:3]}
    bot = Player.objects.create(username="webp-robot", is_bot=True)
    Rating.objects.create(
        player=bot, pool="race", mu=20.0, sigma=7.0, games=1, last_played_at=timezone.now()
    )
    (robot,) = [r for r in rows(get_page(client, "/leaderboard?pool=race"), "username")
                if r.key == "webp-robot"]  # fmt: skip
    assert 'class="badge bot"' in robot.inner


def test_it_pages_a_long_leaderboard_keeping_the_pool(
    client: Client, played: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(player_pages, "LEADERBOARD_PAGE_SIZE", 3)
    establish([("a", 30.0, 2.0), ("b", 29.0, 2.0)])
    everyone = [
        e["username"]
        for which in ("ranked", "provisional")
        for e in api(client, f"/ratings?pool=classic&list={which}")["results"]
    ]
    assert len(everyone) == 6

    first = get_page(client, "/leaderboard?pool=classic")
    (next_link,) = re.findall(r'rel="next" href="([^"]+)"', first)
    second = get_page(client, f"/leaderboard{html.unescape(next_link)}")

    assert "pool=classic" in next_link and "page=2" in next_link
    assert [r.key for r in rows(first, "username") + rows(second, "username")] == everyone
    assert 'rel="next"' not in second


def test_it_answers_an_unknown_pool_with_a_404_page_naming_the_pools(client: Client) -> None:
    page = get_page(client, "/leaderboard?pool=no-such-pool", status=404)

    assert 'data-testid="unknown-pool"' in page
    assert "no-such-pool" in page
    for pool in ("classic", "race", "seventeen", "calls", "four-handed"):
        assert f'href="?pool={pool}"' in page
    assert rows(page, "username") == []


def test_it_says_so_when_nobody_is_rated_in_the_pool(client: Client) -> None:
    page = get_page(client, "/leaderboard?pool=calls")

    assert rows(page, "username") == []
    assert '<select name="pool"' in page and '<option value="calls" ' in page


# --- The profile ----------------------------------------------------------------------------


def chart_points(page: str) -> list[str]:
    (svg,) = re.findall(r'<svg class="rating-chart".*?</svg>', page, re.S)
    assert 'role="img"' in svg and "<title" in svg
    return re.findall(r'data-point="(\d+)"', svg)


def test_it_draws_one_point_per_rating_history_entry(client: Client, played: Played) -> None:
    ann = played.players[0].username
    history = api(client, f"/players/{ann}/ratings?pool=classic")["results"]
    assert len(history) == 2

    page = get_page(client, f"/players/{ann}")

    assert chart_points(page) == [str(point["game"]) for point in history]
    # The other pool on demand, keeping the history's filters.
    race_page = get_page(client, f"/players/{ann}?pool=race&result=win")
    assert chart_points(race_page) == [str(played.race)]
    assert 'name="pool"' in race_page and '<option value="race" selected>' in race_page


def test_it_shows_the_ratings_of_each_pool_as_the_profile_api_does(
    client: Client, played: Played
) -> None:
    ann = played.players[0].username
    profile = api(client, f"/players/{ann}")

    page = get_page(client, f"/players/{ann}")

    table = re.search(r'<table class="data ratings">.*?</table>', page, re.S)
    assert table is not None
    pools = re.findall(
        r'<tr data-pool="([^"]+)" data-rating="(-?\d+)"( data-provisional="true")?>(.*?)</tr>',
        table.group(0),
        re.S,
    )
    assert [p[0] for p in pools] == list(profile["ratings"]) == ["classic", "race"]
    for pool, rating, provisional, inner in pools:
        shown = profile["ratings"][pool]
        assert int(rating) == shown["display_rating"]
        assert bool(provisional) == shown["provisional"] is True
        # The display rating with its "?" (every one is provisional), and the details line
        # with mu and sigma as the page rounds them (Django's floatformat: half up).
        assert f"<strong>{shown['display_rating']}?</strong>" in inner
        mu, sigma = floatformat(shown["mu"], 2), floatformat(shown["sigma"], 2)
        assert f"{MU}&nbsp;{mu} · {SIGMA}&nbsp;{sigma}" in inner
    assert 'class="badge provisional"' in table.group(0)


def test_it_shows_no_chart_for_a_player_without_rated_games(client: Client) -> None:
    (newcomer,) = new_players("fresh", 1)

    page = get_page(client, f"/players/{newcomer.username}")

    assert "rating-chart" not in page
    assert rows(page, "game-id") == []


def test_it_answers_an_unknown_player_with_the_html_404_page(client: Client) -> None:
    page = get_page(client, "/players/nobody-at-all", status=404)

    assert "<html" in page and "<main" in page


def test_it_lists_the_history_as_the_api_does_newest_first(client: Client, played: Played) -> None:
    ann = played.players[0].username
    entries = api(client, f"/players/{ann}/games")["results"]

    shown = rows(get_page(client, f"/players/{ann}"), "game-id")

    assert [int(r.key) for r in shown] == [e["game"] for e in entries]
    assert len(shown) == 4  # two rated classic games, the casual one, the race game
    by_game = {int(r.key): r.inner for r in shown}
    for entry in entries:
        inner = by_game[entry["game"]]
        assert f'href="/games/{entry["game"]}"' in inner
        assert f'data-result="{entry["result"]}"' in inner
        for seat in entry["seats"]:
            assert seat["username"] in inner
        change = entry["rating_change"]
        if change is None:
            assert 'title="not rated"' in inner
        else:
            assert f">{change['display_rating_change']:+d}</span>" in inner
            assert f"now {change['display_rating']}<" in inner
    assert 'title="not rated"' in by_game[played.casual]


@pytest.mark.parametrize(
    "query", ["?result=win", "?result=loss", "?rules=9-5-2", "?rules=classic&result=loss"]
)
def test_it_filters_the_history_as_the_api_does(client: Client, played: Played, query: str) -> None:
    for person in played.players:
        wanted = [
            e["game"] for e in api(client, f"/players/{person.username}/games{query}")["results"]
        ]

        shown = rows(get_page(client, f"/players/{person.username}{query}"), "game-id")

        assert [int(r.key) for r in shown] == wanted, (person.username, query)


def test_it_treats_the_forms_empty_choices_as_no_filter(client: Client, played: Played) -> None:
    ann = played.players[0].username
    everything = [r.key for r in rows(get_page(client, f"/players/{ann}"), "game-id")]

    shown = rows(get_page(client, f"/players/{ann}?rules=&result="), "game-id")

    assert [r.key for r in shown] == everything


def test_it_refuses_unknown_filter_values_next_to_the_field(client: Client, played: Played) -> None:
    ann = played.players[0].username

    page = get_page(client, f"/players/{ann}?rules=no-such-preset&result=maybe", status=400)

    assert 'data-error-for="rules"' in page
    assert 'data-error-for="result"' in page
    assert rows(page, "game-id") == []


def test_it_pages_the_history_keeping_the_filters(
    client: Client, played: Played, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(player_pages, "HISTORY_PAGE_SIZE", 2)
    ann = played.players[0].username
    everything = [e["game"] for e in api(client, f"/players/{ann}/games")["results"]]
    classic = [e["game"] for e in api(client, f"/players/{ann}/games?rules=classic")["results"]]
    assert len(everything) == 4 and len(classic) == 3

    first = get_page(client, f"/players/{ann}")
    second = get_page(client, f"/players/{ann}?page=2")
    assert [int(r.key) for r in rows(first, "game-id") + rows(second, "game-id")] == everything
    assert 'rel="next" href="?page=2"' in first
    assert 'rel="prev" href="?page=1"' in second and 'rel="next"' not in second

    filtered = get_page(client, f"/players/{ann}?rules=classic")
    assert [int(r.key) for r in rows(filtered, "game-id")] == classic[:2]
    (next_link,) = re.findall(r'rel="next" href="([^"]+)"', filtered)
    next_page = get_page(client, f"/players/{ann}{html.unescape(next_link)}")
    assert "rules=classic" in next_link and "page=2" in next_link
    assert [int(r.key) for r in rows(next_page, "game-id")] == classic[2:]
    # A page past the end shows the last one; a page that is not a number, the first.
    assert rows(get_page(client, f"/players/{ann}?page=99"), "game-id") == rows(second, "game-id")
    assert rows(get_page(client, f"/players/{ann}?page=x"), "game-id") == rows(first, "game-id")


# --- The chart module -----------------------------------------------------------------------


def point(value: float, key: str = "1", label: str = "1 Jan 2026") -> charts.Point:
    return charts.Point(value=value, label=label, title=f"{value}", key=key)


def test_it_places_points_left_to_right_with_higher_values_higher() -> None:
    chart = charts.line_chart([point(0.0, "a"), point(5.0, "b"), point(2.5, "c")])

    xs = [d.x for d in chart.dots]
    ys = [d.y for d in chart.dots]
    assert xs == sorted(xs) and xs[0] == chart.left and xs[-1] == chart.right
    assert ys[1] < ys[2] < ys[0]
    assert all(chart.top <= y <= chart.bottom for y in ys)
    assert chart.path.startswith(f"M{xs[0]},{ys[0]} L")
    assert chart.path.count("L") == 2
    assert [d.key for d in chart.dots] == ["a", "b", "c"]


def test_it_chooses_round_grid_lines_around_the_values() -> None:
    chart = charts.line_chart([point(-1.2), point(7.9)])

    values = [t.value for t in chart.ticks]
    assert values[0] <= -1.2 and values[-1] >= 7.9
    steps = {round(b - a, 9) for a, b in pairwise(values)}
    assert steps == {2.5}
    assert [t.label for t in chart.ticks] == ["-2.5", "0", "2.5", "5.0", "7.5", "10.0"]
    assert charts.nice_step(0.9) == 0.25 and charts.nice_step(37) == 10


def test_it_draws_a_single_point_in_the_middle() -> None:
    chart = charts.line_chart([point(3.0)])

    (dot,) = chart.dots
    assert dot.x == (chart.left + chart.right) / 2
    assert chart.top < dot.y < chart.bottom
    assert [label.anchor for label in chart.x_labels] == ["middle"]
    with pytest.raises(ValueError):
        charts.line_chart([])
