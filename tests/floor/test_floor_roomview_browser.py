"""The room view (issue 22) in Debian's chromium (headless, Selenium through Debian's
chromedriver), against the console on a private mosquitto with a venue file naming the
tables. One real table (the daemon of ``hwsim``'s rig, table ``t1``) and synthetic ones whose
states, statuses and alerts are published on the broker as tables publish them.

- triage: the tiles' order (critical, error, warning, offline, info, quiet), each tile's colour
  as the stylesheet's colour of its level, the friendly names and numbers of the venue file;
- the real table's repeated alerts grouped with their count, time, hand and seat; the
  Acknowledge button of a group held before an update and clicked after it (the same element,
  still on the page) acknowledges every alert of the group at the table; Acknowledge all
  clears the rest (the daemon's open alerts, its alert_ack events); the feed drops them;
- a critical alert left unacknowledged escalates (first in the room, sounds again);
- sound: armed at login, held back by the browser after a reload until a click, then armed;
  distinct tones for critical and warning and a flash for both;
- honest status: the broker stopped, the header says so and every tile is stale; started
  again, a table heard from again is current, one not heard from stays stale;
- 500 tables at 1920x1080 (all on the screen, counted) and on a tablet, with screenshots:
  ``RAILGUARD_FLOOR_SHOTS=docs/floor`` writes them where docs/floor.md shows them."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from hwsim.scenario.rig import close_rig, open_rig
from tests.brokers import plain_broker
from tests.floor.browser_util import _in_thread, _texts, _wait
from tests.floor.room_rig import (
    CHROMIUM,
    DRIVER,
    PASSWORD,
    alert,
    browser,
    console,
    login,
    publish,
    state,
    status,
)

VENUE: dict[str, Any] = {
    "room": {"escalate_after_s": 4},
    "tables": {
        "v1/t1": {"number": 1, "name": "Main 1"},
        "t2": {"number": 2, "name": "Rail 2"},
        "t3": {"number": 3, "name": "Rail 3"},
        "t4": {"number": 4, "name": "Rail 4"},
        "t5": {"number": 5, "name": "Rail 5"},
        "v1/demo-78d4c86a": {"number": 6, "name": "Feature"},
    },
}


def _check_tools(monkeypatch: pytest.MonkeyPatch) -> Path | None:
    for exe in (CHROMIUM, DRIVER):
        assert os.access(exe, os.X_OK), f"{exe} missing: scripts/setup.sh installs it (apt)"
    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager never fetches anything
    shots = os.environ.get("RAILGUARD_FLOOR_SHOTS")
    return Path(shots) if shots else None


def _order(driver: Any) -> list[str]:
    return _texts(driver, "#room article.tile", "data-table")


def _levels(driver: Any) -> dict[str, str]:
    tiles = _texts(driver, "#room article.tile", "data-table")
    return dict(zip(tiles, _texts(driver, "#room article.tile", "data-level"), strict=True))


def _colours(driver: Any) -> dict[str, list[str]]:
    """Each tile's left border colour, and the stylesheet's colour of each level."""
    return dict(
        driver.execute_script("""
        const probe = (v) => { const s = document.createElement("span");
          s.style.color = `var(${v})`; document.body.append(s);
          const c = getComputedStyle(s).color; s.remove(); return c; };
        const out = {};
        for (const t of document.querySelectorAll("#room article.tile"))
          out[t.dataset.table] = [getComputedStyle(t).borderLeftColor];
        out["--"] = ["--critical", "--error", "--warning", "--info", "--quiet", "--offline"]
          .map((v) => v + " " + probe(v));
        return out;""")
    )


def _open(driver: Any, key: str) -> None:
    driver.find_element("css selector", f'article[data-table="{key}"] button.head').click()
    _wait(driver, lambda d: d.find_elements("css selector", f'article[data-table="{key}"]'
                                            " section.detail"), f"{key} open")  # fmt: skip


def _groups(driver: Any, key: str) -> list[dict[str, str]]:
    return list(
        driver.execute_script(
            """
        return [...document.querySelectorAll(`article[data-table='${arguments[0]}'] li.alert`)]
          .map((e) => ({code: e.querySelector(".code").textContent, count: e.dataset.count,
                        ids: e.dataset.alertIds, text: e.textContent}));""",
            key,
        )
    )


LOGIN_BY_SCRIPT = """
    localStorage.setItem("floor:sound", "armed");
    fetch("/api/login", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({user: "sam", password: %s})}).then((r) => r.status);
"""


def _link(driver: Any) -> str:
    return str(driver.find_element("id", "link").get_attribute("data-state"))


def _sound(driver: Any) -> dict[str, str]:
    """The header's sound button, read through the DevTools protocol: chromedriver's own
    scripts run as if the user had clicked, which would let the page start its sound."""
    out = driver.execute_cdp_cmd("Runtime.evaluate", {"returnByValue": True, "expression":
        "(() => { const b = document.getElementById('sound');"
        " return b ? {...b.dataset, text: b.textContent} : {}; })()"})  # fmt: skip
    return dict(out["result"].get("value") or {})


@contextlib.asynccontextmanager
async def chromium(tmp: Path, width: int, height: int, *flags: str) -> AsyncIterator[Any]:
    """A browser, quit before the console stops (its open stream would hold the shutdown)."""
    driver = await _in_thread(browser, tmp / "chromium", width, height, *flags)
    try:
        yield driver
    finally:
        await _in_thread(driver.quit)


async def _until(cond: Any, what: str, timeout: float = 15) -> None:
    for _ in range(int(timeout / 0.05)):
        if cond():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never: {what}")


async def _triage(tmp: Path, port: int, shots: Path) -> None:
    rig = await open_rig("127.0.0.1", port, "tda-2024", tmp / "table", "t1", decks=set())
    try:
        async with console(tmp, port, VENUE) as (con, url):
            async with chromium(tmp, 1440, 900) as driver:
                await asyncio.wait_for(con.link.connected.wait(), 10)
                await _in_thread(login, driver, url, "sam")
                d = rig.daemon

                def acked() -> list[str]:  # the table's alert_ack events, as the venue saw them
                    return [e["data"]["alert_id"] for e in rig.venue.on("events")
                            if e["kind"] == "alert_ack"]  # fmt: skip

                def raise_alert(code: str, severity: str, seat: int | None) -> str:
                    before = list(d.open_alerts)
                    d.publish_alert({"code": code, "severity": severity, "clause": "TDA-2024 R35",
                                 "remedy": "Call the floor.", "message": "", "seat": seat,
                                 "hand_no": 4})  # fmt: skip
                    return next(a for a in d.open_alerts if a not in before)

                # the real table: a misdeal loop (the same warning at seat 2, three times) and a
                # critical alert
                loop_ids = [raise_alert("WRONG_FIRST_SEAT", "warning", 2) for _ in range(3)]
                crit = raise_alert("HAND_INTERRUPTED", "critical", None)
                await publish(port, [
                ("railguard/v1/t2/state", state()),
                ("railguard/v1/t2/alerts", alert("w2", "EXPOSED_CARD", "warning", 4)),
                ("railguard/v1/t3/state", state()),
                ("railguard/v1/t3/alerts", alert("i3", "HAND_NOT_TABLED", "info", 5)),
                ("railguard/v1/t4/status", status("v1", "t4", "offline")),
                ("railguard/v1/t5/state", state(seats=9)),
                ("railguard/v1/demo-78d4c86a/state", state()),
                ("railguard/v1/demo-78d4c86a/alerts", alert("e6", "STRING_BET", "error", 3)),
            ])  # fmt: skip
                want = ["v1/t1", "v1/demo-78d4c86a", "v1/t2", "v1/t4", "v1/t3", "v1/t5"]
                await _in_thread(_wait, driver, lambda d: _order(d) == want, f"the order {want}")
                levels = _levels(driver)
                assert levels["v1/t1"] in ("critical", "escalated")  # escalated after 4 s
                assert {k: v for k, v in levels.items() if k != "v1/t1"} == {
                "v1/demo-78d4c86a": "error", "v1/t2": "warning", "v1/t4": "offline",
                "v1/t3": "info", "v1/t5": "quiet"}  # fmt: skip
                colours = _colours(driver)
                palette = dict(x.split(" ", 1) for x in colours.pop("--"))
                for key, level in levels.items():
                    var = "--critical" if level == "escalated" else f"--{level}"
                    assert colours[key][0] == palette[var], (key, level, colours[key], palette)
                assert len(set(palette.values())) == 6  # six colours, none alike
                names = _texts(driver, "#room article.tile .name")
                numbers = _texts(driver, "#room article.tile .num")
                assert names[:2] == ["Main 1", "Feature"] and numbers[:2] == ["1", "6"]
                # the feed: the open alerts, newest first, with the time each was raised
                times = _texts(driver, "#feed li .ftime")
                assert len(times) == 7 and all(re.fullmatch(r"\d\d:\d\d:\d\d", t) for t in times)
                assert _texts(driver, "#feed li .ftable")[0] == "6 Feature"
                # the real table opened: its repeats grouped with the count, hand and seat
                await _in_thread(_open, driver, "v1/t1")
                groups = await _in_thread(_groups, driver, "v1/t1")
                assert [(g["code"], g["count"]) for g in groups] == [
                ("HAND_INTERRUPTED", "1"), ("WRONG_FIRST_SEAT", "3")]  # fmt: skip
                assert set(groups[1]["ids"].split()) == set(loop_ids)
                assert "×3" in groups[1]["text"] and "seat 2" in groups[1]["text"]
                assert "hand 4" in groups[1]["text"] and "open " in groups[1]["text"]
                seats = _texts(driver, "article[data-table='v1/t1'] .seatmap .seat", "data-seat")
                published = {s["seat"] for s in rig.venue.on("state")[-1]["seats"]}
                assert {int(s) for s in seats} == published  # who sits where, as the table says
                if shots:
                    await _in_thread(driver.save_screenshot, str(shots / "room-triage.png"))
                # the group's button, held before an update and clicked after it
                css = "article[data-table='v1/t1'] li.alert[data-count] button.ack"
                buttons = driver.find_elements("css selector", css)
                held = buttons[1]
                loop_ids.append(raise_alert("WRONG_FIRST_SEAT", "warning", 2))  # the loop again
                await _in_thread(_wait, driver, lambda d: [g["count"] for g in _groups(d, "v1/t1")]
                             == ["1", "4"], "the group's count of 4")  # fmt: skip
                assert driver.execute_script("return arguments[0].isConnected", held)
                assert held.text == "Acknowledge 4"
                await _in_thread(held.click)  # raises if the page replaced it
                await _until(
                    lambda: not set(loop_ids) & set(d.open_alerts), "the group acknowledged"
                )
                assert d.open_alerts == [crit], (d.open_alerts, crit, loop_ids)
                await _until(lambda: sorted(acked()) == sorted(loop_ids), "the group's acks")
                assert {e["data"]["by"] for e in rig.venue.on("events")
                        if e["kind"] == "alert_ack"} == {"sam"}  # fmt: skip
                await _in_thread(_wait, driver, lambda d: [g["code"] for g in _groups(d, "v1/t1")]
                             == ["HAND_INTERRUPTED"], "the group gone from the tile")  # fmt: skip
                # a second burst, then acknowledge all: every open alert of the table
                more = [raise_alert("CARD_TO_EMPTY_SEAT", "warning", 6) for _ in range(2)]
                await _in_thread(
                    _wait, driver, lambda d: len(_groups(d, "v1/t1")) == 2, "the burst"
                )
                all_button = "article[data-table='v1/t1'] button.ack-all"
                assert driver.find_element("css selector", all_button).text == "Acknowledge all (3)"
                driver.find_element("css selector", all_button).click()
                await _until(lambda: d.open_alerts == [], "every alert acknowledged at the table")
                every = sorted([*loop_ids, crit, *more])
                await _until(lambda: sorted(acked()) == every, "an alert_ack event for each")
                await _in_thread(
                    _wait, driver, lambda d: _levels(d)["v1/t1"] == "quiet", "quiet t1"
                )
                answer = "article[data-table='v1/t1'] .group-actions .answer"
                await _in_thread(_wait, driver, lambda d: "3 of 3 alerts acknowledged"
                                 in d.find_element("css selector", answer).text,
                                 "the answer beside the button")  # fmt: skip
                assert not [t for t in _texts(driver, "#feed li .ftable") if t == "Main 1"]
                # an alert the table does not hold open (as a restarted table forgets its
                # own): its acknowledgement is refused there, and the console closes it too
                await publish(port, [("railguard/v1/t1/alerts",
                                      alert("ghost-1", "MISDEAL", "warning", 1))])  # fmt: skip
                ack = "article[data-table='v1/t1'] li.alert button.ack"
                await _in_thread(_wait, driver, lambda d: d.find_elements("css selector", ack),
                                 "the forgotten alert on the tile")  # fmt: skip
                driver.find_element("css selector", ack).click()
                refused = "not an open alert of this table"
                await _in_thread(_wait, driver, lambda d: refused
                                 in d.find_element("id", "response").text, "refused")  # fmt: skip
                await _in_thread(_wait, driver, lambda d: _levels(d)["v1/t1"] == "quiet",
                                 "the forgotten alert closed")  # fmt: skip
                assert "ghost-1" not in _texts(driver, "#feed li", "data-alert-id")
                assert "ghost-1" not in con.room.tiles["v1/t1"].alerts
                # sound: armed at login (the click); a warning and a critical each sound their tone
                await _in_thread(
                    _wait, driver, lambda d: _sound(d).get("state") == "armed", "armed"
                )
                n = int(_sound(driver).get("count", "0"))
                await publish(port, [("railguard/v1/t3/alerts", alert("w3", "ACTION_OUT_OF_TURN",
                                                                     "warning", 1))])  # fmt: skip
                await _in_thread(_wait, driver, lambda d: _sound(d).get("last") == "warning"
                             and int(_sound(d)["count"]) == n + 1, "the warning tone")  # fmt: skip
                driver.execute_script("""window.flashes = [];
              new MutationObserver(() => { for (const c of ["flash-critical", "flash-warning"])
                if (document.body.classList.contains(c)) window.flashes.push(c); })
              .observe(document.body, {attributes: true});""")
                # a critical alert at the quiet table 5: it goes first, then escalates
                await publish(port, [("railguard/v1/t5/alerts", alert("c5", "EXPOSED_CARD",
                                                                    "critical", 3))])  # fmt: skip
                await _in_thread(_wait, driver, lambda d: _order(d)[0] == "v1/t5", "t5 first")
                await _in_thread(_wait, driver, lambda d: _sound(d).get("last") == "critical",
                             "the critical tone")  # fmt: skip
                assert "flash-critical" in driver.execute_script("return window.flashes")
                await _in_thread(_wait, driver, lambda d: _levels(d)["v1/t5"] == "escalated",
                             "the escalation")  # fmt: skip
                assert _order(driver)[0] == "v1/t5"
                if shots:
                    await _in_thread(driver.save_screenshot, str(shots / "room-escalated.png"))
                # a reload: armed again at once (this browser allows it after a click on the site)
                await _in_thread(driver.refresh)
                await _in_thread(_wait, driver, lambda d: _sound(d).get("state") == "armed",
                             "sound armed after the reload")  # fmt: skip
                # a viewer has no acknowledge buttons at all; the seat map says who sits where
                await _in_thread(login, driver, url, "vic")
                await _in_thread(_wait, driver, lambda d: len(_order(d)) == 6, "the viewer's room")
                await _in_thread(_open, driver, "v1/t5")
                assert not driver.find_elements("css selector", "button.ack, button.ack-all")
                seat_map = "article[data-table='v1/t5'] .seatmap .seat"
                assert _texts(driver, f"{seat_map} .sname") == [f"Player {n}" for n in range(1, 10)]
                assert _texts(driver, f"{seat_map} .sstack") == [
                    str(1000 * n) for n in range(1, 10)
                ]
                assert _texts(driver, f"{seat_map}.btn", "data-seat") == ["1"]  # the button
                assert _texts(driver, f"{seat_map}.to-act", "data-seat") == ["2"]
                if shots:
                    await _in_thread(driver.save_screenshot, str(shots / "room-table.png"))
            # a wall screen whose browser never saw a click on this site (a new profile; the
            # login and the sound's wish made by script): the browser holds the sound back,
            # the page says so, and the first click anywhere arms it
            strict = "--autoplay-policy=document-user-activation-required"  # no exception
            async with chromium(tmp / "wall", 1440, 900, strict) as driver:
                await _in_thread(driver.get, url)
                # through the DevTools protocol: chromedriver's own scripts count as a click
                done = await _in_thread(driver.execute_cdp_cmd, "Runtime.evaluate", {
                    "expression": LOGIN_BY_SCRIPT % json.dumps(PASSWORD["sam"]),
                    "awaitPromise": True, "userGesture": False})  # fmt: skip
                assert done["result"]["value"] == 200, done
                await _in_thread(driver.get, url)
                await _in_thread(_wait, driver, lambda d: _sound(d).get("state") == "blocked",
                                 "sound blocked in a new browser")  # fmt: skip
                assert "blocked by the browser: click anywhere" in _sound(driver)["text"]
                driver.find_element("css selector", "#room-summary").click()  # any click
                await _in_thread(
                    _wait, driver, lambda d: _sound(d).get("state") == "armed", "armed"
                )
    finally:
        await close_rig(rig)


def test_triage_grouping_ack_all_escalation_and_sound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shots = _check_tools(monkeypatch)
    with plain_broker() as b:
        asyncio.run(asyncio.wait_for(_triage(tmp_path, b.port, shots or tmp_path), 150))


async def _status(tmp: Path, broker: Any, shots: Path | None) -> None:
    port = broker.port
    async with console(tmp, port, VENUE) as (con, url):
        await asyncio.wait_for(con.link.connected.wait(), 10)
        await publish(port, [("railguard/v1/t2/state", state()),
                             ("railguard/v1/t3/state", state())])  # fmt: skip
        async with chromium(tmp, 1440, 900) as driver:
            await _in_thread(login, driver, url, "sam")
            link = "#link"
            await _in_thread(_wait, driver, lambda d: d.find_element("css selector", link)
                             .get_attribute("data-state") == "live", "connected")  # fmt: skip
            assert "broker connected" in driver.find_element("css selector", link).text
            await _in_thread(_wait, driver, lambda d: len(_order(d)) == 2, "two tables")
            assert not driver.find_elements("css selector", "article.tile.stale")
            broker.stop()
            await _in_thread(_wait, driver, lambda d: _link(d) == "broker-down", "broker lost")
            text = driver.find_element("css selector", link).text
            assert text.startswith("broker lost since ") and "the room shown is " in text
            await _in_thread(_wait, driver, lambda d: len(d.find_elements(
                "css selector", "article.tile.stale")) == 2, "every tile stale")  # fmt: skip
            assert _texts(driver, "article.tile .tstatus") == ["stale", "stale"]
            if shots:
                await _in_thread(driver.save_screenshot, str(shots / "room-broker-lost.png"))
            broker.start()  # the same port; its retained states are gone with it
            await _in_thread(_wait, driver, lambda d: _link(d) == "live", "connected again", 30)
            await publish(port, [("railguard/v1/t2/state", state())])  # t2 heard from again
            await _in_thread(_wait, driver, lambda d: _texts(
                d, "article.tile.stale", "data-table") == ["v1/t3"], "t3 alone stale")  # fmt: skip


def test_broker_lost_and_stale_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shots = _check_tools(monkeypatch)
    with plain_broker() as b:
        asyncio.run(asyncio.wait_for(_status(tmp_path, b, shots), 120))


async def _festival(tmp: Path, port: int, shots: Path) -> dict[str, Any]:
    venue: dict[str, Any] = {"tables": {f"f{n:03}": {"number": n} for n in range(1, 501)}}
    sev = {7: "critical", 123: "critical", 250: "warning", 251: "warning", 400: "info"}
    items: list[tuple[str, dict[str, Any]]] = []
    for n in range(1, 501):
        topic = f"railguard/v9/f{n:03}"
        if n % 97 == 0:
            items.append((f"{topic}/status", status("v9", f"f{n:03}", "offline")))
            continue
        items.append((f"{topic}/state", state(seats=6 + n % 5)))
        if n in sev:
            items.append((f"{topic}/alerts", alert(f"a{n}", "MISDEAL", sev[n], 1)))
    figures: dict[str, Any] = {}
    async with console(tmp, port, venue) as (con, url):
        await asyncio.wait_for(con.link.connected.wait(), 10)
        await publish(port, items)
        await _until(lambda: len(con.room.tiles) == 500, "500 tables in the console")
        for name, (w, h) in (("wall", (1920, 1080)), ("tablet", (1024, 768))):
            async with chromium(tmp / name, w, h) as driver:
                await _in_thread(login, driver, url, "sam")
                await _in_thread(_wait, driver, lambda d: len(_order(d)) == 500, "500 tiles", 30)
                order = _order(driver)
                assert order[:2] == ["v9/f007", "v9/f123"]  # the critical ones first
                assert order[2:4] == ["v9/f250", "v9/f251"]  # then the warnings
                fit = driver.execute_script("""
                    const W = window.innerWidth, H = window.innerHeight;
                    const tiles = [...document.querySelectorAll('#room article.tile')];
                    const r = tiles[0].getBoundingClientRect();
                    return {viewport: [W, H], tile: [Math.round(r.width), Math.round(r.height)],
                            visible: tiles.filter((t) => { const b = t.getBoundingClientRect();
                              return b.top >= 0 && b.left >= 0 && b.bottom <= H && b.right <= W;
                            }).length};""")  # fmt: skip
                # what the page spends on the whole room (every tile's view and elements
                # compared, none changed), printed: a figure, not a bound
                fit["all_tiles_ms"] = driver.execute_script("""
                    const t = []; for (let i = 0; i < 11; i++) { const a = performance.now();
                      allChanged(); t.push(performance.now() - a); }
                    t.sort((x, y) => x - y); return Math.round(t[5] * 10) / 10;""")
                figures[name] = fit
                if shots:
                    await _in_thread(driver.save_screenshot, str(shots / f"room-500-{name}.png"))
    return figures


def test_500_tables_on_a_wall_screen_and_a_tablet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shots = _check_tools(monkeypatch)
    with plain_broker() as b:
        figures = asyncio.run(asyncio.wait_for(_festival(tmp_path, b.port, shots or tmp_path),
                                               180))  # fmt: skip
    with capsys.disabled():
        print(f"\nroom view, 500 tables: {figures}")
    assert figures["wall"]["visible"] == 500  # the whole room on one 1920x1080 screen
    assert figures["tablet"]["visible"] > 0
