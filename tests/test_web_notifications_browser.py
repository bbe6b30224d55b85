"""The notification bell in a real browser (docs/web.md "The notification bell"): a member at
a table with two house bots sees the table's title and the bell (on the table and on the
home page in another tab) change when a house bot passes the turn back and when an
organiser invites them to a tournament, and accepts the invitation from the bell, back on
the page they were on. Chromium against the suite's live server, with its real Celery
worker (the house bots) and move timer."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import BrowserContext

from accounts.models import Player
from accounts.services import register_player
from games import play
from games.engine import Game as Engine
from games.models import Game
from tests.browser import create_table, new_page, screenshots, sign_up
from tests.tournament_helpers import PASSWORD, new_tournament
from tournaments.models import Entrant
from tournaments.services import entries

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BELL = '[data-testid="notifications"]'
#: Every state the bell takes on the page: its count and its items, as they come.
BELL_LOG = """
window.__bells = [];
new MutationObserver(() => {
  const bell = document.getElementById("notifications");
  if (!bell) return;
  const items = [...bell.querySelectorAll("li[data-kind]")].map(
    (li) => `${li.dataset.kind}:${li.dataset.id}:${li.dataset.version || ""}`);
  const state = {count: Number(bell.dataset.count), items};
  const last = window.__bells.at(-1);
  if (!last || JSON.stringify(last) !== JSON.stringify(state)) window.__bells.push(state);
}).observe(document, {subtree: true, childList: true, attributes: true});
"""


#: Makes the page hidden (True) or shown (False), as a tab in the background or brought back.
VISIBILITY = """hidden => {
  Object.defineProperty(document, "hidden", {value: hidden, configurable: true});
  document.dispatchEvent(new Event("visibilitychange"));
}"""


def hers(game: Game, player: Player) -> bool:
    return any(game.acting_identity(seat)[0] == player.pk for seat in game.to_act)


def test_a_member_is_told_by_the_bell_and_accepts_an_invitation_from_it(
    api_server: Any, celery_worker: Any, context: BrowserContext
) -> None:
    site = str(api_server.url)
    table_page = new_page(context)
    sign_up(table_page, site, "bella")
    bella = Player.objects.get(username="bella")
    home = new_page(context)  # another tab of the same session
    home.add_init_script(BELL_LOG)
    home.goto(f"{site}/")
    assert home.locator(BELL).get_attribute("data-count") == "0"
    game_id = create_table(
        table_page, site, preset="classic", bots=["house:random", "house:random"]
    )

    # Her turn: the table's title says so, and both tabs' bells list the game.
    table_page.locator('[data-testid="turn-alert"]').wait_for(state="visible", timeout=60_000)
    assert table_page.title().startswith("Your turn")
    for page in (table_page, home):
        page.wait_for_selector(
            f'{BELL} li[data-kind="turn"][data-id="{game_id}"]', state="attached"
        )
    assert home.locator(BELL).get_attribute("data-count") == "1"

    # She plays (her timeout move) until the turn passes to a house bot...
    for _ in range(20):
        game = Game.objects.get(pk=game_id)
        if not hers(game, bella):
            break
        engine = Engine.from_json(game.state)
        seat = next(s for s in engine.to_act() if game.acting_identity(s)[0] == bella.pk)
        action = engine.fallback_action(seat).to_dict()
        play.submit_action(bella, game_id=game_id, action=action, expected_version=game.version)
    else:
        raise AssertionError("the turn never left her")
    left_at = Game.objects.get(pk=game_id).version
    # ...and the bots pass it back: the title and both bells say so, at a newer version.
    table_page.wait_for_function("() => document.title.startsWith('Your turn')", timeout=60_000)
    for page in (table_page, home):
        page.wait_for_function(
            """([id, v]) => { const li = document.querySelector(
                 `#notifications li[data-kind="turn"][data-id="${id}"]`);
               return li && Number(li.dataset.version) > v; }""",
            arg=[game_id, left_at],
            timeout=60_000,
        )
    assert home.evaluate("() => document.getElementById('notifications').dataset.count") == "1"

    # An organiser invites her to a tournament: the bell counts it, without a reload; the
    # table's tab, hidden meanwhile, holds no stream, and catches up once shown again.
    table_page.evaluate(VISIBILITY, True)
    orla = register_player("orla", password=PASSWORD)[0]
    cup = new_tournament(orla, [], name="Friday cup")
    invitation = entries.add_entrant(orla, tournament_id=cup.pk, username="bella")
    item = f'{BELL} li[data-kind="invitation"][data-id="{invitation.pk}"]'
    home.wait_for_selector(item, state="attached")
    home.wait_for_function("() => document.getElementById('notifications').dataset.count === '2'")
    table_page.wait_for_timeout(1_000)
    assert table_page.locator(item).count() == 0
    table_page.evaluate(VISIBILITY, False)
    table_page.wait_for_selector(item, state="attached")
    log = home.evaluate("() => window.__bells")
    assert [state["count"] for state in log][:1] == [0] and log[-1]["count"] == 2
    assert not home.evaluate("() => performance.getEntriesByType('navigation').length > 1")

    # The bell opens from the keyboard and shows the invitation, with its answers.
    home.focus(f"{BELL} > summary")
    home.keyboard.press("Enter")
    assert home.locator(BELL).evaluate("bell => bell.open") is True
    assert "orla invites you to Friday cup" in " ".join(home.locator(item).inner_text().split())
    screenshots(home, "notifications-bell")
    # On a phone the bell's panel stays on the screen, and the navigation keeps one row.
    home.set_viewport_size({"width": 390, "height": 844})
    panel = home.locator(f"{BELL} .bell-panel").bounding_box()
    assert panel is not None and panel["x"] >= 0 and panel["x"] + panel["width"] <= 390
    tops = home.eval_on_selector_all(
        ".site-header nav a", "links => links.map(a => Math.round(a.getBoundingClientRect().top))"
    )
    assert len(set(tops)) == 1, tops
    home.set_viewport_size({"width": 1280, "height": 900})
    # Escape closes it and leaves the focus on it; Enter opens it again.
    home.keyboard.press("Escape")
    assert home.locator(BELL).evaluate("bell => bell.open") is False
    home.keyboard.press("Enter")
    assert home.locator(BELL).evaluate("bell => bell.open") is True

    # She accepts from the bell: entered, and back on the page she was on.
    home.click(f"{item} [data-action=accept]")
    home.wait_for_url(f"{site}/")
    assert "You are entered." in home.locator(".messages").inner_text()
    assert home.locator(item).count() == 0
    assert Entrant.objects.filter(tournament=cup, player=bella).exists()
    table_page.wait_for_selector(item, state="detached")
    for page in (table_page, home):
        assert page.errors == []  # type: ignore[attr-defined]
