"""What the floor console's own work costs a message at a 500-table festival, and its garbage
collector's share (issue 23): ``.venv/bin/python bench/console_ingest.py --recording
/tmp/rec50.pickle``.

bench/fleet.py measures the whole venue server on a machine shared with other work, where
latencies say more about the machine than about the console. This takes the console's own
work out of it: the festival's replayed traffic (bench/fleet_record.py's recording, each of
``--tables`` tables playing template ``i mod K`` from its own point, as
bench/fleet_replay.py does, its names replaced; the console's topics only) handed to the
console's real message handler (``FloorLink._handle``: the event filter, JSON, the schema,
``Room.apply``) and its live-stream frames (``Frames``, one open stream, read each frame),
in this one process, as fast as it goes, in the order the messages were recorded, the
frames flushed every ``FRAME_S`` of the recording's time. The console's start-up is done
first as ``railguard floor run`` does it (its modules imported, its GC settings,
controller/floor/gc_tune.py), so that the long-lived heap is the console's.

Measured (``time.process_time``, ``gc.callbacks``): CPU seconds per 1,000 messages; the
collections of each generation and their pause totals; the longest pause; the objects
tracked at the end. ``--gc default`` runs with the interpreter's defaults instead
(no freeze, thresholds 700/10/10), for a same-run comparison.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import pickle
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CONSOLE_TOPICS = ("/state", "/events", "/alerts", "/status")


def traffic(recording: Path, tables: int, seconds: float, seed: int = 23
            ) -> list[tuple[float, str, bytes]]:  # fmt: skip
    """The console's messages of ``tables`` replayed tables over ``seconds``: (time, topic,
    payload), in time order."""
    with recording.open("rb") as f:
        rec = pickle.load(f)
    names = sorted(rec["tables"])
    period = float(rec["period"])
    room = max(0.0, float(rec["seconds"]) - seconds)
    rng = random.Random(seed)
    out: list[tuple[float, str, bytes]] = []
    for i in range(tables):
        template = names[i % len(names)]
        shift = rng.uniform(min(period, room), min(2 * period, room))
        old, new = template.encode(), f"t{i:03d}".encode()
        for t, topic, payload, _qos, _retain in rec["tables"][template]["messages"]:
            if shift <= t < shift + seconds and topic.endswith(CONSOLE_TOPICS):
                out.append((t - shift, topic.replace(template, f"t{i:03d}"),
                            payload.replace(old, new)))  # fmt: skip
    out.sort(key=lambda m: m[0])
    return out


class GcClock:
    """Every collection's generation and pause, through ``gc.callbacks``."""

    def __init__(self) -> None:
        self.n = [0, 0, 0]
        self.ms = [0.0, 0.0, 0.0]
        self.longest = 0.0
        self._t = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._t = time.perf_counter()
            return
        d = (time.perf_counter() - self._t) * 1e3
        g = info["generation"]
        self.n[g] += 1
        self.ms[g] += d
        self.longest = max(self.longest, d)


async def run(msgs: list[tuple[float, str, bytes]], frame_s: float) -> dict[str, Any]:
    from controller.floor.link import FloorLink
    from controller.floor.room import Room
    from controller.floor.stream import Frames
    from controller.link.config import BrokerConfig

    room = Room()
    link = FloorLink(BrokerConfig(host="127.0.0.1", port=1, tls=False, allow_plaintext=True),
                     room)  # fmt: skip
    frames = Frames(frame_s=3600.0)  # flushed here, by the recording's clock
    link.on_change = frames.add
    stream = frames.open()
    clock = GcClock()
    gc.callbacks.append(clock)
    sent = 0
    next_frame = frame_s
    t0 = time.process_time()
    try:
        for n, (at, topic, payload) in enumerate(msgs):
            if at >= next_frame:
                frames.flush()
                next_frame += frame_s
            link._handle(topic, payload)
            if n % 64 == 63:
                await asyncio.sleep(0)  # the alerts' immediate flushes
            if stream.frames:
                sent += sum(len(f) for f in stream.frames)
                stream.frames.clear()
        frames.flush()
        cpu = time.process_time() - t0
    finally:
        gc.callbacks.remove(clock)
    return {
        "messages": len(msgs),
        "tiles": len(room.tiles),
        "stream_bytes": sent + sum(len(f) for f in stream.frames),
        "cpu_s": round(cpu, 3),
        "cpu_s_per_1000": round(cpu / len(msgs) * 1e3, 4),
        "gc_collections": clock.n,
        "gc_pause_ms": [round(x, 1) for x in clock.ms],
        "gc_pause_ms_per_1000": round(sum(clock.ms) / len(msgs) * 1e3, 2),
        "gc_longest_ms": round(clock.longest, 2),
        "gc_tracked_end": len(gc.get_objects()),
        "gc_frozen": gc.get_freeze_count(),
        "gc_threshold": list(gc.get_threshold()),
        "refused": room.refused,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--recording", type=Path, required=True, help="bench/fleet_record.py's")
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=60.0, help="of the recording's time")
    ap.add_argument(
        "--gc",
        choices=("console", "default"),
        default="console",
        help="the console's GC settings (gc_tune) or the interpreter's defaults",
    )
    ap.add_argument(
        "--root", type=Path, help="import the console from this tree instead (a before/after run)"
    )
    ap.add_argument("--threshold", help="with --gc console: these thresholds (a,b,c) instead")
    a = ap.parse_args(argv)
    if a.root is not None:
        sys.path.insert(0, str(a.root.resolve()))
    msgs = traffic(a.recording, a.tables, a.seconds)
    # the console's start-up: its modules (as `railguard floor run` imports them)
    import controller.floor.cli

    if a.gc == "console":
        try:
            from controller.floor import gc_tune
        except ImportError:  # a tree from before gc_tune
            gc_tune = None  # type: ignore[assignment]
        if gc_tune is not None:
            if a.threshold:
                t = tuple(int(x) for x in a.threshold.split(","))
                gc_tune.after_start((t[0], t[1], t[2]))
            else:
                gc_tune.after_start()
    from controller.floor.stream import FRAME_S

    out = asyncio.run(run(msgs, FRAME_S))
    import controller

    tree = str(Path(controller.__file__).parents[1])
    print(json.dumps({"tree": tree, "tables": a.tables, "seconds": a.seconds, "gc": a.gc, **out}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
