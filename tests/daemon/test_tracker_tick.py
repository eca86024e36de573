"""The daemon's reader task ticks the SnapshotTracker every scan period: a cycle in which an
antenna's frame is missing closes half a period after its first frame, not when the next
cycle's frames arrive. Real pty board (hwsim), real mosquitto, the real Daemon."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from controller.daemon import config
from controller.daemon.service import Daemon
from firmware_bridge.protocol import SetConfig
from hwsim.board import SimBoard
from hwsim.broker import plain_broker

SCAN_MS = 200  # long enough that "before the next cycle" is far from scheduling noise
CARD = bytes.fromhex("04a1b2c3d4e5f6")
HOLE1, DEAD = 0, 4  # antenna 4 (the muck) is dead: its frames never come


def _config(port: str, mqtt_port: int, storage: Path) -> config.DaemonConfig:
    return config.from_mapping({
        "table": {"id": "t1", "venue": "v1", "size": 2},
        "reader": {"ports": [port], "scan_period_ms": SCAN_MS, "heartbeat_ms": 1000,
                   "ready_timeout_s": 10.0, "debounce_cycles": 2},
        "zones": {"seats": 2, "hole": {"1": HOLE1, "2": 1}, "board": 2, "burn": 3,
                  "muck": DEAD, "bet": {}},
        "gpio": {"pin_factory": "mock", "chip_sensors": {}, "puck_sensors": {}},
        "mqtt": {"host": "127.0.0.1", "port": mqtt_port, "tls": False, "allow_plaintext": True},
        "storage": {"path": str(storage)},
    })  # fmt: skip


async def _until(cond: object, timeout: float, what: str) -> None:
    assert callable(cond)
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(0.005)


async def _scenario(tmp_path: Path, mqtt_port: int) -> None:
    board = SimBoard(6, config=SetConfig(scan_period_ms=SCAN_MS, heartbeat_interval_ms=1000))
    port = await board.start_pty()
    daemon = Daemon(_config(port, mqtt_port, tmp_path / "state"))
    stop = asyncio.Event()
    run = asyncio.create_task(daemon.run(stop))
    try:
        await asyncio.wait_for(daemon.ready.wait(), 10)
        board.kill_antenna(DEAD)
        await _until(lambda: daemon.tracker.cycles >= 3, 5, "the tracker to run some cycles")
        before = daemon.stats.events
        start = board.cycle
        await _until(lambda: board.cycle != start, 2, "a scan cycle")
        c0 = board.cycle
        board.place(HOLE1, CARD)  # first read in cycle c0+1, confirmed (debounce 2) in c0+2
        await _until(lambda: board.cycle == c0 + 2, 2, "the confirming cycle")
        board.stall()  # nothing more from the board: no next cycle to close c0+2
        assert board.cycle == c0 + 2, "the test missed the confirming cycle"
        stalled_at = time.monotonic()
        # closes half a period after the confirming frames; allow two periods on a busy machine
        await _until(lambda: daemon.stats.events > before, 2 * SCAN_MS / 1000,
                     "CardPlaced in the core, the board silent after c0+2")  # fmt: skip
        assert time.monotonic() - stalled_at < 2 * SCAN_MS / 1000
        assert daemon.stats.events == before + 1
        assert daemon.tracker.present() == {CARD: daemon.cfg.zones.zone_of(HOLE1)}
    finally:
        stop.set()
        await asyncio.wait_for(run, 10)
        await board.stop()


@pytest.mark.timeout(60)
def test_card_reaches_the_core_while_an_antenna_is_dead(tmp_path: Path) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(_scenario(tmp_path, broker.port), 40))
