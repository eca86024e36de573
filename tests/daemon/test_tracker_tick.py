"""The daemon's reader task ticks the SnapshotTracker every scan period: a cycle in which an
antenna's frame is missing closes half a period after its first frame, not when the next
cycle's frames arrive. Real pty board (hwsim), real mosquitto, the real Daemon."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from firmware_bridge.protocol import SetConfig
from hwsim.board import SimBoard
from tests.daemon.reader_rig import run_scenario, running, until

SCAN_MS = 200  # long enough that "before the next cycle" is far from scheduling noise
CARD = bytes.fromhex("04a1b2c3d4e5f6")
HOLE1, DEAD = 0, 4  # antenna 4 (the muck) is dead: its frames never come


async def _scenario(tmp_path: Path, mqtt_port: int) -> None:
    board = SimBoard(6, config=SetConfig(scan_period_ms=SCAN_MS, heartbeat_interval_ms=1000))
    async with running(board, tmp_path, mqtt_port, scan_ms=SCAN_MS, muck=DEAD) as daemon:
        board.kill_antenna(DEAD)
        await until(lambda: daemon.tracker.cycles >= 3, 5, "the tracker to run some cycles")
        before = daemon.stats.events
        start = board.cycle
        await until(lambda: board.cycle != start, 2, "a scan cycle")
        c0 = board.cycle
        board.place(HOLE1, CARD)  # first read in cycle c0+1, confirmed (debounce 2) in c0+2
        await until(lambda: board.cycle == c0 + 2, 2, "the confirming cycle")
        board.stall()  # nothing more from the board: no next cycle to close c0+2
        assert board.cycle == c0 + 2, "the test missed the confirming cycle"
        stalled_at = time.monotonic()
        # closes half a period after the confirming frames; allow two periods on a busy machine
        await until(lambda: daemon.stats.events > before, 2 * SCAN_MS / 1000,
                     "CardPlaced in the core, the board silent after c0+2")  # fmt: skip
        assert time.monotonic() - stalled_at < 2 * SCAN_MS / 1000
        assert daemon.stats.events == before + 1
        assert daemon.tracker.present() == {CARD: daemon.cfg.zones.zone_of(HOLE1)}


@pytest.mark.timeout(60)
def test_card_reaches_the_core_while_an_antenna_is_dead(tmp_path: Path) -> None:
    run_scenario(_scenario, tmp_path)
