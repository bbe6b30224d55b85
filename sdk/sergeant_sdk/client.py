"""A small Python client for the Sergeant Major API (docs/api.md), for bot authors.

Standalone: it needs only ``httpx`` (no Django, nothing else from the platform): install the
package (``pip install ./sdk``), or copy this one file. ::

    from sergeant_sdk import Client

    client = Client("http://127.0.0.1:8000", token="...")
    for turn in client.turns():           # reconnecting stream of your_turn lines
        view = turn["view"]
        client.act(turn["game"], {"type": "play", "card": "AH"}, expected_version=turn["version"])

Actions are sent with an ``Idempotency-Key`` and retried on network errors, so an action
is applied once even if a reply is lost. Webhook bots check :func:`verify_signature`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

import httpx

log = logging.getLogger("sergeant.sdk")

#: The header of a webhook push carrying ``sha256=<hex HMAC-SHA256 of the body>``.
SIGNATURE_HEADER = "X-Signature"

#: The ``type`` of the stream's lines (docs/api.md "The stream").
LINE_TYPES = (
    "your_turn",
    "game_start",
    "game_finish",
    "table_canceled",
    "tournament_round",
    "tournament_invite",
    "challenge",
    "challenge_accepted",
    "challenge_declined",
    "challenge_canceled",
    "challenge_expired",
    "seek_expired",
    "arena_joined",
    "arena_left",
    "arena_removed",
    "club_request",
    "club_request_answered",
    "club_invite",
)


def signature(secret: str, body: bytes) -> str:
    """The ``X-Signature`` value of ``body`` for a webhook secret."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify_signature(secret: str, body: bytes, header: str | None) -> bool:
    """Is ``header`` the platform's signature of ``body``? (constant-time comparison)"""
    return header is not None and hmac.compare_digest(signature(secret, body), header)


class ApiError(Exception):
    """An error answer of the API: ``status``, ``code`` (docs/api.md) and the whole ``error``."""

    def __init__(self, status: int, error: Mapping[str, Any]) -> None:
        self.status = status
        self.code = str(error.get("code", "unknown"))
        self.error = dict(error)
        super().__init__(f"{status} {self.code}: {error.get('message', '')}")


class Client:
    """The API calls a player or bot needs. Raises :class:`ApiError` for error answers."""

    def __init__(
        self,
        server: str,
        token: str | None = None,
        timeout: float = 30.0,
        retries: int = 3,
    ) -> None:
        self.server = server.rstrip("/")
        self.retries = retries
        headers = {"Authorization": f"Token {token}"} if token else {}
        self._http = httpx.Client(base_url=self.server, headers=headers, timeout=timeout)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- plain calls ----------------------------------------------------------------------

    def _call(
        self,
        method: str,
        path: str,
        json_body: Any = None,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> Any:
        """One API call, retried on network errors (only safe for idempotent requests:
        GETs, and POSTs that carry an Idempotency-Key or are idempotent by nature)."""
        attempt = 0
        while True:
            try:
                response = self._http.request(
                    method,
                    "/api/v1/" + path.lstrip("/"),
                    json=json_body,
                    params=params,
                    headers=headers,
                    timeout=timeout if timeout is not None else httpx.USE_CLIENT_DEFAULT,
                )
            except httpx.TransportError:
                attempt += 1
                if attempt > self.retries:
                    raise
                time.sleep(min(2.0, 0.2 * 2**attempt))
                continue
            if response.status_code == 429 and attempt < self.retries:
                attempt += 1
                time.sleep(float(response.headers.get("Retry-After", "1")))
                continue
            if response.status_code >= 400:
                try:
                    error = response.json().get("error", {})
                except ValueError:
                    error = {"code": "http_error", "message": response.text[:200]}
                raise ApiError(response.status_code, error)
            if response.status_code == 204 or not response.content:
                return None
            return response.json()

    def me(self) -> dict[str, Any]:
        return dict(self._call("GET", "me"))

    def game(self, game_id: int) -> dict[str, Any]:
        """The game as this caller may see it (with ``legal_actions`` on its turn)."""
        return dict(self._call("GET", f"games/{game_id}"))

    def act(
        self,
        game_id: int,
        action: Mapping[str, Any],
        expected_version: int | None = None,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """Submit an action; returns the new view. Safe to call again with the same key."""
        body = dict(action)
        if expected_version is not None:
            body["expected_version"] = expected_version
        key = idempotency_key or str(uuid.uuid4())
        return dict(
            self._call("POST", f"games/{game_id}/actions", body, headers={"Idempotency-Key": key})
        )

    def events(self, game_id: int, after: int = 0, wait: float = 0) -> dict[str, Any]:
        """Events with ``seq > after``; waits up to ``wait`` seconds (long poll) for one."""
        params = {"after": after, "wait": wait}
        return dict(self._call("GET", f"games/{game_id}/events", params=params, timeout=wait + 15))

    def record(self, game_id: int) -> dict[str, Any]:
        return dict(self._call("GET", f"games/{game_id}/record"))

    def verify(self, game_id: int) -> dict[str, Any]:
        """A finished game's record checked: its deals against its seed, its outcomes
        against its plays, its signature against the server's key: ``{ok,
        commitment_matches, deals_match, outcomes_match, signature_valid, reason,
        problems}``."""
        return dict(self._call("GET", f"games/{game_id}/verify"))

    def tables(self, status: str = "open") -> dict[str, Any]:
        return dict(self._call("GET", "tables", params={"status": status}))

    def create_table(
        self,
        rules: str | Mapping[str, Any] = "classic",
        rated: bool = True,
        move_seconds: int = 60,
        seat: int | None = 0,
    ) -> dict[str, Any]:
        body = {"rules": rules, "rated": rated, "move_seconds": move_seconds, "seat": seat}
        return dict(self._call("POST", "tables", body))

    def join(self, table_id: int, seat: int | None = None) -> dict[str, Any]:
        body = {} if seat is None else {"seat": seat}
        return dict(self._call("POST", f"tables/{table_id}/join", body))

    def seat_bot(self, table_id: int, bot: str, seat: int | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"bot": bot}
        if seat is not None:
            body["seat"] = seat
        return dict(self._call("POST", f"tables/{table_id}/bots", body))

    def cancel_table(self, table_id: int) -> None:
        """``DELETE /tables/{id}``: the creator cancels an open table (no game yet)."""
        self._call("DELETE", f"tables/{table_id}")

    def resign(self, game_id: int) -> dict[str, Any]:
        """Give up a game: the seat passes to ``house:heuristic``, the caller ranks last.
        Returns the caller's view."""
        return dict(self._call("POST", f"games/{game_id}/resign", {}))

    # --- finding games: challenges, seeks, the arena --------------------------------------

    def challenge(
        self,
        to: str | list[str],
        rules: str | Mapping[str, Any] = "classic",
        rated: bool = True,
        move_seconds: int = 60,
    ) -> dict[str, Any]:
        """``POST /challenges``: invite one or two others (``"house:..."`` may fill a seat).
        The game starts when all have accepted (``game_start`` on the stream)."""
        names = [to] if isinstance(to, str) else list(to)
        body = {"to": names, "rules": rules, "rated": rated, "move_seconds": move_seconds}
        return dict(self._call("POST", "challenges", body))

    def challenges(self) -> Any:
        """``GET /challenges``: the caller's pending challenges, in and out."""
        return self._call("GET", "challenges")

    def accept_challenge(self, challenge_id: int) -> dict[str, Any]:
        return dict(self._call("POST", f"challenges/{challenge_id}/accept", {}) or {})

    def decline_challenge(self, challenge_id: int) -> dict[str, Any]:
        return dict(self._call("POST", f"challenges/{challenge_id}/decline", {}) or {})

    def cancel_challenge(self, challenge_id: int) -> dict[str, Any]:
        return dict(self._call("POST", f"challenges/{challenge_id}/cancel", {}) or {})

    def seek(
        self,
        rules: str | Mapping[str, Any] = "classic",
        rated: bool = True,
        move_seconds: int = 60,
        rating_range: tuple[float | None, float | None] | None = None,
        house_bots_after: int | None = None,
    ) -> dict[str, Any]:
        """``POST /seeks``: join the quick-play queue (``game_start`` when seated); with
        ``house_bots_after`` seconds, house bots fill the seats still empty by then."""
        body: dict[str, Any] = {"rules": rules, "rated": rated, "move_seconds": move_seconds}
        if rating_range is not None:
            body["rating_range"] = list(rating_range)
        if house_bots_after is not None:
            body["house_bots_after"] = house_bots_after
        return dict(self._call("POST", "seeks", body))

    def cancel_seek(self, seek_id: int) -> None:
        """``DELETE /seeks/{id}``: leave the queue."""
        self._call("DELETE", f"seeks/{seek_id}")

    def arena_join(self, pool: str | None = None) -> Any:
        """``POST /arena/join`` (a bot's token): be seated game after game in a pool's arena."""
        return self._call("POST", "arena/join", {} if pool is None else {"pool": pool})

    def arena_leave(self, pool: str | None = None) -> Any:
        """``POST /arena/leave``: out of a pool's arena (a game under way plays on)."""
        return self._call("POST", "arena/leave", {} if pool is None else {"pool": pool})

    def arena(self, pool: str | None = None) -> dict[str, Any]:
        """``GET /arena``: the bots in it, its games and leaderboard."""
        params = {} if pool is None else {"pool": pool}
        return dict(self._call("GET", "arena", params=params))

    # --- tournaments ----------------------------------------------------------------------

    def register_tournament(self, tournament_id: int, player: str | None = None) -> Any:
        """Enter a tournament, or enter your bot account ``player`` (accepting its
        invitation, if an organiser sent one)."""
        body = {} if player is None else {"player": player}
        return self._call("POST", f"tournaments/{tournament_id}/register", body)

    def decline_tournament(self, tournament_id: int, player: str | None = None) -> None:
        body = {} if player is None else {"player": player}
        self._call("POST", f"tournaments/{tournament_id}/decline", body)

    # --- players, ratings and bots --------------------------------------------------------

    def player(self, username: str) -> dict[str, Any]:
        """``GET /players/{username}``: the profile, with ``ratings`` per pool."""
        return dict(self._call("GET", f"players/{username}"))

    def player_games(self, username: str, **filters: Any) -> dict[str, Any]:
        """The match history, newest first (a page: ``results``), each game with the
        player's ``rank``, ``score``, ``result`` and ``rating_change``."""
        return dict(self._call("GET", f"players/{username}/games", params=filters))

    def ratings(self, username: str, pool: str | None = None) -> dict[str, Any]:
        """The rating history in a pool, oldest first (a page: ``results``)."""
        params = {} if pool is None else {"pool": pool}
        return dict(self._call("GET", f"players/{username}/ratings", params=params))

    def create_bot(
        self, username: str, mode: str = "poll", webhook_url: str | None = None
    ) -> dict[str, Any]:
        """``POST /bots``: a bot account you own; the answer holds its ``token``."""
        body: dict[str, Any] = {"username": username, "mode": mode}
        if webhook_url is not None:
            body["webhook_url"] = webhook_url
        return dict(self._call("POST", "bots", body))

    def update_bot(
        self, username: str, webhook_url: str | None = None, mode: str | None = None
    ) -> dict[str, Any]:
        """``PATCH /bots/{username}``: change how your bot is reached."""
        body: dict[str, Any] = {}
        if webhook_url is not None:
            body["webhook_url"] = webhook_url
        if mode is not None:
            body["mode"] = mode
        return dict(self._call("PATCH", f"bots/{username}", body))

    def rotate_bot_token(self, username: str) -> str:
        """``POST /bots/{username}/token``: a fresh token for your bot; its others stop
        working at once."""
        return str(self._call("POST", f"bots/{username}/token", {})["token"])

    # --- the stream -----------------------------------------------------------------------

    def stream(self, reconnect: bool = True, max_backoff: float = 10.0) -> Iterator[dict[str, Any]]:
        """The caller's stream lines (``game_start``, ``your_turn``, ``game_finish``, ...).

        Reconnects after a dropped connection with growing back-off; the server resends a
        ``your_turn`` for every game waiting on the caller on each connect, so no turn is
        lost, though one may come twice (see :meth:`turns`). Keep-alive lines are skipped.
        """
        backoff = 0.5
        while True:
            try:
                # The server sends a line at least every 10 s, so 30 s of silence is a dead link.
                timeout = httpx.Timeout(30.0, connect=10.0)
                with self._http.stream("GET", "/api/v1/stream", timeout=timeout) as response:
                    if response.status_code >= 400:
                        response.read()
                        raise ApiError(response.status_code, response.json().get("error", {}))
                    backoff = 0.5
                    for line in response.iter_lines():
                        if line.strip():
                            yield json.loads(line)
            except (httpx.TransportError, httpx.StreamError) as error:
                if not reconnect:
                    raise
                log.info("stream dropped (%s); reconnecting in %.1f s", error, backoff)
            else:
                if not reconnect:
                    return
            time.sleep(backoff)
            backoff = min(max_backoff, backoff * 2)

    def turns(self, until_finished: int | None = None) -> Iterator[dict[str, Any]]:
        """``your_turn`` lines, each (game, version) once. With ``until_finished=N`` it
        stops after ``N`` ``game_finish`` lines."""
        seen: set[tuple[int, int]] = set()
        finished = 0
        for line in self.stream():
            if line.get("type") == "game_finish":
                finished += 1
                if until_finished is not None and finished >= until_finished:
                    return
            elif line.get("type") == "your_turn":
                key = (line["game"], line["version"])
                if key not in seen:
                    seen.add(key)
                    yield line
