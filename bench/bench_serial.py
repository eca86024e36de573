"""Serial link latency: frame written on a pty -> AntennaSnapshot delivered to the consumer.

Beside it, in the same run, the bare pty round trip: the same bytes written on the master
end of the same kind of pty and read back from the slave fd by the event loop. The ratio
is what the link (pyserial-asyncio-fast, COBS, CRC, decode, dispatch) adds. One frame in
flight at a time; writer and reader share one process and one event loop.

And the same link reading its port as pyserial-asyncio-fast's own transport reads it
(``serial.Serial.read``: a ``select``, the read, another ``select``) instead of with one
``os.read`` a wake-up (firmware_bridge/serial_transport.py), alternated with it in blocks
of ``BLOCK`` frames: ``link_pyserial_read_*``.

    .venv/bin/python bench/bench_serial.py [--frames 5000]

The last line is a JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path

if __name__ == "__main__":  # run as a script: the checkout's packages first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import serial_asyncio_fast

from bench.hops import bare_pty, open_pty
from firmware_bridge.protocol import FirmwareVersion, Hello, ResetReason, encode_frame
from firmware_bridge.serial_link import LinkConfig, LinkStatus, SerialReaderLink
from firmware_bridge.serial_transport import PosixSerialTransport
from firmware_bridge.snapshots import AntennaSnapshot, TagRead

TAGS = (TagRead(bytes.fromhex("04a1b2c3d4e5f6"), 180), TagRead(bytes.fromhex("deadbeef"), 90))


BLOCK = 500  # frames of one kind of read before the other's


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def link_latency(frames: int) -> tuple[list[float], list[float], int, list[float]]:
    """Frames alternately read with one os.read a wake-up (the first list) and with pyserial's
    read (the second), ``BLOCK`` at a time, on one link and one pty; and this process's CPU
    seconds (``time.process_time``: the write, the wake-up, the read and the link) for each."""
    loop = asyncio.get_running_loop()
    master, slave, path = open_pty()
    arrived: dict[int, float] = {}
    waiter: asyncio.Future[None] | None = None

    def consume(snap: AntennaSnapshot) -> None:
        arrived[snap.cycle] = time.perf_counter()
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    link = SerialReaderLink(path, consume, config=LinkConfig(hello_timeout=5.0))
    await link.start()
    out: tuple[list[float], list[float]] = ([], [])
    cpu = [0.0, 0.0]
    size = 0
    fast = PosixSerialTransport._read_ready
    slow = serial_asyncio_fast.SerialTransport._read_ready
    try:
        await link.wait_status(LinkStatus.CONNECTING, timeout=5)
        await asyncio.sleep(0.05)  # let pyserial finish opening (it flushes its input)
        hello = Hello(1, FirmwareVersion(1, 0, 0), 1, 8, ResetReason.POWER_ON)
        os.write(master, b"\x00" + encode_frame(hello, 0))
        await link.wait_status(LinkStatus.ONLINE, timeout=5)
        for i in range(1, 2 * frames + 1):
            pyserial = (i - 1) // BLOCK % 2 == 1
            PosixSerialTransport._read_ready = slow if pyserial else fast  # type: ignore[method-assign]
            wire = encode_frame(AntennaSnapshot(0.0, i % 8, i, TAGS), i % 65536)
            size = len(wire)
            waiter = loop.create_future()
            c0 = time.process_time()
            t0 = time.perf_counter()
            os.write(master, wire)
            await waiter
            cpu[pyserial] += time.process_time() - c0
            out[pyserial].append(arrived[i] - t0)
    finally:
        PosixSerialTransport._read_ready = fast  # type: ignore[method-assign]
        await link.stop()
        os.close(slave)
        os.close(master)
    return out[0], out[1], size, cpu


async def main(frames: int) -> dict[str, float | int]:
    link, link_pyserial, size, cpu = await link_latency(frames)
    payload = encode_frame(AntennaSnapshot(0.0, 1, 1, TAGS), 1)
    bare = await bare_pty(frames, payload)
    result: dict[str, float | int] = {
        "frames": frames,
        "frame_bytes": size,
        "link_p50_us": round(statistics.median(link) * 1e6, 1),
        "link_p99_us": round(pct(link, 0.99) * 1e6, 1),
        "link_pyserial_read_p50_us": round(statistics.median(link_pyserial) * 1e6, 1),
        "link_pyserial_read_p99_us": round(pct(link_pyserial, 0.99) * 1e6, 1),
        # this process's CPU a frame (the write, the wake-up, the read, the link's decode)
        "cpu_per_frame_us": round(cpu[0] / len(link) * 1e6, 1),
        "cpu_per_frame_pyserial_read_us": round(cpu[1] / len(link_pyserial) * 1e6, 1),
        "pty_p50_us": round(statistics.median(bare) * 1e6, 1),
        "pty_p99_us": round(pct(bare, 0.99) * 1e6, 1),
    }
    result["ratio_p50"] = round(result["link_p50_us"] / result["pty_p50_us"], 2)
    result["ratio_p99"] = round(result["link_p99_us"] / result["pty_p99_us"], 2)
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=5000)
    args = parser.parse_args()
    if args.frames < 1:
        parser.error("--frames must be at least 1")
    r = asyncio.run(main(args.frames))
    print(f"{r['frames']} frames of {r['frame_bytes']} bytes, one in flight")
    print(f"{'':24}{'p50 us':>10}{'p99 us':>10}")
    print(f"{'pty -> snapshot (link)':24}{r['link_p50_us']:>10}{r['link_p99_us']:>10}")
    print(f"{'  ... with pyserial read':24}{r['link_pyserial_read_p50_us']:>10}"
          f"{r['link_pyserial_read_p99_us']:>10}")  # fmt: skip
    print(f"{'bare pty round trip':24}{r['pty_p50_us']:>10}{r['pty_p99_us']:>10}")
    print(f"CPU a frame: {r['cpu_per_frame_us']} us, with pyserial read "
          f"{r['cpu_per_frame_pyserial_read_us']} us")  # fmt: skip
    print(f"{'ratio':24}{r['ratio_p50']:>10}{r['ratio_p99']:>10}")
    print(json.dumps(r))
