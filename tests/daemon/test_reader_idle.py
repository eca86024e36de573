"""An idle changes-only table wakes the daemon only for what the board sends: a full refresh
closes its cycle at its last frame, no timer counts quiet periods that could change nothing
(every tag confirmed), and the reader task does not tick once the restart reconciliation is
over. Real pty board (hwsim), real mosquitto, the real Daemon; counts, not durations."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from loop_timers import recording_timers

from firmware_bridge.protocol import SetConfig
from hwsim.board import SimBoard
from tests.daemon.reader_rig import HOLE1, run_scenario, running, until

SCAN_MS = 20
REFRESH = 5  # a full refresh every 5 scans (100 ms)
CARD = bytes.fromhex("04a1b2c3d4e5f6")


async def _scenario(tmp_path: Path, mqtt_port: int) -> None:
    board = SimBoard(6, config=SetConfig(scan_period_ms=SCAN_MS, heartbeat_interval_ms=1000))
    async with running(board, tmp_path, mqtt_port, scan_ms=SCAN_MS,
                       full_refresh_cycles=REFRESH) as daemon:  # fmt: skip
        settler = daemon.settler
        assert settler is not None, "changes_only (the default) runs the burst-gap timer"
        await until(lambda: board.config.changes_only, 5, "the board set to changes only")
        await until(lambda: not daemon.reconciler.active, 5, "the reconciliation over")
        board.place(HOLE1, CARD)
        await until(lambda: CARD in daemon.tracker.present(), 2, "the card confirmed")
        await until(lambda: daemon.tracker.settled, 2, "a settled tracker")
        quiet, bursts, ticks = settler.quiet, settler.bursts, daemon.stats.reader_ticks
        cycles = daemon.tracker.cycles
        start = board.cycle
        with recording_timers(asyncio.get_running_loop()) as timers:
            await until(lambda: board.cycle >= start + 3 * REFRESH + 1, 2, "three refreshes")
        # a full refresh closes its cycle at its last mapped antenna's frame: no timer fires,
        # neither for the burst nor for the quiet periods between refreshes
        assert settler.quiet == quiet, "quiet periods counted on a settled table"
        assert settler.bursts == bursts  # (armed at each refresh's first frame, cancelled)
        assert daemon.stats.reader_ticks == ticks, "the reader task ticked"
        assert timers["reader_task"] == 0
        # the quiet cycles not counted as they came are counted from the cycle numbers
        assert daemon.tracker.cycles - cycles >= 2 * REFRESH  # (the last may be on its way)
        assert daemon.tracker.present() == {CARD: daemon.cfg.zones.zone_of(HOLE1)}
        assert daemon.stats.events >= 1


@pytest.mark.timeout(60)
def test_idle_changes_only_table_arms_no_quiet_timer(tmp_path: Path) -> None:
    run_scenario(_scenario, tmp_path)
