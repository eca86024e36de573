"""SnapshotTracker: debounce, flicker, crosstalk, collisions, moves, foreign tags, chips,
frames, and the property tests against a true timeline."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.cards import Card
from controller.rules.errors import LocalError
from controller.rules.events import CardPlaced, CardRemoved, ChipsIn, ChipsOut, ZoneKind
from firmware_bridge.antennas import (
    Collision,
    CollisionCleared,
    SnapshotTracker,
    StrayTag,
    TrackerOutput,
)
from firmware_bridge.decks import tag_hex
from firmware_bridge.snapshots import AntennaSnapshot, TagRead
from firmware_bridge.zones import BOARD, MUCK, Zone
from tests.firmware_bridge.tracking import (
    ANTENNAS,
    AS,
    BET1,
    BET2,
    BOARD_A,
    BURN_A,
    C2,
    CHIP25,
    CHIP100,
    CHIP500,
    CO_BASE,
    FOREIGN,
    GAP,
    HOLE1,
    HOLE2,
    KD,
    MUCK_A,
    ZONES,
    P,
    T,
    Table,
    cycle_of,
    frame,
    placed,
    registry,
    removed,
    settle_until,
    snaps,
)

# ---------------------------------------------------------------- debounce


def test_card_present_after_debounce_with_first_read_time() -> None:
    tb = Table()
    assert tb.run({HOLE1: [AS]}) == []
    assert tb.run({HOLE1: [AS]}) == [placed(T(0), ZoneKind.HOLE, AS, 1)]
    assert tb.run({HOLE1: [AS]}, 5) == []
    assert tb.tracker.present() == {AS: Zone.hole(1)}


def test_flicker_of_absent_tag_yields_nothing() -> None:
    tb = Table()
    for _ in range(4):
        assert tb.run({BOARD_A: [AS]}) == []
        assert tb.run({}) == []
    assert tb.run({}, 5) == []
    assert tb.tracker.present() == {}


def test_flicker_of_present_card_yields_nothing() -> None:
    tb = Table()
    assert tb.run({BOARD_A: [KD]}, 3) == [placed(T(0), ZoneKind.BOARD, KD)]
    assert tb.run({}, 2) == []
    assert tb.run({BOARD_A: [KD]}) == []
    assert tb.run({}) == []
    assert tb.run({BOARD_A: [KD]}, 3) == []


def test_flicker_before_confirmation_keeps_first_read_time() -> None:
    tb = Table()
    tb.run({BOARD_A: [KD]})
    tb.run({})
    assert tb.run({BOARD_A: [KD]}, 2) == [placed(T(0), ZoneKind.BOARD, KD)]


def test_slow_removal_reported_after_removal_cycles_with_first_miss_time() -> None:
    tb = Table()
    tb.run({MUCK_A: [AS]}, 4)
    assert tb.run({}) == []
    assert tb.run({MUCK_A: [AS]}) == []  # the reader still sees it now and then
    assert tb.run({}, 2) == []
    assert tb.run({}) == [removed(T(6), ZoneKind.MUCK, AS)]
    assert tb.tracker.present() == {}


def test_configurable_debounce_and_removal() -> None:
    tb = Table(debounce=4, removal=5)
    assert tb.run({HOLE2: [AS]}, 3) == []
    assert tb.run({HOLE2: [AS]}) == [placed(T(0), ZoneKind.HOLE, AS, 2)]
    assert tb.run({}, 4) == []
    assert tb.run({}) == [removed(T(4), ZoneKind.HOLE, AS, 2)]
    with pytest.raises(LocalError):
        SnapshotTracker(ZONES, registry(), debounce_cycles=0)


# ---------------------------------------------------------------- order


def test_same_cycle_cards_share_t_and_read_order_is_kept() -> None:
    tb = Table()
    tb.run({BOARD_A: [AS, KD]})
    tb.run({BOARD_A: [AS, KD, C2]})
    out = tb.run({BOARD_A: [AS, KD, C2]})
    flop = [e for cyc in tb.log for e in cyc]
    assert [e.t for e in flop] == [T(0), T(0), T(1)]
    assert {e.tag for e in flop if isinstance(e, CardPlaced)} == {tag_hex(AS), tag_hex(KD),
                                                                   tag_hex(C2)}  # fmt: skip
    assert out == [placed(T(1), ZoneKind.BOARD, C2)]


def test_output_time_never_goes_backwards() -> None:
    tb = Table()
    tb.run({BOARD_A: [AS]})  # AS read at 0, then missed, confirmed only at 3
    tb.run({BOARD_A: [KD]})  # KD read at 1 and 2: confirmed at 2 with t=T(1)
    tb.run({BOARD_A: [AS, KD]})
    tb.run({BOARD_A: [AS, KD]})
    flat = [e for cyc in tb.log for e in cyc]
    assert flat == [placed(T(1), ZoneKind.BOARD, KD), placed(T(1), ZoneKind.BOARD, AS)]


# ---------------------------------------------------------------- crosstalk


def test_crosstalk_same_start_resolved_by_rssi() -> None:
    tb = Table()
    out = tb.run({HOLE1: [(AS, -70)], HOLE2: [(AS, -40)]}, 3)
    assert out == [placed(T(0), ZoneKind.HOLE, AS, 2)]
    assert tb.run({}, 3) == [removed(T(3), ZoneKind.HOLE, AS, 2)]


def test_crosstalk_without_rssi_is_deterministic() -> None:
    tb = Table()
    assert tb.run({HOLE2: [AS], HOLE1: [AS]}, 2) == [placed(T(0), ZoneKind.HOLE, AS, 1)]


def test_crosstalk_persistence_beats_stronger_newcomer() -> None:
    tb = Table()
    assert tb.run({HOLE1: [(AS, -60)]}, 2) == [placed(T(0), ZoneKind.HOLE, AS, 1)]
    # the neighbour antenna starts reading the same card, even louder: never a second card
    assert tb.run({HOLE1: [(AS, -60)], HOLE2: [(AS, -30)]}, 6) == []
    assert tb.run({HOLE2: [(AS, -30)], HOLE1: []}) == []
    assert tb.run({HOLE1: [(AS, -60)], HOLE2: [(AS, -30)]}, 2) == []
    assert tb.tracker.present() == {AS: Zone.hole(1)}
    assert tb.run({}, 3) == [removed(T(11), ZoneKind.HOLE, AS, 1)]


def test_crosstalk_earlier_run_wins_over_rssi() -> None:
    tb = Table()
    tb.run({HOLE1: [(AS, -80)]})
    assert tb.run({HOLE1: [(AS, -80)], HOLE2: [(AS, -20)]}) == [placed(T(0), ZoneKind.HOLE, AS, 1)]


def test_crosstalk_confirmed_together_longest_read_wins_over_rssi() -> None:
    tb = Table()
    tb.run({HOLE1: [(AS, -80)]})
    tb.run({})  # flicker on the true antenna
    assert tb.run({HOLE1: [(AS, -80)], HOLE2: [(AS, -20)]}) == []
    assert tb.run({HOLE1: [(AS, -80)], HOLE2: [(AS, -20)]}) == [placed(T(0), ZoneKind.HOLE, AS, 1)]


# ---------------------------------------------------------------- moves


def test_move_between_zones_is_removed_then_placed() -> None:
    tb = Table()
    tb.run({HOLE1: [AS]}, 3)
    assert tb.run({MUCK_A: [AS]}, 2) == []
    out = tb.run({MUCK_A: [AS]})
    assert out == [removed(T(3), ZoneKind.HOLE, AS, 1), placed(T(3), ZoneKind.MUCK, AS)]
    assert tb.tracker.present() == {AS: MUCK}


def test_move_goes_to_the_run_confirmed_first() -> None:
    tb = Table()
    tb.run({BOARD_A: [AS]}, 2)
    tb.run({BOARD_A: [AS], BURN_A: [(AS, -30)]})  # crosstalk read on the burn, loud
    tb.run({MUCK_A: [(AS, -60)]})
    tb.run({MUCK_A: [(AS, -60)], BURN_A: [(AS, -30)]})  # muck confirmed here
    out = tb.run({MUCK_A: [(AS, -60)], BURN_A: [(AS, -30)]})  # burn run confirmed only now
    assert out == [removed(T(3), ZoneKind.BOARD, AS), placed(T(3), ZoneKind.MUCK, AS)]


def test_move_after_a_gap_keeps_the_new_first_read() -> None:
    tb = Table()
    tb.run({HOLE1: [AS]}, 3)
    tb.run({}, 1)
    out = tb.run({BOARD_A: [AS]}, 3)
    assert out == [removed(T(3), ZoneKind.HOLE, AS, 1), placed(T(4), ZoneKind.BOARD, AS)]
    assert tb.tracker.present() == {AS: BOARD}


# ---------------------------------------------------------------- collision


def test_collision_is_a_notice_and_freezes_misses() -> None:
    tb = Table()
    tb.run({BOARD_A: [AS, KD]}, 2)
    out = tb.run({BOARD_A: [AS]}, collision=[BOARD_A])
    assert out == [Collision(T(2), BOARD_A, BOARD)]
    assert tb.run({BOARD_A: [AS]}, 5, collision=[BOARD_A]) == []  # KD not guessed away
    assert tb.tracker.present() == {AS: BOARD, KD: BOARD}
    assert tb.run({BOARD_A: [AS]}, 2) == []
    out = tb.run({BOARD_A: [AS]})
    assert out == [
        removed(T(8), ZoneKind.BOARD, KD),
        CollisionCleared(T(10), BOARD_A, BOARD),
    ]


def test_collision_reported_once_while_flag_stays() -> None:
    tb = Table()
    out = tb.run({}, 4, collision=[HOLE2])
    assert out == [Collision(T(0), HOLE2, Zone.hole(2))]
    tb.run({}, 1)
    assert tb.run({}, 1, collision=[HOLE2]) == []  # flicker of the flag: no new notice


# ---------------------------------------------------------------- foreign, chips, strays


def test_foreign_tag_is_placed_with_no_card() -> None:
    tb = Table()
    out = tb.run({HOLE2: [FOREIGN]}, 2)
    assert out == [CardPlaced(T(0), ZoneKind.HOLE, "DEADBEEF", None, 2, "")]
    assert tb.run({}, 3) == [CardRemoved(T(2), ZoneKind.HOLE, "DEADBEEF", 2)]


def test_known_card_carries_card_and_deck() -> None:
    tb = Table()
    (ev,) = tb.run({BURN_A: [KD]}, 2)
    assert isinstance(ev, CardPlaced)
    assert ev.card == Card.parse("Kd")
    assert ev.deck == "red"
    assert ev.zone is ZoneKind.BURN


def test_chips_in_and_out() -> None:
    tb = Table()
    out = tb.run({BET1: [CHIP100, CHIP500], BET2: [CHIP25]}, 2)
    assert sorted(out, key=lambda e: getattr(e, "seat", 0)) == [
        ChipsIn(T(0), 1, 600, (500, 100)),
        ChipsIn(T(0), 2, 25, (25,)),
    ]
    out = tb.run({}, 3)
    assert sorted(out, key=lambda e: getattr(e, "seat", 0)) == [
        ChipsOut(T(2), 1, 600),
        ChipsOut(T(2), 2, 25),
    ]


def test_chip_added_then_taken_back() -> None:
    tb = Table()
    tb.run({BET1: [CHIP100]}, 2)
    assert tb.run({BET1: [CHIP100, CHIP500]}, 2) == [ChipsIn(T(2), 1, 500, (500,))]
    assert tb.run({BET1: [CHIP100]}, 3) == [ChipsOut(T(4), 1, 500)]
    assert tb.run({}, 3) == [ChipsOut(T(7), 1, 100)]


def test_chip_moved_between_seats() -> None:
    tb = Table()
    tb.run({BET1: [CHIP500]}, 2)
    assert tb.run({BET2: [CHIP500]}, 3) == [ChipsOut(T(2), 1, 500), ChipsIn(T(2), 2, 500, (500,))]


def test_strays_are_notices() -> None:
    tb = Table()
    out = tb.run({BOARD_A: [CHIP100], BET1: [AS, FOREIGN]}, 2)
    assert out == [
        StrayTag(
            T(0), BET1, Zone.bet(1), tag_hex(AS), "card As of deck red on seat 1's betting zone"
        ),
        StrayTag(T(0), BOARD_A, BOARD, tag_hex(CHIP100), "a 100 chip on the board"),
        StrayTag(T(0), BET1, Zone.bet(1), "DEADBEEF", "unregistered tag on seat 1's betting zone"),
    ]
    assert tb.run({}, 3) == []  # strays leave silently
    assert tb.tracker.present() == {}


# ---------------------------------------------------------------- frames


def test_cycle_processed_when_last_antenna_reports() -> None:
    tr = SnapshotTracker(ZONES, registry(), early=False)
    for n in range(2):
        got: list[TrackerOutput] = []
        for s in snaps(n, {HOLE1: [AS]}):
            assert got == []  # nothing before the last antenna of the cycle
            got = tr.feed(s)
    assert got == [placed(T(0), ZoneKind.HOLE, AS, 1)]


def test_card_confirmed_by_its_own_frame() -> None:
    """Every antenna every cycle: the frame with the confirming read reports the card, not
    the cycle's last frame; the close of the cycle adds nothing."""
    tr = SnapshotTracker(ZONES, registry())
    for s in snaps(0, {HOLE2: [AS]}):
        assert tr.feed(s) == []
    said = {s.antenna: tr.feed(s) for s in snaps(1, {HOLE2: [AS]})}
    assert said.pop(HOLE2) == [placed(T(0), ZoneKind.HOLE, AS, 2)]
    assert all(got == [] for got in said.values())
    assert tr.present() == {AS: Zone.hole(2)}


def test_card_waits_for_the_close_behind_an_older_removal() -> None:
    """A present card whose removal the cycle may confirm (older than the new card's first
    read) holds the new card until the cycle closes: removal, then placement."""
    tb = Table()
    tb.run({HOLE1: [KD]}, 2)
    tb.run({}, 1)  # KD missed once
    tr = tb.tracker
    for s in snaps(tb.n, {HOLE2: [AS]}):  # AS's first read, KD's second miss
        assert tr.feed(s) == []
    tb.n += 1  # KD's third miss is its removal, as old as its first miss
    got: list[TrackerOutput] = []
    for s in snaps(tb.n, {HOLE2: [AS]}):
        if s.antenna == HOLE2:
            assert tr.feed(s) == []  # not yet
        else:
            got.extend(tr.feed(s))
    assert [type(e) for e in got] == [CardRemoved, CardPlaced]


def test_lost_frame_changes_nothing_and_cycle_closes_on_next_cycle() -> None:
    tr = SnapshotTracker(ZONES, registry())
    for n in range(2):
        tr.feed_cycle(snaps(n, {HOLE1: [AS]}))
    # cycles 2..6: the HOLE1 frame is lost every time; that is not a removal
    for n in range(2, 7):
        for s in snaps(n, {}):
            if s.antenna != HOLE1:
                assert tr.feed(s) == []
    assert tr.present() == {AS: Zone.hole(1)}
    assert tr.cycles == 6  # cycle 6 still pending: its HOLE1 frame may come
    assert tr.feed(snaps(7, {})[0]) == []
    assert tr.cycles == 7


def test_late_duplicate_and_unmapped_frames_are_ignored() -> None:
    tr = SnapshotTracker(ZONES, registry())
    tr.feed_cycle(snaps(0, {HOLE1: [AS]}))
    assert tr.feed(AntennaSnapshot(T(0), HOLE1, 0, (TagRead(KD),))) == []
    assert tr.late_frames == 1
    assert tr.feed(AntennaSnapshot(T(1), 77, 1, (TagRead(KD),))) == []
    assert tr.cycles == 1


def test_straggler_after_next_cycle_is_ignored_but_board_reset_is_not() -> None:
    tr = SnapshotTracker(ZONES, registry())
    tr.feed_cycle(snaps(100, {HOLE1: [AS]}))
    # the confirming frame reports the card itself (confirmed at its frame)
    assert tr.feed(snaps(101, {HOLE1: [AS]})[0]) == [placed(T(100), ZoneKind.HOLE, AS, 1)]
    assert tr.feed(AntennaSnapshot(T(100), BOARD_A, 100, (TagRead(KD),))) == []
    assert tr.late_frames == 1
    assert tr.flush() == []
    tr.feed_cycle(snaps(0, {HOLE1: [AS]}))  # the board restarted its cycle counter
    assert tr.late_frames == 1
    assert tr.cycles == 3


def test_same_antenna_twice_in_a_cycle_is_merged() -> None:
    tr = SnapshotTracker(ZONES, registry())
    for n in range(2):
        tr.feed(AntennaSnapshot(T(n), BOARD_A, n, (TagRead(AS),)))
        tr.feed(AntennaSnapshot(T(n), BOARD_A, n, (TagRead(KD),)))
    out = tr.flush()
    assert {e.tag for e in out if isinstance(e, CardPlaced)} == {tag_hex(AS), tag_hex(KD)}


def test_tick_closes_a_cycle_with_a_lost_frame() -> None:
    tr = SnapshotTracker(ZONES, registry())
    tr.feed_cycle(snaps(0, {HOLE1: [AS]}))
    assert ANTENNAS[0] == HOLE1
    for s in snaps(1, {HOLE1: [AS]})[1:]:  # HOLE1's frame of cycle 1 is lost
        tr.feed(s)
    assert tr.tick(T(1) + 0.02) == []  # not half a period old yet
    assert tr.tick(T(1) + 0.03) == []  # closed, but HOLE1 said nothing in cycle 1
    assert tr.cycles == 2
    tr.feed_cycle(snaps(2, {HOLE1: [AS]}))
    assert tr.present() == {AS: Zone.hole(1)}


def test_changes_only_quiet_table_completes_by_tick() -> None:
    tr = SnapshotTracker(ZONES, registry(), changes_only=True)
    tr.feed_cycle(snaps(0, {}))  # the full refresh
    assert tr.feed(frame(10, HOLE1, AS)) == []  # the only frame: the card was laid
    assert tr.tick(T(10) + 0.03) == []  # cycle 10 processed: one read
    assert tr.tick(T(11) + 0.02) == []
    assert tr.tick(T(11) + 0.03) == [placed(T(10), ZoneKind.HOLE, AS, 1)]
    assert tr.tick(T(15)) == []
    assert tr.feed(frame(20, HOLE1)) == []  # taken away
    assert tr.tick(T(21) + 0.03) == []
    assert tr.tick(T(22) + 0.03) == [removed(T(20), ZoneKind.HOLE, AS, 1)]
    assert tr.tick(T(100)) == []
    assert tr.cycles < 40  # quiet periods stop being counted once nothing can change


def test_changes_only_gap_between_frames_counts_as_unchanged_cycles() -> None:
    tr = SnapshotTracker(ZONES, registry(), changes_only=True)
    tr.feed_cycle(snaps(0, {}))
    assert tr.feed_cycle([frame(10, BOARD_A, AS, KD)]) == []
    assert tr.feed_cycle([frame(30, MUCK_A, C2)]) == [
        placed(T(10), ZoneKind.BOARD, KD),  # same t: order unknown, listed by tag
        placed(T(10), ZoneKind.BOARD, AS),
    ]
    assert tr.feed_cycle([frame(31, BOARD_A, KD)]) == [placed(T(30), ZoneKind.MUCK, C2)]
    assert tr.feed_cycle([frame(40, BURN_A)]) == [removed(T(31), ZoneKind.BOARD, AS)]


def test_without_changes_only_an_unreported_antenna_is_no_information() -> None:
    tr = SnapshotTracker(ZONES, registry())
    tr.feed_cycle(snaps(0, {}))
    tr.feed_cycle([frame(10, HOLE1, AS)])
    assert tr.feed_cycle([frame(30, MUCK_A)]) == []
    assert tr.present() == {}


# ---------------------------------------------------------------- property


CARD_ANTENNAS = (HOLE1, HOLE2, BOARD_A, BURN_A, MUCK_A)
ZONE_OF = {HOLE1: (ZoneKind.HOLE, 1), HOLE2: (ZoneKind.HOLE, 2), BOARD_A: (ZoneKind.BOARD, 0),
           BURN_A: (ZoneKind.BURN, 0), MUCK_A: (ZoneKind.MUCK, 0)}  # fmt: skip


@dataclass
class Seg:
    """One true placement of a tag, with its noisy reads and optional crosstalk."""

    antenna: int
    start: int
    end: int  # last cycle on the antenna
    reads: list[int]  # cycles actually read (bounded flicker)
    xtalk: int | None = None  # a neighbour antenna that also reads the tag
    xreads: list[int] = field(default_factory=list)
    xrssi: int = -75


Plan = tuple[int, int, list[tuple[bytes, list[Seg]]]]


@st.composite
def timelines(draw: st.DrawFn) -> Plan:
    debounce, removal = draw(st.sampled_from([(1, 2), (2, 3), (2, 2), (3, 4)]))
    tags = draw(st.lists(st.sampled_from([AS, KD, C2, FOREIGN]), min_size=1, max_size=4,
                         unique=True))  # fmt: skip
    plan = []
    for tag in tags:
        segs: list[Seg] = []
        cycle = draw(st.integers(0, 6))
        prev: int | None = None
        for _ in range(draw(st.integers(1, 3))):
            antenna = draw(st.sampled_from(CARD_ANTENNAS))
            gap = draw(st.integers(removal if antenna == prev else 0, removal + 3))
            start = cycle + (gap if prev is not None else 0)
            length = draw(st.integers(debounce + 1, debounce + 10))
            drops = draw(st.lists(st.booleans(), min_size=length, max_size=length))
            reads, run = [], 0
            for i in range(length):  # bounded flicker: first reads and last read kept
                drop = drops[i] and debounce <= i < length - 1 and run < removal - 1
                run = run + 1 if drop else 0
                if not drop:
                    reads.append(start + i)
            segs.append(Seg(antenna, start, start + length - 1, reads))
            cycle, prev = start + length, antenna
        for k, seg in enumerate(segs):  # crosstalk on a neighbour, inside the segment
            near = segs[max(0, k - 1) : k + 2]  # runs of neighbouring segments must not join
            others = {s.antenna for s in near} | {s.xtalk for s in near}
            choices = [a for a in CARD_ANTENNAS if a not in others]
            wanted = draw(st.booleans())
            if choices and wanted:
                seg.xtalk = draw(st.sampled_from(choices))
                inner = list(range(seg.start + 1, seg.end + 1))
                seg.xreads = draw(st.lists(st.sampled_from(inner), unique=True))
                seg.xrssi = draw(st.integers(-90, -20))  # crosstalk may even be louder
        plan.append((tag, segs))
    return debounce, removal, plan


CycleReads = list[dict[int, list[tuple[bytes, int]]]]


def _reads_by_cycle(plan: list[tuple[bytes, list[Seg]]], last: int) -> CycleReads:
    """Cycle -> antenna -> (tag, rssi) read: each segment's own reads, and its crosstalk."""
    reads: CycleReads = [{} for _ in range(last)]
    for tag, segs in plan:
        for seg in segs:
            for n in seg.reads:
                reads[n].setdefault(seg.antenna, []).append((tag, -40))
            if seg.xtalk is not None:
                for n in seg.xreads:
                    reads[n].setdefault(seg.xtalk, []).append((tag, seg.xrssi))
    return reads


@settings(max_examples=300, deadline=None)
@given(timelines())
def test_property_events_equal_true_timeline(case: Plan) -> None:
    debounce, removal, plan = case
    last = max(seg.end for _, segs in plan for seg in segs) + removal + debounce + 2
    reads = _reads_by_cycle(plan, last)
    expected: list[CardPlaced | CardRemoved] = []
    for tag, segs in plan:
        for seg in segs:
            zone, seat = ZONE_OF[seg.antenna]
            expected.append(placed(T(seg.start), zone, tag, seat))
            expected.append(removed(T(seg.end + 1), zone, tag, seat))
    tr = SnapshotTracker(ZONES, registry(), debounce_cycles=debounce, removal_cycles=removal)
    out: list[TrackerOutput] = []
    for n in range(last):
        for s in snaps(n, reads[n]):
            out.extend(tr.feed(s))
    assert all(isinstance(e, CardPlaced | CardRemoved) for e in out)
    times = [e.t for e in out]
    assert times == sorted(times)

    def key(e: TrackerOutput) -> tuple[float, int, str]:
        assert isinstance(e, CardPlaced | CardRemoved)
        return (e.t, isinstance(e, CardPlaced), e.tag)

    assert sorted(out, key=key) == sorted(expected, key=key)
    for tag, _ in plan:  # per tag: removed before placed, in timeline order
        mine = [e for e in out if isinstance(e, CardPlaced | CardRemoved) and e.tag == tag_hex(tag)]
        assert [type(e) for e in mine] == [CardPlaced, CardRemoved] * (len(mine) // 2)
    assert tr.present() == {}


@settings(max_examples=200, deadline=None)
@given(timelines(), st.sampled_from([1, 3, 20]))
def test_property_changes_only_by_the_gap_equals_every_scan(case: Plan, refresh: int) -> None:
    """The same timelines as a changes-only board sends them (an antenna when its tags changed,
    every antenna every ``refresh`` cycles), each burst closed by the gap and quiet periods
    counted when settle_due says: the same events, in the same cycles."""
    debounce, removal, plan = case
    last = max(seg.end for _, segs in plan for seg in segs) + removal + debounce + 2
    reads = _reads_by_cycle(plan, last)
    expected: list[tuple[int, str, str, bytes]] = []
    for tag, segs in plan:
        for seg in segs:
            zone, _ = ZONE_OF[seg.antenna]
            expected.append((seg.start, "placed", zone.value, tag))
            expected.append((seg.end + 1, "removed", zone.value, tag))
    tr = SnapshotTracker(ZONES, registry(), debounce_cycles=debounce, removal_cycles=removal,
                         changes_only=True, scan_period=P)  # fmt: skip
    sent: dict[int, frozenset[bytes]] = {}
    out: list[TrackerOutput] = []
    for n in range(last):
        burst: list[AntennaSnapshot] = []
        for a in ANTENNAS:
            tags = frozenset(u for u, _ in reads[n].get(a, ()))
            if n % refresh == 0 or sent.get(a) != tags:
                sent[a] = tags
                rs = tuple(TagRead(u, r) for u, r in reads[n].get(a, ()))
                burst.append(AntennaSnapshot(CO_BASE + P * n + 0.0004 * len(burst), a, n, rs))
        if burst:
            out.extend(o for _, o in settle_until(tr, burst[0].t))
        for s in burst:
            out.extend(tr.feed(s))
    out.extend(o for _, o in settle_until(tr, CO_BASE + P * (last + 50)))
    assert tr.settle_due(GAP) is None
    times = [e.t for e in out]
    assert times == sorted(times)
    got = []
    for e in out:
        assert isinstance(e, CardPlaced | CardRemoved)
        kind = "placed" if isinstance(e, CardPlaced) else "removed"
        got.append((cycle_of(e.t), kind, e.zone.value, bytes.fromhex(e.tag)))
    assert sorted(got) == sorted(expected)
    assert tr.present() == {}


POOL = (AS, KD, C2, FOREIGN, CHIP100, CHIP500)


@st.composite
def frame_streams(draw: st.DrawFn) -> tuple[int, int, list[list[AntennaSnapshot]]]:
    """Cycles of frames: tags (cards, a foreign tag, chips) that stay a while, move, flicker
    and cross-read; some frames lost, some flagged as collisions."""
    debounce = draw(st.sampled_from([2, 3]))
    removal = draw(st.sampled_from([1, 2, 3, 4]))
    cycles = draw(st.integers(4, 24))
    where: dict[bytes, int | None] = dict.fromkeys(POOL)
    out: list[list[AntennaSnapshot]] = []
    for n in range(cycles):
        for tag in POOL:  # each tag stays (mostly), leaves or lands somewhere
            if draw(st.integers(0, 5)) == 0:
                where[tag] = draw(st.sampled_from([None, *ANTENNAS]))
        reads: dict[int, list[bytes]] = {}
        for tag, antenna in where.items():
            if antenna is not None and draw(st.integers(0, 7)) != 0:  # flicker
                reads.setdefault(antenna, []).append(tag)
            if draw(st.integers(0, 9)) == 0:  # a cross-read
                reads.setdefault(draw(st.sampled_from(ANTENNAS)), []).append(tag)
        lost = draw(st.sets(st.sampled_from(ANTENNAS), max_size=2))
        hit = draw(st.sets(st.sampled_from(ANTENNAS), max_size=1))
        frames = [s for s in snaps(n, reads, hit) if s.antenna not in lost]
        out.append(frames)
    return debounce, removal, out


@settings(max_examples=400, deadline=None)
@given(frame_streams())
def test_property_confirmed_at_frame_equals_confirmed_at_close(
    case: tuple[int, int, list[list[AntennaSnapshot]]],
) -> None:
    """The cards confirmed at their frame: the same outputs, in the same order and with the
    same ``t``, as the tracker that waits for each cycle's close; never later."""
    debounce, removal, cycles = case
    now = SnapshotTracker(ZONES, registry(), debounce_cycles=debounce, removal_cycles=removal)
    close = SnapshotTracker(ZONES, registry(), debounce_cycles=debounce, removal_cycles=removal,
                            early=False)  # fmt: skip
    got: list[TrackerOutput] = []
    want: list[TrackerOutput] = []
    for frames in cycles:
        for s in frames:
            got.extend(now.feed(s))
            want.extend(close.feed(s))
            assert len(got) >= len(want) and got[: len(want)] == want
    got.extend(now.flush())
    want.extend(close.flush())
    assert got == want
    assert now.present() == close.present()
