"""The profile the table judges by, changed by the venue (``set_profile``) as a core event
(:class:`~.events.SetProfile`, issue 21): checked against the table (no occupied seat beyond
the new profile's ``max_seats``: refused, the state unchanged), applied at once between
hands, else held as the table's pending profile (``TableCore.pending_profile``) and applied
once the hand in play is over (the hand's end, or a button draw's), so the next hand is
judged by it. A misdeal or a void cleared keeps it pending: the re-deal is the same hand
(G1). Each change is a :class:`~.decisions.ProfileChanged` fact (the daemon's
``profile_changed`` event). This module alone writes ``pending_profile``
(tests/rules/test_state_owners.py); the profile in force changes only through it
(``TableCore.switch_profile``) and :meth:`TableCore.restore`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules.decisions import ProfileChanged
from controller.rules.errors import TableError
from controller.rules.events import SetProfile
from controller.rules.phases import Phase

if TYPE_CHECKING:
    from controller.rules.engine import TableCore


def set_profile(core: TableCore, e: SetProfile) -> None:
    """The handler of :class:`SetProfile`: validate, then apply now or hold it pending.
    The profile in force set again cancels a pending one."""
    prof = e.profile
    too_far = sorted(s for s in core.seats if s > prof.max_seats)
    if too_far:
        raise TableError(
            "profile_seats",
            f"profile {prof.name!r} has {prof.max_seats} seats; seats {too_far} are occupied",
        )
    if prof == core.profile:
        core.pending_profile = None
        return
    core.pending_profile = prof
    apply_due(core)


def between_hands(core: TableCore) -> bool:
    """No hand in play: idle or a hand complete, and no re-deal of a cleared one due."""
    return core.phase in (Phase.IDLE, Phase.COMPLETE) and not core.redeal_pending


def apply_due(core: TableCore) -> None:
    """The pending profile takes effect if the table is between hands (called by the
    handler, at the end of a hand and at the end of a button draw)."""
    prof = core.pending_profile
    if prof is None or not between_hands(core):
        return
    previous = core.profile.name
    core.switch_profile(prof)
    core.pending_profile = None
    core.out.append(ProfileChanged(prof.name, previous, core.hand_no + 1, core.t))
