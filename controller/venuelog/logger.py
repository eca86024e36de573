"""``VenueLogger``: stores every table's completed hand records and acknowledges them.

Subscribes to ``$share/<group>/railguard/+/+/hands`` (several logger instances in one
group share the load; one is enough), validates each envelope and its OHH object, stores
it idempotently (SQLite or PostgreSQL), then publishes the acknowledgement to
``railguard/<venue>/<table>/hands/ack``. Its own retained status
``railguard/_logger/<instance>/status`` is ``online`` while connected and ``offline`` as its
last will; tables send hand records only while some logger is online.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import aiomqtt

from controller.link import schemas
from controller.link.config import BrokerConfig
from controller.link.connect import Reconnector, cancel_if_asked
from controller.link.errors import SchemaViolation, StoreError
from controller.link.topics import (
    check_id,
    hands_share_filter,
    logger_status_topic,
    split_table_topic,
)
from controller.venuelog.store import HandStore

log = logging.getLogger(__name__)


@dataclass
class LoggerStats:
    received: int = 0
    stored: int = 0
    duplicates: int = 0
    conflicts: int = 0
    rejected: int = 0
    store_errors: int = 0
    connects: int = 0
    order: list[str] = field(default_factory=list)


def _dumps(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


class VenueLogger:
    """One logger instance (see the module docstring)."""

    def __init__(
        self,
        broker: BrokerConfig,
        store: HandStore,
        *,
        store_name: str = "",
        instance: str = "main",
        group: str = "venuelog",
        client_id: str | None = None,
        backoff: tuple[float, float] = (0.2, 10.0),
        progress_every: float = 60.0,
    ) -> None:
        self.broker = broker
        self.store = store
        self.store_name = store_name or type(store).__name__
        self.instance = check_id("logger instance", instance)
        self.group = check_id("share group", group)
        self.client_id = client_id or f"railguard-venuelog-{instance}"
        self.backoff = backoff
        self.progress_every = progress_every  # s between "stored N hands" lines
        self.stats = LoggerStats()
        self.status_topic = logger_status_topic(instance)
        self._connected = asyncio.Event()
        self._client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._progress_at = time.monotonic()
        self._progress_stored = 0

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    async def wait_connected(self, timeout: float | None = None) -> None:
        await asyncio.wait_for(self._connected.wait(), timeout)

    def start(self) -> asyncio.Task[None]:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self.run(), name="venue-logger")
        return self._task

    async def stop(self) -> None:
        """Stop: a connected session publishes retained ``offline`` on its way out (see
        :meth:`_session`), so the tables stop counting on this logger."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def _status(self, status: str) -> dict[str, Any]:
        return {"status": status, "instance": self.instance, "group": self.group, "ts": time.time()}

    async def run(self) -> None:
        """Connect, serve, reconnect with back-off (the shared :class:`Reconnector`); runs
        until cancelled."""
        will = aiomqtt.Will(self.status_topic, _dumps(self._status("offline")), 1, True)
        client = self.broker.make_client(self.client_id, will)
        self._client = client
        loop = Reconnector(
            f"venue logger {self.instance}",
            self.broker,
            client,
            self._session,
            backoff=self.backoff,
            on_down=self._connected.clear,
            describe=lambda: (
                f"group {self.group}, client id {self.client_id}, store {self.store_name}"
            ),
        )
        await loop.run()

    async def _session(self, client: aiomqtt.Client) -> None:
        self.stats.connects += 1
        try:
            await client.subscribe(hands_share_filter(self.group), qos=1)
            await client.publish(self.status_topic, _dumps(self._status("online")), 1, True)
            self._connected.set()
            task = asyncio.current_task()
            async for message in client.messages:
                await self._on_message(client, message)
                cancel_if_asked(task)  # a stop swallowed by publish: see the helper
                self._progress()
        except asyncio.CancelledError:
            # Stopped (stop(), Ctrl-C, SIGTERM) while connected, wherever the cancel landed
            # (a reconnect's subscribe or "online" included): say "offline" before the clean
            # DISCONNECT, which sends no will. Without it the retained status stayed
            # "online" for a logger that was gone, and the tables counted on it.
            await self._say_offline(client)
            raise

    async def _say_offline(self, client: aiomqtt.Client) -> None:
        with contextlib.suppress(aiomqtt.MqttError, asyncio.TimeoutError):
            offline = _dumps(self._status("offline"))
            await asyncio.wait_for(client.publish(self.status_topic, offline, 1, True), 2.0)

    def _progress(self) -> None:
        """At most one INFO line a minute while hands arrive: how many were stored."""
        now = time.monotonic()
        if now - self._progress_at < self.progress_every:
            return
        s = self.stats
        log.info(
            "venue logger %s: stored %d hands in the last %.0f s (total %d stored,"
            " %d duplicates, %d conflicts, %d rejected, %d store errors)",
            self.instance,
            s.stored - self._progress_stored,
            now - self._progress_at,
            s.stored,
            s.duplicates,
            s.conflicts,
            s.rejected,
            s.store_errors,
        )
        self._progress_at, self._progress_stored = now, s.stored

    async def _on_message(self, client: aiomqtt.Client, message: aiomqtt.Message) -> None:
        self.stats.received += 1
        where = split_table_topic(message.topic.value)
        if where is None or where[2] != "hands":
            return
        venue, table, _ = where
        payload = message.payload
        data = payload if isinstance(payload, bytes) else str(payload).encode()
        ack = self.handle(venue, table, data)
        if ack is not None:
            await client.publish(f"railguard/{venue}/{table}/hands/ack", _dumps(ack), 1, False)

    def handle(self, venue: str, table: str, data: bytes) -> dict[str, Any] | None:
        """Store one hand record published on ``venue``/``table``; returns the ack to send,
        or None when nothing may be acknowledged (no hand id, or the store failed: the table
        keeps the record and re-sends it)."""
        try:
            envelope = json.loads(data)
        except ValueError:
            self.stats.rejected += 1
            return None
        hand_id = envelope.get("hand_id") if isinstance(envelope, dict) else None
        try:
            schemas.validate("hand", envelope)
            schemas.validate("ohh", envelope["ohh"])
            if (envelope["venue"], envelope["table"]) != (venue, table):
                raise SchemaViolation("hand", "venue", "does not match the topic")
        except SchemaViolation as exc:
            self.stats.rejected += 1
            log.warning("venue logger: rejected a record from %s/%s: %s", venue, table, exc)
            if not isinstance(hand_id, str) or not 0 < len(hand_id) <= 96:
                return None
            return self._ack(hand_id, None, "rejected", str(exc))
        try:
            result = self.store.put(envelope)
        except StoreError as exc:
            self.stats.store_errors += 1
            log.error("venue logger: %s", exc)
            return None
        if result == "stored":
            self.stats.stored += 1
            self.stats.order.append(envelope["hand_id"])
        elif result == "duplicate":
            self.stats.duplicates += 1
        else:
            self.stats.conflicts += 1
        return self._ack(envelope["hand_id"], envelope["record_seq"], result)

    def _ack(
        self, hand_id: str, record_seq: int | None, status: str, reason: str = ""
    ) -> dict[str, Any]:
        ack: dict[str, Any] = {
            "hand_id": hand_id,
            "status": status,
            "logger": self.instance,
            "ts": time.time(),
        }
        if record_seq is not None:
            ack["record_seq"] = record_seq
        if reason:
            ack["reason"] = reason[:500]
        return ack
