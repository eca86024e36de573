"""The floor of the reader's path, shared by the bench scripts: the bare pty hop (bytes written
on a pty's master until the event loop has read them from the slave), against which the
serial link and the whole daemon are measured in the same run."""

from __future__ import annotations

import asyncio
import os
import time
import tty


def open_pty() -> tuple[int, int, str]:
    """A raw pty: (master fd, slave fd, slave path)."""
    master, slave = os.openpty()
    tty.setraw(slave)
    return master, slave, os.ttyname(slave)


async def bare_pty(n: int, payload: bytes) -> list[float]:
    """Write ``payload`` on a pty's master ``n`` times, one at a time, and return the seconds
    until the loop had read all of it from the slave."""
    loop = asyncio.get_running_loop()
    master, slave, _ = open_pty()
    os.set_blocking(slave, False)
    got = bytearray()
    done: asyncio.Future[None] | None = None

    def readable() -> None:
        got.extend(os.read(slave, 4096))
        if done is not None and len(got) >= len(payload) and not done.done():
            done.set_result(None)

    loop.add_reader(slave, readable)
    out = []
    try:
        for _ in range(n):
            got.clear()
            done = loop.create_future()
            t0 = time.perf_counter()
            os.write(master, payload)
            await done
            out.append(time.perf_counter() - t0)
    finally:
        loop.remove_reader(slave)
        os.close(slave)
        os.close(master)
    return out
