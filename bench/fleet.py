"""Fleet benches.

``run()`` (called by bench/run.py): one venue logger process (``railguard venue-log run``)
on SQLite and one mosquitto serving 100 simulated tables dealing at ten times human speed.
A "table" there is its own ``controller.link.VenueLink`` (own MQTT client, own SQLite outbox
on disk, birth/will, waits for the logger's online status, windowed sends, acknowledgements)
fed completed OHH hand records as the daemon stores them (controller/daemon/storage.py
``queue_record``): the record checked on the loop (``check_hand``), committed durably to
the outbox by a second connection on a thread (the daemon's outbox lane), then
``hand_stored`` tells the link to send it. (Until issue 23 the bench called ``submit_hand``,
which commits on the event loop: the 100 tables' ``fsync`` calls then blocked the one loop
all their links share, and the lag measured the bench's disk waits, not the daemon's path;
``run(..., inline_commit=True)`` keeps that way for comparison.) The rules core and the
reader are left out (their cost is per table, measured by the
other benches). A live table deals about 30 hands an hour; at ten times that, each table
completes a hand every 12 s (jittered). The OHH records are real ones: generated hands
replayed through the rules core and converted by ``controller.ohh.to_ohh``.

Lag: the logger's ``received_at`` (its store time) minus the table's ``ended_at`` (when the
record was handed to its outbox), both wall clock on this machine. Lost: submitted hand ids
that the logger does not hold once every outbox has drained.

The festival (issue 17; ``python bench/fleet.py --tables 500``, the rest in
bench/fleet_festival.py): one venue server with N tables (worker processes,
bench/fleet_tables.py: live state, events, alerts and hand records as the daemon publishes
them) into two logger instances sharing the subscription and one PostgreSQL, the floor
console (``railguard floor run``) open in headless chromium; records lost, logger lag,
alert-to-tile latency in the browser and CPU per process.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import random
import sqlite3
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.procs import ROOT, pct, wait_for
from controller.demo.hands import generated_hands
from controller.link import BrokerConfig, VenueLink
from controller.link.outbox import Outbox
from controller.ohh import to_ohh
from controller.replay import replay_core
from controller.rules.profile import get_profile
from hwsim.table import railguard_argv

HUMAN_HAND_S = 120.0  # a live table: about 30 hands an hour
SPEED = 10.0


def ohh_pool(n: int = 20, seed: int = 7) -> list[dict[str, Any]]:
    profile = get_profile("tda-2024")
    out = []
    for h in generated_hands(random.Random(seed), n, profile):
        rec, _ = replay_core(h.hh, profile)
        assert rec is not None
        out.append(to_ohh(rec, datetime.now(UTC), table_name="t", table_size=6))
    return out


async def _table(link: VenueLink, pool: list[dict[str, Any]], stop_at: float,
                 submitted: list[str], rng: random.Random,
                 lane: Outbox | None = None) -> None:  # fmt: skip
    """One table dealing until ``stop_at``; ``lane``: its outbox's second connection, which
    commits each record on a thread as the daemon's outbox lane does (None: on the loop,
    ``submit_hand``)."""
    period = HUMAN_HAND_S / SPEED
    await asyncio.sleep(min(rng.uniform(0, period), max(0.0, stop_at - time.monotonic())))
    n = 0
    while time.monotonic() < stop_at:
        n += 1
        hand_id = f"v1-{link.topics.table}-{n}"
        ohh = copy.deepcopy(pool[rng.randrange(len(pool))])
        ohh["game_number"] = hand_id
        ohh["table_name"] = link.topics.table
        ended = time.time()
        if lane is None:
            link.submit_hand(hand_id, n, ohh, ended_at=ended)
        else:
            body = link.check_hand(hand_id, n, ohh)
            await asyncio.to_thread(lane.add, hand_id, n, body, ended)
            link.hand_stored()
        submitted.append(hand_id)
        left = max(0.0, stop_at - time.monotonic())
        await asyncio.sleep(min(period * rng.uniform(0.8, 1.2), left))


async def run(port: int, tables: int, seconds: float, workdir: Path,
              inline_commit: bool = False) -> dict[str, Any]:  # fmt: skip
    """``inline_commit``: the tables commit their records on the event loop
    (``submit_hand``), as the bench did before issue 23."""
    workdir.mkdir(parents=True, exist_ok=True)
    db = workdir / "venue.db"
    with (workdir / "logger.log").open("ab") as logf:
        logger = subprocess.Popen(
            [*railguard_argv(), "venue-log", "run", "--db", str(db), "--host", "127.0.0.1",
             "--port", str(port), "--allow-plaintext"],
            stdout=logf, stderr=subprocess.STDOUT, cwd=ROOT,
        )  # fmt: skip
    broker = BrokerConfig(host="127.0.0.1", port=port, tls=False, allow_plaintext=True)
    links = [VenueLink(broker, "v1", f"t{i:03d}", workdir / f"t{i:03d}.db",
                       backoff=(0.2, 2.0)) for i in range(tables)]  # fmt: skip
    lanes: list[Outbox | None] = [None if inline_commit else Outbox(workdir / f"t{i:03d}.db")
                                  for i in range(tables)]  # fmt: skip
    pool = ohh_pool()
    submitted: list[str] = []
    rng = random.Random(11)
    try:
        for link in links:
            link.start()
        await wait_for(lambda: all(x.logger_online for x in links), "tables online", 60)
        t0 = time.monotonic()
        await asyncio.gather(*(_table(x, pool, t0 + seconds, submitted,
                                      random.Random(rng.random()), lane)
                               for x, lane in zip(links, lanes, strict=True)))  # fmt: skip
        dealt_s = time.monotonic() - t0
        with contextlib.suppress(TimeoutError):
            await wait_for(lambda: all(x.outbox.pending_count() == 0 and x.held_count == 0
                                       for x in links), "outboxes drained", 60)  # fmt: skip
        pending = sum(x.outbox.pending_count() + x.held_count for x in links)
    finally:
        for link in links:
            await link.stop()
            link.outbox.close()
        for lane in lanes:
            if lane is not None:
                lane.close()
        logger.terminate()
        try:
            logger.wait(10)
        except subprocess.TimeoutExpired:
            logger.kill()
            logger.wait(5)
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT hand_id, received_at, ended_at FROM hands").fetchall()
    finally:
        con.close()
    stored = {r[0] for r in rows}
    lags = [r[1] - r[2] for r in rows]
    lost = len(set(submitted) - stored)
    return {
        "fleet_tables": tables,
        "fleet_seconds": round(dealt_s, 1),
        "fleet_submitted": len(submitted),
        "fleet_records_per_s": round(len(rows) / dealt_s, 2),
        "fleet_lag_ms": round(statistics.median(lags) * 1e3, 2) if lags else -1.0,
        "fleet_lag_p99_ms": round(pct(lags, 0.99) * 1e3, 2) if lags else -1.0,
        "fleet_lost": lost,
        "fleet_pending_at_end": pending,
    }


if __name__ == "__main__":
    from bench.fleet_festival import main

    sys.exit(main())
