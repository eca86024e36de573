"""The tournament core against the rulebooks' words: the event file, the clock, the seat
draw, refusing seatings, standings from hand records, balancing, breaking, redraws and the
final table. Property tests (hypothesis) for the draw, balancing and the chips."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.tournament.balance import entitlement, propose
from controller.tournament.draw import draw_seats, late_seat, shuffled
from controller.tournament.errors import EventFileError, Refused
from controller.tournament.event import Entitlement, Entrant, load_event_text
from controller.tournament.standings import hand_from_record, standings
from controller.tournament.state import (
    ClockOp,
    HandForHandSet,
    HandPlayed,
    HandSeat,
    MovesDone,
    ProposalKind,
    Proposed,
    Status,
    TournamentState,
    apply,
)
from tests.tournament.events import event_text, make_event


def seated(state: TournamentState, rng: random.Random) -> TournamentState:
    return apply(state, draw_seats(state, state.event.entrants, rng))


def bust(state: TournamentState, players: list[str], hand: str) -> TournamentState:
    """One hand at each table the players sit at, in which they finish with 0 chips and their
    chips go to a table-mate (the records a table would send)."""
    by_table: dict[str, list[str]] = {}
    for pid in players:
        by_table.setdefault(str(state.players[pid].table), []).append(pid)
    for table, out in by_table.items():
        here = [p for p in state.playing() if p.table == table]
        winner = next(p for p in here if p.id not in out)
        won = sum(state.players[pid].stack for pid in out)
        seats = tuple(
            HandSeat(
                p.id,
                int(p.seat or 0),
                p.stack,
                0 if p.id in out else p.stack + (won if p.id == winner.id else 0),
            )
            for p in here
        )
        state = apply(state, HandPlayed(table, f"{hand}-{table}", seats))
    return state


def confirm(state: TournamentState, rng: random.Random) -> TournamentState:
    """Propose, and do what was proposed (the stacks kept), until nothing is proposed."""
    for _ in range(20):
        prop = propose(state, rng)
        if prop is None:
            return state
        state = apply(state, Proposed(prop))
        stacks = tuple((m.player, state.players[m.player].stack) for m in prop.moves)
        state = apply(state, MovesDone(prop.id, stacks))
    raise AssertionError("proposals did not converge")


# ------------------------------------------------------------------ the event file


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (event_text().replace('profile = "a2c-000"', 'profile = "nope"'), "event.profile 'nope'"),
        (event_text(stack=None), "event: missing key 'starting_stack'"),
        (
            event_text().replace("big_blind = 100\n", "big_blind = 10\n", 1),
            "levels[2]: small_blind 50 is more than big_blind 10",
        ),
        (event_text(tables=[9, 11]), "tables[2].seats: 2-10, not 11"),
        (event_text(extra="house_edge = 1\n"), "unknown key(s) ['house_edge']"),
        (event_text(extra='breaking_order = ["t1"]\n'), "event.breaking_order: every table once"),
        (event_text(extra="final_table = 12\n"), "event.final_table 12: no table has"),
        (event_text() + "\n[oops\n", "not valid TOML"),
        (
            event_text(entrants=1).replace('id = "p1"', 'id = "@p1"'),
            "entrants[1].id '@p1': 1-64 letters, digits or ._:- (a letter or digit first)",
        ),
    ],
)
def test_event_file_errors_name_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(EventFileError, match=re.escape(message)):
        load_event_text(text)


def test_profile_defaults_follow_the_rulebooks() -> None:
    e000, e002 = make_event(profile="a2c-000"), make_event(profile="vistancia-002")
    e003, e004 = make_event(profile="club-003", stack=None), make_event(profile="shaved-dog-004")
    assert e000.rules.within(3) == e000.rules.within(10) == 2  # 000 [L40]
    assert (e004.rules.within(6), e004.rules.within(7)) == (1, 2)  # 004 [L111]
    assert e004.rules.redraw_at == (3, 2, 1) and e000.rules.redraw_at == ()  # 004 [L113]
    assert e002.final_table_size == 9  # 002 [L35]
    assert e003.starting_stacks == {4500, 5000}  # 003 [L7]
    assert e004.rules.entitlement is Entitlement.SB_OR_BUTTON  # 004 [L131]


# ------------------------------------------------------------------ the clock


def test_clock_levels_breaks_pause_resume_adjust() -> None:
    ev = make_event()
    s = apply(TournamentState(ev), ClockOp("start", 1000.0))
    due = s.clock.due(ev.levels, 1000.0 + 19 * 60)
    assert (due.level.number, due.seconds_left, due.next) == (1, 60.0, ev.levels[1])
    due = s.clock.due(ev.levels, 1000.0 + 41 * 60)  # in the break: level 2's blinds in force
    assert due.level.is_break and due.playing.big_blind == 100 and due.seconds_left == 9 * 60
    s = apply(s, ClockOp("pause", 1000.0 + 10 * 60))
    assert s.clock.due(ev.levels, 1000.0 + 90 * 60).level.number == 1  # paused: stands still
    s = apply(s, ClockOp("resume", 1000.0 + 90 * 60))
    assert s.clock.due(ev.levels, 1000.0 + 99 * 60).level.number == 1
    assert s.clock.due(ev.levels, 1000.0 + 101 * 60).level.number == 2
    s = apply(s, ClockOp("adjust", 0.0, -120.0))  # two minutes given back
    assert s.clock.due(ev.levels, 1000.0 + 101 * 60).level.number == 1
    with pytest.raises(Refused, match="not paused"):
        apply(s, ClockOp("resume", 0.0))
    last = s.clock.due(ev.levels, 1e9)  # past the schedule: the last level stays
    assert last.level.big_blind == 200 and last.next is None


# ------------------------------------------------------------------ the seat draw


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(2, 10), min_size=1, max_size=8), st.integers(0, 10**6), st.data())
def test_draws_are_permutations_within_one(
    seats: list[int], seed: int, data: st.DataObject
) -> None:
    n = data.draw(st.integers(0, sum(seats)))
    ev = load_event_text(event_text(tables=seats, entrants=n))
    draw = draw_seats(TournamentState(ev), ev.entrants, random.Random(seed))
    assert sorted(s.player for s in draw.seatings) == sorted(e.id for e in ev.entrants)
    places = {(s.table, s.seat) for s in draw.seatings}
    assert len(places) == n  # nobody shares a seat
    assert all(1 <= s.seat <= ev.table(s.table).seats for s in draw.seatings)
    counts = [sum(1 for s in draw.seatings if s.table == t.id) for t in ev.tables]
    assert max(counts) - min(counts) <= 1 or all(
        c == t.seats or c >= max(counts) - 1 for c, t in zip(counts, ev.tables, strict=True)
    )
    assert sorted(shuffled(list(range(n)), random.Random(seed))) == list(range(n))


def test_draw_is_uniform_enough() -> None:
    """Every entrant lands at every table about as often (a biased draw would not)."""
    ev = make_event(tables=[3, 3, 3], entrants=9)
    rng = random.Random(7)
    hits = {t.id: 0 for t in ev.tables}
    for _ in range(3000):
        d = draw_seats(TournamentState(ev), ev.entrants, rng)
        hits[next(s.table for s in d.seatings if s.player == "p1")] += 1
    assert all(850 < h < 1150 for h in hits.values()), hits


@pytest.mark.clause("004-TG-25", profiles=("shaved-dog-004",))
def test_a_player_busted_at_another_table_is_refused() -> None:
    ev = make_event(profile="shaved-dog-004", entrants=9)  # 004 [L135]: no re-buys
    s = seated(TournamentState(ev), random.Random(1))
    s = bust(s, ["p1"], "h1")
    assert s.players["p1"].status is Status.BUSTED
    before = s
    with pytest.raises(Refused) as exc:
        late_seat(s, Entrant("p1", "Player 1"), 5000, random.Random(2))
    assert exc.value.code == "busted" and exc.value.clause == "004-TG-25"
    assert s == before
    # an event that allows a re-entry seats him again, as a new entry with a new stack
    re = replace(ev, rules=replace(ev.rules, reentry=True))
    s2 = apply(
        replace(s, event=re),
        late_seat(replace(s, event=re), Entrant("p1", "P1"), 5000, random.Random(2)),
    )
    assert s2.players["p1"].status is Status.PLAYING and s2.players["p1"].entries == 2


@pytest.mark.clause("000-S1-stacks-2", profiles=("a2c-000",))
@pytest.mark.clause("003-Open-stack", profiles=("club-003",))
def test_a_new_entrant_starts_with_the_starting_stack() -> None:
    ev = make_event(profile="club-003", stack=None)  # 003 [L7]: 4,500 or 5,000 with the bonus
    s = TournamentState(ev)
    for ok in (4500, 5000):
        d = late_seat(s, Entrant(f"x{ok}", "X"), ok, random.Random(0))
        assert d.seatings[0].stack == ok
    for bad in (4499, 5500, 9000):
        with pytest.raises(Refused, match=f"not {bad}") as exc:
            late_seat(s, Entrant("y", "Y"), bad, random.Random(0))
        assert exc.value.code == "starting_stack"
    ev0 = make_event(profile="a2c-000", stack=10000)  # 000 [L31]: the event's amount
    with pytest.raises(Refused, match="starts with 10000 chips, not 5000"):
        late_seat(TournamentState(ev0), Entrant("z", "Z"), 5000, random.Random(0))
    # the initial draw gives every entrant the stack (and the bonus where paid)
    ev = load_event_text(
        event_text(profile="club-003", stack=None, entrants=2).replace(
            'name = "Player 2"', 'name = "Player 2"\nbonus = true'
        )
    )
    d = draw_seats(TournamentState(ev), ev.entrants, random.Random(0))
    assert {s.player: s.stack for s in d.seatings} == {"p1": 4500, "p2": 5000}


def test_late_registration_goes_to_the_emptiest_table() -> None:
    ev = make_event(tables=[9, 9, 9], entrants=7)
    s = seated(TournamentState(ev), random.Random(3))
    counts = s.counts()
    d = late_seat(s, Entrant("late", "Late"), 5000, random.Random(4))
    assert counts[d.seatings[0].table] == min(counts.values())
    assert d.seatings[0].seat not in s.occupied()[d.seatings[0].table]


# ------------------------------------------------------------------ standings


def test_simultaneous_bust_outs_ordered_by_starting_stack() -> None:
    """000 [L53]: the player starting the hand with more chips finishes higher."""
    ev = make_event(tables=[9], entrants=5)
    s = seated(TournamentState(ev), random.Random(5))
    seats = {p.id: int(p.seat or 0) for p in s.playing()}
    starts = {"p1": 5000, "p2": 3000, "p3": 7000, "p4": 5000, "p5": 5000}
    finals = {"p1": 0, "p2": 0, "p3": 0, "p4": 15000, "p5": 10000}
    s = apply(
        s,
        HandPlayed("t1", "h1", tuple(HandSeat(p, seats[p], starts[p], finals[p]) for p in starts)),
    )
    places = {e.player: e.place for e in s.eliminations}
    assert places == {"p2": 5, "p1": 4, "p3": 3}
    st_ = standings(s)
    assert st_["players_left"] == 2 and st_["average"] == 12500
    assert [e["player_id"] for e in st_["eliminated"]] == ["p3", "p1", "p2"]
    # the same record again (a replayed one) changes nothing
    assert apply(s, HandPlayed("t1", "h1", ())) == s


def test_hand_for_hand_bust_outs_count_as_simultaneous() -> None:
    ev = make_event(tables=[9, 9], entrants=8)
    s = apply(seated(TournamentState(ev), random.Random(6)), HandForHandSet(True))
    t1 = [p for p in s.playing() if p.table == "t1"]
    t2 = [p for p in s.playing() if p.table == "t2"]
    small, big = t1[0], t2[0]
    s = bust(s, [big.id], "r1")  # t2 completes first: its bust-out waits for t1
    assert s.eliminations == () and s.h4h.done == {"t2"}
    s = apply(
        s,
        HandPlayed(
            "t1",
            "r1-t1",
            (
                HandSeat(small.id, int(small.seat or 0), 10, 0),
                HandSeat(t1[1].id, int(t1[1].seat or 0), 1, 5011),
            ),
        ),
    )
    # small started the hand with 10 chips, big with 5000: big finishes higher
    assert {e.player: e.place for e in s.eliminations} == {small.id: 8, big.id: 7}
    assert s.h4h.round == 2 and s.h4h.done == frozenset()


def test_hand_record_read_and_refused() -> None:
    rec = {
        "table": "t1",
        "hand_id": "v1-t1-1",
        "ohh": {
            "players": [
                {
                    "id": 1,
                    "seat": 1,
                    "name": "A",
                    "starting_stack": 50,
                    "player_ref": "p1",
                    "final_stack": 0,
                },
                {"id": 2, "seat": 2, "name": "seat 2", "starting_stack": 50, "final_stack": 100},
            ]
        },
    }
    hp = hand_from_record(rec)
    assert hp.seats == (HandSeat("p1", 1, 50, 0),)
    with pytest.raises(Refused, match="missing or wrong 'ohh'"):
        hand_from_record({"table": "t1", "hand_id": "x"})
    rec["ohh"]["players"][0]["final_stack"] = -1  # type: ignore[index]
    with pytest.raises(Refused, match="integers >= 0"):
        hand_from_record(rec)


# ------------------------------------------------------------------ balancing and breaking


@pytest.mark.clause("000-S1-balance-4", profiles=("a2c-000",))
def test_balance_within_two_000() -> None:
    """000 [L40]: 8 players at table 1 and 5 at table 2: one player moves."""
    ev = make_event(tables=[9, 9, 9], entrants=24)
    s = seated(TournamentState(ev), random.Random(8))
    t = [p.id for p in s.playing() if p.table == "t1"]
    s = bust(s, t[:2], "h1")  # 8, 8, 6: within two, nothing to do
    assert propose(s, random.Random(0)) is None
    s = bust(s, [t[2]], "h2")  # 8, 8, 5: one moves
    prop = propose(s, random.Random(0))
    assert prop is not None and prop.kind is ProposalKind.BALANCE and len(prop.moves) == 1
    assert prop.moves[0].to_table == "t1" and prop.moves[0].from_table in {"t2", "t3"}
    s = apply(apply(s, Proposed(prop)), MovesDone(prop.id, ()))
    c = s.counts()
    assert max(c.values()) - min(c.values()) <= 2


@pytest.mark.clause("004-TG-13", profiles=("shaved-dog-004",))
def test_balance_within_one_at_six_tables_or_fewer_004() -> None:
    """004 [L111]: within one at six tables or fewer, within two with more."""
    ev = make_event(profile="shaved-dog-004", tables=[9] * 6, entrants=48)
    s = seated(TournamentState(ev), random.Random(9))
    t = [p.id for p in s.playing() if p.table == "t1"]
    s = bust(s, t[:2], "h1")  # 8,8,8,8,8,6
    prop = propose(s, random.Random(1))
    assert prop is not None and len(prop.moves) == 1
    s = apply(apply(s, Proposed(prop)), MovesDone(prop.id, ()))
    c = s.counts()
    assert max(c.values()) - min(c.values()) <= 1
    ev7 = make_event(profile="shaved-dog-004", tables=[8] * 7, entrants=56)
    s = seated(TournamentState(ev7), random.Random(9))
    t = [p.id for p in s.playing() if p.table == "t1"]
    s = bust(s, t[:2], "h1")  # 8 x6, 6 (54 fit no six tables of 8): within two at seven
    assert propose(s, random.Random(1)) is None


@pytest.mark.clause("004-TG-14", profiles=("shaved-dog-004",))
def test_redraw_at_three_two_and_one_tables_004() -> None:
    """004 [L113]: a redraw when the field is reduced to three, two and one tables."""
    ev = make_event(profile="shaved-dog-004", tables=[9, 9, 9, 9], entrants=28)
    s = seated(TournamentState(ev), random.Random(10))
    rng = random.Random(11)
    kinds = []
    for i in range(27):
        victim = sorted(p.id for p in s.playing())[rng.randrange(len(s.playing()))]
        s = bust(s, [victim], f"h{i}")
        prop = propose(s, rng)
        if prop is not None:
            kinds.append((prop.kind, len(s.live_tables()) - len(prop.breaks)))
            every = {m.player for m in prop.moves}
            if prop.kind in (ProposalKind.REDRAW, ProposalKind.FINAL):
                assert every == {p.id for p in s.playing()}  # everyone redraws
            s = apply(apply(s, Proposed(prop)), MovesDone(prop.id, ()))
    assert (ProposalKind.REDRAW, 3) in kinds and (ProposalKind.REDRAW, 2) in kinds
    assert (ProposalKind.FINAL, 1) in kinds


@pytest.mark.clause("002-FinalTable-1", profiles=("vistancia-002",))
def test_final_table_of_nine_002() -> None:
    """002 [L35]: the final table has nine players, at ten-seat tables too."""
    ev = make_event(profile="vistancia-002", tables=[10, 10], entrants=12)
    s = seated(TournamentState(ev), random.Random(12))
    ids = sorted(p.id for p in s.playing())
    s = bust(s, ids[:2], "h1")  # 10 left: they fit one ten-seat table, not a final of nine
    prop = propose(s, random.Random(0))
    assert prop is None or prop.kind is ProposalKind.BALANCE
    s = bust(s, ids[2:3], "h2")  # 9 left: the final table
    prop = propose(s, random.Random(0))
    assert prop is not None and prop.kind is ProposalKind.FINAL
    assert {m.to_table for m in prop.moves} == {"t1"}  # t2 breaks first (reverse order)
    assert sorted(m.to_seat for m in prop.moves) == list(range(1, 10))
    s = apply(apply(s, Proposed(prop)), MovesDone(prop.id, ()))
    assert s.broken == {"t2"} and len(s.occupied()["t1"]) == 9


def test_entitlement_per_rulebook() -> None:
    # button at seat 1, players at 1, 3, 5, 7: next button 3, small blind 5, big blind 7
    seats = [1, 3, 5, 7]
    e = Entitlement
    assert "waits" in entitlement(e.BB_TO_BUTTON, 6, 1, [*seats, 6])  # 000 [L226]
    assert "dealt in" in entitlement(e.SB_TO_BUTTON, 6, 1, [*seats, 6])  # 002 [L31]
    assert "waits" in entitlement(e.SB_TO_BUTTON, 4, 1, [*seats, 4])
    assert "dealt in" in entitlement(e.SB_OR_BUTTON, 8, 1, [*seats, 8])  # 004 [L131]
    assert "the table deals" in entitlement(e.SB_OR_BUTTON, 8, None, seats)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["a2c-000", "shaved-dog-004", "vistancia-002", "tda-2024"]),
    st.integers(9, 10),
    st.integers(2, 9),
    st.integers(0, 10**6),
)
def test_balancing_converges_keeps_the_rule_and_the_chips(
    profile: str, size: int, tables: int, seed: int
) -> None:
    """Random bust-outs to the end: after every confirmed proposal the tables are within the
    event's rule, every player has a seat of his own, and the chips are the chips entered.
    (Tables of one size: a full table of fewer seats cannot take a player.)"""
    seats = [size] * tables
    ev = load_event_text(event_text(profile=profile, tables=seats, entrants=sum(seats) - 3))
    rng = random.Random(seed)
    s = confirm(seated(TournamentState(ev), rng), rng)
    total = s.chips()
    i = 0
    while len(s.playing()) > 1:
        by_table: dict[str, list[str]] = {}
        for p in s.playing():
            by_table.setdefault(str(p.table), []).append(p.id)
        busy = sorted(t for t, ps in by_table.items() if len(ps) >= 2)
        if not busy:
            break
        table = busy[rng.randrange(len(busy))]
        victims = sorted(by_table[table])[: rng.choice([1, 1, 2])]
        if len(victims) >= len(by_table[table]):
            victims = victims[:1]
        s = bust(s, victims, f"h{i}")
        i += 1
        s = confirm(s, rng)
        assert s.chips() == total
        c = {t: n for t, n in s.counts().items() if n}
        assert max(c.values()) - min(c.values()) <= ev.rules.within(len(c))
        spots = [(p.table, p.seat) for p in s.playing()]
        assert len(spots) == len(set(spots))
        assert all(1 <= int(p.seat or 0) <= s.seats_of(str(p.table)) for p in s.playing())
        if len(s.playing()) <= ev.final_table_size:
            assert len(c) == 1  # the final table
