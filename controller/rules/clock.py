"""The clock on a player (002 Calling for a Clock [L81]; G8 in every profile): started from
the console, a countdown, then the hand is dead (``betting.clock_tick`` folds it). The clock's state
(``clock_state``: off, running, countdown, changed through ``TableCore.shift`` as the
transition table's ``ClockState`` rows allow; ``clock_seat``, ``clock_deadline``) is written
here only: the concerns stop it with :func:`stop`; this module imports no concern."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.rules.decisions import AlertCode, Severity
from controller.rules.errors import TableError
from controller.rules.phases import ClockState, Phase

_OFF: Final = ClockState.OFF  # (an Enum class's attribute is a Python-level lookup)

if TYPE_CHECKING:
    from controller.rules.engine import TableCore
    from controller.rules.hand import Hand


def start_clock(core: TableCore) -> None:
    h = core.hand
    if h is None or core.phase is not Phase.BETTING or not h.pointer:
        raise TableError("no_action", "nobody is to act: no clock")
    h.clock_state = core.shift(h.clock_state, ClockState.RUNNING)
    h.clock_seat = h.pointer
    h.clock_deadline = core.t + core.profile.clock_seconds
    core.alert(
        AlertCode.CLOCK_STARTED,
        Severity.INFO,
        "002 Calling for a Clock [L81]; G8",
        f"Clock on seat {h.pointer}: {core.profile.clock_seconds:g} seconds to act",
        h.pointer,
    )


def stop(core: TableCore, h: Hand, seat: int = 0) -> None:
    """The clock is off: the round closed, or (``seat``) the seat on the clock acted or its
    hand is dead."""
    if h.clock_state is not _OFF and (not seat or h.clock_seat == seat):
        h.clock_state = core.shift(h.clock_state, ClockState.OFF)
        h.clock_seat = 0


def tick(core: TableCore, t: float) -> int:
    """The clock run to ``t``: the countdown's warning, then the seat whose time is up (its
    hand is dead: ``betting.clock_tick`` folds it), else 0. ``core.t`` is left at the
    moment of the last alert."""
    h = core.hand
    assert h is not None
    seat = h.clock_seat
    if core.phase is not Phase.BETTING or h.pointer != seat:
        h.clock_state = core.shift(h.clock_state, ClockState.OFF)
        h.clock_seat = 0
        return 0
    if t >= h.clock_deadline and h.clock_state is ClockState.RUNNING:
        h.clock_state = core.shift(h.clock_state, ClockState.COUNTDOWN)
        core.t = h.clock_deadline
        core.alert(
            AlertCode.CLOCK_COUNTDOWN,
            Severity.WARNING,
            "002 Calling for a Clock [L81]",
            f"Seat {seat}: {core.profile.clock_countdown_seconds:g}-second countdown",
            seat,
        )
    end = h.clock_deadline + core.profile.clock_countdown_seconds
    if t >= end:
        core.t = end
        h.clock_state = core.shift(h.clock_state, ClockState.OFF)
        h.clock_seat = 0
        return seat
    return 0
