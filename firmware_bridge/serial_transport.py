"""Opening the reader board's port as an asyncio transport, with one ``read`` per wake-up.

pyserial-asyncio-fast's transport reads through ``serial.Serial.read(1024)``, which on POSIX
is a ``select`` on the port (and pyserial's abort pipe), an ``os.read``, then another
``select`` to find that nothing more is there, with pyserial's ``Timeout`` objects around
them: on this machine about 16 µs a wake-up more than the ``os.read`` alone
(bench/bench_serial.py), and the board's link wakes the daemon for every frame it sends.
:class:`PosixSerialTransport` is that transport with its read made as asyncio's own pipe
transport makes it: one non-blocking ``os.read`` of what the kernel holds. A read error or
an empty read (a vanished device) closes it with the same ``SerialException`` pyserial
would raise, so the link sees an unplugged board as before. Everything else (the port's
settings, writing, pausing, closing) is pyserial-asyncio-fast's.

``socket://`` URLs and ports that are not a POSIX file descriptor keep pyserial-asyncio-fast's
own transports.
"""

from __future__ import annotations

import asyncio
import errno
import os
import urllib.parse
from collections.abc import Callable
from functools import partial

import serial
import serial_asyncio_fast

# as much as a read may take at once: a few hundred frames, far more than a scan
MAX_READ = 16384

_RETRY = (errno.EAGAIN, errno.EWOULDBLOCK)


class PosixSerialTransport(serial_asyncio_fast.SerialTransport):
    """pyserial-asyncio-fast's transport with one ``os.read`` per readable wake-up."""

    def __init__(self, loop: asyncio.AbstractEventLoop, protocol: asyncio.Protocol,
                 serial_instance: serial.Serial) -> None:  # fmt: skip
        super().__init__(loop, protocol, serial_instance)
        self._fd: int = serial_instance.fileno()

    def _read_ready(self) -> None:
        try:
            data = os.read(self._fd, MAX_READ)
        except OSError as e:
            if e.errno in _RETRY:
                # woken with nothing to read on a port set up otherwise than pyserial sets
                # it (VMIN above 0): nothing to hand on. (pyserial's VMIN 0 reads empty.)
                return
            self._close(exc=serial.SerialException(f"read failed: {e}"))
            return
        if not data:  # readable yet empty: pyserial's device gone from under an open port
            self._close(exc=serial.SerialException(
                "device reports readiness to read but returned no data "
                "(device disconnected or multiple access on port?)"))  # fmt: skip
            return
        self._protocol.data_received(data)


async def open_serial(
    loop: asyncio.AbstractEventLoop,
    protocol_factory: Callable[[], asyncio.Protocol],
    port: str,
    baudrate: int,
) -> tuple[asyncio.Transport, asyncio.Protocol]:
    """Open ``port`` (a device path or a pyserial URL) at ``baudrate``: a
    :class:`PosixSerialTransport` for a POSIX port, pyserial-asyncio-fast's transport
    otherwise. ``serial.SerialException``, ``OSError`` or ``ValueError`` if it cannot open."""
    if urllib.parse.urlparse(port).scheme == "socket":
        transport, protocol = await serial_asyncio_fast.create_serial_connection(
            loop, protocol_factory, port, baudrate=baudrate
        )
        return transport, protocol
    opened = await loop.run_in_executor(
        None, partial(serial.serial_for_url, port, baudrate=baudrate)
    )
    protocol = protocol_factory()
    fd = getattr(opened, "fd", None)
    if isinstance(fd, int) and fd >= 0:
        return PosixSerialTransport(loop, protocol, opened), protocol
    return serial_asyncio_fast.SerialTransport(loop, protocol, opened), protocol
