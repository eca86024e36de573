"""The in-process board (hwsim.inprocess) against the serial link over a real pty: the same
simulated board, driven the same way, must give the daemon the same HELLO, the same
acknowledgements and the same antenna snapshots; unplugging takes it offline."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from firmware_bridge.link_model import (
    LinkConfig,
    LinkDown,
    LinkStatus,
    ReaderBoard,
    StatusChange,
)
from firmware_bridge.protocol import AckStatus, SetConfig
from firmware_bridge.serial_link import SerialReaderLink
from firmware_bridge.snapshots import AntennaSnapshot
from hwsim.board import SimBoard
from hwsim.inprocess import InProcessFactory

CONFIG = SetConfig(scan_period_ms=20, heartbeat_interval_ms=200)
TAG = bytes.fromhex("C0A0010E")


async def _session(kind: str) -> dict[str, Any]:
    board = SimBoard(24, config=CONFIG)
    snaps: list[AntennaSnapshot] = []
    statuses: list[StatusChange] = []
    link_cfg = LinkConfig(baudrate=921600, board_config=SetConfig(scan_period_ms=20,
                          heartbeat_interval_ms=200, changes_only=True))  # fmt: skip
    link: ReaderBoard
    if kind == "pty":
        path = await board.start_pty()
        link = SerialReaderLink(path, snaps.append, on_status=statuses.append, config=link_cfg)
    else:
        link = InProcessFactory(board, link_cfg)(snaps.append, on_status=statuses.append,
                                                 on_error=lambda e: None)  # fmt: skip
    await link.start()
    try:
        await link.wait_status(LinkStatus.ONLINE, timeout=5)
        hello = link.board_info
        async with asyncio.timeout(5):
            while board.config != link_cfg.board_config:
                await asyncio.sleep(0.01)  # the SET_CONFIG after HELLO
        ping = await link.ping()
        placed = time.monotonic()
        board.place(23, TAG)  # the last antenna of a ten-seat table
        async with asyncio.timeout(5):
            while not any(s.antenna == 23 and s.tags for s in snaps):
                await asyncio.sleep(0.01)
        seen = next(s for s in snaps if s.antenna == 23 and s.tags)
        stamped = placed <= seen.t <= time.monotonic()  # the host's clock, on arrival
        del snaps[:]
        ack = await link.request_snapshot()
        await asyncio.sleep(0.05)
        full = sorted({s.antenna for s in snaps})
        rejected = await link.request_snapshot(99)
        board.unplug()
        await link.wait_status(LinkStatus.OFFLINE, timeout=5)
        try:
            await link.ping()
            after_unplug = "answered"
        except LinkDown:
            after_unplug = "LinkDown"
    finally:
        await link.stop()
        await board.stop()
    assert hello is not None
    return {
        "hello": (hello.antenna_count, hello.board_id),  # (over a pty: a reset's HELLO)
        "ping": ping.status,
        "tag": ([t.uid for t in seen.tags], seen.antenna),
        "snapshot": (ack.status, full),
        "rejected": rejected.status,
        "unplug": after_unplug,
        "stamped": stamped,
        "went_online": LinkStatus.ONLINE in [s.status for s in statuses],
    }


@pytest.mark.timeout(30)
def test_in_process_board_gives_what_the_serial_link_gives() -> None:
    serial = asyncio.run(_session("pty"))
    inproc = asyncio.run(_session("inprocess"))
    assert serial["hello"][0] == 24
    assert serial["ping"] is AckStatus.OK
    assert serial["snapshot"] == (AckStatus.OK, list(range(24)))
    assert serial["rejected"] is AckStatus.REJECTED
    assert serial["unplug"] == "LinkDown"
    assert serial["stamped"] and serial["went_online"]
    assert inproc == serial


async def _held(kind: str) -> tuple[int, list[tuple[int, int]], int]:
    """A hold of 0.1 s (ReaderBoard.hold) on a board reporting every antenna every 20 ms:
    what was handed on during it, the (cycle, antenna) order of what came after, the holds
    counted (the serial link's; the in-process board counts none)."""
    board = SimBoard(4, config=SetConfig(scan_period_ms=20, heartbeat_interval_ms=200))
    snaps: list[AntennaSnapshot] = []
    link_cfg = LinkConfig(board_config=SetConfig(scan_period_ms=20, heartbeat_interval_ms=200))
    link: ReaderBoard
    if kind == "pty":
        link = SerialReaderLink(await board.start_pty(), snaps.append, config=link_cfg)
    else:
        link = InProcessFactory(board, link_cfg)(snaps.append, on_status=lambda c: None,
                                                 on_error=lambda e: None)  # fmt: skip
    await link.start()
    try:
        await link.wait_status(LinkStatus.ONLINE, timeout=5)
        async with asyncio.timeout(5):
            while len(snaps) < 8:
                await asyncio.sleep(0.01)
        n = len(snaps)
        link.hold(0.1)
        assert link.receiving
        await asyncio.sleep(0.08)
        during = len(snaps) - n
        await asyncio.sleep(0.1)
        assert not link.receiving
        after = [(s.cycle, s.antenna) for s in snaps[n:]]
        holds = link.stats.holds if isinstance(link, SerialReaderLink) else 0
    finally:
        await link.stop()
        await board.stop()
    return during, after, holds


@pytest.mark.timeout(30)
@pytest.mark.parametrize("kind", ["pty", "inprocess"])
def test_a_hold_keeps_the_boards_messages_and_hands_them_on_in_order(kind: str) -> None:
    during, after, holds = asyncio.run(_held(kind))
    assert during == 0, f"{during} snapshots handed on during the hold"
    assert len(after) >= 4 * 6, after  # the scans of the hold and after it, none lost
    expected = [(after[0][0] + i // 4, i % 4) for i in range(len(after))]
    assert after == expected, "out of order, lost or repeated"
    assert holds == (1 if kind == "pty" else 0)
