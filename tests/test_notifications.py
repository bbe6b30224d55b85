"""What waits on a person (docs/api.md "Notifications", docs/web.md "The notification
bell"): the one selector, the API's ``GET /notifications``, the bell on every page with its
forms (answered without JavaScript, back to the page the person was on), and the bell's live
feed, one per person per process, which never carries another person's items."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from django.db import transaction
from django.test import Client

from accounts.models import Player
from accounts.services import create_bot_player, register_player
from challenges import services as challenges
from challenges.models import Challenge
from clubs import services as clubs
from clubs.models import ClubInvitation, JoinRequest
from games import play
from games.engine import Game as Engine
from games.models import Game
from games.tables import start_seated_game
from notifications import live
from notifications.selectors import CHUNK, waiting_on
from realtime import delivery
from realtime.delivery import feeds
from tests.conftest import LiveServer
from tests.live_client import LiveReader, Message
from tests.tournament_helpers import PASSWORD, new_tournament
from tournaments.models import Entrant, Invitation, Tournament, TournamentTable
from tournaments.services import entries, running, table_results


def person(name: str) -> Player:
    return register_player(name, password=PASSWORD)[0]


def signed_in(who: Player) -> Client:
    client = Client(REMOTE_ADDR="198.51.100.47")
    client.force_login(who)
    return client


def kinds(player: Player) -> list[tuple[str, int]]:
    return [(n.kind, n.id) for n in waiting_on([player.pk])[player.pk]]


def game_with(*players: Player) -> Game:
    return start_seated_game(
        players[0], rules="classic", rated=False, move_seconds=600, players=players
    )


def move_once(game_id: int) -> None:
    """The seat to act plays the engine's fallback action (its timeout move)."""
    game = Game.objects.get(pk=game_id)
    engine = Engine.from_json(game.state)
    seat = engine.to_act()[0]
    action = engine.fallback_action(seat).to_dict()
    play.act_for_seat(game_id, seat=seat, action=action, expected_version=game.version)


def bell_of(page: str) -> tuple[int, list[tuple[str, int]]]:
    """The bell's count and items as a page shows them."""
    found = re.search(r'<details id="notifications"[^>]*data-count="(\d+)"', page)
    assert found, "no bell on the page"
    part = page[found.start() : page.index("</details>", found.start())]
    items = [(k, int(i)) for k, i in re.findall(r'data-kind="(\w+)" data-id="(\d+)"', part)]
    return int(found.group(1)), items


# --- The selector -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_it_lists_each_kind_of_item_for_its_person_only() -> None:
    ann, bob, cat, olga = person("nann"), person("nbob"), person("ncat"), person("nolga")
    annbot, _ = create_bot_player(ann, username="nannbot")
    # A game of ann, bob and a house bot: whoever is to act has the turn, the others not.
    game = game_with(ann, bob, Player.objects.get_or_create(username="house:random")[0])
    to_act = game.acting_identity(game.to_act[0])[0]
    # bob challenges ann and cat; cat invites ann and ann's bot to a tournament.
    challenge = challenges.create_challenge(bob, to=["nann", "ncat"], move_seconds=600)
    cup = new_tournament(cat, [])
    invitation = entries.add_entrant(cat, tournament_id=cup.pk, username="nann")
    bot_invitation = entries.add_entrant(cat, tournament_id=cup.pk, username="nannbot")
    assert isinstance(invitation, Invitation) and isinstance(bot_invitation, Invitation)

    found = waiting_on([ann.pk, bob.pk, cat.pk, olga.pk, annbot.pk])

    turn = [("turn", game.pk)]
    assert [(n.kind, n.id) for n in found[ann.pk]] == [
        *(turn if to_act == ann.pk else []),
        ("challenge", challenge.pk),
        ("invitation", invitation.pk),
        ("invitation", bot_invitation.pk),
    ]
    # The bot's invitation is its owner's to answer: named as the bot, by who invited.
    bots = found[ann.pk][-1]
    assert (bots.player, bots.by, bots.tournament, bots.tournament_name) == (
        "nannbot",
        "ncat",
        cup.pk,
        "Club night",
    )
    assert found[ann.pk][-2].player == "nann"
    challenged = next(n for n in found[ann.pk] if n.kind == "challenge")
    assert (challenged.by, challenged.rules) == ("nbob", "classic")
    # The challenger waits on nobody's answer but theirs: bob has only his turn, if it is his.
    assert [(n.kind, n.id) for n in found[bob.pk]] == (turn if to_act == bob.pk else [])
    assert [(n.kind, n.id) for n in found[cat.pk]] == [("challenge", challenge.pk)]
    assert found[olga.pk] == [] and found[annbot.pk] == []
    # Read for many people at once (in more than one statement), the same.
    many = waiting_on([*range(10**6, 10**6 + 2 * CHUNK), ann.pk])
    assert many[ann.pk] == found[ann.pk] and len(many) == 2 * CHUNK + 1


@pytest.mark.django_db
def test_items_leave_once_answered_played_or_over() -> None:
    ann, bob, cat = person("lann"), person("lbob"), person("lcat")
    game = game_with(ann, bob, cat)
    first = game.acting_identity(game.to_act[0])[0]
    challenge = challenges.create_challenge(bob, to=["lann", "house:random"], move_seconds=600)
    cup = new_tournament(cat, [])
    entries.add_entrant(cat, tournament_id=cup.pk, username="lann")
    assert {k for k, _ in kinds(Player.objects.get(pk=first))} >= {"turn"}

    # Until the turn passes to someone else, it is the first player's.
    while Game.objects.get(pk=game.pk).to_act == game.to_act:
        move_once(game.pk)
    now = Game.objects.get(pk=game.pk)
    after = now.acting_identity(now.to_act[0])[0]
    if after != first:
        assert ("turn", game.pk) not in kinds(Player.objects.get(pk=first))
    assert ("turn", game.pk) in kinds(Player.objects.get(pk=after))

    challenges.decline_challenge(ann, challenge_id=challenge.pk)
    entries.register(ann, tournament_id=cup.pk)
    assert [k for k, _ in kinds(ann)] in ([], ["turn"])
    assert Challenge.objects.get(pk=challenge.pk).status == "declined"


@pytest.mark.django_db
def test_a_round_that_seats_a_person_waits_on_them_until_it_is_over() -> None:
    people = [person(f"rnd{i}") for i in range(3)]
    organiser = person("rndorg")
    cup = new_tournament(organiser, people, rounds=1)
    running.start(organiser, tournament_id=cup.pk)
    table = Entrant.objects.get(player=people[0]).tournament.round_set.get().tables.get()

    found = waiting_on([p.pk for p in [*people, organiser]])

    for someone in people:
        rounds = [n for n in found[someone.pk] if n.kind == "round"]
        assert [(n.tournament, n.round, n.table, n.game) for n in rounds] == [
            (cup.pk, 1, 1, table.game_id)
        ]
    assert found[organiser.pk] == []
    # The round's game over and the round scored: it waits on nobody.
    while Game.objects.get(pk=table.game_id).status != Game.Status.FINISHED:
        move_once(table.game_id)
    assert running.advance(tournament_id=cup.pk)
    assert all(w == [] for w in waiting_on([p.pk for p in people]).values())


def in_person_round(organiser: Player, seated: list[Player]) -> tuple[Tournament, TournamentTable]:
    """A started one-round in-person night of ``seated``, and its one table (no game)."""
    night = new_tournament(organiser, seated, rounds=1, venue="in_person")
    running.start(organiser, tournament_id=night.pk)
    table = night.round_set.get().tables.get()
    assert table.game_id is None
    return night, table


def settle(night: Tournament, table: TournamentTable) -> None:
    """The organiser rules on the table (its result stands) and the round is scored."""
    with transaction.atomic():
        table_results.adjudicate_in_person(Tournament.objects.get(pk=night.pk), table)
    assert running.advance(tournament_id=night.pk)


@pytest.mark.django_db
def test_an_in_person_round_waits_on_its_seated_players_until_it_is_over() -> None:
    people = [person(f"ipr{i}") for i in range(3)]
    organiser, outsider = person("iprorg"), person("iprout")
    night, table = in_person_round(organiser, people)

    found = waiting_on([p.pk for p in [*people, organiser, outsider]])

    for someone in people:
        assert [
            (n.kind, n.tournament, n.round, n.table, n.game, n.code) for n in found[someone.pk]
        ] == [("round", night.pk, 1, table.number, None, table.code)]
    assert found[organiser.pk] == [] and found[outsider.pk] == []
    # The bell links the table's result page (there is no game to open).
    shown = signed_in(people[0]).get("/rules").content.decode()
    assert f'href="/tournaments/{night.pk}/tables/{table.code}"' in shown

    settle(night, table)
    assert all(w == [] for w in waiting_on([p.pk for p in people]).values())


@pytest.mark.django_db
def test_club_invitations_and_requests_wait_on_whoever_answers_them_only() -> None:
    ann, bob, cat, dan, eve = (person(n) for n in ("cann", "cbob", "ccat", "cdan", "ceve"))
    danbot, _ = create_bot_player(dan, username="cdanbot")
    club = clubs.create_club(ann, name="The Crown", joining="request")
    # cat asks and is let in, then made an admin: the request waited on ann only.
    asked = clubs.join(cat, slug=club.slug)
    assert isinstance(asked, JoinRequest)
    assert kinds(ann) == [("club_request", asked.pk)] and kinds(cat) == []
    clubs.approve_request(ann, slug=club.slug, username="ccat")
    clubs.set_role(ann, slug=club.slug, username="ccat", role="admin")
    assert kinds(ann) == kinds(cat) == []

    request = clubs.join(bob, slug=club.slug)
    invitation = clubs.invite(cat, slug=club.slug, username="cdan")
    bot_invitation = clubs.invite(ann, slug=club.slug, username="cdanbot")
    assert isinstance(request, JoinRequest)

    found = waiting_on([p.pk for p in (ann, bob, cat, dan, eve, danbot)])

    for admin in (ann, cat):
        (item,) = found[admin.pk]
        assert (item.kind, item.id, item.player, item.club, item.club_name) == (
            "club_request",
            request.pk,
            "cbob",
            club.slug,
            "The Crown",
        )
    assert [(n.kind, n.id, n.by, n.player, n.club_name) for n in found[dan.pk]] == [
        ("club_invitation", invitation.pk, "ccat", "cdan", "The Crown"),
        ("club_invitation", bot_invitation.pk, "cann", "cdanbot", "The Crown"),
    ]
    assert found[bob.pk] == found[eve.pk] == found[danbot.pk] == []
    # The bell links the club and answers there (a bot's invitation for the bot).
    bell = signed_in(dan).get("/rules").content.decode()
    assert bell_of(bell) == (
        2,
        [("club_invitation", invitation.pk), ("club_invitation", bot_invitation.pk)],
    )
    linked = f'the club <a href="/clubs/{club.slug}">The Crown</a>'
    assert f"ccat invites you to join {linked}" in bell
    assert f"your bot cdanbot to join {linked}" in bell
    assert bell.count(f'action="/clubs/{club.slug}/join"') == 2
    assert 'name="player" value="cdanbot"' in bell
    admins_bell = signed_in(ann).get("/rules").content.decode()
    assert f'cbob asks to join the club <a href="/clubs/{club.slug}#requests">' in admins_bell
    assert f'action="/clubs/{club.slug}/requests/cbob/approve"' in admins_bell

    # Answered, each leaves; an admin no longer one stops seeing the club's requests.
    clubs.decline_request(cat, slug=club.slug, username="cbob")
    assert kinds(ann) == kinds(cat) == []
    again = clubs.join(bob, slug=club.slug)
    clubs.set_role(ann, slug=club.slug, username="ccat", role="member")
    assert kinds(ann) == [("club_request", again.pk)] and kinds(cat) == []
    clubs.join(dan, slug=club.slug)
    clubs.decline_invitation(dan, slug=club.slug, username="cdanbot")
    assert kinds(dan) == []
    assert ClubInvitation.objects.get(pk=bot_invitation.pk).status == "declined"


# --- The API ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_api_gives_the_callers_own_list() -> None:
    from rest_framework.test import APIClient

    _, key = register_player("aann", password=PASSWORD)
    bob, bob_key = register_player("abob", password=PASSWORD)
    challenge = challenges.create_challenge(bob, to=["aann", "house:random"], move_seconds=600)
    client = APIClient()

    anns = client.get("/api/v1/notifications", HTTP_AUTHORIZATION=f"Token {key}")
    bobs = client.get("/api/v1/notifications", HTTP_AUTHORIZATION=f"Token {bob_key}")
    nobody = client.get("/api/v1/notifications")

    assert anns.status_code == 200
    body = anns.json()
    assert body["count"] == 1
    (item,) = body["items"]
    assert item["kind"] == "challenge" and item["id"] == challenge.pk and item["by"] == "abob"
    assert item["deadline"].endswith("Z") and item["game"] is None
    assert bobs.json() == {"count": 0, "items": []}
    assert nobody.status_code == 401


# --- The bell on the pages ----------------------------------------------------------------------


@pytest.mark.django_db
def test_every_page_shows_the_bell_to_a_signed_in_person_only() -> None:
    ann, bob = person("bann"), person("bbob")
    challenge = challenges.create_challenge(bob, to=["bann", "house:random"], move_seconds=600)
    page = signed_in(ann)

    for path in ("/", "/rules", "/leaderboard", "/tournaments"):
        shown = page.get(path).content.decode()
        assert bell_of(shown) == (1, [("challenge", challenge.pk)]), path
        # Its forms carry the page's CSRF token and the page to come back to.
        assert f'name="next" value="{path}"' in shown
    assert bell_of(signed_in(bob).get("/").content.decode()) == (0, [])
    assert 'id="notifications"' not in Client().get("/").content.decode()


@pytest.mark.django_db
def test_the_bells_forms_answer_and_come_back_to_the_page() -> None:
    ann, bob, cat = person("fann"), person("fbob"), person("fcat")
    annbot, _ = create_bot_player(ann, username="fannbot")
    cup = new_tournament(cat, [])
    entries.add_entrant(cat, tournament_id=cup.pk, username="fann")
    entries.add_entrant(cat, tournament_id=cup.pk, username="fannbot")
    challenge = challenges.create_challenge(bob, to=["fann", "fcat"], move_seconds=600)
    page = signed_in(ann)

    accepted = page.post(f"/tournaments/{cup.pk}/register", {"next": "/leaderboard?pool=race"})
    declined = page.post(
        f"/tournaments/{cup.pk}/decline", {"next": "/rules#preset-woburn", "player": "fannbot"}
    )
    answered = page.post(f"/challenges/{challenge.pk}/accept", {"next": "/tournaments"})
    # Another site, or a scheme-relative address, is never a place to return to.
    elsewhere = page.post(f"/challenges/{challenge.pk}/decline", {"next": "https://evil.example/x"})
    sideways = page.post(f"/tournaments/{cup.pk}/withdraw", {"next": "//evil.example/x"})

    assert accepted["Location"] == "/leaderboard?pool=race"
    assert declined["Location"] == "/rules#preset-woburn"
    assert answered["Location"] == "/tournaments"
    assert elsewhere["Location"] == f"/challenges#challenge-{challenge.pk}"
    assert sideways["Location"] == f"/tournaments/{cup.pk}"
    assert Entrant.objects.filter(tournament=cup, player=ann).exists() is False  # withdrew
    assert Invitation.objects.get(tournament=cup, player=annbot).status == "declined"
    assert Challenge.objects.get(pk=challenge.pk).status == "declined"
    assert bell_of(page.get("/").content.decode()) == (0, [])


# --- Live: one feed per person, their own items only ---------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_one_feed_serves_all_of_a_persons_pages_and_no_one_elses() -> None:
    ann, bob = person("oann"), person("obob")

    async def follow_twice() -> tuple[int, int, int]:
        first = await live.SOURCE.follow(ann.pk, token_id=None, after=None)
        second = await live.SOURCE.follow(ann.pk, token_id=None, after=None)
        other = await live.SOURCE.follow(bob.pk, token_id=None, after=None)
        try:
            followed = [f for f in feeds.registry().feeds.values() if f.source is live.SOURCE]
            shared = first.feed is second.feed and first.feed is not other.feed
            return len(followed), int(shared), len(first.feed.subscribers)
        finally:
            for subscriber in (first, second, other):
                subscriber.leave()

    assert asyncio.run(follow_twice()) == (2, 1, 2)


@pytest.fixture
def woken_by(
    django_capture_on_commit_callbacks: Any,
) -> Callable[[Callable[[], object], list[Player]], set[str]]:
    """Which of these people's person channels a change woke (this process's hub). The
    change stays in the test's transaction, which its callbacks see committed: no other
    process (the worker that moves tournaments on) sees it and acts on it meanwhile. It runs
    off the waiters' loop, on the test's own database connection."""

    def woken(change: Callable[[], object], people: list[Player]) -> set[str]:
        loop = asyncio.new_event_loop()
        with contextlib.ExitStack() as stack:

            async def listen() -> dict[str, Any]:
                return {
                    p.username: stack.enter_context(
                        delivery.listening(delivery.person_channel(p.pk))
                    )
                    for p in people
                }

            try:
                waiters = loop.run_until_complete(listen())
                with django_capture_on_commit_callbacks(execute=True):
                    change()
                loop.run_until_complete(asyncio.sleep(0.05))  # the wake-ups it was handed
                return {name for name, waiter in waiters.items() if waiter.event.is_set()}
            finally:
                stack.close()
                loop.close()

    return woken


@pytest.mark.django_db
def test_each_change_wakes_the_notifications_of_those_it_concerns_only(
    woken_by: Callable[[Callable[[], object], list[Player]], set[str]],
) -> None:
    ann, bob, cat, dan = (person(n) for n in ("kann", "kbob", "kcat", "kdan"))
    annbot, _ = create_bot_player(ann, username="kannbot")
    everyone = [ann, bob, cat, dan]
    cup = new_tournament(dan, [])

    invited = woken_by(
        lambda: entries.add_entrant(dan, tournament_id=cup.pk, username="kann"), everyone
    )
    bots = woken_by(
        lambda: entries.add_entrant(dan, tournament_id=cup.pk, username="kannbot"), everyone
    )
    cancelled = woken_by(
        lambda: entries.remove_entrant(dan, tournament_id=cup.pk, name="kann"), everyone
    )
    answered = woken_by(
        lambda: entries.decline(ann, tournament_id=cup.pk, username="kannbot"), everyone
    )
    assert invited == bots == cancelled == answered == {"kann"}
    assert Invitation.objects.get(player=annbot).status == "declined"

    challenged = woken_by(
        lambda: challenges.create_challenge(bob, to=["kcat", "house:random"], move_seconds=600),
        everyone,
    )
    assert challenged == {"kbob", "kcat"}

    # A move that passes the turn wakes the one who had it and the one who has it now.
    game = game_with(ann, bob, cat)
    before = Game.objects.get(pk=game.pk)

    def until_the_turn_passes() -> None:
        while Game.objects.get(pk=game.pk).to_act == before.to_act:
            move_once(game.pk)

    moved = woken_by(until_the_turn_passes, everyone)
    after = Game.objects.get(pk=game.pk)
    concerned = {before.acting_identity(s)[1] for s in before.to_act} ^ {
        after.acting_identity(s)[1] for s in after.to_act
    }
    assert concerned and moved == concerned

    # A round that seats people wakes them when it opens and when it is over.
    seated = [ann, bob, cat]
    league = new_tournament(dan, seated, rounds=1)
    opened = woken_by(lambda: running.start(dan, tournament_id=league.pk), everyone)
    assert opened == {"kann", "kbob", "kcat"}
    table = league.round_set.get().tables.get()

    def to_the_end() -> None:
        while Game.objects.get(pk=table.game_id).status != Game.Status.FINISHED:
            move_once(table.game_id)

    woken_by(to_the_end, everyone)
    assert woken_by(lambda: running.advance(tournament_id=league.pk), everyone) == {
        "kann",
        "kbob",
        "kcat",
    }


@pytest.mark.django_db
def test_club_changes_and_in_person_rounds_wake_those_they_concern_only(
    woken_by: Callable[[Callable[[], object], list[Player]], set[str]],
) -> None:
    ann, bob, cat, dan = (person(n) for n in ("wann", "wbob", "wcat", "wdan"))
    create_bot_player(dan, username="wdanbot")
    everyone = [ann, bob, cat, dan]
    club = clubs.create_club(ann, name="Wake club", joining="request")
    slug = club.slug

    assert woken_by(lambda: clubs.join(cat, slug=slug), everyone) == {"wann"}
    assert woken_by(lambda: clubs.approve_request(ann, slug=slug, username="wcat"), everyone) == {
        "wann"
    }
    promoted = woken_by(
        lambda: clubs.set_role(ann, slug=slug, username="wcat", role="admin"), everyone
    )
    assert promoted == {"wcat"}
    assert woken_by(lambda: clubs.join(bob, slug=slug), everyone) == {"wann", "wcat"}
    declined = woken_by(lambda: clubs.decline_request(cat, slug=slug, username="wbob"), everyone)
    assert declined == {"wann", "wcat"}
    invited = woken_by(lambda: clubs.invite(cat, slug=slug, username="wdanbot"), everyone)
    assert invited == {"wdan"}
    refused = woken_by(
        lambda: clubs.decline_invitation(dan, slug=slug, username="wdanbot"), everyone
    )
    assert refused == {"wdan"}
    clubs.invite(ann, slug=slug, username="wdan")
    assert woken_by(lambda: clubs.join(dan, slug=slug), everyone) == {"wdan"}
    assert woken_by(lambda: clubs.leave(cat, slug=slug), everyone) == {"wcat"}

    # An in-person round wakes its seated players when it opens and when it is over.
    seated = [ann, bob, cat]
    night = new_tournament(dan, seated, rounds=1, venue="in_person")
    opened = woken_by(lambda: running.start(dan, tournament_id=night.pk), everyone)
    assert opened == {"wann", "wbob", "wcat"}
    table = night.round_set.get().tables.get()
    assert woken_by(lambda: settle(night, table), everyone) == {"wann", "wbob", "wcat"}


def session_cookie(url: str, username: str) -> str:
    """Log in through the page's form; the session cookie's header."""
    with httpx.Client(base_url=url, timeout=20) as client:
        client.get("/login")
        token = client.cookies["csrftoken"]
        answer = client.post(
            "/login",
            data={"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token},
            headers={"Referer": f"{url}/login"},
        )
        assert answer.status_code == 302, answer.text
        return "; ".join(f"{k}={v}" for k, v in client.cookies.items())


def items(message: Message) -> list[tuple[str, int]]:
    html = message.data["html"]
    return [(k, int(i)) for k, i in re.findall(r'data-kind="(\w+)" data-id="(\d+)"', html)]


@pytest.mark.django_db(transaction=True)
def test_the_live_bell_brings_a_persons_own_items_and_nobody_elses(
    api_server: LiveServer, celery_worker: Any
) -> None:
    ann, bob, cat, _ = (person(n) for n in ("wann", "wbob", "wcat", "wdan"))
    readers = {
        name: LiveReader(
            api_server.url,
            0,
            path="/notifications/live",
            headers={"Cookie": session_cookie(api_server.url, name)},
        )
        for name in ("wann", "wdan")
    }
    for reader in readers.values():
        reader.wait_for(lambda found: len(found) >= 1)

    # bob challenges ann; cat invites her to a tournament; ann's bell gets each as it comes.
    challenge = challenges.create_challenge(bob, to=["wann", "house:random"], move_seconds=600)
    readers["wann"].wait_for(lambda found: ("challenge", challenge.pk) in items(found[-1]))
    cup = new_tournament(cat, [])
    invitation = entries.add_entrant(cat, tournament_id=cup.pk, username="wann")
    readers["wann"].wait_for(lambda found: ("invitation", invitation.pk) in items(found[-1]))
    # dan is invited to the same tournament: his bell gets it, ann's never does.
    dans = entries.add_entrant(cat, tournament_id=cup.pk, username="wdan")
    readers["wdan"].wait_for(lambda found: ("invitation", dans.pk) in items(found[-1]))
    # A game of ann, bob and cat: the turn comes to ann, and leaves with her move.
    game = game_with(ann, bob, cat)
    for _ in range(30):
        now = Game.objects.get(pk=game.pk)
        if now.acting_identity(now.to_act[0])[0] == ann.pk:
            break
        move_once(game.pk)
    else:
        raise AssertionError("the turn never came to ann")
    readers["wann"].wait_for(lambda found: ("turn", game.pk) in items(found[-1]))
    while ann.pk in {now.acting_identity(s)[0] for s in now.to_act}:
        move_once(game.pk)
        now = Game.objects.get(pk=game.pk)
    readers["wann"].wait_for(lambda found: ("turn", game.pk) not in items(found[-1]))
    # She declines the challenge: it leaves her bell.
    challenges.decline_challenge(ann, challenge_id=challenge.pk)
    readers["wann"].wait_for(lambda found: ("challenge", challenge.pk) not in items(found[-1]))
    # The organiser withdraws her invitation: it leaves too.
    entries.remove_entrant(cat, tournament_id=cup.pk, name="wann")
    readers["wann"].wait_for(lambda found: ("invitation", invitation.pk) not in items(found[-1]))

    # On the wire: each bell only ever carried its own person's items.
    anns = {item for m in readers["wann"].messages for item in items(m)}
    dans_seen = {item for m in readers["wdan"].messages for item in items(m)}
    assert anns == {("challenge", challenge.pk), ("invitation", invitation.pk), ("turn", game.pk)}
    assert dans_seen == {("invitation", dans.pk)}
    assert readers["wdan"].status == readers["wann"].status == 200
    for reader in readers.values():
        reader.stop()


def test_it_refuses_the_live_bell_to_a_visitor(api_server: LiveServer) -> None:
    response = httpx.get(f"{api_server.url}/notifications/live", timeout=10)

    assert response.status_code == 403
