"""Guests: a visitor who plays the computer (or takes the lesson) gets a guest account tied
to the browser's session; guests are rate-limited per address, never rated, kept from what
needs an account, turned into a member in place when they sign up, and removed by beat's
task after a while unless they did (server-rendered pages and services; no browser)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts import ratelimit
from accounts.models import ApiToken, Player
from accounts.services import create_bot_player, create_guest, create_person, new_token
from challenges.services import create_challenge
from core.errors import NotAllowed
from games import guests, tables
from games.models import Game, GamePlayer, Table
from games.signals import GameFinished, SeatResult
from quickplay.services import create_seek
from ratings import receivers
from ratings import services as ratings
from ratings.models import RatedGame
from tests.rating_helpers import finished_game, new_players, play_out
from tournaments.services.setup import create_tournament
from web.views.welcome import LESSON_RULES

pytestmark = pytest.mark.django_db

PASSWORD = "a long pass phrase"
ADDRESSES = [f"10.1.0.{n}" for n in range(1, 6)]


@pytest.fixture(autouse=True)
def _fresh_limits() -> Iterator[None]:
    for address in ADDRESSES:
        ratelimit.reset(f"guest:{address}")
    yield
    for address in ADDRESSES:
        ratelimit.reset(f"guest:{address}")


def visitor(address: str = ADDRESSES[0]) -> Client:
    return Client(REMOTE_ADDR=address)


def play_computer(client: Client) -> int:
    response = client.post("/play/computer")
    assert response.status_code == 302, response.content[:500]
    found = re.fullmatch(r"/games/(\d+)", response["Location"])
    assert found, response["Location"]
    return int(found.group(1))


def test_a_visitor_who_plays_the_computer_is_seated_as_a_guest() -> None:
    client = visitor()
    assert client.get("/play/computer").status_code == 200

    game = Game.objects.get(pk=play_computer(client))

    seats = list(GamePlayer.objects.filter(game=game).order_by("seat").select_related("player"))
    guest = seats[0].player
    assert guest.is_guest and re.fullmatch(r"guest-[0-9a-f]{10}", guest.username)
    assert not guest.has_usable_password()
    assert [s.player.username for s in seats[1:]] == ["house:heuristic", "house:heuristic"]
    assert game.rated is False and game.rules["preset"] == "classic"
    assert game.rules.get("max_hands") is None  # the full game: until 12 tricks in a hand
    assert game.status == Game.Status.PLAYING
    page = client.get(f"/games/{game.pk}").content.decode()
    assert f"{guest.username} (you)" in page
    # The guest's browser session reaches the API with its cookie, to play only.
    me = client.get("/api/v1/me")
    assert me.status_code == 200 and me.json()["username"] == guest.username
    token = ApiToken.objects.get(player=guest)
    assert token.scopes == ["play"]


def test_a_short_game_against_the_computer_stops_after_three_hands() -> None:
    client = visitor()
    response = client.post("/play/computer", {"length": "short"})
    game = Game.objects.get(pk=int(response["Location"].rsplit("/", 1)[1]))
    assert game.rules["max_hands"] == 3 and game.rules["preset"] == "classic"
    assert client.post("/play/computer", {"length": "endless"}).status_code == 400


def test_a_member_plays_the_computer_as_themselves() -> None:
    create_person("mia", password=PASSWORD)
    client = visitor()
    assert client.login(username="mia", password=PASSWORD)

    game_id = play_computer(client)

    assert GamePlayer.objects.get(game_id=game_id, seat=0).player.username == "mia"
    assert not Player.objects.filter(is_guest=True).exists()


def test_a_second_game_keeps_the_same_guest() -> None:
    client = visitor()
    first, second = play_computer(client), play_computer(client)

    players = {GamePlayer.objects.get(game_id=g, seat=0).player_id for g in (first, second)}
    assert len(players) == 1
    assert Player.objects.filter(is_guest=True).count() == 1


def test_guest_accounts_are_rate_limited_per_address(settings: Any) -> None:
    settings.GUEST_CREATIONS_PER_HOUR = 2
    for _ in range(2):
        play_computer(visitor(ADDRESSES[1]))

    refused = visitor(ADDRESSES[1]).post("/play/computer")

    assert refused.status_code == 429
    assert "Too many guest accounts" in refused.content.decode()
    assert Player.objects.filter(is_guest=True).count() == 2
    # Another address is counted apart.
    play_computer(visitor(ADDRESSES[2]))
    assert Player.objects.filter(is_guest=True).count() == 3


def test_a_guest_who_signs_up_keeps_the_account_and_its_games() -> None:
    client = visitor()
    game_id = play_computer(client)
    guest = GamePlayer.objects.get(game_id=game_id, seat=0).player
    assert "You are playing as the guest" in client.get("/signup").content.decode()

    response = client.post("/signup", {"username": "newcomer", "password": PASSWORD, "email": ""})

    assert response.status_code == 302
    person = Player.objects.get(pk=guest.pk)
    assert person.username == "newcomer" and not person.is_guest
    assert person.check_password(PASSWORD)
    assert GamePlayer.objects.get(game_id=game_id, seat=0).player_id == person.pk
    assert "<dt>Playing now</dt><dd>1</dd>" in client.get("/players/newcomer").content.decode()
    # The member's session has a token of its own, with a member's scopes.
    live = ApiToken.objects.filter(player=person, revoked_at__isnull=True)
    assert [sorted(t.scopes) for t in live] == [["organise", "play"]]
    assert client.get("/api/v1/me").json()["username"] == "newcomer"


def test_a_guest_sign_up_is_checked_like_any_other() -> None:
    create_person("taken", password=PASSWORD)
    client = visitor()
    game_id = play_computer(client)
    guest = GamePlayer.objects.get(game_id=game_id, seat=0).player

    for form in (
        {"username": "Taken", "password": PASSWORD},
        {"username": "fine", "password": "1234"},
        {"username": "guest-mine", "password": PASSWORD},
    ):
        response = client.post("/signup", {**form, "email": ""})
        assert response.status_code == 400, form

    again = Player.objects.get(pk=guest.pk)
    assert again.is_guest and again.username == guest.username


def test_a_guest_plays_unrated_games_only_and_nothing_that_needs_an_account() -> None:
    guest = create_guest(address=ADDRESSES[3])
    owner = create_person("owner", password=PASSWORD)
    rated = tables.create_table(owner, rules="classic", rated=True, move_seconds=60, seat=0)
    casual = tables.create_table(owner, rules="classic", rated=False, move_seconds=60, seat=0)

    refusals = [
        lambda: tables.join_table(guest, table_id=rated.pk, seat=None),
        lambda: tables.create_table(guest, rules="classic", rated=True, move_seconds=60, seat=0),
        lambda: create_seek(guest, rules="classic", rated=True, move_seconds=60),
        lambda: create_bot_player(guest, username="guestbot"),
        lambda: new_token(guest, scopes=["play"], name="mine"),
        lambda: create_challenge(guest, to=["house:random", "house:random"], rated=False),
        lambda: create_challenge(owner, to=[guest.username, "house:random"], rated=False),
        lambda: create_tournament(guest, values={"name": "Guest cup"}),
    ]
    for refusal in refusals:
        with pytest.raises(NotAllowed):
            refusal()

    tables.join_table(guest, table_id=casual.pk, seat=None)
    assert Table.objects.get(pk=casual.pk).seats.filter(player=guest).exists()
    assert not Table.objects.filter(created_by=guest).exists()


def test_a_game_with_a_guest_is_never_rated(
    settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    settings.RATINGS_RATE_FINISHED_GAMES = True
    ann, bob, cat, dan = new_players("rg", 4)
    with_guest = finished_game([ann, bob, "house:random"], seed=3)
    without = finished_game([cat, dan, "house:random"], seed=3)
    # However a guest came to sit at a rated table, its game is not rated.
    Player.objects.filter(pk=bob.pk).update(is_guest=True)

    def finished(game: Game) -> GameFinished:
        seats = GamePlayer.objects.filter(game=game)
        standings = tuple(SeatResult(s.seat, s.player_id, s.rank or 0, s.score or 0) for s in seats)
        return GameFinished(game_id=game.pk, rated=True, standings=standings)

    with django_capture_on_commit_callbacks() as queued:
        receivers.on_game_finished(event=finished(with_guest))
    assert queued == []
    with django_capture_on_commit_callbacks() as queued:
        receivers.on_game_finished(event=finished(without))
    assert len(queued) == 1

    assert ratings.rate_game(with_guest.pk) is False
    assert ratings.rate_missed_games() == 1
    assert set(RatedGame.objects.values_list("game_id", flat=True)) == {without.pk}


def test_stale_guests_are_removed_with_the_games_only_they_played(settings: Any) -> None:
    settings.GUEST_KEEP_DAYS = 7
    old, recent, sociable, busy = (create_guest(address=ADDRESSES[4]) for _ in range(4))
    member = create_person("member", password=PASSWORD)
    finished_alone = tables.start_computer_game(old, rules=LESSON_RULES)
    play_out(finished_alone.pk, random.Random(1))
    recent_game = tables.start_computer_game(recent)
    table = tables.create_table(member, rules=LESSON_RULES, rated=False, move_seconds=60, seat=0)
    tables.join_table(sociable, table_id=table.pk, seat=1)
    tables.seat_bot(member, table_id=table.pk, bot="house:random", seat=2)
    shared = Game.objects.get(table=table)
    play_out(shared.pk, random.Random(2))
    in_play = tables.start_computer_game(busy)
    long_ago = timezone.now() - timedelta(days=8)
    Player.objects.filter(pk__in=[old.pk, sociable.pk, busy.pk]).update(date_joined=long_ago)
    Player.objects.filter(pk=recent.pk).update(date_joined=timezone.now() - timedelta(days=6))

    deleted, switched_off = guests.remove_stale_guests()

    assert (deleted, switched_off) == (1, 1)
    assert not Player.objects.filter(pk=old.pk).exists()
    assert not Game.objects.filter(pk=finished_alone.pk).exists()
    # The game with another person stays in that person's history.
    kept = Player.objects.get(pk=sociable.pk)
    assert not kept.is_active and kept.is_guest
    assert Game.objects.filter(pk=shared.pk).exists()
    # Too recent, or still playing: kept.
    assert Player.objects.filter(pk=recent.pk).exists()
    assert Game.objects.filter(pk=recent_game.pk).exists()
    assert Player.objects.filter(pk=busy.pk, is_active=True).exists()
    assert Game.objects.filter(pk=in_play.pk).exists()
    assert guests.remove_stale_guests() == (0, 0)
