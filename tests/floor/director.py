"""What the tournament's browser tests share (tests/floor/test_floor_tournament_browser.py,
test_floor_event_demo_browser.py): the browser checked, the console started with its users
and Debian's chromium opened on it, and the director's confirm of a proposal on the event
page."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from controller.floor.auth import hash_password
from controller.floor.cli import FloorConfig, start, stop
from controller.link.config import BrokerConfig
from tests.brokers import free_port
from tests.floor.browser_util import _in_thread, _wait
from tests.floor.test_floor_browser import CHROMIUM, DRIVER, PASSWORD, _browser


def screenshots(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The browser and its driver are there (a missing one fails the test) and Selenium
    fetches nothing; where the screenshots go (``RAILGUARD_FLOOR_SHOTS``, else ``tmp``)."""
    for exe in (CHROMIUM, DRIVER):
        assert os.access(exe, os.X_OK), f"{exe} missing: scripts/setup.sh installs it (apt)"
    monkeypatch.setenv("SE_OFFLINE", "true")
    shots = Path(os.environ.get("RAILGUARD_FLOOR_SHOTS", tmp))
    shots.mkdir(parents=True, exist_ok=True)
    return shots


@contextlib.asynccontextmanager
async def console(tmp: Path, port: int, roles: dict[str, str]) -> AsyncIterator[tuple[Any, str]]:
    """The floor console on the broker at ``port`` with the users ``roles`` (user -> role,
    their passwords :data:`PASSWORD`'s), and a browser: (driver, the console's URL)."""
    users = tmp / "users.toml"
    users.write_text("".join(
        f'[users.{u}]\nrole = "{r}"\npassword = "{hash_password(PASSWORD[u])}"\n'
        for u, r in roles.items()))  # fmt: skip
    broker = BrokerConfig(host="127.0.0.1", port=port, tls=False, allow_plaintext=True)
    web_port = free_port()
    runner, floor = await start(FloorConfig(broker=broker, users_file=str(users), port=web_port))
    try:
        driver = await _in_thread(_browser, tmp / "chromium")
        try:
            yield driver, f"http://127.0.0.1:{web_port}/"
        finally:
            await _in_thread(driver.quit)
    finally:
        await stop(runner, floor)


def confirm(driver: Any, url: str, event: str, shot: Path | None) -> dict[str, str]:
    """The director confirms the pending proposal on ``event``'s page (a screenshot to
    ``shot`` before): the page's reason, moves and answer."""
    from selenium.webdriver.common.by import By

    driver.get(f"{url}event?event={event}")
    _wait(driver, lambda d: d.find_elements(By.ID, "confirm"), "the confirm button", 20)
    seen = {
        "reason": str(driver.find_element(By.ID, "proposal-reason").text),
        "moves": str(driver.find_element(By.ID, "proposal-moves").text),
    }
    if shot is not None:
        driver.save_screenshot(str(shot))
    driver.find_element(By.ID, "confirm").click()
    _wait(driver, lambda d: d.find_element(By.ID, "response").text not in ("", "…"),
          "the answer", 40)  # fmt: skip
    seen["answer"] = str(driver.find_element(By.ID, "response").text)
    return seen
