"""The rail's outputs: an action LED per seat, the alert LED, the status LED and the buzzer.

Blinking and beeping run on one thread for all the outputs (:mod:`firmware_bridge.gpio.blinker`;
gpiozero's own ``blink`` and ``beep`` start a thread a call and join the previous one). The
daemon makes these calls from one worker thread (controller/daemon/lights.py,
``IndicatorLane``), not on its event loop. Patterns per severity/status are in
:mod:`firmware_bridge.gpio.config`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from firmware_bridge.gpio.blinker import Blinker
from firmware_bridge.gpio.config import (
    ALERT_LED_PATTERNS,
    BUZZER_PATTERNS,
    STATUS_LED_PATTERNS,
    BlinkPattern,
    GpioConfig,
    LinkStatus,
    Severity,
)
from firmware_bridge.gpio.console import _make

log = logging.getLogger(__name__)

_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.CRITICAL: 2}


@runtime_checkable
class Indicators(Protocol):
    """What the daemon drives: GPIO hardware, hwsim, or a null implementation."""

    def set_action_seat(self, seat: int | None) -> None:
        """Light the action LED of ``seat`` only; None turns them all off."""

    def alert(self, severity: Severity | str) -> None:
        """Sound and show an alert; a repeating (critical) alert runs until ``clear()``."""

    def status(self, status: LinkStatus | str) -> None:
        """Show the daemon's health: ok (steady), degraded (slow blink), offline (flash)."""

    def clear(self) -> None:
        """Silence the buzzer and turn the alert LED off (action seat and status stay)."""


class GpioIndicators:
    """:class:`Indicators` on gpiozero ``LED`` and ``Buzzer`` devices (all active high)."""

    def __init__(
        self,
        config: GpioConfig,
        *,
        pin_factory: Any = None,
        buzzer_patterns: Mapping[Severity, BlinkPattern] = BUZZER_PATTERNS,
        alert_patterns: Mapping[Severity, BlinkPattern] = ALERT_LED_PATTERNS,
    ) -> None:
        from gpiozero import LED, Buzzer

        self.config = config
        self._buzzer_patterns = buzzer_patterns
        self._alert_patterns = alert_patterns
        self._devices: list[Any] = []
        self._action: dict[int, Any] = {}
        self._alert_led: Any = None
        self._status_led: Any = None
        self._buzzer: Any = None
        self._seat: int | None = None
        self._status: LinkStatus | None = None
        self._alerting: Severity | None = None  # a repeating alert still running
        self.blinker = Blinker()
        try:
            for seat, pin in sorted(config.action_leds.items()):
                self._action[seat] = self._own(
                    _make(f"action_leds.{seat}", pin, LED, pin_factory=pin_factory)
                )
            if config.alert_led is not None:
                self._alert_led = self._own(
                    _make("alert_led", config.alert_led, LED, pin_factory=pin_factory)
                )
            if config.status_led is not None:
                self._status_led = self._own(
                    _make("status_led", config.status_led, LED, pin_factory=pin_factory)
                )
            if config.buzzer is not None:
                self._buzzer = self._own(
                    _make("buzzer", config.buzzer, Buzzer, pin_factory=pin_factory)
                )
        except BaseException:
            self.close()
            raise

    def _own(self, device: Any) -> Any:
        self._devices.append(device)
        return device

    # ------------------------------------------------------------------ Indicators

    @property
    def action_seat(self) -> int | None:
        return self._seat

    @property
    def current_status(self) -> LinkStatus | None:
        return self._status

    @property
    def current_alert(self) -> Severity | None:
        """The repeating alert still sounding, if any."""
        return self._alerting

    def set_action_seat(self, seat: int | None) -> None:
        if seat is not None and seat not in self._action:
            log.debug("no action LED for seat %s", seat)
        self._seat = seat
        for number, led in self._action.items():
            if number == seat:
                led.on()
            else:
                led.off()

    def alert(self, severity: Severity | str) -> None:
        sev = Severity(severity)
        if self._alerting is not None and _RANK[self._alerting] > _RANK[sev]:
            return  # a more severe alarm is still running until cleared
        buzz = self._buzzer_patterns[sev]
        light = self._alert_patterns[sev]
        if self._buzzer is not None:
            self.blinker.start(self._buzzer, buzz)
        if self._alert_led is not None:
            self.blinker.start(self._alert_led, light)
        self._alerting = sev if (buzz.repeats or light.repeats) else None

    def status(self, status: LinkStatus | str) -> None:
        st = LinkStatus(status)
        self._status = st
        if self._status_led is None:
            return
        pattern = STATUS_LED_PATTERNS[st]
        if pattern is None:
            self.blinker.stop(self._status_led)
            self._status_led.on()
        else:
            self.blinker.start(self._status_led, pattern)

    def clear(self) -> None:
        self._alerting = None
        for device in (self._buzzer, self._alert_led):
            if device is not None:
                self.blinker.stop(device)
                device.off()

    def close(self) -> None:
        """Turn everything off and release the pins. Idempotent."""
        self.blinker.close()
        devices, self._devices = self._devices, []
        for device in devices:
            try:
                device.off()
                device.close()
            except Exception:
                log.exception("closing %r", device)

    def __enter__(self) -> GpioIndicators:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
