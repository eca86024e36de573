"""The reader link's vocabulary, apart from its machinery (serial_link.py): statuses and
their changes, the link's configuration and counters, its errors, the :class:`ReaderBoard`
interface the daemon depends on, and the expansion of candidate port patterns.
"""

from __future__ import annotations

import asyncio
import enum
import glob
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from controller.rules.errors import ConfigError, RailguardError
from firmware_bridge.protocol import Ack, ErrorReport, Hello, SetConfig
from firmware_bridge.snapshots import AntennaSnapshot


class LinkStatus(enum.Enum):
    CONNECTING = "connecting"  # a port is open, no HELLO yet
    ONLINE = "online"
    STALLED = "stalled"  # port open, no heartbeat for stall_intervals intervals
    OFFLINE = "offline"  # no port (never opened, read error, unplugged)
    VERSION_MISMATCH = "version_mismatch"  # the board speaks another protocol version


@dataclass(frozen=True, slots=True)
class StatusChange:
    """A status change; also sent with ``status == previous`` when an online board reboots."""

    status: LinkStatus
    previous: LinkStatus
    detail: str
    port: str | None
    t: float


@dataclass(frozen=True, slots=True)
class LinkConfig:
    baudrate: int = 115200
    hello_timeout: float = 0.5  # no HELLO this long after opening: send RESET
    heartbeat_interval: float = 1.0  # the board's; replaced by board_config's when set
    stall_intervals: int = 3
    backoff_initial: float = 0.1
    backoff_max: float = 5.0
    command_timeout: float = 1.0  # wait this long for an ACK
    board_config: SetConfig | None = None  # sent after every HELLO when given

    def __post_init__(self) -> None:
        problems = []
        for name in ("hello_timeout", "heartbeat_interval", "backoff_initial", "command_timeout"):
            if getattr(self, name) <= 0:
                problems.append(f"{name}={getattr(self, name)} must be > 0")
        if self.backoff_max < self.backoff_initial:
            problems.append(f"backoff_max={self.backoff_max} is below backoff_initial")
        if self.stall_intervals < 1:
            problems.append(f"stall_intervals={self.stall_intervals} must be >= 1")
        if self.board_config is not None:
            problems += self.board_config.problems()
        if problems:
            raise ConfigError("invalid reader link config: " + "; ".join(problems))

    @property
    def stall_after(self) -> float:
        hb = self.heartbeat_interval
        if self.board_config is not None:
            hb = self.board_config.heartbeat_interval_ms / 1000
        return hb * self.stall_intervals


@dataclass
class LinkStats:
    connects: int = 0
    disconnects: int = 0
    hellos: int = 0
    reboots: int = 0  # HELLO from a board that was already online
    heartbeats: int = 0
    snapshots: int = 0
    dropped_before_hello: int = 0
    gap_snapshot_requests: int = 0
    resets_sent: int = 0
    crc_errors: int = 0
    malformed: int = 0
    oversized: int = 0
    version_mismatches: int = 0
    sequence_gaps: int = 0
    frames_missed: int = 0
    duplicates: int = 0
    holds: int = 0  # reads held after an alert (ReaderBoard.hold)


class ReaderLinkError(RailguardError, RuntimeError):
    """A command could not be carried out on the reader link."""


class LinkDown(ReaderLinkError):
    """No port is open (or it closed while the command waited)."""


class CommandTimeout(ReaderLinkError, TimeoutError):
    """The board did not acknowledge a command in time."""


class ReaderBoard(Protocol):
    """What the daemon needs from a reader board, whatever carries it."""

    @property
    def status(self) -> LinkStatus: ...

    @property
    def board_info(self) -> Hello | None: ...

    @property
    def receiving(self) -> bool: ...

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def wait_status(self, *statuses: LinkStatus, timeout: float) -> LinkStatus: ...

    async def ping(self) -> Ack: ...

    async def request_snapshot(self, antenna: int | None = None) -> Ack: ...

    async def set_config(self, config: SetConfig) -> Ack: ...

    async def reset(self) -> Ack: ...

    def hold(self, seconds: float) -> None:
        """Take nothing more from the board for ``seconds`` (a hold already longer stays):
        what it sends meanwhile waits (in the port's buffer) and is handed on, in order,
        when the hold ends. The daemon holds the board briefly after writing an alert, so
        that the alert crosses to the broker before the rest of the scan is read."""


# A true result says the snapshot gave the loop work (an event queued for the rules core):
# a link that has more frames of the same read lets the loop run first (SerialReaderLink).
SnapshotConsumer = Callable[[AntennaSnapshot], object]
StatusConsumer = Callable[[StatusChange], None]
ErrorConsumer = Callable[[ErrorReport], None]


class BoardFactory(Protocol):
    """Makes the daemon's reader board, given where its snapshots, status changes and error
    reports go. The default is a :class:`~firmware_bridge.serial_link.SerialReaderLink` over
    the configured ports; the simulator passes an in-process board (as gpiozero takes a pin
    factory)."""

    def __call__(
        self,
        on_snapshot: SnapshotConsumer,
        *,
        on_status: StatusConsumer,
        on_error: ErrorConsumer,
    ) -> ReaderBoard: ...


def hold_timer(
    held: asyncio.TimerHandle | None, seconds: float, release: Callable[[], None]
) -> asyncio.TimerHandle:
    """The timer that ends a hold of ``seconds`` from now (``ReaderBoard.hold``): ``held``,
    the running hold's, if it ends later; else a new one calling ``release`` (``held``
    cancelled), so that a shorter hold never cuts a longer one short."""
    loop = asyncio.get_running_loop()
    until = loop.time() + seconds
    if held is not None:
        if held.when() >= until:
            return held
        held.cancel()
    return loop.call_at(until, release)


def expand_ports(patterns: Sequence[str]) -> list[str]:
    """Candidate ports now: URLs and plain paths as given, globs expanded (sorted)."""
    out: list[str] = []
    for pattern in patterns:
        if "://" not in pattern and any(c in pattern for c in "*?["):
            out.extend(sorted(glob.glob(pattern)))
        else:
            out.append(pattern)
    return list(dict.fromkeys(out))
