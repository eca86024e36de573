"""A virtual contactless card for the vsmartcard ``vpcd`` reader driver of pcscd.

vpcd (``/etc/reader.conf.d/vpcd``, ``DEVICENAME /dev/null:0x8C7B``) listens on TCP port
35963 (one port per slot: 35963, 35964); a virtual ICC connects to it as a client. Every
message either way is a 2-byte big-endian length followed by the payload (vsmartcard
``vpcd.c`` sendToVICC/recvFromVICC). A 1-byte payload from vpcd is a control message:
0x00 power off, 0x01 power on, 0x02 reset (no answer), 0x04 get ATR (answered with the
ATR). Anything longer is a command APDU, answered with an R-APDU. vpcd asks for the ATR on
every presence poll; a closed connection is a removed card.

This card answers the PC/SC pseudo-APDU ``FF CA 00 00 00`` (GET DATA: UID) with its UID
and ``90 00``, like a contactless reader does for the tag in its field.

Threaded::

    card = VirtualCard(port=35963)
    card.insert("04A1B2C3")      # connect: the card is tapped
    card.remove()                # disconnect: the card is gone

or asyncio: ``AsyncVirtualCard`` with ``await insert(uid)`` / ``await remove()``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
import threading
import time

log = logging.getLogger(__name__)

VPCD_HOST = "127.0.0.1"
VPCD_PORT = 35963
CTRL_OFF = 0x00
CTRL_ON = 0x01
CTRL_RESET = 0x02
CTRL_ATR = 0x04

#: PC/SC part 3 ATR of a contactless storage card (MIFARE Classic 1K), as contactless
#: readers synthesise it; T=1.
DEFAULT_ATR = bytes.fromhex("3B8F8001804F0CA000000306030001000000006A")

SW_OK = b"\x90\x00"
SW_WRONG_P1P2 = b"\x6a\x81"  # function not supported
SW_INS_NOT_SUPPORTED = b"\x6d\x00"
SW_CLA_NOT_SUPPORTED = b"\x6e\x00"


def parse_uid(uid: bytes | str) -> bytes:
    """A UID from bytes or hex text (``"04:A1:B2:C3"``, ``"04a1b2c3"``)."""
    if isinstance(uid, str):
        uid = bytes.fromhex(uid.replace(":", "").replace(" ", ""))
    if not 1 <= len(uid) <= 10:
        raise ValueError(f"a UID is 4, 7 or 10 bytes, got {len(uid)}")
    return uid


def answer_apdu(uid: bytes, apdu: bytes) -> bytes:
    """The card's R-APDU for a command APDU."""
    if len(apdu) < 4:
        return b"\x67\x00"  # wrong length
    cla, ins, p1, p2 = apdu[:4]
    if cla != 0xFF:
        return SW_CLA_NOT_SUPPORTED
    if ins != 0xCA:
        return SW_INS_NOT_SUPPORTED
    if (p1, p2) != (0x00, 0x00):
        return SW_WRONG_P1P2  # 01 00 would be the ATS: not emulated
    le = apdu[4] if len(apdu) >= 5 else 0
    if le and le < len(uid):
        return bytes([0x6C, len(uid)])  # wrong Le: the exact length is ...
    return uid + SW_OK


class _Session:
    """The framing and control handling shared by the thread and asyncio cards."""

    def __init__(self, uid: bytes, atr: bytes) -> None:
        self.uid = uid
        self.atr = atr
        self.powered = False
        self.apdus: list[bytes] = []

    def handle(self, payload: bytes) -> bytes | None:
        if len(payload) == 1:
            ctrl = payload[0]
            if ctrl == CTRL_ATR:
                return self.atr
            if ctrl in (CTRL_ON, CTRL_RESET):
                self.powered = True
            elif ctrl == CTRL_OFF:
                self.powered = False
            else:
                log.warning("vpicc: unknown control message %#04x", ctrl)
            return None
        self.apdus.append(payload)
        return answer_apdu(self.uid, payload)


def frame(payload: bytes) -> bytes:
    return struct.pack("!H", len(payload)) + payload


class VirtualCard:
    """A virtual ICC on a background thread. One card at a time per instance (per slot)."""

    def __init__(
        self, host: str = VPCD_HOST, port: int = VPCD_PORT, atr: bytes = DEFAULT_ATR
    ) -> None:
        self.host = host
        self.port = port
        self.atr = atr
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._session: _Session | None = None
        self._lock = threading.Lock()

    @property
    def inserted(self) -> bool:
        return self._sock is not None

    @property
    def uid(self) -> bytes | None:
        return self._session.uid if self._session else None

    @property
    def apdus(self) -> list[bytes]:
        """Command APDUs the current card received."""
        return list(self._session.apdus) if self._session else []

    @property
    def powered(self) -> bool:
        return bool(self._session and self._session.powered)

    def insert(self, uid: bytes | str, timeout: float = 5.0) -> None:
        """Tap a card: connect to vpcd (retrying until ``timeout``; vpcd may still be
        starting). A card already on the reader is removed first."""
        self.remove()
        session = _Session(parse_uid(uid), self.atr)
        deadline = time.monotonic() + timeout
        while True:
            try:
                sock = socket.create_connection((self.host, self.port), timeout=1.0)
                break
            except OSError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)
        sock.settimeout(None)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._lock:
            self._sock, self._session = sock, session
            self._thread = threading.Thread(
                target=self._serve, args=(sock, session), name="vpicc", daemon=True
            )
            self._thread.start()

    def remove(self) -> None:
        """Take the card away: close the connection (vpcd then reports no card)."""
        with self._lock:
            sock, thread = self._sock, self._thread
            self._sock = self._thread = None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        if thread is not None and thread is not threading.current_thread():
            thread.join(5.0)

    def tap(self, uid: bytes | str, dwell_s: float = 1.0) -> None:
        """Insert, keep the card on the reader ``dwell_s``, remove."""
        self.insert(uid)
        time.sleep(dwell_s)
        self.remove()

    def close(self) -> None:
        self.remove()

    def __enter__(self) -> VirtualCard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _serve(self, sock: socket.socket, session: _Session) -> None:
        try:
            while True:
                header = _recv_exact(sock, 2)
                if header is None:
                    break
                (size,) = struct.unpack("!H", header)
                payload = _recv_exact(sock, size) if size else b""
                if payload is None:
                    break
                reply = session.handle(payload)
                if reply is not None:
                    sock.sendall(frame(reply))
        except OSError:
            pass  # removed (our shutdown) or vpcd went away
        finally:
            with self._lock:
                if self._sock is sock:  # vpcd closed on us: the card is no longer in
                    self._sock = None
                    self._thread = None
            with contextlib.suppress(OSError):
                sock.close()


def _recv_exact(sock: socket.socket, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


class AsyncVirtualCard:
    """The same card on asyncio streams (for hwsim scenarios running in a loop)."""

    def __init__(
        self, host: str = VPCD_HOST, port: int = VPCD_PORT, atr: bytes = DEFAULT_ATR
    ) -> None:
        self.host = host
        self.port = port
        self.atr = atr
        self._writer: asyncio.StreamWriter | None = None
        self._task: asyncio.Task[None] | None = None
        self._session: _Session | None = None

    @property
    def inserted(self) -> bool:
        return self._writer is not None

    @property
    def apdus(self) -> list[bytes]:
        return list(self._session.apdus) if self._session else []

    async def insert(self, uid: bytes | str, timeout: float = 5.0) -> None:
        await self.remove()
        session = _Session(parse_uid(uid), self.atr)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            try:
                reader, writer = await asyncio.open_connection(self.host, self.port)
                break
            except OSError:
                if loop.time() >= deadline:
                    raise
                await asyncio.sleep(0.05)
        self._writer, self._session = writer, session
        self._task = asyncio.create_task(self._serve(reader, writer, session))

    async def remove(self) -> None:
        writer, task = self._writer, self._task
        self._writer = self._task = None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, session: _Session
    ) -> None:
        try:
            while True:
                (size,) = struct.unpack("!H", await reader.readexactly(2))
                payload = await reader.readexactly(size) if size else b""
                reply = session.handle(payload)
                if reply is not None:
                    writer.write(frame(reply))
                    await writer.drain()
        except (asyncio.IncompleteReadError, OSError):
            if self._writer is writer:
                self._writer = None
