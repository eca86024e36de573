"""Completed-hand records, built from the engine's working state."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules.cards import Card
from controller.rules.decisions import HandComplete, HandRecord, SeatRecord
from controller.rules.hand import Hand
from controller.rules.showdown import award

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

__all__ = ["HandRecord", "build", "complete"]


def _cards(core: TableCore, tags: list[str]) -> tuple[Card, ...]:
    return tuple(c for c in (core.card_of.get(t) for t in tags) if isinstance(c, Card))


def build(core: TableCore, h: Hand) -> HandRecord:
    pots = award(core, h)
    won = dict.fromkeys(h.players, 0)
    for pot in pots:
        for s, chips in pot.shares:
            won[s] += chips
    seats = tuple(
        SeatRecord(
            seat=s,
            player=core.seats[s].player if s in core.seats else "",
            start_stack=p.start_stack,
            end_stack=p.stack,
            hole=_cards(core, p.hole),
            won=won[s],
        )
        for s, p in sorted(h.players.items())
    )
    return HandRecord(
        table=core.table,
        hand_no=h.hand_no,
        deal_no=h.deal_no,
        profile=core.profile.name,
        dealer=core.dealer,
        started_t=h.started_t,
        ended_t=core.t,
        button=h.pos.button,
        small_blind_seat=h.pos.sb if h.pos.sb in h.players else 0,
        big_blind_seat=h.pos.bb,
        small_blind=h.small_blind,
        big_blind=h.big_blind,
        ante=h.ante,
        seats=seats,
        board=_cards(core, h.board),
        burns=_cards(core, h.burns),
        actions=tuple(h.actions),
        pots=tuple(pots),
        alerts=tuple(h.alerts),
        odd_chip=h.odd_chip,
    )


def complete(rec: HandRecord) -> HandComplete:
    return HandComplete(rec)
