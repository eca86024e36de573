"""Opt-in stage stamps on the daemon's alert path, for ``bench/e2e.py`` (issue 17).

Set ``RAILGUARD_STAGE_TRACE=/path/stages.jsonl`` in the daemon's environment and every alert
it publishes gets a record of ``time.monotonic_ns()`` stamps (the system's CLOCK_MONOTONIC:
another process on the machine reads the same clock, so the bench sets its own stamps beside
them); the daemon writes the records, one JSON object a line, when it stops. Without the
variable the daemon holds ``trace = None`` and each stamp point costs one attribute test.

The stamps, in the order an alert meets them when the link is connected and idle (names
as in the file):

- ``read``: the reader's frame handed to the daemon (``reader.on_snapshot``), decoded
- ``queued``: the event the frame completed put on the core queue (tracker, ReaderInput and
  the restart filter done)
- ``taken``: the core task took it off the queue (``Daemon._serve``)
- ``core_in``: right before ``TableCore.handle``; ``core_out`` right after it (the rules
  core itself has no clock and is not touched)
- ``payload``: the alert's payload built (``translate.alert_payload``: card names scrubbed)
- ``encoded``: hole-card guard, JSON Schema, the message stamped (seq, ts) and
  JSON-encoded, right before it is handed to the MQTT client
- ``checked``: ``VenueLink.publish_alert`` returned (the message written to the broker's
  socket: ``VenueLink.publish_alert``'s direct path)
- ``logged``: its log line written; ``lit``: the dealer's indicator told (the lights' own
  thread does the rest: lights.py)
- ``handled``: the rest of the event's handling done (live events, the state message)
- ``dequeued``: the link's writer task took the alert off its queue (to wait for the
  broker's PUBACK)
- ``acked``: the broker's PUBACK arrived

When the link is busy (messages queued before the alert) or offline, the alert waits in the
writer's queue and ``encoded`` comes after ``dequeued`` (``VenueLink.publish_alert``).
An event that is not the reader's (a button, a command) has ``read`` 0. Only the newest
``LIMIT`` alerts are kept.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections import deque
from pathlib import Path
from typing import Final

log = logging.getLogger("railguard.daemon")

ENV: Final = "RAILGUARD_STAGE_TRACE"
LIMIT: Final = 100_000
EVENT_STAMPS: Final = ("read", "queued", "taken", "core_in", "core_out")
LINK_STAMPS: Final = ("encoded", "dequeued", "acked")  # told by the link
ALERT_STAMPS: Final = ("payload", "checked", "logged", "lit")  # the daemon's alert()
STAMPS: Final = (*EVENT_STAMPS, "payload", "encoded", "checked", "logged", "lit", "handled",
                 "dequeued", "acked")  # fmt: skip

now_ns = time.monotonic_ns


class StageTrace:
    """The stamps of the alerts in flight and of those done (see the module docstring)."""

    def __init__(self, path: Path, limit: int = LIMIT) -> None:
        self.path = path
        self.read = 0  # the newest reader frame handed to the daemon
        self.event: list[int] | None = None  # the stamps of the event being handled
        self._alerts: list[tuple[str, dict[str, int]]] = []  # this event's, not handled yet
        self._open: dict[str, dict[str, int]] = {}  # alert id -> stamps, until acknowledged
        self._link: dict[str, dict[str, int]] = {}  # alert id -> the link's stamps so far
        self.done: deque[tuple[str, dict[str, int]]] = deque(maxlen=limit)

    @classmethod
    def from_env(cls) -> StageTrace | None:
        path = os.environ.get(ENV, "")
        return cls(Path(path)) if path else None

    def queued(self, source: str) -> list[int]:
        """The first two stamps of an event put on the core queue by ``source``."""
        return [self.read if source == "reader" else 0, now_ns()]

    def alert(self, alert_id: str, stamps: dict[str, int]) -> None:
        """An alert of the event being handled was handed to the link; ``stamps`` are the
        daemon's own (``ALERT_STAMPS``)."""
        event = self.event or [0] * len(EVENT_STAMPS)
        self._alerts.append((alert_id, {**dict(zip(EVENT_STAMPS, event, strict=False)),
                                        **stamps}))  # fmt: skip

    def handled(self) -> None:
        """The event's handling is over: its alerts wait for the link."""
        t = now_ns()
        for aid, stamps in self._alerts:
            stamps["handled"] = t
            self._open[aid] = stamps
        self._alerts.clear()
        self.event = None
        for held in (self._open, self._link):
            if len(held) > 1000:  # alerts the link will never send (dropped on a stop)
                for aid in list(held)[:500]:
                    del held[aid]

    def link(self, alert_id: str, stage: str) -> None:
        """The link's stamps (``LINK_STAMPS``) of one alert, in whatever order they come."""
        t = now_ns()
        stamps = self._link.setdefault(alert_id, {})
        stamps.setdefault(stage, t)
        if stage != LINK_STAMPS[-1]:
            return
        del self._link[alert_id]
        own = self._open.pop(alert_id, None)
        if own is not None:
            rec = {**own, **stamps}
            if all(k in rec for k in STAMPS):
                self.done.append((alert_id, rec))

    def write(self) -> None:
        """Write the records (called once, when the daemon stops)."""
        try:
            with self.path.open("w", encoding="utf-8") as f:
                for aid, stamps in self.done:
                    f.write(json.dumps({"alert_id": aid, **{k: stamps[k] for k in STAMPS}}))
                    f.write("\n")
        except OSError as exc:
            log.error("stage trace %s not written: %s", self.path, exc)
            return
        log.info("stage trace: %d alerts written to %s", len(self.done), self.path)
