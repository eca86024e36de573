"""Actions and money: chips into betting zones, folds to the muck, inferred checks, whose
turn it is, minimum raises, short all-ins, oversized chips, the raise cap, action out of
turn, the clock, the end of a betting round and the award."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from controller.rules import clock, oot_limits, player, showdown, wagers
from controller.rules.decisions import AlertCode, Severity
from controller.rules.errors import TableError
from controller.rules.events import ChipsIn, ChipsOut, Sweep
from controller.rules.hand import Hand, Player, Street
from controller.rules.phases import ClockState, Phase
from controller.rules.rounds import (
    GO_ON,
    Then,
    another_motion,
    bet_to,
    count_window,
    drop_oot,
    full_raise,
    hold,
    motion,
    needs_action,
    new_mover,
    new_street,
    next_to_act,
    order_from,
    owe,
    record,
    swept,
    take_held,
    turn_to,
)
from controller.rules.seating import clockwise, postflop_first, preflop_first

if TYPE_CHECKING:
    from controller.rules.engine import TableCore

# Enum members on the per-event path, looked up once: ``Phase.X`` costs a Python-level
# ``EnumType.__getattr__`` hook per lookup in Python 3.11 (and a getattr in the compiled core)
_BETTING: Final = Phase.BETTING
_BOARD: Final = Phase.BOARD
_PREFLOP: Final = Street.PREFLOP
_RIVER: Final = Street.RIVER
_CLOCK_OFF: Final = ClockState.OFF


def open_preflop(core: TableCore) -> None:
    h = core.hand
    assert h is not None
    # (the street is the pre-flop already: the deal ends here, in the hand it started, and
    # only the board changes the street, after the deal: board.py)
    core.enter(Phase.BETTING)
    # (the hand's seats, not a set built of them: only membership is asked)
    first = preflop_first(h.pos, h.players, core.max_seats)
    p = h.players.get(first)
    if p is None or not needs_action(h, p):  # (a seat that needs to act can act)
        before = clockwise(first, core.max_seats)[-1]
        first = next_to_act(core, h, before)
    turn_to(h, first)
    after_change(core)


def open_street(core: TableCore) -> None:
    """The board for a new street is out: a new betting round opens (or the run-out goes on)."""
    h = core.hand
    assert h is not None
    for p in h.players.values():
        # an all-in run-out: at most one seat has chips, nobody can bet; the street closes
        # as soon as its board is out (000-S1-allin-1, 003-SidePots-allin)
        player.new_street(p, h.runout)
    new_street(h)
    core.enter(Phase.BETTING)
    # 000-S2-postflop, 003-Flop-order, 002-HeadsUp-1: the first live seat left of the
    # button acts first. (clockwise(start)[-1] is ``start`` itself, so searching after it
    # skipped the first seat: the small blind, and heads-up the big blind.)
    start = postflop_first(h.pos, h.players, core.max_seats)
    before = clockwise(start, core.max_seats)[-2]
    turn_to(h, next_to_act(core, h, before))
    after_change(core)


def after_change(core: TableCore) -> None:
    """Re-evaluate the round: the hand is won, the round is closed, or someone is to act."""
    h = core.hand
    assert h is not None
    players = h.players
    live = 0
    for p in players.values():
        if not (p.folded or p.dead):  # p.live, inlined
            live += 1
            if live > 1:
                break  # only "one hand left" matters here
    if live == 1:
        core.finish_hand()
        return
    if core.phase is not _BETTING:
        return
    seat = h.pointer
    if seat:
        p = players[seat]
        # needs_action, inlined (after every action)
        if not (p.folded or p.dead or p.all_in) and (not p.acted or p.street_bet < h.current_bet):
            if h.oot and seat in h.oot:
                play(core, h, wagers.apply_pending(core, h, seat))
            return
    seat = next_to_act(core, h, seat or h.pos.button)
    turn_to(h, seat)
    if seat:
        if h.oot and seat in h.oot:
            play(core, h, wagers.apply_pending(core, h, seat))
        return
    # the round is closed
    if h.street is _RIVER:
        showdown.begin(core)  # two or more hands left: they are shown, then the award
        return
    core.enter(Phase.BOARD)
    core.round_closed(h)  # the early burns are the coming street's (board.round_closed)
    clock.stop(core, h)
    if h.runout:
        return
    can_act = 0  # (a count, not a list of them)
    for p in players.values():
        if not (p.folded or p.dead or p.all_in):  # p.can_act, inlined
            can_act += 1
    if can_act <= 1:
        h.runout = True
        core.alert(
            AlertCode.ALL_IN_FACE_UP,
            Severity.INFO,
            "002 All-in: cards face up [AllinFaceUp-1]; TDA 16",
            "All-in and betting complete: turn all hands face up, then deal the board",
        )


def infer_checks(core: TableCore, h: Hand, seat: int, ev: ChipsIn | None) -> bool:
    """Seats between the pointer and ``seat`` that could check are taken to have checked
    (a check leaves no trace, L2). False if one of them faced a bet: ``seat`` is out of turn.
    A seat on the way that acted out of turn earlier has its turn: the profile rules it
    (wagers.apply_pending), and the search goes on from there. ``ev``: the chips that made
    the checks inferred (the dealer may say "not a check", wagers.not_a_check)."""
    if not h.pointer:
        return False
    skipped: list[Player] = []
    held = 0
    # start AT the pointer: order_from(h, x) begins after x, so pass the seat before it
    for p in order_from(h, clockwise(h.pointer, core.max_seats)[-2], core.max_seats):
        if p.seat == seat:
            break
        if needs_action(h, p):
            if p.street_bet < h.current_bet or p.seat == h.wager.floor_seat:
                return False
            if h.oot and p.seat in h.oot:
                held = p.seat
                break
            skipped.append(p)
    if skipped and ev is not None and not held:
        wagers.keep_undo(h, ev, len(skipped))
    for p in skipped:
        player.acted(p)
        record(core, h, p.seat, "check", 0)
        count_window(h, p.seat, chips=False)
    if held:
        turn_to(h, held)
        play(core, h, wagers.apply_pending(core, h, held))
        if core.phase is not _BETTING or needs_action(h, h.players[held]):
            return False
        return seat == h.pointer or infer_checks(core, h, seat, None)
    turn_to(h, seat)
    return True


def _out_of_turn(core: TableCore, h: Hand, seat: int, what: str) -> None:
    core.alert(
        AlertCode.ACTION_OUT_OF_TURN,
        Severity.WARNING,
        f"{wagers.OOT_CLAUSE[core.profile.out_of_turn]}; 002 [L129]: an out-of-turn fold is "
        "binding",
        f"Seat {seat} acted out of turn ({what}); seat {h.pointer} is to act",
        seat,
    )


def play(core: TableCore, h: Hand, then: Then | None) -> None:
    """Play what a wager ruling left for the round (:class:`~controller.rules.rounds.Then`;
    None: nothing)."""
    if then is None:
        return
    kind = then.kind
    if kind == "act":
        act(core, h, h.players[then.seat], then.amount, ())
    elif kind == "ack":
        ack(core)
    elif kind == "presence":
        act_presence(core, h, h.players[then.seat])
    else:
        after_change(core)


def chips_checked(core: TableCore, h: Hand, p: Player, e: ChipsIn) -> ChipsIn | None:
    """Chips into the zone of ``p``, a seat in the hand, before they are played: refused
    (TableError, nothing changed), taken as a blind posted from the stack, or ruled as
    chips while the board is being dealt (None: nothing more to do); else the chips to
    play (a blind's share taken off). The handler sequences the rest: the deal's end
    (``dealing.begin_action``), a fouled hand (``misdeal.acted_with_joker``), then
    :func:`chips_played`."""
    owed = h.unconfirmed.get(e.seat, 0)
    take = min(owed, e.amount) if owed and e.amount is not None else 0
    if take and take == e.amount:
        unconfirmed(h, e.seat, owed - take)  # the chips confirm a blind posted from the stack
        return None
    # validate before mutating: a rejected event leaves the state unchanged
    if p.folded or p.dead:  # (not p.live, inlined)
        raise TableError("not_live", f"seat {e.seat} has folded; its chips cannot play")
    if core.phase is not _BOARD:
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
        unconfirmed(h, e.seat, owed - take)
        e = ChipsIn(e.t, e.seat, e.amount - take, e.chips)
    if core.phase is _BOARD and h.redeal_flop and h.board:
        # 000 IRREGULARITIES 10. [L142]: a four-card flop is redealt even if the extra card
        # is known; betting on three of its cards does not make them the flop
        core.alert(
            AlertCode.FOUR_CARD_FLOP,
            Severity.WARNING,
            "000 SECTION 3 IRREGULARITIES 10 [L142]; 003 Dealer errors flop; 004 AR-2",
            f"Seat {e.seat}: no betting on this flop: return the board to the stub (the burn "
            "stays), reshuffle, cut and deal a new flop without a burn",
            e.seat,
        )
        return None
    if core.phase is _BOARD and wagers.closing_motion(core, h, p, e):
        # the seat whose call closed the round puts more chips in before the dealer moves
        # on: a second motion of that call, judged as one (000 [L159], 002 [L133], 003 [L59]
        # [L129]: a string raise is a call; 004 silent: the chips add up, a raise)
        core.enter(Phase.BETTING)
        another_motion(h)
        judged = wagers.second_motion(core, h, p, e, h.wager.motions)
        play(core, h, judged if isinstance(judged, Then) else GO_ON)
        return None
    if core.phase is _BOARD:
        core.alert(
            AlertCode.ACTION_PENDING,
            Severity.WARNING,
            "000 SECTION 2 THE FLOP/TURN/RIVER",
            f"Seat {e.seat}: the betting round is closed; wait for the next card",
            e.seat,
        )
        return None
    return e


def chips_played(core: TableCore, h: Hand, p: Player, e: ChipsIn) -> None:
    """Chips in a betting round, in turn or not (after :func:`chips_checked`)."""
    w = h.wager
    if w.undo is not None and wagers.skipped_bets(core, h, p, e):
        wagers.undo_checks(core, h, f"Seat {e.seat} had not checked")
    if w.wrong[0]:
        if e.seat == h.pointer:
            wagers.void_wrong(h)  # 004 AR-13: the true position acts; the wrong wager is void
        elif e.seat == w.wrong[2]:
            # the next seat acted: the wrong wager stands
            play(core, h, wagers.wrong_bet_stands(core, h))
            if core.phase is not _BETTING:
                return
    if w.floor_seat == e.seat:
        wagers.not_let_stand(h)  # new chips: the action out of turn was not let stand
        drop_oot(h, e.seat)
    n = w.motions + 1 if w.last_mover == e.seat else 1
    motion(h, e.seat, n)
    if n > 1:
        judged = wagers.second_motion(core, h, p, e, n)
        if judged is not False:
            play(core, h, None if judged is True else judged)
            return
    if e.seat != h.pointer:
        if not infer_checks(core, h, e.seat, e):
            new_mover(h)
            if core.phase is _BETTING:
                wagers.out_of_turn_chips(core, h, e)
            return
        motion(h, e.seat, n)  # (checks inferred on the way reset it)
    if h.clock_state is not _CLOCK_OFF:
        clock.stop(core, h, e.seat)
    if e.amount is None:
        act_presence(core, h, p)
    elif w.limited and p.seat in w.limited:
        limit = oot_limits.limited(core, h, p, e)
        if limit is None:
            act(core, h, p, e.amount, e.chips, n)
        else:
            play(core, h, limit)
    else:
        act(core, h, p, e.amount, e.chips, n)


def act_presence(core: TableCore, h: Hand, p: Player) -> None:
    """Presence-only chip sensors (L3): who moved chips is known, not how much."""
    kind = "bet" if h.current_bet == 0 else "call"
    if kind == "bet":
        bet_to(h, p.seat, 1)
    player.sensed(p, h.current_bet)
    count_window(h, p.seat, chips=True)
    record(core, h, p.seat, kind, 0)
    after_change(core)


def act(
    core: TableCore, h: Hand, p: Player, amount: int, chips: tuple[int, ...], n: int = 1
) -> None:
    prof = core.profile
    declared = False
    if h.wager.declared:
        amount = wagers.bound_amount(core, h, p, amount, n)
        if wagers.accumulates(core, h, p, amount, n):
            return
        declared = h.wager.declared.get(p.seat) in ("raise", "all_in")
    to_call = h.current_bet - p.street_bet
    new_total = p.street_bet + amount
    all_in = amount == p.stack
    kind = "call"
    if to_call > 0 and amount > to_call and not all_in and not declared:
        if len(chips) == 1 and prof.oversized_chip_is_call:
            core.alert(
                AlertCode.OVERSIZED_CHIP,
                Severity.INFO,
                "000 SECTION 3 betting 9; 002 Oversized Chip Betting [L141]",
                f"Seat {p.seat}: a single oversized chip is a call; give {amount - to_call} change",
                p.seat,
            )
            owe(h, p.seat, amount - to_call)
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
            owe(h, p.seat, amount - to_call)
            amount, new_total = to_call, h.current_bet
    if new_total < h.current_bet and not all_in:
        core.alert(
            AlertCode.WAGER_SHORT,
            Severity.WARNING,
            "000 SECTION 3 betting 11; 002 Accepted action",
            f"Seat {p.seat}: {to_call - amount} short of the call of {h.current_bet}; bring it up",
            p.seat,
        )
        player.put_in(p, amount)
        hold(h, p.seat, amount)
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
            owe(h, p.seat, raise_by)
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
            owe(h, p.seat, raise_by)
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
            owe(h, p.seat, raise_by)
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
            player.put_in(p, amount)
            hold(h, p.seat, amount)
            return
    player.acts(p, amount, new_total)
    if new_total > h.current_bet:
        raise_by = new_total - h.current_bet
        kind = "bet" if h.current_bet == 0 else "raise"
        if raise_by >= h.last_raise:
            full_raise(h, raise_by)
            for q in h.players.values():
                # (a seat already to act and free to raise is left as it is: no call)
                if q.seat != p.seat and (q.acted or not q.can_raise):
                    player.reopened(q)
        else:
            # 000 SECTION 3 betting 4, 002 Raises: a short all-in does not reopen the betting
            for q in h.players.values():
                if q.acted and q.seat != p.seat:
                    player.not_reopened(q)
        bet_to(h, p.seat, new_total)
    elif amount == 0:
        kind = "check"
    if declared and kind == "call":
        wagers.declared_unmet(core, h, p, kind)
    if h.wager.held:
        amount += take_held(h, p.seat)  # earlier motions of this wager (short, declared)
    count_window(h, p.seat, chips=amount > 0)
    record(core, h, p.seat, kind, amount)
    after_change(core)


def fold(core: TableCore, seat: int, tag: str) -> None:
    h = core.hand
    assert h is not None
    p = h.players[seat]
    if core.phase is _BOARD or p.folded or p.dead:  # (not p.live, inlined)
        player.fold(p)
        record(core, h, seat, "fold", 0)
        after_change(core)
        return
    w = h.wager
    if w.wrong[0] and seat == h.pointer:
        wagers.void_wrong(h)  # 004 AR-13: the true position acted; the wrong wager is void
    elif w.wrong[0] and seat == w.wrong[2]:
        play(core, h, wagers.wrong_bet_stands(core, h))  # 004 AR-13: the next seat acted
        if core.phase is not _BETTING:
            return
    # 002 [L169]: a hand with an uncalled bet or raise in the muck is the floor's call
    # (retrieve.killed_uncalled), not the player's fold out of turn or facing no bet
    killed = wagers.killed_uncalled(core, h, p)
    if not killed and seat != h.pointer and not infer_checks(core, h, seat, None):
        _out_of_turn(core, h, seat, "fold; a fold is binding")
    p = h.players[seat]  # (read again: the rulings above may have folded or killed it)
    if p.folded or p.dead:  # (not p.live, inlined)
        return  # its pending action out of turn was ruled a fold meanwhile
    if not killed:
        wagers.nonstandard_fold(core, h, p)
    player.fold(p)
    if h.clock_state is not _CLOCK_OFF:  # (no clock, nothing pending out of turn: most folds)
        clock.stop(core, h, seat)
    if h.oot:
        drop_oot(h, seat)
    count_window(h, seat, chips=False)
    record(core, h, seat, "fold", 0)
    after_change(core)


def chips_out(core: TableCore, h: Hand, e: ChipsOut) -> None:
    """Chips leave a zone during a hand (between hands: ``posting.chips_out``)."""
    if core.phase is _BETTING or core.phase is _BOARD:
        wagers.chips_out(core, h, e)  # change, a refused wager, or chips that must stay in


def sweep(core: TableCore, e: Sweep) -> None:
    h = core.hand
    if h is None:
        return
    phase = core.phase
    if phase is _BOARD:
        swept(h)  # 003-SidePots-sweep: the bets went into the pot
    elif phase is _BETTING:
        bet = h.current_bet
        for p in h.players.values():
            # needs_action, inlined, and facing the bet (the first such seat is named)
            if not (p.folded or p.dead or p.all_in) and p.street_bet < bet:
                core.alert(
                    AlertCode.ACTION_PENDING,
                    Severity.WARNING,
                    "000 SECTION 2 PRE-FLOP BETTING [L72-78]",
                    f"The round is not complete: seat {p.seat} has not acted on the bet",
                    p.seat,
                )
                return
        close_unbet_round(core)
        swept(h)


def close_unbet_round(core: TableCore) -> None:
    """The dealer moved on (sweep or burn) in a round where nobody faces a bet: every seat
    still to act checked (L2)."""
    h = core.hand
    assert h is not None
    # from the seat to act (the pointer) on, in position order: order_from(h, x) begins
    # after x, so pass the seat before the pointer
    start = clockwise(h.pointer, core.max_seats)[-2] if h.pointer else h.pos.button
    for p in order_from(h, start, core.max_seats):
        if needs_action(h, p):
            player.acted(p)
            count_window(h, p.seat, chips=False)
            record(core, h, p.seat, "check", 0)
    turn_to(h, 0)
    after_change(core)


def ack(core: TableCore) -> None:
    """ACK with nothing to acknowledge in an unbet round: the dealer confirms a check."""
    h = core.hand
    if h is None or core.phase is not _BETTING or not h.pointer:
        return
    if h.wager.floor_seat:
        stands = wagers.floor_stands(core, h)
        if stands is not None:
            play(core, h, stands)
            return
    p = h.players[h.pointer]
    if p.street_bet < h.current_bet:
        if not wagers.first_skipped(core, h):
            return
        # a check confirmed while the seat to act faces the bet that inferred the checks
        # before it: the first skipped seat checks; the bet was out of turn (000 [L157])
        wagers.undo_checks(core, h, f"Seat {wagers.first_skipped(core, h)} had not checked")
        p = h.players[h.pointer]
    wagers.void_wrong(h)  # 004 AR-13: the true position acted; a wrong wager is void
    player.acted(p)
    clock.stop(core, h, p.seat)
    count_window(h, p.seat, chips=False)
    record(core, h, p.seat, "check", 0)
    after_change(core)


def clock_tick(core: TableCore, t: float) -> None:
    """The clock on a player run to ``t`` (``clock.tick``); the time up, the hand is dead
    (002 Calling for a Clock [L81]): a fold, and the round goes on."""
    saved_t = core.t
    seat = clock.tick(core, t)
    if seat:
        h = core.hand
        assert h is not None
        player.fold(h.players[seat])
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


def unconfirmed(h: Hand, seat: int, chips: int) -> None:
    """The chips of a blind posted for ``seat`` from its stack not yet seen in its zone
    (``posting.take_forced``); chips in the zone confirm them (:func:`chips_in`)."""
    h.unconfirmed[seat] = chips
