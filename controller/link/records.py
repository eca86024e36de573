"""The hand records' delivery on the table's venue link (:class:`~controller.link.client.
VenueLink` owns one :class:`HandRecords`).

A completed hand goes into the durable SQLite :class:`Outbox`; when the store cannot commit
(disk full, locked) it is held in memory and retried in order. Records are sent only while a
venue logger's retained status says ``online``, at most ``window`` unacknowledged at a time;
one not acknowledged within ``ack_timeout`` is sent again, in order from the oldest. A
logger's ack marks the record in the outbox. A reconnect, a logger coming online or a
``replay`` command starts a new round from the oldest record not acknowledged."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import aiomqtt

from controller.link.commands import CommandResult
from controller.link.connect import cancel_if_asked
from controller.link.errors import SchemaViolation, StoreError
from controller.link.outbox import Outbox, OutboxRecord
from controller.link.schemas import validate
from controller.link.stats import LinkStats
from controller.link.topics import TableTopics

log = logging.getLogger(__name__)


def _dumps(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":"), allow_nan=False).encode()


@dataclass(frozen=True, slots=True)
class _HeldRecord:
    hand_id: str
    hand_no: int
    ohh: dict[str, Any]
    ended_at: float


class HandRecords:
    """The outbox, the records held back from it, the send window and the acks of one
    table's link (the module docstring)."""

    def __init__(self, topics: TableTopics, outbox: Outbox, stats: LinkStats, *,
                 window: int, ack_timeout: float, held_retry: float) -> None:  # fmt: skip
        self.topics = topics
        self.outbox = outbox
        self.stats = stats
        self.window = max(1, window)
        self.ack_timeout = ack_timeout
        self.held_retry = held_retry
        self.restart_round = False
        self.wake = asyncio.Event()  # set when there may be something to send
        self._inflight: dict[int, float] = {}
        self._loggers: dict[str, bool] = {}
        self._held: list[_HeldRecord] = []
        self._held_wake = asyncio.Event()  # set when a record is left held: retry it

    @property
    def logger_online(self) -> bool:
        return any(self._loggers.values())

    @property
    def held_count(self) -> int:
        return len(self._held)

    def submit(self, hand_id: str, hand_no: int, ohh: dict[str, Any], ended_at: float) -> None:
        """Into the outbox (``ohh`` checked already), or held and retried."""
        rec = _HeldRecord(hand_id, hand_no, ohh, ended_at)
        if all(h.hand_id != hand_id for h in self._held):
            self._held.append(rec)
        try:
            self._flush_held()
        finally:
            if self._held:
                self._held_wake.set()

    def check(self, hand_id: str, hand_no: int, ohh: Mapping[str, Any]) -> dict[str, Any]:
        """SchemaViolation unless ``ohh`` and its envelope match the contract; the body."""
        body = dict(ohh)
        validate("ohh", body)
        probe = self._envelope_of(hand_id, hand_no, body, seq=1, sent=0, ended=0.0)
        validate("hand", probe)
        return body

    def _flush_held(self) -> None:
        while self._held:
            rec = self._held[0]
            self.outbox.add(rec.hand_id, rec.hand_no, rec.ohh, rec.ended_at)  # may raise
            self._held.pop(0)
            self.wake.set()

    async def held_loop(self) -> None:
        """Retry the held records every ``held_retry`` s while there are any."""
        while True:
            while not self._held:  # nothing to retry: no timer, wait for a held record
                self._held_wake.clear()
                await self._held_wake.wait()
            await asyncio.sleep(self.held_retry)
            if self._held:
                try:
                    self._flush_held()
                except StoreError as exc:
                    self.stats.last_error = str(exc)

    def connected(self) -> None:
        """A new connection: a new round."""
        self.restart_round = True

    def down(self) -> None:
        """The connection is down: no logger known online."""
        self._loggers.clear()

    def on_ack(self, data: bytes) -> None:
        try:
            ack = json.loads(data)
            validate("hand_ack", ack)
        except (ValueError, SchemaViolation) as exc:
            log.warning("venue link: bad hand ack: %s", exc)
            return
        try:
            if self.outbox.ack(ack["hand_id"], ack["status"]):
                self.stats.records_acked += 1
                self.stats.acks.append(ack["hand_id"])
        except StoreError as exc:
            self.stats.last_error = str(exc)
            return
        seq = ack.get("record_seq")
        if isinstance(seq, int):
            self._inflight.pop(seq, None)
        self.wake.set()

    def on_logger_status(self, topic: str, data: bytes) -> None:
        parts = topic.split("/")
        instance = parts[2] if len(parts) == 4 else "?"
        was = self.logger_online
        try:
            status = json.loads(data) if data else {"status": "offline"}
            online = isinstance(status, dict) and status.get("status") == "online"
        except ValueError:
            online = False
        self._loggers[instance] = online
        if self.logger_online and not was:
            self.restart_round = True
        self.wake.set()

    def replay(self, from_hand: int) -> CommandResult:
        """The ``replay`` command: every record from hand ``from_hand`` on sent again."""
        try:
            held = self.outbox.held_hand_range()
            if held is None or from_hand > held[1]:
                return CommandResult.error(f"no hand record at or after {from_hand}")
            n = self.outbox.requeue_from(from_hand)
        except StoreError as exc:
            return CommandResult.error(f"store: {exc}")
        self.restart_round = True
        self.wake.set()
        return CommandResult.success(requeued=n, oldest_held=held[0])

    def _envelope_of(
        self,
        hand_id: str,
        hand_no: int,
        ohh: dict[str, Any],
        *,
        seq: int,
        sent: int,
        ended: float,
        dealer_id: str | None = None,
    ) -> dict[str, Any]:
        return {
            "kind": "hand",
            "hand_id": hand_id,
            "venue": self.topics.venue,
            "table": self.topics.table,
            "hand_no": hand_no,
            "record_seq": seq,
            "replayed": sent > 0,
            "ended_at": ended,
            "sent_at": time.time(),
            "dealer_id": dealer_id,
            "ohh": ohh,
        }

    def envelope(self, rec: OutboxRecord) -> dict[str, Any]:
        return self._envelope_of(
            rec.hand_id,
            rec.hand_no,
            rec.ohh,
            seq=rec.record_seq,
            sent=rec.sent_count,
            ended=rec.ended_at,
            dealer_id=rec.dealer_id,
        )

    async def sender(self, client: aiomqtt.Client) -> None:
        """Send what the window allows while a logger is online; runs with the connection."""
        last = 0
        task = asyncio.current_task()
        while True:
            cancel_if_asked(task)
            self.wake.clear()
            if self.logger_online:
                now = time.monotonic()
                if self.restart_round:
                    self.restart_round = False
                    self._inflight.clear()
                    last = 0
                expired = [s for s, at in self._inflight.items() if now - at > self.ack_timeout]
                if expired:
                    # Re-send in order from the oldest unacknowledged record.
                    last = min(expired) - 1
                    self._inflight.clear()
                room = self.window - len(self._inflight)
                if room > 0:
                    try:
                        batch = self.outbox.pending(limit=room, after=last)
                        for rec in batch:
                            self.outbox.mark_sent(rec.record_seq)
                            self._inflight[rec.record_seq] = time.monotonic()
                            last = rec.record_seq
                            await client.publish(
                                self.topics.hands, _dumps(self.envelope(rec)), 1, False
                            )
                            self.stats.records_sent += 1
                    except StoreError as exc:
                        self.stats.last_error = str(exc)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.ack_timeout / 2):
                    await self.wake.wait()
