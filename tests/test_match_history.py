"""Match histories and profiles (docs/api.md "Players, histories, ratings").

``GET /players/{username}/games`` lists a player's finished games newest first, filtered by
``rules`` (a preset) and ``result`` (``win``, ``shared`` or ``loss``), in pages of
``{count, next, previous, results}``; ``GET /players/{username}`` is the profile.

The games are played in process through the services from fixed deals
(``Table.deal_seed``) and fixed random actions, so each gives the same result on every
database. The API is called in process too (DRF's APIClient): the page size is DRF's
``PageNumberPagination.page_size``, read from ``REST_FRAMEWORK["PAGE_SIZE"]`` once, when
DRF's module is imported (``override_settings`` does not change it, and the view takes no
``page_size`` parameter), so the pagination test lowers it with monkeypatch, which only
reaches a server in this process.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.db import transaction
from rest_framework.pagination import PageNumberPagination
from rest_framework.test import APIClient

from accounts.models import Player
from games import tables
from games.models import Game, GamePlayer, Table
from tests.api_client import error_of
from tests.rating_helpers import new_players, play_out

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class Deal:
    """A game of one hand of ``preset``, dealt from ``history-{seed}`` and played with
    ``random.Random(seed)``; ann and bob sit in seats 0 and 1 (``ann_first``) or 1 and 0,
    ``house:random`` in the other seats. ``ann`` is ann's result ("" if she is not there)."""

    preset: str
    seed: int
    ann: str
    ann_first: bool = True


#: ann's finished games (found by playing seeds: the engine deals and plays the same on
#: every database). Each result at least once, two presets.
ANN_GAMES = [
    Deal("classic", 0, ann="win"),
    Deal("classic", 1, ann="shared", ann_first=False),  # with house:random
    Deal("classic", 2, ann="loss"),  # bob wins
    Deal("kitty-first", 0, ann="win"),
    Deal("kitty-first", 6, ann="loss"),  # bob wins
]
#: The order ANN_GAMES are played out in, after all are dealt: so newest first is not the
#: reverse of the games' ids.
FINISH_ORDER = [3, 0, 4, 2, 1]
#: bob (seat 0) alone with two house bots: not in ann's history.
BOBS_GAME = Deal("classic", 4, ann="")


def dealt_game(humans: list[Player], rules: dict[str, Any], deal_seed: str) -> int:
    """A started game with ``humans`` in the first seats and ``house:random`` in the others,
    dealt from ``deal_seed``.

    A table with a deal seed seats house bots only, so the seed is set after the humans sit.
    """
    table = tables.create_table(humans[0], rules=rules, rated=True, move_seconds=600, seat=None)
    for seat, human in enumerate(humans):
        tables.join_table(human, table_id=table.pk, seat=seat)
    Table.objects.filter(pk=table.pk).update(deal_seed=deal_seed)
    for seat in range(len(humans), table.seat_count):
        tables.seat_bot(humans[0], table_id=table.pk, bot="house:random", seat=seat)
    return Game.objects.get(table_id=table.pk).pk


def started(spec: Deal, humans: list[Player]) -> int:
    return dealt_game(humans, {"preset": spec.preset, "max_hands": 1}, f"history-{spec.seed}")


@dataclass(frozen=True)
class Histories:
    ann: Player
    bob: Player
    game_of: dict[Deal, int]  # ann's finished games
    finished: list[int]  # the same, in the order they finished
    playing: int  # a four-handed game of ann and bob still in play
    bobs_game: int

    def newest_first(self, wanted: list[Deal]) -> list[int]:
        """The games of ``wanted``, newest first."""
        ids = {self.game_of[d] for d in wanted}
        return [g for g in reversed(self.finished) if g in ids]


@pytest.fixture(scope="module")
def made_histories(django_db_setup: Any, django_db_blocker: Any) -> Iterator[Histories]:
    """The games, played once for the module (a few seconds): inside a transaction rolled
    back after the module's last test, as each test's own transaction is a savepoint in it
    that is rolled back after the test (what Django's ``setUpTestData`` does for a class)."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield play_histories()
        transaction.set_rollback(True)


@pytest.fixture
def histories(made_histories: Histories) -> Histories:
    """The module's games; the players a copy of their own for each test."""
    return copy.deepcopy(made_histories)


def play_histories() -> Histories:
    ann, bob = new_players("hist", 2)
    game_of = {d: started(d, [ann, bob] if d.ann_first else [bob, ann]) for d in ANN_GAMES}
    finished = [game_of[ANN_GAMES[i]] for i in FINISH_ORDER]
    for game_id, index in zip(finished, FINISH_ORDER, strict=True):
        play_out(game_id, random.Random(ANN_GAMES[index].seed))
    bobs_game = started(BOBS_GAME, [bob])
    play_out(bobs_game, random.Random(BOBS_GAME.seed))
    playing = dealt_game([ann, bob], {"preset": "four-handed", "max_hands": 1}, "history-live")

    results = {gp.game_id: gp.result for gp in GamePlayer.objects.filter(player=ann)}
    # The setup's own check: if the engine deals or plays differently, pick other seeds.
    assert {d: results[g] for d, g in game_of.items()} == {d: d.ann for d in ANN_GAMES}
    assert list(reversed(finished)) != sorted(finished, reverse=True)
    return Histories(ann, bob, game_of, finished, playing, bobs_game)


@pytest.fixture
def api() -> APIClient:
    # An address of its own: anonymous callers are rate-limited per address.
    return APIClient(REMOTE_ADDR="198.51.100.17")


def history(api: APIClient, query: str = "", username: str = "hist0") -> dict[str, Any]:
    response = api.get(f"/api/v1/players/{username}/games{query}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == ["count", "next", "previous", "results"]
    return dict(body)


def game_ids(body: dict[str, Any]) -> list[int]:
    return [entry["game"] for entry in body["results"]]


def test_it_lists_the_players_finished_games_newest_first(
    api: APIClient, histories: Histories
) -> None:
    body = history(api)

    assert body["count"] == len(ANN_GAMES)
    assert (body["next"], body["previous"]) == (None, None)
    assert game_ids(body) == list(reversed(histories.finished))
    finished_at = [datetime.fromisoformat(entry["finished_at"]) for entry in body["results"]]
    assert finished_at == sorted(finished_at, reverse=True)
    assert histories.playing not in game_ids(body)
    assert histories.bobs_game not in game_ids(body)


def test_it_shows_each_game_as_it_ended_for_the_player(
    api: APIClient, histories: Histories
) -> None:
    entries = {entry["game"]: entry for entry in history(api)["results"]}

    for game_id, entry in entries.items():
        rows = list(GamePlayer.objects.filter(game_id=game_id).select_related("player"))
        (own,) = (gp for gp in rows if gp.player == histories.ann)
        assert (entry["seat"], entry["rank"], entry["score"], entry["result"]) == (
            own.seat,
            own.rank,
            own.score,
            own.result,
        )
        assert entry["rules"] == Game.objects.get(pk=game_id).rules
        assert [(s["seat"], s["username"], s["rank"], s["score"]) for s in entry["seats"]] == [
            (gp.seat, gp.player.username, gp.rank, gp.score)
            for gp in sorted(rows, key=lambda gp: gp.seat)
        ]
        assert "rating_change" in entry


def test_it_filters_by_preset(api: APIClient, histories: Histories) -> None:
    for preset in ("classic", "kitty-first"):
        body = history(api, f"?rules={preset}")

        expected = histories.newest_first([d for d in ANN_GAMES if d.preset == preset])
        assert game_ids(body) == expected, preset
        assert body["count"] == len(expected)
        assert {entry["rules"]["preset"] for entry in body["results"]} == {preset}


def test_it_lists_nothing_for_a_preset_the_player_finished_no_game_of(
    api: APIClient, histories: Histories
) -> None:
    # ann has a four-handed game in play only.
    body = history(api, "?rules=four-handed")

    assert (body["count"], body["results"]) == (0, [])


def test_it_refuses_an_unknown_preset_with_400_invalid(
    api: APIClient, histories: Histories
) -> None:
    # A misspelt preset must not look like a player who never played it.
    for preset in ("no-such-preset", "Classic", ""):
        response = api.get(f"/api/v1/players/hist0/games?rules={preset}")

        error = error_of(response, 400, "invalid")
        assert "classic" in error["message"], preset


def test_it_filters_by_result(api: APIClient, histories: Histories) -> None:
    for result in ("win", "shared", "loss"):
        body = history(api, f"?result={result}")

        expected = histories.newest_first([d for d in ANN_GAMES if d.ann == result])
        assert expected
        assert game_ids(body) == expected, result
        assert body["count"] == len(expected)
        assert {entry["result"] for entry in body["results"]} == {result}


def test_it_combines_the_two_filters(api: APIClient, histories: Histories) -> None:
    for query, preset, result in [
        ("?rules=classic&result=loss", "classic", "loss"),
        ("?result=win&rules=kitty-first", "kitty-first", "win"),
        ("?rules=kitty-first&result=shared", "kitty-first", "shared"),
    ]:
        body = history(api, query)

        wanted = [d for d in ANN_GAMES if d.preset == preset and d.ann == result]
        assert game_ids(body) == histories.newest_first(wanted), query
        assert body["count"] == len(wanted)


def test_it_keeps_each_players_own_result(api: APIClient, histories: Histories) -> None:
    bobs = {entry["game"]: entry["result"] for entry in history(api, username="hist1")["results"]}
    bob_wins = history(api, "?result=win", username="hist1")

    assert set(bobs) == {*histories.finished, histories.bobs_game}
    classic_2 = histories.game_of[ANN_GAMES[2]]  # ann lost it to bob
    assert bobs[classic_2] == "win"
    assert classic_2 in game_ids(bob_wins)
    assert classic_2 not in game_ids(history(api, "?result=win"))


def test_it_refuses_an_unknown_result_with_400_invalid(
    api: APIClient, histories: Histories
) -> None:
    for result in ("draw", "WIN", "wins", ""):
        response = api.get(f"/api/v1/players/hist0/games?result={result}")

        error = error_of(response, 400, "invalid")
        assert "win, shared or loss" in error["message"]


def test_it_pages_the_history_with_next_and_previous_links(
    api: APIClient, histories: Histories, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PageNumberPagination, "page_size", 2)
    pages = []
    path: str | None = "/api/v1/players/hist0/games"
    while path is not None:
        response = api.get(path)
        assert response.status_code == 200, response.content
        pages.append(response.json())
        link = pages[-1]["next"]
        path = None if link is None else urlsplit(link).path + "?" + urlsplit(link).query

    assert [len(page["results"]) for page in pages] == [2, 2, 1]
    assert {page["count"] for page in pages} == {len(ANN_GAMES)}
    assert [g for page in pages for g in game_ids(page)] == list(reversed(histories.finished))
    assert pages[0]["previous"] is None
    assert pages[1]["previous"].endswith("/api/v1/players/hist0/games")  # page 1, unnamed
    assert pages[2]["previous"].endswith("/api/v1/players/hist0/games?page=2")
    assert pages[1]["next"].endswith("/api/v1/players/hist0/games?page=3")
    for page in ("4", "0", "two"):
        error_of(api.get(f"/api/v1/players/hist0/games?page={page}"), 404, "not_found")


def test_it_keeps_the_filters_in_the_page_links(
    api: APIClient, histories: Histories, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(PageNumberPagination, "page_size", 2)

    first = history(api, "?rules=classic")
    second = history(api, "?rules=classic&page=2")

    assert first["count"] == second["count"] == 3
    query = urlsplit(first["next"]).query
    assert sorted(query.split("&")) == ["page=2", "rules=classic"]
    assert game_ids(first) + game_ids(second) == histories.newest_first(
        [d for d in ANN_GAMES if d.preset == "classic"]
    )
    assert second["next"] is None
    assert urlsplit(second["previous"]).query == "rules=classic"


def test_it_has_one_page_of_50_and_no_page_after_it(api: APIClient, histories: Histories) -> None:
    assert settings.REST_FRAMEWORK["PAGE_SIZE"] == PageNumberPagination.page_size == 50

    assert (history(api)["next"], history(api)["previous"]) == (None, None)
    error_of(api.get("/api/v1/players/hist0/games?page=2"), 404, "not_found")
    # A filter nothing matches still has its first page, empty.
    assert history(api, "?rules=four-handed&page=1")["results"] == []
    error_of(api.get("/api/v1/players/hist0/games?rules=four-handed&page=2"), 404, "not_found")


def test_it_shows_the_profile_with_games_played_won_and_in_progress(
    api: APIClient, histories: Histories
) -> None:
    ann = api.get("/api/v1/players/hist0").json()
    bob = api.get("/api/v1/players/hist1").json()

    ann_firsts = sum(1 for d in ANN_GAMES if d.ann in ("win", "shared"))  # ranked first
    assert (ann["username"], ann["is_bot"], ann["owner"]) == ("hist0", False, None)
    assert (ann["games_played"], ann["games_won"], ann["games_in_progress"]) == (5, ann_firsts, 1)
    assert ann_firsts == 3
    bob_firsts = GamePlayer.objects.filter(player=histories.bob, rank=1).count()
    assert (bob["games_played"], bob["games_won"], bob["games_in_progress"]) == (
        6,
        bob_firsts,
        1,
    )


def test_it_answers_404_for_an_unknown_or_deactivated_player(
    api: APIClient, histories: Histories
) -> None:
    paths = ["/api/v1/players/{name}", "/api/v1/players/{name}/games"]
    for path in paths:
        error_of(api.get(path.format(name="nobody-here")), 404, "not_found")
        assert api.get(path.format(name="hist0")).status_code == 200

    Player.objects.filter(pk=histories.ann.pk).update(is_active=False)

    for path in paths:
        error_of(api.get(path.format(name="hist0")), 404, "not_found")
