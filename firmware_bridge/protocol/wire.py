"""Message bodies on the wire: encode each message kind, and decode one frame strictly.

All integers little-endian except the CRC (see codec). Layouts: docs/reader-protocol.md.
"""

from __future__ import annotations

import struct
from typing import TypeVar

from firmware_bridge.protocol.codec import (
    PROTOCOL_VERSION,
    SUPPORTED_VERSIONS,
    EncodeError,
    FrameError,
    seal,
    unseal,
)
from firmware_bridge.protocol.messages import (
    MESSAGE_TYPES,
    NO_ANTENNA,
    Ack,
    AckStatus,
    ErrorCode,
    ErrorReport,
    FirmwareVersion,
    Frame,
    GetSnapshot,
    Heartbeat,
    Hello,
    Message,
    MessageType,
    Ping,
    Reset,
    ResetReason,
    SetConfig,
)
from firmware_bridge.snapshots import AntennaSnapshot, TagRead

HELLO = struct.Struct("<BBBBIBB")  # proto, fw major/minor/patch, board id, antennas, reason
HEARTBEAT = struct.Struct("<IIIIII")  # uptime ms + five counters
STATE_HEAD = struct.Struct("<BIBB")  # antenna, cycle, flags, tag count
ERROR = struct.Struct("<BBH")  # code, antenna (0xFF: none), detail
ACK = struct.Struct("<BHB")  # acked type, acked seq, status
GET_SNAPSHOT = struct.Struct("<B")  # antenna (0xFF: all)
SET_CONFIG = struct.Struct("<HHBB")  # scan ms, heartbeat ms, flags, full-refresh cycles

FLAG_COLLISION = 0x01
FLAG_RSSI = 0x02
CONFIG_RSSI = 0x01
CONFIG_CHANGES_ONLY = 0x02

UID_LENGTHS = frozenset({4, 7, 8, 10})  # ISO 14443A single/double/triple size; ISO 15693
MAX_TAGS = 40  # per ANTENNA_STATE: 11 + 40 * 12 + header and CRC stay under 512 bytes
MAX_ANTENNA = 0xFE  # 0xFF is reserved for "none/all"


class VersionError(FrameError):
    """The frame is intact but speaks a protocol version this side does not."""

    def __init__(self, got: int, msg_type: int) -> None:
        supported = ", ".join(str(v) for v in SUPPORTED_VERSIONS)
        super().__init__(
            f"frame speaks protocol version {got}; this side supports version {supported}"
        )
        self.got = got
        self.msg_type = msg_type


def _u(value: int, bits: int, name: str) -> int:
    if not 0 <= value < (1 << bits):
        raise EncodeError(f"{name}={value} does not fit in an unsigned {bits}-bit field")
    return value


def _antenna(value: int | None, name: str) -> int:
    if value is None:
        return NO_ANTENNA
    if not 0 <= value <= MAX_ANTENNA:
        raise EncodeError(f"{name}={value} is outside 0..{MAX_ANTENNA}")
    return value


def _encode_state(s: AntennaSnapshot) -> bytes:
    if len(s.tags) > MAX_TAGS:
        raise EncodeError(f"{len(s.tags)} tags on antenna {s.antenna}; at most {MAX_TAGS} fit")
    with_rssi = [t.rssi is not None for t in s.tags]
    if any(with_rssi) and not all(with_rssi):
        raise EncodeError("RSSI must be given for every tag of a snapshot or for none")
    rssi = bool(s.tags) and all(with_rssi)
    flags = (FLAG_COLLISION if s.collision else 0) | (FLAG_RSSI if rssi else 0)
    out = bytearray(
        STATE_HEAD.pack(
            _antenna(s.antenna, "antenna"), _u(s.cycle, 32, "cycle"), flags, len(s.tags)
        )
    )
    for tag in s.tags:
        if len(tag.uid) not in UID_LENGTHS:
            raise EncodeError(f"tag UID of {len(tag.uid)} bytes; must be 4, 7, 8 or 10")
        out.append(len(tag.uid))
        out += tag.uid
        if rssi:
            out.append(_u(tag.rssi or 0, 8, "rssi"))
    return bytes(out)


def encode_body(message: Message) -> bytes:
    """The body bytes of ``message`` (no header, no CRC). Raises :class:`EncodeError`."""
    match message:
        case Hello():
            fw = message.firmware
            return HELLO.pack(
                _u(message.protocol_version, 8, "protocol_version"),
                _u(fw.major, 8, "firmware.major"),
                _u(fw.minor, 8, "firmware.minor"),
                _u(fw.patch, 8, "firmware.patch"),
                _u(message.board_id, 32, "board_id"),
                _u(message.antenna_count, 8, "antenna_count"),
                message.reset_reason,
            )
        case Heartbeat():
            return HEARTBEAT.pack(
                _u(message.uptime_ms, 32, "uptime_ms"),
                _u(message.rx_crc_errors, 32, "rx_crc_errors"),
                _u(message.rx_malformed, 32, "rx_malformed"),
                _u(message.tx_dropped, 32, "tx_dropped"),
                _u(message.scan_overruns, 32, "scan_overruns"),
                _u(message.antenna_faults, 32, "antenna_faults"),
            )
        case AntennaSnapshot():
            return _encode_state(message)
        case ErrorReport():
            return ERROR.pack(
                message.code, _antenna(message.antenna, "antenna"), _u(message.detail, 16, "detail")
            )
        case Ack():
            return ACK.pack(
                message.acked_type, _u(message.acked_seq, 16, "acked_seq"), message.status
            )
        case GetSnapshot():
            return GET_SNAPSHOT.pack(_antenna(message.antenna, "antenna"))
        case SetConfig():
            flags = (CONFIG_RSSI if message.report_rssi else 0) | (
                CONFIG_CHANGES_ONLY if message.changes_only else 0
            )
            return SET_CONFIG.pack(
                _u(message.scan_period_ms, 16, "scan_period_ms"),
                _u(message.heartbeat_interval_ms, 16, "heartbeat_interval_ms"),
                flags,
                _u(message.full_refresh_cycles, 8, "full_refresh_cycles"),
            )
        case Ping() | Reset():
            return b""
    raise EncodeError(f"not a protocol message: {message!r}")


def encode_frame(message: Message, seq: int, *, version: int = PROTOCOL_VERSION) -> bytes:
    """Wire bytes for ``message`` with sequence number ``seq``: COBS frame + 0x00 delimiter."""
    return seal(version, MESSAGE_TYPES[type(message)], seq, encode_body(message))


def _exact(body: bytes, layout: struct.Struct, kind: MessageType) -> tuple[int, ...]:
    if len(body) != layout.size:
        raise FrameError(f"{kind.name} body is {len(body)} bytes; expected {layout.size}")
    return layout.unpack(body)


_E = TypeVar("_E", ResetReason, ErrorCode, AckStatus, MessageType)


def _enum(enum: type[_E], value: int, field: str) -> _E:
    try:
        return enum(value)
    except ValueError:
        raise FrameError(f"unknown {field} {value} (0x{value:02X})") from None


def _decode_state(body: bytes, t: float) -> AntennaSnapshot:
    if len(body) < STATE_HEAD.size:
        raise FrameError(f"ANTENNA_STATE body is {len(body)} bytes; at least 7 expected")
    antenna, cycle, flags, count = STATE_HEAD.unpack_from(body)
    if antenna == NO_ANTENNA:
        raise FrameError("ANTENNA_STATE names antenna 0xFF, which is reserved")
    if flags & ~(FLAG_COLLISION | FLAG_RSSI):
        raise FrameError(f"ANTENNA_STATE has reserved flag bits set: 0x{flags:02X}")
    if count > MAX_TAGS:
        raise FrameError(f"ANTENNA_STATE claims {count} tags; at most {MAX_TAGS} are allowed")
    rssi = bool(flags & FLAG_RSSI)
    tags = []
    pos = STATE_HEAD.size
    for i in range(count):
        if pos >= len(body):
            raise FrameError(f"ANTENNA_STATE ends before tag {i + 1} of {count}")
        n = body[pos]
        if n not in UID_LENGTHS:
            raise FrameError(f"tag {i + 1} has a UID length of {n}; must be 4, 7, 8 or 10")
        end = pos + 1 + n + (1 if rssi else 0)
        if end > len(body):
            raise FrameError(f"ANTENNA_STATE ends inside tag {i + 1} of {count}")
        uid = body[pos + 1 : pos + 1 + n]
        tags.append(TagRead(uid, body[end - 1] if rssi else None))
        pos = end
    if pos != len(body):
        raise FrameError(f"{len(body) - pos} stray bytes after the last tag of ANTENNA_STATE")
    if rssi and not tags:
        raise FrameError("ANTENNA_STATE sets the RSSI flag but carries no tag")
    return AntennaSnapshot(t, antenna, cycle, tuple(tags), bool(flags & FLAG_COLLISION))


def decode_body(msg_type: int, body: bytes, t: float = 0.0) -> Message:
    """Decode the body of a message of type ``msg_type``. Raises :class:`FrameError`."""
    kind = _enum(MessageType, msg_type, "message type")
    match kind:
        case MessageType.HELLO:
            proto, major, minor, patch, board_id, antennas, reason = _exact(body, HELLO, kind)
            if proto != PROTOCOL_VERSION:
                raise FrameError(
                    f"HELLO says protocol {proto} in a version {PROTOCOL_VERSION} frame"
                )
            return Hello(
                proto,
                FirmwareVersion(major, minor, patch),
                board_id,
                antennas,
                _enum(ResetReason, reason, "reset reason"),
            )
        case MessageType.HEARTBEAT:
            return Heartbeat(*_exact(body, HEARTBEAT, kind))
        case MessageType.ANTENNA_STATE:
            return _decode_state(body, t)
        case MessageType.ERROR:
            code, antenna, detail = _exact(body, ERROR, kind)
            return ErrorReport(
                _enum(ErrorCode, code, "error code"),
                None if antenna == NO_ANTENNA else antenna,
                detail,
            )
        case MessageType.ACK:
            acked, seq, status = _exact(body, ACK, kind)
            return Ack(
                _enum(MessageType, acked, "acknowledged type"),
                seq,
                _enum(AckStatus, status, "ACK status"),
            )
        case MessageType.GET_SNAPSHOT:
            (antenna,) = _exact(body, GET_SNAPSHOT, kind)
            return GetSnapshot(None if antenna == NO_ANTENNA else antenna)
        case MessageType.SET_CONFIG:
            scan, heartbeat, flags, refresh = _exact(body, SET_CONFIG, kind)
            if flags & ~(CONFIG_RSSI | CONFIG_CHANGES_ONLY):
                raise FrameError(f"SET_CONFIG has reserved flag bits set: 0x{flags:02X}")
            return SetConfig(
                scan,
                heartbeat,
                bool(flags & CONFIG_RSSI),
                bool(flags & CONFIG_CHANGES_ONLY),
                refresh,
            )
        case MessageType.PING | MessageType.RESET:
            if body:
                raise FrameError(f"{kind.name} body is {len(body)} bytes; expected 0")
            return Ping() if kind is MessageType.PING else Reset()
    raise FrameError(f"unhandled message type {kind!r}")  # pragma: no cover


def decode_frame(encoded: bytes | bytearray | memoryview, t: float = 0.0) -> Frame:
    """Decode one frame (without its 0x00 delimiter) strictly.

    Raises :class:`CrcMismatch`, :class:`VersionError` or :class:`FrameError`, each naming
    what is wrong. ``t`` becomes the ``t`` of an :class:`AntennaSnapshot`.
    """
    version, msg_type, seq, body = unseal(encoded)
    if version not in SUPPORTED_VERSIONS:
        raise VersionError(version, msg_type)
    return Frame(seq, decode_body(msg_type, body, t), version)
