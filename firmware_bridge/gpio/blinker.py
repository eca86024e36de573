"""Blink and beep patterns of the rail's outputs, all on one thread.

gpiozero's ``LED.blink`` and ``Buzzer.beep`` start a thread for every call, and join the
device's previous blink thread first. The dealer's alert starts a beep and a blink, so every
alert created two threads and joined two: about 0.7 ms of the daemon's CPU an alert on this
machine, 30% of the daemon's whole CPU in ``bench/e2e.py`` (docs/performance.md), held under
the GIL while the event loop waited for it. :class:`Blinker` runs every pattern of every
device on one thread that lives as long as the outputs: starting a pattern is a lock and a
notify, and the thread sleeps until the next edge of any pattern (with no pattern running it
waits without a timeout: no wakeups on an idle table).

A pattern is gpiozero's: on for ``on_s``, off for ``off_s``, ``n`` times (None: until stopped),
and the device is left off when it ends. A new pattern on a device replaces the one running
(from its start, with the device on); :meth:`Blinker.stop` ends it where it is, and the caller
sets the device as it wants it (the devices' own ``on()`` and ``off()`` are only called from
the blinker's thread while a pattern runs).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from firmware_bridge.gpio.config import BlinkPattern


class Output(Protocol):
    """What the blinker drives: a gpiozero ``OutputDevice`` (``LED``, ``Buzzer``) is one."""

    def on(self) -> None: ...

    def off(self) -> None: ...


@dataclass
class _Run:
    pattern: BlinkPattern
    lit: bool  # the device is on now (the pattern's on phase)
    edge: float  # when the next change is due
    left: int | None  # on phases still to start after this one (None: forever)


class Blinker:
    """Every running pattern (module docstring); ``clock`` is monotonic seconds."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, name: str = "gpio-blink"):
        self._clock = clock
        self._name = name
        self._cond = threading.Condition()
        self._runs: dict[int, tuple[Any, _Run]] = {}  # id(device) -> (device, its run)
        self._thread: threading.Thread | None = None
        self._closed = False

    @property
    def running(self) -> int:
        """How many devices have a pattern running."""
        with self._cond:
            return len(self._runs)

    @property
    def thread(self) -> threading.Thread | None:
        """The blinker's thread (started with the first pattern, ended by :meth:`close`)."""
        return self._thread

    def start(self, device: Output, pattern: BlinkPattern) -> None:
        """Run ``pattern`` on ``device`` from now (replacing the one running on it)."""
        if pattern.n is not None and pattern.n < 1:
            raise ValueError(f"a blink pattern needs n >= 1 or None, not {pattern.n}")
        if pattern.on_s < 0 or pattern.off_s < 0 or pattern.on_s + pattern.off_s <= 0:
            raise ValueError(f"a blink pattern needs times >= 0 and a period > 0: {pattern}")
        with self._cond:
            if self._closed:
                raise RuntimeError("the blinker is closed")
            device.on()
            left = None if pattern.n is None else pattern.n - 1
            self._runs[id(device)] = (device, _Run(pattern, True, self._clock() + pattern.on_s,
                                                   left))  # fmt: skip
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
                self._thread.start()
            self._cond.notify()

    def stop(self, device: Output) -> None:
        """End the pattern on ``device``, if any; the device stays as it is."""
        with self._cond:
            self._runs.pop(id(device), None)

    def close(self) -> None:
        """End every pattern and the thread (idempotent); the devices stay as they are."""
        with self._cond:
            self._closed = True
            self._runs.clear()
            self._cond.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _loop(self) -> None:
        with self._cond:
            while not self._closed:
                now = self._clock()
                due: float | None = None
                for key, (device, run) in list(self._runs.items()):
                    while run.edge <= now:  # (a late wakeup catches up, edge by edge)
                        if not self._step(key, device, run):
                            break
                    else:
                        due = run.edge if due is None else min(due, run.edge)
                self._cond.wait(None if due is None else max(0.0, due - now))

    def _step(self, key: int, device: Any, run: _Run) -> bool:
        """Take ``run`` past its next edge; False once it is over (the device left off)."""
        p = run.pattern
        if run.lit:
            device.off()
            run.lit = False
            if run.left == 0 and p.off_s <= 0:
                del self._runs[key]
                return False
            run.edge += p.off_s
            return True
        if run.left == 0:
            del self._runs[key]
            return False
        if run.left is not None:
            run.left -= 1
        device.on()
        run.lit = True
        run.edge += p.on_s
        return True
