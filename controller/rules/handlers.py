"""The core's event handlers, one per event kind (the transition table, ``transitions.py``,
says which phases accept each and where it may lead). Each validates before it mutates and
raises :class:`TableError` to reject the event; the rule modules do the rest."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from controller.rules import (
    bb_option,
    betting,
    board,
    clock,
    dealing,
    designate,
    draw,
    floor,
    handforhand,
    misdeal,
    posting,
    profile_switch,
    retrieve,
    rounds,
    showdown,
    wagers,
)
from controller.rules.decisions import AlertCode, Severity
from controller.rules.errors import TableError
from controller.rules.events import (
    BadgeTap,
    ButtonPress,
    CardPlaced,
    CardRemoved,
    ChipsIn,
    ChipsOut,
    ConsoleButton,
    Declaration,
    Declare,
    HoldDeal,
    Interrupted,
    MovePlayer,
    ReleaseDeal,
    SeatPlayer,
    SetButton,
    SetDealer,
    SetLevel,
    SetPresence,
    SetProfile,
    StartButtonDraw,
    Sweep,
    Tick,
    UnseatPlayer,
    ZoneKind,
)
from controller.rules.hand import Draw, Level
from controller.rules.phases import Phase
from controller.rules.profile import MuckedHand
from controller.rules.seating import Seat, SeatStatus, first_positions

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

# Enum members on the per-event path, looked up once: ``Phase.X`` costs a Python-level
# ``EnumType.__getattr__`` hook per lookup in Python 3.11 (and a getattr in the compiled core)
_IDLE: Final = Phase.IDLE
_SEAT_ACTIVE: Final = SeatStatus.ACTIVE
_SEAT_WAITING: Final = SeatStatus.WAITING
_COMPLETE: Final = Phase.COMPLETE
_DRAW: Final = Phase.DRAW
_SHOWDOWN: Final = Phase.SHOWDOWN
_BOARD_ZONE: Final = ZoneKind.BOARD
_HOLE_ZONE: Final = ZoneKind.HOLE
_MUCK_ZONE: Final = ZoneKind.MUCK
_NO_REDRESS: Final = MuckedHand.NO_REDRESS

# A hole card in these phases starts a (re-)deal; chips in them are the coming hand's posts.
STARTS_HAND: Final = (Phase.IDLE, Phase.COMPLETE, Phase.MISDEAL, Phase.VOID)
BETWEEN_HANDS: Final = STARTS_HAND

# The locations a card can have (TableCore.where), built once rather than per card, and
# held as Python objects (``Any``): a ``tuple[ZoneKind, int]`` value is a C struct in the
# compiled core, boxed into a new tuple each time it is stored in ``where``
_HOLE_LOCS: Final[tuple[Any, ...]] = tuple((ZoneKind.HOLE, s) for s in range(11))
_MUCK_LOC: Final[Any] = (ZoneKind.MUCK, 0)
_BOARD_LOC: Final[Any] = (ZoneKind.BOARD, 0)
_BURN_LOC: Final[Any] = (ZoneKind.BURN, 0)
_NO_HOLD: Final = floor.NO_HOLD  # the floor's sub-state, nearly always


# ---------------------------------------------------------------------------- table management


def seat_player(core: TableCore, e: SeatPlayer) -> None:
    seat, player = e.seat, e.player
    if not 1 <= seat <= core.max_seats:
        raise TableError("bad_seat", f"seat {seat} is not 1..{core.max_seats}")
    if e.stack < 0:
        raise TableError("bad_stack", f"stack {e.stack} is negative")
    cur = core.seats.get(seat)
    same = cur is not None and cur.player == player
    if cur is not None and not same and cur.stack > 0:
        raise TableError("seat_taken", f"seat {seat} is taken by {cur.player}")
    h = core.hand
    if h is not None and seat in h.players:
        raise TableError("in_hand", f"seat {seat} is in the hand; change it after the hand")
    # A new player waits for the button unless the table has no button yet.
    status = _SEAT_WAITING if core.positions is not None and not core.button_set else _SEAT_ACTIVE
    if cur is not None and same and cur.status is _SEAT_ACTIVE:
        status = _SEAT_ACTIVE
    # the same player seated again without a name keeps the one he had
    name = e.name or (cur.name if cur is not None and same else "")
    core.seats[seat] = Seat(player, e.stack, e.present, status, name)


def move_player(core: TableCore, e: MovePlayer) -> None:
    """The player of ``from_seat`` to the empty ``to_seat``, between hands, with his name and
    stack; at the new seat he is seated as a new player is (``seat_player``: he waits for the
    button when the table has one that was not placed, and is present)."""
    seat = core.seats.get(e.from_seat)
    if seat is None:
        raise TableError("empty_seat", f"seat {e.from_seat} is empty")
    if not 1 <= e.to_seat <= core.max_seats:
        raise TableError("bad_seat", f"seat {e.to_seat} is not 1..{core.max_seats}")
    if e.to_seat in core.seats:
        raise TableError("seat_taken", f"seat {e.to_seat} is taken")
    h = core.hand
    if h is not None and core.phase is not Phase.COMPLETE:
        raise TableError("in_hand", "players move between hands")
    if h is not None and e.from_seat in h.players and h.players[e.from_seat].live:
        raise TableError("in_hand", f"seat {e.from_seat} is in the hand; unseat it after the hand")
    if h is not None and e.to_seat in h.players:
        raise TableError("in_hand", f"seat {e.to_seat} is in the hand; change it after the hand")
    status = (
        SeatStatus.WAITING
        if core.positions is not None and not core.button_set
        else SeatStatus.ACTIVE
    )
    del core.seats[e.from_seat]
    core.seats[e.to_seat] = Seat(seat.player, seat.stack, True, status, seat.name)


def unseat_player(core: TableCore, e: UnseatPlayer) -> None:
    if e.seat not in core.seats:
        raise TableError("empty_seat", f"seat {e.seat} is empty")
    if core.hand is not None and e.seat in core.hand.players and core.hand.players[e.seat].live:
        raise TableError("in_hand", f"seat {e.seat} is in the hand; unseat it after the hand")
    del core.seats[e.seat]


def set_presence(core: TableCore, e: SetPresence) -> None:
    if e.seat not in core.seats:
        raise TableError("empty_seat", f"seat {e.seat} is empty")
    core.seats[e.seat].present = e.present


def set_level(core: TableCore, e: SetLevel) -> None:
    if e.small_blind < 0 or e.big_blind <= 0 or e.ante < 0 or e.small_blind > e.big_blind:
        raise TableError(
            "bad_level", f"level {e.small_blind}/{e.big_blind} ante {e.ante} is invalid"
        )
    lvl = Level(e.small_blind, e.big_blind, e.ante, e.level)
    if core.hand is None and core.hand_no == 0 and not core.posted:
        core.level = lvl  # before the first hand and its first blind: applies at once
    else:
        core.pending_level = lvl  # G11: from the first hand whose blinds come after it
        # blinds already in the zones for the coming (new) hand keep it at the old level
        core.level_waits = (
            bool(core.posted) and core.phase in (_IDLE, _COMPLETE) and not core.redeal_pending
        )


def set_button(core: TableCore, e: SetButton) -> None:
    live = core.live_list()
    if e.seat not in core.seats and len(live) >= 2:
        pass  # a dead button may sit in front of an empty seat
    if len(live) < 2:
        raise TableError("too_few_players", "a hand needs at least two players with chips")
    if core.hand is not None and core.phase is not _COMPLETE:
        raise TableError("in_hand", "the button moves between hands")
    core.positions = first_positions(e.seat, live, core.max_seats)
    core.button_set = True
    for seat in core.seats.values():
        if seat.status is _SEAT_WAITING:
            seat.status = _SEAT_ACTIVE


def start_draw(core: TableCore, e: StartButtonDraw) -> None:
    if len(core.live_seated()) < 2:
        raise TableError("too_few_players", "a button draw needs at least two players")
    if not core.table_clear():
        raise TableError("table_not_clear", "clear the table before the button draw")
    core.draw = Draw()
    core.enter(Phase.DRAW)
    rule = core.profile.draw_rule.value
    core.instruct(f"Button draw ({rule}): deal one card face up to each seat")


# ---------------------------------------------------------------------------- cards


def card_placed(core: TableCore, e: CardPlaced) -> None:
    zone, tag = e.zone, e.tag
    loc: Any  # (zone, seat): one of the tuples above
    seat = 0
    dealt: set[int] | None = None
    if zone is _HOLE_ZONE:
        seat = e.seat
        if not 1 <= seat <= core.max_seats:
            raise TableError("bad_seat", f"hole-card zone of seat {seat} does not exist")
        if core.phase in STARTS_HAND:
            # a hand must be able to start: else rejected, unchanged (dealt_in reuses the
            # seats the blinds posted before this card worked out: ``core.coming``)
            dealt = dealing.dealt_in(core)
        loc = _HOLE_LOCS[seat]
    elif zone is _MUCK_ZONE:
        loc = _MUCK_LOC
    elif zone is _BOARD_ZONE:
        loc = _BOARD_LOC
    else:
        loc = _BURN_LOC
    prev = core.where.get(tag)
    # (prev == loc, by field: ``loc`` is (zone, seat), seat 0 off the hole-card zones)
    if prev is not None and prev[0] is zone and prev[1] == seat:
        raise TableError("already_there", f"{core.card_name(tag)} is already on that zone")
    core.card_of[tag] = e.card
    if prev is not None:
        # A move: the removal may be reported late (L5), so the placement implies it.
        _remove(core, prev[0], tag, prev[1])
    core.where[tag] = loc
    phase = core.phase  # (after the removal, which may have cleared a misdeal)
    if phase is _DRAW:
        draw.draw_card(core, e)
        return
    if phase is _SHOWDOWN or (phase is _COMPLETE and zone is _MUCK_ZONE):
        showdown.on_card_placed(core, e)
        return
    dealing.on_card_placed(core, e, prev, dealt)
    if zone is _MUCK_ZONE and core.profile.mucked_hand is _NO_REDRESS:  # (those it rules in)
        retrieve.killed_uncalled(core)  # 002 [L169]: a hand killed with its bet uncalled
    if dealt is not None and core.deal_hold:
        handforhand.dealt_while_held(core, e)  # a deal began at a table held hand-for-hand


def card_removed(core: TableCore, e: CardRemoved) -> None:
    loc = core.where.get(e.tag)
    if loc is None or loc[0] is not e.zone or (e.zone is _HOLE_ZONE and loc[1] != e.seat):
        raise TableError(
            "not_there", f"tag {e.tag} was not on {e.zone.value} {e.seat or ''}".strip()
        )
    _remove(core, e.zone, e.tag, e.seat)


def _remove(core: TableCore, zone: ZoneKind, tag: str, seat: int) -> None:
    """A card known to be on ``zone`` (of ``seat``) left it."""
    del core.where[tag]
    if core.phase is _DRAW:
        draw.draw_removed(core, tag)
        return
    if core.phase is _SHOWDOWN:
        return  # a card picked up at the showdown: only the muck decides a hand
    dealing.on_card_removed(core, zone, tag, seat)


# ---------------------------------------------------------------------------- chips


def chips_in(core: TableCore, e: ChipsIn) -> None:
    if e.seat not in core.seats:
        raise TableError("empty_seat", f"chips in the betting zone of empty seat {e.seat}")
    if e.amount is not None and e.amount <= 0:
        raise TableError("bad_amount", f"chip amount {e.amount} must be positive")
    if core.phase is _SHOWDOWN:
        raise TableError("showdown", f"chips from seat {e.seat}: the betting is over (showdown)")
    h = core.hand
    if h is None or core.phase in BETWEEN_HANDS:
        posting.chips_in(core, e)  # the coming hand's forced bets, ruled before the first card
        return
    p = h.players.get(e.seat)
    if p is None:
        raise TableError("not_in_hand", f"chips from seat {e.seat}, which has no hand")
    fs = h.floor_state
    if fs is not _NO_HOLD and fs in floor.HOLDS:
        floor.chips_held(core, e.seat)
    played = betting.chips_checked(core, h, p, e)
    if played is None or not dealing.begin_action(core, h):
        return
    if misdeal.acted_with_joker(core, e.seat, played.amount):
        return
    betting.chips_played(core, h, p, played)


def chips_out(core: TableCore, e: ChipsOut) -> None:
    if e.seat not in core.seats:
        rec = core.last_record
        if rec is not None and core.phase in (_COMPLETE, _IDLE):
            for s in rec.seats:
                if s.seat == e.seat and s.end_stack == 0:
                    # the chips of a player out in the hand just over go to the pot (the
                    # sweep after the award): nothing to judge, no alert
                    return
        raise TableError("empty_seat", f"chips left the betting zone of empty seat {e.seat}")
    h = core.hand
    if h is None or core.phase in BETWEEN_HANDS:
        posting.chips_out(core, e)
    else:
        betting.chips_out(core, h, e)


# ---------------------------------------------------------------------------- console


def button(core: TableCore, e: ButtonPress) -> None:
    b = e.button
    h = core.hand
    if h is not None and h.floor_state is not _NO_HOLD and h.floor_state in floor.HOLDS:
        if retrieve.seat_held(h):
            if retrieve.button(core, h, b):
                return  # the director's ruling on a folded hand (retrieve.py)
        else:
            ruled = floor.button(core, b)  # the floor's decision (floor.py)
            if ruled is floor.Ruled.MISDEAL:
                misdeal.force_misdeal(core)
                if core.table_clear():
                    core.void_or_misdeal_cleared()
            if ruled is not floor.Ruled.NOT_TAKEN:
                return
    if b is ConsoleButton.EXPOSED or b is ConsoleButton.BOXED:
        designate.exposed_or_boxed(core, boxed=b is ConsoleButton.BOXED)
    elif b is ConsoleButton.MISDEAL:
        misdeal.misdeal_pressed(core)
    elif b is ConsoleButton.CLOCK:
        clock.start_clock(core)
    elif b is ConsoleButton.FLOOR:
        if retrieve.floor_called(core):
            return  # right after a fold: held for the director (retrieve.py)
        last = core.last_record
        if last is not None and core.hand is not None and core.hand.hand_no != last.hand_no:
            # 000 SECTION 5 DECISION MAKING 5 [L213], 002 Disputed Pots [L67] (C21): a pot
            # ruling must be asked before the next deal starts; it has (its first card)
            core.alert(
                AlertCode.FLOOR_CALLED,
                Severity.INFO,
                "000 SECTION 5 DECISION MAKING 5 [L213]; 002 Disputed Pots [L67]",
                f"Floor called to the table. Hand {last.hand_no}: the next deal has started, "
                "so its result stands (too late to dispute it)",
            )
            return
        core.alert(
            AlertCode.FLOOR_CALLED,
            Severity.INFO,
            "all profiles: floor call",
            "Floor called to the table",
        )
    elif b is ConsoleButton.ACK:
        if core.phase is Phase.SHOWDOWN:
            showdown.ack(core)  # the prompted seat's hand is tabled
        else:
            betting.ack(core)


def declare(core: TableCore, e: Declare) -> None:
    """A verbal declaration, or the dealer's "not a check" (wagers.py)."""
    if not 0 <= e.seat <= core.max_seats:
        raise TableError("bad_seat", f"seat {e.seat} is not 0 (in turn) or 1..{core.max_seats}")
    if core.phase is Phase.SHOWDOWN and e.declaration is not Declaration.PLAY_BOARD:
        raise TableError("showdown", f"at the showdown only {Declaration.PLAY_BOARD.value!r} "
                         f"is declared, not {e.declaration.value!r}")  # fmt: skip
    _declare(core, e)


def _declare(core: TableCore, e: Declare) -> None:
    """A declaration's sequence: the deal's end, checks inferred on the way, the ruling
    (wagers.py), the fold or check it makes."""
    h = core.hand
    if h is None:
        raise TableError("no_hand", "no hand is being played: nothing to declare")
    if e.declaration is Declaration.NOT_A_CHECK:
        wagers.not_a_check(core, h)
        return
    seat = e.seat or h.pointer
    p = h.players.get(seat)
    if p is None:
        who = f"seat {seat}" if seat else "nobody (no seat is in turn)"
        raise TableError("not_in_hand", f"declaration {e.declaration.value!r} for {who}")
    if not p.live:
        raise TableError("not_live", f"seat {seat} has folded; its declaration cannot play")
    word = e.declaration.value
    if e.declaration is Declaration.PLAY_BOARD:
        rounds.record(core, h, seat, "declare_" + word, 0)  # 004 AR-6: before the showdown
        return
    if core.phase is Phase.BOARD:
        raise TableError("round_closed", f"the betting round is closed: seat {seat}'s {word}")
    if p.all_in:
        raise TableError("all_in", f"seat {seat} is all-in: it has nothing to declare")
    if not dealing.begin_action(core, h):
        return
    if seat != h.pointer and not betting.infer_checks(core, h, seat, None):
        rounds.record(core, h, seat, "declare_" + word, 0)
        rule = core.profile.out_of_turn
        core.alert(
            AlertCode.ACTION_OUT_OF_TURN,
            Severity.WARNING,
            f"{wagers.OOT_CLAUSE[rule]}; 003 [L61]: verbal declarations in turn are binding",
            f"Seat {seat} declared {word} out of turn; seat {h.pointer} is to act"
            + ("" if e.declaration is Declaration.FOLD else ": the declaration does not bind"),
            seat,
        )
        if e.declaration is Declaration.FOLD:
            betting.fold(core, seat, "")  # an out-of-turn fold is binding (002 [L129])
        return
    rounds.record(core, h, seat, "declare_" + word, 0)
    rounds.declare(h, seat, word)
    if e.declaration is Declaration.FOLD:
        betting.fold(core, seat, "")
    elif e.declaration is Declaration.CHECK:
        if p.street_bet < h.current_bet:
            core.alert(
                AlertCode.DECLARATION_BINDS,
                Severity.WARNING,
                wagers.DECLARED_CLAUSE,
                f"Seat {seat} declared check facing a bet of {h.current_bet}: call or fold",
                seat,
            )
            return
        betting.ack(core)


def badge(core: TableCore, e: BadgeTap) -> None:
    if not e.supervisor:
        core.dealer = e.badge
        return
    h = core.hand
    if h is not None and h.floor_state in floor.HOLDS:
        if retrieve.seat_held(h):
            retrieve.badge(core, h, e.badge)
        else:
            floor.badge(core, e.badge)
        return
    if h is not None and h.wager.floor_seat and core.phase is Phase.BETTING:
        floor.oot_badge(core, e.badge)  # 003 [L61]: the floor rules the action out of turn
        return
    if board.supervisor(core, e):
        misdeal.force_misdeal(core)  # a disputed misdeal authorised (misdeal.py)


def set_dealer(core: TableCore, e: SetDealer) -> None:
    core.dealer = e.dealer


def set_profile(core: TableCore, e: SetProfile) -> None:
    profile_switch.set_profile(core, e)


def hold_deal(core: TableCore, e: HoldDeal) -> None:
    handforhand.hold(core, e)


def release_deal(core: TableCore, e: ReleaseDeal) -> None:
    handforhand.release(core, e)


def tick(core: TableCore, e: Tick) -> None:
    """Time passes: the clock was checked before any event (``TableCore.handle``)."""


def sweep(core: TableCore, e: Sweep) -> None:
    if not bb_option.sweep_held(core):  # 003 [L89]: the big blind's option is still open
        betting.sweep(core, e)


def interrupted(core: TableCore, e: Interrupted) -> None:
    misdeal.interrupted(core)
