"""The dealer's lights and buzzer do not hold up the venue's alert: the daemon drives its
GPIO indicators from their own thread (controller/daemon/lights.py), in the order asked.
Real simulated table (pty board, mock GPIO pins), real mosquitto; order, not durations."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from controller.daemon.lights import IndicatorLane
from tests.brokers import plain_broker
from tests.daemon.daemon_rig import running, wait_for


class HeldLights:
    """The daemon's GPIO indicators, whose alert waits until the test lets it go."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.go = threading.Event()
        self.calls: list[str] = []

    def alert(self, severity: Any) -> None:
        self.go.wait(10)
        self.calls.append("alert")
        self.real.alert(severity)

    def clear(self) -> None:
        self.calls.append("clear")
        self.real.clear()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


async def _scenario(tmp: Path, port: int) -> None:
    async with running(tmp, port) as rig:
        d, gpio = rig.daemon, rig.gpio
        await rig.setup(button=None, deck=False)
        lane = d.indicators
        assert isinstance(lane, IndicatorLane), "GPIO indicators run on their own thread"
        held = HeldLights(lane.target)
        d.indicators = held  # type: ignore[assignment]
        await rig.chips(6, 100)  # chips in front of an empty seat: rejected, an alert
        await wait_for(lambda: rig.alerts("REJECTED"), "the venue's alert", 5)
        # the alert reached the venue while the buzzer's call still waits
        assert held.calls == [] and not gpio.buzzer() and not gpio.pulses("buzzer")
        d.acknowledge(list(d.open_alerts), by="test")  # queued behind the alert
        held.go.set()
        assert d.indicators.current_alert is None  # type: ignore[attr-defined]
        assert held.calls == ["alert", "clear"]  # in the order asked


@pytest.mark.timeout(60)
def test_alert_reaches_the_venue_before_the_buzzer_call_returns(tmp_path: Path) -> None:
    with plain_broker() as broker:
        asyncio.run(asyncio.wait_for(_scenario(tmp_path, broker.port), 40))


class RecordedLights(HeldLights):
    """HeldLights whose held alert records whether it still found the devices open."""

    def __init__(self, real: Any) -> None:
        super().__init__(real)
        self.failed: list[BaseException] = []

    def alert(self, severity: Any) -> None:
        self.go.wait(10)
        try:
            self.real.alert(severity)
            self.calls.append("alert")
        except Exception as exc:  # the devices were closed under the queued call
            self.failed.append(exc)


async def _stop_with_a_call_queued(tmp: Path, port: int) -> RecordedLights:
    async with running(tmp, port) as rig:
        d = rig.daemon
        await rig.setup(button=None, deck=False)
        lane = d.indicators
        assert isinstance(lane, IndicatorLane)
        held = RecordedLights(lane.target)
        d.indicators = held  # type: ignore[assignment]
        await rig.chips(6, 100)  # an alert: its light call waits on held.go
        await wait_for(lambda: rig.alerts("REJECTED"), "the venue's alert", 5)
        threading.Timer(0.5, held.go.set).start()  # let it go while the daemon stops
    return held


@pytest.mark.timeout(60)
@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_light_call_queued_at_stop_runs_before_the_devices_close(tmp_path: Path) -> None:
    """The GPIO task runs the queued light calls before it closes the devices: a call (a
    blink) made on closed devices raised in gpiozero's thread at every stop."""
    with plain_broker() as broker:
        held = asyncio.run(asyncio.wait_for(_stop_with_a_call_queued(tmp_path, broker.port), 40))
    assert held.failed == [] and held.calls == ["alert"]


class _Recorder:
    """Stands in for the GPIO indicators: notes each call and the thread it ran on."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], int]] = []

    def _note(self, name: str, *args: Any) -> None:
        self.calls.append((name, args, threading.get_ident()))

    def alert(self, severity: Any) -> None:
        self._note("alert", severity)

    def set_action_seat(self, seat: int | None) -> None:
        self._note("set_action_seat", seat)

    def status(self, status: Any) -> None:
        self._note("status", status)

    def clear(self) -> None:
        self._note("clear")


def test_calls_on_the_loop_reach_the_lights_thread_later_together_and_in_order() -> None:
    # the lane hands what the loop asked to its thread DEFER later, so that the thread does
    # not take the GIL in front of the alert's publish (docs/performance.md)
    from controller.daemon.lights import DEFER

    async def go() -> _Recorder:
        rec = _Recorder()
        lane = IndicatorLane(rec)  # type: ignore[arg-type]
        try:
            lane.alert("warning")
            lane.set_action_seat(3)
            lane.clear()
            await asyncio.sleep(0)
            assert rec.calls == []  # nothing handed over yet
            deadline = asyncio.get_running_loop().time() + 5
            while len(rec.calls) < 3 and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(DEFER)
            assert [(n, a) for n, a, _ in rec.calls] == [
                ("alert", ("warning",)), ("set_action_seat", (3,)), ("clear", ()),
            ]  # fmt: skip
            assert {t for _, _, t in rec.calls} != {threading.get_ident()}
            lane.status("ok")
            lane.drain()  # a reader waits for every call made so far: no DEFER first
            assert rec.calls[-1][:2] == ("status", ("ok",))
            lane.alert("critical")
        finally:
            lane.close()  # what is pending still runs before the thread stops
        assert rec.calls[-1][:2] == ("alert", ("critical",))
        return rec

    asyncio.run(go())
