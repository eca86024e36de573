"""Simulated GPIO: drives gpiozero ``MockFactory`` pins like a dealer's fingers and the chip
sensors would, and reads the LEDs and buzzer back.

The console under test must be built on the same factory::

    factory = MockFactory()
    sim = SimGpio(factory, config)
    console = GpioConsole(config, pin_factory=factory)

``MockPin.drive_*`` calls gpiozero's callbacks synchronously in the calling thread; the
console hands them to its loop, so the async helpers here ``await`` real time between edges
and the plain ``set_*`` helpers may be called from any thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from controller.rules.events import ConsoleButton, Declaration
from firmware_bridge.gpio.config import DECLARE_KEYS, GpioConfig


def _wired_pin_class() -> Any:
    from gpiozero.pins.mock import MockPin

    class WiredPin(MockPin):  # type: ignore[misc]
        """A MockPin whose level an external driver (a held button) can own: configuring
        the pull resistor then leaves the level alone, as on a real pin whose button to
        ground overpowers the internal pull-up. ``drive_*`` set the external level."""

        external: bool | None = None

        def _set_pull(self, value: str) -> None:
            if self.external is None:
                super()._set_pull(value)
                return
            level = self.external
            super()._set_pull(value)
            if level:
                super().drive_high()
            else:
                super().drive_low()

        def drive_high(self) -> None:
            self.external = True
            super().drive_high()

        def drive_low(self) -> None:
            self.external = False
            super().drive_low()

    return WiredPin


def wired_factory() -> Any:
    """A ``MockFactory`` whose pins keep an externally driven level when a device sets the
    pull (a button held down while the daemon starts)."""
    from gpiozero.pins.mock import MockFactory

    return MockFactory(pin_class=_wired_pin_class())


@dataclass(frozen=True, slots=True)
class Pulse:
    """One high period of an output: start (seconds after the first recorded state) and length."""

    start: float
    length: float


class SimGpio:
    def __init__(self, factory: Any, config: GpioConfig) -> None:
        self.factory = factory
        self.config = config

    # ------------------------------------------------------------------ pins

    def pin(self, bcm: int) -> Any:
        """The MockPin for a BCM number (the same object the device under test holds)."""
        return self.factory.pin(bcm)

    def _button_pin(self, button: ConsoleButton) -> Any:
        return self.pin(self.config.buttons[button])

    def _sensor_pin(self, table: str, seat: int) -> Any:
        pins: dict[int, int] = dict(getattr(self.config, table))
        return self.pin(pins[seat])

    def _drive(self, pin: Any, active: bool, active_high: bool) -> None:
        if active == active_high:
            pin.drive_high()
        else:
            pin.drive_low()

    # ------------------------------------------------------------------ buttons

    def set_button(self, button: ConsoleButton, pressed: bool) -> None:
        """Buttons pull to ground: pressed drives the pin low. Any thread."""
        self._drive(self._button_pin(button), pressed, active_high=False)

    async def press(self, button: ConsoleButton, hold_s: float = 0.1) -> None:
        """A clean press held ``hold_s`` then released."""
        self.set_button(button, True)
        await asyncio.sleep(hold_s)
        self.set_button(button, False)

    async def long_press(
        self,
        button: ConsoleButton,
        extra_s: float = 0.1,
        taken: Callable[[], bool] | None = None,
        limit_s: float = 8.0,  # under the console's stuck time (gpio.stuck_s, 10 s)
    ) -> None:
        """Held past the configured long-press time; with ``taken``, held on until it holds
        (as a dealer keeps the key down until the console answers: on a loaded machine the
        daemon's loop can take the press late and time the hold from then), at most
        ``limit_s`` (then released, and the caller's wait names what was not taken)."""
        self.set_button(button, True)
        try:
            await asyncio.sleep(self.config.long_press_s + extra_s)
            deadline = asyncio.get_running_loop().time() + limit_s
            while taken is not None and not taken():
                if asyncio.get_running_loop().time() > deadline:
                    break
                await asyncio.sleep(0.01)
        finally:
            self.set_button(button, False)

    async def declare(
        self, word: Declaration, gap_s: float = 0.05, taken: Callable[[], bool] | None = None
    ) -> None:
        """The dealer records a declaration on the console: DECLARE, then the button with
        that legend (``DECLARE_KEYS``); "not a check" is DECLARE held (until ``taken``
        holds, if given: :meth:`long_press`)."""
        hold = 2 * self.config.button_debounce_s + 0.01
        if word is Declaration.NOT_A_CHECK:
            await self.long_press(ConsoleButton.DECLARE, taken=taken)
            return
        key = next(b for b, w in DECLARE_KEYS.items() if w is word)
        await self.press(ConsoleButton.DECLARE, hold)
        await asyncio.sleep(gap_s)
        await self.press(key, hold)

    async def bouncy_press(
        self,
        button: ConsoleButton,
        hold_s: float = 0.1,
        bounces: int = 4,
        gap_s: float = 0.002,
    ) -> None:
        """A worn contact: ``bounces`` extra make/break pairs ``gap_s`` apart on press and
        on release, each well inside the debounce window."""
        await self._chatter(lambda v: self.set_button(button, v), True, bounces, gap_s)
        await asyncio.sleep(hold_s)
        await self._chatter(lambda v: self.set_button(button, v), False, bounces, gap_s)

    async def tap_glitch(self, button: ConsoleButton, width_s: float = 0.005) -> None:
        """Electrical noise: one short low pulse, shorter than the debounce window."""
        self.set_button(button, True)
        await asyncio.sleep(width_s)
        self.set_button(button, False)

    def stick(self, button: ConsoleButton) -> None:
        """A button that stays down (jammed or a chip on it) until :meth:`unstick`."""
        self.set_button(button, True)

    def unstick(self, button: ConsoleButton) -> None:
        self.set_button(button, False)

    # ------------------------------------------------------------------ sensors

    def set_chips(self, seat: int, present: bool) -> None:
        self._drive(
            self._sensor_pin("chip_sensors", seat), present, self.config.sensors_active_high
        )

    def set_puck(self, seat: int, present: bool) -> None:
        self._drive(
            self._sensor_pin("puck_sensors", seat), present, self.config.sensors_active_high
        )

    async def chips_glitch(self, seat: int, width_s: float = 0.02, pulses: int = 1) -> None:
        """A hand passing over the betting zone: brief pulses shorter than the settle time."""
        current = self.chips_level(seat)
        for _ in range(pulses):
            self.set_chips(seat, not current)
            await asyncio.sleep(width_s)
            self.set_chips(seat, current)
            await asyncio.sleep(width_s)

    def chips_level(self, seat: int) -> bool:
        """The sensor's raw level as chips-present (before any filtering)."""
        state = bool(self._sensor_pin("chip_sensors", seat).state)
        return state == self.config.sensors_active_high

    async def _chatter(self, drive: Any, final: bool, bounces: int, gap_s: float) -> None:
        for _ in range(bounces):
            drive(final)
            await asyncio.sleep(gap_s)
            drive(not final)
            await asyncio.sleep(gap_s)
        drive(final)

    # ------------------------------------------------------------------ outputs

    def action_seat(self) -> int | None:
        """The one seat whose action LED is lit (None if none; error if several)."""
        lit = [s for s, p in self.config.action_leds.items() if self.pin(p).state]
        if len(lit) > 1:
            raise AssertionError(f"several action LEDs lit: {sorted(lit)}")
        return lit[0] if lit else None

    def alert_led(self) -> bool:
        return self._output("alert_led")

    def status_led(self) -> bool:
        return self._output("status_led")

    def buzzer(self) -> bool:
        return self._output("buzzer")

    def _output(self, key: str) -> bool:
        bcm = getattr(self.config, key)
        if bcm is None:
            raise KeyError(f"gpio.{key} is not configured")
        return bool(self.pin(bcm).state)

    def clear_history(self, *keys: str) -> None:
        """Forget recorded output states (``buzzer``, ``alert_led``, ``status_led``)."""
        for key in keys or ("buzzer", "alert_led", "status_led"):
            bcm = getattr(self.config, key)
            if bcm is not None:
                self.pin(bcm).clear_states()

    def pulses(self, key: str) -> list[Pulse]:
        """High periods recorded on an output since the last :meth:`clear_history`.

        A pulse still running at the time of the call has its length so far.
        """
        import time

        pin = self.pin(getattr(self.config, key))
        states: Sequence[Any] = pin.states  # PinState(timestamp=delta since previous, state)
        out: list[Pulse] = []
        t = 0.0
        start: float | None = None
        for i, st in enumerate(states):
            if i:
                t += st.timestamp
            if st.state and start is None:
                start = t
            elif not st.state and start is not None:
                out.append(Pulse(start, t - start))
                start = None
        if start is not None:
            elapsed = time.monotonic() - pin._last_change  # time since the last edge
            out.append(Pulse(start, t + elapsed - start))
        return out
