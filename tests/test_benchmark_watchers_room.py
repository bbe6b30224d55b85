"""benchmarks/watchers.py's ``room`` scenario without its platform: the bytes search that
finds each in-person table's status in a frame's HTML (the screen's fragment and the
tournament page's), and the deliveries and advances it counts from it (the measuring itself
needs the platform: it is run by hand, benchmarks/watchers_history.md)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from tests.conftest import ROOT

SCREEN = (
    '<main id="screen" data-status="running"><ul class="screen-tables">'
    '<li class="screen-table state-pending" data-table-code="K7Q" data-status="pending">'
    '<p class="screen-table-head">Table 1 <kbd>K7Q</kbd></p></li>'
    '<li class="screen-table state-missing" data-table-code="MX4" data-status="missing">'
    "<p>Table 2</p></li></ul></main>"
)
LIVE = (
    '<div id="tournament-live" data-status="running"><table><tbody>'
    '<tr data-code="K7Q" data-table="1"><td class="num">1</td><td><kbd>K7Q</kbd></td>'
    '<td><span class="badge result-final" data-result-status="final">Final</span></td></tr>'
    '<tr data-code="MX4" data-table="2"><td class="num">2</td>'
    '<td><span class="badge result-missing" data-result-status="missing">Waiting</span></td>'
    "</tr></tbody></table></div>"
)


def frame(version: int, html: str) -> bytes:
    """A live stream's message as tournaments.live sends it (the HTML a JSON string)."""
    data = orjson.dumps({"changes": [], "version": version, "html": html})
    return b"id: %d\nevent: change\ndata: %s" % (version, data)


@pytest.fixture
def watchers() -> Iterator[Any]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import watchers

        yield watchers
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def test_it_finds_each_tables_status_in_either_fragment(watchers: Any) -> None:
    screen = watchers.table_statuses(frame(3, SCREEN), watchers.ROOM_PATTERNS["screen"])
    live = watchers.table_statuses(frame(3, LIVE), watchers.ROOM_PATTERNS["live"])

    assert screen == {"K7Q": "pending", "MX4": "missing"}
    assert live == {"K7Q": "final", "MX4": "missing"}


def test_it_counts_a_delivery_at_the_first_frame_showing_the_new_status(watchers: Any) -> None:
    async def opened() -> Any:  # a stream's client is made on a running loop
        return watchers.room_tab("screen")(-1, b"")

    tab = asyncio.run(opened())
    for version, at, html in (
        (3, 10.0, SCREEN.replace('"pending"', '"missing"')),
        (4, 10.2, SCREEN),
        (5, 12.5, SCREEN.replace('"pending"', '"final"')),
        (6, 13.0, SCREEN.replace('"pending"', '"final"').replace("MX4", "R9T")),
    ):
        tab.frame_read(frame(version, html), at)
    changes = [
        watchers.RoomChange(1, "K7Q", "pending", sent=10.1, answered=10.15),
        watchers.RoomChange(1, "K7Q", "final", sent=12.0, answered=12.05),
        watchers.RoomChange(1, "MX4", "pending", sent=12.6, answered=12.7),
    ]

    found = watchers.room_deliveries(changes, [tab], until=20.0)
    advances, never = watchers.room_advances(changes, {1: ["K7Q", "MX4"], 2: ["R9T"]}, [tab])

    assert [round(t, 3) for t in found.from_sent] == [0.1, 0.5]
    assert (found.missing, found.expected) == (1, 3)
    assert ([round(t, 3) for t in advances], never) == ([1.0], 0)
