"""Completed-hand records, built from the engine's working state."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules.cards import Card, known_cards
from controller.rules.decisions import HandComplete, HandRecord, SeatRecord, ShowRecord
from controller.rules.hand import Hand
from controller.rules.seating import clockwise
from controller.rules.showdown import award, showdown_first

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

__all__ = ["HandRecord", "build", "complete"]


def shows(core: TableCore, h: Hand) -> tuple[ShowRecord, ...]:
    """The hands at the showdown in show order (002 [L47]): every live hand, tabled (cards
    speak: the core awards from the cards read), from the first to show clockwise."""
    n_live = 0  # (a loop: a comprehension is a call of its own before Python 3.12)
    for p in h.players.values():
        if not (p.folded or p.dead):  # p.live, inlined
            n_live += 1
    if n_live < 2:  # a fold-out (most hands): nothing shown
        return ()
    street = h.actions[-1].street if h.actions else 0
    players = h.players
    card_of = core.card_of
    out: list[ShowRecord] = []  # (loops, not generators: no generator object per hand)
    if h.show_order:  # the showdown: in the order the hands were tabled or mucked
        for s, shown in h.shows.items():
            tabled = tuple(known_cards(card_of, players[s].hole)) if shown else ()
            out.append(ShowRecord(s, tabled, shown, street))
        return tuple(out)
    first = showdown_first(core, h)
    order = clockwise(first, core.max_seats)
    ring = order[-1:] + order[:-1]  # from ``first`` itself
    for s in ring:
        q = players.get(s)
        if q is not None and not (q.folded or q.dead):
            cards = tuple(known_cards(card_of, q.hole))
            out.append(ShowRecord(s, cards, bool(cards), street))
    return tuple(out)


def build(core: TableCore, h: Hand) -> HandRecord:
    showdown = shows(core, h)
    pots, returned = award(core, h)
    won: dict[int, int] = {}
    for pot in pots:
        for s, chips in pot.shares:
            won[s] = won.get(s, 0) + chips
    seated = core.seats
    card_of = core.card_of
    seats: list[SeatRecord] = []
    for s, p in h.players.items():  # built in seat order (dealing.start_hand)
        seat = seated.get(s)
        # the hole cards known (cards.known_cards, inlined: a call per seat at every hand's
        # end); two tags (hold'em) made into a tuple at once, without a list
        tags = p.hole
        hole: tuple[Card, ...]
        if len(tags) == 2:
            c1 = card_of.get(tags[0])
            c2 = card_of.get(tags[1])
            if c1 is not None:
                hole = (c1, c2) if c2 is not None else (c1,)
            else:
                hole = (c2,) if c2 is not None else ()
        else:
            hole = tuple(known_cards(card_of, tags))
        if seat is not None:
            seats.append(
                SeatRecord(s, seat.player, p.start_stack, p.stack, hole, won.get(s, 0), seat.name)
            )
        else:
            seats.append(SeatRecord(s, "", p.start_stack, p.stack, hole, won.get(s, 0)))
    # positional, in the fields' order: 23 keywords cost a pure-Python call three times as
    # much (timeit: 3.5 us against 1.1 us)
    pos = h.pos
    return HandRecord(
        core.table,  # table
        h.hand_no,
        h.deal_no,
        core.profile.name,  # profile
        core.dealer,
        h.started_t,
        core.t,  # ended_t
        pos.button,
        pos.sb if pos.sb in h.players else 0,  # small_blind_seat
        pos.bb,  # big_blind_seat
        h.small_blind,
        h.big_blind,
        h.ante,
        tuple(seats),
        tuple(known_cards(card_of, h.board)),  # board
        tuple(known_cards(card_of, h.burns)) if h.burns else (),  # burns
        tuple(h.actions),
        tuple(pots),
        tuple(h.alerts),
        h.odd_chip,
        False,  # voided
        showdown,
        returned,
    )


def complete(rec: HandRecord) -> HandComplete:
    return HandComplete(rec)


def _larger_start_first(s: SeatRecord) -> int:
    """Sort key (module level: a lambda in ``eliminations`` would allocate its closure on
    every call, in the compiled core)."""
    return -s.start_stack


def eliminations(core: TableCore, rec: HandRecord) -> None:
    """000-S1-elim-2, 004-TG-27 (K21): players out in the same hand are placed by the chips
    they started the hand with, the larger stack higher; equal starting stacks tie (G5)."""
    busted: list[SeatRecord] = []  # (a loop, as in shows)
    for s in rec.seats:
        if s.end_stack == 0:
            busted.append(s)
    if not busted:
        return
    out = sorted(busted, key=_larger_start_first)
    groups: list[list[SeatRecord]] = []
    for s in out:
        if groups and groups[-1][0].start_stack == s.start_stack:
            groups[-1].append(s)
        else:
            groups.append([s])
    order = " > ".join(
        " = ".join(f"seat {s.seat}" for s in g) + f" (started with {g[0].start_stack})"
        for g in groups
    )
    tie = "; equal starting stacks tie (G5)" if any(len(g) > 1 for g in groups) else ""
    core.instruct(f"Eliminated, higher place first: {order}{tie}", out[0].seat)
