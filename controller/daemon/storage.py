"""The daemon's SQLite writes, off the event loop, in order, with a storage-fault alert.

Two :class:`Writer` lanes, each one thread with its own SQLite connection (so a write that
waits out a lock never holds the connection the loop reads with):

``table``  table.db: the running hand's events, hand counter, button, stacks, and the
           clearing of a finished hand's events
``outbox`` outbox.db: completed hand records (the link's durable outbox)

A job is retried (every ``retry`` seconds, in place: later jobs of the lane wait behind it,
so the order of writes is kept) until it commits. The first StoreError of a lane raises
``STORAGE_FAULT`` (critical) to the dealer and the venue (:class:`StorageAlarm`); when no
lane is failing any more the alert is acknowledged by ``railguard`` and the LED cleared.
The events of a finished hand are cleared only after its record is in the outbox, so a
restart while storage fails rebuilds the record from them (see ``Daemon._restore_hand``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import sqlite3
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from controller.link.errors import StoreError
from controller.ohh import to_ohh
from controller.rules.errors import BadInput, RailguardError

if TYPE_CHECKING:
    from controller.daemon.service import Daemon
    from controller.link.store import TableStore

log = logging.getLogger("railguard.daemon")
T = TypeVar("T")

CODE = "STORAGE_FAULT"
REMEDY = (
    "Storage on the table computer is failing ({detail}). Free space on the SD card and "
    "check the database ({path}); the table plays on and every hand record is kept in "
    "memory and stored once writes work again; do not switch the table off."
)


class StorageAlarm:
    """One open STORAGE_FAULT alert per outage (LED, buzzer, venue alert)."""

    def __init__(self, daemon: Daemon) -> None:
        self.d = daemon
        self.failing: dict[str, str] = {}  # lane -> last error
        self.alert_id: str | None = None

    @property
    def active(self) -> bool:
        return bool(self.failing)

    def fault(self, lane: str, what: str, exc: Exception) -> None:
        first = lane not in self.failing
        self.failing[lane] = str(exc)
        if first:
            log.error("storage: %s failed (%s lane), retrying: %s", what, lane, exc)
        if self.alert_id is not None:
            return
        d = self.d
        detail = type(exc).__name__.replace("Store", "store ").lower()
        d.indicators.alert("critical")
        before = list(d.open_alerts)
        d._publish_alert({
            "code": CODE, "severity": "critical", "clause": "railguard storage",
            "remedy": REMEDY.format(detail=detail, path=d.cfg.storage)[:500],
            "message": str(exc)[:500], "seat": None, "hand_no": None,
        })  # fmt: skip
        new = [a for a in d.open_alerts if a not in before]
        self.alert_id = new[0] if new else ""
        d.event("storage_fault", {"lane": lane, "error": str(exc)[:300]})

    def ok(self, lane: str) -> None:
        if self.failing.pop(lane, None) is None:
            return
        log.info("storage: %s lane writes again", lane)
        if self.failing or self.alert_id is None:
            return
        d, alert_id, self.alert_id = self.d, self.alert_id, None
        if alert_id in d.open_alerts:
            d.open_alerts.remove(alert_id)
        if alert_id:
            d.event("alert_ack", {"alert_id": alert_id, "by": "railguard"})
        d.event("storage_ok", {"lane": lane})
        if not d.open_alerts:
            d.indicators.clear()


class Writer:
    """One lane: a single thread runs its jobs in submission order (see the module doc)."""

    def __init__(self, lane: str, alarm: StorageAlarm, retry: float = 0.5) -> None:
        self.lane = lane
        self.alarm = alarm
        self.retry = retry
        self.pool = concurrent.futures.ThreadPoolExecutor(1, f"railguard-{lane}")
        self.pending = 0
        self._closed = False
        self._gave_up = False

    def _job(self, loop: asyncio.AbstractEventLoop, fn: Callable[[], T], what: str) -> T:
        failed = False
        while True:
            if self._closed and self._gave_up:
                raise StoreError(f"{what}: not stored, the daemon stopped while storage failed")
            try:
                out = fn()
            except BadInput:
                raise  # not a storage fault: the caller's problem
            except RailguardError as exc:  # StoreFull / StoreLocked / StoreError
                if self._closed:
                    self._gave_up = True
                    raise
                failed = True
                loop.call_soon_threadsafe(self.alarm.fault, self.lane, what, exc)
                time.sleep(self.retry)
                continue
            if failed or self.lane in self.alarm.failing:
                loop.call_soon_threadsafe(self.alarm.ok, self.lane)
            return out

    def call(self, fn: Callable[[], T], what: str) -> asyncio.Future[T]:
        """Queue ``fn``; the future resolves once it committed (retried until then)."""
        loop = asyncio.get_running_loop()
        self.pending += 1
        fut = loop.run_in_executor(self.pool, self._job, loop, fn, what)
        fut.add_done_callback(self._done(what))
        return fut

    def submit(self, fn: Callable[[], Any], what: str) -> None:
        """Queue ``fn`` and do not wait for it (errors other than storage faults are logged)."""
        self.call(fn, what)

    def _done(self, what: str) -> Callable[[asyncio.Future[Any]], None]:
        def done(fut: asyncio.Future[Any]) -> None:
            self.pending -= 1
            if not fut.cancelled() and (exc := fut.exception()) is not None:
                log.error("storage: %s failed: %s", what, exc)

        return done

    async def drain(self) -> None:
        """Wait for every job queued so far."""
        await asyncio.wrap_future(self.pool.submit(lambda: None))

    def close(self) -> None:
        """Run what is queued once more (no retries; a failing lane gives up at once)."""
        self._closed = True
        self.pool.shutdown(wait=True)


def table_write(d: Daemon, fn: Callable[[TableStore], Any], what: str) -> None:
    """A table.db write: at once on the loop (durable before anything is published) while
    the table lane is idle, else (or if it failed) queued behind the lane's jobs and
    retried there. The loop's connection has a short busy timeout."""
    if not d.table_writer.pending and "table" not in d.alarm.failing:
        try:
            fn(d.store)
            return
        except BadInput as exc:
            log.error("storage: %s refused: %s", what, exc)
            return
        except RailguardError as exc:
            d.alarm.fault("table", what, exc)
    d.table_writer.submit(lambda: fn(d.writer_store), what)


# ---------------------------------------------------------------------------- hand records


async def outbox_task(d: Daemon) -> None:
    """Completed hands -> OHH -> the outbox lane; stacks and the clearing of the hand's
    events go to the table lane (the clearing only once the record is in the outbox)."""
    while True:
        rec, start = await d.hands.get()
        hid = d.hand_id(rec.hand_no)
        await live_sent(d)
        ohh = to_ohh(rec, start, table_name=d.cfg.table, table_size=d.cfg.table_size,
                     names=seated_names(d))  # fmt: skip
        d.records.append(ohh)
        stacks = {s: seat.stack for s, seat in d.core.seats.items()}
        d.table_write(lambda st, v=stacks: _store_stacks(st, v), f"hand={hid} stacks")  # type: ignore[misc]
        d.stats.hands += 1
        log.info("hand=%s complete pots=%d stacks=%s", hid, len(rec.pots), stacks)
        try:
            body = d.link.check_hand(hid, rec.hand_no, ohh)
        except RailguardError as exc:  # a programming error: no retry can store it
            log.error("hand=%s record refused: %s", hid, exc)
            continue
        queue_record(d, hid, rec.hand_no, body, rec.dealer or None)


def seated_names(d: Daemon) -> dict[str, str]:
    """Player id -> name of the seated players (the table store), for hand records."""
    try:
        return {r.player_id: r.name for r in d.store.seating().values() if r.name}
    except (StoreError, sqlite3.Error) as exc:
        log.warning("player names unreadable for a hand record (%s): ids stand for names", exc)
        return {}


async def live_sent(d: Daemon, limit: float = 1.0) -> None:
    """Let the link's writer send the live messages queued so far (the hand_completed
    event) before the record goes out: the venue sees a hand end before its record.
    (VenueLink has no public drain; its queue is read, never changed.)"""
    deadline = time.monotonic() + limit
    while d.link.connected and d.link._queue and time.monotonic() < deadline:
        await asyncio.sleep(0.005)


def queue_record(d: Daemon, hid: str, hand_no: int, body: dict[str, Any],
                 dealer: str | None) -> None:  # fmt: skip
    """Store a record through the outbox lane (retried until it commits), then tell the
    link and clear the hand's events."""
    ended = time.time()
    d.unstored += 1

    def add() -> None:
        d.writer_outbox.add(hid, hand_no, body, ended, dealer_id=dealer)

    def stored(fut: asyncio.Future[None]) -> None:
        d.unstored -= 1
        if fut.cancelled() or fut.exception() is not None:
            return  # logged by the lane; the hand's events stay for the next start
        d.link.hand_stored()
        d.table_write(lambda st: st.clear_hand_events(hand_no), f"hand={hid} events cleared")

    d.outbox_writer.call(add, f"hand={hid} record").add_done_callback(stored)


def _store_stacks(store: TableStore, stacks: dict[int, int]) -> None:
    seated = store.seating()
    for s in [s for s in seated if s not in stacks]:
        store.unseat_player(s)  # busted
    store.set_stacks({s: v for s, v in stacks.items() if s in seated})


def stale_record(d: Daemon, hand_no: int, entries: list[dict[str, Any]], now: float) -> bool:
    """An older hand's log left by a restart while its record was not stored: replayed in
    a scratch core; its record is queued again. False if the log holds no finished hand."""
    from controller.daemon import recovery
    from controller.rules.decisions import HandComplete
    from controller.rules.engine import TableCore

    if not entries or entries[0].get("type") != recovery.START:
        return False
    scratch = TableCore(recovery.profile_named(str(entries[0].get("profile", "")),
                                               d.core.profile), d.cfg.table)  # fmt: skip
    try:
        res = recovery.replay_hand(scratch, entries, now, hand_id=d.hand_id(hand_no))
    except Exception:  # a log this version cannot replay: dropped like before
        log.exception("hand=%s: stale hand log not replayable", d.hand_id(hand_no))
        return False
    done = [x for x in res.decisions if isinstance(x, HandComplete)]
    if not done:
        return False
    start = datetime.now(UTC)
    if res.started_at:
        with contextlib.suppress(ValueError):
            start = datetime.fromisoformat(res.started_at)
    d.hands.put_nowait((done[-1].record, start))
    log.warning("hand=%s: finished before the stop, record not stored then; queued again",
                d.hand_id(hand_no))  # fmt: skip
    return True
