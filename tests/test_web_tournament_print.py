"""The printable seating sheet of an in-person night (docs/web.md "The seating sheet"): the
newest seated round's tables with their codes, seats in seat order and a QR code of each
table's result page, a score sheet per table, and a print stylesheet for A4 paper."""

from __future__ import annotations

import html as html_text
import json
import re
from typing import Any

import pytest
import segno
import zxingcpp
from django.test import Client
from playwright.sync_api import BrowserContext, Locator

from accounts.models import Player
from accounts.services import create_person
from tests.browser import ARTEFACTS, PHONE, new_page, screenshots
from tests.conftest import LiveServer
from tests.tournament_helpers import PASSWORD, new_tournament
from tournaments.models import Tournament
from tournaments.services import running, table_results

SECTION = re.compile(r'<section [^>]*data-table-code="([^"]+)"[^>]*>(.*?)</section>', re.S)
SHEET = re.compile(
    r'<article [^>]*data-testid="score-sheet" data-table-code="([^"]+)"[^>]*>(.*?)</article>', re.S
)
SEAT = re.compile(r'<li data-seat="(\d)">.*?<span class="seat-name">(.*?)</span>', re.S)
QR = re.compile(r'<svg [^>]*data-qr="([^"]+)"[^>]*>(.*?)</svg>', re.S)
SHEET_QR = re.compile(r'<svg [^>]*data-sheet-qr="([^"]+)"[^>]*>(.*?)</svg>', re.S)


def person(username: str) -> Player:
    return create_person(username, password=PASSWORD)


def html(response: Any) -> str:
    return str(response.content.decode())


def started_night(count: int = 7, **settings: Any) -> Tournament:
    """An in-person night of ``count`` players (two tables, a bye), its first round seated."""
    ann = person("ann")
    night = new_tournament(
        ann, [person(f"crown{i}") for i in range(count)], venue="in_person", **settings
    )
    running.start(ann, tournament_id=night.pk)
    return night


def api_round(tournament_id: int, number: int) -> dict[str, Any]:
    response = Client().get(f"/api/v1/tournaments/{tournament_id}/rounds/{number}")
    assert response.status_code == 200
    found = json.loads(response.content)
    assert isinstance(found, dict)
    return found


def tables_printed(page: str) -> dict[str, list[str]]:
    """Each table's code → the usernames of its seats, by their data-seat."""
    printed = {}
    for code, body in SECTION.findall(page):
        seats = SEAT.findall(body)
        assert [int(seat) for seat, _ in seats] == list(range(len(seats)))
        printed[code] = [html_text.unescape(name) for _, name in seats]
    return printed


def dark_modules(path_data: str) -> set[tuple[int, int]]:
    """The modules a segno SVG path draws dark: ``M x y`` and ``m dx dy`` move, ``h n``
    draws ``n`` modules along the row whose middle ``y`` is."""
    dark = set()
    x = y = 0.0
    for command, numbers in re.findall(r"([MmHh])([-\d. ]+)", path_data):
        values = [float(n) for n in numbers.split()]
        if command == "M":
            x, y = values
        elif command == "m":
            x, y = x + values[0], y + values[1]
        else:
            length = values[0] if command == "h" else values[0] - x
            dark |= {(int(x) + i, int(y)) for i in range(int(length))}
            x += length
    return dark


def modules_of(url: str, border: int) -> set[tuple[int, int]]:
    """The dark modules of the QR code of ``url`` at medium error correction, as a reader
    finds them (row by row, the quiet zone around)."""
    code = segno.make(url, error="m", micro=False)
    return {
        (column + border, row + border)
        for row, line in enumerate(code.matrix)
        for column, module in enumerate(line)
        if module
    }


def assert_draws_the_qr_of(svg_body: str, url: str) -> None:
    (path_data,) = re.findall(r' d="([^"]+)"', svg_body)
    drawn = dark_modules(path_data)
    assert drawn == modules_of(url, border=4)
    assert drawn != modules_of(url + "X", border=4)  # the comparison tells codes apart


# --- The seating and score sheets -------------------------------------------------------------


@pytest.mark.django_db
def test_it_prints_each_table_of_the_round_with_its_code_and_seats_in_seat_order() -> None:
    night = started_night()
    round_one = api_round(night.pk, 1)

    response = Client().get(f"/tournaments/{night.pk}/print")

    page = html(response)
    assert response.status_code == 200
    assert 'data-testid="print"' in page and 'data-round="1"' in page
    expected = {t["code"]: [s["username"] for s in t["seats"]] for t in round_one["tables"]}
    assert len(expected) == 2
    assert tables_printed(page) == expected
    assert round_one["byes"] and all(name in page for name in round_one["byes"])
    assert night.name in page
    assert f'datetime="{round_one["deadline"]}"' in page
    # A score sheet per table: its seats in the same order, a line per hand and the finals.
    sheets = dict(SHEET.findall(page))
    assert set(sheets) == set(expected)
    for code, sheet in sheets.items():
        names = re.findall(r'data-sheet-seat="\d">Seat \d: (.*?)</th>', sheet)
        assert names == expected[code]
        hands = re.findall(r"<tr><th scope=\"row\">(\d+)</th>", sheet)
        assert hands == ["1"]  # the night's games are of one hand
        assert 'class="final"' in sheet


@pytest.mark.django_db
def test_it_draws_each_tables_qr_code_of_its_result_page_as_the_site_was_reached() -> None:
    night = started_night()
    codes = [t["code"] for t in api_round(night.pk, 1)["tables"]]

    page = html(Client().get(f"/tournaments/{night.pk}/print", HTTP_HOST="localhost", secure=True))

    for code, body in SECTION.findall(page):
        ((url, svg),) = QR.findall(body)
        assert html_text.unescape(url) == f"https://localhost/tournaments/{night.pk}/tables/{code}"
        assert_draws_the_qr_of(svg, html_text.unescape(url))
    sheets = dict(SHEET.findall(page))
    for code in codes:
        ((url, svg),) = SHEET_QR.findall(sheets[code])
        assert url == f"https://localhost/tournaments/{night.pk}/tables/{code}"
        assert_draws_the_qr_of(svg, url)
        assert f"localhost/tournaments/{night.pk}/tables/{code}" in sheets[code]
    assert len(QR.findall(page)) == len(codes)  # data-qr: once per table, on the seating


@pytest.mark.django_db
def test_it_prints_the_newest_round_once_the_next_is_seated() -> None:
    night = started_night(count=6)
    ann = Player.objects.get(username="ann")
    for table in api_round(night.pk, 1)["tables"]:
        table_results.enter_result(
            ann, tournament_id=night.pk, round_number=1, code=table["code"], scores=[2, 0, -2]
        )
    running.advance(tournament_id=night.pk)
    round_two = api_round(night.pk, 2)

    page = html(Client().get(f"/tournaments/{night.pk}/print"))

    assert 'data-round="2"' in page
    expected = {t["code"]: [s["username"] for s in t["seats"]] for t in round_two["tables"]}
    assert tables_printed(page) == expected


@pytest.mark.django_db
def test_it_says_no_round_is_seated_before_the_start() -> None:
    night = new_tournament(person("ann"), [], venue="in_person")

    response = Client().get(f"/tournaments/{night.pk}/print")

    page = html(response)
    assert response.status_code == 200
    assert 'data-testid="no-round"' in page and "data-round" not in page
    assert not SECTION.findall(page) and 'data-testid="score-sheet"' not in page


@pytest.mark.django_db
def test_it_answers_404_for_an_online_or_unknown_tournament() -> None:
    online = new_tournament(person("ann"), [person(f"p{i}") for i in range(3)])
    running.start(online.created_by, tournament_id=online.pk)

    assert Client().get(f"/tournaments/{online.pk}/print").status_code == 404
    assert Client().get("/tournaments/999/print").status_code == 404


@pytest.mark.django_db
def test_it_links_the_print_for_organisers_and_the_screen_for_everyone() -> None:
    night = started_night()
    online = new_tournament(Player.objects.get(username="ann"), [], name="Online")
    organiser = Client()
    organiser.force_login(Player.objects.get(username="ann"))
    player = Client()
    player.force_login(Player.objects.get(username="crown0"))

    mine = html(organiser.get(f"/tournaments/{night.pk}"))
    theirs = html(player.get(f"/tournaments/{night.pk}"))
    elsewhere = html(organiser.get(f"/tournaments/{online.pk}"))

    assert f'href="/tournaments/{night.pk}/print" data-action="print"' in mine
    for page in (mine, theirs):
        assert f'href="/tournaments/{night.pk}/screen" data-action="screen"' in page
    assert 'data-action="print"' not in theirs
    assert 'data-action="print"' not in elsewhere and 'data-action="screen"' not in elsewhere


#: The side, in pixels, at which a QR code is drawn for reading back.
READ_SIZE = 400


def read_qr(svg: Locator) -> str:
    """The text a QR reader finds in ``svg``, drawn by the browser on white, in grey."""
    grey = svg.evaluate(
        """async (svg, size) => {
            const image = new Image();
            const xml = new XMLSerializer().serializeToString(svg);
            image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(xml);
            await image.decode();
            const canvas = document.createElement("canvas");
            canvas.width = canvas.height = size;
            const drawing = canvas.getContext("2d");
            drawing.fillStyle = "#fff";
            drawing.fillRect(0, 0, size, size);
            drawing.drawImage(image, 0, 0, size, size);
            const pixels = drawing.getImageData(0, 0, size, size).data;
            return Array.from({length: size * size}, (_, i) => pixels[i * 4]);
        }""",
        READ_SIZE,
    )
    image = memoryview(bytes(grey)).cast("B", shape=[READ_SIZE, READ_SIZE])
    (found,) = zxingcpp.read_barcodes(image)
    return str(found.text)


# --- On paper ---------------------------------------------------------------------------------

A4 = {"width": 794, "height": 1123}


@pytest.mark.django_db(transaction=True)
def test_it_prints_on_a4_without_the_sites_navigation_a_score_sheet_a_page(
    api_server: LiveServer, context: BrowserContext
) -> None:
    night = started_night()
    page = new_page(context)
    page.goto(f"{api_server.url}/tournaments/{night.pk}/print")
    page.wait_for_selector("[data-action=print-now]:not([hidden])")  # the script's button
    screenshots(page, "tournament-print")
    codes = page.locator("section[data-table-code]").evaluate_all(
        "els => els.map(e => e.dataset.tableCode)"
    )
    assert len(codes) == 2
    assert page.locator("svg[data-qr]").count() == 2
    assert page.locator(".site-header").is_visible()
    page.set_viewport_size(PHONE)  # type: ignore[arg-type]
    wide = page.evaluate(
        """() => [...document.querySelectorAll("main *")]
            .filter((e) => e.getBoundingClientRect().right > innerWidth + 1)
            .map((e) => e.tagName + "." + e.className)"""
    )
    assert not wide, f"wider than a phone: {wide}"

    page.set_viewport_size(A4)  # type: ignore[arg-type]
    page.emulate_media(media="print")

    assert not page.locator(".site-header").is_visible()
    assert not page.locator(".site-footer").is_visible()
    assert not page.locator("[data-action=print-now]").is_visible()
    styles = page.locator("[data-testid=score-sheet]").evaluate_all(
        "els => els.map(e => getComputedStyle(e).breakBefore)"
    )
    assert styles == ["page", "page"]
    inside = page.locator("section[data-table-code]").evaluate_all(
        "els => els.map(e => getComputedStyle(e).breakInside)"
    )
    assert inside == ["avoid", "avoid"]
    colours = page.evaluate(
        "() => ['backgroundColor', 'color'].map((k) => getComputedStyle(document.body)[k])"
    )
    assert colours == ["rgb(255, 255, 255)", "rgb(0, 0, 0)"]
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / "tournament-print-a4.png"), full_page=True)
    page.pdf(path=str(ARTEFACTS / "tournament-print-a4.pdf"), format="A4")
    pdf = (ARTEFACTS / "tournament-print-a4.pdf").read_bytes()
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 3  # the seating, two score sheets
    for code in codes:
        decoded = read_qr(page.locator(f"section[data-table-code={code}] svg[data-qr]"))
        assert decoded == f"{api_server.url}/tournaments/{night.pk}/tables/{code}"
    assert not page.errors  # type: ignore[attr-defined]
