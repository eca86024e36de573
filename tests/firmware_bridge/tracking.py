"""The tracker tests' table: zones, a deck registry, snapshots of scan cycles, and the
changes-only helpers (frames inside a burst, the daemon's settle timer)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from controller.rules.cards import STANDARD_DECK
from controller.rules.events import CardPlaced, CardRemoved, ZoneKind
from firmware_bridge.antennas import (
    SnapshotTracker,
    TrackerOutput,
    burst_gap,
)
from firmware_bridge.decks import Deck, DeckRegistry, tag_hex
from firmware_bridge.snapshots import AntennaSnapshot, TagRead
from firmware_bridge.zones import ZoneMap

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


CO_BASE = 1000.0


def cycle_of(t: float) -> int:
    return round((t - CO_BASE) / P)


def frame(n: int, antenna: int, *tags: bytes) -> AntennaSnapshot:
    return AntennaSnapshot(T(n), antenna, n, tuple(TagRead(u) for u in tags))
