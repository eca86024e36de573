"""Hand-for-hand at the table (issue 25): the venue's tournament service holds a table that
has completed its hand until every table of the event has completed it, then releases them
all at once (docs/tournament.md). The hold is the table's own state (``TableCore.deal_hold``,
the hand-for-hand round it is held for; 0: not held), set and cleared by the venue's
``hold_deal`` and ``release_deal`` commands as core events (:class:`~.events.HoldDeal`,
:class:`~.events.ReleaseDeal`), so the core judges a card dealt while held: the first hole
card of a deal at a held table is ``DEALT_WHILE_HELD`` (the deal is the next hand-for-hand
round's before the others have completed theirs; their bust-outs would no longer be
simultaneous, 000 [L53], 004 [L139]). The dealer's console shows the hold and the release
as instructions. This module alone writes ``deal_hold`` (tests/rules/test_state_owners.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.rules.decisions import AlertCode, Severity
from controller.rules.errors import TableError
from controller.rules.events import CardPlaced, HoldDeal, ReleaseDeal

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

CLAUSE: Final = (
    "hand-for-hand (the event's, docs/tournament.md): no table deals until every table has"
    " completed its hand; 000 SECTION 1 2. [L53], 004 TG 27 [L139]"
)


def hold(core: TableCore, e: HoldDeal) -> None:
    if e.round < 1:
        raise TableError("bad_round", f"hand-for-hand round {e.round} is not 1 or more")
    core.deal_hold = e.round
    core.instruct(
        f"Hand-for-hand (round {e.round}): do not deal the next hand until the floor"
        " releases every table"
    )


def release(core: TableCore, e: ReleaseDeal) -> None:
    if core.deal_hold:
        core.deal_hold = 0
        core.instruct("Hand-for-hand: every table has completed its hand; deal the next hand")


def dealt_while_held(core: TableCore, e: CardPlaced) -> None:
    """The first hole card of a deal while the table is held (called once the deal began,
    so the alert is the new hand's and in its record)."""
    if core.deal_hold:
        core.alert(
            AlertCode.DEALT_WHILE_HELD,
            Severity.WARNING,
            CLAUSE,
            f"Hand-for-hand: this table is held (round {core.deal_hold}) until every table"
            " has completed its hand; stop dealing and call the floor",
            e.seat,
            e.tag,
        )
