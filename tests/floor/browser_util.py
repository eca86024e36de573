"""Selenium helpers of the browser tests: a driver call off the loop, a wait that names
what the page never showed, a login, and the texts (or an attribute) of the elements a
selector finds."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def _in_thread(fn: Callable[..., T], *args: Any) -> T:
    return await asyncio.to_thread(fn, *args)


def _wait(driver: Any, cond: Callable[[Any], Any], what: str, timeout: float = 10) -> Any:
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(cond)
    except TimeoutException:
        tiles = driver.execute_script(
            "return [...document.querySelectorAll('article.tile')].map(e => e.outerHTML)"
        )
        raise AssertionError(f"the browser never showed {what}; tiles: {tiles}") from None


def _texts(driver: Any, css: str, attr: str | None = None) -> list[str]:
    script = ("return [...document.querySelectorAll(arguments[0])].map(e => arguments[1] ?"
              " e.getAttribute(arguments[1]) : e.textContent)")  # fmt: skip
    return list(driver.execute_script(script, css, attr))


def log_in(driver: Any, url: str, user: str, password: str) -> None:
    """Open the console at ``url`` and log in as ``user`` (logging out whoever is in)."""
    from selenium.webdriver.common.by import By

    driver.get(url)
    _wait(driver, lambda d: d.find_element(By.ID, "login").is_displayed()
          or d.find_element(By.ID, "console").is_displayed(), "the page")  # fmt: skip
    if driver.find_element(By.ID, "console").is_displayed():  # still logged in: log out
        driver.find_element(By.ID, "logout").click()
        _wait(driver, lambda d: d.find_element(By.ID, "login").is_displayed(), "the login")
    driver.find_element(By.ID, "user").clear()
    driver.find_element(By.ID, "user").send_keys(user)
    driver.find_element(By.ID, "password").send_keys(password)
    driver.find_element(By.ID, "login-button").click()
    _wait(driver, lambda d: d.find_element(By.ID, "who").text.startswith(user), f"{user} in")
