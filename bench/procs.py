"""Shared by the benches: a timestamping MQTT subscriber that also sends venue commands,
a polling wait, and percentiles. The daemon as its own process is the simulated table's
(``hwsim.table.SimTable`` with ``process=True``; ``hwsim.table.railguard_argv`` is the
command that runs ``railguard``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
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
        self.keep = True  # keep every message in ``messages`` (for :meth:`on`)
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
                if self.keep:
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


class ProcSubscriber(Subscriber):
    """The same subscriber in a process of its own (bench/sub_process.py): each message is
    stamped there on arrival and handed on here with that stamp. For latency figures: an
    in-process subscriber shares this process's event loop with the simulated board and the
    bench, and reads nothing while they run. Commands (:meth:`Subscriber.command`) go out
    from this process; their responses come back through the subscriber."""

    def __init__(self, port: int, filters: list[str], host: str = "127.0.0.1") -> None:
        super().__init__(port, filters, host)
        self._proc: asyncio.subprocess.Process | None = None
        self._lines: asyncio.Task[None] | None = None
        self._pub: Client | None = None

    async def start(self, timeout: float = 5.0) -> None:
        self._proc = await asyncio.create_subprocess_exec(
            sys.executable, str(ROOT / "bench" / "sub_process.py"), str(self.port),
            *self.filters, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert self._proc.stdout is not None
        try:
            first = await asyncio.wait_for(self._proc.stdout.readline(), timeout)
        except TimeoutError:
            first = b""
        if json.loads(first or b"null") != "ready":
            await self.stop()
            raise RuntimeError(f"subscriber process could not connect to {self.port}")
        self._lines = asyncio.create_task(self._read(self._proc.stdout))

    async def _read(self, stdout: asyncio.StreamReader) -> None:
        while line := await stdout.readline():
            t, topic, body = json.loads(line)
            if self.keep:
                self.messages.append((t, topic, body))
            if self.on_message is not None:
                self.on_message(t, topic, body)

    async def command(self, base: str, cmd: str, timeout: float = 5.0, **args: Any) -> Any:
        if self._pub is None:
            self._pub = Client(self.host, self.port, identifier=f"bench-cmd-{uuid.uuid4().hex[:8]}")
            await self._pub.__aenter__()
        self.client = self._pub
        return await super().command(base, cmd, timeout, **args)

    async def stop(self) -> None:
        if self._pub is not None:
            with contextlib.suppress(aiomqtt.MqttError):
                await self._pub.__aexit__(None, None, None)
            self._pub = None
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.stdin is not None:
                proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), 5)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        if self._lines is not None:
            self._lines.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._lines
            self._lines = None


async def wait_for(cond: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)
