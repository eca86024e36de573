"""The daemon's console and badge inputs: the ``gpio`` and ``pcsc`` tasks.

- Console buttons and chip/puck sensors go to the core queue. ACK acknowledges every open
  alert (``alert_ack`` events; alert LED and buzzer off). A long press of ACK while no hand
  is running starts the button draw (``StartButtonDraw``), like the venue's
  ``button_draw`` command.
- Staff badges (PC/SC): a dealer badge logs the dealer in (``BadgeTap``, ``SetDealer``),
  a second tap logs them out; a supervisor badge is a supervisor ``BadgeTap``. The badge
  reader's status (``disabled``, ``no_service`` when pcscd is not reachable, ``no_reader``,
  ``ready``) is logged and carried in the live state's ``badge_reader``; the daemon runs on
  without it and the reader retries.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

from controller.daemon.clock import Clock
from controller.daemon.config import DaemonConfig
from controller.daemon.lights import NullIndicators
from controller.daemon.translate import ReaderInput
from controller.rules.engine import TableCore
from controller.rules.events import (
    ButtonPress,
    ChipsIn,
    ChipsOut,
    ConsoleButton,
    Event,
    StartButtonDraw,
)
from controller.rules.phases import Phase
from firmware_bridge.gpio import GpioConsole, GpioFault, GpioIndicators, Indicators
from firmware_bridge.pcsc import BadgeFactory, BadgeSource, PcscReader, PcscState, ReaderStatus

log = logging.getLogger("railguard.daemon")


class InputHost(Protocol):
    """What the inputs need of the daemon (``service.Daemon`` is one)."""

    cfg: DaemonConfig
    clock: Clock  # the console's and the badge reader's stamps
    pin_factory: Any
    badge_factory: BadgeFactory | None  # None: a PcscReader (pcscd)
    indicators: Indicators  # the GPIO task installs the real lights
    input: ReaderInput  # the chip sensors' presence, for the sweep
    open_alerts: list[str]
    badge_reader: str | None

    @property
    def core(self) -> TableCore: ...  # read only: phase, redeal_pending, dealer

    def put(self, ev: Event, source: str) -> None: ...

    def event(self, kind: str, data: dict[str, Any], hand_no: int | None = None) -> None: ...

    def publish_state(self) -> None: ...


#: phases in which no hand is running (a long ACK there starts the button draw)
NO_HAND = (Phase.IDLE, Phase.COMPLETE)


async def gpio_task(d: InputHost) -> None:
    def on_fault(fault: GpioFault) -> None:
        log.warning("gpio: %s %s (%s)", fault.key, fault.fault, "on" if fault.active else "off")

    console = GpioConsole(
        d.cfg.gpio, pin_factory=d.pin_factory, on_fault=on_fault, clock=d.clock.monotonic
    )
    lights = GpioIndicators(d.cfg.gpio, pin_factory=d.pin_factory)
    d.indicators = lights
    try:
        console.start(lambda ev: on_console(d, ev))
        await asyncio.Event().wait()
    finally:
        console.close()
        # no lights from now on: replacing them closes their thread after the calls queued
        # on it ran (a blink started after the devices closed would be refused by their
        # closed blinker), then the devices close
        d.indicators = NullIndicators()
        lights.close()


def on_console(d: InputHost, ev: Any) -> None:
    if isinstance(ev, ChipsIn | ChipsOut):
        for e in d.input.sensor(ev):
            d.put(e, "gpio")
        return
    if isinstance(ev, ButtonPress) and ev.button is ConsoleButton.ACK:
        if ev.long and draw_possible(d):
            log.info("console: long ACK press, button draw")
            d.put(StartButtonDraw(ev.t), "gpio")
            return
        acknowledge(d, list(d.open_alerts), by=d.core.dealer or "console")
    d.put(ev, "gpio")


def draw_possible(d: InputHost) -> bool:
    """No hand running and no misdeal/void being cleared."""
    core = d.core
    return core.phase in NO_HAND and not core.redeal_pending


def acknowledge(d: InputHost, alert_ids: list[str], *, by: str, publish: bool = True) -> None:
    """Alerts acknowledged (console ACK, or the venue's ack_alert whose event the link
    publishes itself): alert_ack events, and the alert LED and buzzer off."""
    for alert_id in alert_ids:
        if alert_id in d.open_alerts:
            d.open_alerts.remove(alert_id)
        if publish:
            d.event("alert_ack", {"alert_id": alert_id, "by": by})
        log.info("alert %s acknowledged by %s", alert_id, by)
    d.indicators.clear()


async def pcsc_task(d: InputHost) -> None:
    if not d.cfg.pcsc_enabled:
        log.info("pcsc: disabled")
        return

    def on_status(state: PcscState) -> None:
        status = state.status.value
        if state.status is ReaderStatus.NO_SERVICE:
            log.error("pcsc: badge reader unavailable (no PC/SC service: is pcscd running?):"
                      " %s; dealer and supervisor badges are not read", state.detail)  # fmt: skip
        elif state.status is ReaderStatus.NO_READER:
            log.warning("pcsc: no badge reader plugged in (%s)", state.detail)
        else:
            log.info("pcsc: %s %s", status, ", ".join(state.readers))
        d.badge_reader = status
        d.publish_state()

    d.badge_reader = "starting"
    on_event = lambda e: d.put(e, "pcsc")  # noqa: E731
    if d.badge_factory is None:  # pcscd, stamped by the daemon's clock
        reader: BadgeSource = PcscReader(d.cfg.badges, on_event=on_event, on_status=on_status,
                                         reader_filter=d.cfg.pcsc_filter, dealer=d.core.dealer,
                                         clock=d.clock.monotonic)  # fmt: skip
    else:  # a factory given: its own time source
        reader = d.badge_factory(d.cfg.badges, on_event=on_event, on_status=on_status,
                                 reader_filter=d.cfg.pcsc_filter, dealer=d.core.dealer)  # fmt: skip
    reader.start()
    try:
        await asyncio.Event().wait()
    finally:
        await asyncio.to_thread(reader.close)
