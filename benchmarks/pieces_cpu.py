"""What one custom piece saves, in one process: ``GET /me`` and a move (no stream) with the
piece ("on") and with the stock part in its place ("off"), alternated block by block
(move_cpu.py's harness and timing), so that both see the same load.

    .venv/bin/python benchmarks/pieces_cpu.py --piece lean-views|token-cache|batch|api-middleware
                                              [--moves 150] [--rounds 6]
                                              [--database sergeant_piecescpu]

Off is, by piece:

* ``lean-views``: REST framework views of ``/me``, a game and an action (their
  documentation classes with the lean handlers' bodies as methods) swapped into the routes
  instead of the lean views (``api/lean.py``);
* ``token-cache``: ``TOKEN_CACHE_SECONDS = 0``: an entry is never used, every request looks
  its token up (the entry is still built and kept, the version still read with the rate
  limit's count);
* ``batch``: a move's change written by the ORM (an update, then ``bulk_create`` per
  model, in a transaction) instead of one statement;
* ``api-middleware``: the other way round, a piece that is gone measured against the stock
  part that replaced it: "on" serves the requests through a middleware chain of the API's
  own (the security headers and the API's guard, as a handler of the API's with a middleware
  list of its own once did), "off" through ``MIDDLEWARE`` whole, the pages' middleware
  passing API paths by (server/middleware.py), as served now.

The Redis client per thread, once measured here too, is gone: it saved less than a tenth
(docs/decisions/0063). The game row by plain SQL is measured by move_cpu.py's "move, row
not kept" against a checkout that reads it by the ORM (docs/decisions/0063).

Before each block the token cache is emptied (as after a change) and the block is warmed by
a few operations.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import move_cpu


async def run(args: argparse.Namespace) -> None:
    import config.asgi
    from accounts.token_cache import tokens
    from realtime import hub

    asgi = move_cpu.Asgi(config.asgi.application)
    with hub.listening(hub.player_channel(0)):
        assert await hub.wait_subscribed(10)
    pg = move_cpu.PgCpu(args.database)
    me = move_cpu.Table(asgi, "me", streams=False, seed=1)
    quiet = move_cpu.Table(asgi, "quiet", streams=False, seed=2)
    for table in (me, quiet):
        await table.open()

    async def nothing() -> None:
        return None

    async def get_me(_: Any) -> None:
        status, _ = await asgi.call("GET", "/api/v1/me", me.tokens[0])
        assert status == 200

    async def prepare() -> tuple[int, dict[str, Any]]:
        quiet.drain()
        return await quiet.next_action()

    async def act(prepared: tuple[int, dict[str, Any]]) -> None:
        await quiet.move(*prepared)

    phases = {"me": (nothing, get_me), "move": (prepare, act)}
    switch = _switch(args.piece)
    modes = ("on", "off")
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for number in range(args.rounds):
        order = list(modes) if number % 2 == 0 else list(reversed(modes))
        for mode in order:
            switch(mode == "on")
            for name, (before, timed) in phases.items():
                tokens.clear()
                await move_cpu.block(5, before, timed, pg)  # the cache filled again
                results.setdefault((name, mode), []).append(
                    await move_cpu.block(args.moves, before, timed, pg)
                )
        print(f"round {number + 1} done", flush=True)
    print(f"\nms of CPU per operation, {args.rounds} rounds of {args.moves} (+pg: its backends)")
    for (name, mode), rows in sorted(results.items()):
        own = [r[0] for r in rows]
        pgs = [r[1] for r in rows]
        print(
            f"  {name:5} {mode:3} {sum(own) / len(own):6.2f}"
            f"  ({', '.join(f'{x:.2f}' for x in own)})   +pg {sum(pgs) / len(pgs):5.2f}"
        )
    for name in phases:
        on, off = results[(name, "on")], results[(name, "off")]
        ratios = [b[0] / a[0] for a, b in zip(on, off, strict=True)]
        print(f"  {name}: stock / piece by round: {', '.join(f'{r:.2f}' for r in ratios)}")


def _switch(piece: str) -> Callable[[bool], None]:
    """A function that puts ``piece`` in (True) or the stock part in its place (False)."""
    from django.conf import settings

    import games.changes
    from core import batch

    if piece == "lean-views":
        return _lean_switch()
    if piece == "api-middleware":
        return _api_middleware_switch()
    if piece == "token-cache":
        seconds = settings.TOKEN_CACHE_SECONDS

        def token_cache(on: bool) -> None:
            settings.TOKEN_CACHE_SECONDS = seconds if on else 0.0

        return token_cache
    if piece == "batch":
        write = games.changes.write_change

        def orm_write(row: Any, fields: Any, new_rows: Any, expected: Any = None) -> bool:
            groups: dict[Any, list[Any]] = {}
            for new in new_rows:
                groups.setdefault(type(new), []).append(new)
            return batch._write_with_orm(row, fields, groups, expected or {})

        def batch_write(on: bool) -> None:
            games.changes.write_change = write if on else orm_write

        return batch_write
    raise SystemExit(f"unknown piece {piece}")


def _lean_switch() -> Callable[[bool], None]:
    """The routes' lean views (api/lean.py) swapped for REST framework views: their
    documentation classes with the handlers' bodies as methods."""
    from django.conf import settings
    from rest_framework.request import Request
    from rest_framework.response import Response

    import accounts.selectors
    import accounts.urls
    import games.play
    import games.urls
    import server.handlers
    from accounts.api import MeView
    from core.errors import Invalid
    from games import selectors
    from games.api import MAX_IDEMPOTENCY_KEY, GameActionsView, GameView
    from games.serializers import valid_action

    class StockMe(MeView):
        def get(self, request: Request) -> Response:
            return Response(accounts.selectors.me(request.user, token=request.auth))

    class StockGame(GameView):
        def get(self, request: Request, game_id: int) -> Response:
            return Response(selectors.game_view_for(game_id, request.user))

    class StockActions(GameActionsView):
        def post(self, request: Request, game_id: int) -> Response:
            body = request.data
            action, expected = valid_action(body)
            key = request.headers.get("Idempotency-Key") or None
            if key is not None and len(key) > MAX_IDEMPOTENCY_KEY:
                raise Invalid("invalid", "Idempotency-Key too long.")
            acted = games.play.submit_action(
                request.user,
                game_id=game_id,
                action=action,
                expected_version=expected,
                idempotency_key=key,
                fingerprint=(
                    games.play.request_fingerprint(path=request.path, body=body) if key else ""
                ),
            )
            return Response(acted.view)

    patterns = {p.name: p for p in [*accounts.urls.urlpatterns, *games.urls.urlpatterns]}
    views = {
        "me": (patterns["me"].callback, StockMe.as_view()),
        "game": (patterns["game"].callback, StockGame.as_view()),
        "game-actions": (patterns["game-actions"].callback, StockActions.as_view()),
    }

    def switch(on: bool) -> None:
        for name, (lean, stock) in views.items():
            patterns[name].callback = lean if on else stock
        server.handlers._route.cache_clear()  # the handler keeps each path's match
        _, match = server.handlers._route(settings.ROOT_URLCONF, "/api/v1/me")
        assert match is not None and (match.func is views["me"][0]) == on

    return switch


def _api_middleware_switch() -> Callable[[bool], None]:
    """The application's sync handler swapped for one built with the API's middleware only."""
    from django.conf import settings
    from django.test import override_settings

    import config.asgi
    import server.handlers

    application = config.asgi.application
    whole = application._sync_views
    api_only = [
        "django.middleware.security.SecurityMiddleware",
        "api.middleware.ApiGuardMiddleware",
    ]
    assert all(name in settings.MIDDLEWARE for name in api_only)
    with override_settings(MIDDLEWARE=api_only):
        short = server.handlers.SyncHandler()

    def switch(on: bool) -> None:
        application._sync_views = short if on else whole

    return switch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--piece",
        required=True,
        choices=["lean-views", "token-cache", "batch", "api-middleware"],
    )
    parser.add_argument("--moves", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--database", default="sergeant_piecescpu")
    parser.add_argument("--redis-db", type=int, default=0)
    args = parser.parse_args()
    move_cpu.setup(args.database, args.redis_db, move_cpu.ROOT)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
