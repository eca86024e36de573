"""SerialReaderLink through a real pty (and TCP) + pyserial-asyncio-fast, against hwsim.board."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from bounded import run
from loop_timers import recording_timers

from controller.rules.errors import ConfigError
from firmware_bridge.protocol import (
    AckStatus,
    ErrorCode,
    ErrorReport,
    GetSnapshot,
    ResetReason,
    SetConfig,
)
from firmware_bridge.serial_link import (
    LinkConfig,
    LinkDown,
    LinkStatus,
    SerialReaderLink,
    StatusChange,
    expand_ports,
)
from firmware_bridge.snapshots import AntennaSnapshot
from hwsim.board import SimBoard

FAST_BOARD = SetConfig(scan_period_ms=20, heartbeat_interval_ms=100)
FAST_LINK = LinkConfig(
    hello_timeout=0.2, heartbeat_interval=0.1, backoff_initial=0.05, backoff_max=0.2
)
UID = bytes.fromhex("04a1b2c3d4e5f6")


async def until(predicate: Callable[[], bool], timeout: float = 3.0, what: str = "") -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.01)
    assert predicate(), what


class Rig:
    """A simulated board and a link to it, recording everything the link delivers."""

    def __init__(self, ports: str | list[str], config: LinkConfig = FAST_LINK) -> None:
        self.snapshots: list[AntennaSnapshot] = []
        self.changes: list[StatusChange] = []
        self.errors: list[ErrorReport] = []
        self.link = SerialReaderLink(
            ports,
            self.snapshots.append,
            on_status=self.changes.append,
            on_error=self.errors.append,
            config=config,
        )

    def seen(self, antenna: int, uid: bytes) -> bool:
        return any(s.antenna == antenna and uid in {t.uid for t in s.tags} for s in self.snapshots)


def with_board(
    test: Callable[[SimBoard, Path], Awaitable[None]], **board_kw: Any
) -> Callable[[Path], None]:
    def wrapper(tmp_path: Path) -> None:
        async def main() -> None:
            board = SimBoard(4, config=FAST_BOARD, **board_kw)
            try:
                await test(board, tmp_path)
            finally:
                await board.stop()

        run(main())

    wrapper.__name__ = test.__name__
    return wrapper


@with_board
async def test_hello_then_snapshots_are_delivered(board: SimBoard, tmp_path: Path) -> None:
    path = await board.start_pty()
    board.place(2, UID, rssi=150)
    rig = Rig(path)
    async with rig.link as link:
        await link.wait_status(LinkStatus.ONLINE, timeout=3)
        assert link.board_info is not None
        assert (link.board_info.board_id, link.board_info.antenna_count) == (0x52470001, 4)
        await until(lambda: rig.seen(2, UID), what="tag on antenna 2 delivered")
        snap = next(s for s in rig.snapshots if s.antenna == 2 and s.tags)
        assert snap.tags[0].rssi == 150
        ack = await link.ping()
        assert ack.status is AckStatus.OK
        await until(lambda: link.stats.heartbeats >= 2, what="heartbeats")
        assert link.stats.crc_errors == 0 and link.stats.sequence_gaps == 0
    assert link.status is LinkStatus.OFFLINE
    assert [c.status for c in rig.changes][:3] == [
        LinkStatus.CONNECTING,
        LinkStatus.ONLINE,
        LinkStatus.OFFLINE,
    ]


@with_board
async def test_sequence_gap_triggers_get_snapshot(board: SimBoard, tmp_path: Path) -> None:
    rig = Rig(await board.start_pty())
    async with rig.link as link:
        await link.wait_status(LinkStatus.ONLINE, timeout=3)
        before = len(board.commands)
        board.skip_sequence(7)
        await until(lambda: link.stats.sequence_gaps == 1, what="gap seen")
        assert link.stats.frames_missed == 7
        frame = await board.wait_command(GetSnapshot)
        assert board.commands.index(frame) >= before
        assert frame.message == GetSnapshot(None)
        assert link.stats.gap_snapshot_requests == 1


@with_board
async def test_garbage_and_bit_flips_are_survived(board: SimBoard, tmp_path: Path) -> None:
    rig = Rig(await board.start_pty())
    async with rig.link as link:
        await link.wait_status(LinkStatus.ONLINE, timeout=3)
        board.faults.garbage(bytes(range(1, 200)) * 4)  # an oversized run of noise
        board.faults.flip_bits(20)
        await until(lambda: board.faults.pending_bit_flips == 0)
        board.place(1, UID)
        await until(lambda: rig.seen(1, UID), what="frames decoded after the noise")
        assert link.stats.crc_errors + link.stats.malformed + link.stats.oversized >= 10
        assert link.status is LinkStatus.ONLINE


@with_board
async def test_stalled_board_is_told_from_a_vanished_one(board: SimBoard, tmp_path: Path) -> None:
    rig = Rig(await board.start_pty())
    async with rig.link as link:
        await link.wait_status(LinkStatus.ONLINE, timeout=3)
        board.stall()
        await link.wait_status(LinkStatus.STALLED, timeout=2)
        assert link.port is not None  # still open
        assert "no heartbeat" in rig.changes[-1].detail
        board.resume()
        await link.wait_status(LinkStatus.ONLINE, timeout=2)
        assert rig.changes[-1].detail == "heartbeat resumed"
        board.unplug()
        await link.wait_status(LinkStatus.OFFLINE, timeout=2)
        assert "lost" in rig.changes[-1].detail


@with_board
async def test_heartbeats_are_checked_by_a_deadline_timer_not_polled(
    board: SimBoard, tmp_path: Path
) -> None:
    """While heartbeats come, the stall check wakes once per stall deadline (re-armed from the
    newest heartbeat), not every fraction of it; the connection task schedules nothing."""
    rig = Rig(await board.start_pty())
    async with rig.link as link:
        await link.wait_status(LinkStatus.ONLINE, timeout=3)
        beats = link.stats.heartbeats
        with recording_timers(asyncio.get_running_loop()) as timers:
            await until(lambda: link.stats.heartbeats >= beats + 10, 3, "ten heartbeats")
        # stall_after is 3 heartbeat intervals: a check every 2 to 3 heartbeats
        assert timers["SerialReaderLink._on_check"] <= 5, timers
        assert timers["SerialReaderLink._run"] == 0, timers  # (it polled every 25 ms)
        assert link.status is LinkStatus.ONLINE


@with_board
async def test_unplug_and_replug_under_a_new_path(board: SimBoard, tmp_path: Path) -> None:
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    first = await board.start_pty(symlink=by_id / "usb-railguard-A")
    rig = Rig([str(by_id / "usb-railguard-*")])
    async with rig.link as link:
        await link.wait_status(LinkStatus.ONLINE, timeout=3)
        assert link.port == first
        board.unplug()
        await link.wait_status(LinkStatus.OFFLINE, timeout=2)
        await asyncio.sleep(0.5)  # several reconnect attempts find nothing
        assert link.status is LinkStatus.OFFLINE
        assert link.stats.connects == 1
        second = board.replug(symlink=by_id / "usb-railguard-B")
        board.place(3, UID)
        await link.wait_status(LinkStatus.ONLINE, timeout=3)
        assert link.port == second != first
        await until(lambda: rig.seen(3, UID), what="snapshots after the replug")
        with pytest.raises(LinkDown):
            board.unplug()
            await link.wait_status(LinkStatus.OFFLINE, timeout=2)
            await link.ping()


@with_board
async def test_board_reboot_is_reported_without_a_gap(board: SimBoard, tmp_path: Path) -> None:
    rig = Rig(await board.start_pty())
    async with rig.link as link:
        await link.wait_status(LinkStatus.ONLINE, timeout=3)
        await until(lambda: link.stats.snapshots > 10)
        board.reboot(ResetReason.WATCHDOG)
        await until(lambda: link.stats.reboots == 1, what="reboot seen")
        assert link.board_info is not None
        assert link.board_info.reset_reason is ResetReason.WATCHDOG
        assert rig.changes[-1].status is rig.changes[-1].previous is LinkStatus.ONLINE
        assert "rebooted" in rig.changes[-1].detail
        n = link.stats.snapshots
        await until(lambda: link.stats.snapshots > n + 10)
        assert link.stats.sequence_gaps == 0


@with_board
async def test_version_mismatch_is_refused_and_named(board: SimBoard, tmp_path: Path) -> None:
    board.protocol_version = 2
    rig = Rig(await board.start_pty())
    async with rig.link as link:
        await link.wait_status(LinkStatus.VERSION_MISMATCH, timeout=3)
        detail = rig.changes[-1].detail
        assert "peer speaks version 2" in detail and "supports version 1" in detail
        assert link.board_info is None
        assert rig.snapshots == []
        board.protocol_version = 1  # reflashed
        board.reboot(ResetReason.FIRMWARE_UPDATE)
        await link.wait_status(LinkStatus.ONLINE, timeout=3)


@with_board
async def test_dead_antenna_error_reaches_the_consumer(board: SimBoard, tmp_path: Path) -> None:
    rig = Rig(await board.start_pty())
    async with rig.link as link:
        await link.wait_status(LinkStatus.ONLINE, timeout=3)
        board.kill_antenna(1, detail=0x42)
        await until(lambda: bool(rig.errors))
        assert rig.errors[0] == ErrorReport(ErrorCode.ANTENNA_TIMEOUT, 1, 0x42)
        rig.snapshots.clear()
        await until(lambda: len(rig.snapshots) > 20)
        assert {s.antenna for s in rig.snapshots} == {0, 2, 3}


@with_board
async def test_over_tcp_socket_url(board: SimBoard, tmp_path: Path) -> None:
    url = await board.start_tcp()
    board.place(0, UID)
    rig = Rig(url)
    async with rig.link as link:
        await link.wait_status(LinkStatus.ONLINE, timeout=3)
        await until(lambda: rig.seen(0, UID))
        ack = await link.set_config(SetConfig(scan_period_ms=30, heartbeat_interval_ms=100))
        assert ack.status is AckStatus.OK
        await until(lambda: board.config.scan_period_ms == 30)
        with pytest.raises(ConfigError, match=r"scan_period_ms=5 is outside 10\.\.1000"):
            await link.set_config(SetConfig(scan_period_ms=5))


def test_bad_link_config_names_the_field() -> None:
    with pytest.raises(ConfigError, match="stall_intervals=0 must be >= 1"):
        LinkConfig(stall_intervals=0)
    with pytest.raises(ConfigError, match="no reader-board port"):
        SerialReaderLink([], lambda s: None)


def test_expand_ports_globs_and_urls(tmp_path: Path) -> None:
    for name in ("usb-b", "usb-a", "other"):
        (tmp_path / name).touch()
    got = expand_ports([str(tmp_path / "usb-*"), "socket://127.0.0.1:1", "/dev/ttyAMA0"])
    assert got == [
        str(tmp_path / "usb-a"),
        str(tmp_path / "usb-b"),
        "socket://127.0.0.1:1",
        "/dev/ttyAMA0",
    ]


def test_a_snapshot_that_gave_work_lets_the_loop_run_before_the_rest_of_its_read() -> None:
    """One read holding a scan's frames: a consumer that returns true (an event queued for
    the core) gets the loop's next turn before the read's next frame; the rest follows in
    order, before anything read after it."""
    from firmware_bridge.protocol import FirmwareVersion, Hello, encode_frame

    async def main() -> None:
        got: list[int | str] = []

        def consumer(snap: AntennaSnapshot) -> bool:
            got.append(snap.antenna)
            if snap.antenna == 1:
                asyncio.get_running_loop().call_soon(got.append, "core")
                return True
            return False

        link = SerialReaderLink("/dev/null", consumer)
        link._on_data(
            encode_frame(Hello(1, FirmwareVersion(1, 0, 0), 7, 4, ResetReason.POWER_ON), 0)
        )
        scan = b"".join(encode_frame(AntennaSnapshot(0.0, a, 1, ()), 1 + a) for a in range(4))
        link._on_data(scan)
        assert got == [0, 1]
        await asyncio.sleep(0)
        assert got == [0, 1, "core", 2, 3]
        link._on_data(scan[: len(scan) // 2])  # a read cut inside a frame: nothing lost
        assert got[5:] == [0, 1]
        link._on_data(scan[len(scan) // 2 :])  # the next read
        assert got[5:] == [0, 1, 2, 3]  # the rest of the earlier read first
        await asyncio.sleep(0)
        assert got[5:] == [0, 1, 2, 3, "core"]

    run(main())
