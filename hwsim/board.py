"""A simulated reader board speaking docs/reader-protocol.md, device side.

It runs inside an asyncio loop and is driven from Python. Transports: a pty (the board holds
the master end and publishes the slave path, optionally behind a udev-like symlink) or a TCP
server (connect with ``serial_for_url("socket://host:port")``; the board "powers up", i.e.
sends HELLO, when a client connects, like a board powered by its USB cable).

Report policy: by default every live antenna's ANTENNA_STATE every scan cycle; SET_CONFIG's
``changes_only`` switches to changed antennas plus a full refresh every N cycles.

Physical effects per antenna (:class:`AntennaEffects`): flicker (a tag missing for one
cycle), crosstalk (a tag also seen weakly on the neighbouring antennas), stacked cards (one
of two or more tags missed, with or without the collision flag) and slow removal (a removed
tag keeps being reported for ``removal_lag_s``). Faults: byte-level ones in
:attr:`SimBoard.faults` (hwsim.faults), and methods for sequence skips and duplicates,
reboot, stall, unplug/replug, a dead antenna and a wrong protocol version.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import os
import random
import tty
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from firmware_bridge.protocol import (
    HOST_TO_BOARD,
    MAX_TAGS,
    PROTOCOL_VERSION,
    Ack,
    AckStatus,
    CrcError,
    ErrorCode,
    ErrorReport,
    FirmwareVersion,
    Frame,
    FrameDecoder,
    GetSnapshot,
    Heartbeat,
    Hello,
    MalformedFrame,
    Message,
    Ping,
    Reset,
    ResetReason,
    SetConfig,
    VersionMismatch,
    encode_frame,
)
from firmware_bridge.snapshots import AntennaSnapshot, TagRead
from hwsim.faults import ByteFaults

log = logging.getLogger(__name__)

DEFAULT_FIRMWARE = FirmwareVersion(1, 0, 0)
TX_BUFFER_LIMIT = 16 * 1024  # bytes waiting for the host; beyond that frames are dropped


class StackMode(enum.Enum):
    NONE = "none"  # stacked cards all read
    COLLISION = "collision"  # one tag missed, collision flag set
    MISS = "miss"  # one tag missed silently


@dataclass
class AntennaEffects:
    flicker: float = 0.0  # probability per tag per cycle of being missed for that cycle
    crosstalk: float = 0.0  # probability per tag per cycle of also showing on each neighbour
    crosstalk_rssi: int = 20
    stack: StackMode = StackMode.NONE
    stack_prob: float = 1.0  # probability per cycle that a stack of 2+ tags misreads
    removal_lag_s: float = 0.0  # a removed tag keeps being reported this long


@dataclass
class _Tag:
    uid: bytes
    rssi: int
    until: float | None = None  # set when removed slowly: reported until this loop time


@dataclass
class _Antenna:
    tags: dict[bytes, _Tag] = field(default_factory=dict)
    effects: AntennaEffects = field(default_factory=AntennaEffects)
    dead: bool = False
    last_sent: tuple[frozenset[bytes], bool] | None = None


@dataclass
class BoardCounters:
    rx_crc_errors: int = 0
    rx_malformed: int = 0
    tx_dropped: int = 0
    scan_overruns: int = 0
    antenna_faults: int = 0
    frames_sent: int = 0
    boots: int = 0


class SimBoard:
    """The device side of a reader board. Start it with :meth:`start_pty` or :meth:`start_tcp`."""

    def __init__(
        self,
        antenna_count: int = 8,
        *,
        board_id: int = 0x52470001,
        firmware: FirmwareVersion = DEFAULT_FIRMWARE,
        config: SetConfig | None = None,
        seed: int = 0,
        protocol_version: int = PROTOCOL_VERSION,
    ) -> None:
        if not 1 <= antenna_count <= 254:
            raise ValueError(f"antenna_count={antenna_count} is outside 1..254")
        self.antenna_count = antenna_count
        self.board_id = board_id
        self.firmware = firmware
        self.default_config = config or SetConfig()
        if problems := self.default_config.problems():
            raise ValueError("invalid board config: " + "; ".join(problems))
        self.config = self.default_config
        self.protocol_version = protocol_version
        self.faults = ByteFaults()
        self.counters = BoardCounters()
        self.commands: list[Frame] = []  # every host command received, in order
        self.cycle = 0
        self._rng = random.Random(seed)
        self._antennas = [_Antenna() for _ in range(antenna_count)]
        self._seq = 0
        self._skip = 0
        self._duplicate = 0
        self._stalled = False
        self._heartbeats_stalled = False
        self._boot_time = 0.0
        self._decoder = FrameDecoder(accept=HOST_TO_BOARD)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: list[asyncio.Task[None]] = []
        # pty transport
        self._master: int | None = None
        self._slave: int | None = None
        self._symlink: Path | None = None
        self._tx = bytearray()
        self.path: str | None = None
        # tcp transport
        self._server: asyncio.Server | None = None
        self._client: asyncio.StreamWriter | None = None
        self.url: str | None = None
        # in-process transport: messages handed to the host as objects (hwsim.inprocess)
        self._sink: Callable[[Message | None], None] | None = None
        self._command_event = asyncio.Event()

    # ---- lifecycle ---------------------------------------------------------------------

    async def start_pty(self, symlink: str | Path | None = None) -> str:
        """Plug in over a new pty; returns the slave path (or ``symlink``, made to point at it)."""
        self._start_common()
        return self._open_pty(symlink)

    async def start_tcp(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Listen on TCP; returns a ``socket://host:port`` URL for pyserial's serial_for_url."""
        self._start_common()
        self._server = await asyncio.start_server(self._on_client, host, port)
        bound = self._server.sockets[0].getsockname()
        self.url = f"socket://{bound[0]}:{bound[1]}"
        return self.url

    async def start_inprocess(self, sink: Callable[[Message | None], None]) -> None:
        """Plug in without a wire: every message goes to ``sink`` as an object (no bytes, no
        byte faults; ``None`` when it is unplugged); the host's commands come in through
        :meth:`command`."""
        if self._loop is None:
            self._start_common()
        self._sink = sink
        log.info("hwsim board plugged in in-process")
        self._boot(ResetReason.POWER_ON)

    def command(self, seq: int, message: Message) -> None:
        """A host command handed over in-process (as a decoded frame would be)."""
        self._on_command(Frame(seq, message))

    async def stop(self) -> None:
        """Stop every task and close every fd and socket the board holds."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        self.unplug()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> SimBoard:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def _start_common(self) -> None:
        if self._loop is not None:
            raise RuntimeError("the board is already started")
        self._loop = asyncio.get_running_loop()
        self._tasks = [
            asyncio.create_task(self._scan_loop(), name="hwsim-scan"),
            asyncio.create_task(self._heartbeat_loop(), name="hwsim-heartbeat"),
        ]

    def _now(self) -> float:
        assert self._loop is not None, "the board is not started"
        return self._loop.time()

    # ---- pty transport -----------------------------------------------------------------

    def _open_pty(self, symlink: str | Path | None) -> str:
        assert self._loop is not None
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.path = os.ttyname(slave)
        self._loop.add_reader(master, self._pty_readable)
        published = self.path
        if symlink is not None:
            self._symlink = Path(symlink)
            self._symlink.unlink(missing_ok=True)
            self._symlink.symlink_to(self.path)
            published = str(self._symlink)
        log.info("hwsim board plugged in at %s", published)
        self._boot(ResetReason.POWER_ON)
        return published

    def _pty_readable(self) -> None:
        assert self._master is not None
        try:
            data = os.read(self._master, 4096)
        except BlockingIOError:
            return
        except OSError:  # no slave open (EIO): nobody is listening
            return
        self._on_bytes(data)

    def _pty_write(self, data: bytes) -> None:
        if self._master is None:
            return
        if len(self._tx) + len(data) > TX_BUFFER_LIMIT:
            self.counters.tx_dropped += 1  # a UART drops, it does not queue forever
            return
        was_empty = not self._tx
        self._tx += data
        if was_empty:
            self._pty_flush()

    def _pty_flush(self) -> None:
        if self._master is None or self._loop is None:
            return
        try:
            n = os.write(self._master, self._tx)
        except BlockingIOError:
            n = 0
        except OSError:
            self._tx.clear()
            return
        del self._tx[:n]
        if self._tx:
            self._loop.add_writer(self._master, self._pty_writable)
        else:
            self._loop.remove_writer(self._master)

    def _pty_writable(self) -> None:
        self._pty_flush()

    def unplug(self) -> None:
        """Pull the cable: close the pty (the host sees a read error) or drop the TCP client."""
        if self._master is not None:
            if self._loop is not None:
                self._loop.remove_reader(self._master)
                self._loop.remove_writer(self._master)
            os.close(self._master)
            self._master = None
            self._tx.clear()
            log.info("hwsim board unplugged from %s", self.path)
        if self._slave is not None:
            os.close(self._slave)
            self._slave = None
        if self._symlink is not None:
            self._symlink.unlink(missing_ok=True)
            self._symlink = None
        if self._client is not None:
            self._client.close()
            self._client = None
        sink, self._sink = self._sink, None
        if sink is not None:
            sink(None)  # the in-process host sees the cable go
            log.info("hwsim board unplugged (in-process)")

    def replug(self, symlink: str | Path | None = None) -> str:
        """Plug back in over a fresh pty (a new path); the board powers up again."""
        self.unplug()
        return self._open_pty(symlink)

    # ---- tcp transport -----------------------------------------------------------------

    async def _on_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self._client is not None:
            self._client.close()
        self._client = writer
        self._boot(ResetReason.POWER_ON)
        try:
            while data := await reader.read(4096):
                self._on_bytes(data)
        except (ConnectionError, OSError):
            pass
        finally:
            if self._client is writer:
                self._client = None
            writer.close()

    def _tcp_write(self, data: bytes) -> None:
        if self._client is None or self._client.is_closing():
            return
        if self._client.transport.get_write_buffer_size() > TX_BUFFER_LIMIT:
            self.counters.tx_dropped += 1
            return
        self._client.write(data)

    # ---- output ------------------------------------------------------------------------

    def _emit(self, data: bytes) -> None:
        if self._master is not None:
            self._pty_write(data)
        elif self._client is not None:
            self._tcp_write(data)

    def _send(self, message: Message) -> None:
        if self._stalled:
            return
        if self._skip:
            self._seq = (self._seq + self._skip) % 65536
            self._skip = 0
        if self._sink is not None:
            self._seq = (self._seq + 1) % 65536
            self.counters.frames_sent += 1
            self._sink(message)
            return
        wire = encode_frame(message, self._seq, version=self.protocol_version)
        self._seq = (self._seq + 1) % 65536
        copies = 1
        if self._duplicate:
            self._duplicate -= 1
            copies = 2
        for _ in range(copies):
            self._emit(self.faults.apply(wire, self._rng))
            self.counters.frames_sent += 1

    def _boot(self, reason: ResetReason) -> None:
        self._seq = 0
        self.cycle = 0
        self.config = self.default_config
        self._boot_time = self._now()
        self._decoder = FrameDecoder(accept=HOST_TO_BOARD)
        self.counters = BoardCounters(boots=self.counters.boots + 1)
        self._stalled = self._heartbeats_stalled = False
        for ant in self._antennas:
            ant.last_sent = None
        self._emit(b"\x00")  # end whatever preceded the reset
        self._send(
            Hello(
                self.protocol_version,
                self.firmware,
                self.board_id,
                self.antenna_count,
                reason,
            )
        )
        for number, ant in enumerate(self._antennas):
            if ant.dead:
                self.counters.antenna_faults += 1
                self._send(ErrorReport(ErrorCode.ANTENNA_INIT_FAILED, number))

    # ---- scanning ----------------------------------------------------------------------

    def _read(self, number: int, now: float) -> AntennaSnapshot:
        ant = self._antennas[number]
        eff = ant.effects
        for uid in [u for u, t in ant.tags.items() if t.until is not None and t.until <= now]:
            del ant.tags[uid]
        present = list(ant.tags.values())
        seen = [t for t in present if not (eff.flicker and self._rng.random() < eff.flicker)]
        collision = False
        if (
            len(present) >= 2
            and seen
            and eff.stack is not StackMode.NONE
            and self._rng.random() < eff.stack_prob
        ):
            seen.pop(self._rng.randrange(len(seen)))
            collision = eff.stack is StackMode.COLLISION
        reads = [(t.uid, t.rssi) for t in seen]
        for nb in (number - 1, number + 1):
            if 0 <= nb < self.antenna_count:
                src = self._antennas[nb]
                for t in src.tags.values():
                    leak = src.effects.crosstalk
                    if leak and t.uid not in ant.tags and self._rng.random() < leak:
                        reads.append((t.uid, src.effects.crosstalk_rssi))
        if len(reads) > MAX_TAGS:
            reads, collision = reads[:MAX_TAGS], True
        rssi = self.config.report_rssi
        tags = tuple(TagRead(uid, r if rssi else None) for uid, r in reads)
        return AntennaSnapshot(0.0, number, self.cycle, tags, collision)

    def _report(self, numbers: range | list[int], *, force: bool) -> None:
        now = self._now()
        for number in numbers:
            ant = self._antennas[number]
            if ant.dead:
                continue
            snap = self._read(number, now)
            key = (frozenset(t.uid for t in snap.tags), snap.collision)
            refresh = self.cycle % self.config.full_refresh_cycles == 0
            if force or not self.config.changes_only or refresh or key != ant.last_sent:
                ant.last_sent = key
                self._send(snap)

    async def _scan_loop(self) -> None:
        assert self._loop is not None
        deadline = self._loop.time()
        while True:
            period = self.config.scan_period_ms / 1000
            deadline += period
            delay = deadline - self._loop.time()
            if delay < -period:
                self.counters.scan_overruns += 1
                deadline = self._loop.time()
            await asyncio.sleep(max(0.0, delay))
            self.cycle = (self.cycle + 1) % (1 << 32)
            if self._port_open():
                self._report(range(self.antenna_count), force=False)

    async def _heartbeat_loop(self) -> None:
        while True:
            await asyncio.sleep(self.config.heartbeat_interval_ms / 1000)
            if self._port_open() and not self._heartbeats_stalled:
                c = self.counters
                uptime = int((self._now() - self._boot_time) * 1000) % (1 << 32)
                self._send(
                    Heartbeat(
                        uptime,
                        c.rx_crc_errors,
                        c.rx_malformed,
                        c.tx_dropped,
                        c.scan_overruns,
                        c.antenna_faults,
                    )
                )

    def _port_open(self) -> bool:
        return self._master is not None or self._client is not None or self._sink is not None

    # ---- host commands -----------------------------------------------------------------

    def _on_bytes(self, data: bytes) -> None:
        for item in self._decoder.feed(data):
            if isinstance(item, Frame):
                self._on_command(item)
            elif isinstance(item, CrcError):
                self.counters.rx_crc_errors += 1
                self._send(ErrorReport(ErrorCode.RX_BAD_FRAME, None, 1))
            elif isinstance(item, MalformedFrame | VersionMismatch):
                self.counters.rx_malformed += 1
                self._send(ErrorReport(ErrorCode.RX_BAD_FRAME, None, 2))

    def _on_command(self, frame: Frame) -> None:
        self.commands.append(frame)
        self._command_event.set()
        if self._stalled:
            return
        msg = frame.message
        kind = frame.type
        if isinstance(msg, Ping):
            self._send(Ack(kind, frame.seq))
        elif isinstance(msg, GetSnapshot):
            if msg.antenna is not None and msg.antenna >= self.antenna_count:
                self._send(Ack(kind, frame.seq, AckStatus.REJECTED))
                return
            self._send(Ack(kind, frame.seq))
            wanted = range(self.antenna_count) if msg.antenna is None else [msg.antenna]
            self._report(wanted, force=True)
        elif isinstance(msg, SetConfig):
            if msg.problems():
                self._send(Ack(kind, frame.seq, AckStatus.REJECTED))
                return
            self.config = msg
            self._send(Ack(kind, frame.seq))
        elif isinstance(msg, Reset):
            self._send(Ack(kind, frame.seq))
            self._boot(ResetReason.HOST_REQUEST)

    async def wait_command(self, kind: type[Message], timeout: float = 2.0) -> Frame:
        """Wait until a host command of ``kind`` has been received (also one received before)."""
        async with asyncio.timeout(timeout):
            while True:
                for frame in self.commands:
                    if isinstance(frame.message, kind):
                        return frame
                self._command_event.clear()
                await self._command_event.wait()

    # ---- the physical table ------------------------------------------------------------

    def _antenna(self, number: int) -> _Antenna:
        if not 0 <= number < self.antenna_count:
            raise ValueError(f"antenna {number} is outside 0..{self.antenna_count - 1}")
        return self._antennas[number]

    def place(self, antenna: int, uid: bytes, rssi: int = 180) -> None:
        """Put a tagged card or chip on ``antenna``."""
        if len(uid) not in (4, 7, 8, 10):
            raise ValueError(f"tag UID of {len(uid)} bytes; must be 4, 7, 8 or 10")
        if not 0 <= rssi <= 255:
            raise ValueError(f"rssi={rssi} is outside 0..255")
        self._antenna(antenna).tags[bytes(uid)] = _Tag(bytes(uid), rssi)

    def remove(self, antenna: int, uid: bytes) -> None:
        """Take a tag off ``antenna``; with a removal lag it keeps being reported that long."""
        ant = self._antenna(antenna)
        tag = ant.tags.get(bytes(uid))
        if tag is None:
            raise KeyError(f"tag {bytes(uid).hex()} is not on antenna {antenna}")
        if ant.effects.removal_lag_s > 0 and self._loop is not None:
            tag.until = self._now() + ant.effects.removal_lag_s
        else:
            del ant.tags[tag.uid]

    def tags_on(self, antenna: int) -> list[bytes]:
        return list(self._antenna(antenna).tags)

    def effects(self, antenna: int) -> AntennaEffects:
        """The (mutable) physical effects of ``antenna``."""
        return self._antenna(antenna).effects

    # ---- faults ------------------------------------------------------------------------

    def skip_sequence(self, count: int = 1) -> None:
        """The next frame's sequence number jumps ahead by ``count`` (as if frames were lost)."""
        self._skip += count

    def duplicate_next(self, count: int = 1) -> None:
        """Send each of the next ``count`` frames twice with the same sequence number."""
        self._duplicate += count

    def reboot(self, reason: ResetReason = ResetReason.WATCHDOG) -> None:
        """Restart the firmware: HELLO with ``reason``, sequence numbers from 0, default config."""
        self._boot(reason)

    def stall(self) -> None:
        """Hang the firmware: the port stays open, nothing is sent or answered."""
        self._stalled = True

    def stall_heartbeats(self) -> None:
        """Only the heartbeat stops (the scan loop keeps reporting)."""
        self._heartbeats_stalled = True

    def resume(self) -> None:
        self._stalled = self._heartbeats_stalled = False

    def kill_antenna(self, antenna: int, detail: int = 0) -> None:
        """The antenna's reader chip dies: ERROR (ANTENNA_TIMEOUT), then no reads from it."""
        self._antenna(antenna).dead = True
        self.counters.antenna_faults += 1
        self._send(ErrorReport(ErrorCode.ANTENNA_TIMEOUT, antenna, detail))

    def revive_antenna(self, antenna: int) -> None:
        self._antenna(antenna).dead = False
        self._send(ErrorReport(ErrorCode.ANTENNA_RECOVERED, antenna))
