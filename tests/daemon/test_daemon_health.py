"""The live state's dealer on duty and storage health (issue 17), through the daemon over a
real mosquitto (the venue subscriber reads what the table published):

- a dealer's badge (the pcsc task's events, as tests/daemon/pcsc_daemon_cases.py gets them
  from a real pcscd) puts the dealer in the state; a restart keeps them logged in (state and
  the next hand's record), and their next tap logs them out;
- a full filesystem (a small tmpfs of its own as the state directory; root only): the state
  says ``disk_low``, the first write on the full disk uses up the reserve (``no_reserve``)
  and the table plays on; once space is freed the reserve is written again and the state
  is ``ok``. Storage health is never published per event: a hand dealt while it holds
  changes nothing in it;
- a record no venue logger acknowledged is a ``backlog`` (the threshold lowered to 0 here)
  until a real venue logger comes online and acknowledges it.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.daemon import health
from controller.demo.table import MUCK, card_uid
from controller.rules.cards import Card
from controller.rules.events import BadgeTap, SetDealer
from controller.venuelog import SqliteHandStore, VenueLogger
from tests.brokers import plain_broker
from tests.daemon.daemon_rig import Rig, running, wait_for
from tests.faults.harness import plain, small_tmpfs
from tests.faults.test_disk_full_crash import fill

pytestmark = pytest.mark.timeout(200)


@pytest.fixture(scope="module")
def mqtt_port() -> Iterator[int]:
    with plain_broker() as broker:
        yield broker.port


def _tap(rig: Rig, staff: str) -> None:
    """A dealer's badge as the pcsc task hands it over (firmware_bridge/pcsc.py)."""
    t = rig.daemon.core.t
    dealer = "" if rig.daemon.core.dealer == staff else staff  # the reader's own toggle
    rig.daemon.put(BadgeTap(t, staff, supervisor=False), "pcsc")
    rig.daemon.put(SetDealer(t, dealer), "pcsc")


async def _hand(rig: Rig, seats: tuple[int, int, int] = (2, 3, 1)) -> None:
    """A hand folded to the big blind; waits for its record."""
    n = len(rig.daemon.records)
    await rig.to_first_action(seats)
    for card in ("9h", "8d", "2c", "Ks"):  # the button's and the small blind's cards
        await rig.place(MUCK, card_uid(Card.parse(card)))
    await wait_for(lambda: len(rig.daemon.records) > n, "the hand record")
    await rig.clear()


def _storage(rig: Rig) -> dict[str, Any]:
    return dict(rig.state().get("storage") or {})


async def _born(rig: Rig) -> None:
    """The state of this run's birth (not the retained one of the run before)."""
    bdseq = rig.daemon.link.bdseq
    await wait_for(lambda: [s for s in rig.venue.on("state") if s["bdseq"] == bdseq],
                   "this run's state")  # fmt: skip
    await rig.settled()


async def _dealer(tmp: Path, port: int) -> None:
    state = tmp / "state"
    async with running(tmp, port, storage=state) as rig:
        assert rig.state()["dealer"] is None
        assert _storage(rig) == {"health": "ok", "reasons": []}
        await rig.setup()
        _tap(rig, "D-017")
        await wait_for(lambda: rig.state()["dealer"] == "D-017", "the dealer in the state")
        states = len(rig.venue.on("state"))
        await rig.settled()
        assert len(rig.venue.on("state")) == states  # published once, on the change
    async with running(tmp, port, storage=state) as rig:
        d = rig.daemon
        # the retained state after the restart's birth: still logged in
        await _born(rig)
        assert rig.state()["dealer"] == "D-017" and d.core.dealer == "D-017"
        await _hand(rig)
        assert d.core.last_record is not None and d.core.last_record.dealer == "D-017"
        _tap(rig, "D-017")  # the same badge again: logged out
        await wait_for(lambda: rig.state()["dealer"] is None, "the dealer logged out")
    async with running(tmp, port, storage=state) as rig:
        await _born(rig)
        assert rig.state()["dealer"] is None and rig.daemon.core.dealer == ""


def test_dealer_on_duty_in_the_state_and_over_a_restart(tmp_path: Path, mqtt_port: int) -> None:
    asyncio.run(asyncio.wait_for(_dealer(tmp_path, mqtt_port), 150))


def _codes(rig: Rig) -> set[str]:
    return {r["code"] for r in _storage(rig).get("reasons", [])}


async def _full_disk(tmp: Path, port: int, state: Path) -> None:
    async with running(tmp, port, storage=state) as rig:
        d = rig.daemon
        await rig.setup()
        assert _storage(rig) == {"health": "ok", "reasons": []}
        assert d.reserve.held
        await asyncio.to_thread(fill, state)  # to the last byte

        def full() -> bool:
            return "disk_low" in _codes(rig) and "0 MiB" in _storage(rig)["reasons"][0]["detail"]

        await wait_for(full, "disk_low (0 MiB free) in the state")
        low = _storage(rig)
        assert low["health"] == "degraded" and _codes(rig) == {"disk_low"}, low
        # a hand on the full disk: its first write gives up the reserve and the table
        # plays on; the record is stored in the reserve's space
        await _hand(rig)
        await wait_for(lambda: d.unstored == 0, "the record stored", 10)
        await wait_for(lambda: "no_reserve" in _codes(rig), "no_reserve in the state", 5)
        assert d.reserve.released == 1
        assert rig.alerts("STORAGE_FAULT"), "the full disk's write failed once"
        assert _storage(rig)["health"] == "degraded"
        # no republication per event: a hand's events leave the storage health alone
        said = [s["storage"] for s in rig.venue.on("state")]
        changes = sum(1 for a, b in itertools.pairwise(said) if a != b)
        assert changes <= 4, said  # ok, disk_low, (write_failing,) no_reserve
        # space again: the reserve is written again and the state is ok
        (state / "filler").unlink()
        await wait_for(lambda: _storage(rig).get("health") == "ok", "storage ok again", 10)
        assert d.reserve.held


def test_storage_health_on_a_full_filesystem(tmp_path: Path, mqtt_port: int) -> None:
    with small_tmpfs(tmp_path / "state", "96m") as state:
        asyncio.run(asyncio.wait_for(_full_disk(tmp_path, mqtt_port, state), 150))


async def _backlog(tmp: Path, port: int) -> None:
    async with running(tmp, port, storage=tmp / "state") as rig:
        await rig.setup()
        await _hand(rig)  # no venue logger on the broker: the record waits in the outbox
        assert rig.daemon.link.outbox.pending_count() == 1
        await wait_for(lambda: "backlog" in _codes(rig), "backlog in the state", 8)
        assert _storage(rig)["reasons"] == [
            {"code": "backlog", "detail": "1 hand records wait for a venue logger's "
                                          "acknowledgement"}]  # fmt: skip
        # a logger comes online and acknowledges it: the backlog is gone
        store = SqliteHandStore(tmp / "venue.db")
        logger = VenueLogger(plain(port), store, backoff=(0.05, 0.5))
        logger.start()
        try:
            await wait_for(lambda: store.count() == 1, "the record at the logger", 10)
            await wait_for(lambda: _storage(rig).get("health") == "ok", "storage ok", 8)
        finally:
            await logger.stop()
            store.close()


def test_backlog_of_unacknowledged_records(tmp_path: Path, mqtt_port: int,
                                           monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setattr(health, "BACKLOG", 0)  # one record is a backlog here (50 at a table)
    asyncio.run(asyncio.wait_for(_backlog(tmp_path, mqtt_port), 120))
