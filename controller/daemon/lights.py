"""The dealer's lights and buzzer, driven from their own thread.

gpiozero started a thread for every blink or beep and joined the previous one first, so one
``Indicators.alert`` on the event loop took about 0.5 ms, and up to 10 ms when the loop
waited for a blink thread or the GIL: in the way of the alert's MQTT publish, which comes
right after it (bench/e2e.py). The patterns now run on one thread for all the outputs
(firmware_bridge/gpio/blinker.py), and a call only switches a pin and wakes it; still, the
pins are hardware writes and the call takes the GIL. :class:`IndicatorLane` runs every call
of the wrapped :class:`~firmware_bridge.gpio.Indicators` on one worker thread, in the order
made, and returns at once. Reading an attribute of the lane (``current_alert``,
``action_seat``) waits for the calls made before it, so a reader sees their effect. A call
that fails is logged (e.g. after the devices were closed on shutdown).

The calls made on the event loop are handed to the thread ``DEFER`` (2 ms) later, together:
woken at once, the thread took the GIL as the loop went to select its sockets, and held it
(then gpiozero started and joined a blink thread) while the alert's MQTT message waited to be
written: 0.08 ms of the daemon's time per alert at the median and up to 3 ms in the tail
(bench/e2e.py, docs/performance.md). A dealer does not see 2 ms.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
from typing import Any, Final

from firmware_bridge.gpio import Indicators

log = logging.getLogger("railguard.daemon")

DEFER: Final = 0.002  # seconds from a call on the loop to the lights' thread (docstring)


class IndicatorLane:
    """:class:`~firmware_bridge.gpio.Indicators` on a worker thread (module docstring)."""

    def __init__(self, target: Indicators) -> None:
        self.target = target
        self._pool = concurrent.futures.ThreadPoolExecutor(1, "railguard-lights")
        self._seat: object = _UNSET  # the action seat last asked for: no repeat per event
        self._pending: list[tuple[str, tuple[Any, ...]]] = []  # calls not handed over yet
        self._timer: asyncio.TimerHandle | None = None

    def _call(self, name: str, *args: Any) -> None:
        self._pending.append((name, args))
        if self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not on a loop: at once
            self._flush()
            return
        self._timer = loop.call_later(DEFER, self._flush)

    def _flush(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        calls, self._pending = self._pending, []
        if not calls:
            return
        try:
            self._pool.submit(self._run_all, calls)
        except RuntimeError:  # closed (the daemon stops): the devices are off already
            log.debug("lights: %r after close", calls)

    def _run_all(self, calls: list[tuple[str, tuple[Any, ...]]]) -> None:
        for name, args in calls:
            try:
                getattr(self.target, name)(*args)
            except Exception:
                log.exception("lights: %s%r failed", name, args)

    def set_action_seat(self, seat: int | None) -> None:
        if seat != self._seat:
            self._seat = seat
            self._call("set_action_seat", seat)

    def alert(self, severity: Any) -> None:
        self._call("alert", severity)

    def status(self, status: Any) -> None:
        self._call("status", status)

    def clear(self) -> None:
        self._call("clear")

    def drain(self) -> None:
        """Wait until every call made so far has run."""
        self._flush()
        with contextlib.suppress(RuntimeError):  # closed: nothing runs any more
            self._pool.submit(lambda: None).result()

    def close(self) -> None:
        """Run what is queued, then stop the thread."""
        self._flush()
        self._pool.shutdown(wait=True)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        self.drain()
        return getattr(self.target, name)


_UNSET = object()


class NullIndicators:
    """No lights: the daemon's until the GPIO task installs the real ones, and after it
    took them down (controller/daemon/inputs.py)."""

    def set_action_seat(self, seat: int | None) -> None:
        pass

    def alert(self, severity: Any) -> None:
        pass

    def status(self, status: Any) -> None:
        pass

    def clear(self) -> None:
        pass
