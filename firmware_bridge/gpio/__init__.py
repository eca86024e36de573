"""GPIO: dealer console buttons, betting-zone and dealer-button sensors, LEDs and buzzer.

The daemon builds a :class:`GpioConfig` (``GpioConfig.from_mapping(toml["gpio"])``), then

    console = GpioConsole(config, pin_factory=None, on_fault=...)
    console.start(queue.put_nowait)          # on the loop thread; events of controller.rules.events
    lights = GpioIndicators(config)          # Indicators: set_action_seat/alert/status/clear

and closes both on shutdown. ``pin_factory=None`` is gpiozero's default (lgpio on a Pi);
tests and hwsim pass ``gpiozero.pins.mock.MockFactory()``.
"""

from firmware_bridge.gpio.config import (
    ALERT_LED_PATTERNS,
    BUZZER_PATTERNS,
    STATUS_LED_PATTERNS,
    BlinkPattern,
    GpioConfig,
    LinkStatus,
    Severity,
)
from firmware_bridge.gpio.console import (
    Console,
    ConsoleEvent,
    EventSink,
    FaultSink,
    GpioConsole,
    GpioFault,
)
from firmware_bridge.gpio.indicators import GpioIndicators, Indicators

__all__ = [
    "ALERT_LED_PATTERNS",
    "BUZZER_PATTERNS",
    "STATUS_LED_PATTERNS",
    "BlinkPattern",
    "Console",
    "ConsoleEvent",
    "EventSink",
    "FaultSink",
    "GpioConfig",
    "GpioConsole",
    "GpioFault",
    "GpioIndicators",
    "Indicators",
    "LinkStatus",
    "Severity",
]
