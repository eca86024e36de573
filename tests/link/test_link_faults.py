"""Fault tests with real parts: broker down for several hands, table process killed and
restarted on the same SQLite, full disk and locked database."""

from __future__ import annotations

import asyncio
import socket
import sqlite3
from pathlib import Path

import pytest
from loop_timers import recording_timers

from controller.daemon.table_store import TableStore
from controller.link import BrokerConfig, Outbox, StoreFull, StoreLocked, VenueLink
from controller.venuelog import SqliteHandStore, VenueLogger
from tests.brokers import plain_broker
from tests.link import samples
from tests.link.mqtt_helpers import Observer, until

pytestmark = pytest.mark.timeout(90)


def plain(port: int) -> BrokerConfig:
    return BrokerConfig(host="127.0.0.1", port=port, tls=False, allow_plaintext=True)


def fast_link(port: int, path: Path) -> VenueLink:
    return VenueLink(
        plain(port), "v1", "t1", path, backoff=(0.05, 0.3), ack_timeout=1.0, held_retry=0.1
    )


def ids(n: range) -> list[str]:
    return [f"v1-t1-{i}" for i in n]


def test_broker_down_for_several_hands(tmp_path: Path) -> None:
    async def main() -> None:
        with plain_broker() as b:
            hands = SqliteHandStore(tmp_path / "venue.db")
            logger = VenueLogger(plain(b.port), hands, backoff=(0.05, 0.3))
            link = fast_link(b.port, tmp_path / "table.db")
            logger.start()
            link.start()
            await until(lambda: link.logger_online, what="logger online")
            for n in range(1, 4):
                link.submit_hand(f"v1-t1-{n}", n, samples.ohh(n))
            await until(lambda: hands.count() == 3, what="first 3")
            # stored at the logger is not yet acknowledged at the table: wait for the acks,
            # or the third may still be pending when the broker dies (then 7, not 6, below)
            await until(lambda: link.outbox.pending_count() == 0, what="first 3 acknowledged")

            b.kill()  # broker gone: no clean disconnects
            await until(lambda: not link.connected and not logger.connected, what="down")
            for n in range(4, 10):  # six hands while the venue is unreachable
                link.submit_hand(f"v1-t1-{n}", n, samples.ohh(n))
                assert not link.publish_event("hand_end", {"hand_no": n})
            assert link.outbox.pending_count() == 6
            assert link.stats.events_dropped == 6
            await asyncio.sleep(0.5)
            b.start()

            await until(lambda: hands.count() == 9, timeout=20, what="all 9 stored")
            await until(lambda: link.outbox.pending_count() == 0, what="all acked")
            assert [h["hand_id"] for h in hands.hands()] == ids(range(1, 10))
            assert logger.stats.order == ids(range(1, 10))  # arrival order
            assert logger.stats.stored == 9 and logger.stats.conflicts == 0
            assert [h["record_seq"] for h in hands.hands()] == list(range(1, 10))
            await link.stop()
            await logger.stop()
            hands.close()

    asyncio.run(main())


def test_table_killed_and_restarted_on_same_sqlite(tmp_path: Path) -> None:
    """Records sent but never acknowledged when the table dies are re-sent by the next
    process, marked replayed, and stored once."""

    async def main() -> None:
        with plain_broker() as b:
            venue_db = tmp_path / "venue.db"
            hands = SqliteHandStore(venue_db, busy_timeout=0.05)
            logger = VenueLogger(plain(b.port), hands, backoff=(0.05, 0.3))
            logger.start()
            async with Observer(b.port, ["railguard/+/+/hands"]) as obs:
                link1 = fast_link(b.port, tmp_path / "table.db")
                link1.start()
                await until(lambda: link1.logger_online, what="logger online")
                link1.submit_hand("v1-t1-1", 1, samples.ohh(1))
                await until(lambda: hands.count() == 1, what="first stored")

                # The logger's database is locked by someone else: it cannot store, so it
                # does not acknowledge; the table has sent these records.
                locker = sqlite3.connect(venue_db, isolation_level=None)
                locker.execute("BEGIN EXCLUSIVE")
                for n in range(2, 6):
                    link1.submit_hand(f"v1-t1-{n}", n, samples.ohh(n))
                await until(lambda: len(obs.on("/hands")) >= 5, what="sent")
                await until(lambda: logger.stats.store_errors >= 1, what="store errors")

                # Kill the table side: drop the socket, cancel, close its database.
                assert link1._client is not None
                link1._client._client.socket().shutdown(socket.SHUT_RDWR)
                assert link1._task is not None
                link1._task.cancel()
                await asyncio.gather(link1._task, return_exceptions=True)
                link1.outbox.close()
                locker.execute("ROLLBACK")
                locker.close()

                link2 = fast_link(b.port, tmp_path / "table.db")
                link2.start()
                await until(lambda: link2.logger_online, what="logger online again")
                for n in range(6, 8):
                    link2.submit_hand(f"v1-t1-{n}", n, samples.ohh(n))
                await until(lambda: hands.count() == 7, timeout=20, what="7 stored")
                await until(lambda: link2.outbox.pending_count() == 0, what="acked")
                assert [h["hand_id"] for h in hands.hands()] == ids(range(1, 8))
                assert logger.stats.order == ids(range(1, 8))
                replayed = {e["hand_id"] for e in obs.on("/hands") if e["replayed"]}
                assert set(ids(range(2, 6))) <= replayed
                assert link2.bdseq is not None and link2.bdseq > (link1.bdseq or 0)
                await link2.stop()
            await logger.stop()
            hands.close()

    asyncio.run(main())


def test_full_disk_then_space_returns(tmp_path: Path) -> None:
    """StoreFull is raised, the record is held in memory, and it reaches the logger, in
    order, once space returns."""

    async def main() -> None:
        with plain_broker() as b:
            hands = SqliteHandStore(tmp_path / "venue.db")
            logger = VenueLogger(plain(b.port), hands, backoff=(0.05, 0.3))
            outbox = Outbox(tmp_path / "table.db")
            link = VenueLink(plain(b.port), "v1", "t1", outbox, held_retry=0.05)
            logger.start()
            link.start()
            await until(lambda: link.logger_online, what="logger online")
            link.submit_hand("v1-t1-1", 1, samples.ohh(1))
            size = (tmp_path / "table.db").stat().st_size
            outbox.set_size_cap(size)  # the disk is now "full"
            failures = 0
            for n in range(2, 8):
                try:
                    link.submit_hand(f"v1-t1-{n}", n, samples.ohh(n))
                except StoreFull as exc:
                    failures += 1
                    assert "nothing was committed" in str(exc)
            assert failures >= 1 and link.held_count >= 1
            await asyncio.sleep(0.3)
            assert link.held_count >= 1  # still full: still held
            outbox.set_size_cap(None)  # space returns
            await until(lambda: link.held_count == 0, what="held flushed")
            await until(lambda: hands.count() == 7, what="7 stored")
            assert [h["hand_id"] for h in hands.hands()] == ids(range(1, 8))
            await link.stop()
            await logger.stop()
            hands.close()

    asyncio.run(main())


def test_held_records_are_retried_by_a_timer_only_while_one_is_held(tmp_path: Path) -> None:
    """Nothing held: the retry loop waits without a timer (it used to wake every
    ``held_retry``); a record left held is retried every ``held_retry`` until stored."""

    async def main() -> None:
        with plain_broker() as b:
            outbox = Outbox(tmp_path / "table.db")
            link = VenueLink(plain(b.port), "v1", "t1", outbox, held_retry=0.02)
            link.start()
            await link.wait_connected(5)
            loop = asyncio.get_running_loop()
            link.submit_hand("v1-t1-1", 1, samples.ohh(1))  # stored at once: nothing held
            with recording_timers(loop) as idle:
                await asyncio.sleep(0.2)
            assert idle["HandRecords.held_loop"] == 0, idle
            outbox.set_size_cap((tmp_path / "table.db").stat().st_size)  # the disk is full
            with pytest.raises(StoreFull):
                link.submit_hand("v1-t1-2", 2, samples.ohh(2))
            with recording_timers(loop) as held:
                await asyncio.sleep(0.2)
            assert held["HandRecords.held_loop"] >= 2, held
            assert link.held_count == 1
            outbox.set_size_cap(None)
            await until(lambda: link.held_count == 0, what="held flushed")
            assert [r.hand_id for r in outbox.pending()] == ids(range(1, 3))
            await link.stop()

    asyncio.run(main())


def test_locked_database_is_a_typed_error_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "table.db"
    store = TableStore(path, busy_timeout=0.05)
    outbox = Outbox(path, busy_timeout=0.05)
    store.put_seating([(1, "p1", "Ivey", 1000)])
    before = store.snapshot()
    locker = sqlite3.connect(path, isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")
    with pytest.raises(StoreLocked, match="nothing was committed"):
        store.put_seating([(1, "p1", "Ivey", 1000), (2, "p2", "Dwan", 1000)])
    with pytest.raises(StoreLocked):
        store.next_hand_no()
    with pytest.raises(StoreLocked):
        outbox.add("v1-t1-1", 1, samples.ohh(1))
    locker.execute("ROLLBACK")
    locker.close()
    assert store.snapshot() == before
    assert outbox.pending_count() == 0
    assert outbox.add("v1-t1-1", 1, samples.ohh(1)).record_seq == 1
