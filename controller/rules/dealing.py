"""The deal: starting a hand, hole cards in order, exposed and boxed cards, jokers, foreign
and duplicate cards, misdeals and the misdeal window, and the button draw."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.rules import (
    betting,
    board,
    designate,
    entitled,
    floor,
    misdeal,
    posting,
    thrown,
)
from controller.rules.decisions import AlertCode, HandStarted, Severity
from controller.rules.events import CardPlaced, ZoneKind
from controller.rules.hand import Hand, Player, Street
from controller.rules.phases import Phase
from controller.rules.profile import (
    ExtraCardRule,
    ForeignCard,
    JokerRule,
    SequenceRule,
    WrongFirstSeat,
)
from controller.rules.seating import SeatStatus, deal_order
from controller.rules.seating import dealt_in as seating_dealt_in
from controller.rules.spots import spot, spot_of

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

# Enum members on the per-event path, looked up once: ``Phase.X`` costs a Python-level
# ``EnumType.__getattr__`` hook per lookup in Python 3.11 (and a getattr in the compiled core)
_FOREIGN_FLOOR: Final = ForeignCard.FLOOR
_REPLACE_AFTER_DEAL: Final = JokerRule.REPLACE_AFTER_DEAL
_BETTING: Final = Phase.BETTING
_COMPLETE: Final = Phase.COMPLETE
_DEALING: Final = Phase.DEALING
_IDLE: Final = Phase.IDLE
_MISDEAL: Final = Phase.MISDEAL
_VOID: Final = Phase.VOID
_SEQUENCE_MISDEAL: Final = SequenceRule.MISDEAL
_SEQUENCE_NOTE: Final = SequenceRule.NOTE
_FIRST_SEAT_FLOOR: Final = WrongFirstSeat.FLOOR
_FIRST_SEAT_MISDEAL: Final = WrongFirstSeat.MISDEAL
_FIRST_SEAT_NOTE: Final = WrongFirstSeat.NOTE
_BOARD_ZONE: Final = ZoneKind.BOARD
_HOLE_ZONE: Final = ZoneKind.HOLE
_MUCK_ZONE: Final = ZoneKind.MUCK
_SEAT_ACTIVE: Final = SeatStatus.ACTIVE

_ACTIVE: Final = (Phase.DEALING, Phase.BETTING, Phase.BOARD)


# ---------------------------------------------------------------------------- hand start


def dealt_in(core: TableCore) -> set[int]:
    """The seats a hand starting now would deal in; raises (changing nothing) if it cannot
    start. Pure: ``start_hand`` and the event validation both use it. The blinds posted
    before the deal computed it already (``core.coming``, ``posting.chips_posted``: kept
    while only chips have moved since, so it is what this would compute): reused."""
    coming = core.coming
    if coming is not None:
        return coming[0]
    return seating_dealt_in(core.positions, core.seats, core.profile)


def start_hand(core: TableCore, redeal: bool = False, dealt: set[int] | None = None) -> Hand:
    """Start a hand (or a re-deal). ``dealt`` is :func:`dealt_in` when the caller has just
    computed it to validate the event (nothing changed the seats since)."""
    if dealt is None:
        dealt = dealt_in(core)  # validates before anything changes
    pos = core.positions
    assert pos is not None
    prof = core.profile
    # G1: after a cleared misdeal or void the next deal is a re-deal of the same hand
    redeal = redeal or core.redeal_pending
    core.redeal_pending = False
    if not redeal:
        if core.level_waits:
            core.level_waits = False  # G11: this hand's blinds came before the new level
        elif core.pending_level is not None:
            core.level, core.pending_level = core.pending_level, None
        core.hand_no += 1
        core.deal_no = 1
    else:
        core.deal_no += 1
    lvl = core.level
    seats = core.seats
    players: dict[int, Player] = {}
    stacks: list[tuple[int, int]] = []  # HandStarted's, in the same pass (no comprehension)
    for s in sorted(dealt):
        seat = seats[s]
        seat.status = _SEAT_ACTIVE
        stack = seat.stack
        players[s] = Player(s, stack, stack)
        stacks.append((s, stack))
    order = deal_order(pos, dealt, prof.max_seats, prof.heads_up_bb_first_card)
    # positional, in Hand.__init__'s order (keywords cost a pure-Python call more: records.py)
    h = Hand(core.hand_no, core.deal_no, pos, core.t, lvl.small_blind, lvl.big_blind, lvl.ante,
             players, order + order)  # fmt: skip
    core.carry_alerts(h, redeal)  # a redeal: the cleared deals' alerts come first
    core.hand = h
    core.button_set = False
    core.enter(Phase.DEALING)  # (written out: tests/rules/test_transitions.py reads it)
    core.out.append(  # the fact (decisions.py), before the forced bets' actions
        HandStarted(
            h.hand_no,
            h.deal_no,
            pos.button,
            pos.sb,
            pos.bb,
            tuple(stacks),
            core.t,
        )
    )
    posting.take_forced(core, h)  # the blinds and antes, from the chips in the zones
    return h


# ---------------------------------------------------------------------------- routing


def on_card_placed(
    core: TableCore,
    e: CardPlaced,
    prev: tuple[ZoneKind, int] | None,
    dealt: set[int] | None = None,
) -> None:
    """Route a placed card. ``dealt``: the seats a hand starting now deals in, when the
    engine computed them to validate a first hole card."""
    phase = core.phase
    if e.zone is _HOLE_ZONE:
        # (by identity, not ``in (...)``: the pure core builds the tuple on every card)
        if phase is _IDLE or phase is _COMPLETE:
            _purge_old_deal(core, e.tag)
            start_hand(core, dealt=dealt)
        elif phase is _MISDEAL or phase is _VOID:
            _purge_old_deal(core, e.tag)
            redeal = core.hand is not None
            core.hand = None
            start_hand(core, redeal=redeal, dealt=dealt)
        if _bad_card(core, e):
            return
        if core.phase is _DEALING:
            deal_hole(core, e)
        else:
            late_hole(core, e)
        return
    if e.zone is _MUCK_ZONE:
        # A fold: a seat's hole card reaches the muck, whether its removal from the seat
        # came in the same scan (a move) or earlier (the player lifted the cards first).
        h = core.hand
        if h is not None and phase in _ACTIVE and (prev is None or prev[0] is _HOLE_ZONE):
            p = h.owner.get(e.tag)  # hole_owner, inlined (every fold)
            if p is not None and not (p.folded or p.dead):  # p.live, inlined
                if core.phase is not _DEALING or begin_action(core, h):
                    betting.fold(core, p.seat, e.tag)
            elif p is None and prev is None:
                board.burn_on_muck(core, e.tag)
        return
    # board or burn
    won = phase is _COMPLETE or (
        # 003 [L185]: the cards gathered after the pot was won, the stub turned up
        phase is _IDLE and core.last_record is not None and not core.redeal_pending
    )
    if won and e.zone is _BOARD_ZONE and core.profile.rabbit_hunt_alert:
        core.alert(
            AlertCode.RABBIT_HUNT,
            Severity.WARNING,
            "002 Rabbit Hunting; 003 Dealer: no rabbit hunting",
            f"No rabbit hunting: return {core.card_name(e.tag)} to the stub",
            tag=e.tag,
        )
        return
    if phase not in _ACTIVE:
        return
    if _bad_card(core, e):
        return
    if e.zone is _BOARD_ZONE:
        board.on_board(core, e)
    elif not designate.on_burn(core, e):  # G9: perhaps the card EXPOSED/BOXED means
        board.on_burn(core, e)


def hole_owner(h: Hand, tag: str) -> Player | None:
    """The player whose hole cards include ``tag`` (the lowest seat, should two include it).
    Kept in ``h.owner`` by :func:`_give_hole` and :func:`_replacement`, the only places
    that change a player's hole cards."""
    return h.owner.get(tag)


def _give_hole(h: Hand, p: Player, tag: str) -> None:
    p.hole.append(tag)
    q = h.owner.setdefault(tag, p)  # _own, inlined (every hole card)
    if p.seat < q.seat:
        h.owner[tag] = p


def _own(h: Hand, p: Player, tag: str) -> None:
    """``p`` now holds ``tag`` too: it owns it unless a lower seat does."""
    q = h.owner.setdefault(tag, p)
    if p.seat < q.seat:
        h.owner[tag] = p


def on_card_removed(core: TableCore, zone: ZoneKind, tag: str, seat: int) -> None:
    phase = core.phase
    if phase in (_MISDEAL, _VOID):
        if core.table_clear():
            core.void_or_misdeal_cleared()
        return
    if phase is _COMPLETE:
        if core.table_clear():
            core.hand = None
            core.enter(Phase.IDLE)
        return
    h = core.hand
    if h is None or phase not in _ACTIVE:
        return
    if zone is _HOLE_ZONE:
        p = h.players.get(seat)
        if (
            p is not None
            and _drop(p.cards, tag)
            and phase is _DEALING
            and h.dealt == [(tag, seat)]
            and core.profile.wrong_first_seat is _FIRST_SEAT_NOTE
        ):
            _first_card_taken_back(core, h, p, tag)
    elif zone is _BOARD_ZONE:
        board.on_board_removed(core, tag)
    else:
        board.on_burn_removed(core, tag)


def _drop(tags: list[str], tag: str) -> bool:
    """Remove the first ``tag`` from ``tags``; False if there is none. (Every fold takes a
    card off its seat: ``in`` and ``list.remove`` each scan the list through generic calls
    in the compiled core, and ``pop(i)`` goes through a slice assignment; one native scan,
    the rest moved up by hand and the last slot popped.)"""
    n = len(tags)
    for i in range(n):
        if tags[i] == tag:
            for j in range(i + 1, n):
                tags[j - 1] = tags[j]
            tags.pop()
            return True
    return False


def _first_card_taken_back(core: TableCore, h: Hand, p: Player, tag: str) -> None:
    """The only card dealt so far is taken back where a wrong first seat is only a note (004,
    silent: the dealer gives the card to the right seat): the deal starts again from the
    proper first seat."""
    if tag in p.hole:
        p.hole.remove(tag)
    h.owner.pop(tag, None)
    h.dealt.clear()
    h.deal_idx = 0
    prof = core.profile
    order = deal_order(h.pos, h.players, prof.max_seats, prof.heads_up_bb_first_card)
    h.deal_seq = order + order


def _purge_old_deal(core: TableCore, keep: str) -> None:
    """A new deal started: cards of the previous deal still reported on the table were
    gathered (their removal is reported late, L5)."""
    if len(core.where) <= 1:
        return  # nothing on the table but the card that starts the deal
    for tag in [t for t, (z, _) in core.where.items() if t != keep and z is not ZoneKind.MUCK]:
        del core.where[tag]


def _bad_card(core: TableCore, e: CardPlaced) -> bool:
    """Foreign and duplicate cards void the hand (000-S3-irreg-4/5); a joker is handled by
    the profile (003 joker-a, TDA 35-A). Returns True when the event was fully handled."""
    h = core.hand
    assert h is not None
    if e.card is None and core.profile.foreign_card is _FOREIGN_FLOOR:
        floor.call(
            core,
            floor.FOREIGN,
            AlertCode.FOREIGN_CARD,
            "003 Dealer Errors (joker only) [L189]; [L1] the floor decides",
            f"a foreign card (tag {e.tag}, no registered deck) on {e.zone.value}",
            e.seat,
            e.tag,
        )
        if e.zone is _HOLE_ZONE and core.phase is _DEALING:
            misdeal.replace_after_deal(h, e.seat, e.tag)  # dealt on; replaced after the deal
            return False
        return True
    if e.card is None:
        misdeal.void(
            core,
            AlertCode.FOREIGN_CARD,
            "000 SECTION 3 IRREGULARITIES 4 [L136]",
            f"Foreign card (no registered deck): {spot(core, e.zone, e.seat, e.tag)}",
            e.seat,
            e.tag,
        )
        return True
    card = e.card
    if card.rank == 0:  # card.is_joker (a property: a Python-level call), read directly
        h.jokers = h.jokers | {e.tag}
        if core.profile.joker is _REPLACE_AFTER_DEAL:
            core.alert(
                AlertCode.JOKER,
                Severity.WARNING,
                "003 Dealer errors: joker a) [L189]",
                "Joker: deal on; after the deal take the joker out and give the seat the next card",
                e.seat,
                e.tag,
            )
            if e.zone is _HOLE_ZONE:
                misdeal.replace_after_deal(h, e.seat, e.tag)
                return False
            return True
        misdeal.misdeal_condition(
            core, AlertCode.JOKER, "TDA 35-A: non-standard card", "a joker was dealt", e.seat, e.tag
        )
        return True
    # the first tag seen carrying this card: a slot per card code, since a list index is
    # measurably cheaper than a dict on every card read (3-5 % of a hand, compiled); a card
    # whose code is outside the slots (a rank no deck has) goes to a dict
    code = card.code
    if 0 <= code < len(h.seen_codes):
        other = h.seen_codes[code]
        if not other:
            h.seen_codes[code] = other = e.tag
    else:
        other = h.seen.setdefault(code, e.tag)
    if other != e.tag:
        misdeal.void(
            core,
            AlertCode.DUPLICATE_CARD,
            "000 SECTION 3 IRREGULARITIES 5 [L137]",
            f"Two cards of one identity ({spot_of(core, other)} and "
            f"{spot(core, e.zone, e.seat, e.tag)}): replace the deck",
            e.seat,
            e.tag,
        )
        return True
    return False


# ---------------------------------------------------------------------------- hole cards


def deal_in(core: TableCore, h: Hand, seat: int) -> Player:
    """A waiting seat's new player dealt in as the dealer did (``entitled.py``): his two
    cards are this slot and the same place in the second round (or the end)."""
    stack = core.seats[seat].stack
    players = dict(h.players)
    players[seat] = Player(seat, stack, stack)
    h.players.clear()  # in place, in seat order
    for s in sorted(players):
        h.players[s] = players[s]
    n = len(h.deal_seq) // 2
    idx = h.deal_idx
    h.deal_seq.insert(idx, seat)
    if idx < n:
        h.deal_seq.insert(idx + n + 1, seat)
    else:
        h.deal_seq.append(seat)
    return h.players[seat]


def deal_hole(core: TableCore, e: CardPlaced) -> None:
    h = core.hand
    assert h is not None
    if h.loose_burn or h.mark[0]:  # (most cards: nothing to clear, no call)
        designate.hole_read(h)
    s = e.seat
    tag = e.tag
    p = h.players.get(s)
    if p is None and entitled.card_to_waiting_seat(core, s, tag):
        p = deal_in(core, h, s)  # 004: the floor decides; dealt in as the dealer did
    if p is None:
        seat = core.seats.get(s)
        why = "an empty seat" if seat is None else "a player not entitled to a hand"
        misdeal.misdeal_condition(
            core,
            AlertCode.CARD_TO_EMPTY_SEAT,
            "000 SECTION 3 MISDEALS 1. bullet 9 [L116]; 002 Misdeals d)",
            f"a card went to seat {s}, {why}",
            s,
            tag,
        )
        return
    p.cards.append(tag)
    # The replacement of an exposed/boxed card or a joker: the old card's removal may be
    # reported a second late (L5), so a third card at a seat owed one is the replacement
    # whether or not the old tag is still read (004-AR-1b, 003-DealerErrors-joker-a, G2).
    if h.replace and s in h.replace and len(p.hole) == 2:  # (most hands: none owed)
        _replacement(core, h, p, tag)
        return
    if h.deal_idx >= len(h.deal_seq):
        _extra_card(core, h, p, tag)
        return
    expected = h.deal_seq[h.deal_idx]
    if (
        s != expected
        and h.deal_idx == 0
        and core.profile.wrong_first_seat is not _FIRST_SEAT_MISDEAL
    ):
        first_rule = core.profile.wrong_first_seat
        if first_rule is _FIRST_SEAT_FLOOR:
            floor.call(
                core,
                floor.FIRST_SEAT,
                AlertCode.WRONG_FIRST_SEAT,
                "003 Opening Deal [L85], [L1]",
                f"the first card went to seat {s}, not seat {expected}",
                s,
                tag,
            )
        else:  # 004 is silent: no misdeal, no hold
            core.alert(
                AlertCode.WRONG_FIRST_SEAT,
                Severity.INFO,
                "004 HE 2. [L15]; AR Misdeals [L41-L49] (no rule for it)",
                f"The first card went to seat {s}, not seat {expected}: deal on clockwise "
                f"from seat {s}",
                s,
                tag,
            )
        # dealt on as the dealer started (the floor may rule a misdeal)
        n = len(h.deal_seq) // 2
        order = h.deal_seq[:n]
        at = order.index(s)
        h.deal_seq = order[at:] + order[:at] + order[at:] + order[:at]
        expected = s
    if (
        s != expected
        and expected == h.pos.button
        and core.profile.button_two_consecutive
        and not h.pos.heads_up
        and h.deal_idx + 1 < len(h.deal_seq)
        and h.deal_seq[h.deal_idx + 1] == s
        and h.deal_seq.index(expected) == h.deal_idx
    ):
        # 002 Misdeals [L105] "Players may be dealt two consecutive cards on the button",
        # TDA 35-A: the button skipped in the first round gets both cards at the end
        del h.deal_seq[h.deal_idx]
        h.deal_seq.insert(h.deal_seq.index(expected), expected)
        expected = s
    if s != expected:
        if h.deal_idx == 0:
            misdeal.misdeal_condition(
                core,
                AlertCode.WRONG_FIRST_SEAT,
                "000 SECTION 3 MISDEALS 1. bullet 8 [L115]; 002 Misdeals c); TDA 35-A",
                f"the first card went to seat {s}, not seat {expected}",
                s,
                tag,
            )
            return
        if len(p.hole) >= 2:
            _extra_card(core, h, p, tag)
            return
        two_on_button = (
            core.profile.button_two_consecutive
            and s == h.pos.button
            and h.dealt
            and h.dealt[-1][1] == s
        )
        if not two_on_button:
            if core.profile.out_of_sequence is _SEQUENCE_MISDEAL:
                misdeal.misdeal_condition(
                    core,
                    AlertCode.OUT_OF_SEQUENCE,
                    "000 SECTION 3 MISDEALS 1. bullet 6 [L113]",
                    f"seat {s} got a card out of sequence (seat {expected} was next)",
                    s,
                    tag,
                )
                return
            note = core.profile.out_of_sequence is _SEQUENCE_NOTE  # 004: silent
            core.alert(
                AlertCode.OUT_OF_SEQUENCE,
                Severity.INFO if note else Severity.WARNING,
                "004 AR Misdeals [L41-L49] (no rule for it)"
                if note
                else "003 Opening deal (order described, no remedy)",
                f"Seat {s} got a card out of sequence (seat {expected} was next): deal on in order",
                s,
                tag,
            )
        # resynchronise: seat s takes this slot, its later slot is dropped
        later = h.deal_seq.index(s, h.deal_idx)
        del h.deal_seq[later]
        h.deal_seq.insert(h.deal_idx, s)
    h.deal_idx += 1
    h.dealt.append((tag, s))
    p.hole.append(tag)  # _give_hole, inlined (every hole card)
    q = h.owner.setdefault(tag, p)
    if s < q.seat:
        h.owner[tag] = p
    if h.deal_idx >= len(h.deal_seq):  # (_check_deal_complete's first test: no call per card)
        _check_deal_complete(core, h)


def _check_deal_complete(core: TableCore, h: Hand) -> None:
    if h.deal_idx < len(h.deal_seq) or core.phase is not _DEALING:
        return
    for s, tag in h.replace.items():
        p = h.players[s]
        if tag in p.hole or len(p.cards) < 2:
            return  # still waiting for the replacement of an exposed card or a joker
    betting.open_preflop(core)


def _replacement(core: TableCore, h: Hand, p: Player, tag: str) -> None:
    old = misdeal.replaced(h, p.seat)
    if old in p.hole:
        p.hole[p.hole.index(old)] = tag
        h.owner.pop(old, None)
        for other in h.players.values():  # another seat may also hold the old tag
            if old in other.hole:
                h.owner[old] = other
                break
        _own(h, p, tag)
    core.instruct(f"Seat {p.seat}: the new card replaces the old one", p.seat, tag)
    if core.phase is Phase.DEALING:
        _check_deal_complete(core, h)


def late_hole(core: TableCore, e: CardPlaced) -> None:
    """A hole card after the deal: the replacement of an exposed card, an extra card, or a
    card thrown into another hand (000-S3-dead-3)."""
    h = core.hand
    assert h is not None
    designate.hole_read(h)
    p = h.players.get(e.seat)
    if p is None:
        misdeal.misdeal_condition(
            core,
            AlertCode.CARD_TO_EMPTY_SEAT,
            "000 SECTION 3 MISDEALS 1. bullet 9 [L116]; 002 Misdeals d)",
            f"a card went to seat {e.seat}, which has no hand",
            e.seat,
            e.tag,
        )
        return
    p.cards.append(e.tag)
    if e.seat in h.replace and h.replace[e.seat] not in p.cards:
        _replacement(core, h, p, e.tag)
        return
    owner = hole_owner(h, e.tag)
    if owner is not None and owner.seat != e.seat:
        thrown.card_at_other_seat(core, h, owner, p, e.tag)  # 000-S3-dead-3, or L5
        return
    if e.tag in p.hole:
        return  # the seat's own card, put back after a look
    _extra_card(core, h, p, e.tag)


def _extra_card(core: TableCore, h: Hand, p: Player, tag: str) -> None:
    h.extra_cards += 1
    first = h.deal_seq[0] if h.deal_seq else 0
    prof = core.profile
    if (
        h.extra_cards == 1
        and prof.extra_card is ExtraCardRule.FIRST_PLAYER_BURN
        and p.seat == first
        and h.deal_idx >= len(h.deal_seq)
        and h.street is Street.PREFLOP
        and not h.required_burn
    ):
        board.require_burn(h, tag)
        core.alert(
            AlertCode.EXTRA_HOLE_CARD,
            Severity.WARNING,
            "000 SECTION 3 IRREGULARITIES 2 [L134]; 004 AR-5a",
            f"Extra card to seat {p.seat}: return the extra card to the top of the deck; "
            "it is the flop burn",
            p.seat,
            tag,
        )
        return
    clause = (
        "000 SECTION 3 MISDEALS 1. bullets 4-5 [L111-112]; 004 AR-5b; 003 Dealer errors count a)"
    )
    misdeal.misdeal_condition(
        core, AlertCode.EXTRA_HOLE_CARD, clause, f"seat {p.seat} has an extra card", p.seat, tag
    )


def begin_action(core: TableCore, h: Hand) -> bool:
    """Chips, a fold or a declaration while the deal is still going on: betting has begun
    (the deal is complete, or short: :func:`missing_cards_at_action`). True if the action
    is to be played (the betting round is open)."""
    if core.phase is _DEALING:
        if missing_cards_at_action(core):
            return False
        if core.phase is _DEALING:
            betting.open_preflop(core)
    return core.phase is _BETTING


def missing_cards_at_action(core: TableCore) -> bool:
    """Betting began before the deal was complete: a seat dealt out or short a card
    (000-S3-misdeal-1e/1j, 002 Misdeals e), G13). Returns True if a misdeal was called."""
    h = core.hand
    assert h is not None
    for p in h.players.values():
        n = len(p.hole)
        if n == 2:
            continue
        if n == 0 and entitled.dealt_out(core, p):
            return False  # 004: held for the floor; the seat's hand is dead meanwhile
        if n == 0:
            code, clause, why = (
                AlertCode.SEAT_DEALT_OUT,
                "000 SECTION 3 MISDEALS 1. bullet 10 [L117]; 002 Misdeals e)",
                f"seat {p.seat} was dealt out",
            )
        else:
            code, clause, why = (
                AlertCode.MISSING_HOLE_CARD,
                "000 SECTION 3 MISDEALS 1. bullet 5 [L112]; 003 Dealer errors count a); G13",
                f"seat {p.seat} has {n} card",
            )
        if misdeal.misdeal_condition(core, code, clause, why, p.seat):
            return True
    return False
