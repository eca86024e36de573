"""Shared by the benches: a timestamping MQTT subscriber that also sends venue commands,
a polling wait, and percentiles. The daemon as its own process is the simulated table's
(``hwsim.table.SimTable`` with ``process=True``; ``hwsim.table.railguard_argv`` is the
command that runs ``railguard``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiomqtt

from controller.demo import table as demo_table
from controller.link.mqtt_client import Client

ROOT = Path(__file__).resolve().parents[1]


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Subscriber:
    """An aiomqtt subscriber that stamps each message with ``time.perf_counter()`` on
    arrival and can send venue commands (the demo's wire format)."""

    def __init__(self, port: int, filters: list[str], host: str = "127.0.0.1") -> None:
        self.host, self.port, self.filters = host, port, filters
        self.messages: list[tuple[float, str, Any]] = []
        self.on_message: Callable[[float, str, Any], None] | None = None
        self.client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._up = asyncio.Event()

    async def _run(self) -> None:
        from controller.link.config import NODELAY

        ident = f"bench-sub-{uuid.uuid4().hex[:8]}"
        async with Client(self.host, self.port, identifier=ident,
                                  socket_options=NODELAY) as c:  # fmt: skip
            self.client = c
            for f in self.filters:
                await c.subscribe(f, qos=1)
            self._up.set()
            async for m in c.messages:
                now = time.perf_counter()
                raw = m.payload if isinstance(m.payload, bytes) else str(m.payload).encode()
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw
                self.messages.append((now, m.topic.value, body))
                if self.on_message is not None:
                    self.on_message(now, m.topic.value, body)

    async def start(self, timeout: float = 5.0) -> None:
        self._up.clear()
        self._task = asyncio.create_task(self._run())
        up = asyncio.create_task(self._up.wait())
        done, _ = await asyncio.wait([self._task, up], timeout=timeout,
                                     return_when=asyncio.FIRST_COMPLETED)  # fmt: skip
        if self._task in done:
            up.cancel()
            self._task.result()
        if not self._up.is_set():
            raise RuntimeError(f"subscriber could not connect to {self.host}:{self.port}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, aiomqtt.MqttError):
                await self._task
            self._task = None

    def on(self, topic: str) -> list[Any]:
        return [b for _, t, b in self.messages if t == topic]

    async def command(self, base: str, cmd: str, timeout: float = 5.0, **args: Any) -> Any:
        """Send a venue command on ``base``/cmd and return its response."""
        assert self.client is not None
        rid, payload = demo_table.command_payload(cmd, **args)
        await self.client.publish(f"{base}/cmd", payload, qos=1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for r in self.on(f"{base}/cmd/response"):
                if isinstance(r, dict) and r.get("request_id") == rid:
                    return r
            await asyncio.sleep(0.01)
        raise TimeoutError(f"no response to {cmd}")


async def wait_for(cond: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)
