"""The one thread that runs every blink and beep pattern (firmware_bridge/gpio/blinker.py),
on gpiozero MockFactory pins through GpioIndicators and on a recording output."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from firmware_bridge.gpio import GpioIndicators, Severity
from firmware_bridge.gpio.blinker import Blinker
from firmware_bridge.gpio.config import BlinkPattern
from hwsim.gpio import SimGpio
from tests.firmware_bridge.test_gpio import fast_config


class Recorder:
    """An output that notes when it was switched."""

    def __init__(self) -> None:
        self.t0 = time.monotonic()
        self.edges: list[tuple[float, bool]] = []
        self.lit = False

    def on(self) -> None:
        self.lit = True
        self.edges.append((time.monotonic() - self.t0, True))

    def off(self) -> None:
        self.lit = False
        self.edges.append((time.monotonic() - self.t0, False))


@pytest.fixture
def blinker() -> Iterator[Blinker]:
    b = Blinker()
    yield b
    b.close()


def _settle(b: Blinker, timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while b.running and time.monotonic() < deadline:
        time.sleep(0.01)


def test_counted_pattern_pulses_n_times_and_ends_off(blinker: Blinker) -> None:
    dev = Recorder()
    blinker.start(dev, BlinkPattern(0.05, 0.03, 3))
    _settle(blinker)
    assert blinker.running == 0 and not dev.lit
    states = [s for _, s in dev.edges]
    assert states == [True, False] * 3
    times = [t for t, _ in dev.edges]
    assert times[1] - times[0] == pytest.approx(0.05, abs=0.03)  # on
    assert times[2] - times[1] == pytest.approx(0.03, abs=0.03)  # off
    assert times[-1] == pytest.approx(3 * 0.05 + 2 * 0.03, abs=0.05)


def test_single_flash_without_an_off_time(blinker: Blinker) -> None:
    dev = Recorder()
    blinker.start(dev, BlinkPattern(0.04, 0.0, 1))
    _settle(blinker)
    assert [s for _, s in dev.edges] == [True, False]
    assert dev.edges[1][0] - dev.edges[0][0] == pytest.approx(0.04, abs=0.03)


def test_a_new_pattern_replaces_the_running_one_from_its_start(blinker: Blinker) -> None:
    dev = Recorder()
    blinker.start(dev, BlinkPattern(0.5, 0.5, None))
    time.sleep(0.05)
    blinker.start(dev, BlinkPattern(0.03, 0.02, 2))  # on again at once, then its own edges
    _settle(blinker)
    assert [s for _, s in dev.edges] == [True, True, False, True, False]
    assert not dev.lit


def test_stop_leaves_the_device_as_it_is_and_touches_it_no_more(blinker: Blinker) -> None:
    dev = Recorder()
    blinker.start(dev, BlinkPattern(0.05, 0.05, None))
    time.sleep(0.02)
    blinker.stop(dev)
    n = len(dev.edges)
    time.sleep(0.2)
    assert len(dev.edges) == n and dev.lit  # stopped in its on phase: still on
    assert blinker.running == 0


def test_every_pattern_runs_on_one_thread(blinker: Blinker) -> None:
    devices = [Recorder() for _ in range(4)]
    before = threading.active_count()
    for i in range(200):  # an alert every few ms: no thread started or joined per call
        blinker.start(devices[i % 4], BlinkPattern(0.01, 0.01, None))
        time.sleep(0.0005)
    assert threading.active_count() == before + 1
    assert blinker.thread is not None and blinker.thread.is_alive()
    assert blinker.running == 4
    thread = blinker.thread
    blinker.close()
    assert not thread.is_alive()
    with pytest.raises(RuntimeError, match="closed"):
        blinker.start(devices[0], BlinkPattern(0.01, 0.01, 1))


@pytest.mark.parametrize(
    ("pattern", "what"),
    [
        (BlinkPattern(0.1, 0.1, 0), "n >= 1"),
        (BlinkPattern(-0.1, 0.1, None), "times >= 0"),
        (BlinkPattern(0.0, 0.0, None), "period > 0"),
    ],
)
def test_bad_pattern_is_refused_by_name(blinker: Blinker, pattern: BlinkPattern, what: str) -> None:
    dev = Recorder()
    with pytest.raises(ValueError, match=what):
        blinker.start(dev, pattern)
    assert dev.edges == [] and blinker.running == 0


def test_indicators_alerts_start_no_thread_each(factory: MockFactory) -> None:
    cfg = fast_config()
    with GpioIndicators(cfg, pin_factory=factory) as ind:
        sim = SimGpio(factory, cfg)
        ind.alert(Severity.WARNING)
        before = set(threading.enumerate())
        for _ in range(100):
            ind.alert(Severity.WARNING)  # the beep and the blink of each: the same thread
        assert set(threading.enumerate()) == before  # none started (gpiozero: two an alert)
        assert sim.alert_led() and sim.buzzer()  # each alert starts its pulse at once
        ind.clear()
        time.sleep(0.3)
        assert not sim.alert_led() and not sim.buzzer()
        thread = ind.blinker.thread
    assert thread is not None and not thread.is_alive()  # closed with the devices
