"""Playing in a browser: sign up, set up a table with house bots, play to the end by clicking,
while a spectator watches; no page ever shows a card its viewer may not see.

Chromium drives the pages of the suite's live server, whose house bots are played by the
suite's real Celery worker (docs/web.md).
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import BrowserContext

from games.engine import Game as Engine
from tests.browser import (
    Play,
    create_table,
    new_page,
    play_to_end,
    screenshots,
    sign_up,
    table,
    visible_cards,
    wait_for_change,
)
from tests.cuttable_proxy import CuttableProxy

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def site(api_server: Any, celery_worker: Any) -> str:
    return str(api_server.url)


def record_of(site: str, game_id: int) -> dict[str, Any]:
    response = httpx.get(f"{site}/api/v1/games/{game_id}/record", timeout=10)
    assert response.status_code == 200
    return dict(response.json())


def engine_at(record: dict[str, Any], version: int) -> Engine:
    """The game replayed from its record up to ``version`` (a game's version counts its
    actions: each stored change is one action)."""
    engine = Engine.from_deals(record["rules"], record["deals"], record["first_dealer"])
    for action in record["actions"][:version]:
        engine.apply_dict(action["seat"], {k: v for k, v in action.items() if k != "seat"})
    return engine


def completed_tricks(record: dict[str, Any], version: int) -> list[list[str]]:
    """Every trick completed by ``version``, its cards in the order played (a hand's plays
    are whole tricks, so the game's plays, taken a table's number of players at a time)."""
    players = Engine.from_deals(record["rules"], record["deals"], record["first_dealer"]).players
    plays = [str(a["card"]) for a in record["actions"][:version] if a["type"] == "play"]
    return [plays[i : i + players] for i in range(0, len(plays) - players + 1, players)]


def assert_nothing_hidden_was_shown(played: Play, record: dict[str, Any]) -> None:
    """Each snapshot taken during play against the game replayed from its record to the
    snapshot's version: a page shows only cards its viewer may know then (own hand, cards
    played, cards it gave or got, the kitty to the dealer); in particular never a card that
    another seat holds at that moment, unless the viewer handed it over."""
    checked = 0
    for shot in played.snapshots:
        if shot.status != "playing":
            continue
        engine = engine_at(record, shot.version)
        allowed = visible_cards(engine.view(shot.seat))
        leaked = shot.cards - allowed
        assert not leaked, f"{shot.viewer} (seat {shot.seat}) saw {leaked} at v{shot.version}"
        others = set().union(
            *(
                set(engine.view(seat)["your_hand"])
                for seat in range(engine.players)
                if seat != shot.seat
            )
        )
        assert not (shot.cards & others) - allowed
        # A completed trick drawn on the felt for a moment (it may be a hand's last, after
        # the next hand has begun): one that was played, all of it, by then.
        if shot.gathered:
            assert shot.gathered in completed_tricks(record, shot.version), shot
        checked += 1
    assert checked > 10


def test_it_lets_a_new_person_play_a_whole_game_against_house_bots_while_a_spectator_watches(
    site: str, context: BrowserContext
) -> None:
    page = new_page(context)
    requested: dict[str, list[str]] = {"player": [], "spectator": []}
    page.on("request", lambda request: requested["player"].append(request.url))
    sign_up(page, site, "ann")
    screenshots(page, "home-logged-in")
    page.goto(f"{site}/lobby")
    screenshots(page, "lobby")
    game_id = create_table(page, site, preset="classic", bots=["house:heuristic", "house:random"])
    assert table(page)["your-seat"] == "0"
    assert table(page)["status"] == "playing"

    # The spectator's browser has no EventSource: its page follows by the long poll.
    spectator_context = context.browser.new_context()  # type: ignore[union-attr]
    spectator_context.add_init_script("delete window.EventSource")
    spectator = new_page(spectator_context)
    spectator.on("request", lambda request: requested["spectator"].append(request.url))
    spectator.goto(f"{site}/games/{game_id}")
    assert table(spectator)["your-seat"] is None
    assert page.locator("#sound-toggle").get_attribute("aria-pressed") == "true"  # on by default
    screenshots(page, "game-playing")

    played = play_to_end(page, {"spectator": spectator})

    result = page.locator('[data-testid="result"]')
    result.wait_for()
    ranks = result.locator("tr[data-rank]")
    assert ranks.count() == 3
    record = record_of(site, game_id)
    assert played.clicks > 10 and {"card", "keyboard"} <= played.buttons
    if any(hand["dealer"] == 0 for hand in record["hands"]):  # the game may end in one hand
        assert "suit" in played.buttons and played.choices.get("discard")
    shown = {
        int(str(ranks.nth(i).get_attribute("data-seat"))): (
            int(str(ranks.nth(i).get_attribute("data-rank"))),
            int(str(ranks.nth(i).get_attribute("data-score"))),
        )
        for i in range(3)
    }
    assert shown == {s: (record["ranks"][s], record["scores"][s]) for s in range(3)}
    screenshots(page, "game-finished")
    # The spectator's page follows to the end by itself and then shows the result too.
    spectator.locator('[data-testid="result"]').wait_for()
    assert table(spectator)["status"] == "finished"
    assert_nothing_hidden_was_shown(played, record)
    assert page.errors == [] and spectator.errors == []  # type: ignore[attr-defined]
    assert any(f"/games/{game_id}/live" in url for url in requested["player"])
    assert not any("/live" in url for url in requested["spectator"])
    assert any(f"/games/{game_id}/events" in url for url in requested["spectator"])
    spectator_context.close()

    # The game is in the player's match history, and leads back to its page.
    page.goto(f"{site}/players/ann")
    row = page.locator(f'tr[data-game-id="{game_id}"]')
    assert row.count() == 1
    screenshots(page, "profile")
    row.locator(f'a[href="/games/{game_id}"]').first.click()
    page.wait_for_url(f"{site}/games/{game_id}")
    # After the end, the record is everyone's: every dealt card is on the page.
    first_deal = {card for hand in record["deals"][0]["hands"] for card in hand}
    assert first_deal <= set(
        page.locator(".record [data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
    )

    # The replay: step 0 shows every dealt hand; the arrow keys step forwards and back.
    page.click(f'a[href="/games/{game_id}/replay"]')
    replay = page.locator("main[data-step]")
    assert replay.get_attribute("data-step") == "0"
    cards = "els => els.map(e => e.dataset.card)"
    shown = set(page.locator("main [data-card]").evaluate_all(cards))
    assert first_deal <= shown
    screenshots(page, "replay")
    for key, step in (("ArrowRight", "1"), ("ArrowRight", "2"), ("ArrowLeft", "1")):
        page.keyboard.press(key)
        page.wait_for_function(
            "s => document.querySelector('main[data-step]').dataset.step === s", arg=step
        )
    page.keyboard.press("End")
    page.wait_for_function(
        "() => { const m = document.querySelector('main[data-step]');"
        " return m.dataset.step === m.dataset.lastStep; }"
    )
    assert page.locator('main [data-testid="result"]').count() == 1
    assert page.errors == []  # type: ignore[attr-defined]


def test_it_plays_an_exchange_through_the_page_in_a_four_handed_game(
    site: str, context: BrowserContext
) -> None:
    page = new_page(context)
    sign_up(page, site, "bea")
    bots = ["house:heuristic", "house:random", "house:heuristic"]
    game_id = create_table(page, site, preset="four-handed", bots=bots, max_hands="3")
    # The spectator follows the push channel through a network that the test cuts.
    network = CuttableProxy(int(site.rsplit(":", 1)[1]))
    spectator_context = context.browser.new_context()  # type: ignore[union-attr]
    spectator = new_page(spectator_context)
    spectator.goto(f"{network.url}/games/{game_id}")
    versions_while_offline = []
    said_while_offline = []

    def drop_the_spectators_connection(clicks: int) -> None:
        if clicks == 3:
            network.cut()
            # What the page had received before the cut, it may still be showing, paced.
            spectator.wait_for_timeout(4_000)
        elif 3 < clicks < 8:
            versions_while_offline.append(table(spectator)["version"])
            said_while_offline.append(spectator.locator("#connection").inner_text())
        elif clicks == 8:
            network.restore()

    played = play_to_end(page, {"spectator": spectator}, on_click=drop_the_spectators_connection)

    # Cut off, the spectator's page stood still and said so; reconnected, it caught up.
    assert len(set(versions_while_offline)) == 1
    assert "Connection lost" in said_while_offline[-1]
    spectator.locator('[data-testid="result"]').wait_for()
    assert table(spectator)["version"] == table(page)["version"]
    network.close()
    record = record_of(site, game_id)
    assert_nothing_hidden_was_shown(played, record)
    # A player who wins 10 of the 13 tricks ends the game after that hand: until a game
    # reaches a second hand, there is no exchange to play.
    for _ in range(3):
        if any(hand["exchange"] for hand in record["hands"]):
            break
        game_id = create_table(page, site, preset="four-handed", bots=bots, max_hands="3")
        played = play_to_end(page, {})
        record = record_of(site, game_id)
        assert_nothing_hidden_was_shown(played, record)
    assert any(hand["exchange"] for hand in record["hands"]), "no exchange in four games"
    gives = [action for action in record["actions"] if action["type"] == "give"]
    assert played.choices.get("give", 0) == sum(1 for g in gives if g["seat"] == 0)
    assert page.errors == []  # type: ignore[attr-defined]


def test_it_plays_the_calls_preset_with_no_trumps_and_misere_buttons(
    site: str, context: BrowserContext
) -> None:
    page = new_page(context)
    sign_up(page, site, "cai")
    game_id = create_table(
        page, site, preset="calls", bots=["house:random", "house:heuristic"], max_hands="3"
    )

    played = play_to_end(page, {})

    record = record_of(site, game_id)
    assert [hand["dealer"] for hand in record["hands"]].count(0) == 1  # each deals once
    assert played.calls_offered == {"C", "D", "H", "S", "NT", "MIZ"}
    assert "suit" in played.buttons
    assert_nothing_hidden_was_shown(played, record)


def test_it_sends_a_browser_to_log_in_and_back(site: str, context: BrowserContext) -> None:
    page = new_page(context)
    page.goto(f"{site}/signup")
    page.fill("input[name=username]", "x")
    page.fill("input[name=password]", "short")
    page.click("form button[type=submit]")
    assert page.locator('[data-error-for="username"]').count() == 1
    assert page.locator('[data-error-for="password"]').count() == 1
    screenshots(page, "signup-errors")
    sign_up(page, site, "dan")
    page.click("[data-action=logout]")
    page.goto(f"{site}/login?next=/lobby")
    page.fill("input[name=username]", "dan")
    page.fill("input[name=password]", "correct horse battery 9")
    page.click("form button[type=submit]")
    page.wait_for_url(re.compile(r"/lobby$"))
    assert page.locator("#create-table").count() == 1


def test_it_creates_a_bot_whose_token_is_shown_once_and_works(
    site: str, context: BrowserContext
) -> None:
    page = new_page(context)
    sign_up(page, site, "eve")
    page.goto(f"{site}/bots")
    page.fill("input[name=username]", "eves-bot")
    page.click("[data-action=create-bot]")
    token = page.locator("input[data-token]").input_value()
    screenshots(page, "bots")

    me = httpx.get(f"{site}/api/v1/me", headers={"Authorization": f"Token {token}"}, timeout=10)

    assert me.status_code == 200 and me.json()["username"] == "eves-bot"
    page.goto(f"{site}/bots")
    assert page.locator('[data-bot="eves-bot"]').count() == 1
    assert token not in page.content()


def test_it_explains_a_refused_move_from_a_stale_tab_and_catches_up(
    site: str, context: BrowserContext
) -> None:
    page = new_page(context)
    sign_up(page, site, "fay")
    create_table(page, site, preset="classic", bots=["house:heuristic", "house:random"])
    legal = (
        "main .controls button[data-send]:not([disabled]), "
        "main .hand button[data-send]:not([disabled])"
    )
    page.locator(legal).first.wait_for(timeout=30_000)  # the seat's turn
    signed_in = context.storage_state()
    other_context = context.browser.new_context(storage_state=signed_in)  # type: ignore[union-attr]
    stale = new_page(other_context)
    network = CuttableProxy(int(site.rsplit(":", 1)[1]))
    stale.goto(page.url.replace(site, network.url))
    stale.locator(legal).first.wait_for()
    network.cut()

    version = table(page)["version"]
    page.locator(legal).first.click()
    wait_for_change(page, version)
    network.restore()
    stale.locator(legal).first.click()  # sent with the version the stale tab shows

    error = stale.locator(".action-error")
    error.wait_for()
    assert "moved on" in error.inner_text()
    assert int(str(table(stale)["version"])) > int(str(version))
    assert stale.errors == []  # type: ignore[attr-defined]
    other_context.close()
    network.close()
