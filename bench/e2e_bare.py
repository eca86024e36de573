"""The least a Python process can do between the reader's pty and the broker, measured as
bench/e2e.py measures the daemon: how much of the end-to-end figure no daemon written in
Python on this machine could take away.

The bare process (``--child``) reads the board's pty with the daemon's own transport
(pyserial-asyncio-fast) and decoder (``FrameDecoder``), counts each tag's consecutive scans
in a dict, and when a tag no deck knows reaches ``DEBOUNCE`` scans on a hole-card antenna
publishes the same alert the daemon would (JSON, the REJECTED text, an ``alert_id``), QoS 1,
with the daemon's MQTT client and its direct write (``Client.publish_now``). No tracker, no
rules core, no schema, no guard, no log line, no lights, no state. The bench's side is
bench/e2e.py's: the stamping board (16 antennas, 10 ms scan, every antenna every scan), the
subscriber in its own process, the same events, the floor (bare pty hop + bare broker hop)
interleaved. ``--daemon`` runs bench/e2e.py's daemon run beside it, alternated, for the same
comparison in one run.

    .venv/bin/python bench/e2e_bare.py [--events 1500] [--rounds 2] [--daemon]

Prints one JSON object: per run the e2e and floor figures (bench/e2e.py's summary keys).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # run as a script: the checkout's packages first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import e2e
from bench.hops import Floor
from bench.procs import ProcSubscriber
from controller.demo.table import HOLE
from firmware_bridge.protocol import SetConfig
from firmware_bridge.protocol.decoder import FrameDecoder
from firmware_bridge.snapshots import AntennaSnapshot
from hwsim.broker import plain_broker
from hwsim.layout import SIX

ALERTS = f"{e2e.BASE}/alerts"
REMEDY = f"Not accepted now: {e2e.PLACED_TEXT}"


# ---------------------------------------------------------------- the bare process


async def child(port: str, broker: int) -> None:
    """Read frames, publish the alert at the confirming one (module docstring)."""
    import serial_asyncio_fast

    from controller.link.config import NODELAY
    from controller.link.mqtt_client import Client

    hole = frozenset(HOLE.values())
    streak: dict[bytes, tuple[int, int]] = {}  # uid -> (its last cycle, scans in a row)
    published: set[bytes] = set()
    loop = asyncio.get_running_loop()
    async with Client("127.0.0.1", broker, socket_options=NODELAY, identifier="bare") as mqtt:
        decoder = FrameDecoder()

        def snapshot(snap: AntennaSnapshot) -> None:
            if snap.antenna not in hole:
                return
            for read in snap.tags:
                uid = read.uid
                last, n = streak.get(uid, (-2, 0))
                n = n + 1 if last == snap.cycle - 1 else (n if last == snap.cycle else 1)
                streak[uid] = (snap.cycle, n)
                if n >= e2e.DEBOUNCE and uid not in published:
                    published.add(uid)
                    body = {"alert_id": uuid.uuid4().hex, "code": "REJECTED",
                            "severity": "warning", "seat": None, "remedy": REMEDY,
                            "ts": time.time()}  # fmt: skip
                    info = mqtt.publish_now(ALERTS, json.dumps(body).encode(), 1, False)
                    task = loop.create_task(mqtt.wait_published(info))
                    task.add_done_callback(lambda t: t.cancelled() or t.exception())

        class Proto(asyncio.Protocol):
            def data_received(self, data: bytes) -> None:
                for batch in decoder.results(data):
                    for item in batch:
                        msg = getattr(item, "message", None)
                        if isinstance(msg, AntennaSnapshot):
                            snapshot(msg)

        transport, _ = await serial_asyncio_fast.create_serial_connection(
            loop, Proto, port, baudrate=115200
        )
        print("ready", flush=True)
        try:  # until the bench closes our stdin
            await loop.run_in_executor(None, sys.stdin.buffer.read)
        finally:
            transport.close()


# ---------------------------------------------------------------- the bench's side


class BareTable:
    """What ``e2e.one_event`` needs (``e2e.EventTable``), with the bare process in the
    daemon's place: the stamping board and the queue the subscriber puts alerts on."""

    def __init__(
        self, stamping: e2e.StampingBoard, placed: asyncio.Queue[tuple[float, str]]
    ) -> None:
        self._board = stamping
        self.placed = placed
        self.prev: tuple[int, bytes] | None = None
        self.n = 0

    @property
    def board(self) -> e2e.StampingBoard:
        return self._board


async def bare_run(port: int, events: int) -> dict[str, Any]:
    run = e2e.Run()
    placed: asyncio.Queue[tuple[float, str]] = asyncio.Queue()
    sub = ProcSubscriber(port, [ALERTS])
    sub.on_message = lambda t, _topic, body: placed.put_nowait((t, str(body.get("alert_id"))))
    await sub.start()
    cfg = SetConfig(scan_period_ms=e2e.SCAN_MS, changes_only=False)
    board = e2e.StampingBoard(SIX.antennas, config=cfg)
    path = await board.start_pty()
    board.last_antenna = max(e2e._antennas(SIX.zones()))
    here = Path(__file__).resolve()
    proc = subprocess.Popen(
        [sys.executable, str(here), "--child", path, str(port)], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, cwd=here.parents[1],
    )  # fmt: skip
    floor = Floor(port)
    try:
        assert proc.stdout is not None
        line = await asyncio.get_running_loop().run_in_executor(None, proc.stdout.readline)
        if line.strip() != b"ready":
            raise RuntimeError(f"the bare process did not start: {line!r}")
        await floor.start()
        await e2e.measure(BareTable(board, placed), run, events, floor)
        run.daemon_alive = proc.poll() is None
    finally:
        await floor.stop()
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        await board.stop()
        await sub.stop()
    out = e2e.summary(run)
    out.pop("stages", None)
    return out


KEYS = ("e2e_p50_ms", "e2e_p99_ms", "floor_p50_ms", "floor_p99_ms", "e2e_vs_floor",
        "e2e_vs_floor_p50", "proc_pty_p50_ms", "proc_pty_p99_ms", "e2e_vs_proc_floor",
        "timeouts")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--events", type=int, default=1500)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--daemon", action="store_true", help="alternate with bench/e2e.py's run")
    ap.add_argument("--child", nargs=2, metavar=("PTY", "PORT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        asyncio.run(child(args.child[0], int(args.child[1])))
        return 0
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="railguard-bare-") as tmp, plain_broker() as b:
        for r in range(args.rounds):
            got = asyncio.run(bare_run(b.port, args.events))
            runs.append({"run": "bare", **{k: got[k] for k in KEYS}})
            print(json.dumps(runs[-1]), file=sys.stderr)
            if args.daemon:
                work = Path(tmp) / f"daemon{r}"
                got = asyncio.run(e2e.run(b.port, args.events, work))
                runs.append({"run": "daemon", **{k: got[k] for k in KEYS}})
                print(json.dumps(runs[-1]), file=sys.stderr)
    print(json.dumps({"events": args.events, "runs": runs}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
