"""Which card EXPOSED and BOXED mean (product decision G9), and a card dealt off the table
(000 SECTION 3 IRREGULARITIES 9. [L141], 004 AR-14 [L69]).

G9: "EXPOSED and BOXED refer to the card read most recently; placing a card on the burn
antenna while the console waits for a designation overrides that." A card dealt off the
table never reaches a hole-card antenna: the seat it was meant for "misses its tag in the
rotation", and the card read most recently is the seat before's. The dealer designates the
off-table card by laying it on the burn antenna, before or right after the press:

* laid on the burn antenna during the deal, then EXPOSED (or BOXED): it is the card read most
  recently, so the press means it (:func:`pressed`);
* EXPOSED first: the press rules on the latest hole card as G9 says, and the console waits for
  a designation until the next hole card is read (:func:`wait`); a card laid on the burn
  antenna meanwhile withdraws that ruling and is the exposed card (:func:`on_burn`). A press
  that called a misdeal has ended the deal: nothing is waited for (lay the card on the burn
  antenna first).

The designated card is judged as an exposed (or boxed) card at its place in the deal: the
next slot of the deal, the seat the card was meant for (``misdeal.judge``): a misdeal where
the profile makes that card's exposure one (000: the first or second card; 004 AR-1a: the
first; 003: any), else it stays on the burn as the flop burn and the seat gets the next card
in its turn (000 IRREG 9 "replaced by the burn card", 004 AR-14 "treated as an exposed card"
with AR-1b's remedy; 002 and 003 are silent). A card laid on the burn antenna during the deal
with no press is an early burn, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.rules import misdeal
from controller.rules.errors import TableError
from controller.rules.events import CardPlaced, ZoneKind
from controller.rules.phases import Phase

if TYPE_CHECKING:
    from controller.rules.engine import TableCore
    from controller.rules.hand import Hand

CLAUSE: Final = misdeal.OFF_TABLE_CLAUSE
NONE: Final = ("", "", 0)
_BURN: Final = (ZoneKind.BURN, 0)


def hole_read(h: Hand) -> None:
    """A hole card was read: the latest card is that one now; no designation is waited for."""
    if h.loose_burn or h.mark[0]:
        h.loose_burn = ""
        h.mark = NONE


def wait(h: Hand, boxed: bool, tag: str, seat: int) -> None:
    """The press ruled on the latest hole card (replaced after the deal): the console waits
    for a designation on the burn antenna until the next hole card."""
    h.mark = ("boxed" if boxed else "exposed", tag, seat)


def _owed(core: TableCore, h: Hand) -> int:
    """The seat the next card of the deal is meant for, or 0 (not dealing)."""
    if core.phase is not Phase.DEALING or h.deal_idx >= len(h.deal_seq):
        return 0
    return h.deal_seq[h.deal_idx]


def pressed(core: TableCore, h: Hand, boxed: bool) -> bool:
    """EXPOSED/BOXED: True if it meant a card laid on the burn antenna since the last hole
    card (and ruled on it)."""
    tag = h.loose_burn
    if not tag:
        return False
    h.loose_burn = ""
    if core.where.get(tag) != _BURN or not _owed(core, h):
        return False
    _designated(core, h, tag, boxed)
    return True


def on_burn(core: TableCore, e: CardPlaced) -> bool:
    """A card laid on the burn antenna. During the deal it may be a designation: True if it
    was (and ruled on)."""
    h = core.hand
    assert h is not None
    tag = e.tag
    if not _owed(core, h) or tag in h.owner or tag in h.burns or tag == h.required_burn:
        return False
    kind, old, seat = h.mark
    if not kind:
        h.loose_burn = tag  # an EXPOSED/BOXED press next would mean this card
        return False
    h.mark = NONE
    misdeal.withdraw(h, kind == "boxed", old, seat)
    core.instruct(
        f"Designated on the burn: seat {seat}'s {core.card_name(old)} is not the "
        f"{kind} card; it stays",
        seat,
        old,
    )
    _designated(core, h, tag, kind == "boxed")
    return True


def _designated(core: TableCore, h: Hand, tag: str, boxed: bool) -> None:
    misdeal.judge(core, h, tag, _owed(core, h), h.deal_idx, boxed, off_table=True)


def exposed_or_boxed(core: TableCore, boxed: bool) -> None:
    """EXPOSED or BOXED pressed: the card it means (G9) is judged (``misdeal.judge``)."""
    h = core.hand
    if h is None or core.phase not in misdeal.ACTIVE:
        raise TableError("no_hand", "no hand is being dealt")
    if pressed(core, h, boxed):
        return  # G9: the card just put on the burn antenna (designate.py)
    if not h.dealt:
        raise TableError("no_card", "no hole card has been dealt yet")
    tag, seat = h.dealt[-1]  # G9: the card read most recently
    if misdeal.judge(core, h, tag, seat, len(h.dealt) - 1, boxed, off_table=False):
        wait(h, boxed, tag, seat)  # a card on the burn antenna may override it
