"""From antenna snapshots to debounced card and chip events (pure logic, no I/O).

The reader board reports, each scan cycle, every tag each antenna sees
(:class:`~firmware_bridge.snapshots.AntennaSnapshot`). :class:`SnapshotTracker` groups the
snapshots of one cycle, then for every tag:

* **Runs.** A *run* of a tag on an antenna starts at its first read and ends once the tag has
  been missed ``removal_cycles`` consecutive cycles. Gaps shorter than that are flicker.
* **Present** once the run has had ``debounce_cycles`` consecutive reads; the event's ``t`` is
  the run's first read (the cycle's time), not the confirmation, so read order is preserved and
  cards first read in the same cycle share ``t`` (their order is unknown to the rules core).
* **Removed** when the run ends; ``t`` is the first cycle in which the tag was missed.
* **Crosstalk.** A tag is present on at most one antenna. When several antennas have a
  confirmed run, persistence decides: the run confirmed first, then the run read first; then
  the higher mean RSSI over the run, then the lower antenna number. Other runs are ignored
  while the tag is present; if the present run ends while another antenna still reads the
  tag, that is a move: CardRemoved, then CardPlaced on the new zone (``t`` no earlier than
  the removal).
* **Collision.** A snapshot with the collision flag is reported as a :class:`Collision` notice
  on its first flagged cycle (and :class:`CollisionCleared` after ``removal_cycles`` clean
  cycles). The tracker does not guess the missing tags: while an antenna is flagged, the tags
  it did read count as reads and the tags it did not read are not counted as missed.
* **Lost frames.** An antenna with no snapshot in a cycle changes nothing that cycle.
* **changes_only.** When the board sends an antenna only when its tags change (plus a full
  refresh, see docs/reader-protocol.md), pass ``changes_only=True``: an antenna without a
  frame keeps its last reported tags, cycles with no frame at all are counted from the cycle
  numbers, and :meth:`SnapshotTracker.tick` (called every scan period) counts quiet periods
  as unchanged cycles so that debounce and removal complete without waiting for a frame.
  A changes-only cycle has no end marker and usually not every antenna: the board sends its
  frames back to back right after the scan, so :meth:`SnapshotTracker.settle` closes the
  cycle once no frame has come for an inter-frame gap (:func:`burst_gap`, a few frames' UART
  time); :meth:`SnapshotTracker.settle_due` says when to call it. A frame that comes after
  its cycle was closed (a *late* frame) is still the antenna's newest state: it is carried
  into the next cycle (the pending one, or the next quiet period counted), not dropped.

Card tags on card zones (hole, board, burn, muck) become ``CardPlaced``/``CardRemoved``; an
unregistered tag there is ``CardPlaced(card=None)`` (a foreign card). Chip tags on a betting
zone become ``ChipsIn``/``ChipsOut``, one event per seat and ``t``, with the amount from the
chip denominations of the registry. A chip on a card zone, or a card or unknown tag on a
betting zone, is a :class:`StrayTag` notice.

Output ``t`` never goes backwards: an event whose first read is older than one already
emitted (possible only when ``removal_cycles > debounce_cycles + 1`` or frames are lost) is
given the newer ``t``, which tells the rules core "order unknown" rather than a wrong order.

Latency: a card is reported ``debounce_cycles - 1`` cycles after its first read, as soon as
the last mapped antenna of that cycle has reported (or the next cycle begins, or
:meth:`SnapshotTracker.tick` finds the cycle half a scan period old). **Confirmed at its
frame:** when every antenna reports every cycle, a card whose confirming read is in a frame
is reported by that frame's :meth:`SnapshotTracker.feed` itself, without waiting for the
rest of the cycle's frames (a 16-antenna scan is about 40 ms on the wire at 115200 baud),
whenever the close of the cycle could not put anything before it: the tag is read on that
antenna only, no present tag may be found removed in this cycle (its misses one short of
``removal_cycles``), and no other tag may be confirmed in it with a first read as old or
older. The events and their order and ``t`` are the same as when the cycle closes (a
property test compares the two); otherwise the card waits for the close. With ``changes_only``
a cycle closes :func:`burst_gap` after its last frame (via :meth:`SnapshotTracker.settle`),
and each later cycle in which the board sent nothing is counted half a scan period after it
was due (``HOLD_GRACE``): a card is reported ``debounce_cycles - 1`` scan periods plus half a
period after its first frame on a quiet table, or one gap after the frames of the confirming
cycle when that cycle has frames.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

from controller.rules.errors import LocalError
from controller.rules.events import CardPlaced, CardRemoved, ChipsIn, ChipsOut
from firmware_bridge.decks import DeckRegistry, tag_hex
from firmware_bridge.snapshots import AntennaSnapshot
from firmware_bridge.zones import Zone, ZoneMap, ZoneType


@dataclass(frozen=True, slots=True)
class Collision:
    """The board says an antenna saw more tags than it could read (a stack): cards unknown."""

    t: float
    antenna: int
    zone: Zone


@dataclass(frozen=True, slots=True)
class CollisionCleared:
    t: float
    antenna: int
    zone: Zone


@dataclass(frozen=True, slots=True)
class StrayTag:
    """A tag where its kind does not belong: a chip on a card zone, a card on a betting zone."""

    t: float
    antenna: int
    zone: Zone
    tag: str
    reason: str


# A StrayTag's reason begins so for a tag of no registered deck and no chip registry (on a
# betting zone: a chip that is not a tournament chip, 000 SECTION 1 item 9 [L45])
FOREIGN_TAG = "unregistered tag"

LATE_WINDOW = 16  # cycles: a frame this far behind the last processed cycle is a straggler

# changes_only: the end of a cycle's burst of frames. The board writes a cycle's frames back
# to back right after its scan (docs/reader-protocol.md, "Report policy"), so once the line
# has been silent for a few frames' time the burst is over. BURST_GAP_FRAMES frames of
# FRAME_BYTES bytes (one 7-byte tag with RSSI, COBS and delimiter included) at 10 bits a byte
# (8N1), never under BURST_GAP_FLOOR (host scheduling: the tty hands bytes over in chunks):
# 6.25 ms at 115200 baud, the 2 ms floor from 460800 baud up. A frame later than that is not
# lost: it is carried into the next cycle. The gap runs from the newest complete frame, so a
# frame much longer than FRAME_BYTES (20 chips with RSSI: about 200 bytes, 17 ms at 115200
# baud) could complete after it; the daemon's timer (controller/daemon/reader.py, Settler)
# therefore waits while the link holds part of a frame (SerialReaderLink.receiving), for at
# most a longest frame's UART time.
FRAME_BYTES = 24
BURST_GAP_FRAMES = 3
BURST_GAP_FLOOR = 0.002  # seconds
HOLD_GRACE = 0.5  # scan periods after a cycle was due before it counts as quiet (changes_only)


def burst_gap(baudrate: int) -> float:
    """Seconds of silence on the line after which a changes-only cycle's frames are all in."""
    if baudrate <= 0:
        raise LocalError("baudrate must be positive")
    return max(BURST_GAP_FLOOR, BURST_GAP_FRAMES * FRAME_BYTES * 10 / baudrate)


TrackerEvent = CardPlaced | CardRemoved | ChipsIn | ChipsOut
Notice = Collision | CollisionCleared | StrayTag
TrackerOutput = TrackerEvent | Notice


class _Run:
    """One tag's reads on one antenna, from its first read until it is missed long enough."""

    __slots__ = (
        "absent",
        "absent_t",
        "first_t",
        "ready",
        "ready_at",
        "rssi_n",
        "rssi_sum",
        "start",
        "streak",
    )

    def __init__(self, t: float, start: int) -> None:
        self.first_t = t
        self.start = start  # cycle index of the first read
        self.streak = 0  # consecutive reads
        self.absent = 0  # consecutive misses
        self.absent_t = t  # time of the first miss of the current misses
        self.ready = False  # had debounce_cycles consecutive reads
        self.ready_at = 0  # cycle index when it first had them
        self.rssi_sum = 0
        self.rssi_n = 0

    def mean_rssi(self) -> float:
        return self.rssi_sum / self.rssi_n if self.rssi_n else -math.inf


@dataclass(frozen=True, slots=True)
class _Placed:
    antenna: int
    zone: Zone
    kind: str  # "card", "chip" or "stray"
    value: int = 0  # chip denomination


class SnapshotTracker:
    """Turns snapshots into debounced events; deterministic given the snapshots' times."""

    def __init__(
        self,
        zones: ZoneMap,
        registry: DeckRegistry,
        *,
        debounce_cycles: int = 2,
        removal_cycles: int = 3,
        changes_only: bool = False,
        scan_period: float = 0.05,
        early: bool = True,
    ) -> None:
        if debounce_cycles < 1 or removal_cycles < 1:
            raise LocalError("debounce_cycles and removal_cycles must be at least 1")
        if scan_period <= 0:
            raise LocalError("scan_period must be positive")
        self._changes_only = changes_only
        # a card confirmed at its frame (the module docstring): every antenna every cycle,
        # and a confirming read that is not the first (a first read's cycle time is the
        # cycle's own, which the cycle's notices share)
        self._early = early and not changes_only and debounce_cycles >= 2
        self._period = scan_period
        self._held: dict[int, AntennaSnapshot] = {}  # changes_only: last frame per antenna
        self._carry: dict[int, AntennaSnapshot] = {}  # changes_only: late frames, next cycle
        self._grace = scan_period * HOLD_GRACE
        self._idle = 0  # changes_only: cycles assumed unchanged since the last frame
        self._max_idle = max(debounce_cycles, removal_cycles) + 1
        self._last_cycle_t = -math.inf
        self._zones = zones
        self._registry = registry
        self._debounce = debounce_cycles
        self._removal = removal_cycles
        self._antennas = frozenset(zones.antennas)
        self._runs: dict[bytes, dict[int, _Run]] = {}  # tag → antenna → run
        self._on: dict[int, set[bytes]] = {a: set() for a in self._antennas}
        self._placed: dict[bytes, _Placed] = {}
        self._collision: dict[int, int] = {}  # antenna → clean cycles since last flag
        self._pending: dict[int, AntennaSnapshot] = {}
        self._pending_cycle: int | None = None
        self._frame_t = -math.inf  # receive time of the newest frame of the pending cycle
        self._last_cycle: int | None = None
        self._index = 0
        self._last_t = -math.inf
        # frames for an already processed cycle: ignored, or with changes_only carried into
        # the next cycle
        self.late_frames = 0

    @property
    def cycles(self) -> int:
        """Scan cycles processed so far."""
        return self._index

    @property
    def pending_cycle(self) -> int | None:
        """The cycle whose frames have come and which is not processed yet, if any."""
        return self._pending_cycle if self._pending else None

    @property
    def settled(self) -> bool:
        """changes_only: a quiet period would change nothing. No cycle is pending, no late
        frame waits, no collision is being counted clean, and every tag's runs are confirmed
        and were read in the last cycle: a quiet cycle then only repeats the held reads and
        emits nothing. The caller need not count such periods as they come (no timer for
        them): the next frame's :meth:`flush` counts the skipped cycles from the cycle numbers,
        with the same outputs (none)."""
        if not self._changes_only or self._pending or self._carry or self._collision:
            return False
        return all(
            run.ready and not run.absent for runs in self._runs.values() for run in runs.values()
        )

    def present(self) -> dict[bytes, Zone]:
        """Tags currently present (after debounce) and their zone."""
        return {uid: p.zone for uid, p in self._placed.items()}

    # ------------------------------------------------------------ input

    def feed(self, snap: AntennaSnapshot) -> list[TrackerOutput]:
        """Take one antenna's snapshot; returns the outputs of any cycle it completes.

        A cycle is processed when every mapped antenna has reported for it, or when a
        snapshot of another cycle arrives. Snapshots of unmapped antennas are ignored. A
        snapshot of a cycle already processed is late: ignored, except with ``changes_only``
        where it is the antenna's newest state and goes into the next cycle.
        """
        if snap.antenna not in self._antennas:
            return []
        if self._is_late(snap.cycle):
            self.late_frames += 1
            if self._changes_only:
                self._carry_late(snap)
            return []
        out: list[TrackerOutput] = []
        if self._pending and snap.cycle != self._pending_cycle:
            out = self.flush()
        self._pending_cycle = snap.cycle
        prev = self._pending.get(snap.antenna)
        if prev is not None:  # the same antenna twice in one cycle: merge
            snap = AntennaSnapshot(
                min(prev.t, snap.t),
                snap.antenna,
                snap.cycle,
                prev.tags + snap.tags,
                prev.collision or snap.collision,
            )
        self._pending[snap.antenna] = snap
        self._frame_t = max(self._frame_t, snap.t)
        if len(self._pending) == len(self._antennas):
            out.extend(self.flush())
        elif self._early and snap.tags and not snap.collision:
            self._confirm_early(snap, out)
        return out

    def _confirm_early(self, snap: AntennaSnapshot, out: list[TrackerOutput]) -> None:
        """The cards this frame confirms, reported now when the cycle's close would put
        nothing before them (the module docstring, "Confirmed at its frame"). The run's
        counters are left to the close, which finds the tag placed and emits nothing more."""
        antenna = snap.antenna
        zone = self._zones.zone_of(antenna)
        if zone is None or zone.card_zone is None:
            return
        want = self._debounce - 1
        for read in snap.tags:
            uid = read.uid
            if uid in self._placed:
                continue
            runs = self._runs.get(uid)
            if runs is None or len(runs) != 1:
                continue
            run = runs.get(antenna)
            if run is None or run.ready or run.streak != want:
                continue
            if self._registry.chip_value(uid) is not None:
                continue  # a chip on a card zone: a stray, told when the cycle closes
            if not self._first_at_close(uid, run.first_t):
                continue
            items: list[tuple[float, int, TrackerOutput]] = []
            self._emit_placement(uid, antenna, run.first_t, items, {})
            for it_t, _, obj in items:
                if it_t < self._last_t:
                    out.append(replace(obj, t=self._last_t))
                else:
                    self._last_t = it_t
                    out.append(obj)

    def _first_at_close(self, uid: bytes, first_t: float) -> bool:
        """Whether a placement of ``uid`` at ``first_t`` would come first among the pending
        cycle's outputs whatever its other frames say: its notices are at the cycle's time
        (later than any earlier cycle's), a removal confirmed in it would be older, and so
        would, or as old (then in tag order), another tag's placement or chips confirmed in it."""
        if first_t >= min(s.t for s in self._pending.values()):
            return False
        last_miss = self._removal - 1
        for other, placed in self._placed.items():
            run = self._runs[other].get(placed.antenna)
            if run is None or run.absent >= last_miss:
                return False
        want = self._debounce - 1
        for other, runs in self._runs.items():
            if other == uid or other in self._placed:
                continue
            for run in runs.values():
                if not run.ready and run.streak == want and run.first_t <= first_t:
                    return False
        return True

    def _is_late(self, cycle: int) -> bool:
        """A frame of a cycle already processed (a straggler). A cycle number far behind is a
        board reset, not a straggler."""
        if self._last_cycle is None:
            return False
        if self._pending and cycle == self._pending_cycle:
            return False
        return (self._last_cycle - cycle) % 2**32 <= LATE_WINDOW

    def _carry_late(self, snap: AntennaSnapshot) -> None:
        """changes_only: a late frame still carries the antenna's change (the board will not
        send it again before its full refresh). Frames arrive in order, so it is the newest
        state of its antenna unless the pending cycle already has a frame for the antenna: it
        joins the pending cycle, or waits for the next one (frames or a quiet period)."""
        if snap.antenna in self._pending:
            return  # superseded by a frame of a later cycle
        if self._pending:
            self._frame_t = max(self._frame_t, snap.t)
        else:  # at least one more quiet cycle, to take it
            self._idle = min(self._idle, self._max_idle - 1)
        self._carry[snap.antenna] = snap

    def feed_cycle(self, snaps: Iterable[AntennaSnapshot]) -> list[TrackerOutput]:
        """Take all snapshots of one cycle at once (hwsim, replays, tests)."""
        out: list[TrackerOutput] = []
        for s in snaps:
            out.extend(self.feed(s))
        out.extend(self.flush())
        return out

    def flush(self) -> list[TrackerOutput]:
        """Process the pending cycle now, even if some antennas have not reported."""
        if not self._pending:
            return []
        snaps, self._pending = self._pending, {}
        base = t = min(s.t for s in snaps.values())
        out: list[TrackerOutput] = []
        cycle = self._pending_cycle
        assert cycle is not None
        if self._changes_only:
            if self._last_cycle is not None:  # cycles with no frame at all: unchanged
                gap = (cycle - self._last_cycle - 1) % 2**32
                for _ in range(min(gap, self._max_idle) if gap < 2**31 else 0):
                    out.extend(self._hold(self._last_cycle_t + self._period))
            if self._carry:  # late frames not taken by a quiet cycle: in this one
                carried = {a: s for a, s in self._carry.items() if a not in snaps}
                self._carry = {}
                if carried:
                    t = min(t, *(s.t for s in carried.values()))
                    snaps = {**carried, **snaps}
            self._held.update(snaps)
            self._idle = 0
            snaps = {**self._held, **snaps}
        self._last_cycle = cycle
        self._last_cycle_t = base  # the clock of later quiet cycles: on-time frames only
        out.extend(self._process(snaps, t))
        return out

    def settle(self, now: float, gap: float) -> list[TrackerOutput]:
        """changes_only: close the pending cycle once no frame has come for ``gap`` seconds
        (the board's burst for it is over, see :func:`burst_gap`), then count quiet periods
        as :meth:`tick` does. Call it at :meth:`settle_due` (``now`` on the snapshots'
        clock). Without ``changes_only`` every antenna reports every cycle and this does
        nothing: cycles close when their last antenna reports, or by :meth:`tick`.
        """
        if not self._changes_only:
            return []
        out: list[TrackerOutput] = []
        if self._pending and now >= self._frame_t + gap:
            out = self.flush()
        out.extend(self.tick(now))
        return out

    def settle_due(self, gap: float) -> float | None:
        """When :meth:`settle` next has something to do (on the snapshots' clock): ``gap``
        after the pending cycle's newest frame, or when the next quiet period counts. None
        when only a new frame can change anything (or without ``changes_only``)."""
        if not self._changes_only:
            return None
        if self._pending:
            return self._frame_t + gap
        if self._last_cycle is not None and self._idle < self._max_idle:
            return self._last_cycle_t + self._period + self._grace
        return None

    def tick_due(self) -> float | None:
        """Without ``changes_only``: when :meth:`tick` would close the pending cycle (half a
        period after its first frame), if one is open; None otherwise, and with
        ``changes_only`` (see :meth:`settle_due`)."""
        if self._changes_only or not self._pending:
            return None
        return min(s.t for s in self._pending.values()) + self._grace

    def tick(self, now: float) -> list[TrackerOutput]:
        """Let time pass (call it every scan period or so; ``now`` on the snapshots' clock).

        Processes a pending cycle that is half a period old even if antennas are missing
        (with ``changes_only``: half a period after its newest frame, so that a long burst,
        such as a full refresh at a low baud rate, is not cut; :meth:`settle` closes it
        sooner). With ``changes_only`` (the board sends an antenna only when it changed, see
        docs/reader-protocol.md) it also counts each scan period without frames as a cycle in
        which nothing changed, half a period after that cycle was due, so that debounce and
        removal complete on a quiet table without waiting for the board's full refresh.
        """
        out: list[TrackerOutput] = []
        grace = self._grace
        if self._pending:
            if self._changes_only:
                since = self._frame_t
            else:
                since = min(s.t for s in self._pending.values())
            if now >= since + grace:
                out.extend(self.flush())
        if self._changes_only and self._last_cycle is not None and not self._pending:
            while self._idle < self._max_idle and now >= self._last_cycle_t + self._period + grace:
                out.extend(self._hold(self._last_cycle_t + self._period))
        return out

    def _hold(self, t: float) -> list[TrackerOutput]:
        """A cycle with no frame (changes_only): every antenna as last reported, or as its
        late frame, carried in, says."""
        assert self._last_cycle is not None
        self._last_cycle = (self._last_cycle + 1) % 2**32
        self._last_cycle_t = t
        self._idle += 1
        if self._carry:  # the cycle's reads are the carried frames': their time
            t = min(s.t for s in self._carry.values())
            self._last_cycle_t = max(self._last_cycle_t, t)
            self._held.update(self._carry)
            self._carry = {}
            self._idle = 1  # a change: count quiet cycles after it again
        return self._process(dict(self._held), t) if self._held else []

    # ------------------------------------------------------------ one cycle

    def _process(self, snaps: dict[int, AntennaSnapshot], t: float) -> list[TrackerOutput]:
        self._index += 1
        idx = self._index
        notices: list[tuple[float, int, TrackerOutput]] = []
        touched: set[bytes] = set()
        for antenna in sorted(snaps):
            snap = snaps[antenna]
            self._collision_step(snap, t, notices)
            seen: dict[bytes, int | None] = {}
            for read in snap.tags:
                old = seen.get(read.uid)
                if old is None or (read.rssi is not None and read.rssi > old):
                    seen[read.uid] = read.rssi
                else:
                    seen.setdefault(read.uid, old)
            on = self._on[antenna]
            for uid, rssi in seen.items():
                runs = self._runs.setdefault(uid, {})
                run = runs.get(antenna)
                if run is None:
                    run = runs[antenna] = _Run(t, idx)
                    on.add(uid)
                run.streak += 1
                run.absent = 0
                if run.streak >= self._debounce and not run.ready:
                    run.ready = True
                    run.ready_at = idx
                if rssi is not None:
                    run.rssi_sum += rssi
                    run.rssi_n += 1
                touched.add(uid)
            if not snap.collision:
                for uid in on.difference(seen):
                    run = self._runs[uid][antenna]
                    if run.absent == 0:
                        run.absent_t = t
                    run.absent += 1
                    run.streak = 0
                    touched.add(uid)
        items: list[tuple[float, int, TrackerOutput]] = list(notices)
        chips_in: dict[tuple[float, int], list[int]] = {}
        chips_out: dict[tuple[float, int], list[int]] = {}
        for uid in sorted(touched):
            self._resolve(uid, items, chips_in, chips_out)
        for (ct, seat), vals in chips_out.items():
            items.append((ct, 0, ChipsOut(ct, seat, sum(vals))))
        for (ct, seat), vals in chips_in.items():
            chips = tuple(sorted(vals, reverse=True))
            items.append((ct, 1, ChipsIn(ct, seat, sum(chips), chips)))
        items.sort(key=lambda it: (it[0], it[1]))
        out: list[TrackerOutput] = []
        for it_t, _, obj in items:
            if it_t < self._last_t:
                out.append(replace(obj, t=self._last_t))
            else:
                self._last_t = it_t
                out.append(obj)
        return out

    def _collision_step(
        self, snap: AntennaSnapshot, t: float, notices: list[tuple[float, int, TrackerOutput]]
    ) -> None:
        a = snap.antenna
        clean = self._collision.get(a)
        zone = self._zones.zone_of(a)
        assert zone is not None
        if snap.collision:
            if clean is None:
                notices.append((t, 1, Collision(t, a, zone)))
            self._collision[a] = 0
        elif clean is not None:
            if clean + 1 >= self._removal:
                del self._collision[a]
                notices.append((t, 0, CollisionCleared(t, a, zone)))
            else:
                self._collision[a] = clean + 1

    def _resolve(
        self,
        uid: bytes,
        items: list[tuple[float, int, TrackerOutput]],
        chips_in: dict[tuple[float, int], list[int]],
        chips_out: dict[tuple[float, int], list[int]],
    ) -> None:
        runs = self._runs[uid]
        placed = self._placed.get(uid)
        removed_t: float | None = None
        if placed is not None:
            run = runs.get(placed.antenna)
            if run is None or run.absent >= self._removal:
                removed_t = run.absent_t if run is not None else self._last_t
                del self._placed[uid]
                self._emit_removal(uid, placed, removed_t, items, chips_out)
                placed = None
        for antenna in [a for a, r in runs.items() if r.absent >= self._removal]:
            del runs[antenna]
            self._on[antenna].discard(uid)
        if placed is None:
            best: tuple[int, int, float, int] | None = None
            for antenna, run in runs.items():
                if run.ready:
                    key = (run.ready_at, run.start, -run.mean_rssi(), antenna)
                    if best is None or key < best:
                        best = key
            if best is not None:
                antenna = best[3]
                first_t = runs[antenna].first_t
                if removed_t is not None:
                    first_t = max(first_t, removed_t)
                self._emit_placement(uid, antenna, first_t, items, chips_in)
        if not runs:
            del self._runs[uid]

    def _emit_placement(
        self,
        uid: bytes,
        antenna: int,
        t: float,
        items: list[tuple[float, int, TrackerOutput]],
        chips_in: dict[tuple[float, int], list[int]],
    ) -> None:
        zone = self._zones.zone_of(antenna)
        assert zone is not None
        hit = self._registry.lookup(uid)
        chip = self._registry.chip_value(uid)
        tag = tag_hex(uid)
        card_zone = zone.card_zone
        if zone.type is ZoneType.BET and chip is not None:
            self._placed[uid] = _Placed(antenna, zone, "chip", chip)
            chips_in.setdefault((t, zone.seat), []).append(chip)
        elif card_zone is not None and chip is None:
            self._placed[uid] = _Placed(antenna, zone, "card")
            card, deck = (hit[1], hit[0]) if hit is not None else (None, "")
            items.append((t, 1, CardPlaced(t, card_zone, tag, card, zone.seat, deck)))
        else:
            self._placed[uid] = _Placed(antenna, zone, "stray")
            if chip is not None:
                reason = f"a {chip} chip on {zone.describe()}"
            elif hit is not None:
                reason = f"card {hit[1]} of deck {hit[0]} on {zone.describe()}"
            else:
                reason = f"{FOREIGN_TAG} on {zone.describe()}"
            items.append((t, 1, StrayTag(t, antenna, zone, tag, reason)))

    def _emit_removal(
        self,
        uid: bytes,
        placed: _Placed,
        t: float,
        items: list[tuple[float, int, TrackerOutput]],
        chips_out: dict[tuple[float, int], list[int]],
    ) -> None:
        zone = placed.zone
        if placed.kind == "chip":
            chips_out.setdefault((t, zone.seat), []).append(placed.value)
        elif placed.kind == "card":
            card_zone = zone.card_zone
            assert card_zone is not None
            items.append((t, 0, CardRemoved(t, card_zone, tag_hex(uid), zone.seat)))
