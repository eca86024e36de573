"""The simulated reader board in-process: a :class:`~firmware_bridge.link_model.ReaderBoard`
for the daemon that takes :class:`~hwsim.board.SimBoard`'s messages as objects, with no pty,
no bytes and no decoder in between.

    board = SimBoard(24, config=...)
    daemon = Daemon(cfg, pin_factory=..., board_factory=InProcessFactory(board, cfg.daemon_link))

What the daemon sees is what :class:`~firmware_bridge.serial_link.SerialReaderLink` would
hand it from the same board: HELLO brings the link online (and the configured SET_CONFIG is
sent), snapshots are stamped with the host's clock on arrival, error reports go to
``on_error``, a reboot is a status change to ``online`` again, and pulling the board
(:meth:`SimBoard.unplug`) takes the link offline. What it leaves out is what only a wire has:
byte faults, sequence gaps, stalls noticed by a missing heartbeat and reconnecting under a
new path. Tests of those use the pty (``SimTable(..., transport="pty")``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections import deque
from collections.abc import Callable

from firmware_bridge.link_model import (
    ErrorConsumer,
    LinkConfig,
    LinkDown,
    LinkStatus,
    SnapshotConsumer,
    StatusChange,
    StatusConsumer,
    hold_timer,
)
from firmware_bridge.protocol import (
    Ack,
    ErrorReport,
    GetSnapshot,
    Hello,
    Message,
    Ping,
    Reset,
    SetConfig,
)
from firmware_bridge.snapshots import AntennaSnapshot
from hwsim.board import SimBoard

PORT = "in-process"


class InProcessBoard:
    """The host side of an in-process :class:`SimBoard` (see the module docstring)."""

    def __init__(
        self,
        board: SimBoard,
        on_snapshot: SnapshotConsumer,
        *,
        on_status: StatusConsumer | None = None,
        on_error: ErrorConsumer | None = None,
        config: LinkConfig | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.board = board
        self._on_snapshot = on_snapshot
        self._on_status = on_status
        self._on_error = on_error
        self.config = config or LinkConfig()
        self._clock = clock
        self._status = LinkStatus.OFFLINE
        self._status_event = asyncio.Event()
        self._hello: Hello | None = None
        self._seq = 0
        self._acks: dict[int, Ack] = {}
        self.snapshots = 0
        self._held: asyncio.TimerHandle | None = None  # the end of a hold (hold)
        self._waiting: deque[Message | None] = deque()  # the board's messages held

    # ---- ReaderBoard -------------------------------------------------------------------

    @property
    def status(self) -> LinkStatus:
        return self._status

    @property
    def board_info(self) -> Hello | None:
        return self._hello

    @property
    def receiving(self) -> bool:
        return self._held is not None  # a message arrives whole; held ones wait

    def hold(self, seconds: float) -> None:
        """As the serial link holds its port (ReaderBoard.hold): the board's messages are
        kept and handed on, in order, when the hold ends; the answers to commands are not
        held (their callers wait for them, as the serial link's ACKs are read after it)."""
        if seconds <= 0 or self._status is LinkStatus.OFFLINE:
            return
        self._held = hold_timer(self._held, seconds, self._release)

    def _release(self) -> None:
        self._held = None
        while self._waiting and self._held is None:  # (a message handed on may hold again)
            self._deliver(self._waiting.popleft())

    async def start(self) -> None:
        self._set_status(LinkStatus.CONNECTING, "in-process board, waiting for HELLO")
        await self.board.start_inprocess(self._receive)

    async def stop(self) -> None:
        if self._held is not None:
            self._held.cancel()
            self._held = None
        self._waiting.clear()
        if self._status is not LinkStatus.OFFLINE:
            self.board.unplug()
        self._set_status(LinkStatus.OFFLINE, "reader link stopped")

    async def wait_status(self, *statuses: LinkStatus, timeout: float) -> LinkStatus:
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
        return self._command(Ping())

    async def request_snapshot(self, antenna: int | None = None) -> Ack:
        return self._command(GetSnapshot(antenna))

    async def set_config(self, config: SetConfig) -> Ack:
        return self._command(config)

    async def reset(self) -> Ack:
        return self._command(Reset())

    # ---- the board's messages ----------------------------------------------------------

    def _command(self, message: Ping | GetSnapshot | SetConfig | Reset) -> Ack:
        if self._status is LinkStatus.OFFLINE:
            raise LinkDown("the in-process board is unplugged")
        seq = self._seq
        self._seq = (seq + 1) % 65536
        self.board.command(seq, message)  # the board answers at once, through _receive
        ack = self._acks.pop(seq, None)
        if ack is None:
            raise LinkDown(f"the in-process board did not answer {type(message).__name__}")
        return ack

    def _receive(self, msg: Message | None) -> None:
        if isinstance(msg, Ack):
            self._acks[msg.acked_seq] = msg
        elif self._held is not None or self._waiting:
            self._waiting.append(msg)
        else:
            self._deliver(msg)

    def _deliver(self, msg: Message | None) -> None:
        if msg is None:
            self._hello = None
            self._set_status(LinkStatus.OFFLINE, "in-process board unplugged")
        elif isinstance(msg, Hello):
            rebooted = self._hello is not None
            self._hello = msg
            desc = f"in-process board, {msg.antenna_count} antennas, {msg.reset_reason.name}"
            self._set_status(LinkStatus.ONLINE, f"rebooted: {desc}" if rebooted else desc,
                             force=rebooted)  # fmt: skip
            if self.config.board_config is not None:
                asyncio.get_running_loop().call_soon(self._configure, self.config.board_config)
        elif self._hello is None:
            return
        elif isinstance(msg, AntennaSnapshot):
            self.snapshots += 1
            self._on_snapshot(dataclasses.replace(msg, t=self._clock()))
        elif isinstance(msg, ErrorReport) and self._on_error is not None:
            self._on_error(msg)

    def _configure(self, config: SetConfig) -> None:
        if self._status is LinkStatus.ONLINE:
            self._command(config)

    def _set_status(self, status: LinkStatus, detail: str, *, force: bool = False) -> None:
        previous = self._status
        if status is previous and not force:
            return
        self._status = status
        self._status_event.set()
        if self._on_status is not None:
            self._on_status(StatusChange(status, previous, detail, PORT, self._clock()))


class InProcessFactory:
    """A :class:`~firmware_bridge.link_model.BoardFactory`: the daemon's reader board is
    ``board``, in-process (``Daemon(cfg, board_factory=InProcessFactory(board, ...))``)."""

    def __init__(self, board: SimBoard, config: LinkConfig | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:  # fmt: skip
        self.board = board
        self.config = config
        self.clock = clock  # the daemon's (its Clock.monotonic): the snapshots' times
        self.made: InProcessBoard | None = None

    def __call__(
        self,
        on_snapshot: SnapshotConsumer,
        *,
        on_status: StatusConsumer,
        on_error: ErrorConsumer,
    ) -> InProcessBoard:
        self.made = InProcessBoard(self.board, on_snapshot, on_status=on_status,
                                   on_error=on_error, config=self.config,
                                   clock=self.clock)  # fmt: skip
        return self.made
