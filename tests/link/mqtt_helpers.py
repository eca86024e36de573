"""Small helpers for MQTT tests: a recording observer client and polling."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

import aiomqtt


class Observer:
    """Subscribes to ``filters`` and records (topic, payload-as-JSON, retain) in order."""

    def __init__(self, port: int, filters: list[str], **client_kwargs: Any) -> None:
        self.port = port
        self.filters = filters
        self.kwargs = client_kwargs
        self.messages: list[tuple[str, Any, bool]] = []
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    async def __aenter__(self) -> Observer:
        self._task = asyncio.create_task(self._run())
        await asyncio.wait_for(self._ready.wait(), 5)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task

    async def _run(self) -> None:
        async with aiomqtt.Client("127.0.0.1", self.port, **self.kwargs) as client:
            for f in self.filters:
                await client.subscribe(f, qos=1)
            self._ready.set()
            async for m in client.messages:
                raw = m.payload if isinstance(m.payload, bytes) else str(m.payload).encode()
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw
                self.messages.append((m.topic.value, body, bool(m.retain)))

    def on(self, suffix: str) -> list[Any]:
        return [b for t, b, _ in self.messages if t.endswith(suffix)]


async def until(pred: Callable[[], bool], timeout: float = 10.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or pred}")
        await asyncio.sleep(0.02)


async def publish(port: int, topic: str, payload: Any, **kwargs: Any) -> None:
    async with aiomqtt.Client("127.0.0.1", port, **kwargs) as c:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        await c.publish(topic, data, qos=1)
