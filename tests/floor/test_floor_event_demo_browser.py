"""The demo event (controller/demo/event.py) with its proposals confirmed by the tournament
director in the console's event page, in a real browser (Debian's chromium through
Selenium, as tests/floor/test_floor_tournament_browser.py): a private mosquitto, three
simulated tables (real daemons), the venue logger, the tournament service and the console.
Each proposal the event makes (a balance, a table break, the final table) waits for the
director, who sees it on ``/event?event=demo`` with its reason and moves and presses
Confirm; the moves reach the tables and the event goes on to its final table. The players'
clock screen and the event page with a proposal are saved as screenshots
(``RAILGUARD_FLOOR_SHOTS=docs/screenshots`` writes the ones docs/tournament.md shows). The
event's outcome is checked as tests/tournament/test_demo_event.py does: standings against
the hand records the venue logger stored, the level pushed mid-hand (G11), hand-for-hand."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest

from controller.demo.event import EVENT, EventOutcome, event_room, play_event
from controller.demo.view import View
from tests.brokers import plain_broker
from tests.floor.browser_util import _in_thread, _wait
from tests.floor.director import confirm, console, screenshots
from tests.floor.test_floor_browser import _login
from tests.tournament.test_demo_event import check_event


def _clock_shot(driver: Any, url: str, shot: Path) -> str:
    from selenium.webdriver.common.by import By

    driver.get(f"{url}clock?event={EVENT}")
    _wait(driver, lambda d: d.find_element(By.ID, "clock-players").text not in ("", "–"),
          "the players left")  # fmt: skip
    driver.save_screenshot(str(shot))
    return str(driver.find_element(By.ID, "clock-level").text)


async def _run(tmp: Path, port: int, shots: Path) -> tuple[EventOutcome, list[dict[str, str]]]:
    pages: list[dict[str, str]] = []
    async with console(tmp, port, {"dan": "director"}) as (driver, url):
        await _in_thread(driver.set_window_size, 1000, 760)
        await _in_thread(_login, driver, url, "dan")

        async def confirm_in_page(p: dict[str, Any]) -> None:
            if not pages:  # the first proposal: the players' screen and the event page
                await _in_thread(_clock_shot, driver, url, shots / "clock.png")
            shot = shots / f"event-{p['kind']}.png" if p["kind"] in ("balance", "break") else None
            seen = await _in_thread(confirm, driver, url, EVENT, shot)
            pages.append({"kind": p["kind"], **seen,
                          "names": "|".join(m["name"] for m in p["moves"])})  # fmt: skip

        view = View(io.StringIO(), colour=False)
        async with event_room("127.0.0.1", port, tmp / "room", 3, view, 11,
                              confirm_in_page) as room:  # fmt: skip
            out = await play_event(room)
    return out, pages


def test_the_demo_event_with_each_proposal_confirmed_in_the_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shots = screenshots(tmp_path, monkeypatch)
    with plain_broker() as b:
        out, pages = asyncio.run(asyncio.wait_for(_run(tmp_path, b.port, shots), 170))
    assert out.ok, (out.mismatches, out.alarms, out.standings.get("players_left"))
    # the standings against the venue logger's stored hand records, G11, hand-for-hand
    check_event(out, tmp_path / "room" / "venue.db")
    assert [p["kind"] for p in pages] == ["balance", "break", "final"]
    assert all(p["answer"] == "confirm: done" for p in pages), pages
    assert "tables within 1 player(s)" in pages[0]["reason"]
    assert "break t3" in pages[1]["reason"]
    assert "redraw for the final table" in pages[2]["reason"]
    for p in pages:  # each move of the proposal, as the page lists it
        assert all(name in p["moves"] for name in p["names"].split("|")), p
    for name in ("clock.png", "event-balance.png", "event-break.png"):
        assert (shots / name).stat().st_size > 0
