"""The tournament service on the venue broker: subscribes to the event's venue's hand records,
states and command responses and to the event's command topic; sends table commands (signed
with the tables' command key when they require one) and waits for their answers; publishes
the event's clock, standings and proposal (retained). One client, reconnected with back-off.

Topics (docs/mqtt.md): ``railguard/<venue>/+/hands`` (the records: the venue logger
acknowledges them, not this service), ``railguard/<venue>/+/state``,
``railguard/<venue>/+/cmd/response``, ``railguard/_event/<event>/cmd`` (the floor's event
commands, ``event_command.json``; answered on ``.../cmd/response``),
``railguard/_event/<event>/{clock,standings,proposal}`` (published).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import math
import time
import uuid
from collections import OrderedDict
from typing import Any

import aiomqtt

from controller.link import schemas
from controller.link.commands import canonical_bytes
from controller.link.config import BrokerConfig
from controller.link.errors import SchemaViolation
from controller.link.requests import Requests
from controller.link.subscription import Subscription
from controller.rules.errors import RailguardError
from controller.tournament.errors import Refused
from controller.tournament.service import EventService, event_topic

log = logging.getLogger("railguard.tournament")
RESPONSE_TIMEOUT = 5.0
MAX_BYTES = 16 * 1024
MAX_AGE, MAX_SKEW = 30.0, 5.0
_RESYNC = "\x00resync-holds"  # a work item of its own (no topic has a NUL)


class EventLink:
    def __init__(self, broker: BrokerConfig, *, command_key: bytes | None = None) -> None:
        self.broker, self.command_key = broker, command_key
        self.service: EventService | None = None
        self.connected = asyncio.Event()
        self._topics: Subscription | None = None
        self._requests = Requests("event", command_key)
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._work: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()

    # ------------------------------------------------------------------ what the service uses
    @property
    def _client(self) -> aiomqtt.Client | None:
        return None if self._topics is None else self._topics.client

    async def send(self, table: str, command: str, args: dict[str, Any]) -> dict[str, Any]:
        """A venue command to one table of the event's venue, and its answer."""
        assert self.service is not None
        venue = self.service.state.event.venue
        return await self._requests.send(
            self._client,
            f"railguard/{venue}/{table}/cmd",
            command,
            args,
            f"event:{self.service.state.event.name}",
            timeout=RESPONSE_TIMEOUT,
            offline="the tournament service is not connected",
            unanswered=f"no response from {venue}/{table} in {RESPONSE_TIMEOUT:.0f} s (offline?)",
        )

    async def publish(self, kind: str, body: dict[str, Any], retain: bool) -> None:
        assert self.service is not None
        client = self._client
        if client is None:
            return
        with contextlib.suppress(aiomqtt.MqttError):
            await client.publish(
                event_topic(self.service.state.event.name, kind),
                json.dumps(body),
                qos=1,
                retain=retain,
            )

    # ------------------------------------------------------------------ running
    async def run(self, service: EventService) -> None:
        self.service = service
        async with asyncio.TaskGroup() as tg:
            tg.create_task(self._connection(), name="tournament-mqtt")
            tg.create_task(self._worker(), name="tournament-work")
            tg.create_task(self._ticker(), name="tournament-clock")

    async def _connection(self) -> None:
        assert self.service is not None
        ev = self.service.state.event
        topics = [
            (f"railguard/{ev.venue}/+/hands", 1),
            (f"railguard/{ev.venue}/+/state", 1),
            (f"railguard/{ev.venue}/+/cmd/response", 1),
            (event_topic(ev.name, "cmd"), 1),
        ]
        self._topics = Subscription(
            self.broker,
            lambda: f"railguard-event-{ev.name}-{uuid.uuid4().hex[:6]}",
            topics,
            self._message,
            log=log,
            label="tournament: broker",
            on_up=self._up,
            connected=self.connected,
        )
        await self._topics.run()

    async def _up(self) -> None:
        assert self.service is not None
        log.info("tournament: event %s on %s", self.service.state.event.name, self.broker.host)
        await self.service.publish_all()
        self._work.put_nowait((_RESYNC, b""))  # the holds again, in the worker's order

    def _message(self, topic: str, raw: bytes) -> None:
        """Responses settle at once (a confirm waits on them); the rest is queued in order."""
        if topic.endswith("/cmd/response") and not topic.startswith("railguard/_event/"):
            try:
                body = json.loads(raw)
            except ValueError:
                return
            self._requests.settle(body)
            return
        self._work.put_nowait((topic, raw))

    async def _worker(self) -> None:
        while True:
            topic, raw = await self._work.get()
            try:
                await self._handle(topic, raw)
            except Exception:  # one bad message never stops the event
                log.exception("tournament: handling %s", topic)

    async def _handle(self, topic: str, raw: bytes) -> None:
        assert self.service is not None
        if topic == _RESYNC:
            await self.service.resync_holds()
            return
        parts = topic.split("/")
        if topic.endswith("/cmd") and parts[1] == "_event":
            await self._event_command(raw)
            return
        if len(raw) > 4 * 1024 * 1024:
            return
        try:
            body = json.loads(raw)
        except ValueError:
            log.warning("tournament: %s: not JSON", topic)
            return
        if not isinstance(body, dict):
            return
        if parts[-1] == "state":
            if self.service.on_state(parts[2], body):
                for seat, pid, why in self.service.irregular_at(parts[2]):
                    log.warning("tournament: %s seat %s (%s): %s", parts[2], seat, pid, why)
                await self.service.publish_standings()
            await self.service.check_hold(parts[2], body)
        elif parts[-1] == "hands":
            try:
                await self.service.on_hand(body)
            except Refused as exc:
                log.warning("tournament: hand record on %s: %s", topic, exc)

    async def _event_command(self, raw: bytes) -> None:
        assert self.service is not None
        rid, name = None, None
        try:
            body = self._admit(raw)
            rid, name = body["request_id"], body["command"]
            data = await self.service.command(name, body["args"], body.get("issuer", "floor"))
            answer: dict[str, Any] = {
                "request_id": rid,
                "command": name,
                "ok": True,
                "data": data,
                "ts": time.time(),
            }
        except (RailguardError, ValueError) as exc:
            if isinstance(exc, _Bad):
                rid, name = exc.rid, exc.name
            answer = {
                "request_id": rid,
                "command": name,
                "ok": False,
                "reason": str(exc)[:500],
                "ts": time.time(),
            }
            log.warning("tournament: event command %s refused: %s", name, exc)
        await self.publish("cmd/response", answer, False)

    def _admit(self, raw: bytes) -> dict[str, Any]:
        """Size, JSON, schema, HMAC (with a command key), freshness and replay checks."""
        if len(raw) > MAX_BYTES:
            raise _Bad(f"malformed: larger than {MAX_BYTES} bytes")
        try:
            body = json.loads(raw)
        except ValueError as exc:
            raise _Bad(f"malformed: not JSON ({str(exc)[:120]})") from None
        rid = body.get("request_id") if isinstance(body, dict) else None
        name = body.get("command") if isinstance(body, dict) else None
        rid = rid if isinstance(rid, str) and len(rid) <= 64 else None
        name = name if isinstance(name, str) and len(name) <= 32 else None
        try:
            schemas.validate("event_command", body)
        except SchemaViolation as exc:
            raise _Bad(f"malformed: {exc}", rid, name) from None
        if self.command_key is not None:
            given = body.get("hmac")
            want = hmac.new(
                self.command_key,
                canonical_bytes({k: v for k, v in body.items() if k != "hmac"}),
                hashlib.sha256,
            ).hexdigest()
            if not isinstance(given, str) or not hmac.compare_digest(given, want):
                raise _Bad("unauthorised: no or bad hmac", rid, name)
        now = time.time()
        ts = body["ts"]
        if not math.isfinite(ts) or ts < now - MAX_AGE or ts > now + MAX_SKEW:
            raise _Bad("stale: ts outside the last 30 s", rid, name)
        while self._seen and next(iter(self._seen.values())) < now - MAX_AGE - MAX_SKEW:
            self._seen.popitem(last=False)
        if body["request_id"] in self._seen:
            raise _Bad("replayed: request_id already seen", rid, name)
        self._seen[body["request_id"]] = now
        return dict(body)

    async def _ticker(self) -> None:
        assert self.service is not None
        await self.connected.wait()
        while True:
            try:
                await self.service.tick()
            except Exception:
                log.exception("tournament: clock tick")
            await asyncio.sleep(1.0 - (time.time() % 1.0))


class _Bad(RailguardError, ValueError):
    def __init__(self, message: str, rid: str | None = None, name: str | None = None) -> None:
        super().__init__(message)
        self.rid, self.name = rid, name
