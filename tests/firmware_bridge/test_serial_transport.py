"""firmware_bridge/serial_transport.py: the reader board's port opened with one ``os.read`` a
wake-up (a real pty and pyserial): what the board writes arrives whole and in order, an
empty read (the board gone) or a read error closes the transport with pyserial's
``SerialException`` (the link then sees the board gone), and a ``socket://`` URL keeps
pyserial-asyncio-fast's TCP transport."""

from __future__ import annotations

import asyncio
import os
import pty
import tty

import serial
from bounded import run

from firmware_bridge.serial_transport import PosixSerialTransport, open_serial


class Recorder(asyncio.Protocol):
    def __init__(self) -> None:
        self.data = bytearray()
        self.lost: asyncio.Future[Exception | None] = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        self.data += data

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost.set_result(exc)


async def _pty_transport() -> tuple[int, PosixSerialTransport, Recorder]:
    master, slave = pty.openpty()
    tty.setraw(master)
    os.set_blocking(master, False)
    name = os.ttyname(slave)
    os.close(slave)
    loop = asyncio.get_running_loop()
    transport, proto = await open_serial(loop, Recorder, name, 115200)
    assert isinstance(transport, PosixSerialTransport) and isinstance(proto, Recorder)
    return master, transport, proto


def test_bytes_arrive_whole_and_in_order_and_writing_works() -> None:
    async def main() -> None:
        master, transport, proto = await _pty_transport()
        try:
            sent = bytearray()
            for i in range(200):
                chunk = bytes([i % 256]) * (1 + i % 40)
                os.write(master, chunk)
                sent += chunk
                if i % 7 == 0:
                    await asyncio.sleep(0)
            async with asyncio.timeout(5):
                while len(proto.data) < len(sent):
                    await asyncio.sleep(0.005)
            assert bytes(proto.data) == bytes(sent)
            transport.write(b"to the board")  # writing is pyserial-asyncio-fast's, as before
            async with asyncio.timeout(5):
                while True:
                    try:
                        if os.read(master, 100) == b"to the board":
                            break
                    except BlockingIOError:
                        await asyncio.sleep(0.005)
        finally:
            transport.close()
            await proto.lost
            os.close(master)

    run(main())


def test_the_board_gone_closes_with_serial_exception() -> None:
    """The pty's master closed (the board unplugged): the slave is readable and its read
    is empty, which pyserial calls a device gone from an open port."""

    async def main() -> None:
        master, transport, proto = await _pty_transport()
        os.close(master)
        exc = await proto.lost
        assert isinstance(exc, serial.SerialException) and "no data" in str(exc), exc
        assert transport.is_closing()

    run(main())


def test_a_read_error_closes_with_serial_exception() -> None:
    async def main() -> None:
        master, transport, proto = await _pty_transport()
        r, w = os.pipe()
        real = transport._fd
        transport._fd = w  # a read of the write end fails (EBADF): as a port's read error
        try:
            transport._read_ready()
            exc = await proto.lost
        finally:
            transport._fd = real
            os.close(r)
            os.close(w)
            os.close(master)
        assert isinstance(exc, serial.SerialException) and "read failed" in str(exc), exc

    run(main())


def test_a_socket_url_keeps_the_tcp_transport() -> None:
    async def main() -> None:
        got = bytearray()

        async def board(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            writer.write(b"hello over tcp")
            await writer.drain()
            got.extend(await reader.read(100))
            writer.close()

        server = await asyncio.start_server(board, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        loop = asyncio.get_running_loop()
        transport, proto = await open_serial(loop, Recorder, f"socket://127.0.0.1:{port}", 115200)
        assert isinstance(proto, Recorder) and not isinstance(transport, PosixSerialTransport)
        transport.write(b"ack")
        await proto.lost
        assert bytes(proto.data) == b"hello over tcp" and bytes(got) == b"ack"
        server.close()
        await server.wait_closed()

    run(main())
