"""Dealer console buttons and betting-zone sensors on GPIO, as rules-core events.

Threading: gpiozero calls back from its own thread on a Pi (lgpio) and synchronously in the
caller's thread with ``MockPin.drive_high()/drive_low()``. Either way the callback only
samples the clock and hands the edge to the asyncio loop with ``call_soon_threadsafe``;
debouncing, long presses and event emission all run on the loop thread, so the sink is
always called there.

Debounce is a stability filter in software (an edge counts once the level has stayed put
for ``button_debounce_s`` / ``sensor_settle_s``) on top of gpiozero's ``bounce_time``
(lgpio's debounce on a Pi; MockPin ignores ``bounce_time``), so a glitch shorter than the
window produces nothing at all. An event's ``t`` is the injectable clock when the change
was recognised (after the filter), so ``t`` never goes backwards across the console's
events.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, runtime_checkable

from controller.rules.errors import ConfigError, LocalError
from controller.rules.events import (
    ButtonPress,
    ChipsIn,
    ChipsOut,
    ConsoleButton,
    Declaration,
    Declare,
    SetButton,
)
from firmware_bridge.gpio.config import DECLARE_KEYS, GpioConfig

log = logging.getLogger(__name__)

ConsoleEvent = ButtonPress | ChipsIn | ChipsOut | SetButton | Declare
EventSink = Callable[[ConsoleEvent], None]
Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class GpioFault:
    """A stuck input (``active=True``) or its recovery (``active=False``); not a rules event.

    ``key`` is the config key of the input (``buttons.ack``).
    """

    t: float
    key: str
    fault: str
    active: bool


FaultSink = Callable[[GpioFault], None]


@runtime_checkable
class Console(Protocol):
    """What the daemon needs from a console: GPIO hardware, hwsim, or a replay."""

    def start(self, sink: EventSink) -> None:
        """Begin delivering events to ``sink`` on the running loop's thread."""

    def close(self) -> None:
        """Stop delivering events and release the hardware. Idempotent."""


class _Filtered:
    """One input: a stability filter between raw edges and committed changes (loop thread)."""

    def __init__(
        self,
        key: str,
        device: Any,
        settle_s: float,
        on_change: Callable[[_Filtered, bool], None],
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.key = key
        self.device = device
        self.settle_s = settle_s
        self.on_change = on_change
        self.loop = loop
        self.raw = bool(device.is_active)
        self.stable = self.raw
        self.edges = 0  # raw edges seen (diagnostics and tests)
        self.raw_at = 0.0  # when the raw level last changed (time.monotonic, sampled at the edge)
        self._pending: asyncio.TimerHandle | None = None

    def edge(self, active: bool, at: float) -> None:
        """A raw edge sampled at ``at`` (``time.monotonic`` in the callback's thread).

        The filter's timer runs on the loop, which can be late (a busy Pi, a long callback):
        if the level before this edge had already held for ``settle_s`` by the edge's own
        timestamp, that level was real and is committed now, before this edge is taken, so a
        press held long enough is never lost to a late loop."""
        self.edges += 1
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
            if self.raw != self.stable and at - self.raw_at >= self.settle_s:
                self._commit()
        self.raw, self.raw_at = active, at
        if active == self.stable:
            return  # back where it was before the filter ran out: a glitch or bounce
        if self.settle_s <= 0:
            self._commit()
        else:
            self._pending = self.loop.call_later(self.settle_s, self._commit)

    def _commit(self) -> None:
        self._pending = None
        if self.raw != self.stable:
            self.stable = self.raw
            self.on_change(self, self.stable)

    def cancel(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None


class _ButtonState:
    __slots__ = ("button", "hold", "long_fired", "stuck", "stuck_timer")

    def __init__(self, button: ConsoleButton) -> None:
        self.button = button
        self.hold: asyncio.TimerHandle | None = None
        self.stuck_timer: asyncio.TimerHandle | None = None
        self.long_fired = False
        self.stuck = False

    def cancel(self) -> None:
        for handle in (self.hold, self.stuck_timer):
            if handle is not None:
                handle.cancel()
        self.hold = self.stuck_timer = None


class GpioConsole:
    """Console buttons, chip-presence sensors and optional dealer-button puck sensors.

    ``pin_factory`` None means gpiozero's default (lgpio on a Pi 4/5); tests pass a
    ``MockFactory``. ``start(sink)`` must run on the event loop thread (or pass ``loop``).
    ``on_fault`` receives :class:`GpioFault` (stuck buttons) on the loop thread.
    """

    def __init__(
        self,
        config: GpioConfig,
        *,
        pin_factory: Any = None,
        clock: Clock = time.monotonic,
        loop: asyncio.AbstractEventLoop | None = None,
        on_fault: FaultSink | None = None,
    ) -> None:
        self.config = config
        self._factory = pin_factory
        self._clock = clock
        self._loop = loop
        self._on_fault = on_fault
        self._sink: EventSink | None = None
        self._inputs: dict[str, _Filtered] = {}
        self._buttons: dict[str, _ButtonState] = {}
        self._seats: dict[str, int] = {}
        self._closed = False
        # DECLARE pressed: the next press within declare_window_s picks the declaration
        self._armed: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self, sink: EventSink) -> None:
        if self._sink is not None:
            raise LocalError("GpioConsole.start() called twice")
        if self._closed:
            raise LocalError("GpioConsole is closed")
        loop = self._loop or asyncio.get_running_loop()
        self._loop = loop
        self._sink = sink
        cfg = self.config
        from gpiozero import DigitalInputDevice

        try:
            for button, pin in cfg.buttons.items():
                key = f"buttons.{button.value}"
                # A plain input, not gpiozero's Button: long presses are timed on the loop
                # (_button_changed), and a Button starts a HoldThread that wakes ten times a
                # second for ever (six buttons: most of an idle daemon's wakeups).
                dev = _make(
                    key, pin, DigitalInputDevice, pull_up=True,
                    bounce_time=_bounce(cfg.button_debounce_s), pin_factory=self._factory,
                )  # fmt: skip
                self._buttons[key] = _ButtonState(button)
                self._add(key, dev, cfg.button_debounce_s, self._button_changed)
            for table, settle in (("chip_sensors", cfg.sensor_settle_s),
                                  ("puck_sensors", cfg.sensor_settle_s)):  # fmt: skip
                for seat, pin in sorted(getattr(cfg, table).items()):
                    key = f"{table}.{seat}"
                    dev = _make(
                        key, pin, DigitalInputDevice, pull_up=not cfg.sensors_active_high,
                        bounce_time=_bounce(settle), pin_factory=self._factory,
                    )  # fmt: skip
                    self._seats[key] = seat
                    self._add(key, dev, settle, self._sensor_changed)
        except BaseException:
            self.close()
            raise
        # A button already down at start-up is not a press, but it may be stuck.
        for key, state in self._buttons.items():
            if self._inputs[key].stable:
                state.long_fired = True  # no short press on its release either
                state.stuck_timer = loop.call_later(cfg.stuck_s, self._stuck, key)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._disarm()
        for state in self._buttons.values():
            state.cancel()
        for inp in self._inputs.values():
            inp.cancel()
            try:
                inp.device.close()
            except Exception:  # closing must not fail the shutdown path
                log.exception("closing %s", inp.key)
        self._inputs.clear()

    def __enter__(self) -> GpioConsole:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ introspection

    @property
    def stuck_buttons(self) -> frozenset[ConsoleButton]:
        return frozenset(s.button for s in self._buttons.values() if s.stuck)

    def pressed(self, button: ConsoleButton) -> bool:
        """The debounced state of a button (False if it is not configured)."""
        inp = self._inputs.get(f"buttons.{button.value}")
        return bool(inp and inp.stable)

    def chips_present(self, seat: int) -> bool:
        inp = self._inputs.get(f"chip_sensors.{seat}")
        return bool(inp and inp.stable)

    def raw_edges(self, key: str) -> int:
        """Raw edges delivered for an input key since start (before the filter)."""
        return self._inputs[key].edges

    # ------------------------------------------------------------------ plumbing

    def _add(
        self,
        key: str,
        device: Any,
        settle_s: float,
        on_change: Callable[[_Filtered, bool], None],
    ) -> None:
        assert self._loop is not None
        inp = _Filtered(key, device, settle_s, on_change, self._loop)
        self._inputs[key] = inp
        device.when_activated = partial(self._from_gpio, key, True)
        device.when_deactivated = partial(self._from_gpio, key, False)

    def _from_gpio(self, key: str, active: bool) -> None:
        """gpiozero's callback: any thread. Hand over to the loop, touch nothing else."""
        loop = self._loop
        if self._closed or loop is None:
            return
        at = time.monotonic()  # the edge's own time: the loop may take it late
        with contextlib.suppress(RuntimeError):  # the loop closed during shutdown
            loop.call_soon_threadsafe(self._on_edge, key, active, at)

    def _on_edge(self, key: str, active: bool, at: float) -> None:
        inp = self._inputs.get(key)
        if inp is not None and not self._closed:
            inp.edge(active, at)

    def _emit(self, event: ConsoleEvent) -> None:
        if self._sink is None or self._closed:
            return
        try:
            self._sink(event)
        except Exception:  # a faulty consumer must not stop the console
            log.exception("console event sink failed on %r", event)

    def _fault(self, fault: GpioFault) -> None:
        log.warning("gpio fault: %s", fault)
        if self._on_fault is not None:
            try:
                self._on_fault(fault)
            except Exception:
                log.exception("gpio fault sink failed on %r", fault)

    # ------------------------------------------------------------------ buttons

    def _button_changed(self, inp: _Filtered, pressed: bool) -> None:
        assert self._loop is not None
        state = self._buttons[inp.key]
        cfg = self.config
        if state.button is ConsoleButton.DECLARE or (pressed and self._armed is not None):
            self._declare_key(inp.key, state, pressed)
            return
        if pressed:
            state.long_fired = False
            state.stuck_timer = self._loop.call_later(cfg.stuck_s, self._stuck, inp.key)
            if state.button in cfg.long_press_buttons:
                hold_in = max(cfg.long_press_s - cfg.button_debounce_s, 0.0)
                state.hold = self._loop.call_later(hold_in, self._held, inp.key)
            else:
                self._emit(ButtonPress(self._clock(), state.button))
            return
        was_stuck, long_fired = state.stuck, state.long_fired
        state.cancel()
        state.stuck = False
        if was_stuck:
            self._fault(GpioFault(self._clock(), inp.key, "stuck", active=False))
        elif state.button in cfg.long_press_buttons and not long_fired:
            self._emit(ButtonPress(self._clock(), state.button))

    def _held(self, key: str) -> None:
        state = self._buttons[key]
        state.hold = None
        if self._inputs[key].stable and not state.long_fired:
            state.long_fired = True
            if state.button is ConsoleButton.DECLARE:
                self._disarm()
                self._emit(Declare(self._clock(), Declaration.NOT_A_CHECK))
                return
            self._emit(ButtonPress(self._clock(), state.button, long=True))

    # ------------------------------------------------------------------ declarations

    def _declare_key(self, key: str, state: _ButtonState, pressed: bool) -> None:
        """DECLARE is a shift key: DECLARE then a second button (its declaration legend)
        within ``declare_window_s`` records that declaration for the seat in turn; DECLARE
        twice is "raise"; DECLARE held ``long_press_s`` is "not a check". The second button
        does not also act as itself."""
        assert self._loop is not None
        cfg = self.config
        if pressed:
            state.long_fired = False
            state.stuck_timer = self._loop.call_later(cfg.stuck_s, self._stuck, key)
            if state.button is ConsoleButton.DECLARE and self._armed is None:
                hold_in = max(cfg.long_press_s - cfg.button_debounce_s, 0.0)
                state.hold = self._loop.call_later(hold_in, self._held, key)
                return
            word = DECLARE_KEYS.get(state.button)
            self._disarm()
            state.long_fired = True  # its release reports nothing
            if word is None:
                log.info("console: %s after DECLARE is no declaration; ignored", key)
                return
            self._emit(Declare(self._clock(), word))
            return
        was_stuck, long_fired = state.stuck, state.long_fired
        state.cancel()
        state.stuck = False
        if was_stuck:
            self._fault(GpioFault(self._clock(), key, "stuck", active=False))
        elif state.button is ConsoleButton.DECLARE and not long_fired:
            self._armed = self._loop.call_later(cfg.declare_window_s, self._window_over)

    def _window_over(self) -> None:
        self._armed = None
        log.info("console: DECLARE with no second press within the window; nothing recorded")

    def _disarm(self) -> None:
        if self._armed is not None:
            self._armed.cancel()
            self._armed = None

    def _stuck(self, key: str) -> None:
        state = self._buttons[key]
        state.stuck_timer = None
        if self._inputs[key].stable:
            state.stuck = True
            state.long_fired = True
            self._fault(GpioFault(self._clock(), key, "stuck", active=True))

    # ------------------------------------------------------------------ sensors

    def _sensor_changed(self, inp: _Filtered, active: bool) -> None:
        seat = self._seats[inp.key]
        t = self._clock()
        if inp.key.startswith("chip_sensors."):
            self._emit(ChipsIn(t, seat) if active else ChipsOut(t, seat))
        elif active:  # the dealer-button puck arrived at this seat
            self._emit(SetButton(t, seat))


def _bounce(seconds: float) -> float | None:
    return seconds if seconds > 0 else None


def _make(key: str, pin: int, cls: Any, **kwargs: Any) -> Any:
    from gpiozero import GPIOZeroError

    try:
        return cls(pin, **kwargs)
    except GPIOZeroError as exc:
        if type(exc).__name__ == "BadPinFactory":
            raise
        raise ConfigError(f"gpio.{key}: cannot use pin {pin}: {exc}") from exc
