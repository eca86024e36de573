"""The floor of the reader's path, shared by the bench scripts: the bare pty hop (bytes written
on a pty's master until the event loop has read them from the slave, or until a process of
its own has) and the bare broker hop (publish -> receive through the broker), against which
the serial link and the whole daemon are measured in the same run."""

from __future__ import annotations

import asyncio
import os
import struct
import sys
import time
import tty
import uuid
from pathlib import Path

import aiomqtt

from bench.procs import ProcSubscriber
from controller.link.config import NODELAY
from controller.link.mqtt_client import Client


def open_pty() -> tuple[int, int, str]:
    """A raw pty: (master fd, slave fd, slave path)."""
    master, slave = os.openpty()
    tty.setraw(slave)
    return master, slave, os.ttyname(slave)


class PtyHop:
    """The bare pty hop, one sample at a time: ``payload`` written on a raw pty's master
    until the loop has read all of it from the slave."""

    def __init__(self, payload: bytes = b"\x00" * 30) -> None:
        self.payload = payload
        self.master, self.slave, _ = open_pty()
        os.set_blocking(self.slave, False)
        self.got = bytearray()
        self.done: asyncio.Future[None] | None = None
        asyncio.get_running_loop().add_reader(self.slave, self._readable)

    def _readable(self) -> None:
        self.got.extend(os.read(self.slave, 4096))
        done = self.done
        if done is not None and len(self.got) >= len(self.payload) and not done.done():
            done.set_result(None)

    async def sample(self) -> float:
        self.got.clear()
        self.done = asyncio.get_running_loop().create_future()
        t0 = time.perf_counter()
        os.write(self.master, self.payload)
        await self.done  # a pty loses nothing: no timeout (its timer would be measured too)
        return time.perf_counter() - t0

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.slave)
        os.close(self.slave)
        os.close(self.master)


async def bare_pty(n: int, payload: bytes) -> list[float]:
    """Write ``payload`` on a pty's master ``n`` times, one at a time, and return the seconds
    until the loop had read all of it from the slave (:class:`PtyHop`)."""
    hop = PtyHop(payload)
    try:
        return [await hop.sample() for _ in range(n)]
    finally:
        hop.close()


class ProcPtyHop:
    """The bare pty hop to another process, one sample at a time: ``payload`` written on a
    raw pty's master until a process of its own (bench/pty_process.py, blocking in ``read``)
    has read all of it from the slave; the moment is that process's stamp. The daemon is
    such a process: the board's frame wakes it, where :class:`PtyHop`'s reader is this
    process, already running."""

    def __init__(self, payload: bytes = b"\x00" * 30) -> None:
        self.payload = payload
        self.master, self._slave, self.path = open_pty()
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        script = Path(__file__).resolve().parent / "pty_process.py"
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, str(script), self.path, str(len(self.payload)),
            stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert self.proc.stdout is not None
        if await asyncio.wait_for(self.proc.stdout.readline(), 5) != b"ready\n":
            raise RuntimeError("the pty reader process did not start")
        os.close(self._slave)  # the reader holds it now
        self._slave = -1

    async def sample(self) -> float:
        assert self.proc is not None and self.proc.stdout is not None
        t0 = time.perf_counter()
        os.write(self.master, self.payload)
        raw = await asyncio.wait_for(self.proc.stdout.readexactly(8), 5)
        (t1,) = struct.unpack("d", raw)
        return float(t1) - t0

    async def stop(self) -> None:
        if self._slave >= 0:  # it never started
            os.close(self._slave)
        os.close(self.master)  # the reader sees EIO and stops
        if self.proc is not None:
            try:
                await asyncio.wait_for(self.proc.wait(), 5)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()


class BrokerHop:
    """The bare broker hop, one sample at a time: aiomqtt QoS 1 publish -> receive of a
    300-byte message (about an alert's size) through the broker, one message in flight."""

    def __init__(self, port: int, size: int = 300) -> None:
        self.port = port
        self.topic = f"bench/{uuid.uuid4().hex[:8]}"
        self.body = b"x" * size
        self.sub = ProcSubscriber(port, [self.topic])
        self.arrived: asyncio.Queue[float] = asyncio.Queue()
        self.sub.on_message = lambda t, _topic, _b: self.arrived.put_nowait(t)
        self.pub: aiomqtt.Client | None = None

    async def start(self) -> None:
        await self.sub.start()
        self.pub = Client("127.0.0.1", self.port, socket_options=NODELAY,
                                  identifier=f"bench-pub-{self.topic[-8:]}")  # fmt: skip
        await self.pub.__aenter__()

    async def sample(self) -> float:
        assert self.pub is not None
        t0 = time.perf_counter()
        await self.pub.publish(self.topic, self.body, qos=1)
        t1 = await asyncio.wait_for(self.arrived.get(), 5)
        return t1 - t0

    async def stop(self) -> None:
        if self.pub is not None:
            await self.pub.__aexit__(None, None, None)
        await self.sub.stop()


class Floor:
    """The floor's hops, sampled together after each event: the bare pty hop read in this
    process (:class:`PtyHop`) and read by a process of its own (:class:`ProcPtyHop`), and
    the bare broker hop (:class:`BrokerHop`)."""

    def __init__(self, port: int) -> None:
        self.pty, self.proc_pty, self.broker = PtyHop(), ProcPtyHop(), BrokerHop(port)

    async def start(self) -> None:
        await self.proc_pty.start()
        await self.broker.start()

    async def sample(self) -> tuple[float, float, float]:
        """One sample of each: (in-process pty hop, other-process pty hop, broker hop)."""
        return await self.pty.sample(), await self.proc_pty.sample(), await self.broker.sample()

    async def stop(self) -> None:
        self.pty.close()
        await self.proc_pty.stop()
        await self.broker.stop()
