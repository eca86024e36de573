"""What the floor console's whole receiving side costs a message, behind a backlog:
``.venv/bin/python bench/console_link.py``.

bench/console_cost.py times the room logic alone; bench/fleet.py the whole venue server with
its load. This one runs the console's real :class:`~controller.floor.link.FloorLink` (aiomqtt
on a private mosquitto), its room and its live-stream frames with one open stream, and lets
a publisher process put ``--messages`` of the fleet's messages (bench/fleet_tables.py: the
states and live events of generated hands, over ``--tables`` tables) on the broker while the
console's event loop is held, so that the console then works through a backlog as at a
festival that outruns it. Measured: the console process's CPU (``time.process_time``) from
the release to the last message, per message, for each way of receiving, in the same run:

- ``before``: what the console did before issue 17's work: every topic at QoS 1, one
  packet read from the socket a loop turn, every event parsed, and each change encoded and
  handed to the stream on its own (the queue drained without aiomqtt's iterator and the
  floats checked by the parser, as now: those are in every variant);
- ``qos1``: the console as it is but subscribed to every topic at QoS 1;
- ``after``: the console as it is (controller/floor/link.py, stream.py).

``--rate R`` (issue 23): the publisher paces the messages at R a second while the console
runs, instead: a console that keeps up, woken for nearly every message.

Prints one JSON object: µs per message of each (the best of ``--rounds``) and the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.console_cost import messages  # noqa: E402
from controller.floor import link as floor_link  # noqa: E402
from controller.floor.room import Room  # noqa: E402
from controller.floor.stream import Frames  # noqa: E402
from controller.link.config import BrokerConfig  # noqa: E402
from hwsim.broker import broker_with_config, free_port  # noqa: E402

PUBLISHER = """
import json, sys, time
import paho.mqtt.client as mqtt
msgs = json.load(open(sys.argv[2]))
rate = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="fleet")
c.max_inflight_messages_set(1000)
c.connect("127.0.0.1", int(sys.argv[1]))
c.loop_start()
t0 = time.time()
infos = []
for i, (t, p) in enumerate(msgs):
    if rate:
        time.sleep(max(0.0, t0 + i / rate - time.time()))
    infos.append(c.publish(t, p.encode(), qos=1))
for i in infos:
    i.wait_for_publish(60)
c.disconnect(); c.loop_stop()
"""


def fleet_messages(count: int, tables: int) -> list[tuple[str, str]]:
    base, _ = messages()
    out = []
    for i in range(count - 1):
        topic, raw = base[i % len(base)]
        out.append((topic.replace("/t1/", f"/t{(i // 63) % tables + 1}/"), raw.decode()))
    state = next(raw for topic, raw in base if topic.endswith("/state"))
    out.append(("railguard/v1/end/state", state.decode()))  # the last: where to stop
    return out


async def one(variant: str, port: int, msgs_file: Path, rate: float = 0.0
              ) -> tuple[float, int]:  # fmt: skip
    """``rate``: the publisher paces the messages at this many a second while the console
    runs (a console that keeps up), instead of a backlog published while it is held."""
    batch = floor_link.READ_BATCH
    room = Room()
    frames = Frames()
    topics, shown = floor_link.TOPICS, floor_link.shown_event
    if variant != "after":
        floor_link.TOPICS = tuple((t, 1) for t, _ in topics)
    if variant == "before":

        def on_change(changes: list[dict[str, Any]]) -> None:
            for c in changes:  # the stream before: one text per change, to each queue
                text = json.dumps(c)
                for q in queues:
                    q.append(text)

        queues: list[list[str]] = [[]]
        floor_link.shown_event = lambda raw: True
    else:
        on_change = frames.add
    floor_link.READ_BATCH = 1 if variant == "before" else batch
    link = floor_link.FloorLink(
        BrokerConfig(host="127.0.0.1", port=port, tls=False, allow_plaintext=True),
        room,
        on_change=on_change,
    )
    stream = frames.open()
    link.start()
    try:
        await asyncio.wait_for(link.connected.wait(), 10)
        floor_link.TOPICS, floor_link.shown_event = topics, shown  # subscribed: restore
        floor_link.READ_BATCH = batch
        argv = [sys.executable, "-c", PUBLISHER, str(port), str(msgs_file)]
        if rate:
            t0 = time.process_time()
            pub = await asyncio.create_subprocess_exec(*argv, str(rate))
        else:
            # the loop is held while the fleet publishes: the backlog waits at the broker
            subprocess.run(argv, check=True)
            t0 = time.process_time()
        while "v1/end" not in room.tiles:
            await asyncio.sleep(0.01 if rate else 0)  # paced: not a spin beside the console
            if stream.frames:
                stream.frames.clear()  # an open stream, always read
        spent = time.process_time() - t0
        if rate:
            await pub.wait()
        return spent, len(room.tiles)
    finally:
        await link.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--messages", type=int, default=20_000)
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=2, help="each variant, alternating")
    ap.add_argument("--rate", type=float, default=0.0,
                    help="messages a second, paced while the console runs (default: a"
                    " backlog published while it is held)")  # fmt: skip
    args = ap.parse_args()
    msgs = fleet_messages(args.messages, args.tables)
    cpu: dict[str, list[float]] = {"before": [], "qos1": [], "after": []}
    with tempfile.TemporaryDirectory(prefix="rg-conlink-") as tmp:
        msgs_file = Path(tmp) / "msgs.json"
        msgs_file.write_text(json.dumps(msgs))
        for _ in range(args.rounds):
            for variant, spent_list in cpu.items():
                port = free_port()
                body = (f"listener {port} 127.0.0.1\nallow_anonymous true\n"
                        "max_queued_messages 0\nmax_inflight_messages 0\n")  # fmt: skip
                with broker_with_config(body, [port]):
                    spent, tiles = asyncio.run(one(variant, port, msgs_file, args.rate))
                assert tiles == min(args.tables, args.messages // 63 + 1) + 1, tiles
                spent_list.append(spent / len(msgs))
    us = {k: round(min(v) * 1e6, 1) for k, v in cpu.items()}
    print(json.dumps({"messages": len(msgs), "tables": args.tables, "rate": args.rate,
                      **{f"{k}_us_per_message": v for k, v in us.items()},
                      "ratio_qos1_to_before": round(us["qos1"] / us["before"], 2),
                      "ratio_after_to_before": round(us["after"] / us["before"], 2)}))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
