"""The host end of the reader-board serial link (docs/reader-protocol.md), on asyncio.

:class:`SerialReaderLink` opens the first candidate port that opens (paths, globs such as
``/dev/serial/by-id/usb-railguard-*``, a udev symlink, or ``socket://host:port``) with
pyserial-asyncio-fast (its transport, with one read a wake-up: serial_transport.py), waits
for HELLO, tracks heartbeats, asks for a snapshot after a sequence gap, tells a stalled
board (port open, no heartbeat) from a vanished one (read error, port gone), and
reconnects with exponential backoff, rescanning the candidates each time. Snapshots, board
errors and status changes go to callbacks given at construction.

The daemon should depend on :class:`ReaderBoard` only, so that anything that speaks to a
reader board (this link over a real UART, over hwsim's pty or TCP) plugs in the same way.
That interface, the statuses, the config, the counters and the errors are in
:mod:`firmware_bridge.link_model` and are re-exported here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterator, Sequence

import serial

from controller.rules.errors import ConfigError
from firmware_bridge.link_model import (
    BoardFactory,
    CommandTimeout,
    ErrorConsumer,
    LinkConfig,
    LinkDown,
    LinkStats,
    LinkStatus,
    ReaderBoard,
    ReaderLinkError,
    SnapshotConsumer,
    StatusChange,
    StatusConsumer,
    expand_ports,
    hold_timer,
)
from firmware_bridge.protocol import (
    Ack,
    AckStatus,
    CrcError,
    DecodeResult,
    DuplicateFrame,
    ErrorReport,
    Frame,
    FrameDecoder,
    GetSnapshot,
    Heartbeat,
    Hello,
    HostMessage,
    MalformedFrame,
    OversizedFrame,
    Ping,
    Reset,
    SequenceGap,
    SetConfig,
    VersionMismatch,
    encode_frame,
)
from firmware_bridge.serial_transport import open_serial
from firmware_bridge.snapshots import AntennaSnapshot

# the link's vocabulary lives in link_model.py; callers import it from here as before
__all__ = [
    "BoardFactory",
    "CommandTimeout",
    "LinkConfig",
    "LinkDown",
    "LinkStats",
    "LinkStatus",
    "ReaderBoard",
    "ReaderLinkError",
    "SerialReaderLink",
    "StatusChange",
    "expand_ports",
]

log = logging.getLogger(__name__)

# the HELLO / stall timer fires this long after its deadline, so that the deadline has surely
# passed on the link's clock when it checks
CHECK_SLACK = 0.005  # seconds


class _LinkProtocol(asyncio.Protocol):
    def __init__(self, link: SerialReaderLink) -> None:
        self._link = link
        self.lost: asyncio.Future[Exception | None] = asyncio.get_running_loop().create_future()

    def data_received(self, data: bytes) -> None:
        self._link._on_data(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(exc)


class SerialReaderLink:
    """A :class:`ReaderBoard` over a serial port (or a ``socket://`` URL)."""

    def __init__(
        self,
        ports: str | Sequence[str],
        on_snapshot: SnapshotConsumer,
        *,
        on_status: StatusConsumer | None = None,
        on_error: ErrorConsumer | None = None,
        config: LinkConfig | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._patterns = [ports] if isinstance(ports, str) else list(ports)
        if not self._patterns:
            raise ConfigError("no reader-board port given")
        self._on_snapshot = on_snapshot
        self._on_status = on_status
        self._on_error = on_error
        self.config = config or LinkConfig()
        self._clock = clock
        self.stats = LinkStats()
        self._status = LinkStatus.OFFLINE
        self._status_event = asyncio.Event()
        self._hello: Hello | None = None
        self.last_heartbeat: Heartbeat | None = None
        self._port: str | None = None
        self._transport: asyncio.BaseTransport | None = None
        self._proto: _LinkProtocol | None = None
        self._decoder = FrameDecoder(clock=clock)
        self._tx_seq = 0
        self._pending: dict[int, tuple[type[HostMessage], asyncio.Future[Ack]]] = {}
        self._task: asyncio.Task[None] | None = None
        self._aux: set[asyncio.Task[object]] = set()
        self._last_heartbeat_t = 0.0
        self._hello_deadline = 0.0
        self._gap_request_t: float | None = None
        self._check: asyncio.TimerHandle | None = None  # the HELLO / stall deadline's timer
        self._reached_online = False
        # the frames of a read not yet handed on: the loop runs first when a snapshot gave it
        # work (an event for the core: SnapshotConsumer), see _hand_on
        self._rest: Iterator[list[DecodeResult]] | None = None
        self._resume: asyncio.Handle | None = None
        self._held: asyncio.TimerHandle | None = None  # the end of a hold (hold)

    # ---- public interface --------------------------------------------------------------

    @property
    def status(self) -> LinkStatus:
        return self._status

    @property
    def board_info(self) -> Hello | None:
        """The HELLO of the board on the current connection (None before it)."""
        return self._hello

    @property
    def receiving(self) -> bool:
        """Bytes of the board may be waiting: part of a frame has arrived and the rest has
        not (a long frame on a slow line), or reading is held (:meth:`hold`)."""
        return self._held is not None or self._decoder.buffered > 0

    def hold(self, seconds: float) -> None:
        """Read nothing from the port for ``seconds`` (ReaderBoard.hold). The port's reader
        is taken off the event loop; the board's bytes wait in the kernel's buffer (a
        pty's or the USB serial driver's, each far larger than a scan) and are read in one
        go when the hold ends. The frames of a read not yet handed on (``_hand_on``) wait
        for the end of the hold too."""
        transport = self._transport
        if seconds <= 0 or not isinstance(transport, asyncio.ReadTransport):
            return
        if transport.is_closing():
            return
        if self._held is None:
            transport.pause_reading()
            self.stats.holds += 1
        if self._resume is not None:  # the rest of the read: at the end of the hold
            self._resume.cancel()
            self._resume = None
        self._held = hold_timer(self._held, seconds, self._release)

    def _release(self) -> None:
        self._held = None
        transport = self._transport
        if isinstance(transport, asyncio.ReadTransport) and not transport.is_closing():
            transport.resume_reading()
        if self._rest is not None:
            self._resume_rest()

    def _cancel_hold(self) -> None:
        """The port lost or closed (the two ends of a session): no hold outlives its
        transport."""
        if self._held is not None:
            self._held.cancel()
            self._held = None

    @property
    def port(self) -> str | None:
        return self._port

    async def start(self) -> None:
        if self._task is not None:
            raise ReaderLinkError("the reader link is already started")
        self._task = asyncio.create_task(self._run(), name="reader-link")

    async def stop(self) -> None:
        """Stop reconnecting and close the port (waits until the fd is closed)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for aux in list(self._aux):
            aux.cancel()
        await self._close()

    async def __aenter__(self) -> SerialReaderLink:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def wait_status(self, *statuses: LinkStatus, timeout: float) -> LinkStatus:
        """Wait until the status is one of ``statuses``; raises TimeoutError naming the last."""
        try:
            async with asyncio.timeout(timeout):
                while self._status not in statuses:
                    self._status_event.clear()
                    await self._status_event.wait()
        except TimeoutError:
            wanted = ", ".join(s.name for s in statuses)
            raise TimeoutError(
                f"reader link still {self._status.name} after {timeout} s (wanted {wanted})"
            ) from None
        return self._status

    async def ping(self) -> Ack:
        return await self._command(Ping())

    async def request_snapshot(self, antenna: int | None = None) -> Ack:
        return await self._command(GetSnapshot(antenna))

    async def set_config(self, config: SetConfig) -> Ack:
        if problems := config.problems():
            raise ConfigError("invalid board config: " + "; ".join(problems))
        return await self._command(config)

    async def reset(self) -> Ack:
        return await self._command(Reset())

    # ---- connection management ---------------------------------------------------------

    async def _run(self) -> None:
        backoff = self.config.backoff_initial
        self._set_status(LinkStatus.CONNECTING, "opening the reader-board port")
        while True:
            port = await self._open_any()
            if port is None:
                tried = ", ".join(self._patterns)
                self._set_status(LinkStatus.OFFLINE, f"no reader-board port opens ({tried})")
            else:
                reached_online = await self._session(port)
                if reached_online:
                    backoff = self.config.backoff_initial
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, self.config.backoff_max)

    async def _open_any(self) -> str | None:
        loop = asyncio.get_running_loop()
        for port in expand_ports(self._patterns):
            try:
                transport, proto = await open_serial(
                    loop, lambda: _LinkProtocol(self), port, self.config.baudrate
                )
            except (serial.SerialException, OSError, ValueError) as e:
                log.debug("cannot open %s: %s", port, e, extra={"port": port})
                continue
            assert isinstance(proto, _LinkProtocol)
            self._transport, self._proto, self._port = transport, proto, port
            return port
        return None

    async def _session(self, port: str) -> bool:
        """Run one open port until it is lost; True if the board got ONLINE meanwhile."""
        assert self._proto is not None
        lost = self._proto.lost
        self.stats.connects += 1
        self._decoder = FrameDecoder(clock=self._clock)
        self._drop_rest()
        self._tx_seq = 0
        self._hello = None
        self._gap_request_t = None
        self._hello_deadline = self._clock() + self.config.hello_timeout
        self._reached_online = False
        log.info("reader port %s open, waiting for HELLO", port, extra={"port": port})
        self._set_status(LinkStatus.CONNECTING, f"{port} open, waiting for HELLO")
        self._arm_check()
        try:  # a cancellation ends here; stop() then closes the port
            await asyncio.wait([lost])
        finally:
            self._disarm_check()
        reached_online = self._reached_online
        exc = lost.result()
        self.stats.disconnects += 1
        self._fail_pending(LinkDown(f"reader port {port} closed"))
        self._cancel_hold()
        self._transport = self._proto = None
        self._hello = None
        why = f"{exc}" if exc is not None else "closed by the other end"
        log.warning("reader port %s lost: %s", port, why, extra={"port": port})
        self._set_status(LinkStatus.OFFLINE, f"{port} lost: {why}")
        self._port = None
        return reached_online

    async def _close(self) -> None:
        transport, proto = self._transport, self._proto
        self._transport = self._proto = None
        self._cancel_hold()
        if transport is not None and proto is not None:
            transport.close()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(2.0):
                    await proto.lost
        self._fail_pending(LinkDown("reader link stopped"))
        self._hello = None
        self._set_status(LinkStatus.OFFLINE, "reader link stopped")

    def _next_check(self) -> float | None:
        """When :meth:`_check_timers` next has something to decide (on the link's clock): the
        HELLO deadline, or when an online board's heartbeat would be overdue. None while
        only a frame can change the status (stalled, version mismatch)."""
        if self._status is LinkStatus.CONNECTING:
            return self._hello_deadline
        if self._status is LinkStatus.ONLINE:
            return self._last_heartbeat_t + self.config.stall_after
        return None

    def _arm_check(self) -> None:
        """One timer at the next deadline instead of polling: heartbeats do not re-arm it (the
        check re-arms from the newest one), a status change does."""
        self._disarm_check()
        due = self._next_check()
        if due is None or self._proto is None:
            return
        delay = max(0.0, due - self._clock()) + CHECK_SLACK
        self._check = asyncio.get_running_loop().call_later(delay, self._on_check)

    def _disarm_check(self) -> None:
        if self._check is not None:
            self._check.cancel()
            self._check = None

    def _on_check(self) -> None:
        self._check = None
        if self._port is None or self._proto is None or self._proto.lost.done():
            return
        try:
            self._check_timers(self._port)
        except LinkDown:
            return  # the port is closing: the session ends with it
        if self._check is None:  # (a status change in the check re-armed it already)
            self._arm_check()

    def _check_timers(self, port: str) -> None:
        now = self._clock()
        if self._status is LinkStatus.CONNECTING and now >= self._hello_deadline:
            log.warning(
                "no HELLO on %s within %.1f s, asking the board to reset",
                port,
                self.config.hello_timeout,
                extra={"port": port},
            )
            self._hello_deadline = now + self.config.hello_timeout
            self.stats.resets_sent += 1
            self._send(Reset())
        elif self._status is LinkStatus.ONLINE:
            silent = now - self._last_heartbeat_t
            if silent > self.config.stall_after:
                self._set_status(
                    LinkStatus.STALLED, f"no heartbeat for {silent:.1f} s, {port} still open"
                )

    # ---- sending -----------------------------------------------------------------------

    def _send(self, message: HostMessage) -> int:
        transport = self._transport
        if transport is None or transport.is_closing():
            raise LinkDown("no reader-board port is open")
        seq = self._tx_seq
        self._tx_seq = (self._tx_seq + 1) % 65536
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(encode_frame(message, seq))
        return seq

    async def _command(self, message: HostMessage) -> Ack:
        future: asyncio.Future[Ack] = asyncio.get_running_loop().create_future()
        seq = self._send(message)
        self._pending[seq] = (type(message), future)
        try:
            async with asyncio.timeout(self.config.command_timeout):
                ack = await future
        except TimeoutError:
            raise CommandTimeout(
                f"no ACK for {type(message).__name__} (seq {seq}) within "
                f"{self.config.command_timeout} s"
            ) from None
        finally:
            self._pending.pop(seq, None)
        if ack.status is not AckStatus.OK:
            log.warning("board answered %s with %s", type(message).__name__, ack.status.name)
        return ack

    def _fail_pending(self, error: ReaderLinkError) -> None:
        for _, future in self._pending.values():
            if not future.done():
                future.set_exception(error)
        self._pending.clear()

    def _background(self, message: HostMessage) -> None:
        async def run() -> None:
            with contextlib.suppress(ReaderLinkError):
                await self._command(message)

        task: asyncio.Task[object] = asyncio.create_task(run())
        self._aux.add(task)
        task.add_done_callback(self._aux.discard)

    # ---- receiving ---------------------------------------------------------------------

    def _on_data(self, data: bytes) -> None:
        if self._rest is not None:  # an earlier read's frames first, in order
            self._resume_rest()
        self._hand_on(self._decoder.results(data))

    def _hand_on(self, results: Iterator[list[DecodeResult]]) -> None:
        """Hand on each frame as soon as it is decoded. When a snapshot gave the loop work
        (an event queued for the rules core), the rest of the read waits for the loop's next
        turn: a card confirmed by a scan's third frame is judged before the other thirteen
        are decoded (firmware_bridge/antennas.py confirms it at its frame). The rest comes
        before anything read after it (``_on_data``)."""
        for batch in results:
            busy = False
            for item in batch:
                if isinstance(item, Frame):
                    busy = bool(self._on_frame(item)) or busy
                else:
                    self._on_issue(item)
            if busy:
                self._rest = results
                if self._held is None:  # (held: the rest comes at the hold's end)
                    self._resume = asyncio.get_running_loop().call_soon(self._resume_rest)
                return

    def _resume_rest(self) -> None:
        rest, self._rest = self._rest, None
        if self._resume is not None:
            self._resume.cancel()
            self._resume = None
        if rest is not None:
            self._hand_on(rest)

    def _drop_rest(self) -> None:
        """A new session: the old decoder's frames not handed on are dropped with it."""
        if self._resume is not None:
            self._resume.cancel()
        self._rest = self._resume = None

    def _on_issue(
        self,
        issue: CrcError
        | MalformedFrame
        | OversizedFrame
        | VersionMismatch
        | SequenceGap
        | DuplicateFrame,
    ) -> None:
        s = self.stats
        port = self._port
        if isinstance(issue, SequenceGap):
            s.sequence_gaps += 1
            s.frames_missed += issue.missed
            log.info("%s on %s", issue, port, extra={"port": port})
            if self._hello is not None:
                self._request_after_gap()
            return
        if isinstance(issue, VersionMismatch):
            s.version_mismatches += 1
            self._hello = None
            self._set_status(LinkStatus.VERSION_MISMATCH, f"{port}: {issue}")
            return
        if isinstance(issue, CrcError):
            s.crc_errors += 1
        elif isinstance(issue, MalformedFrame):
            s.malformed += 1
        elif isinstance(issue, OversizedFrame):
            s.oversized += 1
        else:
            s.duplicates += 1
        log.debug("%s on %s", issue, port, extra={"port": port})

    def _request_after_gap(self) -> None:
        now = self._clock()
        if (
            self._gap_request_t is not None
            and now - self._gap_request_t < self.config.command_timeout
        ):
            return  # one outstanding request heals every gap before its answer
        self._gap_request_t = now
        self.stats.gap_snapshot_requests += 1
        self._background(GetSnapshot(None))

    def _on_frame(self, frame: Frame) -> object:
        """Handle one frame; the snapshot consumer's result for a snapshot (else None)."""
        msg = frame.message
        now = self._clock()
        if isinstance(msg, Ack):
            entry = self._pending.get(msg.acked_seq)
            if entry is not None and not entry[1].done():
                entry[1].set_result(msg)
            if isinstance(entry, tuple) and entry[0] is GetSnapshot:
                self._gap_request_t = None
        elif isinstance(msg, Hello):
            self._on_hello(msg, now)
        elif self._hello is None:
            self.stats.dropped_before_hello += 1
        elif isinstance(msg, AntennaSnapshot):
            self.stats.snapshots += 1
            return self._on_snapshot(msg)
        elif isinstance(msg, Heartbeat):
            self.stats.heartbeats += 1
            self.last_heartbeat = msg
            self._last_heartbeat_t = now
            if self._status is LinkStatus.STALLED:
                self._set_status(LinkStatus.ONLINE, "heartbeat resumed")
        elif isinstance(msg, ErrorReport):
            where = "" if msg.antenna is None else f" on antenna {msg.antenna}"
            log.warning(
                "board error %s%s (detail 0x%04X)",
                msg.code.name,
                where,
                msg.detail,
                extra={"port": self._port, "code": msg.code.name, "antenna": msg.antenna},
            )
            if self._on_error is not None:
                self._on_error(msg)
        return None

    def _on_hello(self, hello: Hello, now: float) -> None:
        rebooted = self._hello is not None
        self._hello = hello
        self.stats.hellos += 1
        self._last_heartbeat_t = now
        desc = (
            f"board 0x{hello.board_id:08X} firmware {hello.firmware}, {hello.antenna_count} "
            f"antennas, reset reason {hello.reset_reason.name}"
        )
        if rebooted:
            self.stats.reboots += 1
            log.warning("reader board rebooted: %s", desc, extra={"port": self._port})
            self._set_status(LinkStatus.ONLINE, f"rebooted: {desc}", force=True)
        else:
            log.info("reader board online: %s", desc, extra={"port": self._port})
            self._set_status(LinkStatus.ONLINE, desc)
        if self.config.board_config is not None:
            self._background(self.config.board_config)

    def _set_status(self, status: LinkStatus, detail: str, *, force: bool = False) -> None:
        previous = self._status
        if status is previous and not force:
            return
        self._status = status
        self._status_event.set()
        if status is LinkStatus.ONLINE:
            self._reached_online = True
        if self._proto is not None:
            self._arm_check()
        change = StatusChange(status, previous, detail, self._port, self._clock())
        log.info(
            "reader link %s -> %s: %s",
            previous.name,
            status.name,
            detail,
            extra={"port": self._port, "status": status.value},
        )
        if self._on_status is not None:
            self._on_status(change)
