"""Properties of the rules core under random event sequences, including impossible ones
(a card in two places, hole zones of seats that do not exist, chips at empty seats, events in
any order, time going backwards): ``handle`` never raises, a rejected event leaves the
snapshot unchanged, no tag is in two places, chips are conserved within and across hands,
and the table is in exactly one consistent phase."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from controller.rules.cards import JOKER, STANDARD_DECK, Card
from controller.rules.dealing import hole_owner
from controller.rules.engine import Step, TableCore
from controller.rules.events import (
    BadgeTap,
    ButtonPress,
    CardPlaced,
    CardRemoved,
    ChipsIn,
    ChipsOut,
    ConsoleButton,
    Event,
    SeatPlayer,
    SetButton,
    SetLevel,
    SetPresence,
    SetProfile,
    StartButtonDraw,
    Sweep,
    Tick,
    UnseatPlayer,
    ZoneKind,
)
from controller.rules.phases import ClockState, Phase
from controller.rules.profile import builtin_profile, builtin_profile_names
from controller.rules.state import TableState
from controller.rules.tabledata import TableData

# a small pool so that cards collide: 14 cards of deck A, a second deck's copy of one of
# them (a duplicate), a joker and a foreign tag
_CARDS: list[tuple[str, Card | None]] = [(f"A-{c}", c) for c in STANDARD_DECK[:14]]
_CARDS += [("B-2c", STANDARD_DECK[0]), ("J-1", JOKER), ("X-1", None)]

seats = st.integers(min_value=-1, max_value=11)
small_seats = st.integers(min_value=1, max_value=5)
amounts = st.one_of(st.none(), st.integers(min_value=-5, max_value=400))
chip_lists = st.lists(st.sampled_from([25, 100, 500]), max_size=3)
players = st.sampled_from(["p1", "p2", "new"])
# the venue's profile changes: every packaged profile, and one too short for most tables
_SET_PROFILES = [builtin_profile(n) for n in builtin_profile_names()]
_SET_PROFILES.append(dataclasses.replace(_SET_PROFILES[0], name="three", max_seats=3))


@st.composite
def events(draw: st.DrawFn) -> tuple[float, object]:
    dt = draw(st.one_of(st.just(0.0), st.floats(0.01, 5.0), st.just(-1.0), st.just(80.0)))
    kind = draw(st.integers(0, 16))
    tag, card = draw(st.sampled_from(_CARDS))
    zone = draw(st.sampled_from(list(ZoneKind)))
    seat = draw(st.one_of(small_seats, seats))
    maker = {
        0: lambda t: CardPlaced(t, ZoneKind.HOLE, tag, card, seat=seat),
        1: lambda t: CardPlaced(t, zone, tag, card, seat=seat),
        2: lambda t: CardRemoved(t, zone, tag, seat),
        3: lambda t: ChipsIn(t, seat, draw(amounts), tuple(draw(chip_lists))),
        4: lambda t: ChipsOut(t, seat, draw(amounts)),
        5: Sweep,
        6: lambda t: ButtonPress(t, draw(st.sampled_from(list(ConsoleButton)))),
        7: lambda t: BadgeTap(t, "b", draw(st.booleans())),
        8: Tick,
        9: lambda t: SeatPlayer(t, seat, draw(players), draw(st.integers(-1, 2000))),
        10: lambda t: UnseatPlayer(t, seat),
        11: lambda t: SetPresence(t, seat, draw(st.booleans())),
        12: lambda t: SetLevel(
            t, draw(st.integers(-1, 100)), draw(st.integers(-1, 200)), draw(st.integers(0, 20))
        ),
        13: lambda t: SetButton(t, seat),
        14: StartButtonDraw,
        15: lambda t: CardPlaced(t, ZoneKind.HOLE, tag, card, seat=seat),
        16: lambda t: SetProfile(t, draw(st.sampled_from(_SET_PROFILES))),
    }[kind]
    return dt, maker


def _only_the_clock(
    saved: TableData, profile: str, ev: Event, step: Step, after: TableState
) -> None:
    """A rejected event with decisions: they are the clock's ruling on the time that passed
    before it (a seat's time running out, and what follows from its fold, such as a bet out
    of turn now standing), exactly what a tick at the event's time gives on the same table,
    and the table is where that tick leaves it."""
    copy = TableCore(builtin_profile(profile))
    copy.restore(saved)
    tick = copy.handle(Tick(ev.t))
    assert tick.rejected is None and tick.decisions == step.decisions, (ev, step.decisions)
    assert copy.snapshot() == after


def _unchanged(core: TableCore, saved: TableData, revision: int, ev: Event) -> None:
    """A rejected event that decided nothing left the whole table as it was (its export,
    not only what the snapshot shows) and so its revision: the daemon keeps an export
    while the revision stays (controller/daemon/core_loop.py, table_before). A running
    clock counts as a change even when it rules nothing."""
    assert core.export() == saved, f"rejected {ev} changed the exported table"
    h = core.hand
    if h is None or h.clock_state is ClockState.OFF:
        assert core.revision == revision, f"rejected {ev} moved the revision"


def _total(s: TableState) -> int:
    """Chips at the table: every seat's stack behind plus the pot of the live hand."""
    return sum(x.stack for x in s.seats) + s.pot


def _check(core: TableCore, s: TableState) -> None:
    tags = [t for t, _, _ in s.tags]
    assert len(tags) == len(set(tags)), "a tag is in two places"
    assert isinstance(s.phase, Phase)
    assert (core.hand is None) == (s.phase in (Phase.IDLE, Phase.DRAW)), s.phase
    assert s.to_act == 0 or s.phase is Phase.BETTING
    assert all(x.stack >= 0 for x in s.seats)
    h = core.hand
    if h is not None:
        # the hand's index of hole cards agrees with a scan of the players in seat order
        for tag in {t for p in h.players.values() for t in p.hole} | set(h.owner):
            scan = next((p for p in h.players.values() if tag in p.hole), None)
            assert hole_owner(h, tag) is scan, tag


@settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    profile=st.sampled_from(builtin_profile_names()),
    script=st.lists(events(), min_size=1, max_size=70),
)
def test_random_event_sequences_keep_the_core_consistent(
    profile: str, script: list[tuple[float, object]]
) -> None:
    core = TableCore(builtin_profile(profile))
    t = 0.0
    for ev in (
        SetLevel(t, 50, 100),
        SeatPlayer(t, 1, "p1", 1000),
        SeatPlayer(t, 2, "p2", 1000),
        SeatPlayer(t, 3, "p3", 600),
        SetButton(t, 1),
    ):
        assert core.handle(ev).rejected is None
    before = core.snapshot()
    total = _total(before)
    for dt, maker in script:
        t = round(t + dt, 6)
        one: Event = maker(t)  # type: ignore[operator]
        saved, revision = core.export(), core.revision
        step = core.handle(one)  # must never raise
        after = core.snapshot()
        _check(core, after)
        if step.rejected is not None and step.decisions:
            _only_the_clock(saved, profile, one, step, after)
            assert _total(after) == total
        elif step.rejected is not None:
            assert after == before, f"rejected {one} changed the state"
            _unchanged(core, saved, revision, one)
        elif isinstance(one, SeatPlayer | UnseatPlayer):
            total = _total(after)  # chips enter or leave with the player
        else:
            assert _total(after) == total, f"chips not conserved after {one}"
        if step.rejected is None:
            assert core.revision > revision, f"accepted {one} left the revision"
        before = after
    event(f"last phase {before.phase.value}")
    event(f"hands started {min(before.hand_no, 3)}")


@st.composite
def plausible(draw: st.DrawFn) -> tuple[float, object]:
    """Events a real hand produces, in random order: bets, folds, sweeps, burns and board
    cards from the rest of the deck, console presses, time passing, cards gathered."""
    dt = draw(st.one_of(st.floats(0.01, 2.0), st.just(0.0), st.just(75.0)))
    kind = draw(st.integers(0, 9))
    seat = draw(st.integers(1, 4))
    card = draw(st.sampled_from(STANDARD_DECK[8:30]))
    amount = draw(st.sampled_from([None, 50, 100, 200, 300, 1000]))
    maker = {
        0: lambda t: ChipsIn(t, seat, amount),
        1: lambda t: ChipsIn(t, seat, amount),
        2: lambda t: ("fold", seat),
        3: Sweep,
        4: lambda t: CardPlaced(t, ZoneKind.BURN, f"A-{card}", card),
        5: lambda t: CardPlaced(t, ZoneKind.BOARD, f"A-{card}", card),
        6: lambda t: ButtonPress(t, draw(st.sampled_from(list(ConsoleButton)))),
        7: Tick,
        8: lambda t: ("clear", 0),
        9: lambda t: CardPlaced(t, ZoneKind.HOLE, f"A-{card}", card, seat=seat),
    }[kind]
    return dt, maker


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    profile=st.sampled_from(builtin_profile_names()),
    script=st.lists(plausible(), min_size=1, max_size=60),
)
def test_random_play_from_a_dealt_hand_keeps_the_core_consistent(
    profile: str, script: list[tuple[float, object]]
) -> None:
    from table_builder import Table

    tb = Table(profile, {1: 1000, 2: 1000, 3: 400}).post_blinds()
    tb.deal({2: "2c3c", 3: "4c5c", 1: "6c7c"})
    core = tb.core
    before = core.snapshot()
    total = _total(before)
    t = tb.t
    for dt, maker in script:
        t = round(t + dt, 6)
        made = maker(t)  # type: ignore[operator]
        evs: list[Event]
        if isinstance(made, tuple) and made[0] == "fold":
            evs = [
                CardPlaced(t, ZoneKind.MUCK, tg, core.card_of.get(tg))
                for tg, z, s in before.tags
                if z == "hole" and s == made[1]
            ]
        elif isinstance(made, tuple):
            evs = [CardRemoved(t, ZoneKind(z), tg, s) for tg, z, s in before.tags if z != "muck"]
        else:
            evs = [made]
        for ev in evs:
            saved, revision = core.export(), core.revision
            step = core.handle(ev)
            after = core.snapshot()
            _check(core, after)
            if step.rejected is not None and step.decisions:
                _only_the_clock(saved, profile, ev, step, after)
                assert _total(after) == total
            elif step.rejected is not None:
                assert after == before, f"rejected {ev} changed the state"
                _unchanged(core, saved, revision, ev)
            else:
                assert _total(after) == total, f"chips not conserved after {ev}"
            before = after
    event(f"last phase {before.phase.value}")
    event(f"hands completed {min(before.hand_no, 2) if before.phase is Phase.COMPLETE else 0}")


def test_chips_out_of_turn_add_up_to_no_more_than_the_stack() -> None:
    """Found by the property above: two amounts out of turn, each within the seat's stack
    but together over it, were held and then played, leaving a negative stack. The second
    is impossible (the zone cannot hold more than the seat had): rejected, state unchanged."""
    from table_builder import Table

    tb = Table("a2c-000", {1: 1000, 2: 1000, 3: 400}).post_blinds()
    tb.deal({2: "2c3c", 3: "4c5c", 1: "6c7c"})
    core = tb.core
    t = tb.t + 1
    assert core.handle(ChipsIn(t, 3, 50)).rejected is None  # out of turn: held (seat 1 is next)
    before = core.snapshot()
    step = core.handle(ChipsIn(t, 3, 300))  # 350 against 300 behind
    assert step.rejected is not None and step.rejected.code == "over_stack"
    assert core.snapshot() == before
    core.handle(ChipsIn(t + 1, 1, 100))
    core.handle(ChipsIn(t + 1, 2, 50))  # seat 3's turn: its 50 out of turn now plays
    _check(core, core.snapshot())
    # 000 BETTING AND RAISING 7 [L158]: a raise out of turn is only a call at its turn; the
    # big blind owes nothing, so its 50 out of turn is a check and goes back
    assert core.hand is not None and core.hand.players[3].stack == 300


def test_a_card_slid_to_another_seat_during_the_deal_belongs_to_the_lower_seat() -> None:
    """A tag can end up in two seats' hole cards: pitched to seat 3, then slid to seat 2 out
    of sequence (TDA profile: a warning, the deal goes on). The hand's hole-card index then
    names the lower seat, as a scan of the seats in order does, whichever got it first."""
    from table_builder import Table, tag

    t = Table("tda-2024", 4, button=1).post_blinds()  # deal order 2, 3, 4, 1, 2, ...
    t.hole(2, "2c").hole(3, "3c")
    t.place(ZoneKind.HOLE, "3c", tag("3c"), seat=2)  # the same tag, slid from seat 3 to 2
    h = t.core.hand
    assert h is not None
    both = [s for s, p in h.players.items() if tag("3c") in p.hole]
    assert both == [2, 3]
    owner = hole_owner(h, tag("3c"))
    assert owner is not None and owner.seat == 2
    _check(t.core, t.core.snapshot())  # and the index agrees with the scan for every tag


def test_a_first_card_slid_on_to_the_next_seat_still_belongs_to_the_first() -> None:
    """The other order: the first card, pitched to seat 2, slid on to seat 3 (next in the
    deal, so accepted there too): the lower seat, which got it first, stays the owner."""
    from table_builder import Table, tag

    t = Table("tda-2024", 4, button=1).post_blinds()
    t.hole(2, "2c")
    t.place(ZoneKind.HOLE, "2c", tag("2c"), seat=3)
    h = t.core.hand
    assert h is not None
    assert [s for s, p in h.players.items() if tag("2c") in p.hole] == [2, 3]
    owner = hole_owner(h, tag("2c"))
    assert owner is not None and owner.seat == 2
