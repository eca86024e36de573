"""Shared by the reader-timing tests (test_reader_burst_gap, test_reader_slow_line,
test_tracker_tick): a two-seat table config on one pty board, and a polling wait."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from controller.daemon import config
from controller.daemon.service import Daemon
from hwsim.board import SimBoard
from hwsim.broker import plain_broker
from hwsim.layout import Layout, config_mapping

HOLE1, HOLE2, BOARD_A, BURN, MUCK = 0, 1, 2, 3, 4


def two_seat_config(port: str, mqtt_port: int, storage: Path, *, scan_ms: int,
                    muck: int = MUCK, **reader: Any) -> config.DaemonConfig:  # fmt: skip
    """Seats 1 and 2 on antennas 0 and 1, the board on 2, the burn on 3, the muck on
    ``muck`` (the simulated table's two-seat layout, :func:`hwsim.layout.config_mapping`,
    with no betting zones, no chips and no button puck), a plain broker on ``mqtt_port``,
    the UART's own 115200 baud. ``reader`` adds to or overrides the [reader] settings."""
    return config.from_mapping(config_mapping(
        port, "127.0.0.1", mqtt_port, "t1", "tda-2024", storage, {}, scan_period_ms=scan_ms,
        layout=Layout(2), sections={
            "table": {"size": 2},
            "reader": {"heartbeat_ms": 1000, "baudrate": 115200, "debounce_cycles": 2, **reader},
            "zones": {"muck": muck, "bet": {}}, "gpio": {"puck_sensors": {}}}))  # fmt: skip


async def until(cond: Callable[[], object], timeout: float, what: str,
                poll: float = 0.002) -> float:  # fmt: skip
    """Waits for ``cond``; returns the time it was first seen true."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(poll)
    return time.monotonic()


@contextlib.asynccontextmanager
async def running(board: SimBoard, tmp_path: Path, mqtt_port: int, *, scan_ms: int,
                  **settings: Any) -> AsyncIterator[Daemon]:  # fmt: skip
    """The daemon on ``board``'s pty (two_seat_config with ``settings``), ready; stopped,
    and the board with it, on the way out."""
    port = await board.start_pty()
    daemon = Daemon(two_seat_config(port, mqtt_port, tmp_path / "state", scan_ms=scan_ms,
                                    **settings))  # fmt: skip
    stop = asyncio.Event()
    run = asyncio.create_task(daemon.run(stop))
    try:
        await asyncio.wait_for(daemon.ready.wait(), 10)
        yield daemon
    finally:
        stop.set()
        await asyncio.wait_for(run, 10)
        await board.stop()


def run_scenario(scenario: Callable[[Path, int], Awaitable[None]], tmp_path: Path) -> None:
    """``scenario(tmp_path, mqtt_port)`` against a private plain broker, within 40 s."""
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(scenario(tmp_path, broker.port), 40))
