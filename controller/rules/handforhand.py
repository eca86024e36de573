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

A hold that reaches a table whose next hand is already being dealt or played (the dealer
dealt between the hand's completion and the hold's arrival) is late: that deal began after
the table completed the round's hand, before the others had. The dealer was not told in time,
so it is not the dealer's error (not DEALT_WHILE_HELD, which the console counts against the
dealer): the table tells the floor at once, HOLD_AFTER_DEAL (category floor; the hand's
record carries it), and the hand is played out: no
rulebook names a remedy for it (none of them has a hand-for-hand clause), and none may be
invented here. A misdeal is one of the errors a rulebook lists (000 SECTION 3 MISDEALS 1
[L107-L117]: this is not one of them) and after action "the deal will be played" (000
[L118]); what the rulebooks do say is
how players busted in one hand are placed (000 [L53], 004 [L139]), which is the venue's
business: the floor, told by the alert, decides which round the hand's bust-outs belong to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.rules.decisions import AlertCode, Severity
from controller.rules.errors import TableError
from controller.rules.events import CardPlaced, HoldDeal, ReleaseDeal
from controller.rules.phases import Phase

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

CLAUSE: Final = (
    "hand-for-hand (the event's, docs/tournament.md): no table deals until every table has"
    " completed its hand; 000 SECTION 1 2. [L53], 004 TG 27 [L139]"
)


#: a hand being dealt or played: its deal began (not the misdeal's or the void's re-deal,
#: whose first hole card is judged as any deal's)
_DEALT: Final = frozenset({Phase.DEALING, Phase.BETTING, Phase.BOARD, Phase.SHOWDOWN})


def hold(core: TableCore, e: HoldDeal) -> None:
    if e.round < 1:
        raise TableError("bad_round", f"hand-for-hand round {e.round} is not 1 or more")
    late = core.deal_hold != e.round and core.phase in _DEALT  # not a repeated hold
    core.deal_hold = e.round
    core.instruct(
        f"Hand-for-hand (round {e.round}): do not deal the next hand until the floor"
        " releases every table"
    )
    if late:
        core.alert(
            AlertCode.HOLD_AFTER_DEAL,
            Severity.WARNING,
            CLAUSE,
            f"Hand-for-hand (round {e.round}): this hand was dealt after the table had"
            " completed the round's hand, before the hold arrived; play it out and call the"
            " floor (its bust-outs are not the round's)",
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
