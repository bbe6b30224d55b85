"""Entering someone else into a tournament takes their consent (docs/tournaments.md
"Entrants"): an organiser enters house bots, their own bots and themselves at once; another
person, or another owner's bot, is invited (a ``tournament_invite`` line on the stream of
that person or the bot's owner) and entered only when they accept with ``register``. An
invitation never answered lapses at the start."""

from __future__ import annotations

import json
import threading
from typing import Any

import httpx
import pytest

from games.models import GamePlayer
from realtime.models import PlayerMessage
from tests.api_client import Client, error_of, register
from tests.conftest import LiveServer, WorkerInfo
from tests.support import wait_until
from tests.tournament_helpers import run_to_the_end
from tournaments.models import Invitation

pytestmark = pytest.mark.django_db(transaction=True)

INVITATION_FIELDS = {
    "id", "tournament", "player", "is_bot", "owner", "invited_by", "status", "created_at",
}  # fmt: skip


def create(client: Client, **fields: Any) -> int:
    body = {"name": "Invitational", "format": "swiss", "rounds": 1, "hands_per_game": 1, **fields}
    return int(client.ok("POST", "/tournaments", 201, json=body)["id"])


def bot_of(owner: Client, username: str) -> Client:
    created = owner.ok("POST", "/bots", 201, json={"username": username, "mode": "poll"})
    return Client(owner.base_url, token=created["token"], username=username)


class StreamReader:
    """The lines of a player's stream, read on a thread while the test goes on."""

    def __init__(self, client: Client) -> None:
        self.lines: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(client,), daemon=True)
        self._thread.start()

    def _read(self, client: Client) -> None:
        headers = {"Authorization": f"Token {client.token}"}
        url = client.base_url + "/api/v1/stream"
        with httpx.stream("GET", url, headers=headers, timeout=30) as response:
            for line in response.iter_lines():
                if self._stop.is_set():
                    return
                if line.strip():
                    self.lines.append(json.loads(line))

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [line for line in self.lines if line["type"] == kind]

    def close(self) -> None:
        self._stop.set()


def invite_heard(organiser: Client, tournament_id: int, player: str, reader: StreamReader) -> Any:
    """Invite ``player`` until the reader's stream brings the line: a stream only sends what
    happens after it connected, and the test cannot see when that was, so an invitation sent
    too early is cancelled and sent again."""
    base = f"/tournaments/{tournament_id}"
    for _ in range(10):
        invitation = organiser.ok("POST", f"{base}/entrants", 202, json={"player": player})
        try:
            wait_until(
                lambda sent=invitation["id"]: any(
                    line["invitation"] == sent for line in reader.of_type("tournament_invite")
                ),
                timeout=2,
            )
        except AssertionError:
            pass  # sent before the stream connected
        else:
            return invitation
        organiser.ok("DELETE", f"{base}/entrants/{player}", 204)
    raise AssertionError("the tournament_invite line never came")


def test_it_invites_a_person_who_accepts_and_plays(
    api_server: LiveServer, celery_worker: WorkerInfo
) -> None:
    ann, bob = register(api_server.url, "ann"), register(api_server.url, "bob")
    tid = create(ann)
    base = f"/tournaments/{tid}"
    reader = StreamReader(bob)
    try:
        invitation = invite_heard(ann, tid, "bob", reader)
    finally:
        reader.close()

    assert set(invitation) == INVITATION_FIELDS
    assert invitation["tournament"] == tid
    assert (invitation["player"], invitation["owner"], invitation["is_bot"]) == (
        "bob",
        "bob",
        False,
    )
    assert (invitation["invited_by"], invitation["status"]) == ("ann", "pending")
    line = next(
        line
        for line in reader.of_type("tournament_invite")
        if line["invitation"] == invitation["id"]
    )
    assert line == {
        "type": "tournament_invite",
        "invitation": invitation["id"],
        "tournament": tid,
        "name": "Invitational",
        "player": "bob",
        "invited_by": "ann",
        "format": "swiss",
        "starts_at": None,
    }
    # Invited is not entered; the organiser sees the invitation, bob his own, others none.
    detail = ann.ok("GET", base)
    assert detail["players"] == []
    assert [i["id"] for i in detail["invitations"]] == [invitation["id"]]
    assert [i["id"] for i in bob.ok("GET", base)["invitations"]] == [invitation["id"]]
    assert Client(api_server.url).ok("GET", base)["invitations"] == []
    assert register(api_server.url, "cat").ok("GET", base)["invitations"] == []
    error_of(ann.post(f"{base}/entrants", json={"player": "bob"}), 409, "already_invited")

    entrant = bob.ok("POST", f"{base}/register", 201)
    assert entrant["username"] == "bob"
    assert ann.ok("GET", base)["invitations"] == []
    assert Invitation.objects.get(pk=invitation["id"]).status == "accepted"
    for _ in range(2):
        ann.ok("POST", f"{base}/entrants", 201, json={"player": "house:random"})
    started = ann.ok("POST", f"{base}/start")
    assert [p["username"] for p in started["players"]] == [
        "bob",
        "house:random #1",
        "house:random #2",
    ]

    run_to_the_end(tid)
    seat = GamePlayer.objects.get(
        player__username="bob", game__tournament_table__round__tournament_id=tid
    )
    assert seat.game.status == "finished"
    standing = next(
        s for s in ann.ok("GET", f"{base}/standings")["results"] if s["username"] == "bob"
    )
    assert standing["games"] == 1


def test_it_lets_an_invitation_never_answered_lapse_at_the_start(api_server: LiveServer) -> None:
    ann, cat = register(api_server.url, "ann"), register(api_server.url, "cat")
    tid = create(ann)
    base = f"/tournaments/{tid}"
    invitation = ann.ok("POST", f"{base}/entrants", 202, json={"player": "cat"})
    for bot in ("house:random", "house:heuristic", "house:random"):
        ann.ok("POST", f"{base}/entrants", 201, json={"player": bot})

    started = ann.ok("POST", f"{base}/start")

    assert "cat" not in [p["username"] for p in started["players"]]
    assert started["invitations"] == []
    assert Invitation.objects.get(pk=invitation["id"]).status == "lapsed"
    error_of(cat.post(f"{base}/register"), 409, "already_started")
    error_of(cat.post(f"{base}/decline"), 409, "not_invited")
    assert not GamePlayer.objects.filter(player__username="cat").exists()


def test_it_enters_the_organiser_their_own_bot_and_house_bots_at_once(
    api_server: LiveServer,
) -> None:
    ann = register(api_server.url, "ann")
    bot_of(ann, "annbot")
    tid = create(ann, bots_allowed=False)
    base = f"/tournaments/{tid}"

    added = [
        ann.ok("POST", f"{base}/entrants", 201, json={"player": name})["username"]
        for name in ("ann", "annbot", "house:strong")
    ]

    assert added == ["ann", "annbot", "house:strong #1"]
    detail = ann.ok("GET", base)
    assert [p["username"] for p in detail["players"]] == added
    assert detail["invitations"] == []
    assert not Invitation.objects.exists()
    assert not PlayerMessage.objects.filter(type="tournament_invite").exists()
    actions = [e["action"] for e in ann.ok("GET", f"{base}/audit")["results"]]
    assert actions == ["created", "entrant_added", "entrant_added", "entrant_added"]


def test_it_invites_another_owners_bot_and_its_owner_enters_it(api_server: LiveServer) -> None:
    ann, bob, cat = (register(api_server.url, name) for name in ("ann", "bob", "cat"))
    bobbot = bot_of(bob, "bobbot")
    tid = create(ann, bots_allowed=False)
    base = f"/tournaments/{tid}"

    invitation = ann.ok("POST", f"{base}/entrants", 202, json={"player": "bobbot"})

    assert (invitation["player"], invitation["owner"], invitation["is_bot"]) == (
        "bobbot",
        "bob",
        True,
    )
    sent = PlayerMessage.objects.filter(type="tournament_invite")
    assert [(m.player.username, m.payload["player"]) for m in sent] == [("bob", "bobbot")]
    assert [i["player"] for i in bob.ok("GET", base)["invitations"]] == ["bobbot"]
    error_of(cat.post(f"{base}/register", json={"player": "bobbot"}), 403, "not_bot_owner")
    error_of(cat.post(f"{base}/register", json={"player": "nobody"}), 404, "not_found")
    # The invitation waives the tournament's "humans only": the organiser asked for it.
    entrant = bob.ok("POST", f"{base}/register", 201, json={"player": "bobbot"})
    assert (entrant["username"], entrant["is_bot"]) == ("bobbot", True)
    assert Invitation.objects.get(pk=invitation["id"]).status == "accepted"

    # Without an invitation an owner enters their own bot within the limits, as the bot could.
    other = create(ann)
    assert bob.ok("POST", f"/tournaments/{other}/register", 201, json={"player": "bobbot"})
    error_of(bobbot.post(f"/tournaments/{other}/register"), 409, "already_registered")
    humans_only = create(ann, bots_allowed=False)
    error_of(
        bob.post(f"/tournaments/{humans_only}/register", json={"player": "bobbot"}),
        409,
        "bots_not_allowed",
    )


def test_it_lets_the_invited_decline_and_the_organiser_cancel(api_server: LiveServer) -> None:
    ann, dan, eve = (register(api_server.url, name) for name in ("ann", "dan", "eve"))
    tid = create(ann)
    base = f"/tournaments/{tid}"
    declined = ann.ok("POST", f"{base}/entrants", 202, json={"player": "dan"})
    cancelled = ann.ok("POST", f"{base}/entrants", 202, json={"player": "eve"})

    dan.ok("POST", f"{base}/decline", 204)
    ann.ok("DELETE", f"{base}/entrants/eve", 204)

    assert Invitation.objects.get(pk=declined["id"]).status == "declined"
    assert Invitation.objects.get(pk=cancelled["id"]).status == "cancelled"
    error_of(dan.post(f"{base}/decline"), 409, "not_invited")
    error_of(eve.post(f"{base}/decline"), 409, "not_invited")
    assert ann.ok("GET", base)["invitations"] == [] and ann.ok("GET", base)["players"] == []
    # Entering oneself stays open to anyone, invited or not.
    assert eve.ok("POST", f"{base}/register", 201)["username"] == "eve"
    actions = [e["action"] for e in ann.ok("GET", f"{base}/audit")["results"]]
    assert actions == ["created", "entrant_invited", "entrant_invited", "invitation_cancelled"]
