"""SnapshotTracker in changes-only mode: a cycle closes on the burst gap, late frames go
into the next cycle, quiet periods still confirm and remove."""

from __future__ import annotations

import pytest

from controller.rules.errors import LocalError
from controller.rules.events import CardPlaced, ZoneKind
from firmware_bridge.antennas import (
    BURST_GAP_FLOOR,
    SnapshotTracker,
    TrackerOutput,
    burst_gap,
)
from firmware_bridge.decks import tag_hex
from firmware_bridge.zones import BOARD, MUCK, Zone
from tests.firmware_bridge.tracking import (
    ANTENNAS,
    AS,
    BOARD_A,
    C2,
    GAP,
    HOLE1,
    HOLE2,
    KD,
    MUCK_A,
    ZONES,
    P,
    T,
    at,
    co_tracker,
    frame,
    placed,
    registry,
    removed,
    settle_unless_settled,
    settle_until,
)

# ---------------------------------------------------------------- changes_only: the burst gap


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
