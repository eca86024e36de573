"""Actions and money: chips into betting zones, folds to the muck, inferred checks, whose
turn it is, minimum raises, short all-ins, oversized chips, the raise cap, action out of
turn, the clock, the end of a betting round and the award."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.rules.decisions import ActionRecord, AlertCode, Severity
from controller.rules.errors import TableError
from controller.rules.events import ChipsIn, ChipsOut, Sweep
from controller.rules.hand import Hand, Player, Street
from controller.rules.phases import Phase
from controller.rules.seating import clockwise, postflop_first, preflop_first

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

# dealing and misdeal import this module: the cycle is resolved at call time (both are fully
# imported before any event is handled), not by importing inside the functions on the
# action path, which costs an import-system lookup per call.
from controller.rules import dealing, misdeal, showdown

_STREET_NO: Final = (0, 1, 2, 3)  # a street's number without int(Street): a call to the int type


def record(core: TableCore, h: Hand, seat: int, kind: str, amount: int) -> None:
    p = h.players[seat]
    h.actions.append(
        ActionRecord(_STREET_NO[h.street], seat, kind, amount, p.street_bet, core.t, p.all_in)
    )
    if amount > 0:
        h.unswept = True  # 003-SidePots-sweep: chips in a zone until the next sweep


def _order_from(h: Hand, seat: int, n: int) -> list[Player]:
    return [h.players[s] for s in clockwise(seat, n) if s in h.players]


def needs_action(h: Hand, p: Player) -> bool:
    # p.can_act, inlined: this is on the path of every action
    return not (p.folded or p.dead or p.all_in) and (not p.acted or p.street_bet < h.current_bet)


def _next_to_act(core: TableCore, h: Hand, after: int) -> int:
    players = h.players
    for s in clockwise(after, core.max_seats):
        p = players.get(s)
        if p is not None and needs_action(h, p):
            return s
    return 0


def open_preflop(core: TableCore) -> None:
    h = core.hand
    assert h is not None
    core.enter(Phase.BETTING)
    h.street = Street.PREFLOP
    live = frozenset(s for s, p in h.players.items() if p.can_act)
    first = preflop_first(h.pos, frozenset(h.players), core.max_seats)
    if first not in live or not needs_action(h, h.players[first]):
        before = clockwise(first, core.max_seats)[-1]
        first = _next_to_act(core, h, before)
    h.pointer = first
    after_change(core)


def open_street(core: TableCore) -> None:
    """The board for a new street is out: a new betting round opens (or the run-out goes on)."""
    h = core.hand
    assert h is not None
    for p in h.players.values():
        p.street_bet = 0
        # an all-in run-out: at most one seat has chips, nobody can bet; the street closes
        # as soon as its board is out (000-S1-allin-1, 003-SidePots-allin)
        p.acted = h.runout
        p.can_raise = True
    h.current_bet = 0
    h.last_raise = h.big_blind
    h.raises = 0
    h.oot.clear()
    core.enter(Phase.BETTING)
    # 000-S2-postflop, 003-Flop-order, 002-HeadsUp-1: the first live seat left of the
    # button acts first. (clockwise(start)[-1] is ``start`` itself, so searching after it
    # skipped the first seat: the small blind, and heads-up the big blind.)
    start = postflop_first(h.pos, frozenset(h.players), core.max_seats)
    before = clockwise(start, core.max_seats)[-2]
    h.pointer = _next_to_act(core, h, before)
    after_change(core)


def after_change(core: TableCore) -> None:
    """Re-evaluate the round: the hand is won, the round is closed, or someone is to act."""
    h = core.hand
    assert h is not None
    live = 0
    for p in h.players.values():
        if not (p.folded or p.dead):  # p.live, inlined
            live += 1
    if live == 1:
        core.finish_hand()
        return
    if core.phase is not Phase.BETTING:
        return
    if h.pointer and needs_action(h, h.players[h.pointer]):
        _apply_pending_oot(core, h)
        return
    h.pointer = _next_to_act(core, h, h.pointer or h.pos.button)
    if h.pointer:
        _apply_pending_oot(core, h)
        return
    # the round is closed
    if h.street is Street.RIVER:
        showdown.begin(core)  # two or more hands left: they are shown, then the award
        return
    core.enter(Phase.BOARD)
    # A burn made while the round was still open (ACTION_PENDING), or a card that must be
    # the next burn and was burned early, is the coming street's burn: 000-S3-irreg-12b
    # "later cards are those that would have come" - no second burn, no missing-burn alert.
    h.street_burns += h.burn_credit
    h.burn_credit = 0
    h.clock_seat = 0
    can_act = [p for p in h.players.values() if p.can_act]
    if len(can_act) <= 1 and not h.runout:
        h.runout = True
        core.alert(
            AlertCode.ALL_IN_FACE_UP,
            Severity.INFO,
            "002 All-in: cards face up [AllinFaceUp-1]; TDA 16",
            "All-in and betting complete: turn all hands face up, then deal the board",
        )


def _apply_pending_oot(core: TableCore, h: Hand) -> None:
    seat = h.pointer
    pending = h.oot.pop(seat, None)
    if pending is None:
        return
    amount, bet_seen = pending
    if bet_seen == h.current_bet:
        if amount is None:
            # presence-only chip sensors (L3): the amount is not known, the call stands
            core.instruct(f"Seat {seat}: the action out of turn stands (amount not sensed)", seat)
            _act_presence(core, h, h.players[seat])
            return
        core.instruct(f"Seat {seat}: the action out of turn stands ({amount})", seat)
        _act(core, h, h.players[seat], amount, ())
        return
    core.alert(
        AlertCode.ACTION_OUT_OF_TURN,
        Severity.WARNING,
        "002 Action out of turn [OutOfTurn-2]; 000 SECTION 3 betting 7b-7c",
        f"Seat {seat}: the action changed since the bet out of turn; return the "
        f"{'' if amount is None else f'{amount} '}chips, "
        "the player has all options",
        seat,
    )


def _infer_checks(core: TableCore, h: Hand, seat: int) -> bool:
    """Seats between the pointer and ``seat`` that could check are taken to have checked
    (a check leaves no trace, L2). False if one of them faced a bet: ``seat`` is out of turn."""
    if not h.pointer:
        return False
    skipped: list[Player] = []
    # start AT the pointer: _order_from(h, x) begins after x, so pass the seat before it
    for p in _order_from(h, clockwise(h.pointer, core.max_seats)[-2], core.max_seats):
        if p.seat == seat:
            break
        if needs_action(h, p):
            if p.street_bet < h.current_bet:
                return False
            skipped.append(p)
    for p in skipped:
        p.acted = True
        record(core, h, p.seat, "check", 0)
        _count_window(h, p.seat, chips=False)
    h.pointer = seat
    return True


def _count_window(h: Hand, seat: int, chips: bool) -> None:
    if h.street is Street.PREFLOP:
        h.window_actions += 1
        h.window_chip_actions += int(chips)
        h.window_seats.add(seat)


def _out_of_turn(core: TableCore, h: Hand, seat: int, what: str) -> None:
    core.alert(
        AlertCode.ACTION_OUT_OF_TURN,
        Severity.WARNING,
        "000 SECTION 3 betting 7b-7c; 002 Action out of turn; 004 AR-13",
        f"Seat {seat} acted out of turn ({what}); seat {h.pointer} is to act. The action is "
        "binding if nothing changes before it",
        seat,
    )


def _begin_action(core: TableCore, h: Hand) -> bool:
    """Chips or a fold while the deal is still going on: betting has begun."""
    if core.phase is Phase.DEALING:
        if dealing.missing_cards_at_action(core):
            return False
        if core.phase is Phase.DEALING:
            open_preflop(core)
    return core.phase is Phase.BETTING


def chips_in(core: TableCore, e: ChipsIn) -> None:
    h = core.hand
    amount = 1 if e.amount is None else e.amount
    if h is None or core.phase in (Phase.IDLE, Phase.COMPLETE, Phase.MISDEAL, Phase.VOID):
        core.posted[e.seat] = core.posted.get(e.seat, 0) + amount
        if e.amount is None:
            core.presence_posts.add(e.seat)
        return
    p = h.players.get(e.seat)
    if p is None:
        raise TableError("not_in_hand", f"chips from seat {e.seat}, which has no hand")
    owed = h.unconfirmed.get(e.seat, 0)
    take = min(owed, e.amount) if owed and e.amount is not None else 0
    if take and take == e.amount:
        h.unconfirmed[e.seat] = owed - take  # the chips confirm a blind posted from the stack
        return
    # validate before mutating: a rejected event leaves the state unchanged
    if not p.live:
        raise TableError("not_live", f"seat {e.seat} has folded; its chips cannot play")
    if core.phase is not Phase.BOARD:
        if p.all_in:
            raise TableError("all_in", f"seat {e.seat} is all-in")
        if e.amount is not None and e.amount - take > p.stack:
            raise TableError(
                "over_stack", f"seat {e.seat} put in {e.amount - take} but has {p.stack} behind"
            )
        held = h.oot.get(e.seat)  # chips already in the zone out of turn, not yet played
        in_zone = None if held is None or held[0] is None or e.amount is None else held[0]
        if in_zone is not None and e.amount is not None and in_zone + e.amount - take > p.stack:
            raise TableError(
                "over_stack",
                f"seat {e.seat} has {in_zone + e.amount - take} in its zone out of turn "
                f"but {p.stack} behind",
            )
    if take:
        assert e.amount is not None
        h.unconfirmed[e.seat] = owed - take
        e = ChipsIn(e.t, e.seat, e.amount - take, e.chips)
    if core.phase is Phase.BOARD:
        core.alert(
            AlertCode.ACTION_PENDING,
            Severity.WARNING,
            "000 SECTION 2 THE FLOP/TURN/RIVER",
            f"Seat {e.seat}: the betting round is closed; wait for the next card",
            e.seat,
        )
        return
    if not _begin_action(core, h):
        return
    if misdeal.acted_with_joker(core, e.seat, e.amount):
        return
    if e.seat != h.pointer and not _infer_checks(core, h, e.seat):
        held = h.oot.get(e.seat)  # more chips out of turn add up
        pending = e.amount
        if held is not None and pending is not None and held[0] is not None:
            pending += held[0]
        h.oot[e.seat] = (pending, h.current_bet)
        what = f"chips {e.amount}" if e.amount is not None else "chips; amount not sensed"
        _out_of_turn(core, h, e.seat, what)
        return
    if h.clock_seat == e.seat:
        h.clock_seat = 0
    if e.amount is None:
        _act_presence(core, h, p)
    else:
        _act(core, h, p, e.amount, e.chips)


def _act_presence(core: TableCore, h: Hand, p: Player) -> None:
    """Presence-only chip sensors (L3): who moved chips is known, not how much."""
    kind = "bet" if h.current_bet == 0 else "call"
    p.acted = True
    if kind == "bet":
        h.current_bet = 1
        h.last_aggressor = p.seat
    p.street_bet = h.current_bet
    _count_window(h, p.seat, chips=True)
    record(core, h, p.seat, kind, 0)
    after_change(core)


def _act(core: TableCore, h: Hand, p: Player, amount: int, chips: tuple[int, ...]) -> None:
    prof = core.profile
    to_call = h.current_bet - p.street_bet
    new_total = p.street_bet + amount
    all_in = amount == p.stack
    kind = "call"
    if to_call > 0 and amount > to_call and not all_in:
        if len(chips) == 1 and prof.oversized_chip_is_call:
            core.alert(
                AlertCode.OVERSIZED_CHIP,
                Severity.INFO,
                "000 SECTION 3 betting 9; 002 Oversized Chip Betting [L141]",
                f"Seat {p.seat}: a single oversized chip is a call; give {amount - to_call} change",
                p.seat,
            )
            amount, new_total = to_call, h.current_bet
        elif (
            prof.multiple_chip_rule
            and len(chips) > 1
            and len(set(chips)) == 1
            and amount - chips[0] < to_call
        ):
            core.alert(
                AlertCode.MULTIPLE_CHIPS,
                Severity.INFO,
                "002 Multiple chips [L145]; TDA 47",
                f"Seat {p.seat}: several same chips without a raise declared is a call; "
                f"give {amount - to_call} change",
                p.seat,
            )
            amount, new_total = to_call, h.current_bet
    if new_total < h.current_bet and not all_in:
        core.alert(
            AlertCode.WAGER_SHORT,
            Severity.WARNING,
            "000 SECTION 3 betting 11; 002 Accepted action",
            f"Seat {p.seat}: {to_call - amount} short of the call of {h.current_bet}; bring it up",
            p.seat,
        )
        p.stack -= amount
        p.street_bet += amount
        p.total += amount
        return
    if new_total > h.current_bet:
        raise_by = new_total - h.current_bet
        full = raise_by >= h.last_raise
        if not p.can_raise and h.current_bet > 0:
            core.alert(
                AlertCode.RAISE_NOT_ALLOWED,
                Severity.WARNING,
                "000 SECTION 3 betting 4; 002 Raises [L137]",
                f"Seat {p.seat}: an all-in short of a full raise did not reopen the betting; "
                f"call only: give {raise_by} back",
                p.seat,
            )
            amount, new_total = to_call, h.current_bet
        elif prof.raise_limit and h.raises >= prof.raise_limit and h.current_bet > 0:
            core.alert(
                AlertCode.RAISE_LIMIT,
                Severity.WARNING,
                "004 AR-9: three-raise limit",
                f"Seat {p.seat}: the raises are capped at {prof.raise_limit}; call only: "
                f"give {raise_by} back",
                p.seat,
            )
            amount, new_total = to_call, h.current_bet
        elif (
            not full and not all_in and prof.short_raise_completion and 2 * raise_by < h.last_raise
        ):
            # 002 Raises [L137] / TDA 43-B: below half a raise it is a call (product reading)
            core.alert(
                AlertCode.RAISE_SHORT,
                Severity.WARNING,
                "002 Raises [L137]; TDA 43-B",
                f"Seat {p.seat}: less than half a raise ({raise_by} of {h.last_raise}) is a "
                f"call: give {raise_by} back",
                p.seat,
            )
            amount, new_total = to_call, h.current_bet
        elif not full and not all_in:
            core.alert(
                AlertCode.RAISE_SHORT,
                Severity.WARNING,
                "002 Raises [L137]; 000 SECTION 3 betting 2-3",
                f"Seat {p.seat}: a raise must be at least {h.last_raise}; make it "
                f"{h.current_bet + h.last_raise} in all",
                p.seat,
            )
            p.stack -= amount
            p.street_bet += amount
            p.total += amount
            return
    p.stack -= amount
    p.street_bet = new_total
    p.total += amount
    p.acted = True
    if p.stack == 0:
        p.all_in = True
    if new_total > h.current_bet:
        raise_by = new_total - h.current_bet
        kind = "bet" if h.current_bet == 0 else "raise"
        if raise_by >= h.last_raise:
            h.last_raise = raise_by
            h.raises += 1
            for q in h.players.values():
                if q.seat != p.seat:
                    q.acted = False
                    q.can_raise = True
        else:
            # 000 SECTION 3 betting 4, 002 Raises: a short all-in does not reopen the betting
            for q in h.players.values():
                if q.acted and q.seat != p.seat:
                    q.can_raise = False
        h.current_bet = new_total
        h.last_aggressor = p.seat
    elif amount == 0:
        kind = "check"
    _count_window(h, p.seat, chips=amount > 0)
    record(core, h, p.seat, kind, amount)
    after_change(core)


def fold(core: TableCore, seat: int, tag: str) -> None:
    h = core.hand
    assert h is not None
    p = h.players[seat]
    if core.phase is Phase.DEALING and not _begin_action(core, h):
        return
    if core.phase is Phase.BOARD or not p.live:
        p.folded = True
        record(core, h, seat, "fold", 0)
        after_change(core)
        return
    if seat != h.pointer and not _infer_checks(core, h, seat):
        _out_of_turn(core, h, seat, "fold; a fold is binding")
    p.folded = True
    if h.clock_seat == seat:
        h.clock_seat = 0
    h.oot.pop(seat, None)
    _count_window(h, seat, chips=False)
    record(core, h, seat, "fold", 0)
    after_change(core)


def chips_out(core: TableCore, e: ChipsOut) -> None:
    h = core.hand
    if h is None or core.phase in (Phase.IDLE, Phase.COMPLETE, Phase.MISDEAL, Phase.VOID):
        if e.seat in core.posted:
            left = core.posted[e.seat] - (e.amount or core.posted[e.seat])
            if left > 0:
                core.posted[e.seat] = left
            else:
                del core.posted[e.seat]
        return
    # change given back, or chips of a refused action taken back: nothing is in play


def sweep(core: TableCore, e: Sweep) -> None:
    h = core.hand
    if h is None or core.phase not in (Phase.BETTING, Phase.BOARD):
        return
    if core.phase is Phase.BOARD:
        h.unswept = False  # 003-SidePots-sweep: the bets went into the pot
    if core.phase is Phase.BETTING:
        facing = [
            p for p in h.players.values() if needs_action(h, p) and p.street_bet < h.current_bet
        ]
        if facing:
            core.alert(
                AlertCode.ACTION_PENDING,
                Severity.WARNING,
                "000 SECTION 2 PRE-FLOP BETTING [L72-78]",
                f"The round is not complete: seat {facing[0].seat} has not acted on the bet",
                facing[0].seat,
            )
            return
        close_unbet_round(core)
        h.unswept = False


def close_unbet_round(core: TableCore) -> None:
    """The dealer moved on (sweep or burn) in a round where nobody faces a bet: every seat
    still to act checked (L2)."""
    h = core.hand
    assert h is not None
    # from the seat to act (the pointer) on, in position order: _order_from(h, x) begins
    # after x, so pass the seat before the pointer
    start = clockwise(h.pointer, core.max_seats)[-2] if h.pointer else h.pos.button
    for p in _order_from(h, start, core.max_seats):
        if needs_action(h, p):
            p.acted = True
            _count_window(h, p.seat, chips=False)
            record(core, h, p.seat, "check", 0)
    h.pointer = 0
    after_change(core)


def pending_bet(core: TableCore) -> int:
    """A seat that provably still has to act (it faces a bet), or 0."""
    h = core.hand
    assert h is not None
    if core.phase is not Phase.BETTING:
        return 0
    for p in h.players.values():
        if needs_action(h, p) and p.street_bet < h.current_bet:
            return p.seat
    return 0


def ack(core: TableCore) -> None:
    """ACK with nothing to acknowledge in an unbet round: the dealer confirms a check."""
    h = core.hand
    if h is None or core.phase is not Phase.BETTING or not h.pointer:
        return
    p = h.players[h.pointer]
    if p.street_bet < h.current_bet:
        return
    p.acted = True
    if h.clock_seat == p.seat:
        h.clock_seat = 0
    _count_window(h, p.seat, chips=False)
    record(core, h, p.seat, "check", 0)
    after_change(core)


def start_clock(core: TableCore) -> None:
    h = core.hand
    if h is None or core.phase is not Phase.BETTING or not h.pointer:
        raise TableError("no_action", "nobody is to act: no clock")
    h.clock_seat = h.pointer
    h.clock_deadline = core.t + core.profile.clock_seconds
    h.clock_warned = False
    core.alert(
        AlertCode.CLOCK_STARTED,
        Severity.INFO,
        "002 Calling for a Clock [L81]; G8",
        f"Clock on seat {h.pointer}: {core.profile.clock_seconds:g} seconds to act",
        h.pointer,
    )


def clock_tick(core: TableCore, t: float) -> None:
    h = core.hand
    assert h is not None
    seat = h.clock_seat
    if core.phase is not Phase.BETTING or h.pointer != seat:
        h.clock_seat = 0
        return
    saved_t = core.t
    if t >= h.clock_deadline and not h.clock_warned:
        h.clock_warned = True
        core.t = h.clock_deadline
        core.alert(
            AlertCode.CLOCK_COUNTDOWN,
            Severity.WARNING,
            "002 Calling for a Clock [L81]",
            f"Seat {seat}: {core.profile.clock_countdown_seconds:g}-second countdown",
            seat,
        )
    end = h.clock_deadline + core.profile.clock_countdown_seconds
    if t >= end:
        core.t = end
        h.clock_seat = 0
        p = h.players[seat]
        p.folded = True
        core.alert(
            AlertCode.CLOCK_EXPIRED,
            Severity.WARNING,
            "002 Calling for a Clock [L81]",
            f"Seat {seat}: time is up, the hand is dead; muck it",
            seat,
        )
        record(core, h, seat, "fold", 0)
        after_change(core)
    core.t = max(saved_t, core.t)
