"""End-to-end latency: a frame written on the reader board's pty -> the alert it causes,
received by an MQTT subscriber through mosquitto; the floor (the bare pty hop plus the bare
broker publish-to-receive hop) measured interleaved with it; and where the daemon's own time
goes, stage by stage.

The table is the simulated table (``hwsim.table.SimTable``, six seats) with its daemon as its
own process (``process=True``: ``railguard run --config``, the table's config with a 10 ms
scan, and the board reporting every antenna every scan so that the frame completing the
debounce is a real frame; the daemon's default, changes-only reporting, confirms on its own
tick instead). The board (a SimBoard on a pty that stamps its frames) and the subscriber live
in this process.
Each event: a tag no deck knows is placed on a hole-card antenna of a table without a
button; the daemon's core rejects the card ("place the button first") and the daemon
publishes a REJECTED alert. The clock starts when the board writes the frame that completes
the debounce (the ``debounce_cycles``-th consecutive frame carrying the tag: before it the
daemon cannot know) and stops when the alert arrives. One event in flight; the previous tag
is taken off as the next one is placed (its removal alert is told apart by its text).

**The floor, interleaved.** After every event, one bare pty sample (30 bytes written on a
pty's master until this process's loop has read them from the slave) and one bare broker
sample (aiomqtt QoS 1 publish -> receive through the same mosquitto, TCP_NODELAY on both
clients as the daemon's link has): the floor's samples are spread over the same minutes as
the end-to-end ones, so a stall of the machine falls on both alike. A third sample, the same
pty hop read by a process of its own blocked in ``read`` (``bench.hops.ProcPtyHop``,
bench/pty_process.py), checks the floor against the wake a separate reader (the daemon) must
have: ``e2e_vs_proc_floor``. ``e2e_vs_floor``, the target's figure, stays the in-process one.

**The bench's own collector** is kept out of the measured windows (``bench_collector``): this
process plays the board and the venue's subscriber, and its gen-1 collections (about 1 ms,
one in 60 events) fell into the end-to-end samples more often than into the shorter floor
ones; what start-up built is frozen, automatic collection is off during the run, and the
young generations are collected between two events every ``COLLECT_EVERY``.

**The stages.** The daemon runs with ``RAILGUARD_STAGE_TRACE`` (controller/daemon/trace.py):
``time.monotonic_ns()`` stamps at each stage of each alert, written to a file when it stops,
matched here to the bench's own stamps by the alert id (the bench's ``time.perf_counter`` is
the same CLOCK_MONOTONIC on Linux; checked at start). The pty hop is from the board's write of
the frame the daemon acted on (the confirming frame: the tracker confirms a card at its frame
when nothing else in the cycle can come first, firmware_bridge/antennas.py; else the cycle's
last mapped antenna's frame, which closes it) to the daemon having it decoded; the broker hop
from the daemon's encoded message, right before aiomqtt's publish, to the subscriber's
receipt: each is compared with its own bare floor.

**The subscriber in its own process** (``bench.procs.ProcSubscriber``, bench/sub_process.py),
for the alerts and for the bare broker hop alike: in this process it shared the event loop
with the simulated board, whose scan (16 frame writes, one callback, about 60 us of Python a
frame) held off the alert's receipt until the scan was written; the venue's subscriber is
another machine, the board other hardware.

    .venv/bin/python bench/e2e.py [--events 1000]    # its own broker; prints one JSON object
    .venv/bin/python bench/e2e.py --stages           # the stage table as text, too
    .venv/bin/python bench/e2e.py --console 200      # and the console stage (bench/e2e_console.py)
    .venv/bin/python bench/e2e.py --sources DIR      # the daemon from other sources (A/B)

``--sources DIR``: the daemon imports ``controller`` (and the rest) from DIR first
(``PYTHONPATH``), e.g. ``git archive BASE controller hwsim firmware_bridge | tar -x -C DIR``
for a same-machine comparison with an older commit; the bench itself stays this checkout's.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import psutil

if __name__ == "__main__":  # run as a script: the checkout's packages first
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.hops import Floor
from bench.procs import ProcSubscriber, pct
from controller.daemon.trace import ENV as TRACE_ENV
from controller.daemon.trace import STAMPS
from controller.demo.table import HOLE
from firmware_bridge.protocol import Message
from firmware_bridge.snapshots import AntennaSnapshot
from hwsim.board import SimBoard
from hwsim.broker import plain_broker
from hwsim.layout import SIX
from hwsim.table import DaemonChild, SimTable

SCAN_MS = 10
DEBOUNCE = 2
BASE = "railguard/v1/t1"
PLACED_TEXT = "place the button first"
WARMUP = 20
COLLECT_EVERY = 50  # events between two collections of this process's (bench_collector)

#: the daemon's stages: (name, from stamp, to stamp); "board" is the bench's write of the
#: frame, "sub" the subscriber's receipt (docs/performance.md explains each)
STAGES = (
    ("pty hop", "board", "read"),
    ("tracker", "read", "queued"),
    ("queue wait", "queued", "taken"),
    ("before core", "taken", "core_in"),
    ("core", "core_in", "core_out"),
    ("rejection log + payload", "core_out", "payload"),
    ("guard + schema + stamp + JSON", "payload", "encoded"),
    ("broker hop", "encoded", "sub"),
    ("daemon total", "read", "encoded"),
    # after the alert went out (off its path since issue 23; the direct path, trace.py)
    ("publish (socket write)", "encoded", "checked"),
    ("alert log line", "checked", "logged"),
    ("indicator", "logged", "lit"),
    ("rest of the event", "lit", "handled"),
    ("to the writer (PUBACK wait)", "handled", "dequeued"),
)


class StampingBoard(SimBoard):
    """A SimBoard that notes when it writes each frame carrying the watched tag, and when it
    writes the last mapped antenna's frame of each cycle (``last_antenna``)."""

    watch: tuple[int, bytes] | None = None
    last_antenna = 0

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.stamps: list[tuple[float, int]] = []  # (time, cycle)
        self.cycle_end: dict[int, float] = {}

    def _send(self, message: Message) -> None:
        # stamped just before the write: once written, the daemon may read the frame before
        # this thread runs again, so a stamp taken after the write could follow the read
        if isinstance(message, AntennaSnapshot):
            w = self.watch
            now = time.perf_counter()
            if (w is not None and message.antenna == w[0]
                    and any(t.uid == w[1] for t in message.tags)):  # fmt: skip
                self.stamps.append((now, message.cycle))
            if message.antenna == self.last_antenna:
                self.cycle_end[message.cycle] = now
                self.cycle_end.pop(message.cycle - 100, None)
        super()._send(message)


def _antennas(zones: Any) -> list[int]:
    """Every antenna number in a [zones] mapping (numbers, lists, tables of them)."""
    if isinstance(zones, bool):
        return []
    if isinstance(zones, int):
        return [zones]
    if isinstance(zones, dict):
        return [a for k, v in zones.items() if k != "seats" for a in _antennas(v)]
    if isinstance(zones, list | tuple):
        return [a for v in zones for a in _antennas(v)]
    return []


@dataclass
class Sample:
    """One event as the bench saw it: perf_counter seconds."""

    alert_id: str
    frame: float  # the board wrote the frame that completed the debounce
    cycle_end: float | None  # ...and the cycle's last mapped antenna's frame
    received: float  # the subscriber got the alert


@dataclass
class Run:
    samples: list[Sample] = field(default_factory=list)
    pty: list[float] = field(default_factory=list)
    proc_pty: list[float] = field(default_factory=list)
    broker: list[float] = field(default_factory=list)
    timeouts: int = 0
    daemon_alive: bool = False
    daemon_cpu_s: float = 0.0
    stages: dict[str, dict[str, int]] = field(default_factory=dict)  # alert id -> stamps


def check_clocks() -> None:
    """The daemon's stamps are CLOCK_MONOTONIC (time.monotonic_ns); this process's
    perf_counter must be the same clock for the stages to line up."""
    for name in ("perf_counter", "monotonic"):
        impl = time.get_clock_info(name).implementation
        if "CLOCK_MONOTONIC" not in impl or "RAW" in impl:
            raise RuntimeError(f"time.{name} is {impl}: the stage stamps need CLOCK_MONOTONIC")


@dataclass
class Table:
    """The simulated table (its daemon a process, its board stamping), a subscriber to the
    daemon's alerts."""

    sim: SimTable
    sub: ProcSubscriber
    placed: asyncio.Queue[tuple[float, str]]
    trace: Path
    prev: tuple[int, bytes] | None = None
    n: int = 0

    @property
    def board(self) -> StampingBoard:
        assert isinstance(self.sim.board, StampingBoard)
        return self.sim.board

    @property
    def daemon(self) -> DaemonChild:
        assert self.sim.child is not None
        return self.sim.child


async def open_table(port: int, workdir: Path, env: dict[str, str] | None = None,
                     board_type: type[StampingBoard] | None = None) -> Table:  # fmt: skip
    """The simulated table of six seats (16 antennas) with its daemon a process
    (:class:`hwsim.table.SimTable`, ``process=True``) and a stamping board: a 10 ms scan,
    and every antenna every scan, so that the frame that completes the debounce is a frame
    the board writes at a known moment (with changes-only reporting the confirmation comes
    from the daemon's own tick and no frame marks it; the path measured after it is the
    same). ``board_type``: a StampingBoard of the caller's (bench/e2e_phase.py)."""
    trace = workdir / "stages.jsonl"
    sub = ProcSubscriber(port, [f"{BASE}/alerts", f"{BASE}/status", f"{BASE}/cmd/response"])
    placed: asyncio.Queue[tuple[float, str]] = asyncio.Queue()

    def on_msg(t: float, topic: str, body: Any) -> None:
        if topic.endswith("/alerts") and PLACED_TEXT in str(body.get("remedy", "")):
            placed.put_nowait((t, str(body.get("alert_id"))))

    sub.on_message = on_msg
    await sub.start()
    try:
        sim = await SimTable.open(
            "127.0.0.1", port, profile="tda-2024", workdir=workdir, seats=SIX,
            transport="pty", process=True, board_type=board_type or StampingBoard,
            scan_period_ms=SCAN_MS,
            timing={"debounce_cycles": DEBOUNCE},
            settings={"reader": {"changes_only": False}, "log": {"level": "INFO"}},
            env={TRACE_ENV: str(trace), **(env or {})}, enrol=False, topics=("status",),
        )  # fmt: skip
    except BaseException:
        await sub.stop()
        raise
    table = Table(sim, sub, placed, trace)
    table.board.last_antenna = max(_antennas(sim.layout.zones()))
    await asyncio.sleep(0.3)
    return table


class EventTable(Protocol):
    """What :func:`one_event` needs of a table: its stamping board, the queue its
    subscriber puts each placement's alert on, the tag placed last and the events so far
    (:class:`Table`; bench/e2e_bare.py's ``BareTable``)."""

    placed: asyncio.Queue[tuple[float, str]]
    prev: tuple[int, bytes] | None
    n: int

    @property
    def board(self) -> StampingBoard: ...


async def one_event(table: EventTable, timeout: float = 2.0) -> Sample | None:
    """Place the next unknown tag (taking the previous one off) and wait for its alert."""
    i, board = table.n, table.board
    table.n += 1
    ant = HOLE[1 + i % 6]
    uid = bytes([0xEE, 0xB0, (i >> 16) & 0xFF, (i >> 8) & 0xFF, i & 0xFF, 0, 1])
    while not table.placed.empty():
        table.placed.get_nowait()
    board.stamps = []
    board.watch = (ant, uid)
    if table.prev is not None:
        board.remove(*table.prev)
    board.place(ant, uid)
    table.prev = (ant, uid)
    try:
        got, aid = await asyncio.wait_for(table.placed.get(), timeout)
    except TimeoutError:
        return None
    if len(board.stamps) < DEBOUNCE:
        return None
    stamp, cycle = board.stamps[DEBOUNCE - 1]
    return Sample(aid, stamp, board.cycle_end.get(cycle), got)


async def close_table(table: Table) -> dict[str, dict[str, int]]:
    """Stop the daemon (which writes its stage stamps) and the rest; the stamps by alert id."""
    await table.sim.close()
    await table.sub.stop()
    return read_trace(table.trace)


def read_trace(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        aid = str(rec.pop("alert_id"))
        out[aid] = {k: int(v) for k, v in rec.items()}
    return out


async def daemon_e2e(port: int, events: int, workdir: Path,
                     env: dict[str, str] | None = None) -> Run:  # fmt: skip
    run = Run()
    table = await open_table(port, workdir, env)
    floor = Floor(port)
    try:
        await floor.start()
        await measure(table, run, events, floor)
        run.daemon_alive = table.daemon.alive()
        if run.daemon_alive:  # the daemon's CPU over the whole run, start-up included
            cpu = psutil.Process(table.daemon.pid).cpu_times()
            run.daemon_cpu_s = cpu.user + cpu.system
    finally:
        await floor.stop()
        run.stages = await close_table(table)
    return run


async def measure(table: EventTable, run: Run, events: int, floor: Floor) -> None:
    """``WARMUP`` events and then ``events`` more into ``run``, each followed by one sample of
    each hop of the floor (the same minutes as the events: a stall falls on both)."""
    with bench_collector():
        for i in range(events + WARMUP):
            s = await one_event(table)
            hops = await floor.sample()  # the floor, between events
            if i % COLLECT_EVERY == 0:
                gc.collect(1)  # nothing is measured now: no alert in flight
            if i < WARMUP:
                continue
            if s is None:
                run.timeouts += 1
            else:
                run.samples.append(s)
            run.pty.append(hops[0])
            run.proc_pty.append(hops[1])
            run.broker.append(hops[2])


@contextmanager
def bench_collector() -> Iterator[None]:
    """This process's garbage collector kept out of the measured windows: what start-up
    built frozen, automatic collections off, and a collection of the young generations run
    between two events every ``COLLECT_EVERY`` (``daemon_e2e``). The bench plays the board
    and the venue's subscriber, which collect no garbage of the daemon's making: left on,
    its collections (a gen-1 one about 1 ms, one in 60 events) fell into the end-to-end
    samples more often than into the shorter floor ones."""
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.unfreeze()


def direct(stamps: dict[str, int] | None) -> bool:
    """Whether the link wrote the alert from ``publish_alert`` (its direct path)."""
    return stamps is not None and stamps["encoded"] <= stamps["checked"]


def stage_values(run: Run) -> dict[str, list[float]]:
    """Seconds per stage (STAGES), over the events whose stamps the daemon wrote."""
    out: dict[str, list[float]] = {name: [] for name, _, _ in STAGES}
    for s in run.samples:
        st = run.stages.get(s.alert_id)
        if st is None or s.cycle_end is None or not st.get("read"):
            continue
        t = {k: v / 1e9 for k, v in st.items()}
        # the frame the daemon acted on: the confirming frame itself (the tracker confirms a
        # lone card at its frame, firmware_bridge/antennas.py) when the daemon had it before
        # the cycle's last frame was written, else that last frame (the cycle's close)
        t["board"] = s.frame if t["read"] < s.cycle_end else s.cycle_end
        t["sub"] = s.received
        for name, a, b in STAGES:
            out[name].append(t[b] - t[a])
    return out


def _before_end(s: Sample, stages: dict[str, dict[str, int]]) -> bool:
    st = stages.get(s.alert_id)
    return (st is not None and s.cycle_end is not None and bool(st.get("read"))
            and st["read"] / 1e9 < s.cycle_end)  # fmt: skip


def ms(x: float) -> float:
    return round(x * 1e3, 3)


def against_floor(lat: list[float], pty: list[float], broker: list[float],
                  tag: str) -> dict[str, float]:  # fmt: skip
    """A pty hop's figures, the floor it makes with the broker hop (the sum of their p50s,
    of their p99s) and the end-to-end latencies' ratios to that floor; ``tag`` prefixes
    the keys (``pty_p50_ms``, ``floor_p99_ms``, ``e2e_vs_floor``...)."""
    p50 = statistics.median(pty) + statistics.median(broker)
    p99 = pct(pty, 0.99) + pct(broker, 0.99)
    return {
        f"{tag}pty_p50_ms": ms(statistics.median(pty)),
        f"{tag}pty_p99_ms": ms(pct(pty, 0.99)),
        f"{tag}floor_p50_ms": ms(p50),
        f"{tag}floor_p99_ms": ms(p99),
        f"e2e_vs_{tag}floor": round(pct(lat, 0.99) / p99, 2),
        f"e2e_vs_{tag}floor_p50": round(statistics.median(lat) / p50, 2),
    }


def summary(run: Run) -> dict[str, Any]:
    lat = [s.received - s.frame for s in run.samples]
    if not lat:
        raise RuntimeError("no alert arrived (see the daemon's log)")
    lat_end = [s.received - s.cycle_end for s in run.samples if s.cycle_end is not None]
    pty, broker = run.pty, run.broker
    stages = stage_values(run)
    floor_of = {"pty hop": pty, "broker hop": broker}
    table: dict[str, dict[str, float]] = {}
    for name, values in stages.items():
        if not values:
            continue
        row = {"p50_ms": ms(statistics.median(values)), "p99_ms": ms(pct(values, 0.99))}
        base = floor_of.get(name)
        if base is not None:
            row["floor_p50_ms"] = ms(statistics.median(base))
            row["vs_floor_p50"] = round(statistics.median(values) / statistics.median(base), 2)
        table[name] = row
    return {
        "events": len(lat),
        "timeouts": run.timeouts,
        "daemon_alive": run.daemon_alive,
        "daemon_cpu_s": round(run.daemon_cpu_s, 2),  # start-up included (about 1 s)
        "e2e_p50_ms": ms(statistics.median(lat)),
        "e2e_p99_ms": ms(pct(lat, 0.99)),
        "e2e_max_ms": ms(max(lat)),
        "broker_p50_ms": ms(statistics.median(broker)),
        "broker_p99_ms": ms(pct(broker, 0.99)),
        **against_floor(lat, pty, broker, ""),  # the target's figure: e2e_vs_floor
        **against_floor(lat, run.proc_pty, broker, "proc_"),
        # the same events from the last frame of the confirming cycle (antennas up to 14,
        # about 60 us of the bench's Python a frame after the watched one): the daemon acts
        # at the confirming frame when it can (below the end-to-end figure's distance from
        # this one) and at the cycle's close otherwise
        "e2e_from_cycle_end_p50_ms": ms(statistics.median(lat_end)) if lat_end else None,
        "e2e_from_cycle_end_p99_ms": ms(pct(lat_end, 0.99)) if lat_end else None,
        "stages_matched": len(stages["daemon total"]),
        # events whose frame the daemon had before the board wrote the cycle's last frame
        # (acted on at the confirming frame, firmware_bridge/antennas.py)
        "before_cycle_end": sum(1 for s in run.samples if _before_end(s, run.stages)),
        # alerts written to the socket by publish_alert itself (the link idle), the rest
        # waited in the link's queue behind another message (controller/daemon/trace.py)
        "direct": sum(1 for s in run.samples if direct(run.stages.get(s.alert_id))),
        "stages": table,
    }


def stage_text(r: dict[str, Any]) -> str:
    """The stage table of a summary, as text."""
    lines = [f"{'stage':<30} {'p50 ms':>8} {'p99 ms':>8}  floor p50 (ratio)"]
    for name, row in r["stages"].items():
        extra = ""
        if "floor_p50_ms" in row:
            extra = f"  {row['floor_p50_ms']:.3f} ({row['vs_floor_p50']}x)"
        lines.append(f"{name:<30} {row['p50_ms']:>8.3f} {row['p99_ms']:>8.3f}{extra}")
    lines.append(f"end to end (from the cycle's last frame): p50 {r['e2e_from_cycle_end_p50_ms']}"
                 f" ms, p99 {r['e2e_from_cycle_end_p99_ms']} ms; floor p50 {r['floor_p50_ms']}"
                 f" ms, p99 {r['floor_p99_ms']} ms")  # fmt: skip
    return "\n".join(lines)


async def run(port: int, events: int, workdir: Path, sources: Path | None = None) -> dict[str, Any]:
    """The end-to-end run with its floor interleaved (the bench/run.py entry point);
    ``sources``: a directory the daemon imports its packages from first (A/B runs)."""
    check_clocks()
    env = None if sources is None else {"PYTHONPATH": str(sources.resolve())}
    return summary(await daemon_e2e(port, events, workdir, env))


@contextmanager
def _workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="railguard-e2e-") as tmp:
        yield Path(tmp)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--events", type=int, default=1000, help="events (bench/run.py: 5000)")
    ap.add_argument("--stages", action="store_true", help="print the stage table as text")
    ap.add_argument("--console", type=int, default=0, metavar="N",
                    help="then N events with the floor console and chromium watching")  # fmt: skip
    ap.add_argument("--sources", type=Path, default=None, metavar="DIR",
                    help="import the daemon's packages from DIR first")  # fmt: skip
    args = ap.parse_args(argv)
    if args.sources is not None and not (args.sources / "controller").is_dir():
        ap.error(f"--sources {args.sources}: no controller package in it")
    if args.events < 1:
        ap.error("--events must be at least 1")
    console: Callable[[int, int, Path], Any] | None = None
    if args.console:
        from bench.e2e_console import run as console_run

        console = console_run
    with _workdir() as tmp, plain_broker() as b:
        r = asyncio.run(run(b.port, args.events, tmp / "e2e", args.sources))
        if console is not None:
            r["console"] = asyncio.run(console(b.port, args.console, tmp / "console"))
    print(json.dumps(r))
    if args.stages:
        print(stage_text(r), file=sys.stderr)
        if "console" in r:
            from bench.e2e_console import text as console_text

            print(console_text(r["console"]), file=sys.stderr)
    return 0


assert {a for _, a, _ in STAGES} | {b for _, _, b in STAGES} <= {*STAMPS, "board", "sub"}

if __name__ == "__main__":
    sys.exit(main())
