"""Card on the felt to its first ANTENNA_STATE at the host, through the emulated board on a
pty (realtime: each cycle takes its modelled air time). Not a test (no timing assertion):
``python -m reader_firmware.emulation.latency`` prints the figures docs/reader-board.md
quotes.

A 16-antenna table, default configuration (50 ms scan period). A dealer pitches two rounds
of hole cards to antennas 0..5 (one card every 0.3 s): in the first round the schedule has
not learned the order yet, in the second it has. Then cards laid on random antennas of the
now busy table (two cards on each hole antenna, five on the board antenna).
"""

from __future__ import annotations

import asyncio
import random
import statistics

import serial

from firmware_bridge.protocol import Frame, FrameDecoder
from firmware_bridge.snapshots import AntennaSnapshot
from reader_firmware.emulation.host import FirmwareBoard


async def _first_read(port: serial.Serial, dec: FrameDecoder, uid: bytes) -> float:
    loop = asyncio.get_running_loop()
    start = loop.time()
    while True:
        for item in dec.feed(port.read(65536)):
            msg = item.message if isinstance(item, Frame) else None
            if isinstance(msg, AntennaSnapshot) and any(t.uid == uid for t in msg.tags):
                return (loop.time() - start) * 1000
        await asyncio.sleep(0.001)


async def measure(seed: int = 1) -> dict[str, list[float]]:
    rng = random.Random(seed)
    board = FirmwareBoard(16)
    port = serial.Serial(await board.start_pty(), timeout=0)
    dec = FrameDecoder()
    out: dict[str, list[float]] = {"first round": [], "second round (learned)": [],
                                   "anywhere, busy table": []}  # fmt: skip
    n = 0

    async def lay(antenna: int, key: str) -> None:
        nonlocal n
        n += 1
        uid = b"\xe0\x04" + n.to_bytes(6, "big")
        await asyncio.sleep(rng.uniform(0.25, 0.35))
        port.read(65536)  # what came before
        board.place(antenna, uid)
        out[key].append(await _first_read(port, dec, uid))

    try:
        await asyncio.sleep(0.3)
        for key in ("first round", "second round (learned)"):
            for seat in range(6):
                await lay(seat, key)
        for _ in range(5):
            await lay(6, "anywhere, busy table")  # the board's five cards
        for _ in range(10):
            await lay(rng.randrange(7, 16), "anywhere, busy table")
    finally:
        port.close()
        await board.stop()
    return out


def main() -> None:
    for key, ms in asyncio.run(measure()).items():
        print(f"{key}: n={len(ms)} p50 {statistics.median(ms):.0f} ms, max {max(ms):.0f} ms")


if __name__ == "__main__":
    main()
