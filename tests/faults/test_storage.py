"""A full disk and a locked database under the daemon.

"Full" is SQLite's ``max_page_count`` capped at the files' current size, on both of the
daemon's databases (table.db and outbox.db), as the link tests do: deterministic, and the
same SQLITE_FULL a full filesystem gives. (A small tmpfs was possible here as root, but
SQLite reuses free pages and WAL space, so when a full filesystem starts failing writes is
not deterministic.) "Locked" is another process-level connection holding an exclusive
lock on outbox.db while hands complete.

Expected: no crash, the table deals on, no record lost once space returns or the lock is
released (every record at the logger once, in order), and a clear alert to the venue.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from controller.demo.table import DemoFailure, wait_until
from hwsim.broker import plain_broker
from tests.faults.harness import Rig, alerts, fold_round, table_rig

pytestmark = pytest.mark.timeout(90)
STORAGE_WORDS = ("disk", "storage", "store", "full", "locked", "database")


@dataclass
class Seen:
    records: int = 0
    stored: list[str] = field(default_factory=list)
    order: list[str] = field(default_factory=list)
    expected: list[str] = field(default_factory=list)
    held_max: int = 0
    failures: list[str] = field(default_factory=list)
    alerts: list[dict[str, Any]] = field(default_factory=list)
    alive: bool = True
    conflicts: int = 0


def _ids(rig: Rig) -> list[str]:
    return [f"v1-t1-{r['game_number'].rsplit('-', 1)[-1]}" for r in rig.daemon.records]


async def _scenario(tmp: Path, fault: str) -> Seen:
    rng = random.Random(9)
    chips = [fold_round([10_000] * 6, rng, "chips") for _ in range(4)]
    seen = Seen()
    with plain_broker() as broker:
        async with table_rig(broker.port, tmp, chips) as rig:
            assert rig.store is not None and rig.logger is not None
            store = rig.store
            await rig.table.play(0, fold_round([10_000] * 6, rng, "first"))
            await wait_until(lambda: store.count() == 1, "the first record", 10)
            n_alerts = len(alerts(rig))
            d = rig.daemon
            locker = None
            dbs = [d.store.db, d.link.outbox.db, d.writer_store.db, d.writer_outbox.db]
            if fault == "full":
                for db in dbs:
                    db.set_size_cap(Path(db.path).stat().st_size)
            else:
                locker = sqlite3.connect(d.cfg.outbox_db, isolation_level=None)
                locker.execute("BEGIN EXCLUSIVE")
            rig.table.offline = True  # same players: no venue command needed
            for i in (1, 2):
                try:
                    await rig.table.play(i, fold_round(rig.stacks(), rng, f"{fault} #{i}"))
                except DemoFailure as exc:
                    seen.failures.append(str(exc))
                    await rig.table._clear_table()
                seen.held_max = max(seen.held_max, d.unstored)
            await asyncio.sleep(0.5)
            seen.held_max = max(seen.held_max, d.unstored)
            seen.alerts = alerts(rig)[n_alerts:]
            if fault == "full":
                for db in dbs:
                    db.set_size_cap(None)
            else:
                assert locker is not None
                locker.execute("ROLLBACK")
                locker.close()
            rig.table.offline = False
            await rig.table.play(3, fold_round(rig.stacks(), rng, "after"))
            n = len(d.records)
            seen.records = n
            await wait_until(lambda: store.count() >= n, "every record", 20)
            await wait_until(lambda: d.link.outbox.pending_count() == 0, "acks", 20)
            seen.stored = [h["hand_id"] for h in store.hands()]
            seen.order = list(rig.logger.stats.order)
            seen.expected = _ids(rig)
            seen.conflicts = rig.logger.stats.conflicts
            seen.alive = rig.sim.running
    return seen


def _run(tmp: Path, fault: str) -> Seen:
    seen = asyncio.run(asyncio.wait_for(_scenario(tmp, fault), 80))
    print(f"{fault}: records={seen.records} held_max={seen.held_max} failures={seen.failures}"
          f" alerts={[a.get('code') for a in seen.alerts]}")  # fmt: skip
    return seen


def _no_record_lost(seen: Seen) -> None:
    assert seen.alive
    assert seen.failures == []  # the dealer never got stuck
    assert seen.records == 4  # every hand completed
    assert sorted(seen.stored) == sorted(seen.expected) and len(set(seen.stored)) == 4
    assert seen.order == seen.expected
    assert seen.conflicts == 0


def _storage_alert(seen: Seen) -> bool:
    return any(any(w in str(a.get("remedy", "")).lower() for w in STORAGE_WORDS)
               or a.get("code") in ("STORAGE_FAULT", "STORE_FULL", "STORE_LOCKED", "DISK_FULL")
               for a in seen.alerts)  # fmt: skip


FAULTS = [
    "full",
    pytest.param("locked", marks=pytest.mark.slow),  # each write waits out the busy timeout
]


@pytest.fixture(scope="module", params=FAULTS)
def seen(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Seen:
    fault = str(request.param)
    return _run(tmp_path_factory.mktemp(f"storage-{fault}"), fault)


def test_storage_fault_loses_no_record(seen: Seen) -> None:
    assert seen.held_max >= 1  # the fault was real: a record had to be held
    _no_record_lost(seen)


def test_storage_fault_raises_a_clear_alert(seen: Seen) -> None:
    assert _storage_alert(seen), f"no alert about storage: {seen.alerts}"
    fault = [a for a in seen.alerts if a.get("code") == "STORAGE_FAULT"]
    assert len(fault) == 1 and fault[0]["severity"] == "critical"  # one per outage
