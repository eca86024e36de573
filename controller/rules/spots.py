"""Where a card is, in words, for an alert's text ("seat 3's second card", "the board"):
never which card (a hole card's identity stays on the table)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.rules.events import ZoneKind

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

ORDINAL: Final = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh")


def spot(core: TableCore, zone: ZoneKind, seat: int, tag: str) -> str:
    """Where a card is, for an alert's text: "seat 3's second card", "the board" (never
    which card: a hole card's identity, as a card or as its tag UID, stays on the table)."""
    if zone is not ZoneKind.HOLE:
        return f"the {zone.value}"
    h = core.hand
    p = h.players.get(seat) if h is not None else None
    if p is None:
        return f"a card at seat {seat}"
    n = p.cards.index(tag) if tag in p.cards else len(p.cards)
    return f"seat {seat}'s {ORDINAL[n] if n < len(ORDINAL) else 'next'} card"


def spot_of(core: TableCore, tag: str) -> str:
    where = core.where.get(tag)
    return "a card dealt earlier" if where is None else spot(core, where[0], where[1], tag)
