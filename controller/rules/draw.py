"""The button draw: one card to each seat, high card (suit order G4) or the first ace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.rules import profile_switch
from controller.rules.cards import Card
from controller.rules.decisions import AlertCode, Severity
from controller.rules.events import CardPlaced, ZoneKind
from controller.rules.phases import Phase
from controller.rules.profile import DrawRule
from controller.rules.seating import first_positions

if TYPE_CHECKING:
    from controller.rules.engine import TableCore


# ---------------------------------------------------------------------------- button draw


def draw_card(core: TableCore, e: CardPlaced) -> None:
    d = core.draw
    if d is None or e.zone is not ZoneKind.HOLE:
        # the draw is decided (G7: the first ace) and the cards are being collected; a card
        # dealt after it changes nothing (handle() must never raise)
        return
    if e.card is None or e.card.is_joker:
        core.alert(
            AlertCode.FOREIGN_CARD if e.card is None else AlertCode.JOKER,
            Severity.WARNING,
            "button draw",
            "Not a card of the deck: take it back and deal another",
            e.seat,
            e.tag,
        )
        return
    d.cards.setdefault(e.seat, []).append(e.tag)
    d.order.append((e.seat, e.tag))
    live = core.live_seated()
    if core.profile.draw_rule is DrawRule.FIRST_ACE:
        if e.card.rank == 14:
            _draw_winner(core, e.seat, "003 Opening deal: first ace [L83]; G7")
        return
    # with no one seated the draw waits for players (no highest card of nobody)
    if live and all(len(d.cards.get(s, [])) >= 1 for s in live):
        two = [s for s in live if len(d.cards.get(s, [])) > 1]
        if two:
            core.alert(
                AlertCode.OUT_OF_SEQUENCE,
                Severity.WARNING,
                "000 SECTION 1 item 5 [L34]",
                f"Redraw: seat {two[0]} got more than one card",
                two[0],
            )
            d.cards.clear()
            d.order.clear()
            return

        def key(s: int) -> tuple[int, int]:
            c = core.card_of[d.cards[s][0]]
            assert isinstance(c, Card)
            return (c.rank, int(c.suit))

        _draw_winner(core, max(live, key=key), "000 SECTION 1 item 5 [L34]; 004 TG-21; G4")


def _draw_winner(core: TableCore, seat: int, clause: str) -> None:
    core.positions = first_positions(seat, core.live_seated(), core.max_seats)
    core.button_set = True
    core.instruct(f"Button to seat {seat} ({clause}); collect the draw cards", seat)
    core.draw = None
    if core.table_clear():
        _drawn(core)


def draw_removed(core: TableCore, tag: str) -> None:
    d = core.draw
    if d is not None:
        for cards in d.cards.values():
            if tag in cards:
                cards.remove(tag)
        return
    if core.table_clear():
        _drawn(core)


def _drawn(core: TableCore) -> None:
    """The draw is over and its cards collected: between hands (a profile set during the
    draw takes effect)."""
    core.enter(Phase.IDLE)
    profile_switch.apply_due(core)
