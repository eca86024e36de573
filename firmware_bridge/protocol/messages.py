"""The messages of the reader-board protocol, one frozen dataclass per kind.

ANTENNA_STATE is not defined here: it decodes straight to
:class:`firmware_bridge.snapshots.AntennaSnapshot`, the type the zone logic consumes.
Body layouts are in :mod:`firmware_bridge.protocol.wire` and docs/reader-protocol.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from firmware_bridge.snapshots import AntennaSnapshot


class MessageType(IntEnum):
    # board -> host
    HELLO = 0x01
    HEARTBEAT = 0x02
    ANTENNA_STATE = 0x03
    ERROR = 0x04
    ACK = 0x05
    # host -> board (high bit set)
    PING = 0x81
    GET_SNAPSHOT = 0x82
    SET_CONFIG = 0x83
    RESET = 0x84

    @property
    def from_host(self) -> bool:
        return bool(self.value & 0x80)


BOARD_TO_HOST = frozenset(t for t in MessageType if not t.from_host)
HOST_TO_BOARD = frozenset(t for t in MessageType if t.from_host)


class ResetReason(IntEnum):
    POWER_ON = 0
    HOST_REQUEST = 1  # after a RESET command
    WATCHDOG = 2
    BROWNOUT = 3
    FIRMWARE_UPDATE = 4
    PANIC = 5  # the firmware caught a fault and restarted itself


class ErrorCode(IntEnum):
    ANTENNA_INIT_FAILED = 0x01  # the antenna's reader chip did not start; no reads from it
    ANTENNA_TIMEOUT = 0x02  # the reader chip stopped answering during a scan
    ANTENNA_RECOVERED = 0x03  # a failed antenna works again
    RX_BAD_FRAME = 0x10  # the board got a host frame with a bad CRC or layout
    RX_UNKNOWN_TYPE = 0x11  # the board got a host message type it does not know
    TX_OVERFLOW = 0x12  # the board dropped frames because the UART could not keep up


class AckStatus(IntEnum):
    OK = 0
    REJECTED = 1  # a value was out of range; nothing changed
    UNSUPPORTED = 2  # the firmware does not implement this request
    BUSY = 3  # try again later


NO_ANTENNA = 0xFF  # "all antennas" in GET_SNAPSHOT, "not antenna-specific" in ERROR


@dataclass(frozen=True, slots=True)
class FirmwareVersion:
    major: int
    minor: int
    patch: int

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


@dataclass(frozen=True, slots=True)
class Hello:
    """Sent by the board once after every start or reset, with sequence number 0."""

    protocol_version: int
    firmware: FirmwareVersion
    board_id: int  # u32, unique per board (from the MCU's serial number)
    antenna_count: int  # antennas are numbered 0..antenna_count-1
    reset_reason: ResetReason


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """Sent every heartbeat interval (default 1000 ms). Counters are since the last reset."""

    uptime_ms: int
    rx_crc_errors: int = 0  # host frames with a bad CRC
    rx_malformed: int = 0  # host frames that decoded but made no sense
    tx_dropped: int = 0  # board frames dropped because the UART TX buffer was full
    scan_overruns: int = 0  # scan cycles that took longer than the scan period
    antenna_faults: int = 0  # antenna errors reported (ERROR frames with an antenna)


@dataclass(frozen=True, slots=True)
class ErrorReport:
    """An ERROR frame. ``antenna`` is None when the error is not about one antenna."""

    code: ErrorCode
    antenna: int | None = None
    detail: int = 0  # code-specific, e.g. the reader chip's status register


@dataclass(frozen=True, slots=True)
class Ack:
    """The board's answer to every host command, naming the command by type and sequence."""

    acked_type: MessageType
    acked_seq: int
    status: AckStatus = AckStatus.OK


@dataclass(frozen=True, slots=True)
class Ping:
    """Host asks for an ACK; nothing else happens."""


@dataclass(frozen=True, slots=True)
class GetSnapshot:
    """Host asks for an ANTENNA_STATE of one antenna, or of all (``antenna=None``), now."""

    antenna: int | None = None


@dataclass(frozen=True, slots=True)
class SetConfig:
    """Host sets the scan and report behaviour; the board falls back to these defaults on reset.

    ``changes_only``: send ANTENNA_STATE only for antennas whose tag set changed, plus every
    antenna every ``full_refresh_cycles`` cycles. Otherwise every antenna every cycle.
    """

    scan_period_ms: int = 50
    heartbeat_interval_ms: int = 1000
    report_rssi: bool = True
    changes_only: bool = False
    full_refresh_cycles: int = 20

    def problems(self) -> list[str]:
        """What is out of range (empty when the board would accept it)."""
        out = []
        if not 10 <= self.scan_period_ms <= 1000:
            out.append(f"scan_period_ms={self.scan_period_ms} is outside 10..1000")
        if not 100 <= self.heartbeat_interval_ms <= 10000:
            out.append(f"heartbeat_interval_ms={self.heartbeat_interval_ms} is outside 100..10000")
        if not 1 <= self.full_refresh_cycles <= 255:
            out.append(f"full_refresh_cycles={self.full_refresh_cycles} is outside 1..255")
        return out


@dataclass(frozen=True, slots=True)
class Reset:
    """Host asks the board to restart: ACK, then HELLO with reset reason HOST_REQUEST."""


BoardMessage = Hello | Heartbeat | AntennaSnapshot | ErrorReport | Ack
HostMessage = Ping | GetSnapshot | SetConfig | Reset
Message = BoardMessage | HostMessage

MESSAGE_TYPES: dict[type[object], MessageType] = {
    Hello: MessageType.HELLO,
    Heartbeat: MessageType.HEARTBEAT,
    AntennaSnapshot: MessageType.ANTENNA_STATE,
    ErrorReport: MessageType.ERROR,
    Ack: MessageType.ACK,
    Ping: MessageType.PING,
    GetSnapshot: MessageType.GET_SNAPSHOT,
    SetConfig: MessageType.SET_CONFIG,
    Reset: MessageType.RESET,
}


@dataclass(frozen=True, slots=True)
class Frame:
    """One decoded frame: the sender's sequence number and the message."""

    seq: int
    message: Message
    version: int = 1

    @property
    def type(self) -> MessageType:
        return MESSAGE_TYPES[type(self.message)]
