"""hwsim.board seen from a bare host: a raw pty fd (or TCP socket) and the FrameDecoder."""

from __future__ import annotations

import asyncio
import os
import termios
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import pytest

from firmware_bridge.protocol import (
    Ack,
    AckStatus,
    CrcError,
    DuplicateFrame,
    ErrorCode,
    ErrorReport,
    Frame,
    FrameDecoder,
    GetSnapshot,
    Heartbeat,
    Hello,
    Message,
    Ping,
    Reset,
    ResetReason,
    SequenceGap,
    SetConfig,
    VersionMismatch,
    encode_frame,
)
from firmware_bridge.snapshots import AntennaSnapshot
from hwsim.board import SimBoard, StackMode

A = bytes.fromhex("04a1b2c3d4e5f6")
B = bytes.fromhex("deadbeef")
FAST = SetConfig(scan_period_ms=20, heartbeat_interval_ms=100)


def run(coro: Coroutine[Any, Any, None], timeout: float = 15.0) -> None:
    async def bounded() -> None:
        async with asyncio.timeout(timeout):
            await coro

    asyncio.run(bounded())


class RawHost:
    """Reads the board's slave pty with a plain fd: everything the decoder yields, in order."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        termios.tcflush(self.fd, termios.TCIFLUSH)
        self.decoder = FrameDecoder()
        self.items: list[object] = []
        self.seq = 0
        asyncio.get_running_loop().add_reader(self.fd, self._readable)

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, 4096)
        except OSError:
            return
        self.items += self.decoder.feed(data)

    def send(self, message: Message) -> None:
        os.write(self.fd, encode_frame(message, self.seq))
        self.seq += 1

    def messages(self, kind: type[object]) -> list[Any]:
        return [
            i.message for i in self.items if isinstance(i, Frame) and isinstance(i.message, kind)
        ]

    def snaps(self, antenna: int) -> list[AntennaSnapshot]:
        return [s for s in self.messages(AntennaSnapshot) if s.antenna == antenna]

    async def until(self, predicate: Callable[[], bool], timeout: float = 2.0) -> None:
        async with asyncio.timeout(timeout):
            while not predicate():
                await asyncio.sleep(0.01)

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.fd)
        os.close(self.fd)


def scenario(test: Callable[[SimBoard, RawHost], Awaitable[None]], **kw: Any) -> Callable[[], None]:
    def wrapper() -> None:
        async def main() -> None:
            board = SimBoard(4, config=FAST, seed=3, **kw)
            host = RawHost(await board.start_pty())
            try:
                host.send(Reset())  # opening flushed the power-on HELLO
                await host.until(lambda: bool(host.messages(Hello)))
                await test(board, host)
            finally:
                host.close()
                await board.stop()

        run(main())

    wrapper.__name__ = test.__name__
    return wrapper


@scenario
async def test_every_antenna_every_cycle_with_heartbeats(board: SimBoard, host: RawHost) -> None:
    (hello,) = host.messages(Hello)
    assert hello.reset_reason is ResetReason.HOST_REQUEST and hello.antenna_count == 4
    board.place(1, A, rssi=99)
    await host.until(lambda: len(host.messages(Heartbeat)) >= 2)
    for antenna in range(4):
        cycles = [s.cycle for s in host.snaps(antenna)]
        assert len(cycles) >= 5 and cycles == sorted(cycles)
    assert any(s.tags and s.tags[0].uid == A and s.tags[0].rssi == 99 for s in host.snaps(1))
    assert not any(isinstance(i, SequenceGap | CrcError) for i in host.items)


@scenario
async def test_commands_are_acknowledged(board: SimBoard, host: RawHost) -> None:
    host.send(Ping())
    host.send(GetSnapshot(2))
    host.send(SetConfig(scan_period_ms=5))
    host.send(SetConfig(scan_period_ms=40, heartbeat_interval_ms=200, changes_only=True))
    await host.until(lambda: len(host.messages(Ack)) >= 5)
    acks = host.messages(Ack)[1:]  # the first acknowledged the RESET
    assert [(a.acked_seq, a.status) for a in acks] == [
        (1, AckStatus.OK),
        (2, AckStatus.OK),
        (3, AckStatus.REJECTED),
        (4, AckStatus.OK),
    ]
    assert board.config.changes_only and board.config.scan_period_ms == 40


@scenario
async def test_changes_only_reports_changes_and_refreshes(board: SimBoard, host: RawHost) -> None:
    host.send(
        SetConfig(
            scan_period_ms=20, heartbeat_interval_ms=100, changes_only=True, full_refresh_cycles=10
        )
    )
    await host.until(lambda: board.config.changes_only)
    await asyncio.sleep(0.1)
    host.items.clear()
    await asyncio.sleep(0.5)  # 25 cycles: 2 or 3 full refreshes, no change
    assert 2 <= len(host.snaps(0)) <= 4
    board.place(0, A)
    await host.until(lambda: any(s.tags for s in host.snaps(0)))


@scenario
async def test_flicker_stack_crosstalk_and_slow_removal(board: SimBoard, host: RawHost) -> None:
    board.effects(0).stack = StackMode.COLLISION
    board.place(0, A)
    board.place(0, B)
    board.effects(2).crosstalk = 1.0
    board.place(2, A)
    board.effects(3).flicker = 0.5
    board.place(3, B)
    await asyncio.sleep(0.4)
    assert all(s.collision and len(s.tags) == 1 for s in host.snaps(0))
    assert any(s.tags and s.tags[0].rssi == 20 and s.tags[0].uid == A for s in host.snaps(1))
    counts = {sum(t.uid == B for t in s.tags) for s in host.snaps(3)}
    assert counts == {0, 1}  # seen, gone, seen
    board.effects(2).removal_lag_s = 0.3
    board.remove(2, A)
    t0 = asyncio.get_running_loop().time()
    await host.until(lambda: not host.snaps(2)[-1].tags)
    lag = asyncio.get_running_loop().time() - t0
    assert 0.25 < lag < 0.6


@scenario
async def test_sequence_and_byte_faults(board: SimBoard, host: RawHost) -> None:
    host.items.clear()
    board.skip_sequence(4)
    await asyncio.sleep(0.1)
    gaps = [i for i in host.items if isinstance(i, SequenceGap)]
    assert len(gaps) == 1 and gaps[0].missed == 4
    board.duplicate_next()
    await asyncio.sleep(0.1)
    assert any(isinstance(i, DuplicateFrame) for i in host.items)
    board.faults.flip_bits(3)
    await asyncio.sleep(0.1)
    assert host.decoder.stats.crc_errors + host.decoder.stats.malformed >= 3
    assert board.faults.applied["bit_flip"] == 3


@scenario
async def test_dead_antenna_and_reboot(board: SimBoard, host: RawHost) -> None:
    board.kill_antenna(2)
    await asyncio.sleep(0.05)
    host.items.clear()
    board.reboot(ResetReason.WATCHDOG)
    await asyncio.sleep(0.2)
    at = next(n for n, i in enumerate(host.items) if isinstance(i, Frame) and i.seq == 0)
    hello = host.items[at]
    assert isinstance(hello, Frame) and isinstance(hello.message, Hello)
    assert hello.message.reset_reason is ResetReason.WATCHDOG
    after = [i.message for i in host.items[at:] if isinstance(i, Frame)]
    assert after[1] == ErrorReport(ErrorCode.ANTENNA_INIT_FAILED, 2)
    read = {m.antenna for m in after if isinstance(m, AntennaSnapshot)}
    assert read == {0, 1, 3}


@scenario
async def test_wrong_version_and_stall(board: SimBoard, host: RawHost) -> None:
    board.stall()
    await asyncio.sleep(0.05)
    host.items.clear()
    await asyncio.sleep(0.3)
    assert host.items == []
    board.protocol_version = 2
    board.reboot()
    await asyncio.sleep(0.1)
    assert host.items and all(isinstance(i, VersionMismatch) for i in host.items)


def test_unplug_closes_the_pty_and_replug_gives_a_new_one() -> None:
    async def main() -> None:
        board = SimBoard(2, config=FAST)
        first = await board.start_pty()
        fd = os.open(first, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            board.unplug()
            for _ in range(100):  # drain what was buffered, then EOF or EIO: a hangup
                try:
                    if os.read(fd, 4096) == b"":
                        break
                except BlockingIOError:
                    pytest.fail("the slave still looks alive after unplug")
                except OSError:
                    break
            else:
                pytest.fail("no hangup after unplug")
        finally:
            os.close(fd)
        second = board.replug()
        assert os.path.exists(second)
        await board.stop()
        assert board._master is None

    run(main())


def test_tcp_client_gets_hello_and_snapshots() -> None:
    async def main() -> None:
        board = SimBoard(2, config=FAST)
        url = await board.start_tcp()
        host, port = url.removeprefix("socket://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        decoder = FrameDecoder()
        items: list[object] = []
        try:
            async with asyncio.timeout(3):
                while len([i for i in items if isinstance(i, Frame)]) < 10:
                    items += decoder.feed(await reader.read(4096))
        finally:
            writer.close()
            await writer.wait_closed()
            await board.stop()
        frames = [i for i in items if isinstance(i, Frame)]
        assert isinstance(frames[0].message, Hello)
        assert any(isinstance(f.message, AntennaSnapshot) for f in frames)

    run(main())


def test_bad_arguments_are_named() -> None:
    board = SimBoard(2)
    with pytest.raises(ValueError, match=r"antenna 5 is outside 0\.\.1"):
        board.place(5, A)
    with pytest.raises(ValueError, match="UID of 3 bytes"):
        board.place(0, b"abc")
    with pytest.raises(KeyError, match="not on antenna 0"):
        board.remove(0, A)
    with pytest.raises(ValueError, match="invalid board config: scan_period_ms=1"):
        SimBoard(2, config=SetConfig(scan_period_ms=1))
