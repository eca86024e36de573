"""The floor console in a real browser: Debian's chromium (headless, driven by Selenium
through Debian's chromedriver; nothing downloaded) against the console on a loopback port,
a private mosquitto, and a simulated table dealing the repository's scenario
``scenarios/tda-2024/000-S3-misdeal-1h-wrong-first-seat.scn`` (the first card to the wrong
seat: a critical WRONG_FIRST_SEAT misdeal, 000 SECTION 3 [L115]).

What the browser shows is checked against what the table itself published (the venue
subscriber of the simulated table), the daemon's open alerts and the venue logger's own
database; the live stream and the page are checked for every live hole card (its card code
and its tag UID). The tile shows the dealer whose badge was tapped and the table's storage
health (degraded, in the warning colour, while another connection locks the table store).
Then the hand is folded to the big blind, looked up in the hand search,
a player is seated from the console's form, moved to another seat and unseated from the
table actions, the director sets the room's level (the table's answer in the page, the
pending level on the tile and in the table's state) and pastes a house profile (the
console's check refuses a bad value; the good one is the table's profile). A viewer sees
none of the action forms and the server refuses their unseat. Last, the hand history: two
recorded hands of the shared corpus (dealt through the rules core as a table deals them, one
with an exposed card) are stored beside the table's; a hand is looked up by player, its page
stepped through street by street (keyboard and buttons) against what pokerkit makes of the
source file, and the dealer-quality table checked against a count made by hand; then the
shift presets ("yesterday" finds none, "last 8 hours" the table's own hand)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from controller.floor.auth import hash_password
from controller.floor.cli import FloorConfig, start, stop
from controller.link.config import BrokerConfig
from hwsim.scenario.model import Action
from hwsim.scenario.parse import parse_file
from hwsim.scenario.rig import Rig, close_rig, open_rig, tag_of
from hwsim.scenario.runner import do_action
from tests.brokers import free_port, plain_broker
from tests.floor.browser_history import history_checks
from tests.floor.browser_util import _in_thread, _wait

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
SCENARIO = (
    Path(__file__).resolve().parents[2]
    / "scenarios/tda-2024/000-S3-misdeal-1h-wrong-first-seat.scn"
)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run")  # fmt: skip
PASSWORD = {"sam": "felt-and-chips", "vic": "just-looking", "dan": "the-tournament-desk"}


def _browser(profile: Path) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for f in (*FLAGS, f"--user-data-dir={profile}", "--window-size=1200,900"):
        opts.add_argument(f)
    return webdriver.Chrome(service=Service(DRIVER), options=opts)


def _login(driver: Any, url: str, user: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(url)
    _wait(driver, lambda d: d.find_element(By.ID, "login").is_displayed()
          or d.find_element(By.ID, "console").is_displayed(), "the page")  # fmt: skip
    if driver.find_element(By.ID, "console").is_displayed():  # still logged in: log out
        driver.find_element(By.ID, "logout").click()
        _wait(driver, lambda d: d.find_element(By.ID, "login").is_displayed(), "the login")
    driver.find_element(By.ID, "user").clear()
    driver.find_element(By.ID, "user").send_keys(user)
    driver.find_element(By.ID, "password").send_keys(PASSWORD[user])
    driver.find_element(By.ID, "login-button").click()
    _wait(driver, lambda d: d.find_element(By.ID, "who").text.startswith(user), f"{user} in")


def _tile_text(driver: Any, key: str, cls: str) -> str | None:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.common.by import By

    try:
        tile = driver.find_element(By.CSS_SELECTOR, f'article[data-table="{key}"]')
        if not tile.find_elements(By.CSS_SELECTOR, "section.detail"):
            tile.find_element(By.CSS_SELECTOR, "button.head").click()  # a click opens the table
        return str(tile.find_element(By.CLASS_NAME, cls).text)
    except (NoSuchElementException, StaleElementReferenceException):
        return None


def _tile_class(driver: Any, key: str, cls: str) -> str:
    script = ("const e = document.querySelector(`article[data-table='${arguments[0]}'] "
              "dd.${arguments[1]}`); return e ? e.className : ''")  # fmt: skip
    return str(driver.execute_script(script, key, cls))


def _click(driver: Any, css: str) -> bool:
    """Click what ``css`` names; False if the page re-rendered it under the click."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    try:
        driver.find_element("css selector", css).click()
    except (NoSuchElementException, StaleElementReferenceException):
        return False
    return True


def _alert_ids(driver: Any, key: str) -> list[str]:
    script = ("return [...document.querySelectorAll(`article[data-table='${arguments[0]}']"
              " li.alert`)].map(e => e.dataset.alertId)")  # fmt: skip
    return list(driver.execute_script(script, key))


def _stored_ids(tmp: Path) -> list[str]:
    """The hands the venue logger stored, read from its database directly."""
    from controller.venuelog.store import open_for_export

    store = open_for_export(tmp / "table/venue.db")
    try:
        return sorted(str(h["hand_id"]) for h in store.hands(table="t1"))
    finally:
        store.close()


def _search_hands(driver: Any, table: str) -> None:
    box = driver.find_element("id", "hand-table")
    box.clear()
    box.send_keys(table)
    driver.find_element("css selector", "#hand-search button").click()


def _hand_rows(driver: Any) -> list[str]:
    rows = driver.execute_script(
        "return [...document.querySelectorAll('#hands tbody tr')].map(e => e.dataset.handId)"
    )
    return sorted(rows)


def _seat(driver: Any, key: str, seat: int, name: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", "seat-table")).select_by_value(key)
    for field, value in (("seat-no", seat), ("seat-player", f"p{seat}"), ("seat-name", name),
                         ("seat-stack", 2000)):  # fmt: skip
        box = driver.find_element("id", field)
        box.clear()
        box.send_keys(str(value))
    driver.find_element("id", "seat-button").click()


def _fill(driver: Any, values: dict[str, Any]) -> None:
    """Type into the page's inputs and choose in its selects (by id), as a person would."""
    from selenium.webdriver.support.ui import Select

    for field, value in values.items():
        box = driver.find_element("id", field)
        if box.tag_name == "select":
            Select(box).select_by_value(str(value))
        else:
            box.clear()
            box.send_keys(str(value))


def _answers(driver: Any) -> list[str]:
    """The tables' answers the page lists under "Answers"."""
    return list(driver.execute_script(
        "return [...document.querySelectorAll('#action-results li')].map(e => e.textContent)"
    ))  # fmt: skip


def _response(driver: Any) -> str:
    return str(driver.find_element("id", "response").text)


async def _collect_stream(url: str, into: list[str], ready: asyncio.Event) -> None:
    """Log in as the viewer and keep every byte of the live stream."""
    jar = aiohttp.CookieJar(unsafe=True)  # cookies for 127.0.0.1
    async with aiohttp.ClientSession(cookie_jar=jar) as s:
        r = await s.post(f"{url}api/login", json={"user": "vic", "password": PASSWORD["vic"]})
        assert r.status == 200
        async with s.get(f"{url}api/stream") as resp:
            ready.set()
            async for chunk in resp.content.iter_any():
                into.append(chunk.decode())


async def _until(cond: Callable[[], bool], what: str, timeout: float = 10) -> None:
    for _ in range(int(timeout / 0.02)):
        if cond():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"never: {what}")


async def _play(tmp: Path, port: int, shots: Path) -> None:
    users = tmp / "users.toml"
    roles = (("sam", "supervisor"), ("vic", "viewer"), ("dan", "director"))
    users.write_text(
        "".join(
            f'[users.{u}]\nrole = "{r}"\npassword = "{hash_password(PASSWORD[u])}"\n'
            for u, r in roles
        )
    )
    rig: Rig = await open_rig("127.0.0.1", port, "tda-2024", tmp / "table", "t1", decks=set())
    web_port = free_port()
    cfg = FloorConfig(
        broker=BrokerConfig(host="127.0.0.1", port=port, tls=False, allow_plaintext=True),
        users_file=str(users),
        port=web_port,
        db=str(tmp / "table/venue.db"),
    )
    runner, console = await start(cfg)
    url = f"http://127.0.0.1:{web_port}/"
    driver = await _in_thread(_browser, tmp / "chromium")
    stream: list[str] = []
    ready = asyncio.Event()
    collector = asyncio.create_task(_collect_stream(url, stream, ready))
    hole: list[Any] = []  # the CardRefs dealt to the seats
    try:
        await asyncio.wait_for(console.link.connected.wait(), 10)
        await asyncio.wait_for(ready.wait(), 10)
        await _in_thread(_login, driver, url, "sam")
        key = "v1/t1"
        # the dealer taps their badge (as the pcsc task hands it over): on duty on the tile
        await do_action(rig, Action(0, "badge", text="D-017"))
        await rig.settled()
        sc = parse_file(SCENARIO)
        steps = iter(sc.steps)
        # up to and including the first hole card, to the wrong seat
        for step in steps:
            await do_action(rig, step.action)
            if step.action.verb == "hole":
                hole.extend(step.action.cards)
                break
            await rig.settled()
        await rig.settled()
        # the tile is there and shows what the table published last
        await _until(lambda: bool(rig.venue.on("alerts")), "the table's alert")
        published = rig.venue.on("state")[-1]
        await _in_thread(_wait, driver, lambda d: _tile_text(d, key, "hand-no")
                         == str(published["hand_no"]), f"hand {published['hand_no']}")  # fmt: skip
        await _in_thread(
            _wait, driver, lambda d: _tile_text(d, key, "status") == "online", "the table online"
        )
        # the dealer on duty and storage health, as the table published them
        assert published["dealer"] == "D-017"
        assert published["storage"] == {"health": "ok", "reasons": []}
        await _in_thread(_wait, driver, lambda d: _tile_text(d, key, "dealer") == "D-017",
                         "the dealer on the tile")  # fmt: skip
        assert _tile_text(driver, key, "storage") == "ok"
        assert "storage-degraded" not in _tile_class(driver, key, "storage")
        alert = rig.venue.on("alerts")[-1]
        assert alert["code"] == "WRONG_FIRST_SEAT" and alert["severity"] == "critical"
        aid = alert["alert_id"]
        await _in_thread(_wait, driver, lambda d: aid in _alert_ids(d, key), "the alert")
        assert aid in rig.daemon.open_alerts
        await _in_thread(driver.save_screenshot, str(shots / "room-alert.png"))
        # a viewer sees the alert but has no button, and the server refuses the ack itself
        await _in_thread(_login, driver, url, "vic")
        await _in_thread(_wait, driver, lambda d: aid in _alert_ids(d, key), "the viewer's alert")
        assert not driver.find_elements("css selector", "button.ack")
        for section in ("actions", "table-actions", "director-actions"):
            assert not driver.find_element("id", section).is_displayed(), section
        refused = await _in_thread(driver.execute_async_script, """
            const done = arguments[arguments.length - 1];
            const me = await (await fetch("/api/me")).json();
            const r = await fetch("/api/ack", {method: "POST", headers: {"Content-Type":
              "application/json", "X-CSRF-Token": me.csrf}, body: JSON.stringify({venue: "v1",
              table: "t1", alert_id: arguments[0]})});
            done([r.status, await r.text()]);""", aid)  # fmt: skip
        assert refused[0] == 403 and "viewers change nothing" in refused[1]
        assert aid in rig.daemon.open_alerts  # nothing changed at the table
        refused = await _in_thread(driver.execute_async_script, """
            const done = arguments[arguments.length - 1];
            const me = await (await fetch("/api/me")).json();
            const r = await fetch("/api/unseat", {method: "POST", headers: {"Content-Type":
              "application/json", "X-CSRF-Token": me.csrf}, body: JSON.stringify({venue: "v1",
              table: "t1", seat: 1})});
            done([r.status, await r.text()]);""")  # fmt: skip
        assert refused[0] == 403 and "viewers change nothing" in refused[1]
        assert 1 in rig.daemon.core.seats  # still seated
        # the supervisor acknowledges it from the tile: the table clears it
        await _in_thread(_login, driver, url, "sam")
        button = f"article[data-table='{key}'] button.ack[data-alert-id='{aid}']"
        await _in_thread(_wait, driver, lambda d: d.find_elements("css selector", button),
                         "the ack button")  # fmt: skip
        await _in_thread(_wait, driver, lambda d: _click(d, button), "a click on the ack")
        await _until(lambda: aid not in rig.daemon.open_alerts, "the table's alert cleared")

        def acks() -> list[Any]:
            return [e["data"] for e in rig.venue.on("events") if e["kind"] == "alert_ack"]

        await _until(lambda: bool(acks()), "the table's alert_ack event")
        assert acks() == [{"alert_id": aid, "by": "sam"}]
        await _in_thread(_wait, driver, lambda d: aid not in _alert_ids(d, key), "the cleared tile")
        await _in_thread(_wait, driver, lambda d: "acknowledged" in
                         d.find_element("id", "response").text, "the response")  # fmt: skip
        # the hand goes on: the re-deal; the tile follows the table's street
        for step in steps:
            await do_action(rig, step.action)
            if step.action.verb == "hole":
                hole.extend(step.action.cards)
            await rig.settled()
        published = rig.venue.on("state")[-1]
        assert any(s["cards_held"] for s in published["seats"])  # hole cards are live
        await _in_thread(_wait, driver, lambda d: _tile_text(d, key, "street")
                         == published["street"] and _tile_text(d, key, "pot")
                         == str(published["pot"]), "the street and pot")  # fmt: skip
        await _in_thread(driver.save_screenshot, str(shots / "room.png"))
        await _in_thread(driver.set_window_size, 800, 1100)  # a tablet, upright
        await _in_thread(driver.save_screenshot, str(shots / "room-tablet.png"))
        await asyncio.sleep(0.2)  # the stream's last writes
        page = await _in_thread(lambda: str(driver.page_source))
        live_stream = len(stream)
        # everyone folds to the big blind (seat 3): the hand completes and is stored, while
        # the table store is locked by another connection (a real storage fault: the hand's
        # writes wait and are retried): the tile shows the degraded storage as a warning
        locker = sqlite3.connect(rig.daemon.cfg.table_db, isolation_level=None)
        locker.execute("BEGIN EXCLUSIVE")
        try:
            for n, who in enumerate((4, 1, 2)):
                await do_action(rig, Action(1000 + n, "fold", seat=who))
                await rig.settled()
            await _until(lambda: rig.venue.on("state")[-1]["storage"]["health"] == "degraded",
                         "the table's storage degraded")  # fmt: skip
            told = rig.venue.on("state")[-1]["storage"]
            assert [r["code"] for r in told["reasons"]] == ["write_failing"]
            assert told["reasons"][0]["detail"].startswith("table lane: ")
            shown = "degraded ({code}: {detail})".format(**told["reasons"][0])
            await _in_thread(_wait, driver, lambda d: _tile_text(d, key, "storage") == shown,
                             "the degraded storage on the tile")  # fmt: skip
            assert "storage-degraded" in _tile_class(driver, key, "storage")
            colour = await _in_thread(driver.execute_script, """
                const dd = document.querySelector(
                  `article[data-table='${arguments[0]}'] dd.storage`);
                const probe = document.createElement("span");
                probe.style.color = "var(--warning)"; document.body.append(probe);
                const want = getComputedStyle(probe).color; probe.remove();
                return [getComputedStyle(dd).color, want];""", key)  # fmt: skip
            assert colour[0] == colour[1], colour  # the warning colour
            await _in_thread(driver.save_screenshot, str(shots / "room-storage.png"))
        finally:
            locker.execute("ROLLBACK")
            locker.close()
        await _in_thread(_wait, driver, lambda d: _tile_text(d, key, "storage") == "ok",
                         "storage ok again on the tile")  # fmt: skip
        assert rig.venue.on("state")[-1]["storage"] == {"health": "ok", "reasons": []}
        await _until(lambda: _stored_ids(tmp) != [], "the hand stored by the venue logger")
        stored = _stored_ids(tmp)
        await _in_thread(_search_hands, driver, "t1")
        await _in_thread(_wait, driver, lambda d: _hand_rows(d) == stored, f"hands {stored}")
        # a seat command between hands, answered in the page and seen at the table
        await _in_thread(_seat, driver, key, 5, "Ann")
        await _in_thread(_wait, driver, lambda d: "seat 5: Ann seated"
                         in d.find_element("id", "response").text, "the seat response")  # fmt: skip
        seats = {s["seat"]: s for s in rig.venue.on("state")[-1]["seats"]}
        assert seats[5]["name"] == "Ann" and seats[5]["stack"] == 2000
        await _in_thread(_wait, driver, lambda d: _tile_text(d, key, "players") == "5",
                         "five players on the tile")  # fmt: skip
        # the supervisor has the table's actions, not the director's
        assert driver.find_element("id", "table-actions").is_displayed()
        assert not driver.find_element("id", "director-actions").is_displayed()
        # a move from the page: seat 5 to seat 6, the table's answer shown
        await _in_thread(_fill, driver, {"move-from-table": key, "move-from-seat": 5,
                                         "move-to-table": key, "move-to-seat": 6})  # fmt: skip
        await _in_thread(_click, driver, "#move-button")
        await _in_thread(_wait, driver, lambda d: _answers(d) == ["v1/t1: moved seat 5 to seat 6"],
                         "the move's answer")  # fmt: skip
        assert _response(driver) == "moved: v1/t1 seat 5 to v1/t1 seat 6"
        await _until(lambda: {s["seat"]: s["name"] for s in rig.venue.on("state")[-1]["seats"]}
                     .get(6) == "Ann", "Ann in seat 6 at the table")  # fmt: skip
        # unseat her: the table's answer says who left with what
        await _in_thread(_fill, driver, {"unseat-table": key, "unseat-seat": 6})
        await _in_thread(_click, driver, "#unseat-button")
        await _in_thread(_wait, driver, lambda d: _answers(d)
                         == ["v1/t1: seat 6: Ann unseated (stack 2000)"], "the unseat")  # fmt: skip
        assert 6 not in {s["seat"] for s in rig.venue.on("state")[-1]["seats"]}
        assert 6 not in rig.daemon.core.seats
        # the director sets the level for the room: every table's answer
        await _in_thread(_login, driver, url, "dan")
        await _in_thread(_wait, driver, lambda d: d.find_element("id", "director-actions")
                         .is_displayed(), "the director's forms")  # fmt: skip
        await _in_thread(_fill, driver, {"level-no": 2, "level-sb": 100, "level-bb": 200,
                                         "level-ante": 0})  # fmt: skip
        await _in_thread(_click, driver, "#level-button")
        ask = "Set level 2 (100/200, ante 0) at 1 table?"
        await _in_thread(_wait, driver, lambda d: d.find_element("id", "level-confirm-text").text
                         == ask, "the confirmation")  # fmt: skip
        await _in_thread(_click, driver, "#level-confirm")
        want = ["v1/t1: level 2 from the next hand"]
        await _in_thread(_wait, driver, lambda d: _answers(d) == want, "the level's answer")
        assert _response(driver) == "level 2 (100/200, ante 0): set at 1 of 1 tables"
        await _until(lambda: (rig.venue.on("state")[-1].get("pending_level") or {})
                     .get("big_blind") == 200, "the table's pending level")  # fmt: skip
        pending = "50/100 (next hand: 100/200)"
        await _in_thread(_wait, driver, lambda d: _tile_text(d, key, "level") == pending,
                         "the pending level on the tile")  # fmt: skip
        # a house profile pasted in: checked by the console, then sent to the table
        house = ('[profile]\nname = "our-house"\ntitle = "Our house"\nrulebook = "house.txt"\n'
                 'draw_rule = "ace"\n')  # fmt: skip
        await _in_thread(_fill, driver, {"profile-table": key, "house-doc": house})
        await _in_thread(_click, driver, "#house-check")
        await _in_thread(_wait, driver, lambda d: "is not one of" in d.find_element(
            "id", "house-summary").text, "the console's check")  # fmt: skip
        assert driver.find_element("id", "house-summary").text == (
            "house profile: key 'draw_rule': 'ace' is not one of 'high-card', 'first-ace'"
        )
        await _in_thread(_fill, driver, {"house-doc": house.replace('"ace"', '"first-ace"')})
        await _in_thread(_click, driver, "#house-send")
        await _in_thread(_wait, driver, lambda d: _answers(d)
                         == ["v1/t1: profile our-house applies now"], "the profile")  # fmt: skip
        assert "draw_rule = first-ace" in driver.find_element("id", "house-summary").text
        assert rig.daemon.core.profile.name == "our-house"
        assert rig.daemon.core.profile.draw_rule.value == "first-ace"
        await _until(lambda: rig.venue.on("state")[-1]["profile"] == "our-house", "the state")
        await _in_thread(driver.execute_script,
                         "document.getElementById('table-actions').scrollIntoView()")  # fmt: skip
        await _in_thread(driver.save_screenshot, str(shots / "actions.png"))
        # the hand history, as the supervisor again
        await _in_thread(_login, driver, url, "sam")
        await history_checks(tmp, driver, url, shots)
    finally:
        collector.cancel()
        with contextlib.suppress(BaseException):
            await collector
        await _in_thread(driver.quit)
        await stop(runner, console)
        await close_rig(rig)
    text = "".join(stream[:live_stream])
    assert '"type": "snapshot"' in text and aid in text  # the stream carried the hand
    for ref in hole:
        uid = tag_of(ref).hex()
        for where, body in (("the live stream", text), ("the page", page)):
            assert not re.search(rf"(?<![0-9A-Za-z]){ref.card}(?![0-9A-Za-z])", body), (
                f"{where} names the live hole card {ref.card}"
            )
            assert uid not in body.lower(), f"{where} carries the tag UID of {ref.card}"
    assert json.loads(text.split("data: ", 1)[1].split("\n", 1)[0])["type"] == "snapshot"


def test_room_alert_ack_and_viewer_in_a_real_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for exe in (CHROMIUM, DRIVER):  # a missing browser fails, as a missing broker does
        assert os.access(exe, os.X_OK), f"{exe} missing: scripts/setup.sh installs it (apt)"
    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager never fetches anything
    shots = Path(os.environ.get("RAILGUARD_FLOOR_SHOTS", tmp_path))
    with plain_broker() as b:
        asyncio.run(asyncio.wait_for(_play(tmp_path, b.port, shots), 90))
    assert (shots / "room.png").stat().st_size > 0
