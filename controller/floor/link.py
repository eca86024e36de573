"""The console's MQTT side: subscribes to every table's redacted live topics, feeds the
:class:`~controller.floor.room.Room`, and sends venue commands (signed with the command key
when the tables require one) and waits for their responses."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import select
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, cast

import aiomqtt
from paho.mqtt.enums import MQTTErrorCode
from paho.mqtt.matcher import MQTTMatcher

from controller.floor.room import Room, parse_topic
from controller.link.config import BrokerConfig
from controller.link.requests import Requests

log = logging.getLogger("railguard.floor")
#: (topic filter, QoS). The live state and events are displayed and superseded within a second
#: at a busy table: QoS 0, no acknowledgement per message (a fifth of the receiving side's CPU,
#: bench/console_link.py). The alerts, the tables' status and the commands' responses keep
#: QoS 1. What a console that falls a thousand messages behind then loses: docs/performance.md
#: "The festival fleet".
TOPICS = (("railguard/+/+/state", 0), ("railguard/+/+/status", 1), ("railguard/+/+/alerts", 1),
          ("railguard/+/+/events", 0), ("railguard/+/+/cmd/response", 1))  # fmt: skip
RESPONSE_TIMEOUT = 5.0
#: the table's refusal of an ``ack_alert`` for an alert it does not hold open
#: (controller/daemon/venue_commands.py): the console closes it too (Room.closed_at_table)
NOT_OPEN = "is not an open alert of this table"
#: topics the client hands over before anything queued before them (an alert overtakes the
#: states waiting behind it; its ACK event does not: an ACK never overtakes its alert)
URGENT = ("/alerts", "/cmd/response")


def shown_event(raw: bytes) -> bool:
    """Whether a live event may be one the console shows (``alert_ack``), decided from the
    bytes before any parsing: a JSON text holding the string ``"alert_ack"`` has those
    letters in it, or writes some of them as ``\\u`` escapes."""
    return b"alert_ack" in raw or b"\\u" in raw


class AlertsFirst(asyncio.Queue[aiomqtt.Message]):
    """The client's incoming queue: alerts and command responses first, the rest in order.

    Two FIFO deques, the urgent one read first (until issue 23 a heap of ``(priority, n,
    message)`` tuples: a tuple, a counter step and two heap operations a message, the tuples
    then walked by the garbage collector while a backlog waited)."""

    # asyncio.Queue's storage hooks; qsize and empty read self._queue, so they count both
    def _init(self, maxsize: int) -> None:
        self._queue: deque[aiomqtt.Message] = deque()
        self._urgent: deque[aiomqtt.Message] = deque()

    def _put(self, item: aiomqtt.Message) -> None:
        if item.topic.value.endswith(URGENT):
            self._urgent.append(item)
        else:
            self._queue.append(item)

    def _get(self) -> aiomqtt.Message:
        return self._urgent.popleft() if self._urgent else self._queue.popleft()

    def qsize(self) -> int:
        return len(self._queue) + len(self._urgent)

    def empty(self) -> bool:
        return not (self._urgent or self._queue)


class _TopicCallbacks(MQTTMatcher):
    """paho's per-topic callbacks (``message_callback_add``), of which the console has none:
    paho asks them for every message it receives (``_handle_on_message``), and
    ``MQTTMatcher.iter_match`` makes a recursive closure each time, a reference cycle (a
    function, its cells, a tuple and a list) that only the garbage collector frees: at a
    500-table festival 11,000 objects a second, its young collections' whole work (issue 23,
    docs/performance.md "The festival fleet"). With no callback added none is looked for."""

    def iter_match(self, topic: str) -> Iterator[Any]:
        if not self._root._children:
            return iter(())
        return cast("Iterator[Any]", super().iter_match(topic))  # type: ignore[no-untyped-call]


def no_topic_callbacks(client: aiomqtt.Client) -> None:
    """Give the client's paho client a :class:`_TopicCallbacks` (before any is added)."""
    paho = client._client  # as controller/link/config.py sets the will
    setattr(paho, "_on_message_filtered", _TopicCallbacks())  # type: ignore[no-untyped-call]  # noqa: B010


#: packets read from the socket, at most, each time it is readable
READ_BATCH = 256


def read_what_is_there(client: aiomqtt.Client, limit: int | None = None) -> None:
    """Make the client read every packet waiting on its socket (up to ``limit``) each time
    it is readable, instead of one: aiomqtt's reader calls the paho client's
    ``loop_read()``, which reads one packet and ignores its ``max_packets``. With the
    backlog in the client's queue, not in the socket, an alert overtakes it (AlertsFirst)."""
    paho = client._client  # as controller/link/config.py sets the will
    read = paho.loop_read
    batch = READ_BATCH if limit is None else limit

    def batched(max_packets: int = 1) -> MQTTErrorCode:
        rc = read()
        for _ in range(batch - 1):
            sock = paho.socket()
            if rc != MQTTErrorCode.MQTT_ERR_SUCCESS or sock is None:
                break
            ready = select.poll()  # not select(): it fails for a descriptor past 1023
            ready.register(sock, select.POLLIN)
            if not ready.poll(0):
                break
            rc = read()
        return rc

    setattr(paho, "loop_read", batched)  # noqa: B010


class FloorLink:
    def __init__(
        self,
        broker: BrokerConfig,
        room: Room,
        *,
        command_key: bytes | None = None,
        on_change: Callable[[list[dict[str, Any]]], None] | None = None,
    ) -> None:
        self.broker, self.room, self.command_key = broker, room, command_key
        self.on_change = on_change
        self.connected = asyncio.Event()
        self._client: aiomqtt.Client | None = None
        self._requests = Requests("floor", command_key)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
                await self._task

    async def _run(self) -> None:
        delay = 0.2
        while True:
            client = self.broker.make_client(
                f"railguard-floor-{uuid.uuid4().hex[:8]}", queue_type=AlertsFirst
            )
            read_what_is_there(client)
            no_topic_callbacks(client)
            try:
                async with client:
                    for t, qos in TOPICS:
                        await client.subscribe(t, qos=qos)
                    self._client, delay = client, 0.2
                    self.connected.set()
                    self._link_changed(True, "")
                    log.info("floor: subscribed on %s", self.broker.host)
                    queue = client._queue  # an AlertsFirst, see below
                    async for m in client.messages:
                        self._handle(m.topic.value, m.payload)
                        # and what the reader queued meanwhile, without aiomqtt's iterator
                        # (a task and an asyncio.wait a message)
                        while not queue.empty():
                            more = queue.get_nowait()
                            self._handle(more.topic.value, more.payload)
            except aiomqtt.MqttError as exc:
                log.warning("floor: broker: %s; retrying in %.1f s", exc, delay)
                reason = str(exc)
            else:
                reason = "the broker ended the connection"
            finally:
                self._client = None
                self.connected.clear()
            if self.room.link["connected"] or self.room.link["reason"] != reason:
                self._link_changed(False, reason)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)

    def _link_changed(self, connected: bool, reason: str) -> None:
        """The header's broker status, through the stream (and the next snapshot)."""
        self._changed(self.room.link_state(connected, time.time(), reason))

    def _changed(self, changes: list[dict[str, Any]]) -> None:
        if changes and self.on_change is not None:
            self.on_change(changes)

    def _handle(self, topic: str, payload: Any) -> None:
        raw = payload if isinstance(payload, bytes) else str(payload).encode()
        if topic.endswith("/events") and not shown_event(raw):
            return  # 40 % of the messages: no JSON, no schema (bench/console_cost.py)
        try:
            body = json.loads(raw)
        except (ValueError, RecursionError):
            self.room.refused += 1
            return
        if topic.endswith("/cmd/response"):
            self._requests.settle(body)
            return
        changes = self.room.apply(topic, body, time.time())
        if changes and self.on_change is not None:
            self.on_change(changes)

    async def command(self, venue: str, table: str, command: str, args: dict[str, Any],
                      issuer: str) -> dict[str, Any]:  # fmt: skip
        """Send a venue command to one table and return its response (``ok``, ``reason``)."""
        if parse_topic(f"railguard/{venue}/{table}/state") is None:
            return {"ok": False, "reason": f"no such table {venue}/{table}"}
        resp = await self._requests.send(
            self._client,
            f"railguard/{venue}/{table}/cmd",
            command,
            args,
            issuer,
            timeout=RESPONSE_TIMEOUT,
            offline="the console is not connected to the broker",
            unanswered=f"no response from {venue}/{table} in {RESPONSE_TIMEOUT:.0f} s (offline?)",
        )
        if (
            command == "ack_alert"
            and not resp.get("ok")
            and NOT_OPEN in str(resp.get("reason", ""))
        ):
            self._changed(self.room.closed_at_table(venue, table, str(args.get("alert_id"))))
        return resp
