"""The daemon's ``reader`` task: the serial link to the reader board, the
:class:`~firmware_bridge.antennas.SnapshotTracker` and the restart
:class:`~controller.daemon.recovery.Reconciler`, into the core queue.

With ``reader.changes_only`` (the default) the board sends an antenna only when its tags
change, plus a full refresh every ``full_refresh_cycles`` scans: the tracker holds an
unreported antenna as unchanged, and a GET_SNAPSHOT is asked for whenever the board comes
online. Such a cycle has no end marker and seldom every antenna, so a timer, armed on every
frame, closes it once the line has been quiet for the burst gap
(:func:`~firmware_bridge.antennas.burst_gap` of ``reader.baudrate``: a few frames' UART
time, at least 2 ms) and then counts the quiet scan periods when they are due
(:meth:`~firmware_bridge.antennas.SnapshotTracker.settle`). A quiet period is counted only
while it could change something: once the tracker is
:attr:`~firmware_bridge.antennas.SnapshotTracker.settled` (every tag confirmed, nothing
missing) an idle table arms no timer between the board's full refreshes, and the periods not
counted are counted from the cycle numbers when the next frame comes. Without
``changes_only`` a cycle closes when its last antenna reports, or, if a frame was lost, by
a timer armed when the cycle opened (:class:`CycleTimer`). Either way the task ticks the
tracker every scan period only while a restart reconciliation counts scan periods.
"""

from __future__ import annotations

import asyncio
import logging
import math
from typing import Any, Protocol

from controller.daemon.clock import Clock
from controller.daemon.config import DaemonConfig
from controller.daemon.recovery import Reconciler
from controller.daemon.trace import StageTrace, now_ns
from controller.daemon.translate import ReaderInput, system_alert
from controller.rules.catalogue import AlertCode
from controller.rules.events import CardPlaced, CardRemoved, ChipsIn, ChipsOut, Event
from firmware_bridge.antennas import (
    FOREIGN_TAG,
    FRAME_BYTES,
    Collision,
    SnapshotTracker,
    StrayTag,
    burst_gap,
)
from firmware_bridge.link_model import BoardFactory
from firmware_bridge.protocol import MAX_ENCODED_SIZE, ErrorReport
from firmware_bridge.serial_link import LinkStatus, ReaderBoard, SerialReaderLink, StatusChange
from firmware_bridge.snapshots import AntennaSnapshot
from firmware_bridge.zones import ZoneType

log = logging.getLogger("railguard.daemon")


class _Ticks(Protocol):
    reader_ticks: int


class ReaderHost(Protocol):
    """What the reader task needs of the daemon (``service.Daemon`` is one): the board it
    makes (``board_factory``, else a SerialReaderLink over ``cfg.reader_ports``) and the
    tracker, reconciler and timers it drives; events go out through ``put``."""

    cfg: DaemonConfig
    clock: Clock  # frames' times, the timers (and the serial link's clock)
    board_factory: BoardFactory | None
    reader: ReaderBoard | None
    tracker: SnapshotTracker
    tracker_changes: bool
    scan_period: float
    reconciler: Reconciler
    input: ReaderInput
    settler: Settler | None
    cycle_timer: CycleTimer | None
    frame: asyncio.Event
    last_frame: float
    trace: StageTrace | None  # RAILGUARD_STAGE_TRACE only

    @property
    def stats(self) -> _Ticks: ...

    def put(self, ev: Event, source: str) -> None: ...

    def foreign_chip(self, seat: int) -> None: ...


class Settler:
    """changes_only: one timer on the event loop, due when the tracker next has something to
    settle (:meth:`SnapshotTracker.settle_due`): ``gap`` after a cycle's newest frame, or when a
    quiet scan period counts, unless the tracker is settled (a quiet period would change
    nothing) and no restart reconciliation counts cycles. Armed after every frame; re-armed
    when it fires early (a frame came in the meantime) or has more to do. ``bursts`` and
    ``quiet`` count the fires that closed a cycle and those that found none to close."""

    def __init__(self, d: ReaderHost, gap: float, baudrate: int) -> None:
        self.d = d
        self.gap = gap
        self._timer: asyncio.TimerHandle | None = None
        self._when = math.inf
        # the UART time of the longest frame the protocol allows (docs/reader-protocol.md)
        self.longest_frame = MAX_ENCODED_SIZE * 10 / baudrate
        self._hold_start = math.inf  # when a partial frame first held the timer
        self.bursts = 0
        self.quiet = 0

    def arm(self) -> None:
        tracker = self.d.tracker
        due = tracker.settle_due(self.gap)
        if due is not None and tracker.settled and not self.d.reconciler.active:
            due = None  # only quiet periods are due, and they would change nothing
        if due is None:  # e.g. a cycle known complete (its last antenna) closed at its frame
            self.cancel()
            return
        if self._timer is not None and self._when <= due:
            return  # the armed timer comes first and re-arms
        if self._timer is not None:
            self._timer.cancel()
        self._when = due
        delay = max(0.0, due - self.d.clock.monotonic())
        self._timer = asyncio.get_running_loop().call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer, self._when = None, math.inf
        d = self.d
        now = d.clock.monotonic()
        if d.reader is not None and d.reader.receiving and now < self._held_until(now):
            # a frame is still arriving (a long one on a slow line): the burst is not over;
            # wait at most a longest frame's time, so stray bytes cannot hold the cycle open
            self._when = now + self.gap
            self._timer = asyncio.get_running_loop().call_later(self.gap, self._fire)
            return
        self._hold_start = math.inf
        if d.tracker.pending_cycle is not None:
            self.bursts += 1
        else:
            self.quiet += 1
        tracker_out(d, d.tracker.settle(now, self.gap))
        reconcile(d)
        self.arm()

    def _held_until(self, now: float) -> float:
        if self._hold_start == math.inf:
            self._hold_start = now
        return self._hold_start + self.longest_frame

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._when = None, math.inf
        self._hold_start = math.inf


class CycleTimer:
    """Without changes_only: one timer for a scan cycle still open (an antenna's frame is
    missing, e.g. lost), due when :meth:`SnapshotTracker.tick` would close it (half a period
    after its first frame) plus a whole cycle's UART time. Armed when a cycle opens,
    cancelled when it closes, normally at its last antenna's frame: no wakeup every scan
    period. ``fired`` counts its fires."""

    def __init__(self, d: ReaderHost, link: ReaderBoard) -> None:
        self.d = d
        self.link = link
        self._timer: asyncio.TimerHandle | None = None
        self._cycle: int | None = None  # the pending cycle the timer is for
        self.fired = 0

    def wire(self) -> float:
        info = self.link.board_info
        antennas = info.antenna_count if info is not None else 32
        return antennas * FRAME_BYTES * 10 / self.d.cfg.link.baudrate

    def arm(self) -> None:
        cycle = self.d.tracker.pending_cycle
        if cycle is None:
            self.cancel()
            return
        if self._timer is not None and cycle == self._cycle:
            return  # armed for this cycle already
        due = self.d.tracker.tick_due()
        assert due is not None
        self.cancel()
        self._cycle = cycle
        delay = max(0.0, due + self.wire() - self.d.clock.monotonic())
        self._timer = asyncio.get_running_loop().call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        self.fired += 1
        d = self.d
        tracker_out(d, d.tracker.tick(d.clock.monotonic() - self.wire()))
        reconcile(d)
        self.arm()  # (re-armed if the cycle is still open: a timer may fire a hair early)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._cycle = None, None


async def reader_task(d: ReaderHost) -> None:
    baud = d.cfg.link.baudrate
    settler = Settler(d, burst_gap(baud), baud) if d.tracker_changes else None
    d.settler = settler

    def snapshot(snap: AntennaSnapshot) -> bool:
        busy = on_snapshot(d, snap)
        if settler is not None:
            settler.arm()
        elif cycle_timer is not None:
            cycle_timer.arm()
        return busy  # an event for the core: the link lets the loop run (SnapshotConsumer)

    def status(change: StatusChange) -> None:
        on_status(d, change)

    link: ReaderBoard
    if d.board_factory is not None:
        link = d.board_factory(snapshot, on_status=status, on_error=on_error)
    else:
        link = SerialReaderLink(
            list(d.cfg.reader_ports), snapshot,
            on_status=status, on_error=on_error, config=d.cfg.daemon_link,
            clock=d.clock.monotonic,
        )  # fmt: skip
    d.reader = link
    cycle_timer = CycleTimer(d, link) if settler is None else None
    d.cycle_timer = cycle_timer
    await link.start()
    # with no frame for this long the tracker has nothing left to close: wait for the next
    # frame instead of ticking every scan, unless a restart reconciliation still counts quiet
    # scan periods
    quiet = (max(d.cfg.debounce_cycles, d.cfg.removal_cycles) + 3) * d.scan_period
    try:
        while True:  # a cycle that lost a frame closes half a period after it began...
            if not d.reconciler.active:
                # the settler (changes_only) or the cycle timer closes every cycle (and the
                # settler counts the quiet periods that matter): with the reconciliation over
                # nothing is left to tick for
                await asyncio.get_running_loop().create_future()
            if d.clock.monotonic() - d.last_frame > quiet and not d.reconciler.pending:
                d.frame.clear()
                await d.frame.wait()
            await d.clock.sleep(d.scan_period)
            # ...and after a whole cycle's frames had time on the UART (changes_only: the
            # settler closes cycles by the burst gap; a long burst, such as a full refresh,
            # holds the tick's fallback off, see tracker.tick)
            wire = cycle_timer.wire() if cycle_timer is not None else 0.0
            d.stats.reader_ticks += 1
            tracker_out(d, d.tracker.tick(d.clock.monotonic() - wire))
            reconcile(d)
            for timer in (settler, cycle_timer):
                if timer is not None:
                    timer.arm()
    finally:
        for timer in (settler, cycle_timer):
            if timer is not None:
                timer.cancel()
        await link.stop()


def on_snapshot(d: ReaderHost, snap: AntennaSnapshot) -> bool:
    """Feed one frame to the tracker; whether it gave the tracker anything to say."""
    if d.trace is not None:
        d.trace.read = now_ns()
    d.last_frame = d.clock.monotonic()
    d.frame.set()
    out = d.tracker.feed(snap)
    if out:  # most frames complete no cycle (every frame's cost counts: bench/e2e.py)
        tracker_out(d, out)
    if d.reconciler.active:
        d.reconciler.reported(snap.antenna, d.tracker.cycles, d.last_frame)
        reconcile(d)
    return bool(out)


def reconcile(d: ReaderHost) -> None:
    if d.reconciler.active:
        for ev in d.reconciler.cycle(d.tracker.cycles, d.clock.monotonic()):
            d.put(ev, "restart")


def foreign_chip_alert(seat: int, hand_no: int | None) -> dict[str, Any]:
    """000 SECTION 1 item 9 (2nd run) [L45]: "Non-tournament chips are not allowed on the
    table". A tag of no chip registry (and no deck) in a betting zone is left out of every
    amount by the tracker; the dealer is told, and the floor called (others silent: the same,
    since such a chip is never counted)."""
    remedy = (
        f"Seat {seat}: a chip that is not a tournament chip is in the betting zone; "
        "it is not counted. Take it off the table and call the floor"
    )
    return system_alert(AlertCode.FOREIGN_CHIP, remedy, seat=seat, hand_no=hand_no)


def tracker_out(d: ReaderHost, outputs: list[Any]) -> None:
    if not outputs:
        return
    events = []
    for out in outputs:
        if isinstance(out, CardPlaced | CardRemoved | ChipsIn | ChipsOut):
            events.append(out)
        elif isinstance(out, Collision):
            log.warning("reader: collision on antenna %d (%s)", out.antenna, out.zone)
        elif isinstance(out, StrayTag):
            log.warning("reader: stray tag on %s: %s", out.zone, out.reason)
            if out.zone.type is ZoneType.BET and out.reason.startswith(FOREIGN_TAG):
                d.foreign_chip(out.zone.seat)  # 000 SECTION 1 item 9 (2nd run) [L45]
    for ev in d.reconciler.filter(d.input.batch(events)):
        d.put(ev, "reader")


def on_status(d: ReaderHost, change: StatusChange) -> None:
    info = d.reader.board_info if d.reader is not None else None
    antennas = info.antenna_count if info is not None else 0
    log.info("reader: %s -> %s (%s) port=%s antennas=%d", change.previous.value,
             change.status.value, change.detail, change.port, antennas)  # fmt: skip
    if change.status is LinkStatus.ONLINE and d.reader is not None and d.tracker_changes:
        # changes_only: the board reports only changes; ask for every antenna at once
        task = asyncio.get_running_loop().create_task(d.reader.request_snapshot())
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
    if change.status is LinkStatus.ONLINE and info is not None:
        d.reconciler.board_antennas(info.antenna_count)
        missing = [a for a in d.cfg.zones.antennas if a >= info.antenna_count]
        if missing:
            log.error("reader: zone map uses antennas %s; the board has %d", missing,
                      info.antenna_count)  # fmt: skip


def on_error(err: ErrorReport) -> None:
    log.warning("reader: board error %s antenna=%s detail=%d", err.code, err.antenna,
                err.detail)  # fmt: skip
