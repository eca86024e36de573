"""The broker hop in the alert's phase of the scan: is the end-to-end tail the daemon's path
or the bench's two cores?

``bench/e2e.py``'s floor samples the bare broker hop after each event, when the board's
scan is over and the daemon idle. The alert itself leaves mid-scan: the board is still
writing the scan's other frames (16 a scan, every antenna every scan) and the daemon still
reading them while the broker and the subscriber must run, on the same two cores
(docs/performance.md, "The daemon's share cut again"). This diagnostic puts the bare hop in
that phase too. After each event of bench/e2e.py's kind (the same table, daemon and
alerts), it takes:

- the **quiet** hop: :class:`bench.hops.BrokerHop`, as the floor does;
- the **in-phase** hop: the same 300-byte QoS 1 message, written to the broker's socket
  with the daemon's own direct write (``Client.publish_now``) right after the board's
  write of the watched antenna's frame in the next scan, so that the board's other frames
  and the daemon's reading of them come after it, as after an alert (an alert leaves the
  daemon about 0.4 ms after that frame, by which time the board has written more of them);
- the **scan-end** hop: the same, right after the board's write of the scan's last frame
  (about 0.2-0.3 ms after the watched one: the daemon still reads the scan's frames);

and, from the daemon's stage stamps, the **alert's** broker hop (its message handed to the
socket to the subscriber's receipt). If the in-phase hop's tail matches the alert's, what
is left of the end-to-end gap at p99 is the scan's load on two cores, not the daemon's
path; if the alert's tail is longer, something of the daemon's after the write delays it.

    .venv/bin/python bench/e2e_phase.py [--events 1500]

The last line is a JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: the checkout's packages first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import e2e
from bench.hops import BrokerHop
from bench.procs import pct
from controller.demo.table import HOLE
from controller.link.mqtt_client import Client
from firmware_bridge.protocol import Message
from firmware_bridge.snapshots import AntennaSnapshot
from hwsim.broker import plain_broker


class PhaseBoard(e2e.StampingBoard):
    """A stamping board that calls ``phase[1]`` right after it writes antenna ``phase[0]``'s
    frame, once."""

    phase: tuple[int, Callable[[], None]] | None = None

    def _send(self, message: Message) -> None:
        super()._send(message)
        p = self.phase
        if p is not None and isinstance(message, AntennaSnapshot) and message.antenna == p[0]:
            self.phase = None
            p[1]()


class PhaseHop(BrokerHop):
    """The floor's bare broker hop (:class:`bench.hops.BrokerHop`: :meth:`sample`, the quiet
    one), also started from the board's write of one antenna's frame (:meth:`sample_at`)."""

    async def sample_at(self, board: PhaseBoard, antenna: int) -> float:
        pub = self.pub
        assert isinstance(pub, Client)  # the daemon's client: its direct write
        sent: list[float] = []

        def fire() -> None:
            sent.append(time.perf_counter())
            pub.publish_now(self.topic, self.body, 1)

        board.phase = (antenna, fire)
        got = await asyncio.wait_for(self.arrived.get(), 5)
        return got - sent[0]


def _row(values: list[float]) -> dict[str, float]:
    return {"p50_ms": round(pct(values, 0.5) * 1e3, 3), "p99_ms": round(pct(values, 0.99) * 1e3, 3),
            "n": len(values)}  # fmt: skip


async def run(port: int, events: int, workdir: Path) -> dict[str, Any]:
    e2e.check_clocks()
    r = e2e.Run()
    quiet_hops: list[float] = []
    phase_hops: list[float] = []
    end_hops: list[float] = []
    table = await e2e.open_table(port, workdir, board_type=PhaseBoard)
    board = table.board
    assert isinstance(board, PhaseBoard)
    hop = PhaseHop(port)
    try:
        await hop.start()
        with e2e.bench_collector():
            for i in range(events + e2e.WARMUP):
                s = await e2e.one_event(table)
                q = await hop.sample()
                ant = table.prev[0] if table.prev is not None else HOLE[1]
                p = await hop.sample_at(board, ant)
                end = await hop.sample_at(board, board.last_antenna)
                if i % e2e.COLLECT_EVERY == 0:
                    gc.collect(1)
                if i < e2e.WARMUP:
                    continue
                if s is None:
                    r.timeouts += 1
                else:
                    r.samples.append(s)
                quiet_hops.append(q)
                phase_hops.append(p)
                end_hops.append(end)
    finally:
        await hop.stop()
        r.stages = await e2e.close_table(table)
    alert = e2e.stage_values(r)["broker hop"]
    return {"events": events, "timeouts": r.timeouts, "alert_broker_hop": _row(alert),
            "quiet_broker_hop": _row(quiet_hops),
            "in_phase_broker_hop": _row(phase_hops),
            "scan_end_broker_hop": _row(end_hops)}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--events", type=int, default=1500, help="events (default 1500)")
    args = ap.parse_args(argv)
    if args.events < 1:
        ap.error("--events must be at least 1")
    with tempfile.TemporaryDirectory(prefix="railguard-phase-") as tmp, plain_broker() as b:
        out = asyncio.run(run(b.port, args.events, Path(tmp) / "e2e"))
    print(f"{'broker hop':<12} {'p50 ms':>8} {'p99 ms':>8}", file=sys.stderr)
    for name in ("alert", "quiet", "in_phase", "scan_end"):
        row = out[f"{name}_broker_hop"]
        print(f"{name:<12} {row['p50_ms']:>8} {row['p99_ms']:>8}", file=sys.stderr)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
