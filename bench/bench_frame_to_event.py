"""Frame to table event: an ANTENNA_STATE frame written on the pty by the simulated reader board
(hwsim.board.SimBoard, placing and lifting cards) -> serial link -> SnapshotTracker ->
ReaderInput -> the rules core's input queue, as in the daemon's reader path.

Each CardPlaced is timed from the moment the board has written the last frame of the scan
cycle that confirms the card (the frame the tracker needs to close that cycle) to the moment
a consumer task takes the event off the core's queue. The debounce wait itself (the card is
confirmed ``debounce_cycles - 1`` cycles after its first read) is not part of the figure: it
is a scan-period multiple set by the config. Beside it, in the same run, the bare pty round
trip of one frame of the same size, and of one scan cycle's frames together (written on the
master end, read back from the slave fd by the event loop).

    .venv/bin/python bench/bench_frame_to_event.py [--events 2000] [--antennas 12]

The last line is a JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

if __name__ == "__main__":  # run as a script: the checkout's packages first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.hops import bare_pty
from controller.daemon.translate import ReaderInput
from controller.rules.cards import STANDARD_DECK
from controller.rules.events import CardPlaced, CardRemoved, ChipsIn, ChipsOut, Event
from firmware_bridge.antennas import SnapshotTracker
from firmware_bridge.decks import Deck, DeckRegistry
from firmware_bridge.protocol import SetConfig, encode_frame
from firmware_bridge.serial_link import LinkConfig, LinkStatus, SerialReaderLink
from firmware_bridge.snapshots import AntennaSnapshot, TagRead
from firmware_bridge.zones import ZoneMap
from hwsim.board import SimBoard

SCAN_MS = 10
HOLD, GAP = 3, 4  # cycles a card lies on its antenna; cycles the antenna stays empty after


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class TimedBoard(SimBoard):
    """The simulated board, noting when each cycle's frames are written, and a dealer who
    lays a card on every antenna in turn, leaves it ``HOLD`` cycles and lifts it."""

    def __init__(self, antennas: int, cards: list[list[bytes]]) -> None:
        super().__init__(antennas, config=SetConfig(scan_period_ms=SCAN_MS,
                                                    heartbeat_interval_ms=500))  # fmt: skip
        self.written: dict[int, float] = {}
        self.cards = cards
        self.state: list[tuple[bytes | None, int]] = [(None, i % (HOLD + GAP))
                                                      for i in range(antennas)]  # fmt: skip
        self.dealing = False
        self.placed = 0

    def _report(self, numbers: range | list[int], *, force: bool) -> None:
        super()._report(numbers, force=force)
        if not force:
            self.written[self.cycle] = time.perf_counter()
            if self.dealing:
                self._deal()

    def _deal(self) -> None:
        for a, (on, cycles) in enumerate(self.state):
            uid, age = on, cycles + 1
            if uid is None and age >= GAP:
                uid = self.cards[a][self.placed % len(self.cards[a])]
                self.place(a, uid)
                self.placed += 1
                age = 0
            elif uid is not None and age >= HOLD:
                self.remove(a, uid)
                uid, age = None, 0
            self.state[a] = (uid, age)


async def frame_to_event(events: int, antennas: int) -> list[float]:
    hole = {str(s): s - 1 for s in range(1, antennas - 2)}
    zones = ZoneMap.from_dict({"seats": len(hole), "hole": hole, "board": antennas - 3,
                               "burn": antennas - 2, "muck": antennas - 1})  # fmt: skip
    deck_uids = [bytes.fromhex(f"04{i:02X}B0C0D0E0F0") for i in range(52)]
    registry = DeckRegistry()
    registry.put_deck(Deck("A", "", dict(zip(deck_uids, STANDARD_DECK, strict=True))))
    per = len(deck_uids) // antennas
    cards = [deck_uids[a * per : (a + 1) * per] for a in range(antennas)]
    tracker = SnapshotTracker(zones, registry, debounce_cycles=2, removal_cycles=3,
                              scan_period=SCAN_MS / 1000)  # fmt: skip
    reader_input = ReaderInput()
    queue: asyncio.Queue[tuple[Event, int]] = asyncio.Queue()
    board = TimedBoard(antennas, cards)

    def on_snapshot(snap: AntennaSnapshot) -> None:  # the daemon's _on_snapshot/_tracker_out
        kinds = CardPlaced | CardRemoved | ChipsIn | ChipsOut
        out = [e for e in tracker.feed(snap) if isinstance(e, kinds)]
        for ev in reader_input.batch(out):
            queue.put_nowait((ev, snap.cycle))

    port = await board.start_pty()
    link = SerialReaderLink(port, on_snapshot, config=LinkConfig(hello_timeout=0.3))
    await link.start()
    latencies: list[float] = []
    try:
        await link.wait_status(LinkStatus.ONLINE, timeout=5)
        await asyncio.sleep(0.1)
        board.dealing = True
        async with asyncio.timeout(max(60.0, events * 0.05)):
            while len(latencies) < events:
                ev, cycle = await queue.get()
                now = time.perf_counter()
                if isinstance(ev, CardPlaced):
                    latencies.append(now - board.written[cycle])
    finally:
        board.dealing = False
        await link.stop()
        await board.stop()
    return latencies


async def main(events: int, antennas: int) -> dict[str, float | int]:
    lat = await frame_to_event(events, antennas)
    frame = encode_frame(AntennaSnapshot(0.0, 1, 1, (TagRead(bytes(7), 180),)), 1)
    bare = await bare_pty(max(events, 2000), frame)
    cycle = await bare_pty(max(events, 2000), frame * antennas)  # one scan cycle's frames
    r: dict[str, float | int] = {
        "events": len(lat),
        "antennas": antennas,
        "scan_period_ms": SCAN_MS,
        "frame_bytes": len(frame),
        "event_p50_us": round(statistics.median(lat) * 1e6, 1),
        "event_p99_us": round(pct(lat, 0.99) * 1e6, 1),
        "pty_p50_us": round(statistics.median(bare) * 1e6, 1),
        "pty_p99_us": round(pct(bare, 0.99) * 1e6, 1),
        "pty_cycle_p50_us": round(statistics.median(cycle) * 1e6, 1),
        "pty_cycle_p99_us": round(pct(cycle, 0.99) * 1e6, 1),
    }
    r["ratio_p50"] = round(r["event_p50_us"] / r["pty_p50_us"], 2)
    r["ratio_p99"] = round(r["event_p99_us"] / r["pty_p99_us"], 2)
    return r


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=2000, help="CardPlaced events to time")
    parser.add_argument("--antennas", type=int, default=12, help="antennas (4..16)")
    args = parser.parse_args()
    if args.events < 1:
        parser.error("--events must be at least 1")
    if not 4 <= args.antennas <= 16:
        parser.error("--antennas must be 4..16")
    res = asyncio.run(main(args.events, args.antennas))
    print(f"{res['events']} CardPlaced events, {res['antennas']} antennas, "
          f"scan period {res['scan_period_ms']} ms")  # fmt: skip
    print(f"{'':34}{'p50 us':>10}{'p99 us':>10}")
    name = "pty frame -> CardPlaced in queue"
    print(f"{name:34}{res['event_p50_us']:>10}{res['event_p99_us']:>10}")
    print(f"{'bare pty round trip':34}{res['pty_p50_us']:>10}{res['pty_p99_us']:>10}")
    name = f"bare pty, a cycle ({res['antennas']} frames)"
    print(f"{name:34}{res['pty_cycle_p50_us']:>10}{res['pty_cycle_p99_us']:>10}")
    print(f"{'ratio (to one frame)':34}{res['ratio_p50']:>10}{res['ratio_p99']:>10}")
    print(json.dumps(res))
