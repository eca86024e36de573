"""``VenueLink``: the table's MQTT connection to the venue.

One aiomqtt client, reused: ``async with client`` in a loop, MqttError caught, exponential
back-off with jitter, retry. On every connect ("birth") the link advances the persistent
bdseq, registers the will (retained ``offline`` with that bdseq), publishes retained
``online`` with the same bdseq, resets the message sequence number and republishes the
retained redacted state. Hand records go through the SQLite :class:`Outbox` and are sent
only while a venue logger's retained status says ``online`` (their delivery:
:mod:`controller.link.records`); the link itself carries the live messages (state, events,
alerts) and answers the venue's commands.

The daemon's side::

    link = VenueLink(broker, "v1", "t7", outbox="/var/lib/railguard/link.db",
                     on_command=handle)          # async (Command) -> CommandResult
    task = link.start()                          # or: await link.run()
    link.publish_state({...}); link.publish_event("street", {...})
    alert_id = link.publish_alert({...}); link.submit_hand(hand_id, hand_no, ohh)
    await link.stop()
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import aiomqtt

from controller.link.commands import (
    AckAlert,
    Command,
    CommandGuard,
    CommandResult,
    Rebirth,
    Replay,
    command_name,
)
from controller.link.config import BrokerConfig, set_will
from controller.link.connect import Reconnector, cancel_if_asked
from controller.link.errors import CommandRefused
from controller.link.mqtt_client import Client
from controller.link.outbox import Outbox, OutboxRecord
from controller.link.records import HandRecords
from controller.link.redact import NO_SECRETS, HoleSecrets, check_no_hole_cards, redact_state
from controller.link.schemas import validate
from controller.link.stats import LinkStats
from controller.link.topics import TableTopics

# The stamp (seq, bdseq, ts) a message is validated with before it is queued; sending stamps
# it for real. ts is not integral so that the fast schema check applies (schemas.validate).
_TS = 0.5

log = logging.getLogger(__name__)

CommandHandler = Callable[[Command], Awaitable[CommandResult]]


#: one encoder for every message (``json.dumps`` with options builds a new one per call)
_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


def _dumps(obj: Mapping[str, Any]) -> bytes:
    return _ENCODER.encode(obj).encode()


class VenueLink:
    """The venue link of one table (see the module docstring)."""

    def __init__(
        self,
        broker: BrokerConfig,
        venue: str,
        table: str,
        outbox: Outbox | str | Path,
        on_command: CommandHandler | None = None,
        *,
        client_id: str | None = None,
        command_key: bytes | None = None,
        command_max_age: float = 30.0,
        command_timeout: float = 5.0,
        ack_timeout: float = 5.0,
        window: int = 16,
        backoff: tuple[float, float] = (0.2, 10.0),
        held_retry: float = 1.0,
    ) -> None:
        self.broker = broker
        self.topics = TableTopics(venue, table)
        self.on_command = on_command
        self.client_id = client_id or f"railguard-{venue}-{table}"
        self.guard = CommandGuard(key=command_key, max_age=command_max_age)
        # the live hand's hole-card tags and cards, which no live payload may name (the
        # daemon sets it to read them from the rules core)
        self.secrets: Callable[[], HoleSecrets] = lambda: NO_SECRETS
        # the daemon's stage stamps (controller/daemon/trace.py), told (alert id, stage) as
        # the writer takes an alert, encodes it and has it acknowledged; None: not traced
        self.trace: Callable[[str, str], None] | None = None
        # told when an alert has just been written to the broker's socket by publish_alert's
        # direct path (the daemon holds its reader board a moment then); None: nobody
        self.on_alert_written: Callable[[], None] | None = None
        self.command_timeout = command_timeout
        self.backoff = backoff
        self.stats = LinkStats()
        self.records = HandRecords(self.topics,
                                   outbox if isinstance(outbox, Outbox) else Outbox(outbox),
                                   self.stats, window=window, ack_timeout=ack_timeout,
                                   held_retry=held_retry)  # fmt: skip
        self.outbox = self.records.outbox
        self.bdseq: int | None = None
        self._connected = asyncio.Event()
        self._seq = 0
        self._state: dict[str, Any] | None = None
        self._queue: deque[tuple[str, Any]] = deque(maxlen=2000)
        self._queue_wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._client: aiomqtt.Client | None = None

    # -- public API ----------------------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def logger_online(self) -> bool:
        return self.records.logger_online

    @property
    def held_count(self) -> int:
        """Hand records the outbox could not store yet (disk full / locked); retried."""
        return self.records.held_count

    @property
    def queued_count(self) -> int:
        """Live messages (state, events, alerts, command responses) queued for the link's
        writer, which takes each off once it has published it; 0: all sent (read-only)."""
        return len(self._queue)

    async def wait_connected(self, timeout: float | None = None) -> None:
        await asyncio.wait_for(self._connected.wait(), timeout)

    def start(self) -> asyncio.Task[None]:
        """Run :meth:`run` as a task of the current loop and return it."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self.run(), name="venue-link")
        return self._task

    async def stop(self) -> None:
        """Publish retained ``offline`` (a clean disconnect sends no will), then stop."""
        client = self._client
        if client is not None and self.connected and self.bdseq is not None:
            with contextlib.suppress(aiomqtt.MqttError, asyncio.TimeoutError):
                await asyncio.wait_for(
                    client.publish(
                        self.topics.status, _dumps(self._status("offline")), qos=1, retain=True
                    ),
                    2.0,
                )
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def publish_state(self, state: Mapping[str, Any]) -> None:
        """Set the retained live state (redacted; RedactionError / SchemaViolation if not)."""
        clean = redact_state(state, self.secrets())
        validate("state", {**clean, "seq": 0, "bdseq": 0, "ts": _TS})
        self._state = clean
        if self.connected:
            self._enqueue(("state", None))

    def publish_event(self, kind: str, data: Mapping[str, Any], hand_no: int | None = None) -> bool:
        """Publish a live event (not retained). Dropped (returns False) while disconnected:
        the seq reset at the next birth tells the venue that it missed some."""
        check_no_hole_cards(data, f"event {kind}", self.secrets())
        msg = {
            "seq": 0,
            "bdseq": 0,
            "ts": _TS,
            "kind": kind,
            "hand_no": hand_no,
            "data": dict(data),
        }
        validate("event", msg)
        if not self.connected:
            self.stats.events_dropped += 1
            return False
        self._enqueue(("event", msg))
        return True

    def publish_alert(self, alert: Mapping[str, Any]) -> str:
        """Publish a dealer-error alert; returns its ``alert_id`` (generated if absent).
        Alerts raised while disconnected are sent after the next birth."""
        msg: dict[str, Any] = {"seat": None, **alert, "seq": 0, "bdseq": 0, "ts": _TS}
        msg.setdefault("alert_id", uuid.uuid4().hex)
        check_no_hole_cards(msg, "alert", self.secrets())
        validate("alert", msg)
        if not self._send_now(msg):
            self._enqueue(("alert", msg))
        return str(msg["alert_id"])

    def _send_now(self, msg: dict[str, Any]) -> bool:
        """The alert's direct path: with the link connected and its writer idle (nothing
        queued), the alert is stamped, encoded and written to the broker's socket now,
        before the caller goes on (the daemon logs it, lights the dealer's LED and finishes
        the event after it); the writer then only waits for its PUBACK, and sends it again
        after a reconnect if that never came, as a queued alert. False: queue it."""
        client = self._client
        if self._queue or not self.connected or not isinstance(client, Client):
            return False
        aid = str(msg["alert_id"])
        body = self._stamp(msg)
        data = _dumps(body)
        if self.trace is not None:
            self.trace(aid, "encoded")
        try:
            info = client.publish_now(self.topics.alerts, data, 1, False)
        except aiomqtt.MqttError:
            self._seq -= 1  # nothing went out under that number
            return False
        self._enqueue(("alert_sent", (msg, self.stats.connects, info)))
        if self.on_alert_written is not None:
            self.on_alert_written()
        return True

    def submit_hand(
        self, hand_id: str, hand_no: int, ohh: Mapping[str, Any], ended_at: float | None = None
    ) -> None:
        """Put a completed hand record (the OHH ``ohh`` object) into the durable outbox.

        SchemaViolation if ``ohh`` lacks what the contract relies on. StoreFull /
        StoreLocked if SQLite could not commit: the record is then held in memory and
        retried (in order, before later hands) every ``held_retry`` seconds; submitting the
        same hand again is harmless.
        """
        body = self.check_hand(hand_id, hand_no, ohh)
        self.records.submit(hand_id, hand_no, body, time.time() if ended_at is None else ended_at)

    def check_hand(self, hand_id: str, hand_no: int, ohh: Mapping[str, Any]) -> dict[str, Any]:
        """SchemaViolation unless ``ohh`` and its envelope match the contract; the body."""
        return self.records.check(hand_id, hand_no, ohh)

    def hand_stored(self) -> None:
        """A record was added to the outbox by another connection (the daemon's writer
        thread): send it (call on the loop)."""
        self.records.wake.set()

    def envelope(self, rec: OutboxRecord) -> dict[str, Any]:
        """The hand message of an outbox record."""
        return self.records.envelope(rec)

    # -- connection loop -----------------------------------------------------------------
    async def run(self) -> None:
        """Connect, serve, reconnect with back-off; runs until cancelled."""
        async with asyncio.TaskGroup() as tg:
            tg.create_task(self._connection_loop())
            tg.create_task(self.records.held_loop())

    async def _connection_loop(self) -> None:
        client = self.broker.make_client(self.client_id)
        self._client = client

        def before_connect() -> None:
            self.bdseq = self.outbox.next_bdseq()
            will = aiomqtt.Will(self.topics.status, _dumps(self._status("offline")), 1, True)
            set_will(client, will)

        def on_down() -> None:
            self._connected.clear()
            self.records.down()
            self.stats.connect_failures = loop.failures
            if loop.last_error:
                self.stats.last_error = loop.last_error

        loop = Reconnector(
            f"venue link {self.topics.venue}/{self.topics.table}",
            self.broker,
            client,
            self._session,
            backoff=self.backoff,
            before_connect=before_connect,
            on_down=on_down,
            describe=lambda: f"client id {self.client_id}, bdseq {self.bdseq}",
        )
        await loop.run()

    async def _session(self, client: aiomqtt.Client) -> None:
        """Serve one connection; ends with an MqttError (alone or in the TaskGroup's
        ExceptionGroup: the Reconnector unwraps either) when it breaks."""
        t = self.topics
        self.stats.connects += 1
        await client.subscribe([(t.commands, 1), (t.hands_ack, 1), (t.logger_status_filter, 1)])
        await self._birth(client)
        self._connected.set()
        self.records.connected()
        commands: asyncio.Queue[bytes] = asyncio.Queue(maxsize=100)
        async with asyncio.TaskGroup() as tg:
            tg.create_task(self._reader(client, commands))
            tg.create_task(self._writer(client))
            tg.create_task(self.records.sender(client))
            tg.create_task(self._commands(commands))

    def _status(self, status: str) -> dict[str, Any]:
        return {
            "status": status,
            "bdseq": self.bdseq or 0,
            "ts": time.time(),
            "venue": self.topics.venue,
            "table": self.topics.table,
        }

    def _stamp(self, msg: dict[str, Any]) -> dict[str, Any]:
        out = {**msg, "seq": self._seq, "bdseq": self.bdseq or 0, "ts": time.time()}
        self._seq += 1
        return out

    async def _birth(self, client: aiomqtt.Client) -> None:
        self._seq = 0
        await client.publish(self.topics.status, _dumps(self._status("online")), 1, True)
        if self._state is not None:
            await client.publish(self.topics.state, _dumps(self._stamp(self._state)), 1, True)

    def _enqueue(self, item: tuple[str, Any]) -> None:
        self._queue.append(item)
        self._queue_wake.set()

    async def _writer(self, client: aiomqtt.Client) -> None:
        t = self.topics
        task = asyncio.current_task()
        while True:
            while self._queue:
                cancel_if_asked(task)
                kind, body = self._queue[0]
                if kind == "state":
                    if self._state is not None:
                        msg = _dumps(self._stamp(self._state))
                        await client.publish(t.state, msg, 1, True)
                elif kind == "birth":
                    await self._birth(client)
                elif kind == "event":
                    await client.publish(t.events, _dumps(self._stamp(body)), 1, False)
                elif kind == "alert_sent":  # written by publish_alert's direct path
                    msg, session, info = body
                    if self.trace is not None:
                        self.trace(str(msg["alert_id"]), "dequeued")
                    if session == self.stats.connects and isinstance(client, Client):
                        await client.wait_published(info)
                    else:  # the connection it went out on broke first: send it again
                        await client.publish(t.alerts, _dumps(self._stamp(msg)), 1, False)
                    if self.trace is not None:
                        self.trace(str(msg["alert_id"]), "acked")
                elif kind == "alert" and self.trace is not None:
                    await self._traced_alert(client, body, self.trace)
                elif kind == "alert":
                    await client.publish(t.alerts, _dumps(self._stamp(body)), 1, False)
                elif kind == "response":
                    await client.publish(t.responses, _dumps(body), 1, False)
                self._queue.popleft()
            cancel_if_asked(task)
            self._queue_wake.clear()
            await self._queue_wake.wait()

    async def _traced_alert(
        self, client: aiomqtt.Client, body: dict[str, Any], trace: Callable[[str, str], None]
    ) -> None:
        aid = str(body.get("alert_id"))
        trace(aid, "dequeued")
        msg = _dumps(self._stamp(body))
        trace(aid, "encoded")
        await client.publish(self.topics.alerts, msg, 1, False)
        trace(aid, "acked")

    async def _reader(self, client: aiomqtt.Client, commands: asyncio.Queue[bytes]) -> None:
        t = self.topics
        async for message in client.messages:
            topic = message.topic.value
            payload = message.payload
            data = payload if isinstance(payload, bytes) else str(payload).encode()
            if topic == t.commands:
                try:
                    commands.put_nowait(data)
                except asyncio.QueueFull:
                    self._respond(None, None, False, "busy: too many commands queued")
            elif topic == t.hands_ack:
                self.records.on_ack(data)
            elif topic.endswith("/status") and topic.startswith("railguard/_logger/"):
                self.records.on_logger_status(topic, data)

    # -- commands ------------------------------------------------------------------------
    def _respond(
        self,
        request_id: str | None,
        command: str | None,
        ok: bool,
        reason: str = "",
        data: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        msg: dict[str, Any] = {
            "request_id": request_id,
            "command": command,
            "ok": ok,
            "ts": time.time(),
        }
        if not ok:
            msg["reason"] = reason[:500] or "refused"
        if data:
            msg["data"] = data
        self._enqueue(("response", msg))
        return msg

    async def _commands(self, commands: asyncio.Queue[bytes]) -> None:
        task = asyncio.current_task()
        while True:
            cancel_if_asked(task)  # a stop swallowed inside a command's handler (gh-86296)
            await self.handle_command(await commands.get())

    async def handle_command(self, payload: bytes) -> dict[str, Any]:
        """Check, dispatch and answer one command payload; returns the response sent."""
        try:
            cmd = self.guard.admit(payload)
        except CommandRefused as exc:
            self.stats.commands_refused += 1
            # repr: the reason may quote what the sender sent (no forged log lines)
            log.warning("venue command refused request_id=%r: %r", exc.request_id, exc.reason)
            return self._respond(exc.request_id, None, False, exc.reason)
        name, rid = command_name(cmd), cmd.meta.request_id
        result = await self._dispatch(cmd)
        if isinstance(cmd, Rebirth | Replay):  # the daemon logs the commands it handles
            outcome = "accepted" if result.ok else f"refused: {result.reason!r}"
            log.info("command %s request_id=%s %s", name, rid, outcome)
        if result.ok:
            self.stats.commands_ok += 1
            if isinstance(cmd, AckAlert) and self.connected:
                self.publish_event("alert_ack", {"alert_id": cmd.alert_id, "by": cmd.by})
        else:
            self.stats.commands_refused += 1
        return self._respond(rid, name, result.ok, result.reason, result.data)

    async def _dispatch(self, cmd: Command) -> CommandResult:
        if isinstance(cmd, Rebirth):
            self._enqueue(("birth", None))
            return CommandResult.success()
        if isinstance(cmd, Replay):
            return self.records.replay(cmd.from_hand)
        if self.on_command is None:
            return CommandResult.error("no handler for this command on this table")
        try:
            async with asyncio.timeout(self.command_timeout):  # not wait_for: gh-86296
                return await self.on_command(cmd)
        except TimeoutError:
            return CommandResult.error("handler timed out")
        except Exception as exc:  # the daemon's error: answer, keep serving
            log.exception("venue link: command handler failed")
            return CommandResult.error(f"handler failed: {type(exc).__name__}: {exc}"[:300])
