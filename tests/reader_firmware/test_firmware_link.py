"""The firmware's message loop through a real pty into the real ``firmware_bridge``:
HELLO with its reset reason, ANTENNA_STATE every cycle with every tag of each antenna,
HEARTBEAT, the host commands and their ACKs, ERROR for a missing or failing front end,
bad host frames, and the watchdog restarting a hung loop."""

from __future__ import annotations

import asyncio
import os
import tty

import pytest
import serial

from firmware_bridge.protocol import (
    Ack,
    AckStatus,
    ErrorCode,
    ErrorReport,
    Frame,
    FrameDecoder,
    GetSnapshot,
    Heartbeat,
    Hello,
    MessageType,
    Ping,
    Reset,
    ResetReason,
    SetConfig,
    encode_frame,
)
from firmware_bridge.snapshots import AntennaSnapshot
from reader_firmware.emulation.host import FirmwareBoard

pytestmark = pytest.mark.timeout(30)
A = bytes.fromhex("e004010000000001")
B = bytes.fromhex("e004010000000011")


class Host:
    """The host end: pyserial on the pty, firmware_bridge's decoder."""

    def __init__(self, path: str) -> None:
        self.port = serial.Serial(path, 115200, timeout=0)
        self.dec = FrameDecoder()
        self.frames: list[Frame] = []  # every frame received, in order
        self.seen = 0  # frames[:seen] were offered to an until()
        self.seq = 0

    def send(self, msg: object) -> int:
        seq = self.seq
        self.port.write(encode_frame(msg, seq))  # type: ignore[arg-type]
        self.seq += 1
        return seq

    async def until(self, cond: object, timeout: float = 10.0) -> Frame:
        async with asyncio.timeout(timeout):
            while True:
                while self.seen < len(self.frames):
                    frame = self.frames[self.seen]
                    self.seen += 1
                    if cond(frame):  # type: ignore[operator]
                        return frame
                items = self.dec.feed(self.port.read(65536))
                self.frames += [i for i in items if isinstance(i, Frame)]
                if not items:
                    await asyncio.sleep(0.005)

    def close(self) -> None:
        self.port.close()


def is_(kind: type, **fields: object) -> object:
    return lambda f: (
        isinstance(f.message, kind) and all(getattr(f.message, k) == v for k, v in fields.items())
    )


def run(coro: object) -> None:
    asyncio.run(coro)  # type: ignore[arg-type]


def test_hello_states_heartbeat_and_every_command() -> None:
    async def main() -> None:
        board = FirmwareBoard(6, config=SetConfig(scan_period_ms=10, heartbeat_interval_ms=100))
        board.place(2, A)
        board.place(2, B)  # two stacked cards on one antenna
        host = Host(await board.start_pty())  # opening the port drops the first HELLO
        try:
            board.power_cycle()
            hello = await host.until(is_(Hello))
            assert hello.seq == 0 and hello.message == Hello(
                1,
                hello.message.firmware,
                board.board_id,
                6,
                ResetReason.POWER_ON,  # type: ignore[union-attr]
            )
            both = await host.until(
                lambda f: (
                    isinstance(f.message, AntennaSnapshot)
                    and f.message.antenna == 2
                    and len(f.message.tags) == 2
                )
            )
            snap = both.message
            assert isinstance(snap, AntennaSnapshot)
            assert {t.uid for t in snap.tags} == {A, B} and not snap.collision
            cycle = snap.cycle
            # every antenna every cycle (the default report policy)
            await host.until(is_(AntennaSnapshot, antenna=5, cycle=cycle + 2))
            antennas = {
                f.message.antenna
                for f in host.frames
                if isinstance(f.message, AntennaSnapshot) and f.message.cycle == cycle + 1
            }
            assert antennas == set(range(6))
            await host.until(is_(Heartbeat))
            seqs = [f.seq for f in host.frames]
            assert seqs == list(range(len(seqs)))  # one counter, no gap, no repeat

            s = host.send(Ping())
            await host.until(is_(Ack, acked_type=MessageType.PING, acked_seq=s))
            s = host.send(GetSnapshot(9))
            ack = await host.until(is_(Ack, acked_seq=s))
            assert ack.message.status is AckStatus.REJECTED  # type: ignore[union-attr]
            s = host.send(GetSnapshot(2))
            await host.until(is_(Ack, acked_seq=s, status=AckStatus.OK))
            s = host.send(SetConfig(scan_period_ms=5))  # out of range: nothing changes
            await host.until(is_(Ack, acked_seq=s, status=AckStatus.REJECTED))
            s = host.send(SetConfig(scan_period_ms=20, heartbeat_interval_ms=100,
                                    report_rssi=False, changes_only=True))  # fmt: skip
            await host.until(is_(Ack, acked_seq=s, status=AckStatus.OK))
            quiet = await host.until(
                lambda f: (
                    isinstance(f.message, AntennaSnapshot)
                    and f.message.antenna == 2
                    and f.seq > ack.seq + 3
                )
            )
            assert all(t.rssi is None for t in quiet.message.tags)  # type: ignore[union-attr]
            s = host.send(Reset())
            await host.until(is_(Ack, acked_type=MessageType.RESET, acked_seq=s))
            again = await host.until(is_(Hello))
            assert again.seq == 0 and again.message.reset_reason is ResetReason.HOST_REQUEST  # type: ignore[union-attr]
        finally:
            host.close()
            await board.stop()

    run(main())


def test_front_end_faults_bad_frames_and_the_watchdog() -> None:
    async def main() -> None:
        board = FirmwareBoard(4, config=SetConfig(scan_period_ms=10, heartbeat_interval_ms=100))
        board.pull_front_end(3)  # missing from the start
        host = Host(await board.start_pty())
        try:
            board.power_cycle()
            await host.until(is_(Hello))
            await host.until(is_(ErrorReport, code=ErrorCode.ANTENNA_INIT_FAILED, antenna=3))
            board.pull_front_end(1)  # a ribbon works loose during play
            await host.until(is_(ErrorReport, code=ErrorCode.ANTENNA_TIMEOUT, antenna=1))
            board.plug_front_end(1)
            await host.until(is_(ErrorReport, code=ErrorCode.ANTENNA_RECOVERED, antenna=1))
            board.plug_front_end(3)  # failed to start: stays out until a reset
            n = len(host.frames)
            await host.until(is_(Heartbeat))
            late = [f for f in host.frames[n:] if isinstance(f.message, AntennaSnapshot)]
            assert late and all(f.message.antenna != 3 for f in late)  # type: ignore[union-attr]
            beat = await host.until(is_(Heartbeat))
            assert beat.message.antenna_faults == 2  # type: ignore[union-attr]

            bad = bytearray(encode_frame(Ping(), 0))  # 03 01 81 01 03 fe 1e 00
            bad[5] ^= 0x02  # the CRC's first byte: a PING with a bad CRC
            host.port.write(bytes(bad))
            await host.until(is_(ErrorReport, code=ErrorCode.RX_BAD_FRAME, detail=1))
            beat = await host.until(is_(Heartbeat, rx_crc_errors=1))

            board.hang()  # the main loop stops feeding the watchdog
            hello = await host.until(is_(Hello), timeout=10)
            assert hello.message.reset_reason is ResetReason.WATCHDOG  # type: ignore[union-attr]
            assert board.boots == [0, 0, 2]
        finally:
            host.close()
            await board.stop()

    run(main())


def test_the_pty_is_closed_on_stop() -> None:
    async def main() -> None:
        board = FirmwareBoard(2)
        path = await board.start_pty()
        await board.stop()
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK) if os.path.exists(path) else -1
        if fd >= 0:  # a freed pty name may be reused by another test at once; then it is not ours
            tty.setraw(fd)
            os.close(fd)

    run(main())
