"""The core's whole state as frozen values: :meth:`TableCore.export` and :meth:`TableCore.restore`.

:class:`TableData` is what the core is, at rest: the table (seats, level state, button,
cards on the table, clock) and the working hand, if any, with every list, set and dict
copied into tuples and frozensets. Code outside the core reads it (and builds a changed
copy with :func:`dataclasses.replace`) instead of assigning the core's attributes; the
hand-log codec (``handlog.py``) turns its between-hands part into JSON-able data and back.

A field added to :class:`~controller.rules.hand.Hand` must be added to :class:`HandData`
and to the two functions below (``tests/rules/test_export_restore.py`` fails otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from controller.rules.cards import Card
from controller.rules.decisions import ActionRecord, Alert, HandRecord
from controller.rules.events import ZoneKind
from controller.rules.hand import Draw, Hand, Level, Player, Wager
from controller.rules.phases import Phase, Street
from controller.rules.profile import Profile
from controller.rules.seating import Positions, Seat, SeatStatus

if TYPE_CHECKING:
    from controller.rules.engine import TableCore


@dataclass(frozen=True, slots=True)
class SeatData:
    player: str
    stack: int
    present: bool
    status: SeatStatus


@dataclass(frozen=True, slots=True)
class PlayerData:
    seat: int
    start_stack: int
    stack: int
    cards: tuple[str, ...]
    folded: bool
    dead: bool
    all_in: bool
    street_bet: int
    total: int
    acted: bool
    can_raise: bool
    hole: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DrawData:
    """A button draw being dealt: each seat's cards, and every card in read order."""

    cards: tuple[tuple[int, tuple[str, ...]], ...]
    order: tuple[tuple[int, str], ...]


@dataclass(frozen=True, slots=True)
class HandData:
    """The working hand (``hand.py``); ``owner`` as hole-card tag -> seat."""

    players: tuple[PlayerData, ...]
    owner: tuple[tuple[str, int], ...]
    hand_no: int
    deal_no: int
    pos: Positions
    started_t: float
    small_blind: int
    big_blind: int
    ante: int
    deal_seq: tuple[int, ...]
    deal_idx: int
    dealt: tuple[tuple[str, int], ...]
    street: Street
    current_bet: int
    last_raise: int
    raises: int
    pointer: int
    last_aggressor: int
    actions: tuple[ActionRecord, ...]
    alerts: tuple[Alert, ...]
    board: tuple[str, ...]
    burns: tuple[str, ...]
    street_burns: int
    need_burn: bool
    required_burn: str
    set_aside: frozenset[str]
    four_flop: tuple[str, ...]
    floor_draw: bool
    window_actions: int
    window_chip_actions: int
    window_seats: frozenset[int]
    exposed: tuple[str, ...]
    boxed: tuple[str, ...]
    replace: tuple[tuple[int, str], ...]
    jokers: frozenset[str]
    extra_cards: int
    runout: bool
    clock_seat: int
    clock_deadline: float
    clock_warned: bool
    oot: tuple[tuple[int, tuple[int | None, int]], ...]
    unconfirmed: tuple[tuple[int, int], ...]
    misdeal_called_t: float
    odd_chip: bool
    unswept: bool
    burn_credit: int
    no_burn: frozenset[int]
    premature: frozenset[int]
    pending_board: str
    redeal_flop: bool
    last_burn: str
    read_t: tuple[tuple[str, float], ...]
    seen_codes: tuple[str, ...]
    seen: tuple[tuple[int, str], ...]
    wager: tuple[object, ...] = ()  # hand.Wager.export()
    show_order: tuple[int, ...] = ()
    shows: tuple[tuple[int, bool], ...] = ()  # in the order the hands were resolved
    show_alerted: frozenset[int] = frozenset()
    # board.py's burn remedies (issue 13)
    burn_debt: int = 0
    refill: bool = False
    floor_ok: bool = False
    void_street: bool = False
    floor_hold: str = ""
    floor_badge: str = ""
    given_back: tuple[tuple[int, int], ...] = ()  # retrieve.py
    mark: tuple[str, str, int] = ("", "", 0)  # designate.py (G9)
    loose_burn: str = ""


@dataclass(frozen=True, slots=True)
class TableData:
    """Everything :class:`~controller.rules.engine.TableCore` holds between two events."""

    table: str
    profile: Profile
    phase: Phase
    t: float
    hand_no: int  # the last hand started
    deal_no: int
    redeal_pending: bool  # G1: the next deal re-deals the same hand number
    misdealt_alerts: tuple[Alert, ...]  # of the deals cleared before it: its record's
    seats: tuple[tuple[int, SeatData], ...]
    level: tuple[int, int, int]  # small blind, big blind, ante
    pending_level: tuple[int, int, int] | None
    level_waits: bool  # G11: the pending level waits one more hand
    positions: Positions | None
    button_set: bool
    posted: tuple[tuple[int, int], ...]  # chips in the betting zones before the deal
    presence_posts: frozenset[int]
    where: tuple[tuple[str, ZoneKind, int], ...]  # every card on the table: tag, zone, seat
    card_of: tuple[tuple[str, Card | None], ...]  # tag -> card (None: in no deck)
    dealer: str
    draw: DrawData | None
    hand: HandData | None
    last_record: HandRecord | None
    deal_hold: int = 0  # hand-for-hand: the round the table is held for (handforhand.py)


def _player_data(p: Player) -> PlayerData:
    return PlayerData(
        p.seat, p.start_stack, p.stack, tuple(p.cards), p.folded, p.dead, p.all_in,
        p.street_bet, p.total, p.acted, p.can_raise, tuple(p.hole),
    )  # fmt: skip


def _player(d: PlayerData) -> Player:
    p = Player(d.seat, d.start_stack, d.stack)
    p.cards = list(d.cards)
    p.folded, p.dead, p.all_in = d.folded, d.dead, d.all_in
    p.street_bet, p.total, p.acted, p.can_raise = d.street_bet, d.total, d.acted, d.can_raise
    p.hole = list(d.hole)
    return p


def hand_data(h: Hand) -> HandData:
    return HandData(
        players=tuple(_player_data(p) for p in h.players.values()),
        owner=tuple((tag, p.seat) for tag, p in h.owner.items()),
        hand_no=h.hand_no,
        deal_no=h.deal_no,
        pos=h.pos,
        started_t=h.started_t,
        small_blind=h.small_blind,
        big_blind=h.big_blind,
        ante=h.ante,
        deal_seq=tuple(h.deal_seq),
        deal_idx=h.deal_idx,
        dealt=tuple(h.dealt),
        street=h.street,
        current_bet=h.current_bet,
        last_raise=h.last_raise,
        raises=h.raises,
        pointer=h.pointer,
        last_aggressor=h.last_aggressor,
        actions=tuple(h.actions),
        alerts=tuple(h.alerts),
        board=tuple(h.board),
        burns=tuple(h.burns),
        street_burns=h.street_burns,
        need_burn=h.need_burn,
        required_burn=h.required_burn,
        set_aside=frozenset(h.set_aside),
        four_flop=tuple(h.four_flop),
        floor_draw=h.floor_draw,
        window_actions=h.window_actions,
        window_chip_actions=h.window_chip_actions,
        window_seats=frozenset(h.window_seats),
        exposed=tuple(h.exposed),
        boxed=tuple(h.boxed),
        replace=tuple(h.replace.items()),
        jokers=frozenset(h.jokers),
        extra_cards=h.extra_cards,
        runout=h.runout,
        clock_seat=h.clock_seat,
        clock_deadline=h.clock_deadline,
        clock_warned=h.clock_warned,
        oot=tuple(h.oot.items()),
        unconfirmed=tuple(h.unconfirmed.items()),
        misdeal_called_t=h.misdeal_called_t,
        odd_chip=h.odd_chip,
        unswept=h.unswept,
        burn_credit=h.burn_credit,
        no_burn=frozenset(h.no_burn),
        premature=frozenset(h.premature),
        pending_board=h.pending_board,
        redeal_flop=h.redeal_flop,
        last_burn=h.last_burn,
        read_t=tuple(h.read_t.items()),
        seen_codes=tuple(h.seen_codes),
        seen=tuple(h.seen.items()),
        wager=h.wager.export(),
        show_order=tuple(h.show_order),
        shows=tuple(h.shows.items()),
        show_alerted=frozenset(h.show_alerted),
        burn_debt=h.burn_debt,
        refill=h.refill,
        floor_ok=h.floor_ok,
        void_street=h.void_street,
        floor_hold=h.floor_hold,
        floor_badge=h.floor_badge,
        given_back=tuple(sorted(h.given_back.items())),
        mark=h.mark,
        loose_burn=h.loose_burn,
    )


def hand_of(d: HandData) -> Hand:
    players = {p.seat: _player(p) for p in d.players}
    h = Hand(d.hand_no, d.deal_no, d.pos, d.started_t, d.small_blind, d.big_blind, d.ante,
             players, list(d.deal_seq))  # fmt: skip
    h.owner = {tag: players[seat] for tag, seat in d.owner}
    h.show_order = list(d.show_order)
    h.shows = dict(d.shows)
    h.show_alerted = set(d.show_alerted)
    h.deal_idx = d.deal_idx
    h.dealt = list(d.dealt)
    h.street = d.street
    h.current_bet = d.current_bet
    h.last_raise = d.last_raise
    h.raises = d.raises
    h.pointer = d.pointer
    h.last_aggressor = d.last_aggressor
    h.actions = list(d.actions)
    h.alerts = list(d.alerts)
    h.board = list(d.board)
    h.burns = list(d.burns)
    h.street_burns = d.street_burns
    h.need_burn = d.need_burn
    h.required_burn = d.required_burn
    h.set_aside = set(d.set_aside)
    h.four_flop = list(d.four_flop)
    h.floor_draw = d.floor_draw
    h.window_actions = d.window_actions
    h.window_chip_actions = d.window_chip_actions
    h.window_seats = set(d.window_seats)
    h.exposed = list(d.exposed)
    h.boxed = list(d.boxed)
    h.replace = dict(d.replace)
    h.jokers = set(d.jokers)
    h.extra_cards = d.extra_cards
    h.runout = d.runout
    h.clock_seat = d.clock_seat
    h.clock_deadline = d.clock_deadline
    h.clock_warned = d.clock_warned
    h.oot = dict(d.oot)
    h.unconfirmed = dict(d.unconfirmed)
    h.misdeal_called_t = d.misdeal_called_t
    h.odd_chip = d.odd_chip
    h.unswept = d.unswept
    h.burn_credit = d.burn_credit
    h.no_burn = set(d.no_burn)
    h.premature = set(d.premature)
    h.pending_board = d.pending_board
    h.redeal_flop = d.redeal_flop
    h.last_burn = d.last_burn
    h.read_t = dict(d.read_t)
    h.seen_codes = list(d.seen_codes)
    h.seen = dict(d.seen)
    if d.wager:
        h.wager = Wager.restored(d.wager)
    h.floor_hold, h.floor_badge = d.floor_hold, d.floor_badge
    h.given_back = dict(d.given_back)
    h.mark, h.loose_burn = d.mark, d.loose_burn
    h.burn_debt, h.refill, h.floor_ok, h.void_street = (
        d.burn_debt,
        d.refill,
        d.floor_ok,
        d.void_street,
    )
    return h


def _level(lvl: tuple[int, int, int] | None) -> Level | None:
    return None if lvl is None else Level(*lvl)


def export_table(core: TableCore) -> TableData:
    """:meth:`TableCore.export`."""
    lvl, pend, dr, h = core.level, core.pending_level, core.draw, core.hand
    return TableData(
        table=core.table,
        profile=core.profile,
        phase=core.phase,
        t=core.t,
        hand_no=core.hand_no,
        deal_no=core.deal_no,
        redeal_pending=core.redeal_pending,
        misdealt_alerts=core.misdealt_alerts,
        seats=tuple(
            (n, SeatData(s.player, s.stack, s.present, s.status)) for n, s in core.seats.items()
        ),
        level=(lvl.small_blind, lvl.big_blind, lvl.ante),
        pending_level=None if pend is None else (pend.small_blind, pend.big_blind, pend.ante),
        level_waits=core.level_waits,
        positions=core.positions,
        button_set=core.button_set,
        posted=tuple(core.posted.items()),
        presence_posts=frozenset(core.presence_posts),
        where=tuple((tag, z, s) for tag, (z, s) in core.where.items()),
        card_of=tuple(core.card_of.items()),
        dealer=core.dealer,
        draw=None
        if dr is None
        else DrawData(tuple((s, tuple(c)) for s, c in dr.cards.items()), tuple(dr.order)),
        hand=None if h is None else hand_data(h),
        last_record=core.last_record,
        deal_hold=core.deal_hold,
    )


def restore_table(core: TableCore, d: TableData) -> None:
    """:meth:`TableCore.restore`: the core becomes ``d`` (nothing of its state is kept)."""
    core.table = d.table
    core.switch_profile(d.profile)
    core.t = d.t
    core.hand_no = d.hand_no
    core.deal_no = d.deal_no
    core.redeal_pending = d.redeal_pending
    core.misdealt_alerts = d.misdealt_alerts
    core.seats = {n: Seat(s.player, s.stack, s.present, s.status) for n, s in d.seats}
    core.level = Level(*d.level)
    core.pending_level = _level(d.pending_level)
    core.level_waits = d.level_waits
    core.positions = d.positions
    core.button_set = d.button_set
    core.posted = dict(d.posted)
    core.presence_posts = set(d.presence_posts)
    core.where = {tag: (z, s) for tag, z, s in d.where}
    core.card_of = dict(d.card_of)
    core.dealer = d.dealer
    core.deal_hold = d.deal_hold
    if d.draw is None:
        core.draw = None
    else:
        dr = core.draw = Draw()
        dr.cards = {s: list(c) for s, c in d.draw.cards}
        dr.order = list(d.draw.order)
    core.hand = None if d.hand is None else hand_of(d.hand)
    core.last_record = d.last_record
    core.out.clear()
    core.set_phase(d.phase)
