"""The daemon's ``watchdog`` task: readiness, systemd notification and the status LED.

Ready once the reader board is online, the restored core and the table on the board agree
(the restart reconciliation is over) and the broker is connected, or after
``cfg.ready_timeout`` seconds whatever the state: then the hands a restart cut are flagged
(``on_ready``), ``READY=1`` is sent and ``ready`` is set. ``STATUS=`` carries the reader's,
the broker's and the hand's state when it changes, with the status LED; ``WATCHDOG=1``
goes out every ``WATCHDOG_USEC``/2 when systemd asks for it (see sdnotify.py). Each tick
also measures the storage health (health.py) and republishes the state when it changed.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from typing import Protocol

from controller.daemon.clock import Clock
from controller.daemon.config import DaemonConfig
from controller.daemon.health import Health
from controller.daemon.recovery import Reconciler
from controller.daemon.sdnotify import notify, watchdog_interval
from controller.rules.engine import TableCore
from firmware_bridge.gpio import Indicators
from firmware_bridge.serial_link import LinkStatus, ReaderBoard

log = logging.getLogger("railguard.daemon")


class _Link(Protocol):
    @property
    def connected(self) -> bool: ...


class WatchdogHost(Protocol):
    """What the watchdog needs of the daemon (``service.Daemon`` is one)."""

    cfg: DaemonConfig
    clock: Clock
    reader: ReaderBoard | None
    reconciler: Reconciler
    ready: asyncio.Event
    health: Health  # storage health, measured here once a second

    @property
    def link(self) -> _Link: ...

    @property
    def core(self) -> TableCore: ...  # read only: hand_no

    @property
    def indicators(self) -> Indicators: ...

    def flag_interrupted(self) -> None: ...

    def publish_state(self) -> None: ...


async def watchdog_task(d: WatchdogHost) -> None:
    interval = watchdog_interval()
    tick = min(interval or 1.0, 1.0)
    started = d.clock.monotonic()
    last_ping = 0.0
    last_status = ""
    while True:
        now = d.clock.monotonic()
        reader_ok = d.reader is not None and d.reader.status is LinkStatus.ONLINE
        # ready once the table on the board and the restored core agree (reconciled)
        settled = reader_ok and not d.reconciler.active
        if not d.ready.is_set() and (
            (settled and d.link.connected) or now - started > d.cfg.ready_timeout
        ):
            d.flag_interrupted()
            d.ready.set()
            notify("READY=1")
            # what start-up built lives as long as the daemon: out of the collector's
            # way, so that a full collection scans only what came since (it took 26 ms
            # with everything in it, once in 500 alerts of bench/e2e.py)
            gc.collect()
            gc.freeze()
            log.info("ready reader=%s broker=%s", reader_ok, d.link.connected)
        reader = d.reader.status.value if d.reader is not None else "offline"
        broker = "connected" if d.link.connected else "disconnected"
        status = f"reader {reader}, broker {broker}, hand {d.core.hand_no}"
        if status != last_status:
            notify(f"STATUS={status}")
            last_status = status
            health = "ok" if reader_ok and d.link.connected else (
                "offline" if not reader_ok else "degraded")  # fmt: skip
            d.indicators.status(health)
        if d.health.refresh():  # storage health: the state says it when it changes
            d.publish_state()
        if interval is not None and now - last_ping >= interval:
            notify("WATCHDOG=1")
            last_ping = now
        await d.clock.sleep(tick if d.ready.is_set() else 0.05)
