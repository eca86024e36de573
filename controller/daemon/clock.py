"""The daemon's clock: one object it is given (``Daemon(cfg, clock=...)``), read by every
part that stamps an event, compares times or waits, and handed to the drivers it builds
(the reader link, the console, the badge reader) as their time source.

- :class:`SystemClock` (the default): ``time.monotonic``, ``time.time``, ``asyncio.sleep``.
- :class:`ShiftedClock`: the system clock plus an offset that only grows
  (:meth:`ShiftedClock.advance`): the scenario rig's ``wait 70`` makes 70 seconds pass for the
  whole daemon at once (the rules core's countdown, the reader's cycle timing, the console's
  stamps), while everything else keeps real time.
- :class:`ManualClock`: time moves only when told (:meth:`ManualClock.advance`; ``sleep``
  advances it): the core-only scenario rig and tests that must not depend on the machine's
  speed.

Events read in one scan cycle share a ``t`` because the tracker stamps them with the cycle's
time, whichever clock it came from.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Protocol

__all__ = ["Clock", "ManualClock", "ShiftedClock", "SystemClock"]


class Clock(Protocol):
    """What the daemon asks of its clock."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back (events' ``t``, timers, timeouts)."""
        ...

    def wall(self) -> float:
        """Seconds since the epoch (hand records' start and end)."""
        ...

    async def sleep(self, seconds: float) -> None: ...


def utc(clock: Clock) -> datetime:
    """The clock's wall time as an aware UTC datetime."""
    return datetime.fromtimestamp(clock.wall(), UTC)


class SystemClock:
    """The machine's clocks (the daemon's default)."""

    def monotonic(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class ShiftedClock(SystemClock):
    """The system clock, ``offset`` seconds ahead; :meth:`advance` moves it further."""

    def __init__(self) -> None:
        self.offset = 0.0

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"a clock does not go back ({seconds} s)")
        self.offset += seconds

    def monotonic(self) -> float:
        return time.monotonic() + self.offset

    def wall(self) -> float:
        return time.time() + self.offset


class ManualClock:
    """A clock that moves only when told: :meth:`advance`, or :meth:`sleep` (which returns at
    once, the time having passed)."""

    def __init__(self, start: float = 1000.0, wall_start: float = 1_767_225_600.0) -> None:
        self.now = start
        self._wall_offset = wall_start - start  # 2026-01-01 UTC at ``start``

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"a clock does not go back ({seconds} s)")
        self.now += seconds

    def monotonic(self) -> float:
        return self.now

    def wall(self) -> float:
        return self.now + self._wall_offset

    async def sleep(self, seconds: float) -> None:
        self.advance(max(0.0, seconds))
        await asyncio.sleep(0)
