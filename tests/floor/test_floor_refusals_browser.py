"""Issue 22: floor actions that cannot break a table, driven from Debian's chromium (headless,
Selenium, nothing downloaded) against the console on a loopback port, a private mosquitto
and two simulated tables of different sizes (a six-seat and a nine-seat zone map, each a
real daemon with its board and GPIO simulated).

Each mistake of the issue is made in the page as a floor person makes it: a seat the table
does not have, a blank player id, an empty seat unseated, a move to a seat beyond the table,
a small blind of 0, an ante of 5,000 at 100/200. Each is refused with the sentence the
table itself would answer (tests/daemon/test_floor_refusals.py sends the same as raw MQTT),
shown beside the control that was used; nothing reaches either table (their daemons'
command counters), and the room level asks for a confirmation naming how many tables it
changes. Afterwards the tables are healthy: a sensible level and seat go through, and
neither table raised an alert."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from controller.floor.auth import hash_password
from controller.floor.cli import FloorConfig, start, stop
from controller.link.config import BrokerConfig
from hwsim.table import SimTable
from tests.brokers import free_port, plain_broker
from tests.floor.browser_util import _in_thread, _wait
from tests.floor.test_floor_browser import CHROMIUM, DRIVER, PASSWORD, _browser, _fill, _login

pytestmark = pytest.mark.timeout(150)
SIZES = {"t1": 6, "t2": 9}


def _answer(driver: Any, form: str) -> tuple[str, str]:
    """(text, class) of the answer beside ``form``'s button ("" when there is none yet)."""
    got = driver.execute_script(
        "const o = document.querySelector(`#${arguments[0]} output.answer`);"
        " return o ? [o.textContent, o.className] : ['', ''];", form)  # fmt: skip
    return str(got[0]), str(got[1])


def _click(driver: Any, css: str) -> None:
    driver.find_element("css selector", css).click()


def _shot(driver: Any, shots: Path, name: str, form: str) -> None:
    """The form ``form`` as the floor sees it: its fields, its button, the answer beside."""
    driver.execute_script("document.getElementById(arguments[0]).scrollIntoView()", form)
    driver.find_element("id", form).screenshot(str(shots / name))


async def _refused_beside(driver: Any, form: str, want: str) -> None:
    await _in_thread(_wait, driver, lambda d: _answer(d, form)[0] == want,
                     f"{want!r} beside {form}")  # fmt: skip
    assert "refused" in _answer(driver, form)[1].split()


async def _play(tmp: Path, port: int, shots: Path) -> None:
    users = tmp / "users.toml"
    roles = (("sam", "supervisor"), ("dan", "director"))
    users.write_text(
        "".join(
            f'[users.{u}]\nrole = "{r}"\npassword = "{hash_password(PASSWORD[u])}"\n'
            for u, r in roles
        )
    )
    tables: dict[str, SimTable] = {}
    web_port = free_port()
    cfg = FloorConfig(broker=BrokerConfig(host="127.0.0.1", port=port, tls=False,
                                          allow_plaintext=True),
                      users_file=str(users), port=web_port)  # fmt: skip
    runner, console = await start(cfg)
    driver = None
    try:
        for t, n in SIZES.items():
            tables[t] = await SimTable.open(
                "127.0.0.1",
                port,
                profile="tda-2024",
                workdir=tmp / t,
                table_id=t,
                seats=n,
                enrol=False,
            )
            for seat in (1, 2):
                await tables[t].venue.do("seat", seat=seat, player_id=f"{t}p{seat}",
                                         name=f"{t} player {seat}", stack=5000)  # fmt: skip
        url = f"http://127.0.0.1:{web_port}/"
        driver = await _in_thread(_browser, tmp / "chromium")
        await _in_thread(driver.set_window_size, 1440, 900)

        def known() -> bool:
            tiles = console.room.tiles
            return all(len((tiles.get(f"v1/{t}") or _NONE).state.get("seats", [])) == 2
                       and (tiles.get(f"v1/{t}") or _NONE).state.get("table_seats")
                       == list(range(1, n + 1)) for t, n in SIZES.items())  # fmt: skip

        for _ in range(500):
            if known():
                break
            await asyncio.sleep(0.02)
        assert known(), {k: t.state for k, t in console.room.tiles.items()}
        before = {t: s.daemon.stats.commands for t, s in tables.items()}

        # the supervisor's mistakes
        await _in_thread(_login, driver, url, "sam")
        await _in_thread(
            _wait,
            driver,
            lambda d: len(d.find_elements("css selector", "#seat-table option")) == 2,
            "both tables in the seat form",
        )
        seat_form = {"seat-table": "v1/t1", "seat-no": 7, "seat-player": "alice",
                     "seat-name": "Alice", "seat-stack": 5000}  # fmt: skip
        await _in_thread(_fill, driver, seat_form)
        await _in_thread(_click, driver, "#seat-button")
        await _refused_beside(driver, "seat-form", "t1: seat 7 refused: Seat 7 does not exist"
                              " at this table: it has seats 1-6.")  # fmt: skip
        await _in_thread(_shot, driver, shots, "refusal-seat.png", "seat-form")
        # the nine-seat table has a seat 7: the same form there seats Alice
        await _in_thread(_fill, driver, {**seat_form, "seat-table": "v1/t2"})
        await _in_thread(_click, driver, "#seat-button")
        await _in_thread(_wait, driver, lambda d: _answer(d, "seat-form")[0]
                         == "t2: seat 7: Alice seated", "Alice seated at t2")  # fmt: skip
        assert tables["t2"].daemon.core.seats[7].player == "alice"
        before["t2"] += 1
        await _in_thread(_fill, driver, {**seat_form, "seat-no": 5, "seat-player": " "})
        await _in_thread(_click, driver, "#seat-button")
        await _refused_beside(driver, "seat-form", "t1: seat 5 refused: The player id ' ' is"
                              " not usable: use letters, digits and . _ : - (at most 64,"
                              " starting with a letter or digit).")  # fmt: skip
        await _in_thread(_fill, driver, {"unseat-table": "v1/t1", "unseat-seat": 5})
        await _in_thread(_click, driver, "#unseat-button")
        await _refused_beside(driver, "unseat-form", "v1/t1: unseat refused: Seat 5 is empty:"
                              " there is nobody to unseat.")  # fmt: skip
        await _in_thread(_fill, driver, {"move-from-table": "v1/t1", "move-from-seat": 1,
                                         "move-to-table": "v1/t1", "move-to-seat": 8})  # fmt: skip
        await _in_thread(_click, driver, "#move-button")
        await _refused_beside(
            driver,
            "move-form",
            "move v1/t1 seat 1 to v1/t1 seat 8 refused:"
            " Seat 8 does not exist at this table: it has seats 1-6.",
        )
        await _in_thread(_shot, driver, shots, "refusal-move.png", "move-form")

        # the director's: the level, confirmed for the two tables, refused by the console
        await _in_thread(_login, driver, url, "dan")
        await _in_thread(_wait, driver, lambda d: d.find_element("id", "director-actions")
                         .is_displayed(), "the director's forms")  # fmt: skip
        for sb, ante, said in ((0, 0, "The small blind must be above zero (got 0)."),
                               (100, 5000, "The ante (5,000) may not be larger than the big"
                                           " blind (200).")):  # fmt: skip
            await _in_thread(_fill, driver, {"level-no": 2, "level-sb": sb, "level-bb": 200,
                                             "level-ante": ante})  # fmt: skip
            await _in_thread(_click, driver, "#level-button")
            ask = f"Set level 2 ({sb}/200, ante {ante}) at 2 tables?"
            await _in_thread(_wait, driver, lambda d, ask=ask: d.find_element(
                "id", "level-confirm-text").text == ask, ask)  # fmt: skip
            if sb == 0:
                await _in_thread(_shot, driver, shots, "level-confirm.png", "level-form")
            await _in_thread(_click, driver, "#level-confirm")
            await _refused_beside(driver, "level-form", f"room level refused: {said}")
        await _in_thread(_shot, driver, shots, "refusal-level.png", "level-form")
        # cancelled: nothing is sent
        await _in_thread(_fill, driver, {"level-sb": 100, "level-ante": 0})
        await _in_thread(_click, driver, "#level-button")
        await _in_thread(_click, driver, "#level-cancel")
        await _in_thread(_wait, driver, lambda d: _answer(d, "level-form")[0]
                         == "level not changed", "the cancellation")  # fmt: skip
        await asyncio.sleep(0.3)
        assert {t: s.daemon.stats.commands for t, s in tables.items()} == before

        # the tables are healthy: a sensible level is set at both, confirmed for two
        await _in_thread(_click, driver, "#level-button")
        await _in_thread(_click, driver, "#level-confirm")
        want = ("level 2 (100/200, ante 0): set at 2 of 2 tables\nv1/t1: level 2 now\n"
                "v1/t2: level 2 now")  # fmt: skip
        await _in_thread(_wait, driver, lambda d: _answer(d, "level-form")[0] == want,
                         "the level set at both tables")  # fmt: skip
        for t, table in tables.items():
            snap = table.daemon.core.snapshot()
            assert (snap.small_blind, snap.big_blind, snap.ante) == (100, 200, 0), t
            assert sorted(table.daemon.core.seats) == ([1, 2] if t == "t1" else [1, 2, 7])
            assert table.venue.on("alerts") == [], (t, table.venue.on("alerts"))
    finally:
        if driver is not None:
            await _in_thread(driver.quit)
        for table in tables.values():
            await table.close()
        await stop(runner, console)


class _Nothing:
    def __init__(self) -> None:
        self.state: dict[str, Any] = {}


_NONE = _Nothing()


def test_floor_refusals_beside_their_controls_in_a_real_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for exe in (CHROMIUM, DRIVER):
        assert os.access(exe, os.X_OK), f"{exe} missing: scripts/setup.sh installs it (apt)"
    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager never fetches anything
    shots = Path(os.environ.get("RAILGUARD_FLOOR_SHOTS", tmp_path))
    with plain_broker() as b:
        asyncio.run(asyncio.wait_for(_play(tmp_path, b.port, shots), 130))
    assert (shots / "refusal-seat.png").stat().st_size > 0
