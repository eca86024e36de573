"""What one live message costs the floor console, for the festival fleet's message mix:
``.venv/bin/python bench/console_cost.py``.

The console handles every table's state and events in one Python process
(``controller.floor.link.FloorLink._handle``: JSON, the contract's schema, ``Room.apply``,
one JSON text per change for the live stream). This times that room logic for every message
as before issue 17's work; the console now drops the events it does not show from their
bytes and sends the stream in frames: bench/console_link.py measures the whole receiving
side, MQTT client included, before and after. Here the same work runs in a loop on the
fleet's own messages (bench/fleet_tables.py: the daemon's state payloads and live events of
generated hands), beside a baseline measured in the same run: ``json.loads`` of the same
payloads alone. Prints one JSON object: µs per message, the ratio to the baseline, and how
many tables at ten times human speed one fully available core keeps up with, counting
the room logic alone (not the MQTT client nor the stream writes: bench/fleet.py measures
the whole process).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.fleet_tables import HUMAN_HAND_S, scripts  # noqa: E402
from controller.floor.room import Room  # noqa: E402


def messages() -> tuple[list[tuple[str, bytes]], int]:
    """(topic, payload) of every step of the pool's hands, stamped as the link sends them;
    and the number of hands."""
    pool, _ = scripts()
    out = []
    for n, s in enumerate(pool, 1):
        for seq, (what, body) in enumerate(s.steps):
            stamp = {"seq": seq, "bdseq": 1, "ts": time.time()}
            if what == "state":
                out.append(("railguard/v1/t1/state", json.dumps({**body, **stamp}).encode()))
            else:
                msg = {**stamp, "kind": body[0], "hand_no": n, "data": body[1]}
                out.append(("railguard/v1/t1/events", json.dumps(msg).encode()))
    return out, len(pool)


def main() -> int:
    msgs, hands = messages()
    room = Room()
    rounds = 20

    def console() -> None:
        for topic, raw in msgs:
            for change in room.apply(topic, json.loads(raw), 0.0):
                json.dumps(change)

    def baseline() -> None:
        for _, raw in msgs:
            json.loads(raw)

    timing = {}
    for name, fn in (("baseline", baseline), ("console", console)):
        fn()  # warm up
        t0 = time.process_time()
        for _ in range(rounds):
            fn()
        timing[name] = (time.process_time() - t0) / (rounds * len(msgs))
    per_table_s = len(msgs) / hands / (HUMAN_HAND_S / 10)  # messages a second at 10x
    print(json.dumps({
        "messages": len(msgs), "per_hand": round(len(msgs) / hands, 1),
        "console_us_per_message": round(timing["console"] * 1e6, 1),
        "baseline_us_per_message": round(timing["baseline"] * 1e6, 1),
        "ratio": round(timing["console"] / timing["baseline"], 1),
        "messages_per_s_per_table_at_10x": round(per_table_s, 2),
        "room_logic_tables_at_10x_per_core": int(1 / (timing["console"] * per_table_s)),
    }))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
