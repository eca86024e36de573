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


async def _place_then_stall(board: SimBoard) -> None:
    """Place CARD on HOLE1 at a cycle's start; stop the board right after the cycle that
    confirms it (first read in cycle c0+1, confirmed with a debounce of 2 in c0+2)."""
    start = board.cycle
    await until(lambda: board.cycle != start, 2, "a scan cycle")
    c0 = board.cycle
    board.place(HOLE1, CARD)
    await until(lambda: board.cycle == c0 + 2, 2, "the confirming cycle")
    board.stall()  # nothing more from the board after c0+2
    assert board.cycle == c0 + 2, "the test missed the confirming cycle"


async def _scenario(tmp_path: Path, mqtt_port: int) -> None:
    board = SimBoard(6, config=SetConfig(scan_period_ms=SCAN_MS, heartbeat_interval_ms=1000))
    async with running(board, tmp_path, mqtt_port, scan_ms=SCAN_MS, muck=DEAD) as daemon:
        board.kill_antenna(DEAD)
        await until(lambda: daemon.tracker.cycles >= 3, 5, "the tracker to run some cycles")
        before = daemon.stats.events
        await _place_then_stall(board)  # no next cycle to close the confirming one
        stalled_at = time.monotonic()
        # closes half a period after the confirming frames; allow two periods on a busy machine
        await until(lambda: daemon.stats.events > before, 2 * SCAN_MS / 1000,
                     "CardPlaced in the core, the board silent")  # fmt: skip
        assert time.monotonic() - stalled_at < 2 * SCAN_MS / 1000
        assert daemon.stats.events == before + 1
        assert daemon.tracker.present() == {CARD: daemon.cfg.zones.zone_of(HOLE1)}


@pytest.mark.timeout(60)
def test_card_reaches_the_core_while_an_antenna_is_dead(tmp_path: Path) -> None:
    run_scenario(_scenario, tmp_path)


async def _every_scan_scenario(tmp_path: Path, mqtt_port: int) -> None:
    """The board reports every antenna every scan: a cycle closes at its last antenna's
    frame, and one whose frame is missing (a dead antenna) by the cycle timer; the reader
    task does not tick every scan period."""
    board = SimBoard(6, config=SetConfig(scan_period_ms=SCAN_MS, heartbeat_interval_ms=1000))
    async with running(board, tmp_path, mqtt_port, scan_ms=SCAN_MS, muck=DEAD,
                       changes_only=False) as daemon:  # fmt: skip
        timer = daemon.cycle_timer
        assert timer is not None and daemon.settler is None
        await until(lambda: not daemon.reconciler.active, 5, "the reconciliation over")
        # all antennas report: each cycle closes at its last frame, the timer never fires
        fired, ticks, cycles = timer.fired, daemon.stats.reader_ticks, daemon.tracker.cycles
        await until(lambda: daemon.tracker.cycles >= cycles + 2, 3, "two cycles")
        assert timer.fired == fired
        board.kill_antenna(DEAD)  # from now on every cycle lacks the muck's frame
        before = daemon.stats.events
        await _place_then_stall(board)  # only the timer can close the confirming cycle
        await until(lambda: daemon.stats.events > before, 4 * SCAN_MS / 1000,
                    "CardPlaced in the core, the board silent")  # fmt: skip
        assert timer.fired > fired  # closed by the cycle timer...
        assert daemon.stats.reader_ticks == ticks  # ...not by a tick every scan period
        assert daemon.tracker.present() == {CARD: daemon.cfg.zones.zone_of(HOLE1)}


@pytest.mark.timeout(60)
def test_every_scan_cycle_missing_a_frame_closes_by_its_timer(tmp_path: Path) -> None:
    run_scenario(_every_scan_scenario, tmp_path)
