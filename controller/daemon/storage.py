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
restart while storage fails rebuilds the record from them (see ``startup.restore_hand``).

A full disk (issue 11, defect 10) must not lose a completed hand nor give its number twice
after a crash, so two things are kept on the state directory's filesystem beforehand:

:class:`Reserve`  a file of :data:`RESERVE_BYTES` written at start. The first write that
                  finds the disk full deletes it and is retried at once: the hand's events,
                  the hand counter and the record then commit in the space it held, while
                  STORAGE_FAULT tells the dealer and the venue to free space. It is written
                  again at the next start (or once writes work and the space is there).
:class:`HandSlot` a small file allocated once and then only overwritten in place (no new
                  blocks: it can be written on a full disk), fsynced: the number of the last
                  hand started and of the last hand whose record is in the outbox. At start
                  the hand counter is at least the slot's, and a hand started after the last
                  stored record that left no event log to rebuild it from (the reserve was
                  used up too) is flagged: HAND_RECORD_LOST, critical, to the dealer and the
                  venue.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import errno
import logging
import os
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from controller.daemon.clock import Clock, utc
from controller.daemon.config import DaemonConfig
from controller.daemon.house_profiles import resolve as resolve_profile
from controller.daemon.recovery import START, replay_hand
from controller.daemon.translate import system_alert
from controller.link.client import VenueLink
from controller.link.errors import StoreError, StoreFull
from controller.link.outbox import Outbox
from controller.ohh import to_ohh
from controller.rules.catalogue import AlertCode
from controller.rules.decisions import HandComplete, HandRecord
from controller.rules.engine import TableCore
from controller.rules.errors import BadInput, RailguardError
from firmware_bridge.gpio import Indicators

if TYPE_CHECKING:
    from controller.daemon.table_store import TableStore

log = logging.getLogger("railguard.daemon")
T = TypeVar("T")

REMEDY = (
    "Storage on the table computer is failing ({detail}). Free space on the SD card and "
    "check the database ({path}); the table plays on and every hand record is kept in "
    "memory and stored once writes work again; do not switch the table off."
)


RESERVE_BYTES = 8 << 20  # a few hundred hands' events and records
LOST_REMEDY = (
    "Hand {n} was dealt while the table computer's disk was full and the controller "
    "restarted before its record could be stored: the hand cannot be rebuilt. Record its "
    "result by hand for the floor; free space on the SD card. The next hand is {next}."
)


class Reserve:
    """Space held for the writes a full disk would otherwise refuse (module docstring)."""

    def __init__(self, path: Path, size: int = RESERVE_BYTES) -> None:
        self.path = path
        self.size = size
        self._lock = threading.Lock()
        self.released = 0  # times it was given up for a write

    @property
    def held(self) -> bool:
        return self.path.exists()

    def fill(self) -> bool:
        """Write the reserve if it is not there and the space is (True if it is held)."""
        with self._lock:
            if self.size <= 0:
                return False
            if self.path.exists() and self.path.stat().st_size >= self.size:
                return True
            try:
                st = os.statvfs(self.path.parent)
                if st.f_bavail * st.f_frsize < 2 * self.size:
                    log.warning("storage: less than %d bytes free on %s: no reserve written",
                                2 * self.size, self.path.parent)  # fmt: skip
                    return False
                tmp = self.path.with_suffix(".tmp")
                with tmp.open("wb") as f:
                    try:
                        os.posix_fallocate(f.fileno(), 0, self.size)  # blocks, not bytes
                    except OSError:  # a filesystem without fallocate: write them
                        chunk = b"\0" * (1 << 16)
                        for _ in range(0, self.size, len(chunk)):
                            f.write(chunk)
                        f.flush()
                    os.fsync(f.fileno())
                tmp.replace(self.path)
            except OSError as exc:
                log.error("storage: reserve %s not written: %s", self.path, exc)
                with contextlib.suppress(OSError):
                    self.path.with_suffix(".tmp").unlink()
                return False
            return True

    def release(self) -> bool:
        """Give the space back to the databases; True if there was any to give."""
        with self._lock:
            try:
                self.path.unlink()
            except FileNotFoundError:
                return False
            except OSError as exc:
                log.error("storage: reserve %s not released: %s", self.path, exc)
                return False
            self.released += 1
            log.error("storage: disk full; the reserve (%d bytes) is released for the "
                      "table's writes: free space on the SD card", self.size)  # fmt: skip
            return True


class HandSlot:
    """The last hand started and the last hand stored, in a file only ever overwritten in
    place (module docstring). Writes raise nothing: a failure is logged."""

    SIZE = 4096
    FORMAT = b"railguard-hand-slot %20d %20d\n"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.started, self.stored = 0, 0
        self.error = ""  # the last write's failure ("" once a write worked): storage health
        self._fd: int | None = None
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            log.error("storage: hand slot %s unusable: %s", path, exc)
            self.error = f"unusable: {exc.strerror or exc}"
            return
        try:
            raw = os.pread(fd, 64, 0)
            if os.fstat(fd).st_size < self.SIZE:
                os.pwrite(fd, raw.ljust(self.SIZE, b"\0"), 0)  # allocate it once
                os.fsync(fd)
        except OSError as exc:
            log.error("storage: hand slot %s not allocated: %s", path, exc)
        self._fd = fd
        parts = raw.split(b"\0", 1)[0].split()
        if len(parts) == 3 and parts[0] == b"railguard-hand-slot":
            with contextlib.suppress(ValueError):
                self.started, self.stored = int(parts[1]), int(parts[2])
        elif raw.strip(b"\0"):
            log.error("storage: hand slot %s unreadable; ignored", path)

    def _write(self) -> None:
        if self._fd is None:
            return
        try:
            os.pwrite(self._fd, self.FORMAT % (self.started, self.stored), 0)
            os.fsync(self._fd)
        except OSError as exc:
            level = logging.WARNING if exc.errno == errno.ENOSPC else logging.ERROR
            log.log(level, "storage: hand slot %s not written: %s", self.path, exc)
            self.error = f"not written: {exc.strerror or exc}"
            return
        self.error = ""

    def hand_started(self, hand_no: int) -> None:
        if hand_no > self.started:
            self.started = hand_no
            self._write()

    def hand_stored(self, hand_no: int) -> None:
        if hand_no > self.stored:
            self.stored = hand_no
            self._write()

    def lost(self, open_hands: list[int]) -> list[int]:
        """The hand started after the last stored record, if no event log of it is left."""
        n = self.started
        if n > self.stored and n not in open_hands:
            return [n]
        return []

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class _Counts(Protocol):
    hands: int


class StorageHost(Protocol):
    """What the storage lanes, the alarm and the outbox task need of the daemon
    (``service.Daemon`` is one)."""

    cfg: DaemonConfig
    clock: Clock  # records' end, the wait for the live messages
    store: TableStore  # the loop's connection
    writer_store: TableStore  # the table lane's
    writer_outbox: Outbox  # the outbox lane's
    table_writer: Writer
    outbox_writer: Writer
    alarm: StorageAlarm
    hand_slot: HandSlot
    unstored: int  # completed records not yet in the outbox
    hands: asyncio.Queue[tuple[HandRecord, datetime]]  # completed hands, from the core
    records: list[dict[str, Any]]
    open_alerts: list[str]
    link: VenueLink

    @property
    def core(self) -> TableCore: ...  # read only: seats, profile

    @property
    def stats(self) -> _Counts: ...

    @property
    def indicators(self) -> Indicators: ...

    def hand_id(self, hand_no: int) -> str: ...

    def event(self, kind: str, data: dict[str, Any], hand_no: int | None = None) -> None: ...

    def publish_alert(self, payload: dict[str, Any]) -> None: ...

    def table_write(self, fn: Callable[[TableStore], Any], what: str) -> None: ...


class _StaleHost(Protocol):
    """What :func:`stale_record` needs (a :class:`StorageHost` is one)."""

    cfg: DaemonConfig
    clock: Clock  # a replayed record's start when its log has none
    hands: asyncio.Queue[tuple[HandRecord, datetime]]
    store: TableStore  # read only: the house profiles a hand log may name

    @property
    def core(self) -> TableCore: ...  # read only: profile

    def hand_id(self, hand_no: int) -> str: ...


class _LostHost(Protocol):
    """What :func:`flag_lost` needs (a :class:`StorageHost` is one)."""

    hand_slot: HandSlot

    @property
    def indicators(self) -> Indicators: ...

    def hand_id(self, hand_no: int) -> str: ...

    def publish_alert(self, payload: dict[str, Any]) -> None: ...


class StorageAlarm:
    """One open STORAGE_FAULT alert per outage (LED, buzzer, venue alert)."""

    def __init__(self, daemon: StorageHost, reserve: Reserve) -> None:
        self.d = daemon
        self.reserve = reserve
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
        remedy = REMEDY.format(detail=detail, path=d.cfg.storage)[:500]
        d.publish_alert(system_alert(AlertCode.STORAGE_FAULT, remedy, message=str(exc)[:500]))
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
        if not self.reserve.held:  # space again: hold it for the next time (off the loop)
            d.table_writer.submit(self.reserve.fill, "storage reserve")


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
                if isinstance(exc, StoreFull) and self.alarm.reserve.release():
                    continue  # at once, in the space the reserve held
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


def table_write(d: StorageHost, fn: Callable[[TableStore], Any], what: str) -> None:
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


async def outbox_task(d: StorageHost) -> None:
    """Completed hands -> OHH -> the outbox lane; the clearing of the hand's events goes to
    the table lane once the record is in the outbox."""
    while True:
        rec, start = await d.hands.get()
        hid = d.hand_id(rec.hand_no)
        await live_sent(d)
        ohh = to_ohh(rec, start, table_name=d.cfg.table, table_size=d.cfg.table_size)
        d.records.append(ohh)
        # the stacks and busted seats: stored by the core loop with the seating, from the
        # step that completed the hand (core_loop.save_seating)
        stacks = {s: seat.stack for s, seat in d.core.seats.items()}
        d.stats.hands += 1
        log.info("hand=%s complete pots=%d stacks=%s", hid, len(rec.pots), stacks)
        try:
            body = d.link.check_hand(hid, rec.hand_no, ohh)
        except RailguardError as exc:  # a programming error: no retry can store it
            log.error("hand=%s record refused: %s", hid, exc)
            continue
        queue_record(d, hid, rec.hand_no, body, rec.dealer or None)


async def live_sent(d: StorageHost, limit: float = 1.0) -> None:
    """Let the link's writer send the live messages queued so far (the hand_completed
    event) before the record goes out: the venue sees a hand end before its record.
    (VenueLink has no public drain; its queue is read, never changed.)"""
    deadline = d.clock.monotonic() + limit
    while d.link.connected and d.link._queue and d.clock.monotonic() < deadline:
        await d.clock.sleep(0.005)


def queue_record(d: StorageHost, hid: str, hand_no: int, body: dict[str, Any],
                 dealer: str | None) -> None:  # fmt: skip
    """Store a record through the outbox lane (retried until it commits), then tell the
    link and clear the hand's events."""
    ended = d.clock.wall()
    d.unstored += 1

    def add() -> None:
        d.writer_outbox.add(hid, hand_no, body, ended, dealer_id=dealer)

    def stored(fut: asyncio.Future[None]) -> None:
        d.unstored -= 1
        if fut.cancelled() or fut.exception() is not None:
            return  # logged by the lane; the hand's events stay for the next start
        d.hand_slot.hand_stored(hand_no)
        d.link.hand_stored()
        d.table_write(lambda st: st.clear_hand_events(hand_no), f"hand={hid} events cleared")

    d.outbox_writer.call(add, f"hand={hid} record").add_done_callback(stored)


def stale_record(d: _StaleHost, hand_no: int, entries: list[dict[str, Any]], now: float) -> bool:
    """An older hand's log left by a restart while its record was not stored: replayed in
    a scratch core; its record is queued again. False if the log holds no finished hand."""
    if not entries or entries[0].get("type") != START:
        return False
    scratch = TableCore(resolve_profile(d.store, str(entries[0].get("profile", "")),
                                        d.core.profile, d.cfg.profile), d.cfg.table)  # fmt: skip
    try:
        res = replay_hand(scratch, entries, now, hand_id=d.hand_id(hand_no))
    except Exception:  # a log this version cannot replay: dropped like before
        log.exception("hand=%s: stale hand log not replayable", d.hand_id(hand_no))
        return False
    done = [x for x in res.decisions if isinstance(x, HandComplete)]
    if not done:
        return False
    start = utc(d.clock)
    if res.started_at:
        with contextlib.suppress(ValueError):
            start = datetime.fromisoformat(res.started_at)
    d.hands.put_nowait((done[-1].record, start))
    log.warning("hand=%s: finished before the stop, record not stored then; queued again",
                d.hand_id(hand_no))  # fmt: skip
    return True


def flag_lost(d: _LostHost, lost: list[int]) -> None:
    """Tell the dealer (alert LED, buzzer) and the venue (alert) about hands that a full
    disk and a restart lost (:meth:`HandSlot.lost`); each is flagged once."""
    for hand_no in lost:
        hid = d.hand_id(hand_no)
        log.error("hand=%s: dealt, but neither its record nor its event log was stored "
                  "(disk full); it cannot be rebuilt", hid)  # fmt: skip
        d.indicators.alert("critical")
        remedy = LOST_REMEDY.format(n=hand_no, next=hand_no + 1)
        d.publish_alert(system_alert(AlertCode.HAND_RECORD_LOST, remedy, hand_no=hand_no))
        d.hand_slot.hand_stored(hand_no)  # accounted for
