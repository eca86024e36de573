"""The tournament's console pages in a real browser (Debian's chromium through Selenium, as
tests/floor/test_floor_browser.py): the players' clock screen and a director confirming a
proposal. Real parts: a private mosquitto, two simulated tables (real daemons), the
tournament service on the broker and the console. The proposal comes from the event's own
rules: three entrants drawn over two tables, a fourth registered late, and four players fit
one table (the final table: 002 [L35] sizes it; here the event's largest table): the table
that breaks first (the pre-set order, 004 [L109]) is broken into the other. A supervisor
sees the proposal without the confirm button and the server refuses their confirm; the
director's confirm moves the players (unseat at one table, seat at the other, the stack
kept) and the page shows no more move."""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest

from controller.link.config import BrokerConfig
from controller.tournament.link import EventLink
from controller.tournament.service import EventService
from controller.tournament.store import Journal
from hwsim.layout import Layout, wait_until
from hwsim.table import SimTable
from tests.brokers import plain_broker
from tests.floor.browser_util import _in_thread, _wait
from tests.floor.director import confirm, console, screenshots
from tests.floor.test_floor_browser import _login

EVENT = """
[event]
name = "sunday"
venue = "v1"
profile = "a2c-000"
starting_stack = 5000

[[levels]]
minutes = 20
small_blind = 25
big_blind = 50

[[levels]]
minutes = 20
small_blind = 50
big_blind = 100

[[tables]]
id = "t1"
seats = 6

[[tables]]
id = "t2"
seats = 6
""" + "".join(f'\n[[entrants]]\nid = "e{i}"\nname = "Entrant {i}"\n' for i in (1, 2, 3))


def _seats(sim: SimTable) -> dict[int, tuple[str, int]]:
    st = sim.observe(state=True).published_state or {}
    return {
        s["seat"]: (s["player_id"], s["stack"]) for s in st.get("seats", []) if s.get("player_id")
    }


def _clock_page(driver: Any, url: str) -> dict[str, str]:
    from selenium.webdriver.common.by import By

    driver.get(f"{url}clock?event=sunday")
    _wait(driver, lambda d: d.find_element(By.ID, "clock-players").text == "4", "4 players")
    return {
        k: driver.find_element(By.ID, f"clock-{k}").text
        for k in ("event", "level", "time", "next", "players", "average", "state")
    }


def _event_page(driver: Any, url: str) -> dict[str, Any]:
    from selenium.webdriver.common.by import By

    driver.get(f"{url}event?event=sunday")
    _wait(driver, lambda d: d.find_elements(By.ID, "proposal-reason"), "the proposal")
    script = (
        "return fetch('/api/event/confirm', {method: 'POST', credentials: 'same-origin',"
        " headers: {'Content-Type': 'application/json', 'X-CSRF-Token': 'x'},"
        " body: JSON.stringify({event: 'sunday', proposal: 1})}).then(r => r.status)"
    )
    return {
        "reason": driver.find_element(By.ID, "proposal-reason").text,
        "moves": driver.find_element(By.ID, "proposal-moves").text,
        "confirm_buttons": len(driver.find_elements(By.ID, "confirm")),
        "forged": driver.execute_script(script),
    }


def _confirm(driver: Any, url: str, shot: Path) -> str:
    from selenium.webdriver.common.by import By

    answer = confirm(driver, url, "sunday", shot)["answer"]
    _wait(driver, lambda d: not d.find_elements(By.ID, "proposal-reason"), "no more proposal")
    return answer


async def _play(tmp: Path, port: int, shots: Path) -> dict[str, Any]:
    broker = BrokerConfig(host="127.0.0.1", port=port, tls=False, allow_plaintext=True)
    tables = {
        t: await SimTable.open(
            "127.0.0.1",
            port,
            profile="a2c-000",
            workdir=tmp / t,
            table_id=t,
            seats=Layout(6),
            enrol=False,
        )
        for t in ("t1", "t2")
    }
    journal = Journal(tmp / "sunday.db")
    link = EventLink(broker)
    service = EventService(
        journal.open_event(EVENT, "sunday.toml"),
        journal,
        random.Random(3),
        time.time,
        link.send,
        link.publish,
    )
    running = asyncio.create_task(link.run(service))
    out: dict[str, Any] = {}
    try:
        async with console(tmp, port, {"sam": "supervisor", "dan": "director"}) as (driver, url):
            await asyncio.wait_for(link.connected.wait(), 10)
            await service.command("draw", {}, "test")
            await service.command("clock", {"op": "start"}, "test")
            late = await service.command("register", {"player_id": "late", "name": "Late Lou"}, "t")
            out["late"] = late
            out["before"] = {t: _seats(s) for t, s in tables.items()}
            out["clock"] = await _in_thread(_clock_page, driver, url)
            await _in_thread(driver.save_screenshot, str(shots / "clock.png"))
            await _in_thread(_login, driver, url, "sam")
            out["supervisor"] = await _in_thread(_event_page, driver, url)
            await _in_thread(_login, driver, url, "dan")
            out["answer"] = await _in_thread(_confirm, driver, url, shots / "event-proposal.png")
            await wait_until(
                lambda: (
                    len(_seats(tables["t1"])) + len(_seats(tables["t2"])) == 4
                    and not all(_seats(s) for s in tables.values())
                ),
                "the move",
                15,
            )
            out["after"] = {t: _seats(s) for t, s in tables.items()}
            out["proposal"] = service.state.proposal
    finally:
        running.cancel()
        with contextlib.suppress(BaseException):  # cancelled: it stops here
            await running
        journal.close()
        for s in tables.values():
            await s.close()
    return out


def test_clock_screen_and_a_director_confirming_a_proposal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shots = screenshots(tmp_path, monkeypatch)
    with plain_broker() as b:
        out = asyncio.run(asyncio.wait_for(_play(tmp_path, b.port, shots), 120))
    clock = out["clock"]
    assert clock["event"] == "sunday" and clock["level"] == "Level 1 · blinds 25/50"
    assert clock["next"] == "Next: Level 2 · blinds 50/100"
    assert clock["players"] == "4" and clock["average"] == "5,000" and clock["state"] == ""
    m = re.fullmatch(r"(\d\d):(\d\d)", clock["time"])
    assert m is not None and 0 < int(m[1]) * 60 + int(m[2]) <= 20 * 60
    assert (shots / "clock.png").stat().st_size > 0
    sup = out["supervisor"]
    assert "4 players fit in 1 table(s): break t2" in sup["reason"]
    assert sup["confirm_buttons"] == 0 and sup["forged"] == 403  # CSRF and the role, on the server
    assert out["answer"] == "confirm: done"
    before, after = out["before"], out["after"]
    moved = before["t2"]
    assert after["t2"] == {} and len(after["t1"]) == 4
    assert sorted(after["t1"].values()) == sorted([*before["t1"].values(), *moved.values()])
    assert out["proposal"] is None
