"""The floor as a ruling (issue 13): where a house's rulebook leaves the remedy to the floor,
the core neither misdeals on its own nor lets the hand go on unremarked. It alerts, calls the
floor and holds the hand until a supervisor's badge decides with a console button: MISDEAL =
misdeal, ACK = play on. The decision is an alert of its own (``FLOOR_DECISION``, with the
badge), so it is on the venue's alert topic and in the hand record's alerts.

While the hand is held the dealer's MISDEAL and ACK wait for the badge; chips put in are
flagged (FLOOR_PENDING) and taken as they come, so that "play on" loses nothing, and a
misdeal returns them.

This module calls no concern: a ruling that needs one returns it (:class:`Ruled`: the
handler calls ``misdeal.force_misdeal``), so every concern can call the floor's named
functions (``wagers`` does: :func:`oot_ruled`)."""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Final

from controller.rules.decisions import AlertCode, Severity
from controller.rules.events import ConsoleButton
from controller.rules.phases import FloorHold

if TYPE_CHECKING:
    from controller.rules.engine import TableCore
    from controller.rules.hand import Hand

# what the floor's "play on" means for each kind of hold
FIRST_SEAT = "first-seat"  # the deal goes on clockwise from the seat that got the first card
FOREIGN = "foreign-card"  # the foreign card is taken out and replaced by the next card
WAITING_DEALT = "waiting-dealt"  # the new player plays the hand dealt to him (entitled.py)
DEALT_OUT = "dealt-out"  # the seat dealt out has no hand; its blinds stay (entitled.py)

# the sub-states in which the hand is held (Hand.floor_hold is then the kind of hold)
HOLDS: Final = (FloorHold.HELD, FloorHold.RULING)
# no hold, no badge: nearly always (a module constant: an Enum class's attribute is a
# Python-level lookup; ``in HOLDS`` compares by ``==`` after ``is``)
NO_HOLD: Final = FloorHold.NONE


class Ruled(Enum):
    """What the floor made of a console button (:func:`button`), for the handler: not the
    floor's (the button does what it always does), taken by the ruling, or a misdeal the
    floor ruled (the handler has ``misdeal.force_misdeal`` do it)."""

    NOT_TAKEN = "not taken"
    TAKEN = "taken"
    MISDEAL = "misdeal"


def hold(core: TableCore, h: Hand, kind: str) -> None:
    """The hand is held for the floor (``kind``: which hold; retrieve.py's too), no badge yet.
    The hold's state (``floor_state``, ``floor_hold``, ``floor_badge``) is written here only
    (the sub-state through ``TableCore.shift``: the transition table's ``FloorHold`` rows)."""
    h.floor_state = core.shift(h.floor_state, FloorHold.HELD)
    h.floor_hold = kind
    h.floor_badge = ""


def badge_tapped(core: TableCore, h: Hand, badge_id: str) -> None:
    h.floor_state = core.shift(h.floor_state, FloorHold.RULING)
    h.floor_badge = badge_id


def release(core: TableCore, h: Hand) -> str:
    """The hold ends; the badge that ruled it (or "")."""
    who = h.floor_badge
    h.floor_state = core.shift(h.floor_state, FloorHold.NONE)
    h.floor_hold = h.floor_badge = ""
    return who


def call(
    core: TableCore, kind: str, code: AlertCode, clause: str, why: str, seat: int, tag: str
) -> None:
    h = core.hand
    assert h is not None
    hold(core, h, kind)
    core.alert(
        code,
        Severity.WARNING,
        clause,
        f"Floor decision: {why}. Call the floor; the hand is held until the supervisor's "
        "badge and MISDEAL (misdeal) or ACK (play on)",
        seat,
        tag,
    )


def held(core: TableCore) -> bool:
    h = core.hand
    return h is not None and h.floor_state in HOLDS


def badge(core: TableCore, badge_id: str) -> None:
    h = core.hand
    assert h is not None
    badge_tapped(core, h, badge_id)
    core.instruct(f"Floor ({badge_id}): press MISDEAL for a misdeal, ACK to play on")


def button(core: TableCore, b: ConsoleButton) -> Ruled:
    """A console button while the hand is held: whether the floor ruling took it, and a
    misdeal it ruled (the handler calls ``misdeal.force_misdeal``)."""
    h = core.hand
    assert h is not None
    if b is not ConsoleButton.MISDEAL and b is not ConsoleButton.ACK:
        return Ruled.NOT_TAKEN
    if not h.floor_badge:
        core.instruct("The hand is held for the floor: the supervisor's badge first")
        return Ruled.TAKEN
    kind = h.floor_hold
    who = release(core, h)
    if b is ConsoleButton.MISDEAL:
        _decision(core, who, "misdeal")
        return Ruled.MISDEAL
    _decision(core, who, "play on")
    if kind == FIRST_SEAT:
        core.instruct("Play on: deal on clockwise from the seat that got the first card")
    elif kind == FOREIGN:
        core.instruct("Play on: the foreign card is taken out and replaced by the next card")
    elif kind == WAITING_DEALT:
        core.instruct("Play on: the new player plays the hand dealt to him")
    elif kind == DEALT_OUT:
        core.instruct("Play on: the seat dealt out has no hand; its blinds stay in the pot")
    return Ruled.TAKEN


def chips_held(core: TableCore, seat: int) -> None:
    core.alert(
        AlertCode.FLOOR_PENDING,
        Severity.WARNING,
        "floor ruling pending",
        f"Seat {seat}: the hand is held for the floor; wait for the ruling (the chips stand "
        "if the floor rules play on, and come back on a misdeal)",
        seat,
    )


def _decision(core: TableCore, who: str, what: str) -> None:
    core.alert(
        AlertCode.FLOOR_DECISION,
        Severity.INFO,
        "floor ruling (supervisor's badge)",
        f"Floor ruling by {who}: {what}",
    )


def oot_badge(core: TableCore, badge_id: str) -> None:
    """The supervisor's badge while an action out of turn awaits the floor (003 [L61]:
    "Action out of turn may be binding")."""
    h = core.hand
    assert h is not None
    h.floor_state = core.shift(h.floor_state, FloorHold.OOT_RULING)
    h.floor_badge = badge_id
    core.instruct(
        f"Floor ({badge_id}): ACK if the action out of turn of seat {h.wager.floor_seat} "
        "stands, or take the chips back (all options)"
    )


def oot_ruled(core: TableCore, seat: int, what: str) -> None:
    """The action out of turn stood by ACK (the floor was called: :func:`oot_badge`; the
    ruling: ``wagers.floor_stands``): with the supervisor's badge it is the floor's ruling,
    a FLOOR_DECISION on the venue's alert topic and in the hand record (003 [L61])."""
    h = core.hand
    assert h is not None
    if not h.floor_badge:
        return
    who, h.floor_badge = h.floor_badge, ""
    # the badge is taken; a hold the floor was called for meanwhile stays
    held = h.floor_state is FloorHold.RULING
    h.floor_state = core.shift(h.floor_state, FloorHold.HELD if held else FloorHold.NONE)
    core.alert(
        AlertCode.FLOOR_DECISION,
        Severity.INFO,
        "floor ruling (supervisor's badge); 003 [L61]",
        f"Floor ruling by {who}: {what}",
        seat,
    )
