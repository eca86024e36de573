"""The core's whole state as frozen values: :meth:`TableCore.export` and :meth:`TableCore.restore`.

:class:`TableData` is what the core is, at rest: the table (seats, level state, button,
cards on the table, clock) and the working hand, if any, with every list, set and dict
copied into tuples and frozensets. Code outside the core reads it (and builds a changed
copy with :func:`dataclasses.replace`) instead of assigning the core's attributes; the
hand-log codec (``handlog.py``) turns its between-hands part into JSON-able data and back.

A field added to :class:`~controller.rules.hand.Hand` (or ``Player``) is added to
:class:`HandData` (``PlayerData``) with its frozen type, and nothing else: the export and the
restore are derived from the fields (``tests/rules/test_export_restore.py`` fails if the two
records differ).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Final

from controller.rules.cards import Card
from controller.rules.decisions import ActionRecord, Alert, HandRecord
from controller.rules.events import ZoneKind
from controller.rules.hand import Draw, Hand, Level, Player, Wager
from controller.rules.phases import BurnDebt, ClockState, FloorHold, MisdealCall, Phase, Street
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
    name: str = ""  # the display name (empty: the player id)


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
    clock_state: ClockState
    clock_seat: int
    clock_deadline: float
    oot: tuple[tuple[int, tuple[int | None, int]], ...]
    unconfirmed: tuple[tuple[int, int], ...]
    misdeal_call: MisdealCall
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
    scores: tuple[tuple[int, int], ...] = ()  # the showdown's evaluations (Hand.scores)
    # board.py's burn remedies (issue 13)
    burn_debt: BurnDebt = BurnDebt.NONE
    refill: bool = False
    floor_ok: bool = False
    void_street: bool = False
    floor_state: FloorHold = FloorHold.NONE
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
    level_number: int = 0  # the venue's number of ``level`` (0: not numbered)
    pending_level_number: int = 0  # and of ``pending_level``
    # the venue's profile for the next hand, set during a hand (profile_switch.py)
    pending_profile: Profile | None = None


# Export and restore of the working hand are derived from the records, not written field by
# field: a field is frozen by its kind (list -> tuple, set -> frozenset, dict -> its items)
# and thawed back to the kind a fresh record has for it. Only what is not a plain value says
# so below: the players (records of their own), the hole-card owners (tag -> the player
# record, kept as tag -> seat), the street's wager (its own export) and the chips given back
# (kept sorted: retrieve.py fills them in the order the floor rules).
_PLAYER_FIELDS: Final = tuple(f.name for f in fields(PlayerData))
_PLAYER_ARGS: Final = ("seat", "start_stack", "stack")  # Player.__init__
_HAND_FIELDS: Final = tuple(f.name for f in fields(HandData))
_HAND_ARGS: Final = ("hand_no", "deal_no", "pos", "started_t", "small_blind", "big_blind",
                     "ante", "players", "deal_seq")  # Hand.__init__  # fmt: skip
_HAND_OWN: Final = frozenset({"players", "owner", "wager", "given_back"})


def _frozen(v: object) -> Any:
    if isinstance(v, list):
        return tuple(v)
    if isinstance(v, set):
        return frozenset(v)
    if isinstance(v, dict):
        return tuple(v.items())
    return v


def _thawed(fresh: object, v: Any) -> object:
    """``v`` (a frozen value) as the kind of ``fresh`` (the field of a new record)."""
    if isinstance(fresh, list):
        return list(v)
    if isinstance(fresh, set):
        return set(v)
    if isinstance(fresh, dict):
        return dict(v)
    return v


def _player_data(p: Player) -> PlayerData:
    return PlayerData(**{name: _frozen(getattr(p, name)) for name in _PLAYER_FIELDS})


def _player(d: PlayerData) -> Player:
    p = Player(d.seat, d.start_stack, d.stack)
    for name in _PLAYER_FIELDS:
        if name not in _PLAYER_ARGS:
            setattr(p, name, _thawed(getattr(p, name), getattr(d, name)))
    return p


def hand_data(h: Hand) -> HandData:
    values: dict[str, Any] = {
        name: _frozen(getattr(h, name)) for name in _HAND_FIELDS if name not in _HAND_OWN
    }
    return HandData(
        players=tuple(_player_data(p) for p in h.players.values()),
        owner=tuple((tag, p.seat) for tag, p in h.owner.items()),
        wager=h.wager.export(),
        given_back=tuple(sorted(h.given_back.items())),
        **values,
    )


def hand_of(d: HandData) -> Hand:
    players = {p.seat: _player(p) for p in d.players}
    h = Hand(d.hand_no, d.deal_no, d.pos, d.started_t, d.small_blind, d.big_blind, d.ante,
             players, list(d.deal_seq))  # fmt: skip
    for name in _HAND_FIELDS:
        if name not in _HAND_OWN and name not in _HAND_ARGS:
            setattr(h, name, _thawed(getattr(h, name), getattr(d, name)))
    h.owner = {tag: players[seat] for tag, seat in d.owner}
    if d.wager:
        h.wager = Wager.restored(d.wager)
    h.given_back = dict(d.given_back)
    return h


def _level(lvl: tuple[int, int, int] | None, number: int) -> Level | None:
    return None if lvl is None else Level(*lvl, number)


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
            (n, SeatData(s.player, s.stack, s.present, s.status, s.name))
            for n, s in core.seats.items()
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
        level_number=lvl.number,
        pending_level_number=0 if pend is None else pend.number,
        pending_profile=core.pending_profile,
    )


def restore_table(core: TableCore, d: TableData) -> None:
    """:meth:`TableCore.restore`: the core becomes ``d`` (nothing of its state is kept)."""
    core.table = d.table
    core.switch_profile(d.profile)
    core.pending_profile = d.pending_profile
    core.t = d.t
    core.hand_no = d.hand_no
    core.deal_no = d.deal_no
    core.redeal_pending = d.redeal_pending
    core.misdealt_alerts = d.misdealt_alerts
    core.seats = {n: Seat(s.player, s.stack, s.present, s.status, s.name) for n, s in d.seats}
    core.level = Level(*d.level, d.level_number)
    core.pending_level = _level(d.pending_level, d.pending_level_number)
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
