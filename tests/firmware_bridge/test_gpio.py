"""GPIO console and indicators on gpiozero's MockFactory pins, with a real asyncio loop."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from controller.rules.errors import ConfigError
from controller.rules.events import (
    ButtonPress,
    ChipsIn,
    ChipsOut,
    ConsoleButton,
    Declaration,
    Declare,
    SetButton,
)
from firmware_bridge.gpio import (
    BUZZER_PATTERNS,
    Console,
    GpioConfig,
    GpioConsole,
    GpioFault,
    GpioIndicators,
    Indicators,
    LinkStatus,
    Severity,
)
from hwsim.gpio import SimGpio, wired_factory

pytestmark = pytest.mark.timeout(30)

B = ConsoleButton


def fast_config(**kw: Any) -> GpioConfig:
    base: dict[str, Any] = {
        "button_debounce_s": 0.03,
        "sensor_settle_s": 0.06,
        "long_press_s": 0.3,
        "stuck_s": 0.8,
        "puck_sensors": {1: 14, 2: 15},
    }
    base.update(kw)
    return GpioConfig(**base)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


class Rig:
    """A console on a real loop, its events and faults, and the simulator driving its pins."""

    def __init__(self, factory: MockFactory, config: GpioConfig) -> None:
        self.config = config
        self.sim = SimGpio(factory, config)
        self.clock = FakeClock()
        self.events: list[Any] = []
        self.faults: list[GpioFault] = []
        self.threads: set[int] = set()
        self.console = GpioConsole(
            config, pin_factory=factory, clock=self.clock, on_fault=self.faults.append
        )

    def sink(self, event: Any) -> None:
        self.threads.add(threading.get_ident())
        self.events.append(event)


def run(
    factory: MockFactory,
    scenario: Callable[[Rig], Awaitable[None]],
    config: GpioConfig | None = None,
    before: Callable[[Rig], None] | None = None,
) -> Rig:
    rig = Rig(factory, config or fast_config())

    async def main() -> None:
        rig.console.start(rig.sink)
        if before is not None:  # after the devices exist (creating them sets the pulls)
            before(rig)
        try:
            await scenario(rig)
        finally:
            rig.console.close()
        rig.loop_thread = threading.get_ident()  # type: ignore[attr-defined]

    asyncio.run(asyncio.wait_for(main(), 20))
    return rig


# ---------------------------------------------------------------- config


def test_default_config_is_valid_and_uses_distinct_pins() -> None:
    cfg = GpioConfig()
    pins = [p for _, p in cfg.pin_items()]
    assert len(pins) == len(set(pins)) == 22
    assert set(cfg.buttons) == set(ConsoleButton)


def test_declare_window_is_validated_and_parsed() -> None:
    assert GpioConfig.from_mapping({"declare_window_s": 1.5}).declare_window_s == 1.5
    with pytest.raises(ConfigError, match=r"^gpio.declare_window_s: must be between"):
        GpioConfig(declare_window_s=0.0)
    with pytest.raises(ConfigError, match=r"^gpio.declare_window_s: expected seconds"):
        GpioConfig.from_mapping({"declare_window_s": "2"})


def test_same_pin_twice_names_both_keys() -> None:
    with pytest.raises(ConfigError, match=r"gpio\.action_leds\.1: pin 5 is already used by "
                       r"gpio\.buttons\.exposed"):  # fmt: skip
        GpioConfig(action_leds={1: 5})


@pytest.mark.parametrize("pin", [28, -1, 99, "17", True])
def test_unknown_pin_names_the_key(pin: object) -> None:
    with pytest.raises(ConfigError, match=r"^gpio\.buzzer: unknown pin"):
        GpioConfig(buzzer=pin)  # type: ignore[arg-type]


def test_from_mapping_parses_and_reports_keys() -> None:
    cfg = GpioConfig.from_mapping(
        {
            "buttons": {"exposed": "GPIO5", "ack": 21},
            "chip_sensors": {"1": 4, "2": 17},
            "action_leds": {},
            "buzzer": False,
            "long_press_buttons": ["ack"],
        }
    )
    assert cfg.buttons == {B.EXPOSED: 5, B.ACK: 21}
    assert cfg.chip_sensors == {1: 4, 2: 17}
    assert cfg.buzzer is None
    assert cfg.long_press_buttons == frozenset({B.ACK})
    with pytest.raises(ConfigError, match=r"^gpio\.buttons\.exposd: unknown console button"):
        GpioConfig.from_mapping({"buttons": {"exposd": 5}})
    with pytest.raises(ConfigError, match=r"^gpio\.chip_sensors\.3: unknown pin 40"):
        GpioConfig.from_mapping({"chip_sensors": {"3": 40}})
    with pytest.raises(ConfigError, match=r"^gpio\.chip_sensors\.11: seat must be 1\.\.10"):
        GpioConfig.from_mapping({"chip_sensors": {"11": 4}})
    with pytest.raises(ConfigError, match=r"^gpio\.buzer: unknown key"):
        GpioConfig.from_mapping({"buzer": 18})
    with pytest.raises(ConfigError, match=r"^gpio\.stuck_s"):
        GpioConfig.from_mapping({"stuck_s": 0.5})
    with pytest.raises(ConfigError, match=r"^gpio\.buzzer: pin 18 .* by gpio\.alert_led"):
        GpioConfig.from_mapping({"alert_led": 18, "status_led": 12, "buzzer": 18})


def test_pin_already_taken_by_another_device_names_the_key(factory: MockFactory) -> None:
    from gpiozero import LED

    squatter = LED(13, pin_factory=factory)  # the MISDEAL pin
    try:

        async def scenario(rig: Rig) -> None:
            pass

        with pytest.raises(ConfigError, match=r"^gpio\.buttons\.misdeal: cannot use pin 13"):
            run(factory, scenario)
    finally:
        squatter.close()


# ---------------------------------------------------------------- buttons


def test_console_satisfies_protocols(factory: MockFactory) -> None:
    cfg = fast_config()
    assert isinstance(GpioConsole(cfg, pin_factory=factory), Console)
    with GpioIndicators(cfg, pin_factory=factory) as lights:
        assert isinstance(lights, Indicators)


def test_plain_button_reports_on_press_with_injected_clock(factory: MockFactory) -> None:
    async def scenario(rig: Rig) -> None:
        rig.sim.set_button(B.EXPOSED, True)
        await asyncio.sleep(0.1)
        assert rig.events == [ButtonPress(rig.clock.now, B.EXPOSED)]  # before the release
        rig.sim.set_button(B.EXPOSED, False)
        await asyncio.sleep(0.1)

    rig = run(factory, scenario)
    assert len(rig.events) == 1
    assert rig.threads == {rig.loop_thread}  # type: ignore[attr-defined]


def test_bouncing_contact_gives_one_press(factory: MockFactory) -> None:
    async def scenario(rig: Rig) -> None:
        await rig.sim.bouncy_press(B.BOXED, hold_s=0.1, bounces=5)
        await asyncio.sleep(0.1)
        await rig.sim.bouncy_press(B.BOXED, hold_s=0.1, bounces=5)
        await asyncio.sleep(0.1)
        assert rig.console.raw_edges("buttons.boxed") >= 40  # the bounces did reach us

    rig = run(factory, scenario)
    assert [type(e) for e in rig.events] == [ButtonPress, ButtonPress]
    assert all(e.button is B.BOXED and not e.long for e in rig.events)


def test_glitch_shorter_than_debounce_is_ignored(factory: MockFactory) -> None:
    async def scenario(rig: Rig) -> None:
        for _ in range(5):
            await rig.sim.tap_glitch(B.FLOOR, width_s=0.005)
            await asyncio.sleep(0.05)

    assert run(factory, scenario).events == []


def test_press_held_long_enough_counts_when_the_loop_is_late(factory: MockFactory) -> None:
    """A busy loop (a Pi under load) runs the filter's timer late: the press edge and the
    release edge are taken in one go. The press was held 60 ms, twice the debounce, by the
    edges' own times: it is a press, not a glitch (the scenario library lost presses so)."""

    async def scenario(rig: Rig) -> None:
        rig.sim.set_button(B.ACK, True)
        time.sleep(0.06)  # the loop is blocked while the dealer holds the button
        rig.sim.set_button(B.ACK, False)
        await asyncio.sleep(0.1)
        rig.sim.set_button(B.FLOOR, True)  # a glitch stays a glitch when the loop is late
        time.sleep(0.005)
        rig.sim.set_button(B.FLOOR, False)
        await asyncio.sleep(0.1)

    events = run(factory, scenario).events
    assert [(type(e), e.button) for e in events] == [(ButtonPress, B.ACK)]


def test_zero_debounce_passes_every_press(factory: MockFactory) -> None:
    """The filter is what suppresses bounce: without it every make is a press."""

    async def scenario(rig: Rig) -> None:
        await rig.sim.bouncy_press(B.BOXED, hold_s=0.05, bounces=3)
        await asyncio.sleep(0.05)

    rig = run(factory, scenario, fast_config(button_debounce_s=0.0))
    assert len(rig.events) == 7  # every make: 4 on the press, 3 more on the release


def test_buttons_start_no_polling_thread(factory: MockFactory) -> None:
    """gpiozero's Button starts a HoldThread per button that wakes every 0.1 s for ever; the
    console times long presses on the loop, so its buttons are plain inputs (idle CPU)."""
    from gpiozero.mixins import HoldThread

    seen: list[int] = []

    async def scenario(rig: Rig) -> None:
        await rig.sim.press(B.ACK, hold_s=0.1)
        seen.append(sum(isinstance(t, HoldThread) for t in threading.enumerate()))
        await asyncio.sleep(0.1)  # the release's debounce

    rig = run(factory, scenario)
    assert len(rig.config.buttons) >= 6
    assert seen == [0]
    assert [e.button for e in rig.events] == [B.ACK]  # and a press still reads


def test_long_press_reports_once_at_hold_time_and_no_short(factory: MockFactory) -> None:
    async def scenario(rig: Rig) -> None:
        rig.sim.set_button(B.MISDEAL, True)
        await asyncio.sleep(0.2)
        assert rig.events == []  # not yet: it might still become a long press
        await asyncio.sleep(0.2)
        assert rig.events == [ButtonPress(rig.clock.now, B.MISDEAL, long=True)]
        await asyncio.sleep(0.1)
        rig.sim.set_button(B.MISDEAL, False)
        await asyncio.sleep(0.1)

    rig = run(factory, scenario)
    assert len(rig.events) == 1
    assert rig.faults == []


def test_short_press_of_long_capable_button_reports_on_release(factory: MockFactory) -> None:
    async def scenario(rig: Rig) -> None:
        await rig.sim.press(B.ACK, hold_s=0.1)
        await asyncio.sleep(0.1)
        await rig.sim.long_press(B.ACK)
        await asyncio.sleep(0.1)

    rig = run(factory, scenario)
    assert [(e.button, e.long) for e in rig.events] == [(B.ACK, False), (B.ACK, True)]


# ---------------------------------------------------------------- declarations (issue 14)


@pytest.mark.parametrize("word", list(Declaration))
def test_every_declaration_takes_one_or_two_presses(
    factory: MockFactory, word: Declaration
) -> None:
    """DECLARE then the button with that legend (DECLARE twice: raise; DECLARE held: not a
    check): one Declare for the seat in turn, and the second button does not act as
    itself (no ButtonPress at all)."""

    async def scenario(rig: Rig) -> None:
        await rig.sim.declare(word)
        await asyncio.sleep(0.1)

    rig = run(factory, scenario)
    assert rig.events == [Declare(rig.events[0].t, word, 0)]
    assert rig.faults == []


def test_declare_alone_records_nothing_and_the_next_press_is_itself(
    factory: MockFactory,
) -> None:
    """A DECLARE with no second press within declare_window_s is dropped; after the window
    the buttons are themselves again."""

    async def scenario(rig: Rig) -> None:
        await rig.sim.press(B.DECLARE, hold_s=0.06)
        await asyncio.sleep(0.3)  # the window (0.2 s) runs out
        await rig.sim.press(B.ACK, hold_s=0.06)
        await asyncio.sleep(0.1)

    rig = run(factory, scenario, fast_config(declare_window_s=0.2))
    assert [type(e).__name__ for e in rig.events] == ["ButtonPress"]
    assert rig.events[0].button is B.ACK


def test_declare_then_a_button_without_a_legend_is_ignored(factory: MockFactory) -> None:
    async def scenario(rig: Rig) -> None:
        await rig.sim.press(B.DECLARE, hold_s=0.06)
        await asyncio.sleep(0.05)
        await rig.sim.press(B.BOXED, hold_s=0.06)
        await asyncio.sleep(0.1)

    rig = run(factory, scenario)
    assert rig.events == []


def test_stuck_button_is_a_fault_not_a_stream_of_presses(factory: MockFactory) -> None:
    async def scenario(rig: Rig) -> None:
        rig.sim.stick(B.CLOCK)
        await asyncio.sleep(1.0)
        assert rig.console.stuck_buttons == {B.CLOCK}
        # other buttons still work while one is stuck
        await rig.sim.press(B.EXPOSED)
        await asyncio.sleep(0.1)
        rig.sim.unstick(B.CLOCK)
        await asyncio.sleep(0.1)
        assert rig.console.stuck_buttons == frozenset()

    rig = run(factory, scenario)
    assert [(e.button, e.long) for e in rig.events] == [(B.CLOCK, True), (B.EXPOSED, False)]
    assert [(f.key, f.fault, f.active) for f in rig.faults] == [
        ("buttons.clock", "stuck", True),
        ("buttons.clock", "stuck", False),
    ]


def test_button_down_at_start_is_not_a_press() -> None:
    factory = wired_factory()
    SimGpio(factory, fast_config()).stick(B.EXPOSED)  # held before the daemon starts

    async def scenario(rig: Rig) -> None:
        assert rig.console.pressed(B.EXPOSED)
        await asyncio.sleep(0.9)
        rig.sim.unstick(B.EXPOSED)
        await asyncio.sleep(0.1)
        await rig.sim.press(B.EXPOSED)
        await asyncio.sleep(0.1)

    try:
        rig = run(factory, scenario)
    finally:
        factory.reset()
    assert rig.events == [ButtonPress(rig.events[0].t, B.EXPOSED)]
    assert [f.active for f in rig.faults] == [True, False]


def test_callbacks_from_another_thread_arrive_on_the_loop(factory: MockFactory) -> None:
    """On a Pi, lgpio calls back from its own thread; the sink still runs on the loop."""

    async def scenario(rig: Rig) -> None:
        def fingers() -> None:
            for button in (B.EXPOSED, B.BOXED, B.FLOOR):
                rig.sim.set_button(button, True)
                threading.Event().wait(0.06)
                rig.sim.set_button(button, False)
                threading.Event().wait(0.06)

        worker = threading.Thread(target=fingers)
        worker.start()
        await asyncio.to_thread(worker.join, 5)
        await asyncio.sleep(0.1)

    rig = run(factory, scenario)
    assert [e.button for e in rig.events] == [B.EXPOSED, B.BOXED, B.FLOOR]
    assert rig.threads == {rig.loop_thread}  # type: ignore[attr-defined]


def test_sink_exception_does_not_stop_the_console(factory: MockFactory) -> None:
    seen: list[Any] = []

    async def scenario(rig: Rig) -> None:
        def bad_sink(event: Any) -> None:
            seen.append(event)
            raise ValueError("consumer bug")

        rig.console._sink = bad_sink
        await rig.sim.press(B.EXPOSED)
        await asyncio.sleep(0.1)
        await rig.sim.press(B.BOXED)
        await asyncio.sleep(0.1)

    run(factory, scenario)
    assert [e.button for e in seen] == [B.EXPOSED, B.BOXED]


# ---------------------------------------------------------------- sensors


def test_chip_sensor_edges_become_chips_in_and_out(factory: MockFactory) -> None:
    async def scenario(rig: Rig) -> None:
        rig.sim.set_chips(3, True)
        await asyncio.sleep(0.03)
        assert rig.events == []  # still settling
        await asyncio.sleep(0.08)
        assert rig.console.chips_present(3)
        rig.sim.set_chips(3, False)
        await asyncio.sleep(0.12)

    rig = run(factory, scenario)
    assert [type(e) for e in rig.events] == [ChipsIn, ChipsOut]
    assert all(e.seat == 3 and e.amount is None for e in rig.events)
    assert rig.events[0].t < rig.events[1].t


def test_hand_passing_over_the_zone_is_not_a_bet(factory: MockFactory) -> None:
    async def scenario(rig: Rig) -> None:
        await rig.sim.chips_glitch(2, width_s=0.015, pulses=3)
        await asyncio.sleep(0.1)
        rig.sim.set_chips(2, True)
        await asyncio.sleep(0.1)
        await rig.sim.chips_glitch(2, width_s=0.015, pulses=2)  # chips stay, hand passes
        await asyncio.sleep(0.1)

    rig = run(factory, scenario)
    assert rig.events == [ChipsIn(rig.events[0].t, 2)]


def test_sensor_polarity_follows_config(factory: MockFactory) -> None:
    async def scenario(rig: Rig) -> None:
        assert rig.sim.chips_level(1) is False
        rig.sim.set_chips(1, True)
        assert rig.sim.pin(rig.config.chip_sensors[1]).state == 1
        await asyncio.sleep(0.1)

    rig = run(factory, scenario, fast_config(sensors_active_high=True))
    assert rig.events == [ChipsIn(rig.events[0].t, 1)]


def test_puck_sensor_moves_the_button(factory: MockFactory) -> None:
    async def scenario(rig: Rig) -> None:
        rig.sim.set_puck(1, True)
        await asyncio.sleep(0.1)
        rig.sim.set_puck(1, False)
        rig.sim.set_puck(2, True)
        await asyncio.sleep(0.1)

    rig = run(factory, scenario)
    assert [(type(e), e.seat) for e in rig.events] == [(SetButton, 1), (SetButton, 2)]


def test_no_events_after_close(factory: MockFactory) -> None:
    async def scenario(rig: Rig) -> None:
        rig.sim.set_button(B.EXPOSED, True)
        rig.console.close()
        await asyncio.sleep(0.1)

    assert run(factory, scenario).events == []


# ---------------------------------------------------------------- outputs


@pytest.fixture
def lights(factory: MockFactory) -> Iterator[tuple[GpioIndicators, SimGpio]]:
    cfg = fast_config()
    with GpioIndicators(cfg, pin_factory=factory) as ind:
        yield ind, SimGpio(factory, cfg)


def test_action_led_follows_the_seat(lights: tuple[GpioIndicators, SimGpio]) -> None:
    ind, sim = lights
    assert sim.action_seat() is None
    ind.set_action_seat(4)
    assert sim.action_seat() == 4
    ind.set_action_seat(1)
    assert sim.action_seat() == 1
    ind.set_action_seat(9)  # no LED wired for seat 9: all off, no error
    assert sim.action_seat() is None
    ind.set_action_seat(None)
    assert sim.action_seat() is None


def _wait(seconds: float) -> None:
    threading.Event().wait(seconds)


def alerting(ind: GpioIndicators) -> Severity | None:
    return ind.current_alert


def test_info_and_warning_beep_patterns(lights: tuple[GpioIndicators, SimGpio]) -> None:
    ind, sim = lights
    sim.clear_history("buzzer")
    ind.alert("info")
    _wait(0.3)
    pulses = sim.pulses("buzzer")
    assert len(pulses) == 1
    assert pulses[0].length == pytest.approx(BUZZER_PATTERNS[Severity.INFO].on_s, abs=0.04)
    sim.clear_history("buzzer")
    ind.alert(Severity.WARNING)
    _wait(0.6)
    pulses = sim.pulses("buzzer")
    assert len(pulses) == 2
    assert [p.length for p in pulses] == pytest.approx([0.15, 0.15], abs=0.04)
    assert pulses[1].start - pulses[0].start == pytest.approx(0.25, abs=0.05)
    assert not sim.buzzer()
    assert ind.current_alert is Severity.WARNING  # the alert LED blinks until cleared
    ind.clear()
    assert not sim.alert_led()
    assert alerting(ind) is None  # (read through a call: mypy kept the narrowing above)


def test_critical_repeats_until_clear(lights: tuple[GpioIndicators, SimGpio]) -> None:
    ind, sim = lights
    sim.clear_history("buzzer", "alert_led")
    ind.alert(Severity.CRITICAL)
    _wait(1.4)
    pulses = sim.pulses("buzzer")
    assert len(pulses) >= 3  # 0.3 on / 0.2 off: ~3 periods in 1.4 s
    assert all(p.length == pytest.approx(0.3, abs=0.06) for p in pulses[:-1])
    assert len(sim.pulses("alert_led")) >= 4  # fast blink
    ind.alert(Severity.INFO)  # a lesser alert does not silence the alarm
    assert ind.current_alert is Severity.CRITICAL
    ind.clear()
    _wait(0.1)
    sim.clear_history("buzzer", "alert_led")
    _wait(0.6)
    assert sim.pulses("buzzer") == [] and not sim.buzzer()
    assert sim.pulses("alert_led") == [] and not sim.alert_led()


def test_status_led_patterns(lights: tuple[GpioIndicators, SimGpio]) -> None:
    ind, sim = lights
    ind.status(LinkStatus.OK)
    sim.clear_history("status_led")
    _wait(0.5)
    assert sim.status_led() and sim.pulses("status_led")[0].length > 0.45  # steady
    ind.status("degraded")
    sim.clear_history("status_led")
    _wait(1.3)
    assert 1 <= len(sim.pulses("status_led")) <= 3
    ind.status("offline")
    _wait(0.15)  # past the first flash
    sim.clear_history("status_led")
    _wait(2.05)
    lengths = [p.length for p in sim.pulses("status_led")]
    assert len(lengths) == 2 and all(x == pytest.approx(0.1, abs=0.04) for x in lengths)
    with pytest.raises(ValueError):
        ind.status("sleepy")
