"""What the room view's browser tests share (tests/floor/test_floor_roomview_browser.py): the
console started on a private mosquitto with a venue file, Debian's chromium at a given window
size, logging in, and synthetic tables: states, statuses and alerts published on the broker as
a table publishes them (each checked against the contract's schema first)."""

from __future__ import annotations

import contextlib
import itertools
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiomqtt

from controller.floor.auth import hash_password
from controller.floor.cli import FloorConfig, start, stop
from controller.floor.venue import parse_venue
from controller.link import schemas
from controller.link.config import BrokerConfig
from tests.brokers import free_port
from tests.floor.browser_util import _wait

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--autoplay-policy=user-gesture-required",
)  # as a desktop browser: sound needs a click
PASSWORD = {"sam": "felt-and-chips", "vic": "just-looking"}
_SEQ = itertools.count(1)


def browser(profile: Path, width: int, height: int, *flags: str) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for f in (*FLAGS, *flags, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        opts.add_argument(f)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    # the viewport itself at the size asked (the window's frame is not the page)
    inner = driver.execute_script("return [window.innerWidth, window.innerHeight]")
    driver.set_window_size(2 * width - inner[0], 2 * height - inner[1])
    return driver


def login(driver: Any, url: str, user: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(url)
    _wait(driver, lambda d: d.find_element(By.ID, "login").is_displayed()
          or d.find_element(By.ID, "console").is_displayed(), "the page")  # fmt: skip
    if driver.find_element(By.ID, "console").is_displayed():
        driver.find_element(By.ID, "logout").click()
        _wait(driver, lambda d: d.find_element(By.ID, "login").is_displayed(), "the login")
    driver.find_element(By.ID, "user").clear()
    driver.find_element(By.ID, "user").send_keys(user)
    driver.find_element(By.ID, "password").send_keys(PASSWORD[user])
    driver.find_element(By.ID, "login-button").click()
    _wait(driver, lambda d: d.find_element(By.ID, "who").text.startswith(user), f"{user} in")


@contextlib.asynccontextmanager
async def console(tmp: Path, port: int, venue: dict[str, Any]) -> AsyncIterator[tuple[Any, str]]:
    """The console (floor users sam and vic, ``venue`` as its venue file says it) and its URL."""
    users = tmp / "users.toml"
    users.write_text("".join(
        f'[users.{u}]\nrole = "{r}"\npassword = "{hash_password(PASSWORD[u])}"\n'
        for u, r in (("sam", "supervisor"), ("vic", "viewer"))))  # fmt: skip
    web_port = free_port()
    cfg = FloorConfig(
        broker=BrokerConfig(host="127.0.0.1", port=port, tls=False, allow_plaintext=True),
        users_file=str(users), port=web_port, venue=parse_venue(venue),
    )  # fmt: skip
    runner, con = await start(cfg)
    try:
        yield con, f"http://127.0.0.1:{web_port}/"
    finally:
        await stop(runner, con)


def state(hand_no: int = 4, seats: int = 6, street: str = "flop") -> dict[str, Any]:
    body = {"seq": next(_SEQ), "bdseq": 1, "ts": time.time(), "hand_no": hand_no,
            "street": street, "board": [], "pot": 600, "to_act": 2, "button": 1,
            "seats": [{"seat": n, "player_id": f"p{n}", "name": f"Player {n}", "stack": 1000 * n,
                       "bet": 0, "cards_held": 2, "status": "active"}
                      for n in range(1, seats + 1)]}  # fmt: skip
    schemas.validate("state", body)
    return body


def alert(aid: str, code: str, severity: str, seat: int | None = 2,
          hand_no: int = 4) -> dict[str, Any]:  # fmt: skip
    body = {"seq": next(_SEQ), "bdseq": 1, "ts": time.time(), "alert_id": aid, "code": code,
            "severity": severity, "clause": "TDA-2024 R35", "remedy": "Call the floor.",
            "seat": seat, "hand_no": hand_no, "message": ""}  # fmt: skip
    schemas.validate("alert", body)
    return body


def status(venue: str, table: str, what: str) -> dict[str, Any]:
    body = {"status": what, "bdseq": 1, "ts": time.time(), "venue": venue, "table": table}
    schemas.validate("status", body)
    return body


async def publish(port: int, items: list[tuple[str, dict[str, Any]]]) -> None:
    """``(topic, body)`` pairs, published in order by one client (QoS 1; states retained)."""
    async with aiomqtt.Client("127.0.0.1", port, identifier=f"synthetic-{next(_SEQ)}") as c:
        for topic, body in items:
            retain = topic.endswith(("/state", "/status"))
            await c.publish(topic, json.dumps(body), qos=1, retain=retain)
