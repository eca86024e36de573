"""The daemon's injected clock (controller/daemon/clock.py): the clocks themselves, and a
daemon given a manual clock stamping what it makes with it (a venue command's event, the
Tick of a running clock) rather than with the machine's. The whole system on a shifted
clock is the scenario library's ``wait`` (tests/scenario/test_library.py)."""

from __future__ import annotations

import ast
import asyncio
import time
from pathlib import Path

import pytest

from controller.daemon import core_loop
from controller.daemon.clock import ManualClock, ShiftedClock, SystemClock, utc
from controller.daemon.service import Daemon
from controller.link.commands import parse_command
from controller.rules.events import Tick
from hwsim.layout import daemon_config
from hwsim.venue import command_payload
from tests.daemon.daemon_rig import close_daemon


def test_manual_clock_moves_only_when_told() -> None:
    c = ManualClock(start=10.0)
    assert c.monotonic() == 10.0 and c.monotonic() == 10.0
    wall = c.wall()
    c.advance(2.5)
    assert c.monotonic() == 12.5 and c.wall() == wall + 2.5
    asyncio.run(c.sleep(30))  # returns at once, the time having passed
    assert c.monotonic() == 42.5
    assert utc(c).timestamp() == pytest.approx(c.wall())
    with pytest.raises(ValueError, match="does not go back"):
        c.advance(-1)


def test_shifted_clock_runs_with_the_machine_plus_its_jumps() -> None:
    c, real = ShiftedClock(), SystemClock()
    assert abs(c.monotonic() - real.monotonic()) < 0.5
    c.advance(70)
    assert 69.5 < c.monotonic() - time.monotonic() < 70.5
    assert 69.5 < c.wall() - time.time() < 70.5
    with pytest.raises(ValueError):
        c.advance(-0.1)


def test_a_daemon_stamps_its_own_events_with_its_clock(tmp_path: Path) -> None:
    """A venue command's event and the core loop's Tick carry the daemon's clock's time, and
    a hand's start its wall time: nothing of the daemon reads the machine's clock instead."""
    clock = ManualClock(start=5000.0)
    cfg = daemon_config("in-process", "127.0.0.1", 1, "clk", "tda-2024", tmp_path / "state", {})
    d = Daemon(cfg, clock=clock)

    async def go() -> None:
        task = asyncio.create_task(core_loop.core_task(d))
        try:
            _rid, payload = command_payload("seat", seat=1, player_id="p1", name="Ann",
                                            stack=1000)  # fmt: skip
            result = await d.on_command(parse_command(payload))
            assert result.ok, result.reason
            assert d.core.t == 5000.0  # the SeatPlayer's time: the clock's
            clock.advance(42)
            d.put(Tick(clock.monotonic()), "timer")  # as the rig's ``wait`` does
            await asyncio.sleep(0.05)
            assert d.core.t == 5042.0
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    try:
        asyncio.run(go())
    finally:
        close_daemon(d)


#: the machine's clock on purpose: the storage lane's retry pause (a blocking sleep in the
#: lane's own thread); ``railguard doctor`` is a command of its own, not the daemon
MACHINE_CLOCK_ALLOWED = {("storage.py", "time.sleep"), ("doctor.py", "asyncio.sleep")}
DAEMON = Path(__file__).resolve().parents[2] / "controller" / "daemon"


def clock_calls(source: str) -> list[str]:
    """Calls of the machine's clocks in ``source``: time.monotonic/time/sleep,
    datetime.now, asyncio.sleep."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            name = f"{owner.id}.{node.func.attr}" if isinstance(owner, ast.Name) else ""
            if name in ("time.monotonic", "time.time", "time.sleep", "datetime.now",
                        "asyncio.sleep"):  # fmt: skip
                found.append(name)
    return found


def test_no_part_of_the_daemon_reads_the_machines_clock_itself() -> None:
    assert clock_calls("import time\nt = time.monotonic()\n") == ["time.monotonic"]  # it finds
    bad = [(f.name, call) for f in sorted(DAEMON.glob("*.py")) if f.name != "clock.py"
           for call in clock_calls(f.read_text())
           if (f.name, call) not in MACHINE_CLOCK_ALLOWED]  # fmt: skip
    assert bad == [], "use the daemon's clock (d.clock, controller/daemon/clock.py)"
