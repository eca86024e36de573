"""Pin map of the dealer console, the betting-zone sensors and the rail's outputs.

Pins are BCM GPIO numbers (``GPIO17`` is ``17``). :class:`GpioConfig` validates itself on
construction; every error is a :class:`~controller.rules.errors.ConfigError` whose message
starts with the offending key (``gpio.buttons.misdeal: ...``), so an operator can find it in
the configuration file.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from controller.rules.errors import ConfigError
from controller.rules.events import ConsoleButton, Declaration

#: BCM GPIOs on the 40-pin header of every Pi since the B+ (GPIO0/1 are the HAT ID EEPROM).
VALID_BCM = range(28)
#: Pins the defaults keep free: ID EEPROM (0, 1), I2C for an expander (2, 3), the PL011
#: UART that the reader board may use (14, 15).
RESERVED_BCM = frozenset({0, 1, 2, 3, 14, 15})


class Severity(StrEnum):
    INFO = "info"
    WARNING = "warning"
    CRITICAL = "critical"


class LinkStatus(StrEnum):
    OK = "ok"
    DEGRADED = "degraded"
    OFFLINE = "offline"


@dataclass(frozen=True, slots=True)
class BlinkPattern:
    """``n`` pulses of ``on_s`` separated by ``off_s``; ``n=None`` repeats until cleared."""

    on_s: float
    off_s: float
    n: int | None

    @property
    def repeats(self) -> bool:
        return self.n is None


#: The buzzer per severity: one short chirp, two beeps, then a repeating alarm until the
#: daemon calls ``clear()`` (the dealer acknowledges).
BUZZER_PATTERNS: Mapping[Severity, BlinkPattern] = MappingProxyType(
    {
        Severity.INFO: BlinkPattern(0.08, 0.0, 1),
        Severity.WARNING: BlinkPattern(0.15, 0.10, 2),
        Severity.CRITICAL: BlinkPattern(0.30, 0.20, None),
    }
)
#: The alert LED per severity: one 1 s flash, slow blink, fast blink (until ``clear()``).
ALERT_LED_PATTERNS: Mapping[Severity, BlinkPattern] = MappingProxyType(
    {
        Severity.INFO: BlinkPattern(1.0, 0.0, 1),
        Severity.WARNING: BlinkPattern(0.5, 0.5, None),
        Severity.CRITICAL: BlinkPattern(0.15, 0.15, None),
    }
)
#: The status LED: steady on, slow blink, short flash once a second. Off = daemon not running.
STATUS_LED_PATTERNS: Mapping[LinkStatus, BlinkPattern | None] = MappingProxyType(
    {
        LinkStatus.OK: None,  # steady on
        LinkStatus.DEGRADED: BlinkPattern(0.5, 0.5, None),
        LinkStatus.OFFLINE: BlinkPattern(0.1, 0.9, None),
    }
)

DEFAULT_BUTTONS: Mapping[ConsoleButton, int] = MappingProxyType(
    {
        ConsoleButton.EXPOSED: 5,
        ConsoleButton.BOXED: 6,
        ConsoleButton.MISDEAL: 13,
        ConsoleButton.FLOOR: 19,
        ConsoleButton.CLOCK: 26,
        ConsoleButton.ACK: 21,
        ConsoleButton.DECLARE: 20,
    }
)
#: DECLARE, then within ``declare_window_s`` this button: the declaration recorded for the
#: seat in turn (DECLARE twice: raise; DECLARE held ``long_press_s``: "not a check").
#: docs/hardware-gpio-pcsc.md has the console legend.
DECLARE_KEYS: Mapping[ConsoleButton, Declaration] = MappingProxyType(
    {
        ConsoleButton.DECLARE: Declaration.RAISE,
        ConsoleButton.ACK: Declaration.CALL,
        ConsoleButton.CLOCK: Declaration.CHECK,
        ConsoleButton.MISDEAL: Declaration.FOLD,
        ConsoleButton.FLOOR: Declaration.ALL_IN,
        ConsoleButton.EXPOSED: Declaration.PLAY_BOARD,
    }
)
DEFAULT_CHIP_SENSORS: Mapping[int, int] = MappingProxyType({1: 4, 2: 17, 3: 27, 4: 22, 5: 10, 6: 9})
DEFAULT_ACTION_LEDS: Mapping[int, int] = MappingProxyType({1: 11, 2: 7, 3: 8, 4: 25, 5: 24, 6: 23})
DEFAULT_ALERT_LED = 12
DEFAULT_STATUS_LED = 16
DEFAULT_BUZZER = 18
DEFAULT_LONG_PRESS: frozenset[ConsoleButton] = frozenset(
    {ConsoleButton.MISDEAL, ConsoleButton.CLOCK, ConsoleButton.ACK}
)


@dataclass(frozen=True)
class GpioConfig:
    """Which BCM pin each device is on, and the input timing.

    Buttons are wired to ground (internal pull-up, pressed = low). Sensors are active low
    by default (open-collector IR reflective sensors); set ``sensors_active_high``.
    Outputs are active high. ``None`` (or an empty mapping) leaves a device out.
    """

    buttons: Mapping[ConsoleButton, int] = field(default_factory=lambda: dict(DEFAULT_BUTTONS))
    chip_sensors: Mapping[int, int] = field(default_factory=lambda: dict(DEFAULT_CHIP_SENSORS))
    puck_sensors: Mapping[int, int] = field(default_factory=dict)
    action_leds: Mapping[int, int] = field(default_factory=lambda: dict(DEFAULT_ACTION_LEDS))
    alert_led: int | None = DEFAULT_ALERT_LED
    status_led: int | None = DEFAULT_STATUS_LED
    buzzer: int | None = DEFAULT_BUZZER
    #: a button edge counts once the level has been stable this long (software filter,
    #: also handed to gpiozero as ``bounce_time`` for the kernel/lgpio debounce)
    button_debounce_s: float = 0.03
    #: a sensor change counts once stable this long: a hand passing over is not a bet
    sensor_settle_s: float = 0.15
    #: held this long, a long-press button reports ``ButtonPress(long=True)``
    long_press_s: float = 1.0
    #: buttons that distinguish short and long presses (they report on release or at
    #: ``long_press_s``); the others report at once, on the press
    long_press_buttons: frozenset[ConsoleButton] = DEFAULT_LONG_PRESS
    #: held this long, a button is reported stuck (a fault, not a press)
    stuck_s: float = 10.0
    sensors_active_high: bool = False
    #: after a DECLARE press, the second press that picks the declaration must come within
    #: this long (else nothing is recorded)
    declare_window_s: float = 2.0

    def __post_init__(self) -> None:
        self._validate()

    # ------------------------------------------------------------------ validation

    def pin_items(self) -> list[tuple[str, int]]:
        """Every (key, pin) in a stable order: buttons, sensors, outputs."""
        items: list[tuple[str, int]] = []
        items += [(f"buttons.{b.value}", p) for b, p in self.buttons.items()]
        items += [(f"chip_sensors.{s}", p) for s, p in sorted(self.chip_sensors.items())]
        items += [(f"puck_sensors.{s}", p) for s, p in sorted(self.puck_sensors.items())]
        items += [(f"action_leds.{s}", p) for s, p in sorted(self.action_leds.items())]
        for key in ("alert_led", "status_led", "buzzer"):
            pin = getattr(self, key)
            if pin is not None:
                items.append((key, pin))
        return items

    def _validate(self) -> None:
        for button in self.buttons:
            if not isinstance(button, ConsoleButton):
                raise ConfigError(f"gpio.buttons.{button}: unknown console button")
        for table in ("chip_sensors", "puck_sensors", "action_leds"):
            for seat in getattr(self, table):
                if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= 10:
                    raise ConfigError(f"gpio.{table}.{seat}: seat must be 1..10")
        for button in self.long_press_buttons:
            if not isinstance(button, ConsoleButton):
                raise ConfigError(f"gpio.long_press_buttons: unknown console button {button!r}")
        for key in ("button_debounce_s", "sensor_settle_s"):
            if not 0 <= getattr(self, key) <= 1:
                raise ConfigError(f"gpio.{key}: must be between 0 and 1 second")
        if not self.long_press_s > self.button_debounce_s:
            raise ConfigError("gpio.long_press_s: must be longer than button_debounce_s")
        if not self.stuck_s > self.long_press_s:
            raise ConfigError("gpio.stuck_s: must be longer than long_press_s")
        if not 0.2 <= self.declare_window_s <= 10:
            raise ConfigError("gpio.declare_window_s: must be between 0.2 and 10 seconds")
        seen: dict[int, str] = {}
        for key, pin in self.pin_items():
            if isinstance(pin, bool) or not isinstance(pin, int) or pin not in VALID_BCM:
                raise ConfigError(f"gpio.{key}: unknown pin {pin!r} (BCM GPIO 0..27)")
            if pin in seen:
                raise ConfigError(f"gpio.{key}: pin {pin} is already used by gpio.{seen[pin]}")
            seen[pin] = key

    # ------------------------------------------------------------------ parsing

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], prefix: str = "gpio") -> GpioConfig:
        """Build from a parsed TOML/JSON table; unknown keys are errors naming the key.

        Mappings default as in the class when absent; give ``{}`` to leave a group out and
        ``false`` for a single output (``buzzer = false``).
        """
        known = {
            "buttons", "chip_sensors", "puck_sensors", "action_leds", "alert_led",
            "status_led", "buzzer", "button_debounce_s", "sensor_settle_s", "long_press_s",
            "long_press_buttons", "stuck_s", "sensors_active_high", "declare_window_s",
        }  # fmt: skip
        for key in data:
            if key not in known:
                raise ConfigError(f"{prefix}.{key}: unknown key")
        kwargs: dict[str, Any] = {}
        if "buttons" in data:
            kwargs["buttons"] = {
                _button(f"{prefix}.buttons.{name}", name): _pin(f"{prefix}.buttons.{name}", p)
                for name, p in _table(f"{prefix}.buttons", data["buttons"]).items()
            }
        for table in ("chip_sensors", "puck_sensors", "action_leds"):
            if table in data:
                kwargs[table] = {
                    _seat(f"{prefix}.{table}.{s}", s): _pin(f"{prefix}.{table}.{s}", p)
                    for s, p in _table(f"{prefix}.{table}", data[table]).items()
                }
        for key in ("alert_led", "status_led", "buzzer"):
            if key in data:
                value = data[key]
                kwargs[key] = (
                    None if value is False or value is None else _pin(f"{prefix}.{key}", value)
                )
        for key in ("button_debounce_s", "sensor_settle_s", "long_press_s", "stuck_s",
                    "declare_window_s"):  # fmt: skip
            if key in data:
                value = data[key]
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise ConfigError(f"{prefix}.{key}: expected seconds, got {value!r}")
                kwargs[key] = float(value)
        if "long_press_buttons" in data:
            names = data["long_press_buttons"]
            if not isinstance(names, list | tuple):
                raise ConfigError(f"{prefix}.long_press_buttons: expected a list of buttons")
            kwargs["long_press_buttons"] = frozenset(
                _button(f"{prefix}.long_press_buttons", n) for n in names
            )
        if "sensors_active_high" in data:
            if not isinstance(data["sensors_active_high"], bool):
                raise ConfigError(f"{prefix}.sensors_active_high: expected true or false")
            kwargs["sensors_active_high"] = data["sensors_active_high"]
        return cls(**kwargs)


def _table(key: str, value: object) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{key}: expected a table")
    return {str(k): v for k, v in value.items()}


def _button(key: str, name: object) -> ConsoleButton:
    try:
        return ConsoleButton(str(name).lower())
    except ValueError:
        choices = ", ".join(b.value for b in ConsoleButton)
        raise ConfigError(f"{key}: unknown console button {name!r} ({choices})") from None


def _seat(key: str, seat: object) -> int:
    try:
        number = int(str(seat))
    except ValueError:
        raise ConfigError(f"{key}: seat must be a number 1..10") from None
    if not 1 <= number <= 10:
        raise ConfigError(f"{key}: seat must be 1..10")
    return number


def _pin(key: str, pin: object) -> int:
    if isinstance(pin, str) and pin.upper().startswith("GPIO") and pin[4:].isdigit():
        pin = int(pin[4:])
    if isinstance(pin, bool) or not isinstance(pin, int) or pin not in VALID_BCM:
        raise ConfigError(f"{key}: unknown pin {pin!r} (BCM GPIO 0..27)")
    return pin
