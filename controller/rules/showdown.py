"""The end of a hand: side pots, cards-speak evaluation, split pots and the odd chip,
uncalled bets, and the showdown order."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules.cards import Card, known_cards
from controller.rules.decisions import PotRecord
from controller.rules.evaluate import score, score_label
from controller.rules.hand import Hand
from controller.rules.pots import Pot, build_pots, split
from controller.rules.seating import clockwise

if TYPE_CHECKING:
    from controller.rules.engine import TableCore


def showdown_first(core: TableCore, h: Hand) -> int:
    """Who shows first (002 ShowdownOrder-1, 000 C19): the last aggressor of the final round,
    else the first live seat left of the button."""
    last_street = int(h.street)
    aggressors = [
        a.seat for a in h.actions if a.street == last_street and a.kind in ("bet", "raise")
    ]
    live = {s for s, p in h.players.items() if p.live}
    if aggressors and aggressors[-1] in live:
        return aggressors[-1]
    for s in clockwise(h.pos.button, core.max_seats):
        if s in live:
            return s
    return 0


def uncalled(contrib: dict[int, int], live: set[int]) -> tuple[int, int]:
    """(seat, chips) of the bet nobody called: what the highest live contributor put in
    above everyone else (a short blind's excess, a bet all fold to). (0, 0) if none."""
    top = 0
    first = second = 0
    for s, c in contrib.items():
        if c > first:
            top, second, first = s, first, c
        elif c > second:
            second = c
    if top and top in live and first > second:
        return top, first - second
    return 0, 0


def award(core: TableCore, h: Hand) -> tuple[list[PotRecord], tuple[tuple[int, int], ...]]:
    """Each pot's winners and shares, and the uncalled bet returned (not a pot won: 003
    [L119], 002 [L169])."""
    live: set[int] = set()
    contrib: dict[int, int] = {}
    for s, p in h.players.items():
        contrib[s] = p.total
        if not (p.folded or p.dead):  # p.live, inlined
            live.add(s)
    # antes are dead money (TDA 2024, big blind ante; G10): in the main pot, never part of
    # a live bet, so never matched, never returned as uncalled
    dead = 0
    if h.ante:
        for a in h.actions:
            if a.kind == "post_ante":
                contrib[a.seat] -= a.amount
                dead += a.amount
    back, excess = uncalled(contrib, live)
    returned: tuple[tuple[int, int], ...] = ()
    if excess:
        contrib[back] -= excess
        h.players[back].stack += excess
        returned = ((back, excess),)
        if len(live) > 1:  # a fold-out's winner takes everything back anyway
            core.instruct(f"Uncalled bet: return {excess} to seat {back}", back)
    pots = build_pots(contrib, live)
    if dead:
        everyone = tuple(sorted(live))
        if pots and pots[0].eligible == everyone:
            pots[0] = Pot(pots[0].amount + dead, everyone)
        else:  # a live seat put in nothing but its ante: the antes are a pot of their own
            pots.insert(0, Pot(dead, everyone))
    # seat -> its place clockwise after the button (the button last), for the odd chip
    ring = clockwise(h.pos.button, core.max_seats)
    values: dict[int, int] = {}  # seat -> score (the fast path; names only for winners)
    cards: dict[int, list[Card]] = {}
    if len(live) > 1:
        board = known_cards(core.card_of, h.board)
        if len(board) == 5:
            for s in live:
                hole = known_cards(core.card_of, h.players[s].hole)
                if len(hole) == 2:
                    cards[s] = hole + board
                    values[s] = score(cards[s])
    out: list[PotRecord] = []
    for pot in pots:
        contenders = [s for s in pot.eligible if s in values] or list(pot.eligible)
        name = ""
        if len(contenders) > 1 and all(s in values for s in contenders):
            best = max(values[s] for s in contenders)
            winners = [s for s in contenders if values[s] == best]
            name = score_label(best)
        else:
            winners = contenders[:1]
        shares, odd = split(pot.amount, winners, ring.index, core.profile.smallest_chip)
        h.odd_chip = h.odd_chip or odd
        for s, chips in shares:
            h.players[s].stack += chips
        out.append(PotRecord(pot.amount, pot.eligible, tuple(sorted(winners)), tuple(shares), name))
    return out, returned
