"""What the live state says about the table itself: the dealer on duty and storage health.

``dealer``   the staff id of the dealer logged in by badge (``[pcsc.badges]``' ``staff``;
             null when none). It is the rules core's (``BadgeTap`` / ``SetDealer``), kept in
             the table store when it changes (``dealer``), so a restart keeps the dealer
             logged in: the hand records go on naming them and the next tap of the same
             badge logs them out, as before the restart.
``storage``  ``{"health": "ok" | "degraded", "reasons": [{"code", "detail"}]}``, the
             table computer's own store (``controller/daemon/storage.py``), measured, not
             remembered (a restart measures it again):

             ``write_failing``  a storage lane's writes fail and are retried (the
                                STORAGE_FAULT alert is open): the lane and its last error
             ``slot_failing``   the hand slot's in-place write or fsync failed
             ``disk_low``       less than :data:`DISK_LOW_BYTES` free on the state
                                directory's filesystem
             ``no_reserve``     the space held back for a full disk is not held (used up,
                                or there was no room to write it); it is written again
                                (on the table lane) as soon as the space is there
             ``backlog``        more than :data:`BACKLOG` completed hand records wait for a
                                venue logger's acknowledgement (kept on the table until
                                then)

:class:`Health` is refreshed by the daemon's watchdog once a second (a ``statvfs`` and, every
:data:`BACKLOG_EVERY` seconds, a count of the outbox), never per event; the state is
republished only when what it says changed (``Daemon.publish_state`` sends a state only
when it differs from the last one).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
from typing import Any, Protocol

from controller.daemon.config import DaemonConfig
from controller.daemon.storage import HandSlot, Reserve, StorageAlarm, Writer
from controller.link.client import VenueLink
from controller.link.errors import StoreError
from controller.link.redact import scrub_text

log = logging.getLogger("railguard.daemon")

DISK_LOW_BYTES = 64 << 20  # free space on the state directory's filesystem
BACKLOG = 50  # unacknowledged hand records (a logger away for a few hours' play)
BACKLOG_EVERY = 5.0  # seconds between counts of the outbox
DETAIL_MAX = 200

OK: dict[str, Any] = {"health": "ok", "reasons": []}


class HealthHost(Protocol):
    """What :class:`Health` reads of the daemon (``service.Daemon`` is one)."""

    alarm: StorageAlarm
    reserve: Reserve
    hand_slot: HandSlot
    table_writer: Writer  # the reserve is written again on its lane
    unstored: int  # completed records not yet in the outbox
    cfg: DaemonConfig  # storage: the state directory
    link: VenueLink  # its outbox: read only, for the backlog count


def _reason(code: str, detail: str) -> dict[str, str]:
    # the table's own words (errors, paths): scrubbed like every live free text
    return {"code": code, "detail": scrub_text(detail)[:DETAIL_MAX]}


class Health:
    """The storage health the live state carries (module docstring)."""

    def __init__(self, host: HealthHost, *, clock: Any = time.monotonic) -> None:
        self.host = host
        self.clock = clock
        self.storage: dict[str, Any] = OK
        self.backlog = 0
        self._counted = -BACKLOG_EVERY  # when the outbox was last counted

    def refresh(self, *, refill: bool = True) -> bool:
        """Measure again; True if what the state says changed. ``refill``: write the
        reserve again (on the table lane: a running loop) if it is missing and the space
        is there."""
        h = self.host
        reasons: list[dict[str, str]] = []
        kept = f"; {h.unstored} hand records kept in memory" if h.unstored else ""
        for lane, error in sorted(h.alarm.failing.items()):
            reasons.append(_reason("write_failing", f"{lane} lane: {error}{kept}"))
        if h.hand_slot.error:
            reasons.append(_reason("slot_failing", f"hand slot: {h.hand_slot.error}"))
        free: int | None = None
        try:
            st = os.statvfs(h.cfg.storage)
            free = st.f_bavail * st.f_frsize
            if free < DISK_LOW_BYTES:
                reasons.append(_reason("disk_low", f"{free >> 20} MiB free on {h.cfg.storage} "
                                       f"(below {DISK_LOW_BYTES >> 20} MiB)"))  # fmt: skip
        except OSError as exc:
            reasons.append(_reason("disk_low", f"free space unknown: {exc.strerror}"))
        if h.reserve.size > 0 and not h.reserve.held:
            if refill and free is not None and free >= 2 * h.reserve.size \
                    and not h.alarm.failing and not h.table_writer.pending:  # fmt: skip
                h.table_writer.submit(h.reserve.fill, "storage reserve")  # space again
            reasons.append(_reason("no_reserve", f"no {h.reserve.size >> 20} MiB reserve "
                                   "held for a full disk"))  # fmt: skip
        now = self.clock()
        if now - self._counted >= BACKLOG_EVERY:
            self._counted = now
            try:
                self.backlog = h.link.outbox.pending_count()
            except (StoreError, sqlite3.Error) as exc:
                log.warning("storage health: outbox not counted: %s", exc)
        if self.backlog > BACKLOG:
            reasons.append(_reason("backlog", f"{self.backlog} hand records wait for a venue "
                                   "logger's acknowledgement"))  # fmt: skip
        new = {"health": "degraded" if reasons else "ok", "reasons": reasons[:8]}
        if new == self.storage:
            return False
        said = "".join(f"; {r['code']}: {r['detail']}" for r in reasons)
        log.log(logging.WARNING if reasons else logging.INFO, "storage health: %s%s",
                new["health"], said)  # fmt: skip
        self.storage = new
        return True
