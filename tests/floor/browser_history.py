"""The hand history's part of the browser test (``test_floor_browser.py``): two recorded hands
of the shared corpus stored beside the table's, a hand looked up by player and stepped
through street by street against what pokerkit makes of the source file, the dealer
quality against a count made by hand, the shift presets, and a table looked up by the name the
venue file gives it (``VENUE``: the console's FloorConfig.venue)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from tests.floor.browser_util import _in_thread, _texts, _wait
from tests.floor.records import record, source_streets

SOURCE = "pluribus/31/11.phh"  # Gogo wins a river showdown against MrWhite
VENUE_FILE = {"tables": {"t2": {"number": 7, "name": "Feature"}}}  # the corpus hands' table


def _store_corpus_hands(tmp: Path) -> dict[str, Any]:
    """Two hands of another table, dealt by D7, stored in the venue logger's database as
    the logger stores them; returns the table's own stored hand."""
    from controller.venuelog.store import SqliteHandStore

    store = SqliteHandStore(tmp / "table/venue.db")
    try:
        own = next(iter(store.hands(table="t1")))
        assert own.get("dealer_id") == "D-017"  # the dealer the tile showed on duty
        for env in (
            record(SOURCE, 1, table="t2", dealer="D7", refs={"Gogo": "P-77"}),
            record("pluribus/100/0.phh", 2, table="t2", dealer="D7", inject="exposed"),
        ):
            assert store.put(env) == "stored"  # fmt: skip
    finally:
        store.close()
    return own


def _look_up_player(driver: Any, url: str, player: str) -> None:
    driver.get(url)
    _wait(driver, lambda d: d.find_element("id", "who").text.startswith("sam"), "the console")
    driver.find_element("id", "history-link").click()
    _wait(driver, lambda d: d.find_element("id", "found").text != "", "the hand history")
    box = driver.find_element("id", "q-player")
    box.send_keys(player)
    driver.find_element("id", "search-button").click()


def _street_shown(driver: Any) -> dict[str, Any]:
    return {
        "street": driver.find_element("id", "street-name").text,
        "board": _texts(driver, "#board .card", "data-card"),
        "pot": int(driver.find_element("id", "pot").text),
        "actions": _texts(driver, "#actions li", "data-action"),
        "alerts": _texts(driver, "#street-alerts li", "data-code"),
    }


async def history_checks(tmp: Path, driver: Any, url: str, shots: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    own = _store_corpus_hands(tmp)
    # looked up by player: the one hand Gogo played (the source file's players)
    await _in_thread(_look_up_player, driver, url, "gogo")
    await _in_thread(_wait, driver, lambda d: _texts(d, "#results tbody tr", "data-hand-id")
                     == ["v1-t2-1"], "Gogo's hand found")  # fmt: skip
    await _in_thread(driver.save_screenshot, str(shots / "history.png"))
    await _in_thread(lambda: driver.find_element("css selector", "a.hand-link").click())
    await _in_thread(_wait, driver, lambda d: d.find_element("id", "street-name").text
                     == "Preflop", "the hand page")  # fmt: skip
    want = source_streets(SOURCE)
    names = ["Preflop", "Flop", "Turn", "River"]
    seen = []
    for i, exp in enumerate(want):
        shown = await _in_thread(_street_shown, driver)
        seen.append(shown["street"])
        assert shown["street"] == names[i]
        assert sorted(shown["board"]) == sorted(exp["board"]), shown
        assert shown["pot"] == exp["pot"], shown
        moves = [a for a in shown["actions"] if a not in ("Post SB", "Post BB", "Dealt Cards")]
        assert len(moves) == len(exp["moves"]), shown
        if i % 2 == 0:  # the keyboard, then the tablet's button
            body = driver.find_element("css selector", "body")
            await _in_thread(body.send_keys, Keys.ARROW_RIGHT)
        else:
            await _in_thread(lambda: driver.find_element("id", "step-next").click())
        await _in_thread(_wait, driver, lambda d, n=shown["street"]: d.find_element(
            "id", "street-name").text != n, "the next street")  # fmt: skip
    showdown = await _in_thread(_street_shown, driver)
    assert showdown["street"] == "Showdown" and showdown["actions"] == ["Shows Cards"] * 2
    cards = await _in_thread(_texts, driver, "#actions .card", "data-card")
    assert cards == ["7h", "5s", "Qd", "Ad"]  # the source's 'p2 sm 7h5s', 'p3 sm QdAd'
    assert driver.find_element("id", "step-next").get_attribute("disabled") is not None
    await _in_thread(driver.set_window_size, 1200, 1000)
    await _in_thread(driver.save_screenshot, str(shots / "hand.png"))
    # the dealer quality of the room: counted by hand, the table's own hand (the first card
    # to the wrong seat, a misdeal: one error) and D7's two hands (one exposed card)
    await _in_thread(driver.back)
    await _in_thread(lambda: driver.find_element("id", "quality-button").click())
    await _in_thread(_wait, driver, lambda d: len(_texts(d, "#quality tbody tr")) == 3,
                     "the quality table")  # fmt: skip
    rows = driver.execute_script("return [...document.querySelectorAll('#quality tbody"
                                 " tr[data-dealer]')].map(r => [...r.cells].map(c =>"
                                 " c.textContent))")  # fmt: skip
    heads = _texts(driver, "#quality thead th")
    own_dealer = own.get("dealer_id") or "(none)"
    assert heads[:4] == ["Dealer", "Hands", "Errors", "Per 100 hands"]
    assert sorted(heads[4:]) == ["EXPOSED_CARD", "WRONG_FIRST_SEAT"]
    table = {r[0]: dict(zip(heads[1:], r[1:], strict=True)) for r in rows}
    assert table[own_dealer]["Hands"] == "1" and table[own_dealer]["WRONG_FIRST_SEAT"] == "1"
    assert table[own_dealer]["Per 100 hands"] == "100.0"
    assert (table["D7"]["Hands"], table["D7"]["Errors"], table["D7"]["EXPOSED_CARD"]) == (
        "2", "1", "1")  # fmt: skip
    assert table["D7"]["Per 100 hands"] == "50.0"
    await _in_thread(_wait, driver, lambda d: d.execute_script(
        "const i = document.getElementById('quality-chart'); return i.complete &&"
        " i.naturalWidth > 0"), "the chart")  # fmt: skip
    await _in_thread(
        lambda: driver.find_element("id", "quality-chart").location_once_scrolled_into_view
    )
    await _in_thread(driver.save_screenshot, str(shots / "quality.png"))
    assert seen == names
    await _in_thread(_shift_presets, driver, own)
    await _in_thread(_table_by_name, driver)


def _shift_presets(driver: Any, own: dict[str, Any]) -> None:
    """A shift preset fills From and To in the browser's local time and searches: the
    table's own hand ended minutes ago, the corpus hands on the records' fixed 2024 date."""
    from selenium.webdriver.support.ui import Select

    driver.find_element("id", "q-player").clear()  # the player looked up before
    shift = Select(driver.find_element("id", "q-shift"))
    shift.select_by_value("yesterday")
    _wait(driver, lambda d: d.find_element("id", "found").text == "no hand matches",
          "no hand yesterday")  # fmt: skip
    midnight = datetime.now().replace(hour=0, minute=0, second=0, microsecond=0)
    since = driver.find_element("id", "q-since").get_attribute("value")
    until = driver.find_element("id", "q-until").get_attribute("value")
    assert (since, until) == ((midnight - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"),
                              midnight.strftime("%Y-%m-%dT%H:%M"))  # fmt: skip
    shift.select_by_value("8")
    _wait(driver, lambda d: _texts(d, "#results tbody tr", "data-hand-id") == [own["hand_id"]],
          "the table's own hand, of the last 8 hours")  # fmt: skip
    assert driver.find_element("id", "q-until").get_attribute("value") == ""
    driver.find_element("id", "quality-button").click()  # the shift's dealer quality
    _wait(driver, lambda d: _texts(d, "#quality tbody tr[data-dealer]", "data-dealer")
          == [own.get("dealer_id") or "(none)"], "the shift's dealers")  # fmt: skip
    driver.execute_script("const i = document.getElementById('q-since');"  # typed in:
                          " i.value = '2024-05-01T18:00';"  # the preset is dropped
                          " i.dispatchEvent(new Event('input', {bubbles: true}))")  # fmt: skip
    assert Select(driver.find_element("id", "q-shift")).first_selected_option.text == "as set"


def _table_by_name(driver: Any) -> None:
    """The table typed as the floor calls it, in another case: the corpus table's hands,
    its name beside its id; a name the venue file lacks is answered in words."""
    for field in ("q-since", "q-until", "q-player"):
        driver.find_element("id", field).clear()
    box = driver.find_element("id", "q-table")
    box.clear()
    box.send_keys("FEATURE")
    driver.find_element("id", "search-button").click()
    _wait(driver, lambda d: _texts(d, "#results tbody tr", "data-hand-id")
          == ["v1-t2-2", "v1-t2-1"], "the Feature table's hands")  # fmt: skip
    assert set(_texts(driver, "#results tbody td.table")) == {"Feature (#7) · t2"}
    box.clear()
    box.send_keys("Main 9")
    driver.find_element("id", "search-button").click()
    _wait(driver, lambda d: d.find_element("id", "response").text == 'hand search: table'
          ' "Main 9": no table has that name or number in the venue file, and no stored hand'
          " comes from a table with that id", "the unknown table's answer")  # fmt: skip
    box.clear()
