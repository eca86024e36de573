"""The board's side of docs/reader-protocol.md version 1: COBS, CRC-16, frames, bodies.

Written in the subset of Python that MicroPython runs unmodified (no typing, dataclasses,
enum or __future__ at run time; annotations are never evaluated there). The host's
``firmware_bridge.protocol`` is the other side of the same contract; the test vectors of
the doc are produced by this module in tests/reader_firmware/test_protocol_vectors.py.
"""

import struct

PROTOCOL_VERSION = 1

# message types, board to host
HELLO = 0x01
HEARTBEAT = 0x02
ANTENNA_STATE = 0x03
ERROR = 0x04
ACK = 0x05
# host to board
PING = 0x81
GET_SNAPSHOT = 0x82
SET_CONFIG = 0x83
RESET = 0x84
HOST_TYPES = (PING, GET_SNAPSHOT, SET_CONFIG, RESET)
BOARD_TYPES = (HELLO, HEARTBEAT, ANTENNA_STATE, ERROR, ACK)

# reset reasons (HELLO)
RESET_POWER_ON = 0
RESET_HOST = 1
RESET_WATCHDOG = 2
RESET_BROWNOUT = 3
RESET_FIRMWARE_UPDATE = 4
RESET_PANIC = 5

# ERROR codes
ERR_ANTENNA_INIT = 0x01
ERR_ANTENNA_TIMEOUT = 0x02
ERR_ANTENNA_RECOVERED = 0x03
ERR_RX_BAD_FRAME = 0x10
ERR_RX_UNKNOWN_TYPE = 0x11
ERR_TX_OVERFLOW = 0x12
# ERROR 0x10 details: what was wrong with the host's frame
DETAIL_CRC = 1
DETAIL_LAYOUT = 2
DETAIL_OVERSIZE = 3
DETAIL_VERSION = 4

# ACK status
ACK_OK = 0
ACK_REJECTED = 1
ACK_UNSUPPORTED = 2
ACK_BUSY = 3

NO_ANTENNA = 0xFF
FLAG_COLLISION = 0x01
FLAG_RSSI = 0x02
CONFIG_RSSI = 0x01
CONFIG_CHANGES_ONLY = 0x02
MAX_TAGS = 40
UID_LENGTHS = (4, 7, 8, 10)
MAX_FRAME = 512  # decoded: header 4 + body + CRC 2
MAX_ENCODED = 515  # COBS of 512 bytes
SEQ_MODULO = 65536


class ProtocolError(Exception):
    """A frame cannot be built or read; the message says what is wrong."""


def _crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC = _crc_table()


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, not reflected, no final XOR)."""
    table = _CRC
    for b in data:
        crc = ((crc << 8) & 0xFF00) ^ table[((crc >> 8) ^ b) & 0xFF]
    return crc


def cobs_encode(data: bytes) -> bytes:
    """COBS without the delimiter; a final block of exactly 254 bytes gets no trailing code."""
    out = bytearray()
    n = len(data)
    start = 0
    while True:
        end = start
        limit = min(start + 254, n)
        while end < limit and data[end] != 0:
            end += 1
        if end == limit and end - start == 254:  # a full block with no zero in it
            out.append(0xFF)
            out.extend(data[start:end])
            start = end
            if start == n:
                break
            continue
        out.append(end - start + 1)
        out.extend(data[start:end])
        if end >= n:
            break
        start = end + 1  # skip the zero the code byte stands for
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Undo :func:`cobs_encode` (no delimiter). Raises :class:`ProtocolError`."""
    n = len(data)
    if n == 0:
        raise ProtocolError("empty COBS frame")
    out = bytearray()
    i = 0
    while i < n:
        code = data[i]
        if code == 0:
            raise ProtocolError("0x00 inside a COBS frame at offset %d" % i)
        end = i + code
        if end > n:
            raise ProtocolError(
                "COBS code byte %d at offset %d runs past the end of the %d-byte frame"
                % (code, i, n)
            )
        for j in range(i + 1, end):
            if data[j] == 0:
                raise ProtocolError("0x00 inside a COBS frame at offset %d" % j)
        out.extend(data[i + 1 : end])
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def seal(msg_type: int, seq: int, body: bytes, version: int = PROTOCOL_VERSION) -> bytes:
    """Header + body + CRC (MSB first), COBS-encoded, then the 0x00 delimiter."""
    if not 0 <= seq < SEQ_MODULO:
        raise ProtocolError("sequence number %d is outside 0..65535" % seq)
    raw = struct.pack("<BBH", version, msg_type, seq) + body
    if len(raw) + 2 > MAX_FRAME:
        raise ProtocolError("frame of %d bytes exceeds %d" % (len(raw) + 2, MAX_FRAME))
    crc = crc16(raw)
    return cobs_encode(raw + bytes(((crc >> 8) & 0xFF, crc & 0xFF))) + b"\x00"


# ---- bodies, board to host ------------------------------------------------------------


def _u(value: int, bits: int, name: str) -> int:
    if not 0 <= value < (1 << bits):
        raise ProtocolError("%s=%d does not fit in %d bits" % (name, value, bits))
    return value


def hello_body(
    firmware: tuple[int, int, int], board_id: int, antenna_count: int, reset_reason: int
) -> bytes:
    return struct.pack(
        "<BBBBIBB",
        PROTOCOL_VERSION,
        _u(firmware[0], 8, "fw_major"),
        _u(firmware[1], 8, "fw_minor"),
        _u(firmware[2], 8, "fw_patch"),
        _u(board_id, 32, "board_id"),
        _u(antenna_count, 8, "antenna_count"),
        _u(reset_reason, 8, "reset_reason"),
    )


def heartbeat_body(uptime_ms: int, counters: list[int]) -> bytes:
    """``counters``: rx_crc_errors, rx_malformed, tx_dropped, scan_overruns, antenna_faults."""
    if len(counters) != 5:
        raise ProtocolError("HEARTBEAT takes 5 counters, got %d" % len(counters))
    vals = [uptime_ms % (1 << 32)] + [c % (1 << 32) for c in counters]
    return struct.pack("<IIIIII", *vals)


def state_body(
    antenna: int, cycle: int, tags: list[tuple[bytes, int]], collision: bool, rssi: bool
) -> bytes:
    """ANTENNA_STATE: ``tags`` as (uid, rssi) pairs; RSSI bytes only if ``rssi`` and tags."""
    if not 0 <= antenna < NO_ANTENNA:
        raise ProtocolError("antenna %d is outside 0..254" % antenna)
    if len(tags) > MAX_TAGS:
        raise ProtocolError("%d tags on antenna %d; at most %d fit" % (len(tags), antenna, 40))
    with_rssi = rssi and len(tags) > 0
    flags = (FLAG_COLLISION if collision else 0) | (FLAG_RSSI if with_rssi else 0)
    out = bytearray(struct.pack("<BIBB", antenna, _u(cycle, 32, "cycle"), flags, len(tags)))
    for uid, strength in tags:
        if len(uid) not in UID_LENGTHS:
            raise ProtocolError("tag UID of %d bytes; must be 4, 7, 8 or 10" % len(uid))
        out.append(len(uid))
        out.extend(uid)
        if with_rssi:
            out.append(_u(strength, 8, "rssi"))
    return bytes(out)


def error_body(code: int, antenna: int = NO_ANTENNA, detail: int = 0) -> bytes:
    return struct.pack(
        "<BBH", _u(code, 8, "code"), _u(antenna, 8, "antenna"), _u(detail, 16, "detail")
    )


def ack_body(acked_type: int, acked_seq: int, status: int = ACK_OK) -> bytes:
    return struct.pack("<BHB", acked_type, _u(acked_seq, 16, "acked_seq"), status)


# ---- host commands ----------------------------------------------------------------------


class Config:
    """The SET_CONFIG values (defaults after every reset)."""

    def __init__(
        self,
        scan_period_ms: int = 50,
        heartbeat_interval_ms: int = 1000,
        report_rssi: bool = True,
        changes_only: bool = False,
        full_refresh_cycles: int = 20,
    ) -> None:
        self.scan_period_ms = scan_period_ms
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.report_rssi = report_rssi
        self.changes_only = changes_only
        self.full_refresh_cycles = full_refresh_cycles

    def valid(self) -> bool:
        return (
            10 <= self.scan_period_ms <= 1000
            and 100 <= self.heartbeat_interval_ms <= 10000
            and 1 <= self.full_refresh_cycles <= 255
        )

    def body(self) -> bytes:
        flags = (CONFIG_RSSI if self.report_rssi else 0) | (
            CONFIG_CHANGES_ONLY if self.changes_only else 0
        )
        return struct.pack(
            "<HHBB",
            _u(self.scan_period_ms, 16, "scan_period_ms"),
            _u(self.heartbeat_interval_ms, 16, "heartbeat_interval_ms"),
            flags,
            _u(self.full_refresh_cycles, 8, "full_refresh_cycles"),
        )


def parse_config(body: bytes) -> Config:
    if len(body) != 6:
        raise ProtocolError("SET_CONFIG body is %d bytes; expected 6" % len(body))
    scan, beat, flags, refresh = struct.unpack("<HHBB", body)
    if flags & ~(CONFIG_RSSI | CONFIG_CHANGES_ONLY):
        raise ProtocolError(f"SET_CONFIG has reserved flag bits set: 0x{flags:02X}")
    return Config(scan, beat, bool(flags & CONFIG_RSSI), bool(flags & CONFIG_CHANGES_ONLY), refresh)


_BODY_SIZE = {PING: 0, GET_SNAPSHOT: 1, SET_CONFIG: 6, RESET: 0}


class Deframer:
    """Splits the host's byte stream at 0x00 and checks each frame.

    :meth:`feed` returns a list of items: ``("frame", type, seq, body)`` for an intact host
    command of protocol version 1, else ``("error", code, detail)`` with the ERROR code and
    detail the board reports (bad CRC, bad layout, oversized, other version, unknown type).
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._skipping = False

    def feed(self, data: bytes) -> list[tuple[object, ...]]:
        out: list[tuple[object, ...]] = []
        for b in data:
            if b == 0:
                if self._skipping:
                    self._skipping = False
                elif self._buf:
                    out.append(self._frame(bytes(self._buf)))
                self._buf = bytearray()
            elif not self._skipping:
                self._buf.append(b)
                if len(self._buf) > MAX_ENCODED:
                    self._buf = bytearray()
                    self._skipping = True
                    out.append(("error", ERR_RX_BAD_FRAME, DETAIL_OVERSIZE))
        return out

    def _frame(self, encoded: bytes) -> tuple[object, ...]:
        try:
            raw = cobs_decode(encoded)
        except ProtocolError:
            return ("error", ERR_RX_BAD_FRAME, DETAIL_LAYOUT)
        if len(raw) < 6 or len(raw) > MAX_FRAME:
            return ("error", ERR_RX_BAD_FRAME, DETAIL_LAYOUT)
        if crc16(raw) != 0:  # the CRC of an intact frame, CRC included, is 0
            return ("error", ERR_RX_BAD_FRAME, DETAIL_CRC)
        version, msg_type, seq = struct.unpack("<BBH", raw[:4])
        body = raw[4:-2]
        if version != PROTOCOL_VERSION:
            return ("error", ERR_RX_BAD_FRAME, DETAIL_VERSION)
        if msg_type not in HOST_TYPES:
            if msg_type & 0x80:
                return ("error", ERR_RX_UNKNOWN_TYPE, msg_type)
            return ("error", ERR_RX_BAD_FRAME, DETAIL_LAYOUT)  # a board message sent to us
        if len(body) != _BODY_SIZE[msg_type]:
            return ("error", ERR_RX_BAD_FRAME, DETAIL_LAYOUT)
        if msg_type == SET_CONFIG and body[4] & ~(CONFIG_RSSI | CONFIG_CHANGES_ONLY):
            return ("error", ERR_RX_BAD_FRAME, DETAIL_LAYOUT)  # reserved flag bits set
        return ("frame", msg_type, seq, body)
