"""Every page of the site passes axe-core with no serious or critical violation, at a
desktop's and a phone's width, and its disabled controls keep a text contrast of at least
4.5:1; a person plays a game at the table by keyboard alone (docs/web.md, "Accessibility").

axe-core comes from the npm registry at the version tests/package-lock.json pins (``make
browser`` installs it). Every named path of web/urls.py is either visited here, with real
objects behind it (a game in play as a player and as a spectator, a finished game, a
tournament...), or listed as no page of its own (a form's target, a stream, a fragment of a
page visited): a path added to the site without either fails :func:`test_every_page_is_visited`
with its name. Adding a visit is one line of :data:`VISITS`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, reverse
from playwright.sync_api import Browser, BrowserContext, Page

from accounts.models import Player
from accounts.services import register_player
from arena import services as arena
from bots.services import create_bot_account
from challenges.services import create_challenge
from clubs import services as clubs
from games import play, selectors, tables
from games.engine import Game as Engine
from games.models import Game
from leagues import services as leagues
from quickplay.services import create_seek
from ratings.services import rate_game
from tests.browser import ARTEFACTS, DESKTOP, PASSWORD, PHONE, new_page
from tests.conftest import LiveServer
from tests.contrast import faint_disabled_controls
from tests.game_helpers import choose_action
from tests.rating_helpers import finished_game
from tests.support import ROOT
from tests.tournament_helpers import play_fallbacks
from tournaments.models import Entrant, TournamentTable
from tournaments.services import entries, running, setup, table_results
from web.urls import urlpatterns

AXE = ROOT / "tests" / "node_modules" / "axe-core" / "axe.min.js"
#: The impacts that fail a page.
FAILING = ("serious", "critical")
WIDTHS = (DESKTOP, PHONE)


@dataclass(frozen=True)
class Visit:
    """One page to check: the path's name in web/urls.py (``not-found`` for an unknown path),
    what it shows, who looks (``visitor``: nobody signed in; ``guest``: a visitor who becomes a
    guest on the page; ``member``: ann; ``player``:
    the person to act in the game in play; ``dealer``: the dealer choosing a discard;
    ``seeker``: the person waiting for a quick-play seat; ``seated``: a player of the
    in-person night's table), and its path, with the ids of
    :class:`World` filled in."""

    name: str
    label: str
    viewer: str
    path: str
    #: Done on the page before it is checked (a form sent with mistakes, a dialog opened).
    then: Callable[[Page], None] | None = None


def send_signup_with_mistakes(page: Page) -> None:
    page.fill("input[name=username]", "x")
    page.fill("input[name=password]", "123")
    page.click("main form button[type=submit]")
    page.wait_for_selector(".has-error")


def start_the_lesson(page: Page) -> None:
    page.click("[data-action=start-lesson]")
    page.wait_for_selector("main[data-game-id]")
    page.wait_for_function("() => document.querySelector('[data-testid=coach]').textContent")


def open_resign_dialog(page: Page) -> None:
    page.click("[data-action=resign]")
    page.wait_for_selector("[data-testid=resign-dialog][open]")


VISITS = [
    Visit("home", "the start page", "visitor", "/"),
    Visit("home", "the start page, signed in", "member", "/"),
    Visit("signup", "sign up", "visitor", "/signup"),
    Visit("signup", "sign up, with mistakes", "visitor", "/signup", send_signup_with_mistakes),
    Visit("login", "log in", "visitor", "/login?next=/lobby"),
    Visit("rules", "the rules", "visitor", "/rules"),
    Visit("learn", "the lesson's start", "visitor", "/learn"),
    Visit("learn", "the lesson, its coach", "guest", "/learn", start_the_lesson),
    Visit("play-computer", "play the computer", "visitor", "/play/computer"),
    Visit("lobby", "the lobby", "member", "/lobby"),
    Visit("quickplay-seek", "waiting for a quick-play seat", "seeker", "/quickplay/{seek}"),
    Visit("game", "a game, the player to act", "player", "/games/{playing}"),
    Visit("game", "a game, the resign dialog", "player", "/games/{playing}", open_resign_dialog),
    Visit("game", "a game, the dealer's discard", "dealer", "/games/{discarding}"),
    Visit("game", "a game, a spectator", "visitor", "/games/{playing}"),
    Visit("game", "a finished game", "member", "/games/{finished}"),
    Visit("game", "a game of a duplicate round, to others", "visitor", "/games/{embargoed}"),
    Visit("game-replay", "a replay", "member", "/games/{finished}/replay"),
    Visit("game-replay", "a replay, a later step", "visitor", "/games/{finished}/replay?step=9"),
    Visit("game-replay", "a replay of a game in play", "visitor", "/games/{playing}/replay"),
    Visit("web-challenges", "challenges", "member", "/challenges"),
    Visit("leaderboard", "the leaderboard", "visitor", "/leaderboard"),
    Visit("player", "a profile", "visitor", "/players/ann"),
    Visit("bots", "my bots", "member", "/bots"),
    Visit("web-arena", "the arena", "visitor", "/arena"),
    Visit("web-tournaments", "tournaments", "visitor", "/tournaments"),
    Visit("web-tournament-new", "a new tournament", "member", "/tournaments/new"),
    Visit(
        "web-tournament", "a running tournament, its organiser", "member", "/tournaments/{running}"
    ),
    Visit("web-tournament", "a tournament open for entries", "member", "/tournaments/{open}"),
    Visit("web-tournament", "an in-person night", "member", "/tournaments/{in_person}"),
    Visit(
        "web-tournament-print",
        "an in-person night's seating sheet",
        "visitor",
        "/tournaments/{in_person}/print",
    ),
    Visit(
        "web-tournament-table",
        "an in-person table, a player to confirm",
        "seated",
        "/tournaments/{in_person}/tables/{in_person_code}",
    ),
    Visit(
        "web-tournament-table",
        "an in-person table, a visitor",
        "visitor",
        "/tournaments/{in_person}/tables/{in_person_code}",
    ),
    Visit("web-screen", "the room's screen", "visitor", "/tournaments/{in_person}/screen"),
    Visit("web-clubs", "clubs", "visitor", "/clubs"),
    Visit("web-clubs", "clubs, the form that founds one", "member", "/clubs"),
    Visit("web-club", "a club, its owner with a request waiting", "member", "/clubs/{club}"),
    Visit("web-club", "a club, a visitor", "visitor", "/clubs/{club}?pool=in_person"),
    Visit("web-club-league", "a league", "visitor", "/clubs/{club}/leagues/{league}"),
    Visit("web-club-league", "a league, its admin", "member", "/clubs/{club}/leagues/{league}"),
    Visit("not-found", "an unknown path", "visitor", "/no-such-page"),
]

#: The named paths that are no page of their own, and why.
NOT_PAGES = {
    **dict.fromkeys(
        [
            "logout",
            "hints",
            "table-join",
            "table-leave",
            "table-cancel",
            "table-bots",
            "quickplay",
            "quickplay-cancel",
            "web-challenge-accept",
            "web-challenge-decline",
            "web-challenge-cancel",
            "web-challenge-rematch",
            "web-tournament-register",
            "web-tournament-decline",
            "web-tournament-withdraw",
            "web-tournament-entrant-add",
            "web-tournament-entrant-remove",
            "web-tournament-start",
            "web-tournament-settings",
            "web-tournament-adjudicate",
            "web-tournament-pair-add",
            "web-tournament-pair-remove",
            "web-tournament-organiser-add",
            "web-tournament-organiser-remove",
            "web-club-join",
            "web-club-leave",
            "web-club-settings",
            "web-club-invite",
            "web-club-invitation-decline",
            "web-club-request-approve",
            "web-club-request-decline",
            "web-club-member-role",
            "web-club-member-remove",
            "web-club-league-new",
            "web-club-league-night",
        ],
        "post",  # a form's target: answers a GET with 405
    ),
    "games-in-play-live": "a stream of the start page's list",
    "web-challenges-live": "a stream of the challenges page's lists",
    "notifications-live": "a stream of the bell's list",
    "game-table": "the game page's table alone (its script fetches it)",
    "game-result": "a finished game's result box alone (its script fetches it)",
    "web-tournament-live": "the tournament page's live part alone (its script fetches it)",
    "web-screen-live": "the room's screen alone (its script fetches it)",
}


# --- The paths --------------------------------------------------------------------------------


def named_paths() -> dict[str, URLPattern]:
    found = {}
    for pattern in urlpatterns:
        assert isinstance(pattern, URLPattern) and pattern.name, pattern
        found[pattern.name] = pattern
    return found


def test_every_page_is_visited() -> None:
    paths = named_paths()
    visited = {visit.name for visit in VISITS} - {"not-found"}
    unknown = sorted(set(paths) - visited - set(NOT_PAGES))
    assert not unknown, (
        f"pages with no visit in tests/test_web_accessibility.py: {unknown} "
        "(add a Visit to VISITS, or to NOT_PAGES if it is no page)"
    )
    assert not (visited | set(NOT_PAGES)) - set(paths), "a visit or an exception names no path"
    assert not visited & set(NOT_PAGES)


@pytest.mark.django_db
def test_the_paths_said_to_be_forms_targets_refuse_a_get(client: Client) -> None:
    player, _ = register_player("getter", password=PASSWORD)
    client.force_login(player)
    paths = named_paths()
    for name in (name for name, why in NOT_PAGES.items() if why == "post"):
        arguments = dict.fromkeys(paths[name].pattern.converters, 1)
        assert client.get(reverse(name, kwargs=arguments)).status_code == 405, name


# --- The objects behind the pages -------------------------------------------------------------


@dataclass
class World:
    """The ids and slugs the visits' paths name, and who views as ``player`` and ``dealer``."""

    people: dict[str, Player]
    ids: dict[str, int] = field(default_factory=dict)
    #: The in-person tables' codes the paths name.
    codes: dict[str, str] = field(default_factory=dict)
    #: The slugs the visits' paths name (a club's).
    slugs: dict[str, str] = field(default_factory=dict)
    viewers: dict[str, str] = field(default_factory=dict)


def act_until(game_id: int, done: Callable[[dict[str, Any]], bool], rng: random.Random) -> str:
    """Play random legal actions for every seat until the view of the seat to act satisfies
    ``done``; returns that seat's username."""
    for _ in range(200):
        game = Game.objects.get(pk=game_id)
        assert game.status == Game.Status.PLAYING, "the game ended first"
        seat = game.to_act[0]
        view = selectors.game_view(game, Engine.from_json(game.state), seat)
        if done(view):
            return str(game.players.get(seat=seat).player.username)
        play.act_for_seat(
            game_id, seat=seat, action=choose_action(view, rng), expected_version=game.version
        )
    raise AssertionError("no such moment in 200 actions")


def follows_suit(view: dict[str, Any]) -> bool:
    """A card to play, with some cards of the hand not playable."""
    plays = [a for a in view["legal_actions"] if a["type"] == "play"]
    return bool(plays) and len(plays) < len(view["your_hand"])


def discards(view: dict[str, Any]) -> bool:
    return any(a["type"] == "discard" for a in view["legal_actions"])


def live_game(people: list[Player]) -> int:
    table = tables.create_table(
        people[0], rules="classic", rated=True, move_seconds=3600, seat=None
    )
    for seat, person in enumerate(people):
        tables.join_table(person, table_id=table.pk, seat=seat)
    return int(Game.objects.get(table=table).pk)


def build_world() -> World:
    names = ["ann", "bob", "cat", "dee"]
    people = {name: register_player(name, password=PASSWORD)[0] for name in names}
    ann, bob, cat, dee = (people[name] for name in names)
    world = World(people)
    rng = random.Random(47)

    # Finished, rated games: the profile's chart, the leaderboard, a replay.
    for seed in range(2):
        game = finished_game([ann, bob, cat], seed)
        rate_game(game.pk)
    world.ids["finished"] = game.pk
    # Games in play, one at a card with some cards unplayable, one at the dealer's discard.
    world.ids["playing"] = live_game([ann, bob, cat])
    world.viewers["player"] = act_until(world.ids["playing"], follows_suit, rng)
    world.ids["discarding"] = live_game([bob, cat, dee])
    world.viewers["dealer"] = act_until(world.ids["discarding"], discards, rng)
    # Two house bots of one kind at a game in play; open tables (another's, and ann's own
    # with a bot seated and a seat free).
    house = tables.create_table(dee, rules="classic", rated=False, move_seconds=3600, seat=0)
    for seat in (1, 2):
        tables.seat_bot(dee, table_id=house.pk, bot="house:random", seat=seat)
    tables.create_table(bob, rules="classic", rated=False, move_seconds=60, seat=0)
    own = tables.create_table(ann, rules="classic", rated=True, move_seconds=60, seat=0)
    tables.seat_bot(ann, table_id=own.pk, bot="house:strong", seat=1)
    # A quick-play seek waiting for people (bob's: ann's lobby shows the quick-play form);
    # challenges to ann and from her.
    world.ids["seek"] = create_seek(bob, rules="classic", rated=True, move_seconds=60).pk
    world.viewers["seeker"] = bob.username
    create_challenge(bob, to=["ann", "house:random"])
    create_challenge(ann, to=["cat", "house:heuristic"])
    # A bot of ann's, in the classic arena.
    bot, _ = create_bot_account(ann, username="annbot", mode="poll", webhook_url="")
    arena.join(bot.player, pool="classic")
    # A running duplicate tournament that ann organises and plays in, and one open for entries.
    values = {"rules": "classic", "format": "swiss", "rounds": 2, "hands_per_game": 1}
    duplicate = {"name": "Club night", "duplicate": True, **values}
    running_one = setup.create_tournament(ann, values=duplicate)
    for person in (ann, bob, cat):
        entries.register(person, tournament_id=running_one.pk)
    running.start(ann, tournament_id=running_one.pk)
    # Its first round played: places and scores in the standings and the rounds.
    (first,) = Game.objects.filter(tournament_table__round__tournament=running_one)
    play_fallbacks(first.pk)
    running.advance(tournament_id=running_one.pk)
    # Its second round's game, kept from all but its players while the round plays.
    (second,) = Game.objects.filter(tournament_table__round__tournament=running_one).exclude(
        pk=first.pk
    )
    world.ids["embargoed"] = second.pk
    world.ids["running"] = running_one.pk
    open_one = setup.create_tournament(bob, values={"name": "Next week", **values})
    entries.register(ann, tournament_id=open_one.pk)
    world.ids["open"] = open_one.pk
    # A club that ann owns, the others its members, taking requests: eve's waits.
    club = clubs.create_club(ann, name="The Crown", joining="open", description="Tuesdays.")
    for person in (bob, cat, dee):
        clubs.join(person, slug=club.slug)
    clubs.update_club(ann, slug=club.slug, changes={"joining": "request"})
    clubs.join(register_player("eve", password=PASSWORD)[0], slug=club.slug)
    world.slugs["club"] = club.slug
    # An in-person night of the club that ann organises and plays in: a table code, an
    # entry to confirm; a night of the club's league, and another of its tournaments.
    in_person = {"name": "At the Crown", "venue": "in_person", "club": club.slug, **values}
    night = setup.create_tournament(ann, values=in_person)
    for person in (ann, bob, cat, dee):
        entries.register(person, tournament_id=night.pk)
    running.start(ann, tournament_id=night.pk)
    (table,) = TournamentTable.objects.filter(round__tournament=night)
    seated = Entrant.objects.get(pk=table.entrant_ids()[0]).player
    table_results.enter_result(
        seated, tournament_id=night.pk, round_number=1, code=table.code, scores=[3, -1, -2]
    )
    world.ids["in_person"] = night.pk
    world.codes["in_person_code"] = table.code
    # Another player of the table, who may confirm the entry.
    world.viewers["seated"] = Entrant.objects.get(pk=table.entrant_ids()[1]).player.username
    league = leagues.create_league(ann, slug=club.slug, name="Winter", scoring="sum")
    leagues.add_night(ann, slug=club.slug, league_id=league.pk, tournament_id=night.pk)
    setup.create_tournament(ann, values={"name": "Next Tuesday", "club": club.slug, **values})
    world.ids["league"] = league.pk
    return world


# --- Checking a page --------------------------------------------------------------------------


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's violations of the page as it is now (every rule axe runs by default)."""
    if not page.evaluate("() => 'axe' in window"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    return list(found["violations"])


def problems_of(page: Page, where: str) -> list[str]:
    """What fails the page at its present width: axe's serious and critical violations (the
    rule, what it asks, and each element with axe's summary), then the disabled controls
    whose text is too faint."""
    said = []
    for violation in axe_violations(page):
        if violation["impact"] not in FAILING:
            continue
        said.append(f"{where}: {violation['id']} ({violation['impact']}): {violation['help']}")
        for node in violation["nodes"]:
            summary = " ".join(node["failureSummary"].split())
            said.append(f"    {' '.join(map(str, node['target']))}: {summary}")
    said += [
        f"{where}: disabled control too faint: {faint}" for faint in faint_disabled_controls(page)
    ]
    return said


def check(page: Page, base: str, visit: Visit, world: World) -> list[str]:
    """The visit's page at each width, photographed full length."""
    path = visit.path.format(**world.ids, **world.codes, **world.slugs)
    slug = "-".join(visit.label.replace(",", "").replace("'", "").split())
    page.set_viewport_size(DESKTOP)  # type: ignore[arg-type]
    page.goto(base + path)
    if visit.then:
        visit.then(page)
    said = []
    for size in WIDTHS:
        page.set_viewport_size(size)  # type: ignore[arg-type]
        said += problems_of(page, f"{visit.label} ({path}, {size['width']} px)")
        shot = ARTEFACTS / f"a11y-{slug}-{size['width']}.png"
        page.screenshot(path=str(shot), full_page=True)
    return said


def log_in(context: BrowserContext, base: str, username: str) -> None:
    page = context.new_page()
    page.goto(f"{base}/login")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{base}/")
    page.close()


@pytest.fixture
def contexts(browser: Browser) -> Iterator[dict[str, BrowserContext]]:
    """A browser context per viewer, made on first use."""
    made: dict[str, BrowserContext] = {}
    try:
        yield made
    finally:
        for context in made.values():
            context.close()


@pytest.mark.django_db(transaction=True)
def test_every_page_passes_axe_at_both_widths(
    api_server: LiveServer, browser: Browser, contexts: dict[str, BrowserContext]
) -> None:
    assert AXE.exists(), f"axe-core is missing: `make browser` installs it ({AXE})"
    started = time.monotonic()
    world = build_world()
    viewers = {"visitor": "", "guest": "", "member": "ann", **world.viewers}
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    pages: dict[str, Page] = {}
    for visit in VISITS:
        if visit.viewer not in pages:
            context = contexts[visit.viewer] = browser.new_context(viewport=DESKTOP)  # type: ignore[arg-type]
            context.set_default_timeout(20_000)
            if viewers[visit.viewer]:
                log_in(context, api_server.url, viewers[visit.viewer])
            pages[visit.viewer] = new_page(context)
        problems += check(pages[visit.viewer], api_server.url, visit, world)
    errors = {viewer: page.errors for viewer, page in pages.items() if page.errors}  # type: ignore[attr-defined]
    print(
        f"{len(VISITS)} pages checked at {len(WIDTHS)} widths in {time.monotonic() - started:.0f} s"
    )
    assert not problems, "axe-core and the contrast check found:\n" + "\n".join(problems)
    assert not errors, errors


# --- Playing by keyboard alone ----------------------------------------------------------------


def tab_to(page: Page, selector: str, *, back: bool = False, limit: int = 120) -> str:
    """Press Tab (Shift+Tab with ``back``) until the focus is on an element matching
    ``selector``; returns its ``data-card`` or its text."""
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        found = page.evaluate(
            """s => { const e = document.activeElement; if (!e || !e.matches(s)) return null;
                      return e.dataset.card || e.textContent.trim(); }""",
            selector,
        )
        if found is not None:
            return str(found)
    raise AssertionError(f"{limit} presses of Tab never reached {selector}")


def shown_phase(page: Page, phase: str) -> None:
    page.wait_for_selector(f"main[data-game-id][data-phase={phase}]")


PLAYABLE = "main .hand button[data-card][data-send]:not([disabled])"


@pytest.mark.django_db(transaction=True)
def test_a_person_plays_by_keyboard_alone(api_server: LiveServer, context: BrowserContext) -> None:
    """The dealer names trump, discards four cards and plays two cards with Tab, Shift+Tab,
    Enter and Space only; the other seats play through the services meanwhile."""
    names = ["kim", "lou", "max"]
    people = [register_player(name, password=PASSWORD)[0] for name in names]
    game_id = live_game(people)
    rng = random.Random(8)
    dealer = act_until(game_id, lambda view: True, rng)
    seat = int(Game.objects.get(pk=game_id).players.get(player__username=dealer).seat)
    log_in(context, api_server.url, dealer)
    page = new_page(context)
    page.goto(f"{api_server.url}/games/{game_id}")
    shown_phase(page, "trump")

    # Trump: a suit's button, reached by Tab and pressed with Enter.
    tab_to(page, "main button[data-suit]:not([disabled])")
    page.keyboard.press("Enter")
    shown_phase(page, "discard")
    assert page.locator("main [data-trump]").count() == 1

    # The discard: four cards picked with Space, each the next by Tab, then back to Confirm.
    picked = []
    for _ in range(4):
        picked.append(tab_to(page, "main .hand button.pick"))
        page.keyboard.press("Space")
    pressed = page.locator("main .hand button[aria-pressed=true]")
    assert sorted(pressed.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(picked)
    tab_to(page, "main [data-action=confirm]:not([disabled])", back=True)
    page.keyboard.press("Enter")
    shown_phase(page, "play")
    discards = page.locator("main [aria-label='Cards only you see'] [data-card]")
    assert len(set(discards.evaluate_all("els => els.map(e => e.dataset.card)")) & set(picked)) == 4

    # Two cards played when the turn comes: one with Enter, one with Space.
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    for key in ("Enter", "Space"):
        act_until(game_id, lambda view: view["your_seat"] == seat, rng)
        page.locator('[data-testid="turn-alert"]').wait_for(state="visible")
        version = page.locator("main[data-game-id]").get_attribute("data-version")
        card = tab_to(page, PLAYABLE)
        if key == "Enter":
            for size in (PHONE, DESKTOP):
                page.set_viewport_size(size)  # type: ignore[arg-type]
                page.screenshot(path=str(ARTEFACTS / f"table-keyboard-focus-{size['width']}.png"))
        page.keyboard.press(key)
        page.wait_for_function(
            "v => document.querySelector('main[data-game-id]').dataset.version !== v", arg=version
        )
        held = Engine.from_json(Game.objects.get(pk=game_id).state).view(seat)["your_hand"]
        assert card not in held
        assert page.locator(f"main .hand button[data-card='{card}']").count() == 0
    assert page.errors == []  # type: ignore[attr-defined]
