"""SnapshotTracker: debounce, flicker, crosstalk, collisions, moves, foreign tags, chips."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules.cards import STANDARD_DECK, Card
from controller.rules.errors import LocalError
from controller.rules.events import CardPlaced, CardRemoved, ChipsIn, ChipsOut, ZoneKind
from firmware_bridge.antennas import (
    BURST_GAP_FLOOR,
    Collision,
    CollisionCleared,
    SnapshotTracker,
    StrayTag,
    TrackerOutput,
    burst_gap,
)
from firmware_bridge.decks import Deck, DeckRegistry, tag_hex
from firmware_bridge.snapshots import AntennaSnapshot, TagRead
from firmware_bridge.zones import BOARD, MUCK, Zone, ZoneMap

HOLE1, HOLE2, BOARD_A, BURN_A, MUCK_A, BET1, BET2 = 0, 1, 2, 3, 4, 10, 11
ZONES = ZoneMap.from_dict(
    {"hole": {"1": HOLE1, "2": HOLE2}, "board": BOARD_A, "burn": BURN_A, "muck": MUCK_A,
     "bet": {"1": BET1, "2": BET2}}
)  # fmt: skip
ANTENNAS = ZONES.antennas
CHIP100, CHIP500, CHIP25 = b"\xc1\x00", b"\xc5\x00", b"\xc0\x25"


def card_uid(i: int) -> bytes:
    return bytes([0x04, 0xAA, i])


def registry() -> DeckRegistry:
    reg = DeckRegistry()
    reg.put_deck(Deck("red", "red", {card_uid(i): c for i, c in enumerate(STANDARD_DECK)}))
    reg.add_chip(CHIP100, 100)
    reg.add_chip(CHIP500, 500)
    reg.add_chip(CHIP25, 25)
    return reg


AS = card_uid(51)  # As
KD = card_uid(24)  # Kd
C2 = card_uid(0)  # 2c
FOREIGN = b"\xde\xad\xbe\xef"


def T(n: int) -> float:
    return 1000.0 + 0.05 * n


Reads = Mapping[int, Iterable[bytes | tuple[bytes, int]]]


def snaps(n: int, reads: Reads, collision: Iterable[int] = ()) -> list[AntennaSnapshot]:
    coll = set(collision)
    out = []
    for a in ANTENNAS:
        tags = tuple(
            TagRead(r[0], r[1]) if isinstance(r, tuple) else TagRead(r) for r in reads.get(a, ())
        )
        out.append(AntennaSnapshot(T(n) + 0.001 * a, a, n, tags, a in coll))
    return out


class Table:
    """Drives a tracker cycle by cycle and keeps what it said, per cycle."""

    def __init__(self, debounce: int = 2, removal: int = 3) -> None:
        self.tracker = SnapshotTracker(
            ZONES, registry(), debounce_cycles=debounce, removal_cycles=removal
        )
        self.n = 0
        self.log: list[list[TrackerOutput]] = []

    def run(
        self, reads: Reads, cycles: int = 1, collision: Iterable[int] = ()
    ) -> list[TrackerOutput]:
        out: list[TrackerOutput] = []
        for _ in range(cycles):
            got = self.tracker.feed_cycle(snaps(self.n, reads, collision))
            self.log.append(got)
            out.extend(got)
            self.n += 1
        return out


def placed(t: float, zone: ZoneKind, uid: bytes, seat: int = 0) -> CardPlaced:
    hit = registry().lookup(uid)
    card, deck = (hit[1], hit[0]) if hit else (None, "")
    return CardPlaced(t, zone, tag_hex(uid), card, seat, deck)


def removed(t: float, zone: ZoneKind, uid: bytes, seat: int = 0) -> CardRemoved:
    return CardRemoved(t, zone, tag_hex(uid), seat)


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
    tr = SnapshotTracker(ZONES, registry())
    for n in range(2):
        got: list[TrackerOutput] = []
        for s in snaps(n, {HOLE1: [AS]}):
            assert got == []  # nothing before the last antenna of the cycle
            got = tr.feed(s)
    assert got == [placed(T(0), ZoneKind.HOLE, AS, 1)]


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
    tr.feed(snaps(101, {HOLE1: [AS]})[0])
    assert tr.feed(AntennaSnapshot(T(100), BOARD_A, 100, (TagRead(KD),))) == []
    assert tr.late_frames == 1
    assert tr.flush() == [placed(T(100), ZoneKind.HOLE, AS, 1)]
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


def frame(n: int, antenna: int, *tags: bytes) -> AntennaSnapshot:
    return AntennaSnapshot(T(n), antenna, n, tuple(TagRead(u) for u in tags))


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


# ---------------------------------------------------------------- changes_only: the burst gap

GAP = burst_gap(115200)  # 6.25 ms
P = 0.05  # the trackers' scan period (T(n) steps by it)


def at(n: int, antenna: int, dt: float, *tags: bytes) -> AntennaSnapshot:
    """A frame of cycle ``n`` for ``antenna`` received ``dt`` after T(n)."""
    return AntennaSnapshot(T(n) + dt, antenna, n, tuple(TagRead(u) for u in tags))


def co_tracker(debounce: int = 2, removal: int = 3) -> SnapshotTracker:
    tr = SnapshotTracker(ZONES, registry(), debounce_cycles=debounce, removal_cycles=removal,
                         changes_only=True, scan_period=P)  # fmt: skip
    tr.feed_cycle(snaps(0, {}))  # the board's first full report
    return tr


def settle_until(tr: SnapshotTracker, end: float) -> list[tuple[float, TrackerOutput]]:
    """Call settle at every time settle_due names, up to ``end``: what the daemon's timer does.
    Returns each output with the time it came out (to the microsecond)."""
    got: list[tuple[float, TrackerOutput]] = []
    due = tr.settle_due(GAP)
    while due is not None and due <= end:
        got.extend((round(due, 6), o) for o in tr.settle(due, GAP))
        nxt = tr.settle_due(GAP)
        assert nxt is None or nxt > due, "settle_due must move on once settled"
        due = nxt
    return got


def test_burst_gap_is_a_few_frames_of_uart_time_with_a_floor() -> None:
    assert burst_gap(115200) == pytest.approx(3 * 24 * 10 / 115200)  # 6.25 ms
    assert burst_gap(921600) == BURST_GAP_FLOOR == 0.002  # 0.78 ms of UART time: the floor
    assert burst_gap(9600) > burst_gap(115200)
    with pytest.raises(LocalError):
        burst_gap(0)


def test_burst_closes_once_after_the_gap() -> None:
    tr = co_tracker(debounce=1)
    burst = [at(1, HOLE1, 0.0, AS), at(1, BOARD_A, 0.0005, KD), at(1, MUCK_A, 0.0011, C2)]
    for s in burst:
        assert tr.feed(s) == []
    cycles = tr.cycles
    last = burst[-1].t
    assert tr.settle_due(GAP) == last + GAP
    assert tr.settle(last + GAP * 0.9, GAP) == []  # the line may still be busy
    assert tr.cycles == cycles
    out = tr.settle(last + GAP, GAP)
    assert tr.cycles == cycles + 1  # one cycle, with every frame of the burst
    assert {e.tag for e in out if isinstance(e, CardPlaced)} == {tag_hex(AS), tag_hex(KD),
                                                                 tag_hex(C2)}  # fmt: skip
    assert {e.t for e in out} == {T(1)}  # the cycle's time: its first frame
    assert tr.settle(last + GAP, GAP) == []
    assert tr.cycles == cycles + 1
    assert tr.settle_due(GAP) == pytest.approx(T(1) + 1.5 * P)  # next: a quiet period


def test_a_frame_within_the_gap_keeps_the_cycle_open() -> None:
    tr = co_tracker(debounce=1)
    tr.feed(at(10, HOLE1, 0.0, AS))
    tr.feed(at(10, HOLE2, GAP * 0.8, KD))  # the line was quiet for less than the gap
    assert tr.settle(GAP * 1.2 + T(10), GAP) == []  # the gap counts from the newest frame
    out = tr.settle(T(10) + GAP * 1.8, GAP)
    assert [e.t for e in out] == [T(10), T(10)]


def test_settle_is_for_changes_only() -> None:
    tr = SnapshotTracker(ZONES, registry())
    tr.feed(frame(10, HOLE1, AS))
    assert tr.settle_due(GAP) is None
    assert tr.settle(T(10) + 1, GAP) == []
    assert tr.cycles == 0  # left to the last antenna, the next cycle or tick


def test_quiet_periods_still_confirm_and_remove() -> None:
    tr = co_tracker(debounce=2, removal=3)
    tr.feed(at(10, HOLE1, 0.0, AS))
    got = settle_until(tr, T(30))
    # read in cycle 10 (closed by the gap), confirmed by the quiet cycle 11: counted half a
    # period after the board would have sent it; t is the first read
    assert got == [(round(T(10) + 1.5 * P, 6), placed(T(10), ZoneKind.HOLE, AS, 1))]
    assert tr.settle_due(GAP) is None  # nothing left that a quiet period could change
    tr.feed(at(40, HOLE1, 0.0))  # taken away
    got = settle_until(tr, T(60))
    # missed in 40 (the gap), 41 and 42 (quiet): removed, t the first miss
    assert got == [(round(T(40) + 2.5 * P, 6), removed(T(40), ZoneKind.HOLE, AS, 1))]


def test_settled_once_every_tag_is_confirmed_and_read() -> None:
    tr = co_tracker(debounce=2, removal=3)
    assert tr.settled  # an empty table: a quiet period changes nothing
    tr.feed(at(10, HOLE1, 0.0, AS))
    assert not tr.settled and tr.pending_cycle == 10
    tr.settle(T(10) + GAP, GAP)
    assert tr.pending_cycle is None
    assert not tr.settled  # read once: the next quiet period confirms it
    settle_until(tr, T(11) + P)
    assert tr.present() == {AS: Zone.hole(1)} and tr.settled
    tr.feed(at(20, HOLE1, 0.0))  # taken away: quiet periods count its misses
    tr.settle(T(20) + GAP, GAP)
    assert not tr.settled
    settle_until(tr, T(30))
    assert tr.present() == {} and tr.settled
    assert not SnapshotTracker(ZONES, registry()).settled  # every-scan: no quiet periods


def settle_unless_settled(tr: SnapshotTracker, end: float) -> list[TrackerOutput]:
    """What the daemon's timer does: settle when due, but not for quiet periods once the
    tracker is settled (the next frame's flush counts them from the cycle numbers)."""
    got: list[TrackerOutput] = []
    due = tr.settle_due(GAP)
    while due is not None and due <= end and not tr.settled:
        got.extend(tr.settle(due, GAP))
        due = tr.settle_due(GAP)
    if due is not None and due <= end and tr.pending_cycle is not None:
        got.extend(tr.settle(due, GAP))  # (a pending cycle is never settled)
    return got


def test_skipping_quiet_periods_once_settled_changes_no_output() -> None:
    """The same frames, one tracker settled at every due time, the other skipping quiet
    periods while settled: the same events with the same times."""
    frames = [
        at(10, HOLE1, 0.0, AS), at(40, BOARD_A, 0.001, KD), at(41, BOARD_A, 0.0, KD, C2),
        at(70, HOLE1, 0.0), at(71, MUCK_A, 0.002, AS), at(100, BOARD_A, 0.0, C2),
        at(101, HOLE2, 0.0, KD), at(130, MUCK_A, 0.0), at(131, HOLE2, 0.0),
    ]  # fmt: skip
    every, skipping = co_tracker(), co_tracker()
    out_every: list[TrackerOutput] = []
    out_skipping: list[TrackerOutput] = []
    for i, f in enumerate(frames):
        end = frames[i + 1].t - 1e-6 if i + 1 < len(frames) else T(200)
        out_every += every.feed(f) + [o for _, o in settle_until(every, end)]
        out_skipping += skipping.feed(f) + settle_unless_settled(skipping, end)
    assert out_skipping == out_every
    assert len(out_every) >= 8
    assert skipping.present() == every.present() == {C2: BOARD}


def test_frame_after_the_close_goes_into_the_next_cycle() -> None:
    tr = co_tracker(debounce=2)
    tr.feed(at(10, BOARD_A, 0.0, KD))
    settle_until(tr, T(10) + GAP)  # cycle 10 closed: the burst looked over
    cycles = tr.cycles
    late = at(10, HOLE1, 0.02, AS)  # the same cycle's frame, after the gap
    assert tr.feed(late) == []
    assert tr.late_frames == 1
    assert tr.cycles == cycles  # no extra cycle: a cycle is counted once
    # the next cycle is a quiet one: it holds KD (confirmed) and takes AS (first read)
    assert settle_until(tr, T(11) + 0.5 * P) == [
        (round(T(11) + 0.5 * P, 6), placed(T(10), ZoneKind.BOARD, KD))
    ]
    assert tr.cycles == cycles + 1
    # AS's t is the late frame's arrival; its second read is the next quiet cycle
    assert settle_until(tr, T(12) + 0.5 * P) == [
        (round(T(12) + 0.5 * P, 6), placed(late.t, ZoneKind.HOLE, AS, 1))
    ]


def test_late_frame_joins_the_next_cycle_with_frames() -> None:
    tr = co_tracker(debounce=1)
    tr.feed(at(10, BOARD_A, 0.0, KD))
    tr.settle(T(10) + GAP, GAP)
    late = at(10, HOLE1, 0.01, AS)
    tr.feed(late)
    tr.feed(at(11, MUCK_A, 0.0, C2))  # the board's next burst
    out = tr.settle(T(11) + GAP, GAP)
    # one cycle: its reads share its time, the earliest frame's (order unknown: by tag)
    assert out == [placed(late.t, ZoneKind.MUCK, C2), placed(late.t, ZoneKind.HOLE, AS, 1)]
    assert tr.present() == {KD: BOARD, AS: Zone.hole(1), C2: MUCK}


def test_late_frame_is_not_lost_when_the_quiet_cycles_are_done() -> None:
    tr = co_tracker(debounce=1)
    tr.feed(at(10, BOARD_A, 0.0, KD))
    settle_until(tr, T(30))
    assert tr.settle_due(GAP) is None  # quiet: waiting for a frame
    late = at(12, HOLE1, 0.0, AS)  # e.g. the answer to a GET_SNAPSHOT, numbered as a past cycle
    assert tr.feed(late) == []
    assert tr.late_frames == 1
    due = tr.settle_due(GAP)
    assert due is not None
    out = tr.settle(max(due, late.t), GAP)
    assert out == [placed(late.t, ZoneKind.HOLE, AS, 1)]  # its own time, not a stale one


def test_no_quiet_cycle_is_counted_while_a_cycle_is_pending() -> None:
    tr = co_tracker(debounce=3)
    tr.feed(at(10, HOLE1, 0.0, AS))
    tr.settle(T(10) + GAP, GAP)
    cycles = tr.cycles
    tr.feed(at(11, HOLE1, 0.012, AS, KD))  # cycle 11 came late (jitter) ...
    assert tr.tick(T(10) + 1.5 * P + 0.001) == []  # ... the quiet cycle 11 was due now
    assert tr.cycles == cycles  # pending 11 is not counted twice
    tr.settle(T(11) + 0.012 + GAP, GAP)
    assert tr.cycles == cycles + 1


def test_tick_does_not_cut_a_long_changes_only_burst() -> None:
    tr = co_tracker(debounce=1)
    sent = ANTENNAS[:-1]  # (a frame lost: with all of them the cycle closes at the last)
    for i, a in enumerate(sent):  # a long burst at a slow baud rate: 20 ms a frame
        assert tr.tick(T(1) + 0.02 * i) == []
        tr.feed(at(1, a, 0.02 * i, *([AS] if a == HOLE1 else [])))
    assert tr.cycles == 1  # still open, though its first frame is long past half a period
    end = T(1) + 0.02 * (len(sent) - 1)
    assert tr.tick(end + 0.4 * P) == []
    assert tr.tick(end + 0.5 * P) == [placed(T(1), ZoneKind.HOLE, AS, 1)]


CO_BASE = 1000.0


def cycle_of(t: float) -> int:
    return round((t - CO_BASE) / P)


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
