"""The daemon's ``reader`` task: the serial link to the reader board, the
:class:`~firmware_bridge.antennas.SnapshotTracker` and the restart
:class:`~controller.daemon.recovery.Reconciler`, into the core queue.

With ``reader.changes_only`` (the default) the board sends an antenna only when its tags
change, plus a full refresh every ``full_refresh_cycles`` scans: the tracker holds an
unreported antenna as unchanged, the task ticks it every scan period while something is
left to close, and a GET_SNAPSHOT is asked for whenever the board comes online.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from controller.rules.events import CardPlaced, CardRemoved, ChipsIn, ChipsOut
from firmware_bridge.antennas import Collision, StrayTag
from firmware_bridge.protocol import ErrorReport
from firmware_bridge.serial_link import LinkStatus, SerialReaderLink, StatusChange
from firmware_bridge.snapshots import AntennaSnapshot

if TYPE_CHECKING:
    from controller.daemon.service import Daemon

log = logging.getLogger("railguard.daemon")


async def reader_task(d: Daemon) -> None:
    link = SerialReaderLink(
        list(d.cfg.reader_ports), lambda snap: on_snapshot(d, snap),
        on_status=lambda change: on_status(d, change), on_error=on_error,
        config=d.cfg.daemon_link,
    )  # fmt: skip
    d.reader = link
    await link.start()
    # with no frame for this long the tracker has nothing left to close (changes_only: its
    # idle cycles are done): wait for the next frame instead of ticking every scan, unless a
    # restart reconciliation still counts quiet scan periods
    quiet = (max(d.cfg.debounce_cycles, d.cfg.removal_cycles) + 3) * d.scan_period
    try:
        while True:  # a cycle that lost a frame closes half a period after it began...
            if time.monotonic() - d.last_frame > quiet and not d.reconciler.pending:
                d.frame.clear()
                await d.frame.wait()
            await asyncio.sleep(d.scan_period)
            info = link.board_info
            antennas = info.antenna_count if info is not None else 32
            # ...and after a whole cycle's frames (24 bytes each) had time on the UART
            wire = antennas * 24 * 10 / d.cfg.link.baudrate
            tracker_out(d, d.tracker.tick(time.monotonic() - wire))
            reconcile(d)
    finally:
        await link.stop()


def on_snapshot(d: Daemon, snap: AntennaSnapshot) -> None:
    d.last_frame = time.monotonic()
    d.frame.set()
    tracker_out(d, d.tracker.feed(snap))
    if d.reconciler.active:
        d.reconciler.reported(snap.antenna, d.tracker.cycles, d.last_frame)
        reconcile(d)


def reconcile(d: Daemon) -> None:
    if d.reconciler.active:
        for ev in d.reconciler.cycle(d.tracker.cycles, time.monotonic()):
            d.put(ev, "restart")


def tracker_out(d: Daemon, outputs: list[Any]) -> None:
    events = []
    for out in outputs:
        if isinstance(out, CardPlaced | CardRemoved | ChipsIn | ChipsOut):
            events.append(out)
        elif isinstance(out, Collision):
            log.warning("reader: collision on antenna %d (%s)", out.antenna, out.zone)
        elif isinstance(out, StrayTag):
            log.warning("reader: stray tag on %s: %s", out.zone, out.reason)
    for ev in d.reconciler.filter(d.input.batch(events)):
        d.put(ev, "reader")


def on_status(d: Daemon, change: StatusChange) -> None:
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
