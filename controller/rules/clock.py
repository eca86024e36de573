"""The clock on a player (002 Calling for a Clock [L81]; G8 in every profile): started from
the console, a countdown, then the hand is dead. Split out of ``betting.py``, which still
exports both functions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules import betting, rounds
from controller.rules.decisions import AlertCode, Severity
from controller.rules.errors import TableError
from controller.rules.phases import Phase

if TYPE_CHECKING:
    from controller.rules.engine import TableCore


def start_clock(core: TableCore) -> None:
    h = core.hand
    if h is None or core.phase is not Phase.BETTING or not h.pointer:
        raise TableError("no_action", "nobody is to act: no clock")
    h.clock_seat = h.pointer
    h.clock_deadline = core.t + core.profile.clock_seconds
    h.clock_warned = False
    core.alert(
        AlertCode.CLOCK_STARTED,
        Severity.INFO,
        "002 Calling for a Clock [L81]; G8",
        f"Clock on seat {h.pointer}: {core.profile.clock_seconds:g} seconds to act",
        h.pointer,
    )


def clock_tick(core: TableCore, t: float) -> None:
    h = core.hand
    assert h is not None
    seat = h.clock_seat
    if core.phase is not Phase.BETTING or h.pointer != seat:
        h.clock_seat = 0
        return
    saved_t = core.t
    if t >= h.clock_deadline and not h.clock_warned:
        h.clock_warned = True
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
        h.clock_seat = 0
        p = h.players[seat]
        p.folded = True
        core.alert(
            AlertCode.CLOCK_EXPIRED,
            Severity.WARNING,
            "002 Calling for a Clock [L81]",
            f"Seat {seat}: time is up, the hand is dead; muck it",
            seat,
        )
        rounds.record(core, h, seat, "fold", 0)
        betting.after_change(core)
    core.t = max(saved_t, core.t)
