"""The tournament clock: levels advance on schedule (000 [L35]: "Limits and blinds are raised
at regularly scheduled intervals"; [L36]: blinds follow the clock whether announced or not),
with pause, resume, time adjusted and breaks. Pure: every call is given the time ``now``
(Unix seconds); the service asks which level is due and pushes a change to the tables, which
apply it at their next hand (G11).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from controller.tournament.errors import Refused
from controller.tournament.event import Level


@dataclass(frozen=True, slots=True)
class Due:
    """Where the schedule stands at a moment."""

    index: int  # into the schedule (a break is an entry)
    level: Level
    seconds_left: float  # of this entry; at the last entry it counts on past zero as 0
    next: Level | None
    playing: Level  # the blinds in force: the level itself, or during a break the one before
    paused: bool


@dataclass(frozen=True, slots=True)
class Clock:
    """The clock's state: started at ``started`` (None: not started), ``paused_at`` while
    paused, ``paused_for`` the seconds spent paused so far and ``adjusted`` the seconds added
    by the director (positive: the level is further on)."""

    started: float | None = None
    paused_at: float | None = None
    paused_for: float = 0.0
    adjusted: float = 0.0

    def start(self, now: float) -> Clock:
        if self.started is not None:
            raise Refused("clock_started", "the clock is already started")
        return replace(self, started=now)

    def pause(self, now: float) -> Clock:
        if self.started is None:
            raise Refused("clock_not_started", "the clock is not started")
        if self.paused_at is not None:
            raise Refused("clock_paused", "the clock is already paused")
        return replace(self, paused_at=now)

    def resume(self, now: float) -> Clock:
        if self.paused_at is None:
            raise Refused("clock_running", "the clock is not paused")
        return replace(self, paused_at=None, paused_for=self.paused_for + (now - self.paused_at))

    def adjust(self, seconds: float) -> Clock:
        """Move the clock on (positive) or back (negative) by ``seconds``."""
        if self.started is None:
            raise Refused("clock_not_started", "the clock is not started")
        return replace(self, adjusted=self.adjusted + seconds)

    def elapsed(self, now: float) -> float:
        if self.started is None:
            return 0.0
        until = self.paused_at if self.paused_at is not None else now
        return max(0.0, until - self.started - self.paused_for + self.adjusted)

    def due(self, levels: tuple[Level, ...], now: float) -> Due:
        """The schedule's entry at ``now`` (the first level before the start)."""
        t = self.elapsed(now)
        index = 0
        for index, lv in enumerate(levels):
            if t < lv.seconds or index == len(levels) - 1:
                break
            t -= lv.seconds
        level = levels[index]
        left = max(0.0, level.seconds - t)
        nxt = levels[index + 1] if index + 1 < len(levels) else None
        playing = level
        if level.is_break:
            playing = next(x for x in reversed(levels[:index]) if not x.is_break)
        return Due(index, level, left, nxt, playing, self.paused_at is not None)
