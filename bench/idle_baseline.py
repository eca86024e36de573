"""The idle baseline of bench/run.py: a bare asyncio process holding an aiomqtt connection
and a pyserial-asyncio-fast reader on a pty (bytes read and dropped), doing nothing else.

    .venv/bin/python bench/idle_baseline.py --serial PTY --mqtt-port PORT
"""

from __future__ import annotations

import argparse
import asyncio
import sys

import aiomqtt
import serial_asyncio_fast


class _Drop(asyncio.Protocol):
    def __init__(self) -> None:
        self.n = 0

    def data_received(self, data: bytes) -> None:
        self.n += len(data)


async def main(port: str, mqtt_port: int) -> None:
    loop = asyncio.get_running_loop()
    transport, _ = await serial_asyncio_fast.create_serial_connection(
        loop, _Drop, port, baudrate=115200
    )
    try:
        async with aiomqtt.Client("127.0.0.1", mqtt_port, identifier="bench-idle-baseline",
                                  keepalive=15):  # fmt: skip
            print("ready", flush=True)
            await asyncio.Event().wait()
    finally:
        transport.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--serial", required=True)
    ap.add_argument("--mqtt-port", type=int, required=True)
    a = ap.parse_args()
    try:
        asyncio.run(main(a.serial, a.mqtt_port))
    except KeyboardInterrupt:
        sys.exit(0)
