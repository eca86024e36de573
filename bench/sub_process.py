"""The venue's subscriber in a process of its own, for the latency benches (bench/e2e.py):
``bench.procs.Subscriber`` stamping each message on arrival (``time.perf_counter``, the
system's CLOCK_MONOTONIC, which the bench and the daemon read too) and writing it to stdout,
one JSON array a line: ``[t, topic, body]`` (body parsed from JSON, else the payload's text).

A subscriber in the bench's own process shares its event loop with the simulated board, and
a message that arrives while the board writes a scan's frames (16 writes, one callback) is
not read, nor stamped, until the scan is written: the venue's subscriber is on another
machine, and the board is hardware of its own. It prints ``"ready"`` once subscribed and
stops when its stdin closes.

    python bench/sub_process.py PORT FILTER [FILTER...]
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: the checkout's packages first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.procs import Subscriber


async def main(port: int, filters: list[str]) -> None:
    sub = Subscriber(port, filters)
    sub.keep = False
    out = sys.stdout.buffer

    def on_message(t: float, topic: str, body: Any) -> None:
        if isinstance(body, bytes):
            body = body.decode("latin-1")
        out.write(json.dumps([t, topic, body]).encode() + b"\n")
        out.flush()

    sub.on_message = on_message
    await sub.start()
    out.write(b'"ready"\n')
    out.flush()
    try:  # until the bench closes our stdin
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.buffer.read)
    finally:
        await sub.stop()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2:]))
