"""The venue's side of a simulated table: a subscriber to the table's topics (the live view,
alerts, hand records, command responses) that also sends venue commands, as the venue's
systems would over MQTT."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Callable
from typing import Any, Protocol

import aiomqtt

from controller.link.mqtt_client import Client
from hwsim.layout import TableFailure, wait_until


class LiveView(Protocol):
    """What the venue hands state and alert messages to (``railguard demo``'s view)."""

    def state(self, body: dict[str, Any]) -> None: ...

    def alert(self, body: dict[str, Any]) -> None: ...


def command_payload(cmd: str, **args: Any) -> tuple[str, bytes]:
    """A venue command as it goes on the wire: (request id, JSON payload)."""
    rid = uuid.uuid4().hex[:16]
    body = {"request_id": rid, "ts": time.time(), "command": cmd, "args": args}
    return rid, json.dumps(body).encode()


class Venue:
    """Subscribes to the table's topics (the live view) and sends venue commands."""

    def __init__(
        self,
        host: str,
        port: int,
        base: str,
        view: LiveView | None = None,
        *,
        topics: tuple[str, ...] = ("#",),
        record: bool = True,
        on_message: Callable[[str, Any], None] | None = None,
    ) -> None:
        self.host, self.port, self.base, self.view = host, port, base, view
        self.topics, self.record, self.on_message = topics, record, on_message
        self.messages: list[tuple[str, Any]] = []  # every message (when ``record``)
        self.responses: dict[str, dict[str, Any]] = {}  # command responses by request id
        self.client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._up = asyncio.Event()

    async def _run(self) -> None:
        ident = f"sim-venue-{uuid.uuid4().hex[:6]}"
        async with Client(self.host, self.port, identifier=ident) as c:
            self.client = c
            for t in self.topics:
                await c.subscribe(f"{self.base}/{t}", qos=1)
            self._up.set()
            async for m in c.messages:
                raw = m.payload if isinstance(m.payload, bytes) else str(m.payload).encode()
                try:
                    body = json.loads(raw)
                except (ValueError, RecursionError):  # anyone may publish anything
                    continue
                topic = m.topic.value
                if self.record:
                    self.messages.append((topic, body))
                suffix = topic[len(self.base) + 1 :]
                if suffix == "cmd/response" and isinstance(body, dict):
                    self.responses[str(body.get("request_id"))] = body
                if self.on_message is not None:
                    self.on_message(suffix, body)
                if self.view is None or not isinstance(body, dict):
                    continue
                if suffix == "state":
                    self.view.state(body)
                elif suffix == "alerts":
                    self.view.alert(body)

    async def start(self) -> None:
        self._up.clear()  # restartable: wait for the new connection, not the old one
        self._task = asyncio.create_task(self._run())
        done, _ = await asyncio.wait(
            [self._task, asyncio.create_task(self._up.wait())], timeout=15,
            return_when=asyncio.FIRST_COMPLETED,
        )  # fmt: skip
        if self._task in done:
            self._task.result()  # raises the connection error
        if not self._up.is_set():
            raise TableFailure(f"venue subscriber could not connect to {self.host}:{self.port}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
                await self._task

    def on(self, suffix: str) -> list[Any]:
        return [b for t, b in self.messages if t == f"{self.base}/{suffix}"]

    async def send(self, payload: bytes, rid: str | None, what: str = "") -> dict[str, Any]:
        """Publish a raw command payload and wait for the response carrying ``rid``."""
        assert self.client is not None
        await self.client.publish(f"{self.base}/cmd", payload, qos=1)
        key = str(rid)
        # a command's response waits on the table's durable store write (an fsync): give it
        # longer than a sensed step when several tables share a slow disk
        await wait_until(
            lambda: key in self.responses, what or f"the response to {rid}", 30, poll=0.002
        )
        return self.responses.pop(key)

    async def do(self, cmd: str, **args: Any) -> dict[str, Any]:
        rid, payload = command_payload(cmd, **args)
        resp = await self.send(payload, rid, f"the response to {cmd}")
        if not resp.get("ok"):
            raise TableFailure(f"command {cmd} refused: {resp.get('reason')}")
        return resp
